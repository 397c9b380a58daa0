"""Bootstrap resamples on arrays (SPEC section 2 and 8): the generic part of the array path.

The files a bootstrap resamples, the per-file counts of a statistics table
as its family declares them (additive columns, label blocks), or as the family
derives them (``file_counts``), and :class:`_Arrays`: all resamples as one product
of a ``(resamples, files)`` count matrix with those counts, then one call of the
family's ``reduce``. Family-agnostic: it reads the declarations of
:class:`audeval._core.protocol.Family` and imports no family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import inspect
import warnings

import numpy as np
import pandas as pd

from audeval._core.options import value_of
from audeval._core.protocol import Counts, Family, table_options


def _storage(values: np.ndarray) -> np.ndarray:
    """Column values as float64 (timedeltas as nanoseconds)."""
    values = np.asarray(values)
    if values.dtype.kind == "m":
        values = values.astype("m8[ns]").view(np.int64)
    return values.astype(np.float64)


# -------------------------------------------------------------------------
# Files
# -------------------------------------------------------------------------


def level_values(index: pd.Index, name: str) -> pd.Index:
    """The values of an index level in the order they first occur,
    from the level's codes where it has them (no per-row values)."""
    if isinstance(index, pd.MultiIndex):
        position = index.names.index(name)
        level = index.levels[position]
        codes = np.asarray(index.codes[position], dtype=np.int64)
        used, first = np.unique(codes[codes >= 0], return_index=True)
        values = np.asarray(level, dtype=object)[used[np.argsort(first, kind="stable")]]
        return pd.Index(values, dtype=object)
    return pd.Index(index.get_level_values(name).unique(), dtype=object)


def _files_of(obj: object) -> list[pd.Index]:
    """File names of an input: the ``file`` level of a Series or DataFrame
    and the files its reader saw (``attrs["files"]``: files without events too),
    or of the values of a mapping of them (one Index each)."""
    if isinstance(obj, Mapping):
        return [index for value in obj.values() for index in _files_of(value)]
    if not isinstance(obj, (pd.Series, pd.DataFrame)):
        return []
    out = []
    if "file" in (obj.index.names or []):
        out.append(level_values(obj.index, "file"))
        dtype = obj.index.get_level_values("file").dtype if not isinstance(obj.index, pd.MultiIndex) \
            else obj.index.levels[obj.index.names.index("file")].dtype
        if isinstance(dtype, pd.CategoricalDtype):  # the categories list the files
            out.append(pd.Index(np.asarray(dtype.categories, dtype=object), dtype=object))
    seen = obj.attrs.get("files")
    if isinstance(seen, (list, tuple, pd.Index, np.ndarray)) and len(seen):
        out.append(pd.Index(list(seen), dtype=object))
    return out


def resampled_files(stats: pd.DataFrame, family: Family, inputs: Sequence[object], durations) -> pd.Index:
    """The files a bootstrap resamples: the table's files in its order,
    then, for pooled families, the files of the inputs and of ``files_duration``
    that have no row in the table (they count, with counts of 0)."""
    files = level_values(stats.index, "file")
    if not family.pooled:
        return files
    extra = [index for obj in inputs for index in _files_of(obj)]
    if isinstance(durations, pd.Series):
        extra.append(pd.Index(durations.index, dtype=object))
    elif isinstance(durations, Mapping):
        extra.append(pd.Index(list(durations), dtype=object))
    for index in extra:
        new = index[~index.isin(files)]
        if len(new):
            files = files.append(new.unique())
    return files


# -------------------------------------------------------------------------
# Resamples on arrays
# -------------------------------------------------------------------------


def _table_labels(stats: pd.DataFrame) -> tuple[list, np.ndarray]:
    """Labels of the ``label`` level (categories, else sorted where they can be) and row codes."""
    level = stats.index.get_level_values("label")
    if isinstance(level.dtype, pd.CategoricalDtype):
        return list(level.categories), np.asarray(level.codes, dtype=np.int64)
    row_codes, uniques = pd.factorize(level)
    labels = list(uniques)
    try:
        order = sorted(range(len(labels)), key=labels.__getitem__)
    except TypeError:
        order = list(range(len(labels)))
    labels = [labels[i] for i in order]
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return labels, (rank[row_codes] if len(order) else np.asarray(row_codes, dtype=np.int64))


def _table_counts(family: Family, stats: pd.DataFrame, files: pd.Index):
    """Per-file counts of a table as declared: additive columns and label blocks.

    Returns the labels (``None`` for a table indexed by file only)
    and ``{name: (files, ...) array}`` with blocks under ``("block", prefix)``;
    ``None`` if the declared index is not ``file`` [and ``label``].
    """
    rest = [name for name in family.index if name != "file"]
    if rest not in ([], ["label"]) or list(stats.index.names) != list(family.index):
        return None
    file_codes = files.get_indexer(pd.Index(stats.index.get_level_values("file"), dtype=object))
    if rest:
        labels, label_codes = _table_labels(stats)
    else:
        labels, label_codes = None, np.zeros(len(stats), dtype=np.int64)
    n_files, n_labels = len(files), (1 if labels is None else len(labels))
    cell = np.asarray(file_codes, dtype=np.int64) * n_labels + label_codes
    out: dict[object, np.ndarray] = {}
    for column in family.additive_columns(list(stats.columns), labels):
        if column not in stats.columns:
            continue
        grid = np.bincount(
            cell, weights=_storage(stats[column].to_numpy()), minlength=n_files * n_labels
        ).reshape(n_files, n_labels)
        out[column] = grid if labels is not None else grid[:, 0]
    if labels is not None:
        for prefix, names in family.block_columns(labels).items():
            if not all(name in stats.columns for name in names):
                continue
            grid = np.stack(
                [
                    np.bincount(cell, weights=_storage(stats[name].to_numpy()), minlength=n_files * n_labels)
                    for name in names
                ],
                axis=-1,
            )
            out[("block", prefix)] = grid.reshape(n_files, n_labels, n_labels)
    return labels, out


class _Arrays:
    """All resamples of a metric as one product of the count matrix with per-file counts,
    reduced by the family's ``reduce`` in one call."""

    def __init__(self, family, labels, per_file: dict, recorded: Mapping, options: dict):
        self.family = family
        self.labels = labels
        self.options = options
        self.recorded = dict(recorded)
        n_files = len(next(iter(per_file.values()))) if per_file else 0
        # one (files, size) matrix per column or block, summed when reduce reads it
        self.values = {name: np.ascontiguousarray(v.reshape(n_files, -1)) for name, v in per_file.items()}
        self.shapes = {name: v.shape[1:] for name, v in per_file.items()}

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        counts = np.asarray(counts, dtype=np.float64)

        def summed(name):
            return (counts @ self.values[name]).reshape((len(counts),) + self.shapes[name])

        columns = _Lazy({n: (lambda n=n: summed(n)) for n in self.values if not isinstance(n, tuple)})
        blocks = _Lazy({n[1]: (lambda n=n: summed(n)) for n in self.values if isinstance(n, tuple)})
        arrays = Counts(columns, self.labels, blocks, self.recorded)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return np.asarray(self.family.reduce(arrays, self.options), dtype=np.float64)

    @classmethod
    def of(cls, family, metric, stats, files, labels, metric_options, template, value):
        """The array path of a metric call, or ``None`` (then a table per resample)."""
        if (family.reduce is None and family.resample is None) or metric not in family.metrics:
            return None
        options = _metric_options(metric, metric_options)
        options.update(metric=metric.__name__, labels=labels, given=frozenset(metric_options))
        try:
            if family.resample is not None:
                arrays = family.resample(stats, files, options)
                if arrays is None:
                    return None
                return _checked(arrays, len(files), template)
            if family.file_counts is not None:
                derived = family.file_counts(stats, options)
                if derived is None:
                    return None
                table_files, per_file = derived
                where = files.get_indexer(pd.Index(table_files, dtype=object))
                if (where < 0).any():
                    return None
                aligned = {}
                for name, array in per_file.items():
                    full = np.zeros((len(files),) + array.shape[1:], dtype=np.float64)
                    full[where] = array
                    aligned[name] = full
                table_labels, per_file = None, aligned
            else:
                counted = _table_counts(family, stats, files)
                if counted is None:
                    return None
                table_labels, per_file = counted
            if not _exact(per_file, len(files)):
                return None
            if isinstance(value, Mapping) and table_labels is not None and list(value) != table_labels:
                return None
            arrays = cls(family, table_labels, per_file, table_options(stats), options)
            return _checked(arrays, len(files), template)
        except (NotImplementedError, ValueError, TypeError, KeyError):
            # (the direct call worked: a metric the arrays cannot reduce takes the table path)
            return None


def _checked(arrays: Callable, n_files: int, template: np.ndarray) -> Callable | None:
    """``arrays`` if the full data (every file once) gives the direct value, else ``None``
    (then the metric takes the table path)."""
    check = np.asarray(arrays(np.ones((1, n_files))))
    if check.shape != (1,) + template.shape:
        return None
    if not np.allclose(check[0], template, rtol=1e-9, atol=1e-12, equal_nan=True):
        return None
    return arrays


class _Lazy(Mapping):
    """A mapping whose values are computed on first access (the sums a reduce reads)."""

    def __init__(self, make: dict):
        self._make = make
        self._done: dict = {}

    def __getitem__(self, key):
        if key not in self._done:
            self._done[key] = self._make[key]()
        return self._done[key]

    def __iter__(self):
        return iter(self._make)

    def __len__(self) -> int:
        return len(self._make)


def _exact(per_file: dict, n_files: int) -> bool:
    """Whether float64 sums of up to ``n_files`` copies of every file are exact."""
    for array in per_file.values():
        if array.size and not np.all(np.isfinite(array)):
            return False
        # a resample sums n_files files: at most n_files times the largest value
        if array.size and float(np.abs(array).max()) * max(n_files, 1) >= 2.0**53:
            return False
    return True


def _metric_options(metric: Callable, given: Mapping[str, object]) -> dict:
    """The metric's keyword options: its defaults, updated with the given ones."""
    out = {}
    try:
        parameters = inspect.signature(metric).parameters.values()
    except (TypeError, ValueError):
        parameters = []  # type: ignore[assignment]  # nothing to iterate
    for p in parameters:
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is not inspect.Parameter.empty:
            out[p.name] = value_of(p.default)
    out.update({k: value_of(v) for k, v in given.items()})
    return out
