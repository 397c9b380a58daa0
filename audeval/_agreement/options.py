"""Options of the agreement family, declared once (:mod:`audeval._core.declare`).

Two declarations share the option fields:

* :data:`AGREEMENT`: :func:`agreement_statistics` and the chance-corrected metrics
  that reduce its table (Cohen's and Fleiss' kappa, Krippendorff's alpha);
  ``per_label``, ``frame_size`` and ``unrated`` are recorded by the table;
* :data:`RATERS`: the functions of the raters' spans and units
  (:func:`disagreements`, :func:`consensus`, :func:`unitized_alpha`),
  which have no statistics table (and ``average`` of their own).
"""

from __future__ import annotations

from audeval._core.declare import Declaration, Option


INT_COLUMNS = ("total", "pairable", "values", "first")
FLOAT_COLUMNS = ("coincide", "fleiss_agree", "fleiss_share")
COLUMNS = INT_COLUMNS + FLOAT_COLUMNS
"""Columns of every agreement statistics table."""

UNRATED = ("no_label", "missing")
"""Values of ``unrated``: how a file without rows of a rater counts for that rater."""

LEVELS = ("nominal", "ordinal", "interval", "ratio")
"""Levels of measurement: how the labels' values compare (Krippendorff 2011)."""

WEIGHTS = (None, "linear", "quadratic")
"""Weights of Cohen's kappa over the positions of ordered labels (sklearn's ``weights``)."""

BLOCK = "coincide_with_"
"""Prefix of the coincidence matrix of an ordered table: one column per label."""

AVERAGES = ("macro", "micro", "none", None)
"""Values of ``average`` of the kappas and alpha (``None``: ``"none"``)."""

PER_LABEL = Option(
    "per_label", "each label a binary category (present / absent) instead of label sets",
    default=False, kind="bool", table=True,
)
FRAME_SIZE = Option(
    "frame_size", "frame length in seconds (or ``pd.Timedelta``); ``None``: continuous time",
    default=None, kind="seconds", open_low=True, none=True, table=True,
)
UNRATED_OPTION = Option(
    "unrated", 'a file without rows of a rater counts as ``"no_label"`` or ``"missing"``',
    default="no_label", kind="choice", choices=UNRATED, table=True,
)
LEVEL = Option(
    "level",
    '``"nominal"`` (label sets, "no label" a category), or ordered values '
    '(``"ordinal"``, ``"interval"``, ``"ratio"``: one value at a time, "no label" missing)',
    default="nominal", kind="choice", choices=LEVELS, table=True,
)
FILES_DURATION = Option(
    "files_duration", "file -> duration; else a file ends at the latest end of any rater",
)
PER_FILE = Option("per_file", "one value per file", default=False, kind="bool")
ZERO_DIVISION = Option("zero_division", "value where the metric is 0 / 0", default=float("nan"), kind="zero_division")


AGREEMENT = Declaration(
    "agreement",
    (
        PER_LABEL,
        FRAME_SIZE,
        UNRATED_OPTION,
        LEVEL,
        FILES_DURATION,
        Option(
            "weights", '``"linear"`` or ``"quadratic"``: disagreement weights of ordered labels by position',
            default=None, kind="choice", choices=WEIGHTS,
        ),
        Option(
            "average", '``"macro"``, ``"micro"`` or ``"none"`` (with ``per_label=True``)',
            default="macro", kind="choice", choices=AVERAGES,
        ),
        PER_FILE,
        ZERO_DIVISION,
    ),
    columns=COLUMNS,
    record=lambda options: _record(options),
)
"""The options of :func:`agreement_statistics` and the metrics of its table."""


def _record(options) -> dict:
    """What a table records: ``level`` only where it is not ``"nominal"``
    (nominal tables record what they did before levels existed)."""
    out = {"per_label": options.per_label, "frame_size": options.frame_size, "unrated": options.unrated}
    if options.level != "nominal":
        out["level"] = options.level
    return out


RATERS = Declaration(
    "raters",
    (
        PER_LABEL,
        FRAME_SIZE,
        UNRATED_OPTION,
        FILES_DURATION,
        Option("weights", "rater -> non-negative weight; ``None``: every rater 1"),
        Option(
            "average", '``"pooled"`` (over all categories) or ``"none"`` (per label)',
            default="pooled", kind="choice", choices=("pooled", "none"),
        ),
        PER_FILE,
        ZERO_DIVISION,
    ),
)
"""The options of the functions of spans and units (no statistics table)."""


OPTIONS = AGREEMENT.table_options
"""Options of :func:`agreement_statistics` that its table records."""

normalise = AGREEMENT.normalise
"""Given statistics options (any subset) as the table records them (``frame_size`` as int ns)."""
