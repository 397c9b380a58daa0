"""Post-processing independent PSDS (piPSDS; Ebbers et al., DCASE 2024 workshop) over median filters."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses

import numpy as np
import pandas as pd

from audeval._core.protocol import check_table
from audeval._sed_scores.options import SCORE
from audeval._sed_scores.psd import Rocs, class_rocs, combine, staircase_area
from audeval._sed_scores.statistics import Accumulated, accumulate, compute_statistics
from audeval._core.tables import select_labels


def _gate(metric, truth, scores, labels, options) -> tuple[Accumulated, int]:
    """The summed statistics of every filter length (computed, or a table of
    :func:`audeval.score_statistics` with ``median_filter_lengths``) and their number."""
    if options.alpha_ct == 0.0:
        options = SCORE.without(options, "cttc_threshold")
    if scores is not None:
        max_efpr = options.max_efpr
        if options.median_filter_lengths is None:
            raise TypeError(f"{metric.__name__} of a score table needs median_filter_lengths.")
        if not isinstance(scores, pd.DataFrame):
            raise TypeError(
                f"scores must be a score table (DataFrame) for {metric.__name__}; "
                f"got {type(scores).__name__}."
            )
        table = compute_statistics(
            truth, scores, labels, SCORE.record(options), options.files_duration, max_efpr=max_efpr
        )
    else:
        if options.files_duration is not None:
            raise ValueError(
                "files_duration cannot be applied to a statistics table: "
                "pass it to score_statistics and compute the metric from that table."
            )
        recorded = SCORE.record(options)
        given = {k: recorded[k] for k in SCORE.table_options if k in options.given}
        check_table(truth, None, family="score", given=given)
        if "tp@0" not in truth.columns:
            raise ValueError(
                "truth lacks the columns ['tp@0', 'fp@0']; pass a table from "
                "score_statistics with median_filter_lengths."
            )
        table = truth if labels is None else select_labels(truth, list(labels))
    n_lengths = sum(1 for c in table.columns if c.startswith("tp@"))
    return accumulate(table), n_lengths


def _length(acc: Accumulated, j: int) -> Accumulated:
    """The accumulated counts of the ``j``-th filter length under the plain names."""
    suffix = f"@{j}"
    counts = {name[: -len(suffix)]: values for name, values in acc.counts.items() if name.endswith(suffix)}
    return dataclasses.replace(acc, counts=counts)


def merged_rocs(acc: Accumulated, n_lengths: int, alpha_ct: float, max_efpr: float) -> tuple[Rocs, np.ndarray]:
    """Per label the pi-ROC: the staircase of all filter lengths' ROC points together
    (the highest TPR at or below every eFPR over all lengths), and each point's filter index."""
    parts = [class_rocs(_length(acc, j), alpha_ct, max_efpr) for j in range(n_lengths)]
    label = np.concatenate([p.label for p in parts])
    tpr = np.concatenate([p.tpr for p in parts])
    efpr = np.concatenate([p.efpr for p in parts])
    threshold = np.concatenate([p.threshold for p in parts])
    which = np.concatenate([np.full(len(p.label), j) for j, p in enumerate(parts)])
    order = np.lexsort((-which, tpr, efpr, label))  # equal points: the first length's
    label, tpr, efpr, threshold, which = (a[order] for a in (label, tpr, efpr, threshold, which))
    new = np.ones(len(label), dtype=bool)
    new[1:] = label[1:] != label[:-1]
    key = label * 2.0 + tpr  # TPR in [0, 1]: a running maximum per label
    running = np.maximum.accumulate(key) if len(key) else key
    rises = new.copy()
    rises[1:] |= running[1:] > running[:-1]
    label, tpr, efpr, threshold, which = (a[rises] for a in (label, tpr, efpr, threshold, which))
    last = np.ones(len(efpr), dtype=bool)
    last[:-1] = (efpr[1:] != efpr[:-1]) | (label[1:] != label[:-1])
    return Rocs(label[last], tpr[last], efpr[last], threshold[last]), which[last]


def _pi_psd_roc(state, options) -> pd.DataFrame:
    acc, n_lengths = state
    rocs, _ = merged_rocs(acc, n_lengths, options.alpha_ct, options.max_efpr)
    etpr, efpr = combine(rocs, len(acc.labels), options.alpha_st, options.max_efpr)
    return pd.DataFrame({"efpr": efpr, "etpr": etpr})


def _pipsds(state, options) -> float:
    roc = _pi_psd_roc(state, options)
    if roc.empty:
        return 0.0
    area = staircase_area(roc["etpr"].to_numpy(), roc["efpr"].to_numpy(), options.max_efpr)
    return area / options.max_efpr


_NEEDS = {"criterion": "intersection"}


@SCORE.metric(_pi_psd_roc, gate=_gate, needs=_NEEDS)
def pi_psd_roc(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    median_filter_lengths: Sequence[float] | None = (0.0, 0.1, 0.25, 0.5, 0.7),
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    cttc_threshold: float | None = 0.3,
    alpha_ct: float = 0.0,
    alpha_st: float = 0.0,
    max_efpr: float = 100.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""The post-processing independent PSD-ROC over median filter lengths.

    For every length :math:`L_m` the scores are median filtered
    (:func:`audeval.median_filter`) and each class's PSD-ROC is computed
    (:func:`audeval.psd_roc`); a class's pi-ROC takes at every eFPR
    the highest TPR over all lengths,

    .. math::

        \text{TPR}^{pi}_c(e) = \max_m \text{TPR}_{c, L_m}(e),

    and the curve is :math:`\max(0, \mu_c \text{TPR}^{pi}_c - \alpha_{st} \sigma_c \text{TPR}^{pi}_c)`
    over the union of eFPR values, up to ``max_efpr``.
    The statistics of all lengths are one additive table
    (:func:`audeval.score_statistics` with ``median_filter_lengths``).

    Args:
        truth: truth events, or a table of :func:`score_statistics` made with ``median_filter_lengths``
        scores: score table (``None`` with a table)
        labels: classes to evaluate; ``None``: the columns of the score table
        median_filter_lengths: filter lengths in seconds (0: the scores as they are;
            default: 0, 0.1, 0.25, 0.5 and 0.7 s); a statistics table's own lengths
            unless given
        dtc_threshold: detection tolerance criterion
        gtc_threshold: ground truth intersection criterion
        cttc_threshold: cross-trigger tolerance criterion (used if ``alpha_ct != 0``)
        alpha_ct: weight of the cross-trigger rate
        alpha_st: weight of the standard deviation over classes
        max_efpr: largest eFPR per hour
        files_duration: duration per file (else the end of its last frame)
        compat: ``"sed_scores_eval"``: as sed_scores_eval 0.0.4's
            ``median_filter_independent_psds`` (its median filter's edges,
            its 6-decimal rounding of times)

    Returns:
        DataFrame with columns ``efpr`` and ``etpr``

    Examples:
        >>> import audformat
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.2, 0.3, 0.1]}, index=index)
        >>> pi_psd_roc(truth, scores, median_filter_lengths=[0.0, 3.0], max_efpr=1000.0)
             efpr  etpr
        0     0.0   1.0
        1  1000.0   1.0

    """


@SCORE.metric(_pipsds, gate=_gate, needs=_NEEDS)
def pipsds(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    median_filter_lengths: Sequence[float] | None = (0.0, 0.1, 0.25, 0.5, 0.7),
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    cttc_threshold: float | None = 0.3,
    alpha_ct: float = 0.0,
    alpha_st: float = 0.0,
    max_efpr: float = 100.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> float:
    r"""Post-processing independent PSDS: normalised area under the pi-PSD-ROC.

    .. math::

        \text{piPSDS} = \frac{1}{e_{max}} \int_0^{e_{max}} \text{eTPR}^{pi}(e)\, de

    with the curve of :func:`pi_psd_roc`: each class's ROC is the best over
    the median filter lengths (Ebbers, Haeb-Umbach and Serizel, DCASE 2024),
    so piPSDS is at least the PSDS of each length alone (with ``alpha_st = 0``).
    Additive over files: the table of :func:`audeval.score_statistics`
    with ``median_filter_lengths`` sums over shards, ``Accumulator``, ``bootstrap`` and dask.
    ``compat="sed_scores_eval"`` reproduces sed_scores_eval 0.0.4's
    ``intersection_based.median_filter_independent_psds``.

    Args:
        truth: truth events, or a table of :func:`score_statistics` made with ``median_filter_lengths``
        scores: score table (``None`` with a table)
        labels: classes to evaluate; ``None``: the columns of the score table
        median_filter_lengths: filter lengths in seconds (0: the scores as they are;
            default: 0, 0.1, 0.25, 0.5 and 0.7 s); a statistics table's own lengths
            unless given
        dtc_threshold: detection tolerance criterion
        gtc_threshold: ground truth intersection criterion
        cttc_threshold: cross-trigger tolerance criterion (used if ``alpha_ct != 0``)
        alpha_ct: weight of the cross-trigger rate
        alpha_st: weight of the standard deviation over classes
        max_efpr: largest eFPR per hour
        files_duration: duration per file (else the end of its last frame)
        compat: ``"sed_scores_eval"``: its median filter's edges and 6-decimal rounding of times

    Returns:
        piPSDS in [0, 1]

    Examples:
        >>> import audformat
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.2, 0.3, 0.1]}, index=index)
        >>> pipsds(truth, scores, median_filter_lengths=[0.0])
        0.0
        >>> pipsds(truth, scores, median_filter_lengths=[0.0, 3.0])
        1.0

    """
