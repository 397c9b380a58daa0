"""The diarization sweeps as they were before they ran on the piece engine (issue 27).

The reference of ``tests/test_pieces_diarization.py``: copied from
``audeval/_diarization/statistics.py`` (``_counts_sweep``, ``_overlapping_pairs``, ``_pair_sums``,
``_sweep_merged``, ``_sweep_pieces``, ``_sweep_rows``, ``_diarization_arrays``, ``_pyannote_arrays``)
and ``audeval/_diarization/masks.py`` (``mask_sweep`` and its helpers) at f18e5b3,
with ``fast_keys``, ``_join_disjoint`` and ``_merge_labels_arrays`` of ``_region.py``;
``_overlap_regions`` and ``_union`` of ``_region.py``, ``_pieces`` of ``_segmentation.py``
(here ``_boundary_pieces``) and ``_detection_table`` of ``_detection.py``;
the scored-region mapping (``_scored_region``, ``_crop``, ``_merge_labels``, ``_raw_labels``)
is the package's. ``_diarization_arrays`` returns the package's ``_Table``.
"""

from __future__ import annotations

import numpy as np

from audeval._core import sweep as _pieces
from audeval._core.intervals import expand_ranges, group_keys, group_sum, intersect, merge, total_length
from audeval._core.intervals import runs as _runs

from audeval._diarization.region import _EMPTY, _crop, _merge_labels, _raw_labels, _scored_region
from audeval._diarization.statistics import _Table


def fast_keys(n_groups: int, *pairs) -> list[np.ndarray]:
    """int64 keys ordering ``(group, time)`` pairs: ``group * span + time`` where it fits.

    Same contract as :func:`audeval._core.intervals.group_keys` (keys of all pairs comparable,
    groups apart), without its per-group minima when ``n_groups * span`` fits in int64.
    """
    times = [t for _, t in pairs if len(t)]
    if not times:
        return [np.zeros(0, dtype=np.int64) for _ in pairs]
    low = min(int(t.min()) for t in times)
    span = max(int(t.max()) for t in times) - low + 1
    if (n_groups + 1) * span >= 2**62:
        return group_keys(n_groups, *pairs)
    return [g.astype(np.int64, copy=False) * span + (t - low) for g, t in pairs]


def _merge_labels_arrays(n_files, n_labels, file, label, start, end):
    """Union per (file, label): one sort of (file, label, start) keys."""
    width = max(n_labels, 1)
    keep = end > start
    group = file[keep] * width + label[keep]
    start, end = start[keep], end[keep]
    if len(group) == 0:
        return _EMPTY, _EMPTY, _EMPTY, _EMPTY
    start_key, end_key = fast_keys(n_files * width, (group, start), (group, end))
    order = np.argsort(start_key, kind="stable")
    start_key, end_key = start_key[order], end_key[order]
    group, start, end = group[order], start[order], end[order]
    reach = np.maximum.accumulate(end_key)
    new = np.ones(len(group), dtype=bool)
    new[1:] = (start_key[1:] > reach[:-1]) | (group[1:] != group[:-1])
    first = np.flatnonzero(new)
    group = group[first]
    return group // width, group % width, start[first], np.maximum.reduceat(end, first)


def _join_disjoint(n_files, file, start, end, b_file, b_start, b_end):
    """Pairs (i, j) of intervals ``i`` and disjoint sorted intervals ``j`` that overlap
    (:func:`audeval._core.intervals.overlap_join`; ``i`` ascending)."""
    bs, be, s_key, e_key = fast_keys(
        n_files, (b_file, b_start), (b_file, b_end), (file, start), (file, end)
    )
    i, j = expand_ranges(np.searchsorted(be, s_key, side="right"), np.searchsorted(bs, e_key))
    keep = np.minimum(end[i], b_end[j]) > np.maximum(start[i], b_start[j])
    return i[keep], j[keep]


# ---- _masks.py ----

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


# ---- _statistics.py ----

def _speaker_time(n_files, n_labels, cropped):
    file, label, start, end = cropped
    width = max(n_labels, 1)
    key = file * width + label
    if len(key) == 0:
        return _EMPTY, _EMPTY, _EMPTY
    # cropped intervals are sorted by (file, label): reduce runs
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    time = np.add.reduceat(end - start, first)
    return file[first], label[first], time


def _counts_sweep(n_files: int, truth, prediction):
    r"""Per-file components from one sweep of +1/-1 events; the truth overlap intervals.

    The events of each side are sorted by (file, time); between two consecutive events
    the numbers :math:`n_t`, :math:`n_p` of active truth and predicted intervals are
    constant (0 between files, so nothing there counts). With the speaking times
    :math:`T = \sum n_t d`, :math:`P = \sum n_p d` and :math:`C = \sum \min(n_t, n_p) d`:
    miss :math:`= T - C`, false alarm :math:`= P - C`; the overlap (:math:`n_t \ge 2`)
    and silence (:math:`n_t = 0`) parts come from those few segments alone.
    """
    t_file, _, t_start, t_end = truth
    p_file, _, p_start, p_end = prediction
    n_t, n_p = len(t_file), len(p_file)
    pairs = ((t_file, t_start), (t_file, t_end), (p_file, p_start), (p_file, p_end))
    keys = fast_keys(n_files, *pairs)
    order = np.argsort(np.concatenate(keys), kind="stable")  # timsort: the inputs are sorted runs
    time = np.concatenate([t_start, t_end, p_start, p_end])[order]
    file = np.concatenate([t_file, t_file, p_file, p_file])[order][:-1]
    one, none = np.ones(n_t, np.int8), np.zeros(n_p, np.int8)
    active_t = np.cumsum(np.concatenate([one, -one, none, none])[order], dtype=np.int64)[:-1]
    one, none = np.ones(n_p, np.int8), np.zeros(n_t, np.int8)
    active_p = np.cumsum(np.concatenate([none, none, one, -one])[order], dtype=np.int64)[:-1]
    length = time[1:] - time[:-1] if len(time) else _EMPTY
    truth_time = _sorted_sum(t_file, t_end - t_start, n_files)
    prediction_time = _sorted_sum(p_file, p_end - p_start, n_files)
    common = _sorted_sum(file, np.minimum(active_t, active_p) * length, n_files)

    def part(k):
        a_t, a_p, d = active_t[k], active_p[k], length[k]
        return (
            _sorted_sum(file[k], a_t * d, n_files),
            _sorted_sum(file[k], np.maximum(a_t - a_p, 0) * d, n_files),
            _sorted_sum(file[k], np.maximum(a_p - a_t, 0) * d, n_files),
        )

    k = np.flatnonzero(active_t >= 2)
    total_overlap, miss_overlap, false_alarm_overlap = part(k)
    per_file = {
        "total": truth_time,
        "miss": truth_time - common,
        "false_alarm": prediction_time - common,
        "total_overlap": total_overlap,
        "miss_overlap": miss_overlap,
        "false_alarm_overlap": false_alarm_overlap,
        "false_alarm_silence": part(np.flatnonzero((active_t == 0) & (active_p > 0)))[2],
    }
    k = k[length[k] > 0]
    overlap_intervals = merge(n_files, file[k], time[k], time[k + 1])
    return per_file, overlap_intervals, keys, order


def _sorted_sum(file: np.ndarray, values: np.ndarray, n_files: int) -> np.ndarray:
    """Exact int64 sum per file of values whose ``file`` is sorted (no ``ufunc.at``)."""
    out = np.zeros(n_files, dtype=np.int64)
    if len(values) == 0:
        return out
    groups = np.arange(n_files)
    starts = np.searchsorted(file, groups, side="left")
    nonempty = np.searchsorted(file, groups, side="right") > starts
    out[nonempty] = np.add.reduceat(values, starts[nonempty])
    return out


def _overlapping_pairs(n_t: int, n_p: int, keys, order):
    """Pairs (i, j) of truth and predicted intervals of a file that overlap.

    Either the predicted interval starts inside the truth interval,
    or the truth interval starts inside the predicted one (after its start):
    two "start inside" searches on the sorted starts, no pairwise matrix.
    ``keys`` (truth start, end, prediction start, end) and their joint sort ``order``
    come from :func:`_counts_sweep`: the starts of each side in sorted order are
    read off it, no other sort.
    """
    ts, te, ps, pe = keys
    by_t = order[order < n_t]
    by_p = order[(order >= 2 * n_t) & (order < 2 * n_t + n_p)] - 2 * n_t
    ps_sorted, ts_sorted = ps[by_p], ts[by_t]
    # needles in sorted order: the binary searches then walk memory in order
    i1, k1 = expand_ranges(
        np.searchsorted(ps_sorted, ts_sorted, side="left"),
        np.searchsorted(ps_sorted, te[by_t], side="left"),
    )
    j2, k2 = expand_ranges(
        np.searchsorted(ts_sorted, ps_sorted, side="right"),
        np.searchsorted(ts_sorted, pe[by_p], side="left"),
    )
    return np.concatenate([by_t[i1], by_t[k2]]), np.concatenate([by_p[k1], by_p[j2]])


def _pair_sums(n_runs: int, width: int, run: np.ndarray, label: np.ndarray, values: list):
    """Sums of ``values`` per (truth run, predicted label), only the non-empty ones."""
    key = run * width + label
    if n_runs * width <= max(8 * len(key), 1 << 20):  # dense grid: no sort
        sums = [np.bincount(key, weights=None, minlength=n_runs * width) if v is None else
                _int_bincount(key, v, n_runs * width) for v in values]
        unique = np.flatnonzero(np.bincount(key, minlength=n_runs * width))
        return unique, [x[unique] for x in sums]
    unique, inverse = np.unique(key, return_inverse=True)
    return unique, [group_sum(inverse.ravel(), v, len(unique)) for v in values]


def _int_bincount(key, values, size):
    """Exact int64 sums per key; float64 bins are exact below 2**53 ns (104 days)."""
    if len(values) == 0 or int(np.abs(values).sum()) < 2**53:
        return np.bincount(key, weights=values.astype(np.float64), minlength=size).astype(np.int64)
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, key, values)
    return out


def _sweep_merged(n_files: int, n_labels: int, truth, prediction, overlap: bool = True):
    """Per-file components and co-occurrence of merged labels (each active at most once at a time).

    ``overlap=False`` leaves out the co-occurrence in truth overlap (``regions="all"`` only).
    """
    per_file, overlap_intervals, keys, order = _counts_sweep(n_files, truth, prediction)
    i, j = _overlapping_pairs(len(truth[0]), len(prediction[0]), keys, order)
    start = np.maximum(truth[2][i], prediction[2][j])
    end = np.minimum(truth[3][i], prediction[3][j])
    values = [end - start]
    if overlap:
        a, b = _join_disjoint(n_files, truth[0][i], start, end, *overlap_intervals)
        inside = np.minimum(end[a], overlap_intervals[2][b]) - np.maximum(
            start[a], overlap_intervals[1][b]
        )
        values.append(_int_bincount(a, inside, len(i)))
    width = max(n_labels, 1)
    t_run, t_first = _runs(truth[0] * width + truth[1])  # truth is sorted by (file, label)
    unique, sums = _pair_sums(len(t_first), width, t_run[i], prediction[1][j], values)
    first = t_first[unique // width] if len(unique) else _EMPTY
    # rows sorted by (file, truth, prediction), as the general sweep gives them
    cooccurrence = (truth[0][first], truth[1][first], unique % width, sums[0])
    return per_file, cooccurrence, ({"duration_overlap": sums[1]} if overlap else {})


def _sweep_pieces(n_files: int, n_labels: int, truth, prediction):
    """Per-file components and the co-occurrence of label pairs, every row counted.

    ``compat="pyannote"``: a label overlapping itself is active twice
    (the pieces of :mod:`audeval._core.sweep` with the number of active rows per label).
    """
    n_t = len(truth[0])
    pieces = _pieces.cut(
        n_files,
        np.r_[truth[0], prediction[0]],
        np.r_[truth[2], prediction[2]],
        np.r_[truth[3], prediction[3]],
    )
    n = len(pieces)
    t_first, t_stop = pieces.first[:n_t], pieces.stop[:n_t]
    p_first, p_stop = pieces.first[n_t:], pieces.stop[n_t:]
    n_truth = _pieces.coverage(n, t_first, t_stop)
    n_prediction = _pieces.coverage(n, p_first, p_stop)
    length, file = pieces.duration, pieces.file
    overlap = n_truth >= 2
    total = n_truth * length
    miss = np.maximum(n_truth - n_prediction, 0) * length
    false_alarm = np.maximum(n_prediction - n_truth, 0) * length
    silence = n_truth == 0
    per_file = {
        "total": group_sum(file, total, n_files),
        "miss": group_sum(file, miss, n_files),
        "false_alarm": group_sum(file, false_alarm, n_files),
        "total_overlap": group_sum(file[overlap], total[overlap], n_files),
        "miss_overlap": group_sum(file[overlap], miss[overlap], n_files),
        "false_alarm_overlap": group_sum(file[overlap], false_alarm[overlap], n_files),
        "false_alarm_silence": group_sum(file[silence], false_alarm[silence], n_files),
    }
    width = max(n_labels, 1)
    t_active = _pieces.activity(n, t_first, t_stop, truth[1], width)
    p_active = _pieces.activity(n, p_first, p_stop, prediction[1], width)
    columns = {
        "duration": ("product", None),
        "duration_overlap": ("product", overlap),
        "matched": ("min", None),
        "matched_overlap": ("min", overlap),
    }
    f, t, p, pair = _pieces.pair_sums(pieces, t_active, p_active, width, width, columns)
    return per_file, (f, t, p, pair.pop("duration")), pair


def _diarization_arrays(
    inputs,
    collar: int,
    skip_overlap: bool,
    *,
    collar_convention: str = "total",
    compat: str | None = None,
    uem=None,
    truth_labels: list | None = None,
    prediction_labels: list | None = None,
    overlap: bool = True,
) -> _Table:
    """The statistics of validated inputs (codes of each side index its own label list)."""
    truth_labels = list(inputs.labels) if truth_labels is None else truth_labels
    prediction_labels = list(inputs.labels) if prediction_labels is None else prediction_labels
    n = inputs.n_files
    n_labels = max(len(truth_labels), len(prediction_labels), 1)
    if compat == "pyannote":
        return _pyannote_arrays(
            inputs, collar, skip_overlap, collar_convention, uem, truth_labels, prediction_labels
        )
    # merged truth turns only where the region needs them (per-side collars, overlap)
    needs_merged = skip_overlap or (collar > 0 and collar_convention == "per_side")
    truth_merged = _merge_labels(inputs.truth, n, n_labels) if needs_merged else None
    region = _scored_region(
        inputs, truth_merged, collar, skip_overlap, collar_convention=collar_convention, uem=uem
    )
    rows = truth_merged if truth_merged is not None else _positive(inputs.truth)
    prediction_rows = _positive(inputs.prediction)
    sizes = (n, len(truth_labels), len(prediction_labels))
    per_file, cooccurrence, pair, truth_time, prediction_time = _sweep_rows(
        sizes, _crop(n, n_labels, rows, region), _crop(n, n_labels, prediction_rows, region), overlap
    )
    mapping = None
    if collar > 0 and collar_convention == "per_side":  # md-eval maps before the collars
        scored = _scored_region(inputs, truth_merged, 0, False, uem=uem)
        mapping = _sweep_rows(
            sizes, _crop(n, n_labels, rows, scored), _crop(n, n_labels, prediction_rows, scored)
        )[1]
    return _Table(
        files=inputs.files,
        truth_labels=truth_labels,
        prediction_labels=prediction_labels,
        per_file=per_file,
        truth=truth_time,
        prediction=prediction_time,
        cooccurrence=cooccurrence,
        pair=pair,
        compat=compat,
        mapping=mapping,
    )


def _sweep_rows(sizes: tuple[int, int, int], truth, prediction, overlap: bool = True) -> tuple:
    """Per-file components, co-occurrence, pair columns and speaking times of cropped rows."""
    n, n_truth_labels, n_prediction_labels = sizes
    n_labels = max(n_truth_labels, n_prediction_labels, 1)
    result = mask_sweep(*sizes, truth, prediction, overlap)
    if result is None:  # a label overlapping itself: merge (union per label), sweep again
        truth = _merge_labels_arrays(n, n_labels, *truth)
        prediction = _merge_labels_arrays(n, n_labels, *prediction)
        result = mask_sweep(*sizes, truth, prediction, overlap)
    if result is not None:
        return result
    # more than 62 labels in a file: pairs of overlapping intervals
    per_file, cooccurrence, pair = _sweep_merged(n, n_labels, truth, prediction, overlap)
    return (
        per_file,
        cooccurrence,
        pair,
        _speaker_time(n, n_labels, truth),
        _speaker_time(n, n_labels, prediction),
    )


def _positive(side) -> tuple:
    """Rows of positive length of one side: file, label, start, end."""
    keep = side.end > side.start
    if keep.all():
        return side.file, side.label, side.start, side.end
    return side.file[keep], side.label[keep], side.start[keep], side.end[keep]


def _pyannote_arrays(
    inputs, collar, skip_overlap, collar_convention, uem, truth_labels, prediction_labels
) -> _Table:
    """``compat="pyannote"``: every row as it is (a label overlapping itself counts twice)."""
    n = inputs.n_files
    n_labels = max(len(truth_labels), len(prediction_labels), 1)
    truth_rows = _raw_labels(inputs.truth, n, n_labels)
    prediction_rows = _raw_labels(inputs.prediction, n, n_labels)
    truth_merged = _merge_labels(inputs.truth, n, n_labels)
    region = _scored_region(
        inputs,
        truth_merged,
        collar,
        skip_overlap,
        collar_convention=collar_convention,
        uem=uem,
        overlap_rows=truth_rows,  # pyannote.metrics: a label overlapping itself is overlap
    )
    truth = _crop(n, n_labels, truth_rows, region)
    prediction = _crop(n, n_labels, prediction_rows, region)
    per_file, cooccurrence, pair = _sweep_pieces(n, n_labels, truth, prediction)
    truth_time = _speaker_time(n, n_labels, truth)
    prediction_time = _speaker_time(n, n_labels, prediction)
    # label supports (merged), for purity and coverage
    prediction_merged = _merge_labels(inputs.prediction, n, n_labels)
    if len(truth_merged[0]) == len(truth_rows[0]) and len(prediction_merged[0]) == len(
        prediction_rows[0]
    ):  # no row merged into another: no label overlaps itself, supports are the rows
        support = {
            "truth": truth_time[2],
            "prediction": prediction_time[2],
            "cooccurrence": cooccurrence[3],
        }
    else:  # one more sweep, on the same region
        sizes = (n, len(truth_labels), len(prediction_labels))
        _, support_pairs, _, support_truth, support_prediction = _sweep_rows(
            sizes,
            _crop(n, n_labels, truth_merged, region),
            _crop(n, n_labels, prediction_merged, region),
            overlap=False,
        )
        support = {
            "truth": _aligned(truth_time, support_truth, n_labels),
            "prediction": _aligned(prediction_time, support_prediction, n_labels),
            "cooccurrence": _aligned(cooccurrence, support_pairs, n_labels),
        }
    return _Table(
        files=inputs.files,
        truth_labels=truth_labels,
        prediction_labels=prediction_labels,
        per_file=per_file,
        truth=truth_time,
        prediction=prediction_time,
        cooccurrence=cooccurrence,
        pair=pair,
        compat="pyannote",
        support=support,
    )


def _aligned(rows: tuple, other: tuple, n_labels: int) -> np.ndarray:
    """The last array of ``other`` on the keys of ``rows`` (the leading code arrays; 0 if absent)."""
    width = max(n_labels, 1)

    def key(codes):
        out = codes[0].astype(np.int64)
        for code in codes[1:]:
            out = out * width + code
        return out

    target, source = key(rows[:-1]), key(other[:-1])
    order = np.argsort(source, kind="stable")
    source = source[order]
    position = np.minimum(np.searchsorted(source, target), max(len(source) - 1, 0))
    out = np.zeros(len(target), dtype=np.int64)
    if len(source):
        found = source[position] == target
        out[found] = other[-1][order][position[found]]
    return out


# ---- _region.py, _segmentation.py, _detection.py ----


def _union(n_files: int, file, start, end):
    """Union of intervals per file (:func:`audeval._core.intervals.merge`, keys without per-file minima)."""
    zero = np.zeros(len(file), dtype=np.int64)
    file, _, start, end = _merge_labels_arrays(n_files, 1, file.astype(np.int64), zero, start, end)
    return file, start, end


def _overlap_regions(n_files: int, merged) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where two or more intervals of ``merged`` are active, per file."""
    file, _, start, end = merged
    if len(file) == 0:
        return _EMPTY, _EMPTY, _EMPTY
    start_key, end_key = group_keys(n_files, (file, start), (file, end))
    key = np.concatenate([start_key, end_key])
    delta = np.concatenate([np.ones(len(start), np.int64), -np.ones(len(end), np.int64)])
    time = np.concatenate([start, end])
    group = np.concatenate([file, file])
    # ends before starts at equal times: half-open intervals that touch do not overlap
    order = np.lexsort((delta, key))
    delta, time, group = delta[order], time[order], group[order]
    active = np.cumsum(delta)
    # the count drops to 0 at the last boundary of each file,
    # so a run with active >= 2 never crosses files
    run = np.flatnonzero(active[:-1] >= 2)
    return _union(n_files, group[run], time[run], time[run + 1])


def _boundary_pieces(n, file, time):
    """Consecutive distinct boundaries of each file as intervals."""
    (key,) = fast_keys(n, (file, time))
    order = np.argsort(key, kind="stable")
    key = key[order]
    first = order[np.r_[True, key[1:] != key[:-1]]] if len(key) else order
    file, time = file[first], time[first]
    same = file[1:] == file[:-1]
    return file[:-1][same], time[:-1][same], time[1:][same]


def _detection_table(
    inputs, collar: int, skip_overlap: bool, convention: str, uem, compat: str | None = None
) -> dict:
    n, n_labels = inputs.n_files, inputs.n_labels
    truth_merged = _merge_labels(inputs.truth, n, n_labels)
    overlap_rows = None
    if skip_overlap and compat == "pyannote":  # two rows, even of one label, are overlap
        overlap_rows = _raw_labels(inputs.truth, n, n_labels)
    region = _scored_region(
        inputs,
        truth_merged,
        collar,
        skip_overlap,
        collar_convention=convention,
        uem=uem,
        overlap_rows=overlap_rows,
    )
    activity = []
    for side in (inputs.truth, inputs.prediction):
        # pieces stay disjoint and sorted by (file, start)
        activity.append(region.crop(n, *merge(n, side.file, side.start, side.end)))
    truth, prediction = activity
    tp = total_length(n, intersect(n, truth, prediction))
    truth_len = total_length(n, truth)
    prediction_len = total_length(n, prediction)
    region_len = total_length(n, region.intervals)
    return {
        "true_positive": tp,
        "false_alarm": prediction_len - tp,
        "miss": truth_len - tp,
        "true_negative": region_len - truth_len - prediction_len + tp,
    }
