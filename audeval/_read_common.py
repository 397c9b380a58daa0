"""Common parts of the annotation readers: the rows collected, paths, numbers, errors.

Times are read as decimal seconds and rounded once to integer nanoseconds;
malformed input raises a :class:`ValueError` that names the file and the line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
import math
import os
import posixpath

import numpy as np
import pandas as pd


PathLike = str | os.PathLike

#: File extensions read from a directory of annotation files
ANNOTATION_EXTENSIONS = (".txt", ".tsv", ".lab", ".csv", ".rttm")
PROGRESS_MIN_FILES = 10

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
        import audformat  # deferred: heavy, loaded on first use

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
        import audeer  # deferred: loads tqdm, ssl and http

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
