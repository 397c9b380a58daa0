"""FROZEN COPY of audeval/_agreement/spans.py at 4430921 (before issue 32 item 4). Do not edit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import numbers

import numpy as np
import pandas as pd

from audeval._core import options as _options
from audeval._agreement.inputs import Ratings
from audeval._agreement.inputs import check_ratings
from statistics_old import label_sets
from statistics_old import normalise
from statistics_old import set_names
from statistics_old import sweep
from sweep_old import runs


def rater_sets(
    annotations, prediction, labels, frame_size, unrated, files_duration
) -> tuple[Ratings, object, np.ndarray, list]:
    """Each rater's label set on each elementary segment.

    Returns:
        ratings, the sweep, a ``(pieces, raters)`` matrix of set ids
        (0: no label, -1: the rater does not rate the file)
        and the label codes of every set id

    """
    options = normalise({"frame_size": frame_size, "unrated": unrated})
    ratings = check_ratings(
        annotations, prediction, labels=labels, files_duration=files_duration,
        unrated=options["unrated"],
    )
    sw = sweep(ratings, options["frame_size"])
    piece, rater, set_id, members = label_sets(sw)
    matrix = np.where(ratings.rated[:, sw.pieces.file].T, 0, -1).astype(np.int64)
    matrix[piece, rater] = set_id
    return ratings, sw, matrix, members


def _segmented(files: pd.Index, file: np.ndarray, start: np.ndarray, end: np.ndarray) -> pd.MultiIndex:
    return pd.MultiIndex.from_arrays(
        [
            pd.Index(files, dtype=files.dtype).take(file),
            pd.to_timedelta(start, unit="ns"),
            pd.to_timedelta(end, unit="ns"),
        ],
        names=["file", "start", "end"],
    )


def disagreements(
    annotations: Mapping[object, pd.Series] | pd.Series,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    frame_size: float | pd.Timedelta | None = None,
    unrated: str = "no_label",
    files_duration: Mapping | pd.Series | None = None,
) -> pd.DataFrame:
    """The time spans where raters give different labels.

    Every file is cut at every boundary of every rater;
    a span is a disagreement where at least two raters rate the file
    and their label sets differ ("no label" included).
    Consecutive spans where every rater says the same are joined.
    Each rater's column holds its label on the span
    (``"<no label>"`` for none, ``"a + b"`` for several labels at once,
    NaN if the rater does not rate the file, with ``unrated="missing"``),
    as a categorical of the label sets that occur (``"<no label>"`` first);
    the column ``duration`` says how long the span is:
    ``disagreements(...).sort_values("duration", ascending=False)``
    lists the longest first.

    Args:
        annotations: mapping rater -> Series, an audformat Database,
            or the first rater's Series when ``prediction`` is given
        prediction: the second rater's Series
        labels: labels to look at; rows of other labels are left out
        frame_size: frame length (seconds or timedelta):
            spans on the frame grid as the frame-based metrics see them
        unrated: ``"no_label"`` or ``"missing"`` (see :func:`agreement_statistics`)
        files_duration: file -> duration; else a file ends at the latest end of any rater

    Returns:
        DataFrame on an audformat segmented index, one column per rater and ``duration``,
        sorted by file and start

    Raises:
        TypeError, ValueError: on invalid input

    Examples:
        >>> import audformat
        >>> from audeval import disagreements
        >>> def rater(starts, ends, labels):
        ...     index = audformat.segmented_index(["f"] * len(starts), starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> raters = {
        ...     "r1": rater([0.0, 2.0], [2.0, 4.0], ["a", "b"]),
        ...     "r2": rater([0.0, 3.0], [3.0, 5.0], ["a", "b"]),
        ... }
        >>> disagreements(raters)
                                                  r1          r2        duration
        file start           end
        f    0 days 00:00:02 0 days 00:00:03           b           a 0 days 00:00:01
             0 days 00:00:04 0 days 00:00:05  <no label>           b 0 days 00:00:01

    """
    ratings, sw, matrix, members = rater_sets(
        annotations, prediction, labels, frame_size, unrated, files_duration
    )
    rating = matrix >= 0
    n_rating = rating.sum(axis=1)
    low = np.where(rating, matrix, np.iinfo(np.int64).max).min(axis=1, initial=np.iinfo(np.int64).max)
    high = np.where(rating, matrix, -1).max(axis=1, initial=-1)
    differ = np.flatnonzero((n_rating >= 2) & (low != high))
    pieces = sw.pieces
    # a new code wherever a rater's set differs from the previous span's
    rows = matrix[differ]
    changed = (rows[1:] != rows[:-1]).any(axis=1)
    code = np.cumsum(np.r_[False, changed]).astype(np.int64)
    first, last = runs(pieces.file[differ], pieces.start[differ], pieces.end[differ], code)
    rows = differ[first]
    names = pd.Index(set_names(members, ratings.labels), dtype=object)
    columns = {
        rater: pd.Categorical.from_codes(matrix[rows, r], categories=names)
        for r, rater in enumerate(ratings.raters)
    }
    start = pieces.start[rows]
    end = pieces.end[differ[last]]
    columns["duration"] = pd.to_timedelta(end - start, unit="ns")
    index = _segmented(ratings.files, pieces.file[rows], start, end)
    return pd.DataFrame(columns, index=index)


def _weights(weights: Mapping | None, raters: list) -> np.ndarray:
    if weights is None:
        return np.ones(len(raters))
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping rater -> weight; got {type(weights).__name__}.")
    unknown = [r for r in weights if r not in raters]
    missing = [r for r in raters if r not in weights]
    if unknown or missing:
        raise ValueError(
            f"weights must give a weight for every rater {raters}; "
            f"unknown: {unknown}, missing: {missing}."
        )
    values = [weights[r] for r in raters]
    bad = [
        (r, w) for r, w in zip(raters, values)
        if not isinstance(w, numbers.Real) or isinstance(w, bool) or not np.isfinite(w) or w < 0
    ]
    if bad:
        raise ValueError(f"weights must be finite non-negative numbers; got {bad}.")
    return np.asarray(values, dtype=np.float64)


def _winner(piece: np.ndarray, choice: np.ndarray, rater: np.ndarray, weight: np.ndarray, n_choices: int):
    """Per piece the choice with the largest summed weight; ties: the earliest rater's choice.

    ``piece`` must be sorted, and ``rater`` ascending within a piece.
    """
    key = piece * np.int64(n_choices) + choice
    keys, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    if len(keys) == 0:
        return keys, keys.copy()
    total = np.round(np.bincount(inverse, weights=weight, minlength=len(keys)), 9)
    priority = rater[first]  # the first (earliest) rater of each choice
    k_piece = keys // n_choices
    begin = np.flatnonzero(np.r_[True, k_piece[1:] != k_piece[:-1]])
    size = np.diff(np.r_[begin, len(keys)])
    best = np.repeat(np.maximum.reduceat(total, begin), size)
    rank = np.where(total == best, priority, np.iinfo(np.int64).max)
    chosen = rank == np.repeat(np.minimum.reduceat(rank, begin), size)
    return k_piece[chosen], keys[chosen] % n_choices


def consensus(
    annotations: Mapping[object, pd.Series] | pd.Series,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    weights: Mapping[object, float] | None = None,
    per_label: bool = False,
    frame_size: float | pd.Timedelta | None = None,
    unrated: str = "no_label",
    files_duration: Mapping | pd.Series | None = None,
) -> pd.Series:
    """Majority-vote segments of several raters.

    On every elementary segment each rater who rates the file
    votes for its label set ("no label" included) with its weight.
    The set with the largest summed weight wins;
    a tie goes to the tied set of the rater listed first in ``annotations``
    (list the most trusted rater first).
    Summed weights are compared after rounding to 9 decimals.
    Consecutive segments with the same winner are joined;
    "no label" is left out.
    With ``per_label=True`` every label is voted on alone
    (present if the raters who mark it outweigh those who do not;
    a tie goes to the first rater who rates the file),
    so overlapping labels can both win.

    Args:
        annotations: mapping rater -> Series, an audformat Database,
            or the first rater's Series when ``prediction`` is given
        prediction: the second rater's Series
        labels: labels to vote on; rows of other labels are left out
        weights: rater -> non-negative weight; ``None``: every rater 1
        per_label: vote on each label alone instead of on label sets
        frame_size: vote on frames of this length (seconds or timedelta)
        unrated: ``"no_label"`` or ``"missing"`` (see :func:`agreement_statistics`)
        files_duration: file -> duration; else a file ends at the latest end of any rater

    Returns:
        Series named ``"consensus"`` on an audformat segmented index,
        sorted by file and start;
        values are labels (``"a + b"`` where a set of labels wins).
        With ``per_label=False`` the index is unique,
        so the Series can be set as a column of an audformat table;
        categorical if every rater's Series is categorical and only single labels win

    Raises:
        TypeError, ValueError: on invalid input or weights

    Examples:
        >>> import audformat
        >>> from audeval import consensus
        >>> def rater(starts, ends, labels):
        ...     index = audformat.segmented_index(["f"] * len(starts), starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> raters = {
        ...     "r1": rater([0.0, 2.0], [2.0, 4.0], ["a", "b"]),
        ...     "r2": rater([0.0, 3.0], [3.0, 4.0], ["a", "b"]),
        ...     "r3": rater([0.0], [3.0], ["a"]),
        ... }
        >>> consensus(raters)
        file  start            end
        f     0 days 00:00:00  0 days 00:00:03    a
              0 days 00:00:03  0 days 00:00:04    b
        Name: consensus, dtype: object

    """
    per_label = _options.check_bool(per_label, "per_label")
    ratings, sw, matrix, members = rater_sets(
        annotations, prediction, labels, frame_size, unrated, files_duration
    )
    weight = _weights(weights, ratings.raters)
    pieces = sw.pieces
    if per_label:
        file, start, end, values = _label_votes(ratings, sw, weight)
        categorical = ratings.categorical
    else:
        piece, rater = np.nonzero(matrix >= 0)
        win_piece, win_set = _winner(piece, matrix[piece, rater], rater, weight[rater], len(members))
        first, last = runs(pieces.file[win_piece], pieces.start[win_piece], pieces.end[win_piece], win_set)
        keep = win_set[first] != 0
        first, last = first[keep], last[keep]
        rows = win_piece[first]
        file, start, end = pieces.file[rows], pieces.start[rows], pieces.end[win_piece[last]]
        names = np.array(set_names(members, ratings.labels), dtype=object)
        values = names[win_set[first]]
        categorical = ratings.categorical and all(len(members[s]) == 1 for s in set(win_set[first].tolist()))
    out = pd.Series(values, index=_segmented(ratings.files, file, start, end), name="consensus", dtype=object)
    if categorical:
        out = out.astype(pd.CategoricalDtype(ratings.labels))
    return out


def _label_votes(ratings: Ratings, sw, weight: np.ndarray):
    """Per label: the pieces where the raters who mark it outweigh the others, joined."""
    n_labels = np.int64(max(ratings.n_labels, 1))
    pieces = sw.pieces
    key = sw.piece * n_labels + sw.label
    keys, inverse = np.unique(key, return_inverse=True)
    present = np.round(np.bincount(inverse, weights=weight[sw.rater], minlength=len(keys)), 9)
    rated_weight = (ratings.rated * weight[:, None]).sum(axis=0)
    piece, label = keys // n_labels, keys % n_labels
    absent = np.round(rated_weight[pieces.file[piece]], 9) - present
    # the first rater who rates the file breaks ties
    first_rater = np.argmax(ratings.rated, axis=0)[pieces.file[piece]]
    first_marks = np.zeros(len(keys), dtype=bool)
    marks = sw.rater == first_rater[inverse]
    first_marks[inverse[marks]] = True
    win = (present > absent) | ((present == absent) & first_marks)
    piece, label = piece[win], label[win]
    order = np.lexsort((piece, label))
    piece, label = piece[order], label[order]
    group = label * np.int64(ratings.n_files) + pieces.file[piece]
    first, last = runs(group, pieces.start[piece], pieces.end[piece], np.zeros(len(piece), np.int64))
    file, start, end = pieces.file[piece[first]], pieces.start[piece[first]], pieces.end[piece[last]]
    label = label[first]
    order = np.lexsort((label, end, start, file))
    values = np.array(ratings.labels + [None], dtype=object)[label[order]]
    return file[order], start[order], end[order], values
