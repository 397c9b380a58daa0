"""Segment- and clip-based statistics at every threshold (sed_scores_eval's ``segment_based``, ``clip_based``).

Items are fixed segments :math:`[k L, (k + 1) L)` of every file
(:math:`\\lceil d / L \\rceil` of them for a file of duration :math:`d`),
or whole files (clips).
The score of an item and class is the largest score of the frames
that overlap the item with positive length
(0 for a segment that no frame reaches, as sed_scores_eval);
an item is positive for a class if a truth event of the class overlaps it.
At threshold :math:`\\theta` an item is detected if its score is :math:`\\ge \\theta`,
so each item adds one change point: +1 to ``tp`` (positive item) or ``fp``
at its score.
"""

from __future__ import annotations

import numpy as np

from audeval._core.intervals import expand_ranges, group_keys
from audeval._sed_scores.deltas import level_keys, sum_into
from audeval._sed_scores.inputs import ScoreInputs


def _ceil_div(a: np.ndarray, b: int) -> np.ndarray:
    return -((-a) // b)


def segment_items(inputs: ScoreInputs, length: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Segments as (file, start, end) in ns, sorted by file and start."""
    n_segments = _ceil_div(inputs.durations, length)
    file, k = expand_ranges(np.zeros(inputs.n_files, dtype=np.int64), n_segments)
    return file, k * length, (k + 1) * length


def clip_items(inputs: ScoreInputs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Whole files as items (start 0, end: the file's duration or its last frame)."""
    file = np.arange(inputs.n_files, dtype=np.int64)
    last = np.zeros(inputs.n_files, dtype=np.int64)
    if len(inputs.frame_end):
        np.maximum.at(last, inputs.frame_file, inputs.frame_end)
    return file, np.zeros(inputs.n_files, dtype=np.int64), np.maximum(last, inputs.durations) + 1


def item_scores(inputs: ScoreInputs, file, start, end) -> np.ndarray:
    """``(items, labels)``: the largest score of the frames overlapping each item (0: none)."""
    n_groups = inputs.n_files
    end_key, start_key, item_start, item_end = group_keys(
        n_groups, (inputs.frame_file, inputs.frame_end), (inputs.frame_file, inputs.frame_start),
        (file, start), (file, end),
    )
    first = np.searchsorted(end_key, item_start, side="right")
    last = np.searchsorted(start_key, item_end, side="left")
    out = np.zeros((len(file), inputs.n_labels), dtype=np.float64)
    reached = last > first
    item, frame = expand_ranges(first[reached], last[reached])
    if len(frame):
        bounds = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
        out[np.flatnonzero(reached)] = np.maximum.reduceat(inputs.scores[frame], bounds, axis=0)
    return out


def positive_items(inputs: ScoreInputs, file, start, end) -> np.ndarray:
    """``(items, labels)`` bool: a truth event of the label overlaps the item."""
    out = np.zeros((len(file), inputs.n_labels), dtype=bool)
    keep = inputs.truth_end > inputs.truth_start
    t_file, t_start, t_end = inputs.truth_file[keep], inputs.truth_start[keep], inputs.truth_end[keep]
    t_label = inputs.truth_label[keep]
    item_end_key, item_start_key, q_start, q_end = group_keys(
        inputs.n_files, (file, end), (file, start), (t_file, t_start), (t_file, t_end)
    )
    first = np.searchsorted(item_end_key, q_start, side="right")
    last = np.searchsorted(item_start_key, q_end, side="left")
    event, item = expand_ranges(first, last)
    out[item, t_label[event]] = True
    return out


def item_deltas(inputs: ScoreInputs, items: tuple) -> tuple:
    """Deltas of ``tp``/``fp`` per ``(group, level rank)``, the sorted levels, per-group totals."""
    file, start, end = items
    scores = item_scores(inputs, file, start, end)
    positive = positive_items(inputs, file, start, end)
    n_items = len(file)
    label = np.repeat(np.arange(inputs.n_labels, dtype=np.int64), n_items)
    group = label * inputs.n_files + np.tile(file, inputs.n_labels)
    values = scores.T.ravel()
    hit = positive.T.ravel().astype(np.int64)
    levels, rank = np.unique(values, return_inverse=True)
    out_group, out_rank, inverse = level_keys(group, rank.ravel(), len(levels))
    columns = {
        "tp": sum_into(inverse, hit, len(out_group)),
        "fp": sum_into(inverse, 1 - hit, len(out_group)),
    }
    n_groups = inputs.n_labels * inputs.n_files
    totals = {
        "n_truth": np.bincount(group, weights=hit, minlength=n_groups).astype(np.int64),
        "n_items": np.bincount(group, minlength=n_groups).astype(np.int64),
    }
    return out_group, out_rank, levels, columns, totals
