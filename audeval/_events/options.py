"""Options of the event family: tolerances in integer ns, matching, what tables record."""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses
import fractions

import numpy as np
import pandas as pd

from audeval._options import as_timedelta, check_bool, check_choice, check_duration, value_of
from audeval._validation import check_fraction



MATCHINGS = ("optimal", "greedy")
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
            scaled = p * (length // q) + (p * (length % q)) // q
            allowance = np.maximum(allowance, scaled)
        return allowance


def tolerances(
    onset_tolerance: Tolerance,
    offset_tolerance: Tolerance,
    duration_tolerance: float | None,
) -> Tolerances:
    """Check and convert the three tolerances once."""
    onset = check_duration(onset_tolerance, "onset_tolerance")
    offset = check_duration(offset_tolerance, "offset_tolerance")
    duration = check_fraction(value_of(duration_tolerance), "duration_tolerance")
    if onset is None and offset is None and duration is None:
        raise ValueError(
            "onset_tolerance, offset_tolerance and duration_tolerance are all None: "
            "at least the onset or the offset must be evaluated."
        )
    fraction = None
    if duration is not None:
        fraction = fractions.Fraction(duration).limit_denominator(10**6)
    return Tolerances(onset, offset, fraction)



OPTIONS = ("onset_tolerance", "offset_tolerance", "duration_tolerance", "matching", "confusion")
"""Options of :func:`event_statistics` that its table records."""


def normalise(options: Mapping[str, object]) -> dict:
    """Check the given event statistics options; durations as int ns (what a table records)."""
    checks = {
        "onset_tolerance": lambda v: as_timedelta(check_duration(v, "onset_tolerance")),
        "offset_tolerance": lambda v: as_timedelta(check_duration(v, "offset_tolerance")),
        "duration_tolerance": lambda v: check_fraction(value_of(v), "duration_tolerance"),
        "matching": lambda v: check_choice(v, "matching", MATCHINGS),
        "confusion": lambda v: check_bool(v, "confusion"),
    }
    return {name: checks[name](value) for name, value in options.items() if name in checks}
