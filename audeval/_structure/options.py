"""Options of the structure family, declared once (:mod:`audeval._core.declare`);
the settings the statistics need; the form a table records.

Times are int64 ns by default; ``compat="mir_eval"`` computes in float seconds
(mir_eval's arithmetic), taken from the values as the caller gave them.
"""

from __future__ import annotations

from collections.abc import Sequence
import dataclasses
import datetime

import numpy as np
import pandas as pd

from audeval._core.declare import Declaration, Option
from audeval._core.options import as_timedelta
from audeval._core.options import check_duration
from audeval._core.validation import NS_PER_SECOND
from audeval._core.validation import to_ns


COMPAT = (None, "mir_eval")

DEFAULT_WINDOWS = (0.5, 3.0)
"""Boundary hit windows of ``mir_eval.segment.evaluate`` (seconds)."""


def _seconds(value, name: str) -> float:
    """A positive duration as float seconds (compat mode computes in float)."""
    if isinstance(value, (pd.Timedelta, datetime.timedelta, np.timedelta64)):
        return to_ns(value, name) / NS_PER_SECOND
    to_ns(value, name)  # type and sign checks
    return float(value)


def _windows(window, name: str = "window") -> tuple:
    """A window or a sequence of windows as a tuple (duplicates once, order kept), checked."""
    if isinstance(window, (str, bytes)):
        raise TypeError(f"{name} must be a duration or a sequence of durations; got {window!r}.")
    values = tuple(window) if isinstance(window, Sequence) else (window,)
    if not values:
        raise ValueError(f"{name} must hold at least one duration; got an empty sequence.")
    out: dict = {}
    for value in values:
        out.setdefault(check_duration(value, name, allow_none=False), value)
    return tuple(out.values())


def _report_windows(windows) -> tuple:
    """The ``windows`` of :func:`structure_report`: a sequence of durations, checked."""
    if isinstance(windows, (str, bytes)) or not isinstance(windows, Sequence):
        raise TypeError(f"windows must be a sequence of durations; got {windows!r}.")
    return _windows(windows, "windows")


def _check(values: dict, given: frozenset) -> None:
    """Cross-field rules and the window options (a duration or a sequence of them)."""
    if values["frame_size"] is None and values["compat"] == "mir_eval":
        raise ValueError(
            "frame_size=None (the frameless limit) has no mir_eval counterpart; "
            "use compat=None or give a frame size."
        )
    _windows(values["window"])
    _report_windows(values["windows"])


def _record(options) -> dict:
    return {
        "frame_size": as_timedelta(options.frame_size),
        "window": tuple(as_timedelta(check_duration(w, "window")) for w in _windows(options.window)),
        "trim": options.trim,
        "pad": options.pad,
        "compat": options.compat,
    }


STRUCTURE = Declaration(
    "structure",
    (
        Option(
            "frame_size",
            "frame hop in seconds or as timedelta; ``None``: the exact frameless limit",
            default=0.1, kind="seconds", open_low=True, none=True, table=True,
        ),
        Option(
            "window",
            "boundary hit window (or several for the statistics), in seconds or as timedelta",
            default=DEFAULT_WINDOWS, table=True,
        ),
        Option("trim", "leave out the first and last boundary of each side", default=False, kind="bool", table=True),
        Option(
            "pad", "pad and crop as ``mir_eval.segment.evaluate`` before taking boundaries",
            default=True, kind="bool", table=True,
        ),
        Option(
            "compat", '``"mir_eval"`` to reproduce mir_eval 0.8.2',
            kind="choice", choices=COMPAT, table=True,
        ),
        Option("windows", "boundary hit windows of the report, in seconds", default=DEFAULT_WINDOWS),
        Option("beta", "weight of recall in the F-measure", default=1.0, kind="real", low=0.0, open_low=True),
        Option("marginal", "normalise by marginal entropies (the V-measure)", default=False, kind="bool"),
        Option("files_duration", "durations to resolve ``end=NaT``"),
    ),
    check=_check,
    record=_record,
)
"""The structure family's options, declared once."""

OPTIONS = STRUCTURE.table_options
"""Options of :func:`structure_statistics` that its table records."""

normalise = STRUCTURE.normalise
"""Given statistics options (any subset) as the table records them."""


def _window_name(window: float) -> str:
    """Column suffix of a window in seconds: ``0.5`` gives ``0_5``."""
    return str(float(window)).replace(".", "_").replace("-", "_")


def window_column(ns: int) -> str:
    """Name of the hits column of a window given in ns."""
    return f"hits_at_{_window_name(ns / NS_PER_SECOND)}"


@dataclasses.dataclass(frozen=True)
class Settings:
    """What the statistics need of a call's options.

    Times are int64 ns by default and float seconds in compat mode
    (mir_eval computes in float); ``*_ns`` always hold the ns values.
    """

    compat: bool
    frame_size: int | float | None
    frame_size_ns: int | None
    windows: tuple
    windows_ns: tuple
    trim: bool
    pad: bool


def given_seconds(options, name: str) -> float:
    """A (checked, not ``None``) duration option as float seconds: as the caller gave it,
    else from its ns (compat mode computes in float)."""
    if name in options.given:
        return _seconds(options.raw[name], name)
    return getattr(options, name) / NS_PER_SECOND


def settings(options, windows: object = None) -> Settings:
    """The statistics settings of a checked options object
    (``windows``: the report's windows instead of ``options.window``)."""
    compat = options.compat == "mir_eval"
    fs_ns = options.frame_size
    fs = fs_ns if fs_ns is None or not compat else given_seconds(options, "frame_size")
    values = _windows(options.window) if windows is None else _report_windows(windows)
    windows_ns = tuple(check_duration(w, "window", allow_none=False) for w in values)
    return Settings(
        compat,
        fs,
        fs_ns,
        tuple(_seconds(w, "window") for w in values) if compat else windows_ns,
        windows_ns,
        options.trim,
        options.pad,
    )
