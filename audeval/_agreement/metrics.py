r"""Chance-corrected agreement: reductions of summed coincidence tables.

Every metric here is a function of the columns of
:func:`audeval._agreement.agreement_statistics` summed over files
(all files, or each file for ``per_file=True``),
so it gives the same number from annotations, from a statistics table,
through ``Accumulator``, ``bootstrap`` and ``dask_statistics``.
The metrics are declared on the family (:data:`audeval._agreement.options.AGREEMENT`):
one options object per call, the gate :func:`coincidences`
(annotations, or a table through ``Declaration.table``),
the reductions of :mod:`audeval._agreement.reductions`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses

from typing import Any

import numpy as np
import pandas as pd

from audeval._core import options as _options
from audeval._core.docs import fill
from audeval._agreement.options import AGREEMENT
from audeval._agreement.options import BLOCK
from audeval._agreement.options import COLUMNS
from audeval._agreement.reductions import NAMES
from audeval._agreement.reductions import values_of
from audeval._agreement.statistics import compute_statistics
from audeval._core.protocol import table_options
from audeval._core.tables import select_labels
from audeval._core.warnings import UndefinedMetricWarning


SERIES_NAMES = {"cohen": "cohen_kappa", "fleiss": "fleiss_kappa", "alpha": "krippendorff_alpha"}


# -------------------------------------------------------------------------
# The gate: annotations or a statistics table
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Coincidences:
    """The columns of a metric call's table summed per group, and what the table records.

    ``columns[name]``: ``(groups, categories)`` float arrays
    (groups: the files for ``per_file``, else one group of all files);
    ``matrix``: the coincidence matrix ``(groups, categories, categories)`` of ordered levels.
    """

    groups: pd.Index
    categories: list
    columns: Mapping[str, np.ndarray]
    recorded: Mapping[str, Any]
    matrix: np.ndarray | None = None


def _label_sets_only(table: pd.DataFrame, labels: Sequence[object]) -> pd.DataFrame:
    if not table_options(table).get("per_label"):
        raise ValueError(
            "labels cannot select rows of a table of label sets (per_label=False): "
            "pass labels to agreement_statistics and compute the metric from that table."
        )
    return select_labels(table, labels)


def _table(metric, annotations, prediction, labels, options) -> tuple[pd.DataFrame, dict]:
    """The statistics table of a call and the options it records."""
    if not isinstance(annotations, pd.DataFrame):
        table = compute_statistics(annotations, prediction, labels, options)
        return table, table_options(table)
    table = AGREEMENT.table(metric, annotations, prediction, labels, options, select=_label_sets_only)
    recorded = table_options(table)
    if "per_label" not in recorded:
        raise ValueError(
            "the statistics table records no options (was it summed with plain pandas?), "
            "so whether its rows are labels or label sets is unknown: sum tables with "
            "audeval.sum_statistics, or keep the attrs of the tables (table.attrs = shard.attrs)."
        )
    if labels is not None and not recorded["per_label"]:
        _label_sets_only(table, labels)
    level = recorded.get("level", "nominal")  # (nominal tables do not record it)
    if "level" in options.given and options.level != level:
        raise ValueError(
            f"the statistics table was made with level={level!r}, but level={options.level!r} "
            "was given: pass level to agreement_statistics and compute the metric from that table."
        )
    return table, recorded


def grid(table: pd.DataFrame, per_file: bool) -> tuple[pd.Index, list, dict[str, np.ndarray]]:
    """Columns as ``(groups, categories)`` float arrays, summed over the files of each group."""
    index = table.index
    label_level = index.get_level_values("label")
    if isinstance(label_level.dtype, pd.CategoricalDtype):
        categories = list(label_level.categories)
        cat_codes = np.asarray(label_level.codes, dtype=np.int64)
    else:
        cat_codes, uniques = pd.factorize(label_level)
        categories = list(uniques)
    if per_file:
        group_codes, groups = pd.factorize(index.get_level_values("file"), sort=False)
        groups = pd.Index(groups, name="file")
    else:
        group_codes = np.zeros(len(table), dtype=np.int64)
        groups = pd.Index([None])
    cell = np.asarray(group_codes, dtype=np.int64) * len(categories) + cat_codes
    size = len(groups) * len(categories)
    names = [f"{BLOCK}{c}" for c in categories]
    out = {
        column: np.bincount(cell, weights=table[column].to_numpy(dtype=np.float64), minlength=size)
        .reshape(len(groups), len(categories))
        for column in [*COLUMNS, *(names if all(n in table.columns for n in names) else [])]
    }
    return groups, categories, out


def coincidences(metric, annotations, prediction, labels, options) -> Coincidences:
    """The family gate of a metric call: its table (computed, or given and checked), summed."""
    table, recorded = _table(metric, annotations, prediction, labels, options)
    groups, categories, columns = grid(table, options.per_file)
    matrix = None
    if recorded.get("level", "nominal") != "nominal":
        names = [f"{BLOCK}{c}" for c in categories]
        missing = [n for n in names if n not in columns]
        if missing:
            raise ValueError(
                f"the statistics table of level={recorded['level']!r} lacks the coincidence columns "
                f"{missing[:4]}; pass a table from agreement_statistics."
            )
        matrix = np.stack([columns[n] for n in names], axis=-1)
    return Coincidences(groups, categories, columns, recorded, matrix)


# -------------------------------------------------------------------------
# The metrics' reductions
# -------------------------------------------------------------------------


def _warn_undefined(undefined: np.ndarray, zero_division: float, what: str) -> None:
    if np.any(undefined):
        _options.warn(
            f"{what} is undefined (0 / 0: no disagreement is expected, e.g. every rater "
            f"always gives the same category) and was set to zero_division={zero_division}.",
            UndefinedMetricWarning,
        )


def _undefined(values: np.ndarray, undefined: np.ndarray, zero_division: float, what: str) -> np.ndarray:
    """``values`` with ``zero_division`` where undefined (0 / 0), with a warning if any is."""
    _warn_undefined(undefined, zero_division, what)
    return np.where(undefined, zero_division, values)


def _reduction(kind: str):
    """``reduce(coincidences, options)`` of one metric: the value and its output shape."""

    def reduce(c: Coincidences, options):
        raters = c.recorded.get("raters")
        if kind == "cohen" and raters is not None and len(raters) != 2:
            raise ValueError(
                f"cohen_kappa compares two raters; the annotations hold {len(raters)} ({raters}): "
                "use agreement_matrix(annotations, metric=cohen_kappa), fleiss_kappa "
                "or krippendorff_alpha."
            )
        average = "none" if options.average is None else options.average
        per_label = bool(c.recorded["per_label"])
        if "average" in options.given and not per_label:
            raise ValueError(
                f"average={average!r} averages over labels, which needs per_label=True; "
                "label sets (per_label=False) give one value."
            )
        values, undefined = values_of(
            kind, c.columns, per_label=per_label, unit=float(c.recorded.get("frame_size") or 0),
            average=average, zero_division=options.zero_division,
            level=c.recorded.get("level", "nominal"),
            weights=options.weights if kind == "cohen" else None,
            labels=c.categories, matrix=c.matrix,
        )
        _warn_undefined(undefined, options.zero_division, NAMES[kind])
        by_label = per_label and average == "none"
        if not options.per_file:
            if not by_label:
                return float(values[0])
            return {label: float(v) for label, v in zip(c.categories, values[0])}
        if not by_label:
            return pd.Series(values, index=c.groups, name=SERIES_NAMES[kind], dtype="float64")
        return pd.DataFrame(values, index=c.groups, columns=pd.Index(c.categories, dtype=object, name="label"))

    return reduce


_ARGS = """
    annotations: mapping rater -> Series (audformat segmented or filewise index),
        an audformat Database (its rater columns),
        the first rater's Series when ``prediction`` is given,
        or a table of :func:`agreement_statistics` (then ``prediction=None``)
    prediction: the second rater's Series
    labels: labels to evaluate; rows of other labels are left out
    per_label: each label a binary category (present / absent)
        instead of label sets; see ``average``
    average: with ``per_label=True``: ``"macro"`` (mean over labels, undefined
        labels left out), ``"micro"`` (the binary tables of all labels pooled)
        or ``"none"`` (a dict label -> value)
    frame_size: frame length :math:`s` (seconds or timedelta) to reproduce
        frame-based tools: each file is cut into frames :math:`[k s, (k + 1) s)`
        (its length rounded up to whole frames) and a rater gives a frame every label
        of a row that overlaps it with positive length: any overlap labels a frame,
        a row of zero length labels none;
        ``None``: continuous time
    unrated: how a file without rows of a rater counts:
        ``"no_label"`` everywhere, or ``"missing"`` (left out of that rater's pairs)
    files_duration: file -> duration; else a file ends at the latest end of any rater
        (with a statistics table: pass it to :func:`agreement_statistics`)
    per_file: one value per file (a Series; a DataFrame for ``average="none"``)
    zero_division: value where the metric is 0 / 0
        (no disagreement is expected: every rater always gives the same category;
        an ``UndefinedMetricWarning`` is issued)
"""

_RAISES = """
    Raises:
        TypeError, ValueError: on invalid input or options,
            a table made with other options than given
"""


_LEVEL = """
    level: ``"nominal"`` (label sets, "no label" a category),
        or the labels are ordered values of one scale,
        ``"ordinal"``, ``"interval"`` or ``"ratio"``
        (numbers, an ordered categorical, or ``labels=[...]`` in order;
        one value at a time, time without a value is missing),
        see :func:`agreement_statistics`
"""

_WEIGHTS = """
    weights: ``None``, or ``"linear"`` / ``"quadratic"``:
        disagreement weights :math:`|i - j|` / :math:`(i - j)^2`
        of the positions of the ordered labels (needs an ordered ``level``)
"""


@AGREEMENT.metric(_reduction("cohen"), gate=coincidences)
@fill(args=_ARGS, level=_LEVEL, weights=_WEIGHTS, raises=_RAISES)
def cohen_kappa(
    annotations: pd.Series | Mapping[object, pd.Series] | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    per_label: bool = False,
    average: str = "macro",
    frame_size: float | pd.Timedelta | None = None,
    unrated: str = "no_label",
    files_duration: Mapping | pd.Series | None = None,
    per_file: bool = False,
    zero_division: float = np.nan,
    level: str = "nominal",
    weights: str | None = None,
) -> float | dict | pd.Series | pd.DataFrame:
    r"""Cohen's kappa of two raters, time-weighted, in continuous time.

    With :math:`C_{ck}` the time rater 1 says :math:`c` and rater 2 says :math:`k`,
    :math:`a_c = \sum_k C_{ck}`, :math:`b_c = \sum_k C_{kc}`, :math:`T = \sum_c a_c`:

    .. math::

        p_o = \frac{1}{T} \sum_c C_{cc},\quad
        p_e = \frac{1}{T^2} \sum_c a_c b_c,\quad
        \kappa = \frac{p_o - p_e}{1 - p_e}

    Categories are label sets with "no label" a category
    (or, with ``per_label=True``, present/absent per label).
    On a frame grid (``frame_size``) this is sklearn's ``cohen_kappa_score``
    of the frames' categories.
    :math:`1 - p_e = 0` (both raters always give the one same category)
    gives ``zero_division``.

    Args:
        {args}
        {level}
        {weights}

    {raises}

    Returns:
        kappa (a dict per label for ``average="none"``; per file with ``per_file``)

    Examples:
        >>> import audformat
        >>> from audeval import cohen_kappa
        >>> index = audformat.segmented_index(["f", "f"], [0.0, 2.0], [2.0, 4.0])
        >>> truth = pd.Series(["a", "b"], index=index)
        >>> index = audformat.segmented_index(["f", "f"], [0.0, 3.0], [3.0, 4.0])
        >>> prediction = pd.Series(["a", "b"], index=index)
        >>> cohen_kappa(truth, prediction)
        0.5

    """


@AGREEMENT.metric(_reduction("fleiss"), gate=coincidences)
@fill(args=_ARGS, raises=_RAISES)
def fleiss_kappa(
    annotations: Mapping[object, pd.Series] | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    per_label: bool = False,
    average: str = "macro",
    frame_size: float | pd.Timedelta | None = None,
    unrated: str = "no_label",
    files_duration: Mapping | pd.Series | None = None,
    per_file: bool = False,
    zero_division: float = np.nan,
) -> float | dict | pd.Series | pd.DataFrame:
    r"""Fleiss' kappa of several raters, time-weighted, in continuous time.

    On an elementary segment :math:`p` of length :math:`d_p`
    :math:`n_{pc}` of the :math:`m` raters of its file give category :math:`c`;
    with :math:`T = \sum_p d_p`:

    .. math::

        \bar P = \frac{1}{T} \sum_p d_p \sum_c \frac{n_{pc}(n_{pc} - 1)}{m(m - 1)},\quad
        p_c = \frac{1}{T} \sum_p d_p \frac{n_{pc}}{m},\quad
        P_e = \sum_c p_c^2,\quad
        \kappa = \frac{\bar P - P_e}{1 - P_e}

    (Fleiss 1971 with time weights; :math:`p_c` as the mean of the per-segment shares
    where files have different numbers of raters).
    On a frame grid this is ``statsmodels.stats.inter_rater.fleiss_kappa`` of the frames.
    :math:`1 - P_e = 0` gives ``zero_division``.

    Args:
        {args}

    {raises}

    Returns:
        kappa (a dict per label for ``average="none"``; per file with ``per_file``)

    Examples:
        >>> import audformat
        >>> from audeval import fleiss_kappa
        >>> def rater(starts, ends, labels):
        ...     index = audformat.segmented_index(["f"] * len(starts), starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> raters = {
        ...     "r1": rater([0.0, 2.0], [2.0, 4.0], ["a", "b"]),
        ...     "r2": rater([0.0, 2.0], [2.0, 4.0], ["a", "b"]),
        ...     "r3": rater([0.0, 3.0], [3.0, 4.0], ["a", "b"]),
        ... }
        >>> round(fleiss_kappa(raters), 4)
        0.6571

    """


@AGREEMENT.metric(_reduction("alpha"), gate=coincidences)
@fill(args=_ARGS, level=_LEVEL, raises=_RAISES)
def krippendorff_alpha(
    annotations: Mapping[object, pd.Series] | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    per_label: bool = False,
    average: str = "macro",
    frame_size: float | pd.Timedelta | None = None,
    unrated: str = "no_label",
    files_duration: Mapping | pd.Series | None = None,
    per_file: bool = False,
    zero_division: float = np.nan,
    level: str = "nominal",
) -> float | dict | pd.Series | pd.DataFrame:
    r"""Krippendorff's alpha (nominal) of several raters, time-weighted.

    The coincidence matrix counts durations:
    on an elementary segment :math:`p` of length :math:`d_p`,
    :math:`n_{pc}` of the :math:`m_p` raters of its file give category :math:`c`, and

    .. math::

        o_{ck} = \sum_p d_p \frac{n_{pc} (n_{pk} - [c = k])}{m_p - 1},\quad
        n_c = \sum_k o_{ck},\quad N = \sum_c n_c,

        \alpha = 1 - \frac{D_o}{D_e}
        = 1 - (N - u) \frac{\sum_{c \ne k} o_{ck}}{\sum_{c \ne k} n_c n_k}

    over segments rated by :math:`m_p \ge 2` raters (Krippendorff 2011).
    :math:`u` is the weight of one value:
    the frame length with ``frame_size``
    (then this is the ``krippendorff`` package's nominal alpha
    of the reliability matrix raters x frames),
    and 0 in continuous time (the limit of ever finer frames).
    :math:`D_e = 0` (one category only) gives ``zero_division``.

    Args:
        {args}
        {level}

    {raises}

    Returns:
        alpha (a dict per label for ``average="none"``; per file with ``per_file``)

    Examples:
        >>> import audformat
        >>> from audeval import krippendorff_alpha
        >>> def rater(starts, ends, labels):
        ...     index = audformat.segmented_index(["f"] * len(starts), starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> raters = {
        ...     "r1": rater([0.0, 2.0], [2.0, 4.0], ["a", "b"]),
        ...     "r2": rater([0.0, 3.0], [3.0, 4.0], ["a", "b"]),
        ... }
        >>> round(krippendorff_alpha(raters), 4)
        0.4667
        >>> round(krippendorff_alpha(raters, frame_size=1.0), 4)
        0.5333

    """
