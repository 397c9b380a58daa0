"""Detections at every threshold as change points ("deltas", Ebbers et al., ICASSP 2022).

For one class of one file with frame scores :math:`s_1, \\dots, s_n`,
the detections at threshold :math:`\\theta` are the maximal runs of frames
with :math:`s_k \\ge \\theta`.
A run :math:`[a, z]` is a detection exactly for

.. math::

    \\max(s_{a-1}, s_{z+1}) < \\theta \\le \\min_{a \\le k \\le z} s_k

(:math:`s_0 = s_{n+1} = -\\infty`):
it is *born* when the threshold falls to its minimum score
and *dies* (merges into a longer run) when it falls to the larger
of its two neighbouring scores.
These runs are the nodes of the min-Cartesian tree of the scores:
frame :math:`k` spans from its nearest strictly smaller score on the left
to the nearest strictly smaller on the right,
so there are at most :math:`n` of them, found here for all files and classes
at once by pointer jumping (:math:`O(n \\log n)`, vectorised).
Any statistic that is a sum over detections
then changes only at births and deaths: +value at the birth level,
-value at the death level.
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Nodes:
    """Every run that is a detection at some threshold.

    ``group`` is ``label * n_files + file``;
    ``first``/``last`` index frames (rows of the score table);
    the run is a detection for ``levels[death] < threshold <= levels[birth]``;
    ``birth`` and ``death`` are ranks into ``levels``, the sorted distinct scores
    (``death = -1``: it never merges).
    """

    group: np.ndarray
    first: np.ndarray
    last: np.ndarray
    birth: np.ndarray
    death: np.ndarray
    levels: np.ndarray

    @property
    def dies(self) -> np.ndarray:
        return self.death >= 0


def nearest_smaller(values: np.ndarray, new_group: np.ndarray, *, strict: bool = True) -> np.ndarray:
    """Index of the nearest value to the left that is smaller (``len(values)``: none).

    ``new_group[k]`` marks the first element of a group; groups do not see each other.
    ``strict=False`` finds the nearest value that is smaller or equal.
    Pointer jumping: a pointer only skips values not smaller than the value
    of the element it starts from, so every round keeps it valid,
    and runs of skipped values double in length each round.
    """
    m = len(values)
    ext = np.append(values, -np.inf)
    left = np.arange(-1, m, dtype=np.int64)
    left[:m][new_group] = m
    left[m] = m

    def blocked(index):
        found = ext[left[index]]
        return found >= values[index] if strict else found > values[index]

    todo = np.flatnonzero(blocked(np.arange(m)))
    while len(todo):
        left[todo] = left[left[todo]]
        todo = todo[blocked(todo)]
    return left[:m]


def flatten(
    scores: np.ndarray, frame_file: np.ndarray, n_files: int, keep: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores of the groups ``keep`` (``label * n_files + file``) as one array.

    Returns values, group and frame index per element,
    ordered by label, then frame (so each group is one contiguous block).
    """
    n, n_labels = scores.shape
    mask = keep.reshape(n_labels, n_files)[:, frame_file]
    label, frame = np.nonzero(mask)
    values = scores.T[mask]
    group = label * n_files + frame_file[frame]
    return values, group.astype(np.int64), frame.astype(np.int64)


def crossings(values: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Changes of the number of detections of groups whose detections are all alike.

    The number of runs with score :math:`\ge \theta` counts the frames
    that start a run: +1 at :math:`s_k` for a group's first frame and where
    :math:`s_{k-1} < s_k`, then -1 at :math:`s_{k-1}` (from there on the run starts earlier).
    Returns group, level and change per row.
    """
    if len(values) == 0:
        return group, values, np.zeros(0, dtype=np.int64)
    first = np.r_[True, group[1:] != group[:-1]]
    up = np.r_[False, values[1:] > values[:-1]] & ~first
    rise = np.flatnonzero(first | up)
    fall = np.flatnonzero(up)
    out_group = np.concatenate([group[rise], group[fall]])
    level = np.concatenate([values[rise], values[fall - 1]])
    change = np.concatenate([np.ones(len(rise), np.int64), -np.ones(len(fall), np.int64)])
    return out_group, level, change


def nodes(values: np.ndarray, group: np.ndarray, frame: np.ndarray) -> Nodes:
    """The detection runs of groups given as contiguous blocks (module docstring).

    ``values``, ``group``, ``frame``: one element per frame of a group
    (:func:`flatten`); ``first``/``last`` of the result are frame indices.
    """
    m = len(values)
    if m == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Nodes(empty, empty, empty, empty, empty, np.zeros(0))
    start_of_group = np.ones(m, dtype=bool)
    start_of_group[1:] = group[1:] != group[:-1]
    end_of_group = np.ones(m, dtype=bool)
    end_of_group[:-1] = start_of_group[1:]
    left = nearest_smaller(values, start_of_group)
    left_equal = nearest_smaller(values, start_of_group, strict=False)
    right = nearest_smaller(values[::-1], end_of_group[::-1])
    right = np.where(right == m, m, m - 1 - right)[::-1]
    # one node per run: its leftmost minimum (no equal value between it and ``left``)
    k = np.flatnonzero(left == left_equal)
    levels, rank = np.unique(values, return_inverse=True)
    ext = np.append(rank.ravel().astype(np.int64), -1)
    first = np.where(left[k] == m, _group_first(start_of_group)[k], left[k] + 1)
    last = np.where(right[k] == m, _group_last(end_of_group)[k], right[k] - 1)
    death = np.maximum(ext[left[k]], ext[right[k]])
    return Nodes(group[k], frame[first], frame[last], ext[k], death, levels)


def _group_first(start_of_group: np.ndarray) -> np.ndarray:
    """Index of the first element of each element's group."""
    index = np.where(start_of_group, np.arange(len(start_of_group)), 0)
    return np.maximum.accumulate(index)


def _group_last(end_of_group: np.ndarray) -> np.ndarray:
    """Index of the last element of each element's group."""
    m = len(end_of_group)
    index = np.where(end_of_group, np.arange(m), m)
    return np.minimum.accumulate(index[::-1])[::-1]


def level_keys(group: np.ndarray, rank: np.ndarray, n_levels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ``(group, rank)`` pairs (by group, rank descending) and each row's pair.

    Returns the groups and ranks of the distinct pairs and, per input row,
    the position of its pair (one sort of int64 keys).
    """
    n_levels = max(int(n_levels), 1)
    key = group.astype(np.int64) * n_levels + (n_levels - 1 - rank.astype(np.int64))
    keys, inverse = np.unique(key, return_inverse=True)
    return keys // n_levels, n_levels - 1 - keys % n_levels, inverse.ravel()


def float_level_keys(
    group: np.ndarray, level: np.ndarray, n_groups: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ``(group, level)`` pairs of float levels, by group, level descending.

    One float sort (which also ranks the levels) and one stable sort of the groups
    (a radix sort where group ids fit 16 bits).
    Returns the groups and level ranks of the distinct pairs,
    the sorted distinct levels and each row's pair.
    """
    by_level = np.argsort(-level)  # ties in any order: the group sort below is stable
    descending = level[by_level]
    new_level = np.empty(len(level), dtype=bool)
    new_level[:1] = True
    np.not_equal(descending[1:], descending[:-1], out=new_level[1:])
    levels = descending[new_level][::-1].copy()
    del descending
    rank = np.empty(len(level), dtype=np.int64)
    rank[by_level] = len(levels) - np.cumsum(new_level)  # rank in ascending levels
    del new_level
    ids = group[by_level]
    ids = ids.astype(np.int16) if n_groups < 2**15 else ids
    order = by_level[np.argsort(ids, kind="stable")]
    del by_level, ids
    sorted_group, sorted_rank = group[order], rank[order]
    del rank
    new = np.empty(len(level), dtype=bool)
    new[:1] = True
    new[1:] = (sorted_group[1:] != sorted_group[:-1]) | (sorted_rank[1:] != sorted_rank[:-1])
    inverse = np.empty(len(level), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return sorted_group[new], sorted_rank[new], levels, inverse


def sum_into(inverse: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Exact int64 sums of ``values`` per position ``inverse``."""
    values = values.astype(np.int64, copy=False)
    if len(values) and np.abs(values).max() < 2**52 // max(len(values), 1):
        # float sums of integers below 2**53 are exact
        return np.rint(np.bincount(inverse, weights=values, minlength=n)).astype(np.int64)
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, inverse, values)
    return out
