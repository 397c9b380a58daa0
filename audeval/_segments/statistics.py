"""``segment_statistics``, reading tables back, the sum rule and the Series-or-table gate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses

import numpy as np
import pandas as pd

from audeval._core.ratios import supported
from audeval._core.protocol import stamp, table_options
from audeval._core.tables import check_statistics
from audeval._core.tables import labels_of
from audeval._core.tables import select_labels
from audeval._core.tables import statistics_frame
from audeval._core.warnings import warn
from audeval._core.validation import NAT, Inputs
from audeval._core.validation import check_inputs
from audeval._segments.engine import _Counts, _counts_from_inputs
from audeval._segments.gaps import fill_gaps
from audeval._segments.options import COLUMNS, SEGMENT, resolution



def _counts_frame(counts: _Counts, inputs: Inputs) -> pd.DataFrame:
    n_files, n_labels = counts.tp.shape
    substitutions = np.zeros((n_files, n_labels), dtype=np.int64)
    if n_labels:
        substitutions[:, 0] = counts.substitutions
    columns = {
        "tp": counts.tp.ravel(),
        "fp": counts.fp.ravel(),
        "fn": counts.fn.ravel(),
        "tn": counts.tn.ravel(),
        "substitutions": substitutions.ravel(),
    }
    if counts.exact:
        columns = {name: values.view("m8[ns]") for name, values in columns.items()}
    return statistics_frame(inputs, columns)


def _counts_from_table(stats: pd.DataFrame) -> _Counts:
    """Read a (possibly summed, concatenated or reordered) statistics table back."""
    stats = check_statistics(stats, COLUMNS)
    labels = labels_of(stats)
    names = list(stats.index.names)
    level = stats.index.get_level_values("label")
    if isinstance(level.dtype, pd.CategoricalDtype) and list(level.categories) == labels:
        label_code = np.asarray(level.codes, dtype=np.int64)
    else:
        label_code = pd.Index(labels, dtype=object).get_indexer(
            pd.Index(np.asarray(level, dtype=object), dtype=object)
        )
    if "file" in names:
        file_code, files = pd.factorize(stats.index.get_level_values("file"), sort=False)
        files = pd.Index(files, name="file")
    else:
        file_code = np.zeros(len(stats), dtype=np.int64)
        files = pd.Index(["<all files>"], name="file")
    timedelta = [pd.api.types.is_timedelta64_dtype(stats[c].dtype) for c in COLUMNS]
    if any(timedelta) and not all(timedelta):
        raise ValueError(
            "statistics mixes durations (time_resolution=None) and segment counts; "
            "sum only tables computed with the same time_resolution."
        )
    n_files, n_labels = len(files), len(labels)
    flat = np.asarray(file_code, dtype=np.int64) * n_labels + label_code
    arrays = {}
    for column, is_td in zip(COLUMNS, timedelta):
        values = stats[column].to_numpy()
        if is_td:
            values = values.astype("m8[ns]").view(np.int64)
        if not np.issubdtype(values.dtype, np.integer):
            if not np.issubdtype(values.dtype, np.number):
                raise ValueError(
                    f"statistics column {column!r} must hold segment counts or durations; "
                    f"got dtype {values.dtype}."
                )
            as_int = np.asarray(values, dtype=np.float64)
            if not np.all(np.isfinite(as_int)) or np.any(as_int != np.round(as_int)):
                raise ValueError(f"statistics column {column!r} must hold whole numbers.")
            values = as_int.astype(np.int64)
        grid = np.zeros(n_files * n_labels, dtype=np.int64)
        np.add.at(grid, flat, values.astype(np.int64, copy=False))
        arrays[column] = grid.reshape(n_files, n_labels)
    return _Counts(
        files,
        labels,
        arrays["tp"],
        arrays["fp"],
        arrays["fn"],
        arrays["tn"],
        arrays["substitutions"].sum(axis=1),
        exact=all(timedelta),
    )


def _counts(metric, truth, prediction, labels, options) -> _Counts:
    """Counts of a metric call: from Series, or from a given table (the family gate)."""
    if prediction is not None:
        # Series: the counts the table would hold, without building it (the same code path)
        _series_only(truth)
        counts, inputs = _direct_counts(truth, prediction, labels, options)
        given = labels is not None
        occurs = inputs.occurs  # a row makes a label occur, also one of zero length
    else:
        table = SEGMENT.table(metric, truth, prediction, labels, options, select=select_labels)
        counts = _counts_from_table(table)
        given = labels is not None or bool(table_options(table).get("labels_given"))
        occurs = None  # a table does not record rows: labels with counts occur
    n_truth, n_prediction = (counts.tp + counts.fn).sum(axis=0), (counts.tp + counts.fp).sum(axis=0)
    keep = supported(n_truth, n_prediction, counts.labels, given, occurs)
    return dataclasses.replace(counts, keep=keep)


def _statistics(truth, prediction, labels, options) -> pd.DataFrame:
    """:func:`segment_statistics` of a checked options object."""
    _series_only(truth)
    counts, inputs = _direct_counts(truth, prediction, labels, options)
    recorded = {**SEGMENT.record(options), "labels_given": labels is not None}
    return stamp(_counts_frame(counts, inputs), "segment", recorded)


def _series_only(truth) -> None:
    if isinstance(truth, pd.DataFrame):
        raise TypeError(
            "truth must be a pandas.Series; segment_statistics computes the table, "
            "the other segment_* functions accept one."
        )


@SEGMENT.statistics(_statistics)
def segment_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    gap_label: object | None = None,
) -> pd.DataFrame:
    r"""Additive segment statistics per file and label.

    Time is cut into segments :math:`[k r, (k + 1) r)`
    of :math:`r` = ``time_resolution`` seconds.
    An event activates every segment it overlaps with positive length,
    i.e. segments :math:`\lfloor s / r \rfloor`
    to :math:`\lceil e / r \rceil - 1`
    (integer nanoseconds, exact; events of zero length activate nothing).
    A segment is active for a label if any event of that label touches it.
    Per file :math:`f` and label :math:`c`:

    .. math::

        \text{tp}_{fc} = \#\{k: \text{truth and prediction active}\},\quad
        \text{fp}_{fc} = \#\{k: \text{prediction only}\},\quad
        \text{fn}_{fc} = \#\{k: \text{truth only}\},\quad
        \text{tn}_{fc} = K_f - \text{tp} - \text{fp} - \text{fn}

    The overall error rate needs substitutions per segment,
    :math:`S(k) = \min(\text{FN}(k), \text{FP}(k))` over labels,
    so the column ``substitutions`` holds :math:`S_f = \sum_k S(k)`
    of file :math:`f` in the row of its first label and 0 in the others:
    only its sums over labels (per file or overall) are meaningful.
    Deletions and insertions follow as
    :math:`D_f = \sum_c \text{fn}_{fc} - S_f`,
    :math:`I_f = \sum_c \text{fp}_{fc} - S_f`.

    Number of segments :math:`K_f = \lceil d_f / r \rceil`
    with the duration :math:`d_f` from ``files_duration``,
    else the latest end in truth or prediction of the file (sed_eval's rule).
    Events (parts) beyond :math:`K_f` segments are left out, as in sed_eval.
    Files are the union of files in truth, prediction and ``files_duration``
    (SPEC section 1): a file without events is evaluated,
    all true negatives (:math:`K_f` per label).
    A batch of a larger evaluation passes the durations of its own files only.

    Tables of disjoint sets of whole files add up
    (``pd.concat`` and ``groupby(level=["file", "label"]).sum()``, or ``add``);
    every ``segment_*`` metric accepts such a table in place of ``truth``
    (with ``prediction=None``) and gives identical results.

    The computation never materialises segments:
    event ranges are merged and intersected as integer intervals
    and the per-segment label counts come from a sweep
    over the range boundaries,
    so the cost does not grow with duration / ``time_resolution``.

    Args:
        truth: ground truth, audformat segmented index
            (or filewise index, one label for the whole file,
            which needs ``files_duration``)
        prediction: predicted labels, same format
        labels: labels to evaluate, in order;
            rows with other labels are left out.
            ``None``: categories, else the sorted union of labels
        time_resolution: segment length in seconds or as ``pd.Timedelta``
            (1.0 as DCASE, 0.01 as MIREX);
            ``None``: exact continuous time,
            the table then holds durations (``timedelta64[ns]`` columns)
        files_duration: mapping or Series from file to duration
            (timedelta or seconds), the evaluated length per file;
            also resolves ``end=NaT``
        compat: ``"sed_eval"`` bins as sed_eval 0.2.1 does,
            in float64 seconds:
            :math:`\lfloor (s / 10^9) / r \rfloor`,
            :math:`\lceil (e / 10^9) / r \rceil`
            and :math:`K_f = \lceil (d_f / 10^9) / r \rceil`
            with :math:`s, e, d_f` in ns
            (this equals sed_eval's input for times written with up to 9 decimals,
            if the index holds them exactly: ``pd.to_timedelta(3.513388, unit="s")``
            truncates to 3.513387999 s),
            so ``0.3 / 0.1`` falls into segment 2, not 3,
            and a zero-length event off the grid activates one segment.
            ``None`` (default): exact integer binning
        gap_label: a class for the unannotated time, MIREX2018_eval's final code
            (``"-"``): in truth and in prediction the time of a file
            (:math:`[0, d_f)`) that no event covers gets this label,
            a row of its own per file (it must not be a label of the inputs);
            ``None``: no such class

    Returns:
        DataFrame indexed by ``(file, label)`` with int64 columns
        ``tp``, ``fp``, ``fn``, ``tn``, ``substitutions``
        (segment counts, or ``timedelta64[ns]`` durations
        for ``time_resolution=None``)

    Raises:
        ValueError, TypeError: invalid inputs or options

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["speech", "music"],
        ...     index=audformat.segmented_index(["f", "f"], [0, 1.5], [2.0, 3.0]),
        ... )
        >>> prediction = pd.Series(
        ...     ["speech"],
        ...     index=audformat.segmented_index(["f"], [0.5], [3.0]),
        ... )
        >>> segment_statistics(truth, prediction)
                     tp  fp  fn  tn  substitutions
        file label
        f    music    0   0   2   1              1
             speech   2   1   0   0              0

    """


def _direct_counts(truth, prediction, labels, options) -> tuple[_Counts, Inputs]:
    """Counts of Series through the gate (what :func:`segment_statistics` tabulates)."""
    inputs = check_inputs(
        truth,
        prediction,
        labels=labels,
        files_duration=options.files_duration,
        require_end=True,
        allow_filewise=True,
    )
    if options.files_duration is not None:
        _warn_unknown_durations(inputs)
    if options.gap_label is not None:
        inputs = fill_gaps(inputs, options.gap_label)
        if inputs.occurs is not None:  # the gap class occurs wherever a file has unannotated time
            inputs = dataclasses.replace(inputs, occurs=np.append(inputs.occurs, True))
    return _counts_from_inputs(inputs, *resolution(options), options.compat), inputs


def _warn_unknown_durations(inputs: Inputs) -> None:
    """Files given no duration fall back to their latest end: say so, naming them (issue 18).

    A key that matches no file (``"a.wav"`` for the file ``"a"``) adds a file of true negatives
    and leaves the file it meant at its latest end.
    """
    unknown = inputs.durations == NAT
    if unknown.any():
        shown = [str(f) for f in inputs.files[unknown][:5]]
        more = " ..." if unknown.sum() > 5 else ""
        warn(
            f"files_duration is not known for {int(unknown.sum())} of {inputs.n_files} files "
            f"({', '.join(shown)}{more}): their evaluated length is the latest end "
            "in truth or prediction (sed_eval's rule). "
            "The keys of files_duration must be the file ids of truth and prediction."
        )



def fill_true_negatives(storage: dict, present: np.ndarray, shape: tuple[int, int]) -> None:
    """Sum rule of segment tables: a row missing from a shard is all true negatives.

    Every row of a file has the same ``tp + fp + fn + tn``
    (its number of segments or its duration),
    and a label that a shard did not know was inactive in truth and prediction.
    The per-file ``substitutions`` stay in the row of the file's first label.
    """
    n_files, n_labels = shape
    if "substitutions" in storage and n_labels:
        per_file = storage["substitutions"].reshape(n_files, n_labels).sum(axis=1)
        storage["substitutions"][:] = 0
        storage["substitutions"].reshape(n_files, n_labels)[:, 0] = per_file
    if present.all():
        return
    total = sum(storage[c] for c in ("tp", "fp", "fn", "tn")).reshape(n_files, n_labels)
    per_file = np.where(present.reshape(n_files, n_labels), total, 0).max(axis=1)
    missing = ~present
    storage["tn"][missing] = np.repeat(per_file, n_labels)[missing]
