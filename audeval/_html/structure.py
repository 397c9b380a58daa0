"""Structural segmentation on the page: mir_eval's values per file, their means with intervals,
and the two partitions of the worst files.

Headlines are the means over files of :func:`audeval.boundary_detection` (first window),
:func:`audeval.pairwise_clustering`, :func:`audeval.normalized_conditional_entropy` and
:func:`audeval.v_measure` (their F values), bootstrapped over files;
the per-file table is :func:`audeval.structure_report`.
"""

from __future__ import annotations

from collections.abc import Mapping
import inspect

import numpy as np
import pandas as pd

from audeval._html.activity import _rows
from audeval._html.evaluation import Evaluation, default, interval
from audeval._html.events import _file_end
from audeval._html.page import Column, escape, number_text
from audeval._html.svg import PALETTE, Bar, Block, Lane, timeline
from audeval._structure import (
    boundary_detection,
    normalized_conditional_entropy,
    pairwise_clustering,
    structure_report,
    v_measure,
)


HEADLINES = (
    (boundary_detection, "boundary F-score", "boundary_fscore"),
    (pairwise_clustering, "pairwise F-score", "pairwise_fscore"),
    (normalized_conditional_entropy, "NCE F-score", "nce_fscore"),
    (v_measure, "V-measure", "v_measure"),
)


def _of(function, options: Mapping) -> dict:
    names = set(inspect.signature(function).parameters)
    return {k: v for k, v in options.items() if k in names}


def evaluate_structure(truth, prediction, labels, options: Mapping, boot: Mapping) -> Evaluation:
    """The structure report of the page (:func:`audeval.structure_report`)."""
    if labels is not None:
        raise ValueError("structural segmentation compares partitions; pass labels=None.")
    allowed = set(inspect.signature(structure_report).parameters) - {"truth", "prediction"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError(f"options {unknown} are not options of structure_report; "
                        f"allowed: {sorted(allowed)}.")
    report = structure_report(truth, prediction, **options)
    report.index = pd.Index(report.index.astype(object), name="file")
    windows = tuple(options.get("windows", default(structure_report, "windows")))
    boot = {**boot, "prediction": prediction}
    headlines = []
    for function, name, key in HEADLINES:
        extra = {"window": windows[0]} if function is boundary_detection else {}
        title = f"{name} ({windows[0]:g} s)" if extra else name
        headline = interval(function, truth, boot, f"{title}, mean over files", key,
                            part=2, **_of(function, options), **extra)
        headlines.append(headline)
    fcol = next(c for c in report.columns if c.startswith("f_measure_at_"))
    columns = [Column("file", "file", "text", filter="text", link=True)] + [
        Column(c, c.replace("_", " ")) for c in report.columns
    ]
    durations = options.get("files_duration")

    def draw(files: list) -> list[tuple[str, str]]:
        out = []
        for file in files:
            lanes = []
            ends = []
            for side, series in (("truth", truth), ("prediction", prediction)):
                spans, names = _rows(series, file)
                colour = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(dict.fromkeys(names))}
                lanes.append(Lane(side, [
                    Bar(a, b, colour[n], "segment", f"{side} {n} {a:.3f}\u2013{b:.3f} s", text=n)
                    for (a, b), n in zip(spans.tolist(), names)
                ]))
                ends.append(spans[:, 1])
            hi = _file_end(file, durations, np.concatenate(ends))
            row = report.loc[file]
            summary = (f"boundary F = {number_text(row[fcol])}, pairwise F = "
                       f"{number_text(row['pairwise_f_measure'])}, V = {number_text(row['v_measure'])}")
            out.append((escape(summary), timeline([Block("", lanes)], 0.0, hi,
                                                  label=f"partitions of {file}")))
        return out

    mean = report.mean(numeric_only=True).to_frame("mean over files")
    mean.index.name = "metric"
    return Evaluation(
        family="structure",
        title="Structural segmentation (mir_eval.segment): values per file and their mean",
        options={**{k: v for k, v in options.items() if k != "files_duration"},
                 "files_duration": "given" if durations is not None else "latest end"},
        headlines=headlines,
        per_class=mean,
        per_class_note="The mean over files of every value of audeval.structure_report.",
        per_file=report,
        per_file_columns=columns,
        worst_key=(fcol, True),
        timeline=draw,
        legend='<p class="note">Each lane shows one partition; colours tell the labels of '
        "that lane apart (truth and prediction label sets are unrelated).</p>",
        n_files=len(report),
    )
