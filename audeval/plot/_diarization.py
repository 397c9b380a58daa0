"""Diarization plot: the speakers of one file after the label mapping.

The durations, the mapping and the title's numbers come from one
:func:`audeval.diarization_statistics` table
(read by :func:`audeval.diarization_mapping` and :func:`audeval.diarization_report`);
only the bars' geometry (speech merged per speaker, cropped to the scored region)
is drawn from the diarization engine's region helpers.
"""

from __future__ import annotations

from collections.abc import Mapping
import warnings

import numpy as np
import pandas as pd

from audeval._diarization import diarization_mapping, diarization_report, diarization_statistics
from audeval._diarization.options import DIARIZATION, check_diarization_inputs
from audeval._diarization.region import _crop, _merge_labels, _scored_region, check_uem, with_uem
from audeval._core.intervals import difference, intersect, merge
from audeval._core.protocol import table_options
from audeval._core.validation import NAT, NS_PER_SECOND, Inputs
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


def _geometry(inputs: Inputs, n_labels: int, options: dict, uem=None):
    """Speech merged per (file, label) and cropped to the scored region, and the region
    (``options``: those the statistics table records; ``uem``: the UEM as arrays)."""
    n = inputs.n_files
    collar = int(pd.Timedelta(options.get("collar", pd.Timedelta(0))).value)
    with warnings.catch_warnings():  # the statistics already warned
        warnings.simplefilter("ignore", UserWarning)
        truth_merged = _merge_labels(inputs.truth, n, n_labels)
        region = _scored_region(
            inputs,
            truth_merged,
            collar,
            bool(options.get("skip_overlap", False)),
            collar_convention=options.get("collar_convention", "total"),
            uem=uem,
        )
        truth = _crop(n, n_labels, truth_merged, region)
        prediction = _crop(n, n_labels, _merge_labels(inputs.prediction, n, n_labels), region)
    return truth, prediction, region


def _partners(
    stats: pd.DataFrame,
    file_name: object,
    mapping: str,
    individual_file_mapping: bool,
    sides: tuple[list, list],
) -> dict[int, int]:
    """Truth label code -> predicted label code mapped onto it (in this file)."""
    truth_labels, prediction_labels = sides
    if mapping == "identity":
        code = {label: k for k, label in enumerate(prediction_labels)}
        return {t: code[label] for t, label in enumerate(truth_labels) if label in code}
    table = diarization_mapping(
        stats, None, mapping=mapping, individual_file_mapping=individual_file_mapping
    )
    if individual_file_mapping:
        files = table.index.get_level_values("file")
        table = table[np.asarray(files == file_name)].droplevel("file")
    truth_code = {label: k for k, label in enumerate(truth_labels)}
    prediction_code = {label: k for k, label in enumerate(prediction_labels)}
    return {
        truth_code[t]: prediction_code[p] for t, p in zip(table.index, table["prediction"])
    }


def _bars(truth, prediction, f: int, partner: dict, n_labels: int):
    """Correct and error bars per row group (truth code t, or ``n_labels + p`` unmapped)."""
    t_file, t_label, t_start, t_end = truth
    p_file, p_label, p_start, p_end = prediction
    t_in, p_in = t_file == f, p_file == f
    truth_speakers = [int(x) for x in np.unique(t_label[t_in])]
    partner = {t: p for t, p in partner.items() if t in truth_speakers}
    mapped = set(partner.values())
    unmapped = [int(p) for p in np.unique(p_label[p_in]) if p not in mapped]
    row_of = np.full(max(n_labels, 1), -1, dtype=np.int64)
    for t, p in partner.items():
        row_of[p] = t
    row_of[unmapped] = n_labels + np.asarray(unmapped, dtype=np.int64)
    n_groups = 2 * max(n_labels, 1)
    truth_set = merge(n_groups, t_label[t_in], t_start[t_in], t_end[t_in])
    prediction_set = merge(n_groups, row_of[p_label[p_in]], p_start[p_in], p_end[p_in])
    correct = intersect(n_groups, truth_set, prediction_set)
    bars = {
        "truth:correct": correct,
        "truth:error": difference(n_groups, truth_set, correct),
        "prediction:correct": correct,
        "prediction:error": difference(n_groups, prediction_set, correct),
    }
    return bars, truth_speakers, partner, unmapped


def _lanes(truth_speakers, partner, unmapped, sides, n_labels):
    """Blocks per truth speaker (truth lane, mapped prediction lane), then ``unmapped``."""
    truth_labels, prediction_labels = sides
    layout = [
        (
            str(truth_labels[t]),
            [
                ("truth", LEVEL_HEIGHT),
                (
                    f"prediction: {prediction_labels[partner[t]]}"
                    if t in partner
                    else "prediction: none",
                    LEVEL_HEIGHT,
                ),
            ],
        )
        for t in truth_speakers
    ]
    if unmapped:
        layout.append(
            ("unmapped", [(f"prediction: {prediction_labels[p]}", LEVEL_HEIGHT) for p in unmapped])
        )
    blocks = stack(layout)
    lane_of = {}
    for t, block in zip(truth_speakers, blocks):
        lane_of[("truth", t)] = block.lanes[0]
        lane_of[("prediction", t)] = block.lanes[1]
    if unmapped:
        for p, lane in zip(unmapped, blocks[-1].lanes):
            lane_of[("prediction", n_labels + p)] = lane
    return blocks, lane_of


def _draw_unscored(ax, region, f: int, lo: int, hi: int) -> bool:
    """Hatched bands: the window minus the scored region."""
    r_file, r_start, r_end = region.intervals
    in_region = r_file == f
    window_set = (np.zeros(1, np.int64), np.array([lo]), np.array([hi]))
    scored = (np.zeros(int(in_region.sum()), np.int64), r_start[in_region], r_end[in_region])
    unscored = difference(1, window_set, scored)
    for a, b in zip(unscored[1], unscored[2]):
        ax.axvspan(a / NS_PER_SECOND, b / NS_PER_SECOND, zorder=0.5, gid="unscored", **UNSCORED)
    return bool(len(unscored[0]))


def _title(file_name: object, row: pd.Series, mapping: str, individual_file_mapping: bool) -> str:
    how = {"optimal": "optimal", "greedy": "greedy", "identity": "no"}[mapping]
    scope = ""
    if mapping != "identity":
        scope = " per file" if individual_file_mapping else " over all files"
    return (
        f"{file_name} ({how} mapping{scope})\n"
        f"DER = {number(row['diarization_error_rate'])}: "
        f"confusion {row['confusion']:.2f} s, false alarm {row['false_alarm']:.2f} s, "
        f"miss {row['miss']:.2f} s of {row['total']:.2f} s "
        f"(correct {row['correct']:.2f} s)"
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

    Speech of every label is merged, cropped to the scored region
    and mapped exactly as by :func:`audeval.diarization_report`
    with the same options
    (``mapping``, ``individual_file_mapping``, ``collar``, ``collar_convention``,
    ``skip_overlap``, ``compat``, ``files_duration``, ``uem``),
    so the title's DER is :func:`audeval.diarization_error_rate`
    of the file with those options.
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
    DIARIZATION.build({"mapping": mapping, "individual_file_mapping": individual_file_mapping})
    # one statistics table: the mapping and the report's numbers reduce it
    stats = diarization_statistics(
        truth,
        prediction,
        collar=collar,
        collar_convention=collar_convention,
        skip_overlap=skip_overlap,
        compat=compat,
        files_duration=files_duration,
        uem=uem,
    )
    report = diarization_report(
        stats, None, mapping=mapping, individual_file_mapping=individual_file_mapping
    )
    with warnings.catch_warnings():  # the statistics already warned about the inputs
        warnings.simplefilter("ignore", UserWarning)
        inputs, *sides = check_diarization_inputs(truth, prediction, files_duration=files_duration)
    inputs, uem_arrays = with_uem(inputs, check_uem(uem))  # the files of the UEM, too
    f = file_code(inputs.files, file)
    file_name = inputs.files[f]
    n_labels = inputs.n_labels
    truth_cropped, prediction_cropped, region = _geometry(
        inputs, n_labels, table_options(stats), uem_arrays
    )
    partner = _partners(stats, file_name, mapping, individual_file_mapping, tuple(sides))
    bars, truth_speakers, partner, unmapped = _bars(
        truth_cropped, prediction_cropped, f, partner, n_labels
    )
    blocks, lane_of = _lanes(truth_speakers, partner, unmapped, sides, n_labels)

    r_file, _, r_end = region.intervals
    region_end = int(r_end[r_file == f].max()) if np.any(r_file == f) else 0
    duration = int(inputs.durations[f])
    lo, hi = window(start, end, duration if duration != NAT else region_end)

    ax = new_axes(ax, 10.0, 1.4 + 0.32 * total_height(blocks))
    color_of = {
        "truth:correct": colors["tp"],
        "prediction:correct": colors["tp"],
        "truth:error": colors["deletion"],
        "prediction:error": colors["insertion"],
    }
    for gid, (group, a, b) in bars.items():
        side = gid.split(":")[0]
        for i in np.flatnonzero(in_window(a, b, lo, hi)):
            lane = lane_of[(side, int(group[i]))]
            rectangle(
                ax, a[i], b[i], lane.top + BAR_PAD, lane.height - 2 * BAR_PAD, color_of[gid], gid
            )
    unscored = _draw_unscored(ax, region, f, lo, hi)
    if duration != NAT and lo <= duration <= hi:
        file_end_line(ax, duration)
    finish_lanes(ax, blocks, lo, hi)
    row = report.loc[file_name]
    ax.set_title(_title(file_name, row, mapping, individual_file_mapping), fontsize=10)
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
