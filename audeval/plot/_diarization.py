"""Diarization plot: the speakers of one file after the label mapping.

Drawn from public outcome objects only, computed with the plot's options:
the bars are the rows of :func:`audeval.diarization_speaker_outcomes`,
the hatched bands the complement of :func:`audeval.diarization_scored_region`,
and the title's numbers the file's sums of :func:`audeval.diarization_outcomes`.
"""

from __future__ import annotations

from collections.abc import Mapping
import warnings

import numpy as np
import pandas as pd

import audeval
from audeval._core.intervals import difference
from audeval._core.validation import NAT, NS_PER_SECOND, to_ns
from audeval.plot._common import (
    BAR_PAD,
    LEVEL_HEIGHT,
    UNSCORED,
    file_code,
    file_end_line,
    finish_lanes,
    in_window,
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


COMPONENTS = ("correct", "miss", "false_alarm", "confusion")


def _ns(times: pd.Index) -> np.ndarray:
    """Times of an outcome object's index (timedelta) as int64 ns."""
    return np.asarray(pd.TimedeltaIndex(times).as_unit("ns").asi8, dtype=np.int64)


def _seconds_ns(seconds: pd.Series) -> np.ndarray:
    """Seconds of an outcome object as int64 ns (they are ns / 1e9: exact after rounding)."""
    return np.rint(seconds.to_numpy(dtype=np.float64) * NS_PER_SECOND).astype(np.int64)


def _in_file(frame, file_name: object) -> np.ndarray:
    return np.asarray(frame.get_level_values("file") == file_name, dtype=bool)


def _files(*indexes: pd.Index) -> pd.Index:
    """The files of the outcome objects, in order of appearance."""
    return pd.Index(pd.unique(np.concatenate([i.get_level_values("file").to_numpy(dtype=object) for i in indexes])))


def _components(spans: pd.DataFrame, file_name: object) -> dict[str, int]:
    """The file's report components (int64 ns) summed from :func:`audeval.diarization_outcomes`."""
    rows = spans[_in_file(spans.index, file_name)]
    out = {name: int(_seconds_ns(rows[name]).sum()) for name in COMPONENTS}
    out["total"] = out["correct"] + out["miss"] + out["confusion"]
    return out


def _error_rate(components: dict[str, int]) -> float:
    """DER as :func:`audeval.diarization_error_rate`: 0 / 0 is 0, a positive error of 0 is 1."""
    error = components["confusion"] + components["false_alarm"] + components["miss"]
    total = components["total"]
    if total == 0:
        return 0.0 if error == 0 else 1.0
    return float(np.float64(error) / np.float64(total))


def _layout(speakers: pd.DataFrame):
    """Truth speakers (scored time in the file, label order), their partners,
    and the predicted speakers without a partner among them (the block ``unmapped``)."""
    scored = speakers[(speakers["outcome"] != "unscored").to_numpy()]
    truth_rows = scored[(scored["side"] == "truth").to_numpy()]
    prediction_rows = scored[(scored["side"] == "prediction").to_numpy()]
    truth_speakers = list(pd.unique(truth_rows["speaker"]))
    partner_rows = speakers[(speakers["side"] == "truth").to_numpy()].drop_duplicates("speaker")
    partner = dict(zip(partner_rows["speaker"], partner_rows["partner"]))
    partner = {t: partner[t] for t in truth_speakers if partner.get(t) is not None}
    shown = set(truth_speakers)
    onto = prediction_rows.drop_duplicates("speaker")
    unmapped = [p for p, t in zip(onto["speaker"], onto["partner"]) if t is None or t not in shown]
    return truth_speakers, partner, unmapped


def _lanes(truth_speakers, partner, unmapped):
    """Blocks per truth speaker (truth lane, mapped prediction lane), then ``unmapped``;
    the lane of each (side, speaker)."""
    layout = [
        (
            str(t),
            [
                ("truth", LEVEL_HEIGHT),
                (f"prediction: {partner[t]}" if t in partner else "prediction: none", LEVEL_HEIGHT),
            ],
        )
        for t in truth_speakers
    ]
    if unmapped:
        layout.append(("unmapped", [(f"prediction: {p}", LEVEL_HEIGHT) for p in unmapped]))
    blocks = stack(layout)
    lane_of = {}
    for t, block in zip(truth_speakers, blocks):
        lane_of[("truth", t)] = block.lanes[0]
        if t in partner:
            lane_of[("prediction", partner[t])] = block.lanes[1]
    if unmapped:
        for p, lane in zip(unmapped, blocks[-1].lanes):
            lane_of[("prediction", p)] = lane
    return blocks, lane_of


def _draw_bars(ax, speakers: pd.DataFrame, lane_of: dict, lo: int, hi: int, color_of: dict) -> None:
    """One bar per scored row of :func:`audeval.diarization_speaker_outcomes` in the window."""
    scored = speakers[(speakers["outcome"] != "unscored").to_numpy()]
    start, end = _ns(scored.index.get_level_values("start")), _ns(scored.index.get_level_values("end"))
    sides, names, outcomes = (scored[c].to_numpy() for c in ("side", "speaker", "outcome"))
    for i in np.flatnonzero(in_window(start, end, lo, hi)):
        gid = f"{sides[i]}:{outcomes[i]}"
        lane = lane_of[(sides[i], names[i])]
        rectangle(ax, start[i], end[i], lane.top + BAR_PAD, lane.height - 2 * BAR_PAD, color_of[gid], gid)


def _draw_unscored(ax, region: pd.MultiIndex, file_name: object, lo: int, hi: int) -> bool:
    """Hatched bands: the window minus the scored region of the file."""
    in_file = _in_file(region, file_name)
    r_start = _ns(region.get_level_values("start")[in_file])
    r_end = _ns(region.get_level_values("end")[in_file])
    window_set = (np.zeros(1, np.int64), np.array([lo]), np.array([hi]))
    scored = (np.zeros(len(r_start), np.int64), r_start, r_end)
    unscored = difference(1, window_set, scored)
    for a, b in zip(unscored[1], unscored[2]):
        ax.axvspan(a / NS_PER_SECOND, b / NS_PER_SECOND, zorder=0.5, gid="unscored", **UNSCORED)
    return bool(len(unscored[0]))


def _duration(files_duration, file_name: object) -> int:
    """The file's duration in ns from ``files_duration``, else NaT."""
    if files_duration is None or file_name not in files_duration:
        return NAT
    return to_ns(files_duration[file_name], "files_duration")


def _title(file_name: object, components: dict, mapping: str, individual_file_mapping: bool) -> str:
    how = {"optimal": "optimal", "greedy": "greedy", "identity": "no"}[mapping]
    scope = ""
    if mapping != "identity":
        scope = " per file" if individual_file_mapping else " over all files"
    s = {name: value / NS_PER_SECOND for name, value in components.items()}
    return (
        f"{file_name} ({how} mapping{scope})\n"
        f"DER = {number(_error_rate(components))}: "
        f"confusion {s['confusion']:.2f} s, false alarm {s['false_alarm']:.2f} s, "
        f"miss {s['miss']:.2f} s of {s['total']:.2f} s "
        f"(correct {s['correct']:.2f} s)"
    )


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
    collar_convention: str = "total",
    compat: str | None = None,
    uem: pd.Index | pd.Series | None = None,
    colors: Mapping[str, object] | None = None,
    ax=None,
):
    r"""Speakers of one file after the label mapping of the diarization error rate.

    The picture draws public outcome objects computed with the same options
    (``mapping``, ``individual_file_mapping``, ``collar``, ``collar_convention``,
    ``skip_overlap``, ``compat``, ``files_duration``, ``uem``):
    the bars are the rows of :func:`audeval.diarization_speaker_outcomes`,
    the hatched bands the time outside :func:`audeval.diarization_scored_region`,
    and the title's numbers are the file's sums of :func:`audeval.diarization_outcomes`,
    so its DER is :func:`audeval.diarization_error_rate` of the file with those options
    (:math:`(\text{confusion} + \text{false alarm} + \text{miss}) / \text{total}`;
    0 for a file without scored truth or errors, 1 for one with errors only).
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
    of the file's row of :func:`audeval.diarization_report`
    (``compat="pyannote"``: a speaker overlapping itself is drawn once,
    counted twice in the title).

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
        collar: unscored width around each truth boundary
            (see ``collar_convention``)
        skip_overlap: do not score regions with two or more truth speakers
        files_duration: duration per file, the scored region ``[0, duration]``;
            else the union of the extents (with a warning, as the metrics)
        collar_convention: ``"total"`` (pyannote.metrics: ``collar`` is the total width,
            half before and half after a boundary)
            or ``"per_side"`` (NIST md-eval: ``collar`` on each side)
        compat: ``None`` or ``"pyannote"`` (see :func:`audeval.diarization_statistics`;
            the bars show merged speech either way)
        uem: scored intervals per file (see :func:`audeval.read_uem`);
            time outside them is drawn as not scored
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
    pyplot()  # fail early without matplotlib
    colors = outcome_colors(colors)
    region_options = dict(
        collar=collar,
        skip_overlap=skip_overlap,
        files_duration=files_duration,
        collar_convention=collar_convention,
        compat=compat,
        uem=uem,
    )
    options = dict(region_options, mapping=mapping, individual_file_mapping=individual_file_mapping)
    spans = audeval.diarization_outcomes(truth, prediction, **options)  # warns as the metrics
    with warnings.catch_warnings():  # the same inputs: warned above
        warnings.simplefilter("ignore", UserWarning)
        speakers = audeval.diarization_speaker_outcomes(truth, prediction, **options)
        region = audeval.diarization_scored_region(truth, prediction, **region_options)
    files = _files(spans.index, speakers.index, region)
    file_name = files[file_code(files, file)]
    speakers = speakers[_in_file(speakers.index, file_name)]
    truth_speakers, partner, unmapped = _layout(speakers)
    blocks, lane_of = _lanes(truth_speakers, partner, unmapped)

    in_region = _in_file(region, file_name)
    region_end = int(_ns(region.get_level_values("end")[in_region]).max()) if in_region.any() else 0
    duration = _duration(files_duration, file_name)
    lo, hi = window(start, end, duration if duration != NAT else region_end)

    ax = new_axes(ax, 10.0, 1.4 + 0.32 * total_height(blocks))
    color_of = {
        "truth:correct": colors["tp"],
        "prediction:correct": colors["tp"],
        "truth:error": colors["deletion"],
        "prediction:error": colors["insertion"],
    }
    _draw_bars(ax, speakers, lane_of, lo, hi, color_of)
    unscored = _draw_unscored(ax, region, file_name, lo, hi)
    if duration != NAT and lo <= duration <= hi:
        file_end_line(ax, duration)
    finish_lanes(ax, blocks, lo, hi)
    components = _components(spans, file_name)
    ax.set_title(_title(file_name, components, mapping, individual_file_mapping), fontsize=10)
    legend(
        ax,
        [
            ("correct (mapped speakers)", colors["tp"]),
            ("truth: missed or confused", colors["deletion"]),
            ("prediction: false alarm or confused", colors["insertion"]),
        ]
        + ([("not scored", UNSCORED)] if unscored else []),
    )
    return ax


__all__ = ["diarization_timeline"]
