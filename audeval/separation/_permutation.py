"""Permutation-invariant assignment of estimates to references."""

from __future__ import annotations


import numpy as np
from audeval._core.matching.assignment import dense_assignment

from audeval.separation._checks import check_bool


def best_permutation(scores: object, *, maximize: bool = True) -> np.ndarray:
    r"""Assign one estimate to each reference by the Hungarian algorithm.

    ``scores[i, k]`` is the score of estimate ``k`` against reference ``i``
    (extra axes, e.g. channels or windows, are averaged, NaN ignored).
    The assignment :math:`\pi` maximises (or minimises)

    .. math::

        \sum_i \text{scores}[i, \pi(i)]

    over all one-to-one assignments,
    so it is **exact** for any objective that is a sum (or mean) over
    the matched pairs, such as the mean SI-SDR of nussl's
    ``best_permutation_key`` or the mean SIR of museval,
    and replaces the search over all ``n!`` permutations
    by an :math:`O(n^3)` assignment.
    It is not exact for objectives that are not additive over pairs
    (e.g. a median over sources).

    More estimates than references: the unused estimates are left out.
    Fewer estimates than references: the references left without
    an estimate get ``-1``.

    ``+inf`` counts as better than every finite score,
    ``-inf`` as worse than every finite score.
    An undefined pair (NaN, after averaging the extra axes) raises ``ValueError``
    naming the pairs: no rule for NaN is right for every score,
    so choose one, e.g. ``np.where(np.isnan(scores), -np.inf, scores)``
    to take an undefined pair only when nothing else is left.
    (The metric functions of this module use that rule themselves
    and return NaN scores for silent signals.)
    Ties are resolved by scipy's ``linear_sum_assignment``
    (deterministically).

    Args:
        scores: pairwise scores of shape (references, estimates, ...)
        maximize: ``True`` if higher scores are better (dB ratios),
            ``False`` for errors

    Returns:
        int array of length ``references``: the estimate assigned to
        each reference, ``-1`` where none is

    Raises:
        ValueError: if ``scores`` has fewer than two axes, is empty,
            or holds an undefined (NaN) pair

    Examples:
        >>> import numpy as np
        >>> scores = [[1.0, 9.0], [8.0, 2.0]]
        >>> best_permutation(scores).tolist()
        [1, 0]
        >>> best_permutation([[5.0], [6.0]]).tolist()
        [-1, 0]
        >>> scores = [[1.0, np.nan], [np.nan, 2.0]]
        >>> best_permutation(np.where(np.isnan(scores), -np.inf, scores)).tolist()
        [0, 1]

    """
    maximize = check_bool(maximize, "maximize")
    matrix = np.asarray(scores, dtype=np.float64)
    if matrix.ndim < 2:
        raise ValueError(
            f"scores must have shape (references, estimates, ...); got {matrix.shape}."
        )
    if matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"scores must not be empty; got shape {matrix.shape}.")
    nan = np.isnan(matrix)
    undefined = nan.reshape(matrix.shape[0], matrix.shape[1], -1).all(axis=-1)
    if undefined.any():
        pairs = [tuple(int(i) for i in pair) for pair in np.argwhere(undefined)[:5]]
        raise ValueError(
            f"scores is NaN for {int(undefined.sum())} of {undefined.size} "
            f"(reference, estimate) pairs, first {pairs}: best_permutation needs a score "
            "for every pair; replace NaN by the score it should count as, "
            "e.g. np.where(np.isnan(scores), -np.inf, scores) to choose such a pair last."
        )
    return assign(matrix, maximize=maximize)


def assign(matrix: np.ndarray, *, maximize: bool = True) -> np.ndarray:
    """:func:`best_permutation` without checks or warnings (internal use)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim > 2:
        flat = matrix.reshape(matrix.shape[0], matrix.shape[1], -1)
        with np.errstate(invalid="ignore"):
            all_nan = np.isnan(flat).all(axis=-1)
            filled = np.where(np.isnan(flat), 0.0, flat)
            count = np.maximum((~np.isnan(flat)).sum(axis=-1), 1)
            matrix = np.where(all_nan, np.nan, filled.sum(axis=-1) / count)
    gain = matrix if maximize else -matrix
    cost = -_finite_order(gain)
    return dense_assignment(cost)


def _finite_order(gain: np.ndarray) -> np.ndarray:
    """Map +inf, -inf and NaN to finite values that keep the NaN-safe order."""
    finite = np.isfinite(gain)
    span = float(np.abs(gain[finite]).sum()) if finite.any() else 0.0
    big = 4.0 * (span + 1.0) * gain.size
    out = np.where(finite, gain, 0.0)
    out = np.where(gain == np.inf, big, out)
    out = np.where(gain == -np.inf, -big, out)
    out = np.where(np.isnan(gain), -2.0 * big, out)
    return out


def take_assignment(pairwise: np.ndarray, assignment: np.ndarray) -> np.ndarray:
    """Rows ``pairwise[i, assignment[i]]``; NaN where ``assignment[i] == -1``."""
    n_ref = pairwise.shape[0]
    safe = np.where(assignment < 0, 0, assignment)
    out = pairwise[np.arange(n_ref), safe].astype(np.float64, copy=True)
    out[assignment < 0] = np.nan
    return out
