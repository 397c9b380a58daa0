"""The thresholds a PSD-ROC can use: a floor per label below which eFPR exceeds ``max_efpr``.

The PSD-ROC keeps only thresholds with
:math:`\\text{eFPR} \\ge 3600\\, \\text{fp} / T \\le e_{max}`
(cross triggers only add to it).
A detection can be relevant (DTC with :math:`\\rho_{dtc} > 0`) only if it overlaps
truth of its class, so it holds a frame that such truth overlaps ("touched").
Distinct detections are disjoint, so at threshold :math:`\\theta` the relevant ones
are at most the runs :math:`R(\\theta)` of frames with score :math:`\\ge \\theta`
*within* the touched frames, and

.. math::

    \\text{fp}(\\theta) \\ge D(\\theta) - R(\\theta),

:math:`D(\\theta)` all runs with score :math:`\\ge \\theta`.
A frame :math:`k` (after the first of its file) changes :math:`D - R` by
+1 at :math:`s_k` and -1 at :math:`s_{k-1}` if it is untouched and :math:`s_{k-1} < s_k`,
by -1 at :math:`\\min(s_{k-1}, s_k)` if it is touched and frame :math:`k-1` is not;
an untouched first frame by +1 at :math:`s_k`.
These changes are counted in bins of the levels per label (no sort):
within bin :math:`b` the bound is at least the sum of the bins above
plus the negative changes of :math:`b`.
The floor of a label is the lowest edge of a bin where that bound stays within
the budget; below it no threshold can reach the curve,
and every count at or above it is unchanged when the change points below
are left out (counts accumulate from the highest threshold down).
The work is a few passes over the score cells, label block by label block.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from audeval._core.intervals import group_keys
from audeval._sed_scores.deltas import file_starts, label_blocks, run_changes

NS = 1e9
SECONDS_PER_HOUR = 3600.0
BITS = 16  # 2**16 bins per label
SIGN = np.int64(0x7FFFFFFFFFFFFFFF)


def ordered(level: np.ndarray) -> np.ndarray:
    """int64 keys in the order of the float64 levels (``-0.0`` as ``0.0``)."""
    bits = (level + 0.0).view(np.int64)
    return np.where(bits < 0, bits ^ SIGN, bits)


def from_ordered(key: np.ndarray) -> np.ndarray:
    """The float64 of an :func:`ordered` key."""
    key = np.asarray(key, dtype=np.int64)
    return np.where(key < 0, key ^ SIGN, key).view(np.float64)


def touched_ranges(
    frame_file: np.ndarray,
    frame_start: np.ndarray,
    frame_end: np.ndarray,
    n_files: int,
    truth_file: np.ndarray,
    truth_start: np.ndarray,
    truth_end: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per truth event, the rows ``[first, stop)`` of the frames it overlaps with positive length.

    Frames are sorted by ``(file, start)``; ``stop <= first``: none.
    """
    n = len(frame_file)
    if len(truth_file) == 0 or n == 0:
        empty = np.zeros(len(truth_file), dtype=np.int64)
        return empty, empty
    end_key, start_key, t_start, t_end = group_keys(
        n_files, (frame_file, frame_end), (frame_file, frame_start),
        (truth_file, truth_start), (truth_file, truth_end),
    )
    counts = np.bincount(frame_file, minlength=n_files)
    row0 = np.cumsum(counts) - counts
    low, high = row0[truth_file], (row0 + counts)[truth_file]
    first = np.clip(np.searchsorted(end_key, t_start, side="right"), low, high)
    stop = np.clip(np.searchsorted(start_key, t_end, side="left"), low, high)
    return first, stop


@dataclasses.dataclass(frozen=True)
class Cuts:
    """Per label, the levels a PSD-ROC cut at ``max_efpr`` can use.

    Levels ``>= high`` and levels ``< low`` may be on the curve (``-inf``: all, none);
    the levels between, ``[low, high)``, have eFPR beyond ``max_efpr``:
    their changes may be summed into one row at ``level``, the lowest of them
    (``nan`` where there is no level below the band).
    """

    high: np.ndarray
    low: np.ndarray
    level: np.ndarray

    @property
    def bottom(self) -> np.ndarray:
        """Labels with levels below the band."""
        return self.low > -np.inf


def fp_floor(
    scores: np.ndarray,
    frame_file: np.ndarray,
    truth_label: np.ndarray,
    truth_first: np.ndarray,
    truth_stop: np.ndarray,
    present: np.ndarray,
    seconds: float,
    max_efpr: float,
    *,
    overlap_needed: bool = True,
    cells: int = 2**22,
    found: dict | None = None,
    pruned: np.ndarray | None = None,
) -> Cuts:
    """Per label, the thresholds whose eFPR can be within ``max_efpr`` (:class:`Cuts`).

    Args:
        scores: ``(frames, labels)``, frames sorted by ``(file, start)``
        frame_file: file of every frame
        truth_label: label of every truth event
        truth_first: first row each truth event overlaps (:func:`touched_ranges`)
        truth_stop: one past its last row
        present: ``(labels, files)``, whether the file has truth of the label
        seconds: summed file durations :math:`T`
        max_efpr: largest eFPR per hour
        overlap_needed: whether a relevant detection must overlap truth
            (else every detection may be relevant: no floor)
        cells: score cells per block of labels
        found: filled, for the blocks of labels whose floor comes from the groups
            without truth alone, with the detection counts' change points at or above
            the floor (``(c0, c1)`` -> group, level, change, as
            :func:`audeval._sed_scores.deltas.block_run_changes` keeps them),
            so that they are found once
        pruned: per label, a level below which no threshold is on the curve
            (:mod:`audeval._sed_scores.medfilt_floor`; the scores below it are not exact):
            the floor is at least that level; every label must have groups without truth

    """
    n, n_labels = scores.shape
    high, low, level = np.full(n_labels, -np.inf), np.full(n_labels, -np.inf), np.full(n_labels, np.nan)
    budget = fp_budget(max_efpr, seconds, overlap_needed, n)
    if budget is None:
        return Cuts(high, low, level)
    starts = file_starts(frame_file)
    first = np.zeros(n, dtype=bool)
    first[starts] = True
    values = scores.T
    has = truth_stop > truth_first
    for c0, c1 in label_blocks(n, n_labels, cells):
        if (~present[c0:c1]).any():  # the groups without truth alone may do (as in many clips)
            at_least = None if pruned is None else pruned[c0:c1]
            floor, rows = _outside_floor(scores[:, c0:c1], frame_file, ~present[c0:c1], budget, at_least, starts)
            if (floor > -np.inf).all():
                high[c0:c1] = floor
                if found is not None:  # the rows in the band [-inf, floor) are left out
                    group, level, change = rows
                    n_files = present.shape[1]
                    keep = level >= floor[group // n_files]
                    found[(c0, c1)] = group[keep] + c0 * n_files, level[keep], change[keep]
                continue
        mine = has & (truth_label >= c0) & (truth_label < c1)
        outside = ~present[c0:c1][:, frame_file]  # groups without truth of the label
        high[c0:c1], low[c0:c1], level[c0:c1] = _block_cuts(
            values[c0:c1], first, outside, truth_label[mine] - c0, truth_first[mine], truth_stop[mine], budget
        )
    return Cuts(high, low, level)


def fp_budget(max_efpr: float, seconds: float, overlap_needed: bool, n_frames: int) -> float | None:
    """The false positives beyond which a threshold is off the curve (``None``: no floor)."""
    if not (np.isfinite(max_efpr) and seconds > 0) or not overlap_needed or n_frames == 0:
        return None
    return max_efpr * (1 + 1e-6) * seconds / SECONDS_PER_HOUR  # conservative, as rounding


def _outside_floor(
    scores: np.ndarray, frame_file: np.ndarray, outside: np.ndarray, budget: float, at_least=None, starts=None
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per label of a block, the floor from the detections of the groups without truth alone
    (``outside``: labels x files), all false positives: their number :math:`D(\\theta)`
    from its change points (:func:`audeval._sed_scores.deltas.run_changes`), binned;
    within bin :math:`b` it is at least the sum of the bins above plus the negative changes of :math:`b`.
    The floor is the lowest edge of a bin where that bound is within the budget (``-inf``: none).
    ``at_least`` (per label): no threshold below it is on the curve (the scores below it
    are not exact): the floor is at least that, from the change points at or above it.
    Returns the floor and the change points (group of the block, level, change)."""
    n_labels, n_files = outside.shape
    floor = np.full(n_labels, -np.inf) if at_least is None else np.array(at_least, dtype=np.float64)
    rows = group, level, change = run_changes(scores, frame_file, n_files, starts, at_least)
    if not outside.ravel()[group].any():
        return floor, rows
    # the other groups' rows go to an extra label (no selection of the rows)
    label_of = np.where(outside.ravel(), np.arange(outside.size) // n_files, n_labels)
    key = ordered(level)
    low, high = int(key.min()), int(key.max())
    shift = max(0, (high - low).bit_length() - BITS)
    n_bins = ((high - low) >> shift) + 1
    offset = np.uint64(low % 2**64)  # differences as uint64: exact for spans up to 2**64
    cell = ((key.view(np.uint64) - offset) >> np.uint64(shift)).astype(np.int64)
    cell += label_of[group] * n_bins
    size = (n_labels + 1) * n_bins
    weights = change.astype(np.float64)
    total = np.bincount(cell, weights=weights, minlength=size).reshape(-1, n_bins)[:n_labels]
    np.minimum(weights, 0.0, out=weights)
    negative = np.bincount(cell, weights=weights, minlength=size).reshape(-1, n_bins)[:n_labels]
    above = np.cumsum(total[:, ::-1], axis=1)[:, ::-1] - total  # the bins above each bin
    allowed = above + negative <= budget  # the top bin always is (nothing above it)
    lowest = np.argmax(allowed, axis=1)
    found = from_ordered(low + (lowest.astype(np.int64) << shift))
    found[total.sum(axis=1) <= budget] = -np.inf  # below every level: all changes counted
    return np.maximum(floor, found), rows


def _block_cuts(values, first, outside, label, start, stop, budget) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`fp_floor` of a block of labels (``values``: labels x frames)."""
    n_labels, n = values.shape
    mark = np.zeros((n_labels, n + 1), dtype=np.int32)
    np.add.at(mark, (label, start), 1)
    np.add.at(mark, (label, stop), -1)
    np.cumsum(mark, axis=1, out=mark)
    touched = mark[:, :n] > 0
    del mark
    # bins of the levels per label (ordered keys, shifted to 2**BITS bins)
    key = ordered(values)
    low, high = key.min(axis=1), key.max(axis=1)
    span = high.view(np.uint64) - low.view(np.uint64)  # exact for spans up to 2**64
    shift = np.array([max(0, int(s).bit_length() - BITS) for s in span], dtype=np.uint64)
    n_bins = int(max(((span >> shift) + 1).max(), 1))
    cell = (key.view(np.uint64) - low.view(np.uint64)[:, None]) >> shift[:, None]
    del key
    cell = cell.view(np.int64)
    cell += (np.arange(n_labels, dtype=np.int64) * n_bins)[:, None]
    rise = np.zeros((n_labels, n), dtype=bool)
    np.greater(values[:, 1:], values[:, :-1], out=rise[:, 1:])
    rise[:, first] = False
    size = n_labels * n_bins
    plus = ~touched & (rise | first)  # untouched rises (+1 at the top) and first frames
    total = np.bincount(cell[plus], minlength=size)
    plus &= outside
    total_out = np.bincount(cell[plus], minlength=size)
    untouched_rise = ~touched[:, 1:] & rise[:, 1:]
    del plus, rise
    minus = np.bincount(cell[:, :-1][untouched_rise], minlength=size)  # their bottoms
    untouched_rise &= outside[:, 1:]
    minus_out = np.bincount(cell[:, :-1][untouched_rise], minlength=size)
    del untouched_rise
    entry = touched[:, 1:] & ~touched[:, :-1] & ~first[1:]  # the first touched frame of a stretch
    low_cell = np.minimum(cell[:, :-1][entry], cell[:, 1:][entry])
    minus += np.bincount(low_cell, minlength=size)
    del entry, low_cell, cell, touched
    total = (total - minus).reshape(n_labels, n_bins)
    minus = minus.reshape(n_labels, n_bins)
    above = np.cumsum(total[:, ::-1], axis=1)[:, ::-1] - total  # the bins above each bin
    bound = above - minus
    # the groups without truth alone: D, never below 0 (D - R sums can be, over groups)
    total_out = (total_out - minus_out).reshape(n_labels, n_bins)
    minus_out = minus_out.reshape(n_labels, n_bins)
    np.maximum(bound, np.cumsum(total_out[:, ::-1], axis=1)[:, ::-1] - total_out - minus_out, out=bound)
    allowed = bound <= budget  # the top bin always is (nothing above it)
    # the band: the longest stretch of not-allowed bins, [bottom, top)
    bottom, top = _longest_false(allowed)
    shift = shift.astype(np.int64)
    high = np.where(top > 0, from_ordered(low + (top.astype(np.int64) << shift)), -np.inf)
    cut = np.where(bottom > 0, from_ordered(low + (bottom.astype(np.int64) << shift)), -np.inf)
    cut[top == 0] = -np.inf
    level = np.full(n_labels, np.nan)
    has = cut > -np.inf
    if has.any():
        inside = np.where(values[has] >= cut[has, None], values[has], np.inf).min(axis=1)
        empty = inside >= high[has]  # no level in the band: nothing to leave out
        level[has] = np.where(empty, np.nan, inside)
        high[np.flatnonzero(has)[empty]] = -np.inf
        cut[np.flatnonzero(has)[empty]] = -np.inf
    return high, cut, level


def _longest_false(allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the first and one past the last column of its longest stretch of ``False``
    (the lowest such stretch on ties; ``0, 0``: none)."""
    n_rows, n_cols = allowed.shape
    padded = np.ones((n_rows, n_cols + 2), dtype=np.int8)
    padded[:, 1:-1] = allowed
    step = np.diff(padded, axis=1)
    row, start = np.nonzero(step == -1)  # a stretch of False starts (row-major: by row, column)
    _, stop = np.nonzero(step == 1)
    first, last = np.zeros(n_rows, dtype=np.int64), np.zeros(n_rows, dtype=np.int64)
    if len(row):
        order = np.lexsort((-start, stop - start, row))  # the longest, then lowest, last per row
        end = np.ones(len(order), dtype=bool)
        end[:-1] = row[order][1:] != row[order][:-1]
        pick = order[end]
        first[row[pick]], last[row[pick]] = start[pick], stop[pick]
    return first, last
