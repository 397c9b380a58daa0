r"""Speaker-change detection: boundary precision/recall and segmentation purity/coverage.

The numbers of ``pyannote.metrics.segmentation`` from an additive table per file:

* boundaries of a side are the ends of its distinct segments, sorted by (start, end),
  except the last; a truth and a predicted boundary at most ``tolerance`` apart match,
  closest pairs first (ties: first truth, then first predicted boundary);
  precision = matches / predicted boundaries, recall = matches / truth boundaries;
* purity and coverage compare two partitions of the truth's speech:
  the truth, each label's gaps shorter than ``gap_tolerance`` filled,
  cut at all its boundaries, and the prediction cut at all of its boundaries,
  both cropped to the (filled) truth speech; with :math:`K_{ij}` the overlap of truth piece
  :math:`i` and predicted piece :math:`j`,
  coverage :math:`= \sum_i \max_j K_{ij} / \sum_{ij} K_{ij}`,
  purity :math:`= \sum_j \max_i K_{ij} / \sum_{ij} K_{ij}`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from audeval._core.intervals import group_sum, merge, shared_keys, window_join
from audeval._core.sweep import cut
from audeval._core.protocol import stamp
from audeval._core.ratios import fscore

from audeval._diarization import options as opt
from audeval._diarization.options import SPEAKER_CHANGE
from audeval._core.matching.assignment import greedy_assignment
from audeval._diarization.cluster import _ratio
from audeval._diarization.region import _join_disjoint


def _distinct_segments(n, file, start, end):
    """Distinct segments of positive length, sorted by (file, start, end)."""
    keep = end > start
    file, start, end = file[keep], start[keep], end[keep]
    (start_key,) = shared_keys(n, (file, start))
    by_end = np.argsort(end, kind="stable")  # two stable sorts: by (start key, end)
    order = by_end[np.argsort(start_key[by_end], kind="stable")]
    file, start, end = file[order], start[order], end[order]
    new = np.ones(len(file), dtype=bool)  # no rows (an empty side): nothing to index
    new[1:] = (file[1:] != file[:-1]) | (start[1:] != start[:-1]) | (end[1:] != end[:-1])
    return file[new], start[new], end[new]


def _boundaries(n, file, start, end):
    """Ends of the distinct segments but the last of each file, and their rank in the file."""
    file, _, end = _distinct_segments(n, file, start, end)
    last = np.r_[file[1:] != file[:-1], True] if len(file) else np.zeros(0, bool)
    keep = ~last
    rank = np.arange(len(file)) - np.searchsorted(file, file)
    return file[keep], end[keep], rank[keep]


def _matches(n, truth, prediction, tolerance: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy matches per file: closest pairs first."""
    t_file, t_time, t_rank = _boundaries(n, *truth)
    p_file, p_time, p_rank = _boundaries(n, *prediction)
    query, item = window_join(n, p_file, p_time, t_file, t_time - tolerance, t_time + tolerance)
    distance = np.abs(t_time[query] - p_time[item])
    chosen = greedy_assignment(t_file[query], t_rank[query], p_rank[item], -distance)
    return (
        group_sum(t_file[query][chosen], np.ones(int(chosen.sum()), np.int64), n),
        np.bincount(t_file, minlength=n),
        np.bincount(p_file, minlength=n),
    )


def _pieces(n, file, start, end):
    """Consecutive distinct boundaries (starts and ends) of each file as intervals (the engine's pieces)."""
    pieces = cut(n, file, start, end)
    return pieces.file, pieces.start, pieces.end


def _filled(n, truth_labels, file, start, end, gap: int):
    """Merged intervals of each (file, label) with gaps shorter than ``gap`` filled."""
    width = max(int(truth_labels.max(initial=0)) + 1, 1)
    key, start, end = merge(n * width, file * width + truth_labels, start, end)
    if len(key) > 1 and gap > 0:
        join = (key[1:] == key[:-1]) & (start[1:] - end[:-1] < gap)
        first = np.flatnonzero(np.r_[True, ~join])
        key, start, end = key[first], start[first], np.maximum.reduceat(end, first)
    return key // width, start, end


def _purity_coverage(n, truth, truth_labels, prediction, gap: int):
    filled = _filled(n, truth_labels, *truth, gap)  # type: ignore[call-arg]  # truth: (file, start, end)
    coverage = merge(n, *filled)
    ref = _pieces(n, *filled)
    i, _ = _join_disjoint(n, *ref, *coverage)  # type: ignore[call-arg]  # two (file, start, end) triples
    inside = np.zeros(len(ref[0]), dtype=bool)
    inside[i] = True
    ref = tuple(a[inside] for a in ref)  # pieces inside the speech
    p_file, p_start, p_end = _distinct_segments(n, *prediction)
    hyp = _pieces(n, p_file, p_start, p_end)
    i, j = _join_disjoint(n, *hyp, *coverage)  # type: ignore[call-arg]  # two (file, start, end) triples
    hyp = (hyp[0][i], np.maximum(hyp[1][i], coverage[1][j]), np.minimum(hyp[2][i], coverage[2][j]))
    i, j = _join_disjoint(n, *hyp, *ref)  # i: predicted piece, j: truth piece
    k = np.minimum(hyp[2][i], ref[2][j]) - np.maximum(hyp[1][i], ref[1][j])

    def best(piece, pieces):
        largest = np.zeros(len(pieces[0]), dtype=np.int64)
        np.maximum.at(largest, piece, k)
        return group_sum(pieces[0], largest, n)

    return best(j, ref), best(i, hyp), group_sum(ref[0][j], k, n)


def _statistics(truth, prediction, options) -> pd.DataFrame:
    """:func:`speaker_change_statistics` of a checked options object."""
    opt.series_only(truth, SPEAKER_CHANGE)
    inputs, _, _ = opt.check_diarization_inputs(truth, prediction, files_duration=None)
    n = inputs.n_files
    t, p = inputs.truth, inputs.prediction
    truth_rows, prediction_rows = (t.file, t.start, t.end), (p.file, p.start, p.end)
    matches, n_truth, n_prediction = _matches(n, truth_rows, prediction_rows, options.tolerance)
    coverage, purity, intersection = _purity_coverage(
        n, truth_rows, t.label, prediction_rows, options.gap_tolerance
    )
    table = pd.DataFrame(
        {
            "matches": matches,
            "truth_boundaries": n_truth.astype(np.int64),
            "prediction_boundaries": n_prediction.astype(np.int64),
            "coverage": coverage,
            "purity": purity,
            "intersection": intersection,
        },
        index=pd.Index(inputs.files, name="file"),
    )
    return stamp(table, "speaker_change", SPEAKER_CHANGE.record(options))


def _table(metric, truth, prediction, options) -> pd.DataFrame:
    """The family gate: a speaker-change table, computed from Series or given."""
    if isinstance(truth, pd.DataFrame) or prediction is None:
        return opt.table_given(SPEAKER_CHANGE, metric, truth, prediction, options)
    return _statistics(truth, prediction, options)


def _precision_recall(table: pd.DataFrame, options) -> tuple[float, float, float]:
    matches = table["matches"].sum()
    precision = _ratio(matches, table["prediction_boundaries"].sum())
    recall = _ratio(matches, table["truth_boundaries"].sum())
    return precision, recall, float(fscore(precision, recall, beta=options.beta))


def _purity_coverage_f(table: pd.DataFrame, options) -> tuple[float, float, float]:
    total = table["intersection"].sum()
    purity = _ratio(table["purity"].sum(), total)
    coverage = _ratio(table["coverage"].sum(), total)
    return purity, coverage, float(fscore(purity, coverage, beta=options.beta))


@SPEAKER_CHANGE.statistics(_statistics)
def speaker_change_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    tolerance: float | pd.Timedelta = 0.0,
    gap_tolerance: float | pd.Timedelta = 0.5,
) -> pd.DataFrame:
    r"""Additive counts and durations of speaker-change detection per file.

    See :func:`speaker_change_precision_recall` and :func:`speaker_change_purity_coverage`
    for the definitions (pyannote.metrics.segmentation).
    Rows are used as they are: no scored region, no collar.

    Args:
        truth: ground truth Series with a segmented index (e.g. speakers)
        prediction: predicted Series (its labels are not used)
        tolerance: largest distance (seconds or timedelta) of matching boundaries
            (``SegmentationPrecision(tolerance=...)``, default 0)
        gap_tolerance: gaps within a truth label shorter than this are filled
            before purity and coverage (``SegmentationPurity(tolerance=...)``, default 0.5 s)

    Returns:
        DataFrame indexed by ``file`` with int64 columns ``matches``,
        ``truth_boundaries``, ``prediction_boundaries`` (counts),
        ``coverage``, ``purity``, ``intersection`` (ns: the numerators and the
        denominator of coverage and purity); tables of disjoint sets of files add up

    Examples:
        >>> import audformat
        >>> from audeval import speaker_change_statistics
        >>> truth = pd.Series(
        ...     ["A", "B", "A"], index=audformat.segmented_index(["f"] * 3, [0, 1, 2], [1, 2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [0, 1, 0, 1], index=audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        ... )
        >>> speaker_change_statistics(truth, prediction)[["matches", "truth_boundaries", "prediction_boundaries"]]
              matches  truth_boundaries  prediction_boundaries
        file
        f           2                 2                      3

    """


@SPEAKER_CHANGE.metric(_precision_recall, gate=_table)
def speaker_change_precision_recall(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    tolerance: float | pd.Timedelta = 0.0,
    gap_tolerance: float | pd.Timedelta = 0.5,
    beta: float = 1.0,
) -> tuple[float, float, float]:
    r"""Speaker-change (boundary) precision, recall and F-score, summed over files.

    Boundaries of a side are the ends of its distinct segments sorted by (start, end),
    except the last of each file.
    Truth and predicted boundaries at most ``tolerance`` apart match one-to-one,
    the closest pairs first (ties: first truth, then first predicted boundary):

    .. math::

        P = \frac{\sum_f \text{matches}_f}{\sum_f \text{predicted boundaries}_f}, \quad
        R = \frac{\sum_f \text{matches}_f}{\sum_f \text{truth boundaries}_f},

    1 where there are no boundaries.
    Same as pyannote.metrics' ``SegmentationPrecision`` and ``SegmentationRecall``
    (whose distances are float seconds; audeval's are exact ns).

    Args:
        truth: ground truth Series, or a table from :func:`speaker_change_statistics`
        prediction: predicted Series (``None`` with a table)
        tolerance: largest distance of matching boundaries (seconds or timedelta)
        gap_tolerance: an option of :func:`speaker_change_statistics` that this metric
            does not use (accepted so that one set of options serves the family;
            checked against a given table)
        beta: weight of recall in the F-score (positive; else ``ValueError``)

    Returns:
        precision, recall, F-score

    Examples:
        >>> import audformat
        >>> from audeval import speaker_change_precision_recall
        >>> truth = pd.Series(
        ...     ["A", "B", "A"], index=audformat.segmented_index(["f"] * 3, [0, 1, 2], [1, 2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [0, 1, 0, 1], index=audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        ... )
        >>> speaker_change_precision_recall(truth, prediction)
        (0.6666666666666666, 1.0, 0.8)

    """


@SPEAKER_CHANGE.metric(_purity_coverage_f, gate=_table)
def speaker_change_purity_coverage(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    *,
    tolerance: float | pd.Timedelta = 0.0,
    gap_tolerance: float | pd.Timedelta = 0.5,
    beta: float = 1.0,
) -> tuple[float, float, float]:
    r"""Segmentation purity, coverage and their F-score, summed over files.

    The truth speech (each label's gaps shorter than ``gap_tolerance`` filled)
    is cut at every truth boundary and, separately, at every predicted boundary;
    with :math:`K_{ij}` the overlap of truth piece :math:`i` and predicted piece :math:`j`
    (both inside the truth speech),

    .. math::

        \text{coverage} = \frac{\sum_i \max_j K_{ij}}{\sum_{ij} K_{ij}}, \quad
        \text{purity} = \frac{\sum_j \max_i K_{ij}}{\sum_{ij} K_{ij}},

    summed over files (1 if there is no overlap at all).
    Same as pyannote.metrics' ``SegmentationPurity``, ``SegmentationCoverage``
    and ``SegmentationPurityCoverageFMeasure`` (``tolerance`` there).

    Args:
        truth: ground truth Series, or a table from :func:`speaker_change_statistics`
        prediction: predicted Series (``None`` with a table)
        tolerance: an option of :func:`speaker_change_statistics` that this metric
            does not use (accepted so that one set of options serves the family;
            checked against a given table)
        gap_tolerance: gaps within a truth label shorter than this are filled
        beta: weight of coverage in the F-score (positive; else ``ValueError``)

    Returns:
        purity, coverage, F-score

    Examples:
        >>> import audformat
        >>> from audeval import speaker_change_purity_coverage
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f"] * 2, [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [0, 1], index=audformat.segmented_index(["f"] * 2, [0, 3], [3, 4])
        ... )
        >>> speaker_change_purity_coverage(truth, prediction)
        (0.75, 0.75, 0.75)

    """
