r"""The diarization sweep on bit masks of the active labels, for every file at once.

Each label present in a file gets one bit on its side
(its label code where the codes of both sides fit in 62 bits, else its rank in the file).
The start and end of every interval become one event ``+2**b`` or ``-2**b``;
after one sort of the events by (file, time) a cumulative sum gives,
between two consecutive events, the mask :math:`m` of the labels active on both sides.
Grouping the elementary segments by (file, :math:`m`) and summing their lengths :math:`d`
gives a small table from which everything follows.
The grouping is a dense grid of (file, :math:`m`) bins (``np.bincount``) wherever it has
at most :data:`_BINS_PER_EVENT` bins per event, built in cache-sized blocks of files,
so its cost per file does not depend on the number of files
(issue 32: the grid stopped at ``_DENSE`` bins and a sort took over, 1.3-1.35x growth);
else (files of many labels) the (file, :math:`m`) keys are sorted.
With :math:`n_t`, :math:`n_p` the bits set on each side,
total :math:`= \sum n_t d`, miss :math:`= \sum \max(0, n_t - n_p) d`,
false alarm :math:`= \sum \max(0, n_p - n_t) d` (their parts where :math:`n_t \ge 2`
or :math:`n_t = 0` for ``regions=``), a label's speaking time is the sum of :math:`d`
over the masks holding its bit, and a pair's co-occurrence the sum over the masks holding both.

The bits stand for merged labels: a label active twice at once (a speaker overlapping itself)
would carry into the next bit. That shows as :math:`\sum n_t d` below the summed
lengths of the rows, and :func:`mask_sweep` then returns ``None``
(the caller merges the labels and sweeps again).
"""

from __future__ import annotations

import numpy as np

from audeval._core.intervals import expand_ranges

from audeval._diarization.region import fast_keys

_MAX_BITS = 62  # bits of both sides in one int64 mask
_DENSE = 1 << 22  # bins of one dense grid of (file, mask) bins (blocks of files beyond)
_BLOCK = 1 << 18  # bins of one block of files of the dense grid (cache-sized)
_BINS_PER_EVENT = 8  # dense (file, mask) grids up to this many bins per event (else the sort path)
_EXACT = 2**53  # float64 sums of int64 ns are exact below this


def _popcount(values: np.ndarray) -> np.ndarray:
    """Number of set bits of non-negative int64 values."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(values).astype(np.int64)
    return _popcount_table(values)


def _popcount_table(values: np.ndarray) -> np.ndarray:
    """:func:`_popcount` by a table of 16-bit counts (numpy < 2.0)."""
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
    for v in values:
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
    """Bit position of every row's label on one side, and the way back to label codes."""

    def __init__(self, n_files: int, n_labels: int, file, label, local: bool):
        self.n_files = n_files
        if not local:
            self.bit, self.width, self._first, self._label = label, max(n_labels, 1), None, None
            return
        width = max(n_labels, 1)
        unique, inverse = _distinct(file * width + label, n_files * width)
        unique_file = unique // width
        self._first = np.searchsorted(unique_file, np.arange(n_files + 1))
        rank = np.arange(len(unique)) - self._first[unique_file]
        self._label = unique % width
        self.bit = rank[inverse.ravel()]
        self.width = int(rank.max()) + 1 if len(rank) else 1

    def labels(self, file: np.ndarray, bit: np.ndarray) -> np.ndarray:
        """Label codes of the bits ``bit`` of files ``file`` (order within a file kept)."""
        if self._first is None:
            return bit
        return self._label[self._first[file] + bit]  # type: ignore[index]  # _label is set whenever _first is


def _side_bits(n_files, n_truth_labels, n_prediction_labels, truth, prediction):
    """Bits of both sides: label codes if they fit a dense grid, else ranks within files.

    The grid's limit (:func:`_grid_fits`) does not depend on the number of files alone,
    so many files of few labels keep their label codes (the same path at any size).
    """
    fits = n_truth_labels + n_prediction_labels <= _MAX_BITS
    n_events = 2 * (len(truth[0]) + len(prediction[0]))
    local = not fits or not _grid_fits(n_files, n_truth_labels + n_prediction_labels, n_events)
    t_bits = _Bits(n_files, n_truth_labels, truth[0], truth[1], local)
    p_bits = _Bits(n_files, n_prediction_labels, prediction[0], prediction[1], local)
    if t_bits.width + p_bits.width + int(n_files).bit_length() > _MAX_BITS:
        return None
    return t_bits, p_bits


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
        for file, start, end, code in sides:
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
    key = np.concatenate(fast_keys(n_files, *pairs))
    code = np.concatenate([c + plus for *_, c in sides for plus in (0, 1)])
    order = np.argsort(key, kind="stable")
    return key[order], code[order], span


def _masks(n_files: int, truth, prediction, t_bits: _Bits, p_bits: _Bits):
    """Segments grouped by (file, mask): file, mask, summed length (sorted by file, mask),
    or where it is small, the dense (file, mask) grid of summed lengths (float64, exact).

    The cumulative sum of the events' ``+-2**b`` gives the mask of every segment;
    ``(f - f') * 2**bits`` added at the first event of each file ``f`` (``f'`` the one before)
    puts the file above the mask bits, so the sum is the (file, mask) bin itself.
    Between files (and in silence) the mask is 0; those bins are dropped.
    """
    bits = t_bits.width + p_bits.width
    shift = int(2 * bits - 1).bit_length()
    sides = (
        (truth[0], truth[2], truth[3], 2 * t_bits.bit),
        (prediction[0], prediction[2], prediction[3], 2 * (p_bits.bit + t_bits.width)),
    )
    key, code, span = _sorted_events(n_files, sides, shift)
    step = np.empty(2 * bits, dtype=np.int64)
    step[0::2] = np.left_shift(1, np.arange(bits, dtype=np.int64))
    step[1::2] = -step[0::2]
    group = step[code]
    counts = 2 * (np.bincount(truth[0], minlength=n_files) + np.bincount(prediction[0], minlength=n_files))
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

    ``group``: (file, mask) bin of every segment, segments sorted by file;
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


def _file_sums(file: np.ndarray, n_files: int, columns: dict) -> dict:
    """Exact int64 sums per file of columns whose rows are sorted by file."""
    starts = np.searchsorted(file, np.arange(n_files))
    nonempty = np.flatnonzero(np.searchsorted(file, np.arange(n_files), side="right") > starts)
    out = {}
    for name, values in columns.items():
        out[name] = np.zeros(n_files, dtype=np.int64)
        if len(values):
            out[name][nonempty] = np.add.reduceat(values, starts[nonempty])
    return out


def _set_bits(mask: np.ndarray):
    """(row, bit) of every set bit of ``mask``, sorted by row then bit.

    The k-th entry of a row clears the k lowest set bits of its mask and takes the
    position of the lowest one left (as many passes as bits set at most in one mask).
    """
    count = _popcount(mask)
    row = np.repeat(np.arange(len(mask), dtype=np.int64), count)
    value = mask[row]
    rank = np.arange(len(row), dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    for k in range(int(count.max(initial=0)) - 1):
        later = np.flatnonzero(rank > k)
        value[later] &= value[later] - 1
    return row, _popcount((value & -value) - 1)


def _label_time(n_files, bits: _Bits, file, duration, row, bit):
    """Speaking time per (file, label) of the bits set in the masks: file, label, time."""
    key = file[row] * bits.width + bit
    unique, (time,) = _grouped_sums(key, [duration[row]], _dense_size(n_files * bits.width))
    f = unique // bits.width
    return f, bits.labels(f, unique % bits.width), time


def _pairs(n_files, t_bits: _Bits, p_bits: _Bits, grouped, t_set, p_set, n_truth, n_prediction):
    """Co-occurrence and its part in truth overlap per (file, truth, prediction)."""
    file, _, duration = grouped
    (t_row, t_bit), (_, p_bit) = t_set, p_set
    offsets = np.zeros(len(file) + 1, dtype=np.int64)
    np.cumsum(n_prediction, out=offsets[1:])  # p_set rows are sorted
    a, b = expand_ranges(offsets[t_row], offsets[t_row + 1])
    row = t_row[a]
    wt, wp = t_bits.width, p_bits.width
    key = (file[row] * wt + t_bit[a]) * wp + p_bit[b]
    d = duration[row]
    unique, (time, overlap) = _grouped_sums(
        key, [d, np.where(n_truth[row] >= 2, d, 0)], _dense_size(n_files * wt * wp)
    )
    f, rest = unique // (wt * wp), unique % (wt * wp)
    t = t_bits.labels(f, rest // wp)
    p = p_bits.labels(f, rest % wp)
    return (f, t, p, time), overlap


_COMPONENTS = (
    "total", "miss", "false_alarm", "total_overlap", "miss_overlap", "false_alarm_overlap",
    "false_alarm_silence",
)
"""The per-file columns of :func:`_components`, in order."""


def _components(n_t: np.ndarray, n_p: np.ndarray) -> dict:
    """Per mask, the factors of its length in each per-file column."""
    common = np.minimum(n_t, n_p)
    miss, false_alarm = n_t - common, n_p - common
    in_overlap = n_t >= 2
    return {
        "total": n_t,
        "miss": miss,
        "false_alarm": false_alarm,
        "total_overlap": np.where(in_overlap, n_t, 0),
        "miss_overlap": np.where(in_overlap, miss, 0),
        "false_alarm_overlap": np.where(in_overlap, false_alarm, 0),
        "false_alarm_silence": np.where(n_t == 0, false_alarm, 0),
    }


def _from_grid(blocks: list, t_bits: _Bits, p_bits: _Bits, spoken: tuple):
    """Everything from the dense (file, mask) grids of :func:`_grid_blocks`, block by block.

    The speaking times are checked (:func:`_spoken`) before any bit is read as a label.
    """
    sums = [(f0, _block_sums(grid, t_bits, p_bits)) for f0, grid in blocks]
    wt, wp, at = t_bits.width, p_bits.width, len(_COMPONENTS)
    t_spoken = sum(int(s[:, at : at + wt].sum()) for _, s in sums)
    p_spoken = sum(int(s[:, at + wt : at + wt + wp].sum()) for _, s in sums)
    if not _spoken(spoken, t_spoken, p_spoken):
        return None
    parts = [_block_parts(f0, s, t_bits, p_bits) for f0, s in sums]
    per_file = {name: np.concatenate([part[0][name] for part in parts]) for name in _COMPONENTS}

    def joined(k):
        return tuple(np.concatenate(arrays) for arrays in zip(*(part[k] for part in parts)))

    overlap = np.concatenate([part[2] for part in parts])
    return per_file, joined(1), overlap, joined(3), joined(4)


def _block_sums(grid: np.ndarray, t_bits: _Bits, p_bits: _Bits) -> np.ndarray:
    """One dense (file, mask) grid times a matrix over its present masks (int64 ns per file):
    per mask its factor in each per-file column, its bits on each side
    and their pairs (in and out of truth overlap); float64 sums of int64 ns stay exact."""
    mask = np.flatnonzero(grid.any(axis=0))
    mask = mask[mask != 0]
    wt, wp = t_bits.width, p_bits.width
    t_mask, p_mask = mask & ((1 << wt) - 1), mask >> wt
    n_t, n_p = _popcount(t_mask), _popcount(p_mask)
    t_on = (t_mask[:, None] >> np.arange(wt)) & 1
    p_on = (p_mask[:, None] >> np.arange(wp)) & 1
    both = (t_on[:, :, None] * p_on[:, None, :]).reshape(len(mask), wt * wp)
    factors = _components(n_t, n_p)
    matrix = np.column_stack(list(factors.values()) + [t_on, p_on, both, both * (n_t >= 2)[:, None]])
    return np.rint(grid[:, mask] @ matrix.astype(np.float64)).astype(np.int64)


def _block_parts(f0: int, sums: np.ndarray, t_bits: _Bits, p_bits: _Bits):
    """Per-file columns, co-occurrence, its part in truth overlap and the speaking times
    of one block (files ``f0`` on) from :func:`_block_sums`."""
    wt, wp = t_bits.width, p_bits.width
    per_file = {name: sums[:, k] for k, name in enumerate(_COMPONENTS)}
    at = len(_COMPONENTS)
    times = []
    for bits, width in ((t_bits, wt), (p_bits, wp)):
        f, bit = np.nonzero(sums[:, at : at + width])
        times.append((f + f0, bits.labels(f + f0, bit), sums[:, at : at + width][f, bit]))
        at += width
    f, pair = np.nonzero(sums[:, at : at + wt * wp])
    time = sums[:, at : at + wt * wp][f, pair]
    overlap = sums[:, at + wt * wp :][f, pair]
    f = f + f0
    cooccurrence = (f, t_bits.labels(f, pair // wp), p_bits.labels(f, pair % wp), time)
    return per_file, cooccurrence, overlap, times[0], times[1]


def _from_rows(n_files: int, grouped, t_bits: _Bits, p_bits: _Bits, spoken: tuple):
    """Everything from the (file, mask, length) rows: set bits and their pairs per row."""
    file, mask, duration = grouped
    t_mask, p_mask = mask & ((1 << t_bits.width) - 1), mask >> t_bits.width
    n_t, n_p = _popcount(t_mask), _popcount(p_mask)
    if not _spoken(spoken, (n_t * duration).sum(), (n_p * duration).sum()):
        return None
    factors = _components(n_t, n_p)
    per_file = _file_sums(file, n_files, {k: v * duration for k, v in factors.items()})
    t_set, p_set = _set_bits(t_mask), _set_bits(p_mask)
    cooccurrence, overlap = _pairs(n_files, t_bits, p_bits, grouped, t_set, p_set, n_t, n_p)
    return (
        per_file,
        cooccurrence,
        overlap,
        _label_time(n_files, t_bits, file, duration, *t_set),
        _label_time(n_files, p_bits, file, duration, *p_set),
    )


def mask_sweep(n_files, n_truth_labels, n_prediction_labels, truth, prediction, overlap=True):
    """Per-file components, co-occurrence and speaking times of cropped labels.

    ``truth``, ``prediction``: (file, label, start, end) rows of positive length,
    any order. Returns ``(per_file, cooccurrence, pair, truth_time, prediction_time)``
    as :func:`audeval._diarization.statistics._sweep_merged` and ``_speaker_time`` give them,
    or ``None`` if a label overlaps itself or a file has more than 62 labels on both sides.
    """
    sides = _side_bits(n_files, n_truth_labels, n_prediction_labels, truth, prediction)
    if sides is None:
        return None
    t_bits, p_bits = sides
    grouped = _masks(n_files, truth, prediction, t_bits, p_bits)
    spoken = (int((truth[3] - truth[2]).sum()), int((prediction[3] - prediction[2]).sum()))
    if isinstance(grouped, list):
        result = _from_grid(grouped, t_bits, p_bits, spoken)
    else:
        result = _from_rows(n_files, grouped, t_bits, p_bits, spoken)
    if result is None:
        return None
    per_file, cooccurrence, in_overlap, t_time, p_time = result
    pair = {"duration_overlap": in_overlap} if overlap else {}
    return per_file, cooccurrence, pair, t_time, p_time


def _spoken(expected: tuple, truth, prediction) -> bool:
    """Whether the bits set give each side's summed row lengths.

    A label active twice at once carries into another bit (or the file above):
    fewer bits set than rows active, so less speaking time than its rows.
    """
    return int(truth) == expected[0] and int(prediction) == expected[1]
