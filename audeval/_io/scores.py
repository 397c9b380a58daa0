"""Readers of score-based inputs: sed_scores_eval score directories, psds_eval operating points."""

from __future__ import annotations

from collections.abc import Sequence
import csv
import io
import os
import re

import numpy as np
import pandas as pd

from audeval._io.common import _check_path, _file_key, _progress, _Rows
from audeval._io.events import _parse_event_list, read_tsv
from audeval._core.validation import seconds_to_ns

THRESHOLD = re.compile(r"(\d+(?:\.\d+)?)(?=\.[^.]+$)")



class FileSeconds:
    """Start and end times of a detection Series in seconds as its file wrote them.

    Kept in ``attrs["seconds"]``; compares by identity,
    so pandas can compare the attrs of Series (``pd.concat``) without comparing arrays.
    """

    __slots__ = ("start", "end")

    def __init__(self, start: np.ndarray, end: np.ndarray) -> None:
        self.start = np.asarray(start, dtype=np.float64)
        self.end = np.asarray(end, dtype=np.float64)

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__

    def __len__(self) -> int:
        return len(self.start)

    def __repr__(self) -> str:
        return f"FileSeconds({len(self)} rows)"


def read_sed_scores(path: str | os.PathLike, *, suffix: str = "", verbose: bool = False) -> pd.DataFrame:
    r"""Read a sed_scores_eval score directory into a score table.

    One tab-separated file per audio file, named ``<audio id>.tsv``,
    with the columns ``onset``, ``offset`` (seconds)
    and one column of scores per class (``sed_scores_eval.io.write_sed_scores``).

    Args:
        path: directory of ``.tsv`` score files
        suffix: appended to every audio id to give the file name of the index
            (e.g. ``".wav"`` where the truth names files ``<id>.wav``)
        verbose: show a progress bar over the files (when there are many)

    The files are read one by one and parsed at once (blank lines skipped).

    Returns:
        score table: segmented index (``file``, ``start``, ``end``), a column per class

    Raises:
        FileNotFoundError: if ``path`` is not a directory
        ValueError: if a file lacks ``onset``/``offset``, the files differ in classes,
            or a value is not a number (naming the file)

    Examples:
        >>> import tempfile
        >>> from audeval import read_sed_scores
        >>> folder = tempfile.mkdtemp()
        >>> with open(os.path.join(folder, "a.tsv"), "w") as fp:
        ...     _ = fp.write("onset\toffset\tdog\n0.0\t0.5\t0.9\n0.5\t1.0\t0.2\n")
        >>> scores = read_sed_scores(folder, suffix=".wav")
        >>> scores["dog"].tolist(), scores.index.get_level_values("end").total_seconds().tolist()
        ([0.9, 0.2], [0.5, 1.0])

    """
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"path must be a directory of score files; got {path!r}.")
    names = sorted(n for n in os.listdir(path) if n.endswith(".tsv"))
    bodies, sizes, files, classes = [], [], [], None
    for name in _progress(names, verbose, "Reading scores"):  # one read per file, one parse
        where = os.path.join(path, name)
        with open(where, encoding="utf-8-sig") as fp:
            lines = [line for line in fp.read().splitlines() if line.strip()]
        columns = next(csv.reader(lines[:1], delimiter="\t"), [])
        if columns[:2] != ["onset", "offset"]:
            raise ValueError(
                f"{where}: the first columns must be 'onset' and 'offset'; got {columns[:2]}."
            )
        if classes is None:
            classes = columns[2:]
            if len(set(classes)) != len(classes):
                raise ValueError(f"{where} names a class twice: {classes}.")
        elif columns[2:] != classes:
            raise ValueError(f"{where} has the classes {columns[2:]}, the files before {classes}.")
        bodies.append("\n".join(lines[1:]))
        sizes.append(len(lines) - 1)
        files.append(name[: -len(".tsv")] + suffix)
    if classes is None:
        raise ValueError(f"{path} holds no .tsv score files.")
    frame = _parse_scores(bodies, ["onset", "offset", *classes], [os.path.join(path, n) for n in names])
    frame["file"] = np.repeat(np.asarray(files, dtype=object), sizes)
    index = pd.MultiIndex.from_arrays(
        [
            frame["file"].to_numpy(dtype=object),
            pd.to_timedelta(seconds_to_ns(frame["onset"].to_numpy(dtype=float)), unit="ns"),
            pd.to_timedelta(seconds_to_ns(frame["offset"].to_numpy(dtype=float)), unit="ns"),
        ],
        names=["file", "start", "end"],
    )
    return pd.DataFrame(frame[classes].to_numpy(dtype=np.float64), index=index, columns=classes)


def _parse_scores(bodies: list[str], columns: list[str], where: list[str]) -> pd.DataFrame:
    """The rows of all score files (without their headers) in one parse, as float64."""
    text = "\n".join(body for body in bodies if body)
    if not text:
        return pd.DataFrame({c: np.zeros(0) for c in columns})
    try:
        return pd.read_csv(io.StringIO(text), sep="\t", header=None, names=columns,
                           dtype=np.float64)
    except (ValueError, pd.errors.ParserError):
        for body, name in zip(bodies, where):  # the file at fault, for the message
            try:
                pd.read_csv(io.StringIO(body), sep="\t", header=None, names=columns, dtype=np.float64)
            except (ValueError, pd.errors.ParserError) as error:
                raise ValueError(f"{name}: {error}") from None
        raise


def read_operating_points(
    paths: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    verbose: bool = False,
) -> dict[float, pd.Series]:
    r"""Read psds_eval operating points: detection files whose names end in their threshold.

    Each file is a DCASE detection table
    (``filename``, ``onset``, ``offset``, ``event_label``; read as :func:`audeval.read_tsv`),
    named like ``predictions_th_0.49.tsv``: the last number before the extension
    is the threshold.

    Args:
        paths: a directory of such files, or a list of files
        verbose: show a progress bar over the files (when there are many)

    Times are rounded to nanoseconds in the index;
    each Series keeps the seconds as written in ``attrs["seconds"]``
    (its ``start`` and ``end`` arrays), which ``compat="psds_eval"`` compares as psds_eval does.

    Returns:
        mapping threshold -> detections, as :func:`psds` takes it

    Raises:
        FileNotFoundError: if a path does not exist
        ValueError: if a file name holds no threshold, or two files the same,
            or if ``paths`` is an empty directory or list

    Examples:
        >>> import tempfile
        >>> from audeval import read_operating_points
        >>> folder = tempfile.mkdtemp()
        >>> for th in (0.3, 0.7):
        ...     with open(os.path.join(folder, f"predictions_th_{th}.tsv"), "w") as fp:
        ...         _ = fp.write("filename\tonset\toffset\tevent_label\na.wav\t0.5\t1.5\tdog\n")
        >>> sorted(read_operating_points(folder))
        [0.3, 0.7]

    """
    if isinstance(paths, (str, os.PathLike)):
        path = os.fspath(paths)
        if os.path.isdir(path):
            paths = [os.path.join(path, n) for n in sorted(os.listdir(path)) if not n.startswith(".")]
            if not paths:
                raise ValueError(
                    f"paths: the directory {path} holds no operating points "
                    "(detection files named like predictions_th_0.5.tsv)."
                )
        else:
            paths = [path]
    paths = list(paths)
    if not paths:
        raise ValueError("paths is empty: pass a directory of operating points or a list of files.")
    out: dict[float, pd.Series] = {}
    for path in _progress(paths, verbose, "Reading operating points"):
        path = os.fspath(path)
        match = THRESHOLD.search(os.path.basename(path))
        if match is None:
            raise ValueError(f"{path}: the file name holds no threshold (like predictions_th_0.5.tsv).")
        threshold = float(match.group(1))
        if threshold in out:
            raise ValueError(f"{path}: a second file of threshold {threshold}.")
        out[threshold] = _read_detections(path)
    return out


def _read_detections(path: str) -> pd.Series:
    """:func:`audeval.read_tsv` of one file, keeping its seconds in ``attrs["seconds"]``.

    Times are rounded to ns in the index; ``compat="psds_eval"`` compares shares
    on the seconds as written (psds_eval reads them as float64).
    """
    if os.path.isdir(path):
        return read_tsv(path)
    path = _check_path(path)
    rows = _Rows()
    _parse_event_list(path, rows, _file_key(path, None))
    _, start, end, _ = rows.columns()  # (read before series(): the seconds as written)
    series = rows.series()
    series.attrs["seconds"] = FileSeconds(start, end)
    return series
