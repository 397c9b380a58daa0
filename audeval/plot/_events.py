"""Event plots: the timeline of one file by match outcome, the confusion matrix.

Both read public objects only, computed with the plot's options:
the timeline draws the rows of :func:`audeval.event_outcomes`,
the heat map the matrix of :func:`audeval.event_confusion_matrix` (``as_frame=True``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses

import numpy as np
import pandas as pd

import audeval
from audeval._events import EVENT
from audeval._core.ratios import precision_recall_fscore
from audeval._core.validation import NAT, to_ns
from audeval.plot._common import (
    BAR_PAD,
    BLOCK_GAP,
    DEFAULT_SPAN,
    LEVEL_HEIGHT,
    OUTCOME_COLORS,
    OUTCOME_NAMES,
    Block,
    Lane,
    Tolerance,
    band,
    file_code,
    file_end_line,
    finish_lanes,
    in_window,
    label_rows,
    legend,
    levels,
    link,
    new_axes,
    number,
    outcome_colors,
    pyplot,
    rectangle,
    seconds,
    total_height,
    window,
    window_note,
)


#: What the timeline draws for each outcome of :func:`audeval.event_outcomes`.
DRAWN = {
    "tp": "tp",
    "substituted": "substitution",
    "substituting": "substitution",
    "fn": "deletion",
    "fp": "insertion",
}


@dataclasses.dataclass
class _Side:
    """The events of one side in the shown file (outcome rows, times in ns)."""

    name: str
    start: np.ndarray
    end: np.ndarray
    label: np.ndarray
    outcome: np.ndarray  # drawn outcome names
    position: np.ndarray
    partner: np.ndarray
    shown: np.ndarray
    y: np.ndarray  # top of the level of every event (set by the layout)


def _sides(outcomes: pd.DataFrame, f: int) -> tuple[_Side, _Side]:
    """Truth and prediction rows of file ``f``; none ``shown`` yet."""
    in_file = outcomes["file"].cat.codes.to_numpy() == f
    drawn = np.asarray([DRAWN[name] for name in outcomes["outcome"].cat.categories], dtype=object)
    out = []
    for name in ("truth", "prediction"):
        rows = outcomes[in_file & (outcomes["side"] == name).to_numpy()]
        start = rows["start"].to_numpy().astype(np.int64)
        end = rows["end"].to_numpy().astype(np.int64)
        out.append(
            _Side(
                name,
                start,
                end,
                rows["label"].cat.codes.to_numpy().astype(np.int64),
                drawn[rows["outcome"].cat.codes.to_numpy()],
                rows["position"].to_numpy(),
                rows["partner"].to_numpy(),
                np.zeros(len(rows), dtype=bool),
                np.zeros(len(rows)),
            )
        )
    return out[0], out[1]


def _layout(rows: np.ndarray, names: list, sides: tuple[_Side, _Side]) -> list[Block]:
    """Per label a truth and a prediction lane, overlapping events stacked in levels."""
    blocks = []
    y = 0.0
    for code in rows:
        lanes = []
        for side in sides:
            index = np.flatnonzero(side.shown & (side.label == code))
            level = levels(side.start[index], side.end[index])
            n_levels = int(level.max()) + 1 if len(level) else 1
            side.y[index] = y + level * LEVEL_HEIGHT
            lanes.append(Lane(side.name, y, n_levels * LEVEL_HEIGHT))
            y += n_levels * LEVEL_HEIGHT
        blocks.append(Block(str(names[code]), lanes))
        y += BLOCK_GAP
    return blocks


def _allowance(truth: _Side, tolerance: tuple) -> np.ndarray:
    """Offset collar half-width per truth event in ns (0: offsets not evaluated)."""
    _, offset, fraction = tolerance
    if offset is None and fraction is None:
        return np.zeros(len(truth.end), dtype=np.int64)
    by_length = np.floor((fraction or 0.0) * (truth.end - truth.start)).astype(np.int64)
    return np.maximum(offset or 0, by_length)


def _collars(ax, truth: _Side, block_of: dict, tolerance: tuple) -> bool:
    """Tolerance bands of the shown truth events over their label's block."""
    onset = tolerance[0]
    allowance = _allowance(truth, tolerance)
    drawn = False
    for i in np.flatnonzero(truth.shown):
        top, height = block_of[truth.label[i]]
        bands = []
        if onset:
            bands.append(("onset", truth.start[i] - onset, 2 * onset))
        if allowance[i]:
            bands.append(("offset", truth.end[i] - allowance[i], 2 * allowance[i]))
        for kind, x0, width in bands:
            band(ax, x0, width, top, height, f"collar:{kind}")
            drawn = True
    return drawn


def _events(ax, sides: tuple[_Side, _Side], colors: dict) -> None:
    """One bar per shown event, coloured by its outcome."""
    for side in sides:
        for i in np.flatnonzero(side.shown):
            rectangle(
                ax,
                side.start[i],
                side.end[i],
                side.y[i] + BAR_PAD,
                LEVEL_HEIGHT - 2 * BAR_PAD,
                colors[side.outcome[i]],
                f"{side.name}:{side.outcome[i]}",
            )


def _links(ax, truth: _Side, prediction: _Side, colors: dict) -> None:
    """A dashed line between the two shown events of every substitution pair."""
    pairs = np.flatnonzero(truth.shown & (truth.outcome == "substitution"))
    # partners are in the same file; positions of a side are ascending
    partners = np.searchsorted(prediction.position, truth.partner[pairs])
    for i, j in zip(pairs, partners):
        if not prediction.shown[j]:
            continue
        link(
            ax,
            seconds([(truth.start[i] + truth.end[i]) / 2, (prediction.start[j] + prediction.end[j]) / 2]),
            [truth.y[i] + LEVEL_HEIGHT / 2, prediction.y[j] + LEVEL_HEIGHT / 2],
            colors["substitution"],
            "substitution-link",
        )


def _title(file: object, truth: _Side, prediction: _Side) -> str:
    """The file's micro scores and counts (as the micro row of the event report)."""
    tp = int(np.sum(truth.outcome == "tp"))
    s = int(np.sum(truth.outcome == "substitution"))
    d = int(np.sum(truth.outcome == "deletion"))
    i = int(np.sum(prediction.outcome == "insertion"))
    n_truth, n_prediction = len(truth.outcome), len(prediction.outcome)
    precision, recall, f = precision_recall_fscore(
        tp, n_prediction, n_truth, zero_division=0.0, propagate_nans=False
    )
    errors = s + d + i
    error_rate = errors / n_truth if n_truth else (0.0 if errors == 0 else np.inf)
    return (
        f"{file}\n"
        f"F = {number(float(f))} "
        f"(P = {number(float(precision))}, R = {number(float(recall))}), "
        f"ER = {number(float(error_rate))}; "
        f"TP {tp}, S {s}, D {d}, I {i}"
    )


def _duration(files_duration, file_name: object) -> int:
    """The file's duration in ns from ``files_duration``, else NaT."""
    if files_duration is None or file_name not in files_duration:
        return NAT
    return to_ns(files_duration[file_name], "files_duration")


def _latest_end(file_name: object, *sides: pd.Series) -> int:
    """The latest end (a start where the end is NaT) of the file's rows of all labels
    (the evaluated length without ``files_duration``, sed_eval's rule)."""
    latest = 0
    for side in sides:
        index = side.index
        rows = np.asarray(index.get_level_values("file") == file_name, dtype=bool)
        if not rows.any():
            continue
        ends = index.get_level_values("end")[rows]
        ends = ends.where(~ends.isna(), index.get_level_values("start")[rows])
        latest = max(latest, int(pd.TimedeltaIndex(ends).as_unit("ns").asi8.max()))
    return latest


def _timeline(truth, prediction, labels, options):
    """:func:`event_timeline` of a checked options object."""
    pyplot()  # fail early without matplotlib
    palette = outcome_colors(options.colors)
    # the public outcomes with the options checked once for this call (the family's declaration)
    outcomes = audeval.event_outcomes.with_options(options, truth, prediction, labels)
    files = pd.Index(outcomes["file"].cat.categories)
    names = list(outcomes["label"].cat.categories)
    f = file_code(files, options.file)
    limits = (options.onset_tolerance, options.offset_tolerance, options.duration_tolerance)
    truth_side, prediction_side = _sides(outcomes, f)
    duration = _duration(options.files_duration, files[f])
    file_end = duration if duration != NAT else _latest_end(files[f], truth, prediction)
    if duration == NAT and options.collars and len(truth_side.end):
        # the offset collars of the last events lie beyond the data
        collar_end = truth_side.end + _allowance(truth_side, limits)
        file_end = max(file_end, int(collar_end.max()))
    lo, hi = window(options.start, options.end, file_end, span=DEFAULT_SPAN)
    for side in (truth_side, prediction_side):
        side.shown = in_window(side.start, side.end, lo, hi)
    rows = label_rows(len(names), [truth_side.label, prediction_side.label], labels is not None)
    blocks = _layout(rows, names, (truth_side, prediction_side))

    ax = new_axes(options.ax, 10.0, 1.4 + 0.32 * total_height(blocks))
    drawn_collar = False
    if options.collars:
        block_of = {code: (block.top, block.height) for code, block in zip(rows, blocks)}
        drawn_collar = _collars(ax, truth_side, block_of, limits)
    _events(ax, (truth_side, prediction_side), palette)
    _links(ax, truth_side, prediction_side, palette)
    if duration != NAT and lo <= duration <= hi:
        file_end_line(ax, duration)
    finish_lanes(ax, blocks, lo, hi)
    note = window_note(lo, hi, file_end) if options.end is None else ""
    ax.set_title(_title(files[f], truth_side, prediction_side) + note, fontsize=10)
    entries = [(OUTCOME_NAMES[k], palette[k]) for k in OUTCOME_COLORS]
    if drawn_collar:
        entries.append(("tolerance collar", None))
    legend(ax, entries)
    return ax


@EVENT.statistics(_timeline)
def event_timeline(
    truth: pd.Series,
    prediction: pd.Series,
    labels: Sequence[object] | None = None,
    *,
    file: object | None = None,
    start: float | pd.Timedelta | None = None,
    end: float | pd.Timedelta | None = None,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    collars: bool = True,
    colors: Mapping[str, object] | None = None,
    ax=None,
):
    r"""Timeline of truth and predicted events of one file, coloured by outcome.

    Events are matched exactly as by :func:`audeval.event_statistics`
    with the same options
    (validation, tolerances, ``matching``, ``compat``, substitutions),
    over all files of the inputs
    (the rows of :func:`audeval.event_outcomes`);
    the picture shows one file.
    There is one block per label, top to bottom in label order,
    with the truth lane above the prediction lane.
    Overlapping events of a lane are stacked;
    events of zero length are drawn as thick lines.
    Truth events are drawn as
    *true positive* (matched),
    *substitution* (paired with a prediction of another label)
    or *miss* (deletion);
    predicted events as *true positive*, *substitution*
    or *false alarm* (insertion).
    A dashed line joins the two events of a substitution.
    So the number of drawn truth events per outcome is
    ``tp``, ``substituted`` and ``fn - substituted``
    of the file's :func:`audeval.event_statistics`,
    and of predicted events
    ``tp``, ``substituting`` and ``fp - substituting``.

    Grey bands are the tolerance collars of the truth events,
    where a matching prediction must have its onset and offset:

    .. math::

        \text{onset}_t \pm \text{onset\_tolerance}, \quad
        \text{offset}_t \pm \max(\text{offset\_tolerance},
        \text{duration\_tolerance} \cdot (\text{offset}_t - \text{onset}_t))

    Rows with ``end=NaT`` end at the file's duration from ``files_duration``,
    and a dotted line marks the end of the file when its duration is known.
    The title shows the file's micro F-score, precision, recall,
    error rate and counts
    (of the whole file, also when a time window is shown).

    A long file would be an unreadable wall of bars,
    so without ``end`` the window is at most 60 s long
    (from ``start``, default 0);
    when that hides part of the file,
    a third title line says which part is shown
    and to pass ``start`` and ``end`` for another window.
    Without ``end`` and with an unknown file duration
    the window reaches the end of the last offset collar,
    so collars are not cut at the latest event end.

    Event patches have the ``gid`` ``"truth:<outcome>"`` or ``"prediction:<outcome>"``
    with outcome ``"tp"``, ``"substitution"``, ``"deletion"`` (truth)
    or ``"insertion"`` (prediction);
    collars ``"collar:onset"`` and ``"collar:offset"``,
    substitution lines ``"substitution-link"``.

    Args:
        truth: truth events (audformat segmented index)
        prediction: predicted events (audformat segmented index)
        labels: labels to evaluate and show, top to bottom;
            rows with other labels are left out (of the matching, too).
            ``None``: as the metrics, and only labels
            with events in the file are shown
        file: the file to show; may be ``None`` if the inputs hold one file
        start: start of the time window in seconds or as timedelta, default 0
        end: end of the time window in seconds or as timedelta,
            default the file's duration,
            else its latest event end or offset collar end,
            but at most ``start`` + 60 s
        onset_tolerance: onset tolerance in seconds or as timedelta;
            ``None``: onsets are not evaluated
        offset_tolerance: offset tolerance in seconds or as timedelta;
            ``None`` and ``duration_tolerance=None``: offsets are not evaluated
        duration_tolerance: offset tolerance as a fraction
            of the truth event's duration; the larger of the two applies
        matching: ``"optimal"`` or ``"greedy"``
        files_duration: duration per file, resolves ``end=NaT``
        compat: ``None`` (exact integer nanoseconds)
            or ``"sed_eval"`` (sed_eval 0.2.1's float64 time conditions,
            see :func:`audeval.event_statistics`)
        collars: shade the tolerance collars
        colors: colours per outcome replacing those of :data:`OUTCOME_COLORS`
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
        ...     ["a", "a", "b"],
        ...     index=audformat.segmented_index(["f1"] * 3, [0.0, 2.0, 4.0], [1.0, 3.0, 5.0]),
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "b", "b"],
        ...     index=audformat.segmented_index(["f1"] * 3, [0.1, 2.0, 6.0], [1.1, 3.0, 7.0]),
        ... )
        >>> ax = audeval.plot.event_timeline(
        ...     truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2
        ... )
        >>> print(ax.get_title())
        f1
        F = 0.333 (P = 0.333, R = 0.333), ER = 1.000; TP 1, S 1, D 1, I 1
        >>> sorted(p.get_gid() for p in ax.patches if p.get_gid().startswith("truth"))
        ['truth:deletion', 'truth:substitution', 'truth:tp']

    """


def _confusion(truth, prediction, labels, options):
    """:func:`event_confusion_matrix` (the plot) of a checked options object."""
    pyplot()
    # the public matrix, labelled (its gate: Series, or a table checked once)
    options = dataclasses.replace(options, as_frame=True)
    frame = audeval.event_confusion_matrix.with_options(options, truth, prediction, labels)
    matrix = frame.to_numpy()
    normalize, colorbar = options.normalize, options.colorbar
    n = len(matrix)
    names = [str(label) for label in frame.index[: n - 1]] + ["no event"]

    ax = new_axes(options.ax, 1.6 + 0.55 * n + (1.0 if colorbar else 0.0), 1.2 + 0.5 * n)
    shown = np.ma.masked_array(matrix, mask=np.zeros(matrix.shape, dtype=bool))
    shown.mask[n - 1, n - 1] = True
    import matplotlib

    colormap = matplotlib.colormaps.get_cmap(options.cmap).with_extremes(bad="white")
    image = ax.imshow(shown, cmap=colormap, interpolation="nearest", vmin=0, gid="confusion-matrix")
    _annotate(ax, matrix, normalize)
    slanted = max(len(name) for name in names) > 4
    ax.set_xticks(
        range(n), names, rotation=45 if slanted else 0, ha="right" if slanted else "center"
    )
    ax.set_yticks(range(n), names)
    ax.set_xlabel("prediction")
    ax.set_ylabel("truth")
    ax.set_title("event confusion matrix" + (" (row fractions)" if normalize else ""), fontsize=10)
    if colorbar:
        bar = ax.figure.colorbar(image, ax=ax, shrink=0.8)
        if not normalize:
            from matplotlib.ticker import MaxNLocator

            bar.locator = MaxNLocator(integer=True)
            bar.update_ticks()
    return ax


@EVENT.statistics(_confusion)
def event_confusion_matrix(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    normalize: bool = False,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    colorbar: bool = True,
    cmap: str | object = "Blues",
    ax=None,
):
    r"""Heat map of :func:`audeval.event_confusion_matrix`.

    Rows are truth labels, columns predicted labels,
    both followed by *no event*:
    the diagonal counts matches,
    off-diagonal cells substitutions,
    the last column misses (deletions)
    and the last row false alarms (insertions).
    Every cell is annotated with its value
    (a count, or a row fraction with ``normalize=True``);
    the always-empty *no event* / *no event* cell is left blank.
    The matrix is the one :func:`audeval.event_confusion_matrix`
    returns with the same arguments,
    so ``truth`` may also be a table of :func:`audeval.event_statistics`
    with ``confusion=True`` (and ``prediction=None``).

    The image has the ``gid`` ``"confusion-matrix"``,
    the annotations ``"confusion-value"``.

    Args:
        truth: truth events (audformat segmented index),
            or a table from :func:`audeval.event_statistics` with ``confusion=True``
        prediction: predicted events (audformat segmented index),
            ``None`` when ``truth`` is a statistics table
        labels: labels to evaluate, in the order of the rows;
            rows with other labels are left out
        onset_tolerance: onset tolerance in seconds or as timedelta
        offset_tolerance: offset tolerance in seconds or as timedelta
        duration_tolerance: offset tolerance as a fraction
            of the truth event's duration
        normalize: divide each row by its sum
        matching: ``"optimal"`` or ``"greedy"``
        files_duration: duration per file, resolves ``end=NaT``
        compat: ``None`` (exact integer nanoseconds)
            or ``"sed_eval"`` (sed_eval 0.2.1's float64 time conditions,
            see :func:`audeval.event_statistics`)
        colorbar: add a colour bar
        cmap: matplotlib colour map or its name
        ax: axes to draw on; ``None``: a new figure

    Returns:
        the axes

    Raises:
        ImportError: if matplotlib is not installed
        ValueError, TypeError: on invalid input, as the metric

    Examples:
        >>> import audformat
        >>> import audeval.plot
        >>> truth = pd.Series(
        ...     ["a", "a", "b"],
        ...     index=audformat.segmented_index(["f1"] * 3, [0.0, 2.0, 4.0], [1.0, 3.0, 5.0]),
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "b", "b"],
        ...     index=audformat.segmented_index(["f1"] * 3, [0.1, 2.0, 6.0], [1.1, 3.0, 7.0]),
        ... )
        >>> ax = audeval.plot.event_confusion_matrix(
        ...     truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2
        ... )
        >>> ax.images[0].get_array().filled(0).tolist()
        [[1, 1, 0], [0, 0, 1], [0, 1, 0]]

    """


def _annotate(ax, matrix: np.ndarray, normalize: bool) -> None:
    """The value of every cell but the empty *no event* / *no event* one."""
    n = len(matrix)
    peak = float(matrix.max()) if matrix.size else 0.0
    for row in range(n):
        for column in range(n):
            if row == n - 1 and column == n - 1:
                continue
            value = matrix[row, column]
            text = f"{value:.2f}" if normalize else f"{int(value)}"
            dark = peak > 0 and value > peak / 2
            ax.text(
                column,
                row,
                text,
                ha="center",
                va="center",
                color="white" if dark else "black",
                fontsize=9,
                gid="confusion-value",
            )


__all__ = ["event_confusion_matrix", "event_timeline"]
