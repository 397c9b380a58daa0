"""Event outcomes: what the event matcher decided for every single event (SPEC section 3).

:func:`event_outcomes` is the per-event view of the matching
that :func:`audeval.event_statistics` counts:
the same validation, tolerances and matcher
(:func:`audeval._events.match_events`),
laid out as one row per truth and per predicted event.
Error analysis, QA and the event plots read this table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._events.matching import match_events
from audeval._events.options import Tolerance
from audeval._events.options import EVENT, tolerances_of
from audeval._core.validation import Inputs, NS_PER_SECOND, Segments, check_inputs


OUTCOMES = ("tp", "substituted", "fn", "fp", "substituting")
"""Outcome categories, truth outcomes first."""

SIDES = ("truth", "prediction")

COLUMNS = (
    "side",
    "position",
    "file",
    "start",
    "end",
    "label",
    "outcome",
    "partner",
    "onset_deviation",
    "offset_deviation",
)
"""Columns of the outcome table, in order."""


def _partner_of_prediction(n_prediction: int, pairs: np.ndarray) -> np.ndarray:
    """Inverse of a truth -> prediction assignment (``-1``: none)."""
    out = np.full(n_prediction, -1, dtype=np.int64)
    has = np.flatnonzero(pairs >= 0)
    out[pairs[has]] = has
    return out


def _side_frame(
    side: str,
    events: Segments,
    other: Segments,
    outcome: np.ndarray,
    partner: np.ndarray,
) -> dict[str, object]:
    """Columns of one side: ``partner`` indexes ``other`` (kept rows), ``-1`` none."""
    has = partner >= 0
    j = np.where(has, partner, 0)
    onset = np.full(len(events), np.nan)
    offset = np.full(len(events), np.nan)
    if len(other):
        sign = 1 if side == "truth" else -1  # always prediction minus truth
        onset[has] = sign * (other.start[j[has]] - events.start[has]) / NS_PER_SECOND
        offset[has] = sign * (other.end[j[has]] - events.end[has]) / NS_PER_SECOND
    position = np.full(len(events), -1, dtype=np.int64)
    if len(other):
        position[has] = other.position[j[has]]
    return {
        "side": np.full(len(events), SIDES.index(side), dtype=np.int8),
        "position": events.position,
        "file": events.file,
        "start": events.start,
        "end": events.end,
        "label": events.label,
        "outcome": outcome.astype(np.int8),
        "partner": position,
        "onset_deviation": onset,
        "offset_deviation": offset,
    }


def _frame(truth: dict, prediction: dict, files: pd.Index, labels: list) -> pd.DataFrame:
    """One table of both sides, codes turned into categoricals and timedeltas."""
    data = {name: np.concatenate([truth[name], prediction[name]]) for name in COLUMNS}
    label_categories = pd.Index(labels, dtype=object) if len(labels) else pd.Index([], dtype=object)
    columns = {
        "side": pd.Categorical.from_codes(data["side"], categories=list(SIDES)),
        "position": data["position"],
        "file": pd.Categorical.from_codes(data["file"], categories=files),
        "start": pd.to_timedelta(data["start"], unit="ns"),
        "end": pd.to_timedelta(data["end"], unit="ns"),
        "label": pd.Categorical.from_codes(data["label"], categories=label_categories),
        "outcome": pd.Categorical.from_codes(data["outcome"], categories=list(OUTCOMES)),
        "partner": data["partner"],
        "onset_deviation": data["onset_deviation"],
        "offset_deviation": data["offset_deviation"],
    }
    return pd.DataFrame(columns, columns=list(COLUMNS))


def outcomes_of(truth, prediction, labels, options) -> tuple[pd.DataFrame, Inputs]:
    """:func:`event_outcomes` of a checked options object (:data:`audeval._events.options.EVENT`),
    and the validated inputs (what the event plots draw)."""
    inputs = check_inputs(
        truth, prediction, labels=labels, files_duration=options.files_duration, require_end=True
    )
    em = match_events(inputs, tolerances_of(options), options.matching)
    t, p = inputs.truth, inputs.prediction
    code = {name: k for k, name in enumerate(OUTCOMES)}

    truth_outcome = np.full(len(t), code["fn"], dtype=np.int8)
    truth_outcome[em.substitution >= 0] = code["substituted"]
    truth_outcome[em.match >= 0] = code["tp"]
    truth_partner = np.where(em.match >= 0, em.match, em.substitution)

    matched = _partner_of_prediction(len(p), em.match)
    substituting = _partner_of_prediction(len(p), em.substitution)
    prediction_outcome = np.full(len(p), code["fp"], dtype=np.int8)
    prediction_outcome[substituting >= 0] = code["substituting"]
    prediction_outcome[matched >= 0] = code["tp"]
    prediction_partner = np.where(matched >= 0, matched, substituting)

    sides = [
        _side_frame("truth", t, p, truth_outcome, truth_partner),
        _side_frame("prediction", p, t, prediction_outcome, prediction_partner),
    ]
    return _frame(*sides, inputs.files, inputs.labels), inputs  # type: ignore[call-arg, arg-type]  # sides: the truth and the prediction frame


def _outcome_table(truth, prediction, labels, options) -> pd.DataFrame:
    return outcomes_of(truth, prediction, labels, options)[0]


@EVENT.statistics(_outcome_table)
def event_outcomes(
    truth: pd.Series,
    prediction: pd.Series,
    labels: Sequence[object] | None = None,
    *,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""The outcome of every truth and every predicted event.

    Events are matched exactly as by :func:`audeval.event_statistics`
    with the same options (validation, tolerances, ``matching``, ``compat``, substitutions).
    There is one row per truth event (``side="truth"``)
    and one per predicted event (``side="prediction"``),
    truth rows first, each side in the row order of its Series.
    Rows whose label is not in ``labels`` are left out,
    as by the metrics.
    The ``outcome`` of an event is one of

    * ``"tp"``: matched with an event of the same label (both sides),
    * ``"substituted"``: a truth event paired with a prediction of another label,
    * ``"substituting"``: the prediction of such a pair,
    * ``"fn"``: a truth event without any partner (a deletion),
    * ``"fp"``: a prediction without any partner (an insertion).

    So per ``(file, label)``, with :math:`\#` counting rows,
    the columns of :func:`audeval.event_statistics` are
    ``tp`` :math:`= \#\text{tp}` (of either side),
    ``substituted`` :math:`= \#\text{substituted}`,
    ``substituting`` :math:`= \#\text{substituting}`,
    ``fn`` :math:`= \#\text{fn} + \#\text{substituted}` and
    ``fp`` :math:`= \#\text{fp} + \#\text{substituting}`.

    Columns:
    ``side`` (categorical ``truth``, ``prediction``),
    ``position`` (row position of the event in its Series),
    ``file``, ``start``, ``end`` (timedelta; ``end=NaT`` resolved),
    ``label`` (categorical, the evaluated labels in order),
    ``outcome`` (categorical),
    ``partner`` (row position of the partner in the other Series, ``-1``: none),
    ``onset_deviation`` and ``offset_deviation``
    (seconds, :math:`\text{onset}_p - \text{onset}_t` and
    :math:`\text{offset}_p - \text{offset}_t` of the pair,
    on both rows of a ``tp`` or substitution pair; NaN without partner).

    Args:
        truth: truth events (audformat segmented index)
        prediction: predicted events (audformat segmented index)
        labels: labels to evaluate, in the order of the categories;
            rows with other labels are left out.
            ``None``: categories of categorical data,
            else the sorted union of labels
        onset_tolerance: onset tolerance in seconds or as timedelta;
            ``None``: onsets are not evaluated
        offset_tolerance: offset tolerance in seconds or as timedelta;
            ``None`` and ``duration_tolerance=None``: offsets are not evaluated
        duration_tolerance: offset tolerance as a fraction
            of the truth event's duration; the larger of the two applies
        matching: ``"optimal"`` (maximum matching) or ``"greedy"``
            (first fit in time order, as audmetric)
        files_duration: duration per file, resolves ``end=NaT``
        compat: ``None`` (exact integer nanoseconds)
            or ``"sed_eval"`` (sed_eval 0.2.1's float64 time conditions,
            see :func:`audeval.event_statistics`)

    Returns:
        outcome table, one row per event

    Raises:
        ValueError, TypeError: on invalid input (see the validation rules)

    Examples:
        >>> import audformat
        >>> from audeval import event_outcomes
        >>> truth = pd.Series(
        ...     ["a", "a", "b"],
        ...     index=audformat.segmented_index(["f1"] * 3, [0.0, 2.0, 4.0], [1.0, 3.0, 5.0]),
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "b", "b"],
        ...     index=audformat.segmented_index(["f1"] * 3, [0.1, 2.0, 6.0], [1.1, 3.0, 7.0]),
        ... )
        >>> outcomes = event_outcomes(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
        >>> outcomes[["side", "position", "label", "outcome", "partner", "onset_deviation"]]
                 side  position label       outcome  partner  onset_deviation
        0       truth         0     a            tp        0              0.1
        1       truth         1     a   substituted        1              0.0
        2       truth         2     b            fn       -1              NaN
        3  prediction         0     a            tp        0              0.1
        4  prediction         1     b  substituting        1              0.0
        5  prediction         2     b            fp       -1              NaN

    """


__all__ = ["event_outcomes"]
