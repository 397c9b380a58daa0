"""What every plot shares: matplotlib on demand, colours, lanes, windows, bars.

A figure is a stack of *blocks* (one per label or speaker) of *lanes*
(truth, prediction), y growing downwards, x in seconds.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core.validation import NS_PER_SECOND, to_ns


Tolerance = float | pd.Timedelta | None
"""A tolerance in seconds or as timedelta; ``None``: not evaluated."""


#: Colour per outcome (Okabe-Ito palette, readable with colour-blindness).
OUTCOME_COLORS: dict[str, str] = {
    "tp": "#009E73",  # bluish green: matched, same label
    "substitution": "#E69F00",  # orange: paired with another label
    "deletion": "#D55E00",  # vermillion: truth event missed
    "insertion": "#0072B2",  # blue: false alarm
}

OUTCOME_NAMES: dict[str, str] = {
    "tp": "true positive",
    "substitution": "substitution",
    "deletion": "miss (deletion)",
    "insertion": "false alarm (insertion)",
}

COLLAR_COLOR = "#BBBBBB"
UNSCORED = dict(facecolor="#F2F2F2", edgecolor="#BBBBBB", hatch="///", linewidth=0)
EDGE_COLOR = "#222222"
LEVEL_HEIGHT = 1.0  # one stacked level of a lane, in data units
BAR_PAD = 0.12  # free space above and below a bar inside its level
BLOCK_GAP = 0.6  # space between the blocks of two labels
DEFAULT_SPAN = 60 * NS_PER_SECOND  # longest default window of a timeline (ns)


def pyplot():
    """matplotlib.pyplot, or an ImportError saying how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(
            "audeval.plot needs matplotlib, which is not installed. "
            'Install it with: pip install "audeval[plot]"'
        ) from error
    return plt


def new_axes(ax, width: float, height: float):
    """``ax``, or the axes of a new figure of the given size (inches)."""
    plt = pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(width, height), layout="constrained")
    return ax


def outcome_colors(colors: Mapping[str, object] | None) -> dict[str, object]:
    """The default colours, updated by the user's ``colors`` (outcome -> colour)."""
    out: dict[str, object] = dict(OUTCOME_COLORS)
    if colors is not None:
        if not isinstance(colors, Mapping):
            raise TypeError(f"colors must be a mapping from outcome to colour; got {colors!r}.")
        unknown = sorted(set(colors) - set(OUTCOME_COLORS))
        if unknown:
            raise ValueError(
                f"colors has unknown outcomes {unknown}; allowed: {list(OUTCOME_COLORS)}."
            )
        out.update(colors)
    return out


def file_code(files: pd.Index, file: object | None) -> int:
    """Position of ``file`` in ``files``; ``None`` only when there is one file."""
    if file is None:
        if len(files) == 1:
            return 0
        shown = list(files[:5])
        raise ValueError(
            f"file must be given when the inputs hold {len(files)} files; "
            f"files are {shown}{' ...' if len(files) > 5 else ''}."
        )
    position = files.get_indexer([file])[0] if len(files) else -1
    if position < 0:
        raise ValueError(f"file {file!r} is neither in truth nor in prediction.")
    return int(position)


def window(
    start: float | pd.Timedelta | None,
    end: float | pd.Timedelta | None,
    file_end: int,
    *,
    span: int | None = None,
) -> tuple[int, int]:
    """The time window in ns: ``[start or 0, end or file_end]``.

    With ``span`` (ns) and ``end=None``
    the window ends at most ``span`` after its start.
    """
    lo = to_ns(start, "start")
    hi = to_ns(end, "end")
    lo = 0 if lo is None else lo
    if hi is None:
        hi = file_end if file_end > lo else lo + NS_PER_SECOND
        if span is not None:
            hi = min(hi, lo + span)
    if hi <= lo:
        raise ValueError(f"end must be after start; got start={start!r}, end={end!r}.")
    return lo, hi


def window_note(lo: int, hi: int, file_end: int) -> str:
    """A title line when a default window ends at ``hi`` before ``file_end``, else ``""``."""
    if hi >= file_end:
        return ""
    return (
        f"\n{lo / NS_PER_SECOND:g}-{hi / NS_PER_SECOND:g} s "
        f"of {file_end / NS_PER_SECOND:g} s shown; "
        "pass start= and end= (seconds) for another window"
    )


def levels(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Stack overlapping intervals: the lowest free level per interval.

    Intervals that only touch share a level.
    A plotting helper: the loop runs over the events drawn in one lane.
    """
    order = np.lexsort((end, start))
    level = np.zeros(len(start), dtype=np.int64)
    level_end: list[int] = []
    for i in order:
        for k, last in enumerate(level_end):
            if last <= start[i]:
                level[i] = k
                level_end[k] = max(end[i], start[i])
                break
        else:
            level[i] = len(level_end)
            level_end.append(end[i])
    return level


def seconds(ns) -> np.ndarray:
    """Nanoseconds as float seconds."""
    return np.asarray(ns, dtype=np.float64) / NS_PER_SECOND


def number(value: float) -> str:
    """A score in a title: three decimals, ``nan``, ``inf``."""
    return "nan" if np.isnan(value) else ("inf" if np.isinf(value) else f"{value:.3f}")


class Lane:
    """A horizontal lane: name, top (data units, y grows downwards), height."""

    def __init__(self, name: str, top: float, height: float):
        self.name, self.top, self.height = name, top, height


class Block:
    """The lanes of one label (or speaker), drawn together."""

    def __init__(self, name: str, lanes: list[Lane]):
        self.name, self.lanes = name, lanes

    @property
    def top(self) -> float:
        return self.lanes[0].top

    @property
    def height(self) -> float:
        return self.lanes[-1].top + self.lanes[-1].height - self.lanes[0].top


def stack(blocks: list[tuple[str, list[tuple[str, float]]]]) -> list[Block]:
    """Blocks from ``(name, [(lane name, lane height), ...])``, top to bottom."""
    out = []
    y = 0.0
    for name, lanes in blocks:
        placed = []
        for lane_name, height in lanes:
            placed.append(Lane(lane_name, y, height))
            y += height
        out.append(Block(name, placed))
        y += BLOCK_GAP
    return out


def total_height(blocks: list[Block]) -> float:
    if not blocks:
        return LEVEL_HEIGHT
    last = blocks[-1]
    return max(last.top + last.height, LEVEL_HEIGHT)


def _bars_data_limits(ax) -> None:
    """The data limits of the bars and bands, updated once
    (``ax.add_patch`` updates them bar by bar, through each patch's transforms:
    most of the time a long file's timeline took).
    The bars are added with ``ax.add_artist``, so ``ax.relim()`` leaves them out
    (matplotlib's rule for such artists); the timelines set their limits themselves."""
    from matplotlib.patches import Rectangle

    corners = np.array(
        [(p.get_x(), p.get_y(), p.get_width(), p.get_height()) for p in ax.patches if isinstance(p, Rectangle)],
        dtype=float,
    ).reshape(-1, 4)
    if len(corners):
        ax.update_datalim(np.concatenate([corners[:, :2], corners[:, :2] + corners[:, 2:]]))


def finish_lanes(ax, blocks: list[Block], lo: int, hi: int) -> None:
    """Limits, separators and the two-level y labels (block, lane)."""
    _bars_data_limits(ax)
    for block in blocks[1:]:
        ax.axhline(
            block.top - BLOCK_GAP / 2, color="#DDDDDD", linewidth=0.8, zorder=0, gid="separator"
        )
    for block in blocks:
        for lane in block.lanes[1:]:
            ax.axhline(lane.top, color="#EEEEEE", linewidth=0.6, zorder=0, gid="separator")
    ax.set_xlim(lo / NS_PER_SECOND, hi / NS_PER_SECOND)
    ax.set_ylim(total_height(blocks) + BLOCK_GAP / 2, -BLOCK_GAP / 2)
    ax.set_xlabel("time / s")
    lanes = [lane for block in blocks for lane in block.lanes]
    ax.yaxis.remove_overlapping_locs = False  # a block of one lane: both labels
    ax.set_yticks([b.top + b.height / 2 for b in blocks], [b.name for b in blocks])
    ax.set_yticks(
        [lane.top + lane.height / 2 for lane in lanes],
        [lane.name for lane in lanes],
        minor=True,
    )
    longest = max((len(lane.name) for lane in lanes), default=0)
    ax.tick_params(axis="y", which="major", length=0, pad=8 + 4.2 * longest, labelsize=10)
    ax.tick_params(axis="y", which="minor", length=2, labelsize=7, labelcolor="#555555")
    for tick in ax.get_yticklabels():
        tick.set_fontweight("bold")
    ax.grid(axis="x", color="#EEEEEE", linewidth=0.6, zorder=0)
    ax.set_axisbelow(True)


def file_end_line(ax, ns: int, gid: str = "file-end") -> None:
    ax.axvline(ns / NS_PER_SECOND, color="#555555", linestyle=":", linewidth=1.0, gid=gid)


def legend(ax, entries: list[tuple[str, object]]) -> None:
    """Legend right of the axes.

    An entry's colour may be ``None`` (the grey collar)
    or a dict of patch properties.
    """
    from matplotlib.patches import Patch

    def handle(name, color):
        if color is None:
            return Patch(facecolor=COLLAR_COLOR, alpha=0.45, label=name)
        if isinstance(color, dict):
            return Patch(label=name, **color)
        return Patch(facecolor=color, edgecolor=EDGE_COLOR, label=name)

    handles = [handle(name, color) for name, color in entries]
    ax.legend(
        handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8
    )


def rectangle(ax, start: int, end: int, top: float, height: float, color, gid: str, **kwargs):
    """A bar from ``start`` to ``end`` (ns); zero length becomes a thick line."""
    from matplotlib.patches import Rectangle

    start, end = int(start), int(end)
    instant = end == start
    options = dict(
        facecolor=color,
        edgecolor=color if instant else EDGE_COLOR,
        linewidth=2.5 if instant else 0.8,
        zorder=3,
        gid=gid,
    )
    options.update(kwargs)
    x, width = start / NS_PER_SECOND, (end - start) / NS_PER_SECOND
    patch = Rectangle((x, top), width, height, **options)
    ax.add_artist(patch)  # (the data limits of all bars at once: finish_lanes)
    return patch


def in_window(start: np.ndarray, end: np.ndarray, lo: int, hi: int) -> np.ndarray:
    return (start <= hi) & (end >= lo)


def label_rows(n_labels: int, used_labels: list[np.ndarray], all_labels: bool) -> np.ndarray:
    """Label codes to show: all, or those with events (in any of ``used_labels``)."""
    if all_labels:
        return np.arange(n_labels)
    used = np.zeros(n_labels, dtype=bool)
    for codes in used_labels:
        used[codes] = True
    return np.flatnonzero(used)


def band(ax, start_ns: float, width_ns: float, top: float, height: float, gid: str) -> None:
    """A grey tolerance band (collar, hit window) behind the bars."""
    from matplotlib.patches import Rectangle

    ax.add_artist(  # (the data limits of all bars at once: finish_lanes)
        Rectangle(
            (start_ns / NS_PER_SECOND, top),
            width_ns / NS_PER_SECOND,
            height,
            facecolor=COLLAR_COLOR,
            edgecolor="none",
            alpha=0.45,
            zorder=1,
            gid=gid,
        )
    )


def link(ax, x: list[float] | np.ndarray, y: list[float] | np.ndarray, color, gid: str, zorder: float = 4) -> None:
    """A dashed line joining two paired things (seconds, data units)."""
    from matplotlib.lines import Line2D

    ax.add_line(
        Line2D(x, y, color=color, linestyle="--", linewidth=1.0, zorder=zorder, gid=gid)
    )
