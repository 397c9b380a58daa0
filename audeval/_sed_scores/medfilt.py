r"""Median filtering of score tables on their frame grid.

The filter of length :math:`L` (seconds) gives at time :math:`t` the weighted median
of a class's scores over the window :math:`[t - L/2, t + L/2]`,
each frame weighted by its overlap with the window,
the lower value where the window splits exactly in halves.
On frames of one length :math:`h` per file this median is constant
within each frame (the window's bar boundaries cross its centre only at frame
boundaries), so the filtered table keeps the input's frames.
With :math:`q = L / h \ge 1`, :math:`k = \lfloor (q - 1) / 2 \rfloor`
and :math:`r = (q - 1) / 2 - k`,
the window of frame :math:`i` holds frames :math:`i - k .. i + k` whole
and frames :math:`i \pm (k + 1)` with weight :math:`r`, so that
the value is the median of the :math:`2k + 1` frames (:math:`r < 1/2`),
of the :math:`2k + 3` frames (:math:`r > 1/2`),
or, for :math:`L` an even multiple of :math:`h` (:math:`r = 1/2`),
:math:`\min(\max(u_k, a, b), u_{k+1})` with :math:`u_j` the :math:`j`-th smallest
of the :math:`2k + 1` frames and :math:`a, b` the scores of frames :math:`i \pm (k + 1)`.
Each is a 1-D rank filter over all files of a class at once
(files laid end to end with :math:`k + 1` frames of padding each side),
the medians of 3 and 5 frames elementwise minima and maxima
(:math:`\text{med}_5 = \text{med}_3(c, \max(\min(a, b), \min(d, e)), \min(\max(a, b), \max(d, e)))`
for the window :math:`a, b, c, d, e`, the pairs' minima and maxima shared by neighbouring windows).
The result is in Fortran order: each class's scores contiguous, as the engines read them.
Beyond a file's ends the signal continues with its first and last score
(``compat="sed_scores_eval"``: with :math:`-\infty`, as sed_scores_eval's ``medfilt``,
with its tolerance of :math:`10^{-7}` s in the half-window comparison).

Under ``compat="sed_scores_eval"`` an even multiple :math:`L = 2mh` follows that toolkit's
sweep instead: at each frame boundary its window holds :math:`2m` whole frames and splits exactly
between their :math:`m`-th and :math:`(m+1)`-th smallest, :math:`a_j \le b_j`; its median
stays where it was if that lies in :math:`[a_j, b_j]`, else moves to the nearer end, and a frame
gets the value at its end: :math:`s_j = \min(\max(s_{j-1}, a_j), b_j)` from
:math:`s = -\infty` before the file, frame :math:`i` the state :math:`s_{i+1}`
(deterministic, but not the median of the frame's window). A chain of such clamps is a clamp,
so the recurrence is a prefix scan by doubling over all files at once (:func:`_held`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core.options import check_duration
from audeval._sed_scores.medfilt_floor import Below, block_sums, highest, levels, peaks, pruned_rank
from audeval._sed_scores.inputs import (
    _check_consecutive,
    _file_codes,
    _frame_times,
    _not_consecutive,
    _sort_order,
)

CHUNK = 1 << 21
"""About how many padded values (16 MiB) :class:`_Layout` filters at once (below glibc's
largest threshold for fresh mappings, so that the blocks' buffers are reused)."""

EPS_NS = 100
"""sed_scores_eval's tolerance of its median comparisons (1e-7 s) in ns."""


def check_lengths(length, classes: list, name: str = "length") -> np.ndarray:
    """Filter length per class in ns: one length, or a mapping class -> length naming every class."""
    if isinstance(length, Mapping):
        missing = [c for c in classes if c not in length]
        unknown = [c for c in length if c not in classes]
        if missing or unknown:
            raise ValueError(
                f"{name} must name every class of the scores: missing {missing}, unknown {unknown}."
            )
        return np.array(
            [check_duration(length[c], f"{name}[{c!r}]", allow_none=False) for c in classes], dtype=np.int64
        )
    return np.full(len(classes), check_duration(length, name, allow_none=False), dtype=np.int64)


def frame_hops(frame_file: np.ndarray, frame_start: np.ndarray, frame_end: np.ndarray, files, show) -> np.ndarray:
    """The frame length of each frame's file; raises naming the files whose frames differ in length."""
    hop = frame_end - frame_start
    first = np.ones(len(hop), dtype=bool)
    first[1:] = frame_file[1:] != frame_file[:-1]
    run = np.cumsum(first) - 1
    file_hop = hop[first][run]
    bad = hop != file_hop
    if bad.any():
        names = list(pd.unique(np.asarray(files)[frame_file[bad]]))[:5]
        raise ValueError(
            "the median filter needs frames of one length per file (its frame grid); "
            f"frames of different lengths in the files {names}: {show(bad)}"
        )
    return file_hop


def filter_frames(
    scores: np.ndarray,
    frame_file: np.ndarray,
    hop: np.ndarray,
    lengths: np.ndarray,
    *,
    compat: str | None,
) -> np.ndarray:
    """``(frames, classes)`` scores median filtered per class (frames sorted by file and start).

    ``hop``: each frame's file's frame length (ns); ``lengths``: per class (ns).
    The result is in Fortran order (each class's scores contiguous, as the engines read them);
    where no length changes anything it is ``scores`` itself (in that order), not to be written to.
    """
    return filter_variants(scores, frame_file, hop, [lengths], compat=compat)[0]


def iter_variants(
    scores: np.ndarray,
    frame_file: np.ndarray,
    hop: np.ndarray,
    variants: list[np.ndarray],
    *,
    compat: str | None,
    below: Below | None = None,
):
    """The results of :func:`filter_variants` one at a time, each with the levels per class
    below which it is not exact (``None``: exact everywhere); with one frame length for all files
    and one filter length for all classes of a variant, each is written into the same array,
    valid until the next one is asked for (fresh large arrays cost the kernel's zeroing of their pages).

    ``below`` (a PSD-ROC's budget, :mod:`audeval._sed_scores.medfilt_floor`): where a filter is a
    rank filter, its scores are exact only at and above a level per class that puts every
    threshold below it off the curve; others are the largest float below that level.
    Exact scores come with such a level too (:func:`~audeval._sed_scores.medfilt_floor.highest`)
    where there is one: the engine needs no change point below it."""
    scores = np.asfortranarray(scores, dtype=np.float64)
    hops = np.unique(hop)
    def exact(values):
        return values, (highest(values, frame_file, below) if below is not None else None)

    if len(scores) == 0 or len(hops) != 1 or any(len(np.unique(lengths)) > 1 for lengths in variants):
        yield from (exact(v) for v in filter_variants(scores, frame_file, hop, variants, compat=compat))
        return
    h = int(hops[0])
    tol = 2 * EPS_NS if compat == "sed_scores_eval" else 0
    rules = {
        int(length): _rule(int(length), h, tol, compat)
        for lengths in variants for length in np.unique(lengths) if length >= h
    }
    if not rules:
        yield from [exact(scores)] * len(variants)
        return
    layout = _Layout(scores, frame_file, max(k for k, _, _ in rules.values()) + 1, edge=compat != "sed_scores_eval")
    out = None
    for lengths in variants:
        if len(lengths) == 0 or lengths[0] < h:
            yield exact(scores)
            continue
        if out is None:
            out = np.empty((scores.shape[1], len(scores)))  # (classes, frames): its transpose in Fortran order
        rule = rules[int(lengths[0])]
        level = layout.pruned(*rule, below, out) if below is not None else None
        if level is None:
            layout.filter(np.arange(len(lengths)), *rule, out=out)
            yield exact(out.T)
        else:
            yield out.T, level


def filter_variants(
    scores: np.ndarray,
    frame_file: np.ndarray,
    hop: np.ndarray,
    variants: list[np.ndarray],
    *,
    compat: str | None,
) -> list[np.ndarray]:
    """:func:`filter_frames` for several length vectors: one padded layout per frame length
    for all of them, one rank filter per (variant, filter length, rule)."""
    scores = np.asfortranarray(scores, dtype=np.float64)
    outs = [scores] * len(variants)
    if len(scores) == 0:
        return outs
    tol = 2 * EPS_NS if compat == "sed_scores_eval" else 0
    for h in np.unique(hop):
        rules = {
            int(length): _rule(int(length), int(h), tol, compat)
            for lengths in variants for length in np.unique(lengths) if length >= h
        }
        if not rules:  # windows never hold more than two frames' halves: no change
            continue
        every = bool((hop == h).all())
        rows = slice(None) if every else np.flatnonzero(hop == h)
        layout = _Layout(scores[rows], frame_file[rows], max(k for k, _, _ in rules.values()) + 1,
                         edge=compat != "sed_scores_eval")
        for i, lengths in enumerate(variants):
            used = [length for length in np.unique(lengths) if length >= h]
            if not used:
                continue
            if len(used) == 1 and (lengths == used[0]).all():  # one length for all classes
                block = layout.filter(np.arange(len(lengths)), *rules[int(used[0])])
            else:
                block = np.array(scores[rows], copy=True, order="F")
                for length in used:
                    columns = np.flatnonzero(lengths == length)
                    block[:, columns] = layout.filter(columns, *rules[int(length)])
            if every:
                outs[i] = block
            else:
                if outs[i] is scores:
                    outs[i] = scores.copy(order="F")
                outs[i][rows] = block
    return outs


def _rule(length: int, h: int, tol: int, compat: str | None) -> tuple[int, bool, bool]:
    """``k`` and whether the outer frames can count (r >= 1/2) and the inner median stand (r <= 1/2)."""
    k = (length - h) // (2 * h)
    lower = length >= (2 * k + 2) * h - tol
    upper = length <= (2 * k + 2) * h + tol
    return k, lower, upper


class _Layout:
    """Frames (sorted by file) of every class end to end, ``pad`` frames of padding around each file:
    the file's edge scores (``edge``) or -inf."""

    def __init__(self, values: np.ndarray, frame_file: np.ndarray, pad: int, *, edge: bool):
        n, n_columns = values.shape
        first = np.ones(n, dtype=bool)
        first[1:] = frame_file[1:] != frame_file[:-1]
        run = np.cumsum(first) - 1  # the file's position among the block's files
        n_runs = int(run[-1]) + 1
        self.pad, self.width, self.edge = pad, n + 2 * pad * n_runs, edge
        self._scratch: dict[str, np.ndarray] = {}
        self.values = values
        self._sums: np.ndarray | None = None  # (for the pruned rules)
        self.position = np.arange(n) + pad * (2 * run + 1)
        self.keep = np.zeros(self.width, dtype=bool)  # the frames among the padding
        self.keep[self.position] = True
        starts = np.flatnonzero(first)
        ends = np.append(starts[1:], n) - 1
        self.starts, self.ends, self.run_file = starts, ends, frame_file[starts]
        left = (self.position[starts][:, None] - np.arange(pad, 0, -1)[None, :]).ravel()
        right = (self.position[ends][:, None] + np.arange(1, pad + 1)[None, :]).ravel()
        self.padded = np.empty((n_columns, self.width))
        self.padded[:, self.position] = values.T
        if edge:
            self.padded[:, left] = values[np.repeat(starts, pad)].T
            self.padded[:, right] = values[np.repeat(ends, pad)].T
        else:
            self.padded[:, left] = -np.inf
            self.padded[:, right] = -np.inf

    def filter(self, columns: np.ndarray, k: int, lower: bool, upper: bool, out=None) -> np.ndarray:
        """The rule of the module docstring for ``columns``: ``(frames, len(columns))``
        (Fortran order), classes end to end (each row of ``padded`` starts and ends with padding),
        in blocks of about ``CHUNK`` values to bound the memory; ``out``: ``(len(columns), frames)``
        to write into."""
        n = len(self.position)
        out = np.empty((len(columns), n)) if out is None else out
        per = max(1, CHUNK // self.width)
        for first in range(0, len(columns), per):
            rows = columns[first : first + per]
            if (np.diff(rows) == 1).all():
                block = self.padded[rows[0] : rows[-1] + 1]  # a view
            else:
                block = self.padded[rows]
            keep = np.tile(self.keep, len(rows)) if self.stale_rule(lower, upper) else None
            filtered = self._rule(block.reshape(-1), k, lower, upper, keep).reshape(len(rows), self.width)
            for i, row in enumerate(filtered):  # (a gather per class: faster than one over all)
                np.take(row, self.position, out=out[first + i], mode="clip")  # (unbuffered)
        return out.T

    def pruned(self, k: int, lower: bool, upper: bool, below: Below, out: np.ndarray) -> np.ndarray | None:
        """The rule for every class into ``out`` (``(classes, frames)``), exact only at and above
        each class's level (:mod:`audeval._sed_scores.medfilt_floor`), which is returned;
        ``None`` (``out`` not valid) unless the rule is a rank filter of more than 5 frames,
        every class has a level and enough files without its truth reach it."""
        if lower == upper or (2 * k + 3 if lower else 2 * k + 1) <= 5:
            return None
        rank, size = (k + 1, 2 * k + 3) if lower else (k, 2 * k + 1)
        sums = self._sums = block_sums(self.values) if self._sums is None else self._sums
        centre = peaks(sums, self.starts, self.ends, size)
        level = levels(self.padded, self.position, centre, self.run_file, rank, size, below)
        if level is None:
            return None
        n_columns = len(self.padded)
        reached = np.zeros(n_columns, dtype=np.int64)
        per = max(1, CHUNK // self.width)
        ends = np.stack([self.position[self.starts], self.position[self.ends] + 1])  # each file's columns
        frame_of = np.full(self.width, -1, dtype=np.int64)  # the frame of each padded column
        frame_of[self.position] = np.arange(len(self.position))
        out[:] = np.nextafter(level, -np.inf)[:, None]  # the largest float below the level
        for first in range(0, n_columns, per):
            rows = np.arange(first, min(first + per, n_columns))
            block = self.padded[rows[0] : rows[-1] + 1].reshape(-1)
            at, value, count = pruned_rank(block, level[rows], rank, size)
            bounds = ends[:, None, :] + (np.arange(len(rows)) * self.width)[None, :, None]
            hit = count[bounds[1]] > count[bounds[0]]  # (rows, files): the file reaches the level
            reached[rows] = (hit & below.outside[rows][:, self.run_file]).sum(axis=1)
            row = at // self.width
            frame = frame_of[at - row * self.width]
            frame_rows = frame >= 0  # (not the padding)
            out[first + row[frame_rows], frame[frame_rows]] = value[frame_rows]
        return level if (reached >= below.needed).all() else None

    def scratch(self, name: str, size: int) -> np.ndarray:
        """A buffer of ``size`` float64 kept between blocks and lengths (fresh large arrays
        cost the kernel's zeroing of their pages, as much as a rank filter's work)."""
        buffer = self._scratch.get(name)
        if buffer is None or len(buffer) < size:
            buffer = self._scratch[name] = np.empty(size)
        return buffer[:size]

    def stale_rule(self, lower: bool, upper: bool) -> bool:
        return lower and upper and not self.edge

    def _rule(self, flat: np.ndarray, k: int, lower: bool, upper: bool, keep) -> np.ndarray:
        if not lower:
            return _rank(flat, k, 2 * k + 1, self.scratch)
        if not upper:
            return _rank(flat, k + 1, 2 * k + 3, self.scratch)
        if not self.edge:  # sed_scores_eval: its state at the ties of even windows
            return _held(flat, k + 1, keep)
        middle = _rank(flat, k, 2 * k + 1)
        below = _rank(flat, k - 1, 2 * k + 1) if k >= 1 else np.full_like(flat, -np.inf)
        shift = k + 1
        outer = np.full_like(flat, -np.inf)
        outer[shift:-shift] = np.maximum(flat[: -2 * shift], flat[2 * shift :])
        return np.minimum(np.maximum(below, outer), middle)


def _held(flat: np.ndarray, m: int, keep: np.ndarray) -> np.ndarray:
    r"""sed_scores_eval's filter of length :math:`2m` frames: :math:`s_i = \min(\max(s_{i-1}, a_i), b_i)`
    with :math:`a_i \le b_i` the :math:`m`-th and :math:`(m+1)`-th smallest of frames
    :math:`i - m + 1 .. i + m`, and :math:`s` before a file's first frame the :math:`m`-th smallest
    of its frames :math:`-m .. m - 1`; ``flat`` holds ``m`` frames of -inf around each file.

    A chain of clamps is a clamp (:math:`[a, b]` after :math:`[a', b']`: the bounds
    :math:`\min(\max(a', a), b)` and :math:`\min(\max(b', a), b)`), so the recurrence is
    a prefix scan by doubling (:math:`\lceil \log_2 \rceil` of the longest file steps),
    the padding positions constant clamps that restart it at every file.
    """
    if m == 1:  # the 2 frames i, i + 1
        low = np.minimum(flat[:-1], flat[1:])
        high = np.maximum(flat[:-1], flat[1:])
    else:
        from scipy import ndimage

        # ndimage's even windows hold i - m .. i + m - 1: shifted by one
        low = ndimage.rank_filter(flat, m - 1, size=2 * m, mode="nearest")[1:]
        high = ndimage.rank_filter(flat, m, size=2 * m, mode="nearest")[1:]
    low = np.append(low, flat[-1])
    high = np.append(high, flat[-1])
    high[~keep] = low[~keep]
    step = 1
    while step < len(flat):
        open_ = low[step:] != high[step:]
        if not open_.any():
            break
        before_low, before_high = low[:-step], high[:-step]
        low[step:], high[step:] = (
            np.minimum(np.maximum(before_low, low[step:]), high[step:]),
            np.minimum(np.maximum(before_high, low[step:]), high[step:]),
        )
        step *= 2
    return low


def _fresh(name: str, size: int) -> np.ndarray:
    return np.empty(size)


def _rank(flat: np.ndarray, rank: int, size: int, scratch=_fresh) -> np.ndarray:
    """The ``rank``-th smallest of the ``size`` values centred on each element (``size`` odd);
    the first and last ``size // 2`` elements (padding) are not used by the caller.
    ``scratch(name, n)``: an array of ``n`` float64 to write into (the result is ``"out"``).

    The medians of 3 and of 5 come from elementwise minima and maxima
    (for 5: the median of the centre and of the larger of the pairs' minima and the smaller
    of their maxima, the pairs' minima and maxima shared by neighbouring windows),
    other ranks from a rank filter.
    """
    half = size // 2
    if size == 1:
        return flat
    m = len(flat)
    if 2 * rank + 1 == size and size in (3, 5) and m > size:
        out = scratch("out", m)
        out[:half] = flat[:half]
        out[m - half :] = flat[m - half :]
        middle = out[half : m - half]
        low = np.minimum(flat[:-1], flat[1:], out=scratch("low", m - 1))  # pairs (i, i + 1)
        high = np.maximum(flat[:-1], flat[1:], out=scratch("high", m - 1))
        if size == 3:  # median(a, b, c) = max(min(a, b), min(max(a, b), c))
            np.minimum(high[:-1], flat[2:], out=middle)
            np.maximum(low[:-1], middle, out=middle)
            return out
        # pairs (i - 2, i - 1) and (i + 1, i + 2) around the centre i: a, b, then median(a, b, centre)
        a = np.maximum(low[:-3], low[3:], out=middle)
        b = np.minimum(high[:-3], high[3:], out=low[:-3])
        smaller = np.minimum(a, b, out=high[:-3])
        np.maximum(a, b, out=middle)
        np.minimum(middle, flat[2:-2], out=middle)
        np.maximum(smaller, middle, out=middle)
        return out
    from scipy import ndimage  # (a heavy import: only when a score table is filtered)

    return ndimage.rank_filter(flat, rank, size=size, mode="nearest", output=scratch("out", m))


def median_filter(
    scores: pd.DataFrame,
    length: float | pd.Timedelta | Mapping[object, float | pd.Timedelta],
    *,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""Median filter of a score table, per class, on its frame grid.

    At time :math:`t` the filtered score of a class is the median of its scores over
    :math:`[t - L/2, t + L/2]`, each frame weighted by its overlap with the window
    (at an exact split in halves the lower value):

    .. math::

        \tilde s(t) = \min \{ v : |\{x \in [t - L/2, t + L/2] : s(x) \le v\}| \ge L/2 \}

    On frames of one length :math:`h` per file it is constant within each frame,
    so the result keeps the input's frames: for :math:`L` an odd multiple of :math:`h`
    the median of the :math:`L/h` frames centred on each frame,
    for other lengths the median of the :math:`2k + 1` or :math:`2k + 3` centred frames
    (:math:`k = \lfloor (L/h - 1)/2 \rfloor`, whichever the window covers more than half of),
    for even multiples the lower median of a window whose two outer frames count half;
    :math:`L < h` leaves the scores as they are.
    Beyond a file's ends the scores continue with its first and last frame's.
    All files of a class are filtered at once (1-D rank filters).

    Args:
        scores: score table (segmented index of consecutive frames of one length per file,
            one column per class)
        length: filter length in seconds (or a timedelta), or a mapping class -> length
            naming every column; 0: no filtering
        compat: ``"sed_scores_eval"``: as sed_scores_eval 0.0.4's ``postprocessing.medfilt``
            (:math:`-\infty` beyond the file's ends, its tolerance of :math:`10^{-7}` s;
            that toolkit returns only the frames where a score changes, the same scores);
            for :math:`L = 2mh`, an even multiple of the frame length, that toolkit keeps
            its previous value where the window splits exactly in halves, a departure from the
            median reproduced here: :math:`s_j = \min(\max(s_{j-1}, a_j), b_j)` from
            :math:`s = -\infty`, with :math:`a_j \le b_j` the :math:`m`-th and :math:`(m+1)`-th
            smallest of frames :math:`j - m .. j + m - 1`, frame :math:`j - 1` getting :math:`s_j`

    Returns:
        the filtered scores, same index and columns (float64)

    Raises:
        TypeError, ValueError: on invalid scores or length, or frames of different lengths in a file

    Examples:
        >>> import audformat
        >>> index = audformat.segmented_index(["f"] * 5, [0, 1, 2, 3, 4], [1, 2, 3, 4, 5])
        >>> scores = pd.DataFrame({"a": [0.1, 0.9, 0.2, 0.8, 0.7]}, index=index)
        >>> median_filter(scores, 3.0)["a"].tolist()
        [0.1, 0.2, 0.8, 0.7, 0.7]
        >>> median_filter(scores, 3.0, compat="sed_scores_eval")["a"].tolist()
        [0.1, 0.2, 0.8, 0.7, 0.7]
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.2, 0.8, 0.4, 0.6]}, index=index)
        >>> median_filter(scores, 2.0)["a"].tolist()
        [0.2, 0.4, 0.4, 0.6]
        >>> median_filter(scores, 2.0, compat="sed_scores_eval")["a"].tolist()
        [0.2, 0.4, 0.4, 0.4]

    """
    if compat not in (None, "sed_scores_eval"):
        raise ValueError(f"compat must be None or 'sed_scores_eval'; got {compat!r}.")
    start, end = _frame_times(scores, "scores")
    files, codes = _file_codes(scores.index)
    order = _sort_order(codes, start)
    if order is None:
        order = np.arange(len(codes))
    codes, start, end = codes[order], start[order], end[order]
    frame = scores.iloc[order]
    if _not_consecutive(codes, start, end) is not None:
        _check_consecutive(frame, codes, start, end, "scores")
    classes = list(scores.columns)
    values = np.asarray(frame.to_numpy(dtype=np.float64, na_value=np.nan))
    if np.isnan(values).any():
        bad = np.isnan(values).any(axis=1)
        raise ValueError(f"scores holds NaN: {frame[bad].head(5)}")
    lengths = check_lengths(length, classes)

    def show(bad):
        return frame[bad].head(5)

    hop = frame_hops(codes, start, end, files, show)
    filtered = filter_frames(values, codes, hop, lengths, compat=compat)
    out = np.empty_like(filtered)
    out[order] = filtered
    return pd.DataFrame(out, index=scores.index, columns=scores.columns)
