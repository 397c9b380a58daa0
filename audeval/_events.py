"""Event-based metrics (SPEC section 3).

The pipeline is the same for every metric of the family:

1. :func:`audeval._validation.check_inputs` validates both Series;
2. :func:`match_events` finds candidate pairs with the interval engine
   (one window join over all ``(file, label)`` groups)
   and matches them (maximum or greedy),
   then pairs leftovers of other labels as substitutions;
3. :func:`event_statistics` counts per ``(file, label)``;
4. each metric is a reduction of the (summed) statistics table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses
import fractions

import numpy as np
import pandas as pd

from audeval import _scores
from audeval._matching import match_segments
from audeval import _tables
from audeval._tables import check_statistics, per_label, statistics_frame
from audeval._options import Default, as_timedelta, check_bool, check_choice, check_duration, value_of
from audeval._protocol import Family, resolve, stamp, table_options
from audeval._report import PerClass, label_report
from audeval._validation import Inputs, check_fraction, check_inputs, check_option, to_ns


MATCHINGS = ("optimal", "greedy")
COLUMNS = ["n_truth", "n_prediction", "tp", "fp", "fn", "substituted", "substituting"]
CONFUSION_PREFIX = "substituted_by_"

Tolerance = float | pd.Timedelta | None


# -------------------------------------------------------------------------
# Tolerances
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Tolerances:
    """Tolerances in integer nanoseconds, ``None`` where not evaluated."""

    onset: int | None
    offset: int | None
    duration: fractions.Fraction | None

    @property
    def offset_evaluated(self) -> bool:
        return self.offset is not None or self.duration is not None

    def offset_allowance(self, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        r"""``max(offset_tolerance or 0, duration_tolerance * (end - start))`` in ns.

        The product is floored exactly in integers:
        ``duration_tolerance`` is read as the nearest fraction ``p / q``
        with ``q <= 10**6`` (0.5 is 1/2, 0.2 is 1/5).
        """
        allowance = np.full(len(start), self.offset or 0, dtype=np.int64)
        if self.duration is not None:
            p, q = self.duration.numerator, self.duration.denominator
            length = end - start
            scaled = p * (length // q) + (p * (length % q)) // q
            allowance = np.maximum(allowance, scaled)
        return allowance


def tolerances(
    onset_tolerance: Tolerance,
    offset_tolerance: Tolerance,
    duration_tolerance: float | None,
) -> Tolerances:
    """Check and convert the three tolerances once."""
    onset = check_duration(onset_tolerance, "onset_tolerance")
    offset = check_duration(offset_tolerance, "offset_tolerance")
    duration = check_fraction(value_of(duration_tolerance), "duration_tolerance")
    if onset is None and offset is None and duration is None:
        raise ValueError(
            "onset_tolerance, offset_tolerance and duration_tolerance are all None: "
            "at least the onset or the offset must be evaluated."
        )
    fraction = None
    if duration is not None:
        fraction = fractions.Fraction(duration).limit_denominator(10**6)
    return Tolerances(onset, offset, fraction)


# -------------------------------------------------------------------------
# Matching
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class EventMatch:
    """Outcome of matching: for every truth event its prediction or -1."""

    inputs: Inputs
    match: np.ndarray  # same label, time conditions met
    substitution: np.ndarray  # other label, time conditions met, among leftovers

    def prediction_matched(self) -> np.ndarray:
        """Boolean per predicted event: matched with the same label."""
        out = np.zeros(len(self.inputs.prediction), dtype=bool)
        out[self.match[self.match >= 0]] = True
        return out

    def prediction_substituting(self) -> np.ndarray:
        """Boolean per predicted event: paired as a substitution."""
        out = np.zeros(len(self.inputs.prediction), dtype=bool)
        out[self.substitution[self.substitution >= 0]] = True
        return out


def match_events(inputs: Inputs, tol: Tolerances, matching: str) -> EventMatch:
    """Match events per file and pair leftovers of other labels as substitutions.

    Events are numbered in ``(file, start, end, label, row)`` order first,
    and every tie between equally good matchings is broken in that order,
    so results never depend on the order of rows
    (see :func:`audeval._matching.match_segments`).
    """
    match, substitution = match_segments(
        inputs.truth, inputs.prediction, inputs.n_files, tol, matching
    )
    return EventMatch(inputs, match, substitution)


# -------------------------------------------------------------------------
# Statistics
# -------------------------------------------------------------------------


def _count(groups: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(groups, minlength=n).astype(np.int64)


def statistics_of_match(em: EventMatch, *, confusion: bool = False) -> pd.DataFrame:
    """Additive counts per ``(file, label)`` from a matching."""
    inputs = em.inputs
    truth, pred = inputs.truth, inputs.prediction
    n_labels = inputs.n_labels
    n = inputs.n_files * n_labels
    t_group = truth.file * n_labels + truth.label
    p_group = pred.file * n_labels + pred.label
    n_truth = _count(t_group, n)
    n_pred = _count(p_group, n)
    tp = _count(t_group[em.match >= 0], n)
    substituted = em.substitution >= 0
    columns = {
        "n_truth": n_truth,
        "n_prediction": n_pred,
        "tp": tp,
        "fp": n_pred - tp,
        "fn": n_truth - tp,
        "substituted": _count(t_group[substituted], n),
        "substituting": _count(p_group[em.substitution[substituted]], n),
    }
    if confusion:
        pairs = t_group[substituted] * n_labels + pred.label[em.substitution[substituted]]
        table = _count(pairs, n * n_labels).reshape(n, n_labels)
        names = confusion_columns(inputs.labels)
        for k, name in enumerate(names):
            columns[name] = table[:, k]
    return statistics_frame(inputs, columns)


def confusion_columns(labels: Sequence[object]) -> list[str]:
    """Names of the substitution-pair columns, one per predicted label."""
    names = [f"{CONFUSION_PREFIX}{label}" for label in labels]
    if len(set(names)) != len(names):
        raise ValueError(
            "labels must have distinct string forms for the confusion statistics; "
            f"got {list(labels)}."
        )
    return names


def event_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    labels: Sequence[object] | None = None,
    *,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
    confusion: bool = False,
) -> pd.DataFrame:
    r"""Additive event counts per file and label.

    A truth event and a predicted event *match*
    when they are in the same file, have the same label,
    :math:`|\text{onset}_t - \text{onset}_p| \le \text{onset\_tolerance}`
    (skipped when ``None``) and
    :math:`|\text{offset}_t - \text{offset}_p| \le
    \max(\text{offset\_tolerance}, \text{duration\_tolerance} \cdot (\text{offset}_t - \text{onset}_t))`
    (skipped when both are ``None``; a ``None`` inside the max counts as 0).
    Times are compared as integer nanoseconds,
    so a tolerance that is met exactly counts as met.

    With ``matching="optimal"`` the number of matches is maximal
    (maximum bipartite matching, as sed_eval's default);
    with ``matching="greedy"`` truth events in (start, end) order
    each take the first unmatched prediction in (start, end) order
    (as audmetric and sed_eval's greedy mode).
    Unmatched truth and predicted events of the same file
    with different labels that meet the time conditions
    are paired as *substitutions*.
    With ``matching="optimal"`` matches and substitutions are chosen together:
    the most matches, and among all matchings with that many matches
    one that leaves the most substitutions
    (sed_eval's first-fit pass after its own matching may find fewer).
    Ties between equally good matchings
    (which truth event is substituted, and by which prediction)
    are broken in ``(file, start, end, label)`` order:
    truth events in that order each take a partner if they can,
    and the earliest possible one in the same order
    (exactly so for independent groups of up to 5 x 5 events,
    nearly all of them; larger groups take a deterministic choice on that order).
    So results never depend on the order of rows.
    With ``matching="greedy"`` substitutions are a first-fit pass
    over the leftovers in time order, as sed_eval and audmetric;
    events with equal times are taken in label order.

    Columns per ``(file, label)``:
    ``n_truth``, ``n_prediction``, ``tp``,
    ``fp = n_prediction - tp``, ``fn = n_truth - tp``,
    ``substituted`` (truth events of the label paired as substitution),
    ``substituting`` (predicted events of the label paired as substitution),
    and with ``confusion=True`` one column ``substituted_by_<label>``
    per predicted label.
    The rows cover every file of either input and every label.
    Tables of disjoint sets of whole files add up
    to the table of their union,
    and every event metric accepts such a (summed) table
    in place of ``truth`` (with ``prediction=None``).

    Args:
        truth: truth events (audformat segmented index)
        prediction: predicted events (audformat segmented index)
        labels: labels in the order of the result;
            rows with other labels are left out.
            ``None``: categories of categorical data,
            else the sorted union of labels
        onset_tolerance: onset tolerance in seconds or as timedelta;
            ``None``: onsets are not evaluated
        offset_tolerance: offset tolerance in seconds or as timedelta;
            ``None`` (and ``duration_tolerance=None``): offsets are not evaluated
        duration_tolerance: offset tolerance as a fraction
            of the truth event's duration
        matching: ``"optimal"`` or ``"greedy"``
        files_duration: duration per file, resolves ``end=NaT``
        confusion: add the substitution pair columns

    Returns:
        statistics table indexed by ``(file, label)``

    Raises:
        ValueError, TypeError: on invalid input (see the validation rules)

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"],
        ...     index=audformat.segmented_index(["f1", "f1"], [0.0, 2.0], [1.0, 3.0]),
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "a"],
        ...     index=audformat.segmented_index(["f1", "f1"], [0.1, 2.0], [1.1, 3.0]),
        ... )
        >>> event_statistics(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
                    n_truth  n_prediction  tp  fp  fn  substituted  substituting
        file label
        f1   a            1             2   1   1   0            0             1
             b            1             0   0   0   1            1             0

    """
    recorded = normalise(
        {
            "onset_tolerance": onset_tolerance,
            "offset_tolerance": offset_tolerance,
            "duration_tolerance": duration_tolerance,
            "matching": matching,
            "confusion": confusion,
        }
    )
    tol = tolerances(onset_tolerance, offset_tolerance, duration_tolerance)
    inputs = check_inputs(
        truth,
        prediction,
        labels=labels,
        files_duration=files_duration,
        require_end=True,
    )
    match = match_events(inputs, tol, recorded["matching"])
    table = statistics_of_match(match, confusion=recorded["confusion"])
    return stamp(table, "event", {**recorded, "labels_given": labels is not None})


OPTIONS = ("onset_tolerance", "offset_tolerance", "duration_tolerance", "matching", "confusion")
"""Options of :func:`event_statistics` that its table records."""


def normalise(options: Mapping[str, object]) -> dict:
    """Check the given event statistics options; durations as int ns (what a table records)."""
    checks = {
        "onset_tolerance": lambda v: as_timedelta(check_duration(v, "onset_tolerance")),
        "offset_tolerance": lambda v: as_timedelta(check_duration(v, "offset_tolerance")),
        "duration_tolerance": lambda v: check_fraction(value_of(v), "duration_tolerance"),
        "matching": lambda v: check_choice(v, "matching", MATCHINGS),
        "confusion": lambda v: check_bool(v, "confusion"),
    }
    return {name: checks[name](value) for name, value in options.items() if name in checks}


# -------------------------------------------------------------------------
# Reductions
# -------------------------------------------------------------------------


def _statistics(
    metric, truth, prediction, labels, call: Mapping[str, object]
) -> pd.DataFrame:
    """The statistics table of a metric call: computed from Series, or given (the family gate).

    ``call`` holds the metric's arguments; the statistics options among them
    are checked against a given table's (see :func:`audeval._protocol.resolve`).
    """
    options = {name: call[name] for name in (*OPTIONS, "files_duration") if name in call}
    return resolve(FAMILY, truth, prediction, labels, options, metric=metric, select=_tables.select_labels)


def _labels_of_stats(stats: pd.DataFrame) -> list:
    level = stats.index.get_level_values("label")
    if isinstance(level.dtype, pd.CategoricalDtype):
        return list(level.categories)
    return list(pd.unique(level))


def error_rate(numerator, denominator, zero_division: float) -> np.ndarray:
    """Error rate: ``x / 0`` is ``inf``, ``0 / 0`` is ``zero_division``."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = numerator / denominator
    return np.where((denominator == 0) & (numerator == 0), zero_division, out)


def class_values(n_truth, n_prediction, tp, zero_division: float, propagate_nans: bool) -> dict:
    """Per-label counts and metrics from count arrays (any shape, e.g. files x labels)."""
    n_truth, n_pred, tp = (np.asarray(x) for x in (n_truth, n_prediction, tp))
    fn = n_truth - tp
    fp = n_pred - tp
    precision, recall, f = _scores.precision_recall_fscore(
        tp, n_pred, n_truth, zero_division=zero_division, propagate_nans=propagate_nans
    )
    return {
        "n_truth": n_truth,
        "n_prediction": n_pred,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "precision": precision,
        "recall": recall,
        "fscore": f,
        "error_rate": error_rate(fn + fp, n_truth, zero_division),
        "deletion_rate": error_rate(fn, n_truth, zero_division),
        "insertion_rate": error_rate(fp, n_truth, zero_division),
    }


def class_wise(stats: pd.DataFrame, zero_division: float, propagate_nans: bool) -> pd.DataFrame:
    """Per-label counts and metrics from a statistics table."""
    summed = per_label(stats)
    values = class_values(
        summed["n_truth"].to_numpy(),
        summed["n_prediction"].to_numpy(),
        summed["tp"].to_numpy(),
        zero_division,
        propagate_nans,
    )
    return pd.DataFrame(values, index=pd.Index(list(summed.index), dtype=object, name="label"))


def overall(
    counts: pd.DataFrame | pd.Series,
    zero_division: float,
    propagate_nans: bool = False,
) -> dict[str, float]:
    """Micro (pooled) metrics from summed counts of one or several files."""
    n = counts["n_truth"]
    n_pred = counts["n_prediction"]
    tp = counts["tp"]
    s = counts["substituted"]
    d = n - tp - s
    i = n_pred - tp - s
    precision, recall, f = _scores.precision_recall_fscore(
        tp, n_pred, n, zero_division=zero_division, propagate_nans=propagate_nans
    )
    return {
        "n_truth": n,
        "n_prediction": n_pred,
        "tp": tp,
        "fp": n_pred - tp,
        "fn": n - tp,
        "substitutions": s,
        "deletions": d,
        "insertions": i,
        "precision": precision,
        "recall": recall,
        "fscore": f,
        "error_rate": error_rate(s + d + i, n, zero_division),
        "substitution_rate": error_rate(s, n, zero_division),
        "deletion_rate": error_rate(d, n, zero_division),
        "insertion_rate": error_rate(i, n, zero_division),
    }


def _as_dict(labels, values) -> PerClass:
    return PerClass((label, float(v)) for label, v in zip(labels, values))


# -------------------------------------------------------------------------
# Public metrics
# -------------------------------------------------------------------------

_COMMON_ARGS = """
        truth: truth events (audformat segmented index),
            or a table from :func:`event_statistics`
        prediction: predicted events (audformat segmented index),
            ``None`` when ``truth`` is a statistics table
        labels: labels to evaluate, in the order of the result;
            rows with other labels are left out.
            ``None``: categories of categorical data,
            else the sorted union of labels"""

_TOLERANCE_ARGS = """
        onset_tolerance: onset tolerance in seconds or as timedelta;
            ``None``: onsets are not evaluated
        offset_tolerance: offset tolerance in seconds or as timedelta;
            ``None`` and ``duration_tolerance=None``: offsets are not evaluated
        duration_tolerance: offset tolerance as a fraction
            of the truth event's duration; the larger of the two applies
        matching: ``"optimal"`` (maximum matching) or ``"greedy"``
            (first fit in time order, as audmetric)
        files_duration: duration per file, resolves ``end=NaT``"""

_EXAMPLE = """
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "a", "b"],
        ...     index=audformat.segmented_index(
        ...         ["f1", "f1", "f2"], [0.0, 2.0, 0.0], [1.0, 3.0, 4.0]
        ...     ),
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "b", "b"],
        ...     index=audformat.segmented_index(
        ...         ["f1", "f1", "f2"], [0.1, 2.0, 5.0], [1.1, 3.0, 6.0]
        ...     ),
        ... )"""


def _doc(function):
    function.__doc__ = (
        function.__doc__.replace("{common}", _COMMON_ARGS.strip("\n"))
        .replace("{tolerances}", _TOLERANCE_ARGS.strip("\n"))
        .replace("{example}", _EXAMPLE.strip("\n"))
    )
    return function


@_doc
def event_precision_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
) -> dict[object, float]:
    r"""Event-based precision per class.

    .. math::

        P_c = \frac{\text{TP}_c}{\text{TP}_c + \text{FP}_c}

    where :math:`\text{TP}_c` counts matched events of class :math:`c`
    (see :func:`event_statistics` for the matching rules).

    Args:
{common}
        zero_division: value of an undefined precision (no predicted events)
{tolerances}

    Returns:
        precision per label

    Examples:
{example}
        >>> event_precision_per_class(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
        {'a': 1.0, 'b': 0.0}

    """
    zero_division = _scores.check_zero_division(zero_division)
    stats = _statistics(event_precision_per_class, truth, prediction, labels, locals())
    table = class_wise(stats, zero_division, False)
    return _as_dict(table.index, table["precision"])


@_doc
def event_recall_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
) -> dict[object, float]:
    r"""Event-based recall per class.

    .. math::

        R_c = \frac{\text{TP}_c}{\text{TP}_c + \text{FN}_c}

    Args:
{common}
        zero_division: value of an undefined recall (no truth events)
{tolerances}

    Returns:
        recall per label

    Examples:
{example}
        >>> event_recall_per_class(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
        {'a': 0.5, 'b': 0.0}

    """
    zero_division = _scores.check_zero_division(zero_division)
    stats = _statistics(event_recall_per_class, truth, prediction, labels, locals())
    table = class_wise(stats, zero_division, False)
    return _as_dict(table.index, table["recall"])


@_doc
def event_fscore_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    propagate_nans: bool = False,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
) -> dict[object, float]:
    r"""Event-based F-score per class.

    .. math::

        F_c = \frac{2 P_c R_c}{P_c + R_c}

    computed from precision and recall
    after undefined values were replaced by ``zero_division``;
    0 when :math:`P_c R_c = 0`.

    Args:
{common}
        zero_division: value of an undefined precision or recall
        propagate_nans: if ``True``, the F-score is NaN
            when precision or recall is NaN, else it is 0
{tolerances}

    Returns:
        F-score per label

    Examples:
{example}
        >>> event_fscore_per_class(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
        {'a': 0.6666666666666666, 'b': 0.0}

    """
    propagate_nans = check_bool(propagate_nans, "propagate_nans")
    zero_division = _scores.check_zero_division(zero_division)
    stats = _statistics(event_fscore_per_class, truth, prediction, labels, locals())
    table = class_wise(stats, zero_division, propagate_nans)
    return _as_dict(table.index, table["fscore"])


@_doc
def event_unweighted_average_fscore(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    propagate_nans: bool = False,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
) -> float:
    r"""Event-based unweighted average (macro) F-score.

    .. math::

        \text{UAF} = \frac{1}{|C|} \sum_{c \in C} F_c

    NaN class scores are left out of the mean (as audmetric).
    Same as :func:`event_fscore` with ``average="macro"``.

    Args:
{common}
        zero_division: value of an undefined precision or recall
        propagate_nans: if ``True``, a class F-score is NaN
            when its precision or recall is NaN
{tolerances}

    Returns:
        unweighted average F-score

    Examples:
{example}
        >>> event_unweighted_average_fscore(
        ...     truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2
        ... )
        0.3333333333333333

    """
    propagate_nans = check_bool(propagate_nans, "propagate_nans")
    return event_fscore(
        truth,
        prediction,
        labels,
        average="macro",
        zero_division=zero_division,
        propagate_nans=propagate_nans,
        onset_tolerance=onset_tolerance,
        offset_tolerance=offset_tolerance,
        duration_tolerance=duration_tolerance,
        matching=matching,
        files_duration=files_duration,
    )


@_doc
def event_fscore(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    average: str = "micro",
    zero_division: float = 0.0,
    propagate_nans: bool = False,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
) -> float:
    r"""Event-based F-score over all classes.

    ``average="micro"`` pools the counts of all classes
    (sed_eval's overall F-measure):

    .. math::

        P = \frac{\sum_c \text{TP}_c}{\sum_c (\text{TP}_c + \text{FP}_c)}, \quad
        R = \frac{\sum_c \text{TP}_c}{\sum_c (\text{TP}_c + \text{FN}_c)}, \quad
        F = \frac{2PR}{P + R}

    ``average="macro"`` is the mean of the class F-scores
    (sed_eval's class-wise average, :func:`event_unweighted_average_fscore`).

    Args:
{common}
        average: ``"micro"`` or ``"macro"``
        zero_division: value of an undefined precision or recall
        propagate_nans: if ``True``, an F-score is NaN
            when its precision or recall is NaN
{tolerances}

    Returns:
        F-score

    Examples:
{example}
        >>> event_fscore(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
        0.3333333333333333

    """
    propagate_nans = check_bool(propagate_nans, "propagate_nans")
    _scores.check_average(average)
    zero_division = _scores.check_zero_division(zero_division)
    stats = _statistics(event_fscore, truth, prediction, labels, locals())
    if average == "macro":
        table = class_wise(stats, zero_division, propagate_nans)
        keep = _macro_labels(table, stats, labels)
        return _scores.macro(table["fscore"].to_numpy()[keep])
    totals = stats[["n_truth", "n_prediction", "tp"]].sum()
    _, _, f = _scores.precision_recall_fscore(
        totals["tp"],
        totals["n_prediction"],
        totals["n_truth"],
        zero_division=zero_division,
        propagate_nans=propagate_nans,
    )
    return float(f)


@_doc
def event_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
) -> float:
    r"""Sound-event error rate (sed_eval's overall event-based ER).

    .. math::

        \text{ER} = \frac{S + D + I}{N}

    with :math:`N` truth events,
    :math:`S` substitutions (see :func:`event_statistics`),
    :math:`D = \text{FN} - S` deletions
    and :math:`I = \text{FP} - S` insertions, summed over files.
    This is not audmetric's ``event_error_rate`` (an edit distance of label sequences).
    ``0 / 0`` gives ``zero_division``, ``x / 0`` gives ``inf``.

    Args:
{common}
        zero_division: error rate without truth events and without errors
{tolerances}

    Returns:
        error rate

    Examples:
{example}
        >>> event_error_rate(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
        1.0

    """
    zero_division = _scores.check_zero_division(zero_division)
    stats = _statistics(event_error_rate, truth, prediction, labels, locals())
    return float(overall(stats[COLUMNS].sum(), zero_division)["error_rate"])


@_doc
def event_error_rate_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
) -> dict[object, float]:
    r"""Event-based error rate per class (sed_eval class-wise ER).

    .. math::

        \text{ER}_c = \frac{\text{FN}_c + \text{FP}_c}{N_c}

    Substitutions do not exist within one class.
    ``0 / 0`` gives ``zero_division``, ``x / 0`` gives ``inf``.

    Args:
{common}
        zero_division: error rate of a class without truth events and without errors
{tolerances}

    Returns:
        error rate per label

    Examples:
{example}
        >>> event_error_rate_per_class(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
        {'a': 0.5, 'b': 3.0}

    """
    zero_division = _scores.check_zero_division(zero_division)
    stats = _statistics(event_error_rate_per_class, truth, prediction, labels, locals())
    table = class_wise(stats, zero_division, False)
    return _as_dict(table.index, table["error_rate"])


@_doc
def event_confusion_matrix(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    normalize: bool = False,
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
) -> list[list[int | float]]:
    r"""Event-based confusion matrix with a "no event" row and column.

    Entry :math:`(i, j)` for labels :math:`i \ne j` counts substitutions
    (a truth event of :math:`i` paired with a prediction of :math:`j`),
    the diagonal counts matches,
    the last column the truth events left without any partner (deletions)
    and the last row the predictions left without any partner (insertions).
    Rows sum to the number of truth events of a label,
    columns to the number of predictions of a label.
    As audmetric's ``event_confusion_matrix`` with ``matching="greedy"``.

    Args:
{common}
{tolerances}
        normalize: divide each row by its sum (rows summing to 0 stay 0)

    Returns:
        :math:`(L + 1) \times (L + 1)` nested list, rows are truth

    Examples:
{example}
        >>> event_confusion_matrix(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
        [[1, 1, 0], [0, 0, 1], [0, 1, 0]]

    """
    normalize = check_bool(normalize, "normalize")
    stats = _statistics(event_confusion_matrix, truth, prediction, labels, locals())
    check_statistics(stats, confusion_columns(_labels_of_stats(stats)))
    summed = per_label(stats)
    label_list = list(summed.index)
    n = len(label_list)
    cm = np.zeros((n + 1, n + 1), dtype=np.int64)
    if n:
        cm[:n, :n] = summed.reindex(columns=confusion_columns(label_list), fill_value=0).to_numpy()
        cm[np.arange(n), np.arange(n)] = summed["tp"].to_numpy()
        cm[:n, n] = (summed["n_truth"] - summed["tp"] - summed["substituted"]).to_numpy()
        cm[n, :n] = (summed["n_prediction"] - summed["tp"] - summed["substituting"]).to_numpy()
    if normalize:
        sums = cm.sum(axis=1, keepdims=True)
        out = np.divide(cm, sums, out=np.zeros(cm.shape), where=sums != 0)
        return out.tolist()
    return cm.tolist()


@_doc
def event_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    per_file: bool = False,
    zero_division: float = 0.0,
    propagate_nans: bool = False,
    onset_tolerance: Tolerance = Default(0.0),
    offset_tolerance: Tolerance = Default(0.0),
    duration_tolerance: float | None = Default(None),
    matching: str = Default("optimal"),
    files_duration: Mapping | pd.Series | None = None,
) -> pd.DataFrame:
    r"""Event-based report: counts and metrics per label, micro and macro rows.

    Per label: ``n_truth``, ``n_prediction``, ``tp``, ``fp``, ``fn``,
    ``precision``, ``recall``, ``fscore``,
    ``error_rate`` :math:`= (\text{FN}_c + \text{FP}_c) / N_c`,
    ``deletion_rate`` and ``insertion_rate`` (:math:`\text{FN}_c / N_c`, :math:`\text{FP}_c / N_c`).
    Row ``micro``: pooled counts, pooled precision/recall/F-score,
    and the overall error rate :math:`(S + D + I) / N`
    with its substitution, deletion and insertion rates.
    Row ``macro``: the mean of the class values (NaN left out).

    With ``per_file=True`` the report has one such block of rows per file
    (its labels, ``micro`` and ``macro``), indexed by ``(file, label)``,
    and a last block ``TOTAL``: the report over all files
    (the shape of :func:`audeval.segment_report` and of the CLI's ``--per-file``).

    Args:
{common}
        per_file: one block of rows per file plus a ``TOTAL`` block
        zero_division: value of an undefined ratio
        propagate_nans: if ``True``, an F-score is NaN
            when its precision or recall is NaN
{tolerances}

    Returns:
        report table

    Examples:
{example}
        >>> report = event_report(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
        >>> report[["n_truth", "tp", "fscore", "error_rate"]].round(3)
               n_truth   tp  fscore  error_rate
        label
        a          2.0  1.0   0.667        0.50
        b          1.0  0.0   0.000        3.00
        micro      3.0  1.0   0.333        1.00
        macro      NaN  NaN   0.333        1.75

    """
    per_file = check_bool(per_file, "per_file")
    propagate_nans = check_bool(propagate_nans, "propagate_nans")
    zero_division = _scores.check_zero_division(zero_division)
    stats = _statistics(event_report, truth, prediction, labels, locals())
    table = class_wise(stats, zero_division, propagate_nans)
    micro = overall(stats[COLUMNS].sum(), zero_division, propagate_nans)
    keep = _macro_labels(table, stats, labels)
    macro = {c: _scores.macro(table[c].to_numpy()[keep]) for c in MACRO_COLUMNS}
    blocks = None
    if per_file:
        files, counts = _dense_counts(stats, list(table.index))
        values = class_values(
            counts["n_truth"], counts["n_prediction"], counts["tp"], zero_division, propagate_nans
        )
        sums = {name: counts[name].sum(axis=1) for name in counts}
        blocks = (
            files,
            values,
            overall(sums, zero_division, propagate_nans),
            {c: _scores.macro(values[c][:, keep], axis=1) for c in MACRO_COLUMNS},
        )
    return label_report(list(table.index), REPORT_COLUMNS, (dict(table), micro, macro), blocks)


MACRO_COLUMNS = (
    "precision", "recall", "fscore", "error_rate", "deletion_rate", "insertion_rate"
)
REPORT_COLUMNS = (
    "n_truth", "n_prediction", "tp", "fp", "fn", "precision", "recall", "fscore", "error_rate",
    "deletion_rate", "insertion_rate", "substitutions", "deletions", "insertions", "substitution_rate",
)


def _macro_labels(table: pd.DataFrame, stats: pd.DataFrame, labels) -> np.ndarray:
    """Labels that count in macro averages (see :func:`audeval._scores.supported`)."""
    given = labels is not None or bool(table_options(stats).get("labels_given"))
    return _scores.supported(table["n_truth"], table["n_prediction"], list(table.index), given)


def _dense_counts(stats: pd.DataFrame, labels: list) -> tuple[list, dict[str, np.ndarray]]:
    """Count columns as ``(files, labels)`` arrays, files in the order of the table."""
    file_codes, files = pd.factorize(stats.index.get_level_values("file"))
    label_codes = pd.Index(labels, dtype=object).get_indexer(
        pd.Index(np.asarray(stats.index.get_level_values("label"), dtype=object), dtype=object)
    )
    counts = {}
    for name in ("n_truth", "n_prediction", "tp", "substituted"):
        grid = np.zeros((len(files), len(labels)), dtype=np.float64)
        np.add.at(grid, (file_codes, label_codes), stats[name].to_numpy(dtype=np.float64))
        counts[name] = grid
    return list(files), counts


__all__ = [
    "event_confusion_matrix",
    "event_error_rate",
    "event_error_rate_per_class",
    "event_fscore",
    "event_fscore_per_class",
    "event_precision_per_class",
    "event_recall_per_class",
    "event_report",
    "event_statistics",
    "event_unweighted_average_fscore",
]


FAMILY = Family(
    name="event",
    statistics=event_statistics,
    index=("file", "label"),
    options=OPTIONS,
    metrics=(
        event_precision_per_class,
        event_recall_per_class,
        event_fscore_per_class,
        event_unweighted_average_fscore,
        event_fscore,
        event_error_rate,
        event_error_rate_per_class,
        event_confusion_matrix,
        event_report,
    ),
    cross_label=(event_error_rate, event_confusion_matrix, event_report),
    report=event_report,
    columns=tuple(COLUMNS),
    requires=((event_confusion_matrix, {"confusion": True}),),
    normalise=normalise,
)
"""The event family's one declaration (read by the registry)."""
