r"""The bit-mask strategy of the piece engine: two sides of few channels, every file at once.

Family-agnostic; :func:`audeval._core.sweep_sides.two_sides` chooses it by size
(the channels of both sides of a file fit in one int64 mask) and falls back to the interval
pairs of :mod:`audeval._core.sweep_pairs` or to the pieces (:func:`audeval._core.sweep.cut`,
:func:`~audeval._core.sweep.activity`, :func:`~audeval._core.sweep.pair_sums`) where it does not apply.

Each channel present in a file gets one bit on its side
(its channel code where the codes of both sides fit in 62 bits, else its rank in the file).
The start and end of every interval become one event ``+2**b`` or ``-2**b``;
after one sort of the events by (file, time) a cumulative sum gives,
between two consecutive events, the mask :math:`m` of the channels active on both sides.
Grouping the elementary pieces by (file, :math:`m`) and summing their lengths :math:`d`
gives a small table from which everything follows.
The grouping is a dense grid of (file, :math:`m`) bins (``np.bincount``) wherever it has
at most :data:`_BINS_PER_EVENT` bins per event, built in cache-sized blocks of files,
so its cost per file does not depend on the number of files
(issue 32: a sort above some size gave 1.3-1.35x growth);
else (files of many channels) the (file, :math:`m`) keys are sorted.
With :math:`n_l`, :math:`n_r` the bits set on each side, a per-file column of factors
:math:`g(n_l, n_r)` sums :math:`g\, d`, a channel's active time is the sum of :math:`d`
over the masks holding its bit, and a pair's co-occurrence the sum over the masks holding both
(times a weight :math:`w(n_l, n_r)` per column).

The bits stand for channels active once at a time: a channel active twice at once
would carry into the next bit. That shows as :math:`\sum n_l d` below the summed
lengths of the intervals, and :func:`mask_sums` then returns ``None``
(the caller takes the pieces). This module imports no metric family.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from audeval._core.intervals import expand_ranges, shared_keys

__all__ = ["MAX_BITS", "file_sums", "mask_sums", "popcount"]

MAX_BITS = 62  # bits of both sides in one int64 mask
_DENSE = 1 << 22  # bins of one dense grid of (file, mask) bins (blocks of files beyond)
_BLOCK = 1 << 18  # bins of one block of files of the dense grid (cache-sized)
_BINS_PER_EVENT = 8  # dense (file, mask) grids up to this many bins per event (else the sort path)
_EXACT = 2**53  # float64 sums of int64 are exact below this

Factors = Callable[[np.ndarray, np.ndarray], dict]
"""Per-file columns: ``(n_left, n_right)`` counts to a dict of int64 factor arrays."""


def popcount(values: np.ndarray) -> np.ndarray:
    """Number of set bits of non-negative int64 values.

    Examples:
        >>> popcount(np.array([0, 5, 2**62 - 1])).tolist()
        [0, 2, 62]

    """
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(values).astype(np.int64)
    return _popcount_table(values)


def _popcount_table(values: np.ndarray) -> np.ndarray:
    """:func:`popcount` by a table of 16-bit counts (numpy < 2.0)."""
    table = np.array([bin(k).count("1") for k in range(1 << 16)], dtype=np.int64)
    out = np.zeros(len(values), dtype=np.int64)
    for shift in range(0, 64, 16):
        out += table[(values >> shift) & 0xFFFF]
    return out


def _grouped_sums(key: np.ndarray, values: list, size: int | None):
    """Distinct keys (sorted) and the exact int64 sums of ``values`` per key.

    ``values[0]`` must be positive (it marks the keys present), the others non-negative.
    ``size``: a dense grid of that many bins is used (no sort), ``None``: ``np.unique``.
    """
    exact = len(key) == 0 or all(int(v.sum()) < _EXACT for v in values)
    if size is not None and exact:
        sums = [np.bincount(key, weights=v.astype(np.float64), minlength=size) for v in values]
        unique = np.flatnonzero(sums[0])
        return unique, [s[unique].astype(np.int64) for s in sums]
    unique, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.ravel()
    out = []
    for v in values:  # over the few columns
        s = np.zeros(len(unique), dtype=np.int64)
        np.add.at(s, inverse, v)
        out.append(s)
    return unique, out


def _dense_size(n: int) -> int | None:
    return n if n <= max(_DENSE, 1) else None


def _grid_fits(n_files: int, bits: int, n_events: int) -> bool:
    """Whether the dense (file, mask) grid has at most :data:`_DENSE` bins,
    or :data:`_BINS_PER_EVENT` per event (it is built in blocks of files)."""
    return (n_files << bits) <= max(_DENSE, _BINS_PER_EVENT * n_events)


def _distinct(key: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` of keys in ``[0, size)``.

    Where the keys' range is no larger than a dense grid or twice their number,
    a presence grid and its cumulative sum replace the sort (linear in the keys).
    """
    if size > max(_DENSE, 2 * len(key)):
        unique, inverse = np.unique(key, return_inverse=True)
        return unique, inverse.ravel()
    present = np.zeros(size, dtype=bool)
    present[key] = True
    unique = np.flatnonzero(present)
    rank = np.cumsum(present, dtype=np.int64)
    return unique, rank[key] - 1


class _Bits:
    """Bit position of every interval's channel on one side, and the way back to channel codes."""

    def __init__(self, n_files: int, n_channels: int, file, channel, local: bool):
        self.n_files = n_files
        if not local:
            self.bit, self.width, self._first, self._channel = channel, max(n_channels, 1), None, None
            return
        width = max(n_channels, 1)
        unique, inverse = _distinct(file * width + channel, n_files * width)
        unique_file = unique // width
        self._first = np.searchsorted(unique_file, np.arange(n_files + 1))
        rank = np.arange(len(unique)) - self._first[unique_file]
        self._channel = unique % width
        self.bit = rank[inverse.ravel()]
        self.width = int(rank.max()) + 1 if len(rank) else 1

    def channels(self, file: np.ndarray, bit: np.ndarray) -> np.ndarray:
        """Channel codes of the bits ``bit`` of files ``file`` (order within a file kept)."""
        if self._first is None:
            return bit
        return self._channel[self._first[file] + bit]  # type: ignore[index]  # _channel is set whenever _first is


def _side_bits(n_files, n_left, n_right, left, right):
    """Bits of both sides: channel codes if they fit a dense grid, else ranks within files.

    The grid's limit (:func:`_grid_fits`) does not depend on the number of files alone,
    so many files of few channels keep their codes (the same path at any size).
    """
    fits = n_left + n_right <= MAX_BITS
    n_events = 2 * (len(left[0]) + len(right[0]))
    local = not fits or not _grid_fits(n_files, n_left + n_right, n_events)
    l_bits = _Bits(n_files, n_left, left[0], left[1], local)
    r_bits = _Bits(n_files, n_right, right[0], right[1], local)
    if l_bits.width + r_bits.width + int(n_files).bit_length() > MAX_BITS:
        return None
    return l_bits, r_bits


def _sorted_events(n_files: int, sides, shift: int):
    """Events of both sides sorted by (file, time): time keys and codes (int64).

    ``sides``: (file, start, end, code) per side, ``code < 2**shift``;
    a start has ``code``, an end ``code + 1``.
    Where (file, time) keys leave ``shift`` bits free, key and code are packed in one
    int64 and sorted in place (no gathers); else the keys are sorted and codes gathered.
    """
    times = [t for _, start, end, _ in sides for t in (start, end) if len(t)]
    low = min((int(t.min()) for t in times), default=0)
    span = max((int(t.max()) for t in times), default=0) - low + 1
    size = sum(2 * len(side[0]) for side in sides)
    if low >= 0 and ((n_files + 1) * span) << shift < 2**62:
        packed, at = np.empty(size, dtype=np.int64), 0
        for file, start, end, code in sides:  # the two sides
            base = ((file * span - low) << shift) + code
            for time, plus in ((start, 0), (end, 1)):
                packed[at : at + len(time)] = time << shift
                packed[at : at + len(time)] += base + plus if plus else base
                at += len(time)
        packed.sort(kind="stable")  # sorted runs of both sides: timsort merges them
        code = packed & ((1 << shift) - 1)
        packed >>= shift
        return packed, code, span
    pairs = [(file, t) for file, start, end, _ in sides for t in (start, end)]
    key = np.concatenate(shared_keys(n_files, *pairs))
    code = np.concatenate([c + plus for *_, c in sides for plus in (0, 1)])
    order = np.argsort(key, kind="stable")
    return key[order], code[order], span


def _masks(n_files: int, left, right, l_bits: _Bits, r_bits: _Bits):
    """Pieces grouped by (file, mask): file, mask, summed length (sorted by file, mask),
    or where it is small, the dense (file, mask) grids of summed lengths (float64, exact).

    The cumulative sum of the events' ``+-2**b`` gives the mask of every piece;
    ``(f - f') * 2**bits`` added at the first event of each file ``f`` (``f'`` the one before)
    puts the file above the mask bits, so the sum is the (file, mask) bin itself.
    Between files (and in silence) the mask is 0; those bins are dropped.
    """
    bits = l_bits.width + r_bits.width
    shift = int(2 * bits - 1).bit_length()
    sides = (
        (left[0], left[2], left[3], 2 * l_bits.bit),
        (right[0], right[2], right[3], 2 * (r_bits.bit + l_bits.width)),
    )
    key, code, span = _sorted_events(n_files, sides, shift)
    step = np.empty(2 * bits, dtype=np.int64)
    step[0::2] = np.left_shift(1, np.arange(bits, dtype=np.int64))
    step[1::2] = -step[0::2]
    group = step[code]
    counts = 2 * (np.bincount(left[0], minlength=n_files) + np.bincount(right[0], minlength=n_files))
    files = np.flatnonzero(counts)
    first = (np.cumsum(counts) - counts)[files]
    group[first] += np.diff(files, prepend=0) << bits
    np.cumsum(group, out=group)
    length = code.view(np.float64)[:-1]  # the codes are not needed any more
    np.subtract(key[1:], key[:-1], out=length, casting="unsafe")
    low_bits = (1 << bits) - 1
    if _grid_fits(n_files, bits, len(key)) and span < _EXACT:  # a bin sums one file's lengths
        return _grid_blocks(n_files, bits, counts, group[:-1], length)
    length = np.diff(key)
    keep = np.flatnonzero(((group[:-1] & low_bits) != 0) & (length > 0))
    unique, (duration,) = _grouped_sums(group[keep], [length[keep]], None)
    return unique >> bits, unique & low_bits, duration


def _grid_blocks(n_files: int, bits: int, counts: np.ndarray, group: np.ndarray, length: np.ndarray):
    """The dense (file, mask) grids of summed lengths (float64, exact), in blocks of files.

    ``group``: (file, mask) bin of every piece, pieces sorted by file;
    ``counts``: events per file. Each block holds as many whole files as fit
    in :data:`_BLOCK` bins (at least one), so the work per file is the same
    whatever the number of files (no step to a sort above some size).
    Returns ``[(first file, grid (files, 2**bits))]``, mask 0 (silence, between files) included.
    """
    per_block = max(_BLOCK >> bits, 1)
    first_event = np.r_[0, np.cumsum(counts)]
    blocks = []
    for f0 in range(0, max(n_files, 1), per_block):  # blocks of thousands of files (one if none)
        f1 = min(f0 + per_block, n_files)
        a, b = first_event[f0], min(first_event[f1], len(group))
        size = (f1 - f0) << bits
        sums = np.bincount(group[a:b] - (f0 << bits), weights=length[a:b], minlength=size)
        blocks.append((f0, sums[:size].reshape(f1 - f0, 1 << bits)))
    return blocks


def file_sums(file: np.ndarray, n_files: int, columns: dict) -> dict:
    """Exact int64 sums per file of columns whose rows are sorted by file.

    Examples:
        >>> file_sums(np.array([0, 0, 2]), 3, {"x": np.array([1, 2, 5])})["x"].tolist()
        [3, 0, 5]

    """
    starts = np.searchsorted(file, np.arange(n_files))
    nonempty = np.flatnonzero(np.searchsorted(file, np.arange(n_files), side="right") > starts)
    out = {}
    for name, values in columns.items():  # over the few columns
        out[name] = np.zeros(n_files, dtype=np.int64)
        if len(values):
            out[name][nonempty] = np.add.reduceat(values.astype(np.int64, copy=False), starts[nonempty])
    return out


def _set_bits(mask: np.ndarray):
    """(row, bit) of every set bit of ``mask``, sorted by row then bit.

    The k-th entry of a row clears the k lowest set bits of its mask and takes the
    position of the lowest one left (as many passes as bits set at most in one mask).
    """
    count = popcount(mask)
    row = np.repeat(np.arange(len(mask), dtype=np.int64), count)
    value = mask[row]
    rank = np.arange(len(row), dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    for k in range(int(count.max(initial=0)) - 1):  # over the bits of one mask
        later = np.flatnonzero(rank > k)
        value[later] &= value[later] - 1
    return row, popcount((value & -value) - 1)


def _channel_time(n_files, bits: _Bits, file, duration, row, bit):
    """Active time per (file, channel) of the bits set in the masks: file, channel, time."""
    key = file[row] * bits.width + bit
    unique, (time,) = _grouped_sums(key, [duration[row]], _dense_size(n_files * bits.width))
    f = unique // bits.width
    return f, bits.channels(f, unique % bits.width), time


def _weights(pairs: dict, n_l: np.ndarray, n_r: np.ndarray) -> list:
    """Per mask, the weight of each pair column (``None``: 1)."""
    return [None if where is None else where(n_l, n_r).astype(np.int64) for where in pairs.values()]


def _columns(base: np.ndarray, weighted: list, weights: list) -> list:
    """The pair columns: ``base`` where a column has no weight, else its own sums in turn."""
    found = iter(weighted)
    return [base if w is None else next(found) for w in weights]


def _pairs(n_files, l_bits: _Bits, r_bits: _Bits, grouped, l_set, r_set, n_right, weights):
    """Co-occurrence per (file, left, right) and its weighted columns."""
    file, _, duration = grouped
    (l_row, l_bit), (_, r_bit) = l_set, r_set
    offsets = np.zeros(len(file) + 1, dtype=np.int64)
    np.cumsum(n_right, out=offsets[1:])  # r_set rows are sorted
    a, b = expand_ranges(offsets[l_row], offsets[l_row + 1])
    row = l_row[a]
    wl, wr = l_bits.width, r_bits.width
    key = (file[row] * wl + l_bit[a]) * wr + r_bit[b]
    d = duration[row]
    values = [d] + [d * w[row] for w in weights if w is not None]
    unique, sums = _grouped_sums(key, values, _dense_size(n_files * wl * wr))
    f, rest = unique // (wl * wr), unique % (wl * wr)
    return (f, l_bits.channels(f, rest // wr), r_bits.channels(f, rest % wr)), _columns(sums[0], sums[1:], weights)


def _from_grid(blocks: list, l_bits: _Bits, r_bits: _Bits, spoken: tuple, per_file: Factors, pairs: dict):
    """Everything from the dense (file, mask) grids of :func:`_grid_blocks`, block by block.

    The active times are checked (:func:`_spoken`) before any bit is read as a channel.
    """
    sums = [(f0, _block_sums(grid, l_bits, r_bits, per_file, pairs)) for f0, grid in blocks]
    wl, wr = l_bits.width, r_bits.width
    names = list(per_file(np.zeros(0, np.int64), np.zeros(0, np.int64)))
    at = len(names)
    l_spoken = sum(int(s[:, at : at + wl].sum()) for _, s in sums)
    r_spoken = sum(int(s[:, at + wl : at + wl + wr].sum()) for _, s in sums)
    if not _spoken(spoken, l_spoken, r_spoken):
        return None
    parts = [_block_parts(f0, s, names, l_bits, r_bits) for f0, s in sums]
    columns = {name: np.concatenate([part[0][name] for part in parts]) for name in names}

    def joined(k):
        return tuple(np.concatenate(arrays) for arrays in zip(*(part[k] for part in parts)))

    weighted = [np.concatenate([part[2][k] for part in parts]) for k in range(len(parts[0][2]))]
    weights = [None if where is None else True for where in pairs.values()]
    return columns, joined(1), dict(zip(pairs, _columns(weighted[0], weighted[1:], weights))), joined(3), joined(4)


def _block_sums(grid: np.ndarray, l_bits: _Bits, r_bits: _Bits, per_file: Factors, pairs: dict) -> np.ndarray:
    """One dense (file, mask) grid times a matrix over its present masks (int64 per file):
    per mask its factor in each per-file column, its bits on each side, their pairs
    and the pairs times each weighted pair column; float64 sums of int64 stay exact."""
    mask = np.flatnonzero(grid.any(axis=0))
    mask = mask[mask != 0]
    wl, wr = l_bits.width, r_bits.width
    l_mask, r_mask = mask & ((1 << wl) - 1), mask >> wl
    n_l, n_r = popcount(l_mask), popcount(r_mask)
    l_on = (l_mask[:, None] >> np.arange(wl)) & 1
    r_on = (r_mask[:, None] >> np.arange(wr)) & 1
    both = (l_on[:, :, None] * r_on[:, None, :]).reshape(len(mask), wl * wr)
    weighted = [both * w[:, None] for w in _weights(pairs, n_l, n_r) if w is not None]
    factors = list(per_file(n_l, n_r).values())
    matrix = np.column_stack(factors + [l_on, r_on, both] + weighted)
    return np.rint(grid[:, mask] @ matrix.astype(np.float64)).astype(np.int64)


def _block_parts(f0: int, sums: np.ndarray, names: list, l_bits: _Bits, r_bits: _Bits):
    """Per-file columns, co-occurring pairs, their columns (unweighted first) and the active times
    of one block (files ``f0`` on) from :func:`_block_sums`."""
    wl, wr = l_bits.width, r_bits.width
    columns = {name: sums[:, k] for k, name in enumerate(names)}
    at = len(names)
    times = []
    for bits, width in ((l_bits, wl), (r_bits, wr)):  # the two sides
        f, bit = np.nonzero(sums[:, at : at + width])
        times.append((f + f0, bits.channels(f + f0, bit), sums[:, at : at + width][f, bit]))
        at += width
    width = wl * wr
    f, pair = np.nonzero(sums[:, at : at + width])
    weighted = [sums[:, k : k + width][f, pair] for k in range(at, sums.shape[1], width)]
    f = f + f0
    cooccurrence = (f, l_bits.channels(f, pair // wr), r_bits.channels(f, pair % wr))
    return columns, cooccurrence, weighted, times[0], times[1]


def _from_rows(n_files: int, grouped, l_bits: _Bits, r_bits: _Bits, spoken: tuple, per_file: Factors, pairs):
    """Everything from the (file, mask, length) rows: set bits and their pairs per row."""
    file, mask, duration = grouped
    l_mask, r_mask = mask & ((1 << l_bits.width) - 1), mask >> l_bits.width
    n_l, n_r = popcount(l_mask), popcount(r_mask)
    if not _spoken(spoken, (n_l * duration).sum(), (n_r * duration).sum()):
        return None
    columns = file_sums(file, n_files, {k: v * duration for k, v in per_file(n_l, n_r).items()})
    l_set, r_set = _set_bits(l_mask), _set_bits(r_mask)
    keys, weighted = _pairs(n_files, l_bits, r_bits, grouped, l_set, r_set, n_r, _weights(pairs, n_l, n_r))
    return (
        columns,
        keys,
        dict(zip(pairs, weighted)),
        _channel_time(n_files, l_bits, file, duration, *l_set),
        _channel_time(n_files, r_bits, file, duration, *r_set),
    )


def mask_sums(n_files: int, n_left: int, n_right: int, left, right, per_file: Factors, pairs: dict):
    """Per-file columns, co-occurring pairs and active times by bit masks, or ``None``.

    Args:
        n_files: number of file codes
        n_left: number of channel codes of ``left``
        n_right: number of channel codes of ``right``
        left: ``(file, channel, start, end)`` intervals of positive length, any order
        right: the same of the other side
        per_file: the per-file columns, ``(n_l, n_r) -> {name: factor}``
        pairs: pair columns, name to ``where(n_l, n_r)`` (``None``: every piece),
            a boolean of the pieces (masks) that count

    Returns:
        ``(columns, (file, a, b), pair columns, left times, right times)``
        (every pair that co-occurs, sorted by ``(file, a, b)``;
        times ``(file, channel, time)`` sorted),
        or ``None`` if a channel is active twice at once or a file has more than
        :data:`MAX_BITS` channels on both sides

    """
    sides = _side_bits(n_files, n_left, n_right, left, right)
    if sides is None:
        return None
    l_bits, r_bits = sides
    grouped = _masks(n_files, left, right, l_bits, r_bits)
    spoken = (int((left[3] - left[2]).sum()), int((right[3] - right[2]).sum()))
    if isinstance(grouped, list):
        return _from_grid(grouped, l_bits, r_bits, spoken, per_file, pairs)
    return _from_rows(n_files, grouped, l_bits, r_bits, spoken, per_file, pairs)


def _spoken(expected: tuple, left, right) -> bool:
    """Whether the bits set give each side's summed interval lengths.

    A channel active twice at once carries into another bit (or the file above):
    fewer bits set than intervals active, so less active time than its intervals.
    """
    return int(left) == expected[0] and int(right) == expected[1]
