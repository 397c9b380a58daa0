"""Benchmark of score-based statistics on long files (issue 32 item 5): PSDS1 and the table.

Workloads (seeded, scores at 20 ms frames made from the truth as in ``bench_scores.py``:
a smoothed, noisy indicator of the truth with false alarms):

* ``long``: one file of ``--hours`` hours (10.7 h: 1.93M frames) x 10 classes;
* ``files``: 200 files x 10,000 frames (200 s) x 27 classes;
* growth in frames of one file: ``--hours`` / 16, / 4 and x 1 (n, 4n, 16n frames).

Truth: per class, events of 0.3-6 s with gaps of 1-20 s.
Measured per workload, for ``psds`` (DCASE PSDS1: DTC 0.7, GTC 0.7, alpha_ct 0, alpha_st 1,
max_efpr 100) and ``score_statistics`` (the full table, every threshold):
CPU time (``time.process_time``), the median of ``--repeat`` runs interleaved over the workloads
after a warm-up; the tracemalloc peak of one extra run, also per score cell
(frames x classes); the growth exponents :math:`\\log(t_{16n} / t_n) / \\log 16`.

The audeval imported is the one on ``sys.path``: set ``PYTHONPATH`` to the checkout
(the script prints which one it used)::

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python benchmarks/bench_scores_long.py
    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python benchmarks/bench_scores_long.py --only long --repeat 5
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scores import HOP, PSDS1, _scores_from_truth, to_audeval  # noqa: E402


def data(n_files: int, seconds: float, n_classes: int, seed: int = 0):
    """Truth rows, durations and scores of ``n_files`` files of ``seconds`` each."""
    rng = np.random.default_rng(seed)
    classes = [f"class{c:02d}" for c in range(n_classes)]
    width = len(str(max(n_files - 1, 0)))
    files = [f"file{i:0{width}d}.wav" for i in range(n_files)]
    rows = []
    for file in files:
        for label in classes:
            n = int(seconds / 4) + 10  # more than enough events
            length = rng.uniform(0.3, 6, n)
            gap = rng.uniform(1, 20, n)
            start = rng.uniform(0, 5) + np.concatenate([[0.0], np.cumsum(length + gap)[:-1]])
            end = start + length
            keep = end <= seconds
            rows += [(file, round(s, 3), round(e, 3), label) for s, e in zip(start[keep], end[keep])]
    durations = {f: float(seconds) for f in files}
    scores = _scores_from_truth(rng, files, durations, rows, classes)
    return to_audeval(classes, rows, durations, scores)


def calls():
    from audeval import psds, score_statistics

    return {
        "psds": lambda t, s, d: psds(t, s, files_duration=d, **PSDS1),
        "score_statistics": lambda t, s, d: score_statistics(
            t, s, files_duration=d, dtc_threshold=0.7, gtc_threshold=0.7),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="long,files,growth")
    parser.add_argument("--calls", default="psds,score_statistics")
    parser.add_argument("--hours", type=float, default=10.7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    only = args.only.split(",")
    workloads = {}
    if "long" in only:
        workloads["long"] = (1, args.hours * 3600, 10)
    if "files" in only:
        workloads["files"] = (200, 10_000 * HOP, 27)
    if "growth" in only:
        for k in (16, 4):
            workloads[f"long/{k}"] = (1, args.hours * 3600 / k, 10)
        workloads.setdefault("long", (1, args.hours * 3600, 10))
    inputs = {name: data(*spec) for name, spec in workloads.items()}
    functions = {k: v for k, v in calls().items() if k in args.calls.split(",")}
    results = {name: {"frames": len(x[1]), "classes": x[1].shape[1], "events": len(x[0])}
               for name, x in inputs.items()}
    values = {}
    for name, x in inputs.items():  # warm-up
        for call, f in functions.items():
            out = f(*x)
            values[(name, call)] = out if call == "psds" else len(out)
    times = {key: [] for key in values}
    for _ in range(args.repeat):  # interleaved
        for name, x in inputs.items():
            for call, f in functions.items():
                start = time.process_time()
                f(*x)
                times[(name, call)].append(time.process_time() - start)
    for (name, call), t in times.items():
        x = inputs[name]
        tracemalloc.start()
        functions[call](*x)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        cells = x[1].size
        results[name][call] = {
            "cpu": float(np.median(t)), "peak_mb": peak / 1e6, "bytes_per_cell": peak / cells,
            "value" if call == "psds" else "rows": values[(name, call)],
        }
    if "growth" in only:
        for call in functions:
            small, large = results["long/16"][call], results["long"][call]
            results.setdefault("exponents", {})[call] = {
                "time": math.log(large["cpu"] / small["cpu"]) / math.log(16),
                "memory": math.log(large["peak_mb"] / small["peak_mb"]) / math.log(16),
            }
    import audeval

    print(f"audeval from {os.path.dirname(audeval.__file__)}; "
          f"load: {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} cores")
    print("| workload | frames x classes | events | call | CPU s | peak MB | bytes per cell | PSDS / rows |")
    print("|---|---|---|---|---|---|---|---|")
    for name, row in results.items():
        if name == "exponents":
            continue
        for call in functions:
            r = row[call]
            value = f"{r['value']:.6f}" if call == "psds" else f"{r['rows']:,}"
            print(f"| {name} | {row['frames']:,} x {row['classes']} | {row['events']:,} | {call} "
                  f"| {r['cpu']:.2f} | {r['peak_mb']:.0f} | {r['bytes_per_cell']:.1f} | {value} |")
    for call, e in results.get("exponents", {}).items():
        print(f"growth n -> 16n frames of one file, {call}: time {e['time']:.2f}, memory {e['memory']:.2f}")
    if args.json:
        with open(args.json, "w") as fp:
            json.dump(results, fp, indent=1)
    return results


if __name__ == "__main__":
    main()
