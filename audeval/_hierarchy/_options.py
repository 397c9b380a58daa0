"""Options of the hierarchy metrics: checked once; the form a statistics table records."""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses

import numpy as np

from audeval._hierarchy._inputs import mir_eval_frame
from audeval._options import as_timedelta
from audeval._options import check_bool
from audeval._options import check_choice
from audeval._options import check_duration
from audeval._options import value_of
from audeval._structure._options import _check_frame_size
from audeval._structure._options import _seconds


COMPAT = (None, "mir_eval")

OPTIONS = ("frame_size", "window", "monotonic", "compat")
"""Options of :func:`hierarchy_statistics` that its table records."""


@dataclasses.dataclass(frozen=True)
class Options:
    """Checked statistics options (times in ns, float seconds in compat mode)."""

    compat: bool
    frame_size: int | float | None
    frame_size_ns: int | None
    window: int | float | None
    window_ns: int | None
    monotonic: bool

    @property
    def window_units(self) -> int | None:
        """The T-measure window on the axis: frames (``None``: the whole track)."""
        if self.window is None:
            return None
        if self.compat:
            return int(mir_eval_frame(np.float64(self.window), float(self.frame_size)))
        if self.frame_size is None:
            return self.window_ns
        return self.window_ns // self.frame_size_ns

    def check_window(self) -> None:
        """The T-measure's window holds at least one frame (as mir_eval requires)."""
        if self.window_ns is not None and self.frame_size_ns is not None:
            if self.frame_size_ns > self.window_ns:
                raise ValueError(
                    "frame_size must not exceed window; got "
                    f"frame_size={self.frame_size_ns / 1e9:g} s and window={self.window_ns / 1e9:g} s."
                )

    @property
    def frameless_window(self) -> bool:
        """``frame_size=None`` with a finite window: the T-measure is not defined here."""
        return self.frame_size is None and self.window is not None

    def recorded(self) -> dict:
        return {
            "frame_size": as_timedelta(self.frame_size_ns),
            "window": as_timedelta(self.window_ns),
            "monotonic": self.monotonic,
            "compat": "mir_eval" if self.compat else None,
        }


def make_options(*, frame_size=0.1, window=15.0, monotonic=False, compat=None) -> Options:
    """Check every statistics option once."""
    compat = check_choice(compat, "compat", COMPAT) == "mir_eval"
    monotonic = check_bool(monotonic, "monotonic")
    fs = _check_frame_size(value_of(frame_size), compat)
    fs_ns = check_duration(value_of(frame_size), "frame_size")
    window = value_of(window)
    window_ns = check_duration(window, "window")
    if window_ns is not None and window_ns <= 0:
        raise ValueError(f"window must be positive or None; got {window!r}.")
    w = None if window is None else (_seconds(window, "window") if compat else window_ns)
    return Options(compat, fs, fs_ns, w, window_ns, monotonic)


def normalise(options: Mapping[str, object]) -> dict:
    """Given statistics options in the form a table records them."""
    out: dict = {}
    if "compat" in options:
        out["compat"] = check_choice(options["compat"], "compat", COMPAT)
    for name in ("frame_size", "window"):
        if name in options:
            out[name] = as_timedelta(check_duration(value_of(options[name]), name))
    if "monotonic" in options:
        out["monotonic"] = check_bool(options["monotonic"], "monotonic")
    return out
