"""Rater agreement and disagreement for annotation QA (SPEC section 11).

Several raters label the same files.
Every function takes ``annotations``: a mapping rater -> Series
(audformat segmented or filewise index), an audformat Database
(its columns with a ``rater_id``, see :func:`rater_annotations`),
or two Series ``(truth, prediction)``.

* :func:`agreement_statistics`: additive coincidence durations per file and category;
  :func:`cohen_kappa`, :func:`fleiss_kappa`, :func:`krippendorff_alpha` reduce them
  (time-weighted, continuous time, or frames with ``frame_size``);
  with ``level="ordinal" | "interval" | "ratio"`` the labels are values of a scale
  and the table holds their whole coincidence matrix (:mod:`audeval._agreement.scales`)
* :func:`unitized_alpha`: Krippendorff's unitizing alpha (boundaries and labels)
* :func:`agreement_matrix`: any metric of audeval for every ordered pair of raters
* :func:`disagreements`: the spans where raters differ
* :func:`consensus`: majority-vote segments
"""

from audeval._agreement.inputs import as_mapping
from audeval._agreement.inputs import rater_annotations
from audeval._agreement.metrics import cohen_kappa
from audeval._agreement.metrics import fleiss_kappa
from audeval._agreement.metrics import krippendorff_alpha
from audeval._agreement.spans import consensus
from audeval._agreement.spans import disagreements
from audeval._agreement import reductions
from audeval._agreement.options import AGREEMENT
from audeval._agreement.options import BLOCK
from audeval._agreement.options import COLUMNS
from audeval._agreement.options import OPTIONS
from audeval._agreement.options import normalise
from audeval._agreement.statistics import NO_LABEL
from audeval._agreement.statistics import agreement_statistics
from audeval._agreement.statistics import fill_missing
from audeval._agreement.unitizing import unitized_alpha
from audeval._core.protocol import Family


__all__ = [
    "agreement_statistics",
    "cohen_kappa",
    "consensus",
    "disagreements",
    "fleiss_kappa",
    "krippendorff_alpha",
    "rater_annotations",
    "unitized_alpha",
]


FAMILY = Family(
    name="agreement",
    statistics=agreement_statistics,
    index=("file", "label"),
    options=OPTIONS,
    metrics=(cohen_kappa, fleiss_kappa, krippendorff_alpha),
    # labels= selects label rows only of per_label tables; the metrics' own gate
    # checks that, the generic layers pass labels to agreement_statistics
    cross_label=(cohen_kappa, fleiss_kappa, krippendorff_alpha),
    report=None,
    pooled=True,
    single_input=True,
    columns=COLUMNS,
    fill_missing=fill_missing,
    normalise=normalise,
    dense=True,
    label_blocks=(BLOCK,),
    reduce=reductions.reduce,
)
"""The agreement family's one declaration (read by the registry)."""
