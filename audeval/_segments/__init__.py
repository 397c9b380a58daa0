r"""Segment-based metrics (SPEC section 4): sed_eval, DCASE, MIREX 2018.

Time is cut into segments of ``time_resolution`` seconds,
segment :math:`k` being :math:`[k r, (k + 1) r)`.
A segment is *active* for a label when an event of that label
overlaps it with positive length;
overlapping events of one label count once.
Per file, label and segment,
truth and prediction activity give a true positive (both active),
false positive (prediction only), false negative (truth only)
or true negative (neither).

**No frames are materialised.**
Every event becomes a range of segment indices
(:math:`\lfloor s / r \rfloor` to :math:`\lceil e / r \rceil`, exclusive,
cut at the evaluated length of its file).
Labels are the channels and segments the units of the core piece engine
(:func:`audeval._core.sweep_keyed.channel_totals`):
each ``(file, label)`` group owns a block of int64 keys
(``n_segments + 1`` of them, so groups never touch),
the ranges of a group are merged with one sort of their start keys,
and two sweeps over the boundaries of the merged ranges
(each boundary packed with its kind into one int64, plain sorts,
cumulative sums of +1 / -1) give
the segments where truth and prediction are both active, per group,
and, per file, the numbers of labels active in truth and in prediction
as piecewise constant functions of the segment index,
so that the overall substitutions
:math:`\sum_k \min(N_\text{ref}(k), N_\text{sys}(k)) - \text{TP}`
are sums over runs weighted by their length.
The cost grows with the number of events,
never with duration / ``time_resolution``.
(When all keys would not fit into :math:`2^{60}`,
the engine cuts the time into elementary pieces instead:
:func:`audeval._core.sweep.cut` and :func:`audeval._core.sweep.activity`.)

With ``time_resolution=None`` the same arithmetic runs on nanoseconds:
the exact continuous-time limit, statistics are durations.
"""


from audeval._core.protocol import Family
from audeval._segments import reductions
from audeval._segments.outcomes import outcome_runs, segment_activity
from audeval._segments.engine import _n_units
from audeval._segments.engine import _to_units
from audeval._segments.metrics import segment_accuracy
from audeval._segments.metrics import segment_error_rate
from audeval._segments.metrics import segment_error_rate_per_class
from audeval._segments.metrics import segment_fscore
from audeval._segments.metrics import segment_fscore_per_class
from audeval._segments.metrics import segment_precision_per_class
from audeval._segments.metrics import segment_recall_per_class
from audeval._segments.metrics import segment_report
from audeval._segments.options import COLUMNS
from audeval._segments.options import COMPAT
from audeval._segments.options import OPTIONS
from audeval._segments.options import REPORT_COLUMNS
from audeval._segments.options import SEGMENT
from audeval._segments.options import _check_resolution
from audeval._segments.options import normalise
from audeval._segments.statistics import fill_true_negatives
from audeval._segments.statistics import segment_statistics


__all__ = [
    "segment_accuracy",
    "segment_activity",
    "segment_error_rate",
    "segment_error_rate_per_class",
    "segment_fscore",
    "segment_fscore_per_class",
    "segment_precision_per_class",
    "segment_recall_per_class",
    "segment_report",
    "segment_statistics",
]


FAMILY = Family(
    name="segment",
    statistics=segment_statistics,
    index=("file", "label"),
    options=OPTIONS,
    metrics=(
        segment_precision_per_class,
        segment_recall_per_class,
        segment_fscore_per_class,
        segment_fscore,
        segment_error_rate,
        segment_error_rate_per_class,
        segment_accuracy,
        segment_report,
    ),
    cross_label=(segment_error_rate, segment_report),
    report=segment_report,
    columns=COLUMNS,
    fill_missing=fill_true_negatives,
    normalise=normalise,
    dense=True,
    reduce=reductions.reduce,
    coded_input=True,
)
"""The segment family's one declaration (read by the registry)."""
