"""Additive statistics as a feature: sum tables, accumulate over batches (SPEC section 2).

Every metric family has one public statistics function
(``event_statistics``, ``segment_statistics``, ``diarization_statistics``,
``detection_statistics``)
returning an additive table indexed by ``(file, label)``
(or by ``file`` where a family has no labels),
and every metric of the family accepts such a table
in place of ``truth`` with ``prediction=None``.
This module adds what follows from additivity:

* :func:`sum_statistics` sums tables of shards of whole files
  into the table of their union (identical to the one-shot table);
* :class:`Accumulator` collects the statistics of validation batches
  and reduces them with the family's own metric functions.

Nothing here counts events or seconds itself:
statistics come from the family's statistics function,
metrics from the family's metric functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
import dataclasses
import importlib
import inspect

import numpy as np
import pandas as pd

from audeval._tables import label_index


# -------------------------------------------------------------------------
# Families
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Family:
    """Where the statistics and report functions of a metric family live."""

    name: str
    module: str
    statistics: str
    report: str | None
    pooled: bool = True
    """Every metric is a function of the statistics summed over files.

    Not so for diarization (a label mapping per file, JER averaged over files):
    a bootstrap resample then keeps its files apart.
    """
    metrics: tuple[str, ...] = ()
    """Metrics of the family whose names do not start with its name."""
    requires: tuple[tuple[str, str, object], ...] = ()
    """``(metric, option, value)``: statistics options a metric needs."""

    def required_options(self, metric: Callable | None) -> dict:
        """Statistics options that ``metric`` needs (e.g. the confusion columns)."""
        name = getattr(metric, "__name__", None)
        return {option: value for m, option, value in self.requires if m == name}

    def _module(self):
        try:
            return importlib.import_module(self.module)
        except ImportError:
            raise ValueError(
                f"the {self.name} family is not available in this version of audeval."
            ) from None

    @property
    def statistics_function(self) -> Callable:
        function = getattr(self._module(), self.statistics, None)
        if function is None:
            raise ValueError(
                f"the {self.name} family is not available in this version of audeval "
                f"({self.statistics} is missing)."
            )
        return function

    @property
    def report_function(self) -> Callable | None:
        if self.report is None:
            return None
        return getattr(self._module(), self.report, None)

    @property
    def available(self) -> bool:
        try:
            self.statistics_function
        except ValueError:
            return False
        return True


FAMILIES = {
    family.name: family
    for family in (
        Family(
            "event",
            "audeval._events",
            "event_statistics",
            "event_report",
            requires=(("event_confusion_matrix", "confusion", True),),
        ),
        Family("segment", "audeval._segments", "segment_statistics", "segment_report"),
        Family(
            "diarization",
            "audeval._diarization",
            "diarization_statistics",
            "diarization_report",
            pooled=False,
            metrics=("identification_error_rate", "jaccard_error_rate"),
        ),
        Family("detection", "audeval._diarization", "detection_statistics", "detection_report"),
    )
}


def family_of(metric: Callable | str, family: str | None = None) -> Family:
    """The family of a metric function (or a family name).

    Found from the function's module, and its name prefix
    where a module holds several families.
    """
    if family is not None:
        if family not in FAMILIES:
            raise ValueError(f"family must be one of {sorted(FAMILIES)}; got {family!r}.")
        return FAMILIES[family]
    if isinstance(metric, str):
        if metric not in FAMILIES:
            raise ValueError(
                f"metric must be a metric function or a family name {sorted(FAMILIES)}; "
                f"got {metric!r}."
            )
        return FAMILIES[metric]
    if not callable(metric):
        raise TypeError(f"metric must be a metric function; got {type(metric).__name__}.")
    module = getattr(metric, "__module__", None)
    name = getattr(metric, "__name__", "")
    candidates = [f for f in FAMILIES.values() if f.module == module]
    if len(candidates) > 1:
        by_name = [
            f for f in candidates if name.startswith(f.name + "_") or name in f.metrics
        ]
        if len(by_name) == 1:
            return by_name[0]
        # a module's statistics function named as the metric's family
        by_statistics = [f for f in candidates if name == f.statistics]
        if len(by_statistics) == 1:
            return by_statistics[0]
    elif len(candidates) == 1:
        return candidates[0]
    by_name = [f for f in FAMILIES.values() if name.startswith(f.name + "_")]
    if len(by_name) == 1:
        return by_name[0]
    raise ValueError(
        f"cannot tell the metric family of {name or metric!r}; "
        f"pass family= one of {sorted(FAMILIES)}."
    )


def _parameters(function: Callable) -> tuple[set[str], bool]:
    """Keyword parameter names of a function and whether it takes ``**kwargs``."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return set(), True
    names = set()
    var_keyword = False
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            var_keyword = True
        elif parameter.kind is not inspect.Parameter.VAR_POSITIONAL:
            names.add(parameter.name)
    return names, var_keyword


_POSITIONAL = {"truth", "prediction", "labels"}


def split_options(
    family: Family,
    metric: Callable | None,
    options: dict,
) -> tuple[dict, dict]:
    """Options of the statistics function and options of the metric.

    An option the statistics function takes goes there
    (tolerances, matching, resolution, ``files_duration``, ...);
    the rest (``average``, ``zero_division``, ...) goes to the metric.
    Unknown options raise ``TypeError`` naming them.
    """
    statistics_names, _ = _parameters(family.statistics_function)
    statistics_names -= _POSITIONAL
    bad = sorted(set(options) & _POSITIONAL)
    if bad:
        raise TypeError(f"{bad} are arguments, not options.")
    statistics_options = {
        **family.required_options(metric),
        **{k: v for k, v in options.items() if k in statistics_names},
    }
    metric_options = {k: v for k, v in options.items() if k not in statistics_names}
    if metric_options:
        if metric is None:
            raise TypeError(
                f"unknown options {sorted(metric_options)} for {family.statistics}."
            )
        metric_names, var_keyword = _parameters(metric)
        unknown = sorted(set(metric_options) - metric_names)
        if unknown and not var_keyword:
            name = getattr(metric, "__name__", repr(metric))
            raise TypeError(f"unknown options {unknown} for {name} and {family.statistics}.")
    return statistics_options, metric_options


def compute_statistics(
    family: Family,
    truth: pd.Series,
    prediction: pd.Series,
    labels: Sequence[object] | None,
    statistics_options: dict,
) -> pd.DataFrame:
    """The family's statistics function, with ``labels`` where it takes them."""
    return call_statistics(
        family.statistics_function, truth, prediction, labels, statistics_options
    )


def call_statistics(
    function: Callable,
    truth: pd.Series,
    prediction: pd.Series,
    labels: Sequence[object] | None,
    statistics_options: dict,
) -> pd.DataFrame:
    """A statistics function, with ``labels`` where it takes them."""
    names, _ = _parameters(function)
    if "labels" in names:
        return function(truth, prediction, labels, **statistics_options)
    if labels is not None:
        name = getattr(function, "__name__", repr(function))
        raise TypeError(f"{name} does not take labels.")
    return function(truth, prediction, **statistics_options)


def select_labels(table: pd.DataFrame, labels: Sequence[object] | None) -> pd.DataFrame:
    """Rows of the given labels, the label level holding exactly them in their order."""
    if labels is None or "label" not in (table.index.names or []):
        return table
    labels = list(labels)
    index = table.index
    position = list(index.names).index("label")
    values = pd.Index(np.asarray(index.get_level_values("label"), dtype=object), dtype=object)
    codes = pd.Index(labels, dtype=object).get_indexer(values)
    keep = codes >= 0
    table = table[keep]
    if isinstance(index, pd.MultiIndex):
        new_index = table.index.set_levels(label_index(labels), level=position, verify_integrity=False)
        new_index = new_index.set_codes(codes[keep], level=position, verify_integrity=False)
    else:
        new_index = label_index(labels).take(codes[keep])
    table = table.copy()
    table.index = new_index
    return table


def empty_statistics(
    family: Family,
    labels: Sequence[object] | None,
    statistics_options: dict,
) -> pd.DataFrame:
    """The family's table of no files (the right columns and index levels)."""
    index = pd.MultiIndex.from_arrays(
        [
            pd.Index([], dtype=object),
            pd.TimedeltaIndex([], dtype="timedelta64[ns]"),
            pd.TimedeltaIndex([], dtype="timedelta64[ns]"),
        ],
        names=["file", "start", "end"],
    )
    empty = pd.Series([], index=index, dtype=object)
    return compute_statistics(family, empty, empty, labels, statistics_options)


# -------------------------------------------------------------------------
# Summing tables
# -------------------------------------------------------------------------


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


def _order_columns(columns: list[str], labels: list) -> list[str]:
    """Columns named ``<prefix><label>`` follow the label order within their prefix."""
    names = [str(label) for label in labels]
    key: dict[str, tuple[str, int]] = {}
    for column in columns:
        if not isinstance(column, str):
            continue
        for position, name in sorted(enumerate(names), key=lambda x: -len(x[1])):
            if name and column.endswith(name) and len(column) > len(name):
                key[column] = (column[: -len(name)], position)
                break
    prefixes = {}
    for column, (prefix, _) in key.items():
        prefixes.setdefault(prefix, []).append(column)
    # only prefixes shared by several label columns (or matching every label) are label blocks
    blocks = {p: cs for p, cs in prefixes.items() if len(cs) > 1 or len(names) == 1}
    out: list[str] = []
    done: set[str] = set()
    for column in columns:
        if column in done:
            continue
        block = key.get(column, (None,))[0] if isinstance(column, str) else None
        if block in blocks:
            for member in sorted(blocks[block], key=lambda c: key[c][1]):
                out.append(member)
                done.add(member)
        else:
            out.append(column)
            done.add(column)
    return out


def sum_statistics(tables: Iterable[pd.DataFrame]) -> pd.DataFrame:
    r"""Sum statistics tables; tables of disjoint whole files give the table of their union.

    Rows with the same index (``file``, ``label``) are added,
    the result covers the union of files and labels
    on the dense ``(file, label)`` grid (missing rows count as 0),
    and integer columns stay integer.
    Files are sorted where they can be ordered;
    labels keep their order when all tables share it,
    else the sorted union (the order of ``labels=None``).
    Columns named after labels
    (like ``substituted_by_<label>``)
    are filled with 0 where a table lacks them.
    A row missing from a table means the label was not seen in its files:
    all its counts are 0,
    except in tables with the columns ``tp``, ``fp``, ``fn``, ``tn``
    (segment statistics),
    where such a row gets ``tn`` = the total of the file's other rows
    (the label was inactive in every segment of the file),
    and the per-file column ``substitutions`` is kept in the row
    of the file's first label (as :func:`audeval.segment_statistics` does).

    For tables of *disjoint* sets of whole files
    the result is identical to the table
    of the statistics function called on all files at once
    (with the same ``labels`` or with ``labels=None``).
    Plain pandas gives the same sums
    (``pd.concat(tables)``, ``pd.concat(tables).groupby(level=["file", "label"]).sum()``
    or ``a.add(b, fill_value=0)``)
    and every metric accepts those as well,
    but only when all tables were computed with the same ``labels``
    (else segment tables lack the true negatives of the missing labels),
    and pandas may change dtypes and the label order.

    Args:
        tables: statistics tables of one family

    Returns:
        summed statistics table

    Raises:
        TypeError: if a table is not a DataFrame
        ValueError: if no table is given
            or the tables differ in their index levels

    Examples:
        >>> import audformat
        >>> import audeval
        >>> def events(files, starts, ends, labels):
        ...     index = audformat.segmented_index(files, starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> truth = events(["f1", "f2"], [0.0, 0.0], [1.0, 1.0], ["a", "b"])
        >>> prediction = events(["f1", "f2"], [0.0, 5.0], [1.0, 6.0], ["a", "b"])
        >>> shards = [
        ...     audeval.event_statistics(truth.loc[[f]], prediction.loc[[f]])
        ...     for f in ["f1", "f2"]
        ... ]
        >>> stats = audeval.sum_statistics(shards)
        >>> stats.equals(audeval.event_statistics(truth, prediction))
        True
        >>> audeval.event_fscore(stats, None, average="macro")
        0.5

    """
    if isinstance(tables, pd.DataFrame):
        tables = [tables]
    tables = list(tables)
    if not tables:
        raise ValueError("tables is empty: pass at least one statistics table.")
    for table in tables:
        if not isinstance(table, pd.DataFrame):
            raise TypeError(
                f"tables must hold statistics DataFrames; got {type(table).__name__}."
            )
    names = list(tables[0].index.names)
    for table in tables[1:]:
        if list(table.index.names) != names:
            raise ValueError(
                "the statistics tables have different index levels: "
                f"{names} and {list(table.index.names)}."
            )
    if "file" not in names:
        raise ValueError(f"statistics tables must have an index level 'file'; got {names}.")

    # union of the values of every level
    levels: dict[str, list | pd.Index] = {}
    categorical: dict[str, bool] = {}
    for i, name in enumerate(names):
        categorical[name] = name == "label" or any(_is_categorical(t, i) for t in tables)
        if not categorical[name]:
            levels[name] = _index_union([_level_index(t, i) for t in tables])
            continue
        lists = [list(_level_index(t, i)) for t in tables]
        if all(values == lists[0] for values in lists):
            levels[name] = lists[0]
        else:
            levels[name] = _sortable_union(lists, sort=all(_is_sorted(v) for v in lists))
    columns = _sortable_union([list(t.columns) for t in tables], sort=False)
    if "label" in levels:
        columns = _order_columns(columns, levels["label"])

    # one int64 key per row, in C order of the levels (missing values first);
    # (file, label) tables are dense: every file has a row for every label
    dense = names == ["file", "label"]
    shift = 0 if dense else 1
    shape = [len(levels[name]) + shift for name in names]
    targets = [pd.Index(levels[name], dtype=object) for name in names]
    keys = []
    for table in tables:
        key = np.zeros(len(table), dtype=np.int64)
        for i, n in enumerate(shape):
            codes = _codes_into(table.index, i, targets[i])
            if dense and (codes < 0).any():
                raise ValueError("statistics tables must not have missing file or label values.")
            key = key * n + codes + shift
        keys.append(key)
    all_keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    if dense:
        out_keys = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
        inverse = all_keys
        repeated = bool(len(all_keys)) and np.bincount(all_keys, minlength=len(out_keys)).max() > 1
    else:
        out_keys, inverse = np.unique(all_keys, return_inverse=True)
        repeated = len(out_keys) != len(all_keys)

    # sums, in int64 (nanoseconds for timedeltas) or float64
    storage = {}
    dtypes = {}
    for column in columns:
        present = [t[column].dtype for t in tables if column in t.columns]
        dtype = dtypes[column] = _sum_dtype(present)
        out = np.zeros(len(out_keys), dtype=_storage(dtype))
        offset = 0
        for table, key in zip(tables, keys):
            if column in table.columns and len(table):
                values = _as_storage(table[column].to_numpy(), dtype)
                where = inverse[offset : offset + len(key)]
                if repeated:
                    np.add.at(out, where, values)
                else:
                    out[where] += values
            offset += len(key)
        storage[column] = out
    if dense:
        _fill_true_negatives(storage, all_keys, shape)
    data = {
        column: out.view(dtypes[column]) if dtypes[column].kind == "m" else out
        for column, out in storage.items()
    }

    # the index
    if len(out_keys):
        codes = [c - shift for c in np.unravel_index(out_keys, shape)]
    else:
        codes = [np.zeros(0, dtype=np.int64) for _ in names]
    index_levels = []
    for name in names:
        if categorical[name]:
            index_levels.append(label_index(levels[name]).rename(name))
        else:
            index_levels.append(pd.Index(_typed(levels[name], tables, name), name=name))
    if len(names) == 1:
        index = pd.Index(index_levels[0].take(codes[0]), name=names[0])
    else:
        index = pd.MultiIndex(
            levels=index_levels, codes=list(codes), names=names, verify_integrity=False
        )
    return pd.DataFrame(data, index=index, columns=pd.Index(columns))


CONFUSION_COUNTS = ("tp", "fp", "fn", "tn")


def _fill_true_negatives(storage: dict, keys: np.ndarray, shape: list) -> None:
    """Rows missing from a confusion-count table get ``tn`` = the file's total.

    And per-file ``substitutions`` go to the row of the file's first label.

    In a table with the columns ``tp``, ``fp``, ``fn``, ``tn`` (segment statistics)
    every row of a file has the same ``tp + fp + fn + tn``
    (its number of segments or its duration),
    and a label that a shard did not know
    was inactive in truth and prediction: all true negatives.
    """
    if not all(c in storage for c in CONFUSION_COUNTS):
        return
    n_files, n_labels = shape
    if "substitutions" in storage and n_labels:
        # a per-file count, kept in the row of the file's first label
        per_file = storage["substitutions"].reshape(n_files, n_labels).sum(axis=1)
        storage["substitutions"][:] = 0
        storage["substitutions"].reshape(n_files, n_labels)[:, 0] = per_file
    present = np.zeros(n_files * n_labels, dtype=bool)
    present[keys] = True
    if present.all():
        return
    total = sum(storage[c] for c in CONFUSION_COUNTS).reshape(n_files, n_labels)
    per_file = np.where(present.reshape(n_files, n_labels), total, 0).max(axis=1)
    missing = ~present
    storage["tn"][missing] = np.repeat(per_file, n_labels)[missing]


def _is_categorical(table: pd.DataFrame, level: int) -> bool:
    index = table.index
    values = index.levels[level] if isinstance(index, pd.MultiIndex) else index
    return isinstance(values.dtype, pd.CategoricalDtype)


def _level_index(table: pd.DataFrame, level: int) -> pd.Index:
    """Values of a level: categories in order, else the used values in level order."""
    index = table.index
    if isinstance(index, pd.MultiIndex):
        values = index.levels[level]
        if isinstance(values.dtype, pd.CategoricalDtype):
            return pd.Index(values.categories)
        codes = np.asarray(index.codes[level])
        used = np.bincount(codes[codes >= 0], minlength=len(values)) > 0
        return values[used]
    if isinstance(index.dtype, pd.CategoricalDtype):
        return pd.Index(index.categories)
    return pd.Index(pd.unique(index.dropna()))


def _index_union(indexes: list[pd.Index]) -> pd.Index:
    """Union of the values, sorted where they can be ordered."""
    if not indexes:
        return pd.Index([])
    values = np.concatenate([np.asarray(ix, dtype=object) for ix in indexes])
    union = pd.Index(pd.unique(values))
    try:
        return union.sort_values()
    except TypeError:
        return union


def _sum_dtype(dtypes: list) -> np.dtype:
    dtypes = [np.dtype(d) if not isinstance(d, np.dtype) else d for d in dtypes]
    if any(d.kind == "m" for d in dtypes):
        if not all(d.kind == "m" for d in dtypes):
            raise ValueError(
                "statistics tables mix durations (timedelta) and counts in one column; "
                "sum only tables computed with the same options."
            )
        return np.dtype("m8[ns]")
    if not dtypes:
        return np.dtype(np.int64)
    dtype = np.result_type(*dtypes)
    if dtype.kind == "b":
        return np.dtype(np.int64)
    if dtype.kind not in "iuf":
        raise ValueError(f"statistics columns must be numeric or timedelta; got {dtype}.")
    return dtype


def _storage(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.int64) if dtype.kind == "m" else dtype


def _as_storage(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "m":
        return np.asarray(values).astype("m8[ns]").view(np.int64)
    return np.asarray(values).astype(dtype, copy=False)


def _codes_into(index: pd.Index, level: int, target: pd.Index) -> np.ndarray:
    """Position of every row's level value in ``target`` (-1 for missing values)."""
    if isinstance(index, pd.MultiIndex):
        values = index.levels[level]
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = pd.Index(np.asarray(values, dtype=object))
        mapping = np.append(target.get_indexer(pd.Index(values, dtype=object)), -1)
        codes = np.asarray(index.codes[level], dtype=np.int64)
        return mapping[codes].astype(np.int64)
    values = pd.Index(np.asarray(index, dtype=object), dtype=object)
    return target.get_indexer(values).astype(np.int64)


def _typed(values, tables: list[pd.DataFrame], name: str) -> pd.Index:
    """Level values with the dtype of the tables' level where they agree."""
    position = list(tables[0].index.names).index(name)
    dtypes = {
        (t.index.levels[position] if isinstance(t.index, pd.MultiIndex) else t.index).dtype
        for t in tables
        if len(t)
    }
    if len(dtypes) == 1:
        try:
            return pd.Index(values, dtype=dtypes.pop())
        except (TypeError, ValueError):
            pass
    return pd.Index(values)


# -------------------------------------------------------------------------
# Accumulator
# -------------------------------------------------------------------------


class Accumulator:
    r"""Accumulate statistics over batches and compute metrics from their sum.

    For model-validation loops:
    :meth:`update` computes the statistics of a batch
    with the family's statistics function
    (e.g. :func:`audeval.event_statistics`),
    :meth:`compute` reduces the summed table
    with the metric function itself
    (``metric(statistics, None, **metric_options)``),
    so the result is identical to calling the metric
    on all batches at once,
    as long as every file is in one batch only
    (a file seen twice raises ``ValueError``).

    Options that the family's statistics function takes
    (tolerances, ``matching``, ``files_duration``, ...)
    are used in :meth:`update`,
    the others (``average``, ``zero_division``, ...)
    are passed to the metric in :meth:`compute`.

    Args:
        metric: a metric function (e.g. :func:`audeval.event_fscore`),
            or a family name
            (``"event"``, ``"segment"``, ``"diarization"``, ``"detection"``)
            to pass the metric to :meth:`compute` later
        labels: labels to evaluate, as for the metric;
            ``None``: the labels of each batch,
            summed as :func:`sum_statistics` does
            (for non-categorical labels that is the sorted union,
            as in a one-shot call)
        family: the metric family, if it cannot be told from ``metric``
        **options: options of the statistics function and of the metric

    Raises:
        TypeError: on an unknown option
        ValueError: on an unknown family

    Examples:
        >>> import audformat
        >>> import audeval
        >>> def events(files, starts, ends, labels):
        ...     index = audformat.segmented_index(files, starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> accumulator = audeval.Accumulator(
        ...     audeval.event_fscore, average="macro", onset_tolerance=0.2, offset_tolerance=0.2
        ... )
        >>> accumulator.update(
        ...     events(["f1"], [0.0], [1.0], ["a"]), events(["f1"], [0.1], [1.1], ["a"])
        ... )
        Accumulator(event_fscore, files=1)
        >>> accumulator.update(
        ...     events(["f2"], [0.0], [1.0], ["b"]), events(["f2"], [2.0], [3.0], ["b"])
        ... )
        Accumulator(event_fscore, files=2)
        >>> accumulator.compute()
        0.5
        >>> accumulator.compute(audeval.event_error_rate)
        1.0
        >>> accumulator.report()[["n_truth", "tp", "fscore"]]
               n_truth   tp  fscore
        label
        a          1.0  1.0     1.0
        b          1.0  0.0     0.0
        micro      2.0  1.0     0.5
        macro      NaN  NaN     0.5

    """

    def __init__(
        self,
        metric: Callable | str,
        labels: Sequence[object] | None = None,
        *,
        family: str | None = None,
        **options,
    ):
        self._family = family_of(metric, family)
        self._metric = None if isinstance(metric, str) else metric
        self._labels = None if labels is None else list(labels)
        self._statistics_options, self._metric_options = split_options(
            self._family, self._metric, options
        )
        self.reset()

    # --- state ----------------------------------------------------------

    def reset(self) -> Accumulator:
        """Forget all batches.

        Returns:
            the accumulator

        """
        self._tables: list[pd.DataFrame] = []
        self._files: set = set()
        self._summed: pd.DataFrame | None = None
        return self

    @property
    def family(self) -> str:
        """Name of the metric family."""
        return self._family.name

    @property
    def metric(self) -> Callable | None:
        """The metric of :meth:`compute`."""
        return self._metric

    @property
    def files(self) -> list:
        """Files seen so far."""
        return _sortable_union([list(self._files)], sort=True)

    @property
    def n_files(self) -> int:
        """Number of files seen so far."""
        return len(self._files)

    @property
    def statistics(self) -> pd.DataFrame:
        """The summed statistics table (as :func:`sum_statistics`)."""
        if self._summed is None:
            if self._tables:
                self._summed = sum_statistics(self._tables)
            else:
                self._summed = empty_statistics(
                    self._family, self._labels, self._statistics_options
                )
            self._tables = [self._summed] if self._tables else []
        return self._summed

    def _add(self, table: pd.DataFrame) -> None:
        files = set(pd.unique(table.index.get_level_values("file")))
        repeated = self._files & files
        if repeated:
            shown = _sortable_union([list(repeated)], sort=True)
            raise ValueError(
                f"files {shown[:10]}{' ...' if len(shown) > 10 else ''} were already accumulated: "
                "every file must be in one batch only "
                "(the statistics of a split file do not add up to those of the whole file)."
            )
        self._files |= files
        self._tables.append(table)
        self._summed = None
        if len(self._tables) > 64:
            self.statistics  # noqa: B018 (consolidate)

    def update(
        self,
        truth: pd.Series | pd.DataFrame,
        prediction: pd.Series | None = None,
    ) -> Accumulator:
        """Add a batch.

        Args:
            truth: truth of the batch (audformat segmented index),
                or its statistics table
            prediction: prediction of the batch,
                ``None`` when ``truth`` is a statistics table

        Returns:
            the accumulator

        Raises:
            ValueError: if a file of the batch was already accumulated;
                on invalid input (as the metric)

        """
        if prediction is None and isinstance(truth, pd.DataFrame):
            table = select_labels(truth, self._labels)
        elif prediction is None:
            raise TypeError(
                "prediction is None: pass a prediction Series, "
                "or a statistics DataFrame in place of truth."
            )
        else:
            table = compute_statistics(
                self._family, truth, prediction, self._labels, self._statistics_options
            )
        self._add(table)
        return self

    def merge(self, other: Accumulator) -> Accumulator:
        """Add the batches of another accumulator (e.g. of another process).

        Both must be of the same family, labels and statistics options.

        Args:
            other: accumulator

        Returns:
            this accumulator

        Raises:
            TypeError: if ``other`` is not an accumulator
            ValueError: if the accumulators do not fit,
                or share a file

        """
        if not isinstance(other, Accumulator):
            raise TypeError(f"other must be an Accumulator; got {type(other).__name__}.")
        if other._family != self._family:
            raise ValueError(
                f"cannot merge a {other.family} accumulator into a {self.family} accumulator."
            )
        if other._labels != self._labels:
            raise ValueError(f"cannot merge accumulators of labels {self._labels} and {other._labels}.")
        if not _same_options(other._statistics_options, self._statistics_options):
            raise ValueError(
                "cannot merge accumulators with different statistics options: "
                f"{self._statistics_options} and {other._statistics_options}."
            )
        if other is self:
            raise ValueError("cannot merge an accumulator into itself.")
        if other._tables:
            self._add(other.statistics)
        return self

    def __add__(self, other: Accumulator) -> Accumulator:
        if not isinstance(other, Accumulator):
            return NotImplemented
        out = self.copy()
        return out.merge(other)

    def copy(self) -> Accumulator:
        """An independent copy."""
        out = object.__new__(Accumulator)
        out.__dict__.update(self.__dict__)
        out._tables = list(self._tables)
        out._files = set(self._files)
        return out

    # --- results --------------------------------------------------------

    def compute(self, metric: Callable | None = None, **options) -> object:
        """The metric of all accumulated batches.

        Calls ``metric(statistics, None, **options)``:
        the same code as the functional call.

        Args:
            metric: metric of the family;
                ``None``: the metric given at construction
            **options: metric options, replacing those given at construction
                (``average``, ``zero_division``, ...)

        Returns:
            what the metric returns

        Raises:
            TypeError: if no metric is known

        """
        if metric is None:
            if self._metric is None:
                raise TypeError(
                    f"this accumulator was made for the {self.family} family without a metric: "
                    "pass one to compute()."
                )
            metric = self._metric
            options = {**self._metric_options, **options}
        elif metric is self._metric:
            options = {**self._metric_options, **options}
        return metric(self.statistics, None, **options)

    def report(self, **options) -> pd.DataFrame:
        """The family's report of all accumulated batches.

        The metric options given at construction are not used here.

        Args:
            **options: options of the report function (``per_file``, ``zero_division``, ...)

        Returns:
            report table

        """
        function = self._family.report_function
        if function is None:
            raise ValueError(f"the {self.family} family has no report function.")
        return function(self.statistics, None, **options)

    def bootstrap(self, metric: Callable | None = None, **options):
        """Bootstrap confidence interval over the accumulated files.

        See :func:`audeval.bootstrap`; the metric defaults to this accumulator's.
        """
        from audeval._bootstrap import bootstrap

        if metric is None or metric is self._metric:
            if self._metric is None:
                raise TypeError("pass a metric to bootstrap().")
            metric = self._metric
            options = {**self._metric_options, **options}
        return bootstrap(metric, self.statistics, None, family=self.family, **options)

    def __repr__(self) -> str:
        what = getattr(self._metric, "__name__", None) or self.family
        return f"Accumulator({what}, files={self.n_files})"


def _same_options(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for key in a:
        x, y = a[key], b[key]
        if x is y:
            continue
        try:
            equal = x == y
            if isinstance(equal, (pd.Series, pd.DataFrame, np.ndarray)):
                equal = bool(np.all(equal)) and len(x) == len(y)
            if not bool(equal):
                return False
        except (TypeError, ValueError):
            return False
    return True


# The bootstrap and dask modules build on this one; their public names are exported here
# so that audeval/__init__.py needs one line for all of them.
from audeval._bootstrap import BootstrapResult, BootstrapWarning, bootstrap  # noqa: E402
from audeval._dask import dask_statistics  # noqa: E402


__all__ = [
    "Accumulator",
    "BootstrapResult",
    "BootstrapWarning",
    "bootstrap",
    "dask_statistics",
    "sum_statistics",
]
