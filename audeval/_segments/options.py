"""Options of the segment family: columns, resolution and compat rules, what tables record."""

from __future__ import annotations

import numbers

from audeval._core.declare import Declaration, Option
from audeval._core.options import as_timedelta
from audeval._core.validation import NS_PER_SECOND



COLUMNS = ("tp", "fp", "fn", "tn", "substitutions")
COMPAT = (None, "sed_eval")
AVERAGES = ("micro", "macro")
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




SEGMENT = Declaration(
    "segment",
    (
        Option(
            "time_resolution",
            "segment length in seconds (or ``pd.Timedelta``); ``None``: exact continuous time (durations)",
            default=1.0, kind="seconds", open_low=True, none=True, table=True,
        ),
        Option(
            "files_duration",
            "mapping or Series from file to duration, the evaluated length; "
            "default: the latest end in truth or prediction per file",
        ),
        Option(
            "compat",
            "``\"sed_eval\"`` reproduces sed_eval's float64 binning",
            kind="choice", choices=COMPAT, table=True,
        ),
        Option("zero_division", "value of 0 / 0", default=0.0, kind="zero_division"),
        Option("average", "``\"micro\"`` or ``\"macro\"``", default="micro", kind="choice", choices=AVERAGES),
        Option("propagate_nans", "NaN F-score where precision or recall is NaN", default=False, kind="bool"),
        Option("per_file", "one block of rows per file and a last block ``TOTAL``", default=False, kind="bool"),
        Option(
            "gap_label", "a class for unannotated time (MIREX2018_eval's final code); ``None``: none",
            table=True,
        ),
    ),
    columns=COLUMNS,
    check=lambda values, given: _check_exact(values["time_resolution"], values["compat"]),
    record=lambda options: {
        "compat": options.compat, "time_resolution": as_timedelta(options.time_resolution),
        "gap_label": options.gap_label,
    },
)
"""The segment family's options, declared once."""


def _check_exact(r_ns: int | None, compat: str | None) -> None:
    if r_ns is None and compat is not None:
        raise ValueError(
            "time_resolution=None (exact continuous time) cannot be combined "
            f"with compat={compat!r}; give the segment length in seconds."
        )


def resolution(options) -> tuple[int | None, float | None]:
    """``time_resolution`` as int ns and as float seconds (``None`` for exact time).

    Float seconds as given (sed_eval's binning divides by them), else from the ns.
    """
    r_ns = options.time_resolution
    if r_ns is None:
        return None, None
    value = options.raw.get("time_resolution", SEGMENT.fields["time_resolution"].default)
    if isinstance(value, numbers.Real):
        return r_ns, float(value)
    return r_ns, r_ns / NS_PER_SECOND


OPTIONS = SEGMENT.table_options
"""Options of :func:`segment_statistics` that its table records."""

normalise = SEGMENT.normalise
"""Given segment options (any subset) as the table records them."""


def _check_resolution(time_resolution, compat) -> tuple[int | None, float | None]:
    """``time_resolution`` (given) as int ns and float seconds, checked with ``compat``
    (for callers outside the declared functions, e.g. the segment plot)."""
    return resolution(SEGMENT.build({"time_resolution": time_resolution, "compat": compat}))
