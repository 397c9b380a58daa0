"""Pictures of what the metrics counted (optional, needs matplotlib).

Install the extra with ``pip install "audeval[plot]"``.
matplotlib is imported only when a function is called,
so ``import audeval.plot`` works without it.

* :func:`event_timeline`: events of one file coloured by match outcome;
* :func:`event_confusion_matrix`: heat map of :func:`audeval.event_confusion_matrix`;
* :func:`segment_timeline`: the segment grid with TP, FN and FP per label;
* :func:`structure_timeline`: two partitions and their matched boundaries;
* :func:`diarization_timeline`: speakers after the label mapping.

Every function draws the outcome of the same computation
as the metric with the same options
(for events: the same validation, matcher and tolerances),
so the picture and the number cannot disagree.
Every function takes ``ax=None``
(``None``: a new figure sized to the content)
and returns the :class:`matplotlib.axes.Axes` it drew on.

Drawn artists carry a ``gid`` naming what they show
(e.g. ``"truth:tp"`` or ``"prediction:insertion"``),
so a figure can be inspected in tests or post-processed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._events import (
    COLUMNS,
    MATCHINGS,
    Tolerance,
    match_events,
    overall,
    statistics_of_match,
    tolerances,
)
from audeval._intervals import group_keys, intersect, merge
from audeval._tables import per_label
from audeval._options import Default
from audeval._validation import NAT, NS_PER_SECOND, check_inputs, check_option, file_extent, to_ns


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


def _pyplot():
    """matplotlib.pyplot, or an ImportError saying how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(
            "audeval.plot needs matplotlib, which is not installed. "
            'Install it with: pip install "audeval[plot]"'
        ) from error
    return plt


def _new_axes(ax, width: float, height: float):
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(width, height), layout="constrained")
    return ax


def _colors(colors: Mapping[str, object] | None) -> dict[str, object]:
    out = dict(OUTCOME_COLORS)
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


def _file_code(files: pd.Index, file: object | None) -> int:
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


def _window(
    start: float | pd.Timedelta | None,
    end: float | pd.Timedelta | None,
    file_end: int,
) -> tuple[int, int]:
    """The time window in ns: ``[start or 0, end or file_end]``."""
    lo = to_ns(start, "start")
    hi = to_ns(end, "end")
    lo = 0 if lo is None else lo
    if hi is None:
        hi = file_end if file_end > lo else lo + NS_PER_SECOND
    if hi <= lo:
        raise ValueError(f"end must be after start; got start={start!r}, end={end!r}.")
    return lo, hi


def _levels(start: np.ndarray, end: np.ndarray) -> np.ndarray:
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


def _seconds(ns) -> np.ndarray:
    return np.asarray(ns, dtype=np.float64) / NS_PER_SECOND


def _format(value: float) -> str:
    return "nan" if np.isnan(value) else ("inf" if np.isinf(value) else f"{value:.3f}")


class _Lane:
    """A horizontal lane: name, top (data units, y grows downwards), height."""

    def __init__(self, name: str, top: float, height: float):
        self.name, self.top, self.height = name, top, height


class _Block:
    """The lanes of one label (or speaker), drawn together."""

    def __init__(self, name: str, lanes: list[_Lane]):
        self.name, self.lanes = name, lanes

    @property
    def top(self) -> float:
        return self.lanes[0].top

    @property
    def height(self) -> float:
        return self.lanes[-1].top + self.lanes[-1].height - self.lanes[0].top


def _stack(blocks: list[tuple[str, list[tuple[str, float]]]]) -> list[_Block]:
    """Blocks from ``(name, [(lane name, lane height), ...])``, top to bottom."""
    out = []
    y = 0.0
    for name, lanes in blocks:
        placed = []
        for lane_name, height in lanes:
            placed.append(_Lane(lane_name, y, height))
            y += height
        out.append(_Block(name, placed))
        y += BLOCK_GAP
    return out


def _total_height(blocks: list[_Block]) -> float:
    if not blocks:
        return LEVEL_HEIGHT
    last = blocks[-1]
    return max(last.top + last.height, LEVEL_HEIGHT)


def _finish_lanes(ax, blocks: list[_Block], lo: int, hi: int) -> None:
    """Limits, separators and the two-level y labels (block, lane)."""
    for block in blocks[1:]:
        ax.axhline(
            block.top - BLOCK_GAP / 2, color="#DDDDDD", linewidth=0.8, zorder=0, gid="separator"
        )
    for block in blocks:
        for lane in block.lanes[1:]:
            ax.axhline(lane.top, color="#EEEEEE", linewidth=0.6, zorder=0, gid="separator")
    ax.set_xlim(lo / NS_PER_SECOND, hi / NS_PER_SECOND)
    ax.set_ylim(_total_height(blocks) + BLOCK_GAP / 2, -BLOCK_GAP / 2)
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


def _file_end_line(ax, ns: int, gid: str = "file-end") -> None:
    ax.axvline(ns / NS_PER_SECOND, color="#555555", linestyle=":", linewidth=1.0, gid=gid)


def _legend(ax, entries: list[tuple[str, object]]) -> None:
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


def _rectangle(ax, start: int, end: int, top: float, height: float, color, gid: str, **kwargs):
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
    ax.add_patch(patch)
    return patch


def _difference(n_groups: int, a, b):
    """Parts of the merged interval set ``a`` not covered by ``b``, per group.

    ``a`` and ``b`` are ``(group, start, end)`` outputs of
    :func:`audeval._intervals.merge`: coverage is 0 or 1 on each side,
    so ``a - b == 1`` exactly where ``a`` is and ``b`` is not.
    """
    group = np.concatenate([a[0], a[0], b[0], b[0]])
    if len(group) == 0:
        return a
    position = np.concatenate([a[1], a[2], b[1], b[2]])
    delta = np.concatenate(
        [np.ones(len(a[0])), -np.ones(len(a[0])), -np.ones(len(b[0])), np.ones(len(b[0]))]
    ).astype(np.int64)
    (key,) = group_keys(n_groups, (group, position))
    order = np.argsort(key, kind="stable")
    group, position, state = group[order], position[order], np.cumsum(delta[order])
    run = np.flatnonzero(state[:-1] == 1)  # runs with a state of 1 never cross groups
    return merge(n_groups, group[run], position[run], position[run + 1])


def _in_window(start: np.ndarray, end: np.ndarray, lo: int, hi: int) -> np.ndarray:
    return (start <= hi) & (end >= lo)


# -------------------------------------------------------------------------
# Event timeline
# -------------------------------------------------------------------------


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
    collars: bool = True,
    colors: Mapping[str, object] | None = None,
    ax=None,
):
    r"""Timeline of truth and predicted events of one file, coloured by outcome.

    Events are matched exactly as by :func:`audeval.event_statistics`
    with the same options
    (validation, tolerances, ``matching``, substitutions),
    over all files of the inputs;
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
            default the file's duration, else its latest event end
        onset_tolerance: onset tolerance in seconds or as timedelta;
            ``None``: onsets are not evaluated
        offset_tolerance: offset tolerance in seconds or as timedelta;
            ``None`` and ``duration_tolerance=None``: offsets are not evaluated
        duration_tolerance: offset tolerance as a fraction
            of the truth event's duration; the larger of the two applies
        matching: ``"optimal"`` or ``"greedy"``
        files_duration: duration per file, resolves ``end=NaT``
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
    _pyplot()  # fail early without matplotlib
    colors = _colors(colors)
    check_option(matching, "matching", MATCHINGS)
    tol = tolerances(onset_tolerance, offset_tolerance, duration_tolerance)
    inputs = check_inputs(
        truth,
        prediction,
        labels=labels,
        files_duration=files_duration,
        require_end=True,
    )
    f = _file_code(inputs.files, file)
    file_name = inputs.files[f]
    em = match_events(inputs, tol, matching)
    n_labels = inputs.n_labels
    stats = statistics_of_match(em)
    counts = stats.iloc[f * n_labels : (f + 1) * n_labels][COLUMNS].sum()
    scores = overall(counts, 0.0)

    t, p = inputs.truth, inputs.prediction
    truth_outcome = np.full(len(t), "deletion", dtype=object)
    truth_outcome[em.substitution >= 0] = "substitution"
    truth_outcome[em.match >= 0] = "tp"
    pred_outcome = np.full(len(p), "insertion", dtype=object)
    pred_outcome[em.prediction_substituting()] = "substitution"
    pred_outcome[em.prediction_matched()] = "tp"

    duration = int(inputs.durations[f])
    file_end = duration if duration != NAT else int(file_extent(inputs)[f])
    lo, hi = _window(start, end, file_end)

    in_file_t = t.file == f
    in_file_p = p.file == f
    shown_t = in_file_t & (t.start <= hi) & (t.end >= lo)
    shown_p = in_file_p & (p.start <= hi) & (p.end >= lo)

    if labels is None:
        used = np.zeros(n_labels, dtype=bool)
        used[t.label[in_file_t]] = True
        used[p.label[in_file_p]] = True
        rows = np.flatnonzero(used)
    else:
        rows = np.arange(n_labels)

    # Layout: per label a truth lane and a prediction lane, each with stacked levels
    y_truth = np.zeros(len(t))  # top of the level of every shown event
    y_pred = np.zeros(len(p))
    blocks = []
    y = 0.0
    for code in rows:
        lanes = []
        for name, side, shown, y_of in (
            ("truth", t, shown_t, y_truth),
            ("prediction", p, shown_p, y_pred),
        ):
            index = np.flatnonzero(shown & (side.label == code))
            level = _levels(side.start[index], side.end[index])
            n_levels = int(level.max()) + 1 if len(level) else 1
            y_of[index] = y + level * LEVEL_HEIGHT
            lanes.append(_Lane(name, y, n_levels * LEVEL_HEIGHT))
            y += n_levels * LEVEL_HEIGHT
        blocks.append(_Block(str(inputs.labels[code]), lanes))
        y += BLOCK_GAP
    total_height = _total_height(blocks)

    ax = _new_axes(ax, 10.0, 1.4 + 0.32 * total_height)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    # Collars behind the events, over the whole block of the label
    block_of = {code: (block.top, block.height) for code, block in zip(rows, blocks)}
    drawn_collar = False
    if collars:
        for i in np.flatnonzero(shown_t):
            top, height = block_of[t.label[i]]
            bands = []
            if tol.onset:
                bands.append(("onset", t.start[i] - tol.onset, 2 * tol.onset))
            if tol.offset_evaluated:
                allowance = int(tol.offset_allowance(t.start[i : i + 1], t.end[i : i + 1])[0])
                if allowance:
                    bands.append(("offset", t.end[i] - allowance, 2 * allowance))
            for kind, x0, width in bands:
                ax.add_patch(
                    Rectangle(
                        (x0 / NS_PER_SECOND, top),
                        width / NS_PER_SECOND,
                        height,
                        facecolor=COLLAR_COLOR,
                        edgecolor="none",
                        alpha=0.45,
                        zorder=1,
                        gid=f"collar:{kind}",
                    )
                )
                drawn_collar = True

    # Events
    for name, side, shown, y_of, outcome in (
        ("truth", t, shown_t, y_truth, truth_outcome),
        ("prediction", p, shown_p, y_pred, pred_outcome),
    ):
        for i in np.flatnonzero(shown):
            _rectangle(
                ax,
                side.start[i],
                side.end[i],
                y_of[i] + BAR_PAD,
                LEVEL_HEIGHT - 2 * BAR_PAD,
                colors[outcome[i]],
                f"{name}:{outcome[i]}",
            )

    # Substitution links
    for i in np.flatnonzero(shown_t & (em.substitution >= 0)):
        j = em.substitution[i]
        if not shown_p[j]:
            continue
        ax.add_line(
            Line2D(
                _seconds([(t.start[i] + t.end[i]) / 2, (p.start[j] + p.end[j]) / 2]),
                [y_truth[i] + LEVEL_HEIGHT / 2, y_pred[j] + LEVEL_HEIGHT / 2],
                color=colors["substitution"],
                linestyle="--",
                linewidth=1.0,
                zorder=4,
                gid="substitution-link",
            )
        )

    if duration != NAT and lo <= duration <= hi:
        _file_end_line(ax, duration)
    _finish_lanes(ax, blocks, lo, hi)

    s, d, i_ = (int(scores[k]) for k in ("substitutions", "deletions", "insertions"))
    ax.set_title(
        f"{file_name}\n"
        f"F = {_format(scores['fscore'])} "
        f"(P = {_format(scores['precision'])}, R = {_format(scores['recall'])}), "
        f"ER = {_format(scores['error_rate'])}; "
        f"TP {int(scores['tp'])}, S {s}, D {d}, I {i_}",
        fontsize=10,
    )
    entries = [(OUTCOME_NAMES[k], colors[k]) for k in OUTCOME_COLORS]
    if drawn_collar:
        entries.append(("tolerance collar", None))
    _legend(ax, entries)
    return ax


# -------------------------------------------------------------------------
# Segment-based view
# -------------------------------------------------------------------------


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
    from audeval import _segments

    _pyplot()  # fail early without matplotlib
    colors = _colors(colors)
    inputs = check_inputs(
        truth,
        prediction,
        labels=labels,
        files_duration=files_duration,
        require_end=True,
        allow_filewise=True,
    )
    f = _file_code(inputs.files, file)
    file_name = inputs.files[f]

    # the activity ranges, as segment_statistics computes them
    r_ns, r_seconds = _segments._check_resolution(time_resolution, compat)
    n_units = _segments._n_units(file_extent(inputs), r_ns, r_seconds, compat)

    def units(start, end):
        return _segments._to_units(start, end, r_ns, r_seconds, compat)

    n_labels = inputs.n_labels
    n_groups = inputs.n_files * n_labels
    truth_active, prediction_active = (
        merge(n_groups, *_segments._side_units(inputs, side, n_units, units)[:3])
        for side in (inputs.truth, inputs.prediction)
    )
    both = intersect(n_groups, truth_active, prediction_active)
    runs = {
        "truth:tp": both,
        "truth:fn": _difference(n_groups, truth_active, both),
        "prediction:tp": both,
        "prediction:fp": _difference(n_groups, prediction_active, both),
    }

    def to_ns(unit):
        unit = np.asarray(unit, dtype=np.int64)
        if r_ns is None:
            return unit
        if compat == "sed_eval":
            return np.round(unit * r_seconds * NS_PER_SECOND).astype(np.int64)
        return unit * r_ns

    evaluated_end = int(to_ns(n_units[f]))
    lo, hi = _window(start, end, evaluated_end)

    # the file's scores, from its rows of the statistics table
    stats = _segments.segment_statistics(
        truth,
        prediction,
        labels,
        time_resolution=time_resolution,
        files_duration=files_duration,
        compat=compat,
    )
    rows_of_file = stats.iloc[f * n_labels : (f + 1) * n_labels]
    f_score = _segments.segment_fscore(rows_of_file, None)
    error_rate = _segments.segment_error_rate(rows_of_file, None)
    sums = rows_of_file.sum()

    t, p = inputs.truth, inputs.prediction
    in_file_t = t.file == f
    in_file_p = p.file == f
    if labels is None:
        used = np.zeros(n_labels, dtype=bool)
        used[t.label[in_file_t]] = True
        used[p.label[in_file_p]] = True
        rows = np.flatnonzero(used)
    else:
        rows = np.arange(n_labels)
    blocks = _stack(
        [
            (str(inputs.labels[code]), [("truth", LEVEL_HEIGHT), ("prediction", LEVEL_HEIGHT)])
            for code in rows
        ]
    )
    lane_of = {}
    for code, block in zip(rows, blocks):
        lane_of[("truth", code)] = block.lanes[0]
        lane_of[("prediction", code)] = block.lanes[1]

    ax = _new_axes(ax, 10.0, 1.4 + 0.32 * _total_height(blocks))
    color_of = {
        "tp": colors["tp"],
        "fn": colors["deletion"],
        "fp": colors["insertion"],
    }
    for gid, (group, a, b) in runs.items():
        side, outcome = gid.split(":")
        in_file = (group // max(n_labels, 1)) == f
        a_ns, b_ns = to_ns(a[in_file]), to_ns(b[in_file])
        label = group[in_file] % max(n_labels, 1)
        for i in np.flatnonzero(_in_window(a_ns, b_ns, lo, hi)):
            lane = lane_of[(side, label[i])]
            _rectangle(
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
    if events:
        for name, side, in_file in (("truth", t, in_file_t), ("prediction", p, in_file_p)):
            for i in np.flatnonzero(in_file & _in_window(side.start, side.end, lo, hi)):
                lane = lane_of[(name, side.label[i])]
                _rectangle(
                    ax,
                    side.start[i],
                    side.end[i],
                    lane.top + lane.height / 2 - 0.06,
                    0.12,
                    "black",
                    f"{name}:event",
                    zorder=4,
                )

    # segment grid
    if r_ns is not None:
        to_seconds = r_seconds if compat == "sed_eval" else r_ns / NS_PER_SECOND
        first = lo // r_ns if compat is None else int(np.floor(lo / NS_PER_SECOND / r_seconds))
        last = -(-hi // r_ns) if compat is None else int(np.ceil(hi / NS_PER_SECOND / r_seconds))
        if last - first <= 400:
            ax.vlines(
                np.arange(first, last + 1) * to_seconds,
                -BLOCK_GAP / 2,
                _total_height(blocks) + BLOCK_GAP / 2,
                color="#CCCCCC",
                linewidth=0.5,
                zorder=2,
                gid="segment-grid",
            )
    if lo <= evaluated_end <= hi:
        _file_end_line(ax, evaluated_end, gid="evaluated-end")
    _finish_lanes(ax, blocks, lo, hi)

    unit = "s" if r_ns is None else "segments"
    counts = {k: sums[k] for k in ("tp", "fp", "fn", "substitutions")}
    if r_ns is None:
        counts = {k: pd.Timedelta(v).total_seconds() for k, v in counts.items()}
        shown = {k: f"{v:g}" for k, v in counts.items()}
    else:
        shown = {k: f"{int(v)}" for k, v in counts.items()}
    s_ = counts["substitutions"]
    d_ = counts["fn"] - s_
    i_ = counts["fp"] - s_
    resolution = "exact time" if r_ns is None else f"{r_seconds:g} s segments"
    ax.set_title(
        f"{file_name} ({resolution})\n"
        f"F = {_format(f_score)}, ER = {_format(error_rate)}; "
        f"TP {shown['tp']}, FP {shown['fp']}, FN {shown['fn']}, "
        f"S {shown['substitutions']}, D {d_:g}, I {i_:g} {unit}",
        fontsize=10,
    )
    entries = [
        ("true positive", color_of["tp"]),
        ("false negative (truth only)", color_of["fn"]),
        ("false positive (prediction only)", color_of["fp"]),
    ]
    if events:
        entries.append(("event", "black"))
    _legend(ax, entries)
    return ax


# -------------------------------------------------------------------------
# Structure view
# -------------------------------------------------------------------------


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
    from audeval import _structure
    from audeval import _structure_core as core
    from audeval._matching import maximum_matching

    _pyplot()  # fail early without matplotlib
    colors = _colors(colors)
    trim = _structure._check_bool(trim, "trim")
    w = _structure._check_window(window, False)
    inputs = check_inputs(truth, prediction, files_duration=files_duration)
    prep = core.prepare(inputs, truth, prediction, False)
    f = _file_code(inputs.files, file)
    file_name = inputs.files[f]
    track_end = int(prep.extent[f])
    lo, hi = _window(start, end, track_end)

    # boundaries and their matching, as boundary_detection computes them
    t_b, p_b = core.boundaries(prep, trim)
    t_index, p_index = core._window_pairs(t_b, p_b, w, False, prep.n_files)
    match = maximum_matching(len(t_b.file), len(p_b.file), t_index, p_index)
    p_matched = np.zeros(len(p_b.file), dtype=bool)
    p_matched[match[match >= 0]] = True

    report = _structure.structure_report(
        truth,
        prediction,
        windows=(window,),
        frame_size=frame_size,
        trim=trim,
        files_duration=files_duration,
    )
    row = report.iloc[f]
    precision, recall, f_measure = (
        row[[c for c in report.columns if c.startswith(prefix)][0]]
        for prefix in ("precision_at_", "recall_at_", "f_measure_at_")
    )

    blocks = _stack([("", [("truth", 1.6), ("", 0.8), ("prediction", 1.6)])])
    truth_lane, _, prediction_lane = blocks[0].lanes
    ax = _new_axes(ax, 10.0, 2.6)
    import matplotlib
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    palette = matplotlib.colormaps["Set3"]  # light: boundaries stay visible
    span = hi - lo
    for name, pieces, lane in (
        ("truth", prep.truth, truth_lane),
        ("prediction", prep.prediction, prediction_lane),
    ):
        for i in np.flatnonzero((pieces.file == f) & _in_window(pieces.start, pieces.end, lo, hi)):
            cluster = int(pieces.cluster[i])
            gap = cluster >= inputs.n_labels
            patch = _rectangle(
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
                    str(inputs.labels[cluster]),
                    ha="center",
                    va="center",
                    fontsize=8,
                    clip_on=True,
                    zorder=3,
                    gid="segment-label",
                )

    # hit windows, boundaries and pairs
    top = truth_lane.top
    bottom = prediction_lane.top + prediction_lane.height
    t_in = np.flatnonzero((t_b.file == f) & (t_b.time >= lo) & (t_b.time <= hi))
    p_in = np.flatnonzero((p_b.file == f) & (p_b.time >= lo) & (p_b.time <= hi))
    for i in t_in:
        ax.add_patch(
            Rectangle(
                ((t_b.time[i] - w) / NS_PER_SECOND, top),
                2 * w / NS_PER_SECOND,
                bottom - top,
                facecolor=COLLAR_COLOR,
                edgecolor="none",
                alpha=0.45,
                zorder=1,
                gid="collar:window",
            )
        )
    for name, bounds, lane, hit, index in (
        ("truth", t_b, truth_lane, match >= 0, t_in),
        ("prediction", p_b, prediction_lane, p_matched, p_in),
    ):
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
    for i in t_in[match[t_in] >= 0]:
        j = match[i]
        ax.add_line(
            Line2D(
                [t_b.time[i] / NS_PER_SECOND, p_b.time[j] / NS_PER_SECOND],
                [truth_lane.top + truth_lane.height, prediction_lane.top],
                color=colors["tp"],
                linewidth=1.0,
                linestyle="--",
                zorder=4,
                gid="boundary-link",
            )
        )
    _finish_lanes(ax, blocks, lo, hi)
    ax.tick_params(axis="y", which="minor", labelsize=9, labelcolor="black")
    ax.tick_params(axis="y", which="major", pad=0)
    ax.set_title(
        f"{file_name}\n"
        f"boundaries \u00b1{w / NS_PER_SECOND:g} s: P = {_format(precision)}, "
        f"R = {_format(recall)}, F = {_format(f_measure)}; "
        f"pairwise F = {_format(row['pairwise_f_measure'])}, "
        f"NCE F = {_format(row['nce_f_measure'])}, V = {_format(row['v_measure'])}",
        fontsize=10,
    )
    _legend(
        ax,
        [
            ("boundary hit", colors["tp"]),
            ("missed boundary", colors["deletion"]),
            ("false boundary", colors["insertion"]),
            ("hit window", None),
        ],
    )
    return ax


# -------------------------------------------------------------------------
# Diarization view
# -------------------------------------------------------------------------


def diarization_timeline(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    file: object | None = None,
    start: float | pd.Timedelta | None = None,
    end: float | pd.Timedelta | None = None,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    colors: Mapping[str, object] | None = None,
    ax=None,
):
    r"""Speakers of one file after the label mapping of the diarization error rate.

    Speech of every label is merged, cropped to the scored region
    and mapped exactly as by :func:`audeval.diarization_report`
    with the same options
    (``mapping``, ``individual_file_mapping``, ``collar``, ``skip_overlap``,
    ``files_duration``).
    One block per truth speaker, in label order:
    the truth lane above the lane of the predicted speaker mapped to it
    (its name is in the lane label);
    predicted speakers without a partner follow in a block ``unmapped``.
    Time where a truth speaker and its mapped speaker are both active
    is *correct*;
    the rest of a truth lane is missed or confused,
    the rest of a prediction lane false alarm or confused
    (per instant the split between the two depends on how many speakers
    are active on each side, so only the title gives it).
    Hatched grey bands are not scored
    (collars, overlap with ``skip_overlap``, outside the scored region).
    So the summed correct bars of a file are its ``correct`` time,
    all truth bars its ``total``,
    and all prediction bars ``correct + confusion + false_alarm``
    of the file's row of :func:`audeval.diarization_report`,
    whose values the title shows.

    Bars have the ``gid`` ``"truth:correct"``, ``"truth:error"``,
    ``"prediction:correct"`` or ``"prediction:error"``;
    unscored bands ``"unscored"``.

    Args:
        truth: truth speakers (audformat segmented index)
        prediction: predicted speakers (audformat segmented index);
            labels need not be related to the truth labels
        file: the file to show; may be ``None`` if the inputs hold one file
        start: start of the time window in seconds or as timedelta, default 0
        end: end of the time window, default the end of the scored region
        mapping: ``"optimal"``, ``"greedy"`` or ``"identity"``
            (see :func:`audeval.diarization_report`)
        individual_file_mapping: a mapping per file, else one over all files
        collar: total width of the unscored collar around each truth boundary
            (half before, half after; pyannote.metrics' convention)
        skip_overlap: do not score regions with two or more truth speakers
        files_duration: duration per file, the scored region ``[0, duration]``;
            else the union of the extents (with a warning, as the metrics)
        colors: colours per outcome replacing those of :data:`OUTCOME_COLORS`
            (``"tp"`` correct, ``"deletion"`` truth errors,
            ``"insertion"`` prediction errors)
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
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["s1", "s2"], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> ax = audeval.plot.diarization_timeline(truth, prediction, files_duration={"f1": 4})
        >>> [t.get_text() for t in ax.get_yticklabels(minor=True)]
        ['truth', 'prediction: s1', 'truth', 'prediction: s2']
        >>> sorted((p.get_gid(), p.get_x(), p.get_width()) for p in ax.patches)
        [('prediction:correct', 0.0, 2.0), ('prediction:correct', 2.5, 1.5),
         ('prediction:error', 2.0, 0.5), ('truth:correct', 0.0, 2.0),
         ('truth:correct', 2.5, 1.5), ('truth:error', 2.0, 0.5)]

    """
    import warnings

    from audeval import _diarization as dia

    _pyplot()  # fail early without matplotlib
    colors = _colors(colors)
    dia._check_mapping(mapping, individual_file_mapping, allow_identity=True)
    collar_ns = dia._collar_ns(collar)
    skip_overlap = dia._check_skip_overlap(skip_overlap)
    inputs = check_inputs(truth, prediction, files_duration=files_duration)
    f = _file_code(inputs.files, file)
    file_name = inputs.files[f]
    n, n_labels = inputs.n_files, inputs.n_labels

    # statistics and mapping, as diarization_report computes them
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = dia._diarization_arrays(inputs, collar_ns, skip_overlap)
    for warning in caught:  # the metric's warnings, pointing at the caller
        warnings.warn(warning.message, warning.category, stacklevel=2)
    chosen = dia._mapped_pairs(table, mapping, individual_file_mapping)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        truth_merged = dia._merge_labels(inputs.truth, n, n_labels)
        region = dia._scored_region(inputs, truth_merged, collar_ns, skip_overlap)
        truth_cropped = dia._crop(n, n_labels, truth_merged, region)
        prediction_cropped = dia._crop(
            n, n_labels, dia._merge_labels(inputs.prediction, n, n_labels), region
        )
        report = dia.diarization_report(
            truth,
            prediction,
            mapping=mapping,
            individual_file_mapping=individual_file_mapping,
            collar=collar,
            skip_overlap=skip_overlap,
            files_duration=files_duration,
        )
    row = report.loc[file_name]

    # speakers of the file and their partners
    t_file, t_label, t_start, t_end = truth_cropped
    p_file, p_label, p_start, p_end = prediction_cropped
    t_in, p_in = t_file == f, p_file == f
    truth_speakers = [int(x) for x in np.unique(t_label[t_in])]
    predicted_speakers = [int(x) for x in np.unique(p_label[p_in])]
    if mapping == "identity":
        partner = {t: t for t in truth_speakers if t in predicted_speakers}
    else:
        c_file, c_truth, c_pred, _ = table.cooccurrence
        rows = chosen if not individual_file_mapping else chosen & (c_file == f)
        partner = {int(a): int(b) for a, b in zip(c_truth[rows], c_pred[rows])}
        partner = {t: p for t, p in partner.items() if t in truth_speakers}
    mapped = set(partner.values())
    unmapped = [p for p in predicted_speakers if p not in mapped]

    # rows: group t for truth speaker t and its partner, n_labels + p for unmapped p
    n_groups = 2 * max(n_labels, 1)
    row_of_prediction = {p: t for t, p in partner.items()}
    row_of_prediction.update({p: n_labels + p for p in unmapped})
    truth_set = merge(n_groups, t_label[t_in], t_start[t_in], t_end[t_in])
    p_group = np.array([row_of_prediction[int(p)] for p in p_label[p_in]], dtype=np.int64)
    prediction_set = merge(n_groups, p_group, p_start[p_in], p_end[p_in])
    correct = intersect(n_groups, truth_set, prediction_set)
    bars = {
        "truth:correct": correct,
        "truth:error": _difference(n_groups, truth_set, correct),
        "prediction:correct": correct,
        "prediction:error": _difference(n_groups, prediction_set, correct),
    }

    name = inputs.labels
    layout = [
        (
            str(name[t]),
            [
                ("truth", LEVEL_HEIGHT),
                (
                    f"prediction: {name[partner[t]]}" if t in partner else "prediction: none",
                    LEVEL_HEIGHT,
                ),
            ],
        )
        for t in truth_speakers
    ]
    if unmapped:
        layout.append(("unmapped", [(f"prediction: {name[p]}", LEVEL_HEIGHT) for p in unmapped]))
    blocks = _stack(layout)
    lane_of = {}
    for t, block in zip(truth_speakers, blocks):
        lane_of[("truth", t)] = block.lanes[0]
        lane_of[("prediction", t)] = block.lanes[1]
    if unmapped:
        for p, lane in zip(unmapped, blocks[-1].lanes):
            lane_of[("prediction", n_labels + p)] = lane

    r_file, r_start, r_end = region.intervals
    in_region = r_file == f
    region_end = int(r_end[in_region].max()) if in_region.any() else 0
    duration = int(inputs.durations[f])
    lo, hi = _window(start, end, duration if duration != NAT else region_end)

    ax = _new_axes(ax, 10.0, 1.4 + 0.32 * _total_height(blocks))
    color_of = {
        "truth:correct": colors["tp"],
        "prediction:correct": colors["tp"],
        "truth:error": colors["deletion"],
        "prediction:error": colors["insertion"],
    }
    for gid, (group, a, b) in bars.items():
        side = gid.split(":")[0]
        for i in np.flatnonzero(_in_window(a, b, lo, hi)):
            lane = lane_of[(side, int(group[i]))]
            _rectangle(
                ax,
                a[i],
                b[i],
                lane.top + BAR_PAD,
                lane.height - 2 * BAR_PAD,
                color_of[gid],
                gid,
            )
    # unscored: the window minus the scored region
    window_set = (np.zeros(1, np.int64), np.array([lo]), np.array([hi]))
    scored = (np.zeros(int(in_region.sum()), np.int64), r_start[in_region], r_end[in_region])
    unscored = _difference(1, window_set, scored)
    for a, b in zip(unscored[1], unscored[2]):
        ax.axvspan(a / NS_PER_SECOND, b / NS_PER_SECOND, zorder=0.5, gid="unscored", **UNSCORED)
    if duration != NAT and lo <= duration <= hi:
        _file_end_line(ax, duration)
    _finish_lanes(ax, blocks, lo, hi)

    how = {"optimal": "optimal", "greedy": "greedy", "identity": "no"}[mapping]
    scope = "" if mapping == "identity" else (
        " per file" if individual_file_mapping else " over all files"
    )
    ax.set_title(
        f"{file_name} ({how} mapping{scope})\n"
        f"DER = {_format(row['diarization_error_rate'])}: "
        f"confusion {row['confusion']:.2f} s, false alarm {row['false_alarm']:.2f} s, "
        f"miss {row['miss']:.2f} s of {row['total']:.2f} s "
        f"(correct {row['correct']:.2f} s)",
        fontsize=10,
    )
    _legend(
        ax,
        [
            ("correct (mapped speakers)", colors["tp"]),
            ("truth: missed or confused", colors["deletion"]),
            ("prediction: false alarm or confused", colors["insertion"]),
        ]
        + ([("not scored", UNSCORED)] if len(unscored[0]) else []),
    )
    return ax


# -------------------------------------------------------------------------
# Event confusion matrix
# -------------------------------------------------------------------------


def event_confusion_matrix(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    normalize: bool = False,
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
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
    import audeval

    _pyplot()
    options = dict(
        onset_tolerance=onset_tolerance,
        offset_tolerance=offset_tolerance,
        duration_tolerance=duration_tolerance,
        matching=matching,
        files_duration=files_duration,
    )
    if prediction is None and isinstance(truth, pd.DataFrame):
        stats = truth
    else:
        stats = audeval.event_statistics(truth, prediction, labels, confusion=True, **options)
        options = {}
    matrix = audeval.event_confusion_matrix(stats, None, labels, normalize=normalize, **options)
    matrix = np.asarray(matrix)
    n = len(matrix)
    names = [str(label) for label in per_label(stats).index][: n - 1] + ["no event"]

    ax = _new_axes(ax, 1.6 + 0.55 * n + (1.0 if colorbar else 0.0), 1.2 + 0.5 * n)
    shown = np.ma.masked_array(matrix, mask=np.zeros(matrix.shape, dtype=bool))
    shown.mask[n - 1, n - 1] = True
    import matplotlib

    colormap = matplotlib.colormaps.get_cmap(cmap).with_extremes(bad="white")
    image = ax.imshow(shown, cmap=colormap, interpolation="nearest", vmin=0, gid="confusion-matrix")
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


__all__ = [
    "OUTCOME_COLORS",
    "diarization_timeline",
    "event_confusion_matrix",
    "event_timeline",
    "segment_timeline",
    "structure_timeline",
]
