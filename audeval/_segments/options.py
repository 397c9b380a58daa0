"""Options of the segment family: columns, resolution and compat rules, what tables record."""

from __future__ import annotations

from collections.abc import Mapping
import numbers

import numpy as np
import pandas as pd

from audeval._scores import fscore
from audeval._options import as_timedelta, check_choice, value_of
from audeval._validation import NS_PER_SECOND
from audeval._validation import check_option
from audeval._validation import to_ns



COLUMNS = ("tp", "fp", "fn", "tn", "substitutions")
COMPAT = (None, "sed_eval")
REPORT_COLUMNS = (
    "n_truth",
    "n_prediction",
    "tp",
    "fp",
    "fn",
    "tn",
    "precision",
    "recall",
    "fscore",
    "error_rate",
    "substitution_rate",
    "deletion_rate",
    "insertion_rate",
    "sensitivity",
    "specificity",
    "balanced_accuracy",
    "accuracy",
)




def _check_resolution(time_resolution, compat) -> tuple[int | None, float | None]:
    """``time_resolution`` as int ns and as float seconds (``None`` for exact time)."""
    compat = check_option(compat, "compat", COMPAT)
    if time_resolution is None:
        if compat is not None:
            raise ValueError(
                "time_resolution=None (exact continuous time) cannot be combined "
                f"with compat={compat!r}; give the segment length in seconds."
            )
        return None, None
    r_ns = to_ns(time_resolution, "time_resolution", allow_none=False)
    if r_ns == 0:
        raise ValueError(f"time_resolution must be positive; got {time_resolution!r}.")
    if isinstance(time_resolution, numbers.Real):
        r_seconds = float(time_resolution)
    else:
        r_seconds = r_ns / NS_PER_SECOND
    return r_ns, r_seconds



OPTIONS = ("time_resolution", "compat")
"""Options of :func:`segment_statistics` that its table records."""


def normalise(options: Mapping[str, object]) -> dict:
    """Check the given segment options; the resolution as ``pd.Timedelta`` (what a table records)."""
    out = {}
    if "compat" in options:
        out["compat"] = check_choice(options["compat"], "compat", COMPAT)
    if "time_resolution" in options:
        r_ns, _ = _check_resolution(value_of(options["time_resolution"]), out.get("compat"))
        out["time_resolution"] = as_timedelta(r_ns)
    return out
