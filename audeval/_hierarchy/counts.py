r"""Rank agreement of two hierarchies, without frame pairs.

For a query ``q`` (a frame, or a point of the track without frames)
and every other unit ``j`` of its file,
the *meet* of a hierarchy is the deepest level at which ``q`` and ``j`` agree
(same segment for the T-measure, same label for the L-measure; 0: no level);
``monotonic=True`` takes the deepest level ``l`` at which they agree
on every level ``1..l`` (mir_eval issue 409).
Recall ranks the units by the truth's meet and counts the pairs
``(i, j)`` with ``meet_t(q, i) < meet_t(q, j)`` (all such pairs, or only those of
adjacent meets for the reduced T-measure) and the inversions among them,
``meet_p(q, i) >= meet_p(q, j)``; precision swaps the sides.

Everything follows from ``G[r, e]``, the measure of the units ``j``
with ``meet_t(q, j) >= r`` and ``meet_p(q, j) >= e``:

* T-measure: ``meet >= r`` is the union (or, monotonic, the intersection)
  of the segments around ``q`` at levels ``>= r`` (``<= r``):
  one interval, so ``G`` is an interval length, clipped to the window;
* L-measure: ``meet >= r`` is a union of label classes;
  ``G`` is counted per *atom* (a piece of the track with constant labels on
  every level of both sides) by inclusion and exclusion over sets of levels,
  each a group-by of the atoms (one set per level if a side is nested).

Queries of the same atom share ``G``, so frameless values are exact
integrals over atoms, and cost grows with the number of segments.
The atoms are the elementary pieces of the core engine
(:func:`audeval._core.sweep.cut` over the segments of both sides,
:func:`audeval._core.sweep.covering` for the segment of every level holding each);
the meets, ranks and windowed integrals are this family's own.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd

from audeval._core import sweep as _pieces
from audeval._hierarchy.inputs import Axis
from audeval._hierarchy.inputs import Side
from audeval._core.intervals import group_keys


MEASURES = ("t_reduced", "t_full", "l")


# -------------------------------------------------------------------------
# Atoms: the elementary pieces of both hierarchies
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Atoms:
    """Pieces of every file with constant labels on every level of both sides.

    The elementary pieces (:func:`audeval._core.sweep.cut`) of all segments of both sides,
    ``[0, n)`` of every file, and the segment of every level holding each piece
    (:func:`audeval._core.sweep.covering`; the levels of a side are partitions).
    """

    file: np.ndarray
    start: np.ndarray
    length: np.ndarray
    truth: np.ndarray  # (atoms, truth levels): index of the truth segment holding the atom, -1 none
    prediction: np.ndarray  # (atoms, prediction levels): the same for the prediction

    def __len__(self) -> int:
        return len(self.file)


def atoms(axis: Axis, n_files: int) -> Atoms:
    """The atoms of both sides on the axis (files of ``n = 0`` have none)."""
    t, p = axis.truth, axis.prediction
    n_t = len(t)
    pieces = _pieces.cut(
        n_files,
        np.concatenate([t.file, p.file]),
        np.concatenate([t.start, p.start]),
        np.concatenate([t.end, p.end]),
        extent=axis.n,
    )
    n = len(pieces)
    return Atoms(
        pieces.file,
        pieces.start,
        pieces.duration,
        _pieces.covering(n, pieces.first[:n_t], pieces.stop[:n_t], t.level, t.n_levels),
        _pieces.covering(n, pieces.first[n_t:], pieces.stop[n_t:], p.level, p.n_levels),
    )


def holding(at: Atoms, n_files: int, file: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per query point: the segment of every level holding it, truth and prediction (-1 none)."""
    where = np.full(len(file), -1, dtype=np.int64)
    if len(at) and len(file):
        atom_key, query_key = group_keys(n_files, (at.file, at.start), (file, pos))
        found = np.searchsorted(atom_key, query_key, side="right") - 1
        c = np.maximum(found, 0)
        inside = (found >= 0) & (at.file[c] == file) & (pos < at.start[c] + at.length[c])
        where = np.where(inside, found, -1)
    out = []
    for table in (at.truth, at.prediction):
        rows = table[np.maximum(where, 0)] if len(table) else np.zeros((len(where), table.shape[1]), np.int64)
        out.append(np.where(where[:, None] >= 0, rows, -1))
    return out[0], out[1]


# -------------------------------------------------------------------------
# G for the T-measure: interval lengths
# -------------------------------------------------------------------------


def _intervals(side: Side, index: np.ndarray, n: np.ndarray, monotonic: bool) -> tuple:
    """``lo, hi`` of ``meet >= r`` around each query, ``r = 0..levels``."""
    covered = index >= 0
    safe = np.maximum(index, 0)
    big = np.iinfo(np.int64).max // 4
    lo_l = np.where(covered, side.start[safe], big)
    hi_l = np.where(covered, side.end[safe], -big)
    if monotonic:
        # every level 1..r around q: an intersection (empty once a level is uncovered)
        lo = np.maximum.accumulate(lo_l, axis=1)
        hi = np.minimum.accumulate(hi_l, axis=1)
    else:
        # some level >= r around q: a union of intervals that all hold q
        lo = np.minimum.accumulate(lo_l[:, ::-1], axis=1)[:, ::-1]
        hi = np.maximum.accumulate(hi_l[:, ::-1], axis=1)[:, ::-1]
    zero = np.zeros((len(n), 1), dtype=np.int64)
    return np.hstack([zero, lo]), np.hstack([n[:, None], hi])


def interval_counts(
    axis: Axis,
    held: tuple[np.ndarray, np.ndarray],
    file: np.ndarray,
    pos: np.ndarray,
    window: int | None,
    monotonic: bool,
) -> np.ndarray:
    """``G[r, e, q]`` of the T-measure for queries at ``pos`` (``held``: the segments holding them,
    truth and prediction, :func:`holding`); window ``[q - w, q + w)``."""
    n = axis.n[file]
    sides = []
    for side, index in zip((axis.truth, axis.prediction), held):
        lo, hi = _intervals(side, index, n, monotonic)
        sides.append((np.ascontiguousarray(lo.T), np.ascontiguousarray(hi.T)))
    (t_lo, t_hi), (p_lo, p_hi) = sides
    low, high = np.zeros(len(pos), dtype=np.int64), n
    if window is not None:
        low, high = np.maximum(pos - window, 0), np.minimum(pos + window, n)
    lo = np.maximum(np.maximum(t_lo[:, None, :], p_lo[None, :, :]), low)
    hi = np.minimum(np.minimum(t_hi[:, None, :], p_hi[None, :, :]), high)
    return np.maximum(hi - lo, 0).astype(np.float64)


# -------------------------------------------------------------------------
# G for the L-measure: label classes per atom
# -------------------------------------------------------------------------


def _codes(side: Side, index: np.ndarray) -> np.ndarray:
    return np.where(index >= 0, side.code[np.maximum(index, 0)], -1)


def _distinct(*columns: np.ndarray) -> int:
    """Number of distinct rows of int columns."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for column in columns:
        key = key * (int(column.max(initial=0)) + 2) + column + 1
        key = pd.factorize(key)[0].astype(np.int64)
    return int(key.max(initial=-1)) + 1


def _nested(codes: np.ndarray, file: np.ndarray) -> bool:
    """Whether agreeing at a level implies agreeing at the coarser one, for every level."""
    for level in range(1, codes.shape[1]):
        fine, coarse = codes[:, level], codes[:, level - 1]
        covered = fine >= 0
        if (coarse[covered] < 0).any():
            return False
        f, fine, coarse = file[covered], fine[covered], coarse[covered]
        if _distinct(f, fine, coarse) != _distinct(f, fine):
            return False
    return True


def _terms(n_levels: int, mode: str) -> list[list[tuple[int, tuple[int, ...]]]]:
    """Per threshold ``r``: ``(sign, levels)`` with ``|meet >= r| = sum sign * |agree on levels|``."""
    out: list[list[tuple[int, tuple[int, ...]]]] = [[(1, ())]]
    for r in range(1, n_levels + 1):
        if mode == "monotonic":
            out.append([(1, tuple(range(r)))])
        elif mode == "nested":
            out.append([(1, (r - 1,))])
        else:  # union over levels r..L: inclusion and exclusion
            upper = range(r - 1, n_levels)
            out.append(
                [
                    ((-1) ** (len(s) + 1), s)
                    for k in range(1, len(upper) + 1)
                    for s in itertools.combinations(upper, k)
                ]
            )
    return out


class _Agreement:
    """Measure of the atoms of a file that agree with each atom on a set of levels (cached)."""

    def __init__(self, file, weight, columns) -> None:
        self.weight = weight
        self.columns = columns  # (atoms, levels of both sides), -1 uncovered
        self.keys: dict[tuple[int, ...], np.ndarray] = {(): np.asarray(file, dtype=np.int64)}
        self.counts: dict = {}

    def key(self, levels: tuple[int, ...]) -> np.ndarray:
        if levels not in self.keys:
            parent = self.key(levels[:-1])
            column = self.columns[:, levels[-1]] + 1
            key = parent * (int(column.max(initial=0)) + 1) + column
            if key.max(initial=0) > 2**40:
                key = pd.factorize(key)[0].astype(np.int64)
            self.keys[levels] = key
        return self.keys[levels]

    def count(self, levels: tuple[int, ...]) -> np.ndarray:
        if levels not in self.counts:
            key = self.key(levels)
            if key.max(initial=0) > 4 * len(key) + 1024:
                key = pd.factorize(key)[0]
            total = np.bincount(key, weights=self.weight)[key]
            if levels:
                total[(self.columns[:, list(levels)] < 0).any(axis=1)] = 0.0
            self.counts[levels] = total
        return self.counts[levels]


def label_counts(
    axis: Axis, at: Atoms, weight: np.ndarray, monotonic: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``G[r, e, atom]`` of the L-measure, and each atom's meet with itself per side."""
    codes, terms, self_meet = [], [], []
    file = at.file
    for side, index in ((axis.truth, at.truth), (axis.prediction, at.prediction)):
        c = _codes(side, index)
        mode = "monotonic" if monotonic else ("nested" if _nested(c, file) else "union")
        codes.append(c)
        terms.append(_terms(side.n_levels, mode))
        covered = c >= 0
        if monotonic:
            self_meet.append(np.cumprod(covered, axis=1).sum(axis=1))
        else:
            deepest = np.where(covered, np.arange(1, side.n_levels + 1), 0)
            self_meet.append(deepest.max(axis=1, initial=0))
    n_t = axis.truth.n_levels
    agreement = _Agreement(file, weight, np.hstack(codes))
    g = np.zeros((n_t + 1, axis.prediction.n_levels + 1, len(file)))
    for r, t_terms in enumerate(terms[0]):
        for e, p_terms in enumerate(terms[1]):
            for (s_t, l_t), (s_p, l_p) in itertools.product(t_terms, p_terms):
                levels = tuple(sorted(l_t + tuple(n_t + l for l in l_p)))
                g[r, e] += s_t * s_p * agreement.count(levels)
    return g, self_meet[0], self_meet[1]


# -------------------------------------------------------------------------
# Ranks
# -------------------------------------------------------------------------


def ranking(g: np.ndarray) -> dict[bool, tuple[np.ndarray, np.ndarray]]:
    """Inversions and pairs per query from ``G[r, e, q]`` (ranked by ``r``).

    Keyed by ``transitive``: all pairs of truth meets, or adjacent ones only.
    """
    return ranks(differences(g))


def differences(g: np.ndarray) -> np.ndarray:
    """``c[r, e]``: the measure of the units with truth meet ``r`` and prediction meet ``e``
    (``G`` differenced on both axes, ``G`` of meet ``L + 1`` being 0)."""
    n_r, n_e = g.shape[:2]
    padded = np.zeros((n_r + 1, n_e + 1) + g.shape[2:], dtype=g.dtype)
    padded[:-1, :-1] = g
    return padded[:-1, :-1] - padded[1:, :-1] - padded[:-1, 1:] + padded[1:, 1:]


def ranks(c: np.ndarray) -> dict[bool, tuple[np.ndarray, np.ndarray]]:
    """:func:`ranking` from ``c[r, e, q]`` (:func:`differences`)."""
    rows = c.sum(axis=1)  # units per truth meet
    at_most = np.cumsum(c, axis=1)  # units per (truth meet, prediction meet <= e)
    deeper = np.zeros_like(at_most)  # units with a deeper truth meet
    deeper[:-1] = np.cumsum(at_most[:0:-1], axis=0)[::-1]
    return {
        True: (
            np.einsum("req,req->q", c, deeper),
            (rows * deeper[:, -1]).sum(axis=0),  # pairs of distinct truth meets (no cancellation)
        ),
        False: (
            np.einsum("req,req->q", c[:-1], at_most[1:]),
            (rows[:-1] * rows[1:]).sum(axis=0),
        ),
    }


def scores(
    g: np.ndarray, file: np.ndarray, weight: np.ndarray, n_files: int, transitive: tuple[bool, ...]
) -> dict[bool, dict[str, np.ndarray]]:
    """Per-file sums of query scores and counted query weights, recall and precision."""
    out: dict[bool, dict[str, np.ndarray]] = {t: {} for t in transitive}
    for direction, table in (("recall", g), ("precision", np.swapaxes(g, 0, 1))):
        ranks = ranking(table)
        for t in transitive:
            inversions, pairs = ranks[t]
            counted = pairs > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                score = np.where(counted, 1.0 - inversions / pairs, 0.0)
            out[t][f"{direction}_score"] = np.bincount(file, weights=weight * score, minlength=n_files)
            out[t][f"{direction}_queries"] = np.bincount(
                file, weights=weight * counted, minlength=n_files
            )
    return out


# -------------------------------------------------------------------------
# Exact windowed T-measure in continuous time
# -------------------------------------------------------------------------

GAUSS_NODES, GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(8)
"""Gauss-Legendre rule on ``[-1, 1]`` of the windowed integrals."""

TOLERANCE = 1e-13
"""Accepted difference of a piece's integral from its two halves', per unit of its length
(the integrand lies in ``[0, 1]``)."""

SHORTEST = 1e-3
"""Pieces shorter than this (ns) are not halved further (their integral is off by less than their length)."""

CHUNK = 1 << 14
"""Query points evaluated at once (bounds the ``(levels, levels, points)`` arrays)."""


@dataclasses.dataclass(frozen=True)
class Pieces:
    """The track cut into pieces on which every ``G[r, e](q)`` is linear in the query point ``q``.

    ``G = alpha + slope * (q - start)`` exactly (int64 ns), kept as its differences ``c``
    (:func:`differences`): ``c = c0 + c1 * (q - start)``.
    """

    file: np.ndarray
    start: np.ndarray
    length: np.ndarray
    c0: np.ndarray  # (pieces, r, e) int64
    c1: np.ndarray  # (pieces, r, e) int64
    counted: np.ndarray  # (pieces, 4): recall reduced, recall full, precision reduced, precision full


def _counted(rows_at_middle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Whether a query has ranked pairs (reduced, full) from which meets occur in its window."""
    present = rows_at_middle != 0
    adjacent = (present[:, :-1] & present[:, 1:]).any(axis=1)
    return adjacent, present.sum(axis=1) >= 2


def window_pieces(
    axis: Axis, n_files: int, window: int, monotonic: bool, at: Atoms | None = None
) -> Pieces:
    """The atoms (:func:`atoms`, or ``at``) cut where the window's edge meets a segment edge
    (``q = lo + w`` or ``q = hi - w``): ``G[r, e](q) = |[max(lo, q - w), min(hi, q + w))|``
    of the intervals ``[lo, hi)`` around ``q`` (constant on an atom) is linear on each piece."""
    if at is None:
        at = atoms(axis, n_files)
    file, pos, length = at.file, at.start, at.length
    n = axis.n[file]
    bounds: list = []
    for side, index in ((axis.truth, at.truth), (axis.prediction, at.prediction)):
        bounds.extend(_intervals(side, index, n, monotonic))
    t_lo, t_hi, p_lo, p_hi = bounds
    start, end = pos[:, None], (pos + length)[:, None]
    cuts = np.hstack([t_lo + window, t_hi - window, p_lo + window, p_hi - window])
    cuts = np.sort(np.hstack([start, np.clip(cuts, start, end), end]), axis=1)
    keep = cuts[:, 1:] > cuts[:, :-1]
    atom = np.nonzero(keep)[0]
    a, b = cuts[:, :-1][keep], cuts[:, 1:][keep]
    lo = np.maximum(t_lo[atom][:, :, None], p_lo[atom][:, None, :])
    hi = np.minimum(t_hi[atom][:, :, None], p_hi[atom][:, None, :])
    a3, b3 = a[:, None, None], b[:, None, None]
    empty = hi <= lo  # an uncovered level (or an empty intersection, monotonic)
    alpha = np.where(empty, 0, np.minimum(hi, a3 + window) - np.maximum(lo, a3 - window))
    # slopes from the middle of the piece (2q = a + b): +1 while q + w < hi, -1 while q - w > lo
    slope = (2 * hi > a3 + b3 + 2 * window).astype(np.int64) - (a3 + b3 - 2 * window > 2 * lo)
    slope = np.where(empty, 0, slope)
    c0 = np.moveaxis(differences(np.moveaxis(alpha, 0, -1)), -1, 0)
    c1 = np.moveaxis(differences(np.moveaxis(slope, 0, -1)), -1, 0)
    middle = 2 * c0 + c1 * (b - a)[:, None, None]  # twice c in the middle of the piece, exact
    counted = [*_counted(middle.sum(axis=2)), *_counted(middle.sum(axis=1))]
    return Pieces(file[atom], a, b - a, c0, c1, np.column_stack(counted))


def _window_losses(pieces: Pieces, piece: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``(points, 4)``: the share of inverted pairs ``I / N`` at ``x`` ns after the start of ``piece``
    (recall reduced, recall full, precision reduced, precision full; 0 where no pair counts)."""
    c0 = np.moveaxis(pieces.c0, 0, -1)[:, :, piece]  # (r, e, points)
    c = c0 + np.moveaxis(pieces.c1, 0, -1)[:, :, piece] * x
    out = []
    for table in (c, np.swapaxes(c, 0, 1)):  # recall, precision
        ranked = ranks(table)
        for transitive in (False, True):
            inversions, pairs = ranked[transitive]
            with np.errstate(divide="ignore", invalid="ignore"):
                out.append(np.where(pairs > 0, np.clip(inversions / pairs, 0.0, 1.0), 0.0))
    return np.column_stack(out) * pieces.counted[piece]


def _gauss(pieces: Pieces, piece: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``(n, 4)``: Gauss-Legendre integrals of the query losses over ``[lo, hi)`` (ns after the
    start of each ``piece``)."""
    half, middle = (hi - lo) / 2.0, (hi + lo) / 2.0
    k = len(GAUSS_NODES)
    x = (middle[:, None] + half[:, None] * GAUSS_NODES[None, :]).ravel()
    which = np.repeat(piece, k)
    values = np.empty((len(x), 4))
    for first in range(0, len(x), CHUNK):
        part = slice(first, first + CHUNK)
        values[part] = _window_losses(pieces, which[part], x[part])
    return half[:, None] * np.einsum("nkv,k->nv", values.reshape(len(piece), k, 4), GAUSS_WEIGHTS)


def windowed_scores(
    axis: Axis, n_files: int, window: int, monotonic: bool, at: Atoms | None = None
) -> dict[bool, dict[str, np.ndarray]]:
    r"""Per-file sums of the windowed T-measure in continuous time (ns), as :func:`scores`.

    The query point :math:`q` runs over the track; its window :math:`[q - w, q + w)`
    makes every :math:`G[r, e](q)` linear on each piece of :func:`window_pieces`,
    so the query's share of inversions :math:`I(q) / N(q)` is a ratio of quadratics there;
    whether pairs count is constant on a piece (exact integers),
    and the score integral is the counted length minus that of :math:`I / N`,
    integrated by a Gauss-Legendre rule, halving a piece until its integral
    and the sum of its halves' agree to :data:`TOLERANCE` per unit length:
    the limit of finer and finer frame grids, to double precision.
    """
    pieces = window_pieces(axis, n_files, window, monotonic, at)
    total = np.zeros((len(pieces.file), 4))
    piece = np.arange(len(pieces.file))
    lo, hi = np.zeros(len(piece)), pieces.length.astype(np.float64)
    whole = _gauss(pieces, piece, lo, hi)
    for _ in range(64):
        if not len(piece):
            break
        mid = (lo + hi) / 2.0
        both = np.concatenate([piece, piece])
        halves = _gauss(pieces, both, np.concatenate([lo, mid]), np.concatenate([mid, hi]))
        left, right = halves[: len(piece)], halves[len(piece) :]
        fine = left + right
        done = np.all(np.abs(fine - whole) <= TOLERANCE * (hi - lo)[:, None], axis=1) | (hi - lo < SHORTEST)
        np.add.at(total, piece[done], fine[done])
        rest = ~done
        piece = np.concatenate([piece[rest], piece[rest]])
        lo, hi = np.concatenate([lo[rest], mid[rest]]), np.concatenate([mid[rest], hi[rest]])
        whole = np.concatenate([left[rest], right[rest]])
    if len(piece):  # (never reached: pieces stop at SHORTEST)
        np.add.at(total, piece, whole)
    queries = pieces.counted * pieces.length[:, None].astype(np.float64)
    out: dict[bool, dict[str, np.ndarray]] = {False: {}, True: {}}
    for column, (direction, transitive) in enumerate(
        (("recall", False), ("recall", True), ("precision", False), ("precision", True))
    ):
        out[transitive][f"{direction}_score"] = np.bincount(
            pieces.file, weights=queries[:, column] - total[:, column], minlength=n_files
        )
        out[transitive][f"{direction}_queries"] = np.bincount(
            pieces.file, weights=queries[:, column], minlength=n_files
        )
    return out
