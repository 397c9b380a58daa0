"""Where the segment counts come from: runs of true positive, false negative and false positive time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._core.sweep_keyed import channel_runs
from audeval._segments.engine import _n_units, _to_units, _unit_range
from audeval._segments.gaps import fill_gaps
from audeval._segments.options import SEGMENT, resolution
from audeval._core.validation import NS_PER_SECOND, check_inputs, file_extent

OUTCOMES = ("tp", "fn", "fp")


def _to_ns(unit: np.ndarray, r_ns: int | None, r_seconds: float | None, compat: str | None) -> np.ndarray:
    """Unit boundaries as ns (exact time: they are ns)."""
    if r_ns is None:
        return unit
    if compat == "sed_eval":
        return np.round(unit * r_seconds * NS_PER_SECOND).astype(np.int64)
    return unit * r_ns


def outcome_runs(inputs, n_units: np.ndarray, units) -> dict[str, tuple]:
    """Runs of TP, FN and FP units per ``(file, label)`` group, as the statistics count them
    (``units(start, end)``: the grid; ``n_units``: evaluated units per file);
    each a ``(group, first, stop)`` triple sorted by ``(group, first)``:
    the runs of :func:`audeval._core.sweep_keyed.channel_runs` (labels as channels, units as time).
    """
    truth, prediction = (
        (side.file, side.label, *_unit_range(side, n_units, units)) for side in (inputs.truth, inputs.prediction)
    )
    group, first, stop, state = channel_runs(n_units, inputs.n_labels, truth, prediction)
    return {
        outcome: (group[state == value], first[state == value], stop[state == value])
        for outcome, value in (("tp", 3), ("fn", 1), ("fp", 2))
    }


def _activity(truth, prediction, labels, options) -> pd.DataFrame:
    """The body of :func:`segment_activity` (``options``: the checked options object)."""
    import audformat  # (heavy: loaded where an index is made, not with audeval)

    r_ns, r_seconds = resolution(options)
    inputs = check_inputs(truth, prediction, labels=labels, files_duration=options.files_duration)
    if options.gap_label is not None:
        inputs = fill_gaps(inputs, options.gap_label)
    n_units = _n_units(file_extent(inputs), r_ns, r_seconds, options.compat)
    runs = outcome_runs(inputs, n_units, lambda start, end: _to_units(start, end, r_ns, r_seconds, options.compat))
    group = np.concatenate([runs[o][0] for o in OUTCOMES])
    first = np.concatenate([runs[o][1] for o in OUTCOMES])
    stop = np.concatenate([runs[o][2] for o in OUTCOMES])
    outcome = np.repeat(np.arange(len(OUTCOMES)), [len(runs[o][0]) for o in OUTCOMES])
    order = np.lexsort((outcome, first, group))
    group, first, stop, outcome = group[order], first[order], stop[order], outcome[order]
    file, label = group // max(inputs.n_labels, 1), group % max(inputs.n_labels, 1)
    start_ns = _to_ns(first, r_ns, r_seconds, options.compat)
    end_ns = _to_ns(stop, r_ns, r_seconds, options.compat)
    index = audformat.segmented_index(
        np.asarray(inputs.files, dtype=object)[file],
        pd.to_timedelta(start_ns, unit="ns"),
        pd.to_timedelta(end_ns, unit="ns"),
    )
    count = stop - first
    return pd.DataFrame(
        {
            "label": pd.Categorical.from_codes(label, categories=list(inputs.labels)),
            "outcome": pd.Categorical.from_codes(outcome, categories=list(OUTCOMES)),
            "count": pd.to_timedelta(count, unit="ns") if r_ns is None else count,
        },
        index=index,
    )


@SEGMENT.statistics(_activity)
def segment_activity(
    truth: pd.Series,
    prediction: pd.Series,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    gap_label: object | None = None,
) -> pd.DataFrame:
    r"""The runs of segments behind the counts of :func:`audeval.segment_statistics`.

    One row per run of consecutive segments of one label in one file
    with the same outcome: ``"tp"`` (active in truth and prediction),
    ``"fn"`` (truth only) or ``"fp"`` (prediction only),
    on the grid of ``time_resolution`` (exact continuous time for ``None``).
    Per file and label, the ``count`` of the rows of an outcome is that column of
    :func:`audeval.segment_statistics` with the same options:
    :math:`\text{tp}_{f,l} = \sum_{\text{runs}} \text{count}` (segments, or a duration in exact time).
    This is what :func:`audeval.plot.segment_timeline` draws.

    Args:
        truth: ground truth Series (audformat segmented or filewise index)
        prediction: predicted Series
        labels: labels to evaluate, in order; rows with other labels are left out
        time_resolution: segment length in seconds (or ``pd.Timedelta``);
            ``None``: exact continuous time
        files_duration: mapping or Series from file to duration, the evaluated length;
            default: the latest end in truth or prediction per file
        compat: ``"sed_eval"`` reproduces sed_eval's float64 binning
        gap_label: a class for unannotated time (MIREX2018_eval's final code)

    Returns:
        a DataFrame with a segmented index (the run's start and end)
        and the columns ``label``, ``outcome`` and ``count``

    Examples:
        >>> import audformat
        >>> truth = pd.Series(["music"], index=audformat.segmented_index(["f"], [0], [4]))
        >>> prediction = pd.Series(["music"], index=audformat.segmented_index(["f"], [2], [6]))
        >>> segment_activity(truth, prediction)[["outcome", "count"]]
                                             outcome  count
        file start           end
        f    0 days 00:00:00 0 days 00:00:02      fn      2
             0 days 00:00:02 0 days 00:00:04      tp      2
             0 days 00:00:04 0 days 00:00:06      fp      2

    """
