"""The systems of a comparison: a system's per-file statistics and its metric on count rows.

:class:`_Table`: a statistics table of a registered family
(the family's array reduction where it has one, else a table per resample);
:class:`_FileValues`: per-file values of :mod:`audeval.separation` tables (mean or median).
"""

from __future__ import annotations

from collections.abc import Mapping
import copy
import numbers
from typing import Any
import warnings

import numpy as np
import pandas as pd

from audeval._generic.bootstrap import _to_array, table_resamples
from audeval._generic.registry import reduce
from audeval._generic.resample import _Arrays

# -------------------------------------------------------------------------
# Sources: the per-file statistics of one system and its metric on count rows
# -------------------------------------------------------------------------


def _pick(value: Any, component: Any) -> tuple[Any, int | None]:
    """The number of a metric's value that is compared, and its position in the value's array."""
    array = _to_array(value)
    if array.ndim == 0 and component is None:
        return value, None
    if component is None:
        raise ValueError(
            f"the metric returned {len(array.ravel())} numbers ({_short(value)}): "
            "compare needs one number per system; pass component= (the position or key "
            "of the number to compare), or an option that makes the metric return one number "
            "(e.g. average='micro')."
        )
    if isinstance(value, Mapping):
        keys = list(value)
        if component not in keys:
            raise ValueError(f"component must be one of {keys}; got {component!r}.")
        return value[component], keys.index(component)
    if isinstance(value, pd.Series):
        keys = list(value.index)
        if component not in keys:
            raise ValueError(f"component must be one of {keys}; got {component!r}.")
        return value[component], keys.index(component)
    if array.ndim != 1:
        raise ValueError(f"component cannot select one number of {_short(value)}.")
    if isinstance(component, bool) or not isinstance(component, numbers.Integral):
        raise TypeError(f"component must be an int position for a tuple value; got {component!r}.")
    if not -len(array) <= component < len(array):  # type: ignore[operator]  # a numbers.Integral (typeshed declares no comparison)
        raise ValueError(f"component must be a position in 0..{len(array) - 1}; got {component!r}.")
    return value[component], int(component) % len(array)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class _Table:
    """A system's statistics table and its metric on count rows over its files."""

    def __init__(self, family, metric, stats, files, labels, metric_options, component, value=None):
        self.family = family
        self.metric = metric
        self.stats = stats
        self.files = files
        self.labels = labels
        self.metric_options = metric_options
        self.component = component
        full = reduce(metric, stats, labels, metric_options, family) if value is None else value
        self.full = full
        self.value, self.position = _pick(full, component)
        self.arrays = _Arrays.of(
            family, metric, stats, files, labels, metric_options, _to_array(full), full
        )
        self.tables = None

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        """The compared number for every row of ``counts`` (``(rows, files)``)."""
        if self.arrays is not None:
            out = np.asarray(self.arrays(counts), dtype=np.float64)
        else:
            if self.tables is None:
                self.tables = table_resamples(self.family, self.stats, self.files)
            shape = _to_array(self.full).shape
            out = np.empty((len(counts),) + shape)
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                integer = np.rint(counts).astype(np.int64)  # (the tables repeat files)
                for k, table in enumerate(self.tables.tables(integer)):
                    replicate = _to_array(
                        reduce(self.metric, table, self.labels, self.metric_options, self.family)
                    )
                    out[k] = replicate if replicate.shape == shape else np.nan
        return out if self.position is None else out[:, self.position]

    def renamed(self, union: pd.Index, offset: int) -> pd.DataFrame:
        """The table with its files named by position in ``union`` plus ``offset``."""
        index = self.stats.index
        if isinstance(index, pd.MultiIndex):
            k = index.names.index("file")
            level = index.levels[k]
            names = union.get_indexer(pd.Index(level, dtype=object)) + offset
            new_index = index.set_levels(pd.Index(names, dtype=np.int64), level=k)
        else:
            new_index = pd.Index(
                union.get_indexer(pd.Index(index, dtype=object)) + offset, name="file"
            )
        out = self.stats.set_axis(new_index, axis=0)
        out.attrs = copy.deepcopy(self.stats.attrs)
        return out

    def paired(self, other: _Table, union: pd.Index) -> _Table:
        """Both systems' tables side by side as ``2 n`` files (self first)."""
        n = len(union)
        table = pd.concat([self.renamed(union, 0), other.renamed(union, n)])
        table.attrs = copy.deepcopy(self.stats.attrs)
        files = pd.Index(np.arange(2 * n, dtype=np.int64), dtype=object)
        return _Table(
            self.family, self.metric, table, files, self.labels, self.metric_options, self.component
        )

    def same(self, other: _Table) -> bool:
        return self.stats.equals(other.stats) and list(self.files) == list(other.files)


class _FileValues:
    """Per-file values (``audeval.separation`` tables): the mean or median over files."""

    def __init__(self, values: np.ndarray, files: pd.Index, how: str, value: float):
        self.values = np.asarray(values, dtype=np.float64)
        self.files = files
        self.how = how
        self.value = value
        self.valid = ~np.isnan(self.values)
        self.order = np.argsort(np.where(self.valid, self.values, np.inf), kind="stable")

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        counts = np.asarray(counts, dtype=np.float64)
        weight = counts * self.valid
        total = weight.sum(axis=1)
        with np.errstate(all="ignore"):
            if self.how == "mean":
                return (weight @ np.where(self.valid, self.values, 0.0)) / total
            # weighted median: the middle one or two of the sorted multiset
            sorted_values = self.values[self.order]
            cumulative = np.cumsum(weight[:, self.order], axis=1)
            low = np.argmax(cumulative > ((total - 1) // 2)[:, None], axis=1)
            high = np.argmax(cumulative > (total // 2)[:, None], axis=1)
            out = (sorted_values[low] + sorted_values[high]) / 2
        return np.where(total > 0, out, np.nan)

    def paired(self, other: _FileValues, union: pd.Index) -> _FileValues:
        n = len(union)
        values = np.full(2 * n, np.nan)
        values[union.get_indexer(self.files)] = self.values
        values[n + union.get_indexer(other.files)] = other.values
        files = pd.Index(np.arange(2 * n, dtype=np.int64), dtype=object)
        return _FileValues(values, files, self.how, np.nan)

    def same(self, other: _FileValues) -> bool:
        return list(self.files) == list(other.files) and np.array_equal(
            self.values, other.values, equal_nan=True
        )


def _separation_sources(predictions: Mapping, options: dict) -> dict[str, _FileValues]:
    from audeval.separation import aggregate

    how = options.pop("how", "mean")
    column = options.pop("column", None)
    unknown = sorted(set(options) - {"level"})
    if unknown:
        raise TypeError(f"unknown options {unknown} for audeval.separation.aggregate (column=, how=).")
    level = options.pop("level", "all")
    if level != "all":
        raise ValueError(f"level must be 'all' for compare (one number per system); got {level!r}.")
    out = {}
    for name, table in predictions.items():
        per_file = aggregate(table, how=how, level="file")
        if "source" in per_file.index.names:
            per_file = getattr(per_file.groupby(level="file", sort=False), how)()
        numeric = list(per_file.columns)
        if column is None:
            if len(numeric) != 1:
                raise ValueError(
                    f"predictions[{name!r}] has the score columns {numeric}: pass column= one of them."
                )
            column = numeric[0]
        if column not in numeric:
            raise ValueError(f"column must be one of {numeric}; got {column!r}.")
        value = float(aggregate(table, how=how, level="all")[column].iloc[0])
        files = pd.Index(per_file.index, dtype=object)
        out[name] = _FileValues(per_file[column].to_numpy(dtype=np.float64), files, how, value)
    return out


