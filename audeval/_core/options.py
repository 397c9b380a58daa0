"""The options layer: checks every keyword option once, before the data.

Every family builds its options from the keyword arguments of a public call
with the checkers here, so that the same option is checked the same way
everywhere (``zero_division``, bools, durations, choices),
and the one seconds-to-nanoseconds rule (:func:`audeval._core.validation.seconds_to_ns`,
round to the nearest) is the only conversion.

:class:`Default` marks a keyword default that the caller did not give:
a metric computed from a statistics table checks only the options
the caller gave against the options the table was made with.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
import math
import numbers

import numpy as np
import pandas as pd

from audeval._core.validation import check_option, to_ns
from audeval._core.warnings import warn


__all__ = [
    "Default",
    "as_timedelta",
    "check_bool",
    "check_choice",
    "check_duration",
    "check_zero_division",
    "given",
    "value_of",
    "warn",
]

MAX_SECONDS = 1e9
"""Largest duration option in seconds (~31.7 years): far below int64 ns overflow."""


class Default:
    """A keyword default that remembers that the caller did not give it.

    Its ``repr`` is the value's, so signatures read as usual.
    """

    __slots__ = ("value",)

    def __init__(self, value: object):
        self.value = value

    def __repr__(self) -> str:
        return repr(self.value)

    def __eq__(self, other: object) -> bool:
        other = other.value if isinstance(other, Default) else other
        return self.value == other

    def __hash__(self) -> int:
        return hash(self.value)


def given(value: object) -> bool:
    """Whether an option was given by the caller (not left at its default)."""
    return not isinstance(value, Default)


def value_of(value: object) -> object:
    """The value of an option, given or default."""
    return value.value if isinstance(value, Default) else value


def check_bool(value: object, name: str) -> bool:
    """``True`` or ``False`` (numpy bools too), else ``TypeError`` naming the option."""
    value = value_of(value)
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


def check_choice(value: object, name: str, allowed: Sequence[Hashable]) -> object:
    """One of ``allowed``, else ``ValueError`` listing them."""
    return check_option(value_of(value), name, allowed)


def check_zero_division(value: object, name: str = "zero_division") -> float:
    """``zero_division``: 0.0, 1.0 or NaN (as sklearn allows)."""
    value = value_of(value)
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be 0.0, 1.0 or nan; got {value!r}.")
    value = float(value)
    if not (math.isnan(value) or value in (0.0, 1.0)):
        raise ValueError(f"{name} must be 0.0, 1.0 or nan; got {value!r}.")
    return value


def check_duration(value: object, name: str, *, allow_none: bool = True) -> int | None:
    """A non-negative duration in seconds or as timedelta, as int64 ns.

    Values beyond ``1e9`` seconds are rejected: they would overflow
    int64 nanoseconds in sums and differences.
    """
    value = value_of(value)
    ns = to_ns(value, name, allow_none=allow_none)
    if ns is not None and ns > MAX_SECONDS * 1e9:
        raise ValueError(
            f"{name} must be at most {MAX_SECONDS:.0e} seconds; got {value!r}."
        )
    return ns


def as_timedelta(ns: int | None) -> pd.Timedelta | None:
    """Nanoseconds as the ``pd.Timedelta`` that a statistics table records."""
    return None if ns is None else pd.Timedelta(int(ns), unit="ns")

