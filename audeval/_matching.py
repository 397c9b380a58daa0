"""One-to-one matching of truth and prediction events.

Both matchers take the candidate pairs found by the interval engine
(``truth index, prediction index`` arrays, all groups at once)
and return, for every truth event, the index of its matched prediction or -1.

* :func:`maximum_matching`: maximum cardinality (Hopcroft-Karp in scipy).
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
    # Only the events that appear in a pair enter the graph
    rows, row_codes = np.unique(truth, return_inverse=True)
    cols, col_codes = np.unique(prediction, return_inverse=True)
    graph = scipy.sparse.csr_matrix(
        (np.ones(len(truth), dtype=np.int8), (row_codes, col_codes)),
        shape=(len(rows), len(cols)),
    )
    matched = scipy.sparse.csgraph.maximum_bipartite_matching(graph, perm_type="column")
    ok = matched >= 0
    match[rows[ok]] = cols[matched[ok]]
    return match


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
