"""Boundaries of the structure metrics: hits within a window, deviations.

Default: boundary times in exact nanoseconds.
``compat="mir_eval"``: seconds rounded to 5 decimals and compared in float64,
as ``mir_eval.util.intervals_to_boundaries`` and ``mir_eval.segment.detection``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from audeval._core.intervals import group_keys
from audeval._core.intervals import window_join
from audeval._core.matching import maximum_matching
from audeval._core.ratios import divide
from audeval._core.ratios import fscore
from audeval._structure.prepare import Prepared
from audeval._core.validation import NS_PER_SECOND

# -------------------------------------------------------------------------
# Boundaries
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Boundaries:
    """Boundary times of one side, sorted by ``(file, time)``.

    ``time`` is int64: nanoseconds by default; in compat mode the rank
    of the rounded seconds among the boundaries of both sides.
    ``value`` is the time in seconds (float64).
    """

    file: np.ndarray
    time: np.ndarray
    value: np.ndarray


def _edges(prep: Prepared, pad: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(file, ns)`` of the edges of each side's rows (and pads, if ``pad``)."""
    if not pad:
        return [
            (np.concatenate([r.file, r.file]), np.concatenate([r.start, r.end]))
            for r in (prep.truth_rows, prep.prediction_rows)
        ]
    sides = []
    for pieces in (prep.truth, prep.prediction):
        # the edges of rows and pads (gap edges are edges of rows)
        row = pieces.is_row
        file = np.concatenate([pieces.file[row], pieces.file[row]])
        ns = np.concatenate([pieces.start[row], pieces.end[row]])
        sides.append((file, ns))
    return sides


def boundaries(prep: Prepared, trim: bool, pad: bool = True) -> tuple[Boundaries, Boundaries]:
    """Segment boundaries of both sides, optionally trimmed.

    ``pad=True``: the edges of rows and pads after ``mir_eval.segment.evaluate``'s
    preprocessing; ``pad=False``: the edges of the rows as given
    (``mir_eval.segment.detection`` / ``deviation`` called on the rows).
    Default: exact nanoseconds.
    compat: seconds rounded to 5 decimals, as mir_eval's ``intervals_to_boundaries``.
    """
    n_files = prep.n_files
    sides = _edges(prep, pad)
    if prep.compat:
        seconds = [np.round(ns / NS_PER_SECOND, 5) for _, ns in sides]
        _, rank = np.unique(np.concatenate(seconds), return_inverse=True)
        rank = rank.astype(np.int64)
        times = [rank[: len(seconds[0])], rank[len(seconds[0]) :]]
    else:
        seconds = [ns / NS_PER_SECOND for _, ns in sides]
        times = [ns for _, ns in sides]
    out = []
    for (file, _), time, value in zip(sides, times, seconds):
        (key,) = group_keys(n_files, (file, time))
        _, where = np.unique(key, return_index=True)  # sorted, duplicates once
        file, time, value = file[where], time[where], value[where]
        if trim:
            first = np.ones(len(file), dtype=bool)
            first[1:] = file[1:] != file[:-1]
            last = np.ones(len(file), dtype=bool)
            last[:-1] = file[1:] != file[:-1]
            keep = ~first & ~last
            file, time, value = file[keep], time[keep], value[keep]
        out.append(Boundaries(file, time, value))
    return out[0], out[1]


def _window_pairs(
    truth: Boundaries,
    prediction: Boundaries,
    window: float | int,
    compat: bool,
    n_files: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (truth, prediction) of boundaries of one file within the window.

    Default: ``|t - p| <= window`` in exact ns.
    compat: mir_eval's ``p - window <= t <= p + window`` in float64 seconds,
    made exact by ranking the float values.
    """
    if compat:
        m, q = len(truth.value), len(prediction.value)
        values = np.concatenate(
            [truth.value, prediction.value - float(window), prediction.value + float(window)]
        )
        _, rank = np.unique(values, return_inverse=True)
        rank = rank.astype(np.int64)
        item, low, high = rank[:m], rank[m : m + q], rank[m + q :]
    else:
        item = truth.time
        low, high = prediction.time - int(window), prediction.time + int(window)
    query, position = window_join(n_files, truth.file, item, prediction.file, low, high)
    return position, query


def boundary_counts(side: Boundaries, n_files: int) -> np.ndarray:
    """Number of boundaries per file."""
    return np.bincount(side.file, minlength=n_files).astype(np.int64)


def hits(
    truth: Boundaries,
    prediction: Boundaries,
    window: float | int,
    compat: bool,
    n_files: int,
) -> np.ndarray:
    """Hits per file: a maximum matching of boundaries at most ``window`` apart."""
    t_index, p_index = _window_pairs(truth, prediction, window, compat, n_files)
    match = maximum_matching(len(truth.file), len(prediction.file), t_index, p_index)
    return np.bincount(truth.file[match >= 0], minlength=n_files).astype(np.int64)


def detection_values(
    hit: np.ndarray, n_t: np.ndarray, n_p: np.ndarray, beta: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall, F per file from hits and boundary counts (0 where a side has none)."""
    matched = np.asarray(hit, dtype=np.float64)
    defined = (n_t > 0) & (n_p > 0)
    precision = np.where(defined, divide(matched, n_p, 0.0), 0.0)
    recall = np.where(defined, divide(matched, n_t, 0.0), 0.0)
    return precision, recall, fscore(precision, recall, beta=beta)


def _nearest_distance(
    source: Boundaries, target: Boundaries, compat: bool, n_files: int
) -> np.ndarray:
    """Distance of every source boundary to the nearest target boundary of its file."""
    out = np.full(len(source.time), np.inf)
    if len(target.time) == 0:
        return out
    source_key, target_key = group_keys(
        n_files, (source.file, source.time), (target.file, target.time)
    )
    index = np.searchsorted(target_key, source_key, side="left")
    for candidate in (index - 1, index):
        c = np.clip(candidate, 0, len(target_key) - 1)
        valid = (candidate >= 0) & (candidate < len(target_key)) & (target.file[c] == source.file)
        if compat:
            distance = np.abs(source.value - target.value[c])
        else:
            distance = np.abs(source.time - target.time[c]).astype(np.float64)
        out = np.where(valid, np.minimum(out, distance), out)
    return out


def _median_per_file(file: np.ndarray, values: np.ndarray, n_files: int) -> np.ndarray:
    """np.median per file (NaN for files without values); ``file`` sorted."""
    out = np.full(n_files, np.nan)
    if len(file) == 0:
        return out
    order = np.lexsort((values, file))
    file, values = file[order], values[order]
    counts = np.bincount(file, minlength=n_files)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    has = counts > 0
    lower = start + (counts - 1) // 2
    upper = start + counts // 2
    out[has] = (values[lower[has]] + values[upper[has]]) / 2.0
    return out


def deviation_scores(
    truth: Boundaries,
    prediction: Boundaries,
    compat: bool,
    n_files: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Median distance truth-to-prediction and prediction-to-truth per file (s)."""
    n_t = np.bincount(truth.file, minlength=n_files)
    n_p = np.bincount(prediction.file, minlength=n_files)
    defined = (n_t > 0) & (n_p > 0)
    scale = 1.0 if compat else 1.0 / NS_PER_SECOND
    t_to_p = _median_per_file(truth.file, _nearest_distance(truth, prediction, compat, n_files), n_files)
    p_to_t = _median_per_file(prediction.file, _nearest_distance(prediction, truth, compat, n_files), n_files)
    t_to_p = np.where(defined, t_to_p * scale, np.nan)
    p_to_t = np.where(defined, p_to_t * scale, np.nan)
    return t_to_p, p_to_t
