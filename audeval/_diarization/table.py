r"""The public diarization statistics table and its round trip to arrays."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core.intervals import group_sum
from audeval._core.protocol import stamp, table_options
from audeval._core.tables import int_columns, label_index

from audeval._diarization import options as opt
from audeval._diarization.options import DIARIZATION
from audeval._diarization.region import check_uem, with_uem
from audeval._diarization.statistics import _diarization_arrays, _Table


def _with_mapping_rows(table: _Table) -> tuple:
    """Co-occurrence rows and pair columns, with the pairs that only the mapping rows have
    (per-side collars) added at zero, and their ``duration_mapping`` column."""
    if table.mapping is None:
        return table.cooccurrence, dict(table.pair)
    width = max(table.n_labels, 1)
    keys = [(f * width + t) * width + p for f, t, p, _ in (table.cooccurrence, table.mapping)]
    union = np.union1d(*keys)
    columns = {"duration": table.cooccurrence[3], **table.pair}
    out = {}
    for name, values in columns.items():
        out[name] = np.zeros(len(union), dtype=np.int64)
        out[name][np.searchsorted(union, keys[0])] = values
    out["duration_mapping"] = np.zeros(len(union), dtype=np.int64)
    out["duration_mapping"][np.searchsorted(union, keys[1])] = table.mapping[3]
    file, rest = union // (width * width), union % (width * width)
    return (file, rest // width, rest % width, out.pop("duration")), out


def _to_frame(table: _Table) -> pd.DataFrame:
    n = table.n_files
    none = np.full(n, -1, dtype=np.int64)
    t_file, t_label, t_time = table.truth
    p_file, p_label, p_time = table.prediction
    (c_file, c_truth, c_pred, c_time), pair = _with_mapping_rows(table)
    file = np.concatenate([np.arange(n), t_file, p_file, c_file])
    truth = np.concatenate([none, t_label, np.full(len(p_file), -1), c_truth])
    pred = np.concatenate([none, np.full(len(t_file), -1), p_label, c_pred])
    n_labels = len(t_file) + len(p_file)
    zeros = np.zeros(len(file) - n, dtype=np.int64)
    columns = {c: np.concatenate([table.per_file[c], zeros]) for c in opt.FILE_COLUMNS}
    columns["duration"] = np.concatenate([np.zeros(n, np.int64), t_time, p_time, c_time])
    for c in pair:
        columns[c] = np.concatenate([np.zeros(n + n_labels, np.int64), pair[c]])
    if table.support is not None:  # compat="pyannote" (no mapping rows: same pair rows)
        s = table.support
        columns[opt.SUPPORT_COLUMN] = np.concatenate(
            [np.zeros(n, np.int64), s["truth"], s["prediction"], s["cooccurrence"]]
        )
    order = np.lexsort((pred, truth, file))
    index = pd.MultiIndex(
        levels=[
            pd.Index(table.files, name="file"),
            label_index(table.truth_labels).rename("truth"),
            label_index(table.prediction_labels).rename("prediction"),
        ],
        codes=[file[order], truth[order], pred[order]],
        names=["file", "truth", "prediction"],
        verify_integrity=False,
    )
    return pd.DataFrame({c: v[order].astype(np.int64) for c, v in columns.items()}, index=index)


def _level_labels(values: pd.Index) -> list:
    if isinstance(values.dtype, pd.CategoricalDtype):
        return list(values.categories)
    return opt.sorted_labels(pd.unique(np.asarray(values.dropna(), dtype=object)))


def _from_frame(stats: pd.DataFrame, compat: str | None = None) -> _Table:
    names = list(stats.index.names)
    if names != ["file", "truth", "prediction"]:
        raise ValueError(
            "truth is a DataFrame but not a table from diarization_statistics: "
            f"its index levels are {names}, not ['file', 'truth', 'prediction']."
        )
    extra = opt.COMPAT_COLUMNS if compat == "pyannote" else ()
    columns = list(opt.DIARIZATION_COLUMNS + extra)
    if compat == "pyannote":
        columns.append(opt.SUPPORT_COLUMN)
    if opt.MAPPING_COLUMN in stats.columns:  # per-side collars: the mapping's co-occurrence
        columns.append(opt.MAPPING_COLUMN)
    missing = [c for c in columns if c not in stats.columns]
    if missing:
        raise ValueError(
            f"truth is a DataFrame but lacks the columns {missing}; "
            "pass a table returned by diarization_statistics."
        )
    if not stats.index.is_unique:
        stats = stats[columns].groupby(level=[0, 1, 2], sort=False, dropna=False, observed=True).sum()
    file_values = stats.index.get_level_values("file")
    truth_values = stats.index.get_level_values("truth")
    pred_values = stats.index.get_level_values("prediction")
    truth_labels, prediction_labels = _level_labels(truth_values), _level_labels(pred_values)
    files = pd.Index(file_values.unique(), name="file")
    try:
        files = files.sort_values()
    except TypeError:
        pass
    file = np.asarray(files.get_indexer(file_values), dtype=np.int64)
    truth = np.asarray(
        pd.Index(truth_labels, dtype=object).get_indexer(np.asarray(truth_values, dtype=object)),
        dtype=np.int64,
    )
    pred = np.asarray(
        pd.Index(prediction_labels, dtype=object).get_indexer(np.asarray(pred_values, dtype=object)),
        dtype=np.int64,
    )
    n = len(files)
    arrays = dict(zip(columns, np.ascontiguousarray(int_columns(stats, columns).T)))  # (one conversion)
    is_file = (truth < 0) & (pred < 0)
    per_file = {c: group_sum(file[is_file], arrays[c][is_file], n) for c in opt.FILE_COLUMNS}
    duration = arrays["duration"]

    def rows(mask, *codes, time=duration):
        keep = np.flatnonzero(mask & (time > 0))
        keep = keep[np.lexsort(tuple(c[keep] for c in reversed(codes)))]
        return keep, tuple(c[keep] for c in codes) + (time[keep],)

    truth_keep, truth_rows = rows((truth >= 0) & (pred < 0), file, truth)
    prediction_keep, prediction_rows = rows((truth < 0) & (pred >= 0), file, pred)
    keep, pair_rows = rows((truth >= 0) & (pred >= 0), file, truth, pred)
    pair = {c: arrays[c][keep] for c in ("duration_overlap",) + extra}
    support = None
    if compat == "pyannote":
        values = arrays[opt.SUPPORT_COLUMN]
        support = {
            "truth": values[truth_keep],
            "prediction": values[prediction_keep],
            "cooccurrence": values[keep],
        }
    mapping = None
    if opt.MAPPING_COLUMN in arrays:
        both = (truth >= 0) & (pred >= 0)
        mapping = rows(both, file, truth, pred, time=arrays[opt.MAPPING_COLUMN])[1]
    return _Table(
        files=files,
        truth_labels=truth_labels,
        prediction_labels=prediction_labels,
        per_file=per_file,
        truth=truth_rows,
        prediction=prediction_rows,
        cooccurrence=pair_rows,
        pair=pair,
        compat=compat,
        mapping=mapping,
        support=support,
    )


def checked_inputs(truth, prediction, options) -> tuple:
    """The gate of the diarization statistics: validated inputs, the labels of each side
    and the UEM as arrays."""
    uem = check_uem(options.uem)
    inputs, truth_labels, prediction_labels = opt.check_diarization_inputs(
        truth, prediction, files_duration=options.files_duration
    )
    inputs, uem_arrays = with_uem(inputs, uem)
    return inputs, uem_arrays, truth_labels, prediction_labels


def arrays_of(inputs, uem_arrays, truth_labels, prediction_labels, options, overlap: bool = True) -> _Table:
    """The statistics arrays of checked inputs (:func:`checked_inputs`) under ``options``."""
    return _diarization_arrays(
        inputs,
        options.collar,
        options.skip_overlap,
        collar_convention=options.collar_convention,
        compat=options.compat,
        uem=uem_arrays,
        truth_labels=truth_labels,
        prediction_labels=prediction_labels,
        overlap=overlap,
    )


def _compute(truth, prediction, options, overlap: bool = True) -> _Table:
    """Arrays of the statistics of two Series (no DataFrame in between)."""
    inputs, uem_arrays, truth_labels, prediction_labels = checked_inputs(truth, prediction, options)
    table = arrays_of(inputs, uem_arrays, truth_labels, prediction_labels, options, overlap=overlap)
    table.collar_convention = options.collar_convention
    return table


def _statistics(truth, prediction, options) -> pd.DataFrame:
    """:func:`diarization_statistics` of a checked options object."""
    opt.series_only(truth, DIARIZATION)
    table = _compute(truth, prediction, options)
    return stamp(_to_frame(table), "diarization", DIARIZATION.record(options))


def diarization_table(metric, truth, prediction, options) -> _Table:
    """The family gate: the arrays of a metric call, from Series or from a given table.

    The co-occurrence in truth overlap is computed only where the metric needs it
    (``regions`` other than ``"all"``);
    A caller's ``mapping="identity"`` is taken only by the metrics of
    :data:`audeval._diarization.options.IDENTITY_MAPPING`
    (the identification metrics need it whatever the call says: ``needs=``).
    """
    if "mapping" in options.given and options.mapping == "identity" and metric.declared.name not in opt.IDENTITY_MAPPING:
        raise ValueError(
            f"mapping must be 'optimal' or 'greedy'; got 'identity' (only {opt.IDENTITY_MAPPING} "
            "compare labels as they are; identification_error_rate is that error rate)."
        )
    if isinstance(truth, pd.DataFrame) or prediction is None:
        stats = opt.table_given(DIARIZATION, metric, truth, prediction, options)
        recorded = table_options(stats)
        table = _from_frame(stats, recorded.get("compat"))
        table.collar_convention = recorded.get("collar_convention", "total")
        return table
    return _compute(truth, prediction, options, overlap=options.regions != "all")


@DIARIZATION.statistics(_statistics)
def diarization_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    collar: float | pd.Timedelta = 0.0,
    collar_convention: str = "total",
    skip_overlap: bool = False,
    compat: str | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> pd.DataFrame:
    r"""Additive duration table for every diarization and identification metric.

    The intervals of each label are merged per file
    (a label that overlaps itself counts once, the NIST rule;
    rows of zero length have no duration and no collar)
    and cropped to the scored region:
    the ``uem`` intervals of a file,
    else ``[0, duration]`` from ``files_duration``,
    else the union of the extents of truth and prediction
    (pyannote.metrics' rule, with a ``UserWarning``),
    minus collars and, with ``skip_overlap``, overlap regions.
    Each file is then cut into elementary segments
    at every truth and prediction boundary;
    in a segment of length :math:`d` with :math:`n_t` truth and
    :math:`n_p` predicted labels active,

    .. math::

        \text{total} \mathrel{+}= n_t d, \quad
        \text{miss} \mathrel{+}= \max(0, n_t - n_p) d, \quad
        \text{false alarm} \mathrel{+}= \max(0, n_p - n_t) d,

    and every pair of a truth and a predicted label active in it
    adds :math:`d` to their co-occurrence.
    The parts in segments with :math:`n_t \ge 2` (``*_overlap``)
    and the false alarm in segments with :math:`n_t = 0` (``false_alarm_silence``)
    are also kept, for ``regions=``.
    Confusion and correct time depend on the label mapping
    and are computed from the co-occurrence by the metric functions:
    :math:`\text{correct} = \sum` co-occurrence of mapped pairs,
    :math:`\text{confusion} = \text{total} - \text{miss} - \text{correct}`.

    Args:
        truth: ground truth Series with a segmented index (e.g. speakers)
        prediction: predicted Series with a segmented index;
            its labels need not be related to the truth labels
            (str speakers against int clusters is fine:
            the two label sets are never ordered together)
        collar: unscored width (seconds or timedelta) around every truth boundary;
            its meaning depends on ``collar_convention``
        collar_convention: ``"total"`` (default, pyannote.metrics):
            ``collar`` is the total width, half before and half after the boundary;
            ``"per_side"`` (NIST md-eval, dscore, spy-der):
            ``collar`` is added on each side of the boundaries of the merged
            speaker turns (width ``2 * collar``; md-eval collars every reference row
            as written, which differs where one speaker's rows touch or overlap)
        skip_overlap: do not score regions where two or more
            truth labels are active
        compat: ``None`` (default): a label overlapping itself is merged (NIST rule);
            ``"pyannote"``: every row counts as it is,
            so a speaker's self-overlapping turns count twice in total,
            miss and co-occurrence, and with ``skip_overlap`` they are overlap
            (pyannote.metrics; adds the columns ``matched`` and ``matched_overlap``,
            the correct time of a pair if mapped, and ``duration_support``,
            ``duration`` on each label's merged rows).
            This reproduces pyannote.metrics' DER, IER, identification precision/recall
            and homogeneity/completeness on such input, and its purity and coverage,
            which it takes on label supports (``duration_support``);
            its JER of such turns is not reproduced
        files_duration: mapping or Series from file to duration
        uem: scored intervals per file (audformat segmented index or a Series with one,
            several intervals per file; see :func:`read_uem`);
            files without UEM intervals fall back to ``files_duration``;
            UEM rows past a file's duration are cut there, with a ``UserWarning``
            naming them (as for truth and prediction rows)

    Returns:
        DataFrame indexed by ``(file, truth, prediction)``
        with int64 nanosecond columns.
        Rows ``(file, NaN, NaN)`` hold the per-file
        ``total``, ``miss``, ``false_alarm`` and their ``*_overlap`` parts
        and ``false_alarm_silence``;
        the column ``duration`` holds the speaking time of a truth label
        on rows ``(file, label, NaN)``,
        of a predicted label on rows ``(file, NaN, label)``,
        and the co-occurrence of two labels on rows ``(file, truth, prediction)``
        (with ``duration_overlap`` its part in truth overlap;
        only non-zero rows are kept).
        With ``collar > 0`` and ``collar_convention="per_side"`` the column
        ``duration_mapping`` holds the co-occurrence before the collars
        (and before ``skip_overlap``), which the label mapping maximises
        (md-eval's and spy-der's rule; pyannote.metrics maps after the collars)
        Tables of disjoint sets of files add up (``audeval.sum_statistics``)

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [1, 2], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> stats = diarization_statistics(truth, prediction, files_duration={"f1": 4})
        >>> (stats[["total", "miss", "false_alarm", "duration"]] / 1e9).astype(float)
                               total  miss  false_alarm  duration
        file truth prediction
        f1   nan   nan           4.0   0.0          0.0       0.0
                   1             0.0   0.0          0.0       2.5
                   2             0.0   0.0          0.0       1.5
             A     nan           0.0   0.0          0.0       2.0
                   1             0.0   0.0          0.0       2.0
             B     nan           0.0   0.0          0.0       2.0
                   1             0.0   0.0          0.0       0.5
                   2             0.0   0.0          0.0       1.5

    """
