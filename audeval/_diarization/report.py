r"""Diarization report per file and the per-speaker breakdown."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core.ratios import divide
from audeval._core.validation import NS_PER_SECOND

from audeval._diarization import options as opt
from audeval._diarization.cluster import _entropy_parts, _purity_parts
from audeval._diarization.metrics import _jaccard, _mapped, _rate, _table_components
from audeval._diarization.options import DIARIZATION
from audeval._diarization.statistics import _Table
from audeval._diarization.table import diarization_table


def _per_file_ratio(numerator, denominator) -> np.ndarray:
    numerator = np.r_[numerator, numerator.sum()].astype(np.float64)
    denominator = np.r_[denominator, denominator.sum()].astype(np.float64)
    return np.where(denominator > 0, divide(numerator, denominator, 1.0), 1.0)


def _per_file_homogeneity(entropy, cross) -> np.ndarray:
    entropy, cross = np.r_[entropy, entropy.sum()], np.r_[cross, cross.sum()]
    fallback = np.where(cross == 0, 1.0, 0.0)
    return np.where(entropy == 0, fallback, 1.0 - divide(cross, entropy, 0.0))


def _report(table: _Table, options) -> pd.DataFrame:
    """The report of :func:`diarization_report` from the family gate's arrays."""
    *values, chosen = _table_components(table, options)
    speakers, jaccard = _jaccard(table, chosen)
    values = np.vstack(values + [speakers.astype(np.int64)])
    values = np.hstack([values, values.sum(axis=1, keepdims=True)])
    jaccard = np.r_[jaccard, jaccard.sum()]
    total, correct, confusion, false_alarm, miss, speakers = values
    seconds = values[:5] / NS_PER_SECOND
    out = {
        "total": seconds[0],
        "correct": seconds[1],
        "confusion": seconds[2],
        "false_alarm": seconds[3],
        "miss": seconds[4],
        "diarization_error_rate": _rate(confusion + false_alarm + miss, total),
        "confusion_rate": _rate(confusion, total),
        "false_alarm_rate": _rate(false_alarm, total),
        "miss_rate": _rate(miss, total),
        "speakers": speakers,
        "jaccard_error_rate": np.where(speakers > 0, divide(jaccard, speakers, 1.0), 1.0),
        "purity": _per_file_ratio(*_purity_parts(table, swap=False)),
        "coverage": _per_file_ratio(*_purity_parts(table, swap=True)),
        "homogeneity": _per_file_homogeneity(*_entropy_parts(table, swap=False)),
        "completeness": _per_file_homogeneity(*_entropy_parts(table, swap=True)),
    }
    index = pd.Index(list(table.files) + [opt.TOTAL_ROW], name="file", dtype=object)
    report = pd.DataFrame(out, index=index)
    report.attrs["collar_convention"] = table.collar_convention
    report.attrs["regions"] = options.regions
    return report


def _speaker_report(table: _Table, options) -> pd.DataFrame:
    """The breakdown of :func:`diarization_speaker_report` from the family gate's arrays."""
    *_, chosen = _table_components(table, options)
    t_file, t_label, t_time = table.truth
    _, row, p, c, b = _mapped(table, chosen)
    partner = np.full(len(t_file), -1, dtype=np.int64)
    partner[row] = p
    correct = np.zeros(len(t_file), dtype=np.int64)
    correct[row] = c
    partner_time = np.zeros(len(t_file), dtype=np.int64)
    partner_time[row] = b
    names = np.empty(len(table.prediction_labels) + 1, dtype=object)
    names[:-1] = table.prediction_labels
    union = (t_time + partner_time - correct).astype(np.float64)
    return pd.DataFrame(
        {
            "prediction": names[partner],
            "duration": t_time / NS_PER_SECOND,
            "correct": correct / NS_PER_SECOND,
            "missed_or_confused": (t_time - correct) / NS_PER_SECOND,
            "false_alarm": (partner_time - correct) / NS_PER_SECOND,
            "jaccard_error_rate": 1.0 - divide(correct, union, 0.0),
        },
        index=pd.MultiIndex.from_arrays(
            [table.files[t_file], pd.Index(table.truth_labels, dtype=object)[t_label]],
            names=["file", "truth"],
        ),
    )


@DIARIZATION.metric(_report, gate=diarization_table)
def diarization_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    regions: str = "all",
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> pd.DataFrame:
    r"""Diarization error rate, its components and cluster metrics per file, plus a total row.

    Args:
        truth: ground truth Series, or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table)
        mapping: ``"optimal"``, ``"greedy"``
            (see :func:`diarization_error_rate`),
            or ``"identity"``: labels compared as they are,
            which gives the identification error rate
        individual_file_mapping: a mapping per file, else one over all files
        regions: ``"all"``, ``"single"``, ``"overlap"`` or ``"nonoverlap"``:
            the components on the segments with any, one, two or more,
            at most one truth speaker (spy-der's ``--regions``)
        collar: unscored width around every truth boundary (seconds or timedelta)
        collar_convention: ``"total"`` (default, pyannote.metrics): ``collar`` is the
            total width, half before and half after each boundary;
            ``"per_side"`` (NIST md-eval, dscore, spy-der): ``collar`` on each side.
            The report's ``attrs["collar_convention"]`` names it
        skip_overlap: do not score regions with two or more truth labels
        compat: ``None`` or ``"pyannote"`` (see :func:`diarization_statistics`)
        files_duration: mapping or Series from file to duration
        uem: scored intervals per file (see :func:`read_uem`)

    Returns:
        DataFrame indexed by file plus a last row ``"TOTAL"``
        (durations summed over files) with the columns
        ``total``, ``correct``, ``confusion``, ``false_alarm``, ``miss`` in seconds,
        ``diarization_error_rate``,
        ``confusion_rate``, ``false_alarm_rate``, ``miss_rate``
        (each component over total; as audmetric's ``ErrorRateDetails``),
        ``speakers`` (truth speakers), ``jaccard_error_rate``,
        ``purity``, ``coverage``, ``homogeneity``, ``completeness``
        (see :func:`diarization_purity_coverage`,
        :func:`diarization_homogeneity_completeness`)

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["A", "B", "A"],
        ...     index=audformat.segmented_index(["f1", "f1", "f2"], [0, 2, 0], [2, 4, 4]),
        ... )
        >>> prediction = pd.Series(
        ...     ["s1", "s2"], index=audformat.segmented_index(["f1", "f2"], [0, 0], [3, 2])
        ... )
        >>> report = diarization_report(truth, prediction, files_duration={"f1": 4, "f2": 4})
        >>> report[["total", "confusion", "false_alarm", "miss", "diarization_error_rate"]]
               total  confusion  false_alarm  miss  diarization_error_rate
        file
        f1       4.0        1.0          0.0   1.0                     0.5
        f2       4.0        0.0          0.0   2.0                     0.5
        TOTAL    8.0        1.0          0.0   3.0                     0.5
        >>> report.attrs["collar_convention"]
        'total'

    """
@DIARIZATION.metric(_speaker_report, gate=diarization_table)
def diarization_speaker_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> pd.DataFrame:
    r"""Per-speaker breakdown: each truth speaker's time, partner, correct time and JER.

    For truth speaker :math:`r` of a file, mapped (as in :func:`diarization_error_rate`)
    to the predicted label :math:`h` (none: :math:`|h| = |r \cap h| = 0`):
    ``duration`` :math:`= |r|`, ``correct`` :math:`= |r \cap h|`,
    ``missed_or_confused`` :math:`= |r| - |r \cap h|`,
    ``false_alarm`` :math:`= |h| - |r \cap h|` and
    ``jaccard_error_rate`` :math:`= 1 - |r \cap h| / |r \cup h|`.

    Args:
        truth: ground truth Series, or a table from :func:`diarization_statistics`
        prediction: predicted Series (``None`` with a table)
        mapping: ``"optimal"`` or ``"greedy"``
        individual_file_mapping: a mapping per file, else one over all files
        collar: unscored width around every truth boundary (seconds or timedelta)
        collar_convention: ``"total"`` (default, pyannote.metrics: total width)
            or ``"per_side"`` (NIST md-eval: on each side)
        skip_overlap: do not score regions with two or more truth labels
        compat: ``None`` or ``"pyannote"``
        files_duration: mapping or Series from file to duration
        uem: scored intervals per file (see :func:`read_uem`)

    Returns:
        DataFrame indexed by ``(file, truth)`` with the columns ``prediction``
        (mapped label, ``None`` if unmapped), ``duration``, ``correct``,
        ``missed_or_confused``, ``false_alarm`` (seconds) and ``jaccard_error_rate``

    Examples:
        >>> import audformat
        >>> from audeval import diarization_speaker_report
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [1, 2], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> report = diarization_speaker_report(truth, prediction, files_duration={"f1": 4})
        >>> report[["prediction", "duration", "correct", "jaccard_error_rate"]]
                   prediction  duration  correct  jaccard_error_rate
        file truth
        f1   A              1       2.0      2.0                0.20
             B              2       2.0      1.5                0.25

    """

