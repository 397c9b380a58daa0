"""The packed-key strategy of the piece engine (:func:`audeval._pieces.channel_totals`).

Family-agnostic, on int64 units (nanoseconds, frames, segments of a grid).

Conventions:
    Two sides of intervals ``[start, end)`` with a file code and a channel code,
    on a bounded axis ``[0, extent[f])`` per file
    (``0 <= start`` and ``end <= extent[file]``; intervals with ``end <= start`` count nothing).
    Every ``(file, channel)`` group owns the keys
    ``base[group] + unit`` for ``unit`` in ``0..extent[f]``
    (``extent[f] + 1`` keys, so groups never touch),
    every file the keys ``file_base[file] + unit``.
    Where all keys stay below :data:`KEY_LIMIT`, the elementary pieces are
    the runs between consecutive boundary keys: plain sorts of packed
    ``key * 4 + kind`` int64 values order the boundaries of both sides,
    and cumulative sums over them say who is active on every piece
    (no ``(piece, channel)`` list is built).
    Else :func:`audeval._pieces.channel_totals` takes the general route
    (:func:`audeval._pieces.cut` and :func:`audeval._pieces.activity`).

This module imports no metric family and no other audeval module.
"""

from __future__ import annotations

import numpy as np


__all__ = ["KEY_LIMIT", "channel_totals", "fits"]

KEY_LIMIT = 2**60
"""Total key range of the packed strategy (``key * 4 + kind`` stays in int64)."""

_D_LEFT = np.array([1, -1, 0, 0], dtype=np.int64)  # kind 0/1: left start/end
_D_RIGHT = np.array([0, 0, 1, -1], dtype=np.int64)  # kind 2/3: right start/end


def fits(extent: np.ndarray, n_channels: int) -> bool:
    """Whether the keys of every ``(file, channel)`` group fit below :data:`KEY_LIMIT`."""
    total = float(np.sum(np.asarray(extent) + 1, dtype=np.float64)) * max(n_channels, 1)
    return total < KEY_LIMIT


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


def _merged(side, n_channels, group_base, file_base):
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


def channel_totals(
    extent: np.ndarray,
    n_channels: int,
    left: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    right: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`audeval._pieces.channel_totals` by packed keys (the keys must :func:`fit <fits>`).

    Two sweeps over the boundaries of the merged ranges:
    in ``(file, channel, unit)`` order for the time both sides are active per group,
    in ``(file, unit)`` order for the active channels of each side per piece.
    """
    n_channels = int(n_channels)
    group_base, file_base = _bases(extent, n_channels)
    l_start, l_end, l_shift = _merged(left, n_channels, group_base, file_base)
    r_start, r_end, r_shift = _merged(right, n_channels, group_base, file_base)
    l_total = _sorted_key_sum(l_start, l_end - l_start, group_base)
    r_total = _sorted_key_sum(r_start, r_end - r_start, group_base)
    boundaries = np.concatenate([_boundaries(l_start, l_end, 0), _boundaries(r_start, r_end, 2)])

    # sweep 1, in (file, channel, unit) order: where both sides are active
    packed = np.sort(boundaries, kind="stable")  # merges 2 sorted runs
    kind = packed & 3
    key = packed >> 2
    both = np.cumsum(_D_LEFT[kind])[:-1] * np.cumsum(_D_RIGHT[kind])[:-1]
    both = _sorted_key_sum(key[:-1], both * np.diff(key), group_base)

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
