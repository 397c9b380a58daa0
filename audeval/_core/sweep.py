"""The elementary-piece engine: who is active where, and how long together.

Family-agnostic, on int64 nanoseconds (or any int64 unit, e.g. frames).

Conventions:
    An *interval* is ``[start, end)`` with a file code and a channel code
    (a channel is whatever the caller counts: a label, a rater, a cluster).
    :func:`cut` cuts the time of every file at the union of all boundaries
    of all its intervals (and at ``0`` and the file's extent, if given)
    into *elementary pieces*: within a piece no interval starts or ends,
    so the set of active channels is constant on it.
    An interval covers the contiguous range ``first:stop`` of pieces
    (empty for zero-length intervals).
    An end of ``NAT`` (NaT as int64) means "until the end of the file":
    :func:`resolve_ends` replaces it by the file's duration.

Everything is a sum over pieces:

* :func:`coverage`: number of intervals active on every piece,
* :func:`activity`: the sparse ``(piece, channel)`` list of active channels
  (with the number of intervals of that channel, or each channel once),
* :func:`covering`: the interval of every channel on every piece (disjoint channels),
* :func:`cooccurrence`: summed duration of every pair
  (channel ``a`` of one activity list, channel ``b`` of another, or the same),
  per file (a contingency table) or over all files,
  :math:`\\sum_p d_p\\, w_a(p)\\, w_b(p)`,
* :func:`audeval._core.sweep_sides.two_sides` (its own module): all of it for two sides at once (per-file sums of factors of the
  active counts, co-occurring pairs, active time per channel), by bit masks where
  the channels of a file fit one int64 (:mod:`audeval._core.sweep_masks`), else by pieces,
* :func:`join_runs`: consecutive touching pieces with equal codes joined,
* :func:`snap_to_frames`: intervals widened to a frame grid
  (frame-based tools reproduced by the same engine),
* :func:`sort_keys`: the packed ``(group, value)`` int64 keys behind the fast paths.

Cost: one sort of the ``2 n`` boundaries, then linear in pieces plus activity
(plus one sort of the co-occurring pairs);
no Python loop over files, intervals or pieces.
Keys are packed into one int64 where they fit (the fast path),
else sorted lexicographically.
Per-channel totals and runs of two sides (segments) are in :mod:`audeval._core.sweep_keyed`:
packed keys of every ``(file, channel)`` unit where they fit, else these pieces.
This module imports no metric family.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from audeval._core.intervals import expand_ranges
from audeval._core.intervals import group_keys


__all__ = [
    "NAT",
    "Pieces",
    "activity",
    "cooccurrence",
    "coverage",
    "covering",
    "cut",
    "join_runs",
    "pair_sums",
    "resolve_ends",
    "snap_to_frames",
    "sort_keys",
]

NAT = np.iinfo(np.int64).min  # the int64 value of NaT
_PACK_LIMIT = 2**62  # packed keys stay below this
_DENSE = 1 << 20  # dense grids of (file, a, b) sums up to this many bins (or 4 per pair)
_EXACT = 2**53  # float64 sums of int64 stay exact below this
_EMPTY = np.zeros(0, dtype=np.int64)


@dataclasses.dataclass(frozen=True)
class Pieces:
    """Elementary pieces of every file, sorted by ``(file, start)``.

    Attributes:
        file: file code of each piece
        start: start of each piece
        end: end of each piece (``end > start``)
        first: per input interval, the index of the first piece it covers
        stop: per input interval, one past the last piece it covers

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
        """Length of each piece."""
        return self.end - self.start


def resolve_ends(file: np.ndarray, end: np.ndarray, durations: np.ndarray) -> np.ndarray:
    """Ends with ``NAT`` replaced by the duration of their file.

    Args:
        file: file code per interval
        end: end per interval, ``NAT`` for "until the end of the file"
        durations: duration per file, ``NAT`` where unknown

    Raises:
        ValueError: if an end is ``NAT`` and its file's duration is unknown

    Examples:
        >>> resolve_ends(np.array([0, 1]), np.array([NAT, 3]), np.array([9, NAT])).tolist()
        [9, 3]

    """
    end = np.asarray(end, dtype=np.int64)
    open_end = end == NAT
    if not open_end.any():
        return end
    value = np.asarray(durations, dtype=np.int64)[np.asarray(file, np.int64)[open_end]]
    if (value == NAT).any():
        bad = np.unique(np.asarray(file)[open_end][value == NAT])
        raise ValueError(
            f"end is NaT for files of unknown duration (file codes {bad[:5].tolist()}); "
            "give their duration in files_duration."
        )
    out = end.copy()
    out[open_end] = value
    return out


def _pack(high: int, major: np.ndarray, minor: np.ndarray, n_minor: int) -> np.ndarray | None:
    """``major * n_minor + minor`` if it fits (``major < high``), else ``None``."""
    if float(max(high, 1)) * max(n_minor, 1) < _PACK_LIMIT:
        return major * np.int64(max(n_minor, 1)) + minor
    return None


def cut(
    n_files: int,
    file: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    *,
    extent: np.ndarray | None = None,
) -> Pieces:
    """Cut every file at every boundary of its intervals.

    The boundaries of file ``f`` are the starts and ends of its intervals and,
    if ``extent`` is given, ``0`` and ``extent[f]``
    (the pieces then cover ``[0, extent[f])``, gaps included).
    The pieces are the spans between consecutive distinct boundaries of a file.

    Args:
        n_files: number of file codes (``0 <= file < n_files``)
        file: file code per interval
        start: start per interval (int64)
        end: end per interval (int64, ``end >= start``, no ``NAT``)
        extent: length per file, or ``None``

    Returns:
        the pieces, and the range of pieces every interval covers

    Examples:
        >>> p = cut(1, np.array([0, 0]), np.array([0, 2]), np.array([3, 5]))
        >>> p.start.tolist(), p.end.tolist(), p.first.tolist(), p.stop.tolist()
        ([0, 2, 3], [2, 3, 5], [0, 1], [2, 3])

    """
    file = np.asarray(file, dtype=np.int64)
    n = len(file)
    group = np.concatenate([file, file])
    time = np.concatenate([np.asarray(start, np.int64), np.asarray(end, np.int64)])
    if extent is not None:
        codes = np.arange(n_files, dtype=np.int64)
        group = np.concatenate([group, codes, codes])
        time = np.concatenate([time, np.zeros(n_files, np.int64), np.asarray(extent, np.int64)])
    if len(time) == 0:
        return Pieces(_EMPTY, _EMPTY, _EMPTY, _EMPTY, _EMPTY)
    low = int(time.min())
    key = _pack(n_files, group, time - low, int(time.max()) - low + 1)
    if key is not None:  # fast path: one sort of packed (file, time) keys
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        same = sorted_key[1:] == sorted_key[:-1]
    else:
        order = np.lexsort((time, group))
        same = (group[order][1:] == group[order][:-1]) & (time[order][1:] == time[order][:-1])
    distinct = np.r_[True, ~same]
    rank = np.cumsum(distinct) - 1  # boundary index of every sorted point
    where = order[distinct]
    b_file, b_time = group[where], time[where]
    # a boundary opens a piece unless it is its file's last
    opens = b_file[:-1] == b_file[1:]
    opened = np.r_[np.int64(0), np.cumsum(opens, dtype=np.int64)]  # pieces before boundary k
    boundary = np.empty(len(order), dtype=np.int64)
    boundary[order] = rank
    return Pieces(
        b_file[:-1][opens],
        b_time[:-1][opens],
        b_time[1:][opens],
        opened[boundary[:n]],
        opened[boundary[n : 2 * n]],
    )


def coverage(n_pieces: int, first: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """Number of intervals covering every piece (intervals ``first:stop``).

    Examples:
        >>> coverage(3, np.array([0, 1]), np.array([2, 3])).tolist()
        [1, 2, 1]

    """
    delta = np.bincount(first, minlength=n_pieces + 1)[: n_pieces + 1]
    delta = delta - np.bincount(stop, minlength=n_pieces + 1)[: n_pieces + 1]
    return np.cumsum(delta[:n_pieces], dtype=np.int64)


def activity(
    n_pieces: int,
    first: np.ndarray,
    stop: np.ndarray,
    channel: np.ndarray,
    n_channels: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sparse ``(piece, channel)`` list of active channels.

    Args:
        n_pieces: number of pieces
        first: first piece per interval (:attr:`Pieces.first`, or a slice of it)
        stop: one past the last piece per interval
        channel: channel code per interval (``0 <= channel < n_channels``)
        n_channels: number of channel codes

    Returns:
        piece, channel and the number of intervals of that channel active there,
        sorted by ``(piece, channel)``, each pair once

    Examples:
        >>> piece, chan, count = activity(3, np.array([0, 1, 1]), np.array([2, 3, 2]), np.array([0, 1, 1]), 2)
        >>> piece.tolist(), chan.tolist(), count.tolist()
        ([0, 1, 1, 2], [0, 0, 1, 1], [1, 1, 2, 1])

    """
    interval, piece = expand_ranges(np.asarray(first, np.int64), np.asarray(stop, np.int64))
    if len(piece) == 0:
        return _EMPTY, _EMPTY.copy(), _EMPTY.copy()
    chan = np.asarray(channel, np.int64)[interval]
    key = _pack(n_pieces, piece, chan, n_channels)
    if key is not None:  # fast path: packed keys
        if np.all(key[1:] > key[:-1]):  # e.g. a partition of every file: no sort, each pair once
            n = np.int64(max(n_channels, 1))
            return key // n, key % n, np.ones(len(key), dtype=np.int64)
        key.sort()
        start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        count = np.diff(np.r_[start, len(key)])
        n = np.int64(max(n_channels, 1))
        unique = key[start]
        return unique // n, unique % n, count.astype(np.int64)
    order = np.lexsort((chan, piece))
    piece, chan = piece[order], chan[order]
    start = np.flatnonzero(np.r_[True, (piece[1:] != piece[:-1]) | (chan[1:] != chan[:-1])])
    count = np.diff(np.r_[start, len(piece)])
    return piece[start], chan[start], count.astype(np.int64)


def covering(
    n_pieces: int, first: np.ndarray, stop: np.ndarray, channel: np.ndarray, n_channels: int
) -> np.ndarray:
    """``(n_pieces, n_channels)``: the interval of every channel covering every piece, ``-1`` if none.

    The intervals of one channel must be disjoint (e.g. the segments of one level of a partition).

    Examples:
        >>> covering(3, np.array([0, 1, 0]), np.array([1, 3, 3]), np.array([0, 0, 1]), 2).tolist()
        [[0, 2], [1, 2], [1, 2]]

    """
    interval, piece = expand_ranges(np.asarray(first, np.int64), np.asarray(stop, np.int64))
    out = np.full((n_pieces, n_channels), -1, dtype=np.int64)
    out[piece, np.asarray(channel, np.int64)[interval]] = interval
    return out


def cooccurrence(
    pieces: Pieces,
    left: tuple[np.ndarray, np.ndarray, np.ndarray],
    right: tuple[np.ndarray, np.ndarray, np.ndarray],
    n_left: int,
    n_right: int,
    *,
    per_file: bool = True,
    weight: str = "product",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Summed duration of every pair of channels active together.

    For channel ``a`` of ``left`` and ``b`` of ``right`` the duration is

    .. math::

        D(a, b) = \sum_p d_p\, w(c_a(p), c_b(p))

    over the pieces :math:`p` of length :math:`d_p` where both are active,
    with :math:`c` the counts of the activity lists and
    :math:`w(x, y) = x y` (``weight="product"``), :math:`\min(x, y)` (``"min"``)
    or :math:`1` (``"once"``).
    ``per_file=True`` sums per file (a contingency table of every file).
    Pass one list twice for the co-occurrence of channels of one side.
    Only pairs that co-occur on a piece are returned (sparse, exact int64);
    cost grows with the number of co-active pairs.

    Args:
        pieces: the pieces
        left: ``(piece, channel, count)`` from :func:`activity`
        right: ``(piece, channel, count)`` from :func:`activity`
        n_left: number of channel codes of ``left``
        n_right: number of channel codes of ``right``
        per_file: sum per ``(file, a, b)`` (else per ``(a, b)``, file code 0)
        weight: ``"product"``, ``"min"`` or ``"once"``

    Returns:
        file, ``a``, ``b`` and duration, sorted by ``(file, a, b)``

    Examples:
        >>> p = cut(1, np.array([0, 0]), np.array([0, 2]), np.array([3, 5]))
        >>> t = activity(len(p), p.first[:1], p.stop[:1], np.array([0]), 1)
        >>> s = activity(len(p), p.first[1:], p.stop[1:], np.array([0]), 1)
        >>> [x.tolist() for x in cooccurrence(p, t, s, 1, 1)]
        [[0], [0], [0], [1]]

    """
    file, a, b, sums = pair_sums(
        pieces, left, right, n_left, n_right, {"duration": (weight, None)}, per_file=per_file
    )
    return file, a, b, sums["duration"]


def pair_sums(
    pieces: Pieces,
    left: tuple[np.ndarray, np.ndarray, np.ndarray],
    right: tuple[np.ndarray, np.ndarray, np.ndarray],
    n_left: int,
    n_right: int,
    columns: dict[str, tuple[str, np.ndarray | None]],
    *,
    per_file: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Several co-occurrence sums of the same pairs at once (:func:`cooccurrence`).

    Args:
        pieces: the pieces
        left: ``(piece, channel, count)`` from :func:`activity`
        right: ``(piece, channel, count)`` from :func:`activity`
        n_left: number of channel codes of ``left``
        n_right: number of channel codes of ``right``
        columns: name to ``(weight, where)``: the weight of :func:`cooccurrence`
            and a boolean mask of the pieces that count (``None``: all)
        per_file: sum per ``(file, a, b)`` (else per ``(a, b)``, file code 0)

    Returns:
        file, ``a``, ``b`` (sorted by ``(file, a, b)``) and the sums of every column

    Examples:
        >>> p = cut(1, np.array([0, 0]), np.array([0, 2]), np.array([3, 5]))
        >>> act = activity(len(p), p.first, p.stop, np.array([0, 0]), 1)
        >>> columns = {"all": ("product", None), "late": ("min", p.start >= 2)}
        >>> _, _, _, sums = pair_sums(p, act, act, 1, 1, columns)
        >>> sums["all"].tolist(), sums["late"].tolist()  # 2 * 1 + 1 * 2 * 2 + 2 * 1, 1 * 2 + 2 * 1
        ([8], [4])

    """
    l_piece, l_chan, l_count = left
    r_piece, r_chan, r_count = right
    i, j = _matching_pieces(len(pieces), l_piece, r_piece)
    if len(i) == 0:
        return _EMPTY, _EMPTY.copy(), _EMPTY.copy(), {name: _EMPTY.copy() for name in columns}
    piece = l_piece[i]
    file = pieces.file[piece] if per_file else np.zeros(len(i), np.int64)
    a, b = l_chan[i], r_chan[j]
    n_files = int(file.max()) + 1
    pair = _pack(n_left, a, b, n_right)
    key = None if pair is None else _pack(n_files, file, pair, max(n_left, 1) * max(n_right, 1))
    duration = pieces.duration[piece]
    factors = {
        "product": lambda: l_count[i] * r_count[j],
        "min": lambda: np.minimum(l_count[i], r_count[j]),
        "once": lambda: 1,
    }
    if key is not None and n_files * max(n_left, 1) * max(n_right, 1) <= max(_DENSE, 4 * len(key)):
        return _dense_pair_sums(key, duration, factors, columns, piece, n_left, n_right)
    if key is not None:  # packed (file, a, b) keys, sorted
        order = np.argsort(key, kind="stable")
        key = key[order]
        start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    else:
        order = np.lexsort((b, a, file))
        f, x, y = file[order], a[order], b[order]
        change = (f[1:] != f[:-1]) | (x[1:] != x[:-1]) | (y[1:] != y[:-1])
        start = np.flatnonzero(np.r_[True, change])
    sums = {}
    for name, (weight, where) in columns.items():  # over the few requested columns
        d = duration * factors[weight]()
        if where is not None:
            d = np.where(where[piece], d, 0)
        sums[name] = np.add.reduceat(d[order], start).astype(np.int64)
    keep = order[start]
    return file[keep], a[keep], b[keep], sums


def _matching_pieces(n_pieces: int, left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All ``(i, j)`` with ``left[i] == right[j]`` (both sorted).

    One channel per piece on both sides (e.g. partitions): a lookup table of the right side;
    else the ranges of equal pieces by binary search.
    """
    if len(left) and len(right) and np.all(left[1:] > left[:-1]) and np.all(right[1:] > right[:-1]):
        where = np.full(n_pieces, -1, dtype=np.int64)
        where[right] = np.arange(len(right), dtype=np.int64)
        j = where[left]
        i = np.flatnonzero(j >= 0)
        return i, j[i]
    return expand_ranges(
        np.searchsorted(right, left, side="left"), np.searchsorted(right, left, side="right")
    )


def _dense_pair_sums(key, duration, factors, columns, piece, n_left, n_right):
    """:func:`pair_sums` on a dense grid of packed ``(file, a, b)`` keys (no sort).

    float64 bins are exact while a column's total stays below ``2**53``; else ``np.add.at``.
    """
    size = int(key.max()) + 1
    present = np.bincount(key, minlength=size)
    unique = np.flatnonzero(present)
    sums = {}
    for name, (weight, where) in columns.items():  # over the few requested columns
        d = duration * factors[weight]()
        if where is not None:
            d = np.where(where[piece], d, 0)
        if float(np.sum(d, dtype=np.float64)) < _EXACT / 2:  # a margin for the float estimate
            sums[name] = np.bincount(key, weights=d.astype(np.float64), minlength=size)[unique].astype(np.int64)
        else:
            total = np.zeros(size, dtype=np.int64)
            np.add.at(total, key, d)
            sums[name] = total[unique]
    pair_width = np.int64(max(n_left, 1) * max(n_right, 1))
    pair = unique % pair_width
    n_right = np.int64(max(n_right, 1))
    return unique // pair_width, pair // n_right, pair % n_right, sums


def join_runs(
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
        >>> first, last = join_runs(f, np.array([0, 1, 3, 0]), np.array([1, 2, 4, 1]), np.array([7, 7, 7, 7]))
        >>> first.tolist(), last.tolist()
        ([0, 2, 3], [1, 2, 3])

    """
    n = len(file)
    if n == 0:
        return _EMPTY, _EMPTY.copy()
    new = np.ones(n, dtype=bool)
    new[1:] = (file[1:] != file[:-1]) | (start[1:] != end[:-1]) | (code[1:] != code[:-1])
    first = np.flatnonzero(new).astype(np.int64)
    return first, np.r_[first[1:] - 1, n - 1].astype(np.int64)


def snap_to_frames(start: np.ndarray, end: np.ndarray, frame: int) -> tuple[np.ndarray, np.ndarray]:
    """Widen intervals to the frame grid ``k * frame``.

    A frame ``[k f, (k + 1) f)`` is covered by an interval if they overlap with positive length:
    ``start`` is rounded down and ``end`` up to the grid; zero-length intervals become ``[0, 0)``.

    Examples:
        >>> s, e = snap_to_frames(np.array([5, 10, 7]), np.array([12, 20, 7]), 10)
        >>> s.tolist(), e.tolist()
        ([0, 10, 0], [20, 20, 0])

    """
    start = np.asarray(start, np.int64)
    end = np.asarray(end, np.int64)
    empty = end <= start
    return np.where(empty, 0, start // frame * frame), np.where(empty, 0, -((-end) // frame) * frame)


def sort_keys(n_groups: int, group: np.ndarray, value: np.ndarray) -> np.ndarray:
    """int64 keys that order ``(group, value)`` pairs lexicographically.

    ``group * span + (value - min)`` where that fits into int64 (the packed fast path),
    else :func:`audeval._core.intervals.group_keys` over the groups that occur.

    Examples:
        >>> sort_keys(2, np.array([1, 0, 1]), np.array([5, 7, 3])).tolist()
        [7, 4, 5]

    """
    if len(value) == 0:
        return np.zeros(0, np.int64)
    low = int(value.min())
    key = _pack(n_groups, np.asarray(group, np.int64), value - low, int(value.max()) - low + 1)
    if key is not None:
        return key
    used, code = np.unique(group, return_inverse=True)
    return group_keys(len(used), (code.astype(np.int64), value))[0]
