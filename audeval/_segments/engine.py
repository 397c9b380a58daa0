"""Segment counts on the grid (no frames): segment coordinates mapped onto the piece engine.

Events become ranges of units (segments of ``time_resolution``, or ns in exact time),
labels become channels, files keep their codes, the evaluated length of a file is its extent;
:func:`audeval._core.sweep_keyed.channel_totals` sums TP, Nref, Nsys and the substitutions' ``min(Nref, Nsys)``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from audeval._core.sweep_keyed import channel_totals
from audeval._core.validation import NS_PER_SECOND
from audeval._core.validation import Inputs
from audeval._core.validation import file_extent



@dataclasses.dataclass
class _Counts:
    """Statistics on the dense ``(file, label)`` grid as int64 arrays.

    ``tp``, ``fp``, ``fn``, ``tn`` have shape ``(n_files, n_labels)``,
    ``substitutions`` has shape ``(n_files,)``.
    ``exact`` is True when the counts are nanoseconds (``time_resolution=None``).
    """

    files: pd.Index
    labels: list
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    substitutions: np.ndarray
    exact: bool
    keep: np.ndarray | None = None
    """Labels that count in macro averages (``None``: all)."""


def _ceil_div(a: np.ndarray, b: int) -> np.ndarray:
    return -((-a) // b)


def _to_units(
    start: np.ndarray,
    end: np.ndarray,
    r_ns: int | None,
    r_seconds: float | None,
    compat: str | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Event boundaries as segment indices (or ns for exact time)."""
    if r_ns is None:
        return start, end
    if compat == "sed_eval":
        # sed_eval: floor(onset / r) and ceil(offset / r) on float64 seconds;
        # a zero-length event off the grid activates one segment there
        a = np.floor((start / NS_PER_SECOND) / r_seconds).astype(np.int64)  # type: ignore[operator]  # r_seconds is set when r_ns is
        b = np.ceil((end / NS_PER_SECOND) / r_seconds).astype(np.int64)  # type: ignore[operator]  # r_seconds is set when r_ns is
        return a, b
    a = start // r_ns
    b = np.where(end > start, _ceil_div(end, r_ns), a)  # zero length: no segment
    return a, b


def _n_units(
    extent: np.ndarray,
    r_ns: int | None,
    r_seconds: float | None,
    compat: str | None,
) -> np.ndarray:
    """Evaluated segments per file (or ns for exact time)."""
    if r_ns is None:
        return extent
    if compat == "sed_eval":
        return np.ceil((extent / NS_PER_SECOND) / r_seconds).astype(np.int64)  # type: ignore[operator]  # r_seconds is set when r_ns is
    return _ceil_div(extent, r_ns)


def _unit_range(side, n_units: np.ndarray, units) -> tuple[np.ndarray, np.ndarray]:
    """First and end (exclusive) unit of every event, cut at the evaluated length."""
    a, b = units(side.start, side.end)
    return a, np.minimum(b, n_units[side.file])


def _counts_from_inputs(
    inputs: Inputs,
    r_ns: int | None,
    r_seconds: float | None,
    compat: str | None,
) -> _Counts:
    """Counts of checked inputs; the resolution as int ns and float seconds (``None``: exact)."""
    n_files, n_labels = inputs.n_files, inputs.n_labels
    n_units = _n_units(file_extent(inputs), r_ns, r_seconds, compat)

    def units(start, end):
        return _to_units(start, end, r_ns, r_seconds, compat)

    sides = [(side.file, side.label, *_unit_range(side, n_units, units)) for side in (inputs.truth, inputs.prediction)]
    # per (file, label): TP, Nref, Nsys; per file: sum over units of min(Nref, Nsys) of active labels
    tp, n_truth, n_prediction, sum_min = channel_totals(n_units, n_labels, *sides)
    fn = n_truth - tp
    fp = n_prediction - tp
    tn = np.repeat(n_units, n_labels) - tp - fp - fn
    # S(k) = min(FN(k), FP(k)) = min(Nref(k), Nsys(k)) - TP(k)
    tp_file = tp.reshape(n_files, n_labels).sum(axis=1)
    substitutions = sum_min - tp_file
    shape = (n_files, n_labels)
    return _Counts(
        inputs.files,
        list(inputs.labels),
        tp.reshape(shape),
        fp.reshape(shape),
        fn.reshape(shape),
        tn.reshape(shape),
        substitutions,
        exact=r_ns is None,
    )
