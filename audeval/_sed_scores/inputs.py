"""The gate for score tables (SPEC section 10).

A score table is a DataFrame on an audformat segmented index
(``file``, ``start``, ``end``) of frames,
one float column per class.
Per file the frames must be consecutive
(the end of a frame is the start of the next) and of positive length;
scores must be finite.
:func:`check_scores` turns it, together with the truth Series,
into int64 / float64 arrays over one shared file index and class list,
so that the engines never see pandas objects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses
import os

import numpy as np
import pandas as pd

from audeval._core.validation import MAX_ROWS_SHOWN, NAT, check_inputs


@dataclasses.dataclass(frozen=True)
class ScoreInputs:
    """Validated scores and truth.

    Frames are sorted by ``(file, start)``;
    ``scores[i, c]`` is the score of class ``c`` on frame ``i``.
    Truth rows keep their input order; ``truth_label`` indexes ``labels``.
    """

    files: pd.Index
    labels: list
    frame_file: np.ndarray
    frame_start: np.ndarray
    frame_end: np.ndarray
    scores: np.ndarray
    truth_file: np.ndarray
    truth_start: np.ndarray
    truth_end: np.ndarray
    truth_label: np.ndarray
    durations: np.ndarray  # ns per file

    @property
    def n_files(self) -> int:
        return len(self.files)

    @property
    def n_labels(self) -> int:
        return len(self.labels)


def _name_hint(missing: pd.Index, score_files: pd.Index, name: str) -> str:
    """How the file names of both sides look, and ``suffix=`` where only extensions differ."""
    shown = list(score_files[:MAX_ROWS_SHOWN])
    text = f"; {name} names its files like {shown}{' ...' if len(score_files) > MAX_ROWS_SHOWN else ''}"
    names = [m for m in missing if isinstance(m, str)]
    stems = {os.path.splitext(m)[0]: os.path.splitext(m)[1] for m in names}
    known = set(score_files)
    matched = {stem: ext for stem, ext in stems.items() if ext and stem in known}
    if matched:
        ext = sorted(set(matched.values()))[0]
        text += (
            f" (without the extension: {len(matched)} of the {len(missing)} truth files, "
            f"like {next(iter(matched))!r} for {next(iter(matched)) + matched[next(iter(matched))]!r}); "
            f"read the scores with read_sed_scores(path, suffix={ext!r}) "
            "or name the truth's files without it"
        )
    return text

def _show_rows(frame: pd.DataFrame, mask: np.ndarray) -> str:
    n = int(np.count_nonzero(mask))
    shown = frame[mask].head(MAX_ROWS_SHOWN).to_string()
    more = f"\n... and {n - MAX_ROWS_SHOWN} more rows" if n > MAX_ROWS_SHOWN else ""
    return f"{n} row(s), first:\n{shown}{more}"


def _frame_times(scores: object, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Type and value checks of a score table; frame start and end (ns), in row order."""
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas.DataFrame of scores on a segmented index "
            f"(one column per class); got {type(scores).__name__}."
        )
    index = scores.index
    if not (isinstance(index, pd.MultiIndex) and list(index.names) == ["file", "start", "end"]):
        raise ValueError(
            f"{name} must have an audformat segmented index (levels 'file', 'start', 'end') "
            f"of frames; got index levels {list(index.names)}."
        )
    if scores.columns.has_duplicates:
        raise ValueError(f"{name} has duplicate class columns: {list(scores.columns)}.")
    bad = [c for c, dtype in zip(scores.columns, scores.dtypes) if not pd.api.types.is_numeric_dtype(dtype)
           or pd.api.types.is_bool_dtype(dtype)]
    if bad:
        raise TypeError(f"{name} columns {bad} do not hold numeric scores.")
    starts = index.get_level_values("start")
    ends = index.get_level_values("end")
    for what, level in (("start", starts), ("end", ends)):
        if not pd.api.types.is_timedelta64_dtype(level.dtype):
            raise TypeError(f"{name}: the '{what}' level must hold timedeltas; got {level.dtype}.")
    start = np.asarray(pd.TimedeltaIndex(starts).as_unit("ns").asi8, dtype=np.int64)
    end = np.asarray(pd.TimedeltaIndex(ends).as_unit("ns").asi8, dtype=np.int64)
    bad = (start == NAT) | (end == NAT)
    if bad.any():
        raise ValueError(f"{name} has frames with NaT start or end: {_show_rows(scores, bad)}")
    bad = (start < 0) | (end <= start)  # type: ignore[assignment]  # the name is reused for a row mask
    if bad.any():
        raise ValueError(
            f"{name} has frames of non-positive length or negative start: {_show_rows(scores, bad)}"
        )
    return start, end


def _frames(scores: object, name: str) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """The score table sorted by (file, start), its file codes, start and end (ns)."""
    start, end = _frame_times(scores, name)
    codes, _ = pd.factorize(scores.index.get_level_values("file"))  # type: ignore[attr-defined]  # scores is a DataFrame (checked by _frame_times)
    order = np.lexsort((start, codes))
    return scores.iloc[order], codes[order], start[order], end[order]  # type: ignore[attr-defined]  # scores is a DataFrame (above)


def _file_codes(index: pd.MultiIndex) -> tuple[pd.Index, np.ndarray]:
    """The distinct files of a segmented index and each row's code (no per-row strings)."""
    position = list(index.names).index("file")
    codes = np.asarray(index.codes[position], dtype=np.int64)
    if len(codes) and codes.min() < 0:  # missing file names: as they come
        codes, uniques = pd.factorize(index.get_level_values("file"))
        return pd.Index(uniques), np.asarray(codes, dtype=np.int64)
    return index.levels[position], codes


def _sort_order(codes: np.ndarray, start: np.ndarray) -> np.ndarray | None:
    """Order by ``(codes, start)``; ``None`` if the rows are in that order already."""
    if len(codes) < 2:
        return None
    step = np.diff(codes)
    if (step >= 0).all() and ((step > 0) | (start[1:] > start[:-1])).all():
        return None
    return np.lexsort((start, codes))


def _not_consecutive(codes, start, end) -> np.ndarray | None:
    """Rows to show where a frame does not start where the previous one ends (``None``: none)."""
    same = codes[1:] == codes[:-1]
    bad = np.zeros(len(codes), dtype=bool)
    bad[1:] = same & (start[1:] != end[:-1])
    if not bad.any():
        return None
    bad[:-1] |= bad[1:].copy()
    return bad


def _check_consecutive(frame: pd.DataFrame, codes, start, end, name: str) -> None:
    show = _not_consecutive(codes, start, end)
    if show is not None:
        raise ValueError(
            f"{name} must hold consecutive, non-overlapping frames per file "
            f"(each frame starts where the previous one ends): {_show_rows(frame, show)}"
        )


def check_scores(
    truth: pd.Series,
    scores: pd.DataFrame,
    labels: Sequence[object] | None = None,
    *,
    files_duration: Mapping | pd.Series | None = None,
    name: str = "scores",
) -> ScoreInputs:
    """Validate ``truth`` and a score table and share files and classes.

    Classes are the score columns (``labels`` selects and orders them).
    Every truth file must have scores; truth labels must be classes.
    A file's duration is ``files_duration``,
    else the latest end of its frames and truth events.
    """
    start, end = _frame_times(scores, name)
    level_files, codes = _file_codes(scores.index)
    order = _sort_order(codes, start)
    if order is not None:
        codes, start, end = codes[order], start[order], end[order]

    def sorted_frame() -> pd.DataFrame:  # for error messages only
        return scores if order is None else scores.iloc[order]

    show = _not_consecutive(codes, start, end)
    if show is not None:
        _check_consecutive(sorted_frame(), codes, start, end, name)
    classes = list(scores.columns)
    if labels is not None:
        labels = list(labels)
        missing = [label for label in labels if label not in classes]
        if missing:
            raise ValueError(f"labels {missing} are not columns of {name} ({classes}).")
        classes = labels
    values = _values(scores, classes, order)
    if not np.isfinite(values).all():
        bad = ~np.isfinite(values).all(axis=1)
        raise ValueError(
            f"{name} holds scores that are not finite: {_show_rows(sorted_frame()[classes], bad)}"
        )
    inputs = _truth(truth, scores, classes, labels, files_duration, name)
    used = np.zeros(len(level_files), dtype=bool)
    used[codes] = True
    score_files = level_files[used]
    files = inputs.files.append(pd.Index(score_files)).unique()
    try:
        files = files.sort_values()
    except TypeError:
        pass
    files = pd.Index(files, name="file")
    missing = inputs.files.difference(score_files)
    if len(missing):
        raise ValueError(
            f"{name} has no frames for truth files {list(missing[:MAX_ROWS_SHOWN])}"
            f"{' ...' if len(missing) > MAX_ROWS_SHOWN else ''}"
            f"{_name_hint(missing, score_files, name)}."
        )
    frame_file = files.get_indexer(level_files).astype(np.int64)[codes]
    if len(frame_file) > 1 and (np.diff(frame_file) < 0).any():  # files in another order
        again = np.argsort(frame_file, kind="stable")
        frame_file, start, end, values = frame_file[again], start[again], end[again], values[again]
    label_map = pd.Index(classes, dtype=object).get_indexer(pd.Index(inputs.labels, dtype=object))
    truth_side = inputs.truth
    truth_file = files.get_indexer(inputs.files[truth_side.file]).astype(np.int64)
    durations = _durations(files, frame_file, end, files_duration)
    if len(truth_file):
        latest = np.zeros(len(files), dtype=np.int64)
        np.maximum.at(latest, truth_file, truth_side.end)
        durations = np.where(_given(files, files_duration), durations, np.maximum(durations, latest))
    return ScoreInputs(
        files, classes, frame_file, start, end, values,
        truth_file, truth_side.start, truth_side.end,
        label_map[truth_side.label].astype(np.int64), durations,
    )


def _values(scores: pd.DataFrame, classes: list, order: np.ndarray | None) -> np.ndarray:
    """Scores as float64 ``(frames, classes)`` in frame order (a view where pandas allows;
    reordered: in Fortran order, each class's scores contiguous, as the engines read them)."""
    table = scores if classes == list(scores.columns) else scores[classes]
    values = table.to_numpy(dtype=np.float64, copy=False)
    return values if order is None else np.take(values.T, order, axis=1).T


def _truth(truth, scores, classes, labels, files_duration, name):
    """The validated truth (:func:`audeval._core.validation.check_inputs`); its labels must be classes."""
    empty = pd.Series(
        [], index=pd.MultiIndex.from_arrays(
            [scores.index.get_level_values("file")[:0], pd.TimedeltaIndex([]), pd.TimedeltaIndex([])],
            names=["file", "start", "end"],
        ), dtype=object,
    )
    inputs = check_inputs(
        truth, empty, labels=None, files_duration=files_duration, allow_filewise=False,
        report_files=False,
    )
    columns = list(scores.columns)
    unknown = [label for label in inputs.labels if label not in columns]
    if unknown:
        raise ValueError(
            f"truth has labels {unknown} that are not classes (columns) of {name}: {columns}."
        )
    if labels is not None:  # rows of other classes are left out
        inputs = check_inputs(
            truth, empty, labels=classes, files_duration=files_duration, allow_filewise=False,
            report_files=False,
        )
    return inputs


def _given(files: pd.Index, files_duration) -> np.ndarray:
    """Files whose duration ``files_duration`` gives."""
    if files_duration is None:
        return np.zeros(len(files), dtype=bool)
    from audeval._core.validation import durations_ns

    return durations_ns(files_duration, files) != NAT


def _durations(files: pd.Index, frame_file, end, files_duration) -> np.ndarray:
    """``files_duration`` where given, else the end of the last frame."""
    last = np.zeros(len(files), dtype=np.int64)
    if len(end):  # frames sorted by (file, start) and consecutive: a file's last frame ends last
        final = np.ones(len(end), dtype=bool)
        final[:-1] = frame_file[1:] != frame_file[:-1]
        last[frame_file[final]] = end[final]
    if files_duration is None:
        return last
    from audeval._core.validation import durations_ns

    given = durations_ns(files_duration, files)
    return np.where(given == NAT, last, given)
