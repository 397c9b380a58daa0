"""Reductions of hierarchy statistics on arrays: means over files (the family's
``file_counts`` and ``reduce``).

The T- and L-measures are means over files of per-file precision, recall and F
(:func:`audeval._hierarchy.statistics.values`; NaN propagates, as ``numpy.mean``):
``file_counts`` gives per file the values (NaN as 0), a count of 1 and whether a value is NaN;
``reduce`` the mean over any multiset of files, vectorised over leading axes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from audeval._hierarchy import statistics as _statistics


def file_counts(table: pd.DataFrame, options: Mapping[str, Any]):
    """Per file: precision, recall, F (NaN as 0), one file, and which values are NaN."""
    metric = options["metric"]
    if metric == "hierarchy_tmeasure":
        measure = "t_full" if options.get("transitive") else "t_reduced"
    elif metric == "hierarchy_lmeasure":
        measure = "l"
    else:
        return None
    values = np.column_stack(_statistics.values(table, measure, float(options.get("beta", 1.0))))
    nan = np.isnan(values)
    return pd.Index(table.index.get_level_values("file")), {
        "value": np.where(nan, 0.0, values),
        "files": np.ones(len(values)),
        "nan": nan.astype(np.float64),
    }


def reduce(counts, options: Mapping[str, Any]) -> np.ndarray:
    """``(..., 3)``: the means over the files of each resample (NaN if a drawn file is NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = counts["value"] / counts["files"][..., None]
    return np.where(counts["nan"] > 0, np.nan, mean)


__all__ = ["file_counts", "reduce"]
