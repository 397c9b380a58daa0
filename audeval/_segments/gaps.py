"""MIREX 2018 (final code) accuracy: unannotated time as a gap class.

MIREX2018_eval's final evaluation code labels every stretch of a file
that no event covers with a class of its own (``'-'``) in truth and in
prediction and reports ``Ntp / Nref``: the (frame, class) decisions of
the truth that the prediction repeats, over all (frame, class) decisions
of the truth (gap class included).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from audeval._core.sweep_keyed import channel_runs
from audeval._core.validation import Inputs, Segments, file_extent


def _gaps(side: Segments, extent: np.ndarray, code: int) -> Segments:
    """``side`` plus its uncovered parts of ``[0, extent_f)`` as label ``code``:
    the runs of :func:`audeval._core.sweep_keyed.channel_runs` where only ``[0, extent_f)`` is active."""
    n_files = len(extent)
    limit = extent[side.file]
    end = np.where(side.end < 0, limit, np.minimum(side.end, limit))  # NaT: until the end
    zero = np.zeros(len(side), dtype=np.int64)
    files = np.arange(n_files, dtype=np.int64)
    file, start, stop, state = channel_runs(
        extent, 1, (side.file, zero, side.start, end), (files, np.zeros(n_files, np.int64), files * 0, extent)
    )
    gap = state == 2
    n = int(gap.sum())
    return Segments(
        np.concatenate([side.file, file[gap]]),
        np.concatenate([side.start, start[gap]]),
        np.concatenate([side.end, stop[gap]]),
        np.concatenate([side.label, np.full(n, code, dtype=np.int64)]),
        np.concatenate([side.position, np.full(n, -1, dtype=np.int64)]),
    )


def fill_gaps(inputs: Inputs, gap_label: object) -> Inputs:
    """``inputs`` with unannotated time labelled ``gap_label`` on both sides.

    A file's time is ``[0, d_f)`` with ``d_f`` from ``files_duration``,
    else the latest end in truth or prediction;
    the gap class is appended to the labels.
    """
    if gap_label in inputs.labels:
        raise ValueError(
            f"gap_label={gap_label!r} is a label of the inputs; choose a label that does not occur."
        )
    extent = file_extent(inputs)
    code = len(inputs.labels)
    return dataclasses.replace(
        inputs,
        truth=_gaps(inputs.truth, extent, code),
        prediction=_gaps(inputs.prediction, extent, code),
        labels=[*inputs.labels, gap_label],
    )


def gap_counts(truth, prediction, labels, options):
    """Counts with unannotated time as class ``options.gap_label`` (MIREX2018_eval's final code)."""
    import pandas as pd

    from audeval._segments.engine import _counts_from_inputs
    from audeval._segments.options import resolution
    from audeval._core.validation import check_inputs

    if isinstance(truth, pd.DataFrame) or prediction is None:
        raise TypeError(
            "gap_label needs truth and prediction as Series: the unannotated time "
            "of a file cannot be read from a statistics table."
        )
    inputs = check_inputs(
        truth, prediction, labels=labels, files_duration=options.files_duration, require_end=True
    )
    return _counts_from_inputs(fill_gaps(inputs, options.gap_label), *resolution(options), options.compat)


def gap_accuracy(counts, zero_division: float) -> float:
    """``Ntp / Nref`` over the labels and the gap class."""
    n_tp, n_ref = int(counts.tp.sum()), int((counts.tp + counts.fn).sum())
    return float(n_tp / n_ref) if n_ref else float(zero_division)
