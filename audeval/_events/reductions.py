"""Reductions of event statistics: class-wise, micro (with S/D/I) and macro values, as arrays.

Every metric but the per-file report reads only the columns summed over files,
one value per label (:class:`Summed`): from a statistics table
(:meth:`Summed.of_table`), or straight from a matching
(:meth:`Summed.of_match`) without ever building the dense
``files x labels`` table (memory independent of the number of classes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from audeval._core import ratios as _scores
from audeval._core.tables import check_statistics, per_label
from audeval._core.protocol import table_options
from audeval._core.report import PerClass


def count_columns(n_truth, n_prediction, tp, substituted, substituting) -> dict[str, np.ndarray]:
    """The additive event columns from the counts per group (label, or file and label)."""
    return {
        "n_truth": n_truth,
        "n_prediction": n_prediction,
        "tp": tp,
        "fp": n_prediction - tp,
        "fn": n_truth - tp,
        "substituted": substituted,
        "substituting": substituting,
    }


@dataclasses.dataclass(frozen=True)
class Summed:
    """A statistics table summed over files: one value per label and column.

    ``columns[name][k]`` is the sum of column ``name`` over the files for ``labels[k]``;
    ``labels_given``: the labels were given by the caller
    (every one counts in macro averages).
    """

    labels: list
    columns: Mapping[str, np.ndarray]
    labels_given: bool

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    @classmethod
    def of_table(cls, stats: pd.DataFrame, labels: Sequence[object] | None = None) -> Summed:
        """Sums of a (summed) statistics table; ``labels``: the caller's ``labels``."""
        summed = per_label(check_statistics(stats, ()))
        given = labels is not None or bool(table_options(stats).get("labels_given"))
        columns = {name: summed[name].to_numpy() for name in summed.columns}
        return cls(list(summed.index), columns, given)

    @classmethod
    def of_match(cls, em, *, confusion: bool, labels_given: bool, prefix: str) -> Summed:
        """Sums of the table of a matching (:class:`audeval._events.EventMatch`), from its arrays.

        Equal to ``of_table(statistics_of_match(em))``; costs one ``bincount`` per column.
        """
        truth, pred = em.inputs.truth, em.inputs.prediction
        n = em.inputs.n_labels
        substituted = em.substitution >= 0
        # one count of (label, matched, substituted) for the truth events, one of (label, substituting)
        code = truth.label * 4 + (em.match >= 0) + 2 * substituted
        t_counts = np.bincount(code, minlength=4 * n).astype(np.int64, copy=False).reshape(n, 4)
        code = pred.label * 2
        code[em.substitution[substituted]] += 1
        p_counts = np.bincount(code, minlength=2 * n).astype(np.int64, copy=False).reshape(n, 2)
        columns = count_columns(
            t_counts.sum(axis=1),
            p_counts.sum(axis=1),
            t_counts[:, 1] + t_counts[:, 3],
            t_counts[:, 2] + t_counts[:, 3],
            p_counts[:, 1],
        )
        if confusion:
            partner = pred.label[em.substitution[substituted]]
            pairs = np.bincount(truth.label[substituted] * n + partner, minlength=n * n)
            pairs = pairs.astype(np.int64, copy=False).reshape(n, n)
            for k, label in enumerate(em.inputs.labels):
                columns[f"{prefix}{label}"] = pairs[:, k]
        return cls(list(em.inputs.labels), columns, labels_given)


def error_rate(numerator, denominator, zero_division: float) -> np.ndarray:
    """Error rate: ``x / 0`` is ``inf``, ``0 / 0`` is ``zero_division``."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = numerator / denominator
    return np.where((denominator == 0) & (numerator == 0), zero_division, out)


def class_values(n_truth, n_prediction, tp, zero_division: float, propagate_nans: bool) -> dict:
    """Per-label counts and metrics from count arrays (any shape, e.g. files x labels)."""
    n_truth, n_pred, tp = (np.asarray(x) for x in (n_truth, n_prediction, tp))
    fn = n_truth - tp
    fp = n_pred - tp
    precision, recall, f = _scores.precision_recall_fscore(
        tp, n_pred, n_truth, zero_division=zero_division, propagate_nans=propagate_nans
    )
    return {
        "n_truth": n_truth,
        "n_prediction": n_pred,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "precision": precision,
        "recall": recall,
        "fscore": f,
        "error_rate": error_rate(fn + fp, n_truth, zero_division),
        "deletion_rate": error_rate(fn, n_truth, zero_division),
        "insertion_rate": error_rate(fp, n_truth, zero_division),
    }


def class_wise(summed: Summed, zero_division: float, propagate_nans: bool) -> dict[str, np.ndarray]:
    """Per-label counts and metrics (one array per column, in the order of ``summed.labels``)."""
    return class_values(
        summed["n_truth"], summed["n_prediction"], summed["tp"], zero_division, propagate_nans
    )


def totals(summed: Summed, columns: Sequence[str]) -> dict[str, object]:
    """Columns summed over labels (the counts of all files and labels)."""
    return {name: summed[name].sum() for name in columns}


def overall(
    counts: pd.DataFrame | pd.Series,
    zero_division: float,
    propagate_nans: bool = False,
) -> dict[str, Any]:
    """Micro (pooled) metrics from summed counts of one or several files."""
    n = counts["n_truth"]
    n_pred = counts["n_prediction"]
    tp = counts["tp"]
    s = counts["substituted"]
    d = n - tp - s
    i = n_pred - tp - s
    precision, recall, f = _scores.precision_recall_fscore(
        tp, n_pred, n, zero_division=zero_division, propagate_nans=propagate_nans
    )
    return {
        "n_truth": n,
        "n_prediction": n_pred,
        "tp": tp,
        "fp": n_pred - tp,
        "fn": n - tp,
        "substitutions": s,
        "deletions": d,
        "insertions": i,
        "precision": precision,
        "recall": recall,
        "fscore": f,
        "error_rate": error_rate(s + d + i, n, zero_division),
        "substitution_rate": error_rate(s, n, zero_division),
        "deletion_rate": error_rate(d, n, zero_division),
        "insertion_rate": error_rate(i, n, zero_division),
    }


def _as_dict(labels, values) -> PerClass:
    return PerClass((label, float(v)) for label, v in zip(labels, values))



MACRO_COLUMNS = (
    "precision", "recall", "fscore", "error_rate", "deletion_rate", "insertion_rate"
)
REPORT_COLUMNS = (
    "n_truth", "n_prediction", "tp", "fp", "fn", "precision", "recall", "fscore", "error_rate",
    "deletion_rate", "insertion_rate", "substitutions", "deletions", "insertions", "substitution_rate",
)


def _macro_labels(summed: Summed) -> np.ndarray:
    """Labels that count in macro averages (see :func:`audeval._core.ratios.supported`)."""
    return _scores.supported(summed["n_truth"], summed["n_prediction"], summed.labels, summed.labels_given)


def _dense_counts(stats: pd.DataFrame, labels: list) -> tuple[list, dict[str, np.ndarray]]:
    """Count columns as ``(files, labels)`` arrays, files in the order of the table."""
    file_codes, files = pd.factorize(stats.index.get_level_values("file"))
    label_codes = pd.Index(labels, dtype=object).get_indexer(
        pd.Index(np.asarray(stats.index.get_level_values("label"), dtype=object), dtype=object)
    )
    counts = {}
    for name in ("n_truth", "n_prediction", "tp", "substituted"):
        grid = np.zeros((len(files), len(labels)), dtype=np.float64)
        np.add.at(grid, (file_codes, label_codes), stats[name].to_numpy(dtype=np.float64))
        counts[name] = grid
    return list(files), counts




# -------------------------------------------------------------------------
# The family's reduce: summed counts as arrays, vectorised over leading axes
# -------------------------------------------------------------------------


def macro_keep(n_truth: np.ndarray, n_prediction: np.ndarray, labels_given: bool) -> np.ndarray:
    """:func:`audeval._core.ratios.supported` along the last axis, without its warning:
    every label if given, or if all or none have support, else the labels with support."""
    support = (np.asarray(n_truth) + np.asarray(n_prediction)) > 0
    if labels_given:
        return np.ones(support.shape, dtype=bool)
    every = support.all(axis=-1, keepdims=True) | ~support.any(axis=-1, keepdims=True)
    return support | every


def masked_macro(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Mean over the last axis of the kept values, NaN ignored (:func:`audeval._core.ratios.macro`)."""
    return _scores.macro(np.where(keep, values, np.nan), axis=-1)


def reduce(counts, options: Mapping[str, Any]) -> np.ndarray:
    """The event metrics from summed counts (:class:`audeval._core.protocol.Counts`).

    ``counts[name]`` has shape ``(..., n_labels)``; the confusion block
    ``counts.blocks[CONFUSION_PREFIX]`` ``(..., n_labels, n_labels)``.
    Returns the metric with the leading axes first
    (per-class metrics: ``(..., n_labels)``; the confusion matrix ``(..., L + 1, L + 1)``).
    """
    metric = options["metric"]
    zero_division = options.get("zero_division", 0.0)
    propagate_nans = bool(options.get("propagate_nans", False))
    n_truth, n_prediction, tp = counts["n_truth"], counts["n_prediction"], counts["tp"]
    given = options.get("labels") is not None or bool(counts.recorded.get("labels_given"))
    per_class = {
        "event_precision_per_class": "precision",
        "event_recall_per_class": "recall",
        "event_fscore_per_class": "fscore",
        "event_error_rate_per_class": "error_rate",
    }
    if metric in per_class:
        propagate = propagate_nans if metric == "event_fscore_per_class" else False
        return class_values(n_truth, n_prediction, tp, zero_division, propagate)[per_class[metric]]
    average = "macro" if metric == "event_unweighted_average_fscore" else options.get("average")
    if metric in ("event_fscore", "event_unweighted_average_fscore") and average == "macro":
        f = class_values(n_truth, n_prediction, tp, zero_division, propagate_nans)["fscore"]
        return masked_macro(f, macro_keep(n_truth, n_prediction, given))
    if metric == "event_fscore":
        _, _, f = _scores.precision_recall_fscore(
            tp.sum(axis=-1), n_prediction.sum(axis=-1), n_truth.sum(axis=-1),
            zero_division=zero_division, propagate_nans=propagate_nans,
        )
        return f
    if metric == "event_error_rate":
        sums = {name: counts[name].sum(axis=-1) for name in ("n_truth", "n_prediction", "tp", "substituted")}
        return overall(sums, zero_division)["error_rate"]
    if metric == "event_confusion_matrix":
        return _confusion(counts, bool(options.get("normalize", False)))
    raise NotImplementedError(metric)


def _confusion(counts, normalize: bool) -> np.ndarray:
    """The ``(..., L + 1, L + 1)`` confusion matrices (see ``event_confusion_matrix``)."""
    from audeval._events.options import CONFUSION_PREFIX

    if CONFUSION_PREFIX not in counts.blocks:
        raise NotImplementedError("confusion columns")
    block = counts.blocks[CONFUSION_PREFIX]
    lead, n = block.shape[:-2], block.shape[-1]
    cm = np.zeros(lead + (n + 1, n + 1), dtype=np.float64)
    cm[..., :n, :n] = block
    diagonal = np.arange(n)
    cm[..., diagonal, diagonal] = counts["tp"]
    cm[..., :n, n] = counts["n_truth"] - counts["tp"] - counts["substituted"]
    cm[..., n, :n] = counts["n_prediction"] - counts["tp"] - counts["substituting"]
    if not normalize:
        return cm
    sums = cm.sum(axis=-1, keepdims=True)
    return np.divide(cm, sums, out=np.zeros(cm.shape), where=sums != 0)


__all__ = ["Summed", "class_values", "class_wise", "error_rate", "overall", "reduce", "totals"]
