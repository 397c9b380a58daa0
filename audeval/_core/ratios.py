"""Divide last: metrics from summed counts, with one set of zero-division rules.

Every family (events, segments, ...) sums its statistics first
and calls these functions at the very end,
so precision, recall, F-score, error rates and averages
follow the same rules everywhere:

* an undefined ratio (0 / 0) becomes ``zero_division``;
* the F-score is computed from precision and recall
  *after* that replacement:
  ``2PR / (P + R)``, ``0`` when ``P * R == 0``;
  if ``P`` or ``R`` is NaN the F-score is NaN when ``propagate_nans=True``,
  else 0 (audmetric's rule);
* the macro average is the mean over labels ignoring NaN
  (as audmetric and sed_eval).
"""

from __future__ import annotations


import numpy as np

from audeval._core import options as _options
from audeval._core.validation import check_option


AVERAGES = ("micro", "macro")




def divide(numerator, denominator, zero_division: float = np.nan) -> np.ndarray:
    """``numerator / denominator`` as float64, ``zero_division`` where undefined."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = numerator / denominator
    return np.where(denominator == 0, zero_division, out)


def check_zero_division(value: float) -> float:
    """``zero_division``: 0.0, 1.0 or NaN (the options layer's rule)."""
    return _options.check_zero_division(value)


def fscore(precision, recall, *, beta: float = 1.0, propagate_nans: bool = False) -> np.ndarray:
    r"""F-score from precision and recall (after zero-division replacement).

    .. math::

        F_\beta = \frac{(1 + \beta^2) P R}{\beta^2 P + R}

    0 where ``P * R == 0``;
    where ``P`` or ``R`` is NaN: NaN if ``propagate_nans`` else 0.
    """
    p = np.asarray(precision, dtype=np.float64)
    r = np.asarray(recall, dtype=np.float64)
    b2 = beta * beta
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (1 + b2) * p * r / (b2 * p + r)
    nan = np.isnan(p) | np.isnan(r)
    f = np.where(p * r == 0, 0.0, f)
    f = np.where(nan, np.nan if propagate_nans else 0.0, f)
    return f


def precision_recall_fscore(
    tp,
    n_prediction,
    n_truth,
    *,
    zero_division: float,
    propagate_nans: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision ``tp / n_prediction``, recall ``tp / n_truth`` and F-score."""
    precision = divide(tp, n_prediction, zero_division)
    recall = divide(tp, n_truth, zero_division)
    return precision, recall, fscore(precision, recall, propagate_nans=propagate_nans)


def macro(values, axis: int | None = None):
    """Unweighted mean over labels, NaN ignored; NaN if all are NaN or no labels.

    ``axis``: the label axis of a 2-d array (one mean per row); ``None``: one number.
    """
    values = np.asarray(values, dtype=np.float64)
    if axis is None:
        if values.size == 0 or np.all(np.isnan(values)):
            return float("nan")
        return float(np.nanmean(values))
    valid = ~np.isnan(values)
    count = valid.sum(axis=axis)
    total = np.where(valid, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def supported(n_truth, n_prediction, labels, labels_given: bool, occurs=None) -> np.ndarray:
    """Labels that count in macro averages: all given ones, else those with support.

    A label that occurs in neither input (a scheme category nobody used)
    would count as F = 0 (``zero_division``) in a macro average:
    with ``labels=None`` it is left out, with a warning.
    A row makes a label occur: ``occurs`` (per label, from the validation gate)
    marks labels with rows, also rows of zero length that count nothing.
    """
    support = (np.asarray(n_truth) + np.asarray(n_prediction)) > 0
    if occurs is not None:
        support = support | np.asarray(occurs, dtype=bool)
    if labels_given or support.all() or not support.any():
        return np.ones(support.shape, dtype=bool)
    unused = [label for label, s in zip(labels, support) if not s]
    _options.warn(
        f"labels {unused[:5]}{' ...' if len(unused) > 5 else ''} occur in neither truth nor "
        "prediction (unused categories?) and are left out of macro averages; "
        "pass labels=[...] to include them."
    )
    return support


def check_average(average: str) -> str:
    return check_option(average, "average", AVERAGES)
