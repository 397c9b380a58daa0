"""Delimited event lists: MIREX, DCASE and Audacity ``.txt``/``.tsv``/``.csv``, and ``.lab``.

The delimiter (tab, semicolon, comma or white space) is detected per file,
as sed_eval accepts them; see :func:`read_tsv`.
"""

from __future__ import annotations

from collections.abc import Sequence
import os
import re

import numpy as np
import pandas as pd

from audeval._io import table as _read_table
from audeval._io.common import PathLike
from audeval._io.common import _annotation_files
from audeval._io.common import _check_order
from audeval._io.common import _check_path
from audeval._io.common import _file_key
from audeval._io.common import _is_number
from audeval._io.common import _progress
from audeval._io.common import _read_head
from audeval._io.common import _read_lines
from audeval._io.common import _Rows
from audeval._io.common import _seconds
from audeval._io.common import _where

_FILE_HEADERS = ("filename", "file", "audio_filename", "file_name", "audio_file")
_ONSET_HEADERS = ("onset", "start", "event_onset", "start_time", "begin")
_OFFSET_HEADERS = ("offset", "end", "event_offset", "end_time", "stop")
_LABEL_HEADERS = ("event_label", "label", "class", "class_label", "event", "speaker")
_WHITESPACE = re.compile(r"\s+")

#: Label of the events of lists without a label column (``onset<TAB>offset`` lines)
DEFAULT_LABEL = "event"
#: Delimiters tried, in this order, before white space (see :func:`_detect_delimiter`)
_DELIMITERS = ("\t", ";", ",")
_SNIFF_LINES = 50
#: A file name alone on a line (a file without events): it ends in an extension
_FILE_NAME = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")


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


def _strip_trailing(fields: list[str]) -> list[str]:
    fields = list(fields)
    while len(fields) > 1 and fields[-1] == "":
        fields.pop()
    return fields


def _is_header(fields: list[str]) -> bool:
    lower = {f.strip().lower() for f in fields}
    return (
        not lower.isdisjoint(_ONSET_HEADERS)
        and not lower.isdisjoint(_OFFSET_HEADERS)
        and not any(_is_number(f) for f in fields)
    )


def _plausible(fields: list[str]) -> bool:
    """Whether ``fields`` look like a line of an event list.

    A header, or two numbers (onset, offset)
    in the first, second or third pair of columns.
    """
    fields = _strip_trailing(fields)
    if _is_header(fields):
        return True
    pairs = range(min(3, len(fields) - 1))
    return any(_is_number(fields[i]) and _is_number(fields[i + 1]) for i in pairs)


def _detect_delimiter(lines: list[tuple[int, str]]) -> str | None:
    """The field delimiter of one event list, from its first lines.

    A tab wherever one of the first lines has one;
    else a semicolon, else a comma,
    if one of the first lines splits by it into a header
    or into onset and offset numbers (see :func:`_plausible`);
    else white space (``None``),
    so a semicolon or comma inside the labels of a white-space list
    is part of the label.
    sed_eval (through dcase_util) accepts the same delimiters.
    """
    sample = [line for _, line in lines[:_SNIFF_LINES]]
    for candidate in _DELIMITERS:
        having = [line for line in sample if candidate in line]
        if having and (
            candidate == "\t" or any(_plausible(_split(line, candidate)) for line in having)
        ):
            return candidate
    return None


def _header(fields: list[str]) -> dict[str, int] | None:
    """Column positions if ``fields`` is a header line, else ``None``.

    Without a label column (only onset, offset and maybe file)
    the events get :data:`DEFAULT_LABEL`.
    """
    if not _is_header(fields):
        return None
    lower = [f.strip().lower() for f in fields]

    def find(names: Sequence[str]) -> int | None:
        for name in names:
            if name in lower:
                return lower.index(name)
        return None

    columns = {"onset": find(_ONSET_HEADERS), "offset": find(_OFFSET_HEADERS)}
    file = find(_FILE_HEADERS)
    if file is not None:
        columns["file"] = file
    label = find(_LABEL_HEADERS)
    if label is None:
        rest = [i for i in range(len(lower)) if i not in columns.values()]
        if len(rest) > 1:
            raise ValueError(
                f"the header {fields} has no label column "
                f"(one of {', '.join(_LABEL_HEADERS)})."
            )
        label = rest[0] if rest else None
    if label is not None:
        columns["label"] = label
    return columns  # type: ignore[return-value]  # a header names onset and offset (_is_header)


def _fields(line: str, delimiter: str | None) -> tuple[list[str], bool]:
    """The fields of a headerless line, and whether it ends in an empty label field."""
    if delimiter is not None:
        raw = _split(line, delimiter)
        fields = _strip_trailing(raw)
        return fields, len(fields) == 2 and len(raw) > 2
    tokens = line.split()
    if len(tokens) >= 3 and _is_number(tokens[0]) and _is_number(tokens[1]):
        return _split(line, None, 2), False
    if len(tokens) >= 4 and _is_number(tokens[1]) and _is_number(tokens[2]):
        return _split(line, None, 3), False
    return tokens, False


# line shapes of a headerless event list: number of fields -> mode
_MODES = {1: "file", 2: "bare", 3: "plain", 4: "file", 5: "file"}
_SHAPES = {
    "bare": "'onset<TAB>offset'",
    "plain": "'onset<TAB>offset<TAB>label'",
    "file": "'file<TAB>onset<TAB>offset<TAB>label'",
}


def _parse_lines(
    path: str,
    lines: list[tuple[int, str]],
    delimiter: str | None,
    rows: _Rows,
    key: str,
    allow_file_column: bool,
) -> str:
    """Parse the lines of a headerless event list into ``rows``; return its mode."""
    mode = None
    for number, line in lines:
        fields, empty_label = _fields(line, delimiter)
        if empty_label:
            raise ValueError(f"{_where(path, number)}: the label is empty: {line.strip()!r}.")
        n = len(fields)
        shape = _MODES.get(n)
        if shape is None or (mode is not None and shape != mode) or (
            shape == "file" and not allow_file_column
        ):
            if mode is not None:
                hint = f"like the lines before it ({_SHAPES[mode]})"
            else:
                shapes = ("plain", "bare", "file") if allow_file_column else ("plain", "bare")
                hint = " or ".join(_SHAPES[s] for s in shapes)
            raise ValueError(
                f"{_where(path, number)}: expected {hint}; got {n} field(s): {line.strip()!r}."
            )
        mode = shape
        if n == 1:
            rows.see(fields[0])  # a file without events
            continue
        if shape == "file":
            file, onset, offset, label = fields[0], fields[-3], fields[-2], fields[-1]
        else:
            file, onset, offset = key, fields[0], fields[1]
            label = fields[2] if n == 3 else DEFAULT_LABEL
        start = _seconds(onset, path, number, "onset")
        end = _seconds(offset, path, number, "offset")
        _check_order(start, end, path, number)
        if label == "":
            raise ValueError(f"{_where(path, number)}: the label is empty: {line.strip()!r}.")
        rows.add(file, start, end, label)
    return mode  # type: ignore[return-value]  # lines is not empty (the caller returns early for an empty file): set


def _is_frequency_line(line: str) -> bool:
    """Audacity's spectral-selection line after a label: ``\\<TAB>low<TAB>high``."""
    fields = line.split()
    return (
        len(fields) == 3 and fields[0] == "\\" and _is_number(fields[1]) and _is_number(fields[2])
    )


def _check_has_events(path: str, lines: list[tuple[int, str]]) -> None:
    """A headerless list without events may only name files (files without events)."""
    for number, line in lines:
        text = line.strip()
        if _is_number(text) or not _FILE_NAME.search(text) or any(c in text for c in ";,|"):
            raise ValueError(
                f"{_where(path, number)}: no event could be read from this file "
                f"(fields separated by tabs, semicolons, commas or white space); "
                f"its line {text!r} is neither an event nor a file name."
            )


def _parse_event_list(
    path: str,
    rows: _Rows,
    key: str,
    *,
    allow_file_column: bool = True,
    what: str = "event list",
) -> None:
    """Parse one delimited event list into ``rows``."""
    if os.path.getsize(path) >= _read_table.MIN_BYTES and _read_columns(path, rows, key, allow_file_column):
        return
    lines = [(n, line) for n, line in _read_lines(path) if not _is_frequency_line(line)]
    if not lines:
        rows.see(key)  # an empty annotation file: a file without events
        return
    delimiter = _detect_delimiter(lines)
    try:
        columns = _header(_split(lines[0][1], delimiter))
    except ValueError as error:
        raise ValueError(f"{_where(path, lines[0][0])}: {error}") from None
    if columns is not None:
        if "file" in columns and not allow_file_column:
            raise ValueError(f"{_where(path, lines[0][0])}: a {what} has no file name column.")
        _parse_with_header(path, lines[1:], columns, delimiter, rows, key)
        return
    before = len(rows)
    mode = _parse_lines(path, lines, delimiter, rows, key, allow_file_column)
    if len(rows) == before:
        _check_has_events(path, lines)
    if mode != "file":
        rows.see(key)


def _read_columns(path: str, rows: _Rows, key: str, allow_file_column: bool) -> bool:
    """Read one event list with ``pandas.read_csv`` into ``rows``; ``False`` if it must be parsed by line.

    The delimiter and the header are found as the line parser finds them, from the first lines.
    """
    lines = _read_head(path, _SNIFF_LINES)
    if not lines:
        return False
    delimiter = _detect_delimiter(lines)
    first_line, first = lines[0]
    try:
        columns = _header(_split(first, delimiter))
    except ValueError:
        return False
    if columns is not None and "file" in columns and not allow_file_column:
        return False
    if columns is None and delimiter is not None and len(first.split(delimiter)) > 3 and not allow_file_column:
        return False
    table = _read_table.read_table(path, delimiter, first, columns, first_line=first_line)
    if table is None:
        return False
    file, start, end, label = table
    if file is None:
        file = pd.Categorical.from_codes(np.zeros(len(start), dtype=np.int8), [key])
    if label is None:
        label = np.full(len(start), DEFAULT_LABEL, dtype=object)
    rows.extend(file, start, end, label)
    return True


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
    names = ("onset", "offset", "label") if "label" in columns else ("onset", "offset")
    for number, line in lines:
        fields = _split(line, delimiter)
        if delimiter is None and len(fields) > needed and columns.get("label") == needed - 1:
            fields = _split(line, None, needed - 1)
        file = fields[columns["file"]] if has_file and len(fields) > columns["file"] else key
        if has_file and file == "":
            raise ValueError(f"{_where(path, number)}: the file name is empty: {line.strip()!r}.")
        values = [fields[columns[c]] if len(fields) > columns[c] else "" for c in names]
        if has_file and all(v == "" for v in values):
            rows.see(file)  # a file without events
            continue
        if any(v == "" for v in values):
            raise ValueError(
                f"{_where(path, number)}: expected {', '.join(names[:-1])} and {names[-1]}"
                f"{' (or only a file name)' if has_file else ''}; got {line.strip()!r}."
            )
        start = _seconds(values[0], path, number, "onset")
        end = _seconds(values[1], path, number, "offset")
        _check_order(start, end, path, number)
        rows.add(file, start, end, values[2] if len(values) == 3 else DEFAULT_LABEL)
    if not has_file:
        rows.see(key)


def read_tsv(
    path: PathLike,
    *,
    extensions: Sequence[str] = (".txt", ".tsv", ".csv", ".lab"),
    verbose: bool = False,
) -> pd.Series:
    r"""Read MIREX/DCASE event lists: a file or a directory of files.

    Each line is one event.
    The fields are separated by tabs, semicolons, commas or white space,
    as sed_eval reads them; the delimiter is detected per file:
    a tab if the first lines have one,
    else a semicolon, else a comma,
    if one of the first lines splits by it into a header
    or into onset and offset numbers;
    else white space, where the rest of the line is the label.
    The lines are

    * ``onset offset label``:
      the MIREX format, one file per audio file;
      the file name of the audio is the path of the annotation file
      relative to ``path`` without its extension
      (``ref/1.txt`` gives file ``1``)
    * ``onset offset``: a list without labels;
      its events get the label ``"event"``
      (``audeval._io.events.DEFAULT_LABEL``)
    * ``file onset offset label``
      (and ``file scene onset offset label``):
      the DCASE format, a file column;
      a line with only a file name is a file without events
    * a header line naming the columns,
      as the DCASE tsv ``filename onset offset event_label``;
      rows with only a file name are files without events

    Times are in seconds.
    Empty lines, lines starting with ``#``
    and the spectral-selection lines of Audacity label files
    (``\<TAB>low<TAB>high`` after a label) are skipped.
    A file whose lines give no event
    must consist of file names with an extension
    (files without events); anything else is an error,
    so a list in an unknown format is never read as "no events".

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
            if a file gives no event and is not a list of file names,
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
        keys = [_file_key(file, path) for file in paths]
    else:
        paths, keys = [path], [_file_key(path, None)]
    for file, key in _progress(list(zip(paths, keys)), verbose, "Reading"):
        _parse_event_list(file, rows, key, allow_file_column=False, what=".lab file")
    return rows.series()
