"""Consecutive small partitions evaluated together where they are in one process (dask's synchronous scheduler).

A statistics call has a fixed cost (validating, matching and counting its arrays),
so on one process two partitions of 5,000 events cost more than one of 10,000.
The synchronous scheduler runs the pairs of partitions one after the other in this process:
there consecutive pairs are gathered until they hold :data:`GROUP_ROWS` rows
(truth and prediction together; at least one pair),
and each group is evaluated in one call on its partitions put one after the other
(column by column, :func:`audeval._generic.dask_partitions.to_series`).
Memory stays bounded by a group (and the partitions dask holds), as with one call per pair.

A file in two partitions of a group raises the same ``ValueError`` as one split across groups
(:func:`split_error`): a group's result records the partition of each of its files.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from audeval._generic.dask_partitions import LayoutDiffers


GROUP_ROWS = 50_000  # rows (truth and prediction) gathered into one call
# (a call's fixed cost is that of the work on a few thousand events; larger groups gain
# nothing and copy more: at 2 x 50,000 events one call was slower than two, measured)


class Group:
    """The pairs of partitions gathered so far, and the results of the groups already evaluated."""

    def __init__(self) -> None:
        self.pairs: list = []
        self.rows = 0
        self.first = 0  # the partition number of the first pair gathered
        self.results: list = []


def gather(
    evaluate: Callable, group: Group | None, k: int, truth, prediction, last: bool = False, check: bool = True
) -> Group:
    """Add pair ``k`` to the group (a chain task of the graph); evaluate the group when it is full
    or the pair is the last (``evaluate(truth, prediction)``: a partition's result tuple;
    ``truth`` and ``prediction`` may be lists of partitions of one layout, put one after the other).
    ``check=False``: the partitions hold disjoint files by construction (known file divisions),
    a split file is not looked for.
    The one group of all pairs is evaluated into its statistics table
    (``evaluate(..., table=True)``: the direct call's table, not arrays to put together).
    """
    if group is None:
        group = Group()
    if not group.pairs:
        group.first = k
    group.pairs.append((truth, prediction))
    group.rows += len(truth) + len(prediction)
    if group.rows >= GROUP_ROWS or last:
        whole = last and group.first == 0
        group.results.extend(_evaluate(evaluate, group.pairs, group.first, check, whole))
        group.pairs, group.rows = [], 0
    return group


def gather_all(evaluate: Callable, pairs: list, check: bool = True) -> list:
    """The results of every pair (partitions held in this process), as the chain of
    :func:`gather` tasks gives them."""
    group = Group()
    for k, (truth, prediction) in enumerate(pairs):
        group = gather(evaluate, group, k, truth, prediction, k == len(pairs) - 1, check)
    return group.results


def _same_layout(parts: list) -> bool:
    """Whether the partitions can be put one after the other without changing a dtype
    (of frames: the same columns and index levels; their dtypes are compared as they are read,
    :class:`audeval._generic.dask_partitions.LayoutDiffers`)."""
    first = parts[0]
    if isinstance(first, pd.DataFrame):
        return all(
            isinstance(p, pd.DataFrame) and p.columns.equals(first.columns)
            and p.index.names == first.index.names
            for p in parts[1:]
        )
    if isinstance(first, pd.Series):
        return all(
            isinstance(p, pd.Series) and p.dtype == first.dtype and p.name == first.name
            and p.index.names == first.index.names and p.index.dtype == first.index.dtype
            for p in parts[1:]
        )
    return False


def _evaluate(evaluate: Callable, pairs: list, first: int, check: bool = True, whole: bool = False) -> list:
    """The results of a group: one call on its pairs put one after the other
    (each pair alone where the partitions differ in layout;
    ``whole``: the group holds every pair, its result is a table)."""
    truths = [t for t, _ in pairs]
    predictions = [p for _, p in pairs]
    if len(pairs) > 1 and _same_layout(truths) and _same_layout(predictions):
        try:
            if not check:
                return [(*evaluate(truths, predictions, table=whole), first)]
            pieces = ([len(t) for t in truths], [len(p) for p in predictions])
            result = evaluate(truths, predictions, pieces=pieces, table=whole)
            return [(*result[:-1], _partitions(result[-1], first))]
        except LayoutDiffers:  # (a column's dtype differs: found while reading the partitions)
            pass
    whole = whole and len(pairs) == 1
    return [(*evaluate(t, p, table=whole), first + k) for k, (t, p) in enumerate(pairs)]


def _partitions(files: tuple, first: int) -> pd.Series:
    """The partition of each file of a group (``files``: the two sides' file levels and codes,
    and the rows of each pair), raising if a file is in two of its partitions."""
    (t_level, t_codes), (p_level, p_codes), (t_rows, p_rows) = files
    level = t_level.append(p_level.difference(t_level, sort=False)) if len(p_level) else t_level
    codes = np.concatenate([
        np.append(level.get_indexer(t_level), -1)[t_codes],
        np.append(level.get_indexer(p_level), -1)[p_codes],
    ])
    piece = np.concatenate([
        np.repeat(np.arange(len(t_rows)), t_rows),
        np.repeat(np.arange(len(p_rows)), p_rows),
    ])
    keep = codes >= 0
    n_pieces = np.int64(max(len(t_rows), 1))
    # the (file, partition) pairs that hold rows, sorted by file: counted where the file x partition
    # cells are few beside the rows (a tenth of a sort's cost), else sorted (no matrix of them all)
    keys = codes[keep] * n_pieces + piece[keep]
    cells = len(level) * int(n_pieces)
    pairs = np.flatnonzero(np.bincount(keys, minlength=cells)) if cells <= 4 * len(keys) + 1024 else np.unique(keys)
    file, where = np.divmod(pairs, n_pieces)
    split = np.bincount(file, minlength=len(level))[file] > 1
    if split.any():
        raise split_error(pd.Series(first + where[split], index=level.take(file[split])))
    return pd.Series(first + where, index=level.take(file))  # (each file once, in level order)


def split_error(where: pd.Series) -> ValueError:
    """The error for files in several partitions (``where``: the partition of each occurrence)."""
    shown = [
        f"{file!r} in partitions {sorted(set(group.tolist()))}"
        for file, group in list(where.groupby(level=0, sort=True))[:5]
    ]
    n = where.index.nunique()
    return ValueError(
        f"{n} file(s) are split across partitions: {'; '.join(shown)}"
        f"{' ...' if n > 5 else ''}. "
        "Every file must be in one partition of truth and of prediction; "
        "index both by file with known divisions, e.g. "
        "ddf.set_index('file') or dd.read_parquet(..., index='file', calculate_divisions=True)."
    )
