"""CPU time of several functions measured side by side (medians of interleaved runs)."""

from __future__ import annotations

import statistics
import time


def interleaved_with_results(functions: dict, *, repeat: int) -> tuple[dict[str, float], dict]:
    """Median CPU seconds per function and each function's result.

    Every function runs once as a warm-up (its result is kept),
    then the functions run in turn ``repeat`` times:
    a load that changes during the measurement meets all of them alike.
    """
    results = {name: function() for name, function in functions.items()}
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            start = time.process_time()
            function()
            times[name].append(time.process_time() - start)
    return {name: statistics.median(values) for name, values in times.items()}, results


def interleaved(functions: dict, *, repeat: int) -> dict[str, float]:
    """Median CPU seconds per function (see :func:`interleaved_with_results`)."""
    return interleaved_with_results(functions, repeat=repeat)[0]
