"""One input taken apart (part of the validation gate, SPEC section 1).

:func:`take_apart` reads an input's file codes and names, start and end (int64 ns)
and labels, and checks them (missing files, NaT or negative starts, ends before starts).
An input is a pandas Series on an audformat segmented or filewise index,
or a :class:`Coded` input: the same arrays already coded
(a dask partition's columns, :mod:`audeval._generic.dask_partitions`),
which need no pandas index; its Series is built only for a message
or for a family that asks for one.
"""

from __future__ import annotations

from collections.abc import Callable
import dataclasses
import functools

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

from audeval._core.labels import show_rows


NAT = np.iinfo(np.int64).min  # the int64 value of NaT


@dataclasses.dataclass(eq=False)
class Coded:
    """A segmented input given by its arrays: what :func:`take_apart` reads from a Series' index.

    Attributes:
        files: the file names (an Index; codes point into it)
        file_codes: int64 code of every row's file (-1: missing)
        start: int64 ns of every row's start (``NAT``: missing)
        end: int64 ns of every row's end (``NAT``: open, until the end of the file)
        labels: the label of every row (a pandas array)
        build: builds the same input as a Series (for messages, and families that need one)
        increasing: the file names are known to be unique and sorted, and each used by a row
            (the runs of sorted rows: not checked again)
    """

    files: pd.Index
    file_codes: np.ndarray
    start: np.ndarray
    end: np.ndarray
    labels: object
    build: Callable[[], pd.Series]
    increasing: bool = False

    def __len__(self) -> int:
        return len(self.file_codes)

    @functools.cached_property
    def series(self) -> pd.Series:
        """The input as a Series on an audformat segmented index."""
        return self.build()


@dataclasses.dataclass
class Raw:
    """One input taken apart, before files and labels are shared."""

    name: str
    source: pd.Series | Coded
    file_levels: pd.Index
    file_codes: np.ndarray
    start: np.ndarray
    end: np.ndarray
    values: pd.Series | ExtensionArray  # the labels (a Coded input's: its pandas array)
    used: np.ndarray | None = None  # per file level: used by a row (set by the gate)
    increasing: bool = False  # the file level is known to be unique and sorted, each entry used by a row

    @property
    def series(self) -> pd.Series:
        """The input as a Series (to show offending rows)."""
        return self.source.series if isinstance(self.source, Coded) else self.source


def _level_ns(index: pd.MultiIndex, level: int, name: str, what: str) -> np.ndarray:
    """int64 ns of a timedelta level, NaT as ``NAT``, without materialising objects."""
    values = index.levels[level]
    if not isinstance(values, pd.TimedeltaIndex):
        if len(values) == 0:
            values = pd.TimedeltaIndex([], dtype="timedelta64[ns]")
        else:
            raise TypeError(
                f"{name}: the '{what}' level of the index must hold timedeltas; "
                f"got dtype {values.dtype}."
            )
    ns = values.as_unit("ns").asi8 if values.unit != "ns" else values.asi8
    # code -1 (NaT) picks the appended NAT; take() reads the level's small int codes as they are
    return np.append(np.asarray(ns, dtype=np.int64), NAT).take(index.codes[level])


def _series_levels(obj: object, name: str, allow_filewise: bool) -> tuple:
    """File names, file codes, start and end (ns) of a Series' index."""
    if isinstance(obj, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas.Series (one label column); "
            f"got a DataFrame with columns {list(obj.columns)}. Select a column first."
        )
    if not isinstance(obj, pd.Series):
        raise TypeError(
            f"{name} must be a pandas.Series with an audformat segmented index; "
            f"got {type(obj).__name__}."
        )
    index = obj.index
    names = list(index.names)
    if isinstance(index, pd.MultiIndex) and names == ["file", "start", "end"]:
        # the level itself, not a copy: pandas caches is_unique / is_monotonic / equals on it
        return (
            index.levels[0], np.asarray(index.codes[0], dtype=np.int64),
            _level_ns(index, 1, name, "start"), _level_ns(index, 2, name, "end"),
        )
    if not isinstance(index, pd.MultiIndex) and names == ["file"]:
        if not allow_filewise:
            raise ValueError(
                f"{name} has a filewise index (one label per file); "
                "this metric needs a segmented index with levels 'file', 'start', 'end'."
            )
        file_codes, file_index = pd.factorize(index, use_na_sentinel=True)
        return (
            pd.Index(file_index), np.asarray(file_codes, dtype=np.int64),
            np.zeros(len(index), dtype=np.int64), np.full(len(index), NAT, dtype=np.int64),
        )
    raise ValueError(
        f"{name} must have an audformat segmented index "
        "(levels 'file', 'start', 'end') or a filewise index ('file'); "
        f"got index levels {names}."
    )


def take_apart(obj: object, name: str, allow_filewise: bool) -> Raw:
    """An input's arrays (a Series' index levels, or a :class:`Coded` input's arrays), checked."""
    if isinstance(obj, Coded):
        file_index, file_codes, start, end = obj.files, obj.file_codes, obj.start, obj.end
        values = obj.labels  # (a pandas array: no Series around it)
        increasing = obj.increasing
    else:
        file_index, file_codes, start, end = _series_levels(obj, name, allow_filewise)
        values, increasing = obj, False
    raw = Raw(name, obj, file_index, file_codes, start, end, values, increasing=increasing)
    bad = file_codes < 0
    if bad.any():
        raise ValueError(f"{name} has missing file names: {show_rows(raw.series, bad)}")
    bad = start < 0  # NaT (NAT) included
    if bad.any():
        nat = start == NAT
        if nat.any():
            raise ValueError(f"{name} has NaT start times: {show_rows(raw.series, nat)}")
        raise ValueError(f"{name} has negative start times: {show_rows(raw.series, bad)}")
    bad = end < start  # an end NaT (NAT) too: "until the end of the file" is allowed
    if bad.any():
        bad &= end != NAT
        if bad.any():
            raise ValueError(f"{name} has rows whose end is before their start: {show_rows(raw.series, bad)}")
    # missing and unhashable labels: checked by the factorization (labels.label_codes)
    return raw


__all__ = ["NAT", "Coded", "Raw", "take_apart"]
