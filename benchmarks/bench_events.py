"""Event-based metrics at scale: the targets of SPEC section 9 and issue 20, in one process.

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_events.py [--quick] [--sed-eval]

Data (``benchmarks/_data.py``, seeded): DCASE-like 10 s clips (10 events per clip),
rows in random order, DCASE tolerances (0.2 s onset and offset, 50 % of the length).
Printed:

* CPU time (``time.process_time``, median) of ``truth.sort_index()``,
  ``event_fscore`` (optimal) and ``event_fscore(matching="greedy")``,
  the three calls interleaved run by run, so that a busy machine
  slows them alike; ratios to ``sort_index`` (target <= 3x at 1M + 1M events);
* the tracemalloc peak of ``event_fscore`` per truth + prediction row
  with the labels spread over 10, 100 and 1,000 classes (target <= 1 KB);
* the dense cases: one label, 8,000 near-perfect events in one file (optimal, target < 1 s),
  and one 1 h file with 50k polyphonic events;
* with ``--sed-eval``: sed_eval's time for the 10k events (target: audeval <= 3 ms CPU).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import _data  # noqa: E402
from _timing import interleaved  # noqa: E402
import audeval  # noqa: E402


OPTIONS = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5)




def relabel(series: pd.Series, n_classes: int, seed: int) -> pd.Series:
    """The same events with labels drawn from ``n_classes`` classes."""
    codes = np.random.default_rng(seed).integers(0, n_classes, len(series))
    labels = [f"class{k:04d}" for k in range(n_classes)]
    return pd.Series(pd.Categorical.from_codes(codes, categories=labels), index=series.index)


def speed(n_events: int, repeat: int) -> None:
    truth, prediction, durations = _data.dcase(n_events)
    truth, prediction = _data.shuffled(truth, seed=1), _data.shuffled(prediction, seed=2)
    options = dict(OPTIONS, files_duration=durations)
    cpu = interleaved(
        {
            "sort_index": lambda: truth.sort_index(),
            "optimal": lambda: audeval.event_fscore(truth, prediction, **options),
            "greedy": lambda: audeval.event_fscore(truth, prediction, matching="greedy", **options),
        },
        repeat=repeat,
    )
    print(
        f"| {n_events:,} | {len(durations):,} | {cpu['sort_index'] * 1e3:.2f} | {cpu['optimal'] * 1e3:.2f} "
        f"| {cpu['optimal'] / cpu['sort_index']:.2f} | {cpu['greedy'] * 1e3:.2f} "
        f"| {cpu['greedy'] / cpu['sort_index']:.2f} |"
    )


def memory(n_events: int, n_classes: int) -> None:
    truth, prediction, durations = _data.dcase(n_events)
    truth, prediction = relabel(truth, n_classes, 1), relabel(prediction, n_classes, 2)
    options = dict(OPTIONS, files_duration=durations)
    audeval.event_fscore(truth, prediction, **options)
    tracemalloc.start()
    audeval.event_fscore(truth, prediction, **options)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rows = len(truth) + len(prediction)
    print(f"| {n_events:,} | {n_classes:,} | {peak / 1e6:.1f} | {peak / rows:.0f} |")


def dense() -> None:
    truth, prediction, durations = _data.dense_one_label(8_000)
    options = dict(onset_tolerance=0.2, offset_tolerance=None, files_duration=durations)
    cpu = interleaved({"optimal": lambda: audeval.event_fscore(truth, prediction, **options)}, repeat=3)
    print(f"| one label, 8,000 near-perfect events, one file | optimal | {cpu['optimal'] * 1e3:.1f} |")
    truth, prediction, durations = _data.dcase(50_000, clip_seconds=3600.0, events_per_file=50_000)
    truth, prediction = _data.shuffled(truth, seed=1), _data.shuffled(prediction, seed=2)
    options = dict(OPTIONS, files_duration=durations)
    cpu = interleaved(
        {
            "optimal": lambda: audeval.event_fscore(truth, prediction, **options),
            "greedy": lambda: audeval.event_fscore(truth, prediction, matching="greedy", **options),
        },
        repeat=5,
    )
    for name, seconds in cpu.items():
        print(f"| one 1 h file, 50,000 polyphonic events | {name} | {seconds * 1e3:.1f} |")


def sed_eval_time(n_events: int) -> None:
    import sed_eval

    truth, prediction, durations = _data.dcase(n_events)
    metrics = sed_eval.sound_event.EventBasedMetrics(
        event_label_list=list(truth.cat.categories), t_collar=0.2, percentage_of_length=0.5
    )

    def events(series, file):
        part = series[series.index.get_level_values("file") == file].sort_index()
        return [
            {"event_onset": s.total_seconds(), "event_offset": e.total_seconds(),
             "event_label": label, "filename": file}
            for (_, s, e), label in part.items()
        ]

    lists = [(events(truth, f), events(prediction, f)) for f in durations.index]
    start = time.process_time()
    for reference, estimated in lists:
        metrics.evaluate(reference, estimated)
    f_sed = metrics.results_overall_metrics()["f_measure"]["f_measure"]
    seconds = time.process_time() - start
    f = audeval.event_fscore(truth, prediction, compat="sed_eval", files_duration=durations, **OPTIONS)
    print(f"sed_eval, {n_events:,} events: {seconds:.2f} s CPU (F = {f_sed:.6f}; audeval compat: {f:.6f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="up to 100k events, memory with 10k events")
    parser.add_argument("--sed-eval", action="store_true", help="time sed_eval on the 10k events")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # the data repeat a few identical rows (a warning each call)
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    print("| events per side | files | sort_index ms | optimal ms | ratio | greedy ms | ratio |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        speed(n, repeat=200 if n <= 10_000 else 21 if n <= 100_000 else 7)
    print()
    print("| events per side | classes | peak MB (event_fscore) | bytes per row |")
    print("|---|---|---|---|")
    for n_classes in (10, 100, 1_000):
        memory(10_000 if args.quick else 100_000, n_classes)
    print()
    print("| dense case | matching | CPU ms |")
    print("|---|---|---|")
    dense()
    if args.sed_eval:
        print()
        sed_eval_time(10_000)


if __name__ == "__main__":
    main()
