"""The score family's one declaration (read by the registry)."""

from __future__ import annotations

from audeval._core.declare import declared_defaults
from audeval._core.protocol import Family
from audeval._sed_scores.curves import (
    average_precision,
    best_fscore,
    fscore_at,
    precision_recall_curve,
)
from audeval._sed_scores import reductions
from audeval._sed_scores.error_rate import best_error_rate, error_rate_curve
from audeval._sed_scores.pipsds import pi_psd_roc, pipsds
from audeval._sed_scores.psd import psd_roc, psds
from audeval._sed_scores.roc import auroc, roc_curve
from audeval._sed_scores.statistics import STATISTICS_OPTIONS, normalise, score_statistics

METRICS = (
    psds,
    psd_roc,
    pipsds,
    pi_psd_roc,
    error_rate_curve,
    best_error_rate,
    precision_recall_curve,
    best_fscore,
    fscore_at,
    average_precision,
    roc_curve,
    auroc,
)

FAMILY = Family(
    name="score",
    statistics=score_statistics,
    index=("file", "label", "threshold"),
    options=STATISTICS_OPTIONS,
    metrics=METRICS,
    columns=("tp", "fp", "n_truth"),
    normalise=normalise,
    scores_input=True,
    # statistics defaults a metric's own signature sets otherwise (ROC metrics: segments;
    # psds and psd_roc: cttc_threshold=0.3; piPSDS: its median filter lengths);
    # an option the caller gives wins (split_options)
    defaults=declared_defaults(METRICS, STATISTICS_OPTIONS, score_statistics),
    resample=reductions.resample,
)
"""The score family (index ``(file, label, threshold)``)."""
