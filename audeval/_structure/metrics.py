"""Structural segmentation metrics (SPEC section 5): the family gate, boundary metrics.

Every metric takes ``(truth, prediction)`` Series
or ``(table, None)`` with a table of :func:`structure_statistics`,
and reduces the per-file statistics with the same code both ways
(:mod:`audeval._structure.reductions`, :mod:`audeval._structure.statistics`).
"""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses

import numpy as np
import pandas as pd

from audeval._core.docs import fill
from audeval._structure import statistics as _table
from audeval._structure import reductions
from audeval._structure.options import STRUCTURE
from audeval._structure.options import settings
from audeval._structure.prepare import prepare
from audeval._core.validation import check_inputs
from audeval._core.validation import to_ns


# -------------------------------------------------------------------------
# The gate: Series or statistics table
# -------------------------------------------------------------------------


def compute(truth, prediction, options, groups: frozenset = _table.GROUPS, windows=None) -> pd.DataFrame:
    """The statistics of the column ``groups`` from Series (checked options)."""
    inputs = check_inputs(truth, prediction, files_duration=options.files_duration, duration_files=False)
    values = settings(options, windows)
    prep = prepare(inputs, truth, prediction, values.compat)
    return _table.statistics_table(prep, values, groups)


def gate(metric, truth, prediction, options) -> pd.DataFrame:
    """The statistics table of a metric call: computed from Series (only the column groups
    the metric reduces), or given and checked against the options the caller gave.

    With a table, ``window`` is not compared with the table's: the metric picks its column.
    """
    if prediction is not None:
        windows = options.windows if "windows" in metric.declared.options else None  # the report's
        return compute(truth, prediction, options, reductions.GROUPS[metric.__name__], windows)
    options = dataclasses.replace(options, given=options.given - {"window"})
    return STRUCTURE.table(metric, truth, prediction, None, options)


def window_ns(options) -> int | None:
    """The window a metric asks a table for (``None``: not given, the table's own)."""
    return to_ns(options.window, "window", allow_none=False) if "window" in options.given else None


def metric(name: str, empty: float = 0.0, *, single: bool = False, **kwargs):
    """Declare a structure metric: the means over files of its per-file values
    (``empty`` without files; ``single``: one value, not a tuple)."""

    def reduce(table, options):
        values = reductions.metric_values(
            name, table, beta=options.beta, window_ns=window_ns(options), marginal=options.marginal
        )
        means = tuple(_table.mean(v, empty) for v in values)
        return means[0] if single else means

    return STRUCTURE.metric(reduce, gate=gate, **kwargs)


# -------------------------------------------------------------------------
# Public functions
# -------------------------------------------------------------------------


@metric("boundary_detection", unused=("frame_size",))
@fill()
def boundary_detection(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    window: float | pd.Timedelta = 0.5,
    beta: float = 1.0,
    trim: bool = False,
    pad: bool = True,
    frame_size: float | pd.Timedelta | None = 0.1,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> tuple[float, float, float]:
    r"""Boundary detection precision, recall and F-measure.

    A predicted and a true boundary of a file *hit*
    when they are at most ``window`` apart (inclusive, exact nanoseconds).
    Each boundary is used at most once;
    the number of hits :math:`h` is a maximum matching
    (as ``mir_eval.segment.detection``).
    Per file, with :math:`B_t`, :math:`B_p` true and predicted boundaries:

    .. math::

        P = \frac{h}{|B_p|}, \quad R = \frac{h}{|B_t|}, \quad
        F_\beta = \frac{(1 + \beta^2) P R}{\beta^2 P + R}

    Boundaries are the start and end times of all segments
    after the preprocessing of :func:`structure_report`,
    so 0 and the track end ``T`` are boundaries of both sides
    (``pad=True``: the values of ``mir_eval.segment.evaluate``).
    ``pad=False`` takes the start and end times of the rows as given,
    without padding or cropping
    (the values of ``mir_eval.segment.detection`` called on the rows).

    Args:
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        window: largest distance of a hit, in seconds or as timedelta
        {beta}
        trim: leave out the first and last boundary of each side
            (0 and ``T``)
        pad: apply ``mir_eval.segment.evaluate``'s padding and cropping
            (as :func:`structure_report`); ``False``: the boundaries of the rows
            as given (``mir_eval.segment.detection`` / ``deviation`` called directly)
        frame_size: frame hop of the statistics' clustering sums,
            declared unused here (``.declared.unused``): no effect on boundaries;
            kept in the signature; with a table, checked against the table's
        {files_duration}
        compat: ``"mir_eval"`` to reproduce mir_eval
            (boundaries rounded to 10 µs, float64 window)

    Returns:
        precision, recall, F-measure: means over files
        (0.0 each without files, as mir_eval for empty input)

    Raises:
        ValueError: if segments of one side overlap within a file,
            or have zero length

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> [round(v, 3) for v in boundary_detection(truth, prediction)]
        [0.75, 1.0, 0.857]
        >>> [round(v, 3) for v in boundary_detection(truth, prediction, trim=True)]
        [0.5, 1.0, 0.667]

        Rows as given (``mir_eval.segment.detection``) or padded to start at 0
        (``mir_eval.segment.evaluate``):

        >>> late = pd.Series(["a", "b"], index=audformat.segmented_index(["b", "b"], [1, 2], [2, 3]))
        >>> early = pd.Series(["x", "y"], index=audformat.segmented_index(["b", "b"], [0, 2], [2, 3]))
        >>> [round(v, 3) for v in boundary_detection(late, early, pad=False)]
        [0.667, 0.667, 0.667]
        >>> [round(v, 3) for v in boundary_detection(late, early)]
        [1.0, 0.75, 0.857]

    """


@metric("boundary_deviation", np.nan, unused=("frame_size",))
@fill()
def boundary_deviation(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    trim: bool = False,
    pad: bool = True,
    frame_size: float | pd.Timedelta | None = 0.1,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> tuple[float, float]:
    r"""Median distance from each boundary to the nearest one of the other side.

    Per file:

    .. math::

        D_{t \to p} = \operatorname{median}_{b \in B_t} \min_{c \in B_p} |b - c|,
        \quad
        D_{p \to t} = \operatorname{median}_{c \in B_p} \min_{b \in B_t} |b - c|

    in seconds, NaN when a side has no boundary (see the module table).
    Boundaries as in :func:`boundary_detection`:
    ``pad=True`` gives the values of ``mir_eval.segment.evaluate``,
    ``pad=False`` those of ``mir_eval.segment.deviation`` called on the rows.

    Args:
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        trim: leave out the first and last boundary of each side
        pad: apply ``mir_eval.segment.evaluate``'s padding and cropping
            (as :func:`structure_report`); ``False``: the boundaries of the rows
            as given (``mir_eval.segment.detection`` / ``deviation`` called directly)
        frame_size: frame hop of the statistics' clustering sums,
            declared unused here (``.declared.unused``): no effect on boundaries;
            kept in the signature; with a table, checked against the table's
        {files_duration}
        compat: ``"mir_eval"`` to reproduce mir_eval

    Returns:
        truth-to-prediction and prediction-to-truth deviation
        (mir_eval's "Ref-to-est" and "Est-to-ref"): means over files
        (NaN without files, as mir_eval for empty input)

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> [round(v, 3) for v in boundary_deviation(truth, prediction)]
        [0.0, 0.1]

    """
