"""Options declared once per family: fields as data, one options object per call, declared metrics.

A family declares its keyword options once, as :class:`Option` fields
(constraint and argument doc text, data a test can read),
collected in a :class:`Declaration`.
Its public functions are declared on it with :meth:`Declaration.metric`
and :meth:`Declaration.statistics`:
the function keeps its explicit keyword-only signature
(what users, ``help()`` and the signature snapshot see);
a call is bound to that signature,
every option the caller gave is checked exactly once (:meth:`Option.check`),
and one frozen options object (:meth:`Declaration.build`),
which remembers the fields the caller gave,
goes to the family's gate and reduction.
The defaults of a signature are checked once, when the function is declared.

This module is family-agnostic: it imports no family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import dataclasses
import functools
import inspect
import math
import numbers
from typing import Any

import numpy as np
import pandas as pd

from audeval._core.options import Default, check_bool, check_duration, check_zero_division, value_of
from audeval._core.protocol import check_table, table_labels


__all__ = [
    "Declaration",
    "Declared",
    "Option",
    "declared_defaults",
]

KINDS = ("any", "bool", "choice", "real", "seconds", "zero_division")
"""Constraint kinds of an :class:`Option`."""


@dataclasses.dataclass(frozen=True)
class Option:
    """One keyword option of a family: its constraint and its argument doc text.

    Attributes:
        name: keyword name
        doc: argument doc text (one line)
        default: the family's default (a metric's signature may declare its own)
        kind: ``"any"`` (no constraint here: checked by the input gate or the reduction),
            ``"bool"``, ``"choice"`` (one of ``choices``),
            ``"real"`` (a float in ``[low, high]``, finite),
            ``"seconds"`` (seconds or a timedelta, stored as int64 ns),
            ``"zero_division"`` (0.0, 1.0 or NaN)
        choices: allowed values of a ``"choice"`` option
        low: smallest value (``"real"``); ``None``: no bound
        high: largest value (``"real"``); ``None``: no bound
        open_low: ``low`` itself is excluded (``"real"``; ``"seconds"``: must be positive)
        none: ``None`` is allowed
        table: the statistics table depends on it (recorded in its ``attrs``)

    """

    name: str
    doc: str
    default: object = None
    kind: str = "any"
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    none: bool = False
    table: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {self.kind!r}.")

    def check(self, value: object) -> object:
        """The value as the family uses it (seconds as int ns), else an error naming the option."""
        if self.kind == "any" or (value is None and (self.none or None in self.choices)):
            return value
        if self.kind == "bool":
            return check_bool(value, self.name)
        if self.kind == "choice":
            if isinstance(value, (str, numbers.Number, bool)) and value in self.choices:
                return value
            self._bad_choice(value)
        if self.kind == "zero_division":
            return check_zero_division(value, self.name)
        if self.kind == "seconds":
            ns = check_duration(value, self.name, allow_none=self.none)
            if self.open_low and ns == 0:
                raise ValueError(f"{self.name} must be positive; got {value!r}.")
            return ns
        return self._real(value)

    def _bad_choice(self, value: object):
        shown = [repr(c) for c in self.choices]
        allowed = " or ".join(shown) if len(shown) == 2 else "one of " + ", ".join(shown)
        raise ValueError(f"{self.name} must be {allowed}; got {value!r}.")

    def _real(self, value: object) -> float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise TypeError(f"{self.name} must be a finite float; got {value!r}.")
        value = float(value)
        low_ok = self.low is None or (value > self.low if self.open_low else value >= self.low)
        high_ok = self.high is None or value <= self.high
        if not (low_ok and high_ok):
            raise ValueError(f"{self.name} must be in {self.interval}; got {value!r}.")
        return value

    @property
    def interval(self) -> str:
        """The allowed range of a ``"real"`` option, e.g. ``(0, 1]``."""
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"{'(' if self.open_low or self.low is None else '['}{low}, {high}{']' if self.high is not None else ')'}"


@dataclasses.dataclass(frozen=True)
class Declared:
    """What a public function declares on its family (``function.declared``).

    Attributes:
        family: the family's :class:`Declaration`
        name: the function's name
        options: its keyword options, in signature order
        defaults: their signature defaults as the family uses them (checked once, when declared)
        arguments: its positional arguments (inputs), in order
        cross_label: its number depends on several labels at once
            (``labels=`` cannot select rows of a statistics table)
        needs: statistics options the function needs whatever the call says
            (e.g. PSD-ROC: ``criterion="intersection"``)
        unused: options of its signature that do not change its number
            (kept so that the public signature stays; checked once,
            and against a table like any statistics option)

    """

    family: Declaration
    name: str
    options: tuple[str, ...]
    defaults: Mapping[str, object]
    arguments: tuple[str, ...]
    cross_label: bool = False
    needs: Mapping[str, object] = dataclasses.field(default_factory=dict)
    unused: tuple[str, ...] = ()


class Declaration:
    """The options of one family, declared once.

    Args:
        family: family name (``"segment"``): tables are checked against it
        fields: the family's options, statistics options (``table=True``) and metric options
        columns: columns every statistics table of the family has
        check: ``check(values, given)`` cross-field rules on the checked values
            (e.g. ``time_resolution=None`` with ``compat="sed_eval"``)
        record: ``record(options) -> dict``: the statistics options as a table records them
            (default: the ``table=True`` fields as they are)

    The options object of a call (:meth:`build`) is a frozen dataclass
    ``<Family>Options`` with one attribute per field,
    ``given`` (the fields the caller gave) and ``raw`` (their values as given).
    """

    def __init__(
        self,
        family: str,
        fields: Sequence[Option],
        *,
        columns: Sequence[str] = (),
        check: Callable[[dict, frozenset], None] | None = None,
        record: Callable[[Any], dict] | None = None,
    ):
        self.family = family
        self.fields = {field.name: field for field in fields}
        self.columns = tuple(columns)
        self._check = check
        self._record = record
        self.type = dataclasses.make_dataclass(
            f"{family.title()}Options",
            [*((name, object) for name in self.fields), ("given", frozenset), ("raw", dict)],
            frozen=True,
        )
        self.defaults = {name: field.check(field.default) for name, field in self.fields.items()}

    @property
    def table_options(self) -> tuple[str, ...]:
        """The statistics options (those the table records)."""
        return tuple(name for name, field in self.fields.items() if field.table)

    # ------------------------------------------------------------------
    # the options object
    # ------------------------------------------------------------------

    def build(self, given: Mapping[str, object], defaults: Mapping[str, object] | None = None):
        """The options object of a call: ``given`` checked once each, the rest at ``defaults``
        (already checked), then the family's cross-field rules."""
        values = {**self.defaults, **(defaults or {})}
        for name, value in given.items():
            values[name] = self.fields[name].check(value_of(value))
        # a caller that forwards an undeclared default (audeval._core.options.Default) did not give it
        names = frozenset(name for name, value in given.items() if not isinstance(value, Default))
        if self._check is not None:
            self._check(values, names)
        return self.type(**values, given=names, raw={k: value_of(v) for k, v in given.items()})

    def record(self, options) -> dict:
        """The statistics options of ``options`` as a table records them."""
        if self._record is not None:
            return self._record(options)
        return {name: getattr(options, name) for name in self.table_options}

    def normalise(self, options: Mapping[str, object]) -> dict:
        """Given statistics options (any subset) in table form (the protocol's ``normalise``)."""
        options = {k: v for k, v in options.items() if k in self.fields}
        recorded = self.record(self.build(options))
        return {k: v for k, v in recorded.items() if k in options}

    def without(self, options, *names: str):
        """``options`` with ``names`` back at the family default and not given."""
        changes = {name: self.defaults[name] for name in names}
        return dataclasses.replace(options, **changes, given=options.given - set(names))

    # ------------------------------------------------------------------
    # declaring public functions
    # ------------------------------------------------------------------

    def metric(
        self,
        reduce: Callable,
        *,
        gate: Callable,
        cross_label: bool = False,
        needs: Mapping[str, object] | None = None,
        unused: Sequence[str] = (),
    ) -> Callable[[Callable], Callable]:
        """Declare a public metric: ``reduce(gate(metric, *inputs, options), options)``.

        The decorated function gives the public signature and docstring (its body is not run).
        """
        return functools.partial(
            self._declare, run=lambda call, inputs, options: reduce(gate(call, *inputs, options), options),
            cross_label=cross_label, needs=needs, unused=tuple(unused),
        )

    def statistics(self, compute: Callable) -> Callable[[Callable], Callable]:
        """Declare a public statistics function: ``compute(*inputs, options)``."""
        return functools.partial(self._declare, run=lambda call, inputs, options: compute(*inputs, options))

    def _declare(self, public: Callable, *, run: Callable, cross_label=False, needs=None, unused=()) -> Callable:
        signature = inspect.signature(public)
        parameters = list(signature.parameters.values())
        keywords = [p for p in parameters if p.kind is p.KEYWORD_ONLY]
        unknown = [p.name for p in keywords if p.name not in self.fields]
        if unknown:
            raise TypeError(f"{public.__name__}: options {unknown} are not declared by the {self.family} family.")
        stray = [name for name in unused if name not in {p.name for p in keywords}]
        if stray:
            raise TypeError(f"{public.__name__}: unused options {stray} are not in its signature.")
        declared = Declared(
            family=self,
            name=public.__name__,
            options=tuple(p.name for p in keywords),
            defaults={
                **{name: self.fields[name].check(value) for name, value in (needs or {}).items()},
                **{p.name: self.fields[p.name].check(p.default) for p in keywords},
            },
            arguments=tuple(p.name for p in parameters if p.kind is not p.KEYWORD_ONLY),
            cross_label=cross_label,
            needs=dict(needs or {}),
            unused=tuple(unused),
        )
        n_arguments = len(declared.arguments)

        @functools.wraps(public)
        def call(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            given = {k: v for k, v in bound.arguments.items() if k in declared.options}
            options = self.build(given, declared.defaults)
            bound.apply_defaults()
            inputs = tuple(bound.arguments[name] for name in declared.arguments[:n_arguments])
            return run(call, inputs, options)

        def with_options(options, *inputs):
            """Run the function on ``inputs`` (all its positional arguments) with an options
            object of the family built by another declared call: nothing is checked again,
            the function's ``needs`` are applied (how a plot computes the public object it draws)."""
            if not isinstance(options, self.type):
                raise TypeError(f"{public.__name__}.with_options needs {self.type.__name__}, not {type(options).__name__}.")
            if len(inputs) != n_arguments:
                raise TypeError(f"{public.__name__}.with_options needs the inputs {list(declared.arguments)}.")
            if declared.needs:
                options = dataclasses.replace(options, **{name: declared.defaults[name] for name in declared.needs})
            return run(call, inputs, options)

        call.declared = declared  # type: ignore[attr-defined]  # a declared function carries its declaration
        call.with_options = with_options  # type: ignore[attr-defined]  # the core's internal API (plots)
        return call

    # ------------------------------------------------------------------
    # the table gate
    # ------------------------------------------------------------------

    def table(
        self,
        metric: Callable,
        truth: Any,
        prediction: object,
        labels: Sequence[object] | None,
        options,
        *,
        select: Callable[[pd.DataFrame, Sequence[object]], pd.DataFrame] | None = None,
    ) -> pd.DataFrame:
        """A statistics table given in place of ``truth``, checked against the options the caller gave.

        ``labels`` selects rows where that gives the direct call's number
        (``select``; never for a cross-label metric).
        """
        name = f"{self.family}_statistics"
        if prediction is None and not isinstance(truth, pd.DataFrame):
            raise TypeError(
                f"prediction is None: pass a prediction Series, or a table from {name} in place of truth."
            )
        if options.files_duration is not None:
            raise ValueError(
                "files_duration cannot be applied to a statistics table: "
                f"pass it to {name} and compute the metric from that table."
            )
        given = [k for k in self.table_options if k in options.given]
        recorded = self.record(options)
        # (a family may record an option only where it is not at its default)
        check_table(truth, prediction, family=self.family, given={k: recorded[k] for k in given if k in recorded})
        missing = [c for c in self.columns if c not in truth.columns]
        if missing:
            raise ValueError(f"truth lacks the columns {missing}; pass a table from {name}.")
        if labels is None or "label" not in (truth.index.names or []):
            return truth
        labels = list(labels)
        if labels == table_labels(truth):
            return truth
        if metric.declared.cross_label:  # type: ignore[attr-defined]  # metric is a declared function (above)
            raise ValueError(
                f"{metric.__name__} counts across labels, so labels={labels} cannot select rows "
                f"of a statistics table: pass labels to {name} and compute the metric from that table."
            )
        return select(truth, labels)  # type: ignore[misc]  # families whose metrics select labels pass select


def declared_defaults(metrics: Sequence[Callable], names: Sequence[str], statistics: Callable) -> tuple:
    """``Family.defaults`` entries: a metric's statistics defaults that differ from ``statistics``'s.

    The protocol's generic layers (``Accumulator``, ``bootstrap``, ``dask_statistics``)
    then compute a metric's table with its own defaults; an option the caller gives wins.
    """
    base = inspect.signature(statistics).parameters
    out = []
    for metric in metrics:
        own = inspect.signature(metric).parameters
        differ = {
            name: own[name].default
            for name in names
            if name in own and (name not in base or own[name].default != base[name].default)
        }
        if differ:
            out.append((metric, differ))
    return tuple(out)
