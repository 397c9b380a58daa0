"""Additive statistics tables: how they are built and how they are read back.

A statistics table is a DataFrame indexed by ``(file, label)``
with integer columns of counts or nanosecond durations.
The ``label`` level is categorical in the order of the labels,
so ``groupby(level="label")`` keeps that order,
and its categories are the table's labels (also those that occur in no row).

Its rows are one of two kinds, as the family declares
(:attr:`audeval._core.protocol.Family.sparse`):

* *dense*: one row for every file and every label (the grid);
* *sparse*: one row for every ``(file, label)`` pair that occurs
  (a missing row counts 0 in every column),
  and one row of zeros with the first label for a file without any
  (so that files without events keep a row),
  in ``(file, label)`` order.
  Columns that are mostly zero (e.g. the substitution pairs of events)
  may be pandas sparse columns (``Sparse[int64, 0]``).

Tables of disjoint sets of whole files add up
(``pd.concat([a, b])`` or ``a.add(b, fill_value=0)``;
pandas cannot ``add`` sparse columns with a ``fill_value``:
``pd.concat`` and ``groupby(...).sum()`` work on them)
to the table of their union;
every metric is a function of such a (summed) table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._core.validation import Inputs


def label_index(labels: Sequence[object]) -> pd.CategoricalIndex:
    """Labels as an ordered categorical index that keeps their order."""
    categories = pd.Index(list(labels), dtype=object)
    # (from the codes 0, 1, ...: no lookup of every label in the categories)
    codes = np.arange(len(categories), dtype=np.int64)
    return pd.CategoricalIndex(
        pd.Categorical.from_codes(codes, categories=categories, ordered=True), name="label"
    )


def occurring_rows(
    groups: Sequence[np.ndarray], n_files: int, n_labels: int
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Sorted row keys ``file * n_labels + label`` of a sparse table, and the row of every key given.

    ``groups``: the keys of every event (truth and prediction);
    a file of ``range(n_files)`` with no event gets the key of its first label.
    Costs a sort of the events, or (grids of at most 4 cells per event) one pass over the grid.
    """
    groups = [np.asarray(g, dtype=np.int64) for g in groups]
    if n_labels == 0 or n_files == 0:
        return np.zeros(0, dtype=np.int64), [np.zeros(len(g), dtype=np.int64) for g in groups]
    has = np.zeros(n_files, dtype=bool)
    for g in groups:
        has[g // n_labels] = True
    empty = np.flatnonzero(~has).astype(np.int64) * n_labels
    n_cells = n_files * n_labels
    if n_cells <= 4 * sum(len(g) for g in groups) + len(empty):
        occurs = np.zeros(n_cells, dtype=bool)
        for g in (*groups, empty):
            occurs[g] = True
        keys = np.flatnonzero(occurs).astype(np.int64)
        rank = np.cumsum(occurs, dtype=np.int64) - 1
        return keys, [rank[g] for g in groups]
    keys = sorted_unique(np.concatenate([*groups, empty]))
    return keys, [np.searchsorted(keys, g) for g in groups]


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique`` of int64 keys by a sort (numpy's hash-based unique is slower on large arrays)."""
    values = np.sort(np.asarray(values, dtype=np.int64))
    if len(values) < 2:
        return values
    keep = np.empty(len(values), dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def sparse_columns(
    rows: np.ndarray,
    columns: np.ndarray,
    n_rows: int,
    names: Sequence[str],
    values: np.ndarray | None = None,
) -> dict[str, pd.arrays.SparseArray]:
    """Sparse int64 columns (fill value 0): ``values`` (default 1 each) summed at ``(rows, columns)``."""
    from scipy import sparse

    rows = np.asarray(rows, dtype=np.int64)
    columns = np.asarray(columns, dtype=np.int64)
    if values is None:
        values = np.ones(len(rows), dtype=np.int64)
    matrix = sparse.csc_matrix(
        (np.asarray(values, dtype=np.int64), (rows, columns)), shape=(n_rows, len(names))
    )
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    frame = pd.DataFrame.sparse.from_spmatrix(matrix, columns=range(len(names)))
    return {name: frame[k].array for k, name in enumerate(names)}


def statistics_frame(
    inputs: Inputs,
    columns: Mapping[str, np.ndarray],
    keys: np.ndarray | None = None,
) -> pd.DataFrame:
    """DataFrame over the ``(file, label)`` rows ``keys`` (``file * n_labels + label``).

    ``keys=None``: the dense grid; each column holds ``n_files * n_labels`` values
    in the order ``file * n_labels + label``.
    """
    n_files, n_labels = inputs.n_files, inputs.n_labels
    if keys is None:
        codes_file = np.repeat(np.arange(n_files), n_labels)
        codes_label = np.tile(np.arange(n_labels), n_files)
    else:
        codes_file, codes_label = np.divmod(np.asarray(keys, dtype=np.int64), max(n_labels, 1))
    index = pd.MultiIndex(
        levels=[pd.Index(inputs.files, name="file"), label_index(inputs.labels)],
        codes=[codes_file, codes_label],
        names=["file", "label"],
        verify_integrity=False,
    )
    return pd.DataFrame(dict(columns), index=index)


def check_statistics(stats: object, required: Sequence[str], name: str = "statistics") -> pd.DataFrame:
    """A statistics table with the required columns, or a clear error."""
    if not isinstance(stats, pd.DataFrame):
        raise TypeError(f"{name} must be a statistics DataFrame; got {type(stats).__name__}.")
    missing = [c for c in required if c not in stats.columns]
    if missing:
        raise ValueError(
            f"{name} lacks the columns {missing}; "
            "pass a table returned by the matching *_statistics function."
        )
    if "label" not in (stats.index.names or []):
        raise ValueError(f"{name} must have an index level 'label'; got {list(stats.index.names)}.")
    return stats


def _is_categories(index: pd.Index, categories: pd.Index) -> bool:
    """Whether ``index`` holds ``categories`` in their order (what a groupby on a categorical level
    with ``observed=False`` gives), read from the codes where it is categorical."""
    if isinstance(index, pd.CategoricalIndex):
        return (
            len(index) == len(categories)
            and index.categories.equals(categories)
            and bool(np.array_equal(index.codes, np.arange(len(categories))))
        )
    return bool(index.equals(pd.Index(categories)))


def per_label(stats: pd.DataFrame) -> pd.DataFrame:
    """Sum a statistics table over files: one row per label, in label order.

    Sparse columns are summed from their stored values only (never made dense).
    """
    dtypes = stats.dtypes  # (one Series of dtypes: no column taken out to read its dtype)
    sparse = [c for c, dtype in zip(stats.columns, dtypes) if isinstance(dtype, pd.SparseDtype)]
    if not sparse:
        return stats.groupby(level="label", sort=True, observed=False).sum()
    dense = [c for c in stats.columns if c not in set(sparse)]
    summed = stats[dense].groupby(level="label", sort=True, observed=False).sum()
    level = stats.index.get_level_values("label")
    if isinstance(level.dtype, pd.CategoricalDtype):
        codes = np.asarray(level.codes, dtype=np.int64)
        if not _is_categories(summed.index, level.categories) and len(summed.index):
            codes = pd.Index(summed.index, dtype=object).get_indexer(
                pd.Index(np.asarray(level.categories, dtype=object), dtype=object)
            )[codes]
    else:
        codes = pd.Index(summed.index, dtype=object).get_indexer(pd.Index(np.asarray(level, dtype=object)))
    n = len(summed)
    out = {}
    for column in sparse:
        array = stats[column].array
        dtype = array.dtype.subtype
        total = np.zeros(n, dtype=np.int64 if dtype.kind in "iub" else np.float64)
        np.add.at(total, codes[array.sp_index.indices], array.sp_values.astype(total.dtype, copy=False))
        out[column] = total
    sums = pd.DataFrame(out, index=summed.index)
    return pd.concat([summed, sums], axis=1)[list(stats.columns)]


def int_columns(stats: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """The integer columns of a table as one ``(rows, columns)`` int64 array.

    One conversion of the whole block, without pandas' per-column Series
    (whose ``attrs`` are deep-copied on every access).
    """
    position = stats.columns.get_indexer(list(columns))
    if (position < 0).any():
        missing = [c for c, k in zip(columns, position) if k < 0]
        raise KeyError(f"statistics table lacks columns {missing}")
    if len(position) == stats.shape[1] and (position == np.arange(len(position))).all():
        return stats.to_numpy(dtype=np.int64)
    return stats.iloc[:, position].to_numpy(dtype=np.int64)  # (other columns may hold anything)


def per_file(stats: pd.DataFrame) -> pd.DataFrame:
    """Sum a statistics table over labels: one row per file."""
    return stats.groupby(level="file", sort=False, observed=True).sum()


def labels_of(stats: pd.DataFrame) -> list:
    """Labels of a table in their order."""
    level = stats.index.get_level_values("label")
    if isinstance(level.dtype, pd.CategoricalDtype):
        return list(level.categories)
    return list(pd.unique(level))


def select_labels(stats: pd.DataFrame, labels: Sequence[object]) -> pd.DataFrame:
    """Rows of the given labels, with the label level in that order.

    Labels missing from the table count as zero in every column.
    """
    labels = list(labels)
    level = stats.index.get_level_values("label")
    keep = np.asarray(level.isin(labels))
    stats = stats[keep]
    if not isinstance(stats.index, pd.MultiIndex):
        return stats
    position = stats.index.names.index("label")
    codes = pd.Index(labels, dtype=object).get_indexer(
        pd.Index(stats.index.get_level_values("label"), dtype=object)
    )
    levels = list(stats.index.levels)
    levels[position] = label_index(labels)
    all_codes = list(stats.index.codes)
    all_codes[position] = codes
    index = pd.MultiIndex(
        levels=levels, codes=all_codes, names=stats.index.names, verify_integrity=False
    )
    return stats.set_axis(index, axis=0)
