"""The event family on the page: event report, bootstrap intervals, outcome timelines, confusion.

Timelines draw the rows of :func:`audeval.event_outcomes` computed with the options
of the statistics, coloured as :func:`audeval.plot.event_timeline` colours them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._events import event_outcomes
from audeval._events import (
    event_confusion_matrix,
    event_error_rate,
    event_fscore,
    event_report,
    event_statistics,
)
from audeval._html.evaluation import (
    Evaluation,
    files_labels,
    interval,
    split_options,
    used_options,
)
from audeval._html.page import Column, Headline, escape, number_text, section
from audeval._html.svg import (
    OUTCOME_COLORS,
    Bar,
    Block,
    Lane,
    heatmap,
    outcome_legend,
    timeline,
)


#: What a timeline draws for each outcome of :func:`audeval.event_outcomes` (as audeval.plot).
DRAWN = {
    "tp": "tp",
    "substituted": "substitution",
    "substituting": "substitution",
    "fn": "deletion",
    "fp": "insertion",
}

FILE_COLUMNS = [
    Column("file", "file", "text", filter="text", link=True),
    Column("fscore", "F-score", help="micro F-score of the file"),
    Column("precision", "precision"),
    Column("recall", "recall"),
    Column("error_rate", "error rate"),
    Column("n_truth", "truth events", digits=0),
    Column("n_prediction", "predicted events", digits=0),
    Column("tp", "TP", digits=0),
    Column("fp", "FP", digits=0),
    Column("fn", "FN", digits=0),
    Column("substitutions", "S", digits=0),
    Column("labels", "labels", "text", filter="labels"),
]
CLASS_COLUMNS = [
    "n_truth", "n_prediction", "tp", "fp", "fn", "precision", "recall", "fscore",
    "error_rate", "deletion_rate", "insertion_rate",
]


def evaluate_events(
    truth: pd.Series,
    prediction: pd.Series,
    labels,
    options: Mapping,
    boot: Mapping,
) -> Evaluation:
    """The event report of the page (:func:`audeval.event_report` and friends)."""
    stat_options, metric_options = split_options(
        options, event_statistics, [event_report, event_fscore, event_error_rate]
    )
    stat_options.pop("confusion", None)
    stat_options.pop("dense", None)
    stats = event_statistics(truth, prediction, labels, **stat_options)
    report = event_report(stats, None, **metric_options)
    per_file = _per_file(stats, metric_options)
    boot = {**boot, "prediction": None}
    fscore_options = {k: v for k, v in metric_options.items()}
    error_options = {k: v for k, v in metric_options.items() if k != "propagate_nans"}
    headlines = [
        interval(event_fscore, stats, boot, "F-score (micro)", "fscore_micro",
                 "event-based F-score over all events", average="micro", **fscore_options),
        interval(event_fscore, stats, boot, "F-score (macro)", "fscore_macro",
                 "mean of the per-class F-scores", average="macro", **fscore_options),
        interval(event_error_rate, stats, boot, "error rate", "error_rate",
                 "(S + D + I) / N", **error_options),
    ]
    micro = report.loc["micro"]
    for key, name in (("precision", "precision (micro)"), ("recall", "recall (micro)")):
        headlines.append(Headline(f"{key}_micro", name, float(micro[key])))
    outcomes = event_outcomes(truth, prediction, labels, **stat_options)
    confusion = event_confusion_matrix(truth, prediction, labels, as_frame=True, **stat_options)
    extra = [("confusion", "Confusion", _confusion_section(confusion))]
    durations = stat_options.get("files_duration")
    return Evaluation(
        family="events",
        title="Event-based metrics (counts summed over files)",
        options=used_options(stats, event_report, metric_options),
        headlines=headlines,
        per_class=report[[c for c in CLASS_COLUMNS if c in report.columns]],
        per_class_note="Per label; micro pools the events of all labels, macro averages the labels.",
        per_file=per_file,
        per_file_columns=FILE_COLUMNS,
        worst_key=("fscore", True),
        timeline=lambda files: [
            _timeline(outcomes, file, per_file.loc[file], durations, k)
            for k, file in enumerate(files)
        ],
        extra=extra,
        legend=outcome_legend(),
        n_files=len(per_file),
    )


def _per_file(stats: pd.DataFrame, metric_options: Mapping) -> pd.DataFrame:
    """The micro row of every file of :func:`audeval.event_report` ``(per_file=True)``."""
    report = event_report(stats, None, per_file=True, **metric_options)
    files = report.index.get_level_values(0)
    rows = report.index.get_level_values(1)
    micro = report[np.asarray((rows == "micro") & (files != "TOTAL"))]
    micro.index = pd.Index(micro.index.get_level_values(0).astype(object), name="file")
    used = (stats["n_truth"].to_numpy() + stats["n_prediction"].to_numpy()) > 0
    out = micro.copy()
    out["labels"] = files_labels(stats, used).reindex(out.index).tolist()
    return out


def _confusion_section(confusion: pd.DataFrame) -> str:
    svg = heatmap(
        confusion.to_numpy(dtype=float),
        [str(i) for i in confusion.index],
        [str(c) for c in confusion.columns],
        digits=0,
        row_title="truth \u2193",
        column_title="prediction",
        label="event confusion matrix",
    )
    note = (
        "Event counts (audeval.event_confusion_matrix): the diagonal is matched events, "
        "off-diagonal cells are substitutions, the last row and column are events "
        "without a partner (insertions, deletions)."
    )
    return section("confusion", "Confusion", f'<div class="scroll">{svg}</div>', note)


def _timeline(outcomes: pd.DataFrame, file, row: pd.Series, durations, k: int) -> tuple[str, str]:
    rows = outcomes[np.asarray(outcomes["file"] == file)]
    start = rows["start"].dt.total_seconds().to_numpy()
    end = rows["end"].dt.total_seconds().to_numpy()
    side = rows["side"].astype(str).to_numpy()
    label = rows["label"].astype(str).to_numpy()
    outcome = rows["outcome"].astype(str).to_numpy()
    position = rows["position"].to_numpy()
    partner = rows["partner"].to_numpy()
    hi = _file_end(file, durations, end)
    blocks = []
    links = []
    codes = rows["label"].cat.codes.to_numpy()
    order = [str(rows["label"].cat.categories[c]) for c in np.unique(codes)]  # label order
    for name in order:  # a drawing loop over the labels of one file
        lanes = []
        for lane in ("truth", "prediction"):
            bars = []
            for i in np.flatnonzero((label == name) & (side == lane)):
                drawn = DRAWN[outcome[i]]
                tip = f"{lane} {name} {start[i]:.3f}\u2013{end[i]:.3f} s: {outcome[i]}"
                ident = f"tl{k}-{lane[0]}{position[i]}"
                bars.append(Bar(start[i], end[i], OUTCOME_COLORS[drawn], drawn, tip, ident))
                if lane == "truth" and outcome[i] == "substituted" and partner[i] >= 0:
                    links.append((ident, f"tl{k}-p{partner[i]}", OUTCOME_COLORS["substitution"]))
            lanes.append(Lane(lane, bars))
        blocks.append(Block(name, lanes))
    svg = timeline(blocks, 0.0, hi, links=links, label=f"timeline of {file}")
    summary = (
        f"F = {number_text(row['fscore'])} (P = {number_text(row['precision'])}, "
        f"R = {number_text(row['recall'])}), ER = {number_text(row['error_rate'])}; "
        f"TP {int(row['tp'])}, FP {int(row['fp'])}, FN {int(row['fn'])}"
    )
    return escape(summary), svg


def _file_end(file, durations, end: np.ndarray) -> float:
    if durations is not None:
        value = durations.get(file) if isinstance(durations, Mapping) else (
            durations[file] if file in durations.index else None
        )
        if value is not None and not pd.isna(value):
            return value.total_seconds() if isinstance(value, pd.Timedelta) else float(value)
    return float(np.max(end)) if len(end) else 1.0
