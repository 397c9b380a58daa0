"""dask_statistics on the synchronous scheduler against the direct call at 10k events, A/B (issue 32, item 3).

Run (needs the ``dask`` extra)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/dask_sync_ab.py [--before DIR] [--processes 4] [--samples 30] [--events 10000]

Data: the workload of ``dask_scaling.py`` (DCASE-like 10 s clips, 10 classes, categorical labels),
cut into 2 partitions by file and persisted (held in memory), on both sides.
Each process imports one checkout's ``audeval`` (this one, and with ``--before DIR`` the one in ``DIR``,
e.g. made by ``git worktree add /tmp/before <commit>``), checks that both calls give the same table,
and times ``sync`` (:func:`audeval.dask_statistics` on dask's synchronous scheduler)
and ``direct`` (:func:`audeval.event_statistics` on the pandas Series) alternately, ``--samples`` times each
(CPU time, ``time.process_time``), the order of the calls rotated from round to round. The checkouts' processes alternate, ``--processes`` each,
so that a load that changes meets both alike.
Printed per process: the medians and their ratio (the target: sync <= 1.3x direct),
and the direct call on new Series (the same rows on index objects pandas has not seen, as a training
loop's predictions) against the direct call on the Series it has seen; then the load average.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

WORKER = r"""
import os, statistics, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[1], "benchmarks"))
import dask
import pandas as pd
import _data
import audeval
import dask_scaling
n, samples = int(sys.argv[2]), int(sys.argv[3])
truth, prediction, _ = _data.dcase(n, seed=0)
t, p = (c.persist(scheduler="sync") for c in dask_scaling.collections(truth, prediction, 2))

def sync():
    with dask.config.set(scheduler="sync"):
        return audeval.dask_statistics(audeval.event_statistics, t, p, **dask_scaling.OPTIONS)

def direct():
    return audeval.event_statistics(truth, prediction, **dask_scaling.OPTIONS)

def new_series(series):  # the same rows on index objects pandas has not seen (a new prediction)
    index = series.index
    files = pd.Index(list(index.levels[0]), dtype=index.levels[0].dtype, name="file")
    levels = [files, index.levels[1].copy(), index.levels[2].copy()]
    index = pd.MultiIndex(levels=levels, codes=list(index.codes), names=index.names, verify_integrity=False)
    return pd.Series(series.array.copy(), index=index, name=series.name)

pd.testing.assert_frame_equal(sync(), direct())
times = {"sync": [], "direct": [], "direct, new Series": []}
for k in range(samples):
    new = new_series(truth), new_series(prediction)
    calls = [
        ("sync", sync), ("direct", direct),
        ("direct, new Series", lambda: audeval.event_statistics(*new, **dask_scaling.OPTIONS)),
    ]
    calls = calls[k % 3:] + calls[:k % 3]  # (each call first in a third of the rounds: none always follows the new Series' making)
    for name, call in calls:
        start = time.process_time()
        call()
        times[name].append(time.process_time() - start)
s, d, f = (statistics.median(values) for values in times.values())
print(
    f"sync {s * 1e3:.2f} ms  direct {d * 1e3:.2f} ms  ratio {s / d:.2f}x  "
    f"(direct on new Series {f / d:.2f}x)  ({audeval.__file__})"
)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="another checkout to compare with")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--events", type=int, default=10_000)
    args = parser.parse_args()
    checkouts = [os.path.dirname(HERE)] + ([os.path.abspath(args.before)] if args.before else [])
    env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
    print(f"OPENBLAS_NUM_THREADS={env['OPENBLAS_NUM_THREADS']}, {args.events} truth events, 2 partitions")
    for _ in range(args.processes):
        for checkout in checkouts[::-1]:
            command = [sys.executable, "-c", WORKER, checkout, str(args.events), str(args.samples)]
            print(subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout.strip())
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
