"""The ``audeval`` command line interface (SPEC section 8).

One subcommand per metric family::

    audeval example
    audeval events TRUTH PREDICTION [options]
    audeval segments TRUTH PREDICTION [options]
    audeval structure TRUTH PREDICTION [options]
    audeval diarization TRUTH PREDICTION [options]
    audeval detection TRUTH PREDICTION [options]
    audeval separation TRUTH PREDICTION [options]

TRUTH and PREDICTION are annotation files or directories
in any format :func:`audeval.read_annotations` reads.
Bad input gives one line ``audeval: error: ...`` on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
import contextlib
import json
import math
import os
import posixpath
import shutil
import sys
import warnings

import numpy as np
import pandas as pd


PROG = "audeval"
FORMATS = ("table", "csv", "json", "markdown")
INPUT_FORMATS = ("auto", "tsv", "lab", "rttm", "csv", "db")
TOTAL = "TOTAL"
MAX_FILES_SHOWN = 5
PROGRESS_MIN_FILES = 10
# counts: shown without decimals when they are whole numbers
COUNT_COLUMNS = frozenset(
    {
        "n_truth",
        "n_prediction",
        "tp",
        "fp",
        "fn",
        "tn",
        "substitutions",
        "deletions",
        "insertions",
        "substituted",
        "substituting",
        "speakers",
    }
)
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


class UsageError(Exception):
    """Bad command line: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser that reports errors in one line instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


# -------------------------------------------------------------------------
# Small argument types
# -------------------------------------------------------------------------


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected non-negative seconds, got {text!r}")
    return value


def _seconds_or_none(text: str) -> float | None:
    if text.strip().lower() in ("none", "off", "exact"):
        return None
    return _seconds(text)


def _positive_seconds_or_none(text: str) -> float | None:
    value = _seconds_or_none(text)
    if value is not None and value <= 0:
        raise argparse.ArgumentTypeError(f"expected positive seconds or 'none', got {text!r}")
    return value


def _number(text: str) -> float:
    if text.strip().lower() == "nan":
        return float("nan")
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _list(text: str) -> list[str]:
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
    return items


def _seconds_list(text: str) -> list[float]:
    return [_seconds(item) for item in _list(text)]


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


# -------------------------------------------------------------------------
# Messages, progress
# -------------------------------------------------------------------------


def _one_line(error: BaseException) -> str:
    """An exception message as one line (multi-line messages are joined)."""
    text = str(error)
    if isinstance(error, KeyError) and len(error.args) == 1:
        text = str(error.args[0])
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    text = " ".join(lines) if lines else type(error).__name__
    text = " ".join(text.split())
    return text if len(text) <= 400 else text[:397] + "..."


def _warn(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)


def _show_files(files: Sequence) -> str:
    shown = ", ".join(str(f) for f in list(files)[:MAX_FILES_SHOWN])
    return shown + (f", ... ({len(files)} in all)" if len(files) > MAX_FILES_SHOWN else "")


def _progress_wanted(args: argparse.Namespace) -> bool:
    return not getattr(args, "no_progress", False) and sys.stderr.isatty()


def _progress(items: list, args: argparse.Namespace, desc: str):
    if _progress_wanted(args) and len(items) > PROGRESS_MIN_FILES:
        import audeer

        return audeer.progress_bar(items, desc=desc)
    return items


# -------------------------------------------------------------------------
# Reading the two sides
# -------------------------------------------------------------------------


def _import_family(module: str, subcommand: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        missing = getattr(error, "name", None)
        if missing == module:
            raise UsageError(
                f"'{subcommand}' is not available in this version of audeval "
                f"(module {module} is missing)"
            ) from None
        raise


def _read_side(args: argparse.Namespace, side: str) -> pd.Series:
    from audeval._readers import read_annotations

    path = getattr(args, side)
    format = getattr(args, f"{side}_format") or args.input_format
    table = getattr(args, f"{side}_table") or args.table
    column = getattr(args, f"{side}_column") or args.column
    return read_annotations(
        path,
        format=format,
        table=table,
        column=column,
        verbose=_progress_wanted(args),
    )


def _files_of(series: pd.Series) -> list:
    files = series.attrs.get("files")
    if files is None:
        files = list(dict.fromkeys(series.index.get_level_values("file")))
    return list(files)


def _stem(file: str) -> str:
    return posixpath.splitext(posixpath.basename(str(file).replace("\\", "/")))[0]


def _rename_files(series: pd.Series, name: str) -> pd.Series:
    """Files reduced to their stem (``audio/a.wav`` -> ``a``), collisions are errors."""
    files = _files_of(series)
    stems = [_stem(f) for f in files]
    seen: dict[str, str] = {}
    for file, stem in zip(files, stems):
        if stem in seen and seen[stem] != file:
            raise ValueError(
                f"{name}: the files {seen[stem]!r} and {file!r} have the same stem {stem!r}; "
                "use --match-files exact."
            )
        seen[stem] = file
    mapping = dict(zip(files, stems))
    index = series.index
    if isinstance(index, pd.MultiIndex):
        index = index.set_levels(index.levels[0].map(lambda f: mapping.get(f, _stem(f))), level=0)
    else:
        index = index.map(lambda f: mapping.get(f, _stem(f)))
        index.name = "file"
    renamed = series.copy()
    renamed.index = index
    renamed.attrs["files"] = list(dict.fromkeys(stems))
    return renamed


def _label_kind(series: pd.Series) -> str:
    values = series.cat.categories if isinstance(series.dtype, pd.CategoricalDtype) else series
    kind = pd.api.types.infer_dtype(values, skipna=True)
    return "string" if kind in ("string", "empty") else kind


def _harmonise_labels(truth: pd.Series, prediction: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Compare labels as text when one side has text and the other numbers."""
    kinds = {_label_kind(truth), _label_kind(prediction)}
    if len(kinds) == 2 and "string" in kinds:
        out = []
        for series in (truth, prediction):
            if _label_kind(series) != "string":
                attrs = dict(series.attrs)
                series = series.astype(str).astype(object)
                series.attrs.update(attrs)
            out.append(series)
        return out[0], out[1]
    return truth, prediction


class Data:
    """Truth, prediction and what the command line adds to them."""

    def __init__(
        self,
        truth: pd.Series,
        prediction: pd.Series,
        files_duration: pd.Series | None,
        labels: list | None,
    ) -> None:
        self.truth = truth
        self.prediction = prediction
        self.files_duration = files_duration
        self.labels = labels
        self.files = list(dict.fromkeys(_files_of(truth) + _files_of(prediction)))

    def keep_empty_files(self) -> tuple[pd.Series, pd.Series, list]:
        """Truth and prediction that keep files without events, and the labels.

        A file named in the input without any event
        gets a zero-length row with a label outside ``labels``:
        the validation gate keeps its file in the evaluation
        and leaves the row out.
        """
        from audeval._validation import check_inputs

        labels = self.labels
        if labels is None:
            labels = list(check_inputs(self.truth, self.prediction, require_end=False).labels)
        used = set(self.truth.index.get_level_values("file")) | set(
            self.prediction.index.get_level_values("file")
        )
        empty = [f for f in self.files if f not in used]
        if not empty or not isinstance(self.truth.index, pd.MultiIndex):
            return self.truth, self.prediction, labels
        import audformat

        marker = "\x00no event"
        while marker in labels:
            marker += "\x00"
        index = audformat.segmented_index(empty, [0.0] * len(empty), [0.0] * len(empty))
        truth = self.truth
        if isinstance(truth.dtype, pd.CategoricalDtype):
            truth = truth.astype(object)
        filler = pd.Series([marker] * len(empty), index=index, dtype=object)
        truth = pd.concat([truth.astype(object), filler])
        return truth, self.prediction, labels


def _load(args: argparse.Namespace) -> Data:
    """Read truth, prediction and durations as the arguments say."""
    from audeval._example import example_files
    from audeval._readers import read_files_duration

    files_duration_path = args.files_duration
    if getattr(args, "example", False):
        if args.truth is not None or args.prediction is not None:
            raise UsageError("give either --example or TRUTH and PREDICTION, not both")
        paths = example_files()
        args.truth, args.prediction = paths["truth"], paths["prediction"]
        if files_duration_path is None:
            files_duration_path = paths["files_duration"]
    elif args.truth is None or args.prediction is None:
        raise UsageError(
            "the following arguments are required: TRUTH, PREDICTION "
            f"(see '{PROG} {args.command} --help')"
        )
    truth = _read_side(args, "truth")
    prediction = _read_side(args, "prediction")
    files_duration = read_files_duration(files_duration_path) if files_duration_path else None
    if args.match_files == "stem":
        truth = _rename_files(truth, "truth")
        prediction = _rename_files(prediction, "prediction")
        if files_duration is not None:
            files_duration = files_duration.copy()
            files_duration.index = pd.Index(
                [_stem(f) for f in files_duration.index], name="file", dtype=object
            )
            if not files_duration.index.is_unique:
                raise ValueError("--files-duration: two files have the same stem.")
    truth, prediction = _harmonise_labels(truth, prediction)
    _report_one_sided(truth, prediction, args)
    labels = getattr(args, "labels", None)
    return Data(truth, prediction, files_duration, labels)


def _report_one_sided(truth: pd.Series, prediction: pd.Series, args: argparse.Namespace) -> None:
    truth_files = _files_of(truth)
    prediction_files = _files_of(prediction)
    only_truth = [f for f in truth_files if f not in set(prediction_files)]
    only_prediction = [f for f in prediction_files if f not in set(truth_files)]
    if not only_truth and not only_prediction:
        return
    if not set(truth_files) & set(prediction_files) and args.match_files == "exact":
        stems = {_stem(f) for f in truth_files} & {_stem(f) for f in prediction_files}
        if stems:
            _warn(
                "truth and prediction have no file in common, "
                "but their file names agree without folder and extension; "
                "use --match-files stem"
            )
    if only_truth:
        _warn(
            f"{len(only_truth)} file(s) only in the truth, scored as missed: "
            f"{_show_files(only_truth)}"
        )
    if only_prediction:
        _warn(
            f"{len(only_prediction)} file(s) only in the prediction, scored as false alarms: "
            f"{_show_files(only_prediction)}"
        )


# -------------------------------------------------------------------------
# Results and output formats
# -------------------------------------------------------------------------


class Result:
    """What a subcommand computed: titled tables and one table for machines."""

    def __init__(
        self,
        title: str,
        summary: pd.DataFrame,
        per_file: pd.DataFrame | None = None,
        combined: pd.DataFrame | None = None,
        columns: Sequence[str] | None = None,
    ) -> None:
        self.title = title
        self.summary = summary
        self.per_file = per_file
        self.combined = combined if combined is not None else summary
        self.columns = columns  # shown in table and markdown unless --all-columns

    def sections(self, all_columns: bool = True) -> list[tuple[str, pd.DataFrame]]:
        sections = []
        if self.per_file is not None:
            sections.append(("Per file", self.per_file))
        sections.append((self.title, self.summary))
        if all_columns or self.columns is None:
            return sections
        return [(title, table[[c for c in self.columns if c in table.columns]]) for title, table in sections]


def _with_file_level(summary: pd.DataFrame, name: str = TOTAL) -> pd.DataFrame:
    """``summary`` indexed by ``label`` as rows of file ``name``."""
    out = summary.copy()
    out.index = pd.MultiIndex.from_arrays(
        [pd.Index([name] * len(out), dtype=object), pd.Index(list(out.index), dtype=object)],
        names=["file", out.index.name or "label"],
    )
    return out


def _integer_valued(values: pd.Series) -> bool:
    if not pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
        return False
    finite = values.to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    return bool(len(finite)) and bool(np.all(finite == np.round(finite)))


def _formatted(table: pd.DataFrame, decimals: int) -> pd.DataFrame:
    """Cells as text: counts without decimals, other numbers rounded, NaN blank."""
    out = {}
    for column in table.columns:
        values = table[column]
        if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(
            values.dtype
        ):
            count = column in COUNT_COLUMNS or pd.api.types.is_integer_dtype(values.dtype)
            digits = 0 if count and _integer_valued(values) else decimals
            out[column] = [
                "" if pd.isna(v) else ("inf" if v == np.inf else "-inf" if v == -np.inf else f"{v:.{digits}f}")
                for v in values.to_numpy(dtype=float)
            ]
        else:
            out[column] = ["" if _isna(v) else str(v) for v in values]
    return pd.DataFrame(out, index=table.index, columns=table.columns)


def _isna(value: object) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _index_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The index as leading columns (for csv, json and markdown)."""
    names = [n if n is not None else "" for n in table.index.names]
    out = table.copy()
    out.index = out.index.set_names(names)
    return out.reset_index()


def _markdown(table: pd.DataFrame, decimals: int) -> str:
    frame = _index_frame(_formatted(table, decimals))
    n_index = table.index.nlevels
    numeric = [False] * n_index + [
        pd.api.types.is_numeric_dtype(table[c].dtype) for c in table.columns
    ]
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---:" if right else "---" for right in numeric) + "|"
    rows = [
        "| " + " | ".join(str(v).replace("|", "\\|") for v in record) + " |"
        for record in frame.itertuples(index=False)
    ]
    return "\n".join([header, rule, *rows])


def _table_text(table: pd.DataFrame, decimals: int) -> str:
    width = shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 120
    text = _formatted(table, decimals)
    return text.to_string(line_width=max(width, 60), justify="right")


def render(
    result: Result, format: str, decimals: int | None, all_columns: bool = False
) -> str:
    """The text of ``result`` in ``format``."""
    if format == "table":
        digits = 3 if decimals is None else decimals
        parts = [
            f"{title}\n\n{_table_text(table, digits)}"
            for title, table in result.sections(all_columns)
        ]
        return "\n\n".join(parts) + "\n"
    if format == "markdown":
        digits = 3 if decimals is None else decimals
        parts = [
            f"### {title}\n\n{_markdown(table, digits)}"
            for title, table in result.sections(all_columns)
        ]
        return "\n\n".join(parts) + "\n"
    table = result.combined
    if decimals is not None:
        table = table.round(decimals)
    frame = _index_frame(table)
    if format == "csv":
        return frame.to_csv(index=False, lineterminator="\n")
    records = json.loads(frame.to_json(orient="records", double_precision=15))
    return json.dumps(records, indent=2) + "\n"


# -------------------------------------------------------------------------
# Families
# -------------------------------------------------------------------------


def _call(function: Callable, *args, **kwargs):
    """Call a report function with the keywords it knows; unknown ones are usage errors."""
    import inspect

    parameters = inspect.signature(function).parameters
    unknown = [name for name in kwargs if name not in parameters]
    if unknown:
        raise UsageError(
            f"{function.__name__} of this version of audeval has no option "
            f"{', '.join('--' + n.replace('_', '-') for n in unknown)}"
        )
    return function(*args, **kwargs)


def _events(args: argparse.Namespace) -> Result:
    events = _import_family("audeval._events", "events")
    data = _load(args)
    truth, prediction, labels = data.keep_empty_files()
    onset = None if args.no_onset else args.onset_tolerance
    offset = None if args.no_offset else args.offset_tolerance
    duration = None if args.no_offset else args.duration_tolerance
    if onset is None and offset is None and duration is None:
        raise UsageError("--no-onset and --no-offset together leave nothing to evaluate")
    stats = events.event_statistics(
        truth,
        prediction,
        labels,
        onset_tolerance=onset,
        offset_tolerance=offset,
        duration_tolerance=duration,
        matching=args.matching,
        files_duration=data.files_duration,
    )
    options = dict(zero_division=args.zero_division, propagate_nans=args.propagate_nans)
    summary = events.event_report(stats, None, **options)
    n_files = stats.index.get_level_values("file").nunique()
    onset_text = "onsets not evaluated" if onset is None else f"onset tolerance {onset:g} s"
    offset_text = (
        "offsets not evaluated"
        if offset is None and duration is None
        else f"offset tolerance max({offset or 0:g} s, {duration or 0:g} x length)"
    )
    title = (
        f"Event-based metrics: {n_files} files, {len(labels)} labels; "
        f"{onset_text}, {offset_text}, {args.matching} matching"
    )
    if not args.per_file:
        return Result(title, summary, columns=EVENT_COLUMNS)
    per_file = _events_per_file(events, stats, options, args)
    combined = pd.concat([per_file, _with_file_level(summary)])
    return Result(title, summary, per_file, combined, EVENT_COLUMNS)


def _events_per_file(events, stats: pd.DataFrame, options: dict, args) -> pd.DataFrame:
    """Class-wise, micro and macro rows of every file, from the statistics table.

    Class-wise rows of all files come from one report
    whose labels are the (file, label) pairs;
    the micro rows from ``event_report(per_file=True)``
    (file by file where that is not available);
    the macro rows are the mean of each file's class-wise rows, NaN ignored,
    as in the report of a single file.
    """
    n = len(stats)
    files = pd.unique(stats.index.get_level_values("file"))
    labels = list(stats.index.get_level_values("label").categories)
    pairs = stats.copy()
    pairs.index = pd.MultiIndex.from_arrays(
        [
            pd.Index(["*"] * n, dtype=object, name="file"),
            pd.CategoricalIndex(np.arange(n), categories=np.arange(n), ordered=True, name="label"),
        ]
    )
    classwise = events.event_report(pairs, None, **options).iloc[:n]
    classwise.index = stats.index
    micro = None
    try:
        micro = events.event_report(stats, None, per_file=True, **options)
        micro = micro.loc[[f for f in files]]
    except TypeError:  # event_report(per_file=True) fails in this version
        sums = stats.groupby(level="file", sort=False, observed=True).sum()
        if hasattr(events, "overall"):  # the rule of the micro row, on per-file sums
            micro = pd.DataFrame(events.overall(sums, options["zero_division"]), index=sums.index)
            micro = micro.loc[[f for f in files]]
        else:
            micro = None
    if micro is None:
        micro = pd.DataFrame(
            {
                file: events.event_report(
                    stats.xs(file, level="file", drop_level=False), None, **options
                ).loc["micro"]
                for file in _progress(list(files), args, "Scoring")
            }
        ).T
    rate_columns = [c for c in classwise.columns if c not in COUNT_COLUMNS]
    macro = classwise[rate_columns].groupby(level="file", sort=False).mean()
    blocks = []
    codes_file = np.arange(len(files))
    for name, table in (("micro", micro), ("macro", macro)):
        table = table.reindex(columns=classwise.columns.union(table.columns, sort=False))
        table.index = pd.MultiIndex.from_arrays(
            [pd.Index(list(files), dtype=object), pd.Index([name] * len(files), dtype=object)],
            names=["file", "label"],
        )
        blocks.append(table)
    classwise = classwise.reindex(columns=blocks[0].columns)
    classwise.index = pd.MultiIndex.from_arrays(
        [
            pd.Index(list(stats.index.get_level_values("file")), dtype=object),
            pd.Index(list(stats.index.get_level_values("label")), dtype=object),
        ],
        names=["file", "label"],
    )
    out = pd.concat([classwise, *blocks])
    order = np.concatenate(
        [
            np.repeat(codes_file, len(labels)),
            codes_file,
            codes_file,
        ]
    )
    rank = np.concatenate(
        [
            np.tile(np.arange(len(labels)), len(files)),
            np.full(len(files), len(labels)),
            np.full(len(files), len(labels) + 1),
        ]
    )
    out = out.iloc[np.lexsort((rank, order))]
    summary_columns = events.event_report(stats.iloc[:0], None, **options).columns
    return out[[c for c in summary_columns if c in out.columns]].astype(float)


def _segments(args: argparse.Namespace) -> Result:
    segments = _import_family("audeval._segments", "segments")
    data = _load(args)
    truth, prediction, labels = data.keep_empty_files()
    options = dict(
        time_resolution=args.time_resolution,
        files_duration=data.files_duration,
        zero_division=args.zero_division,
    )
    if args.compat is not None:
        options["compat"] = args.compat
    summary = _call(segments.segment_report, truth, prediction, labels, **options)
    resolution = (
        "exact time (counts in seconds)"
        if args.time_resolution is None
        else f"time resolution {args.time_resolution:g} s"
    )
    n_files = len(set(data.files))
    title = f"Segment-based metrics: {n_files} files, {len(labels)} labels; {resolution}"
    if data.files_duration is None:
        title += "; file length = latest end (no --files-duration)"
    if not args.per_file:
        return Result(title, summary, columns=SEGMENT_COLUMNS)
    per_file = _call(segments.segment_report, truth, prediction, labels, per_file=True, **options)
    per_file.index = per_file.index.set_names(["file", "label"])
    combined = pd.concat([per_file, _with_file_level(summary)])
    return Result(title, summary, per_file, combined, SEGMENT_COLUMNS)


def _structure(args: argparse.Namespace) -> Result:
    structure = _import_family("audeval._structure", "structure")
    data = _load(args)
    options = dict(
        windows=tuple(args.windows),
        frame_size=args.frame_size,
        beta=args.beta,
        trim=args.trim,
        files_duration=data.files_duration,
    )
    if args.compat is not None:
        options["compat"] = args.compat
    report = _call(structure.structure_report, data.truth, data.prediction, **options)
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


def _diarization(args: argparse.Namespace) -> Result:
    diarization = _import_family("audeval._diarization", "diarization")
    data = _load(args)
    options = dict(
        mapping=args.mapping,
        individual_file_mapping=not args.global_mapping,
        collar=args.collar,
        skip_overlap=args.skip_overlap,
        files_duration=data.files_duration,
    )
    with _collect_warnings():
        report = _call(diarization.diarization_report, data.truth, data.prediction, **options)
    title = (
        f"Diarization: {len(report) - 1} files; collar {args.collar:g} s"
        f"{', overlap skipped' if args.skip_overlap else ''}; {args.mapping} mapping"
        f"{' over all files' if args.global_mapping else ' per file'}"
    )
    return _per_file_with_total(title, report, args.per_file)


def _detection(args: argparse.Namespace) -> Result:
    diarization = _import_family("audeval._diarization", "detection")
    data = _load(args)
    options = dict(
        collar=args.collar,
        skip_overlap=args.skip_overlap,
        files_duration=data.files_duration,
        beta=args.beta,
    )
    if args.zero_division is not None:
        options["zero_division"] = args.zero_division
    with _collect_warnings():
        report = _call(
            diarization.detection_report,
            data.truth,
            data.prediction,
            args.positive_labels,
            **options,
        )
    positive = "every row" if args.positive_labels is None else ", ".join(args.positive_labels)
    title = (
        f"Detection: {len(report) - 1} files; positive: {positive}; collar {args.collar:g} s"
        f"{', overlap skipped' if args.skip_overlap else ''}"
    )
    return _per_file_with_total(title, report, args.per_file)


def _per_file_with_total(title: str, report: pd.DataFrame, per_file: bool) -> Result:
    is_total = np.asarray([str(i) == TOTAL for i in report.index])
    total = report[is_total]
    if not per_file:
        return Result(title, total)
    return Result(title, total, report[~is_total], report)


@contextlib.contextmanager
def _collect_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    shown = set()
    for warning in caught:
        if issubclass(warning.category, UserWarning):  # not deprecations of dependencies
            text = _one_line(warning.message)  # type: ignore[arg-type]
            if text not in shown:
                shown.add(text)
                _warn(text)


def _read_path_table(path: str, name: str) -> pd.DataFrame:
    """A CSV of audio paths: ``file`` column plus one column per source.

    Relative paths are taken relative to the folder of the CSV.
    """
    import audformat

    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file or directory.")
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a directory, expected a CSV of audio paths.")
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except (pd.errors.EmptyDataError, pd.errors.ParserError) as error:
        raise ValueError(f"{path}: cannot be read as CSV ({_one_line(error)}).") from None
    table.columns = [str(c).strip() for c in table.columns]
    if "file" not in table.columns or len(table.columns) < 2:
        raise ValueError(
            f"{path}:1: {name} needs a 'file' column and one column of audio paths per source; "
            f"got columns {list(table.columns)}."
        )
    folder = os.path.dirname(os.path.abspath(path))
    for column in table.columns:
        values = table[column].str.strip()
        empty = values.eq("").to_numpy()
        if empty.any():
            line = int(np.flatnonzero(empty)[0]) + 2
            raise ValueError(f"{path}:{line}: empty cell in column {column!r}.")
        if column != "file":
            values = values.map(lambda v: v if os.path.isabs(v) else os.path.join(folder, v))
            exists = values.map(os.path.isfile).to_numpy(dtype=bool)
            if not exists.all():
                line = int(np.flatnonzero(~exists)[0]) + 2
                raise ValueError(
                    f"{path}:{line}: no audio file {table[column].iloc[line - 2]!r} "
                    f"(column {column!r})."
                )
        table[column] = values
    index = audformat.filewise_index(table["file"].tolist())
    if not index.is_unique:
        raise ValueError(f"{path}: names a file twice.")
    return pd.DataFrame(
        {c: table[c].tolist() for c in table.columns if c != "file"}, index=index
    )


def _separation(args: argparse.Namespace) -> Result:
    separation = _import_family("audeval.separation", "separation")
    if not hasattr(separation, "evaluate"):
        raise UsageError("'separation' is not available in this version of audeval")
    truth = _read_path_table(args.truth, "truth")
    prediction = _read_path_table(args.prediction, "prediction")
    options: dict = dict(metrics=args.metrics, permutation=args.permutation)
    if args.mixture is not None:
        options["mixture"] = _read_path_table(args.mixture, "mixture")
    if args.metrics == "bss_eval_v4":
        options.update(window=args.window, hop=args.hop)
    if args.length_mismatch is not None:
        options["length_mismatch"] = args.length_mismatch
    try:
        scores = _call(separation.evaluate, truth, prediction, **options)
    except RuntimeError as error:  # audio decoding errors of soundfile and audiofile
        raise ValueError(f"cannot read audio: {_one_line(error)}") from None
    summary = separation.aggregate(scores, how=args.aggregate)
    metrics = "BSS Eval v4" if args.metrics == "bss_eval_v4" else "scale-invariant metrics (dB)"
    n_files = scores.index.get_level_values("file").nunique()
    title = f"Source separation: {metrics}, {args.aggregate} over {n_files} files per source"
    if args.metrics == "bss_eval_v4":
        title = (
            f"Source separation: {metrics}, {args.aggregate} over windows, "
            f"then over {n_files} files per source"
        )
    if not args.per_file:
        return Result(title, summary)
    per_file = separation.aggregate(scores, how=args.aggregate, level="file")
    per_file = per_file.select_dtypes("number")
    total = summary.copy()
    total.index = pd.MultiIndex.from_arrays(
        [pd.Index([TOTAL] * len(total), dtype=object), pd.Index(list(total.index), dtype=object)],
        names=["file", "source"],
    )
    return Result(title, summary, per_file, pd.concat([per_file, total]))


def _example(args: argparse.Namespace) -> Result | str:
    from audeval._example import example_files

    paths = example_files()
    if args.path:
        return os.path.dirname(paths["truth"]) + "\n"
    parts = []
    intro = (
        "audeval example: 6 radio clips with the labels music, speech and noise,\n"
        "truth of a rater and prediction of a detector (files in "
        f"{os.path.dirname(paths['truth'])}).\n"
        "The same as:\n"
        f"  {PROG} events --example --onset-tolerance 0.5 --no-offset\n"
        f"  {PROG} segments --example --time-resolution 0.01\n"
    )
    parts.append(intro)
    output = ["--format", args.format, "--no-progress"]
    if args.per_file:
        output.append("--per-file")
    if args.decimals is not None:
        output += ["--decimals", str(args.decimals)]
    parser = build_parser()
    events_args = parser.parse_args(
        ["events", "--example", "--onset-tolerance", "0.5", "--no-offset", *output]
    )
    parts.append(render(_events(events_args), args.format, args.decimals, args.all_columns))
    try:
        segments_args = parser.parse_args(
            ["segments", "--example", "--time-resolution", "0.01", *output]
        )
        parts.append(
            render(_segments(segments_args), args.format, args.decimals, args.all_columns)
        )
    except UsageError as error:
        _warn(str(error))
    return "\n".join(parts) if args.format in ("table", "markdown") else "".join(parts[1:])


# -------------------------------------------------------------------------
# Parser
# -------------------------------------------------------------------------


def _add_output(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument(
        "--per-file",
        action="store_true",
        help="also give the results of every file",
    )
    group.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="output format (default: table); csv and json give one long table",
    )
    group.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="write the output to PATH instead of stdout",
    )
    group.add_argument(
        "--decimals",
        type=_non_negative_int,
        metavar="N",
        help="round to N decimals (default: 3 for table and markdown, full precision otherwise)",
    )
    group.add_argument(
        "--all-columns",
        action="store_true",
        help="show every column in table and markdown output (csv and json always have all)",
    )
    group.add_argument(
        "--no-progress",
        action="store_true",
        help="never show a progress bar (shown on a terminal when reading or scoring many files)",
    )


def _add_inputs(parser: argparse.ArgumentParser, *, example: bool, labels: bool = True) -> None:
    parser.add_argument(
        "truth",
        nargs="?",
        metavar="TRUTH",
        help="ground truth: annotation file or directory (MIREX/DCASE tsv, .lab, RTTM, "
        "audformat CSV) or an audformat database folder",
    )
    parser.add_argument(
        "prediction",
        nargs="?",
        metavar="PREDICTION",
        help="prediction, in any supported format",
    )
    group = parser.add_argument_group("input")
    if example:
        group.add_argument(
            "--example",
            action="store_true",
            help="evaluate the example dataset shipped with audeval",
        )
    group.add_argument(
        "--files-duration",
        metavar="PATH",
        help="CSV/TSV with file and duration (seconds) of every audio file",
    )
    if labels:
        group.add_argument(
            "--labels",
            type=_list,
            metavar="A,B,...",
            help="labels to evaluate, in this order (others are left out)",
        )
    group.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        default="auto",
        help="format of both inputs (default: from the file extension and content)",
    )
    group.add_argument("--truth-format", choices=INPUT_FORMATS, help=argparse.SUPPRESS)
    group.add_argument("--prediction-format", choices=INPUT_FORMATS, help=argparse.SUPPRESS)
    group.add_argument(
        "--table",
        metavar="NAME",
        help="table of an audformat database (--truth-table, --prediction-table for one side)",
    )
    group.add_argument(
        "--column",
        metavar="NAME",
        help="label column of an audformat database or CSV "
        "(--truth-column, --prediction-column for one side)",
    )
    for side in ("truth", "prediction"):
        group.add_argument(f"--{side}-table", metavar="NAME", help=argparse.SUPPRESS)
        group.add_argument(f"--{side}-column", metavar="NAME", help=argparse.SUPPRESS)
    group.add_argument(
        "--match-files",
        choices=("exact", "stem"),
        default="exact",
        help="compare file names as they are (exact, default) "
        "or without folder and extension (stem: audio/a.wav matches a.txt)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``audeval``."""
    from audeval import __version__

    parser = _Parser(
        prog=PROG,
        description="Evaluate time-annotated audio labels and separated audio. "
        f"Start with '{PROG} example'.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    # example
    p = commands.add_parser(
        "example",
        help="evaluate the example dataset shipped with audeval",
        description="Evaluate the example dataset shipped with audeval "
        "with event-based and segment-based metrics.",
    )
    p.add_argument("--path", action="store_true", help="print the folder of the example files")
    _add_output(p)
    p.set_defaults(run=_example)

    # events
    p = commands.add_parser(
        "events",
        help="event-based metrics (sed_eval/DCASE, MIREX)",
        description="Event-based precision, recall, F-score and error rate per label, "
        "micro and macro (counts summed over files). Tolerance defaults are DCASE's.",
    )
    _add_inputs(p, example=True)
    g = p.add_argument_group("metric")
    g.add_argument(
        "--onset-tolerance",
        type=_seconds,
        default=0.2,
        metavar="SECONDS",
        help="onsets match within this distance (default: 0.2)",
    )
    g.add_argument(
        "--offset-tolerance",
        type=_seconds_or_none,
        default=0.2,
        metavar="SECONDS",
        help="offsets match within max(this, duration tolerance x event length) "
        "(default: 0.2; 'none' for only the duration tolerance)",
    )
    g.add_argument(
        "--duration-tolerance",
        type=_seconds_or_none,
        default=0.5,
        metavar="FRACTION",
        help="offset tolerance as a fraction of the true event length (default: 0.5; 'none')",
    )
    g.add_argument("--no-onset", action="store_true", help="do not evaluate onsets")
    g.add_argument("--no-offset", action="store_true", help="do not evaluate offsets (MIREX)")
    g.add_argument(
        "--matching",
        choices=("optimal", "greedy"),
        default="optimal",
        help="one-to-one matching of events (default: optimal)",
    )
    g.add_argument(
        "--zero-division",
        type=_number,
        default=0.0,
        metavar="VALUE",
        help="value of an undefined precision or recall (default: 0; 'nan')",
    )
    g.add_argument(
        "--propagate-nans",
        action="store_true",
        help="F-score is NaN when precision or recall is NaN",
    )
    _add_output(p)
    p.set_defaults(run=_events)

    # segments
    p = commands.add_parser(
        "segments",
        help="segment-based metrics (sed_eval/DCASE, MIREX)",
        description="Segment-based precision, recall, F-score, error rate and accuracy "
        "per label, micro and macro (counts summed over files).",
    )
    _add_inputs(p, example=True)
    g = p.add_argument_group("metric")
    g.add_argument(
        "--time-resolution",
        type=_positive_seconds_or_none,
        default=1.0,
        metavar="SECONDS",
        help="segment length (default: 1.0; MIREX: 0.01; 'exact' for continuous time)",
    )
    g.add_argument(
        "--compat",
        choices=("sed_eval",),
        help="reproduce sed_eval's float binning",
    )
    g.add_argument(
        "--zero-division",
        type=_number,
        default=0.0,
        metavar="VALUE",
        help="value of 0 / 0 (default: 0; 'nan')",
    )
    _add_output(p)
    p.set_defaults(run=_segments)

    # structure
    p = commands.add_parser(
        "structure",
        help="structural segmentation (mir_eval.segment)",
        description="Boundary detection and clustering metrics of mir_eval.segment per file, "
        "and their mean over files.",
    )
    _add_inputs(p, example=False, labels=False)
    g = p.add_argument_group("metric")
    g.add_argument(
        "--windows",
        type=_seconds_list,
        default=[0.5, 3.0],
        metavar="S1,S2",
        help="boundary hit windows in seconds (default: 0.5,3.0)",
    )
    g.add_argument(
        "--frame-size",
        type=_positive_seconds_or_none,
        default=0.1,
        metavar="SECONDS",
        help="frame hop of the clustering metrics (default: 0.1; 'exact' for frameless)",
    )
    g.add_argument("--beta", type=_seconds, default=1.0, help="F-measure beta (default: 1)")
    g.add_argument(
        "--trim",
        action="store_true",
        help="leave out the first and last boundary",
    )
    g.add_argument("--compat", choices=("mir_eval",), help="reproduce mir_eval 0.8.2")
    _add_output(p)
    p.set_defaults(run=_structure)

    # diarization
    p = commands.add_parser(
        "diarization",
        help="diarization error rate (pyannote.metrics)",
        description="Diarization error rate and its components per file and in total "
        "(durations summed over files).",
    )
    _add_inputs(p, example=False, labels=False)
    g = p.add_argument_group("metric")
    g.add_argument(
        "--collar",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="total width of the unscored collar around truth boundaries (default: 0)",
    )
    g.add_argument("--skip-overlap", action="store_true", help="do not score overlapped speech")
    g.add_argument(
        "--mapping",
        choices=("optimal", "greedy", "identity"),
        default="optimal",
        help="label mapping (default: optimal; identity: identification error rate)",
    )
    g.add_argument(
        "--global-mapping",
        action="store_true",
        help="one label mapping over all files instead of one per file",
    )
    _add_output(p)
    p.set_defaults(run=_diarization)

    # detection
    p = commands.add_parser(
        "detection",
        help="detection error rate (voice activity, pyannote.metrics)",
        description="Detection error rate, precision, recall and accuracy "
        "per file and in total (durations summed over files).",
    )
    _add_inputs(p, example=True, labels=False)
    g = p.add_argument_group("metric")
    g.add_argument(
        "--positive-labels",
        type=_list,
        metavar="A,B,...",
        help="labels that count as activity (default: every row)",
    )
    g.add_argument(
        "--collar",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="total width of the unscored collar around truth boundaries (default: 0)",
    )
    g.add_argument("--skip-overlap", action="store_true", help="do not score overlapped regions")
    g.add_argument("--beta", type=_seconds, default=1.0, help="F-score beta (default: 1)")
    g.add_argument(
        "--zero-division",
        type=_number,
        metavar="VALUE",
        help="value of 0 / 0 (default: the function's, 1 as pyannote.metrics)",
    )
    _add_output(p)
    p.set_defaults(run=_detection)

    # separation
    p = commands.add_parser(
        "separation",
        help="source separation (SI-SDR, BSS Eval)",
        description="Separation metrics per file and source. TRUTH and PREDICTION are "
        "CSV files with a 'file' column and one column of audio paths per source.",
    )
    p.add_argument("truth", metavar="TRUTH", help="CSV of reference audio paths")
    p.add_argument("prediction", metavar="PREDICTION", help="CSV of estimated audio paths")
    g = p.add_argument_group("metric")
    g.add_argument("--mixture", metavar="PATH", help="CSV of mixture paths (for SI-SDRi etc.)")
    g.add_argument(
        "--metrics",
        choices=("scale_invariant", "bss_eval_v4"),
        default="scale_invariant",
        help="SI-SDR family (default) or framewise BSS Eval v4",
    )
    g.add_argument(
        "--permutation",
        action="store_true",
        help="match estimates to sources per file (permutation-invariant)",
    )
    g.add_argument(
        "--window",
        type=_positive_seconds_or_none,
        default=1.0,
        metavar="SECONDS",
        help="BSS Eval window (default: 1.0; 'none' for the whole file)",
    )
    g.add_argument(
        "--hop",
        type=_positive_seconds_or_none,
        default=None,
        metavar="SECONDS",
        help="BSS Eval hop (default: the window)",
    )
    g.add_argument(
        "--length-mismatch",
        choices=("error", "pad_or_truncate"),
        help="what to do when an estimate has another length than its reference",
    )
    g.add_argument(
        "--aggregate",
        choices=("median", "mean"),
        default="median",
        help="summary over windows and files (default: median, as SiSEC)",
    )
    _add_output(p)
    p.set_defaults(run=_separation)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``audeval`` with the arguments ``argv`` (default: ``sys.argv[1:]``).

    Returns:
        exit code: 0 on success, 2 on bad input

    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exit:  # --help, --version
            return int(exit.code or 0)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        with _collect_warnings():
            result = args.run(args)
        text = result if isinstance(result, str) else render(
            result, args.format, args.decimals, args.all_columns
        )
        if args.output:
            with open(args.output, "w", encoding="utf-8", newline="\n") as fp:
                fp.write(text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except UsageError as error:
        print(f"{PROG}: error: {_one_line(error)}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError) as error:
        print(f"{PROG}: error: {_one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
