"""Exact lexicographic matching of many small blocks at once, by enumeration.

A block is a set of truth and predicted events (a connected component,
or several) whose candidate pairs stay inside the block.
All blocks with the same shape ``(n_truth, n_prediction)``
are solved together: every one-to-one partial assignment of the shape
is scored for every block (one weight per truth event and cell,
summed by one matrix product ``blocks x cells`` times ``cells x assignments``),
and the best assignment per block is taken.
That is exact and vectorised; it is used up to :data:`MAX_ASSIGNMENTS`
assignments per shape (5 x 5 has 1,546).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np


MAX_ASSIGNMENTS = 2000  # assignments per shape solved by enumeration
CHUNK_CELLS = 1_000_000  # blocks x assignments scores computed at once

NONE, OTHER, SAME = 0, 1, 2  # pair kinds; -1 marks "no candidate pair"
INVALID = -float(2**40)  # weight of a pair that is no candidate: any assignment using one scores < 0


def n_assignments(n_truth: int, n_prediction: int) -> int:
    """Number of one-to-one partial assignments of a shape."""
    return sum(
        math.comb(n_truth, k) * math.comb(n_prediction, k) * math.factorial(k)
        for k in range(min(n_truth, n_prediction) + 1)
    )


@functools.lru_cache(maxsize=None)
def assignments(n_truth: int, n_prediction: int) -> tuple[np.ndarray, np.ndarray]:
    """All partial assignments of a shape, in preference order for ties.

    Row ``s`` gives for every truth event its prediction or ``n_prediction`` (none).
    Rows are sorted lexicographically, so an earlier row is preferred:
    the first truth event gets a partner if it can, and the earliest one, then the second...

    Returns:
        assignment table ``(n_assignments, n_truth)``
        and its tie score (higher is preferred)

    """
    rows = []
    for chosen in itertools.product(range(n_prediction + 1), repeat=n_truth):
        used = [c for c in chosen if c < n_prediction]
        if len(used) == len(set(used)):
            rows.append(chosen)
    table = np.array(sorted(rows), dtype=np.int64).reshape(-1, n_truth)
    tie = np.arange(len(table), 0, -1, dtype=np.int64)
    return table, tie


@functools.lru_cache(maxsize=None)
def _shape(n_truth: int, n_prediction: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`solve_blocks` needs of a shape, built once.

    Returns:
        the assignment table with -1 for "none", its tie score,
        the 0/1 matrix ``(n_truth * n_prediction, n_assignments)`` of the cells
        (pairs) each assignment takes ("none" weighs 0 and needs no row),
        and the weight per kind + 1 (-1: no pair, NONE, OTHER, SAME)

    """
    table, tie = assignments(n_truth, n_prediction)
    selection = np.zeros((n_truth * n_prediction, len(table)))
    assignment, truth = np.nonzero(table < n_prediction)
    selection[truth * n_prediction + table[assignment, truth], assignment] = 1.0
    span = len(table) + 1
    weight = np.array([INVALID, 0.0, span, (n_truth + 1) * span])
    chosen = np.where(table < n_prediction, table, -1)
    for array in (chosen, tie, selection, weight):
        array.flags.writeable = False
    return chosen, tie, selection, weight


def solve_blocks(
    kinds: np.ndarray,
) -> np.ndarray:
    """Best assignment per block of one shape.

    The score of an assignment is
    ``(matches * (n_truth + 1) + substitutions) * span + tie``
    (``span`` exceeds every tie score, ties prefer earlier assignments),
    a sum of one weight per truth event and its chosen cell
    (a pair that is no candidate weighs :data:`INVALID`, so any assignment using one scores < 0;
    leaving a truth event alone weighs 0).
    All assignments of all blocks are scored by one product with the 0/1 matrix
    of the cells every assignment takes; the sums are integers far below 2**53,
    so float64 is exact.

    Args:
        kinds: ``(blocks, n_truth, n_prediction)`` int8 array:
            :data:`SAME`, :data:`OTHER`, or -1 where there is no candidate pair

    Returns:
        ``(blocks, n_truth)`` local prediction index per truth event, or -1

    """
    n_blocks, n_truth, n_prediction = kinds.shape
    table, tie, selection, weight = _shape(n_truth, n_prediction)
    weights = weight.take(kinds.reshape(n_blocks, -1).astype(np.intp) + 1)
    best = np.empty(n_blocks, dtype=np.int64)
    step = max(CHUNK_CELLS // max(len(table), 1), 1)
    for first in range(0, n_blocks, step):
        score = weights[first : first + step] @ selection  # blocks x assignments
        score += tie
        best[first : first + step] = np.argmax(score, axis=1)
    return table[best]


TINY = 3  # blocks up to TINY x TINY are solved by looking their kinds up in tiny_table()
TINY_CELLS = TINY * TINY
#: 3**cell: the kinds of a tiny block as one base-3 number (digit 0: no pair, OTHER, SAME)
POW3 = 3 ** np.arange(TINY_CELLS, dtype=np.int64)


@functools.lru_cache(maxsize=None)
def tiny_table() -> np.ndarray:
    """:func:`solve_blocks` of every ``TINY x TINY`` block, indexed by its kinds in base 3.

    Digit ``local_truth * TINY + local_prediction`` of the index is the kind of that cell
    (0 where there is no candidate pair). A smaller block is the same block padded
    with events without pairs, which change neither the optimum nor the tie rule.
    Built once (19,683 blocks, a few milliseconds); read-only.

    Returns:
        per block an int64 whose bit ``local_truth * TINY + local_prediction``
        is set where the best assignment takes that cell

    """
    digits = (np.arange(3**TINY_CELLS, dtype=np.int64)[:, None] // POW3) % 3
    kinds = np.where(digits == 0, -1, digits).astype(np.int8).reshape(-1, TINY, TINY)
    chosen = solve_blocks(kinds)  # (blocks, TINY) local prediction or -1
    cell = np.arange(TINY, dtype=np.int64) * TINY + chosen
    table = np.where(chosen >= 0, np.left_shift(1, np.maximum(cell, 0)), 0).sum(axis=1)
    table.flags.writeable = False
    return table
