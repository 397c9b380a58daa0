"""Sum statistics tables: tables of disjoint sets of whole files give the table of their union.

Generic over families: the family a table records (``attrs``, see
:mod:`audeval._core.protocol`) says how a row missing from one shard is filled
(its declared ``fill_missing``); tables of different families,
or made with different options, do not add up and raise.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from audeval._core.protocol import Family, stamp, table_family, table_options
from audeval._generic.registry import family_named
from audeval._generic.rows import _is_sorted, _order_columns, _same, _sortable_union, concatenate_rows, rows_of
from audeval._core.tables import label_index, sorted_unique, sparse_columns


DESCENDING = ("threshold",)
"""Index levels whose rows run from the highest value down (score tables: ``+inf`` first)."""


def sum_statistics(tables: Iterable[pd.DataFrame]) -> pd.DataFrame:
    r"""Sum statistics tables; tables of disjoint whole files give the table of their union.

    Rows with the same index (``file``, ``label``) are added,
    the result covers the union of files and labels
    on the dense ``(file, label)`` grid (missing rows count as 0),
    or, for a family whose tables hold only the rows that occur
    (its schema declares ``sparse``: events),
    on those rows,
    and integer columns stay integer.
    Files are sorted where they can be ordered;
    labels keep their order when all tables share it,
    else the sorted union (the order of ``labels=None``);
    a ``threshold`` level (score tables) runs from the highest value down,
    as the tables of :func:`audeval.score_statistics` do.
    The label-indexed column blocks a family declares
    (like the event confusion columns ``substituted_by_<label>``)
    follow the label order and are filled with 0 where a table lacks them.
    The family's declared schema (:class:`audeval._core.protocol.Family`) says
    which tables hold every ``(file, label)`` row;
    tables that record no family are summed row by row.
    A row missing from a table means the label was not seen in its files:
    all its counts are 0,
    and the tables of a family that keeps only the rows that occur
    (events, see :func:`audeval.event_statistics`)
    sum to such a table again
    (rows of zeros are left out, a file without rows keeps one with the first label;
    sparse columns stay sparse),
    unless the table's family declares another rule
    (segment tables: ``tn`` = the file's number of segments,
    the label was inactive in every segment of the file).
    The result records the family and options of the tables;
    tables of different families or options raise ``ValueError``.

    For tables of *disjoint* sets of whole files
    (a file in two tables raises ``ValueError``, as :class:`audeval.Accumulator` does)
    the result is identical to the table
    of the statistics function called on all files at once
    (with the same ``labels`` or with ``labels=None``).
    Plain pandas gives the same sums
    (``pd.concat(tables)``, ``pd.concat(tables).groupby(level=["file", "label"]).sum()``
    or ``a.add(b, fill_value=0)``, which pandas refuses
    for sparse columns such as the confusion columns of event tables)
    and every metric accepts those as well,
    but only when all tables were computed with the same ``labels``
    (else segment tables lack the true negatives of the missing labels),
    and pandas may change dtypes and the label order.

    Args:
        tables: statistics tables of one family

    Returns:
        summed statistics table

    Raises:
        TypeError: if a table is not a DataFrame
        ValueError: if no table is given,
            the tables differ in their index levels,
            their families or their options,
            or a file is in more than one table

    Examples:
        >>> import audformat
        >>> import audeval
        >>> def events(files, starts, ends, labels):
        ...     index = audformat.segmented_index(files, starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> truth = events(["f1", "f2"], [0.0, 0.0], [1.0, 1.0], ["a", "b"])
        >>> prediction = events(["f1", "f2"], [0.0, 5.0], [1.0, 6.0], ["a", "b"])
        >>> shards = [
        ...     audeval.event_statistics(truth.loc[[f]], prediction.loc[[f]])
        ...     for f in ["f1", "f2"]
        ... ]
        >>> stats = audeval.sum_statistics(shards)
        >>> stats.equals(audeval.event_statistics(truth, prediction))
        True
        >>> audeval.event_fscore(stats, None, average="macro")
        0.5

    """
    tables, names, family, options = _check_tables(tables, disjoint=False)
    concatenated = None
    if family is not None and names == ["file", "label"] and len(tables) > 1:
        concatenated = concatenate_rows([rows_of(table) for table in tables])  # type: ignore[misc]  # concatenate_rows returns None if a table has no rows
    if concatenated is not None:  # (disjoint files in file order: the sum is the concatenation)
        return concatenated
    _check_disjoint(tables)
    levels, categorical = _union_levels(tables, names)
    columns = _sortable_union([list(t.columns) for t in tables], sort=False)
    if "label" in levels:
        columns = _order_columns(columns, list(levels["label"]), family)
    # the declared schema says whether every (file, label) row is held (dense)
    # or only the rows that occur (sparse); a table that records no family is summed row by row
    grid = family is not None and (family.dense or family.sparse) and names == list(family.index)
    sparse = grid and family.sparse  # type: ignore[union-attr]  # grid implies a family
    dense = grid and not sparse
    shift = 0 if grid else 1
    shape = [len(levels[name]) + shift for name in names]
    keys = _row_keys(tables, names, levels, shape, shift, grid)
    all_keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    if dense:
        out_keys = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
        inverse = all_keys
    else:
        out_keys, inverse = np.unique(all_keys, return_inverse=True)
    storage, dtypes = _sums(tables, keys, columns, inverse, len(out_keys))
    if dense and family is not None and family.fill_missing is not None:
        present = np.zeros(len(out_keys), dtype=bool)
        present[all_keys] = True
        family.fill_missing(storage, present, tuple(shape))
    if sparse:
        out_keys, storage = _occurring_rows(out_keys, storage, shape)
    data = {
        column: out.view(dtypes[column]) if dtypes[column].kind == "m" and isinstance(out, np.ndarray) else out
        for column, out in storage.items()
    }
    index = _summed_index(tables, names, levels, categorical, out_keys, shape, shift)
    out = pd.DataFrame(data, index=index, columns=pd.Index(columns))
    if family is not None:
        stamp(out, family.name, options)
    return out


def _check_tables(tables, *, disjoint: bool = True) -> tuple[list[pd.DataFrame], list, Family | None, dict]:
    """The tables as a list, their index levels, their family and options
    (``disjoint``: raise if a file is in two tables)."""
    if isinstance(tables, pd.DataFrame):
        tables = [tables]
    tables = list(tables)
    if not tables:
        raise ValueError("tables is empty: pass at least one statistics table.")
    for table in tables:
        if not isinstance(table, pd.DataFrame):
            raise TypeError(
                f"tables must hold statistics DataFrames; got {type(table).__name__}."
            )
    names = list(tables[0].index.names)
    for table in tables[1:]:
        if list(table.index.names) != names:
            raise ValueError(
                "the statistics tables have different index levels: "
                f"{names} and {list(table.index.names)}."
            )
    if "file" not in names:
        raise ValueError(f"statistics tables must have an index level 'file'; got {names}.")
    families = sorted({table_family(t) for t in tables} - {None})  # type: ignore[type-var]  # None removed
    if len(families) > 1:
        raise ValueError(
            f"tables of different families cannot be summed: {families}; "
            "sum the tables of each family separately."
        )
    family = family_named(families[0]) if families else None  # type: ignore[arg-type]  # None removed (above)
    options: dict = {}
    labels_given = False
    for table in tables:
        if table_family(table) is None:
            continue
        recorded = table_options(table)
        # whether labels were given is no option of the counts: any table with given labels
        labels_given |= bool(recorded.pop("labels_given", False))
        if options and not _same(options, recorded):
            raise ValueError(
                "the statistics tables were made with different options: "
                f"{options} and {recorded}; sum only tables made with the same options."
            )
        options = recorded
    if family is not None and labels_given:
        options["labels_given"] = True
    if disjoint:
        _check_disjoint(tables)
    return tables, names, family, options


def _table_files(table: pd.DataFrame) -> pd.Index:
    """The files of a table's rows, each once."""
    index = table.index
    if isinstance(index, pd.MultiIndex):
        i = index.names.index("file")
        codes = np.asarray(index.codes[i])
        used = np.unique(codes[codes >= 0])
        return pd.Index(index.levels[i][used], dtype=object)
    return pd.Index(index, dtype=object).unique()


def _check_disjoint(tables: list[pd.DataFrame]) -> None:
    """Tables of one file each: a file in two tables is refused (as :class:`audeval.Accumulator` does)."""
    if len(tables) < 2:
        return
    files = [_table_files(table) for table in tables]
    everything = files[0].append(files[1:])
    repeated = everything[everything.duplicated()].unique()
    if len(repeated):
        shown = _sortable_union([list(repeated)], sort=True)
        raise ValueError(
            f"files {shown[:10]}{' ...' if len(shown) > 10 else ''} are in more than one table: "
            "every file must be in one table only "
            "(the statistics of a split file do not add up to those of the whole file)."
        )


def _union_levels(tables: list[pd.DataFrame], names: list) -> tuple[dict, dict]:
    """The union of the values of every index level (categorical levels keep their order)."""
    levels: dict[str, list | pd.Index] = {}
    categorical: dict[str, bool] = {}
    for i, name in enumerate(names):
        categorical[name] = name == "label" or any(_is_categorical(t, i) for t in tables)
        if not categorical[name]:
            levels[name] = _index_union([_level_index(t, i) for t in tables])
            continue
        lists = [list(_level_index(t, i)) for t in tables]
        if all(values == lists[0] for values in lists):
            levels[name] = lists[0]
        else:
            levels[name] = _sortable_union(lists, sort=all(_is_sorted(v) for v in lists))
    return levels, categorical


def _row_keys(tables, names, levels, shape, shift, dense) -> list[np.ndarray]:
    """One int64 key per row, in C order of the levels (missing values first)."""
    targets = [pd.Index(levels[name], dtype=object) for name in names]
    keys = []
    for table in tables:
        key = np.zeros(len(table), dtype=np.int64)
        for i, n in enumerate(shape):
            codes = _codes_into(table.index, i, targets[i])
            if names[i] in DESCENDING:  # the highest value first
                codes = np.where(codes >= 0, len(targets[i]) - 1 - codes, codes)
            if dense and (codes < 0).any():
                raise ValueError("statistics tables must not have missing file or label values.")
            key = key * n + codes + shift
        keys.append(key)
    return keys


def _sums(tables, keys, columns, inverse, n_out) -> tuple[dict, dict]:
    """Column sums per output row, in int64 (ns for timedeltas) or float64."""
    repeated = bool(len(inverse)) and np.bincount(inverse, minlength=n_out).max() > 1
    storage = {}
    dtypes = {}
    of_table = [dict(zip(t.columns, t.dtypes)) for t in tables]  # (a column taken out costs a Series)
    for column in columns:
        present = [d[column] for d in of_table if column in d]
        if any(isinstance(d, pd.SparseDtype) for d in present):
            storage[column], dtypes[column] = _sparse_sum(tables, keys, column, inverse, n_out)
            continue
        dtype = dtypes[column] = _sum_dtype(present)
        out = np.zeros(n_out, dtype=_storage(dtype))
        offset = 0
        for table, key in zip(tables, keys):
            if column in table.columns and len(table):
                values = _as_storage(table[column].to_numpy(), dtype)
                where = inverse[offset : offset + len(key)]
                if repeated:
                    np.add.at(out, where, values)
                else:
                    out[where] += values
            offset += len(key)
        storage[column] = out
    return storage, dtypes


def _sparse_sum(tables, keys, column, inverse, n_out) -> tuple[pd.arrays.SparseArray, np.dtype]:
    """A sparse column summed per output row from the values each table stores."""
    rows: list | np.ndarray
    values: list | np.ndarray
    rows, values = [], []
    offset = 0
    for table, key in zip(tables, keys):
        if column in table.columns and len(table):
            array = table[column].array
            if isinstance(array.dtype, pd.SparseDtype):
                where, stored = array.sp_index.indices, array.sp_values
            else:
                stored = np.asarray(array)
                where = np.flatnonzero(stored)
                stored = stored[where]
            rows.append(inverse[offset : offset + len(key)][where])
            values.append(np.asarray(stored, dtype=np.int64))
        offset += len(key)
    rows = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    values = np.concatenate(values) if values else np.zeros(0, dtype=np.int64)
    out = sparse_columns(rows, np.zeros(len(rows), dtype=np.int64), n_out, [column], values)[column]
    return out, np.dtype(np.int64)


def _occurring_rows(keys: np.ndarray, storage: dict, shape) -> tuple[np.ndarray, dict]:
    """The rows of a sparse family's sum: those with a value, and one (first label) for a file without."""
    n_labels = shape[1]
    nonzero = np.zeros(len(keys), dtype=bool)
    for out in storage.values():
        if isinstance(out, pd.arrays.SparseArray):
            nonzero[out.sp_index.indices[out.sp_values != 0]] = True
        else:
            nonzero |= out != 0
    files = keys // max(n_labels, 1)
    has = np.zeros(shape[0], dtype=bool)
    has[files[nonzero]] = True
    empty = np.setdiff1d(files, np.flatnonzero(has)) * n_labels
    rows = sorted_unique(np.concatenate([keys[nonzero], empty]))
    if np.array_equal(rows, keys):
        return keys, storage
    position = np.minimum(np.searchsorted(keys, rows), max(len(keys) - 1, 0))
    found = keys[position] == rows if len(keys) else np.zeros(len(rows), dtype=bool)
    take = np.where(found, position, -1)
    out = {}
    for column, values in storage.items():
        if isinstance(values, pd.arrays.SparseArray):
            out[column] = values.take(take, allow_fill=True, fill_value=0)
        else:
            column_out = np.zeros(len(rows), dtype=values.dtype)
            column_out[found] = values[position[found]]
            out[column] = column_out
    return rows, out


def _summed_index(tables, names, levels, categorical, out_keys, shape, shift) -> pd.Index:
    if len(out_keys):
        codes = [c - shift for c in np.unravel_index(out_keys, shape)]
        codes = [np.where(c >= 0, len(levels[name]) - 1 - c, c) if name in DESCENDING else c
                 for name, c in zip(names, codes)]
    else:
        codes = [np.zeros(0, dtype=np.int64) for _ in names]
    index_levels = []
    for name in names:
        if categorical[name]:
            index_levels.append(label_index(levels[name]).rename(name))
        else:
            index_levels.append(pd.Index(_typed(levels[name], tables, name), name=name))
    if len(names) == 1:
        return pd.Index(index_levels[0].take(codes[0]), name=names[0])
    return pd.MultiIndex(
        levels=index_levels, codes=list(codes), names=names, verify_integrity=False
    )


def _is_categorical(table: pd.DataFrame, level: int) -> bool:
    index = table.index
    values = index.levels[level] if isinstance(index, pd.MultiIndex) else index
    return isinstance(values.dtype, pd.CategoricalDtype)


def _level_index(table: pd.DataFrame, level: int) -> pd.Index:
    """Values of a level: categories in order, else the used values in level order."""
    index = table.index
    if isinstance(index, pd.MultiIndex):
        values = index.levels[level]
        if isinstance(values.dtype, pd.CategoricalDtype):
            return pd.Index(values.categories)
        codes = np.asarray(index.codes[level])
        used = np.bincount(codes[codes >= 0], minlength=len(values)) > 0
        return values[used]
    if isinstance(index.dtype, pd.CategoricalDtype):
        return pd.Index(index.categories)
    return pd.Index(pd.unique(index.dropna()))


def _index_union(indexes: list[pd.Index]) -> pd.Index:
    """Union of the values, sorted where they can be ordered."""
    if not indexes:
        return pd.Index([])
    values = np.concatenate([np.asarray(ix, dtype=object) for ix in indexes])
    union = pd.Index(pd.unique(values))
    try:
        return union.sort_values()
    except TypeError:
        return union


def _sum_dtype(dtypes: list) -> np.dtype:
    dtypes = [np.dtype(d) if not isinstance(d, np.dtype) else d for d in dtypes]
    if any(d.kind == "m" for d in dtypes):
        if not all(d.kind == "m" for d in dtypes):
            raise ValueError(
                "statistics tables mix durations (timedelta) and counts in one column; "
                "sum only tables computed with the same options."
            )
        return np.dtype("m8[ns]")
    if not dtypes:
        return np.dtype(np.int64)
    dtype = np.result_type(*dtypes)
    if dtype.kind == "b":
        return np.dtype(np.int64)
    if dtype.kind not in "iuf":
        raise ValueError(f"statistics columns must be numeric or timedelta; got {dtype}.")
    return dtype


def _storage(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.int64) if dtype.kind == "m" else dtype


def _as_storage(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "m":
        return np.asarray(values).astype("m8[ns]").view(np.int64)
    return np.asarray(values).astype(dtype, copy=False)


def _codes_into(index: pd.Index, level: int, target: pd.Index) -> np.ndarray:
    """Position of every row's level value in ``target`` (-1 for missing values)."""
    if isinstance(index, pd.MultiIndex):
        values = index.levels[level]
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = pd.Index(np.asarray(values, dtype=object))
        mapping = np.append(target.get_indexer(pd.Index(values, dtype=object)), -1)
        codes = np.asarray(index.codes[level], dtype=np.int64)
        return mapping[codes].astype(np.int64)
    values = pd.Index(np.asarray(index, dtype=object), dtype=object)
    return target.get_indexer(values).astype(np.int64)


def _typed(values, tables: list[pd.DataFrame], name: str) -> pd.Index:
    """Level values with the dtype of the tables' level where they agree."""
    position = list(tables[0].index.names).index(name)
    dtypes = {
        (t.index.levels[position] if isinstance(t.index, pd.MultiIndex) else t.index).dtype
        for t in tables
        if len(t)
    }
    if len(dtypes) == 1:
        try:
            return pd.Index(values, dtype=dtypes.pop())
        except (TypeError, ValueError):
            pass
    return pd.Index(values)


