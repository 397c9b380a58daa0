"""Preprocessing of the structure metrics: partitions, mir_eval's padding, gap pieces.

Everything here works on the int64 arrays of the validation gate,
for all files at once.
:func:`prepare` checks that each side is a partition of its file,
applies ``mir_eval.segment.evaluate``'s preprocessing
(truth starts at 0, prediction cropped/padded to the truth's end ``T``)
and fills every gap with an explicit *piece*,
so that each side becomes a sorted list of contiguous pieces
covering ``[0, T)`` per file.

Default semantics (``compat=None``): segments are half-open ``[start, end)``
in exact nanoseconds; gaps of one side are one "no label" cluster.
``compat="mir_eval"`` reproduces ``mir_eval.segment`` 0.8.2:
labels compared as ``str(label).lower()``;
the padding labels ``__T_MIN`` (before the first segment),
``__T_MAX`` (after the last predicted one) and ``None`` (interior gaps);
prediction rows from the first one (in row order) that starts after ``T`` dropped.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from audeval._core.intervals import group_keys
from audeval._core.labels import show_rows
from audeval._core.validation import Inputs
from audeval._core.validation import Segments


LOWEST = np.iinfo(np.int64).min + 1  # rank of a row that loses every tie
HIGHEST = np.iinfo(np.int64).max  # rank of a row that wins every tie


# -------------------------------------------------------------------------
# Partition check and pieces
# -------------------------------------------------------------------------


def _show_rows(series: pd.Series, positions: np.ndarray) -> str:
    """The rows at ``positions`` of ``series``, shown by the gate's formatter."""
    mask = np.zeros(len(series), dtype=bool)
    mask[positions] = True
    return show_rows(series, mask)


def sort_side(side: Segments, n_files: int) -> Segments:
    """Rows sorted by ``(file, start)``."""
    (key,) = group_keys(n_files, (side.file, side.start))
    return side.take(np.argsort(key, kind="stable"))


def check_partition(side: Segments, series: pd.Series, name: str) -> None:
    """Raise unless the rows of every file are disjoint and of positive length.

    ``side`` must be sorted by ``(file, start)``.
    Rows sorted by start overlap somewhere
    exactly when two neighbours overlap.
    """
    bad = side.end <= side.start
    if bad.any():
        raise ValueError(
            f"{name} has segments of zero length; "
            "structural segmentation metrics need a partition of each file "
            f"into segments of positive length: {_show_rows(series, side.position[bad])}"
        )
    same = side.file[1:] == side.file[:-1]
    overlap = same & (side.start[1:] < side.end[:-1])
    if overlap.any():
        where = np.flatnonzero(overlap)
        positions = np.concatenate([side.position[where], side.position[where + 1]])
        raise ValueError(
            f"{name} has overlapping segments within a file; "
            "structural segmentation metrics need a partition of each file "
            f"(one label at a time): {_show_rows(series, positions)}"
        )


@dataclasses.dataclass(frozen=True)
class Pieces:
    """One side as contiguous pieces covering ``[0, T)`` of every file.

    Sorted by ``(file, start)``; ``end`` of a piece is the start of the next
    (or ``T``). ``is_row`` tells a row of mir_eval's padded input (a real
    row or a pad) from an interior gap; ``rank`` orders rows for ties at a
    shared boundary in compat mode (the higher rank wins).
    """

    file: np.ndarray
    start: np.ndarray
    end: np.ndarray
    cluster: np.ndarray
    rank: np.ndarray
    is_row: np.ndarray

    def __len__(self) -> int:
        return len(self.file)


def make_pieces(
    rows: Segments,
    cluster: np.ndarray,
    extent: np.ndarray,
    n_files: int,
    *,
    lead: int,
    inner: int,
    trail: int,
    empty: int,
    lead_is_row: bool,
) -> Pieces:
    """Fill the gaps of sorted, disjoint ``rows`` up to ``[0, extent)`` per file.

    Args:
        rows: rows sorted by ``(file, start)``, inside ``[0, extent)``;
            ``position`` is their rank for ties (compat mode)
        cluster: cluster code of every row
        extent: ``T`` per file
        n_files: number of files
        lead: cluster of a gap before the first row
        inner: cluster of a gap between two rows
        trail: cluster of a gap after the last row
            (a pad row that wins every tie)
        empty: cluster of a file without rows (a pad row)
        lead_is_row: whether a gap before the first row is a pad row
            (its edges are boundaries) or a gap like ``inner``

    """
    file, start, end = rows.file, rows.start, rows.end
    n = len(file)
    first = np.ones(n, dtype=bool)
    first[1:] = file[1:] != file[:-1]
    last = np.ones(n, dtype=bool)
    last[:-1] = file[1:] != file[:-1]

    lead_gap = first & (start > 0)
    inner_gap = ~last & (np.roll(start, -1) > end)
    trail_gap = last & (end < extent[file])
    has_rows = np.zeros(n_files, dtype=bool)
    has_rows[file] = True
    empty_files = np.flatnonzero(~has_rows & (extent > 0))

    zero = np.zeros(0, dtype=np.int64)
    parts = [
        # file, start, end, cluster, rank, is_row
        (file, start, end, cluster, rows.position, np.ones(n, dtype=bool)),
        (
            file[lead_gap],
            np.zeros(int(lead_gap.sum()), dtype=np.int64),
            start[lead_gap],
            np.full(int(lead_gap.sum()), lead),
            np.full(int(lead_gap.sum()), LOWEST),
            np.full(int(lead_gap.sum()), lead_is_row),
        ),
        (
            file[inner_gap],
            end[inner_gap],
            np.roll(start, -1)[inner_gap] if n else zero,
            np.full(int(inner_gap.sum()), inner),
            np.full(int(inner_gap.sum()), LOWEST),
            np.zeros(int(inner_gap.sum()), dtype=bool),
        ),
        (
            file[trail_gap],
            end[trail_gap],
            extent[file[trail_gap]],
            np.full(int(trail_gap.sum()), trail),
            np.full(int(trail_gap.sum()), HIGHEST),
            np.ones(int(trail_gap.sum()), dtype=bool),
        ),
        (
            empty_files,
            np.zeros(len(empty_files), dtype=np.int64),
            extent[empty_files],
            np.full(len(empty_files), empty),
            np.full(len(empty_files), LOWEST),
            np.ones(len(empty_files), dtype=bool),
        ),
    ]
    columns = [np.concatenate([p[i] for p in parts]) for i in range(6)]
    columns = [c.astype(np.int64) if i < 5 else c for i, c in enumerate(columns)]
    (key,) = group_keys(n_files, (columns[0], columns[1]))
    order = np.argsort(key, kind="stable")
    return Pieces(*(c[order] for c in columns))


@dataclasses.dataclass(frozen=True)
class Prepared:
    """Both sides as pieces, with the track end ``T`` of every file."""

    files: pd.Index
    extent: np.ndarray  # T per file (ns); 0 where the file has no truth
    truth: Pieces
    prediction: Pieces
    n_clusters: int
    compat: bool
    truth_rows: Segments  # the rows as given, sorted by (file, start): pad=False boundaries
    prediction_rows: Segments

    @property
    def n_files(self) -> int:
        return len(self.files)


def _start_pad(rows: Segments, extent: np.ndarray, n_files: int) -> Segments:
    """mir_eval's ``__T_MIN`` pad ``[0, min(first start, T))`` of files whose rows start late.

    The first start is taken over all rows of the file,
    also those that the cropping drops afterwards (as mir_eval does).
    """
    first = np.full(n_files, np.iinfo(np.int64).max, dtype=np.int64)
    if len(rows):
        np.minimum.at(first, rows.file, rows.start)
    has = (first > 0) & (first != np.iinfo(np.int64).max) & (extent > 0)
    file = np.flatnonzero(has)
    zero = np.zeros(len(file), dtype=np.int64)
    return Segments(
        file,
        zero,
        np.minimum(first[file], extent[file]),
        zero,
        np.full(len(file), LOWEST, dtype=np.int64),
    )


def _cluster_codes(inputs: Inputs, compat: bool) -> tuple[np.ndarray, int, int, int, int]:
    """Cluster code per label, the codes of mir_eval's pads and of gaps, and the cluster count."""
    if compat:
        names = [str(label).lower() for label in inputs.labels]
        codes, uniques = pd.factorize(
            pd.Index(names + ["__t_min", "__t_max", "none"], dtype=object)
        )
        codes = np.asarray(codes, dtype=np.int64)
        t_min, t_max, gap = (int(c) for c in codes[len(names) :])
        return codes[: len(names)], t_min, t_max, gap, len(uniques)
    n = inputs.n_labels
    return np.arange(n, dtype=np.int64), n, n, n, n + 1


def _crop_prediction(p_rows: Segments, extent: np.ndarray, n_files: int, compat: bool) -> Segments:
    """The prediction cropped to the truth's end (mir_eval's rule in compat mode)."""
    keep = p_rows.start < extent[p_rows.file]
    if compat:
        # mir_eval drops every row from the first one (in row order)
        # that starts after T; rows starting at T would be of zero length
        # and make mir_eval raise, they are dropped here
        beyond = p_rows.start > extent[p_rows.file]
        cut = np.full(n_files, np.iinfo(np.int64).max, dtype=np.int64)
        if beyond.any():
            np.minimum.at(cut, p_rows.file[beyond], p_rows.position[beyond])
        keep &= p_rows.position < cut[p_rows.file]
    p_rows = p_rows.take(np.flatnonzero(keep))
    return Segments(
        p_rows.file,
        p_rows.start,
        np.minimum(p_rows.end, extent[p_rows.file]),
        p_rows.label,
        p_rows.position,
    )


def _with_pad(rows: Segments, cluster: np.ndarray, pad: Segments, t_min: int, n_files: int):
    """Rows with mir_eval's start pad (cluster ``t_min``), in (file, start) order."""
    rows = Segments(
        np.concatenate([rows.file, pad.file]),
        np.concatenate([rows.start, pad.start]),
        np.concatenate([rows.end, pad.end]),
        np.concatenate([rows.label, pad.label]),
        np.concatenate([rows.position, pad.position]),
    )
    cluster = np.concatenate([cluster, np.full(len(pad), t_min)])
    order = np.argsort(group_keys(n_files, (rows.file, rows.start))[0], kind="stable")
    return rows.take(order), cluster[order]


def prepare(
    inputs: Inputs,
    truth: pd.Series,
    prediction: pd.Series,
    compat: bool,
) -> Prepared:
    """Partition check, mir_eval's preprocessing, and gap filling."""
    n_files = inputs.n_files
    t_rows = sort_side(inputs.truth, n_files)
    p_rows = sort_side(inputs.prediction, n_files)
    check_partition(t_rows, truth, "truth")
    check_partition(p_rows, prediction, "prediction")
    extent = np.zeros(n_files, dtype=np.int64)
    if len(t_rows):
        np.maximum.at(extent, t_rows.file, t_rows.end)
    label_code, t_min, t_max, gap, n_clusters = _cluster_codes(inputs, compat)
    # mir_eval pads each side with [0, first start] (__T_MIN) before it crops the prediction
    pads = (_start_pad(t_rows, extent, n_files), _start_pad(p_rows, extent, n_files)) if compat else None
    given_p_rows = p_rows
    p_rows = _crop_prediction(p_rows, extent, n_files, compat)
    sides = []
    for k, rows in enumerate((t_rows, p_rows)):
        cluster = label_code[rows.label]
        if compat:
            rows, cluster = _with_pad(rows, cluster, pads[k], t_min, n_files)  # type: ignore[index]  # pads are set when compat is
        sides.append(
            make_pieces(
                rows,
                cluster,
                extent,
                n_files,
                lead=gap if compat else t_min,
                inner=gap,
                trail=t_max,
                empty=t_min,
                lead_is_row=not compat,
            )
        )
    t_pieces, p_pieces = sides
    return Prepared(
        inputs.files, extent, t_pieces, p_pieces, n_clusters, compat, t_rows, given_p_rows
    )

