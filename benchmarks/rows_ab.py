"""The small-input rows of ``run.py --quick`` in two checkouts, alternating processes (issue 27).

``run.py --quick`` times each row once per run; on a shared 2-core machine a row of 1-10 ms
moved by 20-50 % between runs of the same code (e.g. detection on 10 conversations: 1.45, 1.78
and 2.54 ms in three runs of one checkout at load 1), so it cannot resolve 10 %.
Here each process times every row as the minimum of 9 samples (each sample many calls,
CPU time), and the processes alternate between the checkouts ``--rounds`` times;
reported is the median over the rounds of each side, and their ratio::

    OPENBLAS_NUM_THREADS=1 python benchmarks/rows_ab.py --before /tmp/before --after . --rounds 5

The rows: segment reports (1 h, 10 h; 1 s, 10 ms, exact; sed_eval's and the default),
structure reports (10 and 100 songs, one 6 min song of 1,000 sections; default, mir_eval, exact),
detection and DER (10 and 100 conversations; 100 conversations of 5 min),
hierarchy reports (20 songs, one 1 h file) and the event report (10,000 events),
on the same data as ``run.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings


def rows(root: str) -> dict:
    """Row name -> call, on the data of ``run.py`` (imported from the checkout ``root``)."""
    sys.path.insert(0, root)
    sys.path.insert(0, os.path.join(root, "benchmarks"))
    import audeval
    import _data
    import bench_diarization
    import bench_hierarchy

    out = {}
    for hours in (1, 10):
        t, p, d = _data.broadcast(hours)
        for compat in ("sed_eval", None):
            for r in (1.0, 0.01):
                out[f"segment_report {hours} h, {r:g} s, compat={compat}"] = (
                    lambda t=t, p=p, d=d, r=r, c=compat: audeval.segment_report(
                        t, p, time_resolution=r, files_duration=d, compat=c))
        out[f"segment_report {hours} h, exact"] = (
            lambda t=t, p=p, d=d: audeval.segment_report(t, p, time_resolution=None, files_duration=d))
    songs = [(f"{n} songs", _data.songs(n, sections=(10, 60))) for n in (10, 100)]
    songs.append(("one 6 min song", _data.songs(1, sections=1000, seconds=360.0)))
    for tag, (t, p, _) in songs:
        out[f"structure_report {tag}"] = lambda t=t, p=p: audeval.structure_report(t, p)
        out[f"structure_report {tag}, mir_eval"] = lambda t=t, p=p: audeval.structure_report(t, p, compat="mir_eval")
        out[f"structure_report {tag}, exact"] = lambda t=t, p=p: audeval.structure_report(t, p, frame_size=None)
    for n in (10, 100):
        t, p, d = _data.conversations(n)
        out[f"detection_error_rate {n} conversations"] = (
            lambda t=t, p=p, d=d: audeval.detection_error_rate(t, p, files_duration=d))
        out[f"diarization_error_rate {n} conversations"] = (
            lambda t=t, p=p, d=d: audeval.diarization_error_rate(t, p, files_duration=d))
    t, p, d = bench_diarization.make_data(100)
    out["diarization_error_rate 100 x 5 min"] = (
        lambda t=t, p=p, d=d: audeval.diarization_error_rate(t, p, files_duration=d))
    out["diarization_report 100 x 5 min"] = lambda t=t, p=p, d=d: audeval.diarization_report(t, p, files_duration=d)
    for tag, args, kw in (("20 songs", (20, (180.0, 300.0), [4, 12, 40]), {}),
                          ("1 h", (1, (3600.0, 3600.0), [100, 600, 2500, 10_000]), {"seed": 1})):
        t, p = bench_hierarchy.make_data(*args, **kw)
        out[f"hierarchy_report {tag}"] = lambda t=t, p=p: audeval.hierarchy_report(t, p)
        out[f"hierarchy_report {tag}, mir_eval"] = lambda t=t, p=p: audeval.hierarchy_report(t, p, compat="mir_eval")
        out[f"hierarchy_report {tag}, exact"] = (
            lambda t=t, p=p: audeval.hierarchy_report(t, p, frame_size=None, window=None))
    t, p = _data.dcase(10_000, seed=0)[:2]
    out["event_report 10,000 events"] = lambda t=t, p=p: audeval.event_report(t, p)
    return out


def worker(root: str) -> dict:
    """Minimum of 9 samples (CPU ms per call) of every row."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the generated events repeat a few rows, on both sides)
        for name, call in rows(root).items():
            for _ in range(2):
                call()
            start, calls = time.process_time(), 0
            while time.process_time() - start < 0.03:
                call()
                calls += 1
            samples = []
            for _ in range(9):
                start = time.process_time()
                for _ in range(calls):
                    call()
                samples.append((time.process_time() - start) / calls * 1e3)
            out[name] = min(samples)
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="checkout of the code before")
    parser.add_argument("--after", default=".", help="checkout of the code after")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(os.path.abspath(args.worker))))
        return
    sides = {"before": os.path.abspath(args.before), "after": os.path.abspath(args.after)}
    results: dict = {"before": [], "after": []}
    loads = []
    for _ in range(args.rounds):
        for side, root in sides.items():
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", root],
                                 check=True, capture_output=True, text=True).stdout
            results[side].append(json.loads(out))
            loads.append(os.getloadavg()[0])
    print(f"rounds {args.rounds}, load average {min(loads):.2f}-{max(loads):.2f}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")
    print("| row | before (ms CPU) | after (ms CPU) | after/before | before, rounds | after, rounds |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in results["before"][0]:
        before = statistics.median(r[name] for r in results["before"])
        after = statistics.median(r[name] for r in results["after"])
        spread = [f"{min(r[name] for r in results[s]):.3f}-{max(r[name] for r in results[s]):.3f}" for s in sides]
        print(f"| {name} | {before:.3f} | {after:.3f} | {after / before:.2f} | {spread[0]} | {spread[1]} |")


if __name__ == "__main__":
    main()
