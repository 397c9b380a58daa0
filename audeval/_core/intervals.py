"""The interval engine: grouped sorts, window joins, unions and overlaps.

Everything here works on int64 nanoseconds and an int64 group id
(usually ``file`` or ``file * n_labels + label``),
and is vectorised over all groups at once:
a group never becomes a Python loop.

The central trick is :func:`group_keys`:
it maps ``(group, time)`` pairs to single int64 keys
that sort exactly like the pairs,
so one ``np.searchsorted`` answers a question for every group at once.
"""

from __future__ import annotations

import numpy as np


INT64_MAX = np.iinfo(np.int64).max


def group_min_max(
    group: np.ndarray,
    values: np.ndarray,
    n_groups: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Minimum and maximum of ``values`` per group (0 for empty groups)."""
    low = np.full(n_groups, INT64_MAX, dtype=np.int64)
    high = np.full(n_groups, -INT64_MAX, dtype=np.int64)
    if len(values):
        np.minimum.at(low, group, values)
        np.maximum.at(high, group, values)
    empty = low > high
    low[empty] = 0
    high[empty] = 0
    return low, high


def group_keys(
    n_groups: int,
    *pairs: tuple[np.ndarray, np.ndarray],
) -> list[np.ndarray]:
    """int64 keys that order ``(group, value)`` pairs lexicographically.

    Each argument after ``n_groups`` is a ``(group, values)`` pair of arrays.
    All of them are mapped with the same monotone transform,
    so keys of different arrays can be compared and searched
    against each other.
    Equal ``(group, value)`` pairs give equal keys.

    The transform shifts every group to its own range of the int64 line
    (``value - min[group] + base[group]``);
    where the ranges would not fit, values are replaced by their dense rank first.
    """
    groups = np.concatenate([g for g, _ in pairs]) if pairs else np.zeros(0, np.int64)
    values = np.concatenate([v for _, v in pairs]) if pairs else np.zeros(0, np.int64)
    groups = groups.astype(np.int64, copy=False)
    values = values.astype(np.int64, copy=False)
    low, high = group_min_max(groups, values, n_groups)
    span = (high - low).astype(np.float64) + 1.0
    if span.sum() < 2.0**62:
        width = high - low + 1
        base = np.concatenate([[0], np.cumsum(width)[:-1]]).astype(np.int64)
        keys = values - low[groups] + base[groups]
    else:  # pragma: no cover - needs > 146 years of audio per group sum
        _, rank = np.unique(values, return_inverse=True)
        keys = groups * (int(rank.max(initial=0)) + 1) + rank.astype(np.int64)
    out = []
    offset = 0
    for g, _ in pairs:
        out.append(keys[offset : offset + len(g)])
        offset += len(g)
    return out


def shared_keys(n_groups: int, *pairs: tuple[np.ndarray, np.ndarray]) -> list[np.ndarray]:
    """:func:`group_keys` without its per-group minima where it fits: ``group * span + value - low``.

    Same contract (keys of all pairs comparable, groups apart); ``low`` and ``span`` are
    the smallest value and the range of all values, used while ``(n_groups + 1) * span < 2**62``.

    Examples:
        >>> [k.tolist() for k in shared_keys(2, (np.array([0, 1]), np.array([3, 5])))]
        [[0, 5]]

    """
    times = [t for _, t in pairs if len(t)]
    if not times:
        return [np.zeros(0, dtype=np.int64) for _ in pairs]
    low = min(int(t.min()) for t in times)
    span = max(int(t.max()) for t in times) - low + 1
    if (n_groups + 1) * span >= 2**62:
        return group_keys(n_groups, *pairs)
    return [g.astype(np.int64, copy=False) * span + (t - low) for g, t in pairs]


def expand_ranges(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All ``(i, k)`` with ``left[i] <= k < right[i]``, as two flat arrays."""
    counts = np.maximum(right - left, 0)
    total = int(counts.sum())
    query = np.repeat(np.arange(len(left), dtype=np.int64), counts)
    if total == 0:
        return query, np.zeros(0, dtype=np.int64)
    starts = np.repeat(left - np.cumsum(counts) + counts, counts)
    item = starts + np.arange(total, dtype=np.int64)
    return query, item


def window_join(
    n_groups: int,
    item_group: np.ndarray,
    item_value: np.ndarray,
    query_group: np.ndarray,
    query_low: np.ndarray,
    query_high: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(query, item)`` in the same group with ``low <= value <= high``.

    Both bounds are inclusive and exact (int64).
    Cost: one sort of the items and two binary searches per query,
    plus the number of pairs returned.

    Returns:
        query indices and item indices (positions in the input arrays)

    """
    item_key, low_key, high_key = group_keys(
        n_groups,
        (item_group, item_value),
        (query_group, query_low),
        (query_group, query_high),
    )
    order = np.argsort(item_key)
    sorted_key = item_key[order]
    # binary searches with sorted needles walk memory in order: much faster
    by_low = np.argsort(low_key)
    left = np.searchsorted(sorted_key, low_key[by_low], side="left")
    right = np.searchsorted(sorted_key, high_key[by_low], side="right")
    query, position = expand_ranges(left, right)
    return by_low[query], order[position]


def merge(
    n_groups: int,
    group: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Union of intervals per group.

    Intervals are half-open ``[start, end)``;
    overlapping or touching intervals of a group become one,
    intervals of zero length are left out.

    Returns:
        group, start, end of disjoint intervals sorted by ``(group, start)``

    """
    keep = end > start
    group, start, end = group[keep], start[keep], end[keep]
    if len(group) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), empty.copy()
    start_key, end_key = group_keys(n_groups, (group, start), (group, end))
    order = np.argsort(start_key)
    start_key, end_key = start_key[order], end_key[order]
    group, start, end = group[order], start[order], end[order]
    reach = np.maximum.accumulate(end_key)
    # a new interval begins where the start lies beyond all ends before it
    # (keys of different groups never touch: each group has its own range)
    new = np.ones(len(start_key), dtype=bool)
    new[1:] = start_key[1:] > reach[:-1]
    new[1:] |= group[1:] != group[:-1]
    first = np.flatnonzero(new)
    merged_end = np.maximum.reduceat(end, first)
    return group[first], start[first], merged_end


def overlap_join(
    n_groups: int,
    a_group: np.ndarray,
    a_start: np.ndarray,
    a_end: np.ndarray,
    b_group: np.ndarray,
    b_start: np.ndarray,
    b_end: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(i, j)`` of intervals of ``a`` and ``b`` that overlap with positive length.

    ``b`` must be disjoint within each group and sorted by ``(group, start)``
    (the output of :func:`merge`); ``a`` is arbitrary.
    The ``b`` intervals overlapping one ``a`` interval are then a contiguous run,
    found with two binary searches.
    """
    b_start_key, b_end_key, a_start_key, a_end_key = group_keys(
        n_groups,
        (b_group, b_start),
        (b_group, b_end),
        (a_group, a_start),
        (a_group, a_end),
    )
    # first b with end > a.start, first b with start >= a.end
    left = np.searchsorted(b_end_key, a_start_key, side="right")
    right = np.searchsorted(b_start_key, a_end_key, side="left")
    i, j = expand_ranges(left, right)
    positive = np.minimum(a_end[i], b_end[j]) > np.maximum(a_start[i], b_start[j])
    same = a_group[i] == b_group[j]
    keep = positive & same
    return i[keep], j[keep]


def intersect(
    n_groups: int,
    a: tuple[np.ndarray, np.ndarray, np.ndarray],
    b: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Intersection of two merged interval sets, per group.

    Both inputs must be outputs of :func:`merge`.
    The result is disjoint and sorted by ``(group, start)``.
    """
    i, j = overlap_join(n_groups, *a, *b)
    start = np.maximum(a[1][i], b[1][j])
    end = np.minimum(a[2][i], b[2][j])
    return a[0][i], start, end


def group_sum(group: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Exact int64 sum of ``values`` per group."""
    out = np.zeros(n_groups, dtype=np.int64)
    if len(values):
        np.add.at(out, group, values.astype(np.int64, copy=False))
    return out


def total_length(
    n_groups: int,
    intervals: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """Summed length (ns) of disjoint intervals per group."""
    group, start, end = intervals
    return group_sum(group, end - start, n_groups)


def runs(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Run id of every element of a sorted key array, and the first element of each run."""
    if len(key) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    new = np.r_[True, key[1:] != key[:-1]]
    return np.cumsum(new) - 1, np.flatnonzero(new)


def difference(n_groups: int, a, b):
    """Parts of the merged interval set ``a`` not covered by ``b``, per group.

    ``a`` and ``b`` are ``(group, start, end)`` outputs of
    :func:`audeval._core.intervals.merge`: coverage is 0 or 1 on each side,
    so ``a - b == 1`` exactly where ``a`` is and ``b`` is not.
    """
    group = np.concatenate([a[0], a[0], b[0], b[0]])
    if len(group) == 0:
        return a
    position = np.concatenate([a[1], a[2], b[1], b[2]])
    delta = np.concatenate(
        [np.ones(len(a[0])), -np.ones(len(a[0])), -np.ones(len(b[0])), np.ones(len(b[0]))]
    ).astype(np.int64)
    (key,) = group_keys(n_groups, (group, position))
    order = np.argsort(key, kind="stable")
    group, position, state = group[order], position[order], np.cumsum(delta[order])
    run = np.flatnonzero(state[:-1] == 1)  # runs with a state of 1 never cross groups
    return merge(n_groups, group[run], position[run], position[run + 1])
