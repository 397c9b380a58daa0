r"""Per-channel totals and runs of two sides, on the piece engine: packed keys where they fit.

Family-agnostic, on int64 units (nanoseconds, frames, segments of a grid).

Conventions:
    Two sides (*left*, *right*) of intervals ``[start, end)`` with a file code and a channel code,
    on a bounded axis ``[0, extent[f])`` per file
    (``0 <= start`` and ``end <= extent[file]``; intervals with ``end <= start`` count nothing).
    A channel is *active* on a side at a unit if any interval of that side covers it
    (overlapping intervals of one channel count once).
    Results are per *group* ``file * n_channels + channel``.

* :func:`channel_totals`: per group the time each side is active and the time both are,
  per file :math:`\sum_p d_p \min(n_l(p), n_r(p))`
  over the elementary pieces :math:`p` (length :math:`d_p`) with
  :math:`n_l(p)`, :math:`n_r(p)` active channels on each side,
* :func:`channel_runs`: per group the maximal runs where only the left side,
  only the right side, or both are active.

Strategies, chosen by size (:func:`fits`):

* packed keys: every group owns the keys ``base[group] + unit`` for ``unit`` in ``0..extent[f]``
  (``extent[f] + 1`` keys, so groups never touch), every file the keys ``file_base[file] + unit``.
  The ranges of a group are merged with one sort of their start keys,
  the boundaries of both sides are packed with their kind into one int64 (``key * 4 + kind``)
  so that plain sorts order them, and cumulative sums of +1 / -1 over them
  say who is active on every piece, in ``(file, channel, unit)`` order for the groups
  and in ``(file, unit)`` order for the files (no ``(piece, channel)`` list is built);
  cost: a few sorts of the ``2 n`` boundaries;
* pieces (all keys would not fit below :data:`KEY_LIMIT`):
  :func:`audeval._core.sweep.cut` and :func:`audeval._core.sweep.activity`,
  cost linear in the ``(piece, channel)`` activity.

This module imports no metric family.
"""

from __future__ import annotations

import numpy as np

from audeval._core.sweep import activity
from audeval._core.sweep import cut
from audeval._core.sweep import join_runs
from audeval._core.sweep import sort_keys


__all__ = ["KEY_LIMIT", "channel_runs", "channel_totals", "fits"]

KEY_LIMIT = 2**60
"""Total key range of the packed strategy (``key * 4 + kind`` stays in int64)."""

_D_LEFT = np.array([1, -1, 0, 0], dtype=np.int64)  # kind 0/1: left start/end
_D_RIGHT = np.array([0, 0, 1, -1], dtype=np.int64)  # kind 2/3: right start/end
_EMPTY = np.zeros(0, dtype=np.int64)

Side = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""``(file, channel, start, end)`` per interval."""


def fits(extent: np.ndarray, n_channels: int) -> bool:
    """Whether the keys of every ``(file, channel)`` group fit below :data:`KEY_LIMIT`."""
    total = float(np.sum(np.asarray(extent) + 1, dtype=np.float64)) * max(n_channels, 1)
    return total < KEY_LIMIT


def channel_totals(
    extent: np.ndarray, n_channels: int, left: Side, right: Side
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Time of every channel on two sides, and time of both, per file and channel.

    With :math:`L_c(p)`, :math:`R_c(p)` whether channel :math:`c` is active on piece :math:`p`
    of length :math:`d_p`,

    .. math::

        \text{both}_{f,c} = \sum_{p \in f} d_p L_c(p) R_c(p), \quad
        \text{left}_{f,c} = \sum_{p \in f} d_p L_c(p), \quad
        \text{sum\_min}_f = \sum_{p \in f} d_p \min\Big(\sum_c L_c(p), \sum_c R_c(p)\Big).

    Args:
        extent: length of every file
        n_channels: number of channel codes
        left: ``(file, channel, start, end)`` per interval
        right: the same for the other side

    Returns:
        both, left and right per group ``file * n_channels + channel``, and sum_min per file (int64)

    Examples:
        >>> both, left, right, sum_min = channel_totals(
        ...     np.array([6]), 2, (np.array([0, 0]), np.array([0, 1]), np.array([0, 2]), np.array([4, 6])),
        ...     (np.array([0]), np.array([0]), np.array([1]), np.array([5])))
        >>> both.tolist(), left.tolist(), right.tolist(), sum_min.tolist()
        ([3, 0], [4, 4], [4, 0], [4])

    """
    if fits(extent, n_channels):
        return _totals_keyed(extent, int(n_channels), left, right)
    return _totals_by_pieces(extent, int(n_channels), left, right)


def channel_runs(
    extent: np.ndarray, n_channels: int, left: Side, right: Side
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Maximal runs of every group where the left side, the right side or both are active.

    Args:
        extent: length of every file
        n_channels: number of channel codes
        left: ``(file, channel, start, end)`` per interval
        right: the same for the other side

    Returns:
        group, start, end and state (``1``: left only, ``2``: right only, ``3``: both)
        of every run, sorted by ``(group, start)``

    Examples:
        >>> group, start, end, state = channel_runs(
        ...     np.array([6]), 1, (np.array([0]), np.array([0]), np.array([0]), np.array([4])),
        ...     (np.array([0]), np.array([0]), np.array([2]), np.array([6])))
        >>> start.tolist(), end.tolist(), state.tolist()
        ([0, 2, 4], [2, 4, 6], [1, 3, 2])

    """
    if fits(extent, n_channels):
        return _runs_keyed(extent, int(n_channels), left, right)
    return _runs_by_pieces(extent, int(n_channels), left, right)


# -------------------------------------------------------------------------
# Packed keys
# -------------------------------------------------------------------------


def _bases(extent: np.ndarray, n_channels: int) -> tuple[np.ndarray, np.ndarray]:
    """First key of every group and of every file, each with the end key appended."""
    per_file = np.asarray(extent, dtype=np.int64) + 1
    group_width = np.repeat(per_file, n_channels)
    group_base = np.concatenate([[0], np.cumsum(group_width)]).astype(np.int64)
    file_base = np.concatenate([[0], np.cumsum(per_file)]).astype(np.int64)
    return group_base, file_base


def _sorted_key_sum(key: np.ndarray, values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Exact int64 sums of values (sorted by key) per key range ``[bounds[i], bounds[i + 1])``."""
    cumulative = np.concatenate([[0], np.cumsum(values, dtype=np.int64)])
    return np.diff(cumulative[np.searchsorted(key, bounds, side="left")])


def _merged(side: Side, n_channels: int, group_base: np.ndarray, file_base: np.ndarray):
    """Union per group of one side's intervals as sorted keys.

    Returns start keys, end keys and, per merged range,
    the offset that turns its keys into per-file keys ``file_base[file] + unit``.
    """
    file, channel, start, end = side
    keep = end > start
    file = file[keep]
    base = group_base[file * n_channels + channel[keep]]
    start = base + start[keep]
    end = base + end[keep]
    shift = base - file_base[file]
    if len(start) == 0:
        return start, end, shift
    order = np.argsort(start)
    start, end = start[order], end[order]
    reach = np.maximum.accumulate(end)
    new = np.ones(len(start), dtype=bool)
    new[1:] = start[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(start)) - 1
    return start[first], reach[last], shift[order[first]]


def _boundaries(start: np.ndarray, end: np.ndarray, kind: int) -> np.ndarray:
    """Packed ``key * 4 + kind`` of disjoint sorted ranges: start, end, start, ... increases."""
    packed = np.empty(2 * len(start), dtype=np.int64)
    packed[0::2] = start * 4 + kind
    packed[1::2] = end * 4 + (kind + 1)
    return packed


def _group_sweep(l_start, l_end, r_start, r_end):
    """Boundary keys of both sides in ``(file, channel, unit)`` order,
    and the number (0 or 1) of active left and right ranges after each."""
    boundaries = np.concatenate([_boundaries(l_start, l_end, 0), _boundaries(r_start, r_end, 2)])
    packed = np.sort(boundaries, kind="stable")  # merges 2 sorted runs
    kind = packed & 3
    return boundaries, packed >> 2, np.cumsum(_D_LEFT[kind]), np.cumsum(_D_RIGHT[kind])


def _totals_keyed(extent, n_channels, left, right):
    """:func:`channel_totals` by packed keys.

    Two sweeps over the boundaries of the merged ranges:
    in ``(file, channel, unit)`` order for the time both sides are active per group,
    in ``(file, unit)`` order for the active channels of each side per piece.
    """
    group_base, file_base = _bases(extent, n_channels)
    l_start, l_end, l_shift = _merged(left, n_channels, group_base, file_base)
    r_start, r_end, r_shift = _merged(right, n_channels, group_base, file_base)
    l_total = _sorted_key_sum(l_start, l_end - l_start, group_base)
    r_total = _sorted_key_sum(r_start, r_end - r_start, group_base)

    # sweep 1, in (file, channel, unit) order: where both sides are active
    boundaries, key, n_left, n_right = _group_sweep(l_start, l_end, r_start, r_end)
    both = _sorted_key_sum(key[:-1], n_left[:-1] * n_right[:-1] * np.diff(key), group_base)

    # sweep 2, in (file, unit) order: active channels of each side per piece
    shift = np.concatenate([np.repeat(l_shift, 2), np.repeat(r_shift, 2)])
    packed = np.sort(boundaries - shift * 4)
    kind = packed & 3
    key = packed >> 2
    n_left = np.cumsum(_D_LEFT[kind])[:-1]
    n_right = np.cumsum(_D_RIGHT[kind])[:-1]
    # all ranges of a file are closed at its last boundary: runs across files weigh 0
    weight = np.minimum(n_left, n_right) * np.diff(key)
    sum_min = _sorted_key_sum(key[:-1], weight, file_base)
    return both, l_total, r_total, sum_min


def _runs_keyed(extent, n_channels, left, right):
    """:func:`channel_runs` by packed keys: the pieces of the sweep in ``(file, channel, unit)`` order.

    Merged ranges of one side neither overlap nor touch, so every boundary flips a side
    and consecutive pieces of positive length differ in state: they are the runs.
    """
    group_base, file_base = _bases(extent, n_channels)
    l_start, l_end, _ = _merged(left, n_channels, group_base, file_base)
    r_start, r_end, _ = _merged(right, n_channels, group_base, file_base)
    _, key, n_left, n_right = _group_sweep(l_start, l_end, r_start, r_end)
    state = n_left[:-1] + 2 * n_right[:-1]
    keep = np.flatnonzero((state > 0) & (key[1:] > key[:-1]))  # (runs never cross groups: state 0)
    start, end = key[keep], key[keep + 1]
    group = np.searchsorted(group_base, start, side="right") - 1
    base = group_base[group]
    return group, start - base, end - base, state[keep]


# -------------------------------------------------------------------------
# Pieces (any key range)
# -------------------------------------------------------------------------


def _cut_sides(extent, n_channels, left, right):
    """The pieces of both sides' intervals, and the ``(piece, channel)`` activity of each side."""
    sides = [tuple(np.asarray(x, np.int64)[side[3] > side[2]] for x in side) for side in (left, right)]
    (l_file, l_chan, l_start, l_end), (r_file, r_chan, r_start, r_end) = sides
    n = len(l_file)
    p = cut(len(extent), np.r_[l_file, r_file], np.r_[l_start, r_start], np.r_[l_end, r_end])
    acts = (
        activity(len(p), p.first[:n], p.stop[:n], l_chan, n_channels),
        activity(len(p), p.first[n:], p.stop[n:], r_chan, n_channels),
    )
    return p, acts, np.r_[l_chan, r_chan]


def _group_sum(group: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    out = np.zeros(n_groups, dtype=np.int64)
    np.add.at(out, group, values)
    return out


def _totals_by_pieces(extent, n_channels, left, right):
    """:func:`channel_totals` over the pieces: ``both = left + right - either``."""
    n_files = len(extent)
    p, acts, channel = _cut_sides(extent, n_channels, left, right)
    either = activity(len(p), p.first, p.stop, channel, n_channels)
    d = p.duration
    n_groups = n_files * n_channels
    l_total, r_total, e_total = (
        _group_sum(p.file[piece] * n_channels + chan, d[piece], n_groups) for piece, chan, _ in (*acts, either)
    )
    active = [np.bincount(piece, minlength=len(p))[: len(p)] for piece, _, _ in acts]
    sum_min = _group_sum(p.file, np.minimum(*active) * d, n_files)
    return l_total + r_total - e_total, l_total, r_total, sum_min


def _runs_by_pieces(extent, n_channels, left, right):
    """:func:`channel_runs` over the pieces: the state of every active ``(group, piece)``,
    touching pieces of one group and state joined."""
    p, ((l_piece, l_chan, _), (r_piece, r_chan, _)), _ = _cut_sides(extent, n_channels, left, right)
    piece = np.r_[l_piece, r_piece]
    group = p.file[piece] * max(n_channels, 1) + np.r_[l_chan, r_chan]
    key = sort_keys(len(extent) * max(n_channels, 1), group, piece)
    order = np.argsort(key, kind="stable")
    key, piece, group = key[order], piece[order], group[order]
    bit = np.r_[np.ones(len(l_piece), np.int64), np.full(len(r_piece), 2, np.int64)][order]
    new = np.ones(len(key), dtype=bool)
    new[1:] = key[1:] != key[:-1]
    starts = np.flatnonzero(new)
    if len(starts) == 0:
        return _EMPTY, _EMPTY.copy(), _EMPTY.copy(), _EMPTY.copy()
    state = np.add.reduceat(bit, starts)
    piece, group = piece[starts], group[starts]
    first, last = join_runs(group, p.start[piece], p.end[piece], state)
    return group[first], p.start[piece[first]], p.end[piece[last]], state[first]
