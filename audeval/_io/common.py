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
from pandas.api.types import union_categoricals

from audeval._core.validation import seconds_to_ns_or_nat


PathLike = str | os.PathLike

#: File extensions read from a directory of annotation files
ANNOTATION_EXTENSIONS = (".txt", ".tsv", ".lab", ".csv", ".rttm")
PROGRESS_MIN_FILES = 10

# -------------------------------------------------------------------------
# Building the Series
# -------------------------------------------------------------------------


class _Rows:
    """Rows collected from one or more sources, plus every file seen.

    Rows come one at a time from the line parsers (:meth:`add`)
    or as whole columns from ``pandas.read_csv`` (:meth:`extend`), in reading order.
    """

    def __init__(self) -> None:
        self.file: list[str] = []
        self.start: list[float] = []
        self.end: list[float] = []
        self.label: list[str] = []
        self.files: dict[str, None] = {}  # ordered set of every file seen
        self._chunks: list[tuple[np.ndarray, ...]] = []  # columns, in order, before the lists

    def __len__(self) -> int:
        return len(self.file) + sum(len(chunk[0]) for chunk in self._chunks)

    def add(self, file: str, start: float, end: float, label: str) -> None:
        self.file.append(file)
        self.start.append(start)
        self.end.append(end)
        self.label.append(label)
        self.files.setdefault(file)

    def see(self, file: str) -> None:
        self.files.setdefault(file)

    def extend(self, file: pd.Categorical, start: np.ndarray, end: np.ndarray, label: np.ndarray) -> None:
        """Append whole columns: file, start and end (float seconds), label (object)."""
        self._flush()
        self._chunks.append((file, start, end, label))
        seen = file.categories[pd.unique(file.codes)]  # in order of first appearance
        self.files.update(dict.fromkeys(seen.tolist()))

    def _flush(self) -> None:
        if self.file:
            self._chunks.append((
                pd.Categorical(self.file),
                np.array(self.start, dtype=float),
                np.array(self.end, dtype=float),
                np.array(self.label, dtype=object),
            ))
            self.file, self.start, self.end, self.label = [], [], [], []

    def columns(self) -> tuple[pd.Categorical, np.ndarray, np.ndarray, np.ndarray]:
        """File (categorical), start, end (float seconds) and label of all rows, in reading order."""
        self._flush()
        if not self._chunks:
            self._chunks = [(pd.Categorical([]), np.array([]), np.array([]), np.array([], dtype=object))]
        if len(self._chunks) > 1:
            files, *rest = zip(*self._chunks)
            self._chunks = [
                (union_categoricals(files, sort_categories=True), *(np.concatenate(parts) for parts in rest))
            ]
        return self._chunks[0]  # type: ignore[return-value]  # the four columns file, start, end, label

    def series(self, name: str = "label") -> pd.Series:
        import audformat  # deferred: heavy, loaded on first use

        file, start, end, label = self.columns()
        index = audformat.segmented_index(file, _seconds_to_timedelta(start), _seconds_to_timedelta(end))
        series = pd.Series(label, index=index, name=name, dtype=object)
        series.attrs["files"] = list(self.files)
        return series


def _seconds_to_timedelta(seconds: Sequence[float] | np.ndarray) -> pd.TimedeltaIndex:
    """Seconds (NaN for NaT) rounded to integer nanoseconds (the one rule, :func:`seconds_to_ns_or_nat`)."""
    return pd.TimedeltaIndex(seconds_to_ns_or_nat(seconds).view("m8[ns]"))


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


def _read_head(path: PathLike, n_lines: int, n_bytes: int = 65_536) -> list[tuple[int, str]] | None:
    """The first ``n_lines`` lines :func:`_read_lines` gives, from the file's first ``n_bytes`` bytes.

    ``None`` where these bytes cannot tell (too few whole lines, not UTF-8).
    """
    with open(path, "rb") as fp:
        data = fp.read(n_bytes + 1)
    complete = len(data) <= n_bytes
    if not complete:
        data = data[: data.rfind(b"\n") + 1]  # whole lines only
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped and not stripped.startswith("#"):
            lines.append((number, raw.rstrip("\r\n")))
    if not complete and len(lines) < n_lines:
        return None
    return lines[:n_lines]


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
