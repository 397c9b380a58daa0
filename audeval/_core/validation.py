"""The one validation gate for every metric (SPEC section 1).

Every public function of audeval that takes annotations
calls :func:`check_inputs` first.
It turns the two pandas Series (or their coded arrays, :mod:`audeval._core.sides`)
into plain int64 numpy arrays
(file code, start and end in nanoseconds, label code)
over a shared file index and a shared label list,
so that the engines never see pandas objects,
float seconds or unvalidated values.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
import dataclasses
import datetime
import numbers
from typing import TypeVar, overload

import numpy as np
import pandas as pd

from audeval._core.file_levels import file_union as _file_union
from audeval._core.file_levels import positions as _positions
from audeval._core.file_levels import report_files as _report_files
from audeval._core.labels import MAX_ROWS_SHOWN
from audeval._core.labels import given_labels as _given_labels
from audeval._core.labels import infer_labels as infer_labels
from audeval._core.labels import label_codes as _label_codes
from audeval._core.labels import occurring as _occurring
from audeval._core.labels import show_rows as _show_rows
from audeval._core.labels import used_labels as _used_labels
from audeval._core.sides import NAT, Raw as _Raw, take_apart
from audeval._core.warnings import warn


NS_PER_SECOND = 1_000_000_000
_T = TypeVar("_T")

MAX_SECONDS = 1e9  # largest duration accepted (~31.7 years), far from int64 ns overflow

# -------------------------------------------------------------------------
# Small checks shared by every public function
# -------------------------------------------------------------------------


def check_option(value: _T, name: str, allowed: Sequence[object]) -> _T:
    """Raise ``ValueError`` unless ``value`` is one of ``allowed``."""
    if isinstance(value, Hashable) and value in allowed:
        return value
    choices = ", ".join(repr(a) for a in allowed)
    raise ValueError(f"{name} must be one of {choices}; got {value!r}.")


@overload
def to_ns(value: None, name: str, *, allow_none: bool = True) -> None: ...
@overload
def to_ns(
    value: float | pd.Timedelta | datetime.timedelta | np.timedelta64, name: str, *, allow_none: bool = True
) -> int: ...
def to_ns(
    value: float | pd.Timedelta | datetime.timedelta | np.timedelta64 | None,
    name: str,
    *,
    allow_none: bool = True,
) -> int | None:
    """Convert a duration in seconds (float) or a timedelta to int nanoseconds.

    The conversion happens once, here;
    every comparison after it is exact integer arithmetic.
    Durations beyond ``MAX_SECONDS`` (1e9 s) raise ``ValueError`` naming ``name``:
    they would overflow int64 nanoseconds (or float64 before that) in sums and differences.
    """
    if value is None:
        if allow_none:
            return None
        raise TypeError(f"{name} must be a duration in seconds or a timedelta, not None.")
    if isinstance(value, (pd.Timedelta, datetime.timedelta, np.timedelta64)):
        td = pd.Timedelta(value)
        if td is pd.NaT:
            raise ValueError(f"{name} must not be NaT.")
        ns = int(td.value) if td.unit == "ns" else int(td.as_unit("ns").value)
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        # typeshed's numbers.Real declares no arithmetic numpy accepts; every Real converts
        if not np.isfinite(value):  # type: ignore[call-overload]
            raise ValueError(f"{name} must be a finite number of seconds; got {value!r}.")
        if value < 0:
            raise ValueError(f"{name} must not be negative; got {value!r}.")
        if value > MAX_SECONDS:  # type: ignore[operator]  # (numbers.Real, as above) before the product, which overflows beyond 1.8e299 s
            raise ValueError(
                f"{name} must be at most {MAX_SECONDS:.0e} seconds (~31.7 years); got {value!r}."
            )
        ns = seconds_to_ns(value)
    else:
        raise TypeError(
            f"{name} must be a duration in seconds (float) or a pandas.Timedelta; "
            f"got {type(value).__name__}."
        )
    if ns < 0:
        raise ValueError(f"{name} must not be negative; got {value!r}.")
    if ns > MAX_SECONDS * NS_PER_SECOND:
        raise ValueError(
            f"{name} must be at most {MAX_SECONDS:.0e} seconds (~31.7 years); got {value!r}."
        )
    return ns


def seconds_to_ns(seconds):
    """Seconds (float or array) to int64 nanoseconds, rounded to the nearest.

    ``pd.to_timedelta`` truncates: 3.513388 s would become 3513387999 ns.
    """
    if np.ndim(seconds) == 0:
        return int(round(float(seconds) * NS_PER_SECOND))
    return np.round(np.asarray(seconds, dtype=np.float64) * NS_PER_SECOND).astype(np.int64)


def seconds_to_ns_or_nat(seconds) -> np.ndarray:
    """Float seconds (NaN: unknown) to int64 nanoseconds rounded to the nearest, ``NAT`` where NaN
    (:func:`seconds_to_ns` for arrays with missing values)."""
    seconds = np.asarray(seconds, dtype=np.float64)
    return np.where(np.isnan(seconds), NAT, seconds_to_ns(np.nan_to_num(seconds)))


def check_fraction(value: float | None, name: str) -> float | None:
    """Check a non-negative finite float such as ``duration_tolerance``."""
    if value is None:
        return None
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a float or None; got {type(value).__name__}.")
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite, non-negative number; got {value!r}.")
    return float(value)


show_rows = _show_rows  # the first offending rows of a Series as text, with a count


# -------------------------------------------------------------------------
# Validated annotations
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Segments:
    """One validated side (truth or prediction) as int64 arrays.

    All arrays have one entry per kept row, in the row order of the input.
    ``end`` is ``NAT`` where the input said "until the end of the file"
    and no duration was known to resolve it.
    """

    file: np.ndarray
    start: np.ndarray
    end: np.ndarray
    label: np.ndarray
    position: np.ndarray  # row position in the original Series

    def __len__(self) -> int:
        return len(self.file)

    def take(self, index: np.ndarray) -> Segments:
        """Rows ``index`` of every array."""
        return Segments(
            self.file[index],
            self.start[index],
            self.end[index],
            self.label[index],
            self.position[index],
        )


@dataclasses.dataclass(frozen=True)
class Inputs:
    """Validated truth and prediction over shared files and labels."""

    truth: Segments
    prediction: Segments
    files: pd.Index
    labels: list
    durations: np.ndarray  # ns per file from files_duration, NAT where unknown
    latest: np.ndarray | None = None
    """Latest end (or start) per file over all rows of both inputs, before ``labels`` selects."""
    occurs: np.ndarray | None = None
    """Per label: whether a row of either input has it (also a row of zero length)."""

    @property
    def n_files(self) -> int:
        return len(self.files)

    @property
    def n_labels(self) -> int:
        return len(self.labels)


def _used_levels(raw: _Raw) -> pd.Index:
    """The file level's entries that rows use (marked in ``raw.used``)."""
    if raw.increasing:  # (the runs of the rows: every entry is used)
        raw.used = np.ones(len(raw.file_levels), dtype=bool)
        return raw.file_levels
    raw.used = used = np.bincount(raw.file_codes, minlength=len(raw.file_levels)) > 0
    return raw.file_levels if used.all() else raw.file_levels[used]


def durations_ns(
    files_duration: Mapping | pd.Series | None,
    files: pd.Index,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """Duration (ns) per file, ``NAT`` where unknown; ``rows``: position in ``files`` of every row."""
    out = np.full(len(files), NAT, dtype=np.int64)
    if files_duration is None:
        return out
    if isinstance(files_duration, pd.Series):
        series = files_duration
    elif isinstance(files_duration, Mapping):
        series = pd.Series(dict(files_duration)).infer_objects()
    else:
        raise TypeError(
            "files_duration must be a mapping or a pandas.Series from file to duration; "
            f"got {type(files_duration).__name__}."
        )
    if len(series) == 0:
        return out
    if series.dtype == "m8[ns]":  # the usual case: int64 ns as they are (NaT is NAT)
        ns = series.array.asi8
        return _place_durations(out, ns, series, files, rows)
    values = series.to_numpy()
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        seconds = np.asarray(values, dtype=float)
        bad = np.isinf(seconds) | (np.abs(np.nan_to_num(seconds)) > MAX_SECONDS)
        if bad.any():
            raise ValueError(
                f"files_duration must hold finite durations of at most {MAX_SECONDS:.0e} seconds; "
                f"got {dict(zip(series.index[bad][:MAX_ROWS_SHOWN], seconds[bad][:MAX_ROWS_SHOWN]))}."
            )
    if isinstance(values, np.ndarray) and values.dtype == "m8[ns]":  # NaT is NAT in int64
        ns = values.view(np.int64)
    elif getattr(series.dtype, "kind", None) == "m":
        ns = pd.TimedeltaIndex(series).as_unit("ns").asi8
    elif pd.api.types.is_numeric_dtype(series.dtype):
        seconds = np.asarray(values, dtype=float)
        ns = seconds_to_ns_or_nat(seconds)
    else:  # objects: seconds and timedeltas may be mixed
        ns = np.array(
            [NAT if v is None or v is pd.NaT else to_ns(v, "files_duration") for v in values],
            dtype=np.int64,
        )
    return _place_durations(out, np.asarray(ns, dtype=np.int64), series, files, rows)


def _place_durations(out: np.ndarray, ns: np.ndarray, series: pd.Series, files: pd.Index, rows) -> np.ndarray:
    """Durations ``ns`` of ``series`` (checked here) placed at their files in ``out``."""
    bad = ns < 0  # NaT (NAT) too
    if bad.any():
        bad &= ns != NAT
        if bad.any():
            raise ValueError(
                "files_duration has negative durations for files "
                f"{list(series.index[bad][:MAX_ROWS_SHOWN])}."
            )
    if rows is not None and len(rows) == len(series) and np.bincount(rows).max(initial=0) <= 1:
        out[rows] = ns  # every row's file, none twice: no lookup needed
        return out
    position = _positions(pd.Index(series.index), files)
    found = position >= 0
    out[found] = ns[position[found]]
    return out


def _duration_files(files_duration: Mapping | pd.Series | None) -> list[pd.Index]:
    """Files of ``files_duration`` with a known duration, as a file level (or nothing)."""
    if files_duration is None or not isinstance(files_duration, (Mapping, pd.Series)):
        return []  # a wrong type is reported by durations_ns
    if isinstance(files_duration, Mapping):
        files_duration = pd.Series(dict(files_duration), dtype=object)
    if len(files_duration) == 0:
        return []
    # files_duration is a Series here (a Mapping became one above): mypy keeps the declared union
    if files_duration.dtype == "m8[ns]":  # type: ignore[union-attr]
        known = files_duration.array.asi8 != NAT  # type: ignore[union-attr]
    else:
        known = ~np.asarray(pd.isna(files_duration.to_numpy()), dtype=bool)  # type: ignore[union-attr, type-var, misc]
    index = files_duration.index  # type: ignore[union-attr]  # a Series index: the object itself keeps pandas' caches
    return [index if known.all() else index[known]]


def batch_durations(
    files_duration: Mapping | pd.Series | None,
    truth: object,
    prediction: object,
) -> Mapping | pd.Series | None:
    """``files_duration`` restricted to the files of one batch (``truth`` and ``prediction``).

    Every file of ``files_duration`` is an evaluated file (SPEC section 1),
    so a batch of a larger evaluation (an accumulator update, a dask partition)
    must only pass the durations of its own files,
    or every batch would evaluate every file.
    Tables and other inputs pass ``files_duration`` through unchanged.
    """
    if files_duration is None or not isinstance(files_duration, (Mapping, pd.Series)):
        return files_duration
    if not isinstance(truth, pd.Series) or not isinstance(prediction, pd.Series):
        return files_duration
    if isinstance(files_duration, Mapping):
        files_duration = pd.Series(dict(files_duration)).infer_objects()
    files = pd.Index(truth.index.get_level_values("file")).append(
        pd.Index(prediction.index.get_level_values("file"))
    )
    return files_duration[pd.Index(files_duration.index).isin(files)]  # type: ignore[union-attr]  # a Series here


_FEW_LABELS = 256
"""Up to this many labels a side, labels are mapped to positions by a dict."""


def _label_map(codes: np.ndarray, uniques: list, label_list: list) -> np.ndarray:
    """Each row's position in ``label_list`` (-1: a label not evaluated)."""
    if not len(uniques):
        return np.full(len(codes), -1, dtype=np.int64)
    if uniques == label_list:  # e.g. both sides categorical with the same categories
        if len(codes) == 0 or codes.min() >= 0:
            return codes  # every code is its position (label_codes made them, int64)
        mapping = np.arange(len(uniques))
    elif len(uniques) <= _FEW_LABELS and len(label_list) <= _FEW_LABELS:  # a dict beats two Index
        position = {label: k for k, label in enumerate(label_list)}
        mapping = np.array([position.get(label, -1) for label in uniques], dtype=np.int64)
    else:
        label_index = pd.Index(label_list, dtype=object)
        mapping = np.asarray(label_index.get_indexer(pd.Index(uniques, dtype=object)))
    return np.append(mapping.astype(np.int64), -1)[codes]  # code -1 stays -1


def _resolve_ends(raw: _Raw, file: np.ndarray, files: pd.Index, durations: np.ndarray, require_end: bool):
    """Ends with ``end=NaT`` resolved from ``files_duration`` (a copy only where some are)."""
    end = raw.end  # a fresh array of take_apart
    open_end = end == NAT
    if not open_end.any():
        return end
    end = end.copy()
    end[open_end] = durations[file[open_end]]
    unresolved = end == NAT
    if require_end and unresolved.any():
        missing = sorted(set(files[file[unresolved]]))
        raise ValueError(
            f"{raw.name} has rows with end=NaT (until the end of the file) "
            "and no duration is known for files "
            f"{missing[:MAX_ROWS_SHOWN]}"
            f"{' ...' if len(missing) > MAX_ROWS_SHOWN else ''}; "
            "pass files_duration (e.g. from audformat's Database.files_duration)."
        )
    bad = ~unresolved & (end < raw.start)
    if bad.any():
        show = np.zeros(len(raw.series), dtype=bool)
        show[bad] = True
        raise ValueError(
            f"{raw.name} has rows starting after the duration of their file: {show_rows(raw.series, show)}"
        )
    return end


def _side(raw, codes, uniques, label_list, files, positions, durations, latest, require_end, present) -> Segments:
    """One side as int64 arrays over the shared files and labels.

    Updates ``latest`` per file and marks the files with a row in ``present``.
    """
    label = _label_map(codes, uniques, label_list)
    if positions is None:
        file_map = _positions(files, raw.file_levels, unique=True)
        present[file_map[raw.used]] = True
    else:  # positions of the used levels (set by _used_levels)
        file_map = None
        if len(positions) == len(files) == len(raw.file_levels) and (positions[1:] > positions[:-1]).all():
            present[:] = True  # every file, in the order of the level: codes are positions
        else:
            file_map = np.full(len(raw.file_levels), -1, dtype=np.int64)
            file_map[raw.used] = positions
            present[positions] = True
    file = raw.file_codes if file_map is None else file_map[raw.file_codes]
    end = _resolve_ends(raw, file, files, durations, require_end)
    if len(file):
        # a file's length is a property of the file, not of the labels selected
        side_latest = np.zeros(len(files), dtype=np.int64)
        np.maximum.at(side_latest, file, np.where(end == NAT, raw.start, end))
        np.maximum(latest, side_latest, out=latest)
        # rows beyond their file's duration: only in files whose latest end (or start) is
        if ((side_latest > durations) & (durations != NAT)).any():
            duration = durations[file]
            beyond = (end > duration) & (duration != NAT)  # an end NaT (min int64) is never greater
            if beyond.any():
                warn(
                    f"{raw.name} has rows beyond the duration of their file in files_duration "
                    f"(metrics crop them to [0, duration]): {show_rows(raw.series, beyond)}"
                )
    keep = label >= 0
    if keep.all():  # no copies when every row is kept
        return Segments(file, raw.start, end, label, np.arange(len(label), dtype=np.int64))
    return Segments(
        file[keep], raw.start[keep], end[keep], label[keep].astype(np.int64),
        np.flatnonzero(keep).astype(np.int64),
    )


def check_inputs(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    labels: Sequence[object] | None = None,
    files_duration: Mapping | pd.Series | None = None,
    require_end: bool = True,
    allow_filewise: bool = True,
    duration_files: bool = True,
    report_files: bool = True,
) -> Inputs:
    """Validate ``truth`` and ``prediction`` and share files and labels.

    Args:
        truth: ground truth Series (segmented or filewise index)
        prediction: predicted Series (segmented or filewise index)
        labels: labels to evaluate, in the order of the results;
            rows with other labels are left out.
            ``None``: categories in category order,
            then the sorted union of the other labels
        files_duration: mapping or Series from file to duration
            (timedelta or seconds), used to resolve ``end=NaT``;
            its files with a known duration are evaluated files
            (a file with no rows in either input: true negatives only)
        require_end: raise if an ``end=NaT`` cannot be resolved
        allow_filewise: accept a filewise index (``start=0``, ``end=NaT``)
        duration_files: the files of ``files_duration`` with a known duration
            are evaluated files (SPEC section 1); ``False`` for families whose
            evaluated time comes from the truth (structure, hierarchy),
            where a file without rows has nothing to evaluate
        report_files: warn when truth and prediction have rows but share no file
            (:class:`audeval.NoSharedFileWarning`) and about files of ``files_duration``
            without a row in either input (:class:`audeval.FilesWithoutRowsWarning`);
            ``False`` where the files are checked against another input (scores)

    Returns:
        validated inputs; files are the sorted union of both sides
        and (``duration_files=True``) of the files with a known duration
        in ``files_duration``

    Raises:
        TypeError, ValueError: see SPEC section 1; messages name
            the argument and show the first offending rows

    """
    raw_truth = take_apart(truth, "truth", allow_filewise)
    raw_prediction = take_apart(prediction, "prediction", allow_filewise)

    # Files: the union of both sides and of the files with a known duration
    # (a file with no rows is evaluated: true negatives only), sorted where possible
    files, positions = _file_union(
        [_used_levels(raw_truth), _used_levels(raw_prediction)]
        + (_duration_files(files_duration) if duration_files else []),
        increasing=raw_truth.increasing,
    )

    # Labels
    truth_codes, truth_uniques, truth_cat = _label_codes(raw_truth)
    pred_codes, pred_uniques, pred_cat = _label_codes(raw_prediction)
    if labels is None:
        label_list = infer_labels([(truth_uniques, truth_cat), (pred_uniques, pred_cat)])
    else:
        used = _used_labels([(truth_codes, truth_uniques), (pred_codes, pred_uniques)])
        label_list = _given_labels(labels, used)

    rows = positions[2] if positions and len(positions) > 2 else None  # of files_duration's files
    durations = durations_ns(files_duration, files, rows)

    latest = np.zeros(len(files), dtype=np.int64)
    present = [np.zeros(len(files), dtype=bool), np.zeros(len(files), dtype=bool)]
    sides = [
        _side(raw, codes, uniques, label_list, files, None if positions is None else positions[k],
              durations, latest, require_end, present[k])
        for k, (raw, codes, uniques) in enumerate(
            ((raw_truth, truth_codes, truth_uniques), (raw_prediction, pred_codes, pred_uniques))
        )
    ]
    if report_files:
        _report_files(
            files, present, ["truth", "prediction"], (durations != NAT) if duration_files else None
        )
    occurs = _occurring(
        [(truth_codes, truth_uniques, truth_cat), (pred_codes, pred_uniques, pred_cat)], label_list
    )
    return Inputs(sides[0], sides[1], files, label_list, durations, latest, occurs)


def file_extent(inputs: Inputs) -> np.ndarray:
    """Evaluated length per file (ns): ``files_duration``, else the latest end.

    The fallback is sed_eval's rule: the latest end in truth or prediction,
    over all rows (also those of labels not selected).
    """
    if inputs.latest is not None:
        return np.where(inputs.durations == NAT, inputs.latest, inputs.durations)
    latest = np.zeros(inputs.n_files, dtype=np.int64)
    for side in (inputs.truth, inputs.prediction):
        ends = np.where(side.end == NAT, side.start, side.end)
        if len(ends):
            np.maximum.at(latest, side.file, ends)
    return np.where(inputs.durations == NAT, latest, inputs.durations)


__all__ = [
    "NAT",
    "NS_PER_SECOND",
    "Inputs",
    "Segments",
    "check_fraction",
    "check_inputs",
    "check_option",
    "file_extent",
    "to_ns",
]

