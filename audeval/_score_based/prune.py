"""The thresholds a PSD-ROC can use: a floor per label below which eFPR exceeds ``max_efpr``.

The PSD-ROC keeps only thresholds with
:math:`\\text{eFPR} \\ge 3600\\, \\text{fp} / T \\le e_{max}`
(cross triggers only add to it).
The detections of groups (file, label) outside the detection tree
(no truth of the label, nor of another label when cross triggers count)
are all false positives, so their number :math:`D(\\theta)` bounds
:math:`\\text{fp}(\\theta)` from below.
Their change points are counted in bins of the levels (no sort):
within bin :math:`b`, :math:`D(\\theta)` is at least the sum of the bins above
plus the negative changes of :math:`b`.
The floor of a label is the lowest edge of a bin where that bound stays within
the budget; below it no threshold can reach the curve,
and every count at or above it is unchanged when the change points below
are left out (counts accumulate from the highest threshold down).
"""

from __future__ import annotations

import numpy as np

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


def level_floor(
    changes: tuple[np.ndarray, np.ndarray, np.ndarray],
    outside: np.ndarray,
    n_files: int,
    n_labels: int,
    seconds: float,
    max_efpr: float,
) -> np.ndarray:
    """Per label, the lowest threshold whose eFPR can be within ``max_efpr`` (``-inf``: any).

    Args:
        changes: group, level, change of the number of detections
            (:func:`audeval._score_based.deltas.run_changes`)
        outside: per group, whether every detection of it is a false positive
        n_files: files (groups are ``label * n_files + file``)
        n_labels: labels
        seconds: summed file durations :math:`T`
        max_efpr: largest eFPR per hour

    """
    floor = np.full(n_labels, -np.inf)
    group, level, change = changes
    if not (np.isfinite(max_efpr) and seconds > 0) or not outside[group].any():
        return floor
    # the other groups' rows go to an extra label (no selection of the rows)
    label_of = np.where(outside, np.arange(len(outside)) // n_files, n_labels)
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
    # conservative: a bound just above the budget (rounding of fp / T) is kept too
    budget = max_efpr * (1 + 1e-6) * seconds / SECONDS_PER_HOUR
    allowed = above + negative <= budget  # the top bin always is (nothing above it)
    lowest = np.argmax(allowed, axis=1)
    floor = from_ordered(low + (lowest.astype(np.int64) << shift))
    floor[total.sum(axis=1) <= budget] = -np.inf  # below every level: all changes counted
    return floor
