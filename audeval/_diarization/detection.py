r"""Detection of activity (speech, music, ...): durations per file and their rates."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core.sweep_sides import two_sides
from audeval._core.intervals import merge, total_length
from audeval._core.protocol import check_table, stamp, table_options
from audeval._core.ratios import divide, fscore
from audeval._core.tables import int_columns
from audeval._core.validation import NS_PER_SECOND

from audeval._diarization import options as opt
from audeval._diarization.metrics import _rate
from audeval._diarization.options import DETECTION
from audeval._diarization.region import (
    _merge_labels,
    _raw_labels,
    _scored_region,
    check_uem,
    with_uem,
)


def _detection_table(
    inputs, collar: int, skip_overlap: bool, convention: str, uem, compat: str | None = None
) -> dict:
    n, n_labels = inputs.n_files, inputs.n_labels
    truth_merged = _merge_labels(inputs.truth, n, n_labels)
    overlap_rows = None
    if skip_overlap and compat == "pyannote":  # two rows, even of one label, are overlap
        overlap_rows = _raw_labels(inputs.truth, n, n_labels)
    region = _scored_region(
        inputs,
        truth_merged,
        collar,
        skip_overlap,
        collar_convention=convention,
        uem=uem,
        overlap_rows=overlap_rows,
    )
    activity = []
    for side in (inputs.truth, inputs.prediction):
        # pieces stay disjoint and sorted by (file, start)
        activity.append(region.crop(n, *merge(n, side.file, side.start, side.end)))
    (t_file, t_start, t_end), (p_file, p_start, p_end) = activity
    sums = two_sides(  # one channel a side: activity is either side's (merged) union
        n, (t_file, np.zeros(len(t_file), np.int64), t_start, t_end),
        (p_file, np.zeros(len(p_file), np.int64), p_start, p_end), 1, 1,
        columns=_activity_columns, pair={}, distinct=True,
    ).columns
    tp, truth_len, prediction_len = sums["both"], sums["truth"], sums["prediction"]
    region_len = total_length(n, region.intervals)
    return {
        "true_positive": tp,
        "false_alarm": prediction_len - tp,
        "miss": truth_len - tp,
        "true_negative": region_len - truth_len - prediction_len + tp,
    }


def _activity_columns(n_t: np.ndarray, n_p: np.ndarray) -> dict:
    """Per piece, the factors of its length: active on both sides, on each side."""
    return {"both": np.minimum(n_t, n_p), "truth": n_t, "prediction": n_p}


def _compute(truth, prediction, positive_labels, options) -> pd.DataFrame:
    """The detection table of two Series (``positive_labels`` checked)."""
    uem = check_uem(options.uem)
    inputs = opt.check_detection_inputs(
        truth,
        prediction,
        positive_labels=positive_labels,
        files_duration=options.files_duration,
    )
    inputs, uem_arrays = with_uem(inputs, uem)
    columns = _detection_table(
        inputs,
        options.collar,
        options.skip_overlap,
        options.collar_convention,
        uem_arrays,
        options.compat,
    )
    table = pd.DataFrame(columns, index=pd.Index(inputs.files, name="file"))
    recorded = {"positive_labels": positive_labels, **DETECTION.record(options)}
    return stamp(table, "detection", recorded)


def _statistics(truth, prediction, positive_labels, options) -> pd.DataFrame:
    """:func:`detection_statistics` of a checked options object."""
    opt.series_only(truth, DETECTION)
    return _compute(truth, prediction, opt.check_positive_labels(positive_labels), options)


def detection_table(metric, truth, prediction, positive_labels, options) -> pd.DataFrame:
    """The family gate: a detection statistics table, computed from Series or given.

    ``positive_labels`` (the third argument) are checked once;
    given with a table, they must be those the table was made with.
    """
    positive_labels = opt.check_positive_labels(positive_labels)
    if isinstance(truth, pd.DataFrame) or prediction is None:
        table = opt.table_given(DETECTION, metric, truth, prediction, options)
        if positive_labels is not None:
            check_table(table, None, family="detection", given={"positive_labels": positive_labels})
        return table[list(opt.DETECTION_COLUMNS)]
    return _compute(truth, prediction, positive_labels, options)


@DETECTION.statistics(_statistics)
def detection_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    positive_labels: list | None = None,
    *,
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> pd.DataFrame:
    r"""Durations of correct and wrong activity per file.

    Activity is the union of the rows of the positive labels on each side
    (gaps are the negative class; overlapping rows count once),
    evaluated inside the scored region of each file:
    its ``uem`` intervals, else ``[0, duration]`` from ``files_duration``,
    else the union of the extents of truth and prediction
    (pyannote.metrics' rule; a ``UserWarning`` says so),
    minus collars and, with ``skip_overlap``, overlap regions.

    Args:
        truth: ground truth Series with a segmented index
        prediction: predicted Series with a segmented index
            (its labels need not be comparable with the truth labels)
        positive_labels: labels that mean activity;
            rows with other labels are left out.
            ``None``: every row is activity.
            A label found in neither input raises ``ValueError``
            (a misspelt label must not give a perfect score)
        collar: unscored width (seconds or timedelta) around every truth boundary
        collar_convention: ``"total"`` (default, pyannote.metrics): ``collar`` is the
            total width, half before and half after each boundary;
            ``"per_side"`` (NIST md-eval, dscore, spy-der): ``collar`` on each side
        skip_overlap: do not score regions where two or more
            truth labels are active
            (a label that overlaps itself counts once; see ``compat``)
        compat: ``None`` (default): with ``skip_overlap``, overlap is where two or more
            truth *labels* are active, so a label overlapping itself is scored;
            ``"pyannote"``: overlap is where two or more truth *rows* are active,
            a label overlapping itself included (pyannote.metrics 4.2's detection
            metrics). Without ``skip_overlap`` both give the same table
        files_duration: mapping or Series from file to duration
        uem: scored intervals per file (segmented index or Series; see :func:`read_uem`);
            rows past a file's duration are cut there, with a ``UserWarning``

    Returns:
        DataFrame indexed by ``file`` with int64 nanosecond columns
        ``true_positive``, ``false_alarm``, ``miss``, ``true_negative``;
        tables of disjoint sets of files add up

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     True, index=audformat.segmented_index(["f1", "f1"], [0, 4], [2, 6])
        ... )
        >>> prediction = pd.Series(
        ...     True, index=audformat.segmented_index(["f1"], [1], [5])
        ... )
        >>> stats = detection_statistics(truth, prediction, files_duration={"f1": 8})
        >>> (stats / 1e9).astype(float)
              true_positive  false_alarm  miss  true_negative
        file
        f1              2.0          2.0   2.0            2.0

    """



def _detection_values(tp, fa, miss, tn, *, beta: float, zero_division: float) -> dict:
    tp, fa, miss, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fa, miss, tn))
    precision = divide(tp, tp + fa, zero_division)
    recall = divide(tp, tp + miss, zero_division)
    return {
        "detection_error_rate": _rate(fa + miss, tp + miss),
        "precision": precision,
        "recall": recall,
        "fscore": fscore(precision, recall, beta=beta),
        "accuracy": divide(tp + tn, tp + tn + fa + miss, zero_division),
    }


def _error_rate(stats: pd.DataFrame, options) -> float:
    tp, fa, miss = (int(x) for x in int_columns(stats, ("true_positive", "false_alarm", "miss")).sum(axis=0))
    return float(_rate(fa + miss, tp + miss))


def _report(stats: pd.DataFrame, options) -> pd.DataFrame:
    """The report of :func:`detection_report` from the family gate's table."""
    convention = table_options(stats).get("collar_convention", options.collar_convention)
    stats = stats.groupby(level="file", sort=False).sum() if not stats.index.is_unique else stats
    values = int_columns(stats, opt.DETECTION_COLUMNS)
    values = np.vstack([values, values.sum(axis=0, keepdims=True)])
    tp, fa, miss, tn = values.T
    out = {c: values[:, k] / NS_PER_SECOND for k, c in enumerate(opt.DETECTION_COLUMNS)}
    out["total"] = (tp + miss) / NS_PER_SECOND
    out.update(_detection_values(tp, fa, miss, tn, beta=options.beta, zero_division=options.zero_division))
    index = pd.Index(list(stats.index) + [opt.TOTAL_ROW], name="file", dtype=object)
    report = pd.DataFrame(out, index=index)
    report.attrs["collar_convention"] = convention
    return report


@DETECTION.metric(_error_rate, gate=detection_table)
def detection_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    positive_labels: list | None = None,
    *,
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> float:
    r"""Detection error rate of activity (e.g. speech, music), summed over files.

    .. math::

        \text{DetER} = \frac{\text{false alarm} + \text{miss}}{\text{total}}

    where false alarm is the predicted activity outside truth activity,
    miss the truth activity outside predicted activity,
    and total the duration of truth activity,
    all in the scored region (see :func:`detection_statistics`)
    and summed over files.
    If total is 0, the result is 0 without errors and 1 with errors
    (pyannote.metrics' rule).
    Same as ``pyannote.metrics.detection.DetectionErrorRate``;
    with ``skip_overlap`` where a truth label overlaps itself, only with
    ``compat="pyannote"`` (pyannote.metrics skips such time as overlap,
    audeval's default scores it).

    Args:
        truth: ground truth Series with a segmented index,
            or a table from :func:`detection_statistics`
        prediction: predicted Series (``None`` with a table)
        positive_labels: labels that mean activity;
            ``None``: every row is activity; a label in neither input raises
        collar: unscored width around every truth boundary (seconds or timedelta)
        collar_convention: ``"total"`` (default, pyannote.metrics: total width,
            half on each side) or ``"per_side"`` (NIST md-eval: on each side)
        skip_overlap: do not score regions with two or more truth labels
        compat: ``None`` or ``"pyannote"``: what overlap is with ``skip_overlap``
            (see :func:`detection_statistics`)
        files_duration: mapping or Series from file to duration
        uem: scored intervals per file (see :func:`read_uem`)

    Returns:
        detection error rate

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     "speech", index=audformat.segmented_index(["f1", "f1"], [0, 4], [2, 6])
        ... )
        >>> prediction = pd.Series(
        ...     "speech", index=audformat.segmented_index(["f1"], [1], [5])
        ... )
        >>> detection_error_rate(truth, prediction, files_duration={"f1": 8})
        1.0
        >>> detection_error_rate(truth, prediction, collar=2.0, files_duration={"f1": 8})
        0.0

    """


@DETECTION.metric(_report, gate=detection_table)
def detection_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    positive_labels: list | None = None,
    *,
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
    beta: float = 1.0,
    zero_division: float = 1.0,
) -> pd.DataFrame:
    r"""Detection error rate, precision, recall, F-score and accuracy per file.

    Durations are in seconds.
    Per file and in the last row ``"TOTAL"`` (durations summed over files):

    .. math::

        \text{precision} = \frac{TP}{TP + FA}, \quad
        \text{recall} = \frac{TP}{TP + \text{miss}}, \quad
        \text{accuracy} = \frac{TP + TN}{TP + TN + FA + \text{miss}}

    and the F-score from precision and recall.
    With the default ``zero_division=1.0``,
    undefined precision, recall and accuracy are 1
    as in pyannote.metrics
    (``DetectionPrecision``, ``DetectionRecall``, ``DetectionAccuracy``,
    ``DetectionPrecisionRecallFMeasure``; with ``skip_overlap`` where a truth label
    overlaps itself, pass ``compat="pyannote"`` for its values).
    The frame's ``attrs["collar_convention"]`` names the collar convention.

    Args:
        truth: ground truth Series, or a table from :func:`detection_statistics`
        prediction: predicted Series (``None`` with a table)
        positive_labels: labels that mean activity; ``None``: every row
        collar: unscored width around every truth boundary (seconds or timedelta)
        collar_convention: ``"total"`` (default, pyannote.metrics: total width,
            half on each side) or ``"per_side"`` (NIST md-eval: on each side)
        skip_overlap: do not score regions with two or more truth labels
        compat: ``None`` or ``"pyannote"``: what overlap is with ``skip_overlap``
            (see :func:`detection_statistics`)
        files_duration: mapping or Series from file to duration
        uem: scored intervals per file (see :func:`read_uem`)
        beta: weight of recall in the F-score (positive; else ``ValueError``)
        zero_division: value of an undefined precision, recall or accuracy

    Returns:
        DataFrame indexed by file (plus ``"TOTAL"``) with the columns
        ``true_positive``, ``false_alarm``, ``miss``, ``true_negative``,
        ``total`` (truth activity) in seconds,
        ``detection_error_rate``, ``precision``, ``recall``, ``fscore``, ``accuracy``

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     "speech", index=audformat.segmented_index(["f1", "f1"], [0, 4], [2, 6])
        ... )
        >>> prediction = pd.Series(
        ...     "speech", index=audformat.segmented_index(["f1"], [1], [5])
        ... )
        >>> report = detection_report(truth, prediction, files_duration={"f1": 8})
        >>> report[["precision", "recall", "accuracy"]]
               precision  recall  accuracy
        file
        f1           0.5     0.5       0.5
        TOTAL        0.5     0.5       0.5

    """
