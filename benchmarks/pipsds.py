"""Benchmark of piPSDS (issue 29): audeval.pipsds against sed_scores_eval's median_filter_independent_psds.

The DESED validation truth (1,168 clips of 10 s, 10 classes) with scores at 20 ms frames
(``bench_scores.desed_data``), 5 median filter lengths, PSDS1's criteria
(DTC = GTC = 0.7, alpha_st = 1, max eFPR 100/h), ``compat="sed_scores_eval"``.
sed_scores_eval (pandas < 3, numpy < 2) runs in its own interpreter on the same data::

    python3 -m venv /work/venvs/pipsds-sse
    /work/venvs/pipsds-sse/bin/pip install "sed_scores_eval==0.0.4" "numpy<2" "pandas<3"
    OPENBLAS_NUM_THREADS=1 python benchmarks/pipsds.py --reference-python /work/venvs/pipsds-sse/bin/python

Side by side: each of ``--repeat`` rounds runs audeval (in this process) and then
sed_scores_eval (a fresh interpreter that times its own call), after one warm-up of audeval;
reported are the medians of the CPU times (``time.process_time``), both values
and their difference, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # the audeval of this checkout

import bench_scores  # noqa: E402

LENGTHS = [0.0, 0.1, 0.25, 0.5, 0.7]
"""Filter lengths in seconds (on 20 ms frames: 5, 12.5, 25 and 35 frames)."""
OPTIONS = dict(dtc_threshold=0.7, gtc_threshold=0.7, cttc_threshold=None, alpha_ct=0.0, alpha_st=1.0,
               max_efpr=100.0)


def reference_main(folder: str) -> None:
    import sed_scores_eval
    from sed_scores_eval.base_modules.scores import create_score_dataframe

    with open(os.path.join(folder, "meta.json")) as fp:
        meta = json.load(fp)
    arrays = np.load(os.path.join(folder, "scores.npz"))
    scores = {}
    for i, file in enumerate(meta["files"]):
        values = arrays[f"s{i}"]
        timestamps = np.round(np.arange(len(values) + 1) * meta["hop"], 6)
        scores[file] = create_score_dataframe(values, timestamps, meta["classes"])
    truth = {file: [] for file in meta["files"]}
    for file, start, end, label in meta["rows"]:
        truth[file].append((start, end, label))
    start = time.process_time()
    value = sed_scores_eval.intersection_based.median_filter_independent_psds(
        scores=scores, ground_truth=truth, audio_durations=meta["durations"],
        median_filter_lengths_in_sec=LENGTHS, **OPTIONS,
    )[0]
    print(json.dumps({"value": float(value), "cpu": time.process_time() - start}))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-python", default=None,
                        help="interpreter with sed_scores_eval 0.0.4 (pandas<3, numpy<2)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference-run", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.reference_run:
        reference_main(args.reference_run)
        return
    import audeval

    data = bench_scores.desed_data()
    truth, table, durations = bench_scores.to_audeval(*data)

    def ours() -> float:
        return audeval.pipsds(
            truth, table, median_filter_lengths=LENGTHS, files_duration=durations,
            compat="sed_scores_eval", **OPTIONS,
        )

    value = ours()  # warm-up
    times, reference = [], []
    with tempfile.TemporaryDirectory() as folder:
        bench_scores.write_reference_input(folder, *data)
        for _ in range(args.repeat):
            start = time.process_time()
            ours()
            times.append(time.process_time() - start)
            if args.reference_python:
                out = subprocess.run(
                    [args.reference_python, os.path.abspath(__file__), "--reference-run", folder],
                    capture_output=True, text=True, check=True,
                    env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
                )
                reference.append(json.loads(out.stdout.strip().splitlines()[-1]))
    load = os.getloadavg()
    row = {
        "workload": f"DESED validation, {len(table)} frames x {table.shape[1]} classes, {len(truth)} events",
        "lengths": LENGTHS, "audeval_cpu": statistics.median(times), "audeval_runs": times,
        "audeval_value": value, "load": load,
    }
    if reference:
        row["sed_scores_eval_cpu"] = statistics.median(r["cpu"] for r in reference)
        row["sed_scores_eval_runs"] = [r["cpu"] for r in reference]
        row["sed_scores_eval_value"] = reference[0]["value"]
        row["speed_up"] = row["sed_scores_eval_cpu"] / row["audeval_cpu"]
        row["difference"] = abs(value - reference[0]["value"])
    print(json.dumps(row, indent=1))


if __name__ == "__main__":
    main()
