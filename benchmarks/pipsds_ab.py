"""Interleaved A/B of piPSDS on DESED (issue 29): this checkout against another one.

Each round runs, for each checkout in turn, a fresh interpreter that imports that checkout's
``audeval``, computes the value of ``benchmarks/pipsds.py`` once (warm-up) and times
``--calls`` further calls (CPU time, ``time.process_time``); reported are the values, every time,
their medians per checkout and the load average after each run::

    git worktree add /tmp/before <commit>
    OPENBLAS_NUM_THREADS=1 python benchmarks/pipsds_ab.py --before /tmp/before --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

WORKER = r"""
import json, sys, time
root, calls = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, root + "/benchmarks")
sys.path.insert(0, root)
import audeval, bench_scores, pipsds as bench
assert audeval.__file__.startswith(root), audeval.__file__
truth, table, durations = bench_scores.to_audeval(*bench_scores.desed_data())
def run():
    return audeval.pipsds(truth, table, median_filter_lengths=bench.LENGTHS, files_duration=durations,
                          compat="sed_scores_eval", **bench.OPTIONS)
value = run()
times = []
for _ in range(calls):
    start = time.process_time()
    run()
    times.append(time.process_time() - start)
print(json.dumps({"value": value, "times": times}))
"""


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="another checkout (a git worktree) of audeval")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=2, help="timed calls per run")
    args = parser.parse_args(argv)
    roots = {"before": os.path.abspath(args.before), "after": os.path.dirname(HERE)}
    times: dict = {name: [] for name in roots}
    values: dict = {}
    for _ in range(args.rounds):
        for name, root in roots.items():
            out = subprocess.run(
                [sys.executable, "-c", WORKER, root, str(args.calls)], capture_output=True, text=True,
                check=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
            )
            row = json.loads(out.stdout.strip().splitlines()[-1])
            times[name] += row["times"]
            values[name] = row["value"]
            print(json.dumps({name: row["times"], "load": os.getloadavg()[0]}), flush=True)
    print(json.dumps({
        "values": values,
        "medians": {name: statistics.median(t) for name, t in times.items()},
        "runs": times,
    }, indent=1))


if __name__ == "__main__":
    main()
