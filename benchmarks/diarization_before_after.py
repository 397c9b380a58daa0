"""Diarization before and after a change: two source trees, interleaved runs, medians.

Times, for each tree in turn (``--rounds`` rounds, trees alternating within a round,
so that a changing load meets both alike), in a fresh subprocess:

* ``run``: ``benchmarks/run.py --quick --only diarization,diarization_speech --no-reference``
  of that tree (its CPU medians per call);
* ``bench``: audeval's calls of ``benchmarks/bench_diarization.py`` (no reference toolkit),
  on its data (``--files`` conversations), CPU seconds, median of ``--repeat`` runs.

Prints the median over rounds per (workload, call) for both trees and their ratio, and the load.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/diarization_before_after.py BEFORE_TREE AFTER_TREE \\
        [--rounds 5] [--files 300] [--repeat 5] [--skip-run]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))


def bench_calls(files: int) -> dict:
    """audeval's calls of bench_diarization.py (the ones without a reference toolkit)."""
    import bench_diarization as bd

    import audeval
    from audeval import _diarization as dia

    truth, prediction, durations = bd.make_data(files)
    options = {"files_duration": durations}
    return {
        "diarization_error_rate": lambda: audeval.diarization_error_rate(truth, prediction, **options),
        "DER collar 0.25 per side, single": lambda: audeval.diarization_error_rate(
            truth, prediction, collar=0.25, collar_convention="per_side", regions="single", **options),
        "DER overlap regions": lambda: audeval.diarization_error_rate(truth, prediction, regions="overlap", **options),
        "DER compat=pyannote": lambda: audeval.diarization_error_rate(truth, prediction, compat="pyannote", **options),
        "diarization_report": lambda: audeval.diarization_report(truth, prediction, **options),
        "diarization_cluster_report": lambda: dia.diarization_cluster_report(truth, prediction, **options),
        "cluster_report 10 ms frames": lambda: dia.diarization_cluster_report(
            truth, prediction, frame_size=0.01, **options),
        "purity_coverage": lambda: dia.diarization_purity_coverage(truth, prediction, **options),
        "homogeneity_completeness": lambda: dia.diarization_homogeneity_completeness(truth, prediction, **options),
        "speaker_change precision_recall": lambda: dia.speaker_change_precision_recall(truth, prediction, tolerance=0.5),
        "speaker_change purity_coverage": lambda: dia.speaker_change_purity_coverage(truth, prediction),
        "detection_error_rate": lambda: audeval.detection_error_rate(truth, prediction, **options),
        "speaker_set_statistics": lambda: audeval.speaker_set_statistics(truth, prediction, **options),
    }


def worker(tree: str, files: int, repeat: int) -> dict:
    """CPU medians of the bench calls with the audeval of ``tree`` (run in a subprocess)."""
    import time
    import warnings

    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.abspath(tree))
    warnings.simplefilter("ignore")
    out = {}
    for name, call in bench_calls(files).items():
        call()  # warm-up
        times = []
        for _ in range(repeat):
            start = time.process_time()
            call()
            times.append(time.process_time() - start)
        out[name] = statistics.median(times)
    return out


def run_quick(tree: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.json")
        subprocess.run(
            [sys.executable, os.path.join(tree, "benchmarks", "run.py"), "--quick", "--only",
             "diarization,diarization_speech", "--no-reference", "--json", path],
            check=True, capture_output=True, cwd=tree,
        )
        with open(path) as f:
            results = json.load(f)["results"]
    return {f"{r['workload']} {r['label']}: {row['call']}": row["cpu"]
            for r in results for row in r["rows"] if row.get("implementation") == "audeval" and row.get("cpu")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-run", action="store_true", help="only the bench_diarization calls")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]), int(args.worker[2]))))
        return
    trees = {"before": os.path.abspath(args.before), "after": os.path.abspath(args.after)}
    samples: dict = {name: {} for name in trees}
    print("load before:", os.getloadavg())
    for k in range(args.rounds):  # rounds, the trees alternating (first one swaps every round)
        order = list(trees) if k % 2 == 0 else list(trees)[::-1]
        for name in order:
            tree = trees[name]
            if not args.skip_run:
                for call, cpu in run_quick(tree).items():
                    samples[name].setdefault("run.py --quick " + call, []).append(cpu)
            done = subprocess.run(
                [sys.executable, __file__, "x", "y", "--worker", tree, str(args.files), str(args.repeat)],
                check=True, capture_output=True, text=True,
            )
            for call, cpu in json.loads(done.stdout.strip().splitlines()[-1]).items():
                samples[name].setdefault(f"bench_diarization {args.files} files: {call}", []).append(cpu)
    print("load after:", os.getloadavg())
    print(f"\n| workload: call | before CPU ms | after CPU ms | after / before |  ({args.rounds} rounds, medians)")
    print("|---|---:|---:|---:|")
    for call in samples["before"]:
        b = statistics.median(samples["before"][call]) * 1e3
        a = statistics.median(samples["after"].get(call, [float("nan")])) * 1e3
        print(f"| {call} | {b:.2f} | {a:.2f} | {a / b:.2f} |")


if __name__ == "__main__":
    main()
