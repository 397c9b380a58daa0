"""Structure plot: two partitions of one file and their matched boundaries.

Drawn from public objects only, computed with the plot's options:
the partitions and the boundaries with their hits are the rows of
:func:`audeval.structure_outcomes`, the title's scores the file's row of
:func:`audeval.structure_report`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

import audeval
from audeval._core.validation import NS_PER_SECOND, to_ns
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


def _ns(times) -> np.ndarray:
    """Timedeltas (an index level or a column, NaT as 0) as int64 ns."""
    values = pd.TimedeltaIndex(times).as_unit("ns")
    return np.where(values.isna(), 0, values.asi8).astype(np.int64)


def _colour_codes(labels: pd.Series) -> dict:
    """A colour position per label (sorted, else in order of appearance): one label, one colour."""
    names = list(pd.unique(labels.dropna()))
    try:
        names = sorted(names)
    except TypeError:
        pass
    return {name: k for k, name in enumerate(names)}


def _draw_partition(ax, name: str, rows: pd.DataFrame, lane: Lane, code_of: dict, lo: int, hi: int):
    """Segments coloured by label (gaps hatched), with their label where wide enough."""
    import matplotlib

    palette = matplotlib.colormaps["Set3"]  # light: boundaries stay visible
    span = hi - lo
    start, end = _ns(rows.index.get_level_values("start")), _ns(rows.index.get_level_values("end"))
    gaps, labels = (rows["kind"] == "gap").to_numpy(), rows["label"].to_numpy()
    for i in np.flatnonzero(in_window(start, end, lo, hi)):
        gap = bool(gaps[i])
        patch = rectangle(
            ax,
            start[i],
            end[i],
            lane.top + BAR_PAD,
            lane.height - 2 * BAR_PAD,
            "white" if gap else palette(code_of[labels[i]] % palette.N),
            f"{name}:{'gap' if gap else 'segment'}",
            zorder=2,
        )
        if gap:
            patch.set_hatch("///")
            patch.set_edgecolor("#BBBBBB")
        elif (end[i] - start[i]) >= 0.03 * span:
            ax.text(
                (max(start[i], lo) + min(end[i], hi)) / 2 / NS_PER_SECOND,
                lane.top + lane.height / 2,
                str(labels[i]),
                ha="center",
                va="center",
                fontsize=8,
                clip_on=True,
                zorder=3,
                gid="segment-label",
            )


def _draw_boundaries(ax, name: str, time: np.ndarray, hit: np.ndarray, lane: Lane, colors: dict):
    """A thick vertical bar per boundary: hit, missed (truth) or false (prediction)."""
    from matplotlib.lines import Line2D

    miss = "deletion" if name == "truth" else "insertion"
    for t, is_hit in zip(time, hit):
        outcome = "tp" if is_hit else miss
        x = t / NS_PER_SECOND
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


def _draw_links(ax, time, partner, hit, truth_lane: Lane, prediction_lane: Lane, color):
    """A dashed line joining the two boundaries of every hit (from the truth boundaries)."""
    from matplotlib.lines import Line2D

    for t, p in zip(time[hit], partner[hit]):
        ax.add_line(
            Line2D(
                [t / NS_PER_SECOND, p / NS_PER_SECOND],
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
    compat: str | None = None,
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
    Segments, gaps, boundaries and hits are the file's rows of
    :func:`audeval.structure_outcomes` with the same options
    (with ``compat="mir_eval"``: mir_eval's preprocessing and its boundaries,
    rounded to 5 decimals of a second).

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
        compat: ``None`` (exact) or ``"mir_eval"`` (mir_eval 0.8.2, see
            :func:`audeval.structure_report`)
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
    outcomes = audeval.structure_outcomes(
        truth, prediction, window=window, trim=trim, pad=pad, files_duration=files_duration, compat=compat
    )
    w = to_ns(window, "window", allow_none=False)
    files = pd.Index(
        pd.unique(
            np.concatenate(
                [side.index.get_level_values("file").to_numpy(dtype=object) for side in (truth, prediction)]
                + [outcomes.index.get_level_values("file").to_numpy(dtype=object)]
            )
        )
    )
    file_name = files[file_code(files, file)]
    rows = outcomes[np.asarray(outcomes.index.get_level_values("file") == file_name, dtype=bool)]
    side = rows["side"].to_numpy()
    is_boundary = (rows["kind"] == "boundary").to_numpy()
    pieces = {name: rows[(side == name) & ~is_boundary] for name in ("truth", "prediction")}
    extent = int(_ns(pieces["truth"].index.get_level_values("end")).max(initial=0))
    lo, hi = time_window(start, end, extent)
    report = audeval.structure_report(
        truth,
        prediction,
        windows=(window,),
        frame_size=frame_size,
        trim=trim,
        pad=pad,
        files_duration=files_duration,
        compat=compat,
    )

    blocks = stack([("", [("truth", 1.6), ("", 0.8), ("prediction", 1.6)])])
    truth_lane, _, prediction_lane = blocks[0].lanes
    ax = new_axes(ax, 10.0, 2.6)
    code_of = _colour_codes(rows["label"])
    _draw_partition(ax, "truth", pieces["truth"], truth_lane, code_of, lo, hi)
    _draw_partition(ax, "prediction", pieces["prediction"], prediction_lane, code_of, lo, hi)

    # hit windows, boundaries and pairs in the time window
    time = _ns(rows.index.get_level_values("start"))
    shown = is_boundary & (time >= lo) & (time <= hi)
    hit = (rows["outcome"] == "hit").to_numpy()
    partner = _ns(rows["partner"])
    t_in, p_in = shown & (side == "truth"), shown & (side == "prediction")
    height = prediction_lane.top + prediction_lane.height - truth_lane.top
    for t in time[t_in]:
        band(ax, t - w, 2 * w, truth_lane.top, height, "collar:window")
    _draw_boundaries(ax, "truth", time[t_in], hit[t_in], truth_lane, colors)
    _draw_boundaries(ax, "prediction", time[p_in], hit[p_in], prediction_lane, colors)
    _draw_links(ax, time[t_in], partner[t_in], hit[t_in], truth_lane, prediction_lane, colors["tp"])
    finish_lanes(ax, blocks, lo, hi)
    ax.tick_params(axis="y", which="minor", labelsize=9, labelcolor="black")
    ax.tick_params(axis="y", which="major", pad=0)
    ax.set_title(_title(file_name, w, report.loc[file_name]), fontsize=10)
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
