"""Label assignment: one-to-one mappings of labels by weight (greedy, optimal, dense).

Used by diarization (speakers to clusters per file or globally, on the sparse
co-occurrence table) and separation (estimates to sources): the label-assignment
side of the matching layer, family-agnostic.
"""

from __future__ import annotations

import itertools

import numpy as np

from audeval._core.intervals import runs as _runs

_EMPTY = np.zeros(0, dtype=np.int64)


def _node_ids(group: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Dense ids of (group, label) pairs."""
    if len(group) == 0:
        return _EMPTY
    width = int(label.max()) + 1
    _, ids = np.unique(group * width + label, return_inverse=True)
    return ids.astype(np.int64).ravel()


def greedy_assignment(group, row, col, weight) -> np.ndarray:
    """Greedy one-to-one mapping: largest co-occurrence first, per group.

    Identical to taking the largest remaining entry again and again
    (audmetric, pyannote.metrics' ``GreedyMapper``);
    ties go to the smaller truth label, then the smaller predicted label.
    Solved in rounds: every edge that is the best remaining one
    of both its row and its column is taken by the sequential greedy,
    so all such edges are accepted at once.
    """
    n = len(weight)
    selected = np.zeros(n, dtype=bool)
    if n == 0:
        return selected
    order = np.lexsort((col, row, -weight, group))
    row_id = _node_ids(group, row)[order]
    col_id = _node_ids(group, col)[order]
    used_row = np.zeros(int(row_id.max()) + 1, dtype=bool)
    used_col = np.zeros(int(col_id.max()) + 1, dtype=bool)
    alive = np.arange(n)
    while len(alive):
        r, c = row_id[alive], col_id[alive]
        best_row = np.zeros(len(alive), dtype=bool)
        best_row[np.unique(r, return_index=True)[1]] = True
        best_col = np.zeros(len(alive), dtype=bool)
        best_col[np.unique(c, return_index=True)[1]] = True
        accepted = alive[best_row & best_col]
        selected[order[accepted]] = True
        used_row[row_id[accepted]] = True
        used_col[col_id[accepted]] = True
        alive = alive[~(used_row[r] | used_col[c])]
    return selected


def optimal_assignment(group, row, col, weight) -> np.ndarray:
    """Maximum-weight one-to-one mapping per group (Hungarian algorithm).

    The bipartite graph of co-occurring labels is split into connected components.
    Components where every row (or every column) has a distinct best partner
    are solved directly (each takes its best partner: an upper bound reached);
    the others, usually few and small, by ``scipy.optimize.linear_sum_assignment``
    on their own dense matrix.
    """
    n = len(weight)
    selected = np.zeros(n, dtype=bool)
    if n == 0:
        return selected
    row_id = _node_ids(group, row)
    col_id = _node_ids(group, col)
    n_rows, n_cols = int(row_id.max()) + 1, int(col_id.max()) + 1
    import scipy.optimize  # deferred: heavy, loaded on first use
    import scipy.sparse.csgraph

    graph = scipy.sparse.coo_matrix(
        (np.ones(n), (row_id, n_rows + col_id)), shape=(n_rows + n_cols,) * 2
    )
    _, component = scipy.sparse.csgraph.connected_components(graph, directed=False)
    edge_component = component[row_id]

    # fast path: a side whose best partners are all distinct
    order = np.lexsort((col, row, -weight))
    solved = np.zeros(int(component.max()) + 1, dtype=bool)
    for ids in (row_id, col_id):
        other = col_id if ids is row_id else row_id
        first = np.unique(ids[order], return_index=True)[1]
        best = order[first]  # best edge of every node of this side
        partner_component = edge_component[best]
        partners = other[best]
        # components where no partner is chosen twice
        counts = np.bincount(partners, minlength=int(other.max()) + 1)
        clash = np.zeros(len(solved), dtype=bool)
        clash[partner_component[counts[partners] > 1]] = True
        good = ~clash & ~solved
        take = best[good[partner_component]]
        selected[take] = True
        solved |= good

    # the rest: exhaustive search over all mappings, batched over components
    # of the same size (up to EXHAUSTIVE labels a side), else one assignment each
    rest = np.flatnonzero(~solved[edge_component])
    if len(rest) == 0:
        return selected
    comp = edge_component[rest]
    local_row, n_local_rows = _local_ids(comp, row_id[rest])
    local_col, n_local_cols = _local_ids(comp, col_id[rest])
    size = np.maximum(n_local_rows, n_local_cols)  # per component
    edge_size = size[comp]
    for k in np.unique(edge_size):
        edges = np.flatnonzero(edge_size == k)
        components, c = np.unique(comp[edges], return_inverse=True)
        c = c.ravel()
        if k <= EXHAUSTIVE:
            matrix = np.zeros((len(components), k, k), dtype=np.int64)
            index = np.full((len(components), k, k), -1, dtype=np.int64)
            matrix[c, local_row[edges], local_col[edges]] = weight[rest[edges]]
            index[c, local_row[edges], local_col[edges]] = rest[edges]
            perms = _permutations(int(k))
            score = matrix[:, np.arange(k), perms].sum(axis=-1)  # (components, k!)
            best = perms[np.argmax(score, axis=1)]  # (components, k)
            chosen = index[np.arange(len(components))[:, None], np.arange(k), best].ravel()
            selected[chosen[chosen >= 0]] = True
            continue
        order = np.argsort(c, kind="stable")
        bounds = np.flatnonzero(np.r_[True, np.diff(c[order]) != 0, True])
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            e = edges[order[lo:hi]]
            matrix = np.zeros((k, k))
            index = np.full((k, k), -1, dtype=np.int64)
            matrix[local_row[e], local_col[e]] = weight[rest[e]]
            index[local_row[e], local_col[e]] = rest[e]
            rr, cc = scipy.optimize.linear_sum_assignment(matrix, maximize=True)
            chosen = index[rr, cc]
            selected[chosen[chosen >= 0]] = True
    return selected


EXHAUSTIVE = 5


def _permutations(k: int) -> np.ndarray:
    """All permutations of ``range(k)`` as a (k!, k) array."""
    return np.array(list(itertools.permutations(range(k))), dtype=np.int64).reshape(-1, k)


def _local_ids(component: np.ndarray, node: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each node within its component, and the node count per component."""
    width = int(node.max()) + 1
    unique, inverse = np.unique(component * width + node, return_inverse=True)
    unique_component = unique // width
    run, first = _runs(unique_component)
    rank = np.arange(len(unique)) - first[run]
    counts = np.zeros(int(component.max()) + 1, dtype=np.int64)
    counts[unique_component[first]] = np.diff(np.r_[first, len(unique)])
    return rank[inverse.ravel()], counts


def dense_assignment(cost: np.ndarray) -> np.ndarray:
    """Minimum-cost one-to-one assignment of the rows of a dense matrix: column per row, -1 if none."""
    import scipy.optimize  # deferred: heavy, loaded on first use

    rows, cols = scipy.optimize.linear_sum_assignment(cost)
    assignment = np.full(cost.shape[0], -1, dtype=np.int64)
    assignment[rows] = cols
    return assignment


__all__ = ["dense_assignment", "greedy_assignment", "optimal_assignment"]
