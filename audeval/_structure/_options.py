"""Options of the structure metrics: checked once, before the data; the form a table records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses
import datetime
import numbers

import numpy as np
import pandas as pd

from audeval._options import as_timedelta
from audeval._options import check_bool
from audeval._options import check_choice
from audeval._options import check_duration
from audeval._options import value_of
from audeval._validation import NS_PER_SECOND
from audeval._validation import to_ns


COMPAT = (None, "mir_eval")

OPTIONS = ("frame_size", "window", "trim", "pad", "compat")
"""Options of :func:`structure_statistics` that its table records."""

DEFAULT_WINDOWS = (0.5, 3.0)
"""Boundary hit windows of ``mir_eval.segment.evaluate`` (seconds)."""


def _seconds(value, name: str) -> float:
    """A positive duration as float seconds (compat mode computes in float)."""
    if isinstance(value, (pd.Timedelta, datetime.timedelta, np.timedelta64)):
        return to_ns(value, name) / NS_PER_SECOND
    to_ns(value, name)  # type and sign checks
    return float(value)


def _check_frame_size(frame_size, compat: bool) -> int | float | None:
    """``frame_size`` as ns (default) or float seconds (compat); ``None`` is frameless."""
    frame_size = value_of(frame_size)
    if frame_size is None:
        if compat:
            raise ValueError(
                "frame_size=None (the frameless limit) has no mir_eval counterpart; "
                "use compat=None or give a frame size."
            )
        return None
    ns = check_duration(frame_size, "frame_size", allow_none=False)
    if ns <= 0:
        raise ValueError(f"frame_size must be positive; got {frame_size!r}.")
    return _seconds(frame_size, "frame_size") if compat else ns


def _check_window(window, compat: bool) -> int | float:
    """One boundary hit window as ns (default) or float seconds (compat)."""
    window = value_of(window)
    ns = check_duration(window, "window", allow_none=False)
    return _seconds(window, "window") if compat else ns


def _windows(window) -> tuple:
    """A window or a sequence of windows as a tuple (duplicates once, order kept)."""
    window = value_of(window)
    if isinstance(window, (str, bytes)):
        raise TypeError(f"window must be a duration or a sequence of durations; got {window!r}.")
    values = tuple(window) if isinstance(window, Sequence) else (window,)
    if not values:
        raise ValueError("window must hold at least one duration; got an empty sequence.")
    out: dict = {}
    for value in values:
        out.setdefault(check_duration(value, "window", allow_none=False), value)
    return tuple(out.values())


def _check_beta(beta) -> float:
    beta = value_of(beta)
    if not isinstance(beta, numbers.Real) or isinstance(beta, bool):
        raise TypeError(f"beta must be a positive float; got {type(beta).__name__}.")
    if not np.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a positive, finite float; got {beta!r}.")
    return float(beta)


def _window_name(window: float) -> str:
    """Column suffix of a window in seconds: ``0.5`` gives ``0_5``."""
    return str(float(window)).replace(".", "_").replace("-", "_")


def window_column(ns: int) -> str:
    """Name of the hits column of a window given in ns."""
    return f"hits_at_{_window_name(ns / NS_PER_SECOND)}"


@dataclasses.dataclass(frozen=True)
class Options:
    """Checked statistics options.

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

    def recorded(self) -> dict:
        """The options as a statistics table records them."""
        return {
            "frame_size": as_timedelta(self.frame_size_ns),
            "window": tuple(as_timedelta(w) for w in self.windows_ns),
            "trim": self.trim,
            "pad": self.pad,
            "compat": "mir_eval" if self.compat else None,
        }


def make_options(
    *,
    frame_size=0.1,
    window=DEFAULT_WINDOWS,
    trim=False,
    pad=True,
    compat=None,
) -> Options:
    """Check every statistics option once."""
    compat = check_choice(compat, "compat", COMPAT) == "mir_eval"
    trim = check_bool(trim, "trim")
    pad = check_bool(pad, "pad")
    fs = _check_frame_size(frame_size, compat)
    fs_ns = None if fs is None else check_duration(value_of(frame_size), "frame_size")
    windows = _windows(window)
    return Options(
        compat,
        fs,
        fs_ns,
        tuple(_check_window(w, compat) for w in windows),
        tuple(check_duration(w, "window", allow_none=False) for w in windows),
        trim,
        pad,
    )


def normalise(options: Mapping[str, object]) -> dict:
    """Given statistics options in the form a table records them (any subset of :data:`OPTIONS`)."""
    out: dict = {}
    if "compat" in options:
        out["compat"] = check_choice(options["compat"], "compat", COMPAT)
    if "frame_size" in options:
        fs = value_of(options["frame_size"])
        _check_frame_size(fs, out.get("compat") == "mir_eval")
        out["frame_size"] = as_timedelta(check_duration(fs, "frame_size"))
    if "window" in options:
        out["window"] = tuple(
            as_timedelta(check_duration(w, "window", allow_none=False))
            for w in _windows(options["window"])
        )
    for name in ("trim", "pad"):
        if name in options:
            out[name] = check_bool(options[name], name)
    return out
