"""Score-based sound event detection (SPEC section 10): PSDS, curves and AUROC from score tables.

Modules by concern: :mod:`.inputs` (the gate for score tables),
:mod:`.deltas` (detections at every threshold as change points),
:mod:`.intersection` (DTC/GTC/CTTC), :mod:`.statistics` (the additive table),
:mod:`.psd` (PSD-ROC, PSDS), :mod:`.curves` (precision/recall/F, AP),
:mod:`.medfilt` (median filter), :mod:`.pipsds` (piPSDS), :mod:`.error_rate` (error rates),
:mod:`.family` (the family declaration).
"""

from audeval._sed_scores.curves import (
    average_precision,
    best_fscore,
    fscore_at,
    precision_recall_curve,
)
from audeval._sed_scores.error_rate import best_error_rate, error_rate_curve
from audeval._sed_scores.events import scores_to_events
from audeval._sed_scores.family import FAMILY
from audeval._sed_scores.medfilt import median_filter
from audeval._sed_scores.options import SCORE
from audeval._sed_scores.pipsds import pi_psd_roc, pipsds
from audeval._sed_scores.psd import PSDS1, PSDS2, psd_roc, psds, staircase_area
from audeval._io.scores import read_operating_points, read_sed_scores
from audeval._sed_scores.roc import auroc, roc_curve
from audeval._sed_scores.statistics import score_statistics

__all__ = [
    "PSDS1",
    "PSDS2",
    "auroc",
    "average_precision",
    "best_error_rate",
    "best_fscore",
    "error_rate_curve",
    "fscore_at",
    "median_filter",
    "pi_psd_roc",
    "pipsds",
    "precision_recall_curve",
    "psd_roc",
    "psds",
    "read_operating_points",
    "read_sed_scores",
    "roc_curve",
    "score_statistics",
    "scores_to_events",
]
