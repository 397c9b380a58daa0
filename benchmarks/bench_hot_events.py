"""The hot loop of event F: 10k events in 10 s clips, one ``event_fscore`` call (issue 32, item 9).

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_hot_events.py [--before DIR] [--rounds 15] [--calls 40]

Data as ``bench_events.py``: DCASE-like 10 s clips (10 events per clip, 1,000 files),
rows in random order, ``onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5``
and ``files_duration``; optimal and greedy matching.
Target: optimal <= 3 ms CPU (``time.process_time``) per call.

Every version of audeval (this checkout, and with ``--before DIR`` the checkout in ``DIR``,
e.g. made by ``git worktree add /tmp/perf-before <commit>``) runs in its own worker process
that imports its own ``audeval``; the workers run ``--calls`` calls in turn, round by round,
so that a load that changes meets all of them alike.
Printed: the median CPU time per call over all rounds, the F-scores (they must agree),
and the load average.
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
import json, os, sys, time, warnings
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import _data
import audeval
warnings.simplefilter("ignore")  # the data repeat a few identical rows (a warning each call)
truth, prediction, durations = _data.dcase(10_000)
truth, prediction = _data.shuffled(truth, seed=1), _data.shuffled(prediction, seed=2)
options = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5, files_duration=durations)
calls = {
    "optimal": lambda: audeval.event_fscore(truth, prediction, **options),
    "greedy": lambda: audeval.event_fscore(truth, prediction, matching="greedy", **options),
}
results = {name: call() for name, call in calls.items()}
for _ in range(20):
    for call in calls.values():
        call()
print(json.dumps({"file": audeval.__file__, "results": results}), flush=True)
for line in sys.stdin:
    n = int(line)
    times = {name: [] for name in calls}
    for _ in range(n):
        for name, call in calls.items():
            start = time.process_time()
            call()
            times[name].append(time.process_time() - start)
    print(json.dumps(times), flush=True)
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", help="root of another checkout to compare with (interleaved)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=40, help="calls per function, worker and round")
    args = parser.parse_args()
    roots = {"this": os.path.dirname(HERE)}
    if args.before:
        roots = {"before": os.path.abspath(args.before), **roots}
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    workers = {}
    for name, root in roots.items():
        process = subprocess.Popen(
            [sys.executable, "-c", WORKER, root, HERE],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=root,
        )
        workers[name] = (process, json.loads(process.stdout.readline()))
    times: dict = {name: {} for name in workers}
    for _ in range(args.rounds):
        for name, (process, _info) in workers.items():
            process.stdin.write(f"{args.calls}\n")
            process.stdin.flush()
            for function, values in json.loads(process.stdout.readline()).items():
                times[name].setdefault(function, []).extend(values)
    for process, _info in workers.values():
        process.stdin.close()
        process.wait()
    print(f"10k events per side, 10 s clips; {args.rounds} rounds x {args.calls} calls, interleaved")
    print("| version | audeval | optimal ms | greedy ms | F (optimal) | F (greedy) |")
    print("|---|---|---|---|---|---|")
    for name, (_process, info) in workers.items():
        ms = {function: statistics.median(values) * 1e3 for function, values in times[name].items()}
        print(
            f"| {name} | {os.path.dirname(os.path.dirname(info['file']))} | {ms['optimal']:.2f} | {ms['greedy']:.2f} "
            f"| {info['results']['optimal']:.12f} | {info['results']['greedy']:.12f} |"
        )
    print("load average:", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
