r"""Cluster metrics of diarization from the co-occurrence table (pyannote.metrics).

With :math:`m_{rh}` the co-occurrence of truth label :math:`r` and predicted label
:math:`h` in a file (seconds in the scored region), :math:`|r|`, :math:`|h|` their
speaking times, summed over files:

* purity :math:`= \sum_h \max_r m_{rh} / \sum_h |h|`,
  coverage :math:`= \sum_r \max_h m_{rh} / \sum_r |r|`
  (overlap-aware: the denominators are speaking times, pyannote.metrics >= 3.3),
  always on label supports (a label overlapping itself counts once,
  under ``compat="pyannote"`` too, as in pyannote.metrics);
* homogeneity :math:`= 1 - \sum_f H_f(R|H) / \sum_f H_f(R)`,
  completeness :math:`= 1 - \sum_f H_f(H|R) / \sum_f H_f(H)`
  with entropies (nats) of the normalised co-occurrence of each file.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core.docs import fill
from audeval._core.intervals import group_sum
from audeval._core.ratios import fscore

from audeval._diarization.options import DIARIZATION
from audeval._diarization.statistics import _Table
from audeval._diarization.table import diarization_table


def _group_max(key: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Largest value per distinct key (keys need not be sorted)."""
    if len(key) == 0:
        return np.zeros(0, dtype=values.dtype)
    _, inverse = np.unique(key, return_inverse=True)
    out = np.zeros(int(inverse.max()) + 1, dtype=values.dtype)
    np.maximum.at(out, inverse.ravel(), values)
    return out


def _purity_parts(table: _Table, swap: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per file: sum of the largest co-occurrence of each cluster, and the clusters' time."""
    n, width = table.n_files, max(table.n_labels, 1)
    # label supports: a label overlapping itself counts once (pyannote.metrics' rule too)
    c_file, c_truth, c_pred, c_time = table.cooccurrence_support()
    if swap:
        cluster, side = c_truth, table.speaking("truth")
    else:
        cluster, side = c_pred, table.speaking("prediction")
    key = c_file * width + cluster
    largest = _group_max(key, c_time)
    first_file = np.unique(key) // width if len(key) else key
    numerator = group_sum(first_file, largest, n)
    denominator = group_sum(side[0], side[2], n)
    return numerator, denominator


def _ratio(numerator, denominator) -> float:
    """Summed numerator over summed denominator; 1.0 where the denominator is 0."""
    numerator, denominator = float(np.sum(numerator)), float(np.sum(denominator))
    return numerator / denominator if denominator > 0 else 1.0


def _entropy_parts(table: _Table, swap: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per file: entropy of the truth marginal and cross-entropy given the prediction (nats)."""
    n, width = table.n_files, max(table.n_labels, 1)
    c_file, c_truth, c_pred, c_time = table.cooccurrence
    rows, cols = (c_pred, c_truth) if swap else (c_truth, c_pred)
    m = c_time.astype(np.float64)
    duration = group_sum(c_file, c_time, n).astype(np.float64)
    entropy = np.zeros(n)
    cross = np.zeros(n)
    if len(m) == 0:
        return entropy, cross
    total = duration[c_file]
    row_key = np.unique(c_file * width + rows, return_inverse=True)
    col_key = np.unique(c_file * width + cols, return_inverse=True)
    row_sum = np.bincount(row_key[1].ravel(), weights=m)
    col_sum = np.bincount(col_key[1].ravel(), weights=m)
    row_file = row_key[0] // width
    p = row_sum / duration[row_file]
    np.add.at(entropy, row_file, -p * np.log(p))
    np.add.at(cross, c_file, -(m / total) * np.log(m / col_sum[col_key[1].ravel()]))
    return entropy, cross


def _homogeneity(entropy, cross) -> float:
    numerator, denominator = float(np.sum(cross)), float(np.sum(entropy))
    if denominator == 0.0:
        return 1.0 if numerator == 0 else 0.0
    return 1.0 - numerator / denominator


_ARGS = """
    truth: ground truth Series, or a table from :func:`diarization_statistics`
    prediction: predicted Series (``None`` with a table)
    collar: unscored width around every truth boundary (seconds or timedelta);
        ``collar_convention="total"`` (default, pyannote.metrics): total width,
        half on each side; ``"per_side"`` (md-eval, dscore, spy-der): on each side
    collar_convention: ``"total"`` or ``"per_side"``
    skip_overlap: do not score regions with two or more truth labels
    compat: ``None`` or ``"pyannote"`` (see :func:`diarization_statistics`)
    files_duration: mapping or Series from file to duration
    uem: scored intervals per file (see :func:`read_uem`)
"""


_doc = fill(args=_ARGS)


def _purity_coverage(table: _Table, options) -> tuple[float, float, float]:
    purity = _ratio(*_purity_parts(table, swap=False))
    coverage = _ratio(*_purity_parts(table, swap=True))
    return purity, coverage, float(fscore(purity, coverage, beta=options.beta))


def _homogeneity_completeness(table: _Table, options) -> tuple[float, float]:
    homogeneity = _homogeneity(*_entropy_parts(table, swap=False))
    completeness = _homogeneity(*_entropy_parts(table, swap=True))
    return homogeneity, completeness


@DIARIZATION.metric(_purity_coverage, gate=diarization_table)
@_doc
def diarization_purity_coverage(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    beta: float = 1.0,
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> tuple[float, float, float]:
    r"""Cluster purity, coverage and their F-score, summed over files.

    .. math::

        \text{purity} = \frac{\sum_f \sum_h \max_r m_{rh}}{\sum_f \sum_h |h|}, \quad
        \text{coverage} = \frac{\sum_f \sum_r \max_h m_{rh}}{\sum_f \sum_r |r|}

    with :math:`m_{rh}` the co-occurrence of truth label :math:`r` and
    predicted label :math:`h` in file :math:`f`, :math:`|r|`, :math:`|h|`
    their speaking times in the scored region (overlap-aware),
    and the F-score :math:`(1 + \beta^2) P C / (\beta^2 P + C)`.
    An empty denominator gives 1.
    Each label is taken on its support (its rows merged: a speaker or cluster
    overlapping itself counts once) with either ``compat``,
    so purity and coverage are at most 1;
    that is pyannote.metrics' rule, which counts such time twice in its DER only.
    Same as pyannote.metrics 4.2's ``DiarizationPurity``, ``DiarizationCoverage``
    and ``f_measure`` (which score the whole annotations:
    pass the same ``files_duration`` extent, no collar, to compare).

    Args:
        {args}
        beta: weight of coverage in the F-score (positive; else ``ValueError``)

    Returns:
        purity, coverage, F-score

    Examples:
        >>> import audformat
        >>> from audeval import diarization_purity_coverage
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [1, 2], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> diarization_purity_coverage(truth, prediction, files_duration={"f1": 4})
        (0.875, 0.875, 0.875)

    """


@DIARIZATION.metric(_homogeneity_completeness, gate=diarization_table)
@_doc
def diarization_homogeneity_completeness(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> tuple[float, float]:
    r"""Cluster homogeneity and completeness, summed over files.

    Per file, with :math:`m_{rh}` the co-occurrence of truth label :math:`r`
    and predicted label :math:`h`, :math:`D = \sum_{rh} m_{rh}`,
    :math:`m_{r\cdot}`, :math:`m_{\cdot h}` the row and column sums:

    .. math::

        H(R) = -\sum_r \frac{m_{r\cdot}}{D} \ln \frac{m_{r\cdot}}{D}, \quad
        H(R|H) = -\sum_{rh} \frac{m_{rh}}{D} \ln \frac{m_{rh}}{m_{\cdot h}},

    homogeneity :math:`= 1 - \sum_f H_f(R|H) / \sum_f H_f(R)`
    and completeness the same with the roles of truth and prediction swapped;
    with a zero denominator the value is 1 if the numerator is 0, else 0.
    Same as pyannote.metrics' ``DiarizationHomogeneity`` and ``DiarizationCompleteness``;
    both are taken on the scored region of the truth (collars around truth boundaries,
    truth overlap skipped), whereas pyannote.metrics 4.2's ``DiarizationCompleteness``
    swaps the roles before cutting collars and overlap out (around the *prediction*):
    with ``collar`` or ``skip_overlap`` its completeness differs.

    Args:
        {args}

    Returns:
        homogeneity, completeness

    Examples:
        >>> import audformat
        >>> from audeval import diarization_homogeneity_completeness
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [1, 1], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> diarization_homogeneity_completeness(truth, prediction, files_duration={"f1": 4})
        (0.0, 1.0)

    """
