"""Options and the input gate of the detection and diarization families.

The options of the four families of this package (diarization, detection,
speaker change, speaker sets) are declared once, as :class:`audeval._core.declare.Option`
fields of one :class:`audeval._core.declare.Declaration` per family:
a public function is declared on its family, every option its caller gives
is checked once per call, and a statistics table records its options
in the form :func:`_record` gives (durations as ``pd.Timedelta``).
Truth and prediction labels of diarization are unrelated
(str speakers against int clusters):
each side keeps its own label list, sorted on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
import math
import numbers

import numpy as np
import pandas as pd

from audeval._core.declare import Declaration, Option
from audeval._core.options import as_timedelta
from audeval._core.validation import check_inputs
from audeval._core.labels import factorize


MAPPINGS = ("optimal", "greedy")
COLLAR_CONVENTIONS = ("total", "per_side")
REGIONS = ("all", "single", "overlap", "nonoverlap")
COMPAT = (None, "pyannote")
TOTAL_ROW = "TOTAL"

DETECTION_COLUMNS = ("true_positive", "false_alarm", "miss", "true_negative")
FILE_COLUMNS = (
    "total",
    "miss",
    "false_alarm",
    "total_overlap",
    "miss_overlap",
    "false_alarm_overlap",
    "false_alarm_silence",
)
PAIR_COLUMNS = ("duration", "duration_overlap")
COMPAT_COLUMNS = ("matched", "matched_overlap")
SUPPORT_COLUMN = "duration_support"
"""``compat="pyannote"``: ``duration`` on label supports (a label overlapping itself once),
for pyannote.metrics' purity and coverage."""
MAPPING_COLUMN = "duration_mapping"
"""Per-side collars (md-eval): co-occurrence before the collars, which the mapping maximises."""
DIARIZATION_COLUMNS = FILE_COLUMNS + PAIR_COLUMNS
"""Columns of every diarization statistics table (``compat="pyannote"`` adds ``matched*``)."""

def collar_sides(collar_ns: int, convention: str) -> tuple[int, int]:
    """Unscored time before and after a boundary (ns)."""
    if convention == "per_side":
        return collar_ns, collar_ns
    before = collar_ns // 2
    return before, collar_ns - before


# ----------------------------------------------------------------------
# The options, declared once (audeval._core.declare)
# ----------------------------------------------------------------------


class _Positive(Option):
    """A positive, finite real (an F-score's ``beta``; ``beta <= 0`` has no meaning).

    Its constraint is data as for every ``"real"`` option (``low=0``, ``open_low=True``);
    only the wording of its errors is the family's.
    """

    def _real(self, value: object) -> float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(f"{self.name} must be a positive float; got {type(value).__name__} {value!r}.")
        if not math.isfinite(value) or value <= self.low:
            raise ValueError(f"{self.name} must be a positive, finite float; got {value!r}.")
        return float(value)


COLLAR = Option(
    "collar",
    "unscored width (seconds or timedelta) around every truth boundary, as ``collar_convention`` says",
    default=0.0, kind="seconds", table=True,
)
COLLAR_CONVENTION = Option(
    "collar_convention",
    '``"total"`` (pyannote.metrics): ``collar`` is the total width, half before and half after '
    'a truth boundary; ``"per_side"`` (NIST md-eval, dscore, spy-der): ``collar`` on each side',
    default="total", kind="choice", choices=COLLAR_CONVENTIONS, table=True,
)
SKIP_OVERLAP = Option(
    "skip_overlap", "do not score regions with two or more truth labels",
    default=False, kind="bool", table=True,
)
COMPAT_OPTION = Option(
    "compat",
    '``None`` (NIST rule: a label overlapping itself is merged) or ``"pyannote"`` '
    "(such rows count as they are, as in pyannote.metrics)",
    kind="choice", choices=COMPAT, table=True,
)
FILES_DURATION = Option("files_duration", "mapping or Series from file to duration (checked by the input gate)")
UEM = Option("uem", "scored intervals per file, segmented index or Series (checked by the input gate)")
MAPPING = Option(
    "mapping",
    '``"optimal"`` (Hungarian algorithm) or ``"greedy"``; '
    '``"identity"`` (labels compared as they are) for the report only',
    default="optimal", kind="choice", choices=MAPPINGS + ("identity",),
)
INDIVIDUAL_FILE_MAPPING = Option(
    "individual_file_mapping", "a mapping per file, else one over all files",
    default=True, kind="bool",
)
REGIONS_OPTION = Option(
    "regions",
    '``"all"``, ``"single"``, ``"overlap"`` or ``"nonoverlap"``: the segments with any, one, '
    "two or more, at most one truth label",
    default="all", kind="choice", choices=REGIONS,
)
BETA = _Positive(
    "beta", "weight of recall (coverage) in the F-score, positive",
    default=1.0, kind="real", low=0.0, open_low=True,
)
ZERO_DIVISION = Option(
    "zero_division", "value of an undefined precision, recall or accuracy",
    default=1.0, kind="zero_division",
)
TOLERANCE = Option(
    "tolerance", "largest distance (seconds or timedelta) of matching boundaries",
    default=0.0, kind="seconds", table=True,
)
GAP_TOLERANCE = Option(
    "gap_tolerance", "gaps within a truth label shorter than this are filled (purity, coverage)",
    default=0.5, kind="seconds", table=True,
)
FRAME_SIZE = Option(
    "frame_size", "``None`` (exact, ns) or dscore's frame step in seconds (positive)",
    kind="seconds", open_low=True, none=True, table=True,
)
NATS = Option("nats", "natural logarithms instead of bits", default=False, kind="bool")

IDENTITY_MAPPING = ("diarization_report",)
"""The metrics that take ``mapping="identity"`` (a per-metric narrowing of :data:`MAPPING`)."""


_DURATIONS = ("collar", "tolerance", "gap_tolerance", "frame_size")


def _record(options) -> dict:
    """Statistics options as a table records them (durations as ``pd.Timedelta``)."""
    names = _TABLE_FIELDS[type(options).__name__]
    return {
        name: as_timedelta(getattr(options, name)) if name in _DURATIONS else getattr(options, name)
        for name in names
    }


DIARIZATION = Declaration(
    "diarization",
    (
        COLLAR, COLLAR_CONVENTION, SKIP_OVERLAP, COMPAT_OPTION, FILES_DURATION, UEM,
        MAPPING, INDIVIDUAL_FILE_MAPPING, REGIONS_OPTION, BETA, ZERO_DIVISION,
    ),
    columns=FILE_COLUMNS + PAIR_COLUMNS,
    record=_record,
)
"""The diarization family's options (DER, JER, IER, mapping, cluster metrics, report)."""

DETECTION = Declaration(
    "detection",
    (COLLAR, COLLAR_CONVENTION, SKIP_OVERLAP, COMPAT_OPTION, FILES_DURATION, UEM, BETA, ZERO_DIVISION),
    columns=DETECTION_COLUMNS,
    record=_record,
)
"""The detection family's options (``positive_labels`` is its third argument, as ``labels``)."""

SPEAKER_CHANGE = Declaration(
    "speaker_change",
    (
        TOLERANCE, GAP_TOLERANCE, BETA,
        # no option of this family (rows are used as they are): always None,
        # declared for the table gate (Declaration.table reads it)
        Option("files_duration", "not an option of speaker-change detection (always None)"),
    ),
    columns=("matches", "truth_boundaries", "prediction_boundaries", "coverage", "purity", "intersection"),
    record=_record,
)
"""The speaker-change family's options (pyannote.metrics.segmentation)."""

SPEAKER_SET = Declaration(
    "speaker_set",
    (FRAME_SIZE, NATS, FILES_DURATION, UEM),
    columns=("duration",),
    record=_record,
)
"""The speaker-set family's options (dscore's clustering metrics)."""

_TABLE_FIELDS = {
    declaration.type.__name__: declaration.table_options
    for declaration in (DIARIZATION, DETECTION, SPEAKER_CHANGE, SPEAKER_SET)
}

normalise = DIARIZATION.normalise
"""Given diarization options (any subset) as a statistics table records them."""


def check_positive_labels(positive_labels) -> list | None:
    """Detection's ``positive_labels`` (its third argument, as ``labels``): a list of
    distinct hashable labels, or ``None``; checked once per call by the family gate."""
    if positive_labels is None:
        return None
    if isinstance(positive_labels, (str, bytes)) or not isinstance(
        positive_labels, (Sequence, np.ndarray, pd.Index, pd.Series)
    ):
        raise TypeError(
            f"positive_labels must be a list of labels or None; got {positive_labels!r}."
        )
    try:
        values = list(positive_labels)
        hash(tuple(values))
    except TypeError:
        raise TypeError(
            f"positive_labels must be a list of hashable labels; got {positive_labels!r}."
        ) from None
    if len(set(values)) != len(values):
        raise ValueError(f"positive_labels must not contain duplicates; got {values}.")
    return values


def _sort_key(label: object) -> tuple:
    return (type(label).__name__, label)


def side_labels(series: object, name: str) -> list:
    """Labels of one side: categories in order, else sorted (by type name, then value)."""
    if not isinstance(series, pd.Series):
        return []
    if isinstance(series.dtype, pd.CategoricalDtype):  # used categories, in category order
        codes = np.unique(np.asarray(series.cat.codes))
        return [series.cat.categories[c] for c in codes if c >= 0]
    try:  # only the distinct labels: pd.unique, no codes (missing labels are the input gate's error)
        uniques = pd.unique(series.array)
    except TypeError:  # unhashable labels: the gate's message, naming the argument
        factorize(series, name)
        raise
    values = uniques.tolist() if hasattr(uniques, "tolist") else list(uniques)
    values = [v for v in values if not (v is None or v is pd.NA or v != v)]
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=_sort_key)


def sorted_labels(values) -> list:
    """A label list sorted as :func:`side_labels` sorts it."""
    values = list(values)
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=_sort_key)


def union_labels(truth_labels: list, prediction_labels: list) -> list:
    """Truth labels, then prediction labels not among them (never ordered together)."""
    seen = set(truth_labels)
    return list(truth_labels) + [label for label in prediction_labels if label not in seen]


def check_diarization_inputs(truth, prediction, *, files_duration):
    """Validated inputs with separate truth and prediction label lists.

    Returns:
        inputs (truth codes index ``truth_labels``,
        prediction codes index ``prediction_labels``),
        truth labels, prediction labels

    """
    truth_labels = side_labels(truth, "truth")
    prediction_labels = side_labels(prediction, "prediction")
    union = union_labels(truth_labels, prediction_labels)
    inputs = check_inputs(truth, prediction, labels=union, files_duration=files_duration)
    to_prediction = np.asarray(
        pd.Index(prediction_labels, dtype=object).get_indexer(pd.Index(union, dtype=object)),
        dtype=np.int64,
    )
    side = inputs.prediction
    recoded = type(side)(side.file, side.start, side.end, to_prediction[side.label], side.position)
    inputs = type(inputs)(
        inputs.truth, recoded, inputs.files, union, inputs.durations, inputs.latest
    )
    return inputs, truth_labels, prediction_labels


def check_detection_inputs(truth, prediction, *, positive_labels, files_duration):
    """Validated inputs of detection; a positive label found on neither side raises."""
    found = union_labels(side_labels(truth, "truth"), side_labels(prediction, "prediction"))
    if positive_labels is None:
        labels = found
    else:
        labels = positive_labels
        if isinstance(truth, pd.Series) and isinstance(prediction, pd.Series):
            known = set(found)
            unused = [label for label in labels if label not in known]
            if unused:
                raise ValueError(
                    f"positive_labels {unused} occur in neither truth nor prediction "
                    "(a misspelt label would give a perfect score); "
                    f"labels found: {found}."
                )
    inputs = check_inputs(
        truth, prediction, labels=labels, files_duration=files_duration, allow_filewise=True
    )
    if positive_labels is not None and len(labels):
        used = np.zeros(len(labels), dtype=bool)
        for side in (inputs.truth, inputs.prediction):
            used[np.unique(side.label)] = True
        unused = [label for label, u in zip(labels, used) if not u]
        if unused:
            raise ValueError(
                f"positive_labels {unused} occur in neither truth nor prediction "
                "(a misspelt label would give a perfect score); "
                f"labels found: {union_labels(side_labels(truth, 'truth'), side_labels(prediction, 'prediction'))}."
            )
    return inputs



def table_given(declaration, metric, truth, prediction, options, labels=None) -> pd.DataFrame:
    """The family gate for a statistics table given in place of ``truth``
    (:meth:`audeval._core.declare.Declaration.table`, plus ``uem``: an input of the statistics too)."""
    table = declaration.table(metric, truth, prediction, labels, options)
    if getattr(options, "uem", None) is not None:
        raise ValueError(
            f"uem cannot be applied to a statistics table; pass it to {declaration.family}_statistics."
        )
    return table


def series_only(truth, declaration) -> None:
    """A statistics function computes its table: a table in place of ``truth`` raises."""
    if isinstance(truth, pd.DataFrame):
        name = declaration.family
        raise TypeError(
            f"truth must be a pandas.Series; {name}_statistics computes the table, "
            f"the {name} metrics accept one."
        )
