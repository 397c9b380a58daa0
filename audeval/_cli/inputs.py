"""Inputs of the command line: read both sides, match their files, read audio path tables."""

from __future__ import annotations

import argparse
import os
import posixpath

import numpy as np
import pandas as pd

from audeval._cli.messages import (
    PROG,
    PROGRESS_MIN_FILES,
    PathError,
    UsageError,
    check_input_file,
    one_line,
    phase,
    progress_wanted,
    show_files,
    warn,
)


LARGE_FILE_BYTES = 1_000_000
"""An annotation file larger than this (about 30k rows) is read under a progress bar."""


INPUT_FORMATS = ("auto", "tsv", "lab", "rttm", "csv", "db")


def read_side(args: argparse.Namespace, side: str) -> pd.Series:
    from audeval._io.readers import read_annotations

    path = getattr(args, side)
    format = getattr(args, f"{side}_format", None) or args.input_format
    table = getattr(args, f"{side}_table", None) or getattr(args, "table", None)
    column = getattr(args, f"{side}_column", None) or getattr(args, "column", None)
    # a folder shows a bar over its files; one large file a bar of its own
    large = os.path.isfile(path) and os.path.getsize(path) > LARGE_FILE_BYTES
    with phase(args, f"Reading {side}", large):
        return read_annotations(
            path,
            format=format,
            table=table,
            column=column,
            verbose=progress_wanted(args),
        )


def _files_of(series: pd.Series) -> list:
    files = series.attrs.get("files")
    if files is None:
        return series.index.get_level_values("file").unique().tolist()
    return list(files)


def _stem(file: str) -> str:
    return posixpath.splitext(posixpath.basename(str(file).replace("\\", "/")))[0]


def rename_files(series: pd.Series, name: str) -> pd.Series:
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


def one_file_lists(sides: dict[str, pd.Series], paths: list[str]) -> dict[str, pd.Series]:
    """Sides that are each one event list of one audio file, named after that audio file.

    A MIREX or ``.lab`` list holds the events of one audio file
    and the reader names that file after the list (``ref.txt`` -> ``ref``),
    so two such lists given side by side (``ref.txt est.txt``) would share no file.
    When every side is one such list, all take the first side's file name;
    anything else (folders, lists with a file column, a database) is left as it is.
    """
    names = list(sides)
    single = [
        os.path.isfile(path) and _files_of(sides[name]) == [_stem(path)]
        for name, path in zip(names, paths)
    ]
    if len(sides) < 2 or not all(single):
        return sides
    file = _files_of(sides[names[0]])[0]
    return {name: _named(series, file) for name, series in sides.items()}


def _named(series: pd.Series, file: str) -> pd.Series:
    """The rows of a one-file Series under the file name ``file``."""
    index = series.index
    if isinstance(index, pd.MultiIndex):
        index = index.set_levels(index.levels[0].map(lambda _: file), level=0, verify_integrity=False)
    else:
        index = pd.Index([file] * len(index), name="file")
    renamed = series.copy()
    renamed.index = index
    renamed.attrs["files"] = [file]
    return renamed


def _used_files(series: pd.Series) -> pd.Index:
    """The files with at least one row (from the index codes: no pass over the names)."""
    index = series.index
    if not isinstance(index, pd.MultiIndex):
        return index.unique()
    codes = np.asarray(index.codes[0])
    present = np.zeros(len(index.levels[0]), dtype=bool)
    present[codes[codes >= 0]] = True
    return index.levels[0][present]


def _label_kind(series: pd.Series) -> str:
    # the kinds of the distinct labels are the kinds of all labels
    values = series.cat.categories if isinstance(series.dtype, pd.CategoricalDtype) else series.unique()
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


def _inferred_labels(truth: pd.Series, prediction: pd.Series) -> list:
    """The labels the validation gate infers (categories in order, then the sorted rest).

    Reads only the label values: the gate itself runs once, in the metric.
    Missing labels are left to the gate's error.
    """
    from audeval._core.labels import infer_labels

    sides = []
    for series in (truth, prediction):
        if isinstance(series.dtype, pd.CategoricalDtype):
            sides.append((list(series.cat.categories), True))
        else:
            uniques = pd.unique(series.to_numpy())
            sides.append((uniques[pd.notna(uniques)].tolist(), False))
    return infer_labels(sides)


class FileSets:
    """The files of both sides: listed (with or without rows) and with rows, hashed once.

    Every membership question of the command line (files of one side only,
    files without events) is a set lookup per file: linear in the number of files.
    Names are taken out of pandas with ``tolist()`` (iterating an arrow-backed index
    is about ten times slower).
    """

    def __init__(self, truth: pd.Series, prediction: pd.Series) -> None:
        self.sides = (_files_of(truth), _files_of(prediction))
        self.sets = (set(self.sides[0]), set(self.sides[1]))
        self.used = set(_used_files(truth).tolist()) | set(_used_files(prediction).tolist())

    def listed(self) -> list:
        """The files of both sides in order of first appearance (truth first)."""
        return list(dict.fromkeys(self.sides[0] + self.sides[1]))

    def only(self, side: int) -> list:
        """The listed files of side 0 (truth) or 1 (prediction) that the other side lacks."""
        other = self.sets[1 - side]
        return [f for f in self.sides[side] if f not in other]

    def common(self) -> bool:
        return not self.sets[0].isdisjoint(self.sets[1])

    def without_rows(self, files: list) -> list:
        """The ``files`` without a row on either side."""
        return [f for f in files if f not in self.used]


class Data:
    """Truth, prediction and what the command line adds to them."""

    def __init__(
        self,
        truth: pd.Series,
        prediction: pd.Series,
        files_duration: pd.Series | None,
        labels: list | None,
        file_sets: FileSets | None = None,
    ) -> None:
        self.truth = truth
        self.prediction = prediction
        self.files_duration = files_duration
        self.labels = labels
        self.file_sets = file_sets if file_sets is not None else FileSets(truth, prediction)
        self.files = self.file_sets.listed()
        self.many = len(self.files) > PROGRESS_MIN_FILES  # progress bars while scoring

    def keep_empty_files(self) -> tuple[pd.Series, pd.Series, list | None, str | None, list]:
        """Truth and prediction that keep files without events, the labels, and the filler label.

        Returns ``(truth, prediction, labels, marker, shown)``:
        ``labels`` is what to pass to the API (``None`` unless ``--labels`` is given,
        so that the API's rule for unused categories holds in the CLI too),
        ``shown`` the labels of the report.

        A file named in the input without any event gets a zero-length row
        with the label ``marker``: the validation gate keeps its file in the evaluation.
        With ``--labels`` the row is left out by the gate (its label is not given);
        without, the marker is the last category of the truth
        and its rows are taken out of the statistics with :func:`without_label`.
        ``marker`` is ``None`` when no file lacks events.
        """
        given = self.labels
        shown = given if given is not None else _inferred_labels(self.truth, self.prediction)
        empty = self.file_sets.without_rows(self.files)
        if not empty or not isinstance(self.truth.index, pd.MultiIndex):
            return self.truth, self.prediction, given, None, shown
        import audformat

        marker = "\x00no event"
        while marker in shown:
            marker += "\x00"
        index = audformat.segmented_index(empty, [0.0] * len(empty), [0.0] * len(empty))
        truth = self.truth
        if given is None:
            # the inferred labels as categories (their order), the marker last
            dtype = pd.CategoricalDtype([*shown, marker])
            filler = pd.Series([marker] * len(empty), index=index, dtype=dtype)
            truth = pd.concat([truth.astype(object).astype(dtype), filler])
        else:
            filler = pd.Series([marker] * len(empty), index=index, dtype=object)
            truth = pd.concat([truth.astype(object), filler])
        truth.attrs.update(self.truth.attrs)
        return truth, self.prediction, given, marker, shown


def without_label(stats: pd.DataFrame, label: object) -> pd.DataFrame:
    """A statistics table without the rows (and the category) of ``label``.

    Used for the filler label of :meth:`Data.keep_empty_files`:
    its rows lie in files without events, where they meet no other row,
    so the other rows of the table are those of the inputs without them.
    """
    if label is None:
        return stats
    keep = np.asarray(stats.index.get_level_values("label") != label)
    out = _keep_files(stats, keep, label)
    index = out.index.remove_unused_levels()
    position = list(index.names).index("label")
    level = index.levels[position]
    if isinstance(level.dtype, pd.CategoricalDtype) and label in level.categories:
        index = index.set_levels(level.remove_categories([label]), level=position)
    out.index = index
    out.attrs = stats.attrs
    return out


def _keep_files(stats: pd.DataFrame, keep: np.ndarray, label: object) -> pd.DataFrame:
    """The rows ``keep``; a file that would lose all its rows keeps one row of zeros
    with the first other label (the rule of tables that hold only the rows that occur)."""
    files = np.asarray(stats.index.get_level_values("file"), dtype=object)
    lost = ~keep & ~pd.Index(files).isin(files[keep])
    first_of_file = lost & ~pd.Index(files).duplicated(keep="first")
    level = stats.index.get_level_values("label")
    others = [c for c in getattr(level, "categories", pd.unique(level)) if c != label]
    if not first_of_file.any() or not others:
        return stats[keep].copy()
    rows = np.flatnonzero(keep | first_of_file)
    out = stats.iloc[rows].copy()
    filler = first_of_file[rows]
    labels = out.index.get_level_values("label").to_numpy(dtype=object)
    labels[filler] = others[0]
    codes = out.index.get_level_values("file")
    new_label = pd.Categorical(labels, categories=getattr(level, "categories", None))
    out.index = pd.MultiIndex.from_arrays([codes, new_label], names=out.index.names)
    for column in out.columns:
        dtype = out[column].dtype
        values = np.array(out[column], dtype=getattr(dtype, "subtype", dtype))
        values[filler] = 0
        out[column] = pd.arrays.SparseArray(values, fill_value=0) if isinstance(dtype, pd.SparseDtype) else values
    return out


def read_durations(path: str | None, match_files: str) -> pd.Series | None:
    """``--files-duration``: durations by file (by stem with ``--match-files stem``)."""
    from audeval._io.readers import read_files_duration

    if not path:
        return None
    check_input_file(path, "--files-duration")
    files_duration = read_files_duration(path)
    if match_files == "stem":
        files_duration = files_duration.copy()
        files_duration.index = pd.Index(
            [_stem(f) for f in files_duration.index], name="file", dtype=object
        )
        if not files_duration.index.is_unique:
            raise ValueError("--files-duration: two files have the same stem.")
    return files_duration


def load(args: argparse.Namespace) -> Data:
    """Read truth, prediction and durations as the arguments say."""
    from audeval._io.example import example_files

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
    sides = one_file_lists(
        {"truth": read_side(args, "truth"), "prediction": read_side(args, "prediction")},
        [args.truth, args.prediction],
    )
    truth, prediction = sides["truth"], sides["prediction"]
    files_duration = read_durations(files_duration_path, args.match_files)
    if args.match_files == "stem":
        truth = rename_files(truth, "truth")
        prediction = rename_files(prediction, "prediction")
    truth, prediction = _harmonise_labels(truth, prediction)
    file_sets = FileSets(truth, prediction)
    _report_one_sided(file_sets, args)
    labels = getattr(args, "labels", None)
    return Data(truth, prediction, files_duration, labels, file_sets)


def _report_one_sided(file_sets: FileSets, args: argparse.Namespace) -> None:
    """Warn about files of one side only."""
    only_truth = file_sets.only(0)
    only_prediction = file_sets.only(1)
    if not only_truth and not only_prediction:
        return
    if not file_sets.common() and args.match_files == "exact":
        truth_files, prediction_files = file_sets.sides
        stems = {_stem(f) for f in truth_files} & {_stem(f) for f in prediction_files}
        if stems:
            warn(
                "truth and prediction have no file in common, "
                "but their file names agree without folder and extension; "
                "use --match-files stem"
            )
    if only_truth:
        warn(
            f"{len(only_truth)} file(s) only in the truth, scored as missed: "
            f"{show_files(only_truth)}"
        )
    if only_prediction:
        warn(
            f"{len(only_prediction)} file(s) only in the prediction, scored as false alarms: "
            f"{show_files(only_prediction)}"
        )


def read_path_table(path: str, name: str) -> pd.DataFrame:
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
        raise ValueError(f"{path}: cannot be read as CSV ({one_line(error)}).") from None
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


__all__ = ["Data", "load", "without_label", "read_durations", "read_path_table", "read_side", "rename_files"]


def _scored_region(args: argparse.Namespace, family, data) -> dict:
    """Collar, overlap and scored-region options of diarization and detection."""
    options = dict(
        collar=args.collar,
        collar_convention=args.collar_convention,
        skip_overlap=args.skip_overlap,
        files_duration=data.files_duration,
    )
    if args.uem is not None:
        check_input_file(args.uem, "--uem")
        options["uem"] = family.read_uem(args.uem)
    return options


def load_database(path: str):
    """An audformat database folder, or a one-line error saying what is missing."""
    import audformat

    if not os.path.isdir(path):
        raise PathError(f"--database {path}: no such folder")
    if not os.path.isfile(os.path.join(path, "db.yaml")):
        raise PathError(
            f"--database {path}: not an audformat database (the folder has no db.yaml)"
        )
    return audformat.Database.load(path, load_data=True)
