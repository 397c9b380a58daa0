"""Event matching on validated arrays: candidate pairs, then optimal or greedy matching."""

from __future__ import annotations

import functools

import numpy as np

from audeval._core.intervals import expand_ranges, window_join

from .dense import DENSE_PAIRS, dense_files, dense_matching
from .graph import sort_pairs
from .greedy import greedy_sorted
from .lexicographic import lexicographic_sorted
from .order import canonical_order, onset_pairs, time_keys


#: Runs of identical events are collapsed where one has at least this many events
MIN_RUN = 8


def match_segments(truth, prediction, n_files: int, tol, matching: str) -> tuple[np.ndarray, np.ndarray]:
    """Match validated events (:class:`audeval._core.validation.Segments`) per file.

    Both sides are put in canonical order ``(file, start, end, label, row)``;
    candidate pairs meet the time conditions of ``tol``
    (an :class:`audeval._events.Tolerances`);
    with ``tol.compat`` set, pairs of a join widened by ``tol.widened()``
    are filtered by ``tol.admits`` (the reference's float rules).
    ``matching="optimal"``: :func:`~._lexicographic.lexicographic_matching`;
    ``"greedy"``: first fit for same-label pairs in canonical order,
    then first fit among the leftovers for other-label pairs.

    Returns:
        for every truth event the matched prediction or -1,
        and the substituting prediction or -1 (row indices of the inputs)

    """
    n_truth, n_pred = len(truth), len(prediction)
    if n_truth == 0 or n_pred == 0:
        return np.full(n_truth, -1, dtype=np.int64), np.full(n_truth, -1, dtype=np.int64)
    match = np.empty(n_truth, dtype=np.int64)  # every entry set at the end
    substitution = np.empty(n_truth, dtype=np.int64)
    join = tol.widened()  # tol itself unless a compat mode filters the pairs below
    margin = join.onset if join.onset is not None else 0
    t_key, p_key = time_keys(n_files, margin, (truth.file, truth.start), (prediction.file, prediction.start))
    t_order, t_sorted = canonical_order(t_key, truth.end, truth.label, truth.position)
    p_order, p_sorted = canonical_order(p_key, prediction.end, prediction.label, prediction.position)
    t_end, t_label = truth.end[t_order], truth.label[t_order]
    p_end, p_label = prediction.end[p_order], prediction.label[p_order]
    t_side = _Side(t_sorted, t_end, truth, t_order)
    p_side = _Side(p_sorted, p_end, prediction, p_order)
    dense = None
    if matching == "optimal" and join.onset is not None and n_truth * n_pred > DENSE_PAIRS:
        # (a dense file has many events on both sides: most files are skipped by their counts)
        most_t = np.bincount(truth.file, minlength=n_files).max()
        if most_t * np.bincount(prediction.file, minlength=n_files).max() > DENSE_PAIRS:
            dense = dense_files(t_sorted, p_sorted, t_side.file, n_files, join.onset)
    if dense is not None and dense.any() and not _few_identical_pairs(n_files, tol, join, t_side, p_side, t_label, p_label):
        m, s = _with_dense(dense, n_files, tol, join, t_side, p_side, t_label, p_label)
    else:
        m, s = _solve(n_files, tol, join, t_side, p_side, t_label, p_label, matching)
    # back to rows (index -1 picks the last row, replaced by -1)
    match[t_order] = np.where(m >= 0, p_order[m], -1)
    substitution[t_order] = np.where(s >= 0, p_order[s], -1)
    return match, substitution


def _solve(n_files: int, tol, join, t_side: _Side, p_side: _Side, t_label, p_label, matching: str):
    """Matches and substitutions of events in canonical order (indices in that order)."""
    n_truth, n_pred = len(t_side.key), len(p_side.key)
    if n_truth == 0 or n_pred == 0:
        return np.full(n_truth, -1, dtype=np.int64), np.full(n_truth, -1, dtype=np.int64)
    t_first = _identical_runs(t_side.key, t_side.end, t_label)
    p_first = _identical_runs(p_side.key, p_side.end, p_label)
    if t_first is None and p_first is None:
        i, j = _candidates(n_files, tol, join, t_side, p_side)
    else:  # identical events: pairs of one event of each run, then of all (see expand_identical)
        t_first = np.arange(n_truth) if t_first is None else t_first
        p_first = np.arange(n_pred) if p_first is None else p_first
        gi, gj = _candidates(n_files, tol, join, t_side.take(t_first), p_side.take(p_first))
        i, j = expand_identical(gi, gj, t_first, n_truth, p_first, n_pred)
    same = t_label[i] == p_label[j]
    if matching == "optimal":
        kind = np.where(same, np.int8(2), np.int8(1))
        return lexicographic_sorted(n_truth, n_pred, i, j, kind)
    m = greedy_sorted(n_truth, n_pred, i[same], j[same])
    used = np.zeros(n_pred, dtype=bool)
    used[m[m >= 0]] = True
    left = ~same & (m[i] < 0) & ~used[j]
    return m, greedy_sorted(n_truth, n_pred, i[left], j[left])


def _few_identical_pairs(n_files: int, tol, join, t_side: _Side, p_side: _Side, t_label, p_label) -> bool:
    """Whether runs of identical events make the pairs few (:func:`expand_identical`):
    then the usual path is cheaper than the band."""
    t_first = _identical_runs(t_side.key, t_side.end, t_label)
    p_first = _identical_runs(p_side.key, p_side.end, p_label)
    if t_first is None and p_first is None:
        return False
    n_truth, n_pred = len(t_side.key), len(p_side.key)
    t_first = np.arange(n_truth) if t_first is None else t_first
    p_first = np.arange(n_pred) if p_first is None else p_first
    gi, gj = _candidates(n_files, tol, join, t_side.take(t_first), p_side.take(p_first))
    size_t = np.diff(np.append(t_first, n_truth))
    size_p = np.diff(np.append(p_first, n_pred))
    alone = (np.bincount(gi, minlength=len(t_first))[gi] == 1) & (
        np.bincount(gj, minlength=len(p_first))[gj] == 1
    )
    pairs = np.minimum(size_t[gi], size_p[gj])[alone].sum() + (size_t[gi] * size_p[gj])[~alone].sum()
    return pairs <= DENSE_PAIRS


def _with_dense(dense, n_files: int, tol, join, t_side: _Side, p_side: _Side, t_label, p_label):
    """Dense files on a band of their pairs (:mod:`._dense`), the others as usual;
    all as usual where the band gives no proven optimum."""
    t_in = np.flatnonzero(dense[t_side.file])
    p_in = np.flatnonzero(dense[p_side.file])
    t_dense, p_dense = t_side.take(t_in), p_side.take(p_in)
    allowance = join.offset_allowance(t_dense.start, t_dense.end) if join.offset_evaluated else None

    def admit(i, j):
        ok = np.ones(len(i), dtype=bool)
        if allowance is not None:
            ok &= np.abs(t_dense.end[i] - p_dense.end[j]) <= allowance[i]
        if join is not tol:
            ok &= tol.admits(t_dense.start[i], t_dense.end[i], p_dense.start[j], p_dense.end[j])
        return ok

    n_labels = int(max(t_label.max(initial=-1), p_label.max(initial=-1))) + 1
    found = dense_matching(
        t_dense, p_dense, t_label[t_in], p_label[p_in], n_files, n_labels, join.onset, admit
    )
    if found is None:
        return _solve(n_files, tol, join, t_side, p_side, t_label, p_label, "optimal")
    t_out = np.flatnonzero(~dense[t_side.file])
    p_out = np.flatnonzero(~dense[p_side.file])
    rest = _solve(
        n_files, tol, join, t_side.take(t_out), p_side.take(p_out), t_label[t_out], p_label[p_out], "optimal"
    )
    out = []
    for (dense_part, rest_part) in zip(found, rest):
        whole = np.full(len(t_side.key), -1, dtype=np.int64)
        hit = dense_part >= 0
        whole[t_in[hit]] = p_in[dense_part[hit]]
        hit = rest_part >= 0
        whole[t_out[hit]] = p_out[rest_part[hit]]
        out.append(whole)
    return out[0], out[1]


class _Side:
    """Events of one side in canonical order: ``(file, start)`` key and end; file and start on demand."""

    def __init__(self, key: np.ndarray, end: np.ndarray, events, order: np.ndarray) -> None:
        self.key, self.end, self._events, self._order = key, end, events, order

    @functools.cached_property
    def file(self) -> np.ndarray:
        return self._events.file[self._order]

    @functools.cached_property
    def start(self) -> np.ndarray:
        return self._events.start[self._order]

    def take(self, index: np.ndarray) -> _Side:
        return _Side(self.key[index], self.end[index], self._events, self._order[index])


def _candidates(n_files: int, tol, join, t: _Side, p: _Side) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs of events in canonical order, sorted by ``(truth, prediction)``."""
    if join.onset is not None:
        i, j = onset_pairs(t.key, p.key, join.onset)
        if join.offset_evaluated:
            allowance = join.offset_allowance(t.start, t.end)
            ok = np.flatnonzero(np.abs(t.end[i] - p.end[j]) <= allowance[i])
            i, j = i[ok], j[ok]
    else:
        allowance = join.offset_allowance(t.start, t.end)
        i, j = window_join(max(n_files, 1), p.file, p.end, t.file, t.end - allowance, t.end + allowance)
        i, j = sort_pairs(i, j)
    if join is not tol:
        ok = tol.admits(t.start[i], t.end[i], p.start[j], p.end[j])
        i, j = i[ok], j[ok]
    return i, j


def _identical_runs(key: np.ndarray, end: np.ndarray, label: np.ndarray) -> np.ndarray | None:
    """First event of every run of identical events (same file, start, end, label) in canonical order.

    ``None`` where no two events are identical (the usual case)
    or no run has :data:`MIN_RUN` events.
    """
    if len(key) < MIN_RUN:
        return None
    tie = np.flatnonzero(key[1:] == key[:-1])  # few: equal (file, start)
    tie = tie[(end[tie + 1] == end[tie]) & (label[tie + 1] == label[tie])]
    if len(tie) < MIN_RUN - 1:
        return None
    # the longest run of consecutive ties: its events form the longest run of identical events
    breaks = np.flatnonzero(np.diff(tie) != 1)
    lengths = np.diff(np.concatenate([[-1], breaks, [len(tie) - 1]]))
    if lengths.max() + 1 < MIN_RUN:
        return None  # short runs: their few pairs cost less than collapsing them
    same = np.zeros(len(key), dtype=bool)
    same[tie + 1] = True
    return np.flatnonzero(~same)


def expand_identical(
    gi: np.ndarray, gj: np.ndarray, t_first: np.ndarray, n_truth: int, p_first: np.ndarray, n_pred: int
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs of events from the candidate pairs of runs of identical events.

    Run ``g`` of truth events ``t_first[g], t_first[g] + 1, ...`` and run ``h`` of predictions
    are candidates of each other when one event of each is.
    Where ``g`` and ``h`` have no other candidate runs, all their events form a complete
    bipartite block; its ``k``-th truth event gets only the ``k``-th prediction as candidate:
    that is the matching both matchers choose on the whole block
    (the lowest-index partner for every truth event in index order; first fit),
    in linear instead of quadratic memory. Other runs give all pairs of their events.

    Returns:
        truth and prediction indices, sorted by ``(truth, prediction)``

    """
    size_t = np.diff(np.append(t_first, n_truth))
    size_p = np.diff(np.append(p_first, n_pred))
    alone = (np.bincount(gi, minlength=len(t_first))[gi] == 1) & (
        np.bincount(gj, minlength=len(p_first))[gj] == 1
    )
    # isolated blocks: the diagonal
    side = np.minimum(size_t[gi[alone]], size_p[gj[alone]])
    block, offset = expand_ranges(np.zeros(len(side), dtype=np.int64), side)
    diagonal_t = t_first[gi[alone]][block] + offset
    diagonal_p = p_first[gj[alone]][block] + offset
    # other runs: every truth event of a run, then every candidate run, then its events
    gi, gj = gi[~alone], gj[~alone]
    runs, pair_lo = np.unique(gi, return_index=True)
    pair_hi = np.append(pair_lo[1:], len(gi))
    run, copy = expand_ranges(np.zeros(len(runs), dtype=np.int64), size_t[runs])
    copy_pairs, pair = expand_ranges(pair_lo[run], pair_hi[run])
    h = gj[pair]
    item, pred = expand_ranges(p_first[h], p_first[h] + size_p[h])
    truth = (t_first[runs[run]] + copy)[copy_pairs[item]]
    return sort_pairs(np.concatenate([diagonal_t, truth]), np.concatenate([diagonal_p, pred]))  # type: ignore[return-value]  # sort_pairs gives the two arrays
