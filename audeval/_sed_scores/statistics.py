"""The score family's additive table: deltas per ``(file, label, threshold)``.

Layout (long, one row per change point)::

    index  file, label (categorical), threshold (float64, descending per (file, label))
    tp, fp            int64 deltas: change of the count when the threshold
                      falls from the next higher change point to ``threshold``
                      (detection: score >= threshold)
    ct_<label>        int64 deltas of cross triggers on another label (cttc_threshold given)
    n_truth           int64 truth events of the label in the file   } only on the
    truth_duration    int64 ns of those events                      } row threshold=+inf,
    duration          int64 ns of the file (every label's row)      } 0 elsewhere

Every ``(file, label)`` has its ``+inf`` row, so files without events keep their rows.
Tables of disjoint sets of whole files add up by concatenation
(``pd.concat`` or :func:`audeval.sum_statistics`, which adds equal index rows).
A metric sums the rows of a label over files and thresholds
and takes the cumulative sum from the highest threshold down:
the statistics of "score >= threshold" at every change point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses
import inspect

import numpy as np
import pandas as pd

from audeval._core.protocol import stamp
from audeval._sed_scores import deltas as _deltas
from audeval._sed_scores.inputs import ScoreInputs, check_scores
from audeval._sed_scores.collar import collar_deltas
from audeval._sed_scores.intersection import curve_budget, intersection_deltas
from audeval._sed_scores.items import clip_items, item_deltas, segment_items
from audeval._sed_scores.medfilt import frame_hops, iter_variants
from audeval._sed_scores.medfilt_floor import Below
from audeval._sed_scores.options import SCORE
from audeval._sed_scores.operating import (
    operating_point_counts,
    operating_point_deltas,
    operating_point_inputs,
)
from audeval._core.tables import label_index

TOTALS = ("n_truth", "truth_duration", "duration", "n_items")


normalise = SCORE.normalise
"""Given statistics options (any subset) as the table records them."""


def _statistics(truth, scores, labels, options) -> pd.DataFrame:
    """:func:`score_statistics` of a checked options object."""
    return compute_statistics(truth, scores, labels, SCORE.record(options), options.files_duration)


@SCORE.statistics(_statistics)
def score_statistics(
    truth: pd.Series,
    scores: pd.DataFrame,
    labels: Sequence[object] | None = None,
    *,
    criterion: str = "intersection",
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    cttc_threshold: float | None = None,
    onset_tolerance: float | pd.Timedelta = 0.2,
    offset_tolerance: float | pd.Timedelta = 0.2,
    duration_tolerance: float = 0.2,
    segment_length: float | pd.Timedelta = 1.0,
    median_filter_lengths: Sequence[float] | None = None,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""Additive statistics of a score table at every threshold.

    Every distinct score is a threshold;
    at threshold :math:`\theta` the detections of a class
    are the maximal runs of frames with score :math:`\ge \theta`.
    ``criterion="intersection"`` counts per threshold
    the truth events detected (``tp``, GTC:
    :math:`|g \cap \bigcup d| \ge \rho_{gtc} |g|` over relevant detections),
    the detections that are not relevant (``fp``, DTC:
    :math:`\sum_g |d \cap g| < \rho_{dtc} |d|`)
    and, if ``cttc_threshold`` is given, the cross triggers of those
    on every other label (``ct_<label>``, CTTC).
    ``criterion="collar"`` counts detections matched one-to-one (maximum matching)
    to truth events with onsets within ``onset_tolerance``
    and offsets within :math:`\max(` ``offset_tolerance``, ``duration_tolerance`` :math:`|g|)`
    (``tp``) and the other detections (``fp``).
    ``criterion="segment"`` counts segments of ``segment_length``
    whose largest frame score is :math:`\ge \theta`
    and that a truth event of the label overlaps (``tp``) or not (``fp``);
    ``criterion="clip"`` does the same with whole files;
    their tables have ``n_items`` (segments or clips) and ``n_truth`` (positive items).
    The table holds the *changes* of these counts per
    ``(file, label, threshold)``, the change points of Ebbers et al. (ICASSP 2022);
    summed over files and accumulated from the highest threshold down
    they give the counts at every threshold.
    Every ``(file, label)`` has a first row at ``threshold=inf`` with the totals
    ``n_truth``, ``truth_duration`` and ``duration`` (ns), the other rows hold 0 there;
    tables of disjoint files add up (:func:`audeval.sum_statistics`).
    The cost is linear in frames, truth events and the overlapping pairs
    (relevant detection, truth event).

    Args:
        truth: truth events (audformat segmented index);
            events of one class must not overlap
        scores: score table, segmented index of consecutive frames per file,
            one column per class;
            or operating points, a mapping threshold -> detection Series
            (psds_eval's input; ``criterion="intersection"``)
        labels: classes to evaluate (columns of ``scores``), in order;
            ``None``: all columns of ``scores``, for operating points the sorted union
            of truth and detection labels (``compat="psds_eval"``: the truth's)
        criterion: ``"intersection"``, ``"collar"``, ``"segment"`` or ``"clip"``
        dtc_threshold: detection tolerance criterion :math:`\rho_{dtc}`
        gtc_threshold: ground truth intersection criterion :math:`\rho_{gtc}`
        cttc_threshold: cross-trigger tolerance criterion; ``None``: no cross triggers
        onset_tolerance: onset collar in seconds (``criterion="collar"``)
        offset_tolerance: smallest offset collar in seconds (``criterion="collar"``)
        duration_tolerance: offset collar as a share of the truth event's length
            (``criterion="collar"``)
        segment_length: segment length in seconds (``criterion="segment"``)
        median_filter_lengths: median filter lengths in seconds
            (``criterion="intersection"``, for :func:`audeval.pipsds`):
            the statistics of the scores filtered with each length
            (:func:`audeval.median_filter`), columns ``tp@<j>``, ``fp@<j>``
            (and ``ct_<label>@<j>``) for the ``j``-th length, on the union of their thresholds;
            ``None``: the scores as they are
        files_duration: duration per file (else the end of its last frame)
        compat: ``"sed_scores_eval"`` compares intersections
            in seconds rounded to 6 decimals, as sed_scores_eval does;
            ``"psds_eval"`` (operating points) compares sums of float ratios
            :math:`\sum_g |d \cap g| / |d|` in float64 seconds, as psds_eval does
            (on the seconds as written in the files of
            :func:`audeval.read_operating_points`, else ``ns / 1e9``),
            and without ``labels`` evaluates the truth's classes only
            (detections of other classes are left out);
            ``None``: exact integer nanoseconds

    Returns:
        long table indexed by ``(file, label, threshold)``

    Raises:
        TypeError, ValueError: on invalid input or options

    Examples:
        >>> import audformat
        >>> from audeval import score_statistics
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1]}, index=index)
        >>> score_statistics(truth, scores)[["tp", "fp", "n_truth"]].reset_index()
          file label  threshold  tp  fp  n_truth
        0    f     a        inf   0   0        1
        1    f     a        0.6   1   0        0
        2    f     a        0.3  -1   1        0

    """


def curve_statistics(truth, scores, labels, options: Mapping, *, max_efpr: float) -> pd.DataFrame:
    """The table of :func:`score_statistics` (``options``: its keyword arguments)
    with only the thresholds a PSD-ROC cut at ``max_efpr`` can use (:func:`compute_statistics`)."""
    parameters = inspect.signature(score_statistics).parameters.values()
    defaults = {p.name: p.default for p in parameters if p.kind is p.KEYWORD_ONLY}
    given = {**defaults, **options}
    files_duration = given.pop("files_duration")
    return compute_statistics(truth, scores, labels, normalise(given), files_duration, max_efpr=max_efpr)


def compute_statistics(
    truth, scores, labels, options: dict, files_duration, *, max_efpr: float | None = None
) -> pd.DataFrame:
    """:func:`score_statistics` with normalised ``options``.

    ``max_efpr`` (a PSD-ROC's, ``criterion="intersection"`` on a score table):
    the table keeps per label only the thresholds at and above the floor below which
    eFPR exceeds ``max_efpr`` (module :mod:`audeval._sed_scores.prune`);
    a PSD-ROC made from it is the same.
    """
    if isinstance(scores, pd.Series) and len(scores) == 0:  # no scores at all (no files)
        scores = pd.DataFrame(index=scores.index, columns=list(labels or []), dtype=np.float64)
    if not isinstance(scores, pd.DataFrame) and isinstance(scores, Mapping):
        if options.get("median_filter_lengths") is not None:
            raise ValueError("median_filter_lengths applies to score tables, not to operating points.")
        table = _operating_points(truth, scores, labels, files_duration, options)
        return stamp(table, "score", {**_recorded(options), "labels": _given(labels)})
    if options["compat"] == "psds_eval":
        raise ValueError("compat='psds_eval' applies to operating points, not to score tables.")
    inputs = check_scores(truth, scores, labels, files_duration=files_duration)
    if options.get("median_filter_lengths") is not None:
        table = filtered_statistics(inputs, scores, options, max_efpr)
    elif options["criterion"] == "intersection":
        decimals = 6 if options["compat"] == "sed_scores_eval" else None
        group, rank, levels, columns = intersection_deltas(
            inputs, dtc=options["dtc_threshold"], gtc=options["gtc_threshold"],
            cttc=options["cttc_threshold"], decimals=decimals, max_efpr=max_efpr,
        )
        table = _frame(inputs, group, rank, levels, columns, _totals(inputs))
    elif options["criterion"] == "collar":
        decimals = 6 if options["compat"] == "sed_scores_eval" else None
        group, rank, levels, columns = collar_deltas(
            inputs, onset=options["onset_tolerance"], offset=options["offset_tolerance"],
            rate=options["duration_tolerance"], decimals=decimals,
        )
        table = _frame(inputs, group, rank, levels, columns, _totals(inputs))
    else:
        if options["criterion"] == "segment":
            items = segment_items(inputs, options["segment_length"])
        else:
            items = clip_items(inputs)
        group, rank, levels, columns, totals = item_deltas(inputs, items)
        table = _frame(inputs, group, rank, levels, columns, totals)
    recorded = {**_recorded(options), "labels": _given(labels)}
    return stamp(table, "score", recorded)


def _given(labels) -> list | None:
    return None if labels is None else list(labels)


def _operating_points(truth, operating_points, labels, files_duration, options) -> pd.DataFrame:
    """The score table of operating points (module :mod:`audeval._sed_scores.operating`)."""
    if options["criterion"] != "intersection":
        raise ValueError(
            "operating points are evaluated with criterion='intersection' only; "
            f"got criterion={options['criterion']!r}."
        )
    inputs, thresholds, detections = operating_point_inputs(
        truth, operating_points, labels, files_duration,
        float_ratios=options["compat"] == "psds_eval",
    )
    counts = operating_point_counts(
        inputs, detections, len(thresholds), dtc=options["dtc_threshold"],
        gtc=options["gtc_threshold"], cttc=options["cttc_threshold"],
        float_ratios=options["compat"] == "psds_eval",
    )
    group, level, columns = operating_point_deltas(counts, thresholds)
    return _frame(inputs, group, *_ranks(level), columns, _totals(inputs))


def _ranks(level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    levels, rank = np.unique(level, return_inverse=True)
    return rank.ravel().astype(np.int64), levels


def _recorded(options: dict) -> dict:
    """The options a table of this criterion depends on (others recorded as None)."""
    out = dict(options)
    if out["criterion"] != "intersection":
        out.update(dtc_threshold=None, gtc_threshold=None, cttc_threshold=None)
    if out["criterion"] != "segment":
        out["segment_length"] = None
    if out["criterion"] != "collar":
        out.update(onset_tolerance=None, offset_tolerance=None, duration_tolerance=None)
    if out["criterion"] == "clip":
        out["compat"] = None
    return out


def filtered_statistics(inputs: ScoreInputs, scores: pd.DataFrame, options: dict, max_efpr) -> pd.DataFrame:
    """The intersection statistics of the scores median filtered with each length, one table.

    Each length's deltas keep their own columns (``tp@<j>``, ``fp@<j>``, ``ct_<label>@<j>``);
    rows are the union of the lengths' ``(file, label, threshold)`` change points
    (0 where a length has no change there), so the table adds up over files as any score table.
    """
    if options["criterion"] != "intersection":
        raise ValueError(
            "median_filter_lengths applies to criterion='intersection' (piPSDS); "
            f"got criterion={options['criterion']!r}."
        )
    hop = frame_hops(
        inputs.frame_file, inputs.frame_start, inputs.frame_end, inputs.files,
        lambda bad: f"{int(bad.sum())} frame(s) differ from the first of their file",
    )
    decimals = 6 if options["compat"] == "sed_scores_eval" else None
    parts = []
    variants = [
        np.full(inputs.n_labels, int(round(seconds * 1e9)), dtype=np.int64)
        for seconds in options["median_filter_lengths"]
    ]
    shared: dict = {}  # the frames and truth are the same for every length
    # one length at a time, each written into the same array (the deltas keep no view of it)
    filtered_scores = iter_variants(
        inputs.scores, inputs.frame_file, hop, variants, compat=options["compat"],
        below=_below(inputs, options["dtc_threshold"], decimals, max_efpr),
    )
    for j, (values, pruned) in enumerate(filtered_scores):
        filtered = dataclasses.replace(inputs, scores=values)
        group, rank, levels, columns = intersection_deltas(
            filtered, dtc=options["dtc_threshold"], gtc=options["gtc_threshold"],
            cttc=options["cttc_threshold"], decimals=decimals, max_efpr=max_efpr, shared=shared,
            pruned=pruned,
        )
        named = {
            (name if isinstance(name, str) else f"ct_{inputs.labels[name[1]]}") + f"@{j}": values
            for name, values in columns.items()
        }
        parts.append((group, levels[rank] if len(rank) else np.zeros(0), named))
    levels, rank = np.unique(np.concatenate([p[1] for p in parts]), return_inverse=True)
    group = np.concatenate([p[0] for p in parts]).astype(np.int64)
    out_group, out_rank, inverse = _deltas.level_keys(group, rank.ravel(), len(levels))
    bounds = np.cumsum([0] + [len(p[0]) for p in parts])
    columns = {}
    for j, (_, _, named) in enumerate(parts):
        rows = inverse[bounds[j] : bounds[j + 1]]
        for name in sorted(named, key=lambda n: (not n.startswith("tp@"), not n.startswith("fp@"), n)):
            columns[name] = _deltas.sum_into(rows, named[name], len(out_group))
    return _frame(inputs, out_group, out_rank, levels, columns, _totals(inputs))


def _below(inputs: ScoreInputs, dtc: float, decimals, max_efpr) -> Below | None:
    """What a PSD-ROC cut at ``max_efpr`` leaves out (:mod:`audeval._sed_scores.medfilt_floor`)."""
    if max_efpr is None:
        return None
    budget = curve_budget(inputs, dtc, decimals, max_efpr)
    if budget is None:
        return None
    present = np.zeros((inputs.n_labels, inputs.n_files), dtype=bool)
    keep = inputs.truth_end > inputs.truth_start
    present[inputs.truth_label[keep], inputs.truth_file[keep]] = True
    return Below(~present, budget)


def _totals(inputs: ScoreInputs) -> dict[str, np.ndarray]:
    n_groups = inputs.n_labels * inputs.n_files
    group = inputs.truth_label * inputs.n_files + inputs.truth_file
    n_truth = np.bincount(group, minlength=n_groups).astype(np.int64)
    length = inputs.truth_end - inputs.truth_start
    truth_duration = np.zeros(n_groups, dtype=np.int64)
    np.add.at(truth_duration, group, length)
    duration = np.tile(inputs.durations, inputs.n_labels)
    return {"n_truth": n_truth, "truth_duration": truth_duration, "duration": duration}



def _frame(inputs: ScoreInputs, group, rank, levels, columns: dict, totals: dict) -> pd.DataFrame:
    """The table: rows ``(group, levels[rank])`` sorted by group, level descending,
    plus one ``+inf`` row per group with the totals, ordered by file, label, threshold descending
    (placed by counting, no sort)."""
    n_groups = inputs.n_labels * inputs.n_files
    if "tp" in columns:
        names = ["tp", "fp"] + [k for k in columns if isinstance(k, tuple)]
    else:  # median filtered: every length's columns, named
        names = list(columns)
    changed = np.zeros(len(group), dtype=bool)
    for name in names:
        changed |= columns[name] != 0
    group, rank = group[changed], rank[changed]
    size = np.bincount(group, minlength=n_groups) + 1
    file_major = (np.arange(n_groups) % inputs.n_files) * inputs.n_labels + np.arange(n_groups) // inputs.n_files
    order = np.argsort(file_major, kind="stable")
    first = np.empty(n_groups, dtype=np.int64)
    first[order] = np.cumsum(size[order]) - size[order]
    start_of = np.cumsum(size - 1) - (size - 1)  # first row of each group among the rows
    position = first[group] + 1 + (np.arange(len(group)) - start_of[group])
    total = n_groups + len(group)
    row_group = np.empty(total, dtype=np.int64)
    row_group[first] = np.arange(n_groups)
    row_group[position] = group
    code = np.empty(total, dtype=np.int64)
    code[first] = len(levels)
    code[position] = rank
    titles = [name if isinstance(name, str) else f"ct_{inputs.labels[name[1]]}" for name in names]
    titles += [name for name in TOTALS if name in totals]
    block = np.zeros((len(titles), total), dtype=np.int64)  # one pandas block, no copy
    for i, name in enumerate(names):
        block[i, position] = columns[name][changed]
    for i, name in enumerate([name for name in TOTALS if name in totals], start=len(names)):
        block[i, first] = totals[name]
    index = pd.MultiIndex(
        levels=[
            pd.Index(inputs.files, name="file"),
            label_index(inputs.labels),
            pd.Index(np.append(np.asarray(levels, dtype=np.float64), np.inf), name="threshold"),
        ],
        codes=[row_group % inputs.n_files, row_group // inputs.n_files, code],
        names=["file", "label", "threshold"],
        verify_integrity=False,
    )
    return pd.DataFrame(block.T, index=index, columns=titles, copy=False)


@dataclasses.dataclass(frozen=True)
class Accumulated:
    """Counts per label at every change point, thresholds descending.

    ``offsets[i]:offsets[i + 1]`` are the rows of label ``labels[i]``;
    its first row is ``threshold = +inf`` (nothing detected).
    """

    labels: list
    offsets: np.ndarray
    threshold: np.ndarray
    counts: dict[str, np.ndarray]
    totals: dict[str, np.ndarray]  # per label

    def rows(self, i: int) -> slice:
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))


def _threshold_ranks(index: pd.MultiIndex) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct thresholds and each row's rank (the index's codes when they are sorted)."""
    position = list(index.names).index("threshold")
    if isinstance(index, pd.MultiIndex):
        levels = index.levels[position]
        codes = np.asarray(index.codes[position], dtype=np.int64)
        if levels.is_monotonic_increasing and levels.is_unique and (codes >= 0).all():
            return np.asarray(levels, dtype=np.float64), codes
    values = np.asarray(index.get_level_values("threshold"), dtype=np.float64)
    levels, rank = np.unique(values, return_inverse=True)
    return levels, rank.ravel().astype(np.int64)


def label_codes(index: pd.MultiIndex) -> tuple[list, np.ndarray]:
    """The labels of a table's ``label`` level (categories in order, else first seen)
    and each row's position among them."""
    level = index.get_level_values("label")
    if isinstance(level.dtype, pd.CategoricalDtype):
        return list(level.categories), np.asarray(level.codes, dtype=np.int64)
    codes, uniques = pd.factorize(level)
    return list(uniques), np.asarray(codes, dtype=np.int64)


def accumulate(table: pd.DataFrame) -> Accumulated:
    """Sum a score table over files and accumulate it from the highest threshold down."""
    index = table.index
    labels, label = label_codes(index)
    count_columns = [c for c in table.columns if c not in TOTALS]
    block = np.ascontiguousarray(table.to_numpy(dtype=np.int64).T)  # (one conversion, no column taken out)
    values = dict(zip(table.columns, block))
    totals = {
        c: np.bincount(label, weights=values[c], minlength=len(labels)) if len(label)
        else np.zeros(len(labels)) for c in TOTALS if c in values
    }
    levels, rank = _threshold_ranks(index)
    n_levels = max(len(levels), 1)
    n_cells = len(labels) * n_levels
    if n_cells <= 16 * len(rank) + 2**20:  # counting sort: dense (label, level) grid
        key = label * n_levels + (n_levels - 1 - rank)
        used = np.zeros(n_cells, dtype=bool)
        used[key] = True
        cells = np.flatnonzero(used)
        group, out_rank = cells // n_levels, n_levels - 1 - cells % n_levels
        position = np.cumsum(used, dtype=np.int32 if n_cells < 2**31 else np.int64)
        del used
        inverse = position[key].astype(np.int64) - 1
        del position, key
    else:
        group, out_rank, inverse = _deltas.level_keys(label, rank, n_levels)
    summed = {c: _deltas.sum_into(inverse, values[c], len(group)) for c in count_columns}
    level_values = levels[out_rank] if len(levels) else np.zeros(0)
    counts = {c: np.zeros(len(group), dtype=np.int64) for c in count_columns}
    first = np.ones(len(group), dtype=bool)
    first[1:] = group[1:] != group[:-1]
    start = np.flatnonzero(first)
    for c in count_columns:
        total = np.cumsum(summed[c])
        base = np.repeat(total[start] - summed[c][start], np.diff(np.append(start, len(group))))
        counts[c] = total - base
    offsets = np.searchsorted(group, np.arange(len(labels) + 1))
    return Accumulated(labels, offsets, level_values, counts, totals)


STATISTICS_OPTIONS = SCORE.table_options
"""Options of :func:`score_statistics` that its table records."""
