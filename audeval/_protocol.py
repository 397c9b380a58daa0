"""The family protocol (SPEC section 2): what a metric family declares, and the table gate.

A family declares once, in a :class:`Family` at the end of its module:

* its statistics function and the options that the statistics table records
  (``table.attrs["audeval"]``, written by :func:`stamp`),
* the table's schema: index levels, the columns every table has,
  how a row missing from one shard is filled when tables are summed,
* its metrics (reductions of a summed table) and which of them count
  across labels (so that ``labels=`` cannot select rows of a table),
* its report.

:func:`resolve` is the one "Series or statistics table" gate of every metric:
Series go to the family's statistics function;
a table is checked against the options the caller gave
(a mismatch raises, telling where to pass the option)
and ``labels=`` selects rows only where that gives the direct call's number.

This module is family-agnostic: it imports no family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import dataclasses

import numpy as np
import pandas as pd

from audeval._options import given, value_of


__all__ = [
    "ATTRS",
    "Family",
    "check_table",
    "is_table",
    "resolve",
    "stamp",
    "table_family",
    "table_options",
]

ATTRS = "audeval"
"""Key of ``DataFrame.attrs`` under which a statistics table records its family and options."""


_DECLARED: dict = {}
"""Every family declared so far, by name (filled by :class:`Family` itself)."""


def declared(name: str) -> Family:
    """A declared family by name: what a family's own gate uses,
    so that its modules need not import the module that declares it."""
    return _DECLARED[name]


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
        fill_missing: ``fill(storage, present, shape)`` fills rows missing from a shard
            when tables are summed (``None``: missing rows count 0)
        normalise: ``normalise(options) -> options`` turns given keyword options
            into the form the table records (ns for durations);
            must accept any subset of :attr:`options`
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
    fill_missing: Callable | None = None
    normalise: Callable[[dict], dict] | None = None
    sparse: bool = False

    def __post_init__(self):
        _DECLARED[self.name] = self

    def required_options(self, metric: Callable | None) -> dict:
        """Statistics options that ``metric`` needs (e.g. the confusion columns)."""
        out: dict = {}
        for function, options in self.requires:
            if function is metric:
                out.update(options)
        return out

    def normalised(self, options: Mapping[str, object]) -> dict:
        """Options in the form the table records them."""
        options = {k: value_of(v) for k, v in options.items()}
        if self.normalise is None:
            return options
        return self.normalise(options)

    def compute(self, truth, prediction, labels, options: Mapping[str, object]) -> pd.DataFrame:
        """Call the statistics function with the options it takes."""
        options = {k: value_of(v) for k, v in options.items()}
        if self.takes_labels:
            return self.statistics(truth, prediction, labels, **options)
        if labels is not None:
            raise TypeError(f"{self.statistics.__name__} does not take labels.")
        return self.statistics(truth, prediction, **options)


# -------------------------------------------------------------------------
# Tables
# -------------------------------------------------------------------------


def stamp(table: pd.DataFrame, family: str, options: Mapping[str, object]) -> pd.DataFrame:
    """Record in ``table.attrs`` the family and the options the table was made with."""
    table.attrs[ATTRS] = {"family": family, "options": dict(options)}
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
            return bool(np.all(equal)) and np.shape(a) == np.shape(b)
        return bool(equal)
    except (TypeError, ValueError):
        return False


def _show(value: object) -> str:
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
                f"the statistics table was made with {key}={_show(recorded[key])}, "
                f"but {key}={_show(value)} was given: pass {key} to {statistics_name} "
                "and compute the metric from that table."
            )
    return recorded


# -------------------------------------------------------------------------
# The gate
# -------------------------------------------------------------------------


def _with_required(options: Mapping[str, object], required: Mapping[str, object]) -> dict:
    """Options with what a metric requires; a required default yields to a given option."""
    out = dict(options)
    for key, value in required.items():
        if given(value) or key not in out or not given(out[key]):
            out[key] = value
    return out


def table_labels(table: pd.DataFrame) -> list:
    """Labels of a table's ``label`` level in their order."""
    level = table.index.get_level_values("label")
    if isinstance(level.dtype, pd.CategoricalDtype):
        return list(level.categories)
    return list(pd.unique(level))


def resolve(
    family: Family | str,
    truth: object,
    prediction: object,
    labels: Sequence[object] | None,
    options: Mapping[str, object],
    *,
    metric: Callable | None = None,
    select: Callable[[pd.DataFrame, Sequence[object]], pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """The statistics table of a metric call: computed from Series, or given.

    Args:
        family: the metric's family (or its name)
        truth: truth Series, or a statistics table
        prediction: prediction Series, ``None`` with a table
        labels: the call's ``labels``
        options: the call's statistics options (:class:`audeval._options.Default`
            where the caller did not give them)
        metric: the public metric (to know whether it counts across labels)
        select: selects label rows of a table (needed if the family has labels)

    """
    if isinstance(family, str):
        family = declared(family)
    required = family.required_options(metric)
    if not (prediction is None and isinstance(truth, pd.DataFrame)):
        if prediction is None and not family.single_input:
            raise TypeError(
                "prediction is None: pass a prediction Series, "
                f"or a table from {family.statistics.__name__} in place of truth."
            )
        return family.compute(truth, prediction, labels, _with_required(options, required))
    if options.get("files_duration") is not None:
        raise ValueError(
            "files_duration cannot be applied to a statistics table: "
            f"pass it to {family.statistics.__name__} and compute the metric from that table."
        )
    explicit = {k: v for k, v in options.items() if given(v) and k != "files_duration"}
    explicit = family.normalised(explicit)
    recorded = check_table(truth, prediction, family=family, given=explicit)
    for key, value in required.items():
        if given(value) and key in recorded and not _equal(recorded[key], value):
            raise ValueError(
                f"{metric.__name__} needs a table made with {key}={value!r}: "
                f"pass {key}={value!r} to {family.statistics.__name__}."
            )
    table = truth
    if labels is None or "label" not in (table.index.names or []):
        return table
    labels = list(labels)
    if labels != table_labels(table):
        if metric is not None and metric in family.cross_label:
            raise ValueError(
                f"{metric.__name__} counts across labels, so labels={labels} cannot select rows "
                f"of a statistics table: pass labels to {family.statistics.__name__} "
                "and compute the metric from that table."
            )
        if select is None:
            raise ValueError(f"labels cannot select rows of a {family.name} statistics table.")
        table = select(table, labels)
    return table
