"""Readers for the annotation files people have (SPEC section 8).

Every reader returns the Series of SPEC section 1:
an audformat segmented index (``file``, ``start``, ``end``)
with one label per row,
ready for any metric of audeval.

Times are read as decimal seconds and rounded once
to integer nanoseconds, so ``2.2`` is exactly 2.2 s.
Malformed rows raise a :class:`ValueError`
that names the file and the line number.

Files named in a source without any event
(an empty MIREX file, a DCASE row with only a file name,
a table row without a value)
cannot be a row of the Series;
every reader lists all files it saw,
with and without events,
in ``series.attrs["files"]``,
so that they can be kept in the evaluation
(the command line interface does so).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
import contextlib
import math
import os
import posixpath
import re
import warnings

import audeer
import audformat
import numpy as np
import pandas as pd



PathLike = str | os.PathLike

#: File extensions read from a directory of annotation files
ANNOTATION_EXTENSIONS = (".txt", ".tsv", ".lab", ".csv", ".rttm")
PROGRESS_MIN_FILES = 10

_FILE_HEADERS = ("filename", "file", "audio_filename", "file_name", "audio_file")
_ONSET_HEADERS = ("onset", "start", "event_onset", "start_time", "begin")
_OFFSET_HEADERS = ("offset", "end", "event_offset", "end_time", "stop")
_LABEL_HEADERS = ("event_label", "label", "class", "class_label", "event", "speaker")
_WHITESPACE = re.compile(r"\s+")


# -------------------------------------------------------------------------
# Building the Series
# -------------------------------------------------------------------------


class _Rows:
    """Rows collected from one or more sources, plus every file seen."""

    def __init__(self) -> None:
        self.file: list[str] = []
        self.start: list[float] = []
        self.end: list[float] = []
        self.label: list[str] = []
        self.files: dict[str, None] = {}  # ordered set of every file seen

    def add(self, file: str, start: float, end: float, label: str) -> None:
        self.file.append(file)
        self.start.append(start)
        self.end.append(end)
        self.label.append(label)
        self.files.setdefault(file)

    def see(self, file: str) -> None:
        self.files.setdefault(file)

    def series(self, name: str = "label") -> pd.Series:
        index = audformat.segmented_index(
            self.file,
            _seconds_to_timedelta(self.start),
            _seconds_to_timedelta(self.end),
        )
        series = pd.Series(self.label, index=index, name=name, dtype=object)
        series.attrs["files"] = list(self.files)
        return series


def _seconds_to_timedelta(seconds: Sequence[float]) -> pd.TimedeltaIndex:
    """Seconds (NaN for NaT) rounded to integer nanoseconds."""
    values = np.asarray(seconds, dtype=float)
    return pd.to_timedelta(np.round(values * 1e9), unit="ns").as_unit("ns")


def _where(path: PathLike, line: int | None) -> str:
    return f"{os.fspath(path)}:{line}" if line is not None else os.fspath(path)


def _seconds(text: str, path: PathLike, line: int, what: str) -> float:
    """Parse a non-negative finite number of seconds or raise with file:line."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(
            f"{_where(path, line)}: {what} must be a number of seconds; got {text!r}."
        ) from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(
            f"{_where(path, line)}: {what} must be a finite, non-negative "
            f"number of seconds; got {text!r}."
        )
    return value


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _check_order(start: float, end: float, path: PathLike, line: int) -> None:
    if end < start:
        raise ValueError(f"{_where(path, line)}: offset {end:g} is before onset {start:g}.")


def _read_lines(path: PathLike) -> list[tuple[int, str]]:
    """Non-empty, non-comment lines with their 1-based line numbers."""
    try:
        with open(path, encoding="utf-8-sig") as fp:
            text = fp.read()
    except UnicodeDecodeError as error:
        raise ValueError(f"{os.fspath(path)}: not a UTF-8 text file ({error.reason}).") from None
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        lines.append((number, raw.rstrip("\r\n")))
    return lines


def _check_path(path: PathLike, *, directory: bool | None = None) -> str:
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file or directory.")
    if directory is False and os.path.isdir(path):
        raise ValueError(f"{path}: is a directory, expected a file.")
    return path


def _file_key(path: str, root: str | None) -> str:
    """The file name of a per-audio annotation file: relative path without extension."""
    if root is None:
        name = os.path.basename(path)
    else:
        name = os.path.relpath(path, root)
    name = name.replace(os.sep, "/")
    return posixpath.splitext(name)[0]


def _progress(items: list, verbose: bool, desc: str) -> Iterable:
    if verbose and len(items) > PROGRESS_MIN_FILES:
        return audeer.progress_bar(items, desc=desc)
    return items


def _annotation_files(root: str, extensions: Sequence[str]) -> list[str]:
    paths = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            if os.path.splitext(name)[1].lower() in extensions:
                paths.append(os.path.join(folder, name))
    return paths


# -------------------------------------------------------------------------
# Delimited event lists: MIREX, DCASE, .lab
# -------------------------------------------------------------------------


def _split(line: str, delimiter: str | None, maxsplit: int = -1) -> list[str]:
    if delimiter is None:
        return _WHITESPACE.split(line.strip(), maxsplit=maxsplit) if maxsplit >= 0 else line.split()
    return [field.strip() for field in line.split(delimiter)]


def _delimiter(line: str) -> str | None:
    if "\t" in line:
        return "\t"
    if "," in line:
        return ","
    return None


def _header(fields: list[str]) -> dict[str, int] | None:
    """Column positions if ``fields`` is a header line, else ``None``."""
    lower = [f.strip().lower() for f in fields]

    def find(names: Sequence[str]) -> int | None:
        for name in names:
            if name in lower:
                return lower.index(name)
        return None

    onset, offset = find(_ONSET_HEADERS), find(_OFFSET_HEADERS)
    if onset is None or offset is None or any(_is_number(f) for f in fields):
        return None
    columns = {"onset": onset, "offset": offset}
    file = find(_FILE_HEADERS)
    if file is not None:
        columns["file"] = file
    label = find(_LABEL_HEADERS)
    if label is None:
        rest = [i for i in range(len(lower)) if i not in columns.values()]
        if len(rest) == 1:
            label = rest[0]
    if label is None:
        raise ValueError(
            f"the header {fields} has no label column "
            f"(one of {', '.join(_LABEL_HEADERS)})."
        )
    columns["label"] = label
    return columns


def _parse_event_list(
    path: str,
    rows: _Rows,
    key: str,
    *,
    allow_file_column: bool = True,
    what: str = "event list",
) -> None:
    """Parse one delimited event list into ``rows``."""
    lines = _read_lines(path)
    if not lines:
        rows.see(key)  # an empty annotation file: a file without events
        return
    delimiter = _delimiter(lines[0][1])
    try:
        columns = _header(_split(lines[0][1], delimiter))
    except ValueError as error:
        raise ValueError(f"{_where(path, lines[0][0])}: {error}") from None
    if columns is not None:
        if "file" in columns and not allow_file_column:
            raise ValueError(f"{_where(path, lines[0][0])}: a {what} has no file name column.")
        _parse_with_header(path, lines[1:], columns, delimiter, rows, key)
        return
    mode = None  # "plain": onset offset label; "file": file [scene] onset offset label
    expected = (
        "'onset<TAB>offset<TAB>label'"
        if not allow_file_column
        else "'onset<TAB>offset<TAB>label' or 'file<TAB>onset<TAB>offset<TAB>label'"
    )
    for number, line in lines:
        if delimiter is None:
            tokens = line.split()
            if len(tokens) >= 3 and _is_number(tokens[0]) and _is_number(tokens[1]):
                fields = _split(line, None, 2)
            elif len(tokens) >= 4 and _is_number(tokens[1]) and _is_number(tokens[2]):
                fields = _split(line, None, 3)
            else:
                fields = tokens
        else:
            fields = _split(line, delimiter)
            while len(fields) > 1 and fields[-1] == "":
                fields.pop()  # trailing empty fields
        n = len(fields)
        if n == 3 and mode != "file":
            mode = "plain"
            file, onset, offset, label = key, fields[0], fields[1], fields[2]
        elif n in (1, 4, 5) and allow_file_column and mode != "plain":
            mode = "file"
            if n == 1:
                rows.see(fields[0])
                continue
            file, onset, offset, label = fields[0], fields[-3], fields[-2], fields[-1]
        else:
            if mode == "file":
                hint = "like the lines before it ('file<TAB>onset<TAB>offset<TAB>label')"
            elif mode == "plain":
                hint = "like the lines before it ('onset<TAB>offset<TAB>label')"
            else:
                hint = expected
            raise ValueError(
                f"{_where(path, number)}: expected {hint}; got {n} field(s): {line.strip()!r}."
            )
        start = _seconds(onset, path, number, "onset")
        end = _seconds(offset, path, number, "offset")
        _check_order(start, end, path, number)
        if label == "":
            raise ValueError(f"{_where(path, number)}: the label is empty: {line.strip()!r}.")
        rows.add(file, start, end, label)
    if mode == "plain" or mode is None:
        rows.see(key)


def _parse_with_header(
    path: str,
    lines: list[tuple[int, str]],
    columns: dict[str, int],
    delimiter: str | None,
    rows: _Rows,
    key: str,
) -> None:
    needed = max(columns.values()) + 1
    has_file = "file" in columns
    for number, line in lines:
        fields = _split(line, delimiter)
        if delimiter is None and len(fields) > needed and columns["label"] == needed - 1:
            fields = _split(line, None, needed - 1)
        file = fields[columns["file"]] if has_file and len(fields) > columns["file"] else key
        if has_file and file == "":
            raise ValueError(f"{_where(path, number)}: the file name is empty: {line.strip()!r}.")
        values = [
            fields[columns[c]] if len(fields) > columns[c] else ""
            for c in ("onset", "offset", "label")
        ]
        if has_file and all(v == "" for v in values):
            rows.see(file)  # a file without events
            continue
        if any(v == "" for v in values):
            raise ValueError(
                f"{_where(path, number)}: expected onset, offset and label"
                f"{' (or only a file name)' if has_file else ''}; got {line.strip()!r}."
            )
        start = _seconds(values[0], path, number, "onset")
        end = _seconds(values[1], path, number, "offset")
        _check_order(start, end, path, number)
        rows.add(file, start, end, values[2])
    if not has_file:
        rows.see(key)


def read_tsv(
    path: PathLike,
    *,
    extensions: Sequence[str] = (".txt", ".tsv", ".csv", ".lab"),
    verbose: bool = False,
) -> pd.Series:
    r"""Read MIREX/DCASE event lists: a file or a directory of files.

    Each line is one event, fields separated by tabs
    (or commas, or white space when a line has neither):

    * ``onset offset label``:
      the MIREX format, one file per audio file;
      the file name of the audio is the path of the annotation file
      relative to ``path`` without its extension
      (``ref/1.txt`` gives file ``1``)
    * ``file onset offset label``
      (and ``file scene onset offset label``):
      the DCASE format, a file column;
      a line with only a file name is a file without events
    * a header line naming the columns,
      as the DCASE tsv ``filename onset offset event_label``;
      rows with only a file name are files without events

    Times are in seconds.
    Empty lines and lines starting with ``#`` are skipped.

    Args:
        path: an event list file or a directory;
            a directory is searched recursively
            for files with one of ``extensions``
        extensions: file extensions read from a directory
        verbose: show a progress bar when reading many files

    Returns:
        labels with a segmented index;
        ``attrs["files"]`` lists every file seen,
        including files without events

    Raises:
        FileNotFoundError: if ``path`` does not exist
        ValueError: on a malformed line (with file name and line number),
            or if two annotation files give the same file name

    Examples:
        >>> import os, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> with open(os.path.join(folder, "1.txt"), "w") as fp:
        ...     _ = fp.write("0.0\t2.5\tmusic\n2.5\t4.0\tspeech\n")
        >>> read_tsv(folder)
        file  start                   end
        1     0 days 00:00:00.000000  0 days 00:00:02.500000     music
              0 days 00:00:02.500000  0 days 00:00:04.000000    speech
        Name: label, dtype: object

    """
    path = _check_path(path)
    rows = _Rows()
    if os.path.isdir(path):
        extensions = tuple(e.lower() if e.startswith(".") else f".{e.lower()}" for e in extensions)
        paths = _annotation_files(path, extensions)
        if not paths:
            raise ValueError(
                f"{path}: no annotation files ({', '.join(extensions)}) in this directory."
            )
        keys: dict[str, str] = {}
        for file in _progress(paths, verbose, "Reading"):
            key = _file_key(file, path)
            if key in keys:
                raise ValueError(
                    f"{file}: gives the same file name {key!r} as {keys[key]}; "
                    "keep one annotation file per audio file."
                )
            keys[key] = file
            _parse_event_list(file, rows, key)
    else:
        _parse_event_list(path, rows, _file_key(path, None))
    return rows.series()


def read_lab(path: PathLike, *, verbose: bool = False) -> pd.Series:
    r"""Read ``.lab`` files: ``start end label`` per line, one file per audio file.

    The format of mir_eval and of chord and structure annotations:
    white space (or tab) separated, times in seconds,
    the rest of the line is the label.
    The file name of the audio is the path of the ``.lab`` file
    relative to ``path`` without its extension.

    Args:
        path: a ``.lab`` file or a directory searched recursively for ``.lab`` files
        verbose: show a progress bar when reading many files

    Returns:
        labels with a segmented index;
        ``attrs["files"]`` lists every file seen

    Raises:
        FileNotFoundError: if ``path`` does not exist
        ValueError: on a malformed line (with file name and line number)

    Examples:
        >>> import os, tempfile
        >>> file = os.path.join(tempfile.mkdtemp(), "song.lab")
        >>> with open(file, "w") as fp:
        ...     _ = fp.write("0.000 12.5 intro\n12.5 40.0 verse A\n")
        >>> read_lab(file).tolist()
        ['intro', 'verse A']

    """
    path = _check_path(path)
    rows = _Rows()
    if os.path.isdir(path):
        paths = _annotation_files(path, (".lab",))
        if not paths:
            raise ValueError(f"{path}: no .lab files in this directory.")
        for file in _progress(paths, verbose, "Reading"):
            _parse_event_list(file, rows, _file_key(file, path), allow_file_column=False, what=".lab file")
    else:
        _parse_event_list(path, rows, _file_key(path, None), allow_file_column=False, what=".lab file")
    return rows.series()


# -------------------------------------------------------------------------
# RTTM
# -------------------------------------------------------------------------


def _parse_rttm(path: str, rows: _Rows, durations: list[float]) -> None:
    for number, line in _read_lines(path):
        fields = line.split()
        if fields[0].startswith(";;"):
            continue
        if fields[0] != "SPEAKER":
            continue  # other record types (SPKR-INFO, LEXEME, ...) hold no speaker turns
        if len(fields) < 8:
            raise ValueError(
                f"{_where(path, number)}: expected 'SPEAKER file channel onset duration "
                f"<NA> <NA> speaker ...'; got {len(fields)} field(s): {line.strip()!r}."
            )
        start = _seconds(fields[3], path, number, "onset")
        duration = _seconds(fields[4], path, number, "duration")
        rows.add(fields[1], start, start + duration, fields[7])
        durations.append(duration)


def read_rttm(path: PathLike, *, verbose: bool = False) -> pd.Series:
    r"""Read RTTM speaker turns: a file or a directory of ``.rttm`` files.

    Uses the ``SPEAKER`` lines
    ``SPEAKER file channel onset duration <NA> <NA> speaker <NA> <NA>``;
    the file name comes from the second field, the label is the speaker.
    Other record types and ``;;`` comments are skipped.
    The end of a turn is onset plus duration, added in integer nanoseconds.

    Args:
        path: an RTTM file or a directory searched recursively for ``.rttm`` files
        verbose: show a progress bar when reading many files

    Returns:
        speakers with a segmented index;
        ``attrs["files"]`` lists every file seen

    Raises:
        FileNotFoundError: if ``path`` does not exist
        ValueError: on a malformed ``SPEAKER`` line (with file name and line number)

    Examples:
        >>> import os, tempfile
        >>> file = os.path.join(tempfile.mkdtemp(), "meeting.rttm")
        >>> with open(file, "w") as fp:
        ...     _ = fp.write("SPEAKER meeting 1 1.10 2.20 <NA> <NA> alice <NA> <NA>\n")
        >>> read_rttm(file)
        file     start                   end
        meeting  0 days 00:00:01.100000  0 days 00:00:03.300000    alice
        Name: label, dtype: object

    """
    path = _check_path(path)
    rows = _Rows()
    if os.path.isdir(path):
        paths = _annotation_files(path, (".rttm",))
        if not paths:
            raise ValueError(f"{path}: no .rttm files in this directory.")
    else:
        paths = [path]
    durations: list[float] = []
    for file in _progress(paths, verbose, "Reading"):
        _parse_rttm(file, rows, durations)
    # the end is onset plus duration, added in integer nanoseconds
    start = _seconds_to_timedelta(rows.start)
    index = audformat.segmented_index(rows.file, start, start + _seconds_to_timedelta(durations))
    series = pd.Series(rows.label, index=index, name="label", dtype=object)
    series.attrs["files"] = list(rows.files)
    return series


# -------------------------------------------------------------------------
# audformat CSV and databases
# -------------------------------------------------------------------------


def _times(values: pd.Series, path: str, lines: np.ndarray, what: str, allow_nat: bool) -> pd.TimedeltaIndex:
    """Seconds or timedelta strings to timedeltas, errors with line numbers."""
    text = values.astype(str).str.strip()
    empty = text.eq("").to_numpy()
    numbers = pd.to_numeric(text.where(~empty), errors="coerce")
    result = pd.to_timedelta(numbers.to_numpy(dtype=float), unit="s").as_unit("ns")
    todo = np.isnan(numbers.to_numpy(dtype=float)) & ~empty
    if todo.any():
        parsed = pd.to_timedelta(text[todo], errors="coerce").to_numpy().astype("timedelta64[ns]")
        result = result.to_numpy().copy()
        result[todo] = parsed
        result = pd.TimedeltaIndex(result)
    bad = np.asarray(pd.isna(result)) & ~empty
    if not allow_nat:
        bad |= empty
    negative = ~np.asarray(pd.isna(result)) & (result.asi8 < 0)
    bad |= negative
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{_where(path, int(lines[first]))}: {what} must be a time in seconds "
            f"or a timedelta like '0 days 00:00:01.5'; got {values.iloc[first]!r}."
        )
    return result


def read_audformat_csv(
    path: PathLike,
    column: str | None = None,
) -> pd.Series:
    r"""Read one column of an audformat table stored as CSV.

    The CSV has a ``file`` column,
    and ``start`` and ``end`` columns for a segmented table
    (timedeltas as audformat writes them, ``0 days 00:00:01.500000``,
    or seconds; an empty ``end`` means "until the end of the file").
    Without ``start`` and ``end`` the table is filewise
    and the result has a filewise index.
    Labels are read as text.
    Rows without a value in ``column`` are left out with a warning;
    their files stay in ``attrs["files"]``.

    Args:
        path: CSV file
        column: the label column;
            may be omitted when the table has only one

    Returns:
        labels with a segmented (or filewise) index

    Raises:
        FileNotFoundError: if ``path`` does not exist
        ValueError: if the header lacks ``file``,
            ``column`` is missing or ambiguous,
            or a time cannot be read (with the line number)

    Examples:
        >>> import os, tempfile
        >>> file = os.path.join(tempfile.mkdtemp(), "truth.csv")
        >>> with open(file, "w") as fp:
        ...     _ = fp.write("file,start,end,class\na.wav,0.5,1.5,speech\n")
        >>> read_audformat_csv(file)
        file   start                   end
        a.wav  0 days 00:00:00.500000  0 days 00:00:01.500000    speech
        Name: class, dtype: object

    """
    path = _check_path(path, directory=False)
    try:
        table = pd.read_csv(
            path,
            dtype=str,
            keep_default_na=False,
            skipinitialspace=True,
            encoding="utf-8-sig",
        )
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: the file is empty; expected a header with a 'file' column.") from None
    except pd.errors.ParserError as error:
        raise ValueError(f"{path}: cannot be read as CSV ({str(error).strip()}).") from None
    table.columns = [str(c).strip() for c in table.columns]
    if "file" not in table.columns:
        raise ValueError(
            f"{path}:1: an audformat CSV needs a 'file' column; got columns {list(table.columns)}."
        )
    segmented = "start" in table.columns or "end" in table.columns
    if segmented and not ("start" in table.columns and "end" in table.columns):
        raise ValueError(f"{path}:1: a segmented table needs both 'start' and 'end' columns.")
    index_columns = ["file", "start", "end"] if segmented else ["file"]
    candidates = [c for c in table.columns if c not in index_columns]
    if column is None:
        if len(candidates) != 1:
            raise ValueError(
                f"{path}: choose a label column (column=...) among {candidates}."
                if candidates
                else f"{path}: the table has no label column."
            )
        column = candidates[0]
    elif column not in candidates:
        raise ValueError(f"{path}: no column {column!r}; the table has {candidates}.")
    lines = np.arange(len(table)) + 2  # header is line 1
    files = table["file"].str.strip()
    empty_file = files.eq("").to_numpy()
    if empty_file.any():
        first = int(np.flatnonzero(empty_file)[0])
        raise ValueError(f"{_where(path, int(lines[first]))}: the file name is empty.")
    values = table[column]
    keep = values.str.strip().ne("").to_numpy()
    all_files = list(dict.fromkeys(files))
    if segmented:
        start = _times(table["start"], path, lines, "start", allow_nat=False)
        end = _times(table["end"], path, lines, "end", allow_nat=True)
        bad = ~np.asarray(pd.isna(end)) & (end.asi8 < start.asi8)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{_where(path, int(lines[first]))}: end {table['end'].iloc[first]!r} "
                f"is before start {table['start'].iloc[first]!r}."
            )
        index = audformat.segmented_index(files[keep].tolist(), start[keep], end[keep])
    else:
        index = audformat.filewise_index(files[keep].tolist())
        if not index.is_unique:
            raise ValueError(f"{path}: a filewise table must name each file once.")
    if not keep.all():
        warnings.warn(
            f"{path}: {int((~keep).sum())} row(s) without a value in column {column!r} "
            "are left out.",
            UserWarning,
            stacklevel=2,
        )
    series = pd.Series(values[keep].str.strip().tolist(), index=index, name=column, dtype=object)
    series.attrs["files"] = all_files
    return series


@contextlib.contextmanager
def _quiet_dependencies():
    """Hide deprecation warnings that audformat triggers in pandas."""
    with warnings.catch_warnings():
        for category in (DeprecationWarning, PendingDeprecationWarning, FutureWarning):
            warnings.simplefilter("ignore", category)
        yield


def read_database(
    root: PathLike,
    table: str | None = None,
    column: str | None = None,
) -> pd.Series:
    r"""Read one column of an audformat database.

    Args:
        root: folder of the database (holding ``db.yaml``)
        table: table ID; may be omitted if only one table has ``column``
        column: column ID; may be omitted if ``table`` has only one column

    Returns:
        the column as returned by :meth:`audformat.Column.get`
        (categorical when its scheme has labels),
        without the rows that have no value (left out with a warning);
        ``attrs["files"]`` lists every file of the table

    Raises:
        FileNotFoundError: if ``root`` holds no ``db.yaml``
        ValueError: if the table or column is missing or ambiguous

    Examples:
        >>> import audformat, tempfile
        >>> db = audformat.Database("example")
        >>> db["truth"] = audformat.Table(audformat.segmented_index(["a.wav"], [0.5], [1.5]))
        >>> db["truth"]["class"] = audformat.Column()
        >>> db["truth"]["class"].set(["speech"])
        >>> root = tempfile.mkdtemp()
        >>> db.save(root)
        >>> read_database(root, "truth", "class").tolist()
        ['speech']

    """
    root = os.fspath(root)
    if not os.path.exists(os.path.join(root, "db.yaml")):
        raise FileNotFoundError(f"{root}: no audformat database here (db.yaml is missing).")
    try:
        with _quiet_dependencies():
            db = audformat.Database.load(root, load_data=False)
    except Exception as error:  # audformat raises many types on broken headers
        raise ValueError(f"{root}: cannot load the database ({error}).") from None
    tables = list(db.tables)
    if table is None:
        having = [t for t in tables if column is None or column in db[t].columns]
        if len(having) != 1:
            what = f"with column {column!r} " if column is not None else ""
            raise ValueError(
                f"{root}: choose a table {what}among {having or tables}."
            )
        table = having[0]
    if table not in tables:
        raise ValueError(f"{root}: no table {table!r}; the database has {tables}.")
    with _quiet_dependencies():
        db[table].load(os.path.join(root, f"db.{table}"))
    columns = list(db[table].columns)
    if column is None:
        if len(columns) != 1:
            raise ValueError(f"{root}: choose a column of table {table!r} among {columns}.")
        column = columns[0]
    if column not in columns:
        raise ValueError(f"{root}: table {table!r} has no column {column!r}; it has {columns}.")
    with _quiet_dependencies():
        series = db[table][column].get()
    files = list(dict.fromkeys(series.index.get_level_values("file")))
    missing = series.isna().to_numpy()
    if missing.any():
        warnings.warn(
            f"{root}: {int(missing.sum())} row(s) of {table}.{column} have no value "
            "and are left out.",
            UserWarning,
            stacklevel=2,
        )
        series = series[~missing]
    series.attrs["files"] = files
    return series


# -------------------------------------------------------------------------
# Durations and the dispatcher
# -------------------------------------------------------------------------


def read_files_duration(path: PathLike) -> pd.Series:
    r"""Read file durations: a CSV or TSV file with a file and a duration column.

    The header may name the columns ``file`` and ``duration``;
    without a header the first column is the file
    and the second the duration,
    in seconds or as a timedelta.

    Args:
        path: CSV or TSV file

    Returns:
        durations (timedelta) indexed by file,
        ready for ``files_duration=``

    Raises:
        FileNotFoundError: if ``path`` does not exist
        ValueError: on a malformed line (with the line number)

    Examples:
        >>> import os, tempfile
        >>> file = os.path.join(tempfile.mkdtemp(), "durations.csv")
        >>> with open(file, "w") as fp:
        ...     _ = fp.write("file,duration\na.wav,12.5\n")
        >>> read_files_duration(file)
        file
        a.wav   0 days 00:00:12.500000
        Name: duration, dtype: timedelta64[ns]

    """
    path = _check_path(path, directory=False)
    files, durations, numbers = [], [], []
    lines = _read_lines(path)
    for i, (number, line) in enumerate(lines):
        delimiter = _delimiter(line)
        fields = _split(line, delimiter)
        if i == 0 and len(fields) >= 2 and fields[0].lower() in _FILE_HEADERS:
            continue
        if len(fields) != 2 or not fields[0]:
            raise ValueError(
                f"{_where(path, number)}: expected 'file,duration'; got {line.strip()!r}."
            )
        files.append(fields[0])
        durations.append(fields[1])
        numbers.append(number)
    values = _times(
        pd.Series(durations, dtype=object), path, np.array(numbers, dtype=int), "duration", allow_nat=False
    )
    index = pd.Index(files, name="file", dtype=object)
    if not index.is_unique:
        raise ValueError(f"{path}: names the file {index[index.duplicated()][0]!r} twice.")
    return pd.Series(values, index=index, name="duration")


FORMATS = ("auto", "tsv", "lab", "rttm", "csv", "db")


def read_annotations(
    path: PathLike,
    *,
    format: str = "auto",
    table: str | None = None,
    column: str | None = None,
    verbose: bool = False,
) -> pd.Series:
    r"""Read annotations in any supported format.

    With ``format="auto"`` the format follows from ``path``:

    * a folder with ``db.yaml``: an audformat database
      (:func:`read_database` with ``table`` and ``column``)
    * ``.rttm``: :func:`read_rttm`
    * ``.lab``: :func:`read_lab`
    * ``.csv`` whose header has a ``file`` column and no onset column:
      :func:`read_audformat_csv` with ``column``
    * any other file, or a directory: :func:`read_tsv`
      (a directory of only ``.rttm`` or only ``.lab`` files
      is read with :func:`read_rttm` or :func:`read_lab`)

    Args:
        path: file or directory
        format: one of ``"auto"``, ``"tsv"``, ``"lab"``, ``"rttm"``,
            ``"csv"`` (audformat CSV), ``"db"`` (audformat database)
        table: table of a database
        column: label column of a database or audformat CSV
        verbose: show a progress bar when reading many files

    Returns:
        labels with a segmented (or filewise) index;
        ``attrs["files"]`` lists every file seen

    Raises:
        FileNotFoundError: if ``path`` does not exist
        ValueError: on malformed input (with file name and line number)

    Examples:
        >>> import audeval
        >>> truth, prediction, durations = audeval.example_data()
        >>> read_annotations(audeval.example_files()["truth"]).equals(truth)
        True

    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}.")
    path = _check_path(path)
    if format == "auto":
        format = _guess_format(path)
    if format == "db":
        return read_database(path, table, column)
    if format == "rttm":
        return read_rttm(path, verbose=verbose)
    if format == "lab":
        return read_lab(path, verbose=verbose)
    if format == "csv":
        return read_audformat_csv(path, column)
    return read_tsv(path, verbose=verbose)


def _guess_format(path: str) -> str:
    if os.path.isdir(path):
        if os.path.exists(os.path.join(path, "db.yaml")):
            return "db"
        extensions = {
            os.path.splitext(p)[1].lower() for p in _annotation_files(path, ANNOTATION_EXTENSIONS)
        }
        if extensions == {".rttm"}:
            return "rttm"
        if extensions == {".lab"}:
            return "lab"
        return "tsv"
    extension = os.path.splitext(path)[1].lower()
    if extension == ".rttm":
        return "rttm"
    if extension == ".lab":
        return "lab"
    if extension == ".csv":
        lines = _read_lines(path)
        if lines:
            fields = [f.strip().lower() for f in _split(lines[0][1], _delimiter(lines[0][1]))]
            if "file" in fields and not any(f in fields for f in ("onset", "offset")):
                return "csv"
    return "tsv"


__all__ = [
    "read_annotations",
    "read_audformat_csv",
    "read_database",
    "read_files_duration",
    "read_lab",
    "read_rttm",
    "read_tsv",
]
