"""Label mapping of diarization on the sparse co-occurrence table (optimal or greedy)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core.intervals import group_sum
from audeval._core.matching.assignment import greedy_assignment, optimal_assignment
from audeval._core.validation import NS_PER_SECOND

from audeval._diarization.options import DIARIZATION
from audeval._diarization.statistics import _Table
from audeval._diarization.table import diarization_table


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


def _pooled(width: int, truth: np.ndarray, prediction: np.ndarray, time: np.ndarray):
    """Co-occurrence summed over files: distinct (truth, prediction) pairs, their sums,
    and the pair of every row."""
    unique, inverse = np.unique(truth * width + prediction, return_inverse=True)
    inverse = inverse.ravel()
    summed = group_sum(inverse, time, len(unique))
    return unique // width, unique % width, summed, inverse


def _mapped_pairs(
    table: _Table, mapping: str, individual_file_mapping: bool, *, on_mapping_rows: bool = False
) -> np.ndarray:
    """Which co-occurrence rows are pairs of mapped labels.

    With per-side collars (``table.mapping``, md-eval's rule) the mapping maximises the
    co-occurrence before the collars; the pairs it maps are then looked up in the
    co-occurrence after them (``on_mapping_rows=True``: the rows of ``table.mapping``).
    """
    if mapping == "identity":
        return _identity(table)
    rows = table.cooccurrence if table.mapping is None else table.mapping
    c_file, c_truth, c_pred, c_time = rows
    solve = optimal_assignment if mapping == "optimal" else greedy_assignment
    if individual_file_mapping and mapping == "optimal":
        chosen = _optimal_per_file(c_file, c_truth, c_pred, c_time)
    elif individual_file_mapping:
        chosen = solve(c_file, c_truth, c_pred, c_time)
    else:  # one mapping for all files, from the summed co-occurrence
        t, p, summed, inverse = _pooled(max(table.n_labels, 1), c_truth, c_pred, c_time)
        chosen = solve(np.zeros(len(t), np.int64), t, p, summed)[inverse]
    if table.mapping is None or on_mapping_rows:
        return chosen
    width = max(table.n_labels, 1)
    mapped = (c_file[chosen] * width + c_truth[chosen]) * width + c_pred[chosen]
    file, truth, prediction, _ = table.cooccurrence
    return np.isin((file * width + truth) * width + prediction, mapped)


def _optimal_per_file(file, truth, prediction, time) -> np.ndarray:
    """:func:`optimal_assignment` per file, files whose truth labels have distinct best partners first.

    Rows are sorted by (file, truth, prediction). In a file where every truth label's
    best predicted label (largest co-occurrence, ties: the first) is a different one,
    those pairs are the optimal mapping (the upper bound, a sum of row maxima, is reached),
    the choice :func:`optimal_assignment` makes there; the other files go to it.
    """
    selected = np.zeros(len(time), dtype=bool)
    if len(time) == 0:
        return selected
    width = int(max(truth.max(), prediction.max())) + 1
    run = np.cumsum(np.r_[True, (file[1:] != file[:-1]) | (truth[1:] != truth[:-1])]) - 1
    first = np.flatnonzero(np.r_[True, run[1:] != run[:-1]])
    candidate = np.flatnonzero(time == np.maximum.reduceat(time, first)[run])
    best = candidate[np.r_[True, run[candidate[1:]] != run[candidate[:-1]]]]
    partner = np.sort(file[best] * width + prediction[best])
    clash = np.zeros(int(file[-1]) + 1, dtype=bool)
    clash[partner[1:][partner[1:] == partner[:-1]] // width] = True
    selected[best[~clash[file[best]]]] = True
    rest = np.flatnonzero(clash[file])
    if len(rest) == 0:
        return selected
    selected[rest[optimal_assignment(file[rest], truth[rest], prediction[rest], time[rest])]] = True
    return selected


def _mapping_frame(table: _Table, options) -> pd.DataFrame:
    """The mapped pairs of :func:`diarization_mapping` as a frame."""
    individual_file_mapping = options.individual_file_mapping
    chosen = _mapped_pairs(table, options.mapping, individual_file_mapping, on_mapping_rows=True)
    c_file, c_truth, c_pred, c_time = table.cooccurrence if table.mapping is None else table.mapping
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
        t, p, summed, _ = _pooled(max(table.n_labels, 1), t, p, d)
        seconds = summed / NS_PER_SECOND
        order = np.argsort(t, kind="stable")
        index = pd.Index(truth_names[t[order]], name="truth")
        seconds = seconds[order]
    return pd.DataFrame(
        {"prediction": np.asarray(prediction_names[p[order]], dtype=object), "duration": seconds},
        index=index,
    )


@DIARIZATION.metric(_mapping_frame, gate=diarization_table)
def diarization_mapping(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
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
        onto the truth label) and ``duration`` (their co-occurrence in seconds,
        the one the mapping maximises: with ``collar_convention="per_side"``
        the co-occurrence before the collars, as md-eval maps speakers),
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

