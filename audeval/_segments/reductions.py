"""Reductions of segment counts: class-wise, micro (with S/D/I per segment) and macro values."""

from __future__ import annotations

import numpy as np

from audeval._core.report import PerClass
from audeval._core.ratios import divide
from audeval._core.ratios import fscore
from audeval._segments.engine import _Counts


# -------------------------------------------------------------------------
# Divide last
# -------------------------------------------------------------------------


def _rate(numerator, denominator, zero_division: float) -> np.ndarray:
    """``num / den``; 0 / 0 -> ``zero_division``, x / 0 -> inf for x > 0."""
    out = divide(numerator, denominator, zero_division)
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    return np.where((denominator == 0) & (numerator > 0), np.inf, out)


def _nanmean(values: np.ndarray) -> np.ndarray:
    """Mean over the last axis ignoring NaN; NaN when nothing is left."""
    values = np.asarray(values, dtype=np.float64)
    valid = ~np.isnan(values)
    count = valid.sum(axis=-1)
    total = np.where(valid, values, 0.0).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _scores(
    tp: np.ndarray,
    fp: np.ndarray,
    fn: np.ndarray,
    tn: np.ndarray,
    substitutions: np.ndarray,
    zero_division: float,
    propagate_nans: bool,
    keep: np.ndarray | None = None,
) -> tuple[dict, dict, dict]:
    """Class-wise, micro and macro values from counts of shape ``(..., n_labels)``.

    ``keep``: labels that count in the macro averages (``None``: all).

    ``substitutions`` has the shape of the counts without the label axis.
    """
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    substitutions = np.asarray(substitutions, dtype=np.float64)

    def block(tp, fp, fn, tn):
        n_truth, n_prediction = tp + fn, tp + fp
        precision = divide(tp, n_prediction, zero_division)
        recall = divide(tp, n_truth, zero_division)
        sensitivity = divide(tp, tp + fn, zero_division)
        specificity = divide(tn, tn + fp, zero_division)
        return {
            "n_truth": n_truth,
            "n_prediction": n_prediction,
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
            "precision": precision,
            "recall": recall,
            "fscore": fscore(precision, recall, propagate_nans=propagate_nans),
            "sensitivity": sensitivity,
            "specificity": specificity,
            "balanced_accuracy": (sensitivity + specificity) / 2,
            "accuracy": divide(tp + tn, tp + tn + fp + fn, zero_division),
        }

    classwise = block(tp, fp, fn, tn)
    classwise["deletion_rate"] = _rate(fn, classwise["n_truth"], zero_division)
    classwise["insertion_rate"] = _rate(fp, classwise["n_truth"], zero_division)
    classwise["error_rate"] = _rate(fn + fp, classwise["n_truth"], zero_division)
    classwise["substitution_rate"] = np.full(tp.shape, np.nan)

    micro = block(tp.sum(axis=-1), fp.sum(axis=-1), fn.sum(axis=-1), tn.sum(axis=-1))
    deletions = micro["fn"] - substitutions
    insertions = micro["fp"] - substitutions
    n = micro["n_truth"]
    micro["substitution_rate"] = _rate(substitutions, n, zero_division)
    micro["deletion_rate"] = _rate(deletions, n, zero_division)
    micro["insertion_rate"] = _rate(insertions, n, zero_division)
    micro["error_rate"] = _rate(substitutions + deletions + insertions, n, zero_division)

    macro = {
        name: _nanmean(values if keep is None else values[..., keep])
        for name, values in classwise.items()
    }
    for name in ("n_truth", "n_prediction", "tp", "fp", "fn", "tn"):
        macro[name] = np.full(macro[name].shape, np.nan)
    return classwise, micro, macro


def _overall(counts: _Counts, zero_division, propagate_nans) -> tuple[dict, dict, dict]:
    return _scores(
        counts.tp.sum(axis=0),
        counts.fp.sum(axis=0),
        counts.fn.sum(axis=0),
        counts.tn.sum(axis=0),
        counts.substitutions.sum(),
        zero_division,
        propagate_nans,
        counts.keep,
    )


def _per_class(counts: _Counts, name: str, zero_division, propagate_nans=False) -> PerClass:
    classwise, _, _ = _overall(counts, zero_division, propagate_nans)
    return PerClass(zip(counts.labels, (float(v) for v in classwise[name])))


# -------------------------------------------------------------------------
# The family's reduce: summed counts as arrays, vectorised over leading axes
# -------------------------------------------------------------------------

_PER_CLASS = {
    "segment_precision_per_class": "precision",
    "segment_recall_per_class": "recall",
    "segment_fscore_per_class": "fscore",
    "segment_error_rate_per_class": "error_rate",
}


def _macro_keep(n_truth: np.ndarray, n_prediction: np.ndarray, labels_given: bool) -> np.ndarray:
    """The labels of macro averages (:func:`audeval._core.ratios.supported` along the last axis)."""
    support = (n_truth + n_prediction) > 0
    if labels_given:
        return np.ones(support.shape, dtype=bool)
    every = support.all(axis=-1, keepdims=True) | ~support.any(axis=-1, keepdims=True)
    return support | every


def reduce(counts, options) -> np.ndarray:
    """The segment metrics from summed counts (:class:`audeval._core.protocol.Counts`).

    ``counts[name]`` has shape ``(..., n_labels)`` for ``tp``, ``fp``, ``fn``, ``tn``
    and ``substitutions`` (summed over labels here).
    """
    metric = options["metric"]
    if metric == "segment_accuracy" and options.get("gap_label") is not None:
        raise NotImplementedError("gap_label")
    zero_division = options.get("zero_division", 0.0)
    propagate_nans = bool(options.get("propagate_nans", False)) if metric in (
        "segment_fscore_per_class", "segment_fscore"
    ) else False
    tp, fp, fn, tn = (counts[name] for name in ("tp", "fp", "fn", "tn"))
    substitutions = counts["substitutions"].sum(axis=-1)
    classwise, micro, _ = _scores(tp, fp, fn, tn, substitutions, zero_division, propagate_nans)
    if metric in _PER_CLASS:
        return classwise[_PER_CLASS[metric]]
    if metric == "segment_fscore":
        if options.get("average", "micro") == "micro":
            return micro["fscore"]
        given = options.get("labels") is not None or bool(counts.recorded.get("labels_given"))
        keep = _macro_keep(tp + fn, tp + fp, given)
        return _nanmean(np.where(keep, classwise["fscore"], np.nan))
    if metric == "segment_error_rate":
        return micro["error_rate"]
    if metric == "segment_accuracy":
        return micro["accuracy"]
    raise NotImplementedError(metric)
