"""Inline SVG figures: timelines of lanes of bars, heat maps, curves.

A timeline is a stack of blocks (a label, a speaker, a rater set) of lanes
(truth, prediction, a rater); a lane's overlapping bars are stacked in levels.
Colours are the outcome colours of :mod:`audeval.plot` (:data:`OUTCOME_COLORS`).
"""

from __future__ import annotations

from collections.abc import Sequence
import dataclasses
import math

import numpy as np

from audeval._html.page import escape, number_text


#: The outcome colours of :data:`audeval.plot.OUTCOME_COLORS` (Okabe-Ito);
#: a test checks that the two stay equal.
OUTCOME_COLORS: dict[str, str] = {
    "tp": "#009E73",
    "substitution": "#E69F00",
    "deletion": "#D55E00",
    "insertion": "#0072B2",
}
OUTCOME_NAMES: dict[str, str] = {
    "tp": "true positive",
    "substitution": "substitution",
    "deletion": "miss (deletion)",
    "insertion": "false alarm (insertion)",
}
#: Colours of categories that are not outcomes (raters' labels, structure segments).
PALETTE = ("#56B4E9", "#CC79A7", "#F0E442", "#009E73", "#E69F00", "#0072B2", "#D55E00",
           "#999999", "#882255", "#44AA99")

LEVEL = 14  # px per level of a lane
LANE_GAP = 2
BLOCK_GAP = 8
LEFT = 150
RIGHT = 12
TOP = 6
AXIS = 24


@dataclasses.dataclass
class Bar:
    """A bar from ``start`` to ``end`` (seconds), its colour, class and tooltip."""

    start: float
    end: float
    color: str
    kind: str
    tip: str
    id: str | None = None
    text: str | None = None  # written inside the bar where it fits


@dataclasses.dataclass
class Lane:
    name: str
    bars: list[Bar]


@dataclasses.dataclass
class Block:
    name: str
    lanes: list[Lane]


def levels(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The lowest free level of every interval (touching intervals share a level)."""
    order = np.lexsort((end, start))
    level = np.zeros(len(start), dtype=np.int64)
    ends: list[float] = []
    for i in order:  # a drawing helper: the bars of one lane of one file
        for k, last in enumerate(ends):
            if last <= start[i]:
                level[i], ends[k] = k, max(end[i], start[i])
                break
        else:
            level[i] = len(ends)
            ends.append(end[i])
    return level


def _ticks(lo: float, hi: float, n: int = 8) -> list[float]:
    span = max(hi - lo, 1e-9)
    raw = span / n
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * step:
            step *= factor
            break
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step + 1e-9) + 1)]


def _axis(x, lo: float, hi: float, y: float, width: float) -> list[str]:
    out = [f'<line x1="{LEFT}" y1="{y}" x2="{width - RIGHT}" y2="{y}" stroke="#999"/>']
    for t in _ticks(lo, hi):
        px = x(t)
        out.append(
            f'<line x1="{px:.1f}" y1="{y}" x2="{px:.1f}" y2="{y + 4}" stroke="#999"/>'
            f'<text x="{px:.1f}" y="{y + 15}" font-size="10" text-anchor="middle" '
            f'fill="#555">{t:g}</text>'
        )
    out.append(
        f'<text x="{LEFT - 6}" y="{y + 15}" font-size="10" text-anchor="end" '
        'fill="#555">time / s</text>'
    )
    return out


def timeline(
    blocks: Sequence[Block],
    lo: float,
    hi: float,
    *,
    width: int = 960,
    links: Sequence[tuple[str, str, str]] = (),
    marks: Sequence[tuple[float, str]] = (),
    band: tuple[float, float] | None = None,
    label: str = "",
) -> str:
    """An SVG of ``blocks`` over the time window ``[lo, hi]`` seconds.

    ``links`` join two bars by their ids with a dashed line of a colour;
    ``marks`` are vertical dotted lines (seconds, tooltip),
    ``band`` a shaded time span (seconds) behind the bars.
    """
    hi = hi if hi > lo else lo + 1.0
    scale = (width - LEFT - RIGHT) / (hi - lo)

    def x(t: float) -> float:
        return LEFT + (min(max(t, lo), hi) - lo) * scale

    parts: list[str] = []
    centre: dict[str, tuple[float, float]] = {}
    y = TOP
    for b, block in enumerate(blocks):
        top = y
        for lane in block.lanes:
            start = np.asarray([bar.start for bar in lane.bars], dtype=float)
            end = np.asarray([bar.end for bar in lane.bars], dtype=float)
            level = levels(start, end) if len(start) else np.zeros(0, dtype=int)
            n = int(level.max()) + 1 if len(level) else 1
            height = n * LEVEL
            parts.append(
                f'<text x="{LEFT - 6}" y="{y + height / 2 + 4:.1f}" font-size="10" '
                f'text-anchor="end" fill="#555">{escape(lane.name)}</text>'
                f'<line x1="{LEFT}" y1="{y + height:.1f}" x2="{width - RIGHT}" '
                f'y2="{y + height:.1f}" stroke="#eee"/>'
            )
            for bar, k in zip(lane.bars, level.tolist()):
                x0, x1 = x(bar.start), x(bar.end)
                w = max(x1 - x0, 1.5)
                by = y + k * LEVEL + 2
                ident = f' id="{escape(bar.id)}"' if bar.id else ""
                parts.append(
                    f'<rect class="bar {escape(bar.kind)}" data-kind="{escape(bar.kind)}"{ident} '
                    f'x="{x0:.1f}" y="{by:.1f}" width="{w:.1f}" height="{LEVEL - 4}" '
                    f'fill="{bar.color}" stroke="#222" stroke-width="0.5">'
                    f"<title>{escape(bar.tip)}</title></rect>"
                )
                if bar.text and w > 7 * len(bar.text) + 6:
                    parts.append(
                        f'<text x="{x0 + 3:.1f}" y="{by + LEVEL - 7:.1f}" font-size="9" '
                        f'fill="#111" pointer-events="none">{escape(bar.text)}</text>'
                    )
                if bar.id:
                    centre[bar.id] = ((x0 + x1) / 2, by + (LEVEL - 4) / 2)
            y += height + LANE_GAP
        parts.append(
            f'<text x="6" y="{(top + y) / 2 + 4:.1f}" font-size="11" font-weight="600">'
            f"{escape(block.name)}</text>"
        )
        if b < len(blocks) - 1:
            parts.append(
                f'<line x1="4" y1="{y + BLOCK_GAP / 2 - 1:.1f}" x2="{width - RIGHT}" '
                f'y2="{y + BLOCK_GAP / 2 - 1:.1f}" stroke="#ccc"/>'
            )
        y += BLOCK_GAP
    for a, b_, color in links:
        if a in centre and b_ in centre:
            (x0, y0), (x1, y1) = centre[a], centre[b_]
            parts.append(
                f'<line class="link" x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" '
                f'stroke="{color}" stroke-dasharray="4 3" stroke-width="1.2"/>'
            )
    for t, tip in marks:
        parts.append(
            f'<line class="mark" x1="{x(t):.1f}" y1="{TOP}" x2="{x(t):.1f}" y2="{y:.1f}" '
            f'stroke="#555" stroke-dasharray="2 2"><title>{escape(tip)}</title></line>'
        )
    if band is not None:
        parts.insert(0, f'<rect class="band" x="{x(band[0]):.1f}" y="{TOP - 2}" '
                        f'width="{max(x(band[1]) - x(band[0]), 1.0):.1f}" height="{y - TOP + 2:.1f}" '
                        'fill="#fff3b0"/>')
    parts += _axis(x, lo, hi, y, width)
    height = y + AXIS
    return (
        f'<svg class="timeline-svg" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height:.0f}" viewBox="0 0 {width} {height:.0f}" role="img" '
        f'aria-label="{escape(label)}">{"".join(parts)}</svg>'
    )


def legend(entries: Sequence[tuple[str, str]]) -> str:
    """Colour swatches: ``(name, colour)``."""
    return '<div class="legend">' + "".join(
        f'<span><span class="swatch" style="background:{c}"></span>{escape(n)}</span>'
        for n, c in entries
    ) + "</div>"


def outcome_legend(kinds: Sequence[str] = tuple(OUTCOME_COLORS)) -> str:
    return legend([(OUTCOME_NAMES[k], OUTCOME_COLORS[k]) for k in kinds])


def _mix(t: float, low: str = "#ffffff", high: str = "#0072B2") -> str:
    t = 0.0 if math.isnan(t) else min(max(t, 0.0), 1.0)
    a = [int(low[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(high[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(p + (q - p) * t):02x}" for p, q in zip(a, b))


def heatmap(
    values: np.ndarray,
    rows: Sequence[object],
    columns: Sequence[object],
    *,
    digits: int = 3,
    low: float | None = None,
    high: float | None = None,
    row_title: str = "",
    column_title: str = "",
    label: str = "",
) -> str:
    """A matrix as coloured cells with their values (NaN cells grey)."""
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    low = (float(finite.min()) if len(finite) else 0.0) if low is None else low
    high = (float(finite.max()) if len(finite) else 1.0) if high is None else high
    cell = 54 if len(columns) <= 12 else 34
    left = 12 + 7 * max((len(str(r)) for r in rows), default=4)
    top = 16 + 7 * max((len(str(c)) for c in columns), default=4) * 0.75
    width = left + cell * len(columns) + 10 + 5.5 * max((len(str(c)) for c in columns), default=4)
    height = top + cell * len(rows) + 20
    parts = []
    for j, name in enumerate(columns):
        cx = left + (j + 0.5) * cell
        parts.append(
            f'<text x="{cx:.1f}" y="{top - 6:.1f}" font-size="10" text-anchor="start" '
            f'transform="rotate(-40 {cx:.1f} {top - 6:.1f})">{escape(name)}</text>'
        )
    for i, name in enumerate(rows):
        cy = top + (i + 0.5) * cell
        parts.append(
            f'<text x="{left - 6}" y="{cy + 4:.1f}" font-size="10" text-anchor="end">'
            f"{escape(name)}</text>"
        )
        for j in range(len(columns)):
            v = values[i, j]
            t = (v - low) / (high - low) if high > low else 1.0
            fill = "#eeeeee" if not math.isfinite(v) else _mix(t)
            ink = "#ffffff" if math.isfinite(v) and t > 0.6 else "#222222"
            x0, y0 = left + j * cell, top + i * cell
            text = number_text(v, digits) if math.isfinite(v) else "\u2013"
            parts.append(
                f'<g class="cell" data-row="{escape(name)}" data-column="{escape(columns[j])}" '
                f'data-value="{float(v)!r}"><rect x="{x0}" y="{y0:.1f}" width="{cell}" '
                f'height="{cell}" fill="{fill}" stroke="#fff"/>'
                f'<text x="{x0 + cell / 2}" y="{y0 + cell / 2 + 4:.1f}" font-size="10" '
                f'text-anchor="middle" fill="{ink}">{text}</text>'
                f"<title>{escape(name)} / {escape(columns[j])}: {text}</title></g>"
            )
    parts.append(
        f'<text x="{left + cell * len(columns) / 2:.1f}" y="{height - 4:.1f}" font-size="11" '
        f'text-anchor="middle" fill="#555">{escape(column_title)}</text>'
    )
    if row_title:
        parts.append(
            f'<text x="4" y="12" font-size="11" fill="#555">{escape(row_title)}</text>'
        )
    return (
        f'<svg class="heatmap" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        f'aria-label="{escape(label)}">{"".join(parts)}</svg>'
    )


@dataclasses.dataclass
class Curve:
    name: str
    x: np.ndarray
    y: np.ndarray
    color: str
    width: float = 1.2
    dash: str = ""


def curves(
    lines: Sequence[Curve],
    *,
    x_range: tuple[float, float],
    y_range: tuple[float, float] = (0.0, 1.0),
    x_title: str = "",
    y_title: str = "",
    label: str = "",
    size: tuple[int, int] = (440, 320),
) -> str:
    """Line plots (steps drawn as given points) with axes and a legend below."""
    w, h = size
    left, right, top, bottom = 46, 10, 10, 36
    (x0, x1), (y0, y1) = x_range, y_range
    x1 = x1 if x1 > x0 else x0 + 1
    y1 = y1 if y1 > y0 else y0 + 1

    def px(v):
        return left + (np.clip(v, x0, x1) - x0) / (x1 - x0) * (w - left - right)

    def py(v):
        return h - bottom - (np.clip(v, y0, y1) - y0) / (y1 - y0) * (h - top - bottom)

    parts = [
        f'<rect x="{left}" y="{top}" width="{w - left - right}" height="{h - top - bottom}" '
        'fill="none" stroke="#999"/>'
    ]
    for t in _ticks(x0, x1, 5):
        parts.append(
            f'<text x="{px(t):.1f}" y="{h - bottom + 14}" font-size="10" text-anchor="middle" '
            f'fill="#555">{t:g}</text>'
        )
    for t in _ticks(y0, y1, 5):
        parts.append(
            f'<line x1="{left}" x2="{w - right}" y1="{py(t):.1f}" y2="{py(t):.1f}" stroke="#eee"/>'
            f'<text x="{left - 4}" y="{py(t) + 3:.1f}" font-size="10" text-anchor="end" '
            f'fill="#555">{t:g}</text>'
        )
    parts.append(
        f'<text x="{(left + w - right) / 2}" y="{h - 6}" font-size="11" text-anchor="middle">'
        f'{escape(x_title)}</text><text x="12" y="{(top + h - bottom) / 2}" font-size="11" '
        f'text-anchor="middle" transform="rotate(-90 12 {(top + h - bottom) / 2})">'
        f"{escape(y_title)}</text>"
    )
    for line in lines:
        xs, ys = np.asarray(line.x, dtype=float), np.asarray(line.y, dtype=float)
        keep = np.isfinite(xs) & np.isfinite(ys)
        points = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(px(xs[keep]), py(ys[keep])))
        dash = f' stroke-dasharray="{line.dash}"' if line.dash else ""
        parts.append(
            f'<polyline class="curve" data-name="{escape(line.name)}" points="{points}" '
            f'fill="none" stroke="{line.color}" stroke-width="{line.width}"{dash}>'
            f"<title>{escape(line.name)}</title></polyline>"
        )
    return (
        f'<svg class="curves" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" role="img" aria-label="{escape(label)}">{"".join(parts)}</svg>'
    )
