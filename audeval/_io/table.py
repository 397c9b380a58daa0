"""Event lists through one ``pandas.read_csv`` call: the vectorized path of :func:`read_tsv`.

The line parser of :mod:`audeval._io.events` defines the format and words every error
(with file and line). This module reads the lists that parser would read,
the same way, as whole columns, and checks them column-wise:
finite, non-negative times, offsets not before onsets, no empty file name or label.
A list it cannot vouch for returns ``None`` and goes to the line parser,
which reads it or raises: white space as the delimiter, comment lines,
Audacity's spectral-selection lines, white space around a file name or label,
characters that :meth:`str.splitlines` breaks lines at and ``read_csv`` does not,
lines of another shape, files without events, or any value the checks reject.
Small files go to the line parser too (a ``read_csv`` call costs about a millisecond).

The pyarrow engine of ``read_csv`` is not used: it reads these lists no faster
than the C engine, and its string columns would become Python strings after all.
"""

from __future__ import annotations

import csv
import dataclasses
import io

import numpy as np
import pandas as pd


#: Files smaller than this (bytes) are parsed line by line
MIN_BYTES = 16_384
_BOM = b"\xef\xbb\xbf"
#: Bytes the line parser and ``read_csv`` may treat differently: NUL, and the ASCII line breaks
#: and white space of :meth:`str.splitlines` and :meth:`str.strip` beyond ``\t``, ``\n``, ``\r``
_CONTROL = bytes([0, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F])
#: Non-ASCII line breaks of :meth:`str.splitlines` (U+0085, U+2028, U+2029) in UTF-8
_BREAKS = (b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")
_PLAIN = bytes(range(0x20, 0x7F)) + b"\t\n\r"


@dataclasses.dataclass
class Layout:
    """Where the columns of one list are: positions of file, onset, offset and label."""

    onset: int
    offset: int
    label: int | None  # None: every event gets the default label
    file: int | None  # None: the list is the file named by its path
    header: bool  # the first line names the columns
    n_fields: int | None  # the number of fields of every line (None: at least the used ones)


def read_table(
    path: str,
    delimiter: str | None,
    first: str,
    columns: dict[str, int] | None,
    *,
    first_line: int,
) -> tuple[pd.Categorical | None, np.ndarray, np.ndarray, np.ndarray | None] | None:
    """The columns of an event list: file (categorical), onset, offset (float seconds), label.

    File is ``None`` without a file column, label without a label column.

    ``delimiter``, the ``first`` line (number ``first_line``) and its header ``columns``
    (``None`` without a header) are as the line parser found them;
    ``None`` when this path cannot vouch for the list (see the module's docstring).
    """
    layout = _layout(delimiter, first, columns, first_line)
    if layout is None:
        return None
    with open(path, "rb") as fp:
        data = fp.read()
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    other = data.translate(None, _PLAIN)  # usually empty: a plain ASCII file
    if other and (
        any(byte in other for byte in _CONTROL) or any(seq in data for seq in _BREAKS)
    ):
        return None
    return _parse(data, delimiter, layout)  # type: ignore[arg-type]  # a None delimiter has no layout (returned above)


def _layout(
    delimiter: str | None, first: str, columns: dict[str, int] | None, first_line: int
) -> Layout | None:
    if delimiter is None:
        return None
    if columns is not None:
        if first_line != 1:  # blank lines before the header: read_csv would count them
            return None
        return Layout(
            columns["onset"], columns["offset"], columns.get("label"), columns.get("file"), True, None
        )
    n = len(first.split(delimiter))
    shapes = {
        2: Layout(0, 1, None, None, False, 2),
        3: Layout(0, 1, 2, None, False, 3),
        4: Layout(1, 2, 3, 0, False, 4),
        5: Layout(2, 3, 4, 0, False, 5),
    }
    return shapes.get(n)


def _parse(data: bytes, delimiter: str, layout: Layout):
    used = {"onset": layout.onset, "offset": layout.offset}
    if layout.label is not None:
        used["label"] = layout.label
    if layout.file is not None:
        used["file"] = layout.file
    # strings as categories: the parser hashes them once, the checks see each value once
    dtype = {i: (np.float64 if name in ("onset", "offset") else "category") for name, i in used.items()}
    # the first column is read to find the lines the line parser skips (``#``, ``\\``)
    dtype.setdefault(0, "category")
    try:
        table = pd.read_csv(
            io.BytesIO(data),
            sep=delimiter,
            header=None,
            skiprows=1 if layout.header else 0,
            usecols=sorted(dtype) if layout.n_fields is None else None,
            dtype=dtype,
            na_filter=False,
            quoting=csv.QUOTE_NONE,
            skip_blank_lines=True,
            encoding="utf-8",
            engine="c",
        )
    except (ValueError, OverflowError):  # a field that is no number, a longer line, bad UTF-8
        return None
    if len(table) == 0 or (layout.n_fields is not None and table.shape[1] != layout.n_fields):
        return None
    start = table[layout.onset].to_numpy(dtype=np.float64)
    end = table[layout.offset].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        valid = np.isfinite(start) & np.isfinite(end) & (start >= 0) & (end >= start)
    if not valid.all():
        return None
    strings = {i: table[i].array for i, kind in dtype.items() if kind == "category"}
    values = {i: np.asarray(column.categories, dtype=object) for i, column in strings.items()}
    if 0 in values and any(value[:1] in ("#", "\\") for value in values[0]):
        return None  # a comment or Audacity line
    if any(value == "" or value != value.strip() for column in values.values() for value in column):
        return None  # an empty field, or white space the line parser strips
    file = None if layout.file is None else strings[layout.file]
    label = None if layout.label is None else values[layout.label][strings[layout.label].codes]
    return file, start, end, label


__all__ = ["MIN_BYTES", "read_table"]
