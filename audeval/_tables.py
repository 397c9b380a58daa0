"""Additive statistics tables: how they are built and how they are read back.

A statistics table is a DataFrame indexed by ``(file, label)``,
one row for every file and every label
(the dense grid, so that files without events keep their rows),
with integer columns of counts or nanosecond durations.
The ``label`` level is categorical in the order of the labels,
so ``groupby(level="label")`` keeps that order.

Tables of disjoint sets of whole files add up
(``pd.concat([a, b])`` or ``a.add(b, fill_value=0)``)
to the table of their union;
every metric is a function of such a (summed) table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._validation import Inputs


def label_index(labels: Sequence[object]) -> pd.CategoricalIndex:
    """Labels as an ordered categorical index that keeps their order."""
    return pd.CategoricalIndex(
        list(labels), categories=pd.Index(list(labels), dtype=object), ordered=True, name="label"
    )


def statistics_frame(
    inputs: Inputs,
    columns: Mapping[str, np.ndarray],
) -> pd.DataFrame:
    """DataFrame over the dense ``(file, label)`` grid.

    Each column holds ``n_files * n_labels`` values in the order
    ``file * n_labels + label``.
    """
    n_files, n_labels = inputs.n_files, inputs.n_labels
    codes_file = np.repeat(np.arange(n_files), n_labels)
    codes_label = np.tile(np.arange(n_labels), n_files)
    index = pd.MultiIndex(
        levels=[pd.Index(inputs.files, name="file"), label_index(inputs.labels)],
        codes=[codes_file, codes_label],
        names=["file", "label"],
        verify_integrity=False,
    )
    return pd.DataFrame(dict(columns), index=index)


def check_statistics(stats: object, required: Sequence[str], name: str = "statistics") -> pd.DataFrame:
    """A statistics table with the required columns, or a clear error."""
    if not isinstance(stats, pd.DataFrame):
        raise TypeError(f"{name} must be a statistics DataFrame; got {type(stats).__name__}.")
    missing = [c for c in required if c not in stats.columns]
    if missing:
        raise ValueError(
            f"{name} lacks the columns {missing}; "
            "pass a table returned by the matching *_statistics function."
        )
    if "label" not in (stats.index.names or []):
        raise ValueError(f"{name} must have an index level 'label'; got {list(stats.index.names)}.")
    return stats


def per_label(stats: pd.DataFrame) -> pd.DataFrame:
    """Sum a statistics table over files: one row per label, in label order."""
    summed = stats.groupby(level="label", sort=True, observed=False).sum()
    return summed


def per_file(stats: pd.DataFrame) -> pd.DataFrame:
    """Sum a statistics table over labels: one row per file."""
    return stats.groupby(level="file", sort=False, observed=True).sum()


def labels_of(stats: pd.DataFrame) -> list:
    """Labels of a table in their order."""
    level = stats.index.get_level_values("label")
    if isinstance(level.dtype, pd.CategoricalDtype):
        return list(level.categories)
    return list(pd.unique(level))


def select_labels(stats: pd.DataFrame, labels: Sequence[object]) -> pd.DataFrame:
    """Rows of the given labels, with the label level in that order.

    Labels missing from the table count as zero in every column.
    """
    labels = list(labels)
    level = stats.index.get_level_values("label")
    keep = np.asarray(level.isin(labels))
    stats = stats[keep]
    if not isinstance(stats.index, pd.MultiIndex):
        return stats
    position = stats.index.names.index("label")
    codes = pd.Index(labels, dtype=object).get_indexer(
        pd.Index(stats.index.get_level_values("label"), dtype=object)
    )
    levels = list(stats.index.levels)
    levels[position] = label_index(labels)
    all_codes = list(stats.index.codes)
    all_codes[position] = codes
    index = pd.MultiIndex(
        levels=levels, codes=all_codes, names=stats.index.names, verify_integrity=False
    )
    return stats.set_axis(index, axis=0)
