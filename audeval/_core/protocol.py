"""The family protocol (SPEC section 2): what a metric family declares, and the table gate.

A family declares once, in a :class:`Family` at the end of its module:

* its statistics function and the options that the statistics table records
  (``table.attrs["audeval"]``, written by :func:`stamp`),
* the table's schema: index levels, the columns every table has,
  how a row missing from one shard is filled when tables are summed,
* its metrics (reductions of a summed table) and which of them count
  across labels (so that ``labels=`` cannot select rows of a table),
* its report.

:func:`resolve` is the "Series or statistics table" gate of the generic layers
(``Accumulator``, ``bootstrap``, ``dask_statistics`` through the registry;
a family's own metrics use :meth:`audeval._core.declare.Declaration.table`):
Series go to the family's statistics function;
a table is checked against the options the caller gave
(a mismatch raises, telling where to pass the option)
and ``labels=`` selects rows only where that gives the direct call's number.

This module is family-agnostic: it imports no family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import dataclasses
import functools
import inspect

import numpy as np
import pandas as pd

from audeval._core.options import given, value_of


__all__ = [
    "ATTRS",
    "Counts",
    "Family",
    "Parts",
    "frame_of_parts",
    "check_table",
    "is_table",
    "stamp",
    "table_family",
    "table_options",
]

ATTRS = "audeval"
"""Key of ``DataFrame.attrs`` under which a statistics table records its family and options."""

FILE_OPTIONS = ("files_duration", "uem")
"""Options that name files: every file they name is evaluated (SPEC section 1)."""


@dataclasses.dataclass(frozen=True, eq=False)
class Family:
    """The one declaration of a metric family.

    Attributes:
        name: family name (``"event"``, ``"segment"``, ...)
        statistics: public statistics function
            ``statistics(truth, prediction[, labels], **options) -> DataFrame``
        index: index levels of the statistics table
        options: keyword options of the statistics function
            that its table records (and that ``Accumulator`` routes there)
        metrics: public metrics that reduce the family's (summed) table
        cross_label: metrics whose numbers depend on several labels at once
            (substitutions): ``labels=`` cannot select rows of their table
        report: the family's report function
        pooled: every metric is a function of the column sums over files;
            ``False`` where a metric averages per-file values
            (a bootstrap resample then keeps its files apart)
        takes_labels: the statistics function takes ``labels`` (third positional)
        single_input: the statistics function takes all annotations in ``truth``
            (a mapping rater -> Series) and ``prediction=None``
        columns: columns every table of the family has (checked by the gate)
        requires: ``(metric, {option: value})``: statistics options a metric needs
            whatever the caller gives (e.g. the confusion columns)
        defaults: ``(metric, {option: value})``: statistics defaults of a metric's own
            (e.g. ``psds``'s ``cttc_threshold=0.3``); an option the caller gives wins
        fill_missing: ``fill(storage, present, shape)`` fills rows missing from a shard
            when tables are summed (``None``: missing rows count 0)
        normalise: ``normalise(options) -> options`` turns given keyword options
            into the form the table records (ns for durations);
            must accept any subset of :attr:`options`
        additive: the table's columns that add up over files
            (``None``: every column but :attr:`per_file` and the label blocks)
        per_file: columns holding a per-file value that is not summed over labels
            (e.g. a file's number of segments, repeated on each of its label rows)
        label_blocks: prefixes of label-indexed column blocks:
            one column ``f"{prefix}{label}"`` per label of the table
            (e.g. the event confusion counts ``substituted_by_<label>``)
        dense: the table holds every ``(file, label)`` row
            (rows missing from a shard are filled when tables are summed)
        reduce: ``reduce(counts, options) -> ndarray``: the metric from summed counts as arrays,
            vectorised over leading axes (resamples); ``counts`` a :class:`Counts`,
            ``options`` the metric's options with ``metric`` (its name) and ``labels``;
            raises ``NotImplementedError`` for a metric it does not reduce
            (the bootstrap then calls the metric on a table per resample)
        file_counts: ``file_counts(table, options) -> dict[name, ndarray (files, ...)] | None``:
            per-file additive counts derived from a table for ``reduce``
            where the table's columns do not add up to the metric's counts
            (diarization: errors under each file's own speaker mapping);
            ``None`` from the function: the metric has no such counts
        resample: ``resample(table, files, options) -> f | None``, ``f(counts) -> ndarray``:
            the metric of every resample (rows of a ``(resamples, files)`` count matrix)
            for a family whose rows are sparse over files
            (score tables: per-file threshold deltas); ``None``: no array path for the metric
        labels_must_occur: a label given in ``labels`` that occurs in neither input
            is an error (a misspelt label would give a perfect score);
            batched paths check it over all batches, not per batch
        scores_input: the prediction is a table with one column per label
            (scores), not a Series of labels
        coded_input: the statistics function hands its Series to the validation gate as they are,
            so batched paths (dask partitions) may give it :class:`audeval._core.sides.Coded`
            inputs in their place (their arrays, no pandas index built)
        parts: ``parts(truth, prediction, labels, **options) -> Parts``:
            the statistics of Series as arrays on the dense ``(file, label)`` grid
            (no DataFrame), for families indexed by ``(file, label)``;
            batched paths keep these and build one table when they reduce
            (:func:`frame_of_parts`). ``None``: batches keep tables
        aliases: ``{metric option: statistics option}``: a metric's option that also sets
            an option of the statistics function under another name
            (``structure_report(windows=)`` needs a table of those windows: ``window=``);
            the generic layers pass it on unless the caller gives the statistics option
        sparse: the table holds only the ``(file, label)`` rows that occur
            (a missing row counts 0 in every column;
            a file without any keeps one row of zeros with the first label;
            the labels are the categories of the ``label`` level),
            and may have pandas sparse columns;
            ``False``: one row for every file and every label (the grid)

    """

    name: str
    statistics: Callable
    index: tuple[str, ...]
    options: tuple[str, ...]
    metrics: tuple[Callable, ...]
    cross_label: tuple[Callable, ...] = ()
    report: Callable | None = None
    pooled: bool = True
    takes_labels: bool = True
    single_input: bool = False
    columns: tuple[str, ...] = ()
    requires: tuple[tuple[Callable, Mapping[str, object]], ...] = ()
    defaults: tuple[tuple[Callable, Mapping[str, object]], ...] = ()
    fill_missing: Callable | None = None
    normalise: Callable[[dict], dict] | None = None
    additive: tuple[str, ...] | None = None
    per_file: tuple[str, ...] = ()
    label_blocks: tuple[str, ...] = ()
    dense: bool = False
    reduce: Callable | None = None
    file_counts: Callable | None = None
    resample: Callable | None = None
    labels_must_occur: bool = False
    scores_input: bool = False
    coded_input: bool = False
    parts: Callable | None = None
    sparse: bool = False
    aliases: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def block_columns(self, labels: Sequence[object]) -> dict[str, list[str]]:
        """The columns of every label block, by prefix, in the order of ``labels``."""
        return {prefix: [f"{prefix}{label}" for label in labels] for prefix in self.label_blocks}

    def additive_columns(self, columns: Sequence[str], labels: Sequence[object] | None) -> list[str]:
        """The columns of a table (``columns``) that add up over files, as declared."""
        if self.additive is not None:
            return [c for c in self.additive if c in set(columns)]
        blocks = {c for names in self.block_columns(labels or []).values() for c in names}
        return [c for c in columns if c not in blocks and c not in self.per_file]

    @functools.cached_property
    def _parameters(self) -> list[str]:
        return list(inspect.signature(self.statistics).parameters)

    @property
    def file_options(self) -> tuple[str, ...]:
        """Options of the statistics function that name files (``files_duration``, ``uem``).

        Every file they name is an evaluated file (SPEC section 1):
        a batch passes only its own files' entries,
        and the files that no batch held are added when the batches are summed.
        Tables do not record them.
        """
        return tuple(name for name in FILE_OPTIONS if name in self._parameters)

    @property
    def labels_option(self) -> str | None:
        """The name of the statistics function's ``labels`` argument
        (``"positive_labels"`` for detection), ``None`` if it takes none."""
        return self._parameters[2] if self.takes_labels else None

    def required_options(self, metric: Callable | None) -> dict:
        """Statistics options of ``metric``: its own defaults (:attr:`defaults`),
        then what it needs (:attr:`requires`)."""
        out: dict = {}
        for function, options in (*self.defaults, *self.requires):
            if function is metric:
                out.update(options)
        return out

    def soft_options(self, metric: Callable | None) -> frozenset:
        """The names of :meth:`required_options` that an option the caller gives overrides."""
        hard = {name for function, options in self.requires if function is metric for name in options}
        return frozenset(
            name for function, options in self.defaults if function is metric for name in options
        ) - hard

    def labels_of(self, labels, options: Mapping[str, object]):
        """``labels``, or the option that names them (``positive_labels=``); both raise."""
        name = self.labels_option
        if name is None or name == "labels" or name not in options:
            return labels
        value = value_of(options[name])
        if labels is not None and value is not None:
            raise TypeError(
                f"labels and {name} name the same argument of {self.statistics.__name__}; "
                "give one of them."
            )
        return value if labels is None else labels

    def normalised(self, options: Mapping[str, object]) -> dict:
        """Options in the form the table records them."""
        options = {k: value_of(v) for k, v in options.items()}
        if self.normalise is None:
            return options
        return self.normalise(options)

    def compute(self, truth, prediction, labels, options: Mapping[str, object]) -> pd.DataFrame:
        """Call the statistics function with the options it takes.

        ``labels`` may also be given by the name of the statistics function's argument
        among the options (``positive_labels=`` of detection).
        """
        options = {k: value_of(v) for k, v in options.items()}
        labels = self.labels_of(labels, options)
        options.pop(self.labels_option, None)  # type: ignore[arg-type]  # dict.pop(None, None) is a no-op
        if self.takes_labels:
            return self.statistics(truth, prediction, labels, **options)
        if labels is not None:
            raise TypeError(f"{self.statistics.__name__} does not take labels.")
        return self.statistics(truth, prediction, **options)


@dataclasses.dataclass(frozen=True)
class Counts:
    """Summed counts of a family's table as arrays, for :attr:`Family.reduce`.

    Every array has leading axes (e.g. resamples) before the table's own axes:
    ``columns[name]``: ``(..., n_labels)`` for a table indexed by ``(file, label)``,
    ``(...)`` for one indexed by ``file``;
    ``blocks[prefix]``: ``(..., n_labels, n_labels)``
    (row: the label of the table row, column: the label of the block column);
    ``recorded``: the options the table records.
    """

    columns: Mapping[str, np.ndarray]
    labels: list | None = None
    blocks: Mapping[str, np.ndarray] = dataclasses.field(default_factory=dict)
    recorded: Mapping[str, object] = dataclasses.field(default_factory=dict)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]


# -------------------------------------------------------------------------
# Tables
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Parts:
    """The statistics of some files as arrays on the dense ``(file, label)`` grid.

    ``columns[name]`` holds ``len(files) * len(labels)`` values
    in the order ``file * len(labels) + label``;
    ``recorded``: the options the table records.
    """

    files: pd.Index
    labels: list
    columns: Mapping[str, np.ndarray]
    recorded: Mapping[str, object]

    def key(self) -> tuple:
        """Parts of equal keys concatenate (same labels, columns and options)."""
        return (tuple(self.labels), tuple(self.columns), repr(sorted(self.recorded.items(), key=str)))


def frame_of_parts(family: str, parts: Sequence[Parts]) -> pd.DataFrame:
    """One statistics table of the parts of disjoint files with the same :meth:`Parts.key`.

    The rows are those of the parts one after the other, files sorted where they can be
    (the order of the statistics function's table of all files).
    """
    first = parts[0]
    n_labels = len(first.labels)
    files = first.files.append([p.files for p in parts[1:]]) if len(parts) > 1 else first.files
    columns = {
        name: np.concatenate([p.columns[name] for p in parts]) if len(parts) > 1 else first.columns[name]
        for name in first.columns
    }
    try:
        order = np.argsort(np.asarray(files, dtype=object), kind="stable")
    except TypeError:
        order = None
    if order is not None and (np.diff(order) < 0).any():
        files = files.take(order)
        rows = (order[:, None] * n_labels + np.arange(n_labels)).ravel()
        columns = {name: values[rows] for name, values in columns.items()}
    codes_file = np.repeat(np.arange(len(files)), n_labels)
    codes_label = np.tile(np.arange(n_labels), len(files))
    labels = pd.CategoricalIndex(
        list(first.labels), categories=pd.Index(list(first.labels), dtype=object), ordered=True, name="label"
    )
    index = pd.MultiIndex(
        levels=[pd.Index(files, name="file"), labels],
        codes=[codes_file, codes_label],
        names=["file", "label"],
        verify_integrity=False,
    )
    return stamp(pd.DataFrame(dict(columns), index=index), family, dict(first.recorded))


class Stamp(dict):
    """What a table records in ``table.attrs["audeval"]``: ``{"family": name, "options": {...}}``.

    pandas deep-copies ``attrs`` into every object it derives from a table
    (each column taken, each slice, each copy); a copy of the stamp copies its options mapping
    (so a derived table may change its own) but shares the option values
    (durations, ``uem``, label lists: values no function changes in place),
    as :func:`table_options` shares them; before, every option value was copied each time.
    """

    def __deepcopy__(self, memo: dict) -> Stamp:
        copied = Stamp(self)
        if isinstance(copied.get("options"), dict):
            copied["options"] = dict(copied["options"])
        return copied


def stamped(family: str, options: Mapping[str, object]) -> Stamp:
    """A new :class:`Stamp` of ``family`` and ``options``."""
    return Stamp(family=family, options=dict(options))


def stamp(table: pd.DataFrame, family: str, options: Mapping[str, object]) -> pd.DataFrame:
    """Record in ``table.attrs`` the family and the options the table was made with."""
    table.attrs[ATTRS] = stamped(family, options)
    return table


def is_table(obj: object) -> bool:
    """Whether ``obj`` is a statistics table (a DataFrame stamped by a family)."""
    return isinstance(obj, pd.DataFrame) and ATTRS in obj.attrs


def table_family(table: pd.DataFrame) -> str | None:
    """Family name recorded in a statistics table (``None``: not recorded)."""
    meta = table.attrs.get(ATTRS) if isinstance(table, pd.DataFrame) else None
    return None if meta is None else meta.get("family")


def table_options(table: pd.DataFrame) -> dict:
    """Options recorded in a statistics table (empty: not recorded)."""
    meta = table.attrs.get(ATTRS) if isinstance(table, pd.DataFrame) else None
    return {} if meta is None else dict(meta.get("options", {}))


def _equal(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is b
    try:
        equal = a == b
        if isinstance(equal, (np.ndarray, pd.Series, pd.DataFrame)):
            return bool(np.all(equal)) and np.shape(a) == np.shape(b)  # type: ignore[call-overload]  # np.shape takes any object at run time
        return bool(equal)
    except (TypeError, ValueError):
        return False


def show_value(value: object) -> str:
    if isinstance(value, pd.Timedelta):
        return f"{value.total_seconds():g} s"
    return repr(value)


def check_table(
    table: object,
    prediction: object,
    *,
    family: Family | str,
    given: Mapping[str, object] | None = None,
    statistics_name: str | None = None,
) -> dict:
    """Check a statistics table given in place of ``truth``; return its options.

    Raises ``TypeError`` if ``table`` is not a DataFrame or ``prediction`` is not ``None``,
    ``ValueError`` if the table belongs to another family,
    lacks the family's columns,
    or was made with another value of a given option.
    """
    name = family if isinstance(family, str) else family.name
    if statistics_name is None:
        statistics_name = f"{name}_statistics" if isinstance(family, str) else family.statistics.__name__
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            f"truth must be a Series or a table from {statistics_name}; got {type(table).__name__}."
        )
    if prediction is not None:
        raise TypeError(
            f"prediction must be None when truth is a statistics table; got {type(prediction).__name__}."
        )
    recorded_family = table_family(table)
    if recorded_family is not None and recorded_family != name:
        raise ValueError(
            f"truth is a {recorded_family} statistics table; this metric needs a table "
            f"from {statistics_name}."
        )
    if not isinstance(family, str):
        missing = [c for c in family.columns if c not in table.columns]
        if missing:
            raise ValueError(
                f"truth lacks the columns {missing}; pass a table from {statistics_name}."
            )
    recorded = table_options(table)
    if recorded_family is None and given:
        raise ValueError(
            f"the statistics table records no options (was it summed with plain pandas?), "
            f"so {sorted(given)} cannot be checked: pass them to {statistics_name}, "
            "or sum tables with audeval.sum_statistics, which keeps them."
        )
    for key, value in (given or {}).items():
        if key in recorded and not _equal(value, recorded[key]):
            raise ValueError(
                f"the statistics table was made with {key}={show_value(recorded[key])}, "
                f"but {key}={show_value(value)} was given: pass {key} to {statistics_name} "
                "and compute the metric from that table."
            )
    return recorded


# -------------------------------------------------------------------------
# The gate
# -------------------------------------------------------------------------


def with_required(
    options: Mapping[str, object], required: Mapping[str, object], soft: frozenset = frozenset()
) -> dict:
    """Options with what a metric requires; a required default (``soft``) yields to a given option."""
    out = dict(options)
    for key, value in required.items():
        if key not in soft or key not in out or not given(out[key]):
            out[key] = value
    return out


def table_labels(table: pd.DataFrame) -> list:
    """Labels of a table's ``label`` level in their order."""
    level = table.index.get_level_values("label")
    if isinstance(level.dtype, pd.CategoricalDtype):
        return list(level.categories)
    return list(pd.unique(level))


