"""Structure plot: two partitions of one file and their matched boundaries.

The partitions are preprocessed and the boundaries matched
by the engine of :func:`audeval.boundary_detection`;
the title's scores are the file's row of the public :func:`audeval.structure_report`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

import audeval
from audeval._structure import boundaries as _boundaries
from audeval._structure import prepare as _prepare
from audeval._core.matching import maximum_matching
from audeval._structure.options import STRUCTURE
from audeval._core.validation import NS_PER_SECOND, check_inputs, to_ns
from audeval.plot._common import (
    BAR_PAD,
    Lane,
    band,
    file_code,
    finish_lanes,
    in_window,
    legend,
    new_axes,
    number,
    outcome_colors,
    pyplot,
    rectangle,
    stack,
)
from audeval.plot._common import window as time_window


def _draw_partition(ax, name: str, pieces, f: int, lane: Lane, labels: list, lo: int, hi: int):
    """Segments coloured by label (gaps hatched), with their label where wide enough."""
    import matplotlib

    palette = matplotlib.colormaps["Set3"]  # light: boundaries stay visible
    span = hi - lo
    for i in np.flatnonzero((pieces.file == f) & in_window(pieces.start, pieces.end, lo, hi)):
        cluster = int(pieces.cluster[i])
        gap = cluster >= len(labels)
        patch = rectangle(
            ax,
            pieces.start[i],
            pieces.end[i],
            lane.top + BAR_PAD,
            lane.height - 2 * BAR_PAD,
            "white" if gap else palette(cluster % palette.N),
            f"{name}:{'gap' if gap else 'segment'}",
            zorder=2,
        )
        if gap:
            patch.set_hatch("///")
            patch.set_edgecolor("#BBBBBB")
        elif (pieces.end[i] - pieces.start[i]) >= 0.03 * span:
            ax.text(
                (max(pieces.start[i], lo) + min(pieces.end[i], hi)) / 2 / NS_PER_SECOND,
                lane.top + lane.height / 2,
                str(labels[cluster]),
                ha="center",
                va="center",
                fontsize=8,
                clip_on=True,
                zorder=3,
                gid="segment-label",
            )


def _draw_boundaries(ax, name: str, bounds, index, lane: Lane, hit: np.ndarray, colors: dict):
    """A thick vertical bar per boundary: hit, missed (truth) or false (prediction)."""
    from matplotlib.lines import Line2D

    miss = "deletion" if name == "truth" else "insertion"
    for i in index:
        outcome = "tp" if hit[i] else miss
        x = bounds.time[i] / NS_PER_SECOND
        ax.add_line(
            Line2D(
                [x, x],
                [lane.top, lane.top + lane.height],
                color=colors[outcome],
                linewidth=3.0,
                solid_capstyle="butt",
                zorder=5,
                gid=f"{name}:{outcome}",
            )
        )


def _draw_links(ax, t_b, p_b, t_in, match, truth_lane: Lane, prediction_lane: Lane, color):
    """A dashed line joining the two boundaries of every hit."""
    from matplotlib.lines import Line2D

    for i in t_in[match[t_in] >= 0]:
        j = match[i]
        ax.add_line(
            Line2D(
                [t_b.time[i] / NS_PER_SECOND, p_b.time[j] / NS_PER_SECOND],
                [truth_lane.top + truth_lane.height, prediction_lane.top],
                color=color,
                linewidth=1.0,
                linestyle="--",
                zorder=4,
                gid="boundary-link",
            )
        )


def _title(file: object, w: int, row: pd.Series) -> str:
    """Boundary P/R/F at the window and the clustering scores of the file's report row."""
    precision, recall, f_measure = (
        row[[c for c in row.index if c.startswith(prefix)][0]]
        for prefix in ("precision_at_", "recall_at_", "f_measure_at_")
    )
    return (
        f"{file}\n"
        f"boundaries \u00b1{w / NS_PER_SECOND:g} s: P = {number(precision)}, "
        f"R = {number(recall)}, F = {number(f_measure)}; "
        f"pairwise F = {number(row['pairwise_f_measure'])}, "
        f"NCE F = {number(row['nce_f_measure'])}, V = {number(row['v_measure'])}"
    )


def structure_timeline(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    file: object | None = None,
    start: float | pd.Timedelta | None = None,
    end: float | pd.Timedelta | None = None,
    window: float | pd.Timedelta = 0.5,
    trim: bool = False,
    frame_size: float | pd.Timedelta | None = 0.1,
    files_duration: Mapping | pd.Series | None = None,
    pad: bool = True,
    colors: Mapping[str, object] | None = None,
    ax=None,
):
    r"""Truth and predicted partitions of one file with their matched boundaries.

    The partitions are preprocessed as by :func:`audeval.structure_report`
    (truth padded to start at 0, prediction cropped or padded
    to the truth's end :math:`T`; pads and interior gaps are drawn hatched),
    and the boundaries are matched as by :func:`audeval.boundary_detection`
    with the same ``window`` and ``trim``
    (a maximum matching of boundaries at most ``window`` apart).
    Segments are coloured by label (the same label, the same colour on both lanes).
    Boundaries are vertical bars:
    *hit* (matched; a line joins the pair),
    *missed* truth boundary
    or *false* predicted boundary;
    grey bands show the hit window around every truth boundary.
    So the number of hits over the number of drawn predicted (truth) boundaries
    is the file's boundary precision (recall).
    The title shows the file's boundary precision, recall and F-measure,
    pairwise F-measure, NCE F-measure and V-measure
    (``frame_size`` is used for the last three only).

    Segment patches have the ``gid`` ``"truth:segment"``, ``"truth:gap"``,
    ``"prediction:segment"`` or ``"prediction:gap"``;
    boundary lines ``"truth:tp"``, ``"truth:deletion"``,
    ``"prediction:tp"`` and ``"prediction:insertion"``;
    pair lines ``"boundary-link"``, window bands ``"collar:window"``.
    Only the exact mode is drawn (no ``compat="mir_eval"``).

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        file: the file to show; may be ``None`` if the inputs hold one file
        start: start of the time window in seconds or as timedelta, default 0
        end: end of the time window, default the track end :math:`T`
        window: largest distance of a boundary hit, in seconds or as timedelta
        trim: leave out the first and last boundary of each side (0 and :math:`T`)
        frame_size: frame hop of the clustering scores in the title;
            ``None``: frameless
        files_duration: durations to resolve ``end=NaT``
        pad: boundaries after ``mir_eval.segment.evaluate``'s padding and cropping
            (as :func:`audeval.structure_report`); ``False``: the boundaries of the rows
            as given (as :func:`audeval.boundary_detection` with ``pad=False``)
        colors: colours per outcome replacing those of :data:`OUTCOME_COLORS`
            (``"tp"`` hit, ``"deletion"`` missed, ``"insertion"`` false boundary)
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
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> ax = audeval.plot.structure_timeline(truth, prediction)
        >>> import collections
        >>> sorted(collections.Counter(line.get_gid() for line in ax.lines).items())
        [('boundary-link', 3), ('prediction:insertion', 1), ('prediction:tp', 3),
         ('separator', 2), ('truth:tp', 3)]

    """
    pyplot()  # fail early without matplotlib
    colors = outcome_colors(colors)
    # the options of the structure family, checked once (its declaration)
    options = STRUCTURE.build({"window": window, "trim": trim, "pad": pad, "frame_size": frame_size})
    w = to_ns(options.window, "window", allow_none=False)
    inputs = check_inputs(truth, prediction, files_duration=files_duration, duration_files=False)
    prep = _prepare.prepare(inputs, truth, prediction, False)
    f = file_code(inputs.files, file)
    file_name = inputs.files[f]
    lo, hi = time_window(start, end, int(prep.extent[f]))

    # boundaries and their matching, as boundary_detection computes them
    t_b, p_b = _boundaries.boundaries(prep, options.trim, options.pad)
    t_index, p_index = _boundaries._window_pairs(t_b, p_b, w, False, prep.n_files)
    match = maximum_matching(len(t_b.file), len(p_b.file), t_index, p_index)
    p_matched = np.zeros(len(p_b.file), dtype=bool)
    p_matched[match[match >= 0]] = True
    report = audeval.structure_report(
        truth,
        prediction,
        windows=(window,),
        frame_size=frame_size,
        trim=trim,
        pad=pad,
        files_duration=files_duration,
    )

    blocks = stack([("", [("truth", 1.6), ("", 0.8), ("prediction", 1.6)])])
    truth_lane, _, prediction_lane = blocks[0].lanes
    ax = new_axes(ax, 10.0, 2.6)
    _draw_partition(ax, "truth", prep.truth, f, truth_lane, inputs.labels, lo, hi)
    _draw_partition(ax, "prediction", prep.prediction, f, prediction_lane, inputs.labels, lo, hi)

    # hit windows, boundaries and pairs
    t_in = np.flatnonzero((t_b.file == f) & (t_b.time >= lo) & (t_b.time <= hi))
    p_in = np.flatnonzero((p_b.file == f) & (p_b.time >= lo) & (p_b.time <= hi))
    height = prediction_lane.top + prediction_lane.height - truth_lane.top
    for i in t_in:
        band(ax, t_b.time[i] - w, 2 * w, truth_lane.top, height, "collar:window")
    _draw_boundaries(ax, "truth", t_b, t_in, truth_lane, match >= 0, colors)
    _draw_boundaries(ax, "prediction", p_b, p_in, prediction_lane, p_matched, colors)
    _draw_links(ax, t_b, p_b, t_in, match, truth_lane, prediction_lane, colors["tp"])
    finish_lanes(ax, blocks, lo, hi)
    ax.tick_params(axis="y", which="minor", labelsize=9, labelcolor="black")
    ax.tick_params(axis="y", which="major", pad=0)
    ax.set_title(_title(file_name, w, report.iloc[f]), fontsize=10)
    legend(
        ax,
        [
            ("boundary hit", colors["tp"]),
            ("missed boundary", colors["deletion"]),
            ("false boundary", colors["insertion"]),
            ("hit window", None),
        ],
    )
    return ax


__all__ = ["structure_timeline"]
