"""audeval: evaluate time-annotated audio labels on pandas/audformat objects.

The public API is flat: every metric is importable from ``audeval``;
source separation lives in :mod:`audeval.separation`.
"""

__version__ = "0.1.0"

# One line per metric family; each private module lists its public names in __all__.
from audeval._events import *  # noqa: F401,F403
from audeval._accumulate import *  # noqa: F401,F403
from audeval._diarization import *  # noqa: F401,F403
from audeval._readers import *  # noqa: F401,F403
from audeval._structure import *  # noqa: F401,F403
from audeval._segments import *  # noqa: F401,F403
