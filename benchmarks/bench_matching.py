"""Matching on dense candidate graphs: identical events (issue 32, item 6).

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_matching.py [--sizes 2000 8000] [--repeat 3]

Data: ``n`` identical events of one label in one file (0.5 s to 1.5 s), truth and
prediction identical; every truth event is a candidate of every predicted one
(``n**2`` candidate pairs before issue 32). Also ``n`` identical events against the
same events shifted by 0.1 s (still candidates) with ``n / 2`` of another label.
Timed: :func:`audeval.event_fscore` (0.2 s onset and offset tolerance) with ``matching="optimal"`` and ``"greedy"``
(CPU seconds, median of ``repeat`` interleaved runs; tracemalloc peak of one call,
which counts numpy's buffers). Target: 8,000 events <= 1 s and <= 300 MB.
Each size runs in a fresh process (``--one`` runs a single case in this process), so a
case that runs out of memory does not end the others.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # this checkout

import audformat  # noqa: E402
import pandas as pd  # noqa: E402

import audeval  # noqa: E402


TOLERANCES = dict(onset_tolerance=0.2, offset_tolerance=0.2)


def identical(n: int, shift: float = 0.0, other: int = 0) -> pd.Series:
    index = audformat.segmented_index(["a.wav"] * n, [0.5 + shift] * n, [1.5 + shift] * n)
    labels = ["dog"] * (n - other) + ["cat"] * other
    return pd.Series(labels, index=index)


def case(name: str, n: int) -> tuple[pd.Series, pd.Series]:
    if name == "identical":
        return identical(n), identical(n)
    return identical(n), identical(n, shift=0.1, other=n // 2)


def run_one(name: str, n: int, repeat: int) -> dict:
    truth, prediction = case(name, n)
    calls = {
        matching: (lambda m=matching: audeval.event_fscore(truth, prediction, matching=m, **TOLERANCES))
        for matching in ("optimal", "greedy")
    }
    result = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # identical rows are warned about
        for matching, call in calls.items():
            tracemalloc.start()
            value = call()
            result[f"{matching} MB"] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            result[f"{matching} fscore"] = float(value)
        times = {m: [] for m in calls}
        for _ in range(repeat):
            for matching, call in calls.items():
                start = time.process_time()
                call()
                times[matching].append(time.process_time() - start)
    for matching, values in times.items():
        result[f"{matching} s"] = statistics.median(values)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 8000])
    parser.add_argument("--cases", nargs="+", default=["identical", "shifted"])
    parser.add_argument("--timeout", type=float, default=120, help="seconds per case")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", nargs=2, metavar=("CASE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]), args.repeat)))
        return
    print(f"CPU seconds (median of {args.repeat}) and tracemalloc peak (load {os.getloadavg()[0]:.2f})")
    print(f"{'case':10s} {'n':>6s} {'optimal s':>10s} {'MB':>8s} {'greedy s':>10s} {'MB':>8s} {'fscore':>7s}")
    for name in args.cases:
        for n in args.sizes:
            try:
                out = subprocess.run(
                    [sys.executable, __file__, "--one", name, str(n), "--repeat", str(args.repeat)],
                    capture_output=True, text=True, timeout=args.timeout,
                )
            except subprocess.TimeoutExpired:
                print(f"{name:10s} {n:6d} did not finish in {args.timeout:g} s")
                continue
            if out.returncode != 0:
                print(f"{name:10s} {n:6d} failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(out.stdout)
            print(
                f"{name:10s} {n:6d} {r['optimal s']:10.3f} {r['optimal MB']:8.1f} "
                f"{r['greedy s']:10.3f} {r['greedy MB']:8.1f} {r['optimal fscore']:7.3f}"
            )


if __name__ == "__main__":
    main()
