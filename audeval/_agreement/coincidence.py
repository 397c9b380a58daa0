r"""Per-piece category counts of all raters, linear in the number of raters.

Every rater's rows are first turned into *rater segments*:
disjoint intervals of one rater on which its category is constant
(per label: the union of the rater's rows of a label;
per label set: the maximal stretches with one non-empty set of active labels).
One sweep over the boundaries of all rater segments
(:func:`audeval._core.sweep.cut`) cuts every file into pieces,
and a rater segment covers a contiguous range of pieces.
The number :math:`n_{pc}` of raters giving category :math:`c` on piece :math:`p`
is then a running sum of ``+1`` / ``-1`` events per category
(:func:`count_runs`, sparse: only ranges of pieces where :math:`n_{pc} > 0`),
and every coincidence statistic is a sum over those ranges.
Nothing is done per pair of raters, nor per ``(piece, rater)``:
the cost is a few sorts of the rater segments, their boundaries and events,
:math:`O(S \log S)` for :math:`S` rater segments
(raters with overlapping rows add one sweep over their own boundaries).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from audeval._agreement.inputs import Ratings
from audeval._core.sweep import Pieces
from audeval._core.sweep import activity
from audeval._core.sweep import cut
from audeval._core.sweep import join_runs
from audeval._core.sweep import snap_to_frames
from audeval._core.sweep import sort_keys


@dataclasses.dataclass(frozen=True)
class Segments:
    """Rater segments, the pieces they cut, and which pieces each covers.

    ``rater``, ``file``, ``start``, ``end``, ``category``: one entry per rater segment,
    sorted by rater and file
    (segments of one rater are disjoint per category with ``per_label=True``,
    disjoint altogether for label sets).
    ``first``, ``stop``: the range of pieces each segment covers.
    ``members``: label codes of every category of label sets (index 0: the empty set);
    ``None`` per label (categories are label codes).
    ``rated``: whether rater ``r`` rates file ``f``; ``m``: raters who rate each file.
    """

    pieces: Pieces
    rater: np.ndarray
    file: np.ndarray
    start: np.ndarray
    end: np.ndarray
    category: np.ndarray
    first: np.ndarray
    stop: np.ndarray
    members: list | None
    rated: np.ndarray
    m: np.ndarray

    @property
    def n_categories(self) -> int:
        return len(self.members)  # type: ignore[arg-type]  # asked of label-set segments only (spans), which have members

    def cumulative(self) -> np.ndarray:
        """Total piece length before every piece (``len(pieces) + 1`` entries, int64 ns)."""
        return np.r_[np.int64(0), np.cumsum(self.pieces.duration)]


def _rows(ratings: Ratings, frame_size: int | None) -> tuple[np.ndarray, ...]:
    """Rows of positive length (on the frame grid if given), and the files' extents."""
    start, end, extent = ratings.start, ratings.end, ratings.extent
    if frame_size is not None:
        start, end = snap_to_frames(start, end, frame_size)
        extent = -((-extent) // frame_size) * frame_size
    keep = end > start
    return ratings.rater[keep], ratings.file[keep], ratings.label[keep], start[keep], end[keep], extent


def lanes(rater, file, label, start, end, n_files: int, n_labels: int) -> tuple[np.ndarray, ...]:
    """Union of every ``(rater, file, label)``'s rows.

    Returns:
        rater, file, label, start, end of disjoint intervals,
        sorted by ``(rater, file, label, start)``

    """
    n_labels = np.int64(max(n_labels, 1))
    n_files = np.int64(max(n_files, 1))
    lane = (rater * n_files + file) * n_labels + label
    lane, start, end = _union(lane, start, end)
    label = lane % n_labels
    rater_file = lane // n_labels
    return rater_file // n_files, rater_file % n_files, label, start, end


def _monophonic(group: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray | None:
    """The order by ``(group, start)`` if no two intervals of a group overlap, else ``None``.

    Touching intervals do not overlap.
    """
    if len(group) == 0:
        return np.zeros(0, np.int64)
    start_key, end_key = np.split(sort_keys(int(group.max()) + 1, np.r_[group, group], np.r_[start, end]), 2)
    order = np.argsort(start_key)
    if np.all(start_key[order[1:]] >= end_key[order[:-1]]):
        return order
    return None


def _union(lane: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, ...]:
    """Union of the intervals of every lane (overlapping or touching ones joined), sorted."""
    if len(lane) == 0:
        return lane, start, end
    start_key, end_key = np.split(sort_keys(int(lane.max()) + 1, np.r_[lane, lane], np.r_[start, end]), 2)
    order = np.argsort(start_key)
    start_key, end_key = start_key[order], end_key[order]
    lane, start, end = lane[order], start[order], end[order]
    # a new interval where the start lies beyond every end before it
    # (each lane has its own range of keys, so lanes never join)
    new = np.ones(len(lane), dtype=bool)
    new[1:] = start_key[1:] > np.maximum.accumulate(end_key)[:-1]
    first = np.flatnonzero(new)
    return lane[first], start[first], np.maximum.reduceat(end, first)


def label_sets(
    piece: np.ndarray, label: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list[tuple]]:
    """The set of labels on every piece of ``(piece, label)`` pairs sorted by ``(piece, label)``.

    Returns:
        the first pair of every piece, its set id (``>= 1``),
        and the label codes of every set (index 0: the empty set),
        sets ordered by size, then by label codes

    """
    n = len(piece)
    new = np.ones(n, dtype=bool)
    new[1:] = piece[1:] != piece[:-1]
    begin = np.flatnonzero(new)
    size = np.diff(np.r_[begin, n]).astype(np.int64)
    code = label[begin].astype(np.int64)  # the code of a first label: the label
    width = np.int64(int(label.max(initial=0)) + 2)
    for k in range(1, int(size.max(initial=0))):  # over the largest set's size, not over data
        # the code of a prefix of k + 1 labels: the rank of (code of k labels, next label)
        grow = size > k
        key = code[grow] * width + label[begin[grow] + k] + 1
        _, code[grow] = np.unique(key, return_inverse=True)
    identity = size * (code.max(initial=0) + 1) + code  # equal sets: equal size and code
    _, where, set_code = np.unique(identity, return_index=True, return_inverse=True)
    members = [tuple(label[begin[g] : begin[g] + size[g]].tolist()) for g in where]
    order = sorted(range(len(members)), key=lambda i: (len(members[i]), members[i]))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(1, len(order) + 1)
    return begin, rank[set_code] if len(order) else set_code, [()] + [members[i] for i in order]


def set_segments(rater, file, label, start, end, n_files: int, n_labels: int):
    """Maximal stretches of every rater with one non-empty set of active labels.

    The input are disjoint lanes (:func:`lanes`); each rater's own boundaries
    cut its file into pieces (one sweep per ``(rater, file)``, all at once),
    the set of each piece is read, and touching pieces with equal sets are joined.
    """
    group_key = rater * np.int64(max(n_files, 1)) + file
    groups, group = np.unique(group_key, return_inverse=True)
    group = group.astype(np.int64)
    pieces = cut(len(groups), group, start, end)
    # lanes are disjoint per label: every (piece, label) pair is one lane's
    piece, chan, _ = activity(len(pieces), pieces.first, pieces.stop, label, n_labels)
    begin, set_id, members = label_sets(piece, chan)
    own = piece[begin]  # the pieces of a rater with labels, in order
    first, last = join_runs(pieces.file[own], pieces.start[own], pieces.end[own], set_id)
    g = groups[pieces.file[own[first]]]
    n = np.int64(max(n_files, 1))
    return g // n, g % n, pieces.start[own[first]], pieces.end[own[last]], set_id[first], members


def _single_labels(rater, file, label, start, end, order, n_files: int, per_label: bool):
    """Segments of raters whose rows never overlap: rows, touching rows of one label joined."""
    rater, file, label, start, end = (a[order] for a in (rater, file, label, start, end))
    first, last = join_runs(rater * np.int64(max(n_files, 1)) + file, start, end, label)
    rater, file, label, start, end = rater[first], file[first], label[first], start[first], end[last]
    if per_label:
        return rater, file, start, end, label, None
    # every set a single label, ordered by label code
    used, code = np.unique(label, return_inverse=True)
    members = [()] + [(int(c),) for c in used]
    return rater, file, start, end, code.astype(np.int64) + 1, members


def segments(ratings: Ratings, frame_size: int | None, per_label: bool) -> Segments:
    """Rater segments of every rater and the pieces of all their boundaries.

    Raters whose rows never overlap (one label at a time, the common case)
    take a shortcut: their rows are their segments.
    """
    rater, file, label, start, end, extent = _rows(ratings, frame_size)
    n_files, n_labels = ratings.n_files, max(ratings.n_labels, 1)
    order = _monophonic(rater * np.int64(max(n_files, 1)) + file, start, end)
    if order is not None:
        rater, file, start, end, category, members = _single_labels(
            rater, file, label, start, end, order, n_files, per_label
        )
    else:
        rater, file, label, start, end = lanes(rater, file, label, start, end, n_files, n_labels)
        category, members = label, None
        if not per_label:
            rater, file, start, end, category, members = set_segments(
                rater, file, label, start, end, n_files, n_labels
            )
    pieces = cut(n_files, file, start, end, extent=extent)
    m = ratings.rated.sum(axis=0).astype(np.int64)
    return Segments(
        pieces, rater, file, start, end, category, pieces.first, pieces.stop, members, ratings.rated, m
    )


def count_runs(
    n_pieces: int, first: np.ndarray, stop: np.ndarray, category: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Ranges of pieces with a constant positive count of segments per category.

    Every segment adds ``+1`` at its first piece and ``-1`` after its last one;
    the events of each category, sorted, give the count between consecutive events.

    Returns:
        category, count, first piece and stop piece of every range with a positive count,
        sorted by ``(category, first piece)``

    Examples:
        >>> c, n, lo, hi = count_runs(4, np.array([0, 1, 0]), np.array([3, 2, 4]), np.array([0, 0, 1]))
        >>> c.tolist(), n.tolist(), lo.tolist(), hi.tolist()
        ([0, 0, 0, 1], [1, 2, 1, 1], [0, 1, 2, 0], [1, 2, 3, 4])

    """
    width = np.int64(n_pieces + 1)
    category = np.asarray(category, np.int64)
    # the lowest bit of an event's key: 1 for +1, 0 for -1
    key = np.sort(np.r_[(category * width + first) * 2 + 1, (category * width + stop) * 2])
    if len(key) == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty.copy(), empty.copy(), empty.copy()
    delta = 2 * (key & 1) - 1
    key >>= 1
    begin = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    key = key[begin]
    count = np.cumsum(np.add.reduceat(delta, begin))
    # counts return to 0 at the last event of every category
    positive = np.flatnonzero(count[:-1] > 0)
    return key[positive] // width, count[positive], key[positive] % width, key[positive + 1] % width
