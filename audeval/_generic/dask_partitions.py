"""Partitions of dask collections as the pandas objects of a direct call (SPEC section 8).

A partition holds the columns (or index levels) ``file``, ``start``, ``end``
and a label column (or the score columns of a class each);
its columns are coded straight into an audformat segmented index
(the file names by their runs where the partition is sorted by file,
every time its own code), without a sort of the levels or a round trip through Python objects.
The partitions of a group (:mod:`audeval._generic.dask_groups`) are joined
column by column before they are coded (:func:`to_series` of a list).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

from audeval._core.file_levels import arrow_array, arrow_increasing
from audeval._core.sides import Coded
from audeval._core.validation import NAT, seconds_to_ns_or_nat


LEVELS = ("file", "start", "end")


def _times(values, name: str, what: str) -> np.ndarray:
    """A partition's time column as ``timedelta64`` values (its unit kept; seconds: ns)."""
    dtype = values.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "m" or pd.api.types.is_timedelta64_dtype(dtype):
        return np.asarray(values.to_numpy())
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        # the one seconds -> ns rule (round to the nearest; pandas truncates)
        return seconds_to_ns_or_nat(values.to_numpy(dtype=np.float64, na_value=np.nan)).view("m8[ns]")
    raise TypeError(
        f"{name}: the column '{what}' must hold timedeltas or seconds; got dtype {dtype}."
    )


def _file_level(values) -> tuple[np.ndarray, pd.Index]:
    """Codes (-1: missing) and the distinct file names, in the order first seen."""
    codes, names, _ = _coded_files(values)
    return codes, names


def _coded_files(values, like: Coded | None = None) -> tuple[np.ndarray, pd.Index, bool]:
    """:func:`_file_level`, and whether the names are known to be unique and sorted
    (found as the runs of sorted rows: the validation gate need not check them again).
    ``like``: the other side of the pair; where the runs' names are its sorted names
    (both sides hold the same files, the usual pair), its Index is shared.

    dask's pyarrow strings become pandas' default strings (as in pandas input)
    without a round trip through Python objects: arrow factorises them.
    """
    if isinstance(values, ExtensionArray):
        array = values
    else:
        array = values.array if hasattr(values, "array") else pd.array(values)
    if isinstance(array.dtype, pd.StringDtype):
        runs = _runs(array)
        if runs is not None:
            codes, names = runs
            if like is not None and like.increasing and _same_names(names, like.files):
                return codes, like.files, True
            if arrow_increasing(names):  # (so every file is one run)
                return codes, _names_index(names), True  # (only the names converted)
        array = array.astype("str")
    elif pd.api.types.is_string_dtype(array.dtype):  # (objects: pandas infers their type)
        array = pd.Index(np.asarray(array, dtype=object)).array
    codes, uniques = pd.factorize(array, use_na_sentinel=True)
    if isinstance(uniques.dtype, pd.CategoricalDtype):  # the names, as a level of pandas input
        uniques = uniques.categories.take(uniques.codes)
    return np.asarray(codes, dtype=np.int64), pd.Index(uniques, name="file"), False


_DEFAULT_STRINGS = pd.Index(["a"]).dtype  # pandas' strings (pandas 3: ``str``, arrow-backed; 2: objects)


def _names_index(names) -> pd.Index:
    """A pyarrow array of file names as an Index of pandas' default strings, named ``file``."""
    if isinstance(_DEFAULT_STRINGS, pd.StringDtype):
        return pd.Index(_arrow_strings(names), name="file")
    return pd.Index(names.to_pylist(), dtype=object, name="file")


def _arrow_strings(names) -> ExtensionArray:
    """pandas' default strings over a pyarrow array of strings (its constructor: no look at every value,
    a third of what ``pd.array`` takes)."""
    if _DEFAULT_STRINGS.storage == "pyarrow":
        try:
            return pd.arrays.ArrowStringArray(names, dtype=_DEFAULT_STRINGS)
        except TypeError:  # (a pandas whose constructor takes no dtype)
            pass
    return pd.array(names, dtype=_DEFAULT_STRINGS)


def _runs(array) -> tuple[np.ndarray, Any] | None:
    """The run of every row and the names of the runs (a pyarrow array) of arrow strings
    (one run-end encoding); ``None`` where they are not arrow strings without missing names.
    The runs are the files only where their names strictly increase (sorted rows, ``arrow_increasing``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        values = pa.array(array)
    except (TypeError, ValueError, pa.ArrowException):
        return None
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    n = len(values)
    if n < 2 or values.null_count or not pa.types.is_string(values.type) and not pa.types.is_large_string(values.type):
        return None
    runs = pc.run_end_encode(values)
    codes = np.zeros(n, dtype=np.int64)  # (a 1 where a run starts, summed: the run of every row)
    codes[runs.run_ends.to_numpy()[:-1]] = 1
    return np.cumsum(codes, out=codes), runs.values


def _same_names(names, files: pd.Index) -> bool:
    """Whether a pyarrow array holds the names of an Index of arrow strings, in its order."""
    if len(names) != len(files) or not hasattr(files.array, "__arrow_array__"):
        return False
    other = arrow_array(files)
    return other.type == names.type and other.equals(names)


def _time_level(values: np.ndarray) -> tuple[np.ndarray, pd.TimedeltaIndex]:
    """Codes (-1: NaT) and level of a time level (``timedelta64`` values): every row its own code.

    The validation reads a segmented index by its levels and codes only
    (:func:`audeval._core.validation.check_inputs`; repeated rows are found on the values),
    so the times need no factorisation (a hash of every row, a fifth of a partition's cost);
    NaT rows point nowhere, as in a factorised level.
    """
    values = np.asarray(values)
    ticks = values.view(np.int64)
    missing = ticks == NAT
    codes = np.arange(len(ticks), dtype=np.int64)
    if missing.any():
        codes[missing] = -1
        ticks = np.where(missing, 0, ticks)
    return codes, pd.TimedeltaIndex(ticks.view(values.dtype))


def entries(index: pd.Index) -> list:
    """The entries of a small Index (column names) as a list; arrow-backed strings
    through pyarrow (pandas converts them through numpy, and iterates them slowly)."""
    if isinstance(index.dtype, pd.StringDtype) and index.dtype.storage == "pyarrow":
        array = index.array.__arrow_array__()
        if not array.null_count:  # (a missing name: pandas' own NA, as pandas lists it)
            return array.to_pylist()
    return index.tolist()


def _value_column(columns: Sequence[object], name: str, column: object | None) -> object:
    rest = [c for c in columns if c not in LEVELS]
    if column is not None:
        if column not in rest:
            raise ValueError(f"{name} has no column {column!r}; its columns are {list(columns)}.")
        return column
    if len(rest) != 1:
        raise ValueError(
            f"{name} must have one label column besides {list(LEVELS)}; "
            f"got {rest}: pass column=... to choose one."
        )
    return rest[0]


def _segments(part: pd.DataFrame | pd.Series | list, name: str, column: object | None) -> pd.Series | tuple:
    """The columns and the label column's name of segmented partitions (one, or a list of one layout),
    or the Series of a filewise partition (one label per file)."""
    if isinstance(part, list):
        if len(part) == 1 or not all(isinstance(p, pd.DataFrame) for p in part):
            part = part[0] if len(part) == 1 else pd.concat(part)
    if isinstance(part, pd.Series):
        if list(part.index.names) == ["file"]:  # filewise
            codes, level = _file_level(part.index)
            return pd.Series(part.array, index=level.take(codes, allow_fill=True), name=part.name)
        part = part.to_frame()
    if not isinstance(part, (pd.DataFrame, list)):
        raise TypeError(f"{name} partitions must be pandas objects; got {type(part).__name__}.")
    columns = _columns(part)
    names = list(columns)
    if "file" not in names:
        raise ValueError(
            f"{name} must have 'file' as its index or as a column; got columns {names}."
        )
    has_start, has_end = "start" in names, "end" in names
    if has_start != has_end:
        raise ValueError(f"{name} has only one of the columns 'start' and 'end'.")
    value = _value_column(names, name, column)
    if not has_start:
        codes, level = _file_level(columns["file"])
        return pd.Series(columns[value], index=level.take(codes, allow_fill=True), name=value)
    return columns, value


def to_series(part: pd.DataFrame | pd.Series | list, name: str, column: object | None = None) -> pd.Series:
    """A partition (or consecutive partitions of one layout, a list) as a Series
    with an audformat segmented (or filewise) index.

    The partition holds the columns ``start`` and ``end``
    (timedeltas, or seconds as numbers) and a label column,
    and ``file`` as its index or as a column;
    without ``start`` and ``end`` it is filewise (one label per file).
    Several partitions are put one after the other column by column
    (no concatenated frame is built).
    """
    segments = _segments(part, name, column)
    if isinstance(segments, pd.Series):
        return segments
    columns, value = segments
    return pd.Series(columns[value], index=_segmented_index(columns, name), name=value)


def to_coded(
    part: pd.DataFrame | pd.Series | list, name: str, column: object | None = None, like: object = None
) -> Coded | pd.Series:
    """A partition (or consecutive partitions of one layout, a list) as the arrays the validation gate reads
    (:class:`audeval._core.sides.Coded`: no pandas index is built; its Series, :func:`to_series`,
    only when asked); a filewise partition as a Series.
    ``like``: the other side of the pair, coded; where both hold the same files
    they share one file Index (the gate then finds them equal at once)."""
    segments = _segments(part, name, column)
    if isinstance(segments, pd.Series):
        return segments
    columns, value = segments
    codes, files, increasing = _coded_files(columns["file"], like if isinstance(like, Coded) else None)
    start, end = (_ns(columns.times(name, what), fresh=len(columns.parts) > 1) for what in ("start", "end"))
    return Coded(files, codes, start, end, columns[value], lambda: to_series(part, name, column), increasing)


def _ns(values: np.ndarray, fresh: bool) -> np.ndarray:
    """``timedelta64`` values as int64 ns (NaT: ``NAT``), never a view of a partition's data
    (``fresh``: the values are a new array already)."""
    if values.dtype != np.dtype("m8[ns]"):
        return values.astype("m8[ns]").view(np.int64)
    return values.view(np.int64) if fresh else values.view(np.int64).copy()


class _Columns:
    """The index levels (as ``reset_index`` would make them columns) and the columns
    of partitions of one layout, by name (a column before a level of the same name),
    each taken out only when it is read (no copy of the partitions)
    as one array of the partitions' values one after the other."""

    def __init__(self, parts: list[pd.DataFrame]):
        self.parts = parts
        self.levels: dict = {}
        index = parts[0].index
        if any(n in LEVELS for n in index.names if n is not None):
            for k, level in enumerate(index.names):
                self.levels[level if level is not None else "index"] = k
        columns = entries(parts[0].columns)
        self.columns = set(columns)
        self.names = list(dict.fromkeys([*self.levels, *columns]))

    def __iter__(self):
        return iter(self.names)

    def __contains__(self, name: object) -> bool:
        return name in self.columns or name in self.levels

    def _of(self, part: pd.DataFrame, name: object):
        if name in self.columns:
            return _column(part, name)
        index = part.index
        return (index.get_level_values(self.levels[name]) if isinstance(index, pd.MultiIndex) else index).array

    def __getitem__(self, name: object):
        """The values of a column (a pandas array)."""
        arrays = self._arrays(name)
        first = arrays[0]
        if len(arrays) == 1:
            return first
        if isinstance(first, pd.Categorical):
            # (the same categories: the codes one after the other, no union of the categories)
            # (codes of one dtype's categoricals are valid codes of it: not checked again)
            codes = np.concatenate([a.codes for a in arrays])
            return pd.Categorical.from_codes(codes, dtype=first.dtype, validate=False)
        return type(first)._concat_same_type(arrays)

    def times(self, name: str, what: str) -> np.ndarray:
        """A time column as ``timedelta64`` values (:func:`_times`)."""
        arrays = [_times(values, name, what) for values in self._arrays(what)]
        return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)

    def _arrays(self, name: object) -> list:
        """The column's array in every partition, raising :class:`LayoutDiffers` where their dtypes differ."""
        arrays = [self._of(part, name) for part in self.parts]
        dtype = arrays[0].dtype
        if any(a.dtype != dtype for a in arrays[1:]):
            raise LayoutDiffers(name)
        return arrays


def _column(part: pd.DataFrame, name: object):
    """A column's values as a pandas array, without the Series pandas builds for every column taken
    (``part[name].array``; that Series cost as much as coding the column's times)."""
    loc = part.columns.get_loc(name)
    take = getattr(part, "_get_column_array", None)  # (pandas' own accessor of a column's values; not public)
    if take is None or not isinstance(loc, (int, np.integer)):
        return part[name].array
    values = take(loc)
    return pd.arrays.NumpyExtensionArray(values) if isinstance(values, np.ndarray) else values


class LayoutDiffers(Exception):
    """Partitions put one after the other differ in a column's dtype
    (each is then evaluated alone, :mod:`audeval._generic.dask_groups`)."""


def _columns(part: pd.DataFrame | list[pd.DataFrame]) -> _Columns:
    """The levels and columns of a partition (or of partitions of one layout) by name (:class:`_Columns`)."""
    return _Columns(part if isinstance(part, list) else [part])


def _segmented_index(part: _Columns, name: str) -> pd.MultiIndex:
    """The audformat segmented index of a partition's columns ``file``, ``start``, ``end``,
    built from the codes of each (no sort of the levels, no Python objects)."""
    coded = [
        _file_level(part["file"]),
        _time_level(part.times(name, "start")),
        _time_level(part.times(name, "end")),
    ]
    return pd.MultiIndex(
        levels=[level for _, level in coded],
        codes=[codes for codes, _ in coded],
        names=list(LEVELS),
        verify_integrity=False,
    )


def to_frame(part: pd.DataFrame | pd.Series | list, name: str) -> pd.DataFrame:
    """A partition (or consecutive partitions, a list) as a table on an audformat segmented index,
    every other column kept (a score table: one column per class)."""
    if isinstance(part, list):
        first = part[0]
        if any(
            not (p.dtypes.equals(first.dtypes) and p.index.dtype == first.index.dtype)
            for p in part[1:] if isinstance(p, pd.DataFrame)
        ):  # (as a segment partition's columns and index levels are compared when read)
            raise LayoutDiffers("dtypes")
        part = part[0] if len(part) == 1 else pd.concat(part)
    if isinstance(part, pd.Series):
        part = part.to_frame()
    if not isinstance(part, pd.DataFrame):
        raise TypeError(f"{name} partitions must be pandas objects; got {type(part).__name__}.")
    if any(n in LEVELS for n in part.index.names if n is not None):
        part = part.reset_index()
    columns = list(part.columns)
    missing = [c for c in LEVELS if c not in columns]
    if missing:
        raise ValueError(
            f"{name} must have the columns (or index levels) {list(LEVELS)}; "
            f"it lacks {missing}: its columns are {columns}."
        )
    index = _segmented_index(_columns(part), name)
    values = part[[c for c in columns if c not in LEVELS]]
    return pd.DataFrame(values.to_numpy(), index=index, columns=values.columns).infer_objects()
