"""Label mapping of diarization on the sparse co-occurrence table (optimal or greedy)."""

from __future__ import annotations

from collections.abc import Mapping
import itertools

import numpy as np
import pandas as pd
import scipy.optimize
import scipy.sparse
import scipy.sparse.csgraph

from audeval._intervals import group_sum
from audeval._options import Default
from audeval._validation import NS_PER_SECOND

from audeval._diarization import _options as opt
from audeval._diarization._region import _EMPTY
from audeval._diarization._statistics import _runs, _Table


def _node_ids(group: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Dense ids of (group, label) pairs."""
    if len(group) == 0:
        return _EMPTY
    width = int(label.max()) + 1
    _, ids = np.unique(group * width + label, return_inverse=True)
    return ids.astype(np.int64).ravel()


def _greedy(group, row, col, weight) -> np.ndarray:
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


def _optimal(group, row, col, weight) -> np.ndarray:
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




def _identity(table: _Table) -> np.ndarray:
    """Co-occurrence rows whose truth and predicted labels are equal."""
    _, c_truth, c_pred, _ = table.cooccurrence
    to_truth = np.asarray(
        pd.Index(table.truth_labels, dtype=object).get_indexer(
            pd.Index(table.prediction_labels, dtype=object)
        ),
        dtype=np.int64,
    )
    if len(c_pred) == 0:
        return np.zeros(0, dtype=bool)
    return to_truth[c_pred] == c_truth


def _mapped_pairs(table: _Table, mapping: str, individual_file_mapping: bool) -> np.ndarray:
    """Which co-occurrence rows are pairs of mapped labels."""
    c_file, c_truth, c_pred, c_time = table.cooccurrence
    if mapping == "identity":
        return _identity(table)
    solve = _optimal if mapping == "optimal" else _greedy
    if individual_file_mapping:
        return solve(c_file, c_truth, c_pred, c_time)
    # one mapping for all files, from the summed co-occurrence
    width = max(table.n_labels, 1)
    key = c_truth * width + c_pred
    unique, inverse = np.unique(key, return_inverse=True)
    summed = group_sum(inverse.ravel(), c_time, len(unique))
    chosen = solve(np.zeros(len(unique), np.int64), unique // width, unique % width, summed)
    return chosen[inverse.ravel()]


def _check_mapping(mapping, individual_file_mapping, allow_identity=False):
    opt.check_mapping(mapping, individual_file_mapping, allow_identity)


def diarization_mapping(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    collar: float | pd.Timedelta = Default(0.0),
    collar_convention: str = Default("total"),
    skip_overlap: bool = Default(False),
    compat: str | None = Default(None),
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> pd.DataFrame:
    r"""The one-to-one label mapping that the diarization metrics use.

    Predicted labels are mapped onto truth labels so that the summed co-occurrence
    :math:`\sum_{(r, h)} |r \cap h|` of mapped pairs is largest
    (``mapping="optimal"``, Hungarian algorithm,
    pyannote.metrics' ``DiarizationErrorRate.optimal_mapping``),
    or by taking the pair of largest co-occurrence again and again
    (``mapping="greedy"``, ``GreedyDiarizationErrorRate.greedy_mapping``;
    ties go to the first truth, then predicted label).
    Only pairs that co-occur are mapped;
    a label without partner is absent from the result.

    Args:
        truth: ground truth Series, or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table)
        mapping: ``"optimal"`` or ``"greedy"``
        individual_file_mapping: a mapping per file (pyannote.metrics),
            else one mapping over all files from the co-occurrence summed over files
            (audmetric)
        collar: unscored width around every truth boundary (seconds or timedelta);
            ``collar_convention="total"`` (default, pyannote.metrics): total width,
            ``"per_side"`` (md-eval, dscore, spy-der): on each side
        collar_convention: ``"total"`` or ``"per_side"``
        skip_overlap: do not score regions with two or more truth labels
        compat: ``None`` or ``"pyannote"`` (see :func:`diarization_statistics`)
        files_duration: mapping or Series from file to duration
        uem: scored intervals per file (see :func:`diarization_statistics`)

    Returns:
        DataFrame with the columns ``prediction`` (the predicted label mapped
        onto the truth label) and ``duration`` (their co-occurrence in seconds),
        indexed by ``(file, truth)`` for a mapping per file,
        by ``truth`` for one mapping over all files

    Examples:
        >>> import audformat
        >>> from audeval import diarization_mapping
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [7, 3], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> diarization_mapping(truth, prediction, files_duration={"f1": 4})
                    prediction  duration
        file truth
        f1   A               7       2.0
             B               3       1.5

    """
    from audeval._diarization._table import _diarization_input, _options

    _check_mapping(mapping, individual_file_mapping)
    options = _options(collar, collar_convention, skip_overlap, compat)
    table = _diarization_input(truth, prediction, options, files_duration, uem)
    chosen = _mapped_pairs(table, mapping, individual_file_mapping)
    c_file, c_truth, c_pred, c_time = table.cooccurrence
    f, t, p, d = c_file[chosen], c_truth[chosen], c_pred[chosen], c_time[chosen]
    truth_names = pd.Index(table.truth_labels, dtype=object)
    prediction_names = pd.Index(table.prediction_labels, dtype=object)
    if individual_file_mapping:
        order = np.lexsort((t, f))
        index = pd.MultiIndex.from_arrays(
            [table.files[f[order]], truth_names[t[order]]], names=["file", "truth"]
        )
        seconds = d[order] / NS_PER_SECOND
    else:
        key = t * max(table.n_labels, 1) + p
        unique, inverse = np.unique(key, return_inverse=True)
        seconds = group_sum(inverse.ravel(), d, len(unique)) / NS_PER_SECOND
        width = max(table.n_labels, 1)
        t, p = unique // width, unique % width
        order = np.argsort(t, kind="stable")
        index = pd.Index(truth_names[t[order]], name="truth")
        seconds = seconds[order]
    return pd.DataFrame(
        {"prediction": np.asarray(prediction_names[p[order]], dtype=object), "duration": seconds},
        index=index,
    )
