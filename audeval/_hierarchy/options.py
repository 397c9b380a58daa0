"""Options of the hierarchy family, declared once (:mod:`audeval._core.declare`);
the settings the statistics need; the form a table records."""

from __future__ import annotations

import dataclasses

import numpy as np

from audeval._core.declare import Declaration, Option
from audeval._hierarchy.inputs import mir_eval_frame
from audeval._core.options import as_timedelta
from audeval._structure.options import given_seconds


COMPAT = (None, "mir_eval")


def _check(values: dict, given: frozenset) -> None:
    if values["frame_size"] is None and values["compat"] == "mir_eval":
        raise ValueError(
            "frame_size=None (the frameless limit) has no mir_eval counterpart; "
            "use compat=None or give a frame size."
        )


HIERARCHY = Declaration(
    "hierarchy",
    (
        Option(
            "frame_size",
            "frame hop in seconds or as timedelta; ``None``: exact in continuous time",
            default=0.1, kind="seconds", open_low=True, none=True, table=True,
        ),
        Option(
            "window", "T-measure window in seconds around each query; ``None``: the whole track",
            default=15.0, kind="seconds", open_low=True, none=True, table=True,
        ),
        Option(
            "monotonic", "meets count only on unbroken paths from the top level",
            default=False, kind="bool", table=True,
        ),
        Option(
            "compat", '``"mir_eval"`` to reproduce ``mir_eval.hierarchy`` 0.8.2',
            kind="choice", choices=COMPAT, table=True,
        ),
        Option(
            "transitive", "compare all pairs of meet levels (full), else adjacent levels only (reduced)",
            default=False, kind="bool",
        ),
        Option("beta", "weight of recall in the F-measure", default=1.0, kind="real", low=0.0, open_low=True),
        Option("files_duration", "durations to resolve ``end=NaT``"),
    ),
    check=_check,
    record=lambda options: {
        "frame_size": as_timedelta(options.frame_size),
        "window": as_timedelta(options.window),
        "monotonic": options.monotonic,
        "compat": options.compat,
    },
)
"""The hierarchy family's options, declared once."""

OPTIONS = HIERARCHY.table_options
"""Options of :func:`hierarchy_statistics` that its table records."""

normalise = HIERARCHY.normalise
"""Given statistics options (any subset) as the table records them."""


@dataclasses.dataclass(frozen=True)
class Settings:
    """What the statistics need of a call's options (times in ns, float seconds in compat mode)."""

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
            return int(mir_eval_frame(np.float64(self.window), float(self.frame_size)))  # type: ignore[arg-type]  # compat mode: float seconds, a frame size always
        if self.frame_size is None:
            return self.window_ns
        return self.window_ns // self.frame_size_ns  # type: ignore[operator]  # both set when window and frame_size are

    def check_window(self) -> None:
        """The T-measure's window holds at least one frame (as mir_eval requires)."""
        if self.window_ns is not None and self.frame_size_ns is not None:
            if self.frame_size_ns > self.window_ns:
                raise ValueError(
                    "frame_size must not exceed window; got "
                    f"frame_size={self.frame_size_ns / 1e9:g} s and window={self.window_ns / 1e9:g} s."
                )


def settings(options) -> Settings:
    """The statistics settings of a checked options object."""
    compat = options.compat == "mir_eval"

    def seconds(name):
        ns = getattr(options, name)
        return ns if ns is None or not compat else given_seconds(options, name)

    return Settings(
        compat, seconds("frame_size"), options.frame_size, seconds("window"), options.window, options.monotonic
    )
