"""Optimal matching on dense candidate graphs of near-identical events (issue 32, item 6).

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/matching_dense.py [--sizes 2000 8000] [--repeat 5]
    # the same cases on another checkout (e.g. before the change), in its own processes:
    OPENBLAS_NUM_THREADS=1 python benchmarks/matching_dense.py --checkout /tmp/before --sizes 2000

Cases (one file, 1 s events):

* ``staircase``: ``n`` events of one label with onsets ``i * 1 ms``,
  the prediction the same events shifted by 50 ms,
  onset and offset tolerance 1 s (each truth event is a candidate of ~2,000 predictions);
* ``staircase-2``: the same with two labels alternating
  (each label's events are candidates of the other label's too: substitutions);
* ``shifted``: ``n`` identical truth events against ``n`` identical predictions shifted by 0.1 s,
  half of them of another label (tolerance 0.2 s: every pair is a candidate).

Timed: :func:`audeval.event_statistics` with ``matching="optimal"`` (CPU seconds, median of
``--repeat`` runs after a warm-up; tracemalloc peak of one more call), each case and size in a
fresh process. Target: 8,000 events <= 1 s and <= 300 MB. The statistics of the run are printed
as a checksum (``tp``, ``fn``, ``fp``, ``substituted`` summed), to compare checkouts.
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


def case(name: str, n: int):
    import audformat
    import numpy as np
    import pandas as pd

    if name.startswith("staircase"):
        onset = np.arange(n) * 1e-3
        labels = ["dog", "cat"] if name == "staircase-2" else ["dog"]
        label = [labels[k % len(labels)] for k in range(n)]
        truth = pd.Series(label, index=audformat.segmented_index(["a.wav"] * n, onset, onset + 1.0))
        shifted = onset + 0.05
        prediction = pd.Series(label, index=audformat.segmented_index(["a.wav"] * n, shifted, shifted + 1.0))
        return truth, prediction, dict(onset_tolerance=1.0, offset_tolerance=1.0)
    if name == "shifted":
        truth = pd.Series(["dog"] * n, index=audformat.segmented_index(["a.wav"] * n, [0.5] * n, [1.5] * n))
        labels = ["dog"] * (n - n // 2) + ["cat"] * (n // 2)
        prediction = pd.Series(labels, index=audformat.segmented_index(["a.wav"] * n, [0.6] * n, [1.6] * n))
        return truth, prediction, dict(onset_tolerance=0.2, offset_tolerance=0.2)
    raise ValueError(name)


def run_one(name: str, n: int, repeat: int) -> dict:
    import audeval

    truth, prediction, options = case(name, n)

    def call():
        return audeval.event_statistics(truth, prediction, matching="optimal", **options)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # identical rows are warned about
        table = call()  # warm-up (and the checksum)
        times = []
        for _ in range(repeat):
            start = time.process_time()
            call()
            times.append(time.process_time() - start)
        tracemalloc.start()
        call()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    sums = table[["tp", "fn", "fp", "substituted", "substituting"]].sum()
    return {"s": statistics.median(times), "MB": peak, "checksum": {k: int(v) for k, v in sums.items()}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--cases", nargs="+", default=["staircase", "staircase-2", "shifted"])
    parser.add_argument("--timeout", type=float, default=120, help="seconds per case")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--checkout", default=ROOT, help="the audeval checkout to time")
    parser.add_argument("--one", nargs=2, metavar=("CASE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        sys.path.insert(0, args.checkout)
        print(json.dumps(run_one(args.one[0], int(args.one[1]), args.repeat)))
        return
    print(
        f"checkout {args.checkout}; event_statistics(matching='optimal'): CPU seconds "
        f"(median of {args.repeat}) and tracemalloc peak; load {os.getloadavg()[0]:.2f}"
    )
    print("| case | events per side | CPU s | peak MB | tp / fn / fp / substituted / substituting |")
    print("|---|---:|---:|---:|---|")
    for name in args.cases:
        for n in args.sizes:
            command = [
                sys.executable, os.path.abspath(__file__), "--one", name, str(n),
                "--repeat", str(args.repeat), "--checkout", args.checkout,
            ]
            try:
                out = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                print(f"| {name} | {n:,} | > {args.timeout:g} s | | |")
                continue
            if out.returncode != 0:
                print(f"| {name} | {n:,} | failed: {out.stderr.strip().splitlines()[-1:]} | | |")
                continue
            r = json.loads(out.stdout)
            c = r["checksum"]
            print(
                f"| {name} | {n:,} | {r['s']:.3f} | {r['MB']:.1f} "
                f"| {c['tp']} / {c['fn']} / {c['fp']} / {c['substituted']} / {c['substituting']} |"
            )


if __name__ == "__main__":
    main()
