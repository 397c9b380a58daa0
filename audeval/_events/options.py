"""Options of the event family: tolerances in integer ns, matching, what tables record."""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses
import fractions
import functools

import numpy as np
import pandas as pd

from audeval._options import as_timedelta, check_bool, check_choice, check_duration, value_of
from audeval._validation import check_fraction



MATCHINGS = ("optimal", "greedy")
COMPATS = (None, "sed_eval")
COMPAT_MARGIN = 1_000
"""Widening of the integer candidate join (ns) before ``compat="sed_eval"`` filters the pairs.

sed_eval's float64 decisions differ from the exact ones only within a few ulps
(far below 1 ns for times under 10**6 s), so 1 us covers every candidate."""
COLUMNS = ["n_truth", "n_prediction", "tp", "fp", "fn", "substituted", "substituting"]
CONFUSION_PREFIX = "substituted_by_"

Tolerance = float | pd.Timedelta | None


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


def tolerances(
    onset_tolerance: Tolerance,
    offset_tolerance: Tolerance,
    duration_tolerance: float | None,
    compat: str | None = None,
) -> Tolerances:
    """Check and convert the three tolerances (and ``compat``) once."""
    onset = check_duration(onset_tolerance, "onset_tolerance")
    offset = check_duration(offset_tolerance, "offset_tolerance")
    duration = check_fraction(value_of(duration_tolerance), "duration_tolerance")
    if onset is None and offset is None and duration is None:
        raise ValueError(
            "onset_tolerance, offset_tolerance and duration_tolerance are all None: "
            "at least the onset or the offset must be evaluated."
        )
    fraction = None if duration is None else _fraction(duration)
    compat = check_choice(compat, "compat", COMPATS)
    return Tolerances(onset, offset, fraction, compat, None if duration is None else float(duration))



@functools.lru_cache(maxsize=64)
def _fraction(duration: float) -> fractions.Fraction:
    """The nearest fraction ``p / q`` with ``q <= 10**6`` (computed once per value)."""
    return fractions.Fraction(duration).limit_denominator(10**6)


OPTIONS = ("onset_tolerance", "offset_tolerance", "duration_tolerance", "matching", "confusion", "compat")
"""Options of :func:`event_statistics` that its table records."""


def normalise(options: Mapping[str, object]) -> dict:
    """Check the given event statistics options; durations as int ns (what a table records)."""
    checks = {
        "onset_tolerance": lambda v: as_timedelta(check_duration(v, "onset_tolerance")),
        "offset_tolerance": lambda v: as_timedelta(check_duration(v, "offset_tolerance")),
        "duration_tolerance": lambda v: check_fraction(value_of(v), "duration_tolerance"),
        "matching": lambda v: check_choice(v, "matching", MATCHINGS),
        "confusion": lambda v: check_bool(v, "confusion"),
        "compat": lambda v: check_choice(v, "compat", COMPATS),
    }
    return {name: checks[name](value) for name, value in options.items() if name in checks}
