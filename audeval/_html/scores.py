"""Score-based detection on the page: PSDS with its interval, PSD-ROC and PR curves,
the best threshold of every class, and the event report of the detections at one threshold.

The per-file table, the timelines and the confusion matrix are those of the event family
for ``scores_to_events(scores, threshold=threshold)`` scored with the collar tolerances
(``onset_tolerance``, ``offset_tolerance``, ``duration_tolerance``, DCASE's 0.2 by default).
"""

from __future__ import annotations

from collections.abc import Mapping
import inspect

import numpy as np
import pandas as pd

from audeval._html.evaluation import Evaluation, default, defaults, interval
from audeval._html.events import evaluate_events
from audeval._html.page import Headline, section
from audeval._html.svg import PALETTE, Curve, curves, legend
from audeval._sed_scores import (
    average_precision,
    best_fscore,
    precision_recall_curve,
    psd_roc,
    psds,
    scores_to_events,
)


def _names(function) -> set:
    return set(inspect.signature(function).parameters) - {"truth", "scores", "labels"}


def evaluate_scores(truth, scores, labels, options: Mapping, boot: Mapping) -> Evaluation:
    """PSDS, curves and best thresholds; the events of one threshold per file."""
    threshold = options.get("threshold", 0.5)
    allowed = (_names(psds) | _names(best_fscore) | _names(precision_recall_curve)
               | _names(average_precision)) - {"average"}
    unknown = sorted(set(options) - allowed - {"threshold"})
    if unknown:
        raise TypeError(f"options {unknown} are not options of the score metrics; "
                        f"allowed: {sorted(allowed | {'threshold'})}.")

    def of(function) -> dict:
        return {k: v for k, v in options.items() if k in _names(function) and k != "average"}

    headline = interval(psds, truth, {**boot, "prediction": scores}, "PSDS", "psds",
                        "polyphonic sound detection score", labels=labels, **of(psds))
    best = best_fscore(truth, scores, labels, **of(best_fscore))
    precision_of = average_precision(truth, scores, labels, average=None, **of(average_precision))
    per_class = best.copy()
    per_class["average_precision"] = pd.Series(precision_of).reindex(per_class.index)
    if "macro" in per_class.index:
        per_class.loc["macro", "average_precision"] = average_precision(
            truth, scores, labels, average="macro", **of(average_precision)
        )
    tolerances = {k: options.get(k, 0.2) for k in ("onset_tolerance", "offset_tolerance",
                                                   "duration_tolerance")}
    detections = scores_to_events(scores, threshold=threshold)
    event_options = {**tolerances, "files_duration": options.get("files_duration")}
    evaluation = evaluate_events(truth, detections, labels, event_options, boot)
    evaluation.family = "scores"
    evaluation.title = (
        f"Score-based detection: PSDS over all thresholds; events detected at threshold "
        f"{threshold:g} per file (scores_to_events), matched with the collar tolerances"
    )
    evaluation.headlines = [headline, *[
        Headline(f"best_fscore_{k}", f"best F-score ({k})", float(best.loc[k, "fscore"]))
        for k in ("macro", "micro") if k in best.index
    ], *[
        Headline(f"event_{h.key}", f"{h.name} at {threshold:g}", h.value, h.low, h.high, h.help)
        for h in evaluation.headlines[:1]
    ]]
    shown = ("dtc_threshold", "gtc_threshold", "cttc_threshold", "alpha_ct", "alpha_st", "max_efpr")
    psds_defaults = defaults(psds, shown)
    evaluation.options = {**psds_defaults,
                          **{k: v for k, v in options.items() if k != "files_duration"},
                          "threshold": threshold, **tolerances,
                          "files_duration": "given" if options.get("files_duration") is not None
                          else "last frame end"}
    evaluation.per_class = per_class
    evaluation.per_class_note = (
        "Best F-score of every class over all thresholds and its threshold (audeval.best_fscore), "
        "average precision (audeval.average_precision)."
    )
    roc = psd_roc(truth, scores, labels, per_class=True, **of(psd_roc))
    overall = psd_roc(truth, scores, labels, **of(psd_roc))
    pr = precision_recall_curve(truth, scores, labels, **of(precision_recall_curve))
    evaluation.extra.insert(0, ("curves", "Curves", _curves_section(roc, overall, pr, options)))
    return evaluation


def _curves_section(roc: pd.DataFrame, overall: pd.DataFrame, pr: pd.DataFrame,
                    options: Mapping) -> str:
    classes = list(pd.unique(roc["label"].astype(str)))
    colour = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(classes)}
    max_efpr = float(options.get("max_efpr", default(psds, "max_efpr")))
    lines = [Curve(c, *_steps(roc.loc[roc["label"].astype(str) == c, "efpr"].to_numpy(),
                              roc.loc[roc["label"].astype(str) == c, "tpr"].to_numpy()), colour[c])
             for c in classes]
    lines.append(Curve("PSD-ROC (all classes)", *_steps(overall["efpr"].to_numpy(),
                                                          overall["etpr"].to_numpy()), "#222222", 2.2))
    left = curves(lines, x_range=(0.0, max_efpr), x_title="eFPR per hour",
                  y_title="eTPR", label="PSD-ROC")
    labels = pr.index.get_level_values("label").astype(str)
    pr_lines = [Curve(c, pr["recall"].to_numpy()[labels == c], pr["precision"].to_numpy()[labels == c],
                      colour.get(c, "#555555")) for c in classes]
    right = curves(pr_lines, x_range=(0.0, 1.0), x_title="recall", y_title="precision",
                   label="precision-recall")
    keys = legend([(c, colour[c]) for c in classes] + [("PSD-ROC (all classes)", "#222222")])
    note = ("Left: the PSD-ROC of audeval.psd_roc (black; PSDS is its normalised area up to "
            "max_efpr) and every class's ROC; right: precision over recall of every class "
            "(audeval.precision_recall_curve).")
    return section("curves", "Curves", keys + f'<div class="cards">{left}{right}</div>', note)


def _steps(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A staircase through the points (right-continuous)."""
    if len(x) < 2:
        return x, y
    xs = np.repeat(x, 2)[1:]
    ys = np.repeat(y, 2)[:-1]
    return xs, ys


__all__ = ["evaluate_scores"]
