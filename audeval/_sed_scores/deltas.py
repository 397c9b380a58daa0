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
The number of detections itself needs no tree (:func:`run_changes`).
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Nodes:
    """Every run that is a detection at some threshold.

    ``group`` is ``label * n_files + file``;
    ``first``/``last`` index frames (rows of the score table);
    the run is a detection for ``death < threshold <= birth``
    (score levels; ``death = -inf``: it never merges);
    ``parent`` is the node it merges into (born at its ``death``; ``-1``: none).
    """

    group: np.ndarray
    first: np.ndarray
    last: np.ndarray
    birth: np.ndarray
    death: np.ndarray
    parent: np.ndarray

    @property
    def dies(self) -> np.ndarray:
        return self.death > -np.inf


def ranks(nodes: Nodes, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct levels of the nodes ``index`` and their birth and death ranks.

    The death rank is ``-1`` for a node that never merges.
    """
    birth, death = nodes.birth[index], nodes.death[index]
    levels = np.unique(np.concatenate([birth, death[death > -np.inf]]))
    death_rank = np.where(death > -np.inf, np.searchsorted(levels, death), -1)
    return levels, np.searchsorted(levels, birth).astype(np.int64), death_rank.astype(np.int64)


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

    compare = np.greater_equal if strict else np.greater
    todo = np.flatnonzero(compare(ext[left[:m]], values))
    value = values[todo]  # the values of the elements still jumping
    while len(todo):
        target = left[left[todo]]
        left[todo] = target
        still = compare(ext[target], value)
        todo, value = todo[still], value[still]
    return left[:m]


def flatten(
    scores: np.ndarray,
    frame_file: np.ndarray,
    n_files: int,
    keep: np.ndarray,
    floor: np.ndarray | None = None,
    labels: tuple[int, int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores of the groups ``keep`` (``label * n_files + file``) as one array.

    ``floor`` (per label): keep only the frames with score ``>= floor``
    (the detections at thresholds ``>= floor`` lie within them).
    ``labels``: only the labels ``range(*labels)`` (groups stay global).
    Returns values, group and frame index per element,
    ordered by label, then frame (so each group is one contiguous block;
    :func:`nodes` starts a new block where frames are not consecutive).
    """
    n, n_labels = scores.shape
    c0, c1 = labels if labels is not None else (0, n_labels)
    values = scores.T[c0:c1]
    mask = keep.reshape(n_labels, n_files)[c0:c1][:, frame_file]
    if floor is not None:
        mask &= values >= floor[c0:c1, None]
    flat = np.flatnonzero(mask)  # (label - c0) * n + frame
    del mask
    label = flat // n
    frame = flat - label * n
    out = values.ravel()[flat] if values.flags.c_contiguous else values[label, frame]
    group = (label + c0) * n_files
    group += frame_file[frame]
    return out, group.astype(np.int64, copy=False), frame.astype(np.int64, copy=False)


def flatten_runs(
    scores: np.ndarray,
    frame_file: np.ndarray,
    n_files: int,
    keep: np.ndarray,
    floor: np.ndarray | None = None,
    labels: tuple[int, int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`flatten` with each run of equal consecutive scores of a file as one element
    (median filtered scores hold many): values, group, first and last frame per element,
    for :func:`nodes` (a detection holds a run whole, so the tree is the same).

    The cells at or above the floor are found first (one pass); runs are found among them
    (equal values of a file are both at or above the floor or both below)."""
    n, n_labels = scores.shape
    c0, c1 = labels if labels is not None else (0, n_labels)
    values = scores.T[c0:c1]
    if floor is not None:
        flat = np.flatnonzero(values >= floor[c0:c1, None])  # (label - c0) * n + frame
    else:
        flat = np.arange(values.size)
    label = flat // n
    frame = flat - label * n
    group = (label + c0) * n_files
    group += frame_file[frame]
    mine = keep[group]
    if not mine.all():
        flat, frame, group = flat[mine], frame[mine], group[mine]
    out = values.ravel()[flat] if values.flags.c_contiguous else values[flat // n, frame]
    # an element continues a run: the next cell of the same label and file, the same value
    same = np.zeros(len(flat), dtype=bool)
    if len(flat) > 1:
        np.equal(flat[1:], flat[:-1] + 1, out=same[1:])
        same[1:] &= frame[1:] > 0
        same[1:] &= out[1:] == out[:-1]
        same[1:] &= group[1:] == group[:-1]
    lead = np.flatnonzero(~same)
    last = np.empty_like(lead)  # the cell before the next run's lead
    last[:-1] = lead[1:] - 1
    last[-1:] = len(flat) - 1
    return out[lead], group[lead].astype(np.int64, copy=False), frame[lead].astype(np.int64, copy=False), frame[last]


def flatten_clipped(
    scores: np.ndarray,
    frame_file: np.ndarray,
    n_files: int,
    keep: np.ndarray,
    low: np.ndarray,
    level: np.ndarray,
    labels: tuple[int, int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`flatten` of the scores clipped from above at ``level`` (per label),
    for the labels with ``low > -inf`` (``low <= level``: no score lies in ``[low, level)``).

    Every run of frames with score ``>= low`` becomes one element of value ``level``.
    Returns values, group, first and last frame per element.
    """
    n, n_labels = scores.shape
    c0, c1 = labels
    values = scores.T[c0:c1]
    mask = keep.reshape(n_labels, n_files)[c0:c1][:, frame_file]
    mask &= (low[c0:c1] > -np.inf)[:, None]
    high = values >= low[c0:c1, None]
    first = np.ones(n, dtype=bool)
    first[1:] = frame_file[1:] != frame_file[:-1]
    # an element: a frame below ``low`` or the first frame of a run at or above it
    lead = high.copy()
    lead[:, 1:] &= ~high[:, :-1] | first[1:]
    lead |= ~high
    lead &= mask
    label, frame = np.nonzero(lead)
    del lead
    out = values[label, frame]
    clipped = high[label, frame]
    out[clipped] = level[c0:c1][label[clipped]]
    # the last frame of an element: the frame before the next element (or the file's end)
    last = frame.copy()
    ends = np.ones(n, dtype=bool)  # per frame: a run at or above ``low`` ends there
    ends[:-1] = first[1:]
    run_end = np.zeros((c1 - c0, n), dtype=bool)
    run_end[:, :-1] = ~high[:, 1:]
    run_end |= ends
    run_end &= high & mask
    del high, mask
    end_label, end_frame = np.nonzero(run_end)
    del run_end
    last[clipped] = end_frame  # runs and their ends come in the same order
    group = (label + c0) * n_files
    group += frame_file[frame]
    return out, group.astype(np.int64, copy=False), frame.astype(np.int64), last.astype(np.int64)


def group_sums(
    group: np.ndarray, change: np.ndarray, first: int, n_groups: int, level: np.ndarray, n_files: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per group of ``first .. first + n_groups - 1``: the sum of ``change``,
    at the level of the group's label (``level[group // n_files]``)."""
    summed = sum_into(group - first, change, n_groups)
    rows = np.flatnonzero(summed)
    out = rows + first
    return out, level[out // n_files], summed[rows]


def label_blocks(n_frames: int, n_labels: int, cells: int) -> list[tuple[int, int]]:
    """Consecutive ranges of labels of about ``cells`` score cells each (one label at least)."""
    step = max(1, int(cells) // max(int(n_frames), 1))
    return [(c, min(c + step, n_labels)) for c in range(0, n_labels, step)]


def block_run_changes(
    scores: np.ndarray,
    frame_file: np.ndarray,
    n_files: int,
    cuts=None,
    cells: int = 2**22,
    found: dict | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`run_changes` block by block of labels (about ``cells`` score cells each).

    ``cuts`` (:class:`audeval._sed_scores.prune.Cuts`): rows in a label's band
    ``[low, high)`` are summed into its row at ``level``, or left out where nothing lies below.
    ``found``: the rows of blocks already known (``(c0, c1)`` -> rows, from
    :func:`audeval._sed_scores.prune.fp_floor` with the same ``cells``).
    """
    n, n_labels = scores.shape
    parts = []
    for c0, c1 in label_blocks(n, n_labels, cells):
        if found is not None and (c0, c1) in found:
            parts.append(found.pop((c0, c1)))
            continue
        group, level, change = run_changes(scores[:, c0:c1], frame_file, n_files)
        group += c0 * n_files
        if cuts is not None:
            label = group // n_files
            band = (level < cuts.high[label]) & (level >= cuts.low[label])
            moved = band & cuts.bottom[label]
            if moved.any():  # summed into one row per group at the band's lowest level
                parts.append(group_sums(group[moved], change[moved], c0 * n_files, (c1 - c0) * n_files, cuts.level, n_files))
            keep = ~band
            group, level, change = group[keep], level[keep], change[keep]
        parts.append((group, level, change))
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64)
    return tuple(np.concatenate(p) for p in zip(*parts))  # type: ignore[return-value]  # three columns per part


def run_changes(
    scores: np.ndarray, frame_file: np.ndarray, n_files: int, starts: np.ndarray | None = None,
    at_least: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Changes of the number of detections of every group (file, class), all at once.

    The number of runs with score :math:`\ge \theta` counts the frames
    that start one: frame :math:`k` does for
    :math:`s_{k-1} < \theta \le s_k` (:math:`s_0 = -\infty` at a file's first frame),
    +1 at :math:`s_k` and -1 at :math:`s_{k-1}`.
    Along a strictly rising stretch :math:`s_a < \dots < s_z` these telescope
    to +1 at its top :math:`s_z` and -1 at its bottom :math:`s_a`,
    so only local extrema give rows (the sums per level are unchanged).
    ``starts``: the first frame of every file (found from ``frame_file`` if not given).
    ``at_least`` (per label): only the rows at or above it (:func:`_changes_at_least`).
    Returns group, level and change per row.
    """
    n, n_labels = scores.shape
    if n == 0 or n_labels == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64)
    if starts is None:
        starts = file_starts(frame_file)
    values = scores.T  # (classes, frames): contiguous for pandas' column blocks
    if at_least is not None:
        return _changes_at_least(values, frame_file, n_files, starts, at_least)
    up = np.zeros((n_labels, n + 1), dtype=bool)  # up[c, k]: s_k > s_{k-1} in the same file
    np.greater(values[:, 1:], values[:, :-1], out=up[:, 1:n])
    up[:, starts] = False
    # rise - next rise (next_rise[c, k] = up[c, k + 1], False at a file's end):
    # +1 at a top, -1 at a bottom, 0 elsewhere
    step = up[:, :n].view(np.int8) - up[:, 1:].view(np.int8)
    del up
    step[:, starts] += 1  # a first frame: +1 unless the next rises (then its +1 and -1 cancel)
    flat = np.flatnonzero(step)  # label * n + frame
    change = step.ravel()[flat].astype(np.int64)
    del step
    label = flat // n
    frame = flat - label * n
    group = label * n_files + frame_file[frame]
    level = values.ravel()[flat] if values.flags.c_contiguous else values[label, frame]
    return group, level, change


def _changes_at_least(values, frame_file, n_files, starts, at_least) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`run_changes`' rows at levels at or above ``at_least`` (per label): a row's level
    is its frame's score, so only those frames and their neighbours are read."""
    n_labels, n = values.shape
    flat = np.flatnonzero(values >= np.asarray(at_least, dtype=np.float64)[:, None])
    label = flat // n
    frame = flat - label * n
    ravel = values.ravel() if values.flags.c_contiguous else None
    level = ravel[flat] if ravel is not None else values[label, frame]
    first = np.zeros(n + 1, dtype=bool)  # a frame starts a file (or is past the last)
    first[starts] = True
    first[n] = True
    previous = np.maximum(frame - 1, 0)
    following = np.minimum(frame + 1, n - 1)
    if ravel is not None:
        before, after = ravel[flat - frame + previous], ravel[flat - frame + following]
    else:
        before, after = values[label, previous], values[label, following]
    start = first[frame]
    rise = (level > before) & ~start  # s_k > s_{k-1} in the same file
    next_rise = (after > level) & ~first[frame + 1]
    step = rise.view(np.int8) - next_rise.view(np.int8)
    step[start] += 1
    rows = np.flatnonzero(step)
    frame = frame[rows]
    group = label[rows] * n_files + frame_file[frame]
    return group, level[rows], step[rows].astype(np.int64)


def file_starts(frame_file: np.ndarray) -> np.ndarray:
    """The rows where a file's frames start (frames sorted by file)."""
    first = np.ones(len(frame_file), dtype=bool)
    np.not_equal(frame_file[1:], frame_file[:-1], out=first[1:])
    return np.flatnonzero(first)


def nodes(values: np.ndarray, group: np.ndarray, frame: np.ndarray, frame_last: np.ndarray | None = None) -> Nodes:
    """The detection runs of groups given as contiguous blocks (module docstring).

    ``values``, ``group``, ``frame``: one element per frame of a group
    (:func:`flatten`); ``first``/``last`` of the result are frame indices.
    ``frame_last``: the last frame of each element where an element spans several
    (:func:`flatten_clipped`; default: ``frame``).
    """
    if frame_last is None:
        frame_last = frame
    m = len(values)
    if m == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Nodes(empty, empty, empty, np.zeros(0), np.zeros(0), empty)
    start_of_group = np.ones(m, dtype=bool)
    np.not_equal(group[1:], group[:-1], out=start_of_group[1:])
    start_of_group[1:] |= frame[1:] != frame_last[:-1] + 1  # a gap: frames left out by a floor
    end_of_group = np.ones(m, dtype=bool)
    end_of_group[:-1] = start_of_group[1:]
    ext = np.append(values, -np.inf)
    left = nearest_smaller(values, start_of_group, strict=False)
    # one node per run: its leftmost minimum (the nearest value <= it on the left is smaller),
    # for which the nearest smaller-or-equal value is the nearest smaller one
    k = np.flatnonzero(ext[left] < values)
    first = _group_first(start_of_group)[k]
    del start_of_group
    left_k = left[k]
    first = np.where(left_k == m, first, left_k + 1)
    right = nearest_smaller(values[::-1], end_of_group[::-1])[::-1]
    right_k = np.where(right[k] == m, m, m - 1 - right[k])
    del right
    last = np.where(right_k == m, _group_last(end_of_group)[k], right_k - 1)
    del end_of_group
    death = np.maximum(ext[left_k], ext[right_k])
    # the parent run holds the larger neighbour; its node is that frame's leftmost equal value
    neighbour = np.where(ext[left_k] >= ext[right_k], left_k, right_k)
    del left_k, right_k
    node_of = np.full(m + 1, -1, dtype=np.int64)
    node_of[k] = np.arange(len(k))
    parent = node_of[_leftmost_equal(values, left)[neighbour]]
    del node_of, left, neighbour
    return Nodes(group[k], frame[first], frame_last[last], values[k], death, parent)


def _leftmost_equal(values: np.ndarray, left_equal: np.ndarray) -> np.ndarray:
    """Per element, the leftmost element of its chain of equal values with nothing smaller between.

    ``left_equal``: the nearest element to the left that is smaller or equal
    (``len(values)``: none, which maps to itself).
    """
    m = len(values)
    out = np.arange(m + 1, dtype=np.int64)
    tie = np.flatnonzero(np.append(values, -np.inf)[left_equal] == values)
    out[tie] = left_equal[tie]
    while len(tie):  # pointer jumping along the (rare) ties
        step = out[out[tie]]
        moved = step != out[tie]
        out[tie] = step
        tie = tie[moved]
    return out


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
    (radix sorts of 16-bit digits).
    Returns the groups and level ranks of the distinct pairs,
    the sorted distinct levels and each row's pair.
    """
    by_level = np.argsort(level)[::-1]  # descending; ties in any order: the group sort is stable
    descending = level[by_level]
    new_level = np.empty(len(level), dtype=bool)
    new_level[:1] = True
    np.not_equal(descending[1:], descending[:-1], out=new_level[1:])
    levels = descending[new_level][::-1].copy()
    del descending
    rank = len(levels) - np.cumsum(new_level)  # in ascending levels, rows by level
    del new_level
    by_group = stable_group_order(group[by_level], n_groups)
    order = by_level[by_group]
    del by_level
    sorted_group, sorted_rank = group[order], rank[by_group]
    del rank, by_group
    new = np.empty(len(level), dtype=bool)
    new[:1] = True
    new[1:] = (sorted_group[1:] != sorted_group[:-1]) | (sorted_rank[1:] != sorted_rank[:-1])
    inverse = np.empty(len(level), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return sorted_group[new], sorted_rank[new], levels, inverse


def stable_group_order(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Stable order of non-negative group ids below ``n_groups``: radix sorts of 16-bit digits."""
    if n_groups <= 2**16:
        return np.argsort(group.astype(np.uint16), kind="stable")
    if n_groups > 2**32:
        return np.argsort(group, kind="stable")
    order = np.argsort((group & 0xFFFF).astype(np.uint16), kind="stable")
    return order[np.argsort((group[order] >> 16).astype(np.uint16), kind="stable")]


def sum_into(inverse: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Exact int64 sums of ``values`` per position ``inverse``."""
    values = values.astype(np.int64, copy=False)
    if len(values) and np.abs(values).max() < 2**52 // max(len(values), 1):
        # float sums of integers below 2**53 are exact
        return np.rint(np.bincount(inverse, weights=values, minlength=n)).astype(np.int64)
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, inverse, values)
    return out
