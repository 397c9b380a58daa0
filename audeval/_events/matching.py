"""Event matching: candidate pairs by the interval engine, then the matcher (greedy or optimal)."""

from __future__ import annotations

import dataclasses

import numpy as np

from audeval._core.matching import match_segments
from audeval._core.validation import Inputs
from audeval._events.options import Tolerances



# -------------------------------------------------------------------------
# Matching
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class EventMatch:
    """Outcome of matching: for every truth event its prediction or -1."""

    inputs: Inputs
    match: np.ndarray  # same label, time conditions met
    substitution: np.ndarray  # other label, time conditions met, among leftovers

    def prediction_matched(self) -> np.ndarray:
        """Boolean per predicted event: matched with the same label."""
        out = np.zeros(len(self.inputs.prediction), dtype=bool)
        out[self.match[self.match >= 0]] = True
        return out

    def prediction_substituting(self) -> np.ndarray:
        """Boolean per predicted event: paired as a substitution."""
        out = np.zeros(len(self.inputs.prediction), dtype=bool)
        out[self.substitution[self.substitution >= 0]] = True
        return out


def match_events(inputs: Inputs, tol: Tolerances, matching: str) -> EventMatch:
    """Match events per file and pair leftovers of other labels as substitutions.

    Events are numbered in ``(file, start, end, label, row)`` order first,
    and every tie between equally good matchings is broken in that order,
    so results never depend on the order of rows
    (see :func:`audeval._core.matching.match_segments`).
    """
    match, substitution = match_segments(
        inputs.truth, inputs.prediction, inputs.n_files, tol, matching
    )
    return EventMatch(inputs, match, substitution)
