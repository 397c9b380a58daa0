"""Two sides over their common pieces: per-file sums, pairs active together, active times.

:func:`two_sides` is the engine's entry for two annotations at once (diarization's truth and
prediction, detection's two speech supports). It picks its strategy by size:
bit masks (:mod:`audeval._core.sweep_masks`) where no channel is active twice at once
and a file's channels fit one int64; with ``distinct``, the channels merged first and masks,
else pairs of overlapping intervals (:mod:`audeval._core.sweep_pairs`);
else the pieces of :mod:`audeval._core.sweep` (:func:`~audeval._core.sweep.cut`,
:func:`~audeval._core.sweep.activity`, :func:`~audeval._core.sweep.pair_sums`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from audeval._core.sweep import activity, coverage, cut, pair_sums
from audeval._core.sweep_masks import file_sums, mask_sums
from audeval._core.sweep_pairs import merge_channels, pair_sweep


_EMPTY = np.zeros(0, dtype=np.int64)


@dataclasses.dataclass(frozen=True)
class Sides:
    """Sums of two sides over their common pieces (:func:`two_sides`).

    Attributes:
        columns: name to int64 array per file
        pairs: file, left channel, right channel of every pair active together, sorted
        pair: name to int64 array per pair
        left: file, channel and active time of every channel of the left side, sorted
        right: the same of the right side

    """

    columns: dict
    pairs: tuple
    pair: dict
    left: tuple
    right: tuple


def two_sides(
    n_files: int,
    left: tuple,
    right: tuple,
    n_left: int,
    n_right: int,
    *,
    columns,
    pair: dict,
    distinct: bool = False,
) -> Sides:
    r"""Per-file sums, pair co-occurrence and active times of two sides.

    With :math:`n_l(p)`, :math:`n_r(p)` the intervals of each side active on piece :math:`p`
    (``distinct=True``: the channels, a channel active several times at once counts once),
    a per-file column of factors :math:`g` (:math:`g(0, 0) = 0`) is :math:`\sum_p d_p\, g(n_l(p), n_r(p))`,
    a pair column ``(weight, where)`` is :func:`pair_sums` over the pieces where ``where(n_l, n_r)``
    (``None``: all), a channel's active time :math:`\sum_p d_p\, c(p)` (:math:`c` its count, 1 if
    ``distinct``). Strategies by size: bit masks (:mod:`audeval._core.sweep_masks`) where no channel is
    active twice at once and the channels of a file fit one int64; else, ``distinct``, the channels
    merged and masks or pairs of overlapping intervals (:mod:`audeval._core.sweep_pairs`); else pieces.

    Args:
        n_files: number of file codes
        left: ``(file, channel, start, end)`` intervals of positive length
        right: the same of the other side
        n_left: number of channel codes of ``left``
        n_right: number of channel codes of ``right``
        columns: ``(n_l, n_r) -> {name: int64 factor array}``
        pair: name to ``(weight, where)``, weight as in :func:`cooccurrence`
        distinct: count each active channel once

    Examples:
        >>> t = (np.array([0, 0]), np.array([0, 1]), np.array([0, 2]), np.array([4, 6]))
        >>> p = (np.array([0]), np.array([0]), np.array([1]), np.array([5]))
        >>> s = two_sides(1, t, p, 2, 1, columns=lambda a, b: {"miss": np.maximum(a - b, 0)},
        ...               pair={"time": ("product", None)})
        >>> s.columns["miss"].tolist(), [x.tolist() for x in s.pairs], s.pair["time"].tolist()
        ([4], [[0, 0], [0, 1], [0, 0]], [3, 3])

    """
    where = {k: w for k, (_, w) in pair.items()}
    masks = mask_sums(n_files, n_left, n_right, left, right, columns, where)
    if masks is not None:  # no channel active twice at once: every weight is 1
        return Sides(*masks)
    if distinct:  # each channel's intervals merged: bit masks, else pairs of overlapping intervals
        left, right = merge_channels(n_files, n_left, left), merge_channels(n_files, n_right, right)
        masks = mask_sums(n_files, n_left, n_right, left, right, columns, where)
        return Sides(*(masks or pair_sweep(n_files, n_left, n_right, left, right, columns, where)))
    n = len(left[0])
    pieces = cut(n_files, *(np.r_[left[k], right[k]] for k in (0, 2, 3)))
    acts, counts, times = [], [], []
    for side, first, stop, width in ((left, 0, n, n_left), (right, n, None, n_right)):  # the two sides
        act = activity(len(pieces), pieces.first[first:stop], pieces.stop[first:stop], side[1], width)
        acts.append(act)
        counts.append(coverage(len(pieces), pieces.first[first:stop], pieces.stop[first:stop]))
        width = np.int64(max(width, 1))
        key, time = _key_sums(side[0] * width + side[1], side[3] - side[2])
        times.append((key // width, key % width, time))
    d = pieces.duration * ((counts[0] + counts[1]) > 0)  # silence is not summed
    sums = file_sums(pieces.file, n_files, {k: f * d for k, f in columns(*counts).items()})
    weights = {k: (w, None if f is None else f(*counts)) for k, (w, f) in pair.items()}
    f, a, b, pair_columns = pair_sums(pieces, acts[0], acts[1], n_left, n_right, weights)
    return Sides(sums, (f, a, b), pair_columns, times[0], times[1])


def _key_sums(key: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct keys (sorted) and the exact sums of ``values`` over each."""
    order = np.argsort(key, kind="stable")
    key = key[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else _EMPTY
    return key[first], np.add.reduceat(values[order], first).astype(np.int64) if len(key) else _EMPTY.copy()


__all__ = ["Sides", "two_sides"]
