"""The speaker-set sweep of ``audeval._diarization.sets`` before it used the piece engine.

The reference of ``tests/test_pieces.py``.
"""

from __future__ import annotations

import numpy as np

from audeval._diarization.sets import _dense
from audeval._diarization.sets import _ranks
from audeval._core.intervals import expand_ranges
from audeval._core.intervals import group_keys
from audeval._core.intervals import group_sum


def _set_sweep(n, region, truth, prediction):
    """Per file the duration of every (truth set, predicted set) pair inside the region."""
    r_file, r_start, r_end = region
    t_file, t_label, t_start, t_end = truth
    p_file, p_label, p_start, p_end = prediction
    pairs = [(r_file, r_start), (r_file, r_end), (t_file, t_start), (t_file, t_end),
             (p_file, p_start), (p_file, p_end)]
    keys = np.concatenate(group_keys(n, *pairs))
    times = np.concatenate([v for _, v in pairs])
    files = np.concatenate([g for g, _ in pairs])
    bounds, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.ravel()
    b_time = np.empty(len(bounds), np.int64)
    b_file = np.empty(len(bounds), np.int64)
    b_time[inverse], b_file[inverse] = times, files
    length = b_time[1:] - b_time[:-1]
    n_seg = len(length)
    offsets = np.cumsum([0, len(r_file), len(r_file), len(t_file), len(t_file), len(p_file), len(p_file)])
    part = [inverse[offsets[k] : offsets[k + 1]] for k in range(6)]
    _, r_seg = expand_ranges(part[0], part[1])
    masks = []
    for (file, label), (a, b) in (((t_file, t_label), (part[2], part[3])), ((p_file, p_label), (part[4], part[5]))):
        interval, seg = expand_ranges(a, b)
        mask = np.zeros(n_seg, dtype=np.int64)
        np.bitwise_or.at(mask, seg, np.left_shift(1, _ranks(file, label)[interval]))
        masks.append(mask)
    covered = np.zeros(n_seg, dtype=bool)
    covered[r_seg] = True
    seg = np.flatnonzero(covered)
    keys = (b_file[:-1][seg], masks[0][seg], masks[1][seg])
    ids = _dense(*keys)
    n_ids = int(ids.max()) + 1 if len(ids) else 0
    first = np.zeros(n_ids, dtype=np.int64)
    first[ids] = np.arange(len(ids))
    duration = group_sum(ids, length[seg], n_ids)
    return keys[0][first], keys[1][first], keys[2][first], duration
