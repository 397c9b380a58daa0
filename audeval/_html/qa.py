"""The QA page of several raters (an audformat database): agreement, raters, labels, disputes.

Numbers come from :func:`audeval.agreement_matrix`, :func:`audeval.cohen_kappa`,
:func:`audeval.krippendorff_alpha`, :func:`audeval.fleiss_kappa`,
:func:`audeval.disagreements` and :func:`audeval.consensus` with the same options.
"""

from __future__ import annotations

import base64
import gzip
from collections.abc import Mapping
import os
import urllib.parse

import numpy as np
import pandas as pd

from audeval._agreement import (
    agreement_statistics,
    cohen_kappa,
    consensus,
    disagreements,
    fleiss_kappa,
    krippendorff_alpha,
)
from audeval._html.evaluation import interval
from audeval._html.page import (
    Column,
    cards,
    data_table,
    document,
    escape,
    options_table,
    section,
    static_table,
)
from audeval._html.svg import PALETTE, Bar, Block, Lane, heatmap, legend, timeline
from audeval._generic.matrix import agreement_matrix


CONSENSUS = "consensus"
OPTIONS = ("frame_size", "unrated", "files_duration")


def qa_page(
    raters: Mapping[object, pd.Series],
    labels,
    options: Mapping,
    boot: Mapping,
    *,
    n_spans: int,
    audio: AudioFinder,
    title: str | None,
) -> str:
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(f"options {unknown} are not options of the QA page; allowed: {list(OPTIONS)}.")
    names = list(raters)
    votes = consensus(raters, labels, per_label=True, **options)
    matrix = agreement_matrix({**raters, CONSENSUS: votes}, metric=cohen_kappa, labels=labels, **options)
    alpha = agreement_matrix(raters, metric=krippendorff_alpha, labels=labels, **options)
    stats = agreement_statistics(raters, labels, **options)  # once for both intervals
    headlines = [
        interval(krippendorff_alpha, stats, {**boot, "prediction": None}, "Krippendorff's alpha",
                 "krippendorff_alpha", "over all raters, time-weighted, label sets"),
        interval(fleiss_kappa, stats, {**boot, "prediction": None}, "Fleiss' kappa",
                 "fleiss_kappa", "over all raters, time-weighted, label sets"),
    ]
    spans = disagreements(raters, labels, **options)
    spans = spans.sort_values("duration", ascending=False, kind="stable")
    used = {"raters": ", ".join(map(str, names)), "frame_size": options.get("frame_size"),
            "unrated": options.get("unrated", "no_label"),
            "files_duration": "given" if options.get("files_duration") is not None
            else "latest end of any rater"}
    n_files = len(set().union(*(set(s.index.get_level_values("file")) for s in raters.values())))
    summary = cards(headlines, boot["confidence"] if boot["n_boot"] else None)
    sections = [
        ("summary", "Summary", section("summary", "Summary", summary + "<h3>Options</h3>"
                                        + options_table(used))),
        ("matrix", "Rater \u00d7 rater", _matrix_section(matrix, alpha, names)),
        ("raters", "Raters", _raters_section(raters, matrix, labels, options)),
        ("labels", "Labels", _labels_section(raters, labels, options)),
        ("disputes", "Disputed spans", _spans_section(spans, raters, names, n_spans, audio, options)),
        ("consensus", "Consensus", _consensus_section(votes)),
    ]
    lines = [
        f"Agreement of {len(names)} raters on {n_files} files (continuous time, exact); "
        "made with audeval (one self-contained page: it loads nothing)"
    ]
    return document(title or "audeval QA report", lines, sections)


def _matrix_section(matrix: pd.DataFrame, alpha: pd.DataFrame, names: list) -> str:
    rows = [*names, CONSENSUS]
    kappa = matrix.loc[rows, rows].to_numpy(dtype=float)
    pairs = alpha.loc[names, names].to_numpy(dtype=float)
    figures = []
    for values, labels, title, ident in (
        (kappa, rows, "Cohen's kappa", "kappa"),
        (pairs, names, "Krippendorff's alpha", "alpha"),
    ):
        finite = values[np.isfinite(values)]
        low = min(0.0, float(finite.min())) if len(finite) else 0.0
        svg = heatmap(values, labels, labels, low=low, high=1.0, column_title="rater",
                      row_title=title, label=f"{title} of every pair of raters")
        figures.append(f'<div class="scroll" id="heatmap-{ident}">{svg}</div>')
    note = ("Cohen's kappa of every pair of raters (audeval.agreement_matrix with "
            "audeval.cohen_kappa; the row rater as truth), and of every rater with the per-label "
            "majority vote; Krippendorff's alpha of every pair (audeval.krippendorff_alpha).")
    body = f'<div class="cards">{"".join(figures)}</div>'
    return section("matrix", "Rater \u00d7 rater agreement", body, note)


def _raters_section(raters: Mapping, matrix: pd.DataFrame, labels, options: Mapping) -> str:
    names = list(raters)
    without = []
    for name in names:  # one alpha per left-out rater (a handful of raters)
        rest = {k: v for k, v in raters.items() if k != name}
        without.append(krippendorff_alpha(rest, labels, **options) if len(rest) >= 2 else np.nan)
    seconds = [
        float(np.nansum((s.index.get_level_values("end") - s.index.get_level_values("start")).total_seconds().to_numpy()))
        for s in raters.values()
    ]
    others = matrix.loc[names, names].to_numpy(dtype=float)
    frame = pd.DataFrame(
        {
            "kappa with consensus": matrix.loc[names, CONSENSUS].to_numpy(dtype=float),
            "mean kappa with others": np.nanmean(others, axis=1) if len(names) > 1 else np.nan,
            "alpha without rater": without,
            "segments": [len(s) for s in raters.values()],
            "labelled seconds": seconds,
        },
        index=pd.Index([str(n) for n in names], name="rater"),
    )
    note = ("Agreement with the consensus (per-label majority vote of all raters) and "
            "Krippendorff's alpha of the other raters: a rater whose removal raises alpha "
            "disagrees most.")
    return section("raters", "Per rater", static_table(frame, "rater-table"), note)


def _labels_section(raters: Mapping, labels, options: Mapping) -> str:
    alpha = krippendorff_alpha(raters, labels, per_label=True, average="none", **options)
    kappa = fleiss_kappa(raters, labels, per_label=True, average="none", **options)
    frame = pd.DataFrame(
        {"krippendorff_alpha": pd.Series(alpha), "fleiss_kappa": pd.Series(kappa)}
    )
    frame.index = pd.Index([str(i) for i in frame.index], name="label")
    note = "Per label (binary: the label or not), over all raters."
    return section("labels", "Per label", static_table(frame, "label-table"), note)


class AudioFinder:
    """The audio file of an annotated file: under ``audio_root`` or the database root."""

    def __init__(self, roots: list[str], output_dir: str | None):
        self.roots = [r for r in roots if r]
        self.output_dir = output_dir

    def __call__(self, file: object) -> str | None:
        file = str(file)
        candidates = [file] if os.path.isabs(file) else [os.path.join(r, file) for r in self.roots]
        for path in candidates:
            if os.path.isfile(path):
                path = os.path.abspath(path)
                if self.output_dir is not None:
                    relative = os.path.relpath(path, self.output_dir)
                    return urllib.parse.quote(relative.replace(os.sep, "/"))
                return "file://" + urllib.parse.quote(path.replace(os.sep, "/"))
        return None


MAX_SPAN_ROWS = 10_000
"""The disputed spans table of a page holds at most the longest this many (page size)."""

GZIP_ABOVE = 1_000_000
"""A consensus CSV larger than this (bytes) is embedded gzip-compressed
and unpacked by the page's script when the link is clicked."""


def _spans_section(spans: pd.DataFrame, raters: Mapping, names: list, n_spans: int,
                   audio: AudioFinder, options: Mapping) -> str:
    n_all = len(spans)
    spans = spans.iloc[:MAX_SPAN_ROWS]
    index = spans.index
    file = index.get_level_values("file").astype(str).tolist()
    start = index.get_level_values("start").total_seconds().to_numpy()
    end = index.get_level_values("end").total_seconds().to_numpy()
    columns = [Column("rank", "#", digits=0, link=True,
                      help="rank by duration; the longest link to their timeline and player"),
               Column("file", "file", "text", filter="text"),
               Column("start", "start / s"), Column("end", "end / s"),
               Column("duration", "duration / s")]
    values = {"rank": np.arange(1, len(spans) + 1), "file": file, "start": start, "end": end,
              "duration": spans["duration"].dt.total_seconds().to_numpy()}
    for k, name in enumerate(names):
        columns.append(Column(f"rater{k}", str(name), "text"))
        values[f"rater{k}"] = spans[name].astype(str).tolist()
    shown = min(int(n_spans), len(spans))
    anchors = {}
    cards_ = []
    categories = _categories(raters)
    for k in range(shown):  # the n longest spans get a timeline and a player
        anchors[str(k + 1)] = f"span-{k}"
        cards_.append(_span_card(k, file[k], start[k], end[k], raters, names, audio, categories))
    table = data_table("spans", columns, values, anchors=anchors, range_column="duration")
    colours = legend([(str(c), PALETTE[i % len(PALETTE)]) for c, i in categories.items()])
    shown_rows = "" if n_all == len(spans) else (
        f" The table holds the {len(spans)} longest; all of them: "
        "audeval agreement --disagreements PATH, or audeval.disagreements."
    )
    note = (f"{n_all} spans where the raters differ (audeval.disagreements), longest first; "
            f"the {shown} longest with the raters' timelines around the span and, where the audio "
            f"is found, a player for exactly the span.{shown_rows}")
    return section("disputes", "Disputed spans", table + colours + "\n".join(cards_), note)


def _categories(raters: Mapping) -> dict:
    labels = []
    for s in raters.values():
        values = s.astype("category").cat.categories if not isinstance(s.dtype, pd.CategoricalDtype) else s.cat.categories
        labels += [str(v) for v in values if str(v) not in labels]
    return {label: i for i, label in enumerate(labels)}


def _span_card(k, file, start, end, raters, names, audio, categories) -> str:
    pad = max(1.0, end - start)
    lo, hi = max(0.0, start - pad), end + pad
    lanes = []
    for name in names:
        s = raters[name]
        in_file = np.asarray(s.index.get_level_values("file").astype(str) == file)
        rows = s[in_file]
        a = rows.index.get_level_values("start").total_seconds().to_numpy()
        b = rows.index.get_level_values("end").total_seconds().to_numpy()
        keep = (b >= lo) & (a <= hi)
        bars = [
            Bar(a[i], b[i], PALETTE[categories[str(v)] % len(PALETTE)], "label",
                f"{name}: {v} {a[i]:.3f}\u2013{b[i]:.3f} s")
            for i, v in zip(np.flatnonzero(keep), rows.to_numpy()[keep])
        ]
        lanes.append(Lane(str(name), bars))
    svg = timeline([Block("", lanes)], lo, hi, width=720,
                   marks=[(start, "span start"), (end, "span end")], band=(start, end),
                   label=f"raters of {file}")
    source = audio(file)
    player = (
        f'<audio controls preload="none" src="{escape(source)}#t={start:.3f},{end:.3f}"></audio>'
        if source else '<span class="note">audio not found</span>'
    )
    return (
        f'<div class="span" id="span-{k}" data-file="{escape(file)}"><h3>{escape(file)} '
        f"{start:.3f}\u2013{end:.3f} s ({end - start:.3f} s)</h3>{player}"
        f'<div class="scroll">{svg}</div></div>'
    )


def _consensus_section(votes: pd.Series) -> str:
    index = votes.index
    frame = pd.DataFrame(
        {
            "file": index.get_level_values("file").astype(str),
            "start": index.get_level_values("start").total_seconds(),
            "end": index.get_level_values("end").total_seconds(),
            "label": votes.astype(str).to_numpy(),
        }
    )
    text = frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
    what = f"download consensus.csv ({len(frame)} segments)"
    if len(text) > GZIP_ABOVE:  # unpacked by the page's script (DecompressionStream)
        data = base64.b64encode(gzip.compress(text, mtime=0)).decode("ascii")
        link = (f'<a class="download" download="consensus.csv" href="#consensus" '
                f'data-gzip="{data}">{what}</a>')
    else:
        data = base64.b64encode(text).decode("ascii")
        link = (f'<a class="download" download="consensus.csv" '
                f'href="data:text/csv;base64,{data}">{what}</a>')
    note = ("The per-label majority vote of all raters (audeval.consensus with per_label=True; "
            "a tie goes to the rater given first), as an audformat CSV (file, start, end in seconds, "
            "label) that audeval.read_annotations reads.")
    return section("consensus", "Consensus", link, note)
