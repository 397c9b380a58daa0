"""First-fit matching in rank order (audmetric, sed_eval "greedy").

Truth events in rank order each take the first still unmatched candidate
in prediction rank order.
It is computed by deferred acceptance in rounds vectorised over all events
(see :func:`greedy_sorted`): linear in the candidate pairs,
with as many rounds as the longest chain of displacements.
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

    ``truth_rank`` is not needed: the order of the pairs gives it.

    First fit in truth order is the unique stable matching when every truth event
    prefers predictions in rank order and every prediction prefers truth events in rank order
    (one common ranking: a prediction taken by an earlier truth event is never given up),
    so it is found by deferred acceptance in rounds vectorised over all events:
    every truth event without a prediction proposes to its next candidate,
    every prediction keeps the earliest truth event that proposed to it so far,
    and the ones it turns away (or drops) propose to their next candidate in the next round.
    Each candidate pair is proposed at most once, so the work is linear in the pairs;
    the number of rounds is the longest chain of displacements (a handful, also on
    one dense file, where waiting for the earliest contender took one round per event).
    """
    match = np.full(n_truth, -1, dtype=np.int64)
    if len(truth) == 0:
        return match
    # truth events as groups of consecutive pairs, numbered in rank order
    first = np.flatnonzero(np.r_[True, truth[1:] != truth[:-1]])
    stop = np.append(first[1:], len(truth))
    lowest = np.full(n_prediction, INT64_MAX, dtype=np.int64)
    # round 1: every group proposes its first candidate; the earliest proposer wins
    groups = np.arange(len(first), dtype=np.int64)
    proposed = prediction[first]
    np.minimum.at(lowest, proposed, groups)
    wins = lowest[proposed] == groups
    lowest[proposed] = INT64_MAX
    holder = np.full(n_prediction, -1, dtype=np.int64)  # group holding each prediction
    holder[proposed[wins]] = groups[wins]
    pointer = first.copy()  # candidate pair each group proposes (or holds)
    active = np.flatnonzero(~wins)
    pointer[active] += 1
    active = active[pointer[active] < stop[active]]
    while len(active):
        proposed = prediction[pointer[active]]
        np.minimum.at(lowest, proposed, active)  # earliest proposer per prediction
        held = holder[proposed]
        wins = (lowest[proposed] == active) & ((held < 0) | (active < held))
        lowest[proposed] = INT64_MAX  # reset what was touched
        won = proposed[wins]
        dropped = holder[won]
        holder[won] = active[wins]
        rejected = np.concatenate([active[~wins], dropped[dropped >= 0]])
        pointer[rejected] += 1
        active = rejected[pointer[rejected] < stop[rejected]]
    taken = np.flatnonzero(holder >= 0)
    group_match = np.full(len(first), -1, dtype=np.int64)
    group_match[holder[taken]] = taken
    match[truth[first]] = group_match
    return match
