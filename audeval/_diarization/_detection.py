r"""Detection of activity (speech, music, ...): durations per file and their rates."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._intervals import intersect, merge, total_length
from audeval._options import Default, check_zero_division, given, value_of
from audeval._protocol import stamp
from audeval._scores import divide, fscore
from audeval._validation import NS_PER_SECOND

from audeval._diarization import _options as opt
from audeval._diarization._metrics import _rate
from audeval._diarization._region import (
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
    truth, prediction = activity
    tp = total_length(n, intersect(n, truth, prediction))
    truth_len = total_length(n, truth)
    prediction_len = total_length(n, prediction)
    region_len = total_length(n, region.intervals)
    return {
        "true_positive": tp,
        "false_alarm": prediction_len - tp,
        "miss": truth_len - tp,
        "true_negative": region_len - truth_len - prediction_len + tp,
    }


def _detection_options(positive_labels, collar, collar_convention, skip_overlap, compat) -> dict:
    return {
        "positive_labels": positive_labels,
        "collar": collar,
        "collar_convention": collar_convention,
        "skip_overlap": skip_overlap,
        "compat": compat,
    }


def _compute(truth, prediction, options, files_duration, uem) -> pd.DataFrame:
    recorded = opt.normalise_detection({k: value_of(v) for k, v in options.items()})
    uem = check_uem(uem)
    inputs = opt.check_detection_inputs(
        truth,
        prediction,
        positive_labels=recorded["positive_labels"],
        files_duration=files_duration,
    )
    inputs, uem_arrays = with_uem(inputs, uem)
    columns = _detection_table(
        inputs,
        int(recorded["collar"].value),
        recorded["skip_overlap"],
        recorded["collar_convention"],
        uem_arrays,
        recorded["compat"],
    )
    table = pd.DataFrame(columns, index=pd.Index(inputs.files, name="file"))
    return stamp(table, "detection", recorded)


def detection_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    positive_labels: list | None = Default(None),
    *,
    collar: float | pd.Timedelta = Default(0.0),
    collar_convention: str = Default("total"),
    skip_overlap: bool = Default(False),
    compat: str | None = Default(None),
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
    opt.refuse_table(truth, "detection_statistics", "detection")
    options = _detection_options(positive_labels, collar, collar_convention, skip_overlap, compat)
    return _compute(truth, prediction, options, files_duration, uem)


def _detection_input(truth, prediction, options, files_duration, uem) -> pd.DataFrame:
    """A detection statistics table from Series or from a given table."""
    if isinstance(truth, pd.DataFrame):
        opt.given_table(
            truth,
            prediction,
            family="detection",
            given=opt.normalise_detection({k: v for k, v in options.items() if given(v)}),
            statistics_name="detection_statistics",
            files_duration=files_duration,
            uem=uem,
        )
        missing = [c for c in opt.DETECTION_COLUMNS if c not in truth.columns]
        if missing:
            raise ValueError(
                f"truth is a DataFrame but lacks the columns {missing}; "
                "pass a table returned by detection_statistics."
            )
        return truth[list(opt.DETECTION_COLUMNS)]
    opt.require_prediction(prediction, "detection_statistics")
    return _compute(truth, prediction, options, files_duration, uem)


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


def detection_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    positive_labels: list | None = Default(None),
    *,
    collar: float | pd.Timedelta = Default(0.0),
    collar_convention: str = Default("total"),
    skip_overlap: bool = Default(False),
    compat: str | None = Default(None),
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
    options = _detection_options(positive_labels, collar, collar_convention, skip_overlap, compat)
    stats = _detection_input(truth, prediction, options, files_duration, uem)
    tp, fa, miss = (int(stats[c].sum()) for c in ("true_positive", "false_alarm", "miss"))
    return float(_rate(fa + miss, tp + miss))


def detection_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    positive_labels: list | None = Default(None),
    *,
    collar: float | pd.Timedelta = Default(0.0),
    collar_convention: str = Default("total"),
    skip_overlap: bool = Default(False),
    compat: str | None = Default(None),
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
    beta = opt.check_beta(beta)
    zero_division = check_zero_division(zero_division)
    options = _detection_options(positive_labels, collar, collar_convention, skip_overlap, compat)
    stats = _detection_input(truth, prediction, options, files_duration, uem)
    stats = stats.groupby(level="file", sort=False).sum() if not stats.index.is_unique else stats
    values = np.stack([stats[c].to_numpy(dtype=np.int64) for c in opt.DETECTION_COLUMNS], axis=1)
    values = np.vstack([values, values.sum(axis=0, keepdims=True)])
    tp, fa, miss, tn = values.T
    out = {c: values[:, k] / NS_PER_SECOND for k, c in enumerate(opt.DETECTION_COLUMNS)}
    out["total"] = (tp + miss) / NS_PER_SECOND
    out.update(_detection_values(tp, fa, miss, tn, beta=beta, zero_division=zero_division))
    index = pd.Index(list(stats.index) + [opt.TOTAL_ROW], name="file", dtype=object)
    report = pd.DataFrame(out, index=index)
    convention = opt.normalise({"collar_convention": collar_convention})["collar_convention"]
    report.attrs["collar_convention"] = convention
    return report
