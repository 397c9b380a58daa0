r"""Reductions of summed coincidence tables: arrays in, arrays out.

Every metric of the family is a function of the columns of
:func:`audeval._agreement.agreement_statistics` summed over files.
The columns come as arrays of shape ``(..., n_categories)``
(leading axes: resamples, files); categories are on the last axis.
For ``per_label=True`` each label is a binary variable (present / absent)
whose "absent" sums follow from the table's ``total`` :math:`T` and ``pairable`` :math:`N`
(:func:`binary` puts both categories on a new last axis);
the sums over categories are sums over the last axis.

:func:`reduce` is the family's ``reduce`` of the protocol
(:attr:`audeval._core.protocol.Family.reduce`): the bootstrap sums all resamples at once
and reduces them in one call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from audeval._agreement.options import BLOCK

KINDS = {"cohen_kappa": "cohen", "fleiss_kappa": "fleiss", "krippendorff_alpha": "alpha"}
"""The metrics this module reduces, by name."""

NAMES = {"cohen": "Cohen's kappa", "fleiss": "Fleiss' kappa", "alpha": "Krippendorff's alpha"}


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return numerator / denominator


def binary(g: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    r"""Per-label sums of both categories (present, absent) on a new last axis.

    With :math:`T` = ``total`` and :math:`N` = ``pairable``:
    :math:`n_0 = N - n_1`, :math:`a_0 = T - a_1`,
    :math:`o_{00} = N - 2 n_1 + o_{11}`,
    :math:`\text{agree}_0 = T - 2\,\text{share}_1 + \text{agree}_1`,
    :math:`\text{share}_0 = T - \text{share}_1`.
    """
    t, n = g["total"], g["pairable"]
    pairs = {
        "values": (g["values"], n - g["values"]),
        "first": (g["first"], t - g["first"]),
        "coincide": (g["coincide"], n - 2 * g["values"] + g["coincide"]),
        "fleiss_agree": (g["fleiss_agree"], t - 2 * g["fleiss_share"] + g["fleiss_agree"]),
        "fleiss_share": (g["fleiss_share"], t - g["fleiss_share"]),
    }
    return {k: np.stack(v, axis=-1) for k, v in pairs.items()}


def alpha_of(c: Mapping[str, np.ndarray], unit: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Nominal :math:`\alpha = 1 - (N - u) \sum_c (n_c - o_{cc}) / \sum_c n_c (N - n_c)`."""
    values = c["values"]
    n = values.sum(axis=-1)
    observed = (values - c["coincide"]).sum(axis=-1)
    expected = (values * (n[..., None] - values)).sum(axis=-1)
    return 1.0 - _ratio((n - unit) * observed, expected), ~(expected > 0)


def fleiss_of(c: Mapping[str, np.ndarray], unit: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    r"""Fleiss :math:`\kappa = (T \sum_c \text{agree}_c - \sum_c s_c^2) / \sum_c s_c (T - s_c)`."""
    share = c["fleiss_share"]
    t = share.sum(axis=-1)
    chance = (share * share).sum(axis=-1)
    expected = (share * (t[..., None] - share)).sum(axis=-1)
    return _ratio(t * c["fleiss_agree"].sum(axis=-1) - chance, expected), ~(expected > 0)


def cohen_of(c: Mapping[str, np.ndarray], unit: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    r"""Cohen :math:`\kappa = (T \sum_c C_{cc} - \sum_c a_c b_c) / \sum_c a_c (T - b_c)`."""
    first, second = c["first"], c["values"] - c["first"]
    t = first.sum(axis=-1)
    chance = (first * second).sum(axis=-1)
    expected = (first * (t[..., None] - second)).sum(axis=-1)
    agree = (c["coincide"] / 2.0).sum(axis=-1)
    return _ratio(t * agree - chance, expected), ~(expected > 0)


REDUCTIONS = {"cohen": cohen_of, "fleiss": fleiss_of, "alpha": alpha_of}


def _nanmean(values: np.ndarray) -> np.ndarray:
    """Mean over the last axis ignoring NaN; NaN when nothing is left."""
    valid = ~np.isnan(values)
    count = valid.sum(axis=-1)
    total = np.where(valid, values, 0.0).sum(axis=-1)
    return _ratio(total, np.where(count > 0, count, np.nan))


def _delta(level: str, labels, n: np.ndarray) -> np.ndarray:
    r"""Squared difference :math:`\delta^2_{ck}` of the values of a level, ``(..., C, C)``.

    ordinal: :math:`(\sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2`, the difference of the mid-ranks
    :math:`r_c = \sum_{g < c} n_g + n_c / 2` of the summed marginals;
    interval: :math:`(v_c - v_k)^2`; ratio: :math:`((v_c - v_k) / (v_c + v_k))^2` (0 where both are 0).
    """
    if level == "ordinal":
        rank = np.cumsum(n, axis=-1) - n / 2.0
        return (rank[..., :, None] - rank[..., None, :]) ** 2
    v = np.asarray(labels, dtype=np.float64)
    difference = v[:, None] - v[None, :]
    if level == "interval":
        return difference**2
    total = v[:, None] + v[None, :]
    return np.divide(difference, total, out=np.zeros_like(difference), where=total != 0) ** 2


def ordered_alpha(
    values: np.ndarray, matrix: np.ndarray, labels, level: str, unit: float
) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`\alpha = 1 - (N - u) \sum_{ck} o_{ck} \delta^2_{ck} / \sum_{ck} n_c n_k \delta^2_{ck}`."""
    delta = _delta(level, labels, values)
    n = values.sum(axis=-1)
    observed = (matrix * delta).sum(axis=(-2, -1))
    expected = (values[..., :, None] * values[..., None, :] * delta).sum(axis=(-2, -1))
    return 1.0 - _ratio((n - unit) * observed, expected), ~(expected > 0)


def weighted_cohen(first: np.ndarray, values: np.ndarray, matrix: np.ndarray, weights: str):
    r"""Weighted :math:`\kappa = 1 - T \sum_{ck} w_{ck} C_{ck} / \sum_{ck} w_{ck} a_c b_k`,
    :math:`w_{ck} = |c - k|` (linear) or :math:`(c - k)^2` (quadratic) of the labels' positions;
    :math:`\sum_{ck} w_{ck} C_{ck} = \frac{1}{2} \sum_{ck} w_{ck} o_{ck}` (two raters, :math:`w` symmetric)."""
    position = np.arange(first.shape[-1], dtype=np.float64)
    w = np.abs(position[:, None] - position[None, :])
    if weights == "quadratic":
        w = w**2
    second = values - first
    t = first.sum(axis=-1)
    observed = (matrix * w).sum(axis=(-2, -1)) / 2.0
    expected = (first[..., :, None] * second[..., None, :] * w).sum(axis=(-2, -1))
    return 1.0 - _ratio(t * observed, expected), ~(expected > 0)


def values_of(
    kind: str,
    columns: Mapping[str, np.ndarray],
    *,
    per_label: bool,
    unit: float,
    average: str | None,
    zero_division: float,
    level: str = "nominal",
    weights: str | None = None,
    labels=None,
    matrix: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The metric of summed columns ``(..., n_categories)``, and where it was 0 / 0.

    Returns arrays ``(...)``, or ``(..., n_labels)`` for ``per_label`` with ``average="none"``;
    0 / 0 is replaced by ``zero_division`` (``average="macro"``: before the mean).
    ``level``: the level the table was made with; ``matrix``: its coincidence matrix
    ``(..., n_categories, n_categories)`` (ordered levels).
    """
    g = {name: np.asarray(columns[name], dtype=np.float64) for name in _NEEDS}
    if weights is not None:
        if level == "nominal":
            raise ValueError(
                f"weights={weights!r} compares ordered labels: pass level='ordinal' "
                "(ordered values, time without a value missing) to cohen_kappa or agreement_statistics."
            )
        values, undefined = weighted_cohen(g["first"], g["values"], np.asarray(matrix, dtype=np.float64), weights)
    elif kind == "alpha" and level != "nominal":
        values, undefined = ordered_alpha(g["values"], np.asarray(matrix, dtype=np.float64), labels, level, unit)
    elif not per_label:
        values, undefined = REDUCTIONS[kind](g, unit)
    elif average == "micro":
        values, undefined = REDUCTIONS[kind](binary({k: v.sum(axis=-1) for k, v in g.items()}), unit)
    else:
        values, undefined = REDUCTIONS[kind](binary(g), unit)
    values = np.where(undefined, zero_division, values)
    if per_label and average == "macro":
        values = _nanmean(values)
    return values, undefined


_NEEDS = ("total", "pairable", "values", "first", "coincide", "fleiss_agree", "fleiss_share")


def reduce(counts, options: Mapping[str, Any]) -> np.ndarray:
    """The family's ``reduce``: a metric from summed counts (:class:`audeval._core.protocol.Counts`).

    ``counts[name]`` has shape ``(..., n_categories)``;
    ``options`` holds the metric's name and options.
    Per-file values (``per_file=True``) are not a reduction of summed counts.
    """
    kind = KINDS.get(options["metric"])
    if kind is None or options.get("per_file"):
        raise NotImplementedError(options["metric"])
    recorded = counts.recorded
    average = options.get("average", "macro")
    level = recorded.get("level", "nominal")
    values, _ = values_of(
        kind,
        counts,
        per_label=bool(recorded["per_label"]),
        unit=float(recorded.get("frame_size") or 0),
        average="none" if average is None else average,
        zero_division=float(options.get("zero_division", np.nan)),
        level=level,
        weights=options.get("weights") if kind == "cohen" else None,
        labels=counts.labels,
        matrix=counts.blocks.get(BLOCK) if level != "nominal" else None,
    )
    return values
