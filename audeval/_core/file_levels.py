"""File levels of the two inputs aligned (part of the validation gate, SPEC section 1).

:func:`file_union` gives the shared, sorted file index of truth, prediction and
``files_duration`` and every level's positions in it;
:func:`positions` looks one index up in another.
Both avoid hashing where they can: equal levels give ranges,
arrow-backed strings are merged and looked up by pyarrow
(no conversion to Python objects).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from audeval._core.warnings import FilesWithoutRowsWarning, NoSharedFileWarning, warn

FILES_SHOWN = 3


def _is_arrow(index: pd.Index) -> bool:
    return hasattr(index.array, "__arrow_array__") and index.dtype.kind in "OUT"


def arrow_array(index: pd.Index):
    """The pyarrow array behind an arrow-backed index (one chunk)."""
    import pyarrow as pa

    array = pa.array(index.array)
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def strictly_increasing(index: pd.Index) -> bool:
    """Whether the entries of ``index`` are unique and sorted (each less than the next).

    Arrow strings are compared by pyarrow (pandas would hash them as Python objects
    the first time it is asked, a fifth of a small call on a new index).
    """
    if len(index) < 2:
        return True
    if _is_arrow(index):
        array = arrow_array(index)
        if array.null_count == 0:
            return arrow_increasing(array)
    return index.is_unique and index.is_monotonic_increasing


def arrow_increasing(array) -> bool:
    """Whether every entry of a pyarrow array without missing entries is less than the next."""
    import pyarrow.compute as pc

    n = len(array)
    return n < 2 or pc.less(array.slice(0, n - 1), array.slice(1)).false_count == 0


def file_union(levels: list[pd.Index], increasing: bool = False) -> tuple[pd.Index, list[np.ndarray] | None]:
    """Sorted union of file levels (sorted where possible), named ``file``,
    and the position of every level entry in it (``None``: not computed).

    Equal levels are taken as they are where they are unique and sorted
    (``increasing``: the first is known to be, as are its entries used by rows);
    arrow strings are merged by pyarrow
    (no conversion to Python objects; one dictionary encoding gives the union
    and the positions); anything else by pandas.
    """
    first = levels[0]
    if all(len(level) == len(first) and level.equals(first) for level in levels[1:]):
        if increasing or strictly_increasing(first):
            return pd.Index(first, name="file"), [np.arange(len(first), dtype=np.int64)] * len(levels)
    if all(_is_arrow(level) for level in levels) and len({level.dtype for level in levels}) == 1:
        import pyarrow as pa
        import pyarrow.compute as pc

        arrays = [arrow_array(level) for level in levels]
        encoded = pa.concat_arrays(arrays).dictionary_encode() if len({a.type for a in arrays}) == 1 else None
        if encoded is not None and encoded.null_count == 0:
            order = np.asarray(pc.sort_indices(encoded.dictionary), dtype=np.int64)
            rank = np.empty(len(order), dtype=np.int64)
            rank[order] = np.arange(len(order), dtype=np.int64)
            bounds = np.cumsum([len(a) for a in arrays])[:-1]
            positions = np.split(rank[np.asarray(encoded.indices)], bounds)
            return pd.Index(encoded.dictionary.take(pa.array(order)), dtype=first.dtype, name="file"), positions
    files = first.append(levels[1:]).unique()
    try:
        files = files.sort_values()
    except TypeError:
        pass
    return pd.Index(files, name="file"), None


def positions(values: pd.Index, target: pd.Index, *, unique: bool = False) -> np.ndarray:
    """``values.get_indexer(target)`` as int64, without hashing where it can be avoided.

    Equal indexes give ``arange``; arrow strings are looked up by pyarrow
    (``values`` must be unique, as for ``get_indexer``; ``unique=True`` says it is).
    """
    if len(values) == len(target) and values.equals(target) and (unique or values.is_unique):
        return np.arange(len(target), dtype=np.int64)
    if _is_arrow(values) and _is_arrow(target) and values.dtype == target.dtype:
        import pyarrow.compute as pc

        value_array, target_array = arrow_array(values), arrow_array(target)
        if value_array.type == target_array.type and (
            unique or pc.count_distinct(value_array, mode="all").as_py() == len(value_array)
        ):
            found = pc.index_in(target_array, value_set=value_array)
            return np.asarray(pc.fill_null(found, -1).to_numpy(zero_copy_only=False), dtype=np.int64)
    return np.asarray(values.get_indexer(target), dtype=np.int64)


def _shown(files: pd.Index) -> str:
    names = ", ".join(repr(f) for f in files[:FILES_SHOWN])
    return f"{names}{', ...' if len(files) > FILES_SHOWN else ''}"


def _stem(file: object) -> str:
    return os.path.splitext(os.path.basename(str(file)))[0]


def report_files(
    files: pd.Index,
    present: list[np.ndarray],
    names: list[str],
    known: np.ndarray | None,
) -> None:
    """Warn about file names that are likely mistakes (part of the validation gate).

    ``present[k]``: per file of ``files``, whether side ``names[k]`` has a row in it;
    ``known``: per file, whether ``files_duration`` gives its duration
    (``None``: its files are not evaluated files).

    - :class:`NoSharedFileWarning`: every side has rows and no file has rows in two sides
      (files match by exact equality of the ``file`` level);
    - :class:`FilesWithoutRowsWarning`: files of ``files_duration`` without a row in any side
      (evaluated as files without events).
    """
    if len(present) >= 2 and all(p.any() for p in present) and not (np.sum(present, axis=0) > 1).any():
        sides = "; ".join(
            f"{name} has {int(p.sum())} file(s): {_shown(files[p])}" for name, p in zip(names, present)
        )
        stems = [{_stem(f) for f in files[p]} for p in present]
        hint = (
            " Their names agree without folder and extension: "
            "rename the files of one side (e.g. with index.set_levels)."
            if set.intersection(*stems)
            else ""
        )
        warn(
            f"{' and '.join(names) if len(names) == 2 else 'the inputs'} share no file, so every row is "
            "scored as missed or as a false alarm. Files are matched by exact equality "
            f"of the 'file' index level (no folder or extension is stripped): {sides}.{hint}",
            NoSharedFileWarning,
        )
    if known is not None and known.any():
        alone = known & ~np.logical_or.reduce(present) if present else known
        if alone.any():
            warn_files_without_rows(files[alone], f"occur in neither {' nor '.join(names)}")


def warn_files_without_rows(files: pd.Index, where: str) -> None:
    """:class:`FilesWithoutRowsWarning` for ``files`` of ``files_duration`` without rows.

    ``where`` says where they have no rows, e.g. ``"occur in neither truth nor prediction"``;
    batched paths (an accumulator, dask partitions) may say ``"are in no batch"``.
    """
    warn(
        f"{len(files)} file(s) of files_duration {where} "
        f"({_shown(files)}): they are evaluated as files without events "
        "(true negatives only). Pass only the durations of the files to evaluate, "
        "or silence this with "
        "warnings.filterwarnings('ignore', category=audeval.FilesWithoutRowsWarning).",
        FilesWithoutRowsWarning,
    )


__all__ = ["arrow_array", "arrow_increasing", "file_union", "positions", "report_files", "warn_files_without_rows"]
