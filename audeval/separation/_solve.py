r"""Least-squares solves with one factorisation of a Gram matrix.

The distortion filters of BSS Eval are least-squares fits
:math:`G c = d` with the Gram matrix :math:`G = S^T S` of the delayed
reference signals :math:`S`. :class:`GramSolver` factorises :math:`G`
once and solves for every right-hand side (estimate, channel).

* Regular case: the Cholesky factorisation :math:`G = L L^T`.
* Identical signals (e.g. mono sources duplicated to stereo):
  given the groups of exactly equal signals, only one block of
  delays per group is kept (a smaller system, cheaper than the
  regular one) and its filter is split equally among the copies,
  which is the minimum-norm least-squares solution.
* Singular or ill-conditioned case (a silent, identical, proportional or
  delayed copy of a reference): when the Cholesky factorisation fails
  or a pivot :math:`L_{kk}^2` is below ``RCOND`` times :math:`G_{kk}`
  (a test independent of the signals' gains), the pivoted Cholesky
  factorisation (LAPACK ``dpstrf``) of the unit-diagonal matrix
  :math:`D^{-1/2} G D^{-1/2}`, :math:`D = \operatorname{diag}(G)`,
  stops at the numerical rank :math:`r` (pivots below ``RCOND``)
  and the basic solution on the :math:`r` pivoted columns is returned.
  Every right-hand side here lies in the
  range of :math:`G` (:math:`d = S^T x`), so :math:`S c` is the
  least-squares projection of :math:`x` on the span of the references,
  which is unique even where the filters :math:`c` are not.
  The fallback costs no more than the regular factorisation
  (:math:`n^3/3` flops), unlike an SVD-based ``lstsq``.

No ``LinAlgError`` is raised.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.linalg import lapack


# Pivots below this fraction of the largest one count as dependent.
RCOND = 1e-12


class GramSolver:
    """One factorisation of a symmetric positive semi-definite matrix.

    Args:
        matrix: symmetric positive semi-definite matrix, shape (n, n)
        block: rows per signal (the number of delays)
        groups: for each signal (``n // block`` of them), the index of
            the first signal equal to it (see :func:`duplicate_groups`);
            ``None`` if all signals differ

    Attributes:
        kind: ``"cholesky"`` or ``"pivoted"`` (the fallback)
        rank: numerical rank used by the solves
    """

    def __init__(self, matrix: np.ndarray, *, block: int = 1, groups: np.ndarray | None = None):
        matrix = np.asarray(matrix, dtype=np.float64)
        self.keep = None
        if groups is not None:
            reps, position, count = np.unique(groups, return_inverse=True, return_counts=True)
            self.keep = (reps[:, None] * block + np.arange(block)).ravel()
            self.block, self.position, self.count = block, position, count[position]
            matrix = matrix[np.ix_(self.keep, self.keep)]
        self.n = matrix.shape[0]
        self.kind = "cholesky"
        self.rank = self.n
        # LAPACK directly (scipy.linalg.cholesky costs twice as much here);
        # the matrix is symmetric, so its transpose is a Fortran-order copy-free view
        factor, info = lapack.dpotrf(matrix.T, lower=1, clean=0)
        if info == 0 and self.n:
            # pivots relative to the diagonal: independent of each signal's gain
            pivots = np.diagonal(factor) ** 2 / np.diagonal(matrix)
            if pivots.min() > RCOND:
                self.factor = factor
                return
        self._pivoted(matrix)

    def _pivoted(self, matrix: np.ndarray) -> None:
        """Pivoted Cholesky of the unit-diagonal (Jacobi-scaled) matrix."""
        self.kind = "pivoted"
        diagonal = np.diagonal(matrix)
        self.scale = np.where(diagonal > 0, 1 / np.sqrt(np.where(diagonal > 0, diagonal, 1)), 0.0)
        self.order = np.arange(self.n)
        self.rank = 0
        self.factor = np.zeros((0, 0))
        if not (diagonal > 0).any():
            return
        scaled = matrix * self.scale[:, None] * self.scale[None, :]
        factor, piv, rank, _ = lapack.dpstrf(scaled, tol=RCOND, lower=1)
        self.rank = int(rank)
        self.order = piv[: self.n] - 1
        self.factor = np.tril(factor[: self.rank, : self.rank])

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """Solution of ``matrix @ x = rhs`` (rhs of shape (n,) or (n, m))."""
        rhs = np.asarray(rhs, dtype=np.float64)
        if self.keep is None:
            return self._solve(rhs)
        # equal signals have equal right-hand sides: solve once, split equally
        reduced = self._solve(rhs[self.keep])
        tail = reduced.shape[1:]
        reduced = reduced.reshape((-1, self.block) + tail)
        scale = self.count.reshape((-1, 1) + (1,) * len(tail))
        return (reduced[self.position] / scale).reshape(rhs.shape)

    def _solve(self, rhs: np.ndarray) -> np.ndarray:
        if self.kind == "cholesky":
            return lapack.dpotrs(self.factor, rhs, lower=1)[0]
        out = np.zeros_like(rhs)
        if self.rank == 0:
            return out
        keep = self.order[: self.rank]
        scale = self.scale[keep].reshape((-1,) + (1,) * (rhs.ndim - 1))
        solved = scipy.linalg.cho_solve((self.factor, True), rhs[keep] * scale, check_finite=False)
        out[keep] = solved * scale
        return out


def duplicate_groups(signals: np.ndarray) -> np.ndarray | None:
    """For each row of ``signals`` (K, N), the index of the first equal row.

    ``None`` if all rows differ (the usual case).
    """
    flat = np.ascontiguousarray(signals).reshape(signals.shape[0], -1)
    # K is small (sources x channels): a dictionary of row contents
    first: dict[bytes, int] = {}
    groups = np.empty(flat.shape[0], dtype=np.int64)
    for k, row in enumerate(flat):
        groups[k] = first.setdefault(row.tobytes(), k)
    if len(first) == flat.shape[0]:
        return None
    return groups
