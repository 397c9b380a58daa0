"""The one registry of metric families (SPEC section 2).

Each family declares itself once (a :class:`audeval._protocol.Family` named ``FAMILY``
at the end of its module); this module lists them, one line each.
``sum_statistics``, ``Accumulator``, ``bootstrap``, ``dask_statistics``,
the CLI, the plots and the API docs find a metric's family, its statistics function,
the options that go there and its table schema here, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import inspect
import warnings

import pandas as pd

from audeval import _agreement
from audeval import _diarization
from audeval import _events
from audeval import _hierarchy
from audeval._score_based import family as _score_family
from audeval import _segments
from audeval import _structure
from audeval._options import given
from audeval._protocol import Family, resolve, table_family, table_labels
from audeval._tables import select_labels


def _declared(module) -> tuple[Family, ...]:
    families = getattr(module, "FAMILIES", None)
    return tuple(families) if families is not None else (module.FAMILY,)


FAMILIES: dict[str, Family] = {
    family.name: family
    for module in (_events, _segments, _score_family, _diarization, _structure, _hierarchy, _agreement)
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

    The family's declared statistics options (and ``files_duration``) go to the
    statistics function; every other option goes to the metric.
    """
    bad = sorted(set(options) & _POSITIONAL)
    if bad:
        raise TypeError(f"{bad} are arguments, not options.")
    names = {*family.options, "files_duration"}
    statistics = {**family.required_options(metric)}
    statistics.update({k: v for k, v in options.items() if k in names})
    # (a required value wins over the caller's only where it is no default)
    statistics.update({k: v for k, v in family.required_options(metric).items() if given(v)})
    rest = {k: v for k, v in options.items() if k not in names}
    if rest and metric is None:
        raise TypeError(
            f"unknown options {sorted(rest)} for {family.statistics.__name__}; "
            "give a metric to use them."
        )
    unknown = sorted(set(rest) - _keywords(metric)) if rest else []
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
    """The family's statistics of Series, or a given table checked by the family gate."""
    select = select_labels if "label" in family.index else None
    return resolve(
        family, truth, prediction, labels, statistics_options, metric=metric, select=select
    )


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


def unseen_statistics(
    family: Family,
    labels: Sequence[object] | None,
    statistics_options: Mapping[str, object],
    seen: pd.DataFrame,
) -> pd.DataFrame | None:
    """The table of the files of ``files_duration`` that no batch held.

    A direct call evaluates every file of ``files_duration``
    (a file without rows: true negatives only, SPEC section 1);
    batched paths (:class:`audeval.Accumulator`, :func:`audeval.dask_statistics`)
    pass each batch only its own files' durations
    and add the files no batch held with this table
    (``seen`` is the sum of the batches' tables:
    its files are left out, and with ``labels=None`` its labels are those of the new rows).
    ``None`` if there are none.
    """
    durations = statistics_options.get("files_duration")
    if durations is None or not isinstance(durations, (Mapping, pd.Series)):
        return None
    if isinstance(durations, Mapping):
        durations = pd.Series(dict(durations), dtype=object)
    files = seen.index.get_level_values("file")
    unseen = durations[~pd.Index(durations.index).isin(files)]
    if len(unseen) == 0:
        return None
    if labels is None and "label" in seen.index.names:
        labels = table_labels(seen)
        if not labels:
            return None  # no labels: nothing to evaluate in any file
    with warnings.catch_warnings():  # (labels of no event: warned by the metric, if at all)
        warnings.simplefilter("ignore")
        table = empty_statistics(family, labels, {**statistics_options, "files_duration": unseen})
    return table if len(table) else None


__all__ = [
    "FAMILIES",
    "empty_statistics",
    "family_named",
    "family_of",
    "family_of_table",
    "reduce",
    "split_options",
    "statistics_of",
    "unseen_statistics",
]
