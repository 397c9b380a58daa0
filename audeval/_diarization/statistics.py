r"""The diarization statistics: one sweep over elementary segments, an additive table.

Every file is cut into elementary segments at every truth and prediction boundary
(inside the scored region).
In a segment of length :math:`d` with :math:`n_t` truth and :math:`n_p` predicted labels,
total, miss and false alarm grow by :math:`n_t d`, :math:`\max(0, n_t - n_p) d`,
:math:`\max(0, n_p - n_t) d`; every pair of a truth and a predicted label active in it
adds :math:`d` to their co-occurrence.
The parts in truth overlap (:math:`n_t \ge 2`) and false alarm in truth silence
(:math:`n_t = 0`) are kept apart, so that ``regions=`` needs no other table.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from audeval._core import sweep as _pieces
from audeval._core.intervals import runs as _runs
from audeval._core.intervals import expand_ranges, group_sum, merge

from audeval._diarization import options as opt
from audeval._diarization.masks import mask_sweep
from audeval._diarization.region import (
    _EMPTY,
    fast_keys,
    _crop,
    _join_disjoint,
    _merge_labels,
    _merge_labels_arrays,
    _raw_labels,
    _scored_region,
)


@dataclasses.dataclass
class _Table:
    """The diarization statistics as flat arrays (int64 ns)."""

    files: pd.Index
    truth_labels: list
    prediction_labels: list
    per_file: dict  # column -> array per file (FILE_COLUMNS)
    truth: tuple[np.ndarray, np.ndarray, np.ndarray]  # file, label, speaker time
    prediction: tuple[np.ndarray, np.ndarray, np.ndarray]
    cooccurrence: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # file, t, p, time
    pair: dict  # column -> array per co-occurrence row (duration_overlap, matched, ...)
    compat: str | None = None
    # per-side collars (md-eval): the co-occurrence without collars that the mapping maximises
    mapping: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    # compat="pyannote": the durations on merged label supports, aligned with the rows of
    # ``truth``, ``prediction`` and ``cooccurrence`` (pyannote.metrics' purity and coverage)
    support: dict | None = None
    # the collar convention of the table (the report names it)
    collar_convention: str = "total"

    def speaking(self, side: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Speaking times of one side (``"truth"``, ``"prediction"``) on label supports."""
        file, label, time = getattr(self, side)
        return file, label, time if self.support is None else self.support[side]

    def cooccurrence_support(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The co-occurrence of label supports (a label overlapping itself counts once)."""
        file, truth, prediction, time = self.cooccurrence
        support = self.support
        return file, truth, prediction, time if support is None else support["cooccurrence"]

    @property
    def n_files(self) -> int:
        return len(self.files)

    @property
    def n_labels(self) -> int:
        return max(len(self.truth_labels), len(self.prediction_labels))

    @property
    def labels(self) -> list:
        return opt.union_labels(self.truth_labels, self.prediction_labels)

    @property
    def total(self) -> np.ndarray:
        return self.per_file["total"]

    @property
    def miss(self) -> np.ndarray:
        return self.per_file["miss"]

    @property
    def false_alarm(self) -> np.ndarray:
        return self.per_file["false_alarm"]

    def matched(self) -> np.ndarray:
        """Correct time of each co-occurrence row if its pair is mapped."""
        return self.pair.get("matched", self.cooccurrence[3])


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


def _counts_sweep(n_files: int, truth, prediction):
    r"""Per-file components from one sweep of +1/-1 events; the truth overlap intervals.

    The events of each side are sorted by (file, time); between two consecutive events
    the numbers :math:`n_t`, :math:`n_p` of active truth and predicted intervals are
    constant (0 between files, so nothing there counts). With the speaking times
    :math:`T = \sum n_t d`, :math:`P = \sum n_p d` and :math:`C = \sum \min(n_t, n_p) d`:
    miss :math:`= T - C`, false alarm :math:`= P - C`; the overlap (:math:`n_t \ge 2`)
    and silence (:math:`n_t = 0`) parts come from those few segments alone.
    """
    t_file, _, t_start, t_end = truth
    p_file, _, p_start, p_end = prediction
    n_t, n_p = len(t_file), len(p_file)
    pairs = ((t_file, t_start), (t_file, t_end), (p_file, p_start), (p_file, p_end))
    keys = fast_keys(n_files, *pairs)
    order = np.argsort(np.concatenate(keys), kind="stable")  # timsort: the inputs are sorted runs
    time = np.concatenate([t_start, t_end, p_start, p_end])[order]
    file = np.concatenate([t_file, t_file, p_file, p_file])[order][:-1]
    one, none = np.ones(n_t, np.int8), np.zeros(n_p, np.int8)
    active_t = np.cumsum(np.concatenate([one, -one, none, none])[order], dtype=np.int64)[:-1]
    one, none = np.ones(n_p, np.int8), np.zeros(n_t, np.int8)
    active_p = np.cumsum(np.concatenate([none, none, one, -one])[order], dtype=np.int64)[:-1]
    length = time[1:] - time[:-1] if len(time) else _EMPTY
    truth_time = _sorted_sum(t_file, t_end - t_start, n_files)
    prediction_time = _sorted_sum(p_file, p_end - p_start, n_files)
    common = _sorted_sum(file, np.minimum(active_t, active_p) * length, n_files)

    def part(k):
        a_t, a_p, d = active_t[k], active_p[k], length[k]
        return (
            _sorted_sum(file[k], a_t * d, n_files),
            _sorted_sum(file[k], np.maximum(a_t - a_p, 0) * d, n_files),
            _sorted_sum(file[k], np.maximum(a_p - a_t, 0) * d, n_files),
        )

    k = np.flatnonzero(active_t >= 2)
    total_overlap, miss_overlap, false_alarm_overlap = part(k)
    per_file = {
        "total": truth_time,
        "miss": truth_time - common,
        "false_alarm": prediction_time - common,
        "total_overlap": total_overlap,
        "miss_overlap": miss_overlap,
        "false_alarm_overlap": false_alarm_overlap,
        "false_alarm_silence": part(np.flatnonzero((active_t == 0) & (active_p > 0)))[2],
    }
    k = k[length[k] > 0]
    overlap_intervals = merge(n_files, file[k], time[k], time[k + 1])
    return per_file, overlap_intervals, keys, order


def _sorted_sum(file: np.ndarray, values: np.ndarray, n_files: int) -> np.ndarray:
    """Exact int64 sum per file of values whose ``file`` is sorted (no ``ufunc.at``)."""
    out = np.zeros(n_files, dtype=np.int64)
    if len(values) == 0:
        return out
    groups = np.arange(n_files)
    starts = np.searchsorted(file, groups, side="left")
    nonempty = np.searchsorted(file, groups, side="right") > starts
    out[nonempty] = np.add.reduceat(values, starts[nonempty])
    return out


def _overlapping_pairs(n_t: int, n_p: int, keys, order):
    """Pairs (i, j) of truth and predicted intervals of a file that overlap.

    Either the predicted interval starts inside the truth interval,
    or the truth interval starts inside the predicted one (after its start):
    two "start inside" searches on the sorted starts, no pairwise matrix.
    ``keys`` (truth start, end, prediction start, end) and their joint sort ``order``
    come from :func:`_counts_sweep`: the starts of each side in sorted order are
    read off it, no other sort.
    """
    ts, te, ps, pe = keys
    by_t = order[order < n_t]
    by_p = order[(order >= 2 * n_t) & (order < 2 * n_t + n_p)] - 2 * n_t
    ps_sorted, ts_sorted = ps[by_p], ts[by_t]
    # needles in sorted order: the binary searches then walk memory in order
    i1, k1 = expand_ranges(
        np.searchsorted(ps_sorted, ts_sorted, side="left"),
        np.searchsorted(ps_sorted, te[by_t], side="left"),
    )
    j2, k2 = expand_ranges(
        np.searchsorted(ts_sorted, ps_sorted, side="right"),
        np.searchsorted(ts_sorted, pe[by_p], side="left"),
    )
    return np.concatenate([by_t[i1], by_t[k2]]), np.concatenate([by_p[k1], by_p[j2]])


def _pair_sums(n_runs: int, width: int, run: np.ndarray, label: np.ndarray, values: list):
    """Sums of ``values`` per (truth run, predicted label), only the non-empty ones."""
    key = run * width + label
    if n_runs * width <= max(8 * len(key), 1 << 20):  # dense grid: no sort
        sums = [np.bincount(key, weights=None, minlength=n_runs * width) if v is None else
                _int_bincount(key, v, n_runs * width) for v in values]
        unique = np.flatnonzero(np.bincount(key, minlength=n_runs * width))
        return unique, [x[unique] for x in sums]
    unique, inverse = np.unique(key, return_inverse=True)
    return unique, [group_sum(inverse.ravel(), v, len(unique)) for v in values]


def _int_bincount(key, values, size):
    """Exact int64 sums per key; float64 bins are exact below 2**53 ns (104 days)."""
    if len(values) == 0 or int(np.abs(values).sum()) < 2**53:
        return np.bincount(key, weights=values.astype(np.float64), minlength=size).astype(np.int64)
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, key, values)
    return out


def _sweep_merged(n_files: int, n_labels: int, truth, prediction, overlap: bool = True):
    """Per-file components and co-occurrence of merged labels (each active at most once at a time).

    ``overlap=False`` leaves out the co-occurrence in truth overlap (``regions="all"`` only).
    """
    per_file, overlap_intervals, keys, order = _counts_sweep(n_files, truth, prediction)
    i, j = _overlapping_pairs(len(truth[0]), len(prediction[0]), keys, order)
    start = np.maximum(truth[2][i], prediction[2][j])
    end = np.minimum(truth[3][i], prediction[3][j])
    values = [end - start]
    if overlap:
        a, b = _join_disjoint(n_files, truth[0][i], start, end, *overlap_intervals)
        inside = np.minimum(end[a], overlap_intervals[2][b]) - np.maximum(
            start[a], overlap_intervals[1][b]
        )
        values.append(_int_bincount(a, inside, len(i)))
    width = max(n_labels, 1)
    t_run, t_first = _runs(truth[0] * width + truth[1])  # truth is sorted by (file, label)
    unique, sums = _pair_sums(len(t_first), width, t_run[i], prediction[1][j], values)
    first = t_first[unique // width] if len(unique) else _EMPTY
    # rows sorted by (file, truth, prediction), as the general sweep gives them
    cooccurrence = (truth[0][first], truth[1][first], unique % width, sums[0])
    return per_file, cooccurrence, ({"duration_overlap": sums[1]} if overlap else {})


def _sweep_pieces(n_files: int, n_labels: int, truth, prediction):
    """Per-file components and the co-occurrence of label pairs, every row counted.

    ``compat="pyannote"``: a label overlapping itself is active twice
    (the pieces of :mod:`audeval._core.sweep` with the number of active rows per label).
    """
    n_t = len(truth[0])
    pieces = _pieces.cut(
        n_files,
        np.r_[truth[0], prediction[0]],
        np.r_[truth[2], prediction[2]],
        np.r_[truth[3], prediction[3]],
    )
    n = len(pieces)
    t_first, t_stop = pieces.first[:n_t], pieces.stop[:n_t]
    p_first, p_stop = pieces.first[n_t:], pieces.stop[n_t:]
    n_truth = _pieces.coverage(n, t_first, t_stop)
    n_prediction = _pieces.coverage(n, p_first, p_stop)
    length, file = pieces.duration, pieces.file
    overlap = n_truth >= 2
    total = n_truth * length
    miss = np.maximum(n_truth - n_prediction, 0) * length
    false_alarm = np.maximum(n_prediction - n_truth, 0) * length
    silence = n_truth == 0
    per_file = {
        "total": group_sum(file, total, n_files),
        "miss": group_sum(file, miss, n_files),
        "false_alarm": group_sum(file, false_alarm, n_files),
        "total_overlap": group_sum(file[overlap], total[overlap], n_files),
        "miss_overlap": group_sum(file[overlap], miss[overlap], n_files),
        "false_alarm_overlap": group_sum(file[overlap], false_alarm[overlap], n_files),
        "false_alarm_silence": group_sum(file[silence], false_alarm[silence], n_files),
    }
    width = max(n_labels, 1)
    t_active = _pieces.activity(n, t_first, t_stop, truth[1], width)
    p_active = _pieces.activity(n, p_first, p_stop, prediction[1], width)
    columns = {
        "duration": ("product", None),
        "duration_overlap": ("product", overlap),
        "matched": ("min", None),
        "matched_overlap": ("min", overlap),
    }
    f, t, p, pair = _pieces.pair_sums(pieces, t_active, p_active, width, width, columns)
    return per_file, (f, t, p, pair.pop("duration")), pair


def _diarization_arrays(
    inputs,
    collar: int,
    skip_overlap: bool,
    *,
    collar_convention: str = "total",
    compat: str | None = None,
    uem=None,
    truth_labels: list | None = None,
    prediction_labels: list | None = None,
    overlap: bool = True,
) -> _Table:
    """The statistics of validated inputs (codes of each side index its own label list)."""
    truth_labels = list(inputs.labels) if truth_labels is None else truth_labels
    prediction_labels = list(inputs.labels) if prediction_labels is None else prediction_labels
    n = inputs.n_files
    n_labels = max(len(truth_labels), len(prediction_labels), 1)
    if compat == "pyannote":
        return _pyannote_arrays(
            inputs, collar, skip_overlap, collar_convention, uem, truth_labels, prediction_labels
        )
    # merged truth turns only where the region needs them (per-side collars, overlap)
    needs_merged = skip_overlap or (collar > 0 and collar_convention == "per_side")
    truth_merged = _merge_labels(inputs.truth, n, n_labels) if needs_merged else None
    region = _scored_region(
        inputs, truth_merged, collar, skip_overlap, collar_convention=collar_convention, uem=uem
    )
    rows = truth_merged if truth_merged is not None else _positive(inputs.truth)
    prediction_rows = _positive(inputs.prediction)
    sizes = (n, len(truth_labels), len(prediction_labels))
    per_file, cooccurrence, pair, truth_time, prediction_time = _sweep_rows(
        sizes, _crop(n, n_labels, rows, region), _crop(n, n_labels, prediction_rows, region), overlap
    )
    mapping = None
    if collar > 0 and collar_convention == "per_side":  # md-eval maps before the collars
        scored = _scored_region(inputs, truth_merged, 0, False, uem=uem)
        mapping = _sweep_rows(
            sizes, _crop(n, n_labels, rows, scored), _crop(n, n_labels, prediction_rows, scored)
        )[1]
    return _Table(
        files=inputs.files,
        truth_labels=truth_labels,
        prediction_labels=prediction_labels,
        per_file=per_file,
        truth=truth_time,
        prediction=prediction_time,
        cooccurrence=cooccurrence,
        pair=pair,
        compat=compat,
        mapping=mapping,
    )


def _sweep_rows(sizes: tuple[int, int, int], truth, prediction, overlap: bool = True) -> tuple:
    """Per-file components, co-occurrence, pair columns and speaking times of cropped rows."""
    n, n_truth_labels, n_prediction_labels = sizes
    n_labels = max(n_truth_labels, n_prediction_labels, 1)
    result = mask_sweep(*sizes, truth, prediction, overlap)
    if result is None:  # a label overlapping itself: merge (union per label), sweep again
        truth = _merge_labels_arrays(n, n_labels, *truth)
        prediction = _merge_labels_arrays(n, n_labels, *prediction)
        result = mask_sweep(*sizes, truth, prediction, overlap)
    if result is not None:
        return result
    # more than 62 labels in a file: pairs of overlapping intervals
    per_file, cooccurrence, pair = _sweep_merged(n, n_labels, truth, prediction, overlap)
    return (
        per_file,
        cooccurrence,
        pair,
        _speaker_time(n, n_labels, truth),
        _speaker_time(n, n_labels, prediction),
    )


def _positive(side) -> tuple:
    """Rows of positive length of one side: file, label, start, end."""
    keep = side.end > side.start
    if keep.all():
        return side.file, side.label, side.start, side.end
    return side.file[keep], side.label[keep], side.start[keep], side.end[keep]


def _pyannote_arrays(
    inputs, collar, skip_overlap, collar_convention, uem, truth_labels, prediction_labels
) -> _Table:
    """``compat="pyannote"``: every row as it is (a label overlapping itself counts twice)."""
    n = inputs.n_files
    n_labels = max(len(truth_labels), len(prediction_labels), 1)
    truth_rows = _raw_labels(inputs.truth, n, n_labels)
    prediction_rows = _raw_labels(inputs.prediction, n, n_labels)
    truth_merged = _merge_labels(inputs.truth, n, n_labels)
    region = _scored_region(
        inputs,
        truth_merged,
        collar,
        skip_overlap,
        collar_convention=collar_convention,
        uem=uem,
        overlap_rows=truth_rows,  # pyannote.metrics: a label overlapping itself is overlap
    )
    truth = _crop(n, n_labels, truth_rows, region)
    prediction = _crop(n, n_labels, prediction_rows, region)
    per_file, cooccurrence, pair = _sweep_pieces(n, n_labels, truth, prediction)
    truth_time = _speaker_time(n, n_labels, truth)
    prediction_time = _speaker_time(n, n_labels, prediction)
    # label supports (merged), for purity and coverage
    prediction_merged = _merge_labels(inputs.prediction, n, n_labels)
    if len(truth_merged[0]) == len(truth_rows[0]) and len(prediction_merged[0]) == len(
        prediction_rows[0]
    ):  # no row merged into another: no label overlaps itself, supports are the rows
        support = {
            "truth": truth_time[2],
            "prediction": prediction_time[2],
            "cooccurrence": cooccurrence[3],
        }
    else:  # one more sweep, on the same region
        sizes = (n, len(truth_labels), len(prediction_labels))
        _, support_pairs, _, support_truth, support_prediction = _sweep_rows(
            sizes,
            _crop(n, n_labels, truth_merged, region),
            _crop(n, n_labels, prediction_merged, region),
            overlap=False,
        )
        support = {
            "truth": _aligned(truth_time, support_truth, n_labels),
            "prediction": _aligned(prediction_time, support_prediction, n_labels),
            "cooccurrence": _aligned(cooccurrence, support_pairs, n_labels),
        }
    return _Table(
        files=inputs.files,
        truth_labels=truth_labels,
        prediction_labels=prediction_labels,
        per_file=per_file,
        truth=truth_time,
        prediction=prediction_time,
        cooccurrence=cooccurrence,
        pair=pair,
        compat="pyannote",
        support=support,
    )


def _aligned(rows: tuple, other: tuple, n_labels: int) -> np.ndarray:
    """The last array of ``other`` on the keys of ``rows`` (the leading code arrays; 0 if absent)."""
    width = max(n_labels, 1)

    def key(codes):
        out = codes[0].astype(np.int64)
        for code in codes[1:]:
            out = out * width + code
        return out

    target, source = key(rows[:-1]), key(other[:-1])
    order = np.argsort(source, kind="stable")
    source = source[order]
    position = np.minimum(np.searchsorted(source, target), max(len(source) - 1, 0))
    out = np.zeros(len(target), dtype=np.int64)
    if len(source):
        found = source[position] == target
        out[found] = other[-1][order][position[found]]
    return out
