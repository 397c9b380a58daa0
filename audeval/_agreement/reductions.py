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
(:attr:`audeval._protocol.Family.reduce`): the bootstrap sums all resamples at once
and reduces them in one call.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


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


def values_of(
    kind: str,
    columns: Mapping[str, np.ndarray],
    *,
    per_label: bool,
    unit: float,
    average: str | None,
    zero_division: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The metric of summed columns ``(..., n_categories)``, and where it was 0 / 0.

    Returns arrays ``(...)``, or ``(..., n_labels)`` for ``per_label`` with ``average="none"``;
    0 / 0 is replaced by ``zero_division`` (``average="macro"``: before the mean).
    """
    reduction = REDUCTIONS[kind]
    g = {name: np.asarray(columns[name], dtype=np.float64) for name in _NEEDS}
    if not per_label:
        values, undefined = reduction(g, unit)
    elif average == "micro":
        values, undefined = reduction(binary({k: v.sum(axis=-1) for k, v in g.items()}), unit)
    else:
        values, undefined = reduction(binary(g), unit)
    values = np.where(undefined, zero_division, values)
    if per_label and average == "macro":
        values = _nanmean(values)
    return values, undefined


_NEEDS = ("total", "pairable", "values", "first", "coincide", "fleiss_agree", "fleiss_share")


def reduce(counts, options: Mapping[str, object]) -> np.ndarray:
    """The family's ``reduce``: a metric from summed counts (:class:`audeval._protocol.Counts`).

    ``counts[name]`` has shape ``(..., n_categories)``;
    ``options`` holds the metric's name and options.
    Per-file values (``per_file=True``) are not a reduction of summed counts.
    """
    kind = KINDS.get(options["metric"])
    if kind is None or options.get("per_file"):
        raise NotImplementedError(options["metric"])
    recorded = counts.recorded
    average = options.get("average", "macro")
    values, _ = values_of(
        kind,
        counts,
        per_label=bool(recorded["per_label"]),
        unit=float(recorded.get("frame_size") or 0),
        average="none" if average is None else average,
        zero_division=float(options.get("zero_division", np.nan)),
    )
    return values
