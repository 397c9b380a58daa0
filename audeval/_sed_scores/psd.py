"""Polyphonic sound detection score (PSDS; Bilen et al., ICASSP 2020) from score tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from audeval._sed_scores.gate import score_table
from audeval._sed_scores.options import SCORE
from audeval._sed_scores.statistics import Accumulated, accumulate

SECONDS_PER_HOUR = 3600.0
NS = 1e9

PSDS1 = {"dtc_threshold": 0.7, "gtc_threshold": 0.7, "cttc_threshold": 0.3,
         "alpha_ct": 0.0, "alpha_st": 1.0, "max_efpr": 100.0}
"""DCASE 2021-2023 task 4 PSDS scenario 1."""
PSDS2 = {"dtc_threshold": 0.1, "gtc_threshold": 0.1, "cttc_threshold": 0.3,
         "alpha_ct": 0.5, "alpha_st": 1.0, "max_efpr": 100.0}
"""DCASE 2021-2023 task 4 PSDS scenario 2."""


class Rocs(NamedTuple):
    """The PSD-ROC staircases of all labels as flat arrays, by label, then eFPR ascending."""

    label: np.ndarray
    tpr: np.ndarray
    efpr: np.ndarray
    threshold: np.ndarray

    def per_label(self, n_labels: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        cut = np.searchsorted(self.label, np.arange(1, n_labels))
        return list(zip(*(np.split(a, cut) for a in (self.tpr, self.efpr, self.threshold))))


def class_rocs(acc: Accumulated, alpha_ct: float, max_efpr: float) -> Rocs:
    """Per label: (tpr, efpr, threshold) of its PSD-ROC, efpr ascending, cut at ``max_efpr``.

    :math:`\\text{TPR} = \\text{tp} / \\max(N, 1)`,
    :math:`\\text{eFPR} = 3600 (\\text{fp} / T + \\alpha_{ct} \\,
    \\text{mean}_{c' \\ne c} \\text{ct}_{c'} / T_{c'})` per hour
    (:math:`T`: summed file durations, :math:`T_{c'}`: truth duration of :math:`c'`);
    the staircase keeps the points where TPR rises, the highest TPR per eFPR.
    All labels at once: every row of ``acc`` knows its label.
    """
    n_labels = len(acc.labels)
    label = np.repeat(np.arange(n_labels), np.diff(acc.offsets))
    tp = acc.counts["tp"]
    tpr = tp / np.maximum(acc.totals["n_truth"], 1)[label]
    dataset = (acc.totals["duration"] / NS)[label]
    efpr = np.zeros(len(tp))
    np.divide(acc.counts["fp"], dataset, out=efpr, where=dataset > 0)
    if alpha_ct != 0.0 and n_labels:
        efpr = efpr + alpha_ct * _cross_trigger_rate(acc, label)
    efpr = efpr * SECONDS_PER_HOUR
    # points beyond max_efpr sort after all others of their label and are cut: leave them out first
    keep = efpr <= max_efpr
    return _staircase(label[keep], tp[keep], tpr[keep], efpr[keep], acc.threshold[keep], max_efpr)


def _cross_trigger_rate(acc: Accumulated, label: np.ndarray) -> np.ndarray:
    """Per row: the mean over the other labels :math:`c'` of :math:`\\text{ct}_{c'} / T_{c'}`.

    The sum runs over the labels in order with the row's own label as ``+0.0``
    (the same float sum as leaving it out).
    """
    missing = [name for name in acc.labels if f"ct_{name}" not in acc.counts]
    n_others = len(acc.labels) - 1
    if n_others == 0:  # no other label: no cross-trigger term
        return np.zeros(len(label))
    if missing:
        raise ValueError(
            "alpha_ct is not 0 but the statistics have no cross triggers: "
            "pass cttc_threshold to score_statistics."
        )
    truth_seconds = np.maximum(acc.totals["truth_duration"] / NS, 1e-12)
    total = np.zeros(len(label))
    for j, name in enumerate(acc.labels):  # one vectorised add per column of the table
        total += np.where(label == j, 0.0, acc.counts[f"ct_{name}"] / truth_seconds[j])
    return total / n_others


def _staircase(label, tp, tpr, efpr, threshold, max_efpr) -> Rocs:
    """The staircase of every label: points where TPR rises, the last of equal eFPRs."""
    order = np.lexsort((tp, efpr, label))
    label, tp, tpr, efpr, threshold = (a[order] for a in (label, tp, tpr, efpr, threshold))
    new = np.ones(len(label), dtype=bool)
    new[1:] = label[1:] != label[:-1]
    # TPR rises where tp does (one N per label): running maximum of tp within each label
    key = label * (int(tp.max(initial=0)) + 1) + tp
    running = np.maximum.accumulate(key) if len(key) else key
    rises = new.copy()
    rises[1:] |= running[1:] > running[:-1]
    label, tpr, efpr, threshold = label[rises], tpr[rises], efpr[rises], threshold[rises]
    last = np.ones(len(efpr), dtype=bool)
    last[:-1] = (efpr[1:] != efpr[:-1]) | (label[1:] != label[:-1])
    keep = last & (efpr <= max_efpr)
    return Rocs(label[keep], tpr[keep], efpr[keep], threshold[keep])


def combine(rocs: Rocs, n_labels: int, alpha_st: float, max_efpr: float) -> tuple[np.ndarray, np.ndarray]:
    """The PSD-ROC: :math:`\\max(0, \\mu_{\\text{TPR}} - \\alpha_{st} \\sigma_{\\text{TPR}})` over labels.

    Each label's staircase is read at the union of all eFPR values
    (the TPR of the last point at or below; 0 before its first point);
    the curve is extended flat to ``max_efpr``.
    """
    efpr = np.unique(rocs.efpr)
    if n_labels == 0:
        return np.zeros(0), efpr
    # per (label, union value): how many of the label's points lie at or below it
    at = rocs.label * (len(efpr) + 1) + np.searchsorted(efpr, rocs.efpr)
    count = np.bincount(at, minlength=n_labels * (len(efpr) + 1)).reshape(n_labels, -1)[:, :-1]
    count = np.cumsum(count, axis=1)
    start = np.searchsorted(rocs.label, np.arange(n_labels))[:, None]
    tprs = np.where(count > 0, rocs.tpr[np.maximum(start + count - 1, 0)] if len(rocs.tpr) else 0.0, 0.0)
    etpr = np.maximum(tprs.mean(axis=0) - alpha_st * tprs.std(axis=0), 0.0)
    if len(etpr):
        etpr = np.append(etpr, etpr[-1])
        efpr = np.append(efpr, max_efpr)
    return etpr, efpr


def staircase_area(y: np.ndarray, x: np.ndarray, max_x: float) -> float:
    """Area under a staircase (value ``y[i]`` from ``x[i]`` to ``x[i + 1]``) up to ``max_x``."""
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    cut = int(np.searchsorted(x, max_x, side="right"))
    x = np.append(x[:cut], max_x)
    y = y[:cut]
    return math.fsum((y * np.diff(x)).tolist())


def _intersection(metric, truth, scores, labels, options) -> Accumulated:
    """The gate of the PSD metrics: intersection statistics of the call.

    The cross-trigger criterion counts only with ``alpha_ct != 0``;
    a score table keeps only the thresholds whose eFPR can be within ``max_efpr``
    (the same curve).
    """
    if options.alpha_ct == 0.0:
        options = SCORE.without(options, "cttc_threshold")
    max_efpr = options.max_efpr if isinstance(scores, pd.DataFrame) else None
    return accumulate(score_table(metric, truth, scores, labels, options, max_efpr=max_efpr))


def _psd_roc(acc: Accumulated, options) -> pd.DataFrame:
    rocs = class_rocs(acc, options.alpha_ct, options.max_efpr)
    if options.per_class:
        parts = [
            pd.DataFrame({"label": [label] * len(t), "efpr": e, "tpr": t, "threshold": th})
            for label, (t, e, th) in zip(acc.labels, rocs.per_label(len(acc.labels)))
        ]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
            columns=["label", "efpr", "tpr", "threshold"])
    etpr, efpr = combine(rocs, len(acc.labels), options.alpha_st, options.max_efpr)
    return pd.DataFrame({"efpr": efpr, "etpr": etpr})


def _psds(acc: Accumulated, options) -> float:
    roc = _psd_roc(acc, options)
    if roc.empty:
        return 0.0
    area = staircase_area(roc["etpr"].to_numpy(), roc["efpr"].to_numpy(), options.max_efpr)
    return area / options.max_efpr


@SCORE.metric(_psd_roc, gate=_intersection, needs={"criterion": "intersection"})
def psd_roc(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    cttc_threshold: float | None = 0.3,
    alpha_ct: float = 0.0,
    alpha_st: float = 1.0,
    max_efpr: float = 100.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    per_class: bool = False,
) -> pd.DataFrame:
    r"""The PSD-ROC curve: effective TPR over effective FPR per hour.

    Per label :math:`c`, at every threshold,
    :math:`\text{TPR}_c` (GTC) and
    :math:`\text{eFPR}_c = \text{FPR}_c + \alpha_{ct} \,\text{mean}_{c'} \text{CTR}_{c,c'}`
    (per hour; :func:`score_statistics` for the criteria),
    made a staircase (:func:`psds`);
    the curve is :math:`\max(0, \mu_c \text{TPR}_c - \alpha_{st} \sigma_c \text{TPR}_c)`
    over the union of eFPR values, up to ``max_efpr``.
    From a score table only the thresholds whose eFPR can be within ``max_efpr``
    are computed (the same curve).

    Args:
        truth: truth events, or a table of :func:`score_statistics`
        scores: score table (``None`` with a table)
        labels: classes to evaluate; ``None``: the columns of a score table,
            for operating points the sorted union of the truth's and the detections' labels
            (as every audeval metric: a class only in the detections
            has TPR 0 and lowers the score);
            with ``compat="psds_eval"`` the truth's classes, as psds_eval
        dtc_threshold: detection tolerance criterion
        gtc_threshold: ground truth intersection criterion
        cttc_threshold: cross-trigger tolerance criterion (used if ``alpha_ct != 0``)
        alpha_ct: weight of the cross-trigger rate
        alpha_st: weight of the standard deviation over classes
        max_efpr: largest eFPR per hour
        files_duration: duration per file (else the end of its last frame)
        compat: ``"sed_scores_eval"``: its 6-decimal rounding of times;
            ``"psds_eval"`` (operating points): its float64 shares on the files' seconds
            and its classes (:func:`score_statistics`)
        per_class: the staircase of every label instead
            (columns ``label``, ``efpr``, ``tpr``, ``threshold``)

    Returns:
        DataFrame with columns ``efpr`` and ``etpr``

    Examples:
        >>> import audformat
        >>> from audeval import psd_roc
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.8, 0.3, 0.1]}, index=index)
        >>> psd_roc(truth, scores, max_efpr=1000.0)
             efpr  etpr
        0     0.0   1.0
        1  1000.0   1.0

    """



@SCORE.metric(_psds, gate=_intersection, needs={"criterion": "intersection"})
def psds(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    cttc_threshold: float | None = 0.3,
    alpha_ct: float = 0.0,
    alpha_st: float = 1.0,
    max_efpr: float = 100.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> float:
    r"""Polyphonic sound detection score: normalised area under the PSD-ROC.

    .. math::

        \text{PSDS} = \frac{1}{e_{max}} \int_0^{e_{max}} \text{eTPR}(e)\, de

    with the PSD-ROC of :func:`psd_roc`, exact over every distinct score
    (Ebbers et al., ICASSP 2022).
    The defaults are DCASE's PSDS1
    (:data:`PSDS1`; PSDS2: ``dtc_threshold=0.1, gtc_threshold=0.1,
    cttc_threshold=0.3, alpha_ct=0.5``).
    ``compat="sed_scores_eval"`` reproduces sed_scores_eval's
    ``intersection_based.psds`` (its 6-decimal rounding of times);
    ``compat="psds_eval"`` reproduces psds_eval's ``PSDSEval.psds``
    on operating points (:func:`audeval.read_operating_points`).

    Args:
        truth: truth events, or a table of :func:`score_statistics`
        scores: score table (``None`` with a table)
        labels: classes to evaluate; ``None``: the columns of a score table,
            for operating points the sorted union of the truth's and the detections' labels
            (as every audeval metric: a class only in the detections
            has TPR 0 and lowers the score);
            with ``compat="psds_eval"`` the truth's classes, as psds_eval
        dtc_threshold: detection tolerance criterion
        gtc_threshold: ground truth intersection criterion
        cttc_threshold: cross-trigger tolerance criterion (used if ``alpha_ct != 0``)
        alpha_ct: weight of the cross-trigger rate
        alpha_st: weight of the standard deviation over classes
        max_efpr: largest eFPR per hour
        files_duration: duration per file (else the end of its last frame)
        compat: ``"sed_scores_eval"``: its 6-decimal rounding of times;
            ``"psds_eval"`` (operating points): its float64 shares on the files' seconds
            and its classes (:func:`score_statistics`)

    Returns:
        PSDS in [0, 1]

    Examples:
        >>> import audformat
        >>> from audeval import psds
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.8, 0.3, 0.1]}, index=index)
        >>> psds(truth, scores)
        1.0

    """

