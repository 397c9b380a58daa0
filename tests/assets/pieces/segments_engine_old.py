"""The segment family's keyed engine as it was before it used the piece engine.

The reference of ``tests/test_pieces_segments.py`` (``audeval._segments.engine`` now maps
segment coordinates onto :func:`audeval._core.sweep_keyed.channel_totals`: packed keys where they fit,
else :func:`audeval._core.sweep.cut` and :func:`audeval._core.sweep.activity`). Copied unchanged from ``audeval/_segments/engine.py`` at f18e5b3.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from audeval._core import intervals as _intervals
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


# The keyed path packs (key, 2-bit code) into int64: total key range below this
KEY_LIMIT = 2**60
_D_REF = np.array([1, -1, 0, 0], dtype=np.int64)  # code 0/1: truth start/end
_D_SYS = np.array([0, 0, 1, -1], dtype=np.int64)  # code 2/3: prediction start/end


def _side_units(inputs: Inputs, side, n_units: np.ndarray, units) -> tuple:
    """Group, first and end (exclusive) unit of every event, cut at the evaluated length."""
    a, b = units(side.start, side.end)
    b = np.minimum(b, n_units[side.file])
    group = side.file * inputs.n_labels + side.label
    return group, a, b, side.file


def _sorted_key_sum(key: np.ndarray, values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Exact int64 sums of values (sorted by key) per key range ``[bounds[i], bounds[i + 1])``."""
    cumulative = np.concatenate([[0], np.cumsum(values, dtype=np.int64)])
    return np.diff(cumulative[np.searchsorted(key, bounds, side="left")])


def _merge_keyed(group, a, b, file, group_base, file_base):
    """Union per group of ``[a, b)`` as sorted int64 keys ``group_base[group] + unit``.

    As :func:`audeval._core.intervals.merge`, with keys computed directly
    (each group owns ``n_units + 1`` keys, so groups never touch)
    and one unstable argsort.
    Returns start keys, end keys and, per merged range,
    the offset that turns its keys into per-file keys ``file_base[file] + unit``.
    """
    keep = b > a
    group = group[keep]
    base = group_base[group]
    start = base + a[keep]
    end = base + b[keep]
    shift = base - file_base[file[keep]]
    if len(start) == 0:
        return start, end, shift
    order = np.argsort(start)
    start, end = start[order], end[order]
    reach = np.maximum.accumulate(end)
    new = np.ones(len(start), dtype=bool)
    new[1:] = start[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(start)) - 1
    return start[first], reach[last], shift[order[first]]


def _key_bases(n_units: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """First key of every group and of every file, each with the end key appended."""
    per_file = n_units + 1
    group_width = np.repeat(per_file, n_labels)
    group_base = np.concatenate([[0], np.cumsum(group_width)]).astype(np.int64)
    file_base = np.concatenate([[0], np.cumsum(per_file)]).astype(np.int64)
    return group_base, file_base


def _counts_keyed(inputs, truth, prediction, group_base, file_base):
    """tp, n_truth, n_prediction per group and sum of min(Nref, Nsys) per file.

    Two sweeps over the boundaries of the merged ranges,
    each boundary packed with its kind into one int64 (``key * 4 + code``)
    so that plain sorts order them.
    """
    t_start, t_end, t_shift = _merge_keyed(*truth, group_base, file_base)
    p_start, p_end, p_shift = _merge_keyed(*prediction, group_base, file_base)
    n_truth = _sorted_key_sum(t_start, t_end - t_start, group_base)
    n_prediction = _sorted_key_sum(p_start, p_end - p_start, group_base)

    def boundaries(start, end, code):
        # merged ranges are disjoint and sorted: start, end, start, ... increases
        packed = np.empty(2 * len(start), dtype=np.int64)
        packed[0::2] = start * 4 + code
        packed[1::2] = end * 4 + (code + 1)
        return packed

    t_packed = boundaries(t_start, t_end, 0)
    p_packed = boundaries(p_start, p_end, 2)

    # sweep 1, in (file, label, position) order: TP where both sides are active
    packed = np.sort(np.concatenate([t_packed, p_packed]), kind="stable")  # merges 2 runs
    code = packed & 3
    key = packed >> 2
    both = np.cumsum(_D_REF[code])[:-1] * np.cumsum(_D_SYS[code])[:-1]
    tp = _sorted_key_sum(key[:-1], both * np.diff(key), group_base)

    # sweep 2, in (file, position) order: labels active in truth and prediction
    shift = np.concatenate([np.repeat(t_shift, 2), np.repeat(p_shift, 2)])
    packed = np.sort(np.concatenate([t_packed, p_packed]) - shift * 4)
    code = packed & 3
    key = packed >> 2
    n_ref = np.cumsum(_D_REF[code])[:-1]
    n_sys = np.cumsum(_D_SYS[code])[:-1]
    # all ranges of a file are closed at its last boundary: runs across files weigh 0
    weight = np.minimum(n_ref, n_sys) * np.diff(key)
    sum_min = _sorted_key_sum(key[:-1], weight, file_base)
    return tp, n_truth, n_prediction, sum_min


def _counts_engine(inputs, truth, prediction):
    """The same with the interval engine (any range of keys)."""
    n_files, n_labels = inputs.n_files, inputs.n_labels
    n_groups = n_files * n_labels
    t = _intervals.merge(n_groups, *truth[:3])
    p = _intervals.merge(n_groups, *prediction[:3])
    both = _intervals.intersect(n_groups, t, p)
    tp = _intervals.total_length(n_groups, both)
    sum_min = _sum_min_active(n_files, n_labels, t, p)
    return tp, _intervals.total_length(n_groups, t), _intervals.total_length(n_groups, p), sum_min


def _sum_min_active(
    n_files: int,
    n_labels: int,
    truth: tuple[np.ndarray, np.ndarray, np.ndarray],
    prediction: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    r"""Per file :math:`\sum_k \min(N_\text{ref}(k), N_\text{sys}(k))`.

    ``truth`` and ``prediction`` are merged ranges per ``(file, label)`` group,
    so the number of active labels at a position is the number of ranges
    covering it.
    A sweep over all range boundaries of a file
    (sorted by position, cumulative sums of +1 / -1)
    gives both numbers between consecutive boundaries.
    """
    t_file = truth[0] // max(n_labels, 1)
    p_file = prediction[0] // max(n_labels, 1)
    file = np.concatenate([t_file, t_file, p_file, p_file])
    position = np.concatenate([truth[1], truth[2], prediction[1], prediction[2]])
    n_t, n_p = len(t_file), len(p_file)
    d_ref = np.concatenate(
        [np.ones(n_t, np.int64), -np.ones(n_t, np.int64), np.zeros(2 * n_p, np.int64)]
    )
    d_sys = np.concatenate(
        [np.zeros(2 * n_t, np.int64), np.ones(n_p, np.int64), -np.ones(n_p, np.int64)]
    )
    out = np.zeros(n_files, dtype=np.int64)
    if len(file) < 2:
        return out
    (key,) = _intervals.group_keys(n_files, (file, position))
    order = np.argsort(key, kind="stable")
    file, position = file[order], position[order]
    n_ref = np.cumsum(d_ref[order])
    n_sys = np.cumsum(d_sys[order])
    # run i lies between boundary i and boundary i + 1 of the same file;
    # all ranges of a file are closed at its last boundary, so runs never cross files
    length = np.diff(position)
    same = file[1:] == file[:-1]
    weight = np.minimum(n_ref[:-1], n_sys[:-1]) * np.where(same, length, 0)
    return _intervals.group_sum(file[:-1], weight, n_files)


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

    truth = _side_units(inputs, inputs.truth, n_units, units)
    prediction = _side_units(inputs, inputs.prediction, n_units, units)
    total_keys = float(np.sum(n_units + 1, dtype=np.float64)) * max(n_labels, 1)
    if total_keys < KEY_LIMIT:
        group_base, file_base = _key_bases(n_units, n_labels)
        tp, n_truth, n_prediction, sum_min = _counts_keyed(
            inputs, truth, prediction, group_base, file_base
        )
    else:  # more than ~36 years of units over all labels and files
        tp, n_truth, n_prediction, sum_min = _counts_engine(inputs, truth, prediction)
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
