"""Event-based metrics (SPEC section 3).

The pipeline is the same for every metric of the family:

1. :func:`audeval._core.validation.check_inputs` validates both Series;
2. :func:`match_events` finds candidate pairs with the interval engine
   (one window join over all ``(file, label)`` groups)
   and matches them (maximum or greedy),
   then pairs leftovers of other labels as substitutions;
3. :func:`event_statistics` counts per ``(file, label)``;
4. each metric is a reduction of the (summed) statistics table.
"""


from audeval._events.matching import EventMatch
from audeval._events.matching import match_events
from audeval._events.metrics import event_confusion_matrix
from audeval._events.metrics import event_error_rate
from audeval._events.metrics import event_error_rate_per_class
from audeval._events.metrics import event_fscore
from audeval._events.metrics import event_fscore_per_class
from audeval._events.metrics import event_precision_per_class
from audeval._events.metrics import event_recall_per_class
from audeval._events.metrics import event_report
from audeval._events.metrics import event_unweighted_average_fscore
from audeval._events import reductions
from audeval._events.options import COLUMNS
from audeval._events.options import CONFUSION_PREFIX
from audeval._events.options import EVENT
from audeval._events.options import MATCHINGS
from audeval._events.options import OPTIONS
from audeval._events.options import Tolerance
from audeval._events.options import Tolerances
from audeval._events.options import normalise
from audeval._events.options import tolerances
from audeval._events.outcomes import event_outcomes
from audeval._events.reductions import class_wise
from audeval._events.reductions import overall
from audeval._events.statistics import confusion_columns
from audeval._events.statistics import event_statistics
from audeval._events.statistics import event_parts
from audeval._core.protocol import Family


__all__ = [
    "event_confusion_matrix",
    "event_error_rate",
    "event_error_rate_per_class",
    "event_fscore",
    "event_fscore_per_class",
    "event_precision_per_class",
    "event_recall_per_class",
    "event_report",
    "event_statistics",
    "event_unweighted_average_fscore",
]


FAMILY = Family(
    name="event",
    statistics=event_statistics,
    index=("file", "label"),
    options=OPTIONS,
    metrics=(
        event_precision_per_class,
        event_recall_per_class,
        event_fscore_per_class,
        event_unweighted_average_fscore,
        event_fscore,
        event_error_rate,
        event_error_rate_per_class,
        event_confusion_matrix,
        event_report,
    ),
    cross_label=(event_error_rate, event_confusion_matrix, event_report),
    report=event_report,
    columns=tuple(COLUMNS),
    requires=((event_confusion_matrix, {"confusion": True}),),
    normalise=normalise,
    label_blocks=(CONFUSION_PREFIX,),
    reduce=reductions.reduce,
    parts=event_parts,
    coded_input=True,
    sparse=True,
)
"""The event family's one declaration (read by the registry)."""
