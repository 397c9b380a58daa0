"""The segment family's outcome runs as they were before they came from the piece engine.

The reference of ``tests/test_pieces_segments.py`` (``audeval._segments.outcomes.outcome_runs``
now takes the runs of :func:`audeval._core.sweep_keyed.channel_runs`).
Copied from ``audeval/_segments/outcomes.py`` at f18e5b3, with ``engine._side_units`` (removed) inlined.
"""

from __future__ import annotations

import numpy as np

from audeval._core.intervals import difference, intersect, merge


def _side_units(inputs, side, n_units, units) -> tuple:
    """Group, first and end (exclusive) unit of every event, cut at the evaluated length
    (the former ``audeval._segments.engine._side_units``)."""
    a, b = units(side.start, side.end)
    b = np.minimum(b, n_units[side.file])
    group = side.file * inputs.n_labels + side.label
    return group, a, b, side.file


def outcome_runs(inputs, n_units, units) -> dict[str, tuple]:
    """Runs of TP, FN and FP units per ``(file, label)`` group, as the statistics count them
    (``units(start, end)``: the grid; ``n_units``: evaluated units per file);
    each a ``(group, first, stop)`` triple of :func:`audeval._core.intervals.merge`."""
    n_groups = inputs.n_files * inputs.n_labels
    truth_active, prediction_active = (
        merge(n_groups, *_side_units(inputs, side, n_units, units)[:3])
        for side in (inputs.truth, inputs.prediction)
    )
    both = intersect(n_groups, truth_active, prediction_active)
    return {
        "tp": both,
        "fn": difference(n_groups, truth_active, both),
        "fp": difference(n_groups, prediction_active, both),
    }
