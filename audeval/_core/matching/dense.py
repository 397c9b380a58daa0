"""Optimal matching of files whose candidate graph is dense, on a band of it.

Many events of a file that are candidates of many others
(identical events, or events shifted a little against each other
with a tolerance that covers many of them) make a candidate graph
with ``n**2`` pairs, which the exact solvers cannot hold.
Such a file has a simple optimum nearly always:
every truth or every predicted event of a label is matched,
and the leftovers pair up as substitutions as far as there are leftovers on both sides.

Here the optimum is searched on a band of the candidate pairs
(each truth event against the predictions near it in the canonical order:
by its onset, and by its rank in the file),
and it is accepted only with a proof that it is an optimum of the whole graph
whose counts per ``(file, label)`` every optimum shares:

* matches: in every ``(file, label)`` all truth or all predicted events are matched,
  so no matching has more (and the matches of each label are fixed);
* substitutions: in every file as many as the fewer leftovers of the two sides,
  which no matching with the most matches can exceed
  (the leftovers per label are fixed by the matches);
  a side not used up has leftovers of one label only,
  and one side's leftovers are of one label
  (so which events are paired changes no count per label, nor the confusion counts).

Without that proof (``None``) the caller takes the exact path.
Cost: linear in the events times the band width, never in the pairs of the full graph.
"""

from __future__ import annotations

import numpy as np

from audeval._core.intervals import expand_ranges

from .graph import sort_pairs
from .lexicographic import lexicographic_sorted
from .small import OTHER, SAME


#: Candidate pairs of a file (onset windows) from which the band is tried
DENSE_PAIRS = 1 << 18
#: ... where they are also this many times the file's events
DENSE_RATIO = 16
#: Predictions each side of the band's two centres
BAND = 24


def dense_files(t_key, p_key, t_file, n_files: int, onset: int | None) -> np.ndarray:
    """Per file: whether its onset windows hold more pairs than the band path is for."""
    dense = np.zeros(max(n_files, 1), dtype=bool)
    if onset is None or len(t_key) == 0 or len(p_key) == 0:
        return dense
    lo = np.searchsorted(p_key, t_key - onset, side="left")
    hi = np.searchsorted(p_key, t_key + onset, side="right")
    pairs = np.bincount(t_file, weights=(hi - lo).astype(np.float64), minlength=len(dense))
    events = np.bincount(t_file, minlength=len(dense))
    return (pairs > DENSE_PAIRS) & (pairs > DENSE_RATIO * np.maximum(events, 1))


def _band(t_key, p_key, t_file, p_file, onset: int, n_files: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs within the onset window of each truth event and within :data:`BAND`
    of two centres: the prediction at its onset (plus its rank among equal onsets),
    and the prediction of its rank in the file. Sorted by ``(truth, prediction)``, distinct."""
    n_t = len(t_key)
    lo = np.searchsorted(p_key, t_key - onset, side="left")
    hi = np.searchsorted(p_key, t_key + onset, side="right")
    # rank among truth events of the same key, and within the file
    index = np.arange(n_t, dtype=np.int64)
    new_key = np.ones(n_t, dtype=bool)
    new_key[1:] = t_key[1:] != t_key[:-1]
    run_first = np.maximum.accumulate(np.where(new_key, index, 0))
    at_onset = np.searchsorted(p_key, t_key, side="left") + (index - run_first)
    t_first = np.searchsorted(t_file, np.arange(max(n_files, 1)), side="left")
    p_first = np.searchsorted(p_file, np.arange(max(n_files, 1)), side="left")
    by_rank = p_first[t_file] + (index - t_first[t_file])
    pieces_i, pieces_j = [], []
    for centre in (at_onset, by_rank):
        left = np.clip(centre - BAND, lo, hi)
        right = np.clip(centre + BAND + 1, lo, hi)
        i, j = expand_ranges(left, right)
        pieces_i.append(i)
        pieces_j.append(j)
    i, j = sort_pairs(np.concatenate(pieces_i), np.concatenate(pieces_j))
    keep = np.ones(len(i), dtype=bool)
    keep[1:] = (i[1:] != i[:-1]) | (j[1:] != j[:-1])
    return i[keep], j[keep]


def _one_label(files: np.ndarray, labels: np.ndarray, n_files: int) -> np.ndarray:
    """Per file: whether the events given have at most one label."""
    low = np.full(n_files, np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full(n_files, -1, dtype=np.int64)
    np.minimum.at(low, files, labels)
    np.maximum.at(high, files, labels)
    return high <= low


def _group_counts(groups: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(groups, minlength=n)


def dense_matching(t, p, t_label, p_label, n_files: int, n_labels: int, onset: int, admit):
    """Optimal matching of dense files on a band of the candidate pairs, or ``None`` without proof.

    ``t`` and ``p``: the events of the dense files in canonical order (``key``, ``file``, ...);
    ``admit(i, j)``: the mask of pairs that meet the time conditions beyond the onset window.

    Returns:
        match and substitution per truth event (prediction index or -1)

    """
    n_t, n_p = len(t.key), len(p.key)
    t_file, p_file = t.file, p.file
    # 1. matches: same-label pairs of the band
    i, j = _band(t.key, p.key, t_file, p_file, onset, n_files)
    ok = admit(i, j) & (t_label[i] == p_label[j])
    i, j = i[ok], j[ok]
    match, _ = lexicographic_sorted(n_t, n_p, i, j, np.full(len(i), SAME, dtype=np.int8))
    matched_t = match >= 0
    matched_p = np.zeros(n_p, dtype=bool)
    matched_p[match[matched_t]] = True
    n_groups = max(n_files, 1) * max(n_labels, 1)
    t_group = t_file * n_labels + t_label
    p_group = p_file * n_labels + p_label
    m = _group_counts(t_group[matched_t], n_groups)
    if ((m < _group_counts(t_group, n_groups)) & (m < _group_counts(p_group, n_groups))).any():
        return None  # a label with events left on both sides: not shown to be the most
    # 2. substitutions: leftovers of other labels, on a band of their own numbering
    left_t, left_p = np.flatnonzero(~matched_t), np.flatnonzero(~matched_p)
    substitution = np.full(n_t, -1, dtype=np.int64)
    if len(left_t) and len(left_p):
        a, b = _band(t.key[left_t], p.key[left_p], t_file[left_t], p_file[left_p], onset, n_files)
        i, j = left_t[a], left_p[b]
        ok = admit(i, j) & (t_label[i] != p_label[j])
        i, j = i[ok], j[ok]
        _, substitution = lexicographic_sorted(n_t, n_p, i, j, np.full(len(i), OTHER, dtype=np.int8))
    n = max(n_files, 1)
    s = _group_counts(t_file[substitution >= 0], n)
    rest_t = _group_counts(t_file[left_t], n)
    rest_p = _group_counts(p_file[left_p], n)
    one_t = _one_label(t_file[left_t], t_label[left_t], n)
    one_p = _one_label(p_file[left_p], p_label[left_p], n)
    proven = (
        (s == np.minimum(rest_t, rest_p))  # the most substitutions
        & ((s == rest_t) | one_t)  # substituted per label: fixed
        & ((s == rest_p) | one_p)  # substituting per label: fixed
        & (one_t | one_p | (s == 0))  # pairs of labels (the confusion counts): fixed
    )
    if not proven.all():
        return None
    return match, substitution
