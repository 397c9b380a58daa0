"""Scored regions: ``files_duration``, UEM, collars, overlap; label merging and cropping.

The scored region of a file is its UEM intervals (``uem=``),
else ``[0, duration]`` from ``files_duration``,
else the union of the extents of truth and prediction (pyannote.metrics' rule, with a warning),
minus collars around truth boundaries and, with ``skip_overlap``,
the regions where two or more truth labels are active.
All arrays are int64 nanoseconds; every step is vectorised over files.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pandas as pd

from audeval._core import sweep as _pieces
from audeval._core.intervals import expand_ranges, group_min_max, shared_keys
from audeval._core.sweep_pairs import merge_channels
from audeval._core.options import warn
from audeval._core.validation import MAX_ROWS_SHOWN, NAT, Inputs, Segments, take_apart, seconds_to_ns
from audeval._core.warnings import UnknownDurationsWarning

from audeval._diarization.options import collar_sides


_EMPTY = np.zeros(0, dtype=np.int64)


def _union(n_files: int, file, start, end):
    """Union of intervals per file (:func:`audeval._core.intervals.merge`, keys without per-file minima)."""
    zero = np.zeros(len(file), dtype=np.int64)
    file, _, start, end = merge_channels(n_files, 1, (file.astype(np.int64), zero, start, end))
    return file, start, end


def _join_disjoint(n_files, file, start, end, b_file, b_start, b_end):
    """Pairs (i, j) of intervals ``i`` and disjoint sorted intervals ``j`` that overlap
    (:func:`audeval._core.intervals.overlap_join`; ``i`` ascending)."""
    bs, be, s_key, e_key = shared_keys(
        n_files, (b_file, b_start), (b_file, b_end), (file, start), (file, end)
    )
    i, j = expand_ranges(np.searchsorted(be, s_key, side="right"), np.searchsorted(bs, e_key))
    keep = np.minimum(end[i], b_end[j]) > np.maximum(start[i], b_start[j])
    return i[keep], j[keep]


def _merge_labels(side: Segments, n_files: int, n_labels: int):
    """Union of the intervals of each (file, label): file, label, start, end."""
    return merge_channels(n_files, n_labels, (side.file, side.label, side.start, side.end))


def _raw_labels(side: Segments, n_files: int, n_labels: int):
    """Rows of each (file, label) as they are (``compat="pyannote"``), sorted, no zero lengths."""
    keep = side.end > side.start
    file, label, start, end = side.file[keep], side.label[keep], side.start[keep], side.end[keep]
    order = np.lexsort((end, start, label, file))
    return file[order], label[order], start[order], end[order]


def _overlap_regions(n_files: int, merged) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where two or more intervals of ``merged`` are active, per file (merged, sorted):
    the pieces of the piece engine covered twice or more, touching ones joined."""
    file, _, start, end = merged
    pieces = _pieces.cut(n_files, file, start, end)
    k = np.flatnonzero(_pieces.coverage(len(pieces), pieces.first, pieces.stop) >= 2)
    file, start, end = pieces.file[k], pieces.start[k], pieces.end[k]
    first, last = _pieces.join_runs(file, start, end, np.zeros(len(k), dtype=np.int64))
    return file[first], start[first], end[last]


def _scoring_bounds(inputs: Inputs, known: np.ndarray | None = None):
    """``[0, duration]`` per file, else the union of the extents (warned)."""
    n = inputs.n_files
    low = np.zeros(n, dtype=np.int64)
    high = inputs.durations.copy()
    unknown = high == NAT
    if known is not None:
        unknown &= ~known
    if unknown.any():
        warn(UnknownDurationsWarning(int(unknown.sum()), n))
        sides = (inputs.truth, inputs.prediction)
        keep = [side.end > side.start for side in sides]
        file = np.concatenate([s.file[k] for s, k in zip(sides, keep)])
        first, _ = group_min_max(file, np.concatenate([s.start[k] for s, k in zip(sides, keep)]), n)
        _, last = group_min_max(file, np.concatenate([s.end[k] for s, k in zip(sides, keep)]), n)
        low[unknown] = first[unknown]
        high[unknown] = last[unknown]
    high[high == NAT] = 0
    return low, high


def _complement(n_files, low, high, excluded):
    """``[low, high]`` minus merged ``excluded`` intervals, per file."""
    ex_file, ex_start, ex_end = excluded
    if len(ex_file) == 0:
        file = np.arange(n_files, dtype=np.int64)
        keep = high > low
        return file[keep], low[keep], high[keep]
    # gap after each excluded interval: up to the next one of the file, else the end
    following = np.empty_like(ex_start)
    same = ex_file[1:] == ex_file[:-1]
    following[:-1] = np.where(same, ex_start[1:], high[ex_file[:-1]])
    following[-1] = high[ex_file[-1]]
    # gap before the first excluded interval of each file
    first = np.ones(len(ex_file), dtype=bool)
    first[1:] = ~same
    head_end = high.copy()
    head_end[ex_file[first]] = ex_start[first]
    file = np.concatenate([np.arange(n_files, dtype=np.int64), ex_file])
    start = np.maximum(np.concatenate([low, ex_end]), low[file])
    end = np.minimum(np.concatenate([head_end, following]), high[file])
    return _union(n_files, file, start, end)


def _difference(n_files, base, excluded):
    """Merged ``base`` minus merged ``excluded``, per file."""
    if len(excluded[0]) == 0:
        return base
    low, _ = group_min_max(base[0], base[1], n_files)
    _, high = group_min_max(base[0], base[2], n_files)
    gaps = _complement(n_files, low, high, excluded)
    i, j = _join_disjoint(n_files, *base, *gaps)
    return base[0][i], np.maximum(base[1][i], gaps[1][j]), np.minimum(base[2][i], gaps[2][j])


@dataclasses.dataclass(frozen=True)
class _Region:
    """Scored intervals per file; ``low``/``high`` when it is one interval a file."""

    intervals: tuple[np.ndarray, np.ndarray, np.ndarray]
    low: np.ndarray | None = None
    high: np.ndarray | None = None

    def crop(self, n_files, file, start, end, *rest):
        """Cut intervals to the region; intervals disjoint per group keep their order."""
        if self.low is not None:  # one interval per file: clip
            low, high = self.low[file], self.high[file]
            if (start >= low).all() and (end <= high).all():  # nothing to clip
                return (file,) + rest + (start, end)
            start = np.maximum(start, low)
            end = np.minimum(end, high)
            keep = end > start
            return (file[keep],) + tuple(r[keep] for r in rest) + (start[keep], end[keep])
        region_file, region_start, region_end = self.intervals
        i, j = _join_disjoint(n_files, file, start, end, *self.intervals)
        if len(i) > 1 and np.any(np.diff(i) < 0):  # keep the input order
            order = np.lexsort((j, i))
            i, j = i[order], j[order]
        start = np.maximum(start[i], region_start[j])
        end = np.minimum(end[i], region_end[j])
        return (file[i],) + tuple(r[i] for r in rest) + (start, end)


def _collar_intervals(inputs: Inputs, truth_merged, collar: int, convention: str):
    """Unscored intervals around truth boundaries."""
    before, after = collar_sides(collar, convention)
    if convention == "per_side":  # md-eval / spy-der: boundaries of merged speaker turns
        file, _, start, end = truth_merged
    else:  # pyannote.metrics: boundaries of every truth row
        truth = inputs.truth
        keep = truth.end > truth.start
        file, start, end = truth.file[keep], truth.start[keep], truth.end[keep]
    times = np.concatenate([start, end])
    file = np.concatenate([file, file])
    return file, times - before, times + after


def _scored_region(
    inputs: Inputs,
    truth_merged,
    collar: int,
    skip_overlap: bool,
    *,
    collar_convention: str = "total",
    uem=None,
    overlap_rows=None,
) -> _Region:
    """Scored intervals per file (merged, sorted) after UEM, collars and overlap.

    Overlap is where two or more intervals of ``truth_merged`` are active
    (two labels: the NIST rule), or of ``overlap_rows`` if given
    (``compat="pyannote"``: the rows as they are, so a label overlapping itself is overlap).
    """
    n = inputs.n_files
    known = None if uem is None else uem.known
    low, high = _scoring_bounds(inputs, known)
    parts = []
    if collar > 0:
        parts.append(_collar_intervals(inputs, truth_merged, collar, collar_convention))
    if skip_overlap:
        parts.append(_overlap_regions(n, truth_merged if overlap_rows is None else overlap_rows))
    if uem is None and not parts:
        return _Region(_complement(n, low, high, (_EMPTY, _EMPTY, _EMPTY)), low, high)
    if uem is None:
        base = _complement(n, low, high, (_EMPTY, _EMPTY, _EMPTY))
    else:
        files = np.flatnonzero(~uem.known)
        keep = high[files] > low[files]
        base = _union(
            n,
            np.concatenate([uem.file, files[keep]]),
            np.concatenate([uem.start, low[files[keep]]]),
            np.concatenate([uem.end, high[files[keep]]]),
        )
    if not parts:
        return _Region(base)
    excluded = _union(
        n,
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )
    return _Region(_difference(n, base, excluded))


def _crop(n_files: int, n_labels: int, merged, region: _Region):
    """Intervals of each (file, label) cut to the scored region (order kept)."""
    file, label, start, end = merged
    file, label, start, end = region.crop(n_files, file, start, end, label)
    return file, label, start, end


# -------------------------------------------------------------------------
# UEM
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Uem:
    """Scored intervals of the files that have a UEM (merged, sorted by file and start)."""

    file: np.ndarray
    start: np.ndarray
    end: np.ndarray
    known: np.ndarray  # per file: has UEM intervals


def check_uem(uem: object) -> pd.MultiIndex | None:
    """A UEM as a segmented index (file, start, end), or ``None``."""
    if uem is None:
        return None
    if isinstance(uem, pd.Series):
        uem = uem.index
    if isinstance(uem, pd.DataFrame):
        uem = uem.index
    if not isinstance(uem, pd.MultiIndex) or list(uem.names) != ["file", "start", "end"]:
        raise TypeError(
            "uem must be an audformat segmented index (levels 'file', 'start', 'end') "
            f"or a Series with one; got {type(uem).__name__}"
            f"{' with levels ' + str(list(uem.names)) if isinstance(uem, pd.Index) else ''}."
        )
    raw = take_apart(pd.Series(0, index=uem), "uem", allow_filewise=False)
    bad = raw.end == NAT
    if bad.any():
        rows = uem[bad][:5].tolist()
        raise ValueError(f"uem has rows with end=NaT; every scored interval needs an end: {rows}")
    return uem


def with_uem(inputs: Inputs, uem: pd.MultiIndex | None) -> tuple[Inputs, _Uem | None]:
    """Inputs over the union of files with the UEM's, and the UEM as arrays."""
    if uem is None:
        return inputs, None
    uem_files = pd.Index(uem.get_level_values("file").unique())
    files = inputs.files
    extra = uem_files.difference(files)
    if len(extra):
        files = files.append(extra).unique()
        try:
            files = files.sort_values()
        except TypeError:
            pass
        files = pd.Index(files, name="file")
        remap = np.asarray(files.get_indexer(inputs.files), dtype=np.int64)
        sides = [
            Segments(remap[s.file], s.start, s.end, s.label, s.position)
            for s in (inputs.truth, inputs.prediction)
        ]
        durations = np.full(len(files), NAT, dtype=np.int64)
        durations[remap] = inputs.durations
        latest = None
        if inputs.latest is not None:
            latest = np.zeros(len(files), dtype=np.int64)
            latest[remap] = inputs.latest
        inputs = Inputs(sides[0], sides[1], files, inputs.labels, durations, latest)
    n = inputs.n_files
    file = np.asarray(files.get_indexer(uem.get_level_values("file")), dtype=np.int64)
    start = _level(uem, "start")
    end = _level(uem, "end")
    end = _crop_to_duration(uem, file, end, inputs.durations)
    file, start, end = _union(n, file, start, end)
    known = np.zeros(n, dtype=bool)
    known[np.asarray(files.get_indexer(uem_files), dtype=np.int64)] = True
    return inputs, _Uem(file, start, end, known)


def _crop_to_duration(uem: pd.MultiIndex, file, end, durations) -> np.ndarray:
    """UEM ends cut to the duration of their file, with the warning rows beyond it get."""
    duration = durations[file]
    beyond = (duration != NAT) & (end > duration)
    if not beyond.any():
        return end
    rows = pd.Series(0, index=uem)[beyond]
    shown = rows.index[:MAX_ROWS_SHOWN].to_frame(index=False).to_string(index=False)
    more = f"\n... and {len(rows) - MAX_ROWS_SHOWN} more rows" if len(rows) > MAX_ROWS_SHOWN else ""
    warn(
        "uem has rows beyond the duration of their file in files_duration "
        f"(metrics crop them to [0, duration]): {len(rows)} row(s), first:\n{shown}{more}"
    )
    return np.where(beyond, duration, end)


def _level(index: pd.MultiIndex, name: str) -> np.ndarray:
    values = pd.TimedeltaIndex(index.get_level_values(name))
    return np.asarray(values.as_unit("ns").asi8, dtype=np.int64)


def read_uem(path: str | os.PathLike) -> pd.MultiIndex:
    r"""Read a NIST UEM file: the scored regions of each file.

    Every non-empty line that is not a comment (``;;`` or ``#``) holds
    ``file channel start end`` separated by white space,
    with times in seconds (NIST md-eval, dscore, spy-der).
    The channel is ignored.
    Several lines of one file give several scored intervals.

    Args:
        path: path of the UEM file

    Returns:
        audformat segmented index (levels ``file``, ``start``, ``end``),
        to pass as ``uem=`` to the diarization and detection functions

    Raises:
        ValueError: a line that is not ``file channel start end``
            with numbers for the times (the message names the line)

    Examples:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "all.uem")
        >>> with open(path, "w") as fp:
        ...     _ = fp.write("f1 1 0.0 10.5\nf1 1 20.0 30.0\n")
        >>> from audeval import read_uem
        >>> read_uem(path)
        MultiIndex([('f1', '0 days 00:00:00', '0 days 00:00:10.500000'),
                    ('f1', '0 days 00:00:20', '0 days 00:00:30.000000')],
                   names=['file', 'start', 'end'])

    """
    files, starts, ends = [], [], []
    with open(path, encoding="utf-8") as fp:
        for number, line in enumerate(fp, 1):
            text = line.strip()
            if not text or text.startswith((";;", "#")):
                continue
            parts = text.split()
            try:
                if len(parts) != 4:
                    raise ValueError
                start, end = float(parts[2]), float(parts[3])
            except ValueError:
                raise ValueError(
                    f"{os.fspath(path)}, line {number}: expected 'file channel start end' "
                    f"with times in seconds; got {text!r}."
                ) from None
            if not (np.isfinite(start) and np.isfinite(end)) or start < 0 or end < start:
                raise ValueError(
                    f"{os.fspath(path)}, line {number}: start and end must be finite, "
                    f"0 <= start <= end; got {text!r}."
                )
            files.append(parts[0])
            starts.append(start)
            ends.append(end)
    start_ns = seconds_to_ns(np.asarray(starts, dtype=float)) if starts else _EMPTY
    end_ns = seconds_to_ns(np.asarray(ends, dtype=float)) if ends else _EMPTY
    return pd.MultiIndex.from_arrays(
        [
            pd.Index(files, dtype=object),
            pd.to_timedelta(np.asarray(start_ns, dtype=np.int64), unit="ns"),
            pd.to_timedelta(np.asarray(end_ns, dtype=np.int64), unit="ns"),
        ],
        names=["file", "start", "end"],
    )

