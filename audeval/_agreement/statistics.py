r"""Additive coincidence statistics of several raters (SPEC section 11).

One sweep over elementary segments (:mod:`audeval._core.sweep`) gives,
for every piece :math:`p` of length :math:`d_p` in file :math:`f`,
the number :math:`n_{pc}` of raters that assign category :math:`c`
among the :math:`m_f` raters who rate the file
(as running sums over the raters' segments, :mod:`audeval._agreement.coincidence`:
linear in the number of raters, nothing per pair of raters).
A category is a label set (``per_label=False``; the empty set is "no label")
or, per label, "label present" (``per_label=True``; "absent" is the complement).
The table holds, per ``(file, category)``, sums over the file's pieces:

* ``total``: :math:`T = \sum_p d_p`, the file's length if :math:`m_f \ge 2` (int64 ns)
* ``pairable``: :math:`N = \sum_p d_p\, m_f`, the pairable values (int64 ns)
* ``values``: :math:`n_c = \sum_p d_p\, n_{pc}` (int64 ns)
* ``first``: :math:`a_c = \sum_p d_p\, [\text{first rater in } c]` (int64 ns)
* ``coincide``: :math:`o_{cc} = \sum_p d_p\, n_{pc}(n_{pc} - 1) / (m_f - 1)` (float ns)
* ``fleiss_agree``: :math:`\sum_p d_p\, n_{pc}(n_{pc} - 1) / (m_f (m_f - 1))` (float ns)
* ``fleiss_share``: :math:`\sum_p d_p\, n_{pc} / m_f` (float ns)

Files rated by fewer than two raters add nothing (nothing is pairable there).
``total`` and ``pairable`` repeat the file's totals on each of its rows.
Every column is a sum over files,
so tables of disjoint sets of files add up to the table of their union,
and every metric of the family is a reduction of a (summed) table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._agreement.inputs import check_ratings
from audeval._agreement.options import AGREEMENT
from audeval._agreement.options import BLOCK
from audeval._agreement.scales import aggregate_ordered
from audeval._agreement.scales import check_scale
from audeval._agreement.options import COLUMNS
from audeval._agreement.options import normalise  # noqa: F401  (tests/assets/agreement/reference)
from audeval._core.sweep import coverage
from audeval._core.protocol import stamp
from audeval._agreement.coincidence import Segments
from audeval._agreement.coincidence import count_runs
from audeval._agreement.coincidence import segments
from audeval._core.tables import label_index


NO_LABEL = "<no label>"
"""Name of the "no label" category (label sets of ``per_label=False``)."""


def set_names(members: list[tuple], labels: list) -> list:
    """Category names: the label of a single label, ``"a + b"`` for sets, :data:`NO_LABEL`."""
    names = [
        NO_LABEL if not m else labels[m[0]] if len(m) == 1 else " + ".join(str(labels[i]) for i in m)
        for m in members
    ]
    if len(set(names)) != len(names):
        seen: set = set()
        clash = [n for n in names if n in seen or seen.add(n)]  # type: ignore[func-returns-value]  # add() is None: keeps the first
        raise ValueError(
            f"the label sets {clash} have names that clash with labels; "
            f"rename labels containing ' + ' or equal to {NO_LABEL!r}."
        )
    return names


def _add(size: int, row: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, row, values)
    return out


def aggregate(seg: Segments, n_files: int, n_categories: int) -> dict[str, np.ndarray]:
    """Columns over the dense ``(file, category)`` grid, ``file * n_categories + category``.

    Sums over the ranges of pieces with a constant count per category
    (:func:`audeval._agreement.coincidence.count_runs`),
    plus, for label sets, the "no label" category (category 0) piece by piece:
    the raters of the file without a segment on the piece.
    """
    pieces = seg.pieces
    size = n_files * n_categories
    category, n, lo, hi = count_runs(len(pieces), seg.first, seg.stop, seg.category)
    row = pieces.file[lo] * np.int64(n_categories) + category
    cumulative = seg.cumulative()
    dn = (cumulative[hi] - cumulative[lo]) * n
    values = _add(size, row, dn)
    pairs = np.bincount(row, weights=dn * (n - 1.0), minlength=size).astype(np.float64)  # d n (n - 1)
    if seg.members is not None:  # "no label": raters of the file without a segment
        none = seg.m[pieces.file] - coverage(len(pieces), seg.first, seg.stop)
        dk = pieces.duration * none
        values[::n_categories] += _add(n_files, pieces.file, dk)
        pairs[::n_categories] += np.bincount(pieces.file, weights=dk * (none - 1.0), minlength=n_files)
    # m is constant in a file: divide the file's sums; files with m < 2 add nothing
    pairable_file = seg.m >= 2
    m = np.repeat(np.where(pairable_file, seg.m, 2).astype(np.float64), n_categories)
    pairable = np.repeat(pairable_file, n_categories)
    values = np.where(pairable, values, 0)
    pairs = np.where(pairable, pairs, 0.0)
    total = _add(n_files, pieces.file, pieces.duration) * pairable_file
    out = {
        "total": np.repeat(total, n_categories),
        "pairable": np.repeat(total * seg.m, n_categories),
        "values": values,
        "first": _first(seg, n_files, n_categories, pairable_file, total),
        "coincide": pairs / (m - 1),
        "fleiss_agree": pairs / (m * (m - 1)),
        "fleiss_share": values / m,
    }
    return {c: out[c] for c in COLUMNS}


def _first(seg: Segments, n_files: int, n_categories: int, pairable_file, total) -> np.ndarray:
    """The first rater's time per ``(file, category)`` (its own segments; the rest "no label")."""
    own = (seg.rater == 0) & pairable_file[seg.file]
    file = seg.file[own]
    length = seg.end[own] - seg.start[own]
    first = _add(n_files * n_categories, file * np.int64(n_categories) + seg.category[own], length)
    if seg.members is not None:
        labelled = _add(n_files, file, length)
        first[::n_categories] = np.where(seg.rated[0], total - labelled, 0)
    return first


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


def _ordered(ratings, options) -> pd.DataFrame:
    """The table of ordered values: the columns and the coincidence matrix (one column per value)."""
    if options.per_label:
        raise ValueError(
            f"level={options.level!r} compares the values of one variable; "
            "per_label=True (a binary variable per label) needs level='nominal'."
        )
    check_scale(ratings, options.level)
    seg = segments(ratings, options.frame_size, False)
    columns, matrix = aggregate_ordered(seg, ratings)
    labels = list(ratings.labels)
    block = {f"{BLOCK}{label}": matrix[:, k] for k, label in enumerate(labels)}
    return table(ratings.files, labels, {**columns, **block})


def compute_statistics(annotations, prediction, labels, options) -> pd.DataFrame:
    """The statistics table of the annotations under a checked options object."""
    ratings = check_ratings(
        annotations,
        prediction,
        labels=labels,
        files_duration=options.files_duration,
        unrated=options.unrated,
    )
    if options.level != "nominal":
        out = _ordered(ratings, options)
    else:
        seg = segments(ratings, options.frame_size, options.per_label)
        if options.per_label:
            categories = list(ratings.labels)
        else:
            categories = set_names(seg.members, ratings.labels)  # type: ignore[arg-type]  # label-set segments have members
        columns = aggregate(seg, ratings.n_files, len(categories))
        out = table(ratings.files, categories, columns)
    recorded = {**AGREEMENT.record(options), "raters": [str(r) for r in ratings.raters]}
    return stamp(out, "agreement", recorded)


@AGREEMENT.statistics(compute_statistics)
def agreement_statistics(
    annotations: Mapping[object, pd.Series] | pd.Series,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    per_label: bool = False,
    frame_size: float | pd.Timedelta | None = None,
    unrated: str = "no_label",
    files_duration: Mapping | pd.Series | None = None,
    level: str = "nominal",
) -> pd.DataFrame:
    r"""Additive coincidence statistics of several raters, per file and category.

    Every file is cut at every boundary of every rater into elementary segments;
    on a segment of length :math:`d_p` in file :math:`f`,
    :math:`n_{pc}` of the :math:`m_f` raters of the file assign category :math:`c`.
    Categories are the label sets
    (each moment's set of active labels of a rater;
    the empty set is the category ``"<no label>"``),
    or with ``per_label=True`` each label on its own (binary: present or absent).
    The counts are running sums over each rater's segments
    (time and memory linear in the number of raters).
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
    and a label is active in a frame if one of its rows overlaps the frame
    with positive length (any overlap labels a frame; a row of zero length labels none);
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
        level: ``"nominal"``: categories are label sets, "no label" one of them;
            ``"ordinal"``, ``"interval"``, ``"ratio"``: the labels are the ordered values
            of one scale (numbers, an ordered categorical, or ``labels=[...]`` in order),
            a rater gives one value at a time, time without a value is missing
            (paired only where at least two raters give a value),
            and the table adds the coincidence matrix
            :math:`o_{ck} = \sum_p d_p\, n_{pc} (n_{pk} - [c = k]) / (m_p - 1)`
            (:math:`m_p`: the raters with a value on :math:`p`)
            in the columns ``coincide_with_<k>`` (float ns)

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
