"""Event matching on validated arrays: candidate pairs, then optimal or greedy matching."""

from __future__ import annotations

import numpy as np

from audeval._intervals import window_join

from ._graph import sort_pairs
from ._greedy import greedy_sorted
from ._lexicographic import lexicographic_sorted
from ._order import canonical_order, onset_pairs, time_keys


def match_segments(truth, prediction, n_files: int, tol, matching: str) -> tuple[np.ndarray, np.ndarray]:
    """Match validated events (:class:`audeval._validation.Segments`) per file.

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
    match = np.full(n_truth, -1, dtype=np.int64)
    substitution = np.full(n_truth, -1, dtype=np.int64)
    if n_truth == 0 or n_pred == 0:
        return match, substitution
    join = tol.widened()  # tol itself unless a compat mode filters the pairs below
    margin = join.onset if join.onset is not None else 0
    t_key, p_key = time_keys(n_files, margin, (truth.file, truth.start), (prediction.file, prediction.start))
    t_order, t_sorted = canonical_order(t_key, truth.end, truth.label, truth.position)
    p_order, p_sorted = canonical_order(p_key, prediction.end, prediction.label, prediction.position)
    t_end, t_label = truth.end[t_order], truth.label[t_order]
    p_end, p_label = prediction.end[p_order], prediction.label[p_order]
    if join.onset is not None:
        i, j = onset_pairs(t_sorted, p_sorted, join.onset)
        if join.offset_evaluated:
            allowance = join.offset_allowance(truth.start, truth.end)[t_order]
            ok = np.abs(t_end[i] - p_end[j]) <= allowance[i]
            i, j = i[ok], j[ok]
    else:
        allowance = join.offset_allowance(truth.start, truth.end)[t_order]
        i, j = window_join(
            max(n_files, 1), prediction.file[p_order], p_end, truth.file[t_order],
            t_end - allowance, t_end + allowance,
        )
        i, j = sort_pairs(i, j)
    if join is not tol:
        ok = tol.admits(truth.start[t_order][i], t_end[i], prediction.start[p_order][j], p_end[j])
        i, j = i[ok], j[ok]
    same = t_label[i] == p_label[j]
    if matching == "optimal":
        kind = np.where(same, np.int8(2), np.int8(1))
        m, s = lexicographic_sorted(n_truth, n_pred, i, j, kind)
    else:
        m = greedy_sorted(n_truth, n_pred, i[same], j[same])
        used = np.zeros(n_pred, dtype=bool)
        used[m[m >= 0]] = True
        left = ~same & (m[i] < 0) & ~used[j]
        s = greedy_sorted(n_truth, n_pred, i[left], j[left])
    found = m >= 0
    match[t_order[found]] = p_order[m[found]]
    found = s >= 0
    substitution[t_order[found]] = p_order[s[found]]
    return match, substitution
