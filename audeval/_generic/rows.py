"""Statistics tables as arrays (:class:`Rows`), and the sum of tables that follow each other in file order.

What travels from a dask worker is a table's arrays;
tables of disjoint files in file order (dask partitions and batches by file)
sum to their rows one after the other (:func:`concatenate_rows`),
which :func:`audeval.sum_statistics` tries before its general rule.
Also the helpers both share: unions of labels and the order of label-block columns.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pandas as pd

from audeval._core.protocol import ATTRS, stamp, stamped
from audeval._generic.registry import family_named
from audeval._core.tables import label_index, sparse_columns


def _sortable_union(lists: list[list], *, sort: bool) -> list:
    """Union in first-seen order, sorted if ``sort`` and the values can be ordered."""
    seen: dict = {}
    for values in lists:
        for value in values:
            seen.setdefault(value, None)
    union = list(seen)
    if sort:
        try:
            union = sorted(union)
        except TypeError:
            pass
    return union


def _is_sorted(values: list) -> bool:
    try:
        return all(a <= b for a, b in zip(values, values[1:]))
    except TypeError:
        return False


def _order_columns(columns: list[str], labels: list, family) -> list[str]:
    """The family's declared label blocks (``f"{prefix}{label}"``) follow the label order."""
    if family is None or not family.label_blocks:
        return columns
    blocks = family.block_columns(labels)
    member = {name: prefix for prefix, names in blocks.items() for name in names}
    out: list[str] = []
    done: set[str] = set()
    for column in columns:
        prefix = member.get(column) if isinstance(column, str) else None
        if prefix is None:
            out.append(column)
        elif prefix not in done:
            done.add(prefix)
            present = set(columns)
            out.extend(name for name in blocks[prefix] if name in present)
    return out


def _same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    return all((a[k] is None and b[k] is None) or (a[k] is not None and a[k] == b[k]) for k in a)



_PLAIN = (np.dtype(np.int64), np.dtype(np.float64), np.dtype("m8[ns]"))
_SPARSE = pd.SparseDtype(np.int64, 0)


@dataclasses.dataclass(frozen=True)
class Rows:
    """A ``(file, label)`` statistics table as arrays (what travels from a dask worker).

    ``columns[name]``: the values of a plain column (``int64``, ``float64``, ``timedelta64[ns]``),
    or ``(rows, values)`` of a ``Sparse[int64, 0]`` column;
    ``None`` from :func:`rows_of`: the table is not one of those.
    """

    files: pd.Index
    labels: list
    file_codes: np.ndarray
    label_codes: np.ndarray
    columns: dict
    attrs: dict

    def __len__(self) -> int:
        return len(self.file_codes)

    def packed(self) -> Rows:
        """The same rows with every ``int64`` array in the smallest unsigned type that holds it
        (what travels from a worker: counts and codes are small; :meth:`unpacked` restores them)."""
        return dataclasses.replace(
            self,
            file_codes=_narrow(self.file_codes),
            label_codes=_narrow(self.label_codes),
            columns={name: _narrow(values) for name, values in self.columns.items()},
        )

    def unpacked(self) -> Rows:
        """The rows of :meth:`packed` with ``int64`` arrays again."""
        return dataclasses.replace(
            self,
            file_codes=_widen(self.file_codes),
            label_codes=_widen(self.label_codes),
            columns={name: _widen(values) for name, values in self.columns.items()},
        )


def _narrow(values):
    """An ``int64`` array (or a sparse column's pair of them) in the smallest unsigned type of its values."""
    if isinstance(values, tuple):
        return tuple(_narrow(v) for v in values)
    if not isinstance(values, np.ndarray) or values.dtype != np.int64 or not len(values):
        return values
    low, high = values.min(), values.max()
    if low < 0:
        return values
    for dtype in (np.uint8, np.uint16, np.uint32):
        if high <= np.iinfo(dtype).max:
            return values.astype(dtype)
    return values


def _widen(values):
    if isinstance(values, tuple):
        return tuple(_widen(v) for v in values)
    if isinstance(values, np.ndarray) and values.dtype in (np.uint8, np.uint16, np.uint32):
        return values.astype(np.int64)
    return values


def rows_of(table: pd.DataFrame) -> Rows | None:
    """A statistics table as :class:`Rows` (``None``: not a ``(file, label)`` table of such columns)."""
    index = table.index
    if not isinstance(index, pd.MultiIndex) or list(index.names) != ["file", "label"]:
        return None
    if not isinstance(index.levels[1].dtype, pd.CategoricalDtype):
        return None
    columns = {}
    for column, dtype in table.dtypes.items():
        if dtype == _SPARSE:
            array = table[column].array
            keep = array.sp_values != 0
            columns[column] = (
                array.sp_index.indices[keep].astype(np.int64),
                np.asarray(array.sp_values[keep], dtype=np.int64),
            )
        elif dtype in _PLAIN:
            columns[column] = table[column].to_numpy()
        else:
            return None
    return Rows(
        index.levels[0],
        list(index.levels[1].categories),
        np.asarray(index.codes[0], dtype=np.int64),
        np.asarray(index.codes[1], dtype=np.int64),
        columns,
        copy.deepcopy(table.attrs),
    )


def rows_of_counts(
    family: str,
    files: pd.Index,
    labels: list,
    columns: dict,
    keys: np.ndarray | None,
    recorded: dict,
) -> Rows | None:
    """:class:`Rows` of counts as a family's statistics function puts them in its table
    (:func:`audeval._core.tables.statistics_frame` of ``columns`` at the row ``keys``
    ``file * n_labels + label``, ``None``: the grid; stamped with ``recorded``),
    without building the table: ``rows_of(stamp(statistics_frame(...)))``.
    ``None`` where a column is of none of the dtypes of :class:`Rows`."""
    n_files, n_labels = len(files), len(labels)
    if keys is None:
        file_codes = np.repeat(np.arange(n_files, dtype=np.int64), n_labels)
        label_codes = np.tile(np.arange(n_labels, dtype=np.int64), n_files)
    else:
        file_codes, label_codes = np.divmod(np.asarray(keys, dtype=np.int64), max(n_labels, 1))
    out: dict[str, object] = {}
    for name, values in columns.items():
        dtype = getattr(values, "dtype", None)
        if dtype == _SPARSE:
            keep = values.sp_values != 0
            out[name] = (
                values.sp_index.indices[keep].astype(np.int64),
                np.asarray(values.sp_values[keep], dtype=np.int64),
            )
        elif isinstance(values, np.ndarray) and dtype in _PLAIN:
            out[name] = values
        else:
            return None
    return Rows(
        pd.Index(files, name="file"),
        list(labels),
        file_codes,
        label_codes,
        out,
        {ATTRS: stamped(family, recorded)},  # (recorded: made for this batch)
    )


def concatenate_rows(parts: list[Rows]) -> pd.DataFrame | None:
    """The sum of the tables of ``parts`` where they are of disjoint files
    that follow each other in file order (dask partitions and batches by file):
    their rows one after the other.

    Exactly what :func:`sum_statistics` gives, in one pass over the rows;
    ``None`` where the tables are not such (the general sum decides then):
    the same family and options, indexed by ``(file, label)``, on the grid or sparse,
    each table's rows in ``(file, label)`` order, its files sorted and all used,
    the files of table *k* before those of table *k + 1*.
    A dense family needs the same labels in every table (else its missing rows are filled);
    a sparse one takes the union of labels where every table's labels keep their order in it.
    """
    plan = _plan(parts)
    if plan is None:
        return None
    family, options, labels, columns, used = plan
    file_levels = [part.files for part in used]
    if not _files_in_order(file_levels):
        return None
    n_labels = len(labels)
    positions = pd.Index(labels, dtype=object)
    file_codes, label_codes = [], []
    offset = 0
    for part in used:
        if len(part.file_codes) and part.file_codes.min() < 0:
            return None
        file_codes.append(part.file_codes + offset)
        mapping = positions.get_indexer(pd.Index(part.labels, dtype=object)).astype(np.int64)
        label_codes.append(np.append(mapping, -1)[part.label_codes])
        offset += len(part.files)
    file_code = np.concatenate(file_codes)
    label_code = np.concatenate(label_codes)
    if (label_code < 0).any():
        return None
    keys = file_code * n_labels + label_code
    if len(keys) > 1 and not (keys[1:] > keys[:-1]).all():
        return None
    rows_per_file = np.bincount(file_code, minlength=offset)
    if (rows_per_file == 0).any():  # (a file of a level without rows)
        return None
    if family.dense and len(keys) != offset * n_labels:
        return None
    data = {}
    nonzero = np.zeros(len(keys), dtype=bool)
    starts = np.cumsum([0] + [len(part) for part in used])
    for column in columns:
        if not isinstance(used[0].columns.get(column, ()), tuple):
            values = np.concatenate([part.columns[column] for part in used])
            if values.dtype.kind == "f":
                values = values + 0.0  # (-0.0 sums to 0.0)
            nonzero |= (values.view(np.int64) if values.dtype.kind == "m" else values) != 0
            data[column] = values
            continue
        pairs = [(part.columns[column], start) for part, start in zip(used, starts) if column in part.columns]
        rows = np.concatenate([where + start for (where, _), start in pairs] or [np.zeros(0, dtype=np.int64)])
        stored = np.concatenate([values for (_, values), _ in pairs] or [np.zeros(0, dtype=np.int64)])
        nonzero[rows] = True
        data[column] = sparse_columns(rows, np.zeros(len(rows), dtype=np.int64), len(keys), [column], stored)[column]
    if family.sparse:
        # rows of zeros: only the one row (first label) of a file without any
        zero = ~nonzero
        if zero.any() and ((label_code[zero] != 0).any() or (rows_per_file[file_code[zero]] != 1).any()):
            return None
    files = file_levels[0].append(file_levels[1:]) if len(file_levels) > 1 else file_levels[0]
    index = pd.MultiIndex(
        levels=[pd.Index(files, name="file"), label_index(labels).rename("label")],
        codes=[file_code, label_code],
        names=["file", "label"],
        verify_integrity=False,
    )
    out = pd.DataFrame(data, index=index, columns=pd.Index(columns))
    return stamp(out, family.name, options)


def _plan(parts: list[Rows]) -> tuple | None:
    """Family, options, labels, columns and the parts with rows of a concatenation (``None``: none)."""
    if not parts or any(part is None for part in parts):
        return None
    families = {table_family_of_attrs(part.attrs) for part in parts}
    if len(families) != 1 or None in families:
        return None
    family = family_named(families.pop())  # type: ignore[arg-type]  # None is not among them (checked above)
    if list(family.index) != ["file", "label"] or not (family.dense or family.sparse):
        return None
    options = _options_of(parts)
    if options is None:
        return None
    label_lists = [part.labels for part in parts]
    if all(labels == label_lists[0] for labels in label_lists):
        labels = label_lists[0]
    elif family.sparse:
        labels = _sortable_union(label_lists, sort=all(_is_sorted(v) for v in label_lists))
    else:
        return None
    columns = _order_columns(_sortable_union([list(p.columns) for p in parts], sort=False), labels, family)
    used = [part for part in parts if len(part)]
    if not used:
        return None
    for column in columns:
        kinds = {
            "sparse" if isinstance(p.columns[column], tuple) else p.columns[column].dtype
            for p in parts
            if column in p.columns
        }
        if len(kinds) != 1:
            return None
        if kinds.pop() != "sparse" and not all(column in p.columns for p in used):
            return None
    return family, options, labels, columns, used


def _files_in_order(file_levels: list[pd.Index]) -> bool:
    """Whether the file levels are of one dtype, each sorted and distinct, and follow each other."""
    dtype = file_levels[0].dtype
    if any(level.dtype != dtype for level in file_levels):
        return False
    try:
        for level in file_levels:
            if not (level.is_monotonic_increasing and level.is_unique):
                return False
        return all(bool(before[-1] < after[0]) for before, after in zip(file_levels, file_levels[1:]))
    except TypeError:
        return False


def table_of_rows(part: Rows) -> pd.DataFrame:
    """The statistics table of :class:`Rows` again (for the general sum)."""
    n = len(part)
    data = {}
    for column, values in part.columns.items():
        if isinstance(values, tuple):
            where, stored = values
            values = sparse_columns(where, np.zeros(len(where), dtype=np.int64), n, [column], stored)[column]
        data[column] = values
    index = pd.MultiIndex(
        levels=[part.files, label_index(part.labels).rename("label")],
        codes=[part.file_codes, part.label_codes],
        names=["file", "label"],
        verify_integrity=False,
    )
    out = pd.DataFrame(data, index=index, columns=pd.Index(list(part.columns)))
    out.attrs.update(copy.deepcopy(part.attrs))
    return out


def table_family_of_attrs(attrs: dict) -> str | None:
    meta = attrs.get(ATTRS)
    return None if meta is None else meta.get("family")


def _options_of(parts: list[Rows]) -> dict | None:
    """The options of the tables (as :func:`_check_tables` merges them); ``None``: they differ."""
    options: dict = {}
    labels_given = False
    for k, part in enumerate(parts):
        recorded = dict(part.attrs[ATTRS].get("options", {}))
        labels_given |= bool(recorded.pop("labels_given", False))
        if k and not _same(options, recorded):
            return None
        options = recorded
    if labels_given:
        options["labels_given"] = True
    return options
