"""The score family's gate: the statistics table of a declared metric's call, computed or given."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from audeval._sed_scores.options import SCORE
from audeval._sed_scores.statistics import Accumulated, accumulate, compute_statistics
from audeval._core.tables import select_labels


def score_table(
    metric: Callable,
    truth: object,
    scores: object,
    labels: Sequence[object] | None,
    options,
    *,
    max_efpr: float | None = None,
) -> pd.DataFrame:
    """The statistics table of a metric call: computed from truth and scores, or given.

    A given table is checked against the options the caller gave;
    ``labels`` selects its rows (every score metric works per label).
    ``max_efpr``: a score table keeps only the thresholds a PSD-ROC cut there can use.
    """
    if scores is not None:
        recorded = SCORE.record(options)
        return compute_statistics(
            truth, scores, labels, recorded, options.files_duration, max_efpr=max_efpr
        )
    return SCORE.table(metric, truth, scores, labels, options, select=select_labels)


def accumulated(metric: Callable, truth, scores, labels, options) -> Accumulated:
    """The family gate of a score metric: its table summed and accumulated over thresholds."""
    return accumulate(score_table(metric, truth, scores, labels, options))
