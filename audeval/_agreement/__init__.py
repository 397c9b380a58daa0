"""Rater agreement and disagreement (SPEC section 11)."""

from audeval._agreement.inputs import rater_annotations
from audeval._agreement.statistics import NO_LABEL
from audeval._agreement.statistics import agreement_statistics
from audeval._agreement.metrics import cohen_kappa
from audeval._agreement.metrics import fleiss_kappa
from audeval._agreement.metrics import krippendorff_alpha
from audeval._agreement.spans import consensus
from audeval._agreement.spans import disagreements
