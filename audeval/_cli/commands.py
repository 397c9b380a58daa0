"""The subcommands: each reads its inputs, calls its family's public report and titles it.

A family module is imported when its subcommand runs,
so that a missing family gives a one-line usage error.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd

import audeval

from audeval._cli.inputs import (
    _scored_region,
    load_database,
    LARGE_FILE_BYTES,
    load,
    one_file_lists,
    read_durations,
    read_path_table,
    without_label,
)
from audeval._cli.messages import (
    PROG,
    PROGRESS_MIN_FILES,
    UsageError,
    collect_warnings,
    one_line,
    check_input_file,
    check_output_path,
    phase,
    progress_wanted,
    warn,
    write_text,
)
from audeval._cli.render import TOTAL, Result, render, with_file_level
from audeval._cli.report import report
from audeval._cli.compare import run as compare
from audeval._cli.scores import scores


# columns shown in table and markdown output unless --all-columns
EVENT_COLUMNS = (
    "n_truth",
    "n_prediction",
    "tp",
    "precision",
    "recall",
    "fscore",
    "error_rate",
    "substitution_rate",
    "deletion_rate",
    "insertion_rate",
)
SEGMENT_COLUMNS = (
    "n_truth",
    "n_prediction",
    "precision",
    "recall",
    "fscore",
    "error_rate",
    "substitution_rate",
    "deletion_rate",
    "insertion_rate",
    "accuracy",
)


# columns that count events or segments: integers in csv and json
EVENT_COUNTS = ("n_truth", "n_prediction", "tp", "fp", "fn", "substitutions", "deletions", "insertions")
SEGMENT_COUNTS = ("n_truth", "n_prediction", "tp", "fp", "fn", "tn")


# -------------------------------------------------------------------------
# Events
# -------------------------------------------------------------------------


def _n_files(index: pd.MultiIndex) -> int:
    """The number of files of a statistics table (from the index codes, not the names)."""
    return int(np.count_nonzero(np.bincount(index.codes[0], minlength=len(index.levels[0]))))


def events(args: argparse.Namespace) -> Result:
    """``audeval events``: the event report, per file on request."""
    family = audeval
    data = load(args)
    truth, prediction, labels, marker, shown = data.keep_empty_files()
    onset = None if args.no_onset else args.onset_tolerance
    offset = None if args.no_offset else args.offset_tolerance
    duration = None if args.no_offset else args.duration_tolerance
    if onset is None and offset is None and duration is None:
        raise UsageError("--no-onset and --no-offset together leave nothing to evaluate")
    with phase(args, "Scoring events", data.many):
        stats = family.event_statistics(
            truth,
            prediction,
            labels,
            onset_tolerance=onset,
            offset_tolerance=offset,
            duration_tolerance=duration,
            matching=args.matching,
            files_duration=data.files_duration,
            compat=args.compat,
        )
        stats = without_label(stats, marker)
    options = dict(zero_division=args.zero_division, propagate_nans=args.propagate_nans)
    summary = family.event_report(stats, None, **options)
    n_files = _n_files(stats.index)
    onset_text = "onsets not evaluated" if onset is None else f"onset tolerance {onset:g} s"
    offset_text = (
        "offsets not evaluated"
        if offset is None and duration is None
        else f"offset tolerance max({offset or 0:g} s, {duration or 0:g} x length)"
    )
    title = (
        f"Event-based metrics: {n_files} files, {len(shown)} labels; "
        f"{onset_text}, {offset_text}, {args.matching} matching"
        f"{'; sed_eval compat' if args.compat else ''}"
    )
    if not args.per_file:
        return Result(title, summary, columns=EVENT_COLUMNS, counts=EVENT_COUNTS)
    per_file = audeval.event_report(stats, None, per_file=True, **options)
    per_file = per_file.drop(index=TOTAL, level="file")  # the summary is the TOTAL block
    combined = pd.concat([per_file, with_file_level(summary)])
    return Result(title, summary, per_file, combined, EVENT_COLUMNS, counts=EVENT_COUNTS)


# -------------------------------------------------------------------------
# Segments, structure
# -------------------------------------------------------------------------


def segments(args: argparse.Namespace) -> Result:
    """``audeval segments``: the segment report, per file on request."""
    family = audeval
    data = load(args)
    truth, prediction, labels, marker, shown = data.keep_empty_files()
    with phase(args, "Scoring segments", data.many):
        stats = family.segment_statistics(
            truth,
            prediction,
            labels,
            time_resolution=args.time_resolution,
            files_duration=data.files_duration,
            compat=args.compat,
            gap_label=args.gap_label,
        )
        stats = without_label(stats, marker)
    options = dict(zero_division=args.zero_division)
    summary = family.segment_report(stats, None, **options)
    resolution = (
        "exact time (counts in seconds)"
        if args.time_resolution is None
        else f"time resolution {args.time_resolution:g} s"
    )
    files = set(data.files)
    if data.files_duration is not None:  # files of --files-duration are evaluated files too
        files |= set(data.files_duration.index[data.files_duration.notna()])
    title = f"Segment-based metrics: {len(files)} files, {len(shown)} labels; {resolution}"
    if data.files_duration is None:
        title += "; file length = latest end (no --files-duration)"
    # segment counts are whole numbers; in exact time they are seconds
    counts = () if args.time_resolution is None else SEGMENT_COUNTS
    if not args.per_file:
        return Result(title, summary, columns=SEGMENT_COLUMNS, counts=counts)
    with phase(args, "Scoring segments per file", data.many):
        per_file = family.segment_report(stats, None, per_file=True, **options)
    per_file.index = per_file.index.set_names(["file", "label"])
    # the blocks of the files; the summary gives the TOTAL block
    per_file = per_file[np.asarray(per_file.index.get_level_values("file") != TOTAL)]
    combined = pd.concat([per_file, with_file_level(summary)])
    return Result(title, summary, per_file, combined, SEGMENT_COLUMNS, counts=counts)


def structure(args: argparse.Namespace) -> Result:
    """``audeval structure``: the structure report per file and its mean."""
    family = audeval
    data = load(args)
    with phase(args, "Scoring structure", data.many):
        report = family.structure_report(
            data.truth,
            data.prediction,
            windows=tuple(args.windows),
            frame_size=args.frame_size,
            beta=args.beta,
            trim=args.trim,
            compat=args.compat,
            files_duration=data.files_duration,
        )
    mean = report.mean(numeric_only=True).to_frame("mean").T
    mean.index = pd.Index(["mean"], dtype=object, name="file")
    frame = "exact (frameless)" if args.frame_size is None else f"frame size {args.frame_size:g} s"
    title = f"Structural segmentation: mean over {len(report)} files; {frame}"
    summary = mean.T.rename(columns={"mean": "mean over files"})
    summary.index.name = "metric"
    summary.columns.name = None
    combined = pd.concat([report, mean])
    if not args.per_file:
        return Result(title, summary, None, combined.loc[["mean"]])
    return Result(title, summary, report, combined)


# -------------------------------------------------------------------------
# Diarization, detection
# -------------------------------------------------------------------------


def diarization(args: argparse.Namespace) -> Result:
    """``audeval diarization``: the diarization report per file and in total."""
    family = audeval
    data = load(args)
    with collect_warnings(), phase(args, "Scoring diarization", data.many):
        report = family.diarization_report(
            data.truth,
            data.prediction,
            mapping=args.mapping,
            individual_file_mapping=not args.global_mapping,
            regions=args.regions,
            compat=args.compat,
            **_scored_region(args, family, data),
        )
    title = (
        f"Diarization: {len(report) - 1} files; {_collar_title(args)}"
        f"{', overlap skipped' if args.skip_overlap else ''}; {args.mapping} mapping"
        f"{' over all files' if args.global_mapping else ' per file'}"
        f"{'' if args.regions == 'all' else f'; {args.regions} regions'}"
        f"{'; pyannote compat' if args.compat else ''}"
    )
    return _per_file_with_total(title, report, args.per_file)


def detection(args: argparse.Namespace) -> Result:
    """``audeval detection``: the detection report per file and in total."""
    family = audeval
    data = load(args)
    options = dict(**_scored_region(args, family, data), beta=args.beta)
    if args.zero_division is not None:
        options["zero_division"] = args.zero_division
    with collect_warnings(), phase(args, "Scoring detection", data.many):
        report = family.detection_report(
            data.truth, data.prediction, args.positive_labels, **options
        )
    positive = "every row" if args.positive_labels is None else ", ".join(args.positive_labels)
    title = (
        f"Detection: {len(report) - 1} files; positive: {positive}; {_collar_title(args)}"
        f"{', overlap skipped' if args.skip_overlap else ''}"
    )
    return _per_file_with_total(title, report, args.per_file)



def _collar_title(args: argparse.Namespace) -> str:
    if args.collar_convention == "per_side":
        return f"collar {args.collar:g} s per side (md-eval)"
    return f"collar {args.collar:g} s total width (pyannote)"


def _per_file_with_total(title: str, report: pd.DataFrame, per_file: bool) -> Result:
    is_total = np.asarray(report.index.astype(str) == TOTAL)
    total = report[is_total]
    if not per_file:
        return Result(title, total)
    return Result(title, total, report[~is_total], report)


# -------------------------------------------------------------------------
# Separation
# -------------------------------------------------------------------------


IMPROVEMENTS = ("si_sdri", "sd_sdri", "snri")
"""Columns that compare an estimate with the mixture."""


def separation(args: argparse.Namespace) -> Result:
    """``audeval separation``: separation metrics per file and source, aggregated."""
    import audeval.separation  # deferred: scipy.fft, scipy.linalg, audiofile

    family = audeval.separation
    truth = read_path_table(args.truth, "truth")
    prediction = read_path_table(args.prediction, "prediction")
    options: dict = dict(metrics=args.metrics, permutation=args.permutation)
    if args.mixture is not None:
        check_input_file(args.mixture, "--mixture")
        options["mixture"] = read_path_table(args.mixture, "mixture")
    if args.metrics == "bss_eval_v4":
        options.update(window=args.window, hop=args.hop)
    if args.length_mismatch is not None:
        options["length_mismatch"] = args.length_mismatch
    try:
        scores = family.evaluate(truth, prediction, **options)
    except RuntimeError as error:  # audio decoding errors of soundfile and audiofile
        raise ValueError(f"cannot read audio: {one_line(error)}") from None
    per_source = "source" in scores.index.names
    summary = family.aggregate(scores, how=args.aggregate, level="source" if per_source else "all")
    n_files = scores.index.get_level_values("file").nunique()
    names = {
        "bss_eval_v4": f"BSS Eval v4, {args.aggregate} over windows, then",
        "scale_invariant": f"scale-invariant metrics (dB), {args.aggregate}",
        "bss_eval_sources": f"BSS Eval v3 sources (dB), {args.aggregate}",
        "global_sdr": f"global SDR (uSDR, cSDR; dB), {args.aggregate}",
        "sa_sdr": f"source-aggregated SDR (dB), {args.aggregate}",
    }
    where = "per source" if per_source else ""
    title = f"Source separation: {names[args.metrics]} over {n_files} files {where}".rstrip()
    improvements = [c for c in scores.columns if c in IMPROVEMENTS]
    if improvements and args.mixture is None:
        # the API's rule without a mixture: improvements over the sum of the references
        what = ", ".join(improvements)
        title += f"; {what} over the sum of the references (no --mixture)"
        warn(
            f"{what} are improvements over the sum of the references, "
            "as no --mixture was given; pass --mixture for those of the real mixture"
        )
    if not args.per_file:
        return Result(title, summary)
    per_file = family.aggregate(scores, how=args.aggregate, level="file")
    per_file = per_file.select_dtypes("number")
    total = summary.copy()
    if per_source:
        total.index = pd.MultiIndex.from_arrays(
            [pd.Index([TOTAL] * len(total), dtype=object), pd.Index(list(total.index), dtype=object)],
            names=["file", "source"],
        )
    else:
        total.index = pd.Index([TOTAL], dtype=object, name="file")
    return Result(title, summary, per_file, pd.concat([per_file, total]))


# -------------------------------------------------------------------------
# Example
# -------------------------------------------------------------------------


def example(args: argparse.Namespace) -> Result | str:
    """``audeval example``: events and segments of the shipped example data."""
    from audeval._cli.parser import build_parser
    from audeval._io.example import example_files

    paths = example_files()
    if args.path:
        return os.path.dirname(paths["truth"]) + "\n"
    intro = (
        "audeval example: 6 radio clips with the labels music, speech and noise,\n"
        "truth of a rater and prediction of a detector (files in "
        f"{os.path.dirname(paths['truth'])}).\n"
        "The same as:\n"
        f"  {PROG} events --example --onset-tolerance 0.5 --no-offset\n"
        f"  {PROG} segments --example --time-resolution 0.01\n"
    )
    output = ["--format", args.format, "--no-progress"]
    if args.per_file:
        output.append("--per-file")
    if args.decimals is not None:
        output += ["--decimals", str(args.decimals)]
    parser = build_parser()
    parts = [intro]
    for run, argv in (
        (events, ["events", "--example", "--onset-tolerance", "0.5", "--no-offset"]),
        (segments, ["segments", "--example", "--time-resolution", "0.01"]),
    ):
        result = run(parser.parse_args([*argv, *output]))
        parts.append(render(result, args.format, args.decimals, args.all_columns))
    return "\n".join(parts) if args.format in ("table", "markdown") else "".join(parts[1:])


def _raters(args: argparse.Namespace) -> dict:
    """Rater -> annotations: from files or folders, or the rater columns of a database."""
    if args.database is not None:
        if args.raters:
            raise UsageError("give either rater files or --database, not both")
        if args.names:
            raise UsageError("--names goes with rater files; a database names its raters")
        raters = audeval.rater_annotations(load_database(args.database), scheme=args.scheme)
    else:
        names = args.names or [
            os.path.splitext(os.path.basename(os.path.normpath(p)))[0] for p in args.raters
        ]
        if len(names) != len(args.raters) or len(set(names)) != len(names):
            raise UsageError(f"--names must give {len(args.raters)} different names; got {names}")
        raters = one_file_lists(  # type: ignore[assignment]  # names are str
            {name: read_rater(path, args, name) for name, path in zip(names, args.raters)},
            list(args.raters),
        )
    if len(raters) < 2:
        raise UsageError("agreement needs the annotations of at least two raters")
    return raters


def read_rater(path: str, args: argparse.Namespace, name: str) -> pd.Series:
    """One rater's annotations (a bar over the files of a folder)."""
    large = os.path.isfile(path) and os.path.getsize(path) > LARGE_FILE_BYTES
    with phase(args, f"Reading {name}", large):
        return audeval.read_annotations(path, verbose=progress_wanted(args))



def agreement(args: argparse.Namespace) -> Result:
    """``audeval agreement``: pairwise Cohen's kappa, Fleiss' kappa and Krippendorff's alpha.

    With ``--per-label`` also Fleiss' kappa and Krippendorff's alpha of every label;
    ``--disagreements`` and ``--consensus`` write :func:`audeval.disagreements`
    and :func:`audeval.consensus` as CSV files.
    """
    for option in ("disagreements", "consensus"):
        check_output_path(getattr(args, option), f"--{option}")
    raters = _raters(args)
    names = list(raters)
    files_duration = read_durations(args.files_duration, "exact")
    spans = dict(frame_size=args.frame_size, files_duration=files_duration)
    options = dict(per_label=args.per_label, **spans)
    n_files = len(set().union(*(s.index.get_level_values("file") for s in raters.values())))
    many = n_files > PROGRESS_MIN_FILES  # progress lines while scoring
    with phase(args, "Scoring agreement", many):
        matrix = audeval.agreement_matrix(raters, metric=audeval.cohen_kappa, **options)
        overall = {
            "fleiss_kappa": audeval.fleiss_kappa(raters, **options),
            "krippendorff_alpha": audeval.krippendorff_alpha(raters, **options),
        }
    matrix.index.name = "rater"
    summary = pd.concat(
        [matrix, pd.DataFrame(overall, index=pd.Index([ALL_RATERS], name="rater"))], axis=1
    )
    what = "per label" if args.per_label else "label sets"
    grid = "exact" if args.frame_size is None else f"frames of {args.frame_size:g} s"
    title = (
        f"Agreement of {len(names)} raters on {n_files} files ({what}, {grid}): "
        "Cohen's kappa of every pair (row rater as truth), Fleiss' kappa and "
        f"Krippendorff's alpha over all raters"
        f"{' (mean over labels)' if args.per_label else ''}"
    )
    if files_duration is None:
        title += "; file length = latest end (no --files-duration)"
    blocks = [_long(summary, TOTAL)]
    extra = []
    if args.per_label:
        with phase(args, "Scoring agreement per label", many):
            per_label = pd.DataFrame(
                {
                    name: function(raters, per_label=True, average="none", **spans)
                    for name, function in (
                        ("fleiss_kappa", audeval.fleiss_kappa),
                        ("krippendorff_alpha", audeval.krippendorff_alpha),
                    )
                }
            )
        per_label.index = pd.Index(list(per_label.index), dtype=object, name="label")
        extra.append(("Per label (over all raters)", per_label))
        blocks.append(_long(per_label, TOTAL, label=True))
    per_file = None
    if args.per_file:
        with phase(args, "Scoring agreement per file", many):
            per_file = pd.DataFrame(
                {
                    "fleiss_kappa": audeval.fleiss_kappa(raters, per_file=True, **options),
                    "krippendorff_alpha": audeval.krippendorff_alpha(
                        raters, per_file=True, **options
                    ),
                }
            )
        per_file.index = pd.Index(list(per_file.index), dtype=object, name="file")
        blocks.insert(0, _per_file_long(per_file))
    _write_spans(args, raters, spans, many)
    combined = pd.concat(blocks)[list(summary.columns)]
    return Result(title, summary, per_file, combined, extra=extra)


ALL_RATERS = "all raters"


def _long(table: pd.DataFrame, file: str, label: bool = False) -> pd.DataFrame:
    """Rows of one block of the long agreement table, indexed by (file, rater, label)."""
    n = len(table)
    rows = list(table.index)
    out = table.copy()
    out.index = pd.MultiIndex.from_arrays(
        [
            pd.Index([file] * n, dtype=object),
            pd.Index([ALL_RATERS] * n if label else rows, dtype=object),
            pd.Index(rows if label else [""] * n, dtype=object),
        ],
        names=["file", "rater", "label"],
    )
    return out


def _per_file_long(per_file: pd.DataFrame) -> pd.DataFrame:
    out = per_file.copy()
    n = len(out)
    out.index = pd.MultiIndex.from_arrays(
        [
            pd.Index(list(per_file.index), dtype=object),
            pd.Index([ALL_RATERS] * n, dtype=object),
            pd.Index([""] * n, dtype=object),
        ],
        names=["file", "rater", "label"],
    )
    return out


def _seconds_text(ns: np.ndarray) -> list[str]:
    """Integer nanoseconds as exact decimal seconds (``2.2``, ``10``)."""
    ns = np.asarray(ns, dtype=np.int64)
    whole, fraction = np.divmod(ns, 1_000_000_000)
    return [
        f"{w}.{f:09d}".rstrip("0").rstrip(".") for w, f in zip(whole.tolist(), fraction.tolist())
    ]


def _span_table(frame: pd.DataFrame) -> pd.DataFrame:
    """A segmented table with start, end (and duration) in seconds, for a CSV file."""
    index = frame.index
    out = {
        "file": index.get_level_values("file").astype(object).tolist(),
        "start": _seconds_text(index.get_level_values("start").as_unit("ns").asi8),
        "end": _seconds_text(index.get_level_values("end").as_unit("ns").asi8),
    }
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_timedelta64_dtype(values.dtype):
            out[column] = _seconds_text(values.dt.as_unit("ns").to_numpy().astype(np.int64))
        else:
            out[column] = values.astype(object).tolist()
    return pd.DataFrame(out)


def _write_spans(args: argparse.Namespace, raters: dict, spans: dict, many: bool) -> None:
    """``--disagreements`` and ``--consensus``: CSV files of the public API's tables."""
    if args.disagreements is not None:
        with phase(args, "Finding disagreements", many):
            table = audeval.disagreements(raters, **spans)
            table = table.sort_values("duration", ascending=False, kind="stable")
            text = _span_table(table).to_csv(index=False, lineterminator="\n")
        write_text(args.disagreements, "--disagreements", text)
    if args.consensus is not None:
        with phase(args, "Voting the consensus", many):
            votes = audeval.consensus(raters, per_label=args.per_label, **spans)
            text = _span_table(votes.to_frame()).to_csv(index=False, lineterminator="\n")
        write_text(args.consensus, "--consensus", text)


RUN = {
    "example": example,
    "events": events,
    "segments": segments,
    "structure": structure,
    "diarization": diarization,
    "detection": detection,
    "scores": scores,
    "agreement": agreement,
    "separation": separation,
    "report": report,
    "compare": compare,
}
"""The function of every subcommand."""


__all__ = ["RUN"]
