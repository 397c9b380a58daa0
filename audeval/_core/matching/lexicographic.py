"""Optimal event matching: the most matches, then the most substitutions.

The candidate graph falls apart into many small independent parts.
Each part is solved by the cheapest exact method:

1. a pair whose truth and prediction have no other candidate is decided directly;
2. blocks cut from the index order (:class:`~._graph.Blocks`) of up to 3 x 3 events
   are looked up in a table of the optima of all such blocks (:func:`~._small.tiny_table`);
   larger blocks, and then connected components, of up to 5 x 5 events
   are solved by enumeration, all blocks of one shape at once (:mod:`._small`);
3. larger components without other-label pairs by maximum flow;
4. larger components with other-label pairs by scipy's sparse
   maximum-weight matching (LAPJVsp), in batches of whole components.

Ties between equally good matchings are broken by index order
(events are numbered in canonical order by the caller),
so the result depends only on the events, never on the order of rows.
"""

from __future__ import annotations

import numpy as np

from .graph import Blocks, components, sort_pairs
from .maximum import flow_matching
from .small import MAX_ASSIGNMENTS, OTHER, POW3, SAME, TINY, n_assignments, solve_blocks, tiny_table


BATCH_SIZE = 2000  # truth events per LAPJVsp call (whole components)
MAX_SIDE = 16  # largest block side looked up in the enumeration-size table
PAD_SIDE = 5  # blocks with both sides up to this are padded to a square shape
PAD_MIN = 3  # ... of at least this side (2 x 2 and 3 x 3 blocks in one call) ...
PAD_MIN_BLOCKS = 5000  # ... where there are at most this many blocks (call overhead dominates)

_SMALL = np.array(
    [[n_assignments(a, b) <= MAX_ASSIGNMENTS for b in range(MAX_SIDE + 1)] for a in range(MAX_SIDE + 1)]
)


def lexicographic_matching(
    n_truth: int,
    n_prediction: int,
    same: tuple[np.ndarray, np.ndarray],
    other: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Most matches first, then most substitutions among the leftovers.

    ``same`` are the candidate pairs with equal labels (matches),
    ``other`` those with different labels (substitutions).
    The number of matches is the maximum,
    and the number of substitutions is the maximum
    over all matchings with that many matches.

    Tie rule: among equally good matchings, truth events in index order
    each take a partner if they can, and the partner with the lowest index
    (the lexicographically first assignment).
    That is exact for independent parts of up to 5 x 5 events (nearly all of them);
    larger parts with other-label pairs take the weighted solver's choice on the
    same numbering, and larger parts without them any maximum matching
    (which leaves the same counts per label).
    Callers number events in (file, start, end, label) order,
    so ties never depend on the order of rows.

    Returns:
        for every truth event the matched prediction or -1,
        and the substituting prediction or -1

    """
    same_t, same_p = (np.asarray(a, dtype=np.int64) for a in same)
    other_t, other_p = (np.asarray(a, dtype=np.int64) for a in other)
    t = np.concatenate([same_t, other_t])
    p = np.concatenate([same_p, other_p])
    kind = np.concatenate(
        [np.full(len(same_t), SAME, dtype=np.int8), np.full(len(other_t), OTHER, dtype=np.int8)]
    )
    t, p, kind = sort_pairs(t, p, kind)
    unique = np.ones(len(t), dtype=bool)
    unique[1:] = (t[1:] != t[:-1]) | (p[1:] != p[:-1])
    return lexicographic_sorted(n_truth, n_prediction, t[unique], p[unique], kind[unique])


def lexicographic_sorted(
    n_truth: int,
    n_prediction: int,
    t: np.ndarray,
    p: np.ndarray,
    kind: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`lexicographic_matching` of distinct pairs sorted by ``(truth, prediction)``.

    ``kind`` is :data:`~._small.SAME` or :data:`~._small.OTHER` per pair.
    """
    match = np.full(n_truth, -1, dtype=np.int64)
    substitution = np.full(n_truth, -1, dtype=np.int64)
    out = (match, substitution)
    if len(t) == 0:
        return out
    # 1. isolated pairs (sorted by truth: a truth event of one pair has no equal neighbour)
    isolated = np.ones(len(t), dtype=bool)
    change = t[1:] != t[:-1]
    isolated[1:] &= change
    isolated[:-1] &= change
    isolated &= np.bincount(p, minlength=n_prediction)[p] == 1
    chosen = np.flatnonzero(isolated)
    _assign(out, t[chosen], p[chosen], kind[chosen])
    rest = np.flatnonzero(~isolated)
    t, p, kind = t[rest], p[rest], kind[rest]
    if len(t) == 0:
        return out
    # 2. small blocks of the index order: up to 3 x 3 events looked up, the others enumerated
    blocks = Blocks.of(n_prediction, t, p)
    tiny = (blocks.n_t <= TINY) & (blocks.n_p <= TINY)
    _solve_tiny(out, t, p, kind, blocks, tiny)
    if tiny.all():
        return out
    rest = np.flatnonzero(~tiny[blocks.block])
    t, p, kind = t[rest], p[rest], kind[rest]
    renumber = np.cumsum(~tiny) - 1
    left = _solve_small(
        out, t, p, kind, renumber[blocks.block[rest]], blocks.local_t[rest], blocks.local_p[rest],
        blocks.n_t[~tiny], blocks.n_p[~tiny],
    )
    t, p, kind = t[left], p[left], kind[left]
    if len(t) == 0:
        return out
    # ... then small components
    component, *parts = components(t, p)
    left = _solve_small(out, t, p, kind, component, *parts)
    t, p, kind, component = t[left], p[left], kind[left], component[left]
    if len(t) == 0:
        return out
    # 3. and 4. large components
    has_other = np.zeros(component.max() + 1, dtype=bool)
    has_other[component[kind == OTHER]] = True
    plain = ~has_other[component]
    if plain.any():
        found_t, found_p = flow_matching(t[plain], p[plain])
        match[found_t] = found_p
    if (~plain).any():
        _solve_weighted(out, t[~plain], p[~plain], kind[~plain], component[~plain])
    return out


def _solve_tiny(out, t, p, kind, blocks: Blocks, tiny: np.ndarray) -> None:
    """Blocks up to 3 x 3 events: their kinds as a base-3 number, the cells of the best
    assignment looked up (a bit per cell)."""
    cell = blocks.local_t * TINY + blocks.local_p
    np.minimum(cell, TINY * TINY - 1, out=cell)  # the cells of larger blocks are not used
    code = np.add.reduceat(kind * POW3[cell], blocks.starts)
    code[~tiny] = 0  # no pairs: nothing taken
    chosen = np.flatnonzero((tiny_table()[code][blocks.block] >> cell) & 1)
    _assign(out, t[chosen], p[chosen], kind[chosen])


def _assign(out, t, p, kind) -> None:
    """Pairs ``(t, p)`` taken: matches or substitutions by ``kind``.

    Every truth event is decided in one step only (its part is solved once),
    so both its entries are still -1 and are written without masking.
    """
    match, substitution = out
    is_same = kind == SAME
    match[t] = np.where(is_same, p, -1)
    substitution[t] = np.where(is_same, -1, p)


def _solve_small(out, t, p, kind, block, local_t, local_p, n_t, n_p) -> np.ndarray:
    """Solve the blocks small enough to enumerate; the pairs of the others are returned as a mask."""
    fits = (n_t <= MAX_SIDE) & (n_p <= MAX_SIDE)
    small = np.zeros(len(n_t), dtype=bool)
    small[fits] = _SMALL[n_t[fits], n_p[fits]]
    # blocks up to 5 x 5 are padded to square shapes (events without pairs change
    # neither the optimum nor the tie rule): few shapes, few calls
    side = np.maximum(n_t, n_p)
    square = side <= PAD_SIDE
    if len(side) <= PAD_MIN_BLOCKS:
        side = np.maximum(side, PAD_MIN)
    shape_t = np.where(square, side, n_t)
    shape_p = np.where(square, side, n_p)
    shape = np.where(small, shape_t * (MAX_SIDE + 1) + shape_p, -1)
    edge_shape = shape.astype(np.int16)[block]  # small codes: radix sort below
    solved = edge_shape >= 0
    # blocks grouped by shape: position of each block among its shape
    block_order = np.argsort(shape, kind="stable")
    sorted_shape = shape[block_order]
    change = np.ones(len(shape) + 1, dtype=bool)
    np.not_equal(sorted_shape[1:], sorted_shape[:-1], out=change[1:-1])
    bounds = np.flatnonzero(change)
    position = np.empty(len(shape), dtype=np.int64)
    position[block_order] = np.arange(len(shape)) - np.repeat(bounds[:-1], np.diff(bounds))
    edge_order = np.argsort(edge_shape, kind="stable")
    edge_bounds = np.searchsorted(edge_shape[edge_order], sorted_shape[bounds[:-1]])
    edge_bounds = np.append(edge_bounds, len(edge_order))
    for k in range(len(bounds) - 1):
        code = sorted_shape[bounds[k]]
        if code < 0:
            continue
        a, b = divmod(int(code), MAX_SIDE + 1)
        n_blocks = int(bounds[k + 1] - bounds[k])
        e = edge_order[edge_bounds[k] : edge_bounds[k + 1]]
        pos, lt, lp = position[block[e]], local_t[e], local_p[e]
        kinds = np.full((n_blocks, a, b), -1, dtype=np.int8)
        kinds[pos, lt, lp] = kind[e]
        truth_of = np.full((n_blocks, a), -1, dtype=np.int64)
        truth_of[pos, lt] = t[e]
        pred_of = np.full((n_blocks, b + 1), -1, dtype=np.int64)
        pred_of[pos, lp] = p[e]
        chosen = solve_blocks(kinds)
        rows, cols = np.nonzero(chosen >= 0)
        local = chosen[rows, cols]
        _assign(out, truth_of[rows, cols], pred_of[rows, local], kinds[rows, cols, local])
    return ~solved


def _solve_weighted(out, t, p, kind, component) -> None:
    """Maximum-weight full matching (LAPJVsp) in batches of whole components.

    Weight ``B`` for a match, 2 for a substitution and 1 for leaving a truth event
    alone (a private dummy partner), where ``B = n + 2`` exceeds any possible number
    of substitutions, so the total ``(B - 1) * matches + substitutions + n``
    orders matchings lexicographically.
    scipy's LAPJVsp touches arrays of the whole graph per augmentation,
    so components are solved in batches of bounded size.
    """
    import scipy.sparse.csgraph  # deferred: heavy, loaded on first use

    match, substitution = out
    # components in order of their first truth event; batches of whole components
    comp_ids, first_edge = np.unique(component, return_index=True)
    comp_rank = np.empty(component.max() + 1, dtype=np.int64)
    comp_rank[comp_ids[np.argsort(t[first_edge], kind="stable")]] = np.arange(len(comp_ids))
    new_truth = np.r_[True, t[1:] != t[:-1]]
    sizes = np.bincount(comp_rank[component[new_truth]], minlength=len(comp_ids))
    batch_of_comp = (np.cumsum(sizes) - sizes) // BATCH_SIZE
    batch = batch_of_comp[comp_rank[component]]
    order = np.argsort(batch, kind="stable")  # keeps (truth, prediction) order within a batch
    bounds = np.flatnonzero(np.r_[True, batch[order][1:] != batch[order][:-1], True])
    for k in range(len(bounds) - 1):
        e = order[bounds[k] : bounds[k + 1]]
        rows_global, rows = np.unique(t[e], return_inverse=True)
        cols_global, cols = np.unique(p[e], return_inverse=True)
        n_t, n_p = len(rows_global), len(cols_global)
        big = float(n_t + 2)
        weights = np.where(kind[e] == SAME, big, 2.0)
        biadjacency = scipy.sparse.csr_matrix(
            (
                np.concatenate([weights, np.ones(n_t)]),
                (np.concatenate([rows, np.arange(n_t)]), np.concatenate([cols, n_p + np.arange(n_t)])),
            ),
            shape=(n_t, n_p + n_t),
        )
        biadjacency.sort_indices()
        row, col = scipy.sparse.csgraph.min_weight_full_bipartite_matching(biadjacency, maximize=True)
        real = col < n_p
        chosen = np.asarray(biadjacency[row[real], col[real]]).ravel()
        is_same = chosen == big
        truth_index, pred_index = rows_global[row[real]], cols_global[col[real]]
        match[truth_index[is_same]] = pred_index[is_same]
        substitution[truth_index[~is_same]] = pred_index[~is_same]
