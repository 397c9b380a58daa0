"""The elementary-segment sweep: who is active where, and for how long.

The former ``audeval._sweep``, kept as the reference of the differential tests
(``tests/test_pieces.py``, ``tests/test_agreement_raters.py``):
the package uses :mod:`audeval._core.sweep`.

A family-agnostic engine on int64 nanoseconds.
Given intervals ``[start, end)`` with a file code and a channel code
(a channel is whatever the caller counts: a label, a rater, a rater and label pair),
:func:`elementary_segments` cuts every file at every interval boundary
into *elementary segments* (pieces):
within a piece no interval starts or ends,
so the set of active intervals is constant on it.
Every question of the kind "which channels are active at the same time, and how long"
is then a sum over pieces:

* :func:`activity`: the ``(piece, channel)`` pairs where a channel is active
  (overlapping intervals of one channel count once),
* :func:`cooccurrence`: the summed duration of every pair of channels active together,
* :func:`runs`: consecutive pieces with equal codes joined into longer segments,
* :func:`snap_to_frames`: intervals widened to a frame grid
  (to reproduce frame-based tools with the same sweep).

Cost: one sort of the ``2 n`` boundaries (``O(n log n)``)
plus the output size (pieces covered by the intervals);
everything is vectorised over files, intervals and pieces.
This module imports no metric family.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from audeval._core.intervals import expand_ranges
from audeval._core.intervals import group_keys


__all__ = [
    "Pieces",
    "activity",
    "cooccurrence",
    "elementary_segments",
    "runs",
    "snap_to_frames",
    "sort_keys",
]


@dataclasses.dataclass(frozen=True)
class Pieces:
    """Elementary segments of every file, sorted by ``(file, start)``.

    Attributes:
        file: file code of each piece
        start: start of each piece (ns)
        end: end of each piece (ns); ``end > start``
        first: per input interval, the index of the first piece it covers
        stop: per input interval, one past the index of the last piece it covers
            (``first == stop`` for intervals of zero length)

    """

    file: np.ndarray
    start: np.ndarray
    end: np.ndarray
    first: np.ndarray
    stop: np.ndarray

    def __len__(self) -> int:
        return len(self.file)

    @property
    def duration(self) -> np.ndarray:
        """Length of each piece (ns)."""
        return self.end - self.start


def elementary_segments(
    n_files: int,
    file: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    *,
    extent: np.ndarray | None = None,
) -> Pieces:
    """Cut every file at every interval boundary.

    The boundaries of file ``f`` are the starts and ends of its intervals,
    and, if ``extent`` is given, ``0`` and ``extent[f]``
    (so that the pieces cover ``[0, extent[f])`` including the gaps
    where no interval is active).
    The pieces of a file are the spans between its consecutive distinct boundaries.

    Args:
        n_files: number of file codes (``0 <= file < n_files``)
        file: file code per interval (int64)
        start: start per interval (int64 ns)
        end: end per interval (int64 ns), ``end >= start``
        extent: length per file (int64 ns), or ``None``

    Returns:
        the pieces, and which pieces every interval covers

    Examples:
        >>> p = elementary_segments(1, np.array([0, 0]), np.array([0, 2]), np.array([3, 5]))
        >>> p.start.tolist(), p.end.tolist()
        ([0, 2, 3], [2, 3, 5])
        >>> p.first.tolist(), p.stop.tolist()
        ([0, 1], [2, 3])

    """
    file = np.asarray(file, dtype=np.int64)
    start = np.asarray(start, dtype=np.int64)
    end = np.asarray(end, dtype=np.int64)
    n = len(file)
    group = np.concatenate([file, file])
    value = np.concatenate([start, end])
    if extent is not None:
        codes = np.arange(n_files, dtype=np.int64)
        group = np.concatenate([group, codes, codes])
        value = np.concatenate([value, np.zeros(n_files, np.int64), np.asarray(extent, np.int64)])
    point_key = sort_keys(n_files, group, value)
    # one sort of all boundaries; equal (file, time) pairs are one boundary
    order = np.argsort(point_key)
    sorted_key = point_key[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = sorted_key[1:] != sorted_key[:-1]
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    where = order[new]
    b_group, b_value = group[where], value[where]
    # a boundary starts a piece unless it is the last boundary of its file
    opens = np.zeros(len(where), dtype=bool)
    opens[:-1] = b_group[:-1] == b_group[1:]
    piece_file = b_group[:-1][opens[:-1]]
    piece_start = b_value[:-1][opens[:-1]]
    piece_end = b_value[1:][opens[:-1]]
    # pieces opened before each boundary
    before = np.concatenate([[0], np.cumsum(opens)]).astype(np.int64)
    first = before[inverse[:n]]
    stop = before[inverse[n : 2 * n]]
    return Pieces(piece_file, piece_start, piece_end, first, stop)


def sort_keys(n_groups: int, group: np.ndarray, value: np.ndarray) -> np.ndarray:
    """int64 keys that order ``(group, value)`` pairs lexicographically.

    ``group * span + value`` where that fits into int64
    (the common case: one multiplication),
    else :func:`audeval._core.intervals.group_keys` over the groups that occur.

    Examples:
        >>> sort_keys(2, np.array([1, 0, 1]), np.array([5, 7, 3])).tolist()
        [7, 4, 5]

    """
    if len(value) == 0:
        return np.zeros(0, np.int64)
    low, high = int(value.min()), int(value.max())
    span = high - low + 1
    if float(max(n_groups, 1)) * span < 2.0**62:
        return group * np.int64(span) + (value - low)
    used, code = np.unique(group, return_inverse=True)
    return group_keys(len(used), (code.astype(np.int64), value))[0]


def activity(
    pieces: Pieces,
    channel: np.ndarray,
    n_channels: int,
    *,
    distinct: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``(piece, channel)`` pairs where a channel is active.

    Args:
        pieces: output of :func:`elementary_segments` for the same intervals
        channel: channel code per interval (``0 <= channel < n_channels``)
        n_channels: number of channel codes
        distinct: count overlapping intervals of one channel once
            (else a pair is repeated once per covering interval)

    Returns:
        piece index and channel code of every active pair, sorted by ``(piece, channel)``

    Examples:
        >>> p = elementary_segments(1, np.array([0, 0]), np.array([0, 2]), np.array([3, 5]))
        >>> piece, chan = activity(p, np.array([0, 1]), 2)
        >>> piece.tolist(), chan.tolist()
        ([0, 1, 1, 2], [0, 0, 1, 1])

    """
    interval, piece = expand_ranges(pieces.first, pieces.stop)
    key = piece * np.int64(max(n_channels, 1)) + np.asarray(channel, np.int64)[interval]
    key = np.sort(key)
    if distinct and len(key):
        key = key[np.r_[True, key[1:] != key[:-1]]]
    n = np.int64(max(n_channels, 1))
    return key // n, key % n


def cooccurrence(
    pieces: Pieces,
    piece: np.ndarray,
    channel: np.ndarray,
    n_channels: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Summed duration of every ordered pair of channels active together.

    For channels ``a`` and ``b`` (``a == b`` included) the duration is
    :math:`\\sum_p d_p [a \\in A_p][b \\in A_p]`
    over pieces :math:`p` of length :math:`d_p` with active set :math:`A_p`.
    Only pairs that co-occur are returned (sparse);
    cost grows with :math:`\\sum_p |A_p|^2`.

    Args:
        pieces: the pieces
        piece: piece index per active pair (from :func:`activity`, sorted by piece)
        channel: channel per active pair
        n_channels: number of channel codes

    Returns:
        channel ``a``, channel ``b`` and their summed duration (int64 ns)

    Examples:
        >>> p = elementary_segments(1, np.array([0, 0]), np.array([0, 2]), np.array([3, 5]))
        >>> a, b, d = cooccurrence(p, *activity(p, np.array([0, 1]), 2), 2)
        >>> list(zip(a.tolist(), b.tolist(), d.tolist()))
        [(0, 0, 3), (0, 1, 1), (1, 0, 1), (1, 1, 3)]

    """
    piece = np.asarray(piece, np.int64)
    channel = np.asarray(channel, np.int64)
    if len(piece) == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty.copy(), empty.copy()
    bounds = np.flatnonzero(np.r_[True, piece[1:] != piece[:-1], True])
    lo = np.repeat(bounds[:-1], np.diff(bounds))
    hi = np.repeat(bounds[1:], np.diff(bounds))
    left, right = expand_ranges(lo, hi)
    n = np.int64(max(n_channels, 1))
    key = channel[left] * n + channel[right]
    weight = pieces.duration[piece[left]]
    keys, inverse = np.unique(key, return_inverse=True)
    total = np.zeros(len(keys), dtype=np.int64)
    np.add.at(total, inverse, weight)
    return keys // n, keys % n, total


def runs(
    file: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    code: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Join consecutive touching segments of one file with equal codes.

    The input must be sorted by ``(file, start)`` and disjoint within a file
    (e.g. pieces or a subset of them).

    Returns:
        index of the first and of the last segment of every run

    Examples:
        >>> f = np.array([0, 0, 0, 1])
        >>> first, last = runs(f, np.array([0, 1, 3, 0]), np.array([1, 2, 4, 1]), np.array([7, 7, 7, 7]))
        >>> first.tolist(), last.tolist()
        ([0, 2, 3], [1, 2, 3])

    """
    n = len(file)
    if n == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty.copy()
    new = np.ones(n, dtype=bool)
    new[1:] = (file[1:] != file[:-1]) | (start[1:] != end[:-1]) | (code[1:] != code[:-1])
    first = np.flatnonzero(new)
    last = np.r_[first[1:] - 1, n - 1]
    return first.astype(np.int64), last.astype(np.int64)


def snap_to_frames(
    start: np.ndarray,
    end: np.ndarray,
    frame: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Widen intervals to the frame grid ``k * frame``.

    A frame ``[k f, (k + 1) f)`` is covered by an interval
    if they overlap with positive length,
    so ``start`` is rounded down and ``end`` up to the grid;
    intervals of zero length stay empty.

    Examples:
        >>> s, e = snap_to_frames(np.array([5, 10, 7]), np.array([12, 20, 7]), 10)
        >>> s.tolist(), e.tolist()
        ([0, 10, 0], [20, 20, 0])

    """
    start = np.asarray(start, np.int64)
    end = np.asarray(end, np.int64)
    new_start = start // frame * frame
    new_end = -((-end) // frame) * frame
    empty = end <= start
    return np.where(empty, 0, new_start), np.where(empty, 0, new_end)
