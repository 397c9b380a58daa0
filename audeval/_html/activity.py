"""Segments and diarization on the page: activity reports and activity timelines.

A timeline shows, per label (segments) or per truth speaker after the label mapping
(diarization, :func:`audeval.diarization_mapping`), where truth and prediction are both
active (true positive colour), only the truth (miss) or only the prediction (false alarm),
in continuous time, with the colours of :mod:`audeval.plot`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._diarization import diarization_error_rate, diarization_mapping, diarization_report
from audeval._html.evaluation import Evaluation, files_labels, interval, split_options, used_options
from audeval._html.events import _file_end
from audeval._html.page import Column, Headline, data_table, escape, number_text, section
from audeval._html.svg import OUTCOME_COLORS, Bar, Block, Lane, outcome_legend, timeline
from audeval._segments import (
    segment_error_rate,
    segment_fscore,
    segment_report,
    segment_statistics,
)


def pieces(truth: np.ndarray, prediction: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Elementary pieces of two interval sets (``(n, 2)`` seconds) and which side covers each."""
    bounds = np.unique(np.concatenate([truth.ravel(), prediction.ravel()]))
    if len(bounds) < 2:
        return np.zeros(0), np.zeros(0), np.zeros((0, 2), dtype=bool)
    a, b = bounds[:-1], bounds[1:]
    middle = (a + b) / 2

    def covered(intervals: np.ndarray) -> np.ndarray:
        starts = np.sort(intervals[:, 0])
        ends = np.sort(intervals[:, 1])
        return (np.searchsorted(starts, middle, "right") - np.searchsorted(ends, middle, "right")) > 0

    return a, b, np.stack([covered(truth), covered(prediction)], axis=1)


def activity_lanes(truth: np.ndarray, prediction: np.ndarray, name: str) -> list[Lane]:
    """Truth lane (matched, missed) and prediction lane (matched, false alarm)."""
    a, b, cover = pieces(truth, prediction)
    lanes = []
    for side, (own, other) in (("truth", (0, 1)), ("prediction", (1, 0))):
        bars = []
        for i in np.flatnonzero(cover[:, own]):  # a drawing loop over the pieces of one file
            kind = "tp" if cover[i, other] else ("deletion" if side == "truth" else "insertion")
            tip = f"{side} {name} {a[i]:.3f}\u2013{b[i]:.3f} s: {kind}"
            bars.append(Bar(a[i], b[i], OUTCOME_COLORS[kind], kind, tip))
        lanes.append(Lane(side, _joined(bars)))
    return lanes


def _joined(bars: list[Bar]) -> list[Bar]:
    out: list[Bar] = []
    for bar in bars:
        if out and out[-1].kind == bar.kind and out[-1].end == bar.start:
            last = out[-1]
            out[-1] = Bar(last.start, bar.end, last.color, last.kind,
                          last.tip.rsplit(" ", 3)[0] + f" {last.start:.3f}\u2013{bar.end:.3f} s: {bar.kind}")
        else:
            out.append(bar)
    return out


def _rows(series: pd.Series, file) -> tuple[np.ndarray, np.ndarray]:
    """Intervals (seconds) and labels of one file."""
    keep = np.asarray(series.index.get_level_values("file") == file)
    index = series.index[keep]
    start = index.get_level_values("start").total_seconds().to_numpy()
    end = index.get_level_values("end").total_seconds().to_numpy()
    return np.stack([start, end], axis=1), series.to_numpy()[keep].astype(str)


# -------------------------------------------------------------------------
# Segments
# -------------------------------------------------------------------------


SEGMENT_FILE_COLUMNS = [
    Column("file", "file", "text", filter="text", link=True),
    Column("fscore", "F-score"),
    Column("precision", "precision"),
    Column("recall", "recall"),
    Column("error_rate", "error rate"),
    Column("accuracy", "accuracy"),
    Column("n_truth", "truth segments", digits=0),
    Column("n_prediction", "predicted segments", digits=0),
    Column("labels", "labels", "text", filter="labels"),
]


def evaluate_segments(truth, prediction, labels, options: Mapping, boot: Mapping) -> Evaluation:
    """The segment report of the page (:func:`audeval.segment_report` and friends)."""
    stat_options, metric_options = split_options(
        options, segment_statistics, [segment_report, segment_fscore, segment_error_rate]
    )
    stats = segment_statistics(truth, prediction, labels, **stat_options)
    report = segment_report(stats, None, **metric_options)
    per_file = segment_report(stats, None, per_file=True, **metric_options)
    files, rows = per_file.index.get_level_values(0), per_file.index.get_level_values(1)
    micro = per_file[np.asarray((rows == "micro") & (files != "TOTAL"))].copy()
    micro.index = pd.Index(micro.index.get_level_values(0).astype(object), name="file")
    used = (stats["tp"].to_numpy() + stats["fp"].to_numpy() + stats["fn"].to_numpy()) > 0
    micro["labels"] = files_labels(stats, used).reindex(micro.index).tolist()
    boot = {**boot, "prediction": None}
    error_options = {k: v for k, v in metric_options.items() if k != "propagate_nans"}
    headlines = [
        interval(segment_fscore, stats, boot, "F-score (micro)", "fscore_micro",
                 average="micro", **metric_options),
        interval(segment_fscore, stats, boot, "F-score (macro)", "fscore_macro",
                 average="macro", **metric_options),
        interval(segment_error_rate, stats, boot, "error rate", "error_rate", **error_options),
        Headline("accuracy_micro", "accuracy", float(report.loc["micro", "accuracy"])),
    ]
    durations = stat_options.get("files_duration")

    def draw(files: list) -> list[tuple[str, str]]:
        out = []
        for k, file in enumerate(files):
            t, t_label = _rows(truth, file)
            p, p_label = _rows(prediction, file)
            names = sorted(set(t_label) | set(p_label))
            blocks = [Block(n, activity_lanes(t[t_label == n], p[p_label == n], n)) for n in names]
            hi = _file_end(file, durations, np.concatenate([t[:, 1], p[:, 1]]))
            row = micro.loc[file]
            summary = (f"F = {number_text(row['fscore'])}, ER = {number_text(row['error_rate'])}, "
                       f"accuracy = {number_text(row['accuracy'])}")
            out.append((escape(summary), timeline(blocks, 0.0, hi, label=f"timeline of {file}")))
        return out

    columns = [c for c in report.columns if c not in ("substitution_rate",)]
    return Evaluation(
        family="segments",
        title="Segment-based metrics (counts on the segment grid, summed over files)",
        options=used_options(stats, segment_report, metric_options),
        headlines=headlines,
        per_class=report[columns],
        per_class_note="Per label; micro pools the segments of all labels, macro averages the labels.",
        per_file=micro,
        per_file_columns=SEGMENT_FILE_COLUMNS,
        worst_key=("fscore", True),
        timeline=draw,
        legend=outcome_legend(("tp", "deletion", "insertion"))
        + '<p class="note">Timelines are drawn in continuous time; the counts are on the '
        "segment grid of time_resolution.</p>",
        n_files=len(micro),
    )


# -------------------------------------------------------------------------
# Diarization
# -------------------------------------------------------------------------


DIARIZATION_FILE_COLUMNS = [
    Column("file", "file", "text", filter="text", link=True),
    Column("diarization_error_rate", "DER"),
    Column("confusion_rate", "confusion"),
    Column("false_alarm_rate", "false alarm"),
    Column("miss_rate", "miss"),
    Column("total", "truth speech / s"),
    Column("confusion", "confusion / s"),
    Column("false_alarm", "false alarm / s"),
    Column("miss", "miss / s"),
    Column("speakers", "speakers", digits=0),
]
MAPPING_OPTIONS = ("mapping", "individual_file_mapping", "collar", "collar_convention",
                   "skip_overlap", "compat", "files_duration", "uem")


def evaluate_diarization(truth, prediction, labels, options: Mapping, boot: Mapping) -> Evaluation:
    """The diarization report of the page (:func:`audeval.diarization_report`)."""
    if labels is not None:
        raise ValueError("diarization maps the labels of prediction to truth; pass labels=None.")
    split_options(options, diarization_report, [])
    report = diarization_report(truth, prediction, **options)
    is_total = np.asarray(report.index.astype(str) == "TOTAL")
    per_file = report[~is_total].copy()
    per_file.index = pd.Index(per_file.index.astype(object), name="file")
    total = report[is_total].iloc[0]
    headlines = [
        interval(diarization_error_rate, truth, {**boot, "prediction": prediction},
                 "diarization error rate", "diarization_error_rate", **options),
    ] + [
        Headline(k, n, float(total[k])) for k, n in (
            ("confusion_rate", "confusion"), ("false_alarm_rate", "false alarm"),
            ("miss_rate", "miss"))
    ]
    mapped = diarization_mapping(
        truth, prediction, **{k: v for k, v in options.items() if k in MAPPING_OPTIONS}
    )
    durations = options.get("files_duration")

    def draw(files: list) -> list[tuple[str, str]]:
        out = []
        for file in files:
            t, t_label = _rows(truth, file)
            p, p_label = _rows(prediction, file)
            pairs = _pairs(mapped, file)
            p_mapped = np.asarray([pairs.get(x, f"unmapped {x}") for x in p_label], dtype=object)
            names = sorted(set(t_label)) + sorted(set(p_mapped) - set(t_label))
            blocks = [Block(str(n), activity_lanes(t[t_label == n], p[p_mapped == n], str(n)))
                      for n in names]
            hi = _file_end(file, durations, np.concatenate([t[:, 1], p[:, 1]]))
            row = per_file.loc[file]
            summary = (f"DER = {number_text(row['diarization_error_rate'])} (confusion "
                       f"{number_text(row['confusion'])} s, false alarm {number_text(row['false_alarm'])} s, "
                       f"miss {number_text(row['miss'])} s); mapping: "
                       + ", ".join(f"{v} \u2192 {k}" for k, v in pairs.items()))
            out.append((escape(summary), timeline(blocks, 0.0, hi, label=f"timeline of {file}")))
        return out

    extra = [("mapping", "Speaker mapping", _mapping_section(mapped))]
    return Evaluation(
        family="diarization",
        title="Diarization error rate (durations summed over files)",
        options={**{k: v for k, v in options.items() if k not in ("files_duration", "uem")},
                 "files_duration": "given" if durations is not None else "extent of the inputs"},
        headlines=headlines,
        per_class=None,
        per_class_note="",
        per_file=per_file,
        per_file_columns=DIARIZATION_FILE_COLUMNS,
        worst_key=("diarization_error_rate", False),
        timeline=draw,
        extra=extra,
        legend=outcome_legend(("tp", "deletion", "insertion"))
        + '<p class="note">One block per truth speaker with the predicted speaker mapped to it; '
        "a miss in a block with a false alarm in another is a confusion.</p>",
        n_files=len(per_file),
    )


def _pairs(mapped: pd.DataFrame, file) -> dict:
    """Predicted speaker -> truth speaker of one file."""
    if "file" not in mapped.index.names:
        rows = mapped
    else:
        keep = np.asarray(mapped.index.get_level_values("file") == file)
        rows = mapped[keep]
    truth = rows.index.get_level_values("truth").astype(str)
    return dict(zip(rows["prediction"].astype(str), truth))


def _mapping_section(mapped: pd.DataFrame) -> str:
    frame = mapped.reset_index()
    columns = [Column(str(c), str(c), "num" if c == "duration" else "text",
                      filter="text" if c == "file" else None) for c in frame.columns]
    values = {str(c): (frame[c].to_numpy(dtype=float) if c == "duration"
                       else frame[c].astype(str).tolist()) for c in frame.columns}
    body = data_table("mapping", columns, values)
    note = ("audeval.diarization_mapping: the predicted speaker mapped to every truth speaker "
            "and their overlap in seconds.")
    return section("mapping", "Speaker mapping", body, note)
