"""The one registry of metric families (SPEC section 2).

Each family declares itself once (a :class:`audeval._core.protocol.Family` named ``FAMILY``
at the end of its module); this module lists them, one line each.
``sum_statistics``, ``Accumulator``, ``bootstrap``, ``dask_statistics``,
the CLI, the plots and the API docs find a metric's family, its statistics function,
the options that go there and its table schema here, and nowhere else.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
import inspect
import warnings

import numpy as np
import pandas as pd

from audeval import _agreement
from audeval import _diarization
from audeval import _events
from audeval import _hierarchy
from audeval import _sed_scores
from audeval import _segments
from audeval import _structure
from audeval._core.file_levels import warn_files_without_rows
from audeval._core.intervals import expand_ranges
from audeval._core.labels import empty_labels_allowed
from audeval._core.options import value_of
from audeval._core.protocol import ATTRS, Family, Parts, stamped, table_family, table_labels, with_required
from audeval._core.sides import Coded
from audeval._core.tables import select_labels
from audeval._core.warnings import warn


def _declared(module) -> tuple[Family, ...]:
    families = getattr(module, "FAMILIES", None)
    return tuple(families) if families is not None else (module.FAMILY,)


FAMILIES: dict[str, Family] = {
    family.name: family
    for module in (_events, _segments, _sed_scores, _diarization, _structure, _hierarchy, _agreement)
    for family in _declared(module)
}
"""Every registered family by name."""

_BY_METRIC: dict[Callable, Family] = {}
for _family in FAMILIES.values():
    for _function in (*_family.metrics, _family.statistics):
        _BY_METRIC.setdefault(_function, _family)
del _family, _function


def family_named(name: str) -> Family:
    """A family by name, else ``ValueError`` listing the names."""
    if name not in FAMILIES:
        raise ValueError(f"family must be one of {sorted(FAMILIES)}; got {name!r}.")
    return FAMILIES[name]


def family_of(metric: Callable | str, family: str | None = None) -> Family:
    """The family of a registered metric (or of a family name).

    ``family`` names the family of a function that is not registered
    (a user's own reduction ``f(table, None, **options)``).
    """
    if family is not None:
        return family_named(family)
    if isinstance(metric, str):
        if metric not in FAMILIES:
            raise ValueError(
                f"metric must be a metric function or a family name {sorted(FAMILIES)}; "
                f"got {metric!r}."
            )
        return FAMILIES[metric]
    if not callable(metric):
        raise TypeError(f"metric must be a metric function; got {type(metric).__name__}.")
    try:
        return _BY_METRIC[metric]
    except (KeyError, TypeError):
        name = getattr(metric, "__name__", repr(metric))
        raise ValueError(
            f"cannot tell the metric family of {name}: it is not a registered metric of audeval; "
            f"pass family= one of {sorted(FAMILIES)} for a function of a statistics table."
        ) from None


def family_of_table(table: pd.DataFrame) -> Family | None:
    """The family a statistics table records (``None``: not recorded)."""
    name = table_family(table)
    return None if name is None else family_named(name)


_POSITIONAL = {"truth", "prediction", "labels"}


def split_options(
    family: Family,
    metric: Callable | None,
    options: Mapping[str, object],
) -> tuple[dict, dict]:
    """Options of the statistics function and options of the metric, as declared.

    The family's declared statistics options, the options that name files
    (``files_duration``, ``uem``: :attr:`Family.file_options`)
    and the statistics function's own name of ``labels`` (``positive_labels``)
    go to the statistics function; every other option goes to the metric.
    """
    bad = sorted(set(options) & _POSITIONAL)
    if bad:
        raise TypeError(f"{bad} are arguments, not options.")
    names = {*family.options, *family.file_options}
    if family.labels_option not in (None, "labels"):
        names.add(family.labels_option)
    required, soft = family.required_options(metric), family.soft_options(metric)
    statistics = {**required}
    statistics.update({k: v for k, v in options.items() if k in names})
    # (a required value wins over the caller's, a metric's own default does not)
    statistics.update({k: v for k, v in required.items() if k not in soft})
    statistics.update(
        {target: options[k] for k, target in family.aliases.items() if k in options and target not in options}
    )
    rest = {k: v for k, v in options.items() if k not in names}
    if rest and metric is None:
        raise TypeError(
            f"unknown options {sorted(rest)} for {family.statistics.__name__}; "
            "give a metric to use them."
        )
    unknown = sorted(set(rest) - _keywords(metric)) if rest else []  # type: ignore[arg-type]  # rest is only non-empty with a metric (raised above)
    if unknown:
        name = getattr(metric, "__name__", repr(metric))
        raise TypeError(f"unknown options {unknown} for {name} and {family.statistics.__name__}.")
    return statistics, rest


def _keywords(function: Callable) -> set[str] | frozenset:
    """Keyword names a function accepts (everything, if it takes ``**kwargs``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return _ANY
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return _ANY
    return {p.name for p in parameters}


class _Any(frozenset):
    def __rsub__(self, other):
        return set()


_ANY = _Any()


def statistics_of(
    family: Family,
    truth: object,
    prediction: object,
    labels: Sequence[object] | None,
    statistics_options: Mapping[str, object],
    metric: Callable | None = None,
) -> pd.DataFrame:
    """The family's statistics of Series, or a given table checked by the family's one table gate
    (:meth:`audeval._core.declare.Declaration.table` of the statistics function's declaration)."""
    if not (prediction is None and isinstance(truth, pd.DataFrame)):
        if prediction is None and not family.single_input:
            raise TypeError(
                "prediction is None: pass a prediction Series, "
                f"or a table from {family.statistics.__name__} in place of truth."
            )
        options = with_required(statistics_options, family.required_options(metric), family.soft_options(metric))
        return family.compute(truth, prediction, labels, options)
    declared = family.statistics.declared  # type: ignore[attr-defined]  # a declared function carries its declaration
    given = {k: v for k, v in statistics_options.items() if k in declared.family.fields}
    options = declared.family.build(given, declared.defaults)
    caller = metric if hasattr(metric, "declared") else family.statistics
    select = select_labels if "label" in family.index else None
    return declared.family.table(caller, truth, prediction, labels, options, select=select)


def reduce(
    metric: Callable,
    table: pd.DataFrame,
    labels: Sequence[object] | None,
    metric_options: Mapping[str, object],
    family: Family,
) -> object:
    """``metric(table, None[, labels], **metric_options)``: the metric of a (summed) table."""
    if labels is not None and family.takes_labels and metric in family.metrics:
        return metric(table, None, labels, **metric_options)
    return metric(table, None, **metric_options)


def empty_statistics(
    family: Family,
    labels: Sequence[object] | None,
    statistics_options: Mapping[str, object],
) -> pd.DataFrame:
    """The family's table of no files (its columns and index levels)."""
    index = pd.MultiIndex.from_arrays(
        [
            pd.Index([], dtype=object),
            pd.TimedeltaIndex([], dtype="timedelta64[ns]"),
            pd.TimedeltaIndex([], dtype="timedelta64[ns]"),
        ],
        names=["file", "start", "end"],
    )
    empty = pd.Series([], index=index, dtype=object)
    return family.compute(empty, empty, labels, statistics_options)


# -------------------------------------------------------------------------
# Batches (Accumulator, dask_statistics)
# -------------------------------------------------------------------------


def input_files(obj: object) -> pd.Index | None:
    """The distinct files of an input (Series, score table, mapping of Series), ``None``: unknown."""
    if obj is None:
        return pd.Index([], dtype=object)
    if isinstance(obj, Mapping):
        parts = [input_files(value) for value in obj.values()]
        if any(part is None for part in parts):
            return None
        return _union(parts)
    if isinstance(obj, Coded):
        return _used_files(obj.files, obj.file_codes)
    if not isinstance(obj, (pd.Series, pd.DataFrame)):
        return None
    index = obj.index
    if isinstance(index, pd.MultiIndex):
        if "file" not in index.names:
            return None
        k = index.names.index("file")
        return _used_files(index.levels[k], index.codes[k])
    if index.name != "file":
        return None
    return pd.Index(pd.unique(index.array))


def _used_files(level: pd.Index, codes) -> pd.Index:
    """The entries of a file level that a row's code points to."""
    used = np.zeros(len(level) + 1, dtype=bool)
    used[np.asarray(codes)] = True  # (code -1: the last, left out)
    return level if used[:-1].all() else level[used[:-1]]


def _union(parts: list[pd.Index]) -> pd.Index:
    """Distinct files of several inputs (the first input's Index itself where they agree)."""
    parts = [part for part in parts if len(part)]
    if not parts:
        return pd.Index([], dtype=object)
    first = parts[0]
    if all(part is first or (len(part) == len(first) and part.equals(first)) for part in parts[1:]):
        return first
    return first.append(parts[1:]).unique()


def _found_labels(obj: object, family: Family) -> list:
    """The labels an input holds (values of a Series, columns of a score table)."""
    if obj is None:
        return []
    if isinstance(obj, Mapping):
        return [label for value in obj.values() for label in _found_labels(value, family)]
    if isinstance(obj, pd.DataFrame):
        return list(obj.columns)
    if not isinstance(obj, (Coded, pd.Series)):
        return []
    values = pd.array(obj.labels, copy=False) if isinstance(obj, Coded) else obj.array
    if isinstance(values, pd.Categorical):  # (the categories used, in their order: marked, not sorted)
        used = np.zeros(len(values.categories) + 1, dtype=np.bool_)
        used[values.codes] = True  # (code -1, a missing label: the last entry)
        return [label for label, found in zip(values.categories.tolist(), used[:-1]) if found]  # (no Index selection)
    return [v for v in pd.unique(values) if not pd.isna(v)]


class _FileOption:
    """An option that names files (``files_duration``: file -> duration;
    ``uem``: intervals per file), indexed once by its files,
    so that a batch's entries are looked up by codes (cost of the batch, not of all files).
    """

    def __init__(self, name: str, value: object):
        self.name = name
        self.kind = None
        try:
            if isinstance(value, Mapping):
                value = pd.Series(dict(value)).infer_objects()
            if isinstance(value, pd.Series) and not isinstance(value.index, pd.MultiIndex):
                files = list(value.index)
                self.values = value.array  # (typed: no casting per batch)
                self.index = value.index
                self.kind = "mapping"
            elif isinstance(value, (pd.Series, pd.Index)):
                index = value.index if isinstance(value, pd.Series) else value
                if not isinstance(index, pd.MultiIndex) or "file" not in index.names:
                    return
                codes, uniques = pd.factorize(index.get_level_values("file"))
                files = list(uniques)
                order = np.argsort(codes, kind="stable")
                self.bounds = np.searchsorted(codes[order], np.arange(len(files) + 1))
                self.kind, self.rows, self.order = "intervals", value, order
            else:
                return
            self.files = np.empty(len(files), dtype=object)
            self.files[:] = files
            self.position = {file: k for k, file in enumerate(files)}
            if len(self.position) != len(files):  # a file named twice: the function's error
                self.kind = None
        except (TypeError, ValueError):
            self.kind = None  # the statistics function names the error

    def known(self) -> bool:
        """Whether the option could be indexed by file (else it is passed on unchanged)."""
        return self.kind is not None

    def lookup(self, files: Sequence[object]) -> np.ndarray:
        """Position in :attr:`files` of each of ``files`` (-1: not named)."""
        get = self.position.get
        return np.fromiter((get(file, -1) for file in files), dtype=np.int64, count=len(files))

    def positions(self, files: Sequence[object]) -> np.ndarray:
        """Positions in :attr:`files` of those of ``files`` that the option names (sorted)."""
        found = self.lookup(files)
        return np.unique(found[found >= 0])

    def restricted(self, files: pd.Index) -> tuple[object, np.ndarray]:
        """The option restricted to ``files`` (a batch's), and the positions it used."""
        found = self.lookup(files.tolist())
        if self.kind == "mapping" and (found >= 0).all():  # on the batch's own Index
            return pd.Series(self.values.take(found), index=files, copy=False), found
        positions = np.unique(found[found >= 0])
        return self.take(positions), positions

    def take(self, positions: np.ndarray) -> object:
        """The option restricted to the files at ``positions``."""
        if self.kind == "mapping":
            return pd.Series(self.values.take(positions), index=self.index.take(positions), copy=False)
        first, last = self.bounds[positions], self.bounds[positions + 1]
        rows = self.order[expand_ranges(first, last)[1]] if len(positions) else np.zeros(0, np.int64)
        rows = np.sort(rows)
        return self.rows[rows] if isinstance(self.rows, pd.Index) else self.rows.iloc[rows]


class Batches:
    """What every batched path shares (:class:`audeval.Accumulator`, :func:`audeval.dask_statistics`).

    * The options that name files (:attr:`Family.file_options`) are indexed once;
      each batch passes only its own files' entries
      (else every batch would evaluate every file, SPEC section 1),
      and :meth:`unseen` gives the table of the files that no batch held,
      which a direct call on all batches evaluates.
    * A family whose ``labels`` must occur (:attr:`Family.labels_must_occur`,
      detection's ``positive_labels``) checks that over all batches (:meth:`check`):
      a batch evaluates the given labels it holds
      (a label without rows adds nothing), and its table records all given labels.
    """

    def __init__(
        self,
        family: Family,
        labels: Sequence[object] | None,
        statistics_options: Mapping[str, object],
    ):
        self.family = family
        self.options = dict(statistics_options)
        self.labels = family.labels_of(None if labels is None else list(labels), self.options)
        if family.labels_option != "labels":
            self.options.pop(family.labels_option, None)  # type: ignore[arg-type]  # dict.pop(None, None) is a no-op
        self.file_options = {}
        for name in family.file_options:
            value = self.options.get(name)
            if value is None:
                continue
            option = _FileOption(name, value)
            if option.known():
                self.file_options[name] = option
        self.deferred = family.labels_must_occur and self.labels is not None
        self.found: dict = {}
        self.pending: dict = {}

    def __getstate__(self) -> dict:
        """The family by name (a dask task ships a few hundred bytes, not the family's functions)."""
        state = dict(vars(self))
        state["family"] = self.family.name
        return state

    def __setstate__(self, state: dict) -> None:
        vars(self).update(state)
        self.family = family_named(state["family"])

    def copy(self) -> Batches:
        """An independent copy (the labels found so far are its own)."""
        out = object.__new__(type(self))  # (not copy.copy: it would go through __getstate__ and look the family up)
        vars(out).update(vars(self))
        out.found = dict(self.found)
        out.pending = {category: list(parts) for category, parts in self.pending.items()}
        return out

    def merge(self, found: Mapping, pending: Mapping) -> None:
        """Add what other batches found and warned."""
        self.found.update(found)
        for category, parts in pending.items():
            self.pending.setdefault(category, []).extend(parts)

    def _warning_once(self, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        """Run a batch; a warning that can be combined over batches (``combine``)
        is kept for :meth:`warn`, every other one is issued as it is."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            table = compute()
        for w in caught:
            if hasattr(w.category, "combine") and isinstance(w.message, w.category):
                self.pending.setdefault(w.category, []).append(w.message)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return table

    def warn(self, total: pd.DataFrame) -> None:
        """Issue the kept warnings once, each combined over all batches
        (as the direct call on all batches states it; ``total``: the summed table)."""
        if not self.pending:
            return
        n_files = int(pd.unique(total.index.get_level_values("file")).size)
        for category, parts in self.pending.items():
            warn(category.combine(parts, n_files))

    def options_for(self, truth: object, prediction: object) -> dict:
        """The statistics options of a batch: file options restricted to its files."""
        if not self.file_options or (prediction is None and isinstance(truth, pd.DataFrame)):
            return self.options
        files = input_files(truth)
        other = input_files(prediction)
        if files is None or other is None:
            return self.options
        files = _union([files, other])
        options = dict(self.options)
        for name, option in self.file_options.items():
            options[name] = option.restricted(files)[0]
        return options

    def statistics(
        self,
        truth: object,
        prediction: object,
        metric: Callable | None = None,
        *,
        parts: bool = False,
    ) -> pd.DataFrame | Parts:
        """The statistics of one batch (Series, or a given table checked by the gate).

        With ``parts=True`` the statistics of Series are arrays (:class:`Parts`)
        where the family computes them so (:attr:`Family.parts`), else a table.
        """
        options = self.options_for(truth, prediction)
        labels = self.labels
        if self.deferred and not (prediction is None and isinstance(truth, pd.DataFrame)):
            found = _found_labels(truth, self.family) + _found_labels(prediction, self.family)
            self.found.update(dict.fromkeys(found))
            held = set(found)
            labels = [label for label in labels if label in held]
        if parts and self.family.parts is not None and isinstance(truth, (pd.Series, Coded)) and prediction is not None:
            options = with_required(
                options, self.family.required_options(metric), self.family.soft_options(metric)
            )
            options = {k: value_of(v) for k, v in options.items()}
            return self._warning_once(lambda: self.family.parts(truth, prediction, labels, **options))  # type: ignore[misc]  # parts is not None (checked above)
        with empty_labels_allowed() if self.deferred and not labels else contextlib.nullcontext():
            table = self._warning_once(
                lambda: statistics_of(self.family, truth, prediction, labels, options, metric)
            )
        return self.restamp(table)

    def restamp(self, table: pd.DataFrame) -> pd.DataFrame:
        """A batch table of some of the deferred labels records all of them."""
        if self.deferred and ATTRS in table.attrs:
            meta = table.attrs[ATTRS]  # (a new stamp: tables that share this one keep theirs)
            options: dict = dict(meta["options"])
            options[self.family.labels_option] = list(self.labels)
            table.attrs[ATTRS] = stamped(meta["family"], options)
        return table

    def check(self) -> None:
        """Raise if a deferred label occurs in no batch (as the direct call on all batches)."""
        if not self.deferred:
            return
        unused = [label for label in self.labels if label not in self.found]
        if unused:
            found = list(self.found)
            try:
                found = sorted(found)
            except TypeError:
                pass
            raise ValueError(
                f"{self.family.labels_option} {unused} occur in neither truth nor prediction "
                f"of any batch (a misspelt label would give a perfect score); labels found: {found}."
            )

    def unseen(self, seen: pd.DataFrame) -> pd.DataFrame | None:
        """The table of the files of the file options that no batch held (``None``: none).

        ``seen`` is the sum of the batches' tables: its files are left out,
        and with ``labels=None`` its labels are those of the new rows.
        """
        if not self.file_options:
            return None
        seen_files = pd.unique(seen.index.get_level_values("file")).tolist()
        options = dict(self.options)
        any_unseen = False
        for name, option in self.file_options.items():
            keep = np.ones(len(option.files), dtype=bool)
            keep[option.positions(seen_files)] = False
            positions = np.flatnonzero(keep)
            any_unseen |= bool(len(positions))
            options[name] = option.take(positions)
        if not any_unseen:
            return None
        labels = self.labels
        if self.deferred:
            labels = []  # no rows: no label occurs (the table records them all)
        elif labels is None and "label" in seen.index.names:
            labels = table_labels(seen)
            if not labels:
                return None  # no labels: nothing to evaluate in any file
        with warnings.catch_warnings():  # (labels of no event: warned by the metric, if at all)
            warnings.simplefilter("ignore")
            table = empty_statistics(self.family, labels, options)
        if not len(table):
            return None
        self._warn_unseen(table)
        return self.restamp(table)

    def _warn_unseen(self, table: pd.DataFrame) -> None:
        """Say which files of ``files_duration`` no batch held: they count as files without
        events (as in a direct call, which warns too), also in a ``compute()`` mid-epoch."""
        if "files_duration" not in self.file_options:
            return
        files = pd.unique(table.index.get_level_values("file"))
        warn_files_without_rows(
            pd.Index(files),
            "are in no batch (or dask partition) so far",
        )


__all__ = [
    "FAMILIES",
    "empty_statistics",
    "family_named",
    "family_of",
    "family_of_table",
    "reduce",
    "split_options",
    "statistics_of",
    "Batches",
    "input_files",
]
