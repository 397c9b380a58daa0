r"""Error rates of score tables at every threshold, and the best one (sed_scores_eval's ``error_rate`` modules).

Per label and threshold :math:`\theta` (detections with score :math:`\ge \theta`):
insertions :math:`I = \text{fp}`, deletions :math:`D = N - \text{tp}`,
error rate :math:`(I + D) / N`, insertion rate :math:`I / N`, deletion rate :math:`D / N`
(:math:`N` truth events of the label; ``inf``, or NaN for 0/0, without truth events, as sed_scores_eval).
A label is evaluated alone, so there are no substitutions.
All labels at once, from the accumulated statistics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._core.docs import fill
from audeval._sed_scores.gate import accumulated
from audeval._sed_scores.options import SCORE
from audeval._sed_scores.statistics import Accumulated

CRITERIA = ("intersection", "collar")

_ARGS = """
    truth: truth events, or a table of :func:`score_statistics`
    scores: score table (``None`` with a table)
    labels: classes to evaluate
    criterion: ``"intersection"`` or ``"collar"`` (:func:`score_statistics`)
    dtc_threshold: detection tolerance criterion (intersection)
    gtc_threshold: ground truth intersection criterion (intersection)
    onset_tolerance: onset collar in seconds (collar)
    offset_tolerance: smallest offset collar in seconds (collar)
    duration_tolerance: offset collar as a share of the truth event's length (collar)
    files_duration: duration per file (else the latest end of its frames and truth)
    compat: ``"sed_scores_eval"``: its 6-decimal rounding of times
"""


def _gate(metric, truth, scores, labels, options) -> Accumulated:
    """The gate of the error rates: intersection or collar statistics."""
    if options.criterion not in CRITERIA:
        raise ValueError(f"criterion must be 'intersection' or 'collar'; got {options.criterion!r}.")
    acc = accumulated(metric, truth, scores, labels, options)
    if "n_items" in acc.totals:  # a table of segment or clip statistics
        raise ValueError(
            "error rates need event statistics: "
            "pass criterion='intersection' or 'collar' to score_statistics."
        )
    return acc


def _rates(acc: Accumulated) -> dict[str, np.ndarray]:
    """Counts and rates of every row of ``acc`` (all labels at once)."""
    label = np.repeat(np.arange(len(acc.labels)), np.diff(acc.offsets))
    tp, fp = acc.counts["tp"], acc.counts["fp"]
    n_truth = np.asarray(acc.totals["n_truth"], dtype=np.int64)[label] if len(label) else np.zeros(0, np.int64)
    deletions = n_truth - tp
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = {
            "error_rate": (fp + deletions) / n_truth,
            "insertion_rate": fp / n_truth,
            "deletion_rate": deletions / n_truth,
        }
    return {**rates, "insertions": fp, "deletions": deletions, "tp": tp, "label": label}


def _curve(acc: Accumulated, options) -> pd.DataFrame:
    rates = _rates(acc)
    index = pd.MultiIndex.from_arrays(
        [pd.Index(acc.labels, dtype=object).take(rates.pop("label")), acc.threshold],
        names=["label", "threshold"],
    )
    return pd.DataFrame(rates, index=index)


def _best(acc: Accumulated, options) -> pd.DataFrame:
    rates = _rates(acc)
    label = rates["label"]
    n = len(acc.labels)
    error = rates["error_rate"]
    # per label the first row (highest threshold) of the smallest error rate; NaN never wins
    key = np.where(np.isnan(error), np.inf, error)
    order = np.lexsort((np.arange(len(key)), key, label))
    first = np.ones(len(order), dtype=bool)
    first[1:] = label[order][1:] != label[order][:-1]
    best = np.full(n, -1)
    best[label[order][first]] = order[first]
    below = np.where(best + 1 < acc.offsets[1:], acc.threshold[np.minimum(best + 1, len(acc.threshold) - 1)], -np.inf)
    threshold = np.where(np.isfinite(below), (acc.threshold[best] + below) / 2, -np.inf)
    out = pd.DataFrame(
        {name: rates[name][best] for name in ("error_rate", "insertion_rate", "deletion_rate")},
        index=pd.Index(list(acc.labels), dtype=object, name="label"),
    )
    out["threshold"] = threshold
    out.loc["macro"] = [  # NaN of a label without truth stays (numpy's mean, as sed_scores_eval)
        *(float(np.mean(out[c].to_numpy())) for c in ("error_rate", "insertion_rate", "deletion_rate")), np.nan
    ]
    return out


@SCORE.metric(_curve, gate=_gate)
@fill(args=_ARGS)
def error_rate_curve(
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
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""Error rate, insertions and deletions of every label at every threshold.

    Row ``threshold`` :math:`\theta` holds the detections with score :math:`\ge \theta`
    (the first row of a label, :math:`\theta = \infty`, detects nothing):

    .. math::

        \text{ER} = \frac{I + D}{N}, \quad I = \text{fp}, \quad D = N - \text{tp}

    per label (no substitutions: a label is evaluated alone), as sed_scores_eval's
    ``intersection_based.error_rate_curve`` and ``collar_based.error_rate_curve``
    (``inf``, or NaN for 0/0, for a label without truth events).

    Args:
        {args}

    Returns:
        DataFrame indexed by ``(label, threshold)`` (thresholds descending)
        with columns ``error_rate``, ``insertion_rate``, ``deletion_rate``,
        ``insertions``, ``deletions``, ``tp``

    Examples:
        >>> import audformat
        >>> from audeval import error_rate_curve
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1]}, index=index)
        >>> error_rate_curve(truth, scores)[["error_rate", "insertions", "deletions"]]
                         error_rate  insertions  deletions
        label threshold
        a     inf               1.0           0          1
              0.6               0.0           0          0
              0.3               2.0           1          1

    """


@SCORE.metric(_best, gate=_gate)
@fill(args=_ARGS)
def best_error_rate(
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
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""The smallest error rate of every label over all thresholds, and its threshold.

    Per label the threshold of :func:`error_rate_curve` with the smallest
    :math:`\text{ER} = (I + D) / N` (of equal ones the highest threshold),
    reported as the midpoint between that change point and the next lower one
    (``-inf`` below the lowest), so that ``score > threshold`` gives it;
    ``macro``: the means over labels.
    As sed_scores_eval's ``best_error_rate`` (intersection- and collar-based).

    Args:
        {args}

    Returns:
        DataFrame indexed by label (then ``macro``) with columns
        ``error_rate``, ``insertion_rate``, ``deletion_rate``, ``threshold``

    Examples:
        >>> import audformat
        >>> from audeval import best_error_rate
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1]}, index=index)
        >>> best_error_rate(truth, scores)
               error_rate  insertion_rate  deletion_rate  threshold
        label
        a             0.0             0.0            0.0       0.45
        macro         0.0             0.0            0.0        NaN

    """
