"""Splitting a bipartite candidate graph into independent blocks.

Truth and predicted events are numbered in their canonical order
(see :func:`audeval._core.matching.canonical_order`), so the candidate pairs
of an event are near it in both numberings.
:func:`interval_blocks` cuts the numbering where no pair crosses
(contiguous ranges of truth and of prediction indices, found in linear time);
:func:`components` finds the exact connected components of what is left.
"""

from __future__ import annotations

import numpy as np


def sort_pairs(truth: np.ndarray, prediction: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
    """Pairs (and companion arrays) sorted by ``(truth, prediction)``; no copy if already sorted."""
    out = [truth, prediction, *arrays]
    if len(truth) < 2:
        return out
    dt = np.diff(truth)
    if (dt > 0).all() or ((dt >= 0).all() and (np.diff(prediction)[dt == 0] > 0).all()):
        return out
    order = np.lexsort((prediction, truth))
    return [a[order] for a in out]


def interval_blocks(
    n_prediction: int,
    truth: np.ndarray,
    prediction: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Blocks of pairs sorted by ``(truth, prediction)``: cuts where no pair crosses.

    A cut after pair ``e`` is allowed where the truth index changes
    and every prediction before it is lower than every prediction after it.

    Returns:
        block of every pair, local truth and prediction index of every pair
        (rank within the block), and the number of truth and of predicted
        events per block

    """
    return Blocks.of(n_prediction, truth, prediction).parts()


class Blocks:
    """:func:`interval_blocks`, and ``starts``, the first pair of every block
    (blocks are contiguous runs of the pairs)."""

    def __init__(self, block, local_t, local_p, n_t, n_p, starts):
        self.block, self.local_t, self.local_p, self.n_t, self.n_p = block, local_t, local_p, n_t, n_p
        self.starts = starts

    def parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.block, self.local_t, self.local_p, self.n_t, self.n_p

    @classmethod
    def of(cls, n_prediction: int, truth: np.ndarray, prediction: np.ndarray) -> Blocks:
        n = len(truth)
        prefix_max = np.maximum.accumulate(prediction)
        suffix_min = np.minimum.accumulate(prediction[::-1])[::-1]
        new_truth = np.ones(n, dtype=bool)
        np.not_equal(truth[1:], truth[:-1], out=new_truth[1:])
        cut = np.empty(n, dtype=bool)
        np.less(prefix_max[:-1], suffix_min[1:], out=cut[1:])
        cut[1:] &= new_truth[1:]
        cut[0] = n > 0
        block = np.cumsum(cut) - 1
        starts = np.flatnonzero(cut)
        # truth: consecutive distinct indices per block (rank of the first: truth_id at the start)
        truth_id = np.cumsum(new_truth) - 1
        first_t = truth_id[starts]
        local_t = truth_id - first_t[block]
        n_t = np.diff(first_t, append=truth_id[-1] + 1)
        # predictions: blocks hold disjoint, increasing ranges of indices,
        # so the distinct ones of a block are those from its lowest to the next block's lowest
        seen = np.zeros(n_prediction + 1, dtype=np.int64)
        seen[prediction] = 1
        pred_id = np.cumsum(seen) - 1
        first_p = pred_id[suffix_min[starts]]
        local_p = pred_id[prediction] - first_p[block]
        n_p = np.diff(first_p, append=pred_id[-1] + 1)
        return cls(block, local_t, local_p, n_t, n_p, starts)


def components(
    truth: np.ndarray,
    prediction: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Connected components of the pairs, with local indices in index order.

    Returns:
        component of every pair, local truth and prediction index of every pair,
        the number of truth and of predicted events per component

    """
    t_nodes, t_inverse = np.unique(truth, return_inverse=True)
    p_nodes, p_inverse = np.unique(prediction, return_inverse=True)
    n_t, n_p = len(t_nodes), len(p_nodes)
    import scipy.sparse.csgraph  # deferred: heavy, loaded on first use

    graph = scipy.sparse.csr_matrix(
        (np.ones(len(truth), dtype=np.int8), (t_inverse, p_inverse + n_t)),
        shape=(n_t + n_p, n_t + n_p),
    )
    n_comp, label = scipy.sparse.csgraph.connected_components(graph, directed=False)
    comp_t, comp_p = label[:n_t], label[n_t:]
    local_t = _local_rank(comp_t, n_comp)
    local_p = _local_rank(comp_p, n_comp)
    return (
        comp_t[t_inverse],
        local_t[t_inverse],
        local_p[p_inverse],
        np.bincount(comp_t, minlength=n_comp),
        np.bincount(comp_p, minlength=n_comp),
    )


def _local_rank(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Rank of every node within its group, in node order."""
    order = np.argsort(group, kind="stable")
    counts = np.bincount(group, minlength=n_groups)
    first = np.cumsum(counts) - counts
    rank = np.empty(len(group), dtype=np.int64)
    rank[order] = np.arange(len(group)) - np.repeat(first, counts)
    return rank
