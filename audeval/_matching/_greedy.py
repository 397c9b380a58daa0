"""First-fit matching in rank order (audmetric, sed_eval "greedy").

Truth events in rank order each take the first still unmatched candidate
in prediction rank order.
It is computed in rounds that are vectorised over all events:
a proposal is final when no earlier unresolved truth event
could still take that prediction.
The number of rounds is the length of the longest chain
of truth events that compete for shared predictions,
typically a handful.
"""

from __future__ import annotations

import numpy as np


INT64_MAX = np.iinfo(np.int64).max


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

    Returns:
        for every truth event the matched prediction or -1

    """
    truth = np.asarray(truth, dtype=np.int64)
    prediction = np.asarray(prediction, dtype=np.int64)
    if len(truth) == 0:
        return np.full(n_truth, -1, dtype=np.int64)
    truth_rank = np.asarray(truth_rank, dtype=np.int64)
    prediction_rank = np.asarray(prediction_rank, dtype=np.int64)
    # one int64 key orders pairs by (truth rank, prediction rank)
    key = truth_rank[truth] * np.int64(max(n_prediction, 1)) + prediction_rank[prediction]
    order = np.argsort(key)
    return greedy_sorted(n_truth, n_prediction, truth[order], prediction[order], truth_rank)


def greedy_sorted(
    n_truth: int,
    n_prediction: int,
    truth: np.ndarray,
    prediction: np.ndarray,
    truth_rank: np.ndarray | None = None,
) -> np.ndarray:
    """:func:`greedy_matching` for pairs already sorted by (truth rank, prediction rank).

    ``truth_rank=None``: the rank is the index.
    """
    match = np.full(n_truth, -1, dtype=np.int64)
    taken = np.zeros(n_prediction, dtype=bool)
    resolved = np.zeros(n_truth, dtype=bool)
    lowest = np.full(n_prediction, INT64_MAX, dtype=np.int64)
    first_round = True
    while len(truth):
        if not first_round:
            keep = ~taken[prediction] & ~resolved[truth]
            truth, prediction = truth[keep], prediction[keep]
            if len(truth) == 0:
                break
        first_round = False
        rank = truth if truth_rank is None else truth_rank[truth]
        # the earliest unresolved truth event that wants each prediction
        np.minimum.at(lowest, prediction, rank)
        # each truth event proposes its first available candidate
        first = np.ones(len(truth), dtype=bool)
        first[1:] = truth[1:] != truth[:-1]
        t, p, r = truth[first], prediction[first], rank[first]
        accept = lowest[p] == r
        lowest[prediction] = INT64_MAX  # reset what was touched
        match[t[accept]] = p[accept]
        taken[p[accept]] = True
        resolved[t[accept]] = True
    return match
