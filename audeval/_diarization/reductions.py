"""Reductions of diarization statistics on arrays (the family's ``file_counts`` and ``reduce``).

A diarization metric is no function of column sums over files
(each file has its own speaker mapping), but once every file is mapped,
its error components are additive:
``file_counts`` derives them per file from a statistics table
(one mapping per file, as the metric does with ``individual_file_mapping=True``),
and ``reduce`` gives the metric of any sum of files, vectorised over leading axes.
A mapping over all files (``individual_file_mapping=False``) has no per-file counts:
``file_counts`` returns ``None`` and the bootstrap calls the metric on a table per resample.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from audeval._diarization.metrics import _components, _jaccard, _rate
from audeval._diarization.table import _from_frame
from audeval._core.protocol import table_options
from audeval._core.ratios import divide, fscore

_ERROR_RATES = ("diarization_error_rate", "identification_error_rate")


def file_counts(stats: pd.DataFrame, options: Mapping[str, Any]):
    """Per file: the additive components of the metric under each file's own mapping.

    Returns ``(files, {name: (files,) array})``, or ``None`` where the metric has none.
    """
    metric = options["metric"]
    if metric not in (*_ERROR_RATES, "jaccard_error_rate", "identification_precision_recall"):
        return None
    identity = metric in ("identification_error_rate", "identification_precision_recall")
    if not identity and not options.get("individual_file_mapping", True):
        return None
    mapping = "identity" if identity else options.get("mapping", "optimal")
    regions = options.get("regions", "all") if metric in _ERROR_RATES else "all"
    table = _from_frame(stats, table_options(stats).get("compat"))
    total, correct, confusion, false_alarm, miss, chosen = _components(table, mapping, True, regions)
    if metric == "jaccard_error_rate":
        count, error = _jaccard(table, chosen)
        counts = {"count": count, "error": error}
    else:
        counts = {
            "total": total, "correct": correct, "confusion": confusion,
            "false_alarm": false_alarm, "miss": miss,
        }
    return table.files, {k: np.asarray(v, dtype=np.float64) for k, v in counts.items()}


def reduce(counts, options: Mapping[str, Any]) -> np.ndarray:
    """The metric from summed per-file components (:func:`file_counts`), ``(...)`` or ``(..., 3)``."""
    metric = options["metric"]
    if metric in _ERROR_RATES:
        return _rate(counts["confusion"] + counts["false_alarm"] + counts["miss"], counts["total"])
    if metric == "jaccard_error_rate":
        n = counts["count"]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(n > 0, counts["error"] / n, 1.0)
    if metric == "identification_precision_recall":
        zero_division = options.get("zero_division", 1.0)
        retrieved = counts["total"] - counts["miss"] + counts["false_alarm"]
        precision = divide(counts["correct"], retrieved, zero_division)
        recall = divide(counts["correct"], counts["total"], zero_division)
        f = fscore(precision, recall, beta=options.get("beta", 1.0))
        return np.stack([precision, recall, f], axis=-1)
    raise NotImplementedError(metric)


def detection_reduce(counts, options: Mapping[str, Any]) -> np.ndarray:
    """The detection error rate from the summed columns of a detection table."""
    if options["metric"] != "detection_error_rate":
        raise NotImplementedError(options["metric"])
    tp, fa, miss = counts["true_positive"], counts["false_alarm"], counts["miss"]
    return _rate(fa + miss, tp + miss)


def _ratio(numerator, denominator) -> np.ndarray:
    """Summed numerator over summed denominator; 1.0 where the denominator is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / denominator, 1.0)


def speaker_change_reduce(counts, options: Mapping[str, Any]) -> np.ndarray:
    """``(..., 3)``: boundary precision, recall, F, or purity, coverage, F, from summed columns."""
    metric = options["metric"]
    if metric == "speaker_change_precision_recall":
        first = _ratio(counts["matches"], counts["prediction_boundaries"])
        second = _ratio(counts["matches"], counts["truth_boundaries"])
    elif metric == "speaker_change_purity_coverage":
        first = _ratio(counts["purity"], counts["intersection"])
        second = _ratio(counts["coverage"], counts["intersection"])
    else:
        raise NotImplementedError(metric)
    f = fscore(first, second, beta=float(options.get("beta", 1.0)))
    return np.stack([first, second, f], axis=-1)


__all__ = ["detection_reduce", "file_counts", "reduce", "speaker_change_reduce"]
