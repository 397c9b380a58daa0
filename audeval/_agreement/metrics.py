r"""Chance-corrected agreement: reductions of summed coincidence tables.

Every metric here is a function of the columns of
:func:`audeval._agreement.agreement_statistics` summed over files
(all files, or each file for ``per_file=True``),
so it gives the same number from annotations, from a statistics table,
through ``Accumulator``, ``bootstrap`` and ``dask_statistics``.
Category sums are written :math:`\sum_c`; for ``per_label=True``
each label is a binary variable (present / absent)
whose "absent" sums follow from the table's ``total`` :math:`T` and ``pairable`` :math:`N`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import warnings

import numpy as np
import pandas as pd

from audeval import _options
from audeval._agreement.statistics import COLUMNS
from audeval._agreement.statistics import agreement_statistics
from audeval._agreement.statistics import normalise
from audeval._options import Default
from audeval._protocol import check_table
from audeval._warnings import UndefinedMetricWarning
from audeval._tables import select_labels


AVERAGES = ("macro", "micro", "none")
STATISTICS_OPTIONS = ("per_label", "frame_size", "unrated")


# -------------------------------------------------------------------------
# The gate: annotations or a statistics table
# -------------------------------------------------------------------------


def statistics_of(
    annotations: object,
    prediction: object,
    labels: Sequence[object] | None,
    options: Mapping[str, object],
    files_duration: object = None,
) -> tuple[pd.DataFrame, dict]:
    """The statistics table of a metric call and the options it was made with.

    ``options`` holds the call's statistics options,
    :class:`audeval._options.Default` where the caller did not give them;
    a given table is checked against the given ones.
    """
    if isinstance(annotations, pd.DataFrame):
        given = {k: v for k, v in options.items() if _options.given(v)}
        recorded = check_table(
            annotations, prediction, family="agreement", given=normalise(given)
        )
        missing = [c for c in COLUMNS if c not in annotations.columns]
        if missing:
            raise ValueError(
                f"the statistics table lacks the columns {missing}; "
                "pass a table from agreement_statistics."
            )
        if "per_label" not in recorded:
            raise ValueError(
                "the statistics table records no options (was it summed with plain pandas?), "
                "so whether its rows are labels or label sets is unknown: sum tables with "
                "audeval.sum_statistics, or keep the attrs of the tables (table.attrs = shard.attrs)."
            )
        recorded = {**normalise({k: _options.value_of(v) for k, v in options.items()}), **recorded}
        table = annotations
        if labels is not None:
            if not recorded["per_label"]:
                raise ValueError(
                    "labels cannot select rows of a table of label sets (per_label=False): "
                    "pass labels to agreement_statistics and compute the metric from that table."
                )
            table = select_labels(table, labels)
        return table, recorded
    values = {k: _options.value_of(v) for k, v in options.items()}
    table = agreement_statistics(
        annotations, prediction, labels, files_duration=files_duration, **values
    )
    return table, dict(table.attrs["audeval"]["options"])


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
    shape = (len(groups), len(categories))
    out = {}
    for column in COLUMNS:
        values = np.zeros(shape, dtype=np.float64)
        np.add.at(values, (group_codes, cat_codes), table[column].to_numpy(dtype=np.float64))
        out[column] = values
    return groups, categories, out


def _undefined(values: np.ndarray, undefined: np.ndarray, zero_division: float, what: str) -> np.ndarray:
    if np.any(undefined):
        _options.warn(
            f"{what} is undefined (0 / 0: no disagreement is expected, e.g. every rater "
            f"always gives the same category) and was set to zero_division={zero_division}.",
            UndefinedMetricWarning,
        )
    return np.where(undefined, zero_division, values)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return numerator / denominator


# -------------------------------------------------------------------------
# Reductions (arrays in, arrays out)
# -------------------------------------------------------------------------


def binary(g: dict[str, np.ndarray]) -> dict[str, tuple]:
    r"""Per-label sums of both categories (present, absent), from the table's totals.

    With :math:`T` = ``total`` and :math:`N` = ``pairable``:
    :math:`n_0 = N - n_1`, :math:`a_0 = T - a_1`,
    :math:`o_{00} = N - 2 n_1 + o_{11}`,
    :math:`\text{agree}_0 = T - 2\,\text{share}_1 + \text{agree}_1`,
    :math:`\text{share}_0 = T - \text{share}_1`.
    """
    t, n = g["total"], g["pairable"]
    return {
        "values": (g["values"], n - g["values"]),
        "first": (g["first"], t - g["first"]),
        "coincide": (g["coincide"], n - 2 * g["values"] + g["coincide"]),
        "fleiss_agree": (g["fleiss_agree"], t - 2 * g["fleiss_share"] + g["fleiss_agree"]),
        "fleiss_share": (g["fleiss_share"], t - g["fleiss_share"]),
    }


def sets(g: dict[str, np.ndarray]) -> dict[str, tuple]:
    """Sums of label-set categories (the category axis last) as one array per category."""
    return {k: tuple(np.moveaxis(g[k], -1, 0)) for k in COLUMNS if k not in ("total", "pairable")}


def alpha_of(c: dict, unit: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Nominal :math:`\alpha = 1 - (N - u) \sum_c (n_c - o_{cc}) / \sum_c n_c (N - n_c)`."""
    n = sum(c["values"])
    observed = sum(v - o for v, o in zip(c["values"], c["coincide"]))
    expected = sum(v * (n - v) for v in c["values"])
    defined = expected > 0
    return 1.0 - _ratio((n - unit) * observed, expected), ~defined


def fleiss_of(c: dict) -> tuple[np.ndarray, np.ndarray]:
    r"""Fleiss :math:`\kappa = (T \sum_c \text{agree}_c - \sum_c s_c^2) / \sum_c s_c (T - s_c)`."""
    t = sum(c["fleiss_share"])
    chance = sum(s * s for s in c["fleiss_share"])
    expected = sum(s * (t - s) for s in c["fleiss_share"])
    defined = expected > 0
    return _ratio(t * sum(c["fleiss_agree"]) - chance, expected), ~defined


def cohen_of(c: dict) -> tuple[np.ndarray, np.ndarray]:
    r"""Cohen :math:`\kappa = (T \sum_c C_{cc} - \sum_c a_c b_c) / \sum_c a_c (T - b_c)`."""
    t = sum(c["first"])
    chance = sum(a * (v - a) for a, v in zip(c["first"], c["values"]))
    expected = sum(a * (t - (v - a)) for a, v in zip(c["first"], c["values"]))
    defined = expected > 0
    agree = sum(o / 2.0 for o in c["coincide"])
    return _ratio(t * agree - chance, expected), ~defined


REDUCTIONS = {
    "cohen": lambda c, unit: cohen_of(c),
    "fleiss": lambda c, unit: fleiss_of(c),
    "alpha": alpha_of,
}
NAMES = {"cohen": "Cohen's kappa", "fleiss": "Fleiss' kappa", "alpha": "Krippendorff's alpha"}
SERIES_NAMES = {"cohen": "cohen_kappa", "fleiss": "fleiss_kappa", "alpha": "krippendorff_alpha"}


def _reduce(kind: str, table: pd.DataFrame, recorded: dict, average: str, per_file: bool):
    """Values of the metric per group (and label), and where they are undefined."""
    groups, categories, g = grid(table, per_file)
    unit = float(recorded.get("frame_size") or 0)
    reduction = REDUCTIONS[kind]
    if not recorded["per_label"]:
        values, undefined = reduction(sets(g), unit)
        return groups, None, values, undefined
    if average == "micro":
        values, undefined = reduction(binary({k: v.sum(axis=1) for k, v in g.items()}), unit)
        return groups, None, values, undefined
    values, undefined = reduction(binary(g), unit)
    return groups, categories, values, undefined


def agreement(
    kind: str,
    annotations: object,
    prediction: object,
    labels: Sequence[object] | None,
    *,
    options: Mapping[str, object],
    files_duration: object,
    average: str,
    per_file: bool,
    zero_division: float,
):
    """One metric call: the table, the reduction, the zero-division rule, the output shape."""
    explicit = _options.given(average)
    average = _options.value_of(average)
    average = _options.check_choice("none" if average is None else average, "average", AVERAGES)
    per_file = _options.check_bool(per_file, "per_file")
    zero_division = _options.check_zero_division(zero_division)
    table, recorded = statistics_of(annotations, prediction, labels, options, files_duration)
    raters = recorded.get("raters")
    if kind == "cohen" and raters is not None and len(raters) != 2:
        raise ValueError(
            f"cohen_kappa compares two raters; the annotations hold {len(raters)} ({raters}): "
            "use agreement_matrix(annotations, metric=cohen_kappa), fleiss_kappa "
            "or krippendorff_alpha."
        )
    if explicit and not recorded["per_label"]:
        raise ValueError(
            f"average={average!r} averages over labels, which needs per_label=True; "
            "label sets (per_label=False) give one value."
        )
    groups, labels_out, values, undefined = _reduce(kind, table, recorded, average, per_file)
    values = _undefined(values, undefined, zero_division, NAMES[kind])
    if labels_out is not None and average == "macro":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            values = np.nanmean(values, axis=1) if values.shape[1] else np.full(len(values), np.nan)
        labels_out = None
    if not per_file:
        if labels_out is None:
            return float(values[0])
        return {label: float(v) for label, v in zip(labels_out, values[0])}
    if labels_out is None:
        return pd.Series(values, index=groups, name=SERIES_NAMES[kind], dtype="float64")
    return pd.DataFrame(values, index=groups, columns=pd.Index(labels_out, dtype=object, name="label"))


ARGS = """
    Args:
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
        per_file: one value per file (a Series; a DataFrame for ``average="none"``)
        zero_division: value where the metric is 0 / 0
            (no disagreement is expected: every rater always gives the same category;
            an ``UndefinedMetricWarning`` is issued)

    Raises:
        TypeError, ValueError: on invalid input or options,
            a table made with other options than given
"""


def _doc(function):
    function.__doc__ = function.__doc__.replace("    {ARGS}\n", ARGS)
    return function


@_doc
def cohen_kappa(
    annotations: pd.Series | Mapping[object, pd.Series] | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    per_label: bool = Default(False),
    average: str = Default("macro"),
    frame_size: float | pd.Timedelta | None = Default(None),
    unrated: str = Default("no_label"),
    files_duration: Mapping | pd.Series | None = None,
    per_file: bool = False,
    zero_division: float = np.nan,
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

    {ARGS}

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
    options = {"per_label": per_label, "frame_size": frame_size, "unrated": unrated}
    return agreement(
        "cohen", annotations, prediction, labels, options=options, files_duration=files_duration,
        average=average, per_file=per_file, zero_division=zero_division,
    )


@_doc
def fleiss_kappa(
    annotations: Mapping[object, pd.Series] | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    per_label: bool = Default(False),
    average: str = Default("macro"),
    frame_size: float | pd.Timedelta | None = Default(None),
    unrated: str = Default("no_label"),
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

    {ARGS}

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
    options = {"per_label": per_label, "frame_size": frame_size, "unrated": unrated}
    return agreement(
        "fleiss", annotations, prediction, labels, options=options, files_duration=files_duration,
        average=average, per_file=per_file, zero_division=zero_division,
    )


@_doc
def krippendorff_alpha(
    annotations: Mapping[object, pd.Series] | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    per_label: bool = Default(False),
    average: str = Default("macro"),
    frame_size: float | pd.Timedelta | None = Default(None),
    unrated: str = Default("no_label"),
    files_duration: Mapping | pd.Series | None = None,
    per_file: bool = False,
    zero_division: float = np.nan,
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

    {ARGS}

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
    options = {"per_label": per_label, "frame_size": frame_size, "unrated": unrated}
    return agreement(
        "alpha", annotations, prediction, labels, options=options, files_duration=files_duration,
        average=average, per_file=per_file, zero_division=zero_division,
    )
