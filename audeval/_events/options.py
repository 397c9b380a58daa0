"""Options of the event family: tolerances in integer ns, matching, what tables record."""

from __future__ import annotations

import dataclasses
import fractions
import functools
from typing import TypeAlias

import numpy as np
import pandas as pd

from audeval._core.declare import Declaration, Option
from audeval._core.options import as_timedelta
from audeval._core.ratios import AVERAGES
from audeval._core.validation import check_fraction, check_option



MATCHINGS = ("optimal", "greedy")
COMPATS = (None, "sed_eval")
COMPAT_MARGIN = 1_000
"""Widening of the integer candidate join (ns) before ``compat="sed_eval"`` filters the pairs.

sed_eval's float64 decisions differ from the exact ones only within a few ulps
(far below 1 ns for times under 10**6 s), so 1 us covers every candidate."""
COLUMNS = ["n_truth", "n_prediction", "tp", "fp", "fn", "substituted", "substituting"]
CONFUSION_PREFIX = "substituted_by_"

Tolerance: TypeAlias = float | pd.Timedelta | None


# -------------------------------------------------------------------------
# Tolerances
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Tolerances:
    """Tolerances in integer nanoseconds, ``None`` where not evaluated."""

    onset: int | None
    offset: int | None
    duration: fractions.Fraction | None
    compat: str | None = None
    duration_value: float | None = None  # duration_tolerance as given (compat="sed_eval")
    slack: int = 0  # ns added to the offset allowance (the widened candidate join)

    @property
    def offset_evaluated(self) -> bool:
        return self.offset is not None or self.duration is not None

    def offset_allowance(self, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        r"""``max(offset_tolerance or 0, duration_tolerance * (end - start))`` in ns.

        The product is floored exactly in integers:
        ``duration_tolerance`` is read as the nearest fraction ``p / q``
        with ``q <= 10**6`` (0.5 is 1/2, 0.2 is 1/5).
        """
        allowance = np.full(len(start), self.offset or 0, dtype=np.int64)
        if self.duration is not None:
            p, q = self.duration.numerator, self.duration.denominator
            length = end - start
            if p == 1:  # (length % q) // q is 0
                scaled = length // q
            else:
                scaled = p * (length // q) + (p * (length % q)) // q
            allowance = np.maximum(allowance, scaled)
        return allowance + self.slack if self.slack else allowance

    def widened(self) -> Tolerances:
        """The tolerances of the candidate join: as is, or widened for ``compat="sed_eval"``."""
        if self.compat is None:
            return self
        onset = None if self.onset is None else self.onset + COMPAT_MARGIN
        return dataclasses.replace(self, onset=onset, slack=COMPAT_MARGIN)

    def admits(
        self, t_start: np.ndarray, t_end: np.ndarray, p_start: np.ndarray, p_end: np.ndarray
    ) -> np.ndarray:
        r"""sed_eval 0.2.1's time conditions on candidate pairs (``compat="sed_eval"``).

        Times become float64 seconds (``ns / 1e9``, as ``Timedelta.total_seconds()``)
        and the conditions are evaluated with sed_eval's expressions, in its order:
        :math:`|\text{on}_t - \text{on}_p| \le c_\text{on}` and
        :math:`|\text{off}_t - \text{off}_p| \le
        \max(c_\text{off}, p \cdot (\text{off}_t - \text{on}_t))`.
        """
        ok = np.ones(len(t_start), dtype=bool)
        if self.onset is not None:
            ok &= np.abs(t_start / 1e9 - p_start / 1e9) <= self.onset / 1e9
        if self.offset_evaluated:
            collar = (self.offset or 0) / 1e9
            end = t_end / 1e9
            allowance = np.full(len(t_start), collar)
            if self.duration_value is not None:
                allowance = np.maximum(allowance, self.duration_value * (end - t_start / 1e9))
            ok &= np.abs(end - p_end / 1e9) <= allowance
        return ok


def tolerances_of(options) -> Tolerances:
    """The tolerances of a checked options object (:data:`EVENT`), in integer ns."""
    duration = options.duration_tolerance
    fraction = None if duration is None else _fraction(duration)
    return Tolerances(options.onset_tolerance, options.offset_tolerance, fraction, options.compat, duration)


def tolerances(
    onset_tolerance: Tolerance,
    offset_tolerance: Tolerance,
    duration_tolerance: float | None,
    compat: str | None = None,
) -> Tolerances:
    """Check and convert the three tolerances (and ``compat``) once (outside a declared call)."""
    given = {
        "onset_tolerance": onset_tolerance,
        "offset_tolerance": offset_tolerance,
        "duration_tolerance": duration_tolerance,
        "compat": compat,
    }
    return tolerances_of(EVENT.build(given))


@functools.lru_cache(maxsize=64)
def _fraction(duration: float) -> fractions.Fraction:
    """The nearest fraction ``p / q`` with ``q <= 10**6`` (computed once per value)."""
    return fractions.Fraction(duration).limit_denominator(10**6)


# -------------------------------------------------------------------------
# The family's options, declared once
# -------------------------------------------------------------------------


class _Choice(Option):
    """A choice whose error lists the choices as every event check did (``must be one of ...``)."""

    def _bad_choice(self, value: object):
        check_option(value, self.name, self.choices)


class _Fraction(Option):
    """A non-negative finite fraction (``duration_tolerance``): the errors of
    :func:`audeval._core.validation.check_fraction` (``ValueError`` for NaN)."""

    def _real(self, value: object) -> float:
        return check_fraction(value, self.name)  # type: ignore[arg-type, return-value]  # None is passed on before _real (none=True); check_fraction checks the type


def _check(values: dict, given: frozenset) -> None:
    """Cross-field rule: the onset or the offset must be evaluated."""
    if values["onset_tolerance"] is None and values["offset_tolerance"] is None and values["duration_tolerance"] is None:
        raise ValueError(
            "onset_tolerance, offset_tolerance and duration_tolerance are all None: "
            "at least the onset or the offset must be evaluated."
        )


def _record(options) -> dict:
    """The statistics options as a table records them (tolerances as ``pd.Timedelta``)."""
    return {
        "onset_tolerance": as_timedelta(options.onset_tolerance),
        "offset_tolerance": as_timedelta(options.offset_tolerance),
        "duration_tolerance": options.duration_tolerance,
        "matching": options.matching,
        "confusion": options.confusion,
        "compat": options.compat,
    }


EVENT = Declaration(
    "event",
    (
        # the statistics options (recorded by a table)
        Option(
            "onset_tolerance",
            "onset tolerance in seconds or as timedelta; ``None``: onsets are not evaluated",
            default=0.0, kind="seconds", none=True, table=True,
        ),
        Option(
            "offset_tolerance",
            "offset tolerance in seconds or as timedelta; "
            "``None`` and ``duration_tolerance=None``: offsets are not evaluated",
            default=0.0, kind="seconds", none=True, table=True,
        ),
        _Fraction(
            "duration_tolerance",
            "offset tolerance as a fraction of the truth event's duration; the larger of the two applies",
            kind="real", low=0.0, none=True, table=True,
        ),
        _Choice(
            "matching",
            '``"optimal"`` (maximum matching) or ``"greedy"`` (first fit in time order, as audmetric)',
            default="optimal", kind="choice", choices=MATCHINGS, table=True,
        ),
        Option("confusion", "add the substitution pair columns", default=False, kind="bool", table=True),
        _Choice(
            "compat",
            '``None`` (exact integer nanoseconds) or ``"sed_eval"`` (sed_eval 0.2.1\'s float64 time conditions)',
            kind="choice", choices=COMPATS, table=True,
        ),
        # the statistics function's other options
        Option("files_duration", "duration per file, resolves ``end=NaT``"),
        Option(
            "dense", "a row for every file and every label instead of the rows of the pairs that occur",
            default=False, kind="bool",
        ),
        # the metrics' options
        Option("zero_division", "value of an undefined ratio (0 / 0)", default=0.0, kind="zero_division"),
        Option(
            "propagate_nans", "an F-score is NaN when its precision or recall is NaN",
            default=False, kind="bool",
        ),
        _Choice("average", '``"micro"`` or ``"macro"``', default="micro", kind="choice", choices=AVERAGES),
        Option("per_file", "one block of rows per file plus a ``TOTAL`` block", default=False, kind="bool"),
        Option("normalize", "divide each row of the confusion matrix by its sum", default=False, kind="bool"),
        Option(
            "as_frame", "the confusion matrix as a DataFrame labelled with the labels and ``\"<no event>\"``",
            default=False, kind="bool",
        ),
        # the plots' options
        Option("file", "the file to show; may be ``None`` if the inputs hold one file"),
        Option("start", "start of the shown time window in seconds or as timedelta (checked by the window)"),
        Option("end", "end of the shown time window in seconds or as timedelta (checked by the window)"),
        Option("collars", "shade the tolerance collars", default=True, kind="bool"),
        Option("colors", "colours per outcome replacing the default ones"),
        Option("colorbar", "add a colour bar", default=True, kind="bool"),
        Option("cmap", "matplotlib colour map or its name", default="Blues"),
        Option("ax", "axes to draw on; ``None``: a new figure"),
    ),
    columns=COLUMNS,
    check=_check,
    record=_record,
)
"""The event family's options, declared once: statistics, metrics, outcomes and plots."""

OPTIONS = EVENT.table_options
"""Options of :func:`event_statistics` that its table records."""

normalise = EVENT.normalise
"""Given event statistics options (any subset) as a table records them."""
