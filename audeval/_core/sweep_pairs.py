r"""The interval-pair strategy of the piece engine: two sides of many channels, each active once at a time.

Family-agnostic; :func:`audeval._core.sweep_sides.two_sides` takes it for channels counted once
(``distinct=True``) where the bit masks (:mod:`audeval._core.sweep_masks`) do not fit
(more than 62 channels of both sides in a file): its cost grows with the pairs of
overlapping intervals, not with pieces times the channels active on them.

* The per-file columns come from one sweep of ``+1``/``-1`` events sorted by (file, time):
  between two consecutive events the numbers :math:`n_l`, :math:`n_r` of active intervals
  are constant, and a column sums :math:`g(n_l, n_r)\, d` (0 between files and in silence:
  :math:`g(0, 0) = 0`).
* The pairs of a left and a right interval that overlap are found by two "start inside"
  searches on the sorted starts (no pairwise matrix); a pair's co-occurrence is the length
  of their intersection, and a weighted column its intersection with the merged spans
  where ``where(n_l, n_r)`` holds.
* The active time of a channel is the summed length of its (merged) intervals.

Every channel's intervals are merged first (:func:`merge_channels`), so each is active
at most once at a time. This module imports no metric family.
"""

from __future__ import annotations

import numpy as np

from audeval._core.intervals import expand_ranges, merge, shared_keys
from audeval._core.sweep_masks import file_sums

__all__ = ["merge_channels", "pair_sweep"]

_EMPTY = np.zeros(0, dtype=np.int64)
_EXACT = 2**53  # float64 sums of int64 are exact below this


def merge_channels(n_files: int, n_channels: int, rows: tuple) -> tuple:
    """Union of the intervals of every (file, channel), sorted by (file, channel, start).

    Examples:
        >>> rows = (np.array([0, 0, 0]), np.array([1, 1, 0]), np.array([0, 2, 5]), np.array([3, 4, 6]))
        >>> [x.tolist() for x in merge_channels(1, 2, rows)]
        [[0, 0], [0, 1], [5, 0], [6, 4]]

    """
    file, channel, start, end = rows
    width = np.int64(max(n_channels, 1))
    keep = end > start
    group = file[keep] * width + channel[keep]
    start, end = start[keep], end[keep]
    if len(group) == 0:
        return _EMPTY, _EMPTY.copy(), _EMPTY.copy(), _EMPTY.copy()
    start_key, end_key = shared_keys(n_files * int(width), (group, start), (group, end))
    order = np.argsort(start_key, kind="stable")
    start_key, end_key = start_key[order], end_key[order]
    group, start, end = group[order], start[order], end[order]
    reach = np.maximum.accumulate(end_key)
    new = np.ones(len(group), dtype=bool)
    new[1:] = (start_key[1:] > reach[:-1]) | (group[1:] != group[:-1])
    first = np.flatnonzero(new)
    group = group[first]
    return group // width, group % width, start[first], np.maximum.reduceat(end, first)


def _events(n_files: int, left, right):
    """Events of both sides sorted by (file, time): the keys, their order, time, file
    and the active numbers of each side between an event and the next."""
    l_file, _, l_start, l_end = left
    r_file, _, r_start, r_end = right
    n_l, n_r = len(l_file), len(r_file)
    keys = shared_keys(n_files, (l_file, l_start), (l_file, l_end), (r_file, r_start), (r_file, r_end))
    order = np.argsort(np.concatenate(keys), kind="stable")  # timsort: sorted runs
    time = np.concatenate([l_start, l_end, r_start, r_end])[order]
    file = np.concatenate([l_file, l_file, r_file, r_file])[order][:-1]
    one, none = np.ones(n_l, np.int8), np.zeros(n_r, np.int8)
    active_l = np.cumsum(np.concatenate([one, -one, none, none])[order], dtype=np.int64)[:-1]
    one, none = np.ones(n_r, np.int8), np.zeros(n_l, np.int8)
    active_r = np.cumsum(np.concatenate([none, none, one, -one])[order], dtype=np.int64)[:-1]
    length = time[1:] - time[:-1] if len(time) else _EMPTY
    return keys, order, time, file, active_l, active_r, length


def _overlapping(n_l: int, n_r: int, keys, order):
    """Pairs (i, j) of left and right intervals of a file that overlap.

    Either the right interval starts inside the left one, or the left one starts inside
    the right one (after its start): two searches on the starts of each side in sorted
    order, read off the joint sort ``order`` of the events (no other sort).
    """
    ls, le, rs, re = keys
    by_l = order[order < n_l]
    by_r = order[(order >= 2 * n_l) & (order < 2 * n_l + n_r)] - 2 * n_l
    rs_sorted, ls_sorted = rs[by_r], ls[by_l]
    i1, k1 = expand_ranges(
        np.searchsorted(rs_sorted, ls_sorted, side="left"), np.searchsorted(rs_sorted, le[by_l], side="left")
    )
    j2, k2 = expand_ranges(
        np.searchsorted(ls_sorted, rs_sorted, side="right"), np.searchsorted(ls_sorted, re[by_r], side="left")
    )
    return np.concatenate([by_l[i1], by_l[k2]]), np.concatenate([by_r[k1], by_r[j2]])


def _inside(n_files: int, file, start, end, regions) -> np.ndarray:
    """Per interval, its length inside the disjoint sorted ``regions`` (file, start, end)."""
    b_file, b_start, b_end = regions
    bs, be, s_key, e_key = shared_keys(n_files, (b_file, b_start), (b_file, b_end), (file, start), (file, end))
    i, j = expand_ranges(np.searchsorted(be, s_key, side="right"), np.searchsorted(bs, e_key))
    inside = np.maximum(np.minimum(end[i], b_end[j]) - np.maximum(start[i], b_start[j]), 0)
    return _sums(i, inside, len(file))


def _sums(key: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Exact int64 sums per key in ``[0, size)``; float64 bins are exact below ``2**53``."""
    if len(values) == 0 or int(np.abs(values).sum()) < _EXACT:
        return np.bincount(key, weights=values.astype(np.float64), minlength=size)[:size].astype(np.int64)
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, key, values)
    return out


def pair_sweep(n_files: int, n_left: int, n_right: int, left, right, per_file, pairs: dict) -> tuple:
    """Per-file columns, co-occurring pairs and active times of merged intervals.

    Args:
        n_files: number of file codes
        n_left: number of channel codes of ``left``
        n_right: number of channel codes of ``right``
        left: ``(file, channel, start, end)`` from :func:`merge_channels`
        right: the same of the other side
        per_file: the per-file columns, ``(n_l, n_r) -> {name: factor}`` (0 at ``(0, 0)``)
        pairs: pair columns, name to ``where(n_l, n_r)`` (``None``: everywhere)

    Returns:
        as :func:`audeval._core.sweep_masks.mask_sums`

    """
    keys, order, time, file, active_l, active_r, length = _events(n_files, left, right)
    columns = file_sums(file, n_files, {name: g * length for name, g in per_file(active_l, active_r).items()})
    i, j = _overlapping(len(left[0]), len(right[0]), keys, order)
    start = np.maximum(left[2][i], right[2][j])
    end = np.minimum(left[3][i], right[3][j])
    values = {}
    for name, where in pairs.items():  # over the few pair columns
        if where is None:
            values[name] = end - start
            continue
        k = np.flatnonzero(where(active_l, active_r) & (length > 0))
        regions = merge(n_files, file[k], time[k], time[k + 1])
        values[name] = _inside(n_files, left[0][i], start, end, regions)
    # left rows are sorted by (file, channel): (run of a left channel, right channel) bins
    l_key = left[0] * np.int64(max(n_left, 1)) + left[1]
    new = np.r_[True, l_key[1:] != l_key[:-1]] if len(l_key) else np.zeros(0, bool)
    run, run_first = np.cumsum(new) - 1, np.flatnonzero(new)
    width = np.int64(max(n_right, 1))
    key = run[i] * width + right[1][j]
    size = len(run_first) * int(width)
    if size <= max(8 * len(key), 1 << 20):  # dense bins: no sort
        present = np.bincount(key, minlength=size) > 0
        unique, inverse = np.flatnonzero(present), (np.cumsum(present, dtype=np.int64) - 1)[key]
    else:
        unique, inverse = np.unique(key, return_inverse=True)
        inverse = inverse.ravel()
    pair_columns = {name: _sums(inverse, v, len(unique)) for name, v in values.items()}
    first = run_first[unique // width] if len(unique) else _EMPTY
    pair_keys = (left[0][first], left[1][first], unique % width)
    return columns, pair_keys, pair_columns, _channel_time(left, n_left), _channel_time(right, n_right)


def _channel_time(rows, n_channels: int) -> tuple:
    """Summed length per (file, channel) of rows sorted by (file, channel)."""
    file, channel, start, end = rows
    if len(file) == 0:
        return _EMPTY, _EMPTY.copy(), _EMPTY.copy()
    key = file * np.int64(max(n_channels, 1)) + channel
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    return file[first], channel[first], np.add.reduceat(end - start, first)
