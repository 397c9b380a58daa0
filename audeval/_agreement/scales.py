r"""Coincidences of ordered values (``level="ordinal" | "interval" | "ratio"``).

On a rated scale every rater gives one value at a time;
time where a rater gives no value is a missing value (as NaN in a reliability matrix),
so the raters who pair on a piece :math:`p` of length :math:`d_p`
are the :math:`m_p` raters with a value there (pieces with :math:`m_p < 2` add nothing).
Besides the columns of the nominal table (with :math:`m_p` in place of the file's raters)
an ordered table holds the whole coincidence matrix, one column per value :math:`k`
(``coincide_with_<k>``):

.. math::

    o_{ck} = \sum_p d_p \frac{n_{pc} (n_{pk} - [c = k])}{m_p - 1}

from the per-piece counts :math:`n_{pc}` (running sums over the raters' segments):
the work per piece grows with the distinct values on it, never with pairs of raters.
"""

from __future__ import annotations

import numbers

import numpy as np

from audeval._agreement.coincidence import Segments
from audeval._agreement.coincidence import count_runs
from audeval._agreement.inputs import Ratings
from audeval._core.intervals import expand_ranges
from audeval._core.sweep import coverage


def check_scale(ratings: Ratings, level: str) -> np.ndarray | None:
    """The labels' numbers (``None`` for ``"ordinal"``), else an error saying what is needed."""
    labels = ratings.labels
    numeric = all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in labels)
    if level == "ordinal":
        if not (numeric or ratings.ordered):
            raise ValueError(
                f"level='ordinal' needs ordered labels; got {labels[:6]}: pass numbers, "
                "ordered categoricals (pd.CategoricalDtype(..., ordered=True)) or labels=[...] in order."
            )
        return None
    if not numeric:
        raise ValueError(f"level={level!r} needs numbers as labels; got {labels[:6]}.")
    values = np.asarray(labels, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"level={level!r} needs finite numbers as labels; got {labels[:6]}.")
    if level == "ratio" and np.any(values < 0):
        raise ValueError(f"level='ratio' needs non-negative numbers as labels; got {sorted(values[values < 0])[:6]}.")
    return values


def _single_values(seg: Segments, ratings: Ratings) -> np.ndarray:
    """The label code of every rater segment; an error where a rater gives several values at once."""
    if seg.members is None:
        return seg.category
    code = np.array([m[0] if len(m) == 1 else -1 for m in seg.members], dtype=np.int64)
    value = code[seg.category]
    several = np.flatnonzero(value < 0)
    if len(several):
        k = several[0]
        labels = [ratings.labels[i] for i in seg.members[seg.category[k]]]
        raise ValueError(
            f"annotations[{ratings.raters[seg.rater[k]]!r}] gives several values at once in file "
            f"{ratings.files[seg.file[k]]!r} ({labels}); an ordered level takes one value at a time."
        )
    return value


def _add(size: int, row: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return np.bincount(row, weights=weights, minlength=size).astype(np.float64)


def _add_int(size: int, row: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, row, values.astype(np.int64))
    return out


def aggregate_ordered(seg: Segments, ratings: Ratings) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The columns over the dense ``(file, value)`` grid and the coincidence matrix
    ``(files * values, values)`` of ordered values."""
    n_files, n_values = ratings.n_files, ratings.n_labels
    pieces = seg.pieces
    n_pieces = len(pieces)
    value = _single_values(seg, ratings)
    m = coverage(n_pieces, seg.first, seg.stop)  # raters with a value on each piece
    paired = m >= 2
    d = pieces.duration.astype(np.int64)
    weight = np.where(paired, d / np.maximum(m - 1, 1), 0.0)  # d_p / (m_p - 1)
    category, n, lo, hi = count_runs(n_pieces, seg.first, seg.stop, value)
    run, piece = expand_ranges(lo, hi)
    keep = paired[piece]
    run, piece = run[keep], piece[keep]
    c, k = category[run], n[run].astype(np.float64)
    size = n_files * n_values
    row = pieces.file[piece] * np.int64(n_values) + c
    mp = m[piece].astype(np.float64)
    total = _add_int(n_files, pieces.file[paired], d[paired])
    pairable = _add_int(n_files, pieces.file[paired], (d * m)[paired])
    # the first rater's value on pieces where it pairs (its segments' lengths there)
    own = np.flatnonzero(seg.rater == 0)
    paired_time = np.r_[np.int64(0), np.cumsum(np.where(paired, d, 0))]
    first = _add_int(
        size, seg.file[own] * np.int64(n_values) + value[own],
        paired_time[seg.stop[own]] - paired_time[seg.first[own]],
    )
    columns = {
        "total": np.repeat(total, n_values),
        "pairable": np.repeat(pairable, n_values),
        "values": _add_int(size, row, d[piece] * n[run]),
        "first": first,
        "coincide": _add(size, row, weight[piece] * k * (k - 1)),
        "fleiss_agree": _add(size, row, d[piece] * k * (k - 1) / (mp * (mp - 1))),
        "fleiss_share": _add(size, row, d[piece] * k / mp),
    }
    # every entry with every entry of its piece (entries sorted by piece)
    order = np.argsort(piece, kind="stable")
    piece, row, k, c = piece[order], row[order], k[order], c[order]
    begin = np.searchsorted(piece, piece, side="left")
    end = np.searchsorted(piece, piece, side="right")
    a, b = expand_ranges(begin, end)
    contribution = weight[piece[a]] * k[a] * (k[b] - (a == b))
    matrix = np.bincount(row[a] * np.int64(n_values) + c[b], weights=contribution, minlength=size * n_values)
    return columns, matrix.reshape(size, n_values)
