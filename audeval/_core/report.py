"""One report builder for the label families: rows per label, ``micro``, ``macro``, per-file blocks.

A report is one block of rows ``[label_1, ..., label_L, "micro", "macro"]``.
With ``per_file=True`` there is one such block per file,
indexed by ``(file, label)``, and a last block ``TOTAL``
that is the report over all files (as a pyannote.metrics report ends with its TOTAL row).
Families compute the values as arrays (a leading file axis for the per-file blocks);
this module only lays them out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import warnings

import numpy as np
import pandas as pd


TOTAL = "TOTAL"


class PerClass(dict):
    """Per-class results of every family: a dict label -> value, in label order (as audmetric).

    ``segment_*_per_class`` returned a ``pandas.Series`` before 0.2;
    Series attributes (``.index``, ``.round()``, ``.to_dict()``, ...) still work on the result
    for now, with a ``FutureWarning``: use ``pd.Series(result)``.
    """

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        series = pd.Series(self, dtype="float64")
        series.index = pd.Index(list(self), dtype=object, name="label")
        if not hasattr(series, name):
            raise AttributeError(f"'PerClass' object has no attribute {name!r}")
        warnings.warn(
            "per-class results are a dict (label -> value) in every family since audeval 0.2; "
            f"the Series attribute {name!r} will go: use pd.Series(result).{name}.",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(series, name)
"""Name of the block (or row) over all files in a per-file report."""

Values = Mapping[str, object]


def _block(
    n_labels: int,
    columns: Sequence[str],
    classwise: Values,
    micro: Values,
    macro: Values,
) -> np.ndarray:
    """Array ``(n_blocks, n_labels + 2, n_columns)`` of one or several blocks."""
    first = next(iter(micro.values()))
    n_blocks = int(np.size(first)) if np.ndim(first) else 1  # type: ignore[arg-type]  # np.size/np.ndim take any object at run time
    out = np.full((n_blocks, n_labels + 2, len(columns)), np.nan)
    for j, name in enumerate(columns):
        if name in classwise:
            out[:, :n_labels, j] = np.reshape(np.asarray(classwise[name], dtype=np.float64), (n_blocks, n_labels))
        if name in micro:
            out[:, n_labels, j] = np.asarray(micro[name], dtype=np.float64)
        if name in macro:
            out[:, n_labels + 1, j] = np.asarray(macro[name], dtype=np.float64)
    return out


def label_report(
    labels: Sequence[object],
    columns: Sequence[str],
    overall: tuple[Values, Values, Values],
    per_file: tuple[Sequence[object], Values, Values, Values] | None = None,
) -> pd.DataFrame:
    """Lay out a report from class-wise, micro and macro values.

    Args:
        labels: labels in the order of the rows
        columns: columns of the report (values missing from a block are NaN)
        overall: ``(classwise, micro, macro)`` over all files:
            ``classwise[c]`` of shape ``(n_labels,)``, ``micro[c]`` and ``macro[c]`` scalars
        per_file: ``(files, classwise, micro, macro)`` with a leading file axis;
            ``None``: the overall block only, indexed by ``label``

    Returns:
        report indexed by ``label``, or by ``(file, label)`` with a last ``TOTAL`` block

    """
    labels = list(labels)
    rows = pd.Index([*labels, "micro", "macro"], dtype=object)
    total = _block(len(labels), columns, *overall)
    if per_file is None:
        return pd.DataFrame(total[0], index=rows.rename("label"), columns=list(columns))
    files, *values = per_file
    blocks = _block(len(labels), columns, *values) if len(files) else total[:0]
    data = np.concatenate([blocks, total]).reshape(-1, len(columns))
    index = pd.MultiIndex.from_product(
        [pd.Index([*files, TOTAL], dtype=object), rows], names=["file", "label"]
    )
    return pd.DataFrame(data, index=index, columns=list(columns))


__all__ = ["PerClass", "TOTAL", "label_report"]
