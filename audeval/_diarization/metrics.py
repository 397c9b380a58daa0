r"""Diarization and identification error rates from the statistics table.

Options shared by every function here (see :func:`diarization_statistics`):
``collar`` with ``collar_convention="total"`` (pyannote.metrics: total width,
half before and half after a truth boundary) or ``"per_side"`` (NIST md-eval,
dscore, spy-der: the collar on each side), ``skip_overlap``, ``compat``,
``files_duration`` and ``uem``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core.docs import fill
from audeval._core.intervals import group_sum
from audeval._core.ratios import divide, fscore

from audeval._diarization.mapping import _mapped_pairs
from audeval._diarization.options import DIARIZATION
from audeval._diarization.statistics import _Table
from audeval._diarization.table import diarization_table


def _region_columns(table: _Table, regions: str):
    """Per file total, miss, false alarm and per pair the correct time, on ``regions``."""
    pf = table.per_file
    matched = table.matched()
    if regions == "all":
        return pf["total"], pf["miss"], pf["false_alarm"], matched
    matched_overlap = table.pair.get("matched_overlap", table.pair.get("duration_overlap"))
    if regions == "overlap":
        return pf["total_overlap"], pf["miss_overlap"], pf["false_alarm_overlap"], matched_overlap
    total = pf["total"] - pf["total_overlap"]
    miss = pf["miss"] - pf["miss_overlap"]
    false_alarm = pf["false_alarm"] - pf["false_alarm_overlap"]
    if regions == "single":
        false_alarm = false_alarm - pf["false_alarm_silence"]
    return total, miss, false_alarm, matched - matched_overlap


def _components(
    table: _Table, mapping: str, individual_file_mapping: bool, regions: str = "all"
):
    """Per file: total, correct, confusion, false alarm, miss (int64 ns); mapped rows.

    The mapping is found on all scored regions (as spy-der does), then
    the components are taken on ``regions``.
    """
    chosen = _mapped_pairs(table, mapping, individual_file_mapping)
    total, miss, false_alarm, matched = _region_columns(table, regions)
    c_file = table.cooccurrence[0]
    correct = group_sum(c_file[chosen], matched[chosen], table.n_files)
    confusion = total - miss - correct
    return total, correct, confusion, false_alarm, miss, chosen


def _mapped(table: _Table, chosen: np.ndarray):
    """Mapped pairs: file, row of the truth label in ``table.truth``, predicted label,
    co-occurrence, and the predicted label's time."""
    width = max(table.n_labels, 1)
    t_file, t_label, _ = table.truth
    p_file, p_label, p_time = table.prediction
    c_file, c_truth, c_pred, c_time = table.cooccurrence
    f, p = c_file[chosen], c_pred[chosen]
    row = np.searchsorted(t_file * width + t_label, f * width + c_truth[chosen])
    partner_time = p_time[np.searchsorted(p_file * width + p_label, f * width + p)]
    return f, row, p, c_time[chosen], partner_time


def _jaccard(table: _Table, chosen: np.ndarray):
    """Per file: number of truth speakers and sum of their Jaccard errors."""
    n = table.n_files
    t_file, _, t_time = table.truth
    count = np.bincount(t_file, minlength=n).astype(np.float64)
    f, row, _, c, b = _mapped(table, chosen)
    a = t_time[row]
    # Jaccard error of a mapped pair: 1 - c / (a + b - c); an unmapped truth speaker: 1
    # (c can reach a + b - c only where compat="pyannote" counts a speaker's
    # self-overlap twice in c: the pair then overlaps completely)
    union = (a + b - c).astype(np.float64)
    index = np.where(union > 0, np.minimum(divide(c, union, 1.0), 1.0), 1.0)
    loss = np.zeros(n)
    np.add.at(loss, f, index)
    return count, count - loss


def _rate(error, total) -> np.ndarray:
    error = np.asarray(error, dtype=np.float64)
    total = np.asarray(total, dtype=np.float64)
    return np.where(total == 0, np.where(error == 0, 0.0, 1.0), divide(error, total, 0.0))


_SHARED_ARGS = """
    collar: unscored width (seconds or timedelta) around every truth boundary,
        as ``collar_convention`` says
    collar_convention: ``"total"`` (default, pyannote.metrics): ``collar`` is the
        total width, half before and half after each truth boundary;
        ``"per_side"`` (NIST md-eval, dscore, spy-der): ``collar`` on each side
    skip_overlap: do not score regions with two or more truth labels
    compat: ``None`` (NIST rule: a speaker overlapping itself is merged)
        or ``"pyannote"`` (such turns count twice, as in pyannote.metrics)
    files_duration: mapping or Series from file to duration
    uem: scored intervals per file (segmented index or Series; see :func:`read_uem`)
"""


_doc = fill(shared=_SHARED_ARGS)

IDENTITY = {"mapping": "identity", "individual_file_mapping": True}
"""What the identification metrics need whatever the call says: labels compared as they are."""


def _metric(reduce, *, needs=None):
    """Declare a diarization metric: ``reduce(table, options)`` of the family gate's arrays."""
    return DIARIZATION.metric(reduce, gate=diarization_table, needs=needs)


def _table_components(table: _Table, options):
    """:func:`_components` with the call's mapping and regions."""
    return _components(table, options.mapping, options.individual_file_mapping, options.regions)


def _error_rate(table: _Table, options) -> float:
    total, _, confusion, false_alarm, miss, _ = _table_components(table, options)
    return float(_rate(confusion.sum() + false_alarm.sum() + miss.sum(), total.sum()))


def _precision_recall(table: _Table, options) -> tuple[float, float, float]:
    total, correct, _, false_alarm, miss, _ = _table_components(table, options)
    retrieved = total.sum() - miss.sum() + false_alarm.sum()
    precision = float(divide(correct.sum(), retrieved, options.zero_division))
    recall = float(divide(correct.sum(), total.sum(), options.zero_division))
    return precision, recall, float(fscore(precision, recall, beta=options.beta))


def _jaccard_error_rate(table: _Table, options) -> float:
    *_, chosen = _table_components(table, options)
    count, error = _jaccard(table, chosen)
    n = count.sum()
    return float(error.sum() / n) if n > 0 else 1.0


@_metric(_error_rate)
@_doc
def diarization_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    regions: str = "all",
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> float:
    r"""Diarization error rate, summed over files.

    .. math::

        \text{DER} = \frac{\text{confusion} + \text{false alarm} + \text{miss}}
            {\text{total}}

    after mapping predicted labels one-to-one onto truth labels
    so that their co-occurrence is largest
    (see :func:`diarization_statistics` for the components,
    :func:`diarization_mapping` for the mapping).
    If total is 0, the result is 0 without errors and 1 with errors
    (pyannote.metrics' and audmetric's rule).

    ``mapping="optimal"`` with ``individual_file_mapping=True`` (default)
    is ``pyannote.metrics.diarization.DiarizationErrorRate``;
    ``mapping="greedy"`` is ``GreedyDiarizationErrorRate``.
    audmetric 1.4.2's ``diarization_error_rate`` is
    ``mapping="greedy"`` with its ``individual_file_mapping`` (default ``False``:
    one mapping for all files, from the co-occurrence summed over files).
    ``collar=0.25, collar_convention="per_side"`` is NIST md-eval's and dscore's
    ``-c 0.25`` (and spy-der's ``--collar 0.25``), with their mapping:
    found on the scored region before the collars are taken out;
    pyannote.metrics' ``collar=0.5`` is ``collar=0.5`` with the default ``"total"``.

    ``regions`` (spy-der's ``--regions``) restricts the components
    to the elementary segments with :math:`n_t` truth speakers:
    ``"all"``, ``"single"`` (:math:`n_t = 1`), ``"overlap"`` (:math:`n_t \ge 2`),
    ``"nonoverlap"`` (:math:`n_t \le 1`); the mapping is found on all regions.

    Args:
        truth: ground truth Series (e.g. speakers),
            or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table);
            its labels need not be related to the truth labels (e.g. int clusters)
        mapping: ``"optimal"`` (Hungarian algorithm)
            or ``"greedy"`` (largest co-occurrence first;
            ties go to the first truth, then predicted label)
        individual_file_mapping: a mapping per file (as pyannote.metrics),
            else one mapping over all files
        regions: ``"all"``, ``"single"``, ``"overlap"`` or ``"nonoverlap"``
        {shared}

    Returns:
        diarization error rate

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [1, 2], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> diarization_error_rate(truth, prediction, files_duration={"f1": 4})
        0.125
        >>> d = diarization_error_rate(truth, prediction, collar=0.5, files_duration={"f1": 4})
        >>> round(d, 4)
        0.0833
        >>> d = diarization_error_rate(
        ...     truth, prediction, collar=0.25, collar_convention="per_side", files_duration={"f1": 4}
        ... )
        >>> round(d, 4)
        0.0833

    """


@_metric(_error_rate, needs=IDENTITY)
@_doc
def identification_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    regions: str = "all",
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> float:
    r"""Identification error rate, summed over files.

    .. math::

        \text{IER} = \frac{\text{confusion} + \text{false alarm} + \text{miss}}
            {\text{total}}

    with labels compared as they are (no mapping):
    correct time is the co-occurrence of equal truth and predicted labels.
    If total is 0, the result is 0 without errors and 1 with errors.
    Same as ``pyannote.metrics.identification.IdentificationErrorRate``
    and audmetric's ``identification_error_rate``.

    Args:
        truth: ground truth Series, or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table)
        regions: ``"all"``, ``"single"``, ``"overlap"`` or ``"nonoverlap"``
            (see :func:`diarization_error_rate`)
        {shared}

    Returns:
        identification error rate

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["A", "A"], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> identification_error_rate(truth, prediction, files_duration={"f1": 4})
        0.5

    """


@_metric(_precision_recall, needs=IDENTITY)
@_doc
def identification_precision_recall(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    beta: float = 1.0,
    zero_division: float = 1.0,
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> tuple[float, float, float]:
    r"""Identification precision, recall and F-score, summed over files.

    .. math::

        P = \frac{\text{correct}}{\sum_k n_p d_k}, \quad
        R = \frac{\text{correct}}{\text{total}} = \frac{\text{correct}}{\sum_k n_t d_k}

    over elementary segments :math:`k` of length :math:`d_k`,
    with correct the co-occurrence of equal truth and predicted labels
    and :math:`\sum_k n_p d_k = \text{total} - \text{miss} + \text{false alarm}`.
    Same as pyannote.metrics' ``IdentificationPrecision`` and ``IdentificationRecall``
    (undefined values are 1 there: ``zero_division=1.0``).

    Args:
        truth: ground truth Series, or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table)
        beta: weight of recall in the F-score (positive; else ``ValueError``)
        {zero_division}
        {shared}

    Returns:
        precision, recall, F-score

    Examples:
        >>> import audformat
        >>> from audeval import identification_precision_recall
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [3, 4])
        ... )
        >>> identification_precision_recall(truth, prediction, files_duration={"f1": 4})
        (0.7777777777777778, 0.875, 0.823529411764706)

    """


@_metric(_jaccard_error_rate)
@_doc
def jaccard_error_rate(
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
) -> float:
    r"""Jaccard error rate (DIHARD II): mean over truth speakers of each file.

    With the same mapping as :func:`diarization_error_rate`,
    a truth speaker :math:`r` mapped to a predicted speaker :math:`h`
    has the error

    .. math::

        \text{JER}_r = \frac{\text{false alarm} + \text{miss}}{|r \cup h|}
            = 1 - \frac{|r \cap h|}{|r \cup h|},

    an unmapped truth speaker has the error 1,
    and JER is the mean of :math:`\text{JER}_r`
    over all (file, truth speaker) pairs.
    Without truth speakers the result is 1 (pyannote.metrics' rule).
    Same as ``pyannote.metrics.diarization.JaccardErrorRate``.

    Args:
        truth: ground truth Series, or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table)
        mapping: ``"optimal"`` or ``"greedy"``
        individual_file_mapping: a mapping per file, else one over all files
        {shared}

    Returns:
        Jaccard error rate

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["s1", "s2"], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> round(jaccard_error_rate(truth, prediction, files_duration={"f1": 4}), 4)
        0.225

    """
