"""Where raters differ, and what most of them say: disagreement spans and consensus.

Both come from the same sweep as the agreement statistics
(:mod:`audeval._agreement.coincidence`):
every file is cut at every boundary of every rater's label-set segments.
:func:`disagreements` finds the pieces where no category holds every rater
from the per-piece counts (linear in raters) and only then reads each rater's set
on those spans (the output: raters x spans);
:func:`consensus` reads every rater's vote on every piece (raters x pieces).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import numbers

import numpy as np
import pandas as pd

from audeval._agreement.inputs import Ratings
from audeval._agreement.inputs import check_ratings
from audeval._agreement.coincidence import Segments
from audeval._agreement.coincidence import count_runs
from audeval._agreement.coincidence import segments
from audeval._agreement.options import RATERS
from audeval._agreement.statistics import set_names
from audeval._core.intervals import expand_ranges
from audeval._core.sweep import coverage
from audeval._core.sweep import join_runs


def _segments(annotations, prediction, labels, options, per_label: bool) -> tuple[Ratings, Segments]:
    """The validated ratings and their rater segments (label sets or per label)."""
    ratings = check_ratings(
        annotations, prediction, labels=labels, files_duration=options.files_duration,
        unrated=options.unrated,
    )
    return ratings, segments(ratings, options.frame_size, per_label)


def _codes(n_categories: int) -> type:
    """The smallest signed integer type for category codes and -1."""
    return np.int8 if n_categories < 2**7 else np.int16 if n_categories < 2**15 else np.int32


def rater_matrix(seg: Segments, rows: np.ndarray, span_of_piece: np.ndarray) -> np.ndarray:
    """Each rater's label set on each span, ``(raters, spans)``.

    A span is a run of pieces on which every rater's set is constant;
    ``rows`` is the first piece of every span and ``span_of_piece[p]``
    the number of spans that start before piece ``p``.
    0: no label, -1: the rater does not rate the file.
    A rater segment (or an unrated file) sets a range of spans of its rater's row:
    ``+code`` where the range begins, ``-code`` after it ends, and one running sum
    fills the matrix (ranges of a row are disjoint; sums wrap in the small
    integer type exactly as the codes do, so the result is exact).
    """
    n_raters, n_spans = seg.rated.shape[0], len(rows)
    codes = _codes(seg.n_categories)
    lo, hi = span_of_piece[seg.first], span_of_piece[seg.stop]
    # unrated files: -1 on the file's spans
    span_file = seg.pieces.file[rows]
    file_lo = np.searchsorted(span_file, np.arange(seg.rated.shape[1]), side="left")
    file_hi = np.searchsorted(span_file, np.arange(seg.rated.shape[1]), side="right")
    rater, file = np.nonzero(~seg.rated)
    rater = np.r_[seg.rater, rater]
    lo, hi = np.r_[lo, file_lo[file]], np.r_[hi, file_hi[file]]
    value = np.r_[seg.category, np.full(len(file), -1)].astype(codes)
    base = rater * np.int64(n_spans)
    delta = np.zeros(n_raters * n_spans + 1, dtype=codes)
    np.add.at(delta, base + lo, value)
    np.subtract.at(delta, base + hi, value)
    return np.cumsum(delta[:-1], dtype=codes).reshape(n_raters, n_spans)


def _segmented(files: pd.Index, file: np.ndarray, start: np.ndarray, end: np.ndarray) -> pd.MultiIndex:
    return pd.MultiIndex.from_arrays(
        [
            pd.Index(files, dtype=files.dtype).take(file),
            pd.to_timedelta(start, unit="ns"),
            pd.to_timedelta(end, unit="ns"),
        ],
        names=["file", "start", "end"],
    )


def _disagreements(annotations, prediction, labels, options) -> pd.DataFrame:
    """:func:`disagreements` under a checked options object."""
    ratings, seg = _segments(annotations, prediction, labels, options, False)
    pieces = seg.pieces
    n_pieces = len(pieces)
    m = seg.m[pieces.file]
    # unanimous on a piece: every rater without labels, or all of them in one set
    category, n, lo, hi = count_runs(n_pieces, seg.first, seg.stop, seg.category)
    full = n == seg.m[pieces.file[lo]]
    unanimous = (coverage(n_pieces, seg.first, seg.stop) == 0) | (coverage(n_pieces, lo[full], hi[full]) > 0)
    differ = np.flatnonzero((m >= 2) & ~unanimous)
    # a rater's set changes exactly at the boundaries of its segments
    bound = np.zeros(n_pieces + 1, dtype=bool)
    bound[seg.first] = True
    bound[seg.stop] = True
    code = np.cumsum(bound[differ]).astype(np.int64)
    first, last = join_runs(pieces.file[differ], pieces.start[differ], pieces.end[differ], code)
    rows = differ[first]
    starts = np.zeros(n_pieces + 1, dtype=np.int64)
    starts[rows] = 1
    span_of_piece = np.r_[np.int64(0), np.cumsum(starts[:-1])]
    matrix = rater_matrix(seg, rows, span_of_piece)
    names = pd.Index(set_names(seg.members, ratings.labels), dtype=object)  # type: ignore[arg-type]  # label-set segments have members
    columns = {
        rater: pd.Categorical.from_codes(matrix[r], categories=names)
        for r, rater in enumerate(ratings.raters)
    }
    start = pieces.start[rows]
    end = pieces.end[differ[last]]
    columns["duration"] = pd.to_timedelta(end - start, unit="ns")
    index = _segmented(ratings.files, pieces.file[rows], start, end)
    return pd.DataFrame(columns, index=index)


@RATERS.statistics(_disagreements)
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
        if not isinstance(w, numbers.Real) or isinstance(w, bool) or not np.isfinite(w) or w < 0  # type: ignore[call-overload]  # a numbers.Real (typeshed declares no arithmetic)
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


def _consensus(annotations, prediction, labels, options) -> pd.Series:
    """:func:`consensus` under a checked options object."""
    per_label, weights = options.per_label, options.weights
    ratings, seg = _segments(annotations, prediction, labels, options, per_label)
    weight = _weights(weights, ratings.raters)
    pieces = seg.pieces
    if per_label:
        file, start, end, values = _label_votes(ratings, seg, weight)
        categorical = ratings.categorical
    else:
        members = seg.members
        win_piece, win_set = _set_winners(seg, weight, weights is None)
        first, last = join_runs(pieces.file[win_piece], pieces.start[win_piece], pieces.end[win_piece], win_set)
        keep = win_set[first] != 0
        first, last = first[keep], last[keep]
        rows = win_piece[first]
        file, start, end = pieces.file[rows], pieces.start[rows], pieces.end[win_piece[last]]
        names = np.array(set_names(members, ratings.labels), dtype=object)  # type: ignore[arg-type, type-var]  # label-set segments have members; numpy's stubs refuse dtype=object here
        values = names[win_set[first]]
        categorical = ratings.categorical and all(len(members[s]) == 1 for s in set(win_set[first].tolist()))  # type: ignore[index]  # members set (above)
    out = pd.Series(values, index=_segmented(ratings.files, file, start, end), name="consensus", dtype=object)
    if categorical:
        out = out.astype(pd.CategoricalDtype(ratings.labels))
    return out


@RATERS.statistics(_consensus)
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


def _votes(seg: Segments, weight: np.ndarray, ranks: np.ndarray):
    """The winners of the pieces ``ranks`` marks (``ranks[p]``: marked pieces before ``p``).

    Every rater's vote on every marked piece: votes grow with raters x marked pieces.
    """
    rows = np.flatnonzero(np.diff(ranks))
    matrix = rater_matrix(seg, rows, ranks).T
    span, rater = np.nonzero(matrix >= 0)
    choice = matrix[span, rater].astype(np.int64)
    win_span, win_set = _winner(span, choice, rater, weight[rater], seg.n_categories)
    return rows[win_span], win_set


def _set_winners(seg: Segments, weight: np.ndarray, unweighted: bool):
    """Winning label set of every piece some rater rates, sorted by piece.

    Without weights the votes are the per-piece counts (linear in raters);
    only pieces where several sets tie read every rater's vote
    (the tie goes to the set of the earliest rater).
    """
    n_pieces = len(seg.pieces)
    if not unweighted:
        return _votes(seg, weight, np.arange(n_pieces + 1, dtype=np.int64))
    category, n, lo, hi = count_runs(n_pieces, seg.first, seg.stop, seg.category)
    run, piece = expand_ranges(lo, hi)
    none = seg.m[seg.pieces.file] - coverage(n_pieces, seg.first, seg.stop)
    has_none = np.flatnonzero(none > 0)
    piece = np.r_[piece, has_none]
    category = np.r_[category[run], np.zeros(len(has_none), np.int64)]
    n = np.r_[n[run], none[has_none]]
    best = np.zeros(n_pieces, dtype=np.int64)
    np.maximum.at(best, piece, n)
    top = n == best[piece]
    ties = np.bincount(piece[top], minlength=n_pieces)
    alone = top & (ties[piece] == 1)
    tied = ties > 1
    tie_piece, tie_set = _votes(seg, weight, np.r_[np.int64(0), np.cumsum(tied)])
    win_piece = np.r_[piece[alone], tie_piece]
    win_set = np.r_[category[alone], tie_set]
    order = np.argsort(win_piece, kind="stable")
    return win_piece[order], win_set[order]


def _label_votes(ratings: Ratings, seg: Segments, weight: np.ndarray):
    """Per label: the pieces where the raters who mark it outweigh the others, joined."""
    n_labels = np.int64(max(ratings.n_labels, 1))
    pieces = seg.pieces
    segment, piece = expand_ranges(seg.first, seg.stop)
    rater, label = seg.rater[segment], seg.category[segment]
    key = piece * n_labels + label
    keys, inverse = np.unique(key, return_inverse=True)
    present = np.round(np.bincount(inverse, weights=weight[rater], minlength=len(keys)), 9)
    rated_weight = (ratings.rated * weight[:, None]).sum(axis=0)
    piece, label = keys // n_labels, keys % n_labels
    absent = np.round(rated_weight[pieces.file[piece]], 9) - present
    # the first rater who rates the file breaks ties
    first_rater = np.argmax(ratings.rated, axis=0)[pieces.file[piece]]
    first_marks = np.zeros(len(keys), dtype=bool)
    marks = rater == first_rater[inverse]
    first_marks[inverse[marks]] = True
    win = (present > absent) | ((present == absent) & first_marks)
    piece, label = piece[win], label[win]
    order = np.lexsort((piece, label))
    piece, label = piece[order], label[order]
    group = label * np.int64(ratings.n_files) + pieces.file[piece]
    first, last = join_runs(group, pieces.start[piece], pieces.end[piece], np.zeros(len(piece), np.int64))
    file, start, end = pieces.file[piece[first]], pieces.start[piece[first]], pieces.end[piece[last]]
    label = label[first]
    order = np.lexsort((label, end, start, file))
    values = np.array(ratings.labels + [None], dtype=object)[label[order]]
    return file[order], start[order], end[order], values
