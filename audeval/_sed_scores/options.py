"""Options of the score family, declared once (:mod:`audeval._core.declare`)."""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd

from audeval._core.declare import Declaration, Option


CRITERIA = ("intersection", "collar", "segment", "clip")
COMPAT = (None, "sed_scores_eval", "psds_eval")


def _ratio(name: str, doc: str, default: float | None, **kwargs) -> Option:
    return Option(name, doc, default=default, kind="real", low=0.0, high=1.0, **kwargs)


def _check(values: dict, given: frozenset) -> None:
    """Cross-field rules: a cross-trigger weight needs the cross-trigger criterion;
    median filter lengths become a tuple of distinct seconds (the form a table records)."""
    if values["alpha_ct"] != 0.0 and values["cttc_threshold"] is None:
        raise ValueError("alpha_ct is not 0: pass cttc_threshold.")
    if values["median_filter_lengths"] is not None:
        values["median_filter_lengths"] = filter_lengths(values["median_filter_lengths"])


def filter_lengths(lengths: object) -> tuple[float, ...]:
    """Median filter lengths as a tuple of seconds: non-empty, each finite and >= 0, distinct."""
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__iter__"):
        raise TypeError(f"median_filter_lengths must be a sequence of seconds; got {lengths!r}.")
    out = []
    for value in lengths:
        seconds = value.total_seconds() if isinstance(value, pd.Timedelta) else value
        if isinstance(seconds, (bool, np.bool_)) or not isinstance(seconds, numbers.Real):
            raise TypeError(f"median_filter_lengths must hold seconds; got {value!r}.")
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"median_filter_lengths must hold finite seconds >= 0; got {value!r}.")
        out.append(float(seconds))
    if not out:
        raise ValueError("median_filter_lengths is empty: pass at least one length.")
    if len(set(out)) != len(out):
        raise ValueError(f"median_filter_lengths holds a length twice: {out}.")
    return tuple(out)


SCORE = Declaration(
    "score",
    (
        Option(
            "criterion", '``"intersection"``, ``"collar"``, ``"segment"`` or ``"clip"``',
            default="intersection", kind="choice", choices=CRITERIA, table=True,
        ),
        _ratio("dtc_threshold", "detection tolerance criterion (intersection)", 0.7, table=True),
        _ratio("gtc_threshold", "ground truth intersection criterion (intersection)", 0.7, table=True),
        _ratio(
            "cttc_threshold", "cross-trigger tolerance criterion; ``None``: no cross triggers",
            None, none=True, table=True,
        ),
        Option(
            "onset_tolerance", "onset collar in seconds (collar)",
            default=0.2, kind="seconds", table=True,
        ),
        Option(
            "offset_tolerance", "smallest offset collar in seconds (collar)",
            default=0.2, kind="seconds", table=True,
        ),
        _ratio(
            "duration_tolerance", "offset collar as a share of the truth event's length (collar)",
            0.2, table=True,
        ),
        Option(
            "segment_length", "segment length in seconds (segment)",
            default=1.0, kind="seconds", open_low=True, none=True, table=True,
        ),
        Option(
            "median_filter_lengths", "median filter lengths in seconds (piPSDS); "
            "``None``: the scores as they are", table=True,
        ),
        Option("files_duration", "duration per file (else the latest end of its frames and truth)"),
        Option(
            "compat", '``"sed_scores_eval"``: its 6-decimal rounding of times; '
            '``"psds_eval"``: its float64 shares (operating points)',
            kind="choice", choices=COMPAT, table=True,
        ),
        Option("beta", r":math:`\beta` of the F-score", default=1.0, kind="real", low=0.0),
        _ratio("min_precision", "smallest precision allowed", 0.0),
        _ratio("min_recall", "smallest recall allowed", 0.0),
        Option("threshold", "decision threshold, or one per label (checked per label)", default=0.5),
        Option(
            "average", '``"macro"``: the mean over labels; ``None``: per label',
            default="macro", kind="choice", choices=("macro", None),
        ),
        Option(
            "max_fpr", "largest FPR of the partial area, in (0, 1]; ``None``: the whole curve",
            kind="real", low=0.0, open_low=True, high=1.0, none=True,
        ),
        Option("mcclish", "standardise the partial area (McClish correction)", default=False, kind="bool"),
        Option(
            "ties", '``"after"``: the staircase (sed_scores_eval); ``"half"``: straight lines (sklearn)',
            default="after", kind="choice", choices=("after", "half"),
        ),
        Option("alpha_ct", "weight of the cross-trigger rate", default=0.0, kind="real", low=0.0),
        Option("alpha_st", "weight of the standard deviation over classes", default=1.0, kind="real", low=0.0),
        Option("max_efpr", "largest eFPR per hour", default=100.0, kind="real", low=0.0, open_low=True),
        Option("per_class", "the staircase of every label instead", default=False, kind="bool"),
        Option("ax", "matplotlib axes to draw on; ``None``: a new figure (plots)"),
    ),
    columns=("tp", "fp", "n_truth"),
    check=_check,
)
"""The score family's options, declared once."""
