"""Precision, recall, F1 and accuracy of binary time-frequency masks."""

from __future__ import annotations

import numpy as np

from audeval._core.docs import fill
from audeval._core.ratios import check_zero_division
from audeval._core.ratios import divide
from audeval._core.ratios import fscore


def _as_masks(x: object, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype != bool:
        if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
            raise TypeError(f"{name} must be a boolean (or 0/1) array; got dtype {arr.dtype}.")
        if not np.all((arr == 0) | (arr == 1)):
            raise ValueError(f"{name} must be binary: only 0/1 or False/True values.")
        arr = arr.astype(bool)
    if arr.ndim not in (2, 3, 4):
        raise ValueError(
            f"{name} must have shape (sources, bins), (sources, frequencies, frames) "
            f"or (sources, frequencies, frames, channels); got shape {arr.shape}."
        )
    return arr


@fill()
def mask_scores(
    truth: object,
    prediction: object,
    *,
    zero_division: float = np.nan,
) -> dict[str, np.ndarray]:
    r"""Precision, recall, F1 and accuracy of binary masks per source.

    With the time-frequency bins counted per source (and channel):

    .. math::

        P = \frac{TP}{TP + FP},\quad R = \frac{TP}{TP + FN},\quad
        F_1 = \frac{2PR}{P + R},\quad
        \text{accuracy} = \frac{TP + TN}{TP + FP + FN + TN}

    (nussl's ``PrecisionRecallFScore``, which calls sklearn per channel).
    An undefined ratio (no predicted or no true positive bin) is
    ``zero_division`` (sklearn and nussl use 0);
    F1 is computed from P and R after that replacement,
    0 where :math:`P R = 0` (audeval's shared rule).

    Args:
        truth: true binary masks, shape (sources, bins),
            (sources, frequencies, frames) or
            (sources, frequencies, frames, channels)
        prediction: estimated binary masks of the same shape
        {zero_division}

    Returns:
        dict with ``precision``, ``recall``, ``f1``, ``accuracy``,
        each of shape (sources[, channels])

    Raises:
        TypeError: if a mask is not boolean or 0/1
        ValueError: if the shapes differ or are not supported

    Examples:
        >>> t = np.array([[1, 1, 0, 0], [0, 0, 1, 1]], dtype=bool)
        >>> p = np.array([[1, 0, 1, 0], [0, 0, 1, 1]], dtype=bool)
        >>> res = mask_scores(t, p)
        >>> res["precision"].tolist(), res["recall"].tolist()
        ([0.5, 1.0], [0.5, 1.0])
        >>> res["f1"].tolist(), res["accuracy"].tolist()
        ([0.5, 1.0], [0.5, 1.0])

    """
    zero_division = check_zero_division(zero_division)
    truth = _as_masks(truth, "truth")
    prediction = _as_masks(prediction, "prediction")
    if truth.shape != prediction.shape:
        raise ValueError(
            f"truth and prediction must have the same shape; got {truth.shape} "
            f"and {prediction.shape}."
        )
    axes = (1,) if truth.ndim == 2 else (1, 2)
    tp = np.count_nonzero(truth & prediction, axis=axes)
    n_pred = np.count_nonzero(prediction, axis=axes)
    n_true = np.count_nonzero(truth, axis=axes)
    n_bins = int(np.prod([truth.shape[a] for a in axes]))
    tn = n_bins - n_pred - n_true + tp
    precision = divide(tp, n_pred, zero_division)
    recall = divide(tp, n_true, zero_division)
    return {
        "precision": precision,
        "recall": recall,
        "f1": fscore(precision, recall),
        "accuracy": divide(tp + tn, np.full(tp.shape, n_bins), zero_division),
    }
