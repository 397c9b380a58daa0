r"""Segment-based metrics (SPEC section 4): sed_eval, DCASE, MIREX 2018.

Time is cut into segments of ``time_resolution`` seconds,
segment :math:`k` being :math:`[k r, (k + 1) r)`.
A segment is *active* for a label when an event of that label
overlaps it with positive length;
overlapping events of one label count once.
Per file, label and segment,
truth and prediction activity give a true positive (both active),
false positive (prediction only), false negative (truth only)
or true negative (neither).

**No frames are materialised.**
Every event becomes a range of segment indices
(:math:`\lfloor s / r \rfloor` to :math:`\lceil e / r \rceil`, exclusive,
cut at the evaluated length of its file).
Each ``(file, label)`` group owns a block of int64 keys
(``n_segments + 1`` of them, so groups never touch),
and the ranges of a group are merged with one sort of their start keys.
Two sweeps over the boundaries of the merged ranges
(each boundary packed with its kind into one int64, plain sorts,
cumulative sums of +1 / -1) give
the segments where truth and prediction are both active, per group,
and, per file, the numbers of labels active in truth and in prediction
as piecewise constant functions of the segment index,
so that the overall substitutions
:math:`\sum_k \min(N_\text{ref}(k), N_\text{sys}(k)) - \text{TP}`
are sums over runs weighted by their length.
The cost grows with the number of events,
never with duration / ``time_resolution``.
(When all keys would not fit into :math:`2^{60}`,
the same quantities come from :func:`audeval._intervals.merge`,
:func:`audeval._intervals.intersect` and a sweep over ``group_keys``.)

With ``time_resolution=None`` the same arithmetic runs on nanoseconds:
the exact continuous-time limit, statistics are durations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses
import numbers

import numpy as np
import pandas as pd

from audeval import _intervals
from audeval._scores import check_average
from audeval._scores import check_zero_division
from audeval._scores import divide
from audeval._scores import fscore
from audeval._scores import supported
from audeval._options import Default, as_timedelta, check_bool, check_choice, value_of
from audeval._protocol import Family, resolve, stamp, table_options
from audeval._report import label_report
from audeval._tables import check_statistics
from audeval._tables import label_index
from audeval._tables import labels_of
from audeval._tables import select_labels
from audeval._tables import statistics_frame
from audeval._validation import NS_PER_SECOND
from audeval._validation import Inputs
from audeval._validation import check_inputs
from audeval._validation import check_option
from audeval._validation import file_extent
from audeval._validation import to_ns


__all__ = [
    "segment_accuracy",
    "segment_error_rate",
    "segment_error_rate_per_class",
    "segment_fscore",
    "segment_fscore_per_class",
    "segment_precision_per_class",
    "segment_recall_per_class",
    "segment_report",
    "segment_statistics",
]

COLUMNS = ("tp", "fp", "fn", "tn", "substitutions")
COMPAT = (None, "sed_eval")
REPORT_COLUMNS = (
    "n_truth",
    "n_prediction",
    "tp",
    "fp",
    "fn",
    "tn",
    "precision",
    "recall",
    "fscore",
    "error_rate",
    "substitution_rate",
    "deletion_rate",
    "insertion_rate",
    "sensitivity",
    "specificity",
    "balanced_accuracy",
    "accuracy",
)


# -------------------------------------------------------------------------
# Statistics
# -------------------------------------------------------------------------


@dataclasses.dataclass
class _Counts:
    """Statistics on the dense ``(file, label)`` grid as int64 arrays.

    ``tp``, ``fp``, ``fn``, ``tn`` have shape ``(n_files, n_labels)``,
    ``substitutions`` has shape ``(n_files,)``.
    ``exact`` is True when the counts are nanoseconds (``time_resolution=None``).
    """

    files: pd.Index
    labels: list
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    substitutions: np.ndarray
    exact: bool
    keep: np.ndarray | None = None
    """Labels that count in macro averages (``None``: all)."""


def _check_resolution(time_resolution, compat) -> tuple[int | None, float | None]:
    """``time_resolution`` as int ns and as float seconds (``None`` for exact time)."""
    compat = check_option(compat, "compat", COMPAT)
    if time_resolution is None:
        if compat is not None:
            raise ValueError(
                "time_resolution=None (exact continuous time) cannot be combined "
                f"with compat={compat!r}; give the segment length in seconds."
            )
        return None, None
    r_ns = to_ns(time_resolution, "time_resolution", allow_none=False)
    if r_ns == 0:
        raise ValueError(f"time_resolution must be positive; got {time_resolution!r}.")
    if isinstance(time_resolution, numbers.Real):
        r_seconds = float(time_resolution)
    else:
        r_seconds = r_ns / NS_PER_SECOND
    return r_ns, r_seconds


def _ceil_div(a: np.ndarray, b: int) -> np.ndarray:
    return -((-a) // b)


def _to_units(
    start: np.ndarray,
    end: np.ndarray,
    r_ns: int | None,
    r_seconds: float | None,
    compat: str | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Event boundaries as segment indices (or ns for exact time)."""
    if r_ns is None:
        return start, end
    if compat == "sed_eval":
        # sed_eval: floor(onset / r) and ceil(offset / r) on float64 seconds;
        # a zero-length event off the grid activates one segment there
        a = np.floor((start / NS_PER_SECOND) / r_seconds).astype(np.int64)
        b = np.ceil((end / NS_PER_SECOND) / r_seconds).astype(np.int64)
        return a, b
    a = start // r_ns
    b = np.where(end > start, _ceil_div(end, r_ns), a)  # zero length: no segment
    return a, b


def _n_units(
    extent: np.ndarray,
    r_ns: int | None,
    r_seconds: float | None,
    compat: str | None,
) -> np.ndarray:
    """Evaluated segments per file (or ns for exact time)."""
    if r_ns is None:
        return extent
    if compat == "sed_eval":
        return np.ceil((extent / NS_PER_SECOND) / r_seconds).astype(np.int64)
    return _ceil_div(extent, r_ns)


# The keyed path packs (key, 2-bit code) into int64: total key range below this
KEY_LIMIT = 2**60
_D_REF = np.array([1, -1, 0, 0], dtype=np.int64)  # code 0/1: truth start/end
_D_SYS = np.array([0, 0, 1, -1], dtype=np.int64)  # code 2/3: prediction start/end


def _side_units(inputs: Inputs, side, n_units: np.ndarray, units) -> tuple:
    """Group, first and end (exclusive) unit of every event, cut at the evaluated length."""
    a, b = units(side.start, side.end)
    b = np.minimum(b, n_units[side.file])
    group = side.file * inputs.n_labels + side.label
    return group, a, b, side.file


def _sorted_key_sum(key: np.ndarray, values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Exact int64 sums of values (sorted by key) per key range ``[bounds[i], bounds[i + 1])``."""
    cumulative = np.concatenate([[0], np.cumsum(values, dtype=np.int64)])
    return np.diff(cumulative[np.searchsorted(key, bounds, side="left")])


def _merge_keyed(group, a, b, file, group_base, file_base):
    """Union per group of ``[a, b)`` as sorted int64 keys ``group_base[group] + unit``.

    As :func:`audeval._intervals.merge`, with keys computed directly
    (each group owns ``n_units + 1`` keys, so groups never touch)
    and one unstable argsort.
    Returns start keys, end keys and, per merged range,
    the offset that turns its keys into per-file keys ``file_base[file] + unit``.
    """
    keep = b > a
    group = group[keep]
    base = group_base[group]
    start = base + a[keep]
    end = base + b[keep]
    shift = base - file_base[file[keep]]
    if len(start) == 0:
        return start, end, shift
    order = np.argsort(start)
    start, end = start[order], end[order]
    reach = np.maximum.accumulate(end)
    new = np.ones(len(start), dtype=bool)
    new[1:] = start[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(start)) - 1
    return start[first], reach[last], shift[order[first]]


def _key_bases(n_units: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """First key of every group and of every file, each with the end key appended."""
    per_file = n_units + 1
    group_width = np.repeat(per_file, n_labels)
    group_base = np.concatenate([[0], np.cumsum(group_width)]).astype(np.int64)
    file_base = np.concatenate([[0], np.cumsum(per_file)]).astype(np.int64)
    return group_base, file_base


def _counts_keyed(inputs, truth, prediction, group_base, file_base):
    """tp, n_truth, n_prediction per group and sum of min(Nref, Nsys) per file.

    Two sweeps over the boundaries of the merged ranges,
    each boundary packed with its kind into one int64 (``key * 4 + code``)
    so that plain sorts order them.
    """
    t_start, t_end, t_shift = _merge_keyed(*truth, group_base, file_base)
    p_start, p_end, p_shift = _merge_keyed(*prediction, group_base, file_base)
    n_truth = _sorted_key_sum(t_start, t_end - t_start, group_base)
    n_prediction = _sorted_key_sum(p_start, p_end - p_start, group_base)

    def boundaries(start, end, code):
        # merged ranges are disjoint and sorted: start, end, start, ... increases
        packed = np.empty(2 * len(start), dtype=np.int64)
        packed[0::2] = start * 4 + code
        packed[1::2] = end * 4 + (code + 1)
        return packed

    t_packed = boundaries(t_start, t_end, 0)
    p_packed = boundaries(p_start, p_end, 2)

    # sweep 1, in (file, label, position) order: TP where both sides are active
    packed = np.sort(np.concatenate([t_packed, p_packed]), kind="stable")  # merges 2 runs
    code = packed & 3
    key = packed >> 2
    both = np.cumsum(_D_REF[code])[:-1] * np.cumsum(_D_SYS[code])[:-1]
    tp = _sorted_key_sum(key[:-1], both * np.diff(key), group_base)

    # sweep 2, in (file, position) order: labels active in truth and prediction
    shift = np.concatenate([np.repeat(t_shift, 2), np.repeat(p_shift, 2)])
    packed = np.sort(np.concatenate([t_packed, p_packed]) - shift * 4)
    code = packed & 3
    key = packed >> 2
    n_ref = np.cumsum(_D_REF[code])[:-1]
    n_sys = np.cumsum(_D_SYS[code])[:-1]
    # all ranges of a file are closed at its last boundary: runs across files weigh 0
    weight = np.minimum(n_ref, n_sys) * np.diff(key)
    sum_min = _sorted_key_sum(key[:-1], weight, file_base)
    return tp, n_truth, n_prediction, sum_min


def _counts_engine(inputs, truth, prediction):
    """The same with the interval engine (any range of keys)."""
    n_files, n_labels = inputs.n_files, inputs.n_labels
    n_groups = n_files * n_labels
    t = _intervals.merge(n_groups, *truth[:3])
    p = _intervals.merge(n_groups, *prediction[:3])
    both = _intervals.intersect(n_groups, t, p)
    tp = _intervals.total_length(n_groups, both)
    sum_min = _sum_min_active(n_files, n_labels, t, p)
    return tp, _intervals.total_length(n_groups, t), _intervals.total_length(n_groups, p), sum_min


def _sum_min_active(
    n_files: int,
    n_labels: int,
    truth: tuple[np.ndarray, np.ndarray, np.ndarray],
    prediction: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    r"""Per file :math:`\sum_k \min(N_\text{ref}(k), N_\text{sys}(k))`.

    ``truth`` and ``prediction`` are merged ranges per ``(file, label)`` group,
    so the number of active labels at a position is the number of ranges
    covering it.
    A sweep over all range boundaries of a file
    (sorted by position, cumulative sums of +1 / -1)
    gives both numbers between consecutive boundaries.
    """
    t_file = truth[0] // max(n_labels, 1)
    p_file = prediction[0] // max(n_labels, 1)
    file = np.concatenate([t_file, t_file, p_file, p_file])
    position = np.concatenate([truth[1], truth[2], prediction[1], prediction[2]])
    n_t, n_p = len(t_file), len(p_file)
    d_ref = np.concatenate(
        [np.ones(n_t, np.int64), -np.ones(n_t, np.int64), np.zeros(2 * n_p, np.int64)]
    )
    d_sys = np.concatenate(
        [np.zeros(2 * n_t, np.int64), np.ones(n_p, np.int64), -np.ones(n_p, np.int64)]
    )
    out = np.zeros(n_files, dtype=np.int64)
    if len(file) < 2:
        return out
    (key,) = _intervals.group_keys(n_files, (file, position))
    order = np.argsort(key, kind="stable")
    file, position = file[order], position[order]
    n_ref = np.cumsum(d_ref[order])
    n_sys = np.cumsum(d_sys[order])
    # run i lies between boundary i and boundary i + 1 of the same file;
    # all ranges of a file are closed at its last boundary, so runs never cross files
    length = np.diff(position)
    same = file[1:] == file[:-1]
    weight = np.minimum(n_ref[:-1], n_sys[:-1]) * np.where(same, length, 0)
    return _intervals.group_sum(file[:-1], weight, n_files)


def _counts_from_inputs(
    inputs: Inputs,
    time_resolution,
    compat: str | None,
) -> _Counts:
    r_ns, r_seconds = _check_resolution(time_resolution, compat)
    n_files, n_labels = inputs.n_files, inputs.n_labels
    n_units = _n_units(file_extent(inputs), r_ns, r_seconds, compat)

    def units(start, end):
        return _to_units(start, end, r_ns, r_seconds, compat)

    truth = _side_units(inputs, inputs.truth, n_units, units)
    prediction = _side_units(inputs, inputs.prediction, n_units, units)
    total_keys = float(np.sum(n_units + 1, dtype=np.float64)) * max(n_labels, 1)
    if total_keys < KEY_LIMIT:
        group_base, file_base = _key_bases(n_units, n_labels)
        tp, n_truth, n_prediction, sum_min = _counts_keyed(
            inputs, truth, prediction, group_base, file_base
        )
    else:  # more than ~36 years of units over all labels and files
        tp, n_truth, n_prediction, sum_min = _counts_engine(inputs, truth, prediction)
    fn = n_truth - tp
    fp = n_prediction - tp
    tn = np.repeat(n_units, n_labels) - tp - fp - fn
    # S(k) = min(FN(k), FP(k)) = min(Nref(k), Nsys(k)) - TP(k)
    tp_file = tp.reshape(n_files, n_labels).sum(axis=1)
    substitutions = sum_min - tp_file
    shape = (n_files, n_labels)
    return _Counts(
        inputs.files,
        list(inputs.labels),
        tp.reshape(shape),
        fp.reshape(shape),
        fn.reshape(shape),
        tn.reshape(shape),
        substitutions,
        exact=r_ns is None,
    )


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


def _counts(metric, truth, prediction, labels, call: Mapping[str, object]) -> _Counts:
    """Counts of a metric call: from Series, or from a given table (the family gate)."""
    options = {name: call[name] for name in (*OPTIONS, "files_duration") if name in call}
    table = resolve(FAMILY, truth, prediction, labels, options, metric=metric, select=select_labels)
    counts = _counts_from_table(table)
    given = labels is not None or bool(table_options(table).get("labels_given"))
    n_truth, n_prediction = (counts.tp + counts.fn).sum(axis=0), (counts.tp + counts.fp).sum(axis=0)
    keep = supported(n_truth, n_prediction, counts.labels, given)
    return dataclasses.replace(counts, keep=keep)


def segment_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
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
    Files are the union of files in truth and prediction;
    a file that appears only in ``files_duration`` is not evaluated.

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
    if isinstance(truth, pd.DataFrame):
        raise TypeError(
            "truth must be a pandas.Series; segment_statistics computes the table, "
            "the other segment_* functions accept one."
        )
    recorded = normalise({"time_resolution": time_resolution, "compat": compat})
    inputs = check_inputs(
        truth,
        prediction,
        labels=labels,
        files_duration=files_duration,
        require_end=True,
        allow_filewise=True,
    )
    counts = _counts_from_inputs(inputs, value_of(time_resolution), value_of(compat))
    recorded["labels_given"] = labels is not None
    return stamp(_counts_frame(counts, inputs), "segment", recorded)


OPTIONS = ("time_resolution", "compat")
"""Options of :func:`segment_statistics` that its table records."""


def normalise(options: Mapping[str, object]) -> dict:
    """Check the given segment options; the resolution as ``pd.Timedelta`` (what a table records)."""
    out = {}
    if "compat" in options:
        out["compat"] = check_choice(options["compat"], "compat", COMPAT)
    if "time_resolution" in options:
        r_ns, _ = _check_resolution(value_of(options["time_resolution"]), out.get("compat"))
        out["time_resolution"] = as_timedelta(r_ns)
    return out


# -------------------------------------------------------------------------
# Divide last
# -------------------------------------------------------------------------


def _rate(numerator, denominator, zero_division: float) -> np.ndarray:
    """``num / den``; 0 / 0 -> ``zero_division``, x / 0 -> inf for x > 0."""
    out = divide(numerator, denominator, zero_division)
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    return np.where((denominator == 0) & (numerator > 0), np.inf, out)


def _nanmean(values: np.ndarray) -> np.ndarray:
    """Mean over the last axis ignoring NaN; NaN when nothing is left."""
    values = np.asarray(values, dtype=np.float64)
    valid = ~np.isnan(values)
    count = valid.sum(axis=-1)
    total = np.where(valid, values, 0.0).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _scores(
    tp: np.ndarray,
    fp: np.ndarray,
    fn: np.ndarray,
    tn: np.ndarray,
    substitutions: np.ndarray,
    zero_division: float,
    propagate_nans: bool,
    keep: np.ndarray | None = None,
) -> tuple[dict, dict, dict]:
    """Class-wise, micro and macro values from counts of shape ``(..., n_labels)``.

    ``keep``: labels that count in the macro averages (``None``: all).

    ``substitutions`` has the shape of the counts without the label axis.
    """
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    substitutions = np.asarray(substitutions, dtype=np.float64)

    def block(tp, fp, fn, tn):
        n_truth, n_prediction = tp + fn, tp + fp
        precision = divide(tp, n_prediction, zero_division)
        recall = divide(tp, n_truth, zero_division)
        sensitivity = divide(tp, tp + fn, zero_division)
        specificity = divide(tn, tn + fp, zero_division)
        return {
            "n_truth": n_truth,
            "n_prediction": n_prediction,
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
            "precision": precision,
            "recall": recall,
            "fscore": fscore(precision, recall, propagate_nans=propagate_nans),
            "sensitivity": sensitivity,
            "specificity": specificity,
            "balanced_accuracy": (sensitivity + specificity) / 2,
            "accuracy": divide(tp + tn, tp + tn + fp + fn, zero_division),
        }

    classwise = block(tp, fp, fn, tn)
    classwise["deletion_rate"] = _rate(fn, classwise["n_truth"], zero_division)
    classwise["insertion_rate"] = _rate(fp, classwise["n_truth"], zero_division)
    classwise["error_rate"] = _rate(fn + fp, classwise["n_truth"], zero_division)
    classwise["substitution_rate"] = np.full(tp.shape, np.nan)

    micro = block(tp.sum(axis=-1), fp.sum(axis=-1), fn.sum(axis=-1), tn.sum(axis=-1))
    deletions = micro["fn"] - substitutions
    insertions = micro["fp"] - substitutions
    n = micro["n_truth"]
    micro["substitution_rate"] = _rate(substitutions, n, zero_division)
    micro["deletion_rate"] = _rate(deletions, n, zero_division)
    micro["insertion_rate"] = _rate(insertions, n, zero_division)
    micro["error_rate"] = _rate(substitutions + deletions + insertions, n, zero_division)

    macro = {
        name: _nanmean(values if keep is None else values[..., keep])
        for name, values in classwise.items()
    }
    for name in ("n_truth", "n_prediction", "tp", "fp", "fn", "tn"):
        macro[name] = np.full(macro[name].shape, np.nan)
    return classwise, micro, macro


def _overall(counts: _Counts, zero_division, propagate_nans) -> tuple[dict, dict, dict]:
    return _scores(
        counts.tp.sum(axis=0),
        counts.fp.sum(axis=0),
        counts.fn.sum(axis=0),
        counts.tn.sum(axis=0),
        counts.substitutions.sum(),
        zero_division,
        propagate_nans,
        counts.keep,
    )


def _per_class(counts: _Counts, name: str, zero_division, propagate_nans=False) -> pd.Series:
    classwise, _, _ = _overall(counts, zero_division, propagate_nans)
    return pd.Series(classwise[name], index=label_index(counts.labels), name=name)


_ARGS_DOC = """truth: ground truth Series (audformat segmented or filewise index),
            or a statistics table from :func:`segment_statistics`
            (then ``prediction=None``; ``time_resolution`` and ``compat`` are ignored)
        prediction: predicted Series, or ``None`` with a statistics table
        labels: labels to evaluate, in order; rows with other labels are left out
        time_resolution: segment length in seconds (or ``pd.Timedelta``);
            ``None``: exact continuous time (durations)
        files_duration: mapping or Series from file to duration, the evaluated length;
            default: the latest end in truth or prediction per file
        compat: ``"sed_eval"`` reproduces sed_eval's float64 binning,
            see :func:`segment_statistics`"""


def segment_precision_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
    zero_division: float = 0.0,
) -> pd.Series:
    r"""Segment-based precision per label.

    .. math::

        P_c = \frac{\text{tp}_c}{\text{tp}_c + \text{fp}_c}

    summed over files;
    ``zero_division`` where the label has no predicted segment
    (sed_eval gives NaN there: ``zero_division=np.nan``).

    Args:
        {args}
        zero_division: value of an undefined precision

    Returns:
        precision per label

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 1], [2, 3])
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 0], [4, 3])
        ... )
        >>> segment_precision_per_class(truth, prediction).round(2).to_dict()
        {'a': 0.5, 'b': 0.67}

    """
    zero_division = check_zero_division(zero_division)
    counts = _counts(segment_precision_per_class, truth, prediction, labels, locals())
    return _per_class(counts, "precision", zero_division)


def segment_recall_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
    zero_division: float = 0.0,
) -> pd.Series:
    r"""Segment-based recall per label.

    .. math::

        R_c = \frac{\text{tp}_c}{\text{tp}_c + \text{fn}_c}

    summed over files;
    ``zero_division`` where the label has no truth segment
    (sed_eval gives NaN there: ``zero_division=np.nan``).

    Args:
        {args}
        zero_division: value of an undefined recall

    Returns:
        recall per label

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 1], [2, 3])
        ... )
        >>> prediction = pd.Series(
        ...     ["a"], index=audformat.segmented_index(["f"], [1.5], [4])
        ... )
        >>> segment_recall_per_class(truth, prediction).round(2).to_dict()
        {'a': 0.5, 'b': 0.0}

    """
    zero_division = check_zero_division(zero_division)
    counts = _counts(segment_recall_per_class, truth, prediction, labels, locals())
    return _per_class(counts, "recall", zero_division)


def segment_fscore_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
    zero_division: float = 0.0,
    propagate_nans: bool = False,
) -> pd.Series:
    r"""Segment-based F-score per label (DCASE class-wise F1).

    .. math::

        F_c = \frac{2 P_c R_c}{P_c + R_c}

    from precision and recall after ``zero_division`` replaced undefined values;
    0 where :math:`P_c R_c = 0`;
    with ``propagate_nans=True`` NaN where :math:`P_c` or :math:`R_c` is NaN.
    sed_eval's values: ``zero_division=np.nan, propagate_nans=True``.

    Args:
        {args}
        zero_division: value of an undefined precision or recall
        propagate_nans: NaN F-score where precision or recall is NaN

    Returns:
        F-score per label

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 1], [2, 3])
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 0], [4, 3])
        ... )
        >>> segment_fscore_per_class(truth, prediction).round(2).to_dict()
        {'a': 0.67, 'b': 0.8}

    """
    zero_division = check_zero_division(zero_division)
    propagate_nans = check_bool(propagate_nans, "propagate_nans")
    counts = _counts(segment_fscore_per_class, truth, prediction, labels, locals())
    return _per_class(counts, "fscore", zero_division, propagate_nans)


def segment_fscore(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
    average: str = "micro",
    zero_division: float = 0.0,
    propagate_nans: bool = False,
) -> float:
    r"""Segment-based F-score over all labels.

    ``average="micro"`` (DCASE's overall F1):
    precision and recall of the counts summed over labels and files,

    .. math::

        P = \frac{\sum_c \text{tp}_c}{\sum_c (\text{tp}_c + \text{fp}_c)},\quad
        R = \frac{\sum_c \text{tp}_c}{\sum_c (\text{tp}_c + \text{fn}_c)},\quad
        F = \frac{2PR}{P + R}

    ``average="macro"``: the mean of :func:`segment_fscore_per_class`
    over labels, NaN ignored (sed_eval's class-wise average).

    Args:
        {args}
        average: ``"micro"`` or ``"macro"``
        zero_division: value of an undefined precision or recall
        propagate_nans: NaN F-score where precision or recall is NaN

    Returns:
        F-score

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 1], [2, 3])
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 0], [4, 3])
        ... )
        >>> round(segment_fscore(truth, prediction), 4)
        0.7273
        >>> round(segment_fscore(truth, prediction, average="macro"), 4)
        0.7333

    """
    average = check_average(average)
    zero_division = check_zero_division(zero_division)
    propagate_nans = check_bool(propagate_nans, "propagate_nans")
    counts = _counts(segment_fscore, truth, prediction, labels, locals())
    _, micro, macro = _overall(counts, zero_division, propagate_nans)
    return float((micro if average == "micro" else macro)["fscore"])


def segment_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
    zero_division: float = 0.0,
) -> float:
    r"""Segment-based error rate (DCASE's overall ER).

    In every segment :math:`k`, with :math:`\text{FN}(k)` and :math:`\text{FP}(k)`
    the numbers of labels missed and inserted there:

    .. math::

        S(k) = \min(\text{FN}(k), \text{FP}(k)),\quad
        D(k) = \max(0, \text{FN}(k) - \text{FP}(k)),\quad
        I(k) = \max(0, \text{FP}(k) - \text{FN}(k))

    .. math::

        \text{ER} = \frac{\sum_k S(k) + \sum_k D(k) + \sum_k I(k)}{\sum_k N(k)}

    with :math:`N(k)` the number of labels active in the truth.
    With no active truth segment:
    ``zero_division`` if there is no error either, else ``inf``
    (sed_eval divides by :math:`N + \epsilon` and gives a huge finite number).
    The rates :math:`S/N`, :math:`D/N`, :math:`I/N` are in :func:`segment_report`.

    Args:
        {args}
        zero_division: value of 0 / 0

    Returns:
        error rate

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["b", "a"], index=audformat.segmented_index(["f", "f"], [0, 3], [1, 5])
        ... )
        >>> round(segment_error_rate(truth, prediction), 4)
        1.25

    """
    zero_division = check_zero_division(zero_division)
    counts = _counts(segment_error_rate, truth, prediction, labels, locals())
    _, micro, _ = _overall(counts, zero_division, False)
    return float(micro["error_rate"])


def segment_error_rate_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
    zero_division: float = 0.0,
) -> pd.Series:
    r"""Segment-based error rate per label (sed_eval's class-wise ER).

    .. math::

        \text{ER}_c = \frac{\text{fn}_c + \text{fp}_c}{\text{tp}_c + \text{fn}_c}

    (deletions plus insertions of the label over its truth segments;
    there are no substitutions within one label).
    With no truth segment of the label:
    ``zero_division`` without false positives, else ``inf``
    (sed_eval: a huge finite number, it divides by :math:`N_c + \epsilon`).

    Args:
        {args}
        zero_division: value of 0 / 0

    Returns:
        error rate per label

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["b", "a"], index=audformat.segmented_index(["f", "f"], [0, 3], [1, 5])
        ... )
        >>> segment_error_rate_per_class(truth, prediction).round(2).to_dict()
        {'a': 2.0, 'b': 1.5}

    """
    zero_division = check_zero_division(zero_division)
    counts = _counts(segment_error_rate_per_class, truth, prediction, labels, locals())
    return _per_class(counts, "error_rate", zero_division)


def segment_accuracy(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
    zero_division: float = 0.0,
) -> float:
    r"""Segment-based accuracy (MIREX 2018, sed_eval overall accuracy).

    .. math::

        \text{Acc} = \frac{\sum_c (\text{tp}_c + \text{tn}_c)}
                          {\sum_c (\text{tp}_c + \text{tn}_c + \text{fp}_c + \text{fn}_c)}

    summed over labels, segments and files:
    the share of (segment, label) decisions that are right.
    MIREX 2018 music/speech detection evaluates it at ``time_resolution=0.01``.
    ``zero_division`` when nothing is evaluated (sed_eval: 0).

    Args:
        {args}
        zero_division: value of 0 / 0

    Returns:
        accuracy

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["music", "speech"],
        ...     index=audformat.segmented_index(["f", "f"], [0, 0.5], [0.5, 1.0]),
        ... )
        >>> prediction = pd.Series(
        ...     ["music"], index=audformat.segmented_index(["f"], [0], [0.6])
        ... )
        >>> round(segment_accuracy(truth, prediction, time_resolution=0.01), 4)
        0.7

    """
    zero_division = check_zero_division(zero_division)
    counts = _counts(segment_accuracy, truth, prediction, labels, locals())
    _, micro, _ = _overall(counts, zero_division, False)
    return float(micro["accuracy"])


def segment_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
    zero_division: float = 0.0,
    propagate_nans: bool = False,
    per_file: bool = False,
) -> pd.DataFrame:
    r"""All segment-based metrics: one row per label, plus ``micro`` and ``macro``.

    Columns:

    * ``n_truth``, ``n_prediction``, ``tp``, ``fp``, ``fn``, ``tn``:
      segment counts (seconds for ``time_resolution=None``);
    * ``precision``, ``recall``, ``fscore``;
    * ``error_rate``, ``substitution_rate``, ``deletion_rate``, ``insertion_rate``:
      per label (sed_eval class-wise) :math:`D_c = \text{fn}_c`,
      :math:`I_c = \text{fp}_c`, no substitutions (NaN);
      in the ``micro`` row the overall rates of :func:`segment_error_rate`;
    * ``sensitivity`` :math:`\text{tp} / (\text{tp} + \text{fn})`,
      ``specificity`` :math:`\text{tn} / (\text{tn} + \text{fp})`,
      ``balanced_accuracy`` (their mean),
      ``accuracy`` :math:`(\text{tp} + \text{tn}) / (\text{tp} + \text{tn} + \text{fp} + \text{fn})`.

    The ``micro`` row computes every value from the counts summed over labels
    (sed_eval's overall metrics),
    the ``macro`` row is the mean of the label rows ignoring NaN
    (sed_eval's class-wise average); its counts are NaN.
    Zero divisions as in the single metrics:
    ``zero_division`` for 0 / 0, ``inf`` for an error rate x / 0.
    sed_eval adds :math:`\epsilon = 2^{-52}` to the denominators
    of the rates, sensitivity, specificity and accuracy;
    this changes values by less than :math:`10^{-15}`
    except where a denominator is 0
    (sed_eval: 0 for 0 / 0 and :math:`x / \epsilon` instead of ``inf``).

    Args:
        {args}
        zero_division: value of 0 / 0
        propagate_nans: NaN F-score where precision or recall is NaN
        per_file: one block of rows per file and a last block ``TOTAL``
            (the report over all files), indexed by ``(file, label)``

    Returns:
        report with index ``label`` (labels, ``"micro"``, ``"macro"``),
        or ``(file, label)`` with ``per_file=True``

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["b", "a"], index=audformat.segmented_index(["f", "f"], [1.5, 3], [3, 5])
        ... )
        >>> report = segment_report(truth, prediction)
        >>> columns = ["n_truth", "tp", "fscore", "error_rate", "accuracy"]
        >>> report[columns].round(3)  # doctest: +NORMALIZE_WHITESPACE
               n_truth   tp  fscore  error_rate  accuracy
        label
        a          2.0  0.0    0.00         2.0       0.2
        b          2.0  1.0    0.50         1.0       0.6
        micro      4.0  1.0    0.25         1.0       0.4
        macro      NaN  NaN    0.25         1.5       0.4

    """
    zero_division = check_zero_division(zero_division)
    propagate_nans = check_bool(propagate_nans, "propagate_nans")
    per_file = check_bool(per_file, "per_file")
    counts = _counts(segment_report, truth, prediction, labels, locals())
    scale = 1.0 / NS_PER_SECOND if counts.exact else 1.0
    overall = _scaled(_overall(counts, zero_division, propagate_nans), scale)
    blocks = None
    if per_file:
        values = _scores(
            counts.tp, counts.fp, counts.fn, counts.tn, counts.substitutions,
            zero_division, propagate_nans, counts.keep,
        )
        blocks = (list(counts.files), *_scaled(values, scale))
    return label_report(counts.labels, REPORT_COLUMNS, overall, blocks)


def _scaled(values: tuple[dict, dict, dict], scale: float) -> tuple[dict, dict, dict]:
    """Count columns in seconds (exact mode: ``scale`` = 1e-9), rates as they are."""
    if scale == 1.0:
        return values
    return tuple(
        {k: v * scale if k in ("n_truth", "n_prediction", "tp", "fp", "fn", "tn") else v for k, v in d.items()}
        for d in values
    )


for _function in (
    segment_precision_per_class,
    segment_recall_per_class,
    segment_fscore_per_class,
    segment_fscore,
    segment_error_rate,
    segment_error_rate_per_class,
    segment_accuracy,
    segment_report,
):
    _function.__doc__ = _function.__doc__.replace("{args}", _ARGS_DOC)
del _function


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


FAMILY = Family(
    name="segment",
    statistics=segment_statistics,
    index=("file", "label"),
    options=OPTIONS,
    metrics=(
        segment_precision_per_class,
        segment_recall_per_class,
        segment_fscore_per_class,
        segment_fscore,
        segment_error_rate,
        segment_error_rate_per_class,
        segment_accuracy,
        segment_report,
    ),
    cross_label=(segment_error_rate, segment_report),
    report=segment_report,
    columns=COLUMNS,
    fill_missing=fill_true_negatives,
    normalise=normalise,
)
"""The segment family's one declaration (read by the registry)."""
