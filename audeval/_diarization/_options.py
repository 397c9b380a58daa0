"""Options and the input gate of the detection and diarization families.

Every option is checked here once, before the data,
and turned into the form a statistics table records
(durations as ``pd.Timedelta``, choices as strings).
Truth and prediction labels of diarization are unrelated
(str speakers against int clusters):
each side keeps its own label list, sorted on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._options import as_timedelta, check_bool, check_choice, check_duration, value_of
from audeval._protocol import check_table
from audeval._validation import check_inputs
from audeval._labels import factorize


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

DIARIZATION_OPTIONS = ("collar", "collar_convention", "skip_overlap", "compat")
DETECTION_OPTIONS = ("positive_labels", "collar", "collar_convention", "skip_overlap", "compat")

COLLAR_DOC = """collar: unscored width (seconds or timedelta) around every truth boundary.
            ``collar_convention="total"`` (default, pyannote.metrics):
            the collar is the total width, half before and half after the boundary;
            ``"per_side"`` (NIST md-eval, dscore, spy-der):
            the collar is added on each side (width ``2 * collar``)"""


def fill_doc(**parts: str):
    """A decorator that puts shared docstring text in place of ``{name}`` for each part."""

    def fill(function):
        for name, text in parts.items():
            function.__doc__ = function.__doc__.replace("{" + name + "}", text)
        return function

    return fill


def collar_sides(collar_ns: int, convention: str) -> tuple[int, int]:
    """Unscored time before and after a boundary (ns)."""
    if convention == "per_side":
        return collar_ns, collar_ns
    before = collar_ns // 2
    return before, collar_ns - before


def check_mapping(mapping, individual_file_mapping, allow_identity: bool = False) -> None:
    allowed = MAPPINGS + (("identity",) if allow_identity else ())
    check_choice(mapping, "mapping", allowed)
    check_bool(individual_file_mapping, "individual_file_mapping")


def check_regions(regions) -> str:
    return check_choice(regions, "regions", REGIONS)


def normalise(options: Mapping[str, object]) -> dict:
    """Diarization options as a statistics table records them."""
    out: dict = {}
    if "collar" in options:
        out["collar"] = as_timedelta(check_duration(options["collar"], "collar", allow_none=False))
    if "collar_convention" in options:
        out["collar_convention"] = check_choice(
            options["collar_convention"], "collar_convention", COLLAR_CONVENTIONS
        )
    if "skip_overlap" in options:
        out["skip_overlap"] = check_bool(options["skip_overlap"], "skip_overlap")
    if "compat" in options:
        out["compat"] = check_choice(options["compat"], "compat", COMPAT)
    return out


def check_beta(beta) -> float:
    """The F-score weight: a positive, finite real number (``beta <= 0`` has no meaning)."""
    beta = value_of(beta)
    real = isinstance(beta, (int, float, np.integer, np.floating))
    if not real or isinstance(beta, (bool, np.bool_)):
        raise TypeError(f"beta must be a positive float; got {type(beta).__name__} {beta!r}.")
    if not np.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a positive, finite float; got {beta!r}.")
    return float(beta)


def check_positive_labels(positive_labels) -> list | None:
    positive_labels = value_of(positive_labels)
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


def normalise_detection(options: Mapping[str, object]) -> dict:
    """Detection options as a statistics table records them."""
    out = normalise({k: v for k, v in options.items() if k != "positive_labels"})
    if "positive_labels" in options:
        out["positive_labels"] = check_positive_labels(options["positive_labels"])
    return out


def _sort_key(label: object) -> tuple:
    return (type(label).__name__, label)


def side_labels(series: object, name: str) -> list:
    """Labels of one side: categories in order, else sorted (by type name, then value)."""
    if not isinstance(series, pd.Series):
        return []
    if isinstance(series.dtype, pd.CategoricalDtype):  # used categories, in category order
        codes = np.unique(np.asarray(series.cat.codes))
        return [series.cat.categories[c] for c in codes if c >= 0]
    _, values = factorize(series, name)  # missing labels are the input gate's error
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



def refuse_table(truth, statistics_name: str, family: str) -> None:
    """A statistics function computes its table: a table in place of ``truth`` raises."""
    if isinstance(truth, pd.DataFrame):
        raise TypeError(
            f"truth must be a pandas.Series; {statistics_name} computes the table, "
            f"the {family} metrics accept one."
        )


def given_table(
    table, prediction, *, family: str, given: dict, statistics_name: str, files_duration, uem
) -> dict:
    """Check a statistics table passed to a metric in place of ``truth``; its options.

    ``files_duration`` and ``uem`` belong to the statistics function:
    given with a table, they raise.
    """
    recorded = check_table(
        table, prediction, family=family, given=given, statistics_name=statistics_name
    )
    for name, value in (("files_duration", files_duration), ("uem", uem)):
        if value is not None:
            raise ValueError(
                f"{name} cannot be applied to a statistics table; "
                f"pass it to {statistics_name}."
            )
    return recorded


def require_prediction(prediction, statistics_name: str) -> None:
    """Series input needs a prediction (``None`` goes with a statistics table)."""
    if prediction is None:
        raise TypeError(
            "prediction is None: pass a prediction Series, "
            f"or a table from {statistics_name} in place of truth."
        )
