"""Former engine module of the structure metrics, now the package :mod:`audeval._structure`.

Kept for the modules that import it (``audeval.plot``);
new code imports from the package's modules.
"""

from audeval._structure._boundaries import Boundaries
from audeval._structure._boundaries import _window_pairs
from audeval._structure._boundaries import boundaries
from audeval._structure._boundaries import deviation_scores
from audeval._structure._frames import Contingency
from audeval._structure._frames import contingency
from audeval._structure._frames import expected_mutual_information
from audeval._structure._prepare import Pieces
from audeval._structure._prepare import Prepared
from audeval._structure._prepare import prepare


__all__ = [
    "Boundaries",
    "Contingency",
    "Pieces",
    "Prepared",
    "boundaries",
    "contingency",
    "deviation_scores",
    "expected_mutual_information",
    "prepare",
]
