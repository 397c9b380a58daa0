r"""The diarization sweep on bit masks of the active labels, for every file at once.

Each label present in a file gets one bit on its side
(its label code where the codes of both sides fit in 62 bits, else its rank in the file).
The start and end of every interval become one event ``+2**b`` or ``-2**b``;
after one sort of the events by (file, time) a cumulative sum gives,
between two consecutive events, the mask :math:`m` of the labels active on both sides.
Grouping the elementary segments by (file, :math:`m`) and summing their lengths :math:`d`
gives a small table from which everything follows:
with :math:`n_t`, :math:`n_p` the bits set on each side,
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

from audeval._intervals import expand_ranges

from audeval._diarization._region import _EMPTY, fast_keys

_MAX_BITS = 62  # bits of both sides in one int64 mask
_DENSE = 1 << 22  # largest dense grid of (file, mask) bins
_EXACT = 2**53  # float64 sums of int64 ns are exact below this


def _popcount(values: np.ndarray) -> np.ndarray:
    """Number of set bits of non-negative int64 values."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(values).astype(np.int64)
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


class _Bits:
    """Bit position of every row's label on one side, and the way back to label codes."""

    def __init__(self, n_files: int, n_labels: int, file, label, local: bool):
        self.n_files = n_files
        if not local:
            self.bit, self.width, self._first, self._label = label, max(n_labels, 1), None, None
            return
        width = max(n_labels, 1)
        unique, inverse = np.unique(file * width + label, return_inverse=True)
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
        return self._label[self._first[file] + bit]


def _side_bits(n_files, n_truth_labels, n_prediction_labels, truth, prediction):
    """Bits of both sides: label codes if they fit a dense grid, else ranks within files."""
    fits = n_truth_labels + n_prediction_labels <= _MAX_BITS
    local = not fits or _dense_size(n_files << (n_truth_labels + n_prediction_labels)) is None
    t_bits = _Bits(n_files, n_truth_labels, truth[0], truth[1], local)
    p_bits = _Bits(n_files, n_prediction_labels, prediction[0], prediction[1], local)
    if t_bits.width + p_bits.width + int(n_files).bit_length() > _MAX_BITS:
        return None
    return t_bits, p_bits


def _masks(n_files: int, truth, prediction, t_bits: _Bits, p_bits: _Bits):
    """Segments grouped by (file, mask): file, mask, summed length (sorted by file, mask)."""
    t_file, _, t_start, t_end = truth
    p_file, _, p_start, p_end = prediction
    bits = t_bits.width + p_bits.width
    t_code, p_code = 2 * t_bits.bit, 2 * (p_bits.bit + t_bits.width)
    code = np.concatenate([t_code, t_code + 1, p_code, p_code + 1])  # 2 b: start, 2 b + 1: end
    file = np.concatenate([t_file, t_file, p_file, p_file])
    (key,) = fast_keys(n_files, (file, np.concatenate([t_start, t_end, p_start, p_end])))
    shift = int(2 * bits - 1).bit_length()
    if len(key) and int(key.min()) >= 0 and int(key.max()) < 2 ** (62 - shift):
        packed = np.sort((key << shift) | code, kind="stable")  # one sort, no gathers
        key, code = packed >> shift, packed & ((1 << shift) - 1)
    else:
        order = np.argsort(key, kind="stable")
        key, code = key[order], code[order]
    step = np.empty(2 * bits, dtype=np.int64)
    step[0::2] = np.left_shift(1, np.arange(bits, dtype=np.int64))
    step[1::2] = -step[0::2]
    mask = np.cumsum(step[code])[:-1]
    length = np.diff(key)
    counts = 2 * (np.bincount(t_file, minlength=n_files) + np.bincount(p_file, minlength=n_files))
    segment_file = np.repeat(np.arange(n_files, dtype=np.int64), counts)[:-1]
    keep = np.flatnonzero((mask != 0) & (length > 0))  # mask 0 between files
    group = (segment_file[keep] << bits) | mask[keep]
    size = _dense_size(n_files << bits)
    unique, (duration,) = _grouped_sums(group, [length[keep]], size)
    return unique >> bits, unique & ((1 << bits) - 1), duration


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


def _pairs(n_files, t_bits: _Bits, p_bits: _Bits, grouped, t_set, p_set, n_truth):
    """Co-occurrence and its part in truth overlap per (file, truth, prediction)."""
    file, _, duration = grouped
    (t_row, t_bit), (p_row, p_bit) = t_set, p_set
    offsets = np.searchsorted(p_row, np.arange(len(file) + 1))
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


def mask_sweep(n_files, n_truth_labels, n_prediction_labels, truth, prediction, overlap=True):
    """Per-file components, co-occurrence and speaking times of cropped labels.

    ``truth``, ``prediction``: (file, label, start, end) rows of positive length,
    any order. Returns ``(per_file, cooccurrence, pair, truth_time, prediction_time)``
    as :func:`audeval._diarization._statistics._sweep_merged` and ``_speaker_time`` give them,
    or ``None`` if a label overlaps itself or a file has more than 62 labels on both sides.
    """
    sides = _side_bits(n_files, n_truth_labels, n_prediction_labels, truth, prediction)
    if sides is None:
        return None
    t_bits, p_bits = sides
    grouped = _masks(n_files, truth, prediction, t_bits, p_bits)
    file, mask, duration = grouped
    t_mask, p_mask = mask & ((1 << t_bits.width) - 1), mask >> t_bits.width
    n_t, n_p = _popcount(t_mask), _popcount(p_mask)
    spoken_t, spoken_p = n_t * duration, n_p * duration
    if int(spoken_t.sum()) != int((truth[3] - truth[2]).sum()) or int(spoken_p.sum()) != int(
        (prediction[3] - prediction[2]).sum()
    ):
        return None  # a label active twice at once: merge first
    common = np.minimum(n_t, n_p) * duration
    in_overlap, silence = n_t >= 2, n_t == 0
    miss, false_alarm = spoken_t - common, spoken_p - common
    per_file = _file_sums(file, n_files, {
        "total": spoken_t,
        "miss": miss,
        "false_alarm": false_alarm,
        "total_overlap": np.where(in_overlap, spoken_t, 0),
        "miss_overlap": np.where(in_overlap, miss, 0),
        "false_alarm_overlap": np.where(in_overlap, false_alarm, 0),
        "false_alarm_silence": np.where(silence, false_alarm, 0),
    })
    t_set, p_set = _set_bits(t_mask), _set_bits(p_mask)
    cooccurrence, in_truth_overlap = _pairs(n_files, t_bits, p_bits, grouped, t_set, p_set, n_t)
    return (
        per_file,
        cooccurrence,
        {"duration_overlap": in_truth_overlap} if overlap else {},
        _label_time(n_files, t_bits, file, duration, *t_set),
        _label_time(n_files, p_bits, file, duration, *p_set),
    )
