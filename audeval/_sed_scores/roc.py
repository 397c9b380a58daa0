"""ROC curves and (partial) areas under them from segment- or clip-based score statistics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._core.docs import fill
from audeval._core.report import PerClass
from audeval._sed_scores.gate import accumulated
from audeval._sed_scores.options import SCORE
from audeval._sed_scores.psd import staircase_area
from audeval._sed_scores.statistics import Accumulated

_ARGS = """
    truth: truth events, or a table of :func:`score_statistics`
    scores: score table (``None`` with a table)
    labels: classes to evaluate
    criterion: ``"segment"`` or ``"clip"`` (:func:`score_statistics`)
    segment_length: segment length in seconds (``criterion="segment"``)
    files_duration: duration per file (else the latest end of its frames and truth)
    compat: ``"sed_scores_eval"`` (no effect on segments on an exact grid)
"""


def _roc(acc: Accumulated, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rows = acc.rows(i)
    if "n_items" not in acc.totals:
        raise ValueError(
            "ROC curves need segment or clip statistics: "
            "pass criterion='segment' or 'clip' to score_statistics."
        )
    tp = acc.counts["tp"][rows]
    fp = acc.counts["fp"][rows]
    positive = acc.totals["n_truth"][i]
    negative = acc.totals["n_items"][i] - positive
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr = tp / positive if positive else np.full(len(tp), np.nan)
        fpr = fp / negative if negative else np.full(len(fp), np.nan)
    return tpr, fpr, acc.threshold[rows], tp, fp


def _items(metric, truth, scores, labels, options) -> Accumulated:
    """The gate of the ROC metrics: segment or clip statistics only."""
    if options.criterion not in ("segment", "clip"):
        raise ValueError(f"criterion must be 'segment' or 'clip'; got {options.criterion!r}.")
    return accumulated(metric, truth, scores, labels, options)


def _roc_curve(acc: Accumulated, options) -> pd.DataFrame:
    parts = []
    for i, label in enumerate(acc.labels):
        tpr, fpr, threshold, tp, fp = _roc(acc, i)
        index = pd.MultiIndex.from_arrays([[label] * len(tpr), threshold], names=["label", "threshold"])
        parts.append(pd.DataFrame({"fpr": fpr, "tpr": tpr, "tp": tp, "fp": fp}, index=index))
    return pd.concat(parts) if parts else pd.DataFrame(columns=["fpr", "tpr", "tp", "fp"])


def _auroc(acc: Accumulated, options) -> float | dict[object, float]:
    values = []
    for i in range(len(acc.labels)):
        tpr, fpr, *_ = _roc(acc, i)
        values.append(_area(tpr, fpr, options.max_fpr, options.mcclish, options.ties))
    if options.average == "macro":
        return float(np.mean(values)) if values else float("nan")
    return PerClass((label, float(v)) for label, v in zip(acc.labels, values))


@SCORE.metric(_roc_curve, gate=_items)
@fill(args=_ARGS)
def roc_curve(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    criterion: str = "segment",
    segment_length: float | pd.Timedelta = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""Receiver operating characteristic of every label over all thresholds.

    Items (segments or clips) with score :math:`\ge \theta` are positive decisions:
    :math:`\text{TPR} = \text{tp} / P`, :math:`\text{FPR} = \text{fp} / N`
    with :math:`P` the items a truth event of the label overlaps
    and :math:`N` the others (NaN where :math:`P` or :math:`N` is 0).

    Args:
        {args}

    Returns:
        DataFrame indexed by ``(label, threshold)`` (thresholds descending)
        with columns ``fpr``, ``tpr``, ``tp``, ``fp``

    Examples:
        >>> import audformat
        >>> from audeval import roc_curve
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1]}, index=index)
        >>> roc_curve(truth, scores)[["fpr", "tpr"]]
                         fpr  tpr
        label threshold
        a     inf        0.0  0.0
              0.9        0.0  0.5
              0.6        0.0  1.0
              0.3        0.5  1.0
              0.1        1.0  1.0

    """



@SCORE.metric(_auroc, gate=_items)
@fill(args=_ARGS)
def auroc(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    criterion: str = "segment",
    segment_length: float | pd.Timedelta = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    max_fpr: float | None = None,
    mcclish: bool = False,
    average: str | None = "macro",
    ties: str = "after",
) -> float | dict[object, float]:
    r"""Area under the ROC curve, or the partial area up to ``max_fpr``.

    The ROC of :func:`roc_curve` as a staircase
    (points ordered by FPR, then TPR; the TPR of a point holds until the next FPR),
    the definition of sed_scores_eval:

    .. math::

        A = \frac{1}{m} \int_0^{m} \text{TPR}(f)\, df, \quad m = \text{max\_fpr}

    Where a positive and a negative item have the same score,
    the threshold that takes one takes both:
    the ROC moves up and right in one step, and the staircase
    counts the positive item *after* the false positive
    (``ties="after"``: one tied pair gives 0.0).
    ``ties="half"`` joins the points by straight lines (the trapezoid rule),
    which counts half of every tied pair (0.5 for one tied pair),
    as sklearn's ``roc_auc_score`` does;
    without ties both give the same area.

    With ``mcclish=True`` the partial area :math:`a = m A` is standardised
    as McClish (1989) and sklearn do:
    :math:`\frac{1}{2}\left(1 + \frac{a - m^2 / 2}{m - m^2 / 2}\right)`
    (sklearn's ``roc_auc_score(max_fpr=m)`` is ``ties="half", mcclish=True``).
    DCASE 2024 task 4 ranks on the mean partial AUROC
    of 1 s segments with ``max_fpr=0.1`` (the defaults with ``max_fpr=0.1``).

    Args:
        {args}
        max_fpr: largest FPR of the partial area, in (0, 1]; ``None``: the whole curve
        mcclish: standardise the partial area (McClish correction)
        average: ``"macro"``: the mean over labels; ``None``: per label
        ties: ``"after"``: the staircase (sed_scores_eval);
            ``"half"``: straight lines between the ROC points (sklearn)

    Returns:
        AUROC (float), or a dict label -> AUROC (``PerClass``, as every family)

    Examples:
        >>> import audformat
        >>> from audeval import auroc
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1]}, index=index)
        >>> auroc(truth, scores)
        1.0
        >>> auroc(truth, scores, max_fpr=0.1, mcclish=True)
        1.0
        >>> tied = pd.DataFrame({"a": [0.9, 0.6, 0.6, 0.1]}, index=index)
        >>> auroc(truth, tied), auroc(truth, tied, ties="half")
        (0.75, 0.875)

    """



def _area(tpr, fpr, max_fpr, mcclish, ties="after") -> float:
    if np.isnan(tpr).any() or np.isnan(fpr).any():
        return float("nan")
    order = np.lexsort((tpr, fpr))
    tpr, fpr = tpr[order], fpr[order]
    if ties == "half":
        return _linear_area(tpr, fpr, max_fpr, mcclish)
    if max_fpr is None:
        return float(np.sum(tpr[:-1] * np.diff(fpr)))
    area = staircase_area(tpr, fpr, max_fpr)
    if mcclish:
        low = max_fpr * max_fpr / 2
        return 0.5 * (1 + (area - low) / (max_fpr - low))
    return area / max_fpr


def _linear_area(tpr, fpr, max_fpr, mcclish) -> float:
    """Trapezoid area of the ROC points (sorted by FPR, then TPR) up to ``max_fpr``.

    The curve is cut at ``max_fpr`` by linear interpolation (sklearn's partial AUC).
    """
    if max_fpr is None:
        return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    stop = int(np.searchsorted(fpr, max_fpr, side="right"))
    x, y = fpr[:stop], tpr[:stop]
    if stop < len(fpr) and stop > 0:
        y = np.append(y, np.interp(max_fpr, fpr[stop - 1 : stop + 1], tpr[stop - 1 : stop + 1]))
        x = np.append(x, max_fpr)
    area = float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))
    if mcclish:
        low = max_fpr * max_fpr / 2
        return 0.5 * (1 + (area - low) / (max_fpr - low))
    return area / max_fpr
