"""Segment plot: the segment grid of one file with TP, FN and FP per label.

The activity is binned by the engine of :func:`audeval.segment_statistics`
(same resolution, durations and ``compat``);
the title's scores come from the file's rows of the public statistics table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses
import warnings

import numpy as np
import pandas as pd

import audeval
from audeval import _segments
from audeval._core.validation import NS_PER_SECOND, Inputs, check_inputs, file_extent
from audeval.plot._common import (
    BAR_PAD,
    BLOCK_GAP,
    LEVEL_HEIGHT,
    Lane,
    file_code,
    file_end_line,
    finish_lanes,
    in_window,
    label_rows,
    legend,
    new_axes,
    number,
    outcome_colors,
    pyplot,
    rectangle,
    stack,
    total_height,
    window,
)


@dataclasses.dataclass(frozen=True)
class _Grid:
    """The segment grid of :func:`audeval.segment_statistics` (``r_ns=None``: exact time)."""

    r_ns: int | None
    r_seconds: float | None
    compat: str | None
    n_units: np.ndarray  # evaluated units per file

    @classmethod
    def of(cls, inputs: Inputs, time_resolution, compat) -> _Grid:
        r_ns, r_seconds = _segments._check_resolution(time_resolution, compat)
        n_units = _segments._n_units(file_extent(inputs), r_ns, r_seconds, compat)
        return cls(r_ns, r_seconds, compat, n_units)

    def units(self, start, end):
        return _segments._to_units(start, end, self.r_ns, self.r_seconds, self.compat)

    def to_ns(self, unit) -> np.ndarray:
        unit = np.asarray(unit, dtype=np.int64)
        if self.r_ns is None:
            return unit
        if self.compat == "sed_eval":
            return np.round(unit * self.r_seconds * NS_PER_SECOND).astype(np.int64)
        return unit * self.r_ns


def _runs(inputs: Inputs, grid: _Grid) -> dict[str, tuple]:
    """Runs of TP, FN and FP units per (file, label) group (:func:`audeval.segment_activity`'s)."""
    runs = _segments.outcome_runs(inputs, grid.n_units, grid.units)
    return {
        "truth:tp": runs["tp"],
        "truth:fn": runs["fn"],
        "prediction:tp": runs["tp"],
        "prediction:fp": runs["fp"],
    }


def _draw_runs(ax, runs: dict, grid: _Grid, f: int, n_labels: int, lane_of: dict, color_of: dict, lo, hi):
    """One bar per run of units with the same outcome."""
    for gid, (group, a, b) in runs.items():
        side, outcome = gid.split(":")
        in_file = (group // max(n_labels, 1)) == f
        a_ns, b_ns = grid.to_ns(a[in_file]), grid.to_ns(b[in_file])
        label = group[in_file] % max(n_labels, 1)
        for i in np.flatnonzero(in_window(a_ns, b_ns, lo, hi)):
            lane = lane_of[(side, label[i])]
            rectangle(
                ax,
                a_ns[i],
                b_ns[i],
                lane.top + BAR_PAD,
                lane.height - 2 * BAR_PAD,
                color_of[outcome],
                gid,
                edgecolor="none",
                linewidth=0,
            )


def _draw_strips(ax, inputs: Inputs, f: int, lane_of: dict, lo: int, hi: int) -> None:
    """The events themselves, as thin black strips."""
    for name, side in (("truth", inputs.truth), ("prediction", inputs.prediction)):
        for i in np.flatnonzero((side.file == f) & in_window(side.start, side.end, lo, hi)):
            lane = lane_of[(name, side.label[i])]
            rectangle(
                ax,
                side.start[i],
                side.end[i],
                lane.top + lane.height / 2 - 0.06,
                0.12,
                "black",
                f"{name}:event",
                zorder=4,
            )


def _draw_grid(ax, grid: _Grid, lo: int, hi: int, height: float) -> None:
    """Vertical lines of the segment grid (at most 400 segments in the window)."""
    if grid.r_ns is None:
        return
    r_ns, r_seconds = grid.r_ns, grid.r_seconds
    to_seconds = r_seconds if grid.compat == "sed_eval" else r_ns / NS_PER_SECOND
    if grid.compat is None:
        first, last = lo // r_ns, -(-hi // r_ns)
    else:
        first = int(np.floor(lo / NS_PER_SECOND / r_seconds))  # type: ignore[operator]  # a time resolution is set here
        last = int(np.ceil(hi / NS_PER_SECOND / r_seconds))  # type: ignore[operator]  # a time resolution is set here
    if last - first <= 400:
        ax.vlines(
            np.arange(first, last + 1) * to_seconds,  # type: ignore[operator]  # a time resolution is set here
            -BLOCK_GAP / 2,
            height + BLOCK_GAP / 2,
            color="#CCCCCC",
            linewidth=0.5,
            zorder=2,
            gid="segment-grid",
        )


def _title(file: object, grid: _Grid, rows_of_file: pd.DataFrame) -> str:
    """The file's micro F-score, error rate and counts, from its statistics rows.

    A label of the whole evaluation that this file lacks is no news here
    (the direct metric call warns about labels of no file), so that warning is not repeated.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="labels .* occur in neither truth nor prediction")
        f_score = audeval.segment_fscore(rows_of_file, None)
        error_rate = audeval.segment_error_rate(rows_of_file, None)
    sums = rows_of_file.sum()
    counts = {k: sums[k] for k in ("tp", "fp", "fn", "substitutions")}
    if grid.r_ns is None:
        counts = {k: pd.Timedelta(v).total_seconds() for k, v in counts.items()}
        shown = {k: f"{v:g}" for k, v in counts.items()}
    else:
        shown = {k: f"{int(v)}" for k, v in counts.items()}
    s_ = counts["substitutions"]
    d_ = counts["fn"] - s_
    i_ = counts["fp"] - s_
    unit = "s" if grid.r_ns is None else "segments"
    resolution = "exact time" if grid.r_ns is None else f"{grid.r_seconds:g} s segments"
    return (
        f"{file} ({resolution})\n"
        f"F = {number(f_score)}, ER = {number(error_rate)}; "
        f"TP {shown['tp']}, FP {shown['fp']}, FN {shown['fn']}, "
        f"S {shown['substitutions']}, D {d_:g}, I {i_:g} {unit}"
    )


def segment_timeline(
    truth: pd.Series,
    prediction: pd.Series,
    labels: Sequence[object] | None = None,
    *,
    file: object | None = None,
    start: float | pd.Timedelta | None = None,
    end: float | pd.Timedelta | None = None,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    events: bool = True,
    colors: Mapping[str, object] | None = None,
    ax=None,
):
    r"""Segment grid of one file: per label the segments counted as TP, FN and FP.

    The activity of every label is binned into segments
    exactly as by :func:`audeval.segment_statistics` with the same options
    (``time_resolution``, ``files_duration``, ``compat``).
    One block per label, truth lane above prediction lane:
    the truth lane shows active segments as
    *true positive* (also active in the prediction)
    or *false negative* (truth only),
    the prediction lane as *true positive*
    or *false positive* (prediction only);
    true negatives stay blank.
    Runs of consecutive segments with the same outcome are drawn as one bar,
    so the summed bar lengths per label, divided by ``time_resolution``,
    are the ``tp``, ``fn`` and ``fp`` of the file's statistics
    (seconds for ``time_resolution=None``).
    Thin black strips show the events themselves,
    vertical lines the segment grid
    (when the window holds at most 400 segments),
    a dotted line the end of the evaluated segments.
    Substitutions, deletions and insertions are counted per segment
    over all labels, so only the title shows them
    (with the file's micro F-score and error rate).

    Bars have the ``gid`` ``"truth:tp"``, ``"truth:fn"``,
    ``"prediction:tp"`` or ``"prediction:fp"``;
    event strips ``"truth:event"`` and ``"prediction:event"``.

    Args:
        truth: truth events (audformat segmented or filewise index)
        prediction: predicted events
        labels: labels to evaluate and show, top to bottom;
            ``None``: as the metrics, and only labels
            with events in the file are shown
        file: the file to show; may be ``None`` if the inputs hold one file
        start: start of the time window in seconds or as timedelta, default 0
        end: end of the time window, default the end of the evaluated segments
        time_resolution: segment length in seconds or as timedelta;
            ``None``: exact continuous time
        files_duration: duration per file, the evaluated length;
            also resolves ``end=NaT``
        compat: ``"sed_eval"`` for sed_eval's float binning,
            see :func:`audeval.segment_statistics`
        events: draw the events as thin strips
        colors: colours per outcome replacing those of :data:`OUTCOME_COLORS`
            (``"tp"``; ``"deletion"`` is used for FN, ``"insertion"`` for FP)
        ax: axes to draw on; ``None``: a new figure

    Returns:
        the axes

    Raises:
        ImportError: if matplotlib is not installed
        ValueError, TypeError: on invalid input, as the metrics,
            or if ``file`` is missing or unknown

    Examples:
        >>> import audformat
        >>> import audeval.plot
        >>> truth = pd.Series(
        ...     ["speech", "music"],
        ...     index=audformat.segmented_index(["f", "f"], [0, 1.5], [2.0, 3.0]),
        ... )
        >>> prediction = pd.Series(
        ...     ["speech"],
        ...     index=audformat.segmented_index(["f"], [0.5], [3.0]),
        ... )
        >>> ax = audeval.plot.segment_timeline(truth, prediction)
        >>> sorted((p.get_gid(), p.get_width()) for p in ax.patches if "event" not in p.get_gid())
        [('prediction:fp', 1.0), ('prediction:tp', 2.0), ('truth:fn', 2.0), ('truth:tp', 2.0)]

    """
    pyplot()  # fail early without matplotlib
    palette = outcome_colors(colors)
    inputs = check_inputs(
        truth,
        prediction,
        labels=labels,
        files_duration=files_duration,
        require_end=True,
        allow_filewise=True,
    )
    f = file_code(inputs.files, file)
    file_name = inputs.files[f]
    grid = _Grid.of(inputs, time_resolution, compat)
    runs = _runs(inputs, grid)
    evaluated_end = int(grid.to_ns(grid.n_units[f]))
    lo, hi = window(start, end, evaluated_end)

    # the file's scores, from its rows of the statistics table
    stats = audeval.segment_statistics(
        truth,
        prediction,
        labels,
        time_resolution=time_resolution,
        files_duration=files_duration,
        compat=compat,
    )
    rows_of_file = stats[np.asarray(stats.index.get_level_values("file") == file_name)]

    t, p = inputs.truth, inputs.prediction
    rows = label_rows(
        inputs.n_labels, [t.label[t.file == f], p.label[p.file == f]], labels is not None
    )
    lanes = [("truth", LEVEL_HEIGHT), ("prediction", LEVEL_HEIGHT)]
    blocks = stack([(str(inputs.labels[code]), lanes) for code in rows])
    lane_of: dict[tuple[str, int], Lane] = {}
    for code, block in zip(rows, blocks):
        lane_of[("truth", code)] = block.lanes[0]
        lane_of[("prediction", code)] = block.lanes[1]

    ax = new_axes(ax, 10.0, 1.4 + 0.32 * total_height(blocks))
    color_of = {"tp": palette["tp"], "fn": palette["deletion"], "fp": palette["insertion"]}
    _draw_runs(ax, runs, grid, f, inputs.n_labels, lane_of, color_of, lo, hi)
    if events:
        _draw_strips(ax, inputs, f, lane_of, lo, hi)
    _draw_grid(ax, grid, lo, hi, total_height(blocks))
    if lo <= evaluated_end <= hi:
        file_end_line(ax, evaluated_end, gid="evaluated-end")
    finish_lanes(ax, blocks, lo, hi)
    ax.set_title(_title(file_name, grid, rows_of_file), fontsize=10)
    entries = [
        ("true positive", color_of["tp"]),
        ("false negative (truth only)", color_of["fn"]),
        ("false positive (prediction only)", color_of["fp"]),
    ]
    if events:
        entries.append(("event", "black"))
    legend(ax, entries)
    return ax


__all__ = ["segment_timeline"]
