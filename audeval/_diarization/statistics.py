r"""The diarization statistics: one sweep over elementary segments, an additive table.

Every file is cut into elementary segments at every truth and prediction boundary
(inside the scored region) by the core's piece engine (:func:`audeval._core.sweep_sides.two_sides`,
by bit masks or by pieces); this module maps files, labels, UEM, collars and overlap onto it.
In a segment of length :math:`d` with :math:`n_t` truth and :math:`n_p` predicted labels,
total, miss and false alarm grow by :math:`n_t d`, :math:`\max(0, n_t - n_p) d`,
:math:`\max(0, n_p - n_t) d`; every pair of a truth and a predicted label active in it
adds :math:`d` to their co-occurrence.
The parts in truth overlap (:math:`n_t \ge 2`) and false alarm in truth silence
(:math:`n_t = 0`) are kept apart, so that ``regions=`` needs no other table.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from audeval._core.sweep_sides import two_sides
from audeval._diarization import options as opt
from audeval._diarization.region import _crop, _merge_labels, _raw_labels, _scored_region


@dataclasses.dataclass
class _Table:
    """The diarization statistics as flat arrays (int64 ns)."""

    files: pd.Index
    truth_labels: list
    prediction_labels: list
    per_file: dict  # column -> array per file (FILE_COLUMNS)
    truth: tuple[np.ndarray, np.ndarray, np.ndarray]  # file, label, speaker time
    prediction: tuple[np.ndarray, np.ndarray, np.ndarray]
    cooccurrence: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # file, t, p, time
    pair: dict  # column -> array per co-occurrence row (duration_overlap, matched, ...)
    compat: str | None = None
    # per-side collars (md-eval): the co-occurrence without collars that the mapping maximises
    mapping: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    # compat="pyannote": the durations on merged label supports, aligned with the rows of
    # ``truth``, ``prediction`` and ``cooccurrence`` (pyannote.metrics' purity and coverage)
    support: dict | None = None
    # the collar convention of the table (the report names it)
    collar_convention: str = "total"

    def speaking(self, side: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Speaking times of one side (``"truth"``, ``"prediction"``) on label supports."""
        file, label, time = getattr(self, side)
        return file, label, time if self.support is None else self.support[side]

    def cooccurrence_support(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The co-occurrence of label supports (a label overlapping itself counts once)."""
        file, truth, prediction, time = self.cooccurrence
        support = self.support
        return file, truth, prediction, time if support is None else support["cooccurrence"]

    @property
    def n_files(self) -> int:
        return len(self.files)

    @property
    def n_labels(self) -> int:
        return max(len(self.truth_labels), len(self.prediction_labels))

    @property
    def labels(self) -> list:
        return opt.union_labels(self.truth_labels, self.prediction_labels)

    @property
    def total(self) -> np.ndarray:
        return self.per_file["total"]

    @property
    def miss(self) -> np.ndarray:
        return self.per_file["miss"]

    @property
    def false_alarm(self) -> np.ndarray:
        return self.per_file["false_alarm"]

    def matched(self) -> np.ndarray:
        """Correct time of each co-occurrence row if its pair is mapped."""
        return self.pair.get("matched", self.cooccurrence[3])


def _components(n_t: np.ndarray, n_p: np.ndarray) -> dict:
    """Per piece, the factors of its length in each per-file column (``n_t``, ``n_p`` active labels)."""
    common = np.minimum(n_t, n_p)
    miss, false_alarm = n_t - common, n_p - common
    in_overlap = n_t >= 2
    return {
        "total": n_t,
        "miss": miss,
        "false_alarm": false_alarm,
        "total_overlap": np.where(in_overlap, n_t, 0),
        "miss_overlap": np.where(in_overlap, miss, 0),
        "false_alarm_overlap": np.where(in_overlap, false_alarm, 0),
        "false_alarm_silence": np.where(n_t == 0, false_alarm, 0),
    }


def _in_overlap(n_t: np.ndarray, n_p: np.ndarray) -> np.ndarray:
    return n_t >= 2


def _sweep(sizes: tuple[int, int, int], truth, prediction, *, overlap: bool = True, matched: bool = False,
           distinct: bool = True) -> tuple:
    """Per-file components, co-occurrence, pair columns and speaking times of cropped rows
    (the piece engine, :func:`audeval._core.sweep_sides.two_sides`; labels are its channels).

    ``distinct``: a label overlapping itself counts once (merged labels), else every row
    (``compat="pyannote"``, with the ``matched`` pair columns).
    ``overlap=False`` leaves out the co-occurrence in truth overlap.
    """
    pair: dict[str, tuple] = {"duration": ("product", None)}
    if overlap:
        pair["duration_overlap"] = ("product", _in_overlap)
    if matched:
        pair.update(matched=("min", None), matched_overlap=("min", _in_overlap))
    n, n_truth_labels, n_prediction_labels = sizes
    sides = two_sides(
        n, truth, prediction, n_truth_labels, n_prediction_labels,
        columns=_components, pair=pair, distinct=distinct,
    )
    columns = dict(sides.pair)
    cooccurrence = (*sides.pairs, columns.pop("duration"))
    return sides.columns, cooccurrence, columns, sides.left, sides.right


def _diarization_arrays(
    inputs,
    collar: int,
    skip_overlap: bool,
    *,
    collar_convention: str = "total",
    compat: str | None = None,
    uem=None,
    truth_labels: list | None = None,
    prediction_labels: list | None = None,
    overlap: bool = True,
) -> _Table:
    """The statistics of validated inputs (codes of each side index its own label list)."""
    truth_labels = list(inputs.labels) if truth_labels is None else truth_labels
    prediction_labels = list(inputs.labels) if prediction_labels is None else prediction_labels
    n = inputs.n_files
    n_labels = max(len(truth_labels), len(prediction_labels), 1)
    if compat == "pyannote":
        return _pyannote_arrays(
            inputs, collar, skip_overlap, collar_convention, uem, truth_labels, prediction_labels
        )
    # merged truth turns only where the region needs them (per-side collars, overlap)
    needs_merged = skip_overlap or (collar > 0 and collar_convention == "per_side")
    truth_merged = _merge_labels(inputs.truth, n, n_labels) if needs_merged else None
    region = _scored_region(
        inputs, truth_merged, collar, skip_overlap, collar_convention=collar_convention, uem=uem
    )
    rows = truth_merged if truth_merged is not None else _positive(inputs.truth)
    prediction_rows = _positive(inputs.prediction)
    sizes = (n, len(truth_labels), len(prediction_labels))
    per_file, cooccurrence, pair, truth_time, prediction_time = _sweep(
        sizes, _crop(n, n_labels, rows, region), _crop(n, n_labels, prediction_rows, region), overlap=overlap
    )
    mapping = None
    if collar > 0 and collar_convention == "per_side":  # md-eval maps before the collars
        scored = _scored_region(inputs, truth_merged, 0, False, uem=uem)
        mapping = _sweep(
            sizes, _crop(n, n_labels, rows, scored), _crop(n, n_labels, prediction_rows, scored)
        )[1]
    return _Table(
        files=inputs.files,
        truth_labels=truth_labels,
        prediction_labels=prediction_labels,
        per_file=per_file,
        truth=truth_time,
        prediction=prediction_time,
        cooccurrence=cooccurrence,
        pair=pair,
        compat=compat,
        mapping=mapping,
    )


def _positive(side) -> tuple:
    """Rows of positive length of one side: file, label, start, end."""
    keep = side.end > side.start
    if keep.all():
        return side.file, side.label, side.start, side.end
    return side.file[keep], side.label[keep], side.start[keep], side.end[keep]


def _pyannote_arrays(
    inputs, collar, skip_overlap, collar_convention, uem, truth_labels, prediction_labels
) -> _Table:
    """``compat="pyannote"``: every row as it is (a label overlapping itself counts twice)."""
    n = inputs.n_files
    n_labels = max(len(truth_labels), len(prediction_labels), 1)
    truth_rows = _raw_labels(inputs.truth, n, n_labels)
    prediction_rows = _raw_labels(inputs.prediction, n, n_labels)
    truth_merged = _merge_labels(inputs.truth, n, n_labels)
    region = _scored_region(
        inputs,
        truth_merged,
        collar,
        skip_overlap,
        collar_convention=collar_convention,
        uem=uem,
        overlap_rows=truth_rows,  # pyannote.metrics: a label overlapping itself is overlap
    )
    truth = _crop(n, n_labels, truth_rows, region)
    prediction = _crop(n, n_labels, prediction_rows, region)
    sizes = (n, len(truth_labels), len(prediction_labels))
    per_file, cooccurrence, pair, truth_time, prediction_time = _sweep(
        sizes, truth, prediction, matched=True, distinct=False
    )
    # label supports (merged), for purity and coverage
    prediction_merged = _merge_labels(inputs.prediction, n, n_labels)
    if len(truth_merged[0]) == len(truth_rows[0]) and len(prediction_merged[0]) == len(
        prediction_rows[0]
    ):  # no row merged into another: no label overlaps itself, supports are the rows
        support = {
            "truth": truth_time[2],
            "prediction": prediction_time[2],
            "cooccurrence": cooccurrence[3],
        }
    else:  # one more sweep of the same rows, each label counted once
        _, support_pairs, _, support_truth, support_prediction = _sweep(
            sizes, truth, prediction, overlap=False
        )
        support = {
            "truth": _aligned(truth_time, support_truth, n_labels),
            "prediction": _aligned(prediction_time, support_prediction, n_labels),
            "cooccurrence": _aligned(cooccurrence, support_pairs, n_labels),
        }
    return _Table(
        files=inputs.files,
        truth_labels=truth_labels,
        prediction_labels=prediction_labels,
        per_file=per_file,
        truth=truth_time,
        prediction=prediction_time,
        cooccurrence=cooccurrence,
        pair=pair,
        compat="pyannote",
        support=support,
    )


def _aligned(rows: tuple, other: tuple, n_labels: int) -> np.ndarray:
    """The last array of ``other`` on the keys of ``rows`` (the leading code arrays; 0 if absent)."""
    width = max(n_labels, 1)

    def key(codes):
        out = codes[0].astype(np.int64)
        for code in codes[1:]:
            out = out * width + code
        return out

    target, source = key(rows[:-1]), key(other[:-1])
    order = np.argsort(source, kind="stable")
    source = source[order]
    position = np.minimum(np.searchsorted(source, target), max(len(source) - 1, 0))
    out = np.zeros(len(target), dtype=np.int64)
    if len(source):
        found = source[position] == target
        out[found] = other[-1][order][position[found]]
    return out
