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
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from audeval._hierarchy._inputs import Axis
from audeval._hierarchy._inputs import Side
from audeval._intervals import group_keys


MEASURES = ("t_reduced", "t_full", "l")


# -------------------------------------------------------------------------
# Segments around queries
# -------------------------------------------------------------------------


def _containing(side: Side, n_files: int, file: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """``(queries, levels)``: index of the segment containing each query per level, -1 if none."""
    out = np.full((len(file), side.n_levels), -1, dtype=np.int64)
    for level in range(side.n_levels):  # a handful of levels
        rows = np.flatnonzero(side.level == level)
        if len(rows) == 0:
            continue
        seg_key, query_key = group_keys(n_files, (side.file[rows], side.start[rows]), (file, pos))
        candidate = np.searchsorted(seg_key, query_key, side="right") - 1
        c = rows[np.clip(candidate, 0, len(rows) - 1)]
        inside = (candidate >= 0) & (side.file[c] == file) & (pos < side.end[c])
        out[:, level] = np.where(inside, c, -1)
    return out


def atoms(axis: Axis, n_files: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pieces of every file with constant labels on every level: ``file, start, length``."""
    file = np.concatenate(
        [axis.truth.file, axis.truth.file, axis.prediction.file, axis.prediction.file,
         np.arange(n_files), np.arange(n_files)]
    )
    pos = np.concatenate(
        [axis.truth.start, axis.truth.end, axis.prediction.start, axis.prediction.end,
         np.zeros(n_files, dtype=np.int64), axis.n]
    )
    (key,) = group_keys(n_files, (file, pos))
    _, where = np.unique(key, return_index=True)
    file, pos = file[where], pos[where]
    same = np.zeros(len(file), dtype=bool)
    same[:-1] = file[1:] == file[:-1]
    length = np.where(same, np.roll(pos, -1) - pos, 0)
    keep = same & (length > 0) & (pos < axis.n[file])
    return file[keep], pos[keep], length[keep]


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
    n_files: int,
    file: np.ndarray,
    pos: np.ndarray,
    window: int | None,
    monotonic: bool,
) -> np.ndarray:
    """``G[r, e, q]`` of the T-measure for queries at ``pos``; window ``[q - w, q + w)``."""
    n = axis.n[file]
    sides = []
    for side in (axis.truth, axis.prediction):
        index = _containing(side, n_files, file, pos)
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
    out = [[(1, ())]]
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

    def __init__(self, file, weight, columns):
        self.weight = weight
        self.columns = columns  # (atoms, levels of both sides), -1 uncovered
        self.keys = {(): np.asarray(file, dtype=np.int64)}
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
    axis: Axis, n_files: int, file: np.ndarray, pos: np.ndarray, weight: np.ndarray, monotonic: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``G[r, e, atom]`` of the L-measure, and each atom's meet with itself per side."""
    codes, terms, self_meet = [], [], []
    for side in (axis.truth, axis.prediction):
        c = _codes(side, _containing(side, n_files, file, pos))
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
    n_r, n_e, n_q = g.shape
    padded = np.zeros((n_r + 1, n_e + 1, n_q))
    padded[:-1, :-1] = g
    c = padded[:-1, :-1] - padded[1:, :-1] - padded[:-1, 1:] + padded[1:, 1:]
    rows = c.sum(axis=1)  # units per truth meet
    at_most = np.cumsum(c, axis=1)  # units per (truth meet, prediction meet <= e)
    deeper = np.zeros_like(at_most)  # units with a deeper truth meet
    deeper[:-1] = np.cumsum(at_most[:0:-1], axis=0)[::-1]
    return {
        True: (
            np.einsum("req,req->q", c, deeper),
            (rows.sum(axis=0) ** 2 - (rows**2).sum(axis=0)) / 2.0,
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
