"""One-to-one matching of truth and prediction events.

Both matchers take the candidate pairs found by the interval engine
(``truth index, prediction index`` arrays, all groups at once)
and return, for every truth event, the index of its matched prediction or -1.

* :func:`maximum_matching`: maximum cardinality (Hopcroft-Karp in scipy).
* :func:`lexicographic_matching`: the most same-label matches,
  and among all such matchings one that leaves the most
  other-label pairs (substitutions) among the leftovers;
  a maximum-weight matching, solved only on the connected components
  that hold other-label pairs.
* :func:`greedy_matching`: truth events in rank order each take
  the first still unmatched candidate in prediction rank order,
  the rule of audmetric and of sed_eval's "greedy" mode.
  It is computed in rounds that are vectorised over all events:
  a proposal is final when no earlier unresolved truth event
  could still take that prediction.
  The number of rounds is the length of the longest chain
  of truth events that compete for shared predictions,
  typically a handful.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph


BATCH_SIZE = 2000  # truth events per LAPJVsp call (whole components)


def maximum_matching(
    n_truth: int,
    n_prediction: int,
    truth: np.ndarray,
    prediction: np.ndarray,
) -> np.ndarray:
    """Maximum-cardinality one-to-one matching of candidate pairs."""
    match = np.full(n_truth, -1, dtype=np.int64)
    if len(truth) == 0:
        return match
    graph = scipy.sparse.csr_matrix(
        (np.ones(len(truth), dtype=np.int8), (truth, prediction)),
        shape=(n_truth, n_prediction),
    )
    return np.asarray(
        scipy.sparse.csgraph.maximum_bipartite_matching(graph, perm_type="column"),
        dtype=np.int64,
    )


def greedy_matching(
    n_truth: int,
    n_prediction: int,
    truth: np.ndarray,
    prediction: np.ndarray,
    truth_rank: np.ndarray,
    prediction_rank: np.ndarray,
) -> np.ndarray:
    """First-fit matching in rank order (audmetric, sed_eval "greedy").

    Args:
        n_truth: number of truth events
        n_prediction: number of predicted events
        truth: truth index of every candidate pair
        prediction: prediction index of every candidate pair
        truth_rank: processing order of truth events (unique ranks)
        prediction_rank: preference order of predicted events (unique ranks)

    """
    match = np.full(n_truth, -1, dtype=np.int64)
    if len(truth) == 0:
        return match
    order = np.lexsort((prediction_rank[prediction], truth_rank[truth]))
    truth, prediction = truth[order], prediction[order]
    taken = np.zeros(n_prediction, dtype=bool)
    resolved = np.zeros(n_truth, dtype=bool)
    lowest = np.full(n_prediction, np.iinfo(np.int64).max, dtype=np.int64)
    while len(truth):
        keep = ~taken[prediction] & ~resolved[truth]
        truth, prediction = truth[keep], prediction[keep]
        if len(truth) == 0:
            break
        rank = truth_rank[truth]
        # the earliest unresolved truth event that wants each prediction
        np.minimum.at(lowest, prediction, rank)
        # each truth event proposes its first available candidate
        first = np.ones(len(truth), dtype=bool)
        first[1:] = truth[1:] != truth[:-1]
        t, p = truth[first], prediction[first]
        accept = lowest[p] == truth_rank[t]
        lowest[prediction] = np.iinfo(np.int64).max  # reset what was touched
        match[t[accept]] = p[accept]
        taken[p[accept]] = True
        resolved[t[accept]] = True
    return match


def lexicographic_matching(
    n_truth: int,
    n_prediction: int,
    same: tuple[np.ndarray, np.ndarray],
    other: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Most matches first, then most substitutions among the leftovers.

    ``same`` are the candidate pairs with equal labels (matches),
    ``other`` those with different labels (substitutions).
    The result does not depend on the order of events:
    the number of matches is the maximum,
    and the number of substitutions is the maximum
    over all matchings with that many matches.

    Components of the candidate graph without other-label pairs
    are solved by :func:`maximum_matching`;
    the others by a maximum-weight full matching (scipy's LAPJVsp)
    with weight ``B`` for a match, 2 for a substitution,
    and 1 for leaving a truth event alone (a private dummy partner),
    where ``B = n + 2`` exceeds any possible number of substitutions,
    so the total weight ``(B - 1) * matches + substitutions + n``
    orders matchings lexicographically.

    Returns:
        for every truth event the matched prediction or -1,
        and the substituting prediction or -1

    """
    same_t, same_p = same
    other_t, other_p = other
    match = maximum_matching(n_truth, n_prediction, same_t, same_p)
    substitution = np.full(n_truth, -1, dtype=np.int64)
    if len(other_t) == 0:
        return match, substitution
    # connected components of the union graph (truth nodes, then prediction nodes)
    rows = np.concatenate([same_t, other_t])
    cols = np.concatenate([same_p, other_p]) + n_truth
    n_nodes = n_truth + n_prediction
    graph = scipy.sparse.coo_matrix(
        (np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n_nodes, n_nodes)
    ).tocsr()
    _, component = scipy.sparse.csgraph.connected_components(graph, directed=False)
    hard = np.zeros(component.max() + 1, dtype=bool)
    hard[component[other_t]] = True
    hard_t = np.flatnonzero(hard[component[:n_truth]])
    hard_p = np.flatnonzero(hard[component[n_truth:]])
    local_t = np.full(n_truth, -1, dtype=np.int64)
    local_t[hard_t] = np.arange(len(hard_t))
    local_p = np.full(n_prediction, -1, dtype=np.int64)
    local_p[hard_p] = np.arange(len(hard_p))
    # scipy's LAPJVsp touches arrays of the whole graph per augmentation,
    # so components are solved in batches of whole components of bounded size
    match[hard_t] = -1
    comp_t = component[hard_t]
    weight_rows = np.concatenate([local_t[same_t[local_t[same_t] >= 0]], local_t[other_t]])
    weight_cols = np.concatenate([local_p[same_p[local_t[same_t] >= 0]], local_p[other_p]])
    is_same = np.concatenate(
        [np.ones(int((local_t[same_t] >= 0).sum()), bool), np.zeros(len(other_t), bool)]
    )
    # batch id per component: cumulative truth count in component order
    order = np.argsort(comp_t, kind="stable")
    sizes = np.bincount(comp_t, minlength=len(hard))
    batch_of_component = np.cumsum(sizes) // BATCH_SIZE
    batch_t = batch_of_component[comp_t]
    batch_p = batch_of_component[component[n_truth + hard_p]]
    edge_batch = batch_t[weight_rows]
    edge_order = np.argsort(edge_batch, kind="stable")
    t_order = np.argsort(batch_t, kind="stable")
    p_order = np.argsort(batch_p, kind="stable")
    batches = np.unique(batch_t)
    edge_bounds = np.searchsorted(edge_batch[edge_order], np.append(batches, batches[-1] + 1))
    t_bounds = np.searchsorted(batch_t[t_order], np.append(batches, batches[-1] + 1))
    p_bounds = np.searchsorted(batch_p[p_order], np.append(batches, batches[-1] + 1))
    del order
    for k in range(len(batches)):
        rows_k = t_order[t_bounds[k] : t_bounds[k + 1]]
        cols_k = p_order[p_bounds[k] : p_bounds[k + 1]]
        edges = edge_order[edge_bounds[k] : edge_bounds[k + 1]]
        row_map = np.full(len(hard_t), -1, dtype=np.int64)
        row_map[rows_k] = np.arange(len(rows_k))
        col_map = np.full(len(hard_p), -1, dtype=np.int64)
        col_map[cols_k] = np.arange(len(cols_k))
        n_t, n_p = len(rows_k), len(cols_k)
        big = float(n_t + 2)
        biadjacency = scipy.sparse.csr_matrix(
            (
                np.concatenate([np.where(is_same[edges], big, 2.0), np.ones(n_t)]),
                (
                    np.concatenate([row_map[weight_rows[edges]], np.arange(n_t)]),
                    np.concatenate([col_map[weight_cols[edges]], n_p + np.arange(n_t)]),
                ),
            ),
            shape=(n_t, n_p + n_t),
        )
        row, col = scipy.sparse.csgraph.min_weight_full_bipartite_matching(
            biadjacency, maximize=True
        )
        chosen = np.asarray(biadjacency[row, col]).ravel()
        is_match = chosen == big
        is_substitution = chosen == 2.0
        match[hard_t[rows_k[row[is_match]]]] = hard_p[cols_k[col[is_match]]]
        substitution[hard_t[rows_k[row[is_substitution]]]] = hard_p[cols_k[col[is_substitution]]]
    return match, substitution
