"""Precision, recall and F-score at every threshold; best F, F at a threshold, average precision.

Conventions (those of sed_scores_eval, so that its numbers reproduce):
precision :math:`\\text{tp} / (\\text{tp} + \\text{fp})` is 1 where nothing is detected,
recall :math:`\\text{tp} / N` is 1 for a label without truth events,
:math:`F_\\beta = (1 + \\beta^2) P R / \\max(\\beta^2 P + R, 10^{-15})`.
With the intersection criterion ``tp`` counts truth events detected (GTC)
and ``fp`` the detections that are not relevant (DTC).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import numbers

import numpy as np
import pandas as pd

from audeval._core.docs import fill
from audeval._core.report import PerClass
from audeval._sed_scores.gate import accumulated
from audeval._sed_scores.options import SCORE
from audeval._sed_scores.statistics import Accumulated

_ARGS = """
    truth: truth events, or a table of :func:`score_statistics`
    scores: score table (``None`` with a table)
    labels: classes to evaluate
    criterion: ``"intersection"``, ``"collar"``, ``"segment"`` or ``"clip"``
        (:func:`score_statistics`)
    dtc_threshold: detection tolerance criterion (intersection)
    gtc_threshold: ground truth intersection criterion (intersection)
    onset_tolerance: onset collar in seconds (collar)
    offset_tolerance: smallest offset collar in seconds (collar)
    duration_tolerance: offset collar as a share of the truth event's length (collar)
    segment_length: segment length in seconds (segment)
    files_duration: duration per file (else the latest end of its frames and truth)
    compat: ``"sed_scores_eval"``: its 6-decimal rounding of times
"""


def _rates(acc: Accumulated, i: int, beta: float) -> tuple[np.ndarray, ...]:
    rows = acc.rows(i)
    tp = acc.counts["tp"][rows].astype(np.float64)
    fp = acc.counts["fp"][rows].astype(np.float64)
    n_truth = acc.totals["n_truth"][i]
    precision = np.where(tp + fp == 0, 1.0, tp / np.maximum(tp + fp, 1))
    recall = np.ones_like(tp) if n_truth == 0 else tp / n_truth
    return precision, recall, fbeta(precision, recall, beta), acc.threshold[rows], tp, fp


def fbeta(precision, recall, beta: float = 1.0) -> np.ndarray:
    """:math:`(1 + \\beta^2) P R / \\max(\\beta^2 P + R, 10^{-15})`."""
    b2 = beta * beta
    return (1 + b2) * precision * recall / np.maximum(b2 * precision + recall, 1e-15)


def _metric(reduce):
    """Declare a score metric: ``reduce(accumulated statistics, options)``."""
    return SCORE.metric(reduce, gate=accumulated)


def _curve(acc: Accumulated, beta: float) -> pd.DataFrame:
    parts = []
    for i, label in enumerate(acc.labels):
        p, r, f, threshold, tp, fp = _rates(acc, i, beta)
        index = pd.MultiIndex.from_arrays(
            [[label] * len(p), threshold], names=["label", "threshold"]
        )
        parts.append(pd.DataFrame(
            {"precision": p, "recall": r, "fscore": f, "tp": tp.astype(np.int64),
             "fp": fp.astype(np.int64)}, index=index,
        ))
    return pd.concat(parts) if parts else pd.DataFrame(
        columns=["precision", "recall", "fscore", "tp", "fp"])


@_metric(lambda acc, options: _curve(acc, options.beta))
@fill(args=_ARGS)
def precision_recall_curve(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    criterion: str = "intersection",
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    onset_tolerance: float | pd.Timedelta = 0.2,
    offset_tolerance: float | pd.Timedelta = 0.2,
    duration_tolerance: float = 0.2,
    segment_length: float | pd.Timedelta = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    beta: float = 1.0,
) -> pd.DataFrame:
    r"""Precision, recall and F-score of every label at every threshold.

    Row ``threshold`` :math:`\theta` holds the counts of the detections
    with score :math:`\ge \theta`
    (the first row of a label, :math:`\theta = \infty`, detects nothing).

    Args:
        {args}
        beta: :math:`\beta` of the F-score

    Returns:
        DataFrame indexed by ``(label, threshold)`` (thresholds descending)
        with columns ``precision``, ``recall``, ``fscore``, ``tp``, ``fp``

    Examples:
        >>> import audformat
        >>> from audeval import precision_recall_curve
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1]}, index=index)
        >>> precision_recall_curve(truth, scores)[["precision", "recall"]]
                         precision  recall
        label threshold
        a     inf              1.0     0.0
              0.6              1.0     1.0
              0.3              0.0     0.0

    """





def _summary(acc: Accumulated, picks: list[int], beta: float, thresholds) -> pd.DataFrame:
    """Rows per label at the picked curve rows, then the ``macro`` and ``micro`` rows."""
    rows: dict[str, list] = {"fscore": [], "precision": [], "recall": [], "threshold": []}
    tp_sum = fp_sum = 0.0
    for i, pick in enumerate(picks):
        p, r, f, _, tp, fp = _rates(acc, i, beta)
        rows["fscore"].append(f[pick])
        rows["precision"].append(p[pick])
        rows["recall"].append(r[pick])
        rows["threshold"].append(thresholds[i])
        tp_sum += tp[pick]
        fp_sum += fp[pick]
    n_truth = float(np.sum(acc.totals["n_truth"]))
    micro_p = tp_sum / max(tp_sum + fp_sum, 1)
    micro_r = tp_sum / max(n_truth, 1)
    micro_f = float(fbeta(micro_p, micro_r, beta))
    out = pd.DataFrame(rows, index=pd.Index(list(acc.labels), dtype=object, name="label"))
    out.loc["macro"] = [np.mean(rows["fscore"]), np.mean(rows["precision"]),
                        np.mean(rows["recall"]), np.nan]
    out.loc["micro"] = [micro_f, micro_p, micro_r, np.nan]
    return out


def _best_fscore(acc: Accumulated, options) -> pd.DataFrame:
    picks, thresholds = [], []
    for i in range(len(acc.labels)):
        p, r, f, threshold, _, _ = _rates(acc, i, options.beta)
        f = np.where((p < options.min_precision) | (r < options.min_recall), 0.0, f)
        best = int(np.argmax(f))  # thresholds descending: the first maximum is the highest
        picks.append(best)
        below = threshold[best + 1] if best + 1 < len(threshold) else -np.inf
        thresholds.append((threshold[best] + below) / 2 if np.isfinite(below) else -np.inf)
    return _summary(acc, picks, options.beta, thresholds)


def _fscore_at(acc: Accumulated, options) -> pd.DataFrame:
    threshold = options.threshold
    if isinstance(threshold, Mapping):
        missing = [label for label in acc.labels if label not in threshold]
        if missing:
            raise ValueError(f"threshold has no value for labels {missing}.")
        values = [_check_threshold(threshold[label]) for label in acc.labels]
    else:
        values = [_check_threshold(threshold)] * len(acc.labels)
    picks = []
    for i, value in enumerate(values):
        rows = acc.threshold[acc.rows(i)]
        # the lowest change point above the threshold (descending order: the last one)
        picks.append(int(np.searchsorted(-rows, -value, side="left")) - 1)
    return _summary(acc, picks, options.beta, values)


def _average_precision(acc: Accumulated, options) -> float | dict[object, float]:
    values = []
    for i in range(len(acc.labels)):
        p, r, *_ = _rates(acc, i, 1.0)
        values.append(_ap(p, r))
    if options.average == "macro":
        return float(np.mean(values)) if values else float("nan")
    return PerClass((label, float(v)) for label, v in zip(acc.labels, values))


@_metric(_best_fscore)
@fill(args=_ARGS)
def best_fscore(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    criterion: str = "intersection",
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    onset_tolerance: float | pd.Timedelta = 0.2,
    offset_tolerance: float | pd.Timedelta = 0.2,
    duration_tolerance: float = 0.2,
    segment_length: float | pd.Timedelta = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    beta: float = 1.0,
    min_precision: float = 0.0,
    min_recall: float = 0.0,
) -> pd.DataFrame:
    r"""The best F-score of every label over all thresholds.

    Per label the threshold with the highest :math:`F_\beta`
    among those with precision :math:`\ge` ``min_precision``
    and recall :math:`\ge` ``min_recall``
    (F counts 0 elsewhere; of equal F the highest threshold),
    reported as the midpoint between that change point
    and the next lower one (``-inf`` below the lowest),
    so that ``score > threshold`` gives it.
    ``macro``: the means over labels;
    ``micro``: P, R and F of the counts summed over labels at their thresholds.

    Args:
        {args}
        beta: :math:`\beta` of the F-score
        min_precision: smallest precision allowed
        min_recall: smallest recall allowed

    Returns:
        DataFrame indexed by label (then ``macro``, ``micro``)
        with columns ``fscore``, ``precision``, ``recall``, ``threshold``

    Examples:
        >>> import audformat
        >>> from audeval import best_fscore
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1]}, index=index)
        >>> best_fscore(truth, scores)
               fscore  precision  recall  threshold
        label
        a         1.0        1.0     1.0       0.45
        macro     1.0        1.0     1.0        NaN
        micro     1.0        1.0     1.0        NaN

    """



@_metric(_fscore_at)
@fill(args=_ARGS)
def fscore_at(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    threshold: float | Mapping[object, float] = 0.5,
    criterion: str = "intersection",
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    onset_tolerance: float | pd.Timedelta = 0.2,
    offset_tolerance: float | pd.Timedelta = 0.2,
    duration_tolerance: float = 0.2,
    segment_length: float | pd.Timedelta = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    beta: float = 1.0,
) -> pd.DataFrame:
    r"""F-score, precision and recall at a decision threshold.

    A frame is active where its score is strictly above ``threshold``
    (a float, or a mapping label -> float);
    exactly the counts that :func:`scores_to_events` and an event metric would give.

    Args:
        {args}
        threshold: decision threshold, or one per label
        beta: :math:`\beta` of the F-score

    Returns:
        DataFrame indexed by label (then ``macro``, ``micro``)
        with columns ``fscore``, ``precision``, ``recall``, ``threshold``

    Examples:
        >>> import audformat
        >>> from audeval import fscore_at
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1]}, index=index)
        >>> fscore_at(truth, scores, threshold=0.6)["fscore"].tolist()
        [0.0, 0.0, 0.0]

    """



def _check_threshold(value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or np.isnan(value):  # type: ignore[call-overload]  # a numbers.Real (numpy's stubs do not know it)
        raise TypeError(f"threshold must be a float or a mapping of floats; got {value!r}.")
    return float(value)


@_metric(_average_precision)
@fill(args=_ARGS)
def average_precision(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    criterion: str = "intersection",
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    onset_tolerance: float | pd.Timedelta = 0.2,
    offset_tolerance: float | pd.Timedelta = 0.2,
    duration_tolerance: float = 0.2,
    segment_length: float | pd.Timedelta = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    average: str | None = "macro",
) -> float | dict[object, float]:
    r"""Average precision: the area under the precision-recall staircase.

    .. math::

        \text{AP} = \sum_k P_k (R_k - R_{k-1})

    over the distinct recalls :math:`R_k` in ascending order,
    :math:`P_k` the highest precision at recall :math:`R_k`.

    Args:
        {args}
        average: ``"macro"``: the mean over labels; ``None``: per label

    Returns:
        AP (float), or a dict label -> AP (``PerClass``, as every family)

    Examples:
        >>> import audformat
        >>> from audeval import average_precision
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1]}, index=index)
        >>> average_precision(truth, scores)
        1.0

    """



def _ap(precision: np.ndarray, recall: np.ndarray) -> float:
    order = np.lexsort((precision, recall))
    p, r = precision[order], recall[order]
    last = np.ones(len(r), dtype=bool)
    last[:-1] = r[1:] != r[:-1]
    p, r = p[last], r[last]
    return float(np.sum(p[1:] * np.diff(r)))
