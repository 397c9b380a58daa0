"""Statistics tables that hold only what occurs (issue 32 item 1): memory and time.

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sparse.py [--quick] [--sizes 100000 300000 1000000]
        [--dense] [--n-boot 1000] [--repeat 5]

Data (``benchmarks/_data.py``, seeded): DCASE-like 10 s clips (10 truth events per clip),
labels drawn uniformly from 1,000 classes (300 for the confusion case),
DCASE tolerances (0.2 s onset and offset, 50 % of the length).
"Per event" is per truth + prediction row (the denominator of ``bench_events.py``).
Printed, per number of truth events:

* the tracemalloc peak (inputs excluded) of ``event_statistics`` with 1,000 classes
  (target <= 1 KB per event),
  of ``event_statistics(confusion=True)`` with 300 classes (target <= 2 KB per event),
  of ``bootstrap(event_fscore, ...)`` with 1,000 classes (target <= 2 KB per event),
  and of the direct ``event_fscore`` call for comparison;
  with ``--dense`` also ``event_statistics(dense=True)`` (the old dense grid);
* CPU time (``time.process_time``, medians of interleaved runs) of
  ``event_fscore`` (direct), ``event_statistics`` and ``event_fscore`` on that table;
* the rows of the table and the check that the numbers agree
  (table, direct call, ``sum_statistics`` of two halves of the files).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tracemalloc
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import _data  # noqa: E402
from _timing import interleaved  # noqa: E402
import audeval  # noqa: E402


OPTIONS = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5)


def relabel(series: pd.Series, n_classes: int, seed: int) -> pd.Series:
    """The same events with labels drawn from ``n_classes`` classes (categorical)."""
    codes = np.random.default_rng(seed).integers(0, n_classes, len(series))
    labels = [f"class{k:04d}" for k in range(n_classes)]
    return pd.Series(pd.Categorical.from_codes(codes, categories=labels), index=series.index)


def workload(n_events: int, n_classes: int):
    truth, prediction, durations = _data.dcase(n_events)
    return relabel(truth, n_classes, 1), relabel(prediction, n_classes, 2), durations


def peak(function) -> tuple[int, object]:
    """tracemalloc peak in bytes of one call (after a collection), and its result."""
    gc.collect()
    tracemalloc.start()
    result = function()
    size = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return size, result




def memory(n_events: int, *, dense: bool, n_boot: int) -> None:
    truth, prediction, durations = workload(n_events, 1_000)
    options = dict(OPTIONS, files_duration=durations)
    rows = len(truth) + len(prediction)
    audeval.event_fscore(truth, prediction, **options)  # warm-up (imports, caches)
    cases = {
        "event_fscore (direct)": lambda: audeval.event_fscore(truth, prediction, **options),
        "event_statistics, 1,000 classes": lambda: audeval.event_statistics(truth, prediction, **options),
        f"bootstrap(event_fscore, n_boot={n_boot}), 1,000 classes": lambda: audeval.bootstrap(
            audeval.event_fscore, truth, prediction, n_boot=n_boot, **options
        ),
    }
    if dense:
        cases["event_statistics(dense=True), 1,000 classes"] = lambda: audeval.event_statistics(
            truth, prediction, dense=True, **options
        )
    results = {}
    for name, function in cases.items():
        size, results[name] = peak(function)
        print(f"| {n_events:,} | {name} | {size / 1e6:.1f} | {size / rows:.0f} |", flush=True)
    table = results["event_statistics, 1,000 classes"]
    del results
    c_truth, c_prediction, _ = workload(n_events, 300)
    c_rows = len(c_truth) + len(c_prediction)
    audeval.event_statistics(c_truth.iloc[:100], c_prediction.iloc[:100], confusion=True, **OPTIONS)
    size, confusion = peak(
        lambda: audeval.event_statistics(c_truth, c_prediction, confusion=True, **options)
    )
    print(f"| {n_events:,} | event_statistics(confusion=True), 300 classes | {size / 1e6:.1f} | {size / c_rows:.0f} |", flush=True)
    size, _ = peak(lambda: audeval.event_confusion_matrix(confusion, None))
    print(f"| {n_events:,} | event_confusion_matrix(table), 300 classes | {size / 1e6:.1f} | {size / c_rows:.0f} |", flush=True)
    # the same numbers
    files = durations.index
    halves = [files[: len(files) // 2], files[len(files) // 2 :]]

    def part(series, keep):
        return series[series.index.get_level_values("file").isin(keep)]

    shards = [
        audeval.event_statistics(
            part(truth, keep), part(prediction, keep), list(truth.cat.categories),
            **dict(OPTIONS, files_duration=durations[keep]),
        )
        for keep in halves
    ]
    summed = audeval.sum_statistics(shards)
    direct = audeval.event_fscore(truth, prediction, average="macro", **options)
    from_table = audeval.event_fscore(table, None, average="macro")
    print(
        f"rows {len(table):,} ({len(table) / rows:.2f} per event); sum of halves == table: "
        f"{summed.equals(table)}; macro F direct {direct!r} == table {from_table!r}: "
        f"{direct == from_table}; confusion matrix direct == table: "
        f"{np.array_equal(audeval.event_confusion_matrix(c_truth, c_prediction, **options), audeval.event_confusion_matrix(confusion, None))}",
        flush=True,
    )


def speed(n_events: int, repeat: int) -> None:
    truth, prediction, durations = workload(n_events, 1_000)
    options = dict(OPTIONS, files_duration=durations)
    table = audeval.event_statistics(truth, prediction, **options)
    cpu = interleaved(
        {
            "direct": lambda: audeval.event_fscore(truth, prediction, **options),
            "statistics": lambda: audeval.event_statistics(truth, prediction, **options),
            "from_table": lambda: audeval.event_fscore(table, None),
        },
        repeat=repeat,
    )
    print(
        f"| {n_events:,} | {cpu['direct'] * 1e3:.0f} | {cpu['statistics'] * 1e3:.0f} "
        f"| {cpu['from_table'] * 1e3:.0f} |",
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k events only")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000])
    parser.add_argument("--dense", action="store_true", help="also the dense grid (1.3 GB at 100k)")
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    sizes = [10_000] if args.quick else args.sizes
    print(f"load: {os.getloadavg()}")
    warnings.simplefilter("ignore")
    print("| truth events | call | peak MB | bytes per event |")
    print("|---:|---|---:|---:|")
    for n in sizes:
        memory(n, dense=args.dense, n_boot=args.n_boot)
    print()
    print("| truth events | event_fscore direct ms | event_statistics ms | event_fscore(table) ms |")
    print("|---:|---:|---:|---:|")
    for n in sizes:
        speed(n, args.repeat)


if __name__ == "__main__":
    main()
