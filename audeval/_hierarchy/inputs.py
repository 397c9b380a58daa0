"""Hierarchies as validated int64 arrays, aligned to the track and mapped to a time axis.

A hierarchy is a DataFrame on the segmented index with one label column per level
(coarse to fine; adjacent rows with equal labels form one segment of a level),
a mapping ``level -> Series`` (each Series one level, every row a segment)
or a Series (one level).
Every level must be a partition of each file (:mod:`audeval._structure.prepare`).

:func:`prepare` aligns both sides as ``mir_eval.hierarchy.evaluate`` does
and maps every segment to a half-open range ``[lo, hi)`` on a per-file axis:
frames, or nanoseconds without frames.
"""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses

import numpy as np
import pandas as pd

from audeval._core.labels import factorize
from audeval._structure.prepare import check_partition
from audeval._structure.prepare import sort_side
from audeval._core.validation import NS_PER_SECOND
from audeval._core.validation import Segments
from audeval._core.validation import check_inputs
from audeval._core.warnings import warn

class InconsistentHierarchyWarning(UserWarning):
    """A finer level of a hierarchy lacks a boundary of a coarser level
    (``mir_eval.hierarchy`` warns "Segment hierarchy is inconsistent")."""


T_MIN = "__T_MIN"
T_MAX = "__T_MAX"


@dataclasses.dataclass(frozen=True)
class Side:
    """One hierarchy: the segments of every level, sorted by ``(level, file, start)``."""

    level: np.ndarray
    file: np.ndarray
    start: np.ndarray
    end: np.ndarray
    code: np.ndarray  # label code, comparable within a level
    n_levels: int
    pads: tuple[tuple[int, int], ...]  # per level: codes of __T_MIN and __T_MAX

    def __len__(self) -> int:
        return len(self.file)


def _levels(hierarchy: object, name: str) -> tuple[list[pd.Series], bool]:
    """The levels of a hierarchy as Series (coarse to fine); whether runs are merged."""
    if isinstance(hierarchy, pd.Series):
        return [hierarchy], False
    if isinstance(hierarchy, pd.DataFrame):
        if hierarchy.shape[1] == 0:
            raise ValueError(f"{name} has no level: give one label column per level.")
        return [hierarchy.iloc[:, i] for i in range(hierarchy.shape[1])], True
    if isinstance(hierarchy, Mapping):
        levels = list(hierarchy.values())
        if not levels:
            raise ValueError(f"{name} has no level: give one Series per level.")
        for key, level in hierarchy.items():
            if not isinstance(level, pd.Series):
                raise TypeError(
                    f"{name}[{key!r}] must be a Series; got {type(level).__name__}."
                )
        return levels, False
    raise TypeError(
        f"{name} must be a DataFrame with one label column per level, "
        f"a mapping level -> Series, or a Series; got {type(hierarchy).__name__}."
    )


def _codes(levels: list[pd.Series], name: str, offset: int) -> tuple[pd.Series, list]:
    """All levels as one Series of int codes (distinct per level), and the pad codes."""
    parts, pads = [], []
    for i, level in enumerate(levels):
        codes, uniques = factorize(level, f"{name} (level {i + 1})")
        missing = codes < 0
        if missing.any():
            raise ValueError(
                f"{name} has missing labels at level {i + 1}: "
                f"{level[missing].head(5).to_string()}"
            )
        # mir_eval's pad labels are labels: a user label "__T_MIN" joins the pad
        found = pd.Index(uniques, dtype=object).get_indexer([T_MIN, T_MAX])
        n_codes = len(uniques)
        pad = []
        for position in found:
            pad.append(offset + (int(position) if position >= 0 else n_codes))
            n_codes += position < 0
        parts.append(pd.Series(codes.astype(np.int64) + offset, index=level.index))
        pads.append(tuple(pad))
        offset += n_codes
    return pd.concat(parts), pads


def _check_level(level: Segments, levels: list[pd.Series], name: str) -> None:
    """Raise unless the level (sorted) is a partition of each file, showing the rows."""
    same = level.file[1:] == level.file[:-1]
    if (level.end <= level.start).any() or (same & (level.start[1:] < level.end[:-1])).any():
        display = pd.concat([series.astype(object) for series in levels])
        check_partition(level, display, name)


def _merge_runs(side: Segments) -> Segments:
    """Adjacent rows (sorted) of one file with equal labels as one segment."""
    n = len(side)
    if n == 0:
        return side
    same = np.zeros(n, dtype=bool)
    same[1:] = (
        (side.file[1:] == side.file[:-1])
        & (side.label[1:] == side.label[:-1])
        & (side.start[1:] == side.end[:-1])
    )
    first = np.flatnonzero(~same)
    last = np.append(first[1:], n) - 1
    return Segments(
        side.file[first], side.start[first], side.end[last], side.label[first], side.position[first]
    )


def validate(truth: object, prediction: object, files_duration) -> tuple[Side, Side, pd.Index]:
    """Both hierarchies checked (each level a partition) over their shared files."""
    t_levels, t_merge = _levels(truth, "truth")
    p_levels, p_merge = _levels(prediction, "prediction")
    t_series, t_pads = _codes(t_levels, "truth", 0)
    offset = int(max(max(p) for p in t_pads)) + 1
    p_series, p_pads = _codes(p_levels, "prediction", offset)
    inputs = check_inputs(t_series, p_series, files_duration=files_duration, duration_files=False)
    label_code = np.asarray(inputs.labels, dtype=np.int64)
    sides = []
    for rows, levels, merge, pads, name in (
        (inputs.truth, t_levels, t_merge, t_pads, "truth"),
        (inputs.prediction, p_levels, p_merge, p_pads, "prediction"),
    ):
        bounds = np.cumsum([0] + [len(level) for level in levels])
        level_of_row = np.searchsorted(bounds, rows.position, side="right") - 1
        parts = []
        for i in range(len(levels)):
            level = sort_side(rows.take(np.flatnonzero(level_of_row == i)), inputs.n_files)
            _check_level(level, levels, f"{name} (level {i + 1})")
            if merge:
                level = _merge_runs(level)
            parts.append((np.full(len(level), i, dtype=np.int64), level))
        sides.append(
            Side(
                np.concatenate([p[0] for p in parts]),
                np.concatenate([p[1].file for p in parts]),
                np.concatenate([p[1].start for p in parts]),
                np.concatenate([p[1].end for p in parts]),
                label_code[np.concatenate([p[1].label for p in parts])],
                len(levels),
                tuple(pads),
            )
        )
    extent = np.zeros(inputs.n_files, dtype=np.int64)
    np.maximum.at(extent, sides[0].file, sides[0].end)
    for side, name in zip(sides, ("truth", "prediction")):
        check_levels(side, inputs.files, extent, name)
    return sides[0], sides[1], inputs.files


def _seconds(ns) -> str:
    return f"{ns / NS_PER_SECOND:g} s"


def check_levels(side: Side, files: pd.Index, extent: np.ndarray, name: str) -> None:
    """Raise if the levels of a file end at different times;
    warn if a boundary of a level is not one of every finer level (up to the track end ``extent``),
    as ``mir_eval.hierarchy`` does (its ``validate_hier_intervals``).

    Levels without rows in a file are left out there.
    """
    n_files, n_levels = len(files), side.n_levels
    key = side.level * n_files + side.file
    present = (np.bincount(key, minlength=n_levels * n_files) > 0).reshape(n_levels, n_files)
    last: np.ndarray = np.zeros(n_levels * n_files, dtype=np.int64)
    np.maximum.at(last, key, side.end)
    last = last.reshape(n_levels, n_files)
    big = np.iinfo(np.int64).max
    differ = np.flatnonzero(
        np.where(present, last, -big).max(axis=0, initial=-big) != np.where(present, last, big).min(axis=0, initial=big)
    )
    differ = differ[present[:, differ].any(axis=0)]
    if len(differ):
        shown = "; ".join(
            f"file {files[f]!r}: "
            + ", ".join(f"level {level + 1} ends at {_seconds(last[level, f])}" for level in np.flatnonzero(present[:, f]))
            for f in differ[:5]
        )
        raise ValueError(
            f"{name} is not a hierarchy: its levels end at different times "
            f"in {len(differ)} file(s) (mir_eval.hierarchy raises): {shown}."
        )
    if n_levels < 2 or n_levels > 62:  # (a level mask is an int64)
        return
    # every boundary inside the track, once per (file, time, level)
    file = np.concatenate([side.file, side.file])
    time = np.concatenate([side.start, side.end])
    level = np.concatenate([side.level, side.level])
    inside = (time > 0) & (time < extent[file])
    file, time, level = file[inside], time[inside], level[inside]
    order = np.lexsort((level, time, file))
    file, time, level = file[order], time[order], level[order]
    first = np.ones(len(file), dtype=bool)
    first[1:] = (file[1:] != file[:-1]) | (time[1:] != time[:-1])
    starts = np.flatnonzero(first)
    if not len(starts):
        return
    bit = np.left_shift(np.int64(1), level.astype(np.int64))
    mask = np.bitwise_or.reduceat(bit, starts)
    file, time, top = file[starts], time[starts], level[starts]  # top: the coarsest level holding it
    levels_of_file = (present.astype(np.int64) << np.arange(n_levels, dtype=np.int64)[:, None]).sum(axis=0)
    below = levels_of_file[file] & ~((np.int64(1) << top.astype(np.int64)) - 1)  # present levels >= top
    missing = below & ~mask
    bad = np.flatnonzero(missing != 0)
    if len(bad):
        lowest = missing[bad] & -missing[bad]
        finer = np.log2(lowest.astype(np.float64)).astype(np.int64)
        shown = "; ".join(
            f"file {files[file[i]]!r} at {_seconds(time[i])} "
            f"(a boundary of level {top[i] + 1}, not of level {level_ + 1})"
            for i, level_ in zip(bad[:5], finer[:5])
        )
        levels = np.flatnonzero(np.bitwise_or.reduce(missing[bad]) >> np.arange(n_levels) & 1) + 1
        warn(
            f"{name} is an inconsistent hierarchy (mir_eval.hierarchy warns): "
            f"{len(bad)} boundaries of a coarser level are not boundaries of a finer one "
            f"(finer levels: {', '.join(map(str, levels))}), e.g. {shown}.",
            InconsistentHierarchyWarning,
        )


# -------------------------------------------------------------------------
# Alignment
# -------------------------------------------------------------------------


def _fill(side: Side, extent: np.ndarray, n_files: int, gap: np.ndarray) -> Side:
    """Crop every level to ``[0, T)`` and fill its gaps with segments of code ``gap[level]``.

    A level without rows in a file is absent there (in no segment), not one gap.
    """
    keep = side.start < extent[side.file]
    level, file, start = side.level[keep], side.file[keep], side.start[keep]
    end, code = np.minimum(side.end[keep], extent[side.file[keep]]), side.code[keep]
    key = level * n_files + file
    n_groups = side.n_levels * n_files
    # previous end within the (level, file) group, 0 for the first segment
    first = np.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    previous = np.where(first, 0, np.roll(end, 1))
    gap_before = start > previous
    last_end = np.zeros(n_groups, dtype=np.int64)
    np.maximum.at(last_end, key, end)
    group = np.arange(n_groups)
    g_level, g_file = group // n_files, group % n_files
    present = np.bincount(key, minlength=n_groups) > 0  # a level without rows is absent
    tail = present & (last_end < extent[g_file])
    columns = [
        (level, file, start, end, code),
        (level[gap_before], file[gap_before], previous[gap_before], start[gap_before],
         gap[level[gap_before]]),
        (g_level[tail], g_file[tail], last_end[tail], extent[g_file[tail]], gap[g_level[tail]]),
    ]
    out = [np.concatenate([c[i] for c in columns]).astype(np.int64) for i in range(5)]
    order = np.lexsort((out[2], out[1], out[0]))
    return Side(*(c[order] for c in out), side.n_levels, side.pads)  # type: ignore[call-arg, arg-type]  # out: the five columns of a Side


def _pad(side: Side, extent: np.ndarray, n_files: int, crop: bool) -> Side:
    """mir_eval's ``adjust_intervals`` per level: ``__T_MIN`` from 0; with ``crop``,
    rows starting after ``T`` dropped, ends clipped and ``__T_MAX`` up to ``T``."""
    level, file, start, end, code = side.level, side.file, side.start, side.end, side.code
    if crop:
        keep = start < extent[file]  # rows starting at T would have zero length
        level, file, start, code = level[keep], file[keep], start[keep], code[keep]
        end = np.minimum(side.end[keep], extent[file])
    key = level * n_files + file
    n_groups = side.n_levels * n_files
    big = np.iinfo(np.int64).max
    first_start = np.full(n_groups, big, dtype=np.int64)
    np.minimum.at(first_start, key, start)
    last_end = np.zeros(n_groups, dtype=np.int64)
    np.maximum.at(last_end, key, end)
    group = np.arange(n_groups)
    g_level, g_file = group // n_files, group % n_files
    t_min = np.array([p[0] for p in side.pads], dtype=np.int64)
    t_max = np.array([p[1] for p in side.pads], dtype=np.int64)
    has = first_start < big
    lead = has & (first_start > 0)
    parts = [
        (level, file, start, end, code),
        (g_level[lead], g_file[lead], np.zeros(int(lead.sum()), np.int64), first_start[lead],
         t_min[g_level[lead]]),
    ]
    if crop:
        tail = has & (last_end < extent[g_file])
        parts.append(
            (g_level[tail], g_file[tail], last_end[tail], extent[g_file[tail]], t_max[g_level[tail]])
        )
    out = [np.concatenate([c[i] for c in parts]).astype(np.int64) for i in range(5)]
    order = np.lexsort((out[2], out[1], out[0]))
    return Side(*(c[order] for c in out), side.n_levels, side.pads)  # type: ignore[call-arg, arg-type]  # out: the five columns of a Side


# -------------------------------------------------------------------------
# Time axis
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Axis:
    """Both sides on a per-file axis of ``n`` units (frames, or ns without frames)."""

    n: np.ndarray  # units per file
    extent: np.ndarray  # track end T per file (ns); 0: no truth
    truth: Side  # start/end in units
    prediction: Side
    frames: bool


def mir_eval_frame(seconds: np.ndarray, frame_size: float) -> np.ndarray:
    """mir_eval.hierarchy's frame index ``int((t - mod(t, f)) / f)`` in float64."""
    seconds = np.asarray(seconds, dtype=np.float64)
    return ((seconds - np.mod(seconds, frame_size)) / frame_size).astype(np.int64)


def _on_axis(side: Side, to_unit, n: np.ndarray) -> Side:
    lo = np.minimum(to_unit(side.start), n[side.file])
    hi = np.minimum(to_unit(side.end), n[side.file])
    keep = hi > lo
    return Side(
        side.level[keep], side.file[keep], lo[keep], hi[keep], side.code[keep], side.n_levels,
        side.pads,
    )


def prepare(
    truth: Side,
    prediction: Side,
    n_files: int,
    frame_size: int | float | None,
    compat: bool,
) -> Axis:
    """Align both sides to the truth's track ``[0, T)`` and map them to the axis.

    Default: every level cropped to ``[0, T)``, its gaps one "gap" label of that level;
    frame ``k`` takes the labels active at ``k * frame_size`` (half-open segments),
    ``floor(T / frame_size)`` frames.
    compat: mir_eval's padding (``__T_MIN``, ``__T_MAX``), interior gaps uncovered,
    frame index ``int((t - mod(t, f)) / f)`` of float seconds.
    """
    extent = np.zeros(n_files, dtype=np.int64)
    if len(truth):
        np.maximum.at(extent, truth.file, truth.end)
    if compat:
        truth = _pad(truth, extent, n_files, crop=False)
        prediction = _pad(prediction, extent, n_files, crop=True)
        fs = float(frame_size)  # type: ignore[arg-type]  # compat mode always has a frame size

        def to_unit(ns):
            return mir_eval_frame(ns / NS_PER_SECOND, fs)

        n = to_unit(extent)
    else:
        t_gap = np.array([max(p) + 1 for p in truth.pads], dtype=np.int64)
        p_gap = np.array([max(p) + 1 for p in prediction.pads], dtype=np.int64)
        truth = _fill(truth, extent, n_files, t_gap)
        prediction = _fill(prediction, extent, n_files, p_gap)
        if frame_size is None:
            n = extent

            def to_unit(ns):
                return ns
        else:
            fs_ns = int(frame_size)
            n = extent // fs_ns

            def to_unit(ns):
                return -(-ns // fs_ns)

    return Axis(
        n,
        extent,
        _on_axis(truth, to_unit, n),
        _on_axis(prediction, to_unit, n),
        frame_size is not None,
    )
