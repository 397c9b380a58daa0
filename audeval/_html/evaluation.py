"""The evaluation page: headline numbers, options, per-class and per-file tables, worst files.

A family contributes a :class:`Evaluation` (computed with public functions only);
this module lays it out. Files are ranked worst first by the family's key;
only the ``n_timelines`` worst get a timeline, so a page of 10k files stays small.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import dataclasses
import inspect
import warnings

import numpy as np
import pandas as pd

from audeval._html.page import (
    Column,
    Headline,
    cards,
    data_table,
    document,
    escape,
    options_table,
    section,
)


@dataclasses.dataclass
class Evaluation:
    """What a family computed for the page."""

    family: str
    title: str
    options: dict
    headlines: list[Headline]
    per_class: pd.DataFrame | None  # rows per label (+ micro, macro), numeric columns
    per_class_note: str
    per_file: pd.DataFrame  # indexed by file, numeric columns (+ "labels": list per file)
    per_file_columns: list[Column]
    worst_key: tuple[str, bool]  # (column, ascending): the worst file first
    timeline: Callable[[list], list[tuple[str, str]]]  # files -> [(summary html, svg html)]
    extra: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)
    legend: str = ""
    n_files: int = 0


def split_options(
    options: Mapping[str, object], statistics: Callable, metrics: Sequence[Callable]
) -> tuple[dict, dict]:
    """Options of the statistics function and of the metrics; an unknown name is an error."""
    positional = {"truth", "prediction", "labels", "scores", "annotations"}
    names = set(inspect.signature(statistics).parameters) - positional
    metric_names = set()
    for metric in metrics:
        metric_names |= set(inspect.signature(metric).parameters) - positional
    metric_names -= names | {"per_file", "average", "as_frame", "normalize"}
    unknown = sorted(set(options) - names - metric_names)
    if unknown:
        raise TypeError(
            f"options {unknown} are not options of {statistics.__name__} "
            f"or its metrics; allowed: {sorted(names | metric_names)}."
        )
    return (
        {k: v for k, v in options.items() if k in names},
        {k: v for k, v in options.items() if k in metric_names},
    )


def default(function: Callable, name: str) -> object:
    """The default of a parameter (unwrapped from a family's "not given" marker)."""
    value = inspect.signature(function).parameters[name].default
    return getattr(value, "value", value)


def defaults(function: Callable, names: Sequence[str]) -> dict:
    parameters = inspect.signature(function).parameters
    return {n: default(function, n) for n in names if n in parameters}


def used_options(stats: pd.DataFrame, metric: Callable, metric_options: Mapping) -> dict:
    """The options a statistics table was made with (its ``attrs``) and the metric options."""
    recorded = dict(stats.attrs.get("audeval", {}).get("options", {}))
    recorded.pop("labels_given", None)
    recorded.pop("confusion", None)
    names = [n for n in ("zero_division", "propagate_nans") if n in inspect.signature(metric).parameters]
    return {**recorded, **defaults(metric, names), **metric_options}


def interval(
    metric: Callable,
    stats: object,
    boot: Mapping,
    name: str,
    key: str,
    help: str = "",
    *,
    part: int | None = None,
    **options,
) -> Headline:
    """A headline with its bootstrap interval (:func:`audeval.bootstrap`), or without one;
    ``part``: the element of a metric that returns a tuple (e.g. 2 for the F of (P, R, F))."""
    from audeval._generic.bootstrap import BootstrapWarning, bootstrap

    if boot["n_boot"]:
        with warnings.catch_warnings():  # fewer than 3 files: no interval, the card says none
            warnings.simplefilter("ignore", BootstrapWarning)
            result = bootstrap(
                metric,
                stats,
                boot.get("prediction"),
                n_boot=boot["n_boot"],
                confidence=boot["confidence"],
                seed=boot["seed"],
                **options,
            )
        value, low, high = result.value, result.low, result.high
        if part is not None:
            value, low, high = value[part], np.asarray(low)[part], np.asarray(high)[part]  # type: ignore[index]  # a part is asked of array values only
        return Headline(key, name, float(value), float(low), float(high), help)  # type: ignore[arg-type]  # one number here
    value = metric(stats, boot.get("prediction"), **options)
    return Headline(key, name, float(value if part is None else value[part]), help=help)


def files_labels(stats: pd.DataFrame, used: np.ndarray) -> pd.Series:
    """The labels of every file with rows that count (``used``), as lists."""
    files = stats.index.get_level_values("file")
    codes, uniques = pd.factorize(files)
    labels = stats.index.get_level_values("label").astype(str).to_numpy()
    codes, labels = codes[used], labels[used]
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=len(uniques))
    parts = np.split(labels[order], np.cumsum(counts)[:-1]) if len(uniques) else []
    return pd.Series([p.tolist() for p in parts], index=pd.Index(uniques, dtype=object), dtype=object)


def worst_files(evaluation: Evaluation) -> list:
    column, ascending = evaluation.worst_key
    frame = evaluation.per_file
    values = frame[column].to_numpy(dtype=float)
    values = np.where(np.isnan(values), -np.inf if ascending else np.inf, values)
    order = np.lexsort((frame.index.astype(str).to_numpy(), values if ascending else -values))
    return frame.index[order].tolist()


def per_class_section(evaluation: Evaluation) -> str:
    table = evaluation.per_class
    what = table.index.name or "label"  # type: ignore[union-attr]  # the section is built only when there is a per-class table
    columns = [Column("label", what, "text", filter="text")]
    columns += [
        Column(str(c), str(c), digits=0 if str(c) in COUNTS else 3) for c in table.columns  # type: ignore[union-attr]  # the section is built only when there is a per-class table
    ]
    values = {"label": [str(i) for i in table.index]}  # type: ignore[union-attr]  # the section is built only when there is a per-class table
    values.update({str(c): table[c].to_numpy(dtype=float) for c in table.columns})  # type: ignore[union-attr, index]  # the section is built only when there is a per-class table
    body = data_table(
        "per-class",
        columns,
        values,
        page_size=100,
        total_rows=[r for r in ("micro", "macro", "TOTAL", "mean") if r in values["label"]],
    )
    return section("classes", "Per class", body, evaluation.per_class_note)


COUNTS = {
    "n_truth", "n_prediction", "tp", "fp", "fn", "tn", "substitutions", "deletions",
    "insertions", "speakers",
}


def per_file_section(evaluation: Evaluation, anchors: Mapping[str, str]) -> str:
    frame = evaluation.per_file
    values = {"file": frame.index.astype(str).tolist()}
    values.update({c.key: frame[c.key].tolist() if c.type == "text" else frame[c.key].to_numpy()
                   for c in evaluation.per_file_columns if c.key != "file"})
    labels = None
    if "labels" in frame.columns:
        values["labels"] = frame["labels"].tolist()
        labels = sorted({label for row in values["labels"] for label in row})
    columns = [c for c in evaluation.per_file_columns]
    column, ascending = evaluation.worst_key
    note = (
        f"{len(frame)} files, worst first (by {column}, "
        f"{'lowest' if ascending else 'highest'} first). Click a header to sort, "
        "filter by file name, label or the range of a column; files with a timeline link to it."
    )
    # the rows in the worst-first order
    order = frame.index.get_indexer(worst_files(evaluation))
    values = {
        k: ([v[i] for i in order] if isinstance(v, list) else np.asarray(v)[order])
        for k, v in values.items()
    }
    body = data_table(
        "per-file", columns, values, labels=labels, anchors=anchors, range_column=column
    )
    return section("files", "Per file", body, note)


def timelines_section(evaluation: Evaluation, files: list, anchors: Mapping[str, str]) -> str:
    parts = [evaluation.legend]
    for file, (summary, svg) in zip(files, evaluation.timeline(files)):
        parts.append(
            f'<div class="timeline" id="{anchors[file]}" data-file="{escape(file)}">'
            f"<h3>{escape(file)}</h3><div class=\"summary\">{summary}</div>"
            f'<div class="scroll">{svg}</div></div>'
        )
    note = f"The {len(files)} worst files (of {len(evaluation.per_file)}), worst first."
    return section("timelines", "Worst files", "\n".join(parts), note)


def evaluation_page(evaluation: Evaluation, *, n_timelines: int, confidence: float | None, title: str | None) -> str:
    worst = worst_files(evaluation)[: max(int(n_timelines), 0)]
    anchors = {str(f): f"timeline-{k}" for k, f in enumerate(worst)}
    headline = cards(evaluation.headlines, confidence)
    sections = [
        ("summary", "Summary", section("summary", "Summary", headline
                                        + "<h3>Options</h3>" + options_table(evaluation.options))),
    ]
    if evaluation.per_class is not None:
        sections.append(("classes", "Per class", per_class_section(evaluation)))
    sections.append(("files", "Per file", per_file_section(evaluation, anchors)))
    if worst:
        sections.append(("timelines", "Worst files", timelines_section(evaluation, worst, anchors)))
    sections += evaluation.extra
    lines = [
        escape(evaluation.title),
        f"{evaluation.n_files or len(evaluation.per_file)} files; made with audeval "
        "(one self-contained page: it loads nothing)",
    ]
    return document(title or f"audeval report: {evaluation.family}", lines, sections)
