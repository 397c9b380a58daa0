"""FROZEN COPY of audeval/_agreement/statistics.py at 4430921 (before issue 32 item 4).

The reference of tests/test_agreement_raters.py: the rater-squared sweep
(every active (piece, rater, label)) that the linear implementation replaced.
Do not edit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses

import numpy as np
import pandas as pd

from audeval._core import options as _options
from audeval._agreement.inputs import UNRATED
from audeval._agreement.inputs import Ratings
from audeval._agreement.inputs import check_ratings
from audeval._core.protocol import stamp
from sweep_old import Pieces
from sweep_old import activity
from sweep_old import elementary_segments
from sweep_old import snap_to_frames
from audeval._core.tables import label_index


NO_LABEL = "<no label>"
"""Name of the "no label" category (label sets of ``per_label=False``)."""

INT_COLUMNS = ("total", "pairable", "values", "first")
FLOAT_COLUMNS = ("coincide", "fleiss_agree", "fleiss_share")
COLUMNS = INT_COLUMNS + FLOAT_COLUMNS
OPTIONS = ("per_label", "frame_size", "unrated")


def normalise(options: Mapping[str, object]) -> dict:
    """Check the given statistics options; ``frame_size`` as int ns (what a table records)."""
    checks = {
        "per_label": lambda v: _options.check_bool(v, "per_label"),
        "frame_size": _frame_size,
        "unrated": lambda v: _options.check_choice(v, "unrated", UNRATED),
    }
    return {name: checks[name](value) for name, value in options.items() if name in checks}


def _frame_size(value: object) -> int | None:
    ns = _options.check_duration(value, "frame_size")
    if ns == 0:
        raise ValueError("frame_size must be positive; got 0.")
    return ns


# -------------------------------------------------------------------------
# The sweep
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Sweep:
    """Elementary segments of all raters and who is active on each.

    ``piece``, ``rater``, ``label``: one entry per distinct active
    ``(piece, rater, label)``, sorted by ``(piece, rater, label)``.
    ``m``: raters who rate the file of each piece.
    """

    pieces: Pieces
    m: np.ndarray
    piece: np.ndarray
    rater: np.ndarray
    label: np.ndarray


def sweep(ratings: Ratings, frame_size: int | None = None) -> Sweep:
    """Cut all files at every boundary of every rater (on the frame grid if given)."""
    start, end, extent = ratings.start, ratings.end, ratings.extent
    if frame_size is not None:
        start, end = snap_to_frames(start, end, frame_size)
        extent = -((-extent) // frame_size) * frame_size
    keep = end > start
    pieces = elementary_segments(
        ratings.n_files, ratings.file[keep], start[keep], end[keep], extent=extent
    )
    n_labels = max(ratings.n_labels, 1)
    channel = ratings.rater[keep] * n_labels + ratings.label[keep]
    piece, chan = activity(pieces, channel, ratings.n_raters * n_labels)
    m = ratings.rated.sum(axis=0).astype(np.int64)[pieces.file]
    return Sweep(pieces, m, piece, chan // n_labels, chan % n_labels)


def label_counts(sw: Sweep, n_labels: int) -> tuple[np.ndarray, ...]:
    """Per ``(piece, label)`` with the label present: raters present, first rater present."""
    key = sw.piece * np.int64(max(n_labels, 1)) + sw.label
    keys, inverse, n = np.unique(key, return_inverse=True, return_counts=True)
    first = np.bincount(inverse, weights=sw.rater == 0, minlength=len(keys)) > 0
    n_labels = np.int64(max(n_labels, 1))
    return keys // n_labels, keys % n_labels, n.astype(np.int64), first


def label_sets(sw: Sweep) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple]]:
    """The label set of every rater on every piece where it has labels.

    Returns:
        piece, rater, set id (``>= 1``) per ``(piece, rater)`` with labels,
        and the label codes of every set (index 0: the empty set),
        sets ordered by size, then by label codes

    """
    n = len(sw.piece)
    new = np.ones(n, dtype=bool)
    new[1:] = (sw.piece[1:] != sw.piece[:-1]) | (sw.rater[1:] != sw.rater[:-1])
    begin = np.flatnonzero(new)
    size = np.diff(np.r_[begin, n]).astype(np.int64)
    code = sw.label[begin].astype(np.int64)  # the code of a first label: the label
    width = np.int64(int(sw.label.max(initial=0)) + 2)
    for k in range(1, int(size.max(initial=0))):
        # the code of a prefix of k + 1 labels: the rank of (code of k labels, next label)
        grow = size > k
        key = code[grow] * width + sw.label[begin[grow] + k] + 1
        _, code[grow] = np.unique(key, return_inverse=True)
    identity = size * (code.max(initial=0) + 1) + code  # equal sets: equal size and code
    _, where, set_code = np.unique(identity, return_index=True, return_inverse=True)
    members = [tuple(sw.label[begin[g] : begin[g] + size[g]].tolist()) for g in where]
    order = sorted(range(len(members)), key=lambda i: (len(members[i]), members[i]))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(1, len(order) + 1)
    return (
        sw.piece[begin],
        sw.rater[begin],
        rank[set_code] if len(order) else set_code,
        [()] + [members[i] for i in order],
    )


def set_counts(sw: Sweep, ratings: Ratings) -> tuple[tuple[np.ndarray, ...], list[tuple]]:
    """Per ``(piece, label set)``: raters with that set, first rater with it."""
    piece, rater, set_id, members = label_sets(sw)
    n_sets = np.int64(len(members))
    key = piece * n_sets + set_id
    keys, inverse, n = np.unique(key, return_inverse=True, return_counts=True)
    first = np.bincount(inverse, weights=rater == 0, minlength=len(keys)) > 0
    # raters without labels on a piece: the "no label" category
    n_pieces = len(sw.pieces)
    labelled = np.bincount(piece, minlength=n_pieces)
    first_labelled = np.bincount(piece[rater == 0], minlength=n_pieces) > 0
    none = sw.m - labelled
    has_none = none > 0
    first_rates = ratings.rated[0][sw.pieces.file]
    none_piece = np.flatnonzero(has_none)
    out_piece = np.r_[keys // n_sets, none_piece]
    out_set = np.r_[keys % n_sets, np.zeros(len(none_piece), np.int64)]
    out_n = np.r_[n, none[has_none]].astype(np.int64)
    out_first = np.r_[first, (first_rates & ~first_labelled)[has_none]]
    return (out_piece, out_set, out_n, out_first), members


def set_names(members: list[tuple], labels: list) -> list:
    """Category names: the label of a single label, ``"a + b"`` for sets, :data:`NO_LABEL`."""
    names = [
        NO_LABEL if not m else labels[m[0]] if len(m) == 1 else " + ".join(str(labels[i]) for i in m)
        for m in members
    ]
    if len(set(names)) != len(names):
        seen: set = set()
        clash = [n for n in names if n in seen or seen.add(n)]
        raise ValueError(
            f"the label sets {clash} have names that clash with labels; "
            f"rename labels containing ' + ' or equal to {NO_LABEL!r}."
        )
    return names


def aggregate(
    sw: Sweep,
    n_files: int,
    n_categories: int,
    counts: tuple[np.ndarray, ...],
) -> dict[str, np.ndarray]:
    """Columns over the dense ``(file, category)`` grid, ``file * n_categories + category``."""
    piece, category, n, first = counts
    d = sw.pieces.duration[piece]
    m = sw.m[piece]
    pairable = m >= 2
    piece, category, n, first, d, m = (
        a[pairable] for a in (piece, category, n, first, d, m)
    )
    row = sw.pieces.file[piece] * np.int64(n_categories) + category
    size = n_files * n_categories
    out = {}
    for name, values in (("values", d * n), ("first", d * first)):
        out[name] = np.zeros(size, dtype=np.int64)
        np.add.at(out[name], row, values)
    df = d.astype(np.float64)
    nf = n.astype(np.float64)
    mf = m.astype(np.float64)
    pairs = df * nf * (nf - 1)
    for name, values in (
        ("coincide", pairs / (mf - 1)),
        ("fleiss_agree", pairs / (mf * (mf - 1))),
        ("fleiss_share", df * nf / mf),
    ):
        out[name] = np.bincount(row, weights=values, minlength=size)
    # per-file totals over pairable pieces
    keep = sw.m >= 2
    total = np.zeros(n_files, dtype=np.int64)
    np.add.at(total, sw.pieces.file[keep], sw.pieces.duration[keep])
    pair_total = np.zeros(n_files, dtype=np.int64)
    np.add.at(pair_total, sw.pieces.file[keep], sw.pieces.duration[keep] * sw.m[keep])
    out["total"] = np.repeat(total, n_categories)
    out["pairable"] = np.repeat(pair_total, n_categories)
    return {c: out[c] for c in COLUMNS}


def table(files: pd.Index, categories: list, columns: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """A statistics DataFrame over the dense ``(file, label)`` grid."""
    n_files, n_categories = len(files), len(categories)
    index = pd.MultiIndex(
        levels=[pd.Index(files, name="file"), label_index(categories)],
        codes=[np.repeat(np.arange(n_files), n_categories), np.tile(np.arange(n_categories), n_files)],
        names=["file", "label"],
        verify_integrity=False,
    )
    return pd.DataFrame(dict(columns), index=index)


def fill_missing(storage: dict, present: np.ndarray, shape: tuple) -> None:
    """Rows missing from a shard get the file's ``total`` and ``pairable`` (and zeros)."""
    if present.all() or "total" not in storage:
        return
    n_files, n_labels = shape
    for column in ("total", "pairable"):
        if column not in storage:
            continue
        values = storage[column].reshape(n_files, n_labels)
        per_file = np.where(present.reshape(n_files, n_labels), values, 0).max(axis=1)
        storage[column][~present] = np.repeat(per_file, n_labels)[~present]


# -------------------------------------------------------------------------
# The public statistics function
# -------------------------------------------------------------------------


def agreement_statistics(
    annotations: Mapping[object, pd.Series] | pd.Series,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    per_label: bool = False,
    frame_size: float | pd.Timedelta | None = None,
    unrated: str = "no_label",
    files_duration: Mapping | pd.Series | None = None,
) -> pd.DataFrame:
    r"""Additive coincidence statistics of several raters, per file and category.

    Every file is cut at every boundary of every rater into elementary segments;
    on a segment of length :math:`d_p` in file :math:`f`,
    :math:`n_{pc}` of the :math:`m_f` raters of the file assign category :math:`c`.
    Categories are the label sets
    (each moment's set of active labels of a rater;
    the empty set is the category ``"<no label>"``),
    or with ``per_label=True`` each label on its own (binary: present or absent).
    The table sums over the segments of each file
    (:math:`T`: time, :math:`N`: pairable values, :math:`n_c`: values of :math:`c`,
    :math:`a_c`: first rater's time in :math:`c`, :math:`o_{cc}`: coincidences within :math:`c`)

    .. math::

        T = \sum_p d_p,\quad N = \sum_p d_p m_f,\quad
        n_c = \sum_p d_p n_{pc},\quad a_c = \sum_p d_p [r_1 \in c],

        o_{cc} = \sum_p d_p \frac{n_{pc}(n_{pc} - 1)}{m_f - 1},\quad
        \text{fleiss\_agree}_c = \sum_p d_p \frac{n_{pc}(n_{pc} - 1)}{m_f(m_f - 1)},\quad
        \text{fleiss\_share}_c = \sum_p d_p \frac{n_{pc}}{m_f}

    in the columns ``total``, ``pairable``, ``values``, ``first`` (int64 ns)
    and ``coincide``, ``fleiss_agree``, ``fleiss_share`` (float ns),
    on the dense ``(file, label)`` grid (``label``: the category).
    Files rated by fewer than two raters contribute zeros.
    With ``per_label=True`` the rows describe "present";
    "absent" is the rest of ``total`` and ``pairable``.
    Tables of disjoint sets of files add up
    (:func:`audeval.sum_statistics`) to the table of their union.

    A rater's overlapping rows of one label count once.
    With ``frame_size`` the time axis is cut into frames ``[k s, (k + 1) s)``
    and a label is active in a frame if one of its rows overlaps the frame;
    every length is then a whole number of frames.

    Args:
        annotations: mapping rater -> Series (audformat segmented or filewise index),
            an audformat Database (its rater columns, see :func:`rater_annotations`),
            or the first rater's Series when ``prediction`` is given
        prediction: the second rater's Series (the raters are then
            ``"truth"`` and ``"prediction"``)
        labels: labels to evaluate; rows of other labels are left out
            (as if not there); ``None``: categories of categorical inputs,
            then the sorted union of labels
        per_label: one binary category per label instead of label sets
        frame_size: frame length (seconds or timedelta) to reproduce
            frame-based tools; ``None``: continuous time
        unrated: a file without rows of a rater counts as
            ``"no_label"`` for that rater (files are the union over raters),
            or as ``"missing"``: the rater did not rate it
            (values missing, as NaN in a reliability matrix)
        files_duration: file -> duration; else a file ends
            at the latest end of any rater

    Returns:
        statistics table (its options in ``attrs``)

    Raises:
        TypeError, ValueError: on invalid input (naming the rater and rows)

    Examples:
        >>> import audformat
        >>> from audeval import agreement_statistics
        >>> def rater(starts, ends, labels):
        ...     index = audformat.segmented_index(["f"] * len(starts), starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> raters = {"r1": rater([0.0], [2.0], ["a"]), "r2": rater([1.0], [2.0], ["a"])}
        >>> stats = agreement_statistics(raters)
        >>> (stats[["values", "coincide"]] / 1e9).round(3)
                             values  coincide
        file label
        f    <no label>     1.0       0.0
             a              3.0       2.0

    """
    options = normalise(
        {"per_label": per_label, "frame_size": frame_size, "unrated": unrated}
    )
    ratings = check_ratings(
        annotations,
        prediction,
        labels=labels,
        files_duration=files_duration,
        unrated=options["unrated"],
    )
    sw = sweep(ratings, options["frame_size"])
    if options["per_label"]:
        categories = list(ratings.labels)
        counts = label_counts(sw, ratings.n_labels)
    else:
        counts, members = set_counts(sw, ratings)
        categories = set_names(members, ratings.labels)
    columns = aggregate(sw, ratings.n_files, len(categories), counts)
    out = table(ratings.files, categories, columns)
    recorded = {**options, "raters": [str(r) for r in ratings.raters]}
    return stamp(out, "agreement", recorded)
