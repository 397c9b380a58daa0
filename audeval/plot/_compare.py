"""The result of :func:`audeval.compare`: values (or differences) with intervals per system."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval.plot._common import new_axes, pyplot


SYSTEM_COLOR = "#0072B2"  # blue
BASELINE_COLOR = "#D55E00"  # vermillion
SIGNIFICANT_COLOR = "#009E73"  # bluish green


def compare(
    result: pd.DataFrame,
    difference: bool = False,
    *,
    alpha: float = 0.05,
    ax=None,
    colors: Mapping[str, str] | None = None,
):
    r"""Plot the result of :func:`audeval.compare`: one row per system.

    Each system's ``value`` is a dot with its interval ``[low, high]`` as a bar;
    the baseline is drawn in its own colour with a dashed line through its value,
    so a system whose interval lies beyond the line is clearly apart from it.
    With ``difference=True`` the differences to the baseline are drawn
    (``difference`` with ``[difference_low, difference_high]``) against a line at 0,
    and for a pairwise result (index ``system``, ``other``) one row per pair.
    A system whose test rejects at ``alpha`` (``p_adjusted``, else ``p_value``,
    :math:`p \le \alpha`) is drawn in the colour ``"significant"`` and its p-value
    is written beside it.

    Artists carry a ``gid``: ``"system:<name>"`` (pairs: ``"pair:<system>-<other>"``),
    ``"baseline:<name>"``, ``"baseline-line"``.

    Args:
        result: the DataFrame :func:`audeval.compare` returns
        difference: draw the differences to the baseline instead of the values
        alpha: level at which a p-value is marked
        ax: matplotlib axes to draw on (``None``: a new figure)
        colors: replace some of the colours ``"system"``, ``"baseline"``, ``"significant"``

    Returns:
        the :class:`matplotlib.axes.Axes`

    Raises:
        TypeError: if ``result`` is not a DataFrame of :func:`audeval.compare`
        ValueError: if its columns are missing

    Examples:
        >>> import audformat
        >>> import audeval
        >>> import audeval.plot
        >>> files = [f"f{i}" for i in range(6)]
        >>> truth = pd.Series(["a"] * 6, index=audformat.segmented_index(files, [0.0] * 6, [1.0] * 6))
        >>> late = pd.Series(["a"] * 6, index=audformat.segmented_index(files, [0.5] * 6, [1.5] * 6))
        >>> result = audeval.compare(audeval.event_fscore, truth, {"late": late, "exact": truth})
        >>> ax = audeval.plot.compare(result)
        >>> [label.get_text() for label in ax.get_yticklabels()]
        ['late (baseline)', 'exact']

    """
    pyplot()  # (an ImportError naming the extra first, without matplotlib)
    if not isinstance(result, pd.DataFrame) or "compare" not in result.attrs:
        raise TypeError("result must be the DataFrame that audeval.compare returns.")
    palette = {"system": SYSTEM_COLOR, "baseline": BASELINE_COLOR, "significant": SIGNIFICANT_COLOR}
    if colors:
        unknown = sorted(set(colors) - set(palette))
        if unknown:
            raise ValueError(f"colors must name some of {sorted(palette)}; got {unknown}.")
        palette.update(colors)
    pairwise = isinstance(result.index, pd.MultiIndex)
    if pairwise:
        difference = True
    point, low, high = (
        ("difference", "difference_low", "difference_high") if difference else ("value", "low", "high")
    )
    missing = [c for c in (point, low, high) if c not in result.columns]
    if missing:
        raise ValueError(f"result lacks the columns {missing}: pass the DataFrame of audeval.compare.")
    info = result.attrs["compare"]
    baseline = info.get("baseline")
    if pairwise:
        rows = [(system, other) for system, other in result.index]
        names = [f"{system} - {other}" for system, other in rows]
        gids = [f"pair:{system}-{other}" for system, other in rows]
        is_baseline = np.zeros(len(rows), dtype=bool)
    else:
        names = [str(name) for name in result.index]
        is_baseline = np.asarray([name == baseline for name in result.index])
        gids = [
            f"baseline:{name}" if base else f"system:{name}" for name, base in zip(result.index, is_baseline)
        ]
        names = [f"{name} (baseline)" if base else name for name, base in zip(names, is_baseline)]
    p = result["p_adjusted"] if "p_adjusted" in result.columns else result.get("p_value")
    p = np.full(len(result), np.nan) if p is None else p.to_numpy(dtype=float)

    ax = new_axes(ax, 6.4, 0.9 + 0.45 * len(result))
    y = np.arange(len(result))[::-1]
    values = result[point].to_numpy(dtype=float)
    lows = result[low].to_numpy(dtype=float)
    highs = result[high].to_numpy(dtype=float)
    for k in range(len(result)):
        if is_baseline[k]:
            color = palette["baseline"]
        elif p[k] <= alpha:
            color = palette["significant"]
        else:
            color = palette["system"]
        if not difference or not is_baseline[k]:
            if np.isfinite(lows[k]) and np.isfinite(highs[k]):
                ax.plot([lows[k], highs[k]], [y[k], y[k]], color=color, linewidth=2.5, gid=gids[k] + ":interval")
        ax.plot(
            [values[k]], [y[k]], marker="D" if is_baseline[k] else "o", color=color, markersize=7,
            linestyle="none", gid=gids[k],
        )
        if np.isfinite(p[k]) and not is_baseline[k]:
            right = highs[k] if np.isfinite(highs[k]) else values[k]
            ax.annotate(
                f"p = {p[k]:.2g}", (right, y[k]), xytext=(6, 0), textcoords="offset points",
                va="center", fontsize=8, color=color,
            )
    if difference:
        ax.axvline(0.0, color=palette["baseline"], linestyle="--", linewidth=1, gid="baseline-line")
    elif is_baseline.any():
        ax.axvline(
            values[is_baseline][0], color=palette["baseline"], linestyle="--", linewidth=1, gid="baseline-line"
        )
    ax.set_yticks(y)
    ax.set_yticklabels(names)
    ax.set_ylim(-0.7, len(result) - 0.3)
    metric = info.get("metric", "metric")
    level = int(round(100 * info.get("confidence", 0.95)))
    if difference:
        against = "other" if pairwise else f"baseline {baseline}"
        ax.set_xlabel(f"difference of {metric} to {against} ({level} % interval)")
    else:
        ax.set_xlabel(f"{metric} ({level} % interval)")
    ax.grid(axis="x", color="#DDDDDD", linewidth=0.8)
    ax.set_axisbelow(True)
    return ax


__all__ = ["compare"]
