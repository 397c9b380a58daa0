"""Public event metrics and the report: reductions of the (summed) statistics table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._core import ratios as _scores
from audeval._core.docs import fill
from audeval._core.report import label_report
from audeval._events.options import COLUMNS, EVENT, Tolerance
from audeval._events.reductions import (
    MACRO_COLUMNS, REPORT_COLUMNS, Summed, _as_dict, _dense_counts, _macro_labels, class_values, class_wise,
    overall, totals,
)
from audeval._events.statistics import _per_file, _summed, confusion_columns



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
        onset_tolerance: onset tolerance in seconds or as timedelta,
            default 0 (exact, as audmetric; the CLI uses DCASE's 0.2 s);
            ``None``: onsets are not evaluated
        offset_tolerance: offset tolerance in seconds or as timedelta,
            default 0 (exact; the CLI uses DCASE's 0.2 s and ``duration_tolerance=0.5``);
            ``None`` and ``duration_tolerance=None``: offsets are not evaluated
        duration_tolerance: offset tolerance as a fraction
            of the truth event's duration; the larger of the two applies
        matching: ``"optimal"`` (maximum matching) or ``"greedy"``
            (first fit in time order, as audmetric)
        files_duration: duration per file, resolves ``end=NaT``
        compat: ``None`` (exact integer nanoseconds)
            or ``"sed_eval"`` (sed_eval 0.2.1's float64 time conditions,
            see :func:`event_statistics`)"""

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
        ... )
        >>> # the default tolerances are 0 (exact matching): give the ones you mean"""


# -------------------------------------------------------------------------
# Reductions: the numbers of a metric from the sums of its gate (:class:`Summed`)
# -------------------------------------------------------------------------


def _per_class(summed: Summed, options, name: str, propagate_nans: bool = False) -> dict[object, float]:
    values = class_wise(summed, options.zero_division, propagate_nans)[name]
    return _as_dict(summed.labels, values)


def _macro_fscore(summed: Summed, zero_division: float, propagate_nans: bool) -> float:
    """Mean of the class F-scores of the labels with events (NaN left out)."""
    keep = _macro_labels(summed)
    return _scores.macro(class_wise(summed, zero_division, propagate_nans)["fscore"][keep])


def _fscore(summed: Summed, options) -> float:
    if options.average == "macro":
        return _macro_fscore(summed, options.zero_division, options.propagate_nans)
    total = totals(summed, ("n_truth", "n_prediction", "tp"))
    _, _, f = _scores.precision_recall_fscore(
        total["tp"],
        total["n_prediction"],
        total["n_truth"],
        zero_division=options.zero_division,
        propagate_nans=options.propagate_nans,
    )
    return float(f)


def _error_rate(summed: Summed, options) -> float:
    return float(overall(totals(summed, COLUMNS), options.zero_division)["error_rate"])


def _confusion_matrix(summed: Summed, options) -> list[list[int | float]] | pd.DataFrame:
    names = confusion_columns(summed.labels)
    missing = [name for name in names if name not in summed.columns]
    if missing:
        raise ValueError(
            f"statistics lacks the columns {missing}; "
            "pass a table returned by the matching *_statistics function."
        )
    n = len(names)
    cm = np.zeros((n + 1, n + 1), dtype=np.int64)
    if n:
        cm[:n, :n] = np.column_stack([summed[name] for name in names])
        cm[np.arange(n), np.arange(n)] = summed["tp"]
        cm[:n, n] = summed["n_truth"] - summed["tp"] - summed["substituted"]
        cm[n, :n] = summed["n_prediction"] - summed["tp"] - summed["substituting"]
    out = cm
    if options.normalize:
        sums = cm.sum(axis=1, keepdims=True)
        out = np.divide(cm, sums, out=np.zeros(cm.shape), where=sums != 0)
    if options.as_frame:
        return _labelled_matrix(out, summed.labels)
    return out.tolist()


def _report(gated: tuple[Summed, pd.DataFrame | None], options) -> pd.DataFrame:
    summed, stats = gated
    zero_division, propagate_nans = options.zero_division, options.propagate_nans
    table = class_wise(summed, zero_division, propagate_nans)
    micro = overall(totals(summed, COLUMNS), zero_division, propagate_nans)
    keep = _macro_labels(summed)
    macro = {c: _scores.macro(table[c][keep]) for c in MACRO_COLUMNS}
    blocks = None
    if stats is not None:
        files, counts = _dense_counts(stats, summed.labels)
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
    return label_report(summed.labels, REPORT_COLUMNS, (table, micro, macro), blocks)


# -------------------------------------------------------------------------
# Public metrics (declared on the family: their bodies are not run)
# -------------------------------------------------------------------------


_doc = fill(common=_COMMON_ARGS, tolerances=_TOLERANCE_ARGS, example=_EXAMPLE)


@EVENT.metric(lambda summed, o: _per_class(summed, o, "precision"), gate=_summed)
@_doc
def event_precision_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
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


@EVENT.metric(lambda summed, o: _per_class(summed, o, "recall"), gate=_summed)
@_doc
def event_recall_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
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


@EVENT.metric(lambda summed, o: _per_class(summed, o, "fscore", o.propagate_nans), gate=_summed)
@_doc
def event_fscore_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    propagate_nans: bool = False,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> dict[object, float]:
    r"""Event-based F-score per class.

    .. math::

        F_c = \frac{2 P_c R_c}{P_c + R_c}

    computed from precision and recall
    after undefined values were replaced by ``zero_division``;
    0 when :math:`P_c R_c = 0`.

    Args:
        {common}
        {zero_division}
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


@EVENT.metric(lambda summed, o: _macro_fscore(summed, o.zero_division, o.propagate_nans), gate=_summed)
@_doc
def event_unweighted_average_fscore(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    propagate_nans: bool = False,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> float:
    r"""Event-based unweighted average (macro) F-score.

    .. math::

        \text{UAF} = \frac{1}{|C|} \sum_{c \in C} F_c

    NaN class scores are left out of the mean (as audmetric).
    Same as :func:`event_fscore` with ``average="macro"``.

    Args:
        {common}
        {zero_division}
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


@EVENT.metric(_fscore, gate=_summed)
@_doc
def event_fscore(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    average: str = "micro",
    zero_division: float = 0.0,
    propagate_nans: bool = False,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
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
        {average}
        {zero_division}
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


@EVENT.metric(_error_rate, gate=_summed, cross_label=True)
@_doc
def event_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
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


@EVENT.metric(lambda summed, o: _per_class(summed, o, "error_rate"), gate=_summed)
@_doc
def event_error_rate_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    zero_division: float = 0.0,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
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


@EVENT.metric(_confusion_matrix, gate=_summed, cross_label=True, needs={"confusion": True})
@_doc
def event_confusion_matrix(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    normalize: bool = False,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    as_frame: bool = False,
) -> list[list[int | float]] | pd.DataFrame:
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
        as_frame: return a DataFrame labelled with the labels and ``"<no event>"``:
            index ``truth`` (rows), columns ``prediction``

    Returns:
        :math:`(L + 1) \times (L + 1)` nested list, rows are truth
        (audmetric's shape: ``matrix[i][j]`` is truth ``i``, prediction ``j``);
        with ``as_frame=True`` a labelled DataFrame (``matrix.loc[i, j]``)

    Examples:
        {example}
        >>> event_confusion_matrix(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
        [[1, 1, 0], [0, 0, 1], [0, 1, 0]]
        >>> event_confusion_matrix(
        ...     truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2, as_frame=True
        ... )
        prediction  a  b  <no event>
        truth
        a           1  1           0
        b           0  0           1
        <no event>  0  1           0

    """


NO_EVENT = "<no event>"
"""Row and column of :func:`event_confusion_matrix` (``as_frame=True``) for "no event"."""


def _labelled_matrix(matrix: np.ndarray, labels: Sequence[object]) -> pd.DataFrame:
    """The confusion matrix with the labels and :data:`NO_EVENT` as index and columns."""
    if NO_EVENT in list(labels):
        raise ValueError(
            f"labels contain {NO_EVENT!r}, the name of the 'no event' row and column "
            "of as_frame=True; rename that label or use as_frame=False."
        )
    names = [*labels, NO_EVENT]
    return pd.DataFrame(
        matrix,
        index=pd.Index(names, dtype=object, name="truth"),
        columns=pd.Index(names, dtype=object, name="prediction"),
    )


@EVENT.metric(_report, gate=_per_file, cross_label=True)
@_doc
def event_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    labels: Sequence[object] | None = None,
    *,
    per_file: bool = False,
    zero_division: float = 0.0,
    propagate_nans: bool = False,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
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
