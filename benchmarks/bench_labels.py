"""Cost of the label dtype in the validation gate (issue 33 item 23).

The same 1M + 1M events (10k files, 10 labels) with the labels held as
``str``/``category`` dtype, as Python ``str`` objects, and as numpy strings
in an object Series (what ``pd.Series(list(np_array), dtype=object)`` gives).
Times ``audeval.event_statistics`` (the gate and the matching) and the gate alone,
as medians of interleaved runs (CPU time of this process).

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_labels.py [--events 1000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd

import audeval
from audeval._core.validation import check_inputs


def events(n: int, seed: int, n_files: int = 10_000, n_labels: int = 10) -> tuple[pd.MultiIndex, np.ndarray]:
    """A segmented index of ``n`` events and their labels (a numpy str array)."""
    rng = np.random.default_rng(seed)
    files = np.sort(rng.integers(0, n_files, n))
    start = rng.integers(0, 600_000, n) * 1_000_000  # ms grid, in ns
    end = start + rng.integers(100, 5_000, n) * 1_000_000
    index = pd.MultiIndex.from_arrays(
        [
            pd.Index([f"file{f:05d}.wav" for f in files], dtype="str"),
            pd.to_timedelta(start, unit="ns"),
            pd.to_timedelta(end, unit="ns"),
        ],
        names=["file", "start", "end"],
    )
    labels = np.array([f"label{k}" for k in range(n_labels)])[rng.integers(0, n_labels, n)]
    return index, labels


def variants(index: pd.MultiIndex, labels: np.ndarray) -> dict[str, pd.Series]:
    return {
        "str dtype": pd.Series(labels, index=index, dtype="str"),
        "category": pd.Series(labels, index=index, dtype="category"),
        "object of str": pd.Series(labels.tolist(), index=index, dtype=object),
        "object of numpy str": pd.Series(list(labels), index=index, dtype=object),
    }


def cpu(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    truth = variants(*events(args.events, 0))
    prediction = variants(*events(args.events, 1))
    tasks = {
        "gate": lambda t, p: check_inputs(t, p),
        "event_statistics": lambda t, p: audeval.event_statistics(t, p, onset_tolerance=0.2),
    }
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeat):  # interleaved: every variant in every round
        for task, function in tasks.items():
            for name in truth:
                t, p = truth[name].copy(deep=False), prediction[name].copy(deep=False)
                times.setdefault((task, name), []).append(cpu(lambda: function(t, p)))
    print(f"{args.events:,} + {args.events:,} events, median CPU seconds of {args.repeat} interleaved runs")
    for task in tasks:
        base = min(statistics.median(times[(task, n)]) for n in ("str dtype", "category"))
        for name in truth:
            median = statistics.median(times[(task, name)])
            print(f"{task:17s} {name:20s} {median:7.3f} s  {median / base:4.2f}x the typed labels")


if __name__ == "__main__":
    main()
