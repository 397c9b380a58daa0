r"""Cluster metrics of dscore on speaker sets: B-cubed, Goodman-Kruskal tau, entropies, MI.

dscore labels every instant by the *set* of active speakers (silence is the empty set)
on each side and compares the two labellings through their contingency table.
Here the table is exact in continuous time: per file, the time during which truth set
:math:`r` and predicted set :math:`h` are active together (``frame_size=None``),
or, with ``frame_size``, the number of frames as dscore's ``turns_to_frames`` makes them
(frame :math:`i` at time :math:`i \cdot \text{step}` in float64 belongs to a turn
``[onset, offset)``), found by moving every boundary to its first frame: no frame arrays.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core import sweep as _pieces
from audeval._core.intervals import expand_ranges, group_sum, merge
from audeval._core.protocol import stamp
from audeval._core.validation import NS_PER_SECOND

from audeval._diarization import options as opt
from audeval._diarization.options import SPEAKER_SET
from audeval._diarization.region import _crop, _merge_labels, _scored_region, check_uem, with_uem


MAX_SPEAKERS = 62
_EMPTY = np.zeros(0, dtype=np.int64)


def _first_frame(times_ns: np.ndarray, step: float) -> np.ndarray:
    """First frame ``i`` with ``step * i >= t`` in float64 (``np.searchsorted`` on dscore's times)."""
    seconds = times_ns / NS_PER_SECOND
    i = np.ceil(seconds / step).astype(np.int64)
    for _ in range(3):  # float rounding: move to the exact first frame
        i = np.where((i > 0) & (step * (i - 1) >= seconds), i - 1, i)
        i = np.where(step * i < seconds, i + 1, i)
    return i


def _to_frames(n, region, truth, prediction, step: float):
    """Region and label intervals as frame index intervals (dscore's rule)."""
    r_file, r_start, r_end = region
    _, last = np.zeros(n, np.int64), np.zeros(n, np.int64)
    np.maximum.at(last, r_file, r_end)
    # dscore: n_frames = int(max offset / step)
    n_frames = (last / NS_PER_SECOND / step).astype(np.int64)

    def frames(file, start, end):
        a = np.minimum(_first_frame(start, step), n_frames[file])
        b = np.minimum(_first_frame(end, step), n_frames[file])
        return a, b

    r_a, r_b = frames(r_file, r_start, r_end)
    region = merge(n, r_file, r_a, r_b)
    sides = []
    for file, label, start, end in (truth, prediction):
        a, b = frames(file, start, end)
        sides.append(_merge_labels_frames(n, file, label, a, b))
    return region, sides[0], sides[1]


def _merge_labels_frames(n, file, label, start, end):
    width = int(label.max(initial=0)) + 1
    key, start, end = merge(n * width, file * width + label, start, end)
    return key // width, key % width, start, end


def _dense(*keys) -> np.ndarray:
    """Dense ids of the distinct tuples of ``keys`` (ids in lexicographic order)."""
    if len(keys[0]) == 0:
        return _EMPTY
    order = np.lexsort(keys[::-1])
    change = np.zeros(len(order), dtype=bool)
    change[0] = True
    for key in keys:
        k = key[order]
        change[1:] |= k[1:] != k[:-1]
    ids = np.empty(len(order), dtype=np.int64)
    ids[order] = np.cumsum(change) - 1
    return ids


def _ranks(file, label) -> np.ndarray:
    """Rank of each (file, label) among the labels of its file (label order)."""
    if len(file) == 0:
        return _EMPTY
    width = int(label.max()) + 1
    unique, inverse = np.unique(file * width + label, return_inverse=True)
    ufile = unique // width
    rank = np.arange(len(unique)) - np.searchsorted(ufile, ufile)
    if rank.max(initial=0) >= MAX_SPEAKERS:
        raise ValueError(
            f"a file has more than {MAX_SPEAKERS} labels on one side; "
            "speaker-set metrics support at most that many per file."
        )
    return rank[inverse.ravel()]


def _set_sweep(n, region, truth, prediction):
    """Per file the duration of every (truth set, predicted set) pair inside the region.

    The piece engine (:mod:`audeval._core.sweep`) cuts every file at all region, truth
    and prediction boundaries; the set of a side on a piece is the bit mask of the ranks
    (within the file) of its active labels.
    """
    r_file, r_start, r_end = region
    t_file, t_label, t_start, t_end = truth
    p_file, p_label, p_start, p_end = prediction
    n_r, n_t = len(r_file), len(t_file)
    pieces = _pieces.cut(
        n, np.r_[r_file, t_file, p_file], np.r_[r_start, t_start, p_start], np.r_[r_end, t_end, p_end]
    )
    n_seg = len(pieces)
    masks = []
    sides = (((t_file, t_label), slice(n_r, n_r + n_t)), ((p_file, p_label), slice(n_r + n_t, None)))
    for (file, label), part in sides:
        interval, seg = expand_ranges(pieces.first[part], pieces.stop[part])
        mask = np.zeros(n_seg, dtype=np.int64)
        np.bitwise_or.at(mask, seg, np.left_shift(1, _ranks(file, label)[interval]))
        masks.append(mask)
    seg = np.flatnonzero(_pieces.coverage(n_seg, pieces.first[:n_r], pieces.stop[:n_r]) > 0)
    keys = (pieces.file[seg], masks[0][seg], masks[1][seg])
    ids = _dense(*keys)
    n_ids = int(ids.max()) + 1 if len(ids) else 0
    first = np.zeros(n_ids, dtype=np.int64)
    first[ids] = np.arange(len(ids))
    duration = group_sum(ids, pieces.duration[seg], n_ids)
    return keys[0][first], keys[1][first], keys[2][first], duration


def _statistics(truth, prediction, options) -> pd.DataFrame:
    """:func:`speaker_set_statistics` of a checked options object."""
    opt.series_only(truth, SPEAKER_SET)
    uem = check_uem(options.uem)
    inputs, _, _ = opt.check_diarization_inputs(truth, prediction, files_duration=options.files_duration)
    inputs, uem_arrays = with_uem(inputs, uem)
    n = inputs.n_files
    width = max(len(inputs.labels), 1)
    region = _scored_region(inputs, _merge_labels(inputs.truth, n, width), 0, False, uem=uem_arrays)
    truth_m = _crop(n, width, _merge_labels(inputs.truth, n, width), region)
    prediction_m = _crop(n, width, _merge_labels(inputs.prediction, n, width), region)
    region = region.intervals  # type: ignore[assignment]  # the region's (file, start, end) from here on
    if options.frame_size is not None:
        step = options.frame_size / NS_PER_SECOND
        region, truth_m, prediction_m = _to_frames(n, region, truth_m, prediction_m, step)
    file, t_set, p_set, duration = _set_sweep(n, region, truth_m, prediction_m)
    index = pd.MultiIndex(
        levels=[pd.Index(inputs.files, name="file"), pd.Index(np.unique(t_set)), pd.Index(np.unique(p_set))],
        codes=[file, np.searchsorted(np.unique(t_set), t_set), np.searchsorted(np.unique(p_set), p_set)],
        names=["file", "truth_set", "prediction_set"],
    )
    table = pd.DataFrame({"duration": duration.astype(np.int64)}, index=index)
    return stamp(table, "speaker_set", SPEAKER_SET.record(options))


def _table(metric, truth, prediction, options) -> pd.DataFrame:
    """The family gate: a speaker-set table, computed from Series or given (rows summed)."""
    if isinstance(truth, pd.DataFrame) or prediction is None:
        table = opt.table_given(SPEAKER_SET, metric, truth, prediction, options)
        if not table.index.is_unique:
            table = table.groupby(level=[0, 1, 2], sort=False).sum()
        return table
    return _statistics(truth, prediction, options)


@SPEAKER_SET.statistics(_statistics)
def speaker_set_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    frame_size: float | pd.Timedelta | None = None,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> pd.DataFrame:
    r"""Contingency of truth and predicted speaker sets per file (dscore's clustering input).

    Every instant of the scored region (``uem``, else ``[0, duration]``, else the extent
    of truth and prediction; no collar) is labelled on each side by the set of active
    labels (the empty set for silence). Per file, the table holds for every pair of
    a truth set and a predicted set the time they are active together
    (``frame_size=None``, exact) or the number of frames
    (``frame_size`` in seconds: dscore's frames, ``frame_size=0.01`` as dscore's default).

    Args:
        truth: ground truth Series with a segmented index
        prediction: predicted Series (labels unrelated to the truth's)
        frame_size: ``None`` (exact, ns) or dscore's frame step in seconds
        files_duration: mapping or Series from file to duration
        uem: scored intervals per file (see :func:`read_uem`)

    Returns:
        DataFrame indexed by ``(file, truth_set, prediction_set)``
        with the int64 column ``duration`` (ns, or frames);
        a set is a bit mask over the file's labels of that side in label order
        (bit :math:`k`: the file's :math:`k`-th label; 0: silence).
        Tables of disjoint sets of files add up

    Examples:
        >>> import audformat
        >>> from audeval import speaker_set_statistics
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f", "f"], [0, 1], [2, 3])
        ... )
        >>> prediction = pd.Series([7], index=audformat.segmented_index(["f"], [0], [3]))
        >>> speaker_set_statistics(truth, prediction, files_duration={"f": 4}) / 1e9
                                     duration
        file truth_set prediction_set
        f    0         0                  1.0
             1         1                  1.0
             2         1                  1.0
             3         1                  1.0

    """


def _scores(group: np.ndarray, n: int, row: np.ndarray, col: np.ndarray, m: np.ndarray, log) -> dict:
    """dscore's metrics of the contingency rows of each group (rows/cols: class ids)."""
    total = np.bincount(group, weights=m, minlength=n)
    row_sum = np.bincount(row, weights=m)
    col_sum = np.bincount(col, weights=m)
    p = m / total[group]
    row_group = np.zeros(len(row_sum), np.int64)
    row_group[row] = group
    col_group = np.zeros(len(col_sum), np.int64)
    col_group[col] = group
    n_rows = np.bincount(row_group, minlength=n)
    n_cols = np.bincount(col_group, minlength=n)

    def per_group(values, where=group):
        return np.bincount(where, weights=values, minlength=n)

    precision = per_group(p * m / col_sum[col])
    recall = per_group(p * m / row_sum[row])
    row_p, col_p = row_sum / total[row_group], col_sum / total[col_group]
    out = {
        "bcubed_precision": precision,
        "bcubed_recall": recall,
        "bcubed_f1": 2 * precision * recall / (precision + recall),
    }
    for name, (marg, marg_group, other_classes, other_p, other_group, by) in {
        "tau_ref_sys": (row_p, row_group, n_cols, col_p, col_group, row),
        "tau_sys_ref": (col_p, col_group, n_rows, row_p, row_group, col),
    }.items():
        v = 1 - per_group(other_p**2, other_group)
        term = np.bincount(by, weights=p**2, minlength=len(marg))
        v_bar = 1 - per_group(term / marg, marg_group)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[name] = np.where(other_classes == 1, 1.0, (v - v_bar) / v)
    out["ce_ref_sys"] = per_group(p * (log(col_sum[col]) - log(m)))
    out["ce_sys_ref"] = per_group(p * (log(row_sum[row]) - log(m)))
    mi = np.maximum(per_group(p * (log(m) - log(row_sum[row] * col_sum[col]) + log(total[group]))), 0)
    h_ref = np.maximum(-per_group(row_p * log(row_p), row_group), 0)
    h_sys = np.maximum(-per_group(col_p * log(col_p), col_group), 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        nmi = np.clip(mi / np.sqrt(h_ref * h_sys), 0.0, 1.0)
    one_ref, one_sys = n_rows == 1, n_cols == 1
    out["mi"] = np.where(one_ref | one_sys, 0.0, mi)
    out["nmi"] = np.where(one_ref ^ one_sys, 0.0, np.where(one_ref & one_sys, 1.0, nmi))
    return out


def _cluster_report(table: pd.DataFrame, options) -> pd.DataFrame:
    """The report of :func:`diarization_cluster_report` from the family gate's table."""
    files = pd.Index(table.index.get_level_values("file"))
    file_codes, file_index = pd.factorize(files, sort=True)
    t_set = np.asarray(table.index.get_level_values("truth_set"), dtype=np.int64)
    p_set = np.asarray(table.index.get_level_values("prediction_set"), dtype=np.int64)
    m = table["duration"].to_numpy(dtype=np.float64)
    keep = m > 0
    file_codes, t_set, p_set, m = file_codes[keep], t_set[keep], p_set[keep], m[keep]
    row, col = _dense(file_codes, t_set), _dense(file_codes, p_set)
    log = np.log if options.nats else np.log2
    n = len(file_index)
    per_file = _scores(file_codes.astype(np.int64), n, row, col, m, log)
    overall = _scores(np.zeros(len(m), np.int64), 1, row, col, m, log)
    out = {k: np.r_[per_file[k], overall[k]] for k in per_file}
    index = pd.Index(list(file_index) + [opt.TOTAL_ROW], name="file", dtype=object)
    return pd.DataFrame(out, index=index)


@SPEAKER_SET.metric(_cluster_report, gate=_table)
def diarization_cluster_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    frame_size: float | pd.Timedelta | None = None,
    nats: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> pd.DataFrame:
    r"""dscore's clustering metrics per file and overall, from speaker sets.

    With :math:`m_{rh}` the time (or frames) truth set :math:`r` and predicted set
    :math:`h` are active together (see :func:`speaker_set_statistics`),
    :math:`N = \sum m_{rh}`, :math:`m_{r\cdot}`, :math:`m_{\cdot h}` the marginals:

    .. math::

        P_{B^3} = \sum_{rh} \frac{m_{rh}}{N} \frac{m_{rh}}{m_{\cdot h}}, \quad
        R_{B^3} = \sum_{rh} \frac{m_{rh}}{N} \frac{m_{rh}}{m_{r\cdot}}, \quad
        H(R|H) = \sum_{rh} \frac{m_{rh}}{N} \log \frac{m_{\cdot h}}{m_{rh}},

    :math:`I(R; H) = \sum_{rh} \frac{m_{rh}}{N} \log \frac{N m_{rh}}{m_{r\cdot} m_{\cdot h}}`,
    :math:`\text{NMI} = I / \sqrt{H(R) H(H)}` and Goodman-Kruskal's
    :math:`\tau(R, H) = (V_H - E[V_{H|R}]) / V_H` with the Gini variance
    :math:`V_H = 1 - \sum_h (m_{\cdot h}/N)^2` (and both directions),
    in bits (``nats=False``, dscore's default).
    dscore's special cases hold: one predicted class gives :math:`\tau(R, H) = 1`,
    one class on exactly one side gives MI = NMI = 0, on both sides MI = 0 and NMI = 1.
    The ``TOTAL`` row treats the classes of different files as different
    (dscore's block-diagonal contingency matrix).

    Args:
        truth: ground truth Series, or a table from :func:`speaker_set_statistics`
        prediction: predicted Series (``None`` with a table)
        frame_size: ``None``: exact continuous time;
            ``0.01`` reproduces dscore's 10 ms frames
        nats: natural logarithms instead of bits
        files_duration: mapping or Series from file to duration
        uem: scored intervals per file (see :func:`read_uem`)

    Returns:
        DataFrame indexed by file plus ``"TOTAL"`` with the columns
        ``bcubed_precision``, ``bcubed_recall``, ``bcubed_f1``,
        ``tau_ref_sys``, ``tau_sys_ref``, ``ce_ref_sys``, ``ce_sys_ref``, ``mi``, ``nmi``

    Examples:
        >>> import audformat
        >>> from audeval import diarization_cluster_report
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f", "f"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series([1, 2], index=audformat.segmented_index(["f", "f"], [0, 2], [2, 4]))
        >>> report = diarization_cluster_report(truth, prediction, files_duration={"f": 4})
        >>> report[["bcubed_f1", "ce_ref_sys", "mi", "nmi"]]
               bcubed_f1  ce_ref_sys   mi  nmi
        file
        f            1.0         0.0  1.0  1.0
        TOTAL        1.0         0.0  1.0  1.0

    """
