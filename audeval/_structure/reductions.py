"""Reductions of structure statistics on arrays: means over files (the family's
``file_counts`` and ``reduce``).

Every structure metric is a mean over files (NaN files left out) of per-file values:
``file_counts`` gives, per file, the values with NaN as 0 and whether each is defined,
and ``reduce`` the mean of any multiset of files (a file drawn twice counts twice),
vectorised over leading axes (resamples).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from audeval._structure import statistics as _table
from audeval._core.validation import to_ns

_CLUSTERING = {
    "pairwise_clustering": ("pairwise", ("pairwise_precision", "pairwise_recall", "pairwise_f_measure")),
    "rand_index": ("rand", ("rand_index",)),
    "adjusted_rand_index": ("ari", ("adjusted_rand_index",)),
    "mutual_information": (
        "mi",
        ("mutual_information", "adjusted_mutual_information", "normalized_mutual_information"),
    ),
}

GROUPS = {
    "boundary_detection": frozenset({"boundary"}),
    "boundary_deviation": frozenset({"deviation"}),
    "pairwise_clustering": _table.CLUSTERING_GROUPS["pairwise"],
    "rand_index": _table.CLUSTERING_GROUPS["rand"],
    "adjusted_rand_index": _table.CLUSTERING_GROUPS["ari"],
    "mutual_information": _table.CLUSTERING_GROUPS["mi"] | _table.CLUSTERING_GROUPS["ami"],
    "normalized_conditional_entropy": _table.CLUSTERING_GROUPS["nce"] | _table.CLUSTERING_GROUPS["v"],
    "v_measure": _table.CLUSTERING_GROUPS["v"],
    "structure_report": _table.GROUPS,
}
"""The statistics column groups each metric reduces (a direct call computes only these)."""


def metric_values(
    metric: str, table: pd.DataFrame, *, beta: float = 1.0, window_ns: int | None = None, marginal: bool = False
) -> list[np.ndarray] | None:
    """The per-file values of ``metric`` (``None``: no per-file values);
    ``window_ns`` ``None``: the table's own window."""
    if metric == "boundary_detection":
        return list(_table.detection_values(table, _table.hits_column(table, window_ns), beta))
    if metric == "boundary_deviation":
        return list(_table.deviation_values(table))
    if metric in _CLUSTERING:
        key, names = _CLUSTERING[metric]
        which = frozenset({"mi", "ami"}) if key == "mi" else frozenset({key})
        scores = _table.clustering_values(table, 1.0 if key != "pairwise" else beta, which)
        return [scores[name] for name in names]
    if metric in ("normalized_conditional_entropy", "v_measure"):
        marginal = metric == "v_measure" or marginal
        key = "v" if marginal else "nce"
        scores = _table.clustering_values(table, beta, frozenset({key}))
        names = ("v_precision", "v_recall", "v_measure") if marginal else ("nce_over", "nce_under", "nce_f_measure")
        return [scores[name] for name in names]
    return None


def per_file_values(table: pd.DataFrame, options: Mapping[str, Any]) -> np.ndarray | None:
    """``(files, values)``: the metric's values of each file (``None``: no per-file values)."""
    # a window the caller did not give: the table's own (as the metric does)
    window = options.get("window") if "window" in options.get("given", ()) else None
    values = metric_values(
        options["metric"],
        table,
        beta=float(options.get("beta", 1.0)),
        window_ns=None if window is None else to_ns(window, "window", allow_none=False),
        marginal=bool(options.get("marginal", False)),
    )
    if values is None:
        return None
    return np.column_stack([np.asarray(v, dtype=np.float64) for v in values])


def file_counts(table: pd.DataFrame, options: Mapping[str, Any]):
    """Per file: the values (NaN as 0) and whether each is defined."""
    values = per_file_values(table, options)
    if values is None:
        return None
    defined = ~np.isnan(values)
    return pd.Index(table.index.get_level_values("file")), {
        "value": np.where(defined, values, 0.0),
        "defined": defined.astype(np.float64),
    }


def reduce(counts, options: Mapping[str, Any]) -> np.ndarray:
    """Means over the files of each resample, NaN files left out; a tuple metric ``(..., k)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(counts["defined"] > 0, counts["value"] / counts["defined"], np.nan)
    return mean[..., 0] if mean.shape[-1] == 1 else mean


__all__ = ["GROUPS", "file_counts", "metric_values", "per_file_values", "reduce"]
