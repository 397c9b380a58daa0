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

import contextlib
import os
import warnings

import numpy as np
import pandas as pd

from audeval._core.validation import MAX_SECONDS
from audeval._io.common import ANNOTATION_EXTENSIONS
from audeval._io.common import PathLike
from audeval._io.common import _annotation_files
from audeval._io.common import _check_path
from audeval._io.common import _progress
from audeval._io.common import _read_lines
from audeval._io.common import _Rows
from audeval._io.common import _seconds
from audeval._io.common import _seconds_to_timedelta
from audeval._io.common import _where
from audeval._io.events import _FILE_HEADERS
from audeval._io.events import _delimiter
from audeval._io.events import _split
from audeval._io.events import read_lab
from audeval._io.events import read_tsv
from audeval._core.warnings import warn

#: RTTM record types (NIST RT): all but SPEAKER hold no speaker turns and are skipped
_RTTM_TYPES = frozenset(
    (
        "SPEAKER", "SPKR-INFO", "SEGMENT", "NOSCORE", "NO_RT_METADATA", "LEXEME",
        "NON-LEX", "NON-SPEECH", "FILLER", "EDITED", "IP", "CB", "A/P", "SU",
    )
)


# -------------------------------------------------------------------------
# RTTM
# -------------------------------------------------------------------------


def _parse_rttm(path: str, rows: _Rows, durations: list[float]) -> None:
    for number, line in _read_lines(path):
        fields = line.split()
        if fields[0].startswith(";;"):
            continue
        if fields[0] != "SPEAKER":
            if fields[0] not in _RTTM_TYPES:
                raise ValueError(
                    f"{_where(path, number)}: not an RTTM line: expected a record type "
                    f"such as 'SPEAKER file channel onset duration <NA> <NA> speaker ...'; "
                    f"got {line.strip()!r}."
                )
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
    Other RTTM record types (``SPKR-INFO``, ``LEXEME``, ...)
    and ``;;`` comments are skipped;
    a line of any other kind is an error,
    so that a file of another format is never read as "no speech".
    The end of a turn is onset plus duration, added in integer nanoseconds.

    Args:
        path: an RTTM file or a directory searched recursively for ``.rttm`` files
        verbose: show a progress bar when reading many files

    Returns:
        speakers with a segmented index;
        ``attrs["files"]`` lists every file seen

    Raises:
        FileNotFoundError: if ``path`` does not exist
        ValueError: on a malformed ``SPEAKER`` line or a line that is not an
            RTTM record (with file name and line number)

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
    import audformat  # deferred: heavy, loaded on first use

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
    file, seconds, _, label = rows.columns()
    start = _seconds_to_timedelta(seconds)
    index = audformat.segmented_index(file, start, start + _seconds_to_timedelta(durations))
    series = pd.Series(label, index=index, name="label", dtype=object)
    series.attrs["files"] = list(rows.files)
    return series


# -------------------------------------------------------------------------
# audformat CSV and databases
# -------------------------------------------------------------------------


def _times(values: pd.Series, path: str, lines: np.ndarray, what: str, allow_nat: bool) -> pd.TimedeltaIndex:
    """Seconds or timedelta strings to timedeltas, errors with line numbers."""
    text = values.astype(str).str.strip()
    empty = text.eq("").to_numpy()
    seconds = pd.to_numeric(text.where(~empty), errors="coerce").to_numpy(dtype=float, copy=True)
    seconds[np.isinf(seconds) | (np.abs(np.nan_to_num(seconds)) > MAX_SECONDS)] = np.nan  # (no time: an error below)
    result = _seconds_to_timedelta(seconds)  # (rounded to the nearest ns: pandas truncates)
    todo = np.isnan(seconds) & ~empty
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
    import audformat  # deferred: heavy, loaded on first use

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
        warn(
            f"{path}: {int((~keep).sum())} row(s) without a value in column {column!r} "
            "are left out.",
            UserWarning,
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
    import audformat  # deferred: heavy, loaded on first use

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
        warn(
            f"{root}: {int(missing.sum())} row(s) of {table}.{column} have no value "
            "and are left out.",
            UserWarning,
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
