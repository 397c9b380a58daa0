"""A worked example of a metric family: how much of each label's true time a prediction claims.

``duration_ratio`` = predicted time / true time of a label, summed over files
(micro: over all labels at once; macro: the mean of the labels' ratios).
Not part of audeval: ``docs/contributing.rst`` walks through it,
``tests/test_adding_a_family.py`` registers it and runs the generic layers on it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from audeval._core.declare import Declaration, Option
from audeval._core.protocol import Family, stamp
from audeval._core.validation import check_inputs


# 1. options, declared once: constraints as data, doc text per field
DURATION = Declaration(
    "duration",
    [
        Option("files_duration", "mapping or Series from file to duration (resolves ``end=NaT``)"),
        Option("zero_division", "value of 0 / 0", default=0.0, kind="zero_division"),
        Option("average", '``"micro"`` or ``"macro"``', default="micro", kind="choice", choices=("micro", "macro")),
    ],
    columns=("truth", "prediction"),
)


# 2. statistics: additive int64 ns per (file, label), only the rows that occur
def _compute(truth: pd.Series, prediction: pd.Series, labels, options) -> pd.DataFrame:
    inputs = check_inputs(truth, prediction, labels=labels, files_duration=options.files_duration)
    sides = inputs.truth, inputs.prediction
    keys = [side.file * inputs.n_labels + side.label for side in sides]
    rows = np.unique(np.concatenate(keys))
    columns = {}
    for name, side, key in zip(("truth", "prediction"), sides, keys):
        total = np.zeros(len(rows), dtype=np.int64)
        np.add.at(total, np.searchsorted(rows, key), side.end - side.start)
        columns[name] = total
    index = pd.MultiIndex.from_arrays(
        [inputs.files[rows // inputs.n_labels], pd.Categorical.from_codes(rows % inputs.n_labels, inputs.labels)],
        names=["file", "label"],
    )
    return stamp(pd.DataFrame(columns, index=index), "duration", DURATION.record(options))


@DURATION.statistics(_compute)
def duration_statistics(truth, prediction, labels=None, *, files_duration=None) -> pd.DataFrame:
    """True and predicted time (int64 ns) per file and label.

    Examples:
        >>> import audformat
        >>> index = audformat.segmented_index(["f", "f"], [0, 2], [2, 3])
        >>> duration_statistics(pd.Series(["a", "b"], index), pd.Series(["a", "a"], index))["truth"].tolist()
        [2000000000, 1000000000]

    """


# 3. reductions: arrays of summed counts in, numbers out (vectorised over leading axes)
def reduce(counts, options) -> np.ndarray:
    """:math:`r = \\sum p / \\sum t` (micro) or the mean over labels of :math:`p_l / t_l` (macro)."""
    truth, prediction = counts["truth"].astype(float), counts["prediction"].astype(float)
    zero = options.get("zero_division", 0.0)
    if options.get("average", "micro") == "micro":
        truth, prediction = truth.sum(axis=-1), prediction.sum(axis=-1)
        return _ratio(prediction, truth, zero)
    return _ratio(prediction, truth, zero).mean(axis=-1)


def _ratio(numerator, denominator, zero_division):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), zero_division)


# 4. metrics: a gate (Series -> statistics, or a table checked by the one table gate) and a reduction
def _gate(metric, truth, prediction, labels, options) -> pd.DataFrame:
    if isinstance(truth, pd.DataFrame):
        return DURATION.table(metric, truth, prediction, labels, options, select=_select)
    return _compute(truth, prediction, labels, options)


def _select(table: pd.DataFrame, labels) -> pd.DataFrame:
    return table[table.index.get_level_values("label").isin(labels)]


def _duration_ratio(table: pd.DataFrame, options) -> float:
    sums = table.groupby(level="label", observed=False)[["truth", "prediction"]].sum()
    counts = {name: sums[name].to_numpy() for name in ("truth", "prediction")}
    return float(reduce(counts, {"average": options.average, "zero_division": options.zero_division}))


@DURATION.metric(_duration_ratio, gate=_gate)
def duration_ratio(
    truth, prediction=None, labels=None, *, files_duration=None, zero_division: float = 0.0, average: str = "micro"
) -> float:
    """Predicted time over true time.

    .. math:: r = \\frac{\\sum_{f,l} p_{f,l}}{\\sum_{f,l} t_{f,l}}

    Examples:
        >>> import audformat
        >>> index = audformat.segmented_index(["f", "f"], [0, 2], [2, 3])
        >>> duration_ratio(pd.Series(["a", "b"], index), pd.Series(["a", "a"], index))
        1.0
        >>> duration_ratio(pd.Series(["a", "b"], index), pd.Series(["a", "a"], index), average="macro")
        0.75

    """


# 5. the family: one declaration the registry, sum_statistics, Accumulator, bootstrap and dask read
FAMILY = Family(
    name="duration",
    statistics=duration_statistics,
    index=("file", "label"),
    options=DURATION.table_options,
    metrics=(duration_ratio,),
    columns=("truth", "prediction"),
    normalise=DURATION.normalise,
    sparse=True,
    reduce=lambda counts, options: reduce(counts, options),
)
