"""The diarization sweep with multiplicity as it was before it used the piece engine.

The reference of ``tests/test_pieces.py``
(``compat="pyannote"`` now runs ``audeval._diarization.statistics._sweep_pieces``
on :mod:`audeval._core.sweep`). ``multiplicity=False`` is not kept here (the package's
``_sweep_merged`` is that path).
"""

from __future__ import annotations

import numpy as np

from audeval._core.intervals import expand_ranges
from audeval._core.intervals import group_keys
from audeval._core.intervals import group_sum


def _segments(n_files, truth, prediction):
    """Elementary segments: length, file, and the (interval, segment) pairs of each side."""
    t_file, _, t_start, t_end = truth
    p_file, _, p_start, p_end = prediction
    n_t, n_p = len(t_file), len(p_file)
    keys = group_keys(n_files, (t_file, t_start), (t_file, t_end), (p_file, p_start), (p_file, p_end))
    keys = np.concatenate(keys)
    times = np.concatenate([t_start, t_end, p_start, p_end])
    files = np.concatenate([t_file, t_file, p_file, p_file])
    bounds, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.ravel()
    bound_times = np.empty(len(bounds), dtype=np.int64)
    bound_files = np.empty(len(bounds), dtype=np.int64)
    bound_times[inverse] = times
    bound_files[inverse] = files
    length = bound_times[1:] - bound_times[:-1]  # only segments inside a file are ever covered
    t_pairs = expand_ranges(inverse[:n_t], inverse[n_t : 2 * n_t])
    p_pairs = expand_ranges(inverse[2 * n_t : 2 * n_t + n_p], inverse[2 * n_t + n_p :])
    return length, bound_files[:-1], t_pairs, p_pairs


def _per_segment_labels(label, interval, segment, width, multiplicity):
    """(segment, label, count) entries of one side, sorted by segment."""
    lab = label[interval]
    if not multiplicity:
        order = np.argsort(segment, kind="stable")
        return segment[order], lab[order], np.ones(len(order), dtype=np.int64)
    key = segment * width + lab
    unique, counts = np.unique(key, return_counts=True)
    return unique // width, unique % width, counts.astype(np.int64)


def _sweep(
    n_files: int, n_labels: int, truth, prediction, *, multiplicity: bool = False, overlap: bool = True
):
    """Per-file components (regions apart) and the co-occurrence of label pairs."""
    assert multiplicity  # the reference of the path with multiplicity only
    length, segment_file, (t_interval, t_segment), (p_interval, p_segment) = _segments(
        n_files, truth, prediction
    )
    n_segments = len(length)
    n_truth = np.bincount(t_segment, minlength=n_segments)
    n_prediction = np.bincount(p_segment, minlength=n_segments)
    overlap = n_truth >= 2
    miss = np.maximum(n_truth - n_prediction, 0) * length
    false_alarm = np.maximum(n_prediction - n_truth, 0) * length
    total = n_truth * length
    per_file = {
        "total": group_sum(segment_file, total, n_files),
        "miss": group_sum(segment_file, miss, n_files),
        "false_alarm": group_sum(segment_file, false_alarm, n_files),
        "total_overlap": group_sum(segment_file[overlap], total[overlap], n_files),
        "miss_overlap": group_sum(segment_file[overlap], miss[overlap], n_files),
        "false_alarm_overlap": group_sum(segment_file[overlap], false_alarm[overlap], n_files),
        "false_alarm_silence": group_sum(
            segment_file[n_truth == 0], false_alarm[n_truth == 0], n_files
        ),
    }
    width = max(n_labels, 1)
    t_seg, t_lab, t_count = _per_segment_labels(truth[1], t_interval, t_segment, width, multiplicity)
    p_seg, p_lab, p_count = _per_segment_labels(
        prediction[1], p_interval, p_segment, width, multiplicity
    )
    offsets = np.zeros(n_segments + 1, dtype=np.int64)
    np.cumsum(np.bincount(p_seg, minlength=n_segments), out=offsets[1:])
    a, b = expand_ranges(offsets[t_seg], offsets[t_seg + 1])
    seg = t_seg[a]
    key = (segment_file[seg] * width + t_lab[a]) * width + p_lab[b]
    d = length[seg]
    weights = {"duration": d * t_count[a] * p_count[b]}
    weights["duration_overlap"] = np.where(overlap[seg], weights["duration"], 0)
    if multiplicity:
        weights["matched"] = d * np.minimum(t_count[a], p_count[b])
        weights["matched_overlap"] = np.where(overlap[seg], weights["matched"], 0)
    unique, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.ravel()
    pair = {c: group_sum(inverse, w, len(unique)) for c, w in weights.items()}
    file, rest = unique // (width * width), unique % (width * width)
    cooccurrence = (file, rest // width, rest % width, pair.pop("duration"))
    return per_file, cooccurrence, pair
