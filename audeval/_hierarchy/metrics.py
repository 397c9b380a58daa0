r"""Public hierarchy metrics: T-measure, L-measure, their report, statistics and family."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

import numpy as np
import pandas as pd

from audeval._hierarchy import statistics as _statistics
from audeval._hierarchy import reductions
from audeval._hierarchy.options import HIERARCHY
from audeval._hierarchy.options import OPTIONS
from audeval._hierarchy.options import normalise
from audeval._hierarchy.options import settings
from audeval._core.docs import fill
from audeval._core.protocol import Family
from audeval._core.protocol import stamp

Hierarchy: TypeAlias = pd.DataFrame | Mapping | pd.Series

#: mir_eval.hierarchy.evaluate keys and the column names of hierarchy_report
MIR_EVAL_COLUMNS = {
    "T-Precision reduced": "t_precision_reduced",
    "T-Recall reduced": "t_recall_reduced",
    "T-Measure reduced": "t_measure_reduced",
    "T-Precision full": "t_precision_full",
    "T-Recall full": "t_recall_full",
    "T-Measure full": "t_measure_full",
    "L-Precision": "l_precision",
    "L-Recall": "l_recall",
    "L-Measure": "l_measure",
}

_EXAMPLE = """
        >>> import audformat
        >>> index = audformat.segmented_index(["a"] * 4, [0, 10, 20, 30], [10, 20, 30, 40])
        >>> truth = pd.DataFrame(
        ...     {"coarse": ["A", "A", "B", "B"], "fine": ["a", "b", "c", "d"]}, index=index
        ... )
        >>> prediction = pd.DataFrame(
        ...     {"coarse": ["x", "x", "x", "y"], "fine": ["p", "q", "r", "s"]}, index=index
        ... )"""


def _statistics_of(truth, prediction, options) -> pd.DataFrame:
    """:func:`hierarchy_statistics` of a checked options object."""
    table = _statistics.statistics_table(truth, prediction, settings(options), options.files_duration)
    return stamp(table, "hierarchy", HIERARCHY.record(options))


def _gate(which: frozenset):
    """The gate of a metric of the measures ``which`` (``"t"``, ``"l"``)."""

    def gate(metric, truth, prediction, options) -> pd.DataFrame:
        table = _statistics.gate(metric, truth, prediction, options, which)
        if "t" in which:
            _check_defined(table)
        return table

    return gate


def _measure(measure: str | None = None):
    """The reduction of a T- or L-measure: the means over files of precision, recall, F
    (``None``: the T-measure, reduced or full as ``transitive`` says)."""

    def reduce(table, options) -> tuple[float, float, float]:
        name = measure or ("t_full" if options.transitive else "t_reduced")
        return tuple(_statistics.mean(v) for v in _statistics.values(table, name, options.beta))  # type: ignore[return-value]  # values() yields precision, recall, F

    return reduce


def _check_defined(table: pd.DataFrame) -> None:
    """A table of an older audeval holds no T-measure with ``frame_size=None`` and a window."""
    if table.get("t_full_recall_queries") is not None and table["t_full_recall_queries"].isna().any():
        raise ValueError(
            "the statistics table holds no T-measure (made by an older audeval with frame_size=None "
            "and a window): compute it again with hierarchy_statistics."
        )


def _report(table: pd.DataFrame, options) -> pd.DataFrame:
    columns: dict[str, np.ndarray] = {}
    for measure, names in (
        ("t_reduced", ("t_precision_reduced", "t_recall_reduced", "t_measure_reduced")),
        ("t_full", ("t_precision_full", "t_recall_full", "t_measure_full")),
        ("l", ("l_precision", "l_recall", "l_measure")),
    ):
        for name, values in zip(names, _statistics.values(table, measure, options.beta)):
            columns[name] = values
    return pd.DataFrame(columns, index=pd.Index(table.index, name="file"))


@HIERARCHY.statistics(_statistics_of)
@fill(example=_EXAMPLE)
def hierarchy_statistics(
    truth: Hierarchy,
    prediction: Hierarchy,
    *,
    frame_size: float | pd.Timedelta | None = 0.1,
    window: float | pd.Timedelta | None = 15.0,
    monotonic: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""Per-file statistics of the hierarchy metrics.

    One row per file (index ``file``):
    ``duration`` (the track end :math:`T`) and, for every measure
    ``t_reduced``, ``t_full``, ``l`` and direction ``precision``, ``recall``,
    ``<measure>_<direction>_score``: the sum over counted queries :math:`q`
    of :math:`1 - I_q / N_q` (inversions over ranked pairs, see
    :func:`hierarchy_tmeasure`), each query weighted by its length
    (1 per frame, its duration in ns with ``frame_size=None``),
    and ``<measure>_<direction>_queries``: the counted queries
    (frames, or ns), so that a file's value is ``score / queries``
    (0 where no query counts, as mir_eval).
    Every hierarchy metric takes the table in place of ``truth``
    (``prediction=None``) and gives the direct call's number:
    the mean over rows of the per-file values.
    With ``frame_size=None`` the T-measure sums are integrals over the query point,
    with or without a window (see :func:`hierarchy_tmeasure`).

    Each hierarchy is checked as ``mir_eval.hierarchy`` does:
    levels of a file that end at different times raise;
    a boundary of a level that is not one of every finer level
    warns (:class:`~audeval._hierarchy.InconsistentHierarchyWarning`).

    Args:
        truth: true hierarchy: a DataFrame on the segmented index
            with one label column per level (coarse to fine;
            adjacent rows with equal labels are one segment of that level),
            a mapping ``level -> Series`` (every row a segment), or a Series
        prediction: predicted hierarchy, in one of those forms
        frame_size: frame hop in seconds or as timedelta;
            ``None``: exact in continuous time
        window: T-measure window in seconds, ``None``: the whole track
        monotonic: two units meet at level ``l`` only if they also meet
            at every coarser level (mir_eval issue 409);
            ``False``: the deepest level at which they meet (mir_eval 0.8.2)
        {files_duration}
        compat: ``"mir_eval"`` to reproduce ``mir_eval.hierarchy`` 0.8.2

    Returns:
        statistics table, one row per file

    Examples:
        {example}
        >>> table = hierarchy_statistics(truth, prediction)
        >>> table[["l_recall_score", "l_recall_queries"]]
              l_recall_score  l_recall_queries
        file
        a              280.0               400
        >>> hierarchy_lmeasure(table, None) == hierarchy_lmeasure(truth, prediction)
        True

    """


@HIERARCHY.metric(_measure(), gate=_gate(frozenset({"t"})))
@fill(example=_EXAMPLE)
def hierarchy_tmeasure(
    truth: Hierarchy | pd.DataFrame,
    prediction: Hierarchy | None,
    *,
    window: float | pd.Timedelta | None = 15.0,
    transitive: bool = False,
    frame_size: float | pd.Timedelta | None = 0.1,
    beta: float = 1.0,
    monotonic: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> tuple[float, float, float]:
    r"""T-measure: agreement of the segment trees of two hierarchies (McFee et al. 2015).

    For a query unit :math:`q` and another unit :math:`j` of its file,
    :math:`m_t(q, j)` is the deepest level at which they lie in one segment
    of the truth (0: none), :math:`m_p` the same for the prediction.
    Recall counts, among the units within ``window`` of :math:`q`,
    the pairs :math:`(i, j)` with :math:`m_t(q, i) < m_t(q, j)`
    (``transitive=True``; else only :math:`m_t(q, j) = m_t(q, i) + 1`),
    :math:`N_q` of them, and the inversions :math:`I_q` among them,
    :math:`m_p(q, i) \ge m_p(q, j)`:

    .. math::

        R = \operatorname{mean}_{q:\, N_q > 0} \left(1 - \frac{I_q}{N_q}\right),
        \quad P = R \text{ with the sides swapped}, \quad
        F_\beta = \frac{(1 + \beta^2) P R}{\beta^2 P + R}

    and 0 where no query has a pair.
    Counted from interval lengths per query (the units of each meet level around
    :math:`q` form one interval): no frame pairs.
    ``compat="mir_eval"`` equals ``mir_eval.hierarchy.tmeasure`` after
    ``evaluate``'s alignment: the frame index ``int((t - t mod f) / f)``,
    the window ``int((w - w mod f) / f)`` frames, the query frame left out,
    ``__T_MIN``/``__T_MAX`` pads, interior gaps in no segment.
    By default the track of a file is ``[0, T)`` (``T`` the latest true end),
    each gap is a segment of its level, frame ``k`` lies at ``k * frame_size``,
    and the query frame counts among its own results,
    so that frames sum what ``frame_size=None`` integrates.

    ``frame_size=None`` is exact in continuous time: every point :math:`q` of the track
    is a query, weighted by its length, and the values are integrals over :math:`q`.
    Without a window the counts are constant between boundaries (a sum over pieces;
    frames on a grid that holds every boundary give the same values).
    With a window :math:`[q - w, q + w)` they are linear in :math:`q` between the points
    where a window edge meets a boundary, and the query's score, a ratio of quadratics there,
    is integrated to double precision (adaptive Gauss-Legendre):
    the limit of finer and finer frames, whose values approach it
    in proportion to the frame size (frames are a Riemann sum of the same score).

    Args:
        truth: true hierarchy (see :func:`hierarchy_statistics`),
            or a table of :func:`hierarchy_statistics`
        prediction: predicted hierarchy; ``None`` with a table
        window: window in seconds around each query; ``None``: the whole track
        transitive: compare all pairs of meet levels (full),
            else adjacent levels only (reduced)
        frame_size: frame hop in seconds or as timedelta;
            ``None``: exact in continuous time (with any window)
        {beta}
        monotonic: meets count only on unbroken paths from the top level
        {files_duration}
        compat: ``"mir_eval"`` to reproduce ``mir_eval.hierarchy`` 0.8.2

    Returns:
        precision, recall, F-measure: means over files (0.0 without files)

    Examples:
        {example}
        >>> [round(v, 4) for v in hierarchy_tmeasure(truth, prediction)]
        [0.8277, 0.7213, 0.7708]
        >>> [round(v, 4) for v in hierarchy_tmeasure(truth, prediction, transitive=True)]
        [0.9115, 0.816, 0.8611]

        Exact in continuous time, over the whole track and within 15 s
        (frames of 0.1 s: 0.8277, 0.7213, 0.7708 above):

        >>> [round(v, 4) for v in hierarchy_tmeasure(truth, prediction, frame_size=None, window=None)]
        [0.6667, 0.5, 0.5714]
        >>> [round(v, 4) for v in hierarchy_tmeasure(truth, prediction, frame_size=None)]
        [0.827, 0.7216, 0.7707]

    """


@HIERARCHY.metric(_measure("l"), gate=_gate(frozenset({"l"})), unused=("window",))
@fill(example=_EXAMPLE)
def hierarchy_lmeasure(
    truth: Hierarchy | pd.DataFrame,
    prediction: Hierarchy | None,
    *,
    frame_size: float | pd.Timedelta | None = 0.1,
    beta: float = 1.0,
    monotonic: bool = False,
    window: float | pd.Timedelta | None = 15.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> tuple[float, float, float]:
    r"""L-measure: agreement of the label lattices of two hierarchies (McFee et al. 2017).

    As :func:`hierarchy_tmeasure` with ``transitive=True`` and no window,
    but two units meet at a level where they have the same *label*
    (not necessarily the same segment): :math:`m_t(q, j)` is the deepest level
    at which truth labels :math:`q` and :math:`j` alike.

    .. math::

        R = \operatorname{mean}_{q:\, N_q > 0} \left(1 - \frac{I_q}{N_q}\right),
        \quad P = R \text{ with the sides swapped}, \quad
        F_\beta = \frac{(1 + \beta^2) P R}{\beta^2 P + R}

    Counted per atom (a piece of the track with one label per level on both sides)
    from label classes: no frame pairs;
    ``frame_size=None`` is exact in continuous time
    (equal to the frame values when all boundaries lie on the frame grid).
    ``compat="mir_eval"`` equals ``mir_eval.hierarchy.lmeasure``
    after ``evaluate``'s alignment (labels compared as given).

    Args:
        truth: true hierarchy (see :func:`hierarchy_statistics`),
            or a table of :func:`hierarchy_statistics`
        prediction: predicted hierarchy; ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: exact in continuous time
        {beta}
        monotonic: meets count only on unbroken paths from the top level
        window: the T-measure window of the statistics, declared unused here
            (``hierarchy_lmeasure.declared.unused``): no effect on the L-measure;
            kept in the signature; with a table, checked against the table's
        {files_duration}
        compat: ``"mir_eval"`` to reproduce ``mir_eval.hierarchy`` 0.8.2

    Returns:
        precision, recall, F-measure: means over files (0.0 without files)

    Examples:
        {example}
        >>> [round(v, 4) for v in hierarchy_lmeasure(truth, prediction)]
        [0.8, 0.7, 0.7467]
        >>> [round(v, 4) for v in hierarchy_lmeasure(truth, prediction, frame_size=None)]
        [0.8, 0.7, 0.7467]
        >>> [round(v, 4) for v in hierarchy_lmeasure(truth, prediction, compat="mir_eval")]
        [0.7984, 0.698, 0.7448]

    """


@HIERARCHY.metric(_report, gate=_gate(frozenset({"t", "l"})))
@fill(example=_EXAMPLE)
def hierarchy_report(
    truth: Hierarchy | pd.DataFrame,
    prediction: Hierarchy | None,
    *,
    window: float | pd.Timedelta | None = 15.0,
    frame_size: float | pd.Timedelta | None = 0.1,
    beta: float = 1.0,
    monotonic: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""All values of ``mir_eval.hierarchy.evaluate``, one row per file.

    Columns (mir_eval's key in brackets):
    ``t_precision_reduced``, ``t_recall_reduced``, ``t_measure_reduced``
    (``T-Precision reduced``, ...): :func:`hierarchy_tmeasure`;
    ``t_precision_full``, ``t_recall_full``, ``t_measure_full``
    (``T-Precision full``, ...): the same with ``transitive=True``;
    ``l_precision``, ``l_recall``, ``l_measure`` (``L-Precision``, ...):
    :func:`hierarchy_lmeasure`.
    The mean of a column is what the single function returns.

    Args:
        truth: true hierarchy (see :func:`hierarchy_statistics`),
            or a table of :func:`hierarchy_statistics`
        prediction: predicted hierarchy; ``None`` with a table
        window: T-measure window in seconds; ``None``: the whole track
        frame_size: frame hop in seconds or as timedelta;
            ``None``: exact in continuous time (with any window)
        {beta_report}
        monotonic: meets count only on unbroken paths from the top level
        {files_duration}
        compat: ``"mir_eval"`` to reproduce ``mir_eval.hierarchy`` 0.8.2

    Returns:
        DataFrame indexed by file

    Examples:
        {example}
        >>> hierarchy_report(truth, prediction)[["t_measure_reduced", "l_measure"]].round(3)
              t_measure_reduced  l_measure
        file
        a                 0.771      0.747

    """


FAMILY = Family(
    name="hierarchy",
    statistics=hierarchy_statistics,
    index=("file",),
    options=OPTIONS,
    metrics=(hierarchy_tmeasure, hierarchy_lmeasure, hierarchy_report),
    report=hierarchy_report,
    pooled=False,
    takes_labels=False,
    columns=_statistics.COLUMNS,
    normalise=normalise,
    reduce=reductions.reduce,
    file_counts=reductions.file_counts,
)
"""The hierarchy family's one declaration (read by the registry)."""
