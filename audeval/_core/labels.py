"""Labels of the two inputs: codes per side and the shared label list (part of the validation gate).

Without ``labels``: categories in category order, then the sorted union of the other labels;
with ``labels``: the given list, checked, with a warning for entries that occur in neither input.
"""

from __future__ import annotations

import contextlib
import contextvars

from collections.abc import Callable, Hashable, Iterable

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

from audeval._core.warnings import UndefinedMetricWarning, warn

MAX_ROWS_SHOWN = 5


def show_rows(series: pd.Series, mask: np.ndarray) -> str:
    """The first offending rows of ``series`` as text, with a count."""
    n = int(np.count_nonzero(mask))
    shown = series[mask].head(MAX_ROWS_SHOWN).to_string()
    more = f"\n... and {n - MAX_ROWS_SHOWN} more rows" if n > MAX_ROWS_SHOWN else ""
    return f"{n} row(s), first:\n{shown}{more}"


def factorize(
    series: pd.Series | ExtensionArray, name: str, shown: Callable[[], pd.Series] | None = None
) -> tuple[np.ndarray, list]:
    """``pd.factorize`` of a Series' labels, or of a pandas array (int64 codes, -1 where missing, and the uniques).

    An unhashable label (a list, a dict) raises ``TypeError`` naming ``name``
    and showing the rows (of ``shown()`` if given), where pandas says only ``unhashable type: 'list'``.
    """
    values = series.array if isinstance(series, pd.Series) else series
    try:
        codes, uniques = pd.factorize(values)
    except TypeError:
        array = np.asarray(values, dtype=object)
        bad = np.fromiter((not isinstance(v, Hashable) for v in array), dtype=bool, count=len(array))
        if not bad.any():
            raise
        raise TypeError(
            f"{name} has unhashable labels (labels must be str, int, bool or categorical; "
            f"got {type(array[bad][0]).__name__}): {show_rows(series if shown is None else shown(), bad)}"
        ) from None
    uniques = uniques.tolist() if hasattr(uniques, "tolist") else list(uniques)
    return np.asarray(codes, dtype=np.int64), uniques


def label_codes(raw) -> tuple[np.ndarray, list, bool]:
    """Codes into a per-side list of labels, and whether it is categorical.

    Checks the labels on the way: a missing label (NaN, None, NA) is the code -1
    of the factorization (no separate ``isna`` pass over an object array),
    an unhashable one (a list) cannot be factorized; both raise naming the side.
    """
    values = raw.values  # (a Series, or a Coded input's pandas array)
    if isinstance(values.dtype, pd.CategoricalDtype):
        array = values.array if isinstance(values, pd.Series) else values
        codes = np.asarray(array.codes, dtype=np.int64)
        uniques, categorical = array.categories.tolist(), True
    else:
        codes, uniques = factorize(values, raw.name, lambda: raw.series)
        categorical = False
    bad = codes < 0
    if bad.any():
        raise ValueError(f"{raw.name} has missing (NaN) labels: {show_rows(raw.series, bad)}")
    return codes, uniques, categorical


def infer_labels(sides: list[tuple[list, bool]]) -> list:
    """Categories in category order first, then the sorted union of the rest.

    Every category is kept (tables stay dense and additive);
    the macro averages leave out labels without support (:func:`audeval._core.ratios.supported`).
    """
    return _ordered_labels(sides)


def _ordered_labels(sides: list[tuple[list, bool]]) -> list:
    ordered: list = []
    seen: set = set()
    for uniques, categorical in sides:
        if categorical:
            for label in uniques:
                if label not in seen:
                    seen.add(label)
                    ordered.append(label)
    rest = {
        label
        for uniques, categorical in sides
        if not categorical
        for label in uniques
        if label not in seen
    }
    try:
        rest_sorted = sorted(rest)
    except TypeError:
        types = sorted({type(label).__name__ for label in rest})
        raise TypeError(
            f"truth and prediction hold labels of types {types} that cannot be ordered; "
            "pass labels=[...] to give the order."
        ) from None
    return ordered + rest_sorted


def used_labels(sides: list[tuple[np.ndarray, list]]) -> set:
    """Labels that occur in at least one row of either side."""
    used: set = set()
    for codes, uniques in sides:
        if len(uniques):
            present = np.bincount(codes[codes >= 0], minlength=len(uniques)) > 0
            used.update(label for label, p in zip(uniques, present) if p)
    return used


def occurring(sides: list[tuple[np.ndarray, list, bool]], label_list: list) -> np.ndarray:
    """Per entry of ``label_list``: whether a row of either side has it.

    A row makes a label occur, also a row of zero length
    (a category without rows does not).
    """
    out = np.zeros(len(label_list), dtype=bool)
    if not label_list:
        return out
    index = None
    for codes, uniques, categorical in sides:
        if not len(uniques):
            continue
        if categorical:  # categories without rows do not occur
            present = np.bincount(codes[codes >= 0], minlength=len(uniques)) > 0
            uniques = [label for label, p in zip(uniques, present) if p]
        if uniques == label_list:
            out[:] = True
            continue
        if index is None:
            index = _positions(label_list)
        found = index(uniques)
        out[found[found >= 0]] = True
    return out


def _positions(label_list: list):
    """``uniques -> positions in label_list (-1: absent)``: a dict for short lists of strings
    (a pandas hash table costs ~0.1 ms to build), else pandas' ``get_indexer``
    (its equality of mixed types, e.g. ``1`` and ``True``, stays the rule)."""
    if len(label_list) > 256 or not all(type(label) is str for label in label_list):
        index = pd.Index(label_list, dtype=object)
        return lambda uniques: np.asarray(index.get_indexer(pd.Index(uniques, dtype=object)))
    table = {label: i for i, label in enumerate(label_list)}
    return lambda uniques: np.fromiter((table.get(u, -1) for u in uniques), dtype=np.int64, count=len(uniques))


EMPTY_LABELS_ALLOWED: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "EMPTY_LABELS_ALLOWED", default=False
)
"""Set by batched paths only: a batch that holds none of the deferred labels
(``positive_labels`` checked over all batches) is computed with ``labels=[]``;
a user's ``labels=[]`` stays an error."""


@contextlib.contextmanager
def empty_labels_allowed():
    """Within the block, ``labels=[]`` selects no label instead of raising."""
    token = EMPTY_LABELS_ALLOWED.set(True)
    try:
        yield
    finally:
        EMPTY_LABELS_ALLOWED.reset(token)


def check_label_list(labels: object, used: set | list) -> list:
    """A given ``labels`` as a list: a sequence of distinct hashable labels,
    not empty when the inputs have labelled rows (``used``), else nothing would be evaluated."""
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
        raise TypeError(f"labels must be a sequence of labels; got {labels!r}.")
    label_list = list(labels)
    unhashable = [label for label in label_list if not isinstance(label, Hashable)]
    if unhashable:
        raise TypeError(f"labels must hold hashable labels (str, int, ...); got {unhashable[:3]}.")
    if len(set(label_list)) != len(label_list):
        raise ValueError(f"labels must not contain duplicates; got {label_list}.")
    if not label_list and len(used) and not EMPTY_LABELS_ALLOWED.get():
        shown = sorted(map(str, used))
        raise ValueError(
            "labels is empty: no row would be evaluated; pass labels=None for every label "
            f"or some of the labels found: {shown[:MAX_ROWS_SHOWN]}"
            f"{' ...' if len(shown) > MAX_ROWS_SHOWN else ''}."
        )
    return label_list


def given_labels(labels: object, used: set) -> list:
    """A given ``labels`` checked; entries that occur in neither input get a warning."""
    label_list = check_label_list(labels, used)
    missing = [label for label in label_list if label not in used]
    if missing and used:
        warn(
            f"labels {missing[:MAX_ROWS_SHOWN]} occur in neither truth nor prediction: "
            "their precision, recall and F-score are undefined and set to zero_division "
            "(check the spelling).",
            UndefinedMetricWarning,
        )
    return label_list


__all__ = ["MAX_ROWS_SHOWN", "check_label_list", "factorize", "given_labels", "infer_labels", "label_codes", "occurring", "show_rows", "used_labels"]
