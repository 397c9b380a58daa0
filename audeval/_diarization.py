r"""Detection and diarization error rates (SPEC section 6).

Duration-based metrics for activity (speech, music, ...) and speaker annotations,
computed from additive tables of durations per file,
with the numbers of pyannote.metrics and audmetric.

How the durations are obtained, for every file at once:

1. the scored region of a file is ``[0, duration]`` from ``files_duration``,
   else the union of the extents of truth and prediction
   (pyannote.metrics' rule, with a warning);
   collars around truth boundaries and, with ``skip_overlap``,
   regions where two or more truth labels are active
   are taken out of it;
2. the intervals of each label are merged per file
   (a label that overlaps itself counts once)
   and cropped to the scored region;
3. one sweep over the sorted boundaries of each file
   cuts it into elementary segments;
   per segment the numbers of active truth and predicted labels
   give miss, false alarm and the time that can be confused,
   and the pairs of labels active together give the co-occurrence durations;
4. the label mapping (optimal or greedy, per file or over all files)
   is solved on the sparse co-occurrence table.

All times are int64 nanoseconds until the very end.
"""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses
import itertools
import warnings

import numpy as np
import pandas as pd
import scipy.optimize
import scipy.sparse
import scipy.sparse.csgraph

from audeval._intervals import expand_ranges
from audeval._intervals import group_keys
from audeval._intervals import group_min_max
from audeval._intervals import group_sum
from audeval._intervals import intersect
from audeval._intervals import merge
from audeval._intervals import overlap_join
from audeval._intervals import total_length
from audeval._scores import check_zero_division
from audeval._scores import divide
from audeval._scores import fscore
from audeval._tables import label_index
from audeval._validation import NAT
from audeval._validation import NS_PER_SECOND
from audeval._validation import check_inputs
from audeval._validation import check_option
from audeval._validation import to_ns


__all__ = [
    "detection_error_rate",
    "detection_report",
    "detection_statistics",
    "diarization_error_rate",
    "diarization_report",
    "diarization_statistics",
    "identification_error_rate",
    "jaccard_error_rate",
]

MAPPINGS = ("optimal", "greedy")
TOTAL_ROW = "TOTAL"
DETECTION_COLUMNS = ["true_positive", "false_alarm", "miss", "true_negative"]
DIARIZATION_COLUMNS = ["total", "miss", "false_alarm", "duration"]
_EMPTY = np.zeros(0, dtype=np.int64)


# -------------------------------------------------------------------------
# Scored region and cropping
# -------------------------------------------------------------------------


def _merge_labels(side, n_files: int, n_labels: int):
    """Union of the intervals of each (file, label): file, label, start, end."""
    return _merge_labels_arrays(n_files, n_labels, side.file, side.label, side.start, side.end)


def _overlap_regions(n_files: int, merged) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where two or more labels of ``merged`` are active, per file."""
    file, _, start, end = merged
    if len(file) == 0:
        return _EMPTY, _EMPTY, _EMPTY
    start_key, end_key = group_keys(n_files, (file, start), (file, end))
    key = np.concatenate([start_key, end_key])
    delta = np.concatenate([np.ones(len(start), np.int64), -np.ones(len(end), np.int64)])
    time = np.concatenate([start, end])
    group = np.concatenate([file, file])
    # ends before starts at equal times: half-open intervals that touch do not overlap
    order = np.lexsort((delta, key))
    delta, time, group = delta[order], time[order], group[order]
    active = np.cumsum(delta)
    # the count drops to 0 at the last boundary of each file,
    # so a run with active >= 2 never crosses files
    run = np.flatnonzero(active[:-1] >= 2)
    return merge(n_files, group[run], time[run], time[run + 1])


def _scoring_bounds(inputs) -> tuple[np.ndarray, np.ndarray]:
    """Evaluation map per file: [0, duration], else the union of the extents."""
    n = inputs.n_files
    low = np.zeros(n, dtype=np.int64)
    high = inputs.durations.copy()
    unknown = high == NAT
    if unknown.any():
        warnings.warn(
            f"files_duration is not known for {int(unknown.sum())} of {n} files: "
            "their scored region is the union of the extents "
            "of truth and prediction (pyannote.metrics' rule). "
            "Pass files_duration to score [0, duration].",
            UserWarning,
            stacklevel=4,
        )
        sides = (inputs.truth, inputs.prediction)
        keep = [side.end > side.start for side in sides]
        file = np.concatenate([s.file[k] for s, k in zip(sides, keep)])
        first, _ = group_min_max(file, np.concatenate([s.start[k] for s, k in zip(sides, keep)]), n)
        _, last = group_min_max(file, np.concatenate([s.end[k] for s, k in zip(sides, keep)]), n)
        low[unknown] = first[unknown]
        high[unknown] = last[unknown]
    return low, high


def _complement(n_files, low, high, excluded):
    """``[low, high]`` minus merged ``excluded`` intervals, per file."""
    ex_file, ex_start, ex_end = excluded
    if len(ex_file) == 0:
        file = np.arange(n_files, dtype=np.int64)
        keep = high > low
        return file[keep], low[keep], high[keep]
    # gap after each excluded interval: up to the next one of the file, else the end
    following = np.empty_like(ex_start)
    same = ex_file[1:] == ex_file[:-1]
    following[:-1] = np.where(same, ex_start[1:], high[ex_file[:-1]])
    following[-1] = high[ex_file[-1]]
    # gap before the first excluded interval of each file
    first = np.ones(len(ex_file), dtype=bool)
    first[1:] = ~same
    head_end = high.copy()
    head_end[ex_file[first]] = ex_start[first]
    file = np.concatenate([np.arange(n_files, dtype=np.int64), ex_file])
    start = np.maximum(np.concatenate([low, ex_end]), low[file])
    end = np.minimum(np.concatenate([head_end, following]), high[file])
    return merge(n_files, file, start, end)


@dataclasses.dataclass(frozen=True)
class _Region:
    """Scored intervals per file; ``low``/``high`` when it is one interval a file."""

    intervals: tuple[np.ndarray, np.ndarray, np.ndarray]
    low: np.ndarray | None = None
    high: np.ndarray | None = None

    def crop(self, n_files, file, start, end, *rest):
        """Cut intervals (sorted, disjoint per group) to the region; order is kept."""
        if self.low is not None:  # one interval per file: clip
            start = np.maximum(start, self.low[file])
            end = np.minimum(end, self.high[file])
            keep = end > start
            return (file[keep],) + tuple(r[keep] for r in rest) + (start[keep], end[keep])
        region_file, region_start, region_end = self.intervals
        i, j = overlap_join(n_files, file, start, end, *self.intervals)
        start = np.maximum(start[i], region_start[j])
        end = np.minimum(end[i], region_end[j])
        return (file[i],) + tuple(r[i] for r in rest) + (start, end)


def _scored_region(inputs, truth_merged, collar: int, skip_overlap: bool) -> _Region:
    """Scored intervals per file (merged, sorted) after collars and overlap."""
    n = inputs.n_files
    low, high = _scoring_bounds(inputs)
    parts = []
    if collar > 0:
        truth = inputs.truth
        keep = truth.end > truth.start
        times = np.concatenate([truth.start[keep], truth.end[keep]])
        file = np.concatenate([truth.file[keep], truth.file[keep]])
        before = collar // 2
        parts.append((file, times - before, times + (collar - before)))
    if skip_overlap:
        parts.append(_overlap_regions(n, truth_merged))
    if not parts:
        return _Region(_complement(n, low, high, (_EMPTY, _EMPTY, _EMPTY)), low, high)
    excluded = merge(
        n,
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )
    return _Region(_complement(n, low, high, excluded))


def _crop(n_files: int, n_labels: int, merged, region: _Region):
    """Intervals of each (file, label) cut to the scored region.

    The pieces stay sorted by (file, label, start) and disjoint.
    """
    file, label, start, end = merged
    file, label, start, end = region.crop(n_files, file, start, end, label)
    return file, label, start, end


def _merge_labels_arrays(n_files, n_labels, file, label, start, end):
    """Union per (file, label), with dense group ids (no n_files x n_labels arrays)."""
    width = max(n_labels, 1)
    key = file * width + label
    if len(key) == 0:
        return _EMPTY, _EMPTY, _EMPTY, _EMPTY
    unique, dense = np.unique(key, return_inverse=True)
    group, start, end = merge(len(unique), dense.ravel(), start, end)
    key = unique[group]
    return key // width, key % width, start, end


def _collar_ns(collar) -> int:
    value = to_ns(collar, "collar", allow_none=False)
    return int(value)


def _check_skip_overlap(skip_overlap) -> bool:
    if not isinstance(skip_overlap, (bool, np.bool_)):
        raise TypeError(f"skip_overlap must be True or False; got {skip_overlap!r}.")
    return bool(skip_overlap)


# -------------------------------------------------------------------------
# Detection
# -------------------------------------------------------------------------


def _detection_table(inputs, collar: int, skip_overlap: bool) -> dict[str, np.ndarray]:
    n, n_labels = inputs.n_files, inputs.n_labels
    truth_merged = _merge_labels(inputs.truth, n, n_labels) if skip_overlap else None
    region = _scored_region(inputs, truth_merged, collar, skip_overlap)
    activity = []
    for side in (inputs.truth, inputs.prediction):
        # pieces stay disjoint and sorted by (file, start)
        activity.append(region.crop(n, *merge(n, side.file, side.start, side.end)))
    truth, prediction = activity
    tp = total_length(n, intersect(n, truth, prediction))
    truth_len = total_length(n, truth)
    prediction_len = total_length(n, prediction)
    region_len = total_length(n, region.intervals)
    return {
        "true_positive": tp,
        "false_alarm": prediction_len - tp,
        "miss": truth_len - tp,
        "true_negative": region_len - truth_len - prediction_len + tp,
    }


def detection_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    positive_labels: list | None = None,
    *,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
) -> pd.DataFrame:
    r"""Durations of correct and wrong activity per file.

    Activity is the union of the rows of the positive labels on each side
    (gaps are the negative class; overlapping rows count once),
    evaluated inside the scored region of each file:
    ``[0, duration]`` from ``files_duration``,
    else the union of the extents of truth and prediction
    (pyannote.metrics' rule; a ``UserWarning`` says so),
    minus collars and, with ``skip_overlap``, overlap regions.

    Args:
        truth: ground truth Series with a segmented index
        prediction: predicted Series with a segmented index
        positive_labels: labels that mean activity;
            rows with other labels are left out.
            ``None``: every row is activity
        collar: total width (seconds or timedelta) of the collar
            centred on every truth boundary that is not scored,
            half before and half after the boundary
            (pyannote.metrics' convention, *not* the NIST md-eval
            convention where the collar is added on each side)
        skip_overlap: do not score regions where two or more
            truth labels are active
            (a label that overlaps itself counts once)
        files_duration: mapping or Series from file to duration

    Returns:
        DataFrame indexed by ``file`` with int64 nanosecond columns
        ``true_positive``, ``false_alarm``, ``miss``, ``true_negative``;
        tables of disjoint sets of files add up

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     True, index=audformat.segmented_index(["f1", "f1"], [0, 4], [2, 6])
        ... )
        >>> prediction = pd.Series(
        ...     True, index=audformat.segmented_index(["f1"], [1], [5])
        ... )
        >>> stats = detection_statistics(truth, prediction, files_duration={"f1": 8})
        >>> (stats / 1e9).astype(float)
              true_positive  false_alarm  miss  true_negative
        file
        f1              2.0          2.0   2.0            2.0

    """
    collar_ns = _collar_ns(collar)
    skip_overlap = _check_skip_overlap(skip_overlap)
    if isinstance(positive_labels, (str, bytes)):
        raise TypeError(
            f"positive_labels must be a list of labels or None; got {positive_labels!r}."
        )
    inputs = check_inputs(
        truth,
        prediction,
        labels=positive_labels,
        files_duration=files_duration,
        allow_filewise=True,
    )
    columns = _detection_table(inputs, collar_ns, skip_overlap)
    return pd.DataFrame(columns, index=pd.Index(inputs.files, name="file"))


def _detection_input(truth, prediction, positive_labels, collar, skip_overlap, files_duration):
    """A detection statistics table from Series or from a given table."""
    if isinstance(truth, pd.DataFrame):
        _no_series_options(
            prediction,
            positive_labels=(positive_labels, None),
            collar=(collar, 0.0),
            skip_overlap=(skip_overlap, False),
            files_duration=(files_duration, None),
        )
        missing = [c for c in DETECTION_COLUMNS if c not in truth.columns]
        if missing:
            raise ValueError(
                f"truth is a DataFrame but lacks the columns {missing}; "
                "pass a table returned by detection_statistics."
            )
        return truth[DETECTION_COLUMNS]
    return detection_statistics(
        truth,
        prediction,
        positive_labels,
        collar=collar,
        skip_overlap=skip_overlap,
        files_duration=files_duration,
    )


def _no_series_options(prediction, **options) -> None:
    if prediction is not None:
        raise TypeError(
            "truth is a statistics DataFrame: prediction must be None; "
            f"got {type(prediction).__name__}."
        )
    for name, (value, default) in options.items():
        if default is None:
            changed = value is not None
        else:
            changed = not (value is default or (np.isscalar(value) and value == default))
        if changed:
            raise ValueError(
                f"{name} cannot be applied to a statistics table; "
                "pass it to the *_statistics function instead."
            )


def _detection_values(
    tp, fa, miss, tn, *, beta: float, zero_division: float
) -> dict[str, np.ndarray]:
    tp, fa, miss, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fa, miss, tn))
    precision = divide(tp, tp + fa, zero_division)
    recall = divide(tp, tp + miss, zero_division)
    return {
        "detection_error_rate": _rate(fa + miss, tp + miss),
        "precision": precision,
        "recall": recall,
        "fscore": fscore(precision, recall, beta=beta),
        "accuracy": divide(tp + tn, tp + tn + fa + miss, zero_division),
    }


def detection_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    positive_labels: list | None = None,
    *,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
) -> float:
    r"""Detection error rate of activity (e.g. speech, music), summed over files.

    .. math::

        \text{DetER} = \frac{\text{false alarm} + \text{miss}}{\text{total}}

    where false alarm is the predicted activity outside truth activity,
    miss the truth activity outside predicted activity,
    and total the duration of truth activity,
    all in the scored region (see :func:`detection_statistics`)
    and summed over files.
    If total is 0, the result is 0 without errors and 1 with errors
    (pyannote.metrics' rule).
    Same as ``pyannote.metrics.detection.DetectionErrorRate``.

    Args:
        truth: ground truth Series with a segmented index,
            or a table from :func:`detection_statistics`
        prediction: predicted Series (``None`` with a table)
        positive_labels: labels that mean activity;
            ``None``: every row is activity
        collar: total width of the unscored collar around each truth boundary
            (half before, half after; pyannote.metrics' convention)
        skip_overlap: do not score regions with two or more truth labels
        files_duration: mapping or Series from file to duration

    Returns:
        detection error rate

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     "speech", index=audformat.segmented_index(["f1", "f1"], [0, 4], [2, 6])
        ... )
        >>> prediction = pd.Series(
        ...     "speech", index=audformat.segmented_index(["f1"], [1], [5])
        ... )
        >>> detection_error_rate(truth, prediction, files_duration={"f1": 8})
        1.0
        >>> detection_error_rate(truth, prediction, collar=2.0, files_duration={"f1": 8})
        0.0

    """
    stats = _detection_input(truth, prediction, positive_labels, collar, skip_overlap, files_duration)
    tp, fa, miss = (int(stats[c].sum()) for c in ("true_positive", "false_alarm", "miss"))
    return float(_rate(fa + miss, tp + miss))


def detection_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    positive_labels: list | None = None,
    *,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    beta: float = 1.0,
    zero_division: float = 1.0,
) -> pd.DataFrame:
    r"""Detection error rate, precision, recall, F-score and accuracy per file.

    Durations are in seconds.
    Per file and in the last row ``"TOTAL"`` (durations summed over files):

    .. math::

        \text{precision} = \frac{TP}{TP + FA}, \quad
        \text{recall} = \frac{TP}{TP + \text{miss}}, \quad
        \text{accuracy} = \frac{TP + TN}{TP + TN + FA + \text{miss}}

    and the F-score from precision and recall.
    With the default ``zero_division=1.0``,
    undefined precision, recall and accuracy are 1
    as in pyannote.metrics
    (``DetectionPrecision``, ``DetectionRecall``, ``DetectionAccuracy``,
    ``DetectionPrecisionRecallFMeasure``).

    Args:
        truth: ground truth Series, or a table from :func:`detection_statistics`
        prediction: predicted Series (``None`` with a table)
        positive_labels: labels that mean activity; ``None``: every row
        collar: total width of the unscored collar around each truth boundary
            (half before, half after; pyannote.metrics' convention)
        skip_overlap: do not score regions with two or more truth labels
        files_duration: mapping or Series from file to duration
        beta: weight of recall in the F-score
        zero_division: value of an undefined precision, recall or accuracy

    Returns:
        DataFrame indexed by file (plus ``"TOTAL"``) with the columns
        ``true_positive``, ``false_alarm``, ``miss``, ``true_negative``,
        ``total`` (truth activity) in seconds,
        ``detection_error_rate``, ``precision``, ``recall``, ``fscore``, ``accuracy``

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     "speech", index=audformat.segmented_index(["f1", "f1"], [0, 4], [2, 6])
        ... )
        >>> prediction = pd.Series(
        ...     "speech", index=audformat.segmented_index(["f1"], [1], [5])
        ... )
        >>> report = detection_report(truth, prediction, files_duration={"f1": 8})
        >>> report[["precision", "recall", "accuracy"]]
               precision  recall  accuracy
        file
        f1           0.5     0.5       0.5
        TOTAL        0.5     0.5       0.5

    """
    zero_division = check_zero_division(zero_division)
    stats = _detection_input(truth, prediction, positive_labels, collar, skip_overlap, files_duration)
    stats = stats.groupby(level="file", sort=False).sum() if not stats.index.is_unique else stats
    values = np.stack([stats[c].to_numpy(dtype=np.int64) for c in DETECTION_COLUMNS], axis=1)
    values = np.vstack([values, values.sum(axis=0, keepdims=True)])
    tp, fa, miss, tn = values.T
    out = {c: values[:, k] / NS_PER_SECOND for k, c in enumerate(DETECTION_COLUMNS)}
    out["total"] = (tp + miss) / NS_PER_SECOND
    out.update(_detection_values(tp, fa, miss, tn, beta=beta, zero_division=zero_division))
    index = pd.Index(list(stats.index) + [TOTAL_ROW], name="file", dtype=object)
    return pd.DataFrame(out, index=index)


# -------------------------------------------------------------------------
# Diarization: statistics
# -------------------------------------------------------------------------


@dataclasses.dataclass
class _Table:
    """The diarization statistics as flat arrays (int64 ns)."""

    files: pd.Index
    labels: list
    total: np.ndarray  # per file
    miss: np.ndarray
    false_alarm: np.ndarray
    truth: tuple[np.ndarray, np.ndarray, np.ndarray]  # file, label, speaker time
    prediction: tuple[np.ndarray, np.ndarray, np.ndarray]
    cooccurrence: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # file, t, p, time

    @property
    def n_files(self) -> int:
        return len(self.files)

    @property
    def n_labels(self) -> int:
        return len(self.labels)


def _speaker_time(n_files, n_labels, cropped):
    file, label, start, end = cropped
    width = max(n_labels, 1)
    key = file * width + label
    if len(key) == 0:
        return _EMPTY, _EMPTY, _EMPTY
    # cropped intervals are sorted by (file, label): reduce runs
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    time = np.add.reduceat(end - start, first)
    return file[first], label[first], time


def _runs(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Run id of every element of a sorted key array, and the first element of each run."""
    if len(key) == 0:
        return _EMPTY, _EMPTY
    new = np.r_[True, key[1:] != key[:-1]]
    return np.cumsum(new) - 1, np.flatnonzero(new)


def _sweep(n_files: int, n_labels: int, truth, prediction):
    """Elementary segments of each file: counts, components, co-occurrence."""
    t_file, t_label, t_start, t_end = truth
    p_file, p_label, p_start, p_end = prediction
    n_t, n_p = len(t_file), len(p_file)
    keys = group_keys(
        n_files,
        (t_file, t_start),
        (t_file, t_end),
        (p_file, p_start),
        (p_file, p_end),
    )
    keys = np.concatenate(keys)
    times = np.concatenate([t_start, t_end, p_start, p_end])
    files = np.concatenate([t_file, t_file, p_file, p_file])
    bounds, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.ravel()
    # time and file of every boundary (equal keys have equal times and files)
    bound_times = np.empty(len(bounds), dtype=np.int64)
    bound_files = np.empty(len(bounds), dtype=np.int64)
    bound_times[inverse] = times
    bound_files[inverse] = files
    times, files = bound_times, bound_files
    n_segments = max(len(bounds) - 1, 0)
    length = times[1:] - times[:-1]  # only segments inside a file are ever covered
    segment_file = files[:-1]

    # (interval, segment) pairs: each interval covers a run of elementary segments
    t_interval, t_segment = expand_ranges(inverse[:n_t], inverse[n_t : 2 * n_t])
    p_interval, p_segment = expand_ranges(
        inverse[2 * n_t : 2 * n_t + n_p], inverse[2 * n_t + n_p :]
    )
    n_truth = np.bincount(t_segment, minlength=n_segments)
    n_prediction = np.bincount(p_segment, minlength=n_segments)
    total = group_sum(segment_file, n_truth * length, n_files)
    miss = group_sum(segment_file, np.maximum(n_truth - n_prediction, 0) * length, n_files)
    false_alarm = group_sum(segment_file, np.maximum(n_prediction - n_truth, 0) * length, n_files)

    # co-occurrence: every (truth label, predicted label) pair of a segment
    order = np.argsort(p_segment, kind="stable")
    offsets = np.zeros(n_segments + 1, dtype=np.int64)
    np.cumsum(n_prediction, out=offsets[1:])
    a, b = expand_ranges(offsets[t_segment], offsets[t_segment + 1])
    width = max(n_labels, 1)
    t_run, t_first = _runs(t_file * width + t_label)  # dense (file, truth label) ids
    key = t_run[t_interval[a]] * width + p_label[p_interval[order[b]]]
    time = length[t_segment[a]]
    if len(key):
        key_order = np.argsort(key)
        key, time = key[key_order], time[key_order]
        _, start = _runs(key)
        key, time = key[start], np.add.reduceat(time, start)
    run = t_first[key // width] if len(key) else _EMPTY
    return total, miss, false_alarm, (t_file[run], t_label[run], key % width, time)


def _diarization_arrays(inputs, collar: int, skip_overlap: bool) -> _Table:
    n, n_labels = inputs.n_files, inputs.n_labels
    truth_merged = _merge_labels(inputs.truth, n, n_labels)
    prediction_merged = _merge_labels(inputs.prediction, n, n_labels)
    region = _scored_region(inputs, truth_merged, collar, skip_overlap)
    truth = _crop(n, n_labels, truth_merged, region)
    prediction = _crop(n, n_labels, prediction_merged, region)
    total, miss, false_alarm, cooccurrence = _sweep(n, n_labels, truth, prediction)
    return _Table(
        files=inputs.files,
        labels=list(inputs.labels),
        total=total,
        miss=miss,
        false_alarm=false_alarm,
        truth=_speaker_time(n, n_labels, truth),
        prediction=_speaker_time(n, n_labels, prediction),
        cooccurrence=cooccurrence,
    )


def _to_frame(table: _Table) -> pd.DataFrame:
    n = table.n_files
    none = np.full(n, -1, dtype=np.int64)
    t_file, t_label, t_time = table.truth
    p_file, p_label, p_time = table.prediction
    c_file, c_truth, c_pred, c_time = table.cooccurrence
    file = np.concatenate([np.arange(n), t_file, p_file, c_file])
    truth = np.concatenate([none, t_label, np.full(len(p_file), -1), c_truth])
    pred = np.concatenate([none, np.full(len(t_file), -1), p_label, c_pred])
    zeros = np.zeros(len(file) - n, dtype=np.int64)
    columns = {
        "total": np.concatenate([table.total, zeros]),
        "miss": np.concatenate([table.miss, zeros]),
        "false_alarm": np.concatenate([table.false_alarm, zeros]),
        "duration": np.concatenate([np.zeros(n, np.int64), t_time, p_time, c_time]),
    }
    order = np.lexsort((pred, truth, file))
    labels = label_index(table.labels)
    index = pd.MultiIndex(
        levels=[
            pd.Index(table.files, name="file"),
            labels.rename("truth"),
            labels.rename("prediction"),
        ],
        codes=[file[order], truth[order], pred[order]],
        names=["file", "truth", "prediction"],
        verify_integrity=False,
    )
    return pd.DataFrame(
        {c: v[order].astype(np.int64) for c, v in columns.items()}, index=index
    )


def _level_codes(values: pd.Index, labels: pd.Index) -> np.ndarray:
    codes = np.asarray(labels.get_indexer(values), dtype=np.int64)
    return codes


def _from_frame(stats: pd.DataFrame) -> _Table:
    if not isinstance(stats, pd.DataFrame):
        raise TypeError(f"statistics must be a DataFrame; got {type(stats).__name__}.")
    names = list(stats.index.names)
    if names != ["file", "truth", "prediction"]:
        raise ValueError(
            "truth is a DataFrame but not a table from diarization_statistics: "
            f"its index levels are {names}, not ['file', 'truth', 'prediction']."
        )
    missing = [c for c in DIARIZATION_COLUMNS if c not in stats.columns]
    if missing:
        raise ValueError(
            f"truth is a DataFrame but lacks the columns {missing}; "
            "pass a table returned by diarization_statistics."
        )
    if not stats.index.is_unique:
        stats = stats[DIARIZATION_COLUMNS].groupby(
            level=["file", "truth", "prediction"], sort=False, dropna=False, observed=True
        ).sum()
    file_values = stats.index.get_level_values("file")
    truth_values = stats.index.get_level_values("truth")
    pred_values = stats.index.get_level_values("prediction")
    # labels: shared categories in their order, else the sorted union
    if (
        isinstance(truth_values.dtype, pd.CategoricalDtype)
        and isinstance(pred_values.dtype, pd.CategoricalDtype)
        and list(truth_values.categories) == list(pred_values.categories)
    ):
        labels = list(truth_values.categories)
    else:
        union = pd.unique(
            np.concatenate(
                [
                    np.asarray(truth_values.dropna(), dtype=object),
                    np.asarray(pred_values.dropna(), dtype=object),
                ]
            )
        )
        try:
            labels = sorted(union)
        except TypeError:
            labels = list(union)
    label_idx = pd.Index(labels, dtype=object)
    files = pd.Index(pd.unique(np.asarray(file_values, dtype=object)), name="file")
    try:
        files = files.sort_values()
    except TypeError:
        pass
    file = np.asarray(files.get_indexer(file_values), dtype=np.int64)
    truth = _level_codes(pd.Index(np.asarray(truth_values, dtype=object)), label_idx)
    pred = _level_codes(pd.Index(np.asarray(pred_values, dtype=object)), label_idx)
    n = len(files)
    per_file = (truth < 0) & (pred < 0)
    arrays = {c: stats[c].to_numpy(dtype=np.int64) for c in DIARIZATION_COLUMNS}
    total = group_sum(file[per_file], arrays["total"][per_file], n)
    miss = group_sum(file[per_file], arrays["miss"][per_file], n)
    false_alarm = group_sum(file[per_file], arrays["false_alarm"][per_file], n)
    duration = arrays["duration"]
    is_truth = (truth >= 0) & (pred < 0)
    is_pred = (truth < 0) & (pred >= 0)
    is_pair = (truth >= 0) & (pred >= 0)

    def rows(mask, *codes):
        keep = np.flatnonzero(mask & (duration > 0))
        keep = keep[np.lexsort(tuple(c[keep] for c in reversed(codes)))]
        return tuple(c[keep] for c in codes) + (duration[keep],)

    return _Table(
        files=files,
        labels=labels,
        total=total,
        miss=miss,
        false_alarm=false_alarm,
        truth=rows(is_truth, file, truth),
        prediction=rows(is_pred, file, pred),
        cooccurrence=rows(is_pair, file, truth, pred),
    )


def diarization_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
) -> pd.DataFrame:
    r"""Additive duration table for diarization and identification metrics.

    The intervals of each label are merged per file
    (a label that overlaps itself counts once;
    rows of zero length have no duration and no collar)
    and cropped to the scored region:
    ``[0, duration]`` from ``files_duration``,
    else the union of the extents of truth and prediction
    (pyannote.metrics' rule, with a ``UserWarning``),
    minus collars and, with ``skip_overlap``, overlap regions.
    Each file is then cut into elementary segments
    at every truth and prediction boundary;
    in a segment of length :math:`d` with :math:`n_t` truth and
    :math:`n_p` predicted labels active,

    .. math::

        \text{total} \mathrel{+}= n_t d, \quad
        \text{miss} \mathrel{+}= \max(0, n_t - n_p) d, \quad
        \text{false alarm} \mathrel{+}= \max(0, n_p - n_t) d,

    and every pair of a truth and a predicted label active in it
    adds :math:`d` to their co-occurrence.
    Confusion and correct time depend on the label mapping
    and are computed from the co-occurrence by the metric functions:
    :math:`\text{correct} = \sum` co-occurrence of mapped pairs,
    :math:`\text{confusion} = \text{total} - \text{miss} - \text{correct}`.

    Args:
        truth: ground truth Series with a segmented index (e.g. speakers)
        prediction: predicted Series with a segmented index;
            its labels need not be related to the truth labels
        collar: total width (seconds or timedelta) of the collar
            centred on every truth boundary that is not scored,
            half before and half after the boundary
            (pyannote.metrics' convention, *not* the NIST md-eval
            convention where the collar is added on each side)
        skip_overlap: do not score regions where two or more
            truth labels are active
        files_duration: mapping or Series from file to duration

    Returns:
        DataFrame indexed by ``(file, truth, prediction)``
        with int64 nanosecond columns.
        Rows ``(file, NaN, NaN)`` hold the per-file
        ``total``, ``miss`` and ``false_alarm``;
        the column ``duration`` holds the speaking time of a truth label
        on rows ``(file, label, NaN)``,
        of a predicted label on rows ``(file, NaN, label)``,
        and the co-occurrence of two labels on rows ``(file, truth, prediction)``
        (only non-zero rows are kept).
        Tables of disjoint sets of files add up (``pd.concat``)

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["s1", "s2"], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> stats = diarization_statistics(truth, prediction, files_duration={"f1": 4})
        >>> (stats / 1e9).astype(float)
                                 total  miss  false_alarm  duration
        file truth prediction
        f1   nan   nan             4.0   0.0          0.0       0.0
                   s1              0.0   0.0          0.0       2.5
                   s2              0.0   0.0          0.0       1.5
             A     nan             0.0   0.0          0.0       2.0
                   s1              0.0   0.0          0.0       2.0
             B     nan             0.0   0.0          0.0       2.0
                   s1              0.0   0.0          0.0       0.5
                   s2              0.0   0.0          0.0       1.5

    """
    collar_ns = _collar_ns(collar)
    skip_overlap = _check_skip_overlap(skip_overlap)
    inputs = check_inputs(truth, prediction, files_duration=files_duration)
    return _to_frame(_diarization_arrays(inputs, collar_ns, skip_overlap))


def _diarization_input(truth, prediction, collar, skip_overlap, files_duration) -> _Table:
    if isinstance(truth, pd.DataFrame):
        _no_series_options(
            prediction,
            collar=(collar, 0.0),
            skip_overlap=(skip_overlap, False),
            files_duration=(files_duration, None),
        )
        return _from_frame(truth)
    collar_ns = _collar_ns(collar)
    skip_overlap = _check_skip_overlap(skip_overlap)
    inputs = check_inputs(truth, prediction, files_duration=files_duration)
    return _diarization_arrays(inputs, collar_ns, skip_overlap)


# -------------------------------------------------------------------------
# Diarization: label mapping on the sparse co-occurrence table
# -------------------------------------------------------------------------


def _node_ids(group: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Dense ids of (group, label) pairs."""
    if len(group) == 0:
        return _EMPTY
    width = int(label.max()) + 1
    _, ids = np.unique(group * width + label, return_inverse=True)
    return ids.astype(np.int64).ravel()


def _greedy(group, row, col, weight) -> np.ndarray:
    """Greedy one-to-one mapping: largest co-occurrence first, per group.

    Identical to taking the largest remaining entry again and again
    (audmetric, pyannote.metrics' ``GreedyMapper``);
    ties go to the smaller truth label, then the smaller predicted label.
    Solved in rounds: every edge that is the best remaining one
    of both its row and its column is taken by the sequential greedy,
    so all such edges are accepted at once.
    """
    n = len(weight)
    selected = np.zeros(n, dtype=bool)
    if n == 0:
        return selected
    order = np.lexsort((col, row, -weight, group))
    row_id = _node_ids(group, row)[order]
    col_id = _node_ids(group, col)[order]
    used_row = np.zeros(int(row_id.max()) + 1, dtype=bool)
    used_col = np.zeros(int(col_id.max()) + 1, dtype=bool)
    alive = np.arange(n)
    while len(alive):
        r, c = row_id[alive], col_id[alive]
        best_row = np.zeros(len(alive), dtype=bool)
        best_row[np.unique(r, return_index=True)[1]] = True
        best_col = np.zeros(len(alive), dtype=bool)
        best_col[np.unique(c, return_index=True)[1]] = True
        accepted = alive[best_row & best_col]
        selected[order[accepted]] = True
        used_row[row_id[accepted]] = True
        used_col[col_id[accepted]] = True
        alive = alive[~(used_row[r] | used_col[c])]
    return selected


def _optimal(group, row, col, weight) -> np.ndarray:
    """Maximum-weight one-to-one mapping per group (Hungarian algorithm).

    The bipartite graph of co-occurring labels is split into connected components.
    Components where every row (or every column) has a distinct best partner
    are solved directly (each takes its best partner: an upper bound reached);
    the others, usually few and small, by ``scipy.optimize.linear_sum_assignment``
    on their own dense matrix.
    """
    n = len(weight)
    selected = np.zeros(n, dtype=bool)
    if n == 0:
        return selected
    row_id = _node_ids(group, row)
    col_id = _node_ids(group, col)
    n_rows, n_cols = int(row_id.max()) + 1, int(col_id.max()) + 1
    graph = scipy.sparse.coo_matrix(
        (np.ones(n), (row_id, n_rows + col_id)), shape=(n_rows + n_cols,) * 2
    )
    _, component = scipy.sparse.csgraph.connected_components(graph, directed=False)
    edge_component = component[row_id]

    # fast path: a side whose best partners are all distinct
    order = np.lexsort((col, row, -weight))
    solved = np.zeros(int(component.max()) + 1, dtype=bool)
    for ids in (row_id, col_id):
        other = col_id if ids is row_id else row_id
        first = np.unique(ids[order], return_index=True)[1]
        best = order[first]  # best edge of every node of this side
        partner_component = edge_component[best]
        partners = other[best]
        # components where no partner is chosen twice
        counts = np.bincount(partners, minlength=int(other.max()) + 1)
        clash = np.zeros(len(solved), dtype=bool)
        clash[partner_component[counts[partners] > 1]] = True
        good = ~clash & ~solved
        take = best[good[partner_component]]
        selected[take] = True
        solved |= good

    # the rest: exhaustive search over all mappings, batched over components
    # of the same size (up to EXHAUSTIVE labels a side), else one assignment each
    rest = np.flatnonzero(~solved[edge_component])
    if len(rest) == 0:
        return selected
    comp = edge_component[rest]
    local_row, n_local_rows = _local_ids(comp, row_id[rest])
    local_col, n_local_cols = _local_ids(comp, col_id[rest])
    size = np.maximum(n_local_rows, n_local_cols)  # per component
    edge_size = size[comp]
    for k in np.unique(edge_size):
        edges = np.flatnonzero(edge_size == k)
        components, c = np.unique(comp[edges], return_inverse=True)
        c = c.ravel()
        if k <= EXHAUSTIVE:
            matrix = np.zeros((len(components), k, k), dtype=np.int64)
            index = np.full((len(components), k, k), -1, dtype=np.int64)
            matrix[c, local_row[edges], local_col[edges]] = weight[rest[edges]]
            index[c, local_row[edges], local_col[edges]] = rest[edges]
            perms = _permutations(int(k))
            score = matrix[:, np.arange(k), perms].sum(axis=-1)  # (components, k!)
            best = perms[np.argmax(score, axis=1)]  # (components, k)
            chosen = index[np.arange(len(components))[:, None], np.arange(k), best].ravel()
            selected[chosen[chosen >= 0]] = True
            continue
        order = np.argsort(c, kind="stable")
        bounds = np.flatnonzero(np.r_[True, np.diff(c[order]) != 0, True])
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            e = edges[order[lo:hi]]
            matrix = np.zeros((k, k))
            index = np.full((k, k), -1, dtype=np.int64)
            matrix[local_row[e], local_col[e]] = weight[rest[e]]
            index[local_row[e], local_col[e]] = rest[e]
            rr, cc = scipy.optimize.linear_sum_assignment(matrix, maximize=True)
            chosen = index[rr, cc]
            selected[chosen[chosen >= 0]] = True
    return selected


EXHAUSTIVE = 5


def _permutations(k: int) -> np.ndarray:
    """All permutations of ``range(k)`` as a (k!, k) array."""
    return np.array(list(itertools.permutations(range(k))), dtype=np.int64).reshape(-1, k)


def _local_ids(component: np.ndarray, node: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each node within its component, and the node count per component."""
    width = int(node.max()) + 1
    unique, inverse = np.unique(component * width + node, return_inverse=True)
    unique_component = unique // width
    run, first = _runs(unique_component)
    rank = np.arange(len(unique)) - first[run]
    counts = np.zeros(int(component.max()) + 1, dtype=np.int64)
    counts[unique_component[first]] = np.diff(np.r_[first, len(unique)])
    return rank[inverse.ravel()], counts


def _mapped_pairs(table: _Table, mapping: str, individual_file_mapping: bool) -> np.ndarray:
    """Which co-occurrence rows are pairs of mapped labels."""
    c_file, c_truth, c_pred, c_time = table.cooccurrence
    if mapping == "identity":
        return c_truth == c_pred
    solve = _optimal if mapping == "optimal" else _greedy
    if individual_file_mapping:
        return solve(c_file, c_truth, c_pred, c_time)
    # one mapping for all files, from the summed co-occurrence
    width = max(table.n_labels, 1)
    key = c_truth * width + c_pred
    unique, inverse = np.unique(key, return_inverse=True)
    summed = group_sum(inverse.ravel(), c_time, len(unique))
    chosen = solve(np.zeros(len(unique), np.int64), unique // width, unique % width, summed)
    return chosen[inverse.ravel()]


def _check_mapping(mapping, individual_file_mapping, allow_identity=False):
    allowed = MAPPINGS + (("identity",) if allow_identity else ())
    check_option(mapping, "mapping", allowed)
    if not isinstance(individual_file_mapping, (bool, np.bool_)):
        raise TypeError(
            f"individual_file_mapping must be True or False; got {individual_file_mapping!r}."
        )


def _components(table: _Table, mapping: str, individual_file_mapping: bool):
    """Per file: total, correct, confusion, false alarm, miss (int64 ns); mapped rows."""
    chosen = _mapped_pairs(table, mapping, individual_file_mapping)
    c_file, _, _, c_time = table.cooccurrence
    correct = group_sum(c_file[chosen], c_time[chosen], table.n_files)
    confusion = table.total - table.miss - correct
    return table.total, correct, confusion, table.false_alarm, table.miss, chosen


def _jaccard(table: _Table, chosen: np.ndarray):
    """Per file: number of truth speakers and sum of their Jaccard errors."""
    n, width = table.n_files, max(table.n_labels, 1)
    t_file, t_label, t_time = table.truth
    p_file, p_label, p_time = table.prediction
    c_file, c_truth, c_pred, c_time = table.cooccurrence
    count = np.bincount(t_file, minlength=n).astype(np.float64)
    f, t, p, c = c_file[chosen], c_truth[chosen], c_pred[chosen], c_time[chosen]
    t_key = t_file * width + t_label
    p_key = p_file * width + p_label
    a = t_time[np.searchsorted(t_key, f * width + t)]
    b = p_time[np.searchsorted(p_key, f * width + p)]
    # Jaccard error of a mapped pair: (fa + miss) / union = 1 - c / (a + b - c);
    # an unmapped truth speaker has error 1
    index = c / (a + b - c).astype(np.float64)
    loss = np.zeros(n)
    np.add.at(loss, f, index)
    return count, count - loss


def _rate(error: np.ndarray, total: np.ndarray) -> np.ndarray:
    error = np.asarray(error, dtype=np.float64)
    total = np.asarray(total, dtype=np.float64)
    return np.where(total == 0, np.where(error == 0, 0.0, 1.0), divide(error, total, 0.0))


def diarization_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
) -> float:
    r"""Diarization error rate, summed over files.

    .. math::

        \text{DER} = \frac{\text{confusion} + \text{false alarm} + \text{miss}}
            {\text{total}}

    after mapping predicted labels one-to-one onto truth labels
    so that their co-occurrence is largest
    (see :func:`diarization_statistics` for the components).
    If total is 0, the result is 0 without errors and 1 with errors
    (pyannote.metrics' and audmetric's rule).

    ``mapping="optimal"`` with ``individual_file_mapping=True`` (default)
    is ``pyannote.metrics.diarization.DiarizationErrorRate``;
    ``mapping="greedy"`` is ``GreedyDiarizationErrorRate``.
    audmetric 1.4.2's ``diarization_error_rate`` is
    ``mapping="greedy"`` with its ``individual_file_mapping`` (default ``False``:
    one mapping for all files, from the co-occurrence summed over files).

    Args:
        truth: ground truth Series (e.g. speakers),
            or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table)
        mapping: ``"optimal"`` (Hungarian algorithm)
            or ``"greedy"`` (largest co-occurrence first;
            ties go to the first truth, then predicted label)
        individual_file_mapping: a mapping per file (as pyannote.metrics),
            else one mapping over all files
        collar: total width of the unscored collar around each truth boundary
            (half before, half after; pyannote.metrics' convention)
        skip_overlap: do not score regions with two or more truth labels
        files_duration: mapping or Series from file to duration

    Returns:
        diarization error rate

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["s1", "s2"], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> diarization_error_rate(truth, prediction, files_duration={"f1": 4})
        0.125
        >>> d = diarization_error_rate(truth, prediction, collar=0.5, files_duration={"f1": 4})
        >>> round(d, 4)
        0.0833

    """
    _check_mapping(mapping, individual_file_mapping)
    table = _diarization_input(truth, prediction, collar, skip_overlap, files_duration)
    total, _, confusion, false_alarm, miss, _ = _components(table, mapping, individual_file_mapping)
    return float(_rate(confusion.sum() + false_alarm.sum() + miss.sum(), total.sum()))


def identification_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
) -> float:
    r"""Identification error rate, summed over files.

    .. math::

        \text{IER} = \frac{\text{confusion} + \text{false alarm} + \text{miss}}
            {\text{total}}

    with labels compared as they are (no mapping):
    correct time is the co-occurrence of equal truth and predicted labels.
    If total is 0, the result is 0 without errors and 1 with errors.
    Same as ``pyannote.metrics.identification.IdentificationErrorRate``
    and audmetric's ``identification_error_rate``.

    Args:
        truth: ground truth Series, or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table)
        collar: total width of the unscored collar around each truth boundary
            (half before, half after; pyannote.metrics' convention)
        skip_overlap: do not score regions with two or more truth labels
        files_duration: mapping or Series from file to duration

    Returns:
        identification error rate

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["A", "A"], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> identification_error_rate(truth, prediction, files_duration={"f1": 4})
        0.5

    """
    table = _diarization_input(truth, prediction, collar, skip_overlap, files_duration)
    total, _, confusion, false_alarm, miss, _ = _components(table, "identity", True)
    return float(_rate(confusion.sum() + false_alarm.sum() + miss.sum(), total.sum()))


def jaccard_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
) -> float:
    r"""Jaccard error rate (DIHARD II): mean over truth speakers of each file.

    With the same mapping as :func:`diarization_error_rate`,
    a truth speaker :math:`r` mapped to a predicted speaker :math:`h`
    has the error

    .. math::

        \text{JER}_r = \frac{\text{false alarm} + \text{miss}}{|r \cup h|}
            = 1 - \frac{|r \cap h|}{|r \cup h|},

    an unmapped truth speaker has the error 1,
    and JER is the mean of :math:`\text{JER}_r`
    over all (file, truth speaker) pairs.
    Without truth speakers the result is 1 (pyannote.metrics' rule).
    Same as ``pyannote.metrics.diarization.JaccardErrorRate``.

    Args:
        truth: ground truth Series, or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table)
        mapping: ``"optimal"`` or ``"greedy"``
        individual_file_mapping: a mapping per file, else one over all files
        collar: total width of the unscored collar around each truth boundary
            (half before, half after; pyannote.metrics' convention)
        skip_overlap: do not score regions with two or more truth labels
        files_duration: mapping or Series from file to duration

    Returns:
        Jaccard error rate

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["s1", "s2"], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> round(jaccard_error_rate(truth, prediction, files_duration={"f1": 4}), 4)
        0.225

    """
    _check_mapping(mapping, individual_file_mapping)
    table = _diarization_input(truth, prediction, collar, skip_overlap, files_duration)
    *_, chosen = _components(table, mapping, individual_file_mapping)
    count, error = _jaccard(table, chosen)
    n = count.sum()
    return float(error.sum() / n) if n > 0 else 1.0


def diarization_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
) -> pd.DataFrame:
    r"""Diarization error rate and its components per file, plus a total row.

    Args:
        truth: ground truth Series, or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table)
        mapping: ``"optimal"``, ``"greedy"``
            (see :func:`diarization_error_rate`),
            or ``"identity"``: labels compared as they are,
            which gives the identification error rate
        individual_file_mapping: a mapping per file, else one over all files
        collar: total width of the unscored collar around each truth boundary
            (half before, half after; pyannote.metrics' convention)
        skip_overlap: do not score regions with two or more truth labels
        files_duration: mapping or Series from file to duration

    Returns:
        DataFrame indexed by file plus a last row ``"TOTAL"``
        (durations summed over files) with the columns
        ``total``, ``correct``, ``confusion``, ``false_alarm``, ``miss`` in seconds,
        ``diarization_error_rate``,
        ``confusion_rate``, ``false_alarm_rate``, ``miss_rate``
        (each component over total; as audmetric's ``ErrorRateDetails``),
        ``speakers`` (truth speakers) and ``jaccard_error_rate``

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["A", "B", "A"],
        ...     index=audformat.segmented_index(["f1", "f1", "f2"], [0, 2, 0], [2, 4, 4]),
        ... )
        >>> prediction = pd.Series(
        ...     ["s1", "s2"], index=audformat.segmented_index(["f1", "f2"], [0, 0], [3, 2])
        ... )
        >>> report = diarization_report(truth, prediction, files_duration={"f1": 4, "f2": 4})
        >>> report[["total", "confusion", "false_alarm", "miss", "diarization_error_rate"]]
               total  confusion  false_alarm  miss  diarization_error_rate
        file
        f1       4.0        1.0          0.0   1.0                     0.5
        f2       4.0        0.0          0.0   2.0                     0.5
        TOTAL    8.0        1.0          0.0   3.0                     0.5

    """
    _check_mapping(mapping, individual_file_mapping, allow_identity=True)
    table = _diarization_input(truth, prediction, collar, skip_overlap, files_duration)
    *values, chosen = _components(table, mapping, individual_file_mapping)
    speakers, jaccard = _jaccard(table, chosen)
    values = np.vstack(values + [speakers.astype(np.int64)])
    values = np.hstack([values, values.sum(axis=1, keepdims=True)])
    jaccard = np.r_[jaccard, jaccard.sum()]
    total, correct, confusion, false_alarm, miss, speakers = values
    seconds = values[:5] / NS_PER_SECOND
    out = {
        "total": seconds[0],
        "correct": seconds[1],
        "confusion": seconds[2],
        "false_alarm": seconds[3],
        "miss": seconds[4],
        "diarization_error_rate": _rate(confusion + false_alarm + miss, total),
        "confusion_rate": _rate(confusion, total),
        "false_alarm_rate": _rate(false_alarm, total),
        "miss_rate": _rate(miss, total),
        "speakers": speakers,
        "jaccard_error_rate": np.where(speakers > 0, divide(jaccard, speakers, 1.0), 1.0),
    }
    index = pd.Index(list(table.files) + [TOTAL_ROW], name="file", dtype=object)
    return pd.DataFrame(out, index=index)
