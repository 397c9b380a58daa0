"""Bootstrap against one direct call (SPEC section 9, "generic layers"; issue 31).

Target: ``bootstrap(metric, ...)`` with 1,000 resamples <= 10x the CPU time of
one direct call of the metric on the same inputs; PSDS with 200 resamples <= 10x.
Both are timed side by side, interleaved, and the medians are reported.

Workloads:

* ``event``: ``event_fscore`` on the DESED validation set
  (``/work/shared/fixtures/desed``: truth, the baseline's clean predictions,
  the 1,168 durations; DCASE collars 0.2 s / 20 %),
* ``segment``: ``segment_fscore`` (1 s) on the same data,
* ``der``: ``diarization_error_rate`` on 1,000 conversations (benchmarks/_data.py),
* ``psds``: PSDS1 on the DESED truth with 20 ms frame scores rounded to 6 decimals
  (``psds``) and with every score distinct (``psds_distinct``).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_bootstrap.py [workload ...] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout

import audeval  # noqa: E402

DESED = "/work/shared/fixtures/desed"


def _read(name: str) -> pd.Series:
    frame = pd.read_csv(os.path.join(DESED, name), sep="\t").dropna()
    index = pd.MultiIndex.from_arrays(
        [
            frame["filename"].to_numpy(dtype=object),
            pd.to_timedelta(np.round(frame["onset"].to_numpy() * 1e9).astype(np.int64), unit="ns"),
            pd.to_timedelta(np.round(frame["offset"].to_numpy() * 1e9).astype(np.int64), unit="ns"),
        ],
        names=["file", "start", "end"],
    )
    return pd.Series(frame["event_label"].to_numpy(dtype=object), index=index)


def desed_events():
    truth = _read("validation.tsv")
    prediction = _read("student_pred05_clean.tsv")
    durations = pd.read_csv(os.path.join(DESED, "validation_durations.tsv"), sep="\t")
    durations = pd.Series(durations["duration"].to_numpy(), index=durations["filename"].to_numpy())
    return truth, prediction, durations


def event_case():
    truth, prediction, durations = desed_events()
    options = dict(
        onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.2,
        files_duration=durations,
    )
    return audeval.event_fscore, (truth, prediction), options, 1000


def segment_case():
    truth, prediction, durations = desed_events()
    options = dict(time_resolution=1.0, files_duration=durations)
    return audeval.segment_fscore, (truth, prediction), options, 1000


def der_case():
    import _data

    truth, prediction, durations = _data.conversations(1000, turns=86, speakers=(4, 4))
    return audeval.diarization_error_rate, (truth, prediction), dict(files_duration=durations), 1000


def _psds_case(distinct: bool):
    import bench_scores

    classes, rows, durations, scores = bench_scores.desed_data()
    if distinct:  # unrounded scores plus a tiny per-cell offset: every score distinct
        rng = np.random.default_rng(1)
        scores = {
            f: np.clip(s + rng.uniform(0, 1e-7, s.shape), 0, 1) for f, s in scores.items()
        }
    truth, table, durations = bench_scores.to_audeval(classes, rows, durations, scores)
    options = dict(bench_scores.PSDS1, files_duration=durations)
    return audeval.psds, (truth, table), options, 200


CASES = {
    "event": event_case,
    "segment": segment_case,
    "der": der_case,
    "psds": lambda: _psds_case(False),
    "psds_distinct": lambda: _psds_case(True),
}


def cpu(function) -> tuple[float, object]:
    start = time.process_time()
    out = function()
    return time.process_time() - start, out


def run(name: str, runs: int) -> dict:
    metric, inputs, options, n_boot = CASES[name]()
    direct_times, boot_times = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(runs):  # interleaved
            t, value = cpu(lambda: metric(*inputs, **options))
            direct_times.append(t)
            t, result = cpu(
                lambda: audeval.bootstrap(metric, *inputs, n_boot=n_boot, seed=0, **options)
            )
            boot_times.append(t)
    direct, boot = float(np.median(direct_times)), float(np.median(boot_times))
    assert result.value == value, (result.value, value)
    return {
        "workload": name,
        "n_boot": n_boot,
        "n_files": result.n_files,
        "value": value,
        "interval": (result.low, result.high),
        "direct_s": direct,
        "bootstrap_s": boot,
        "ratio": boot / direct,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", help=f"of {list(CASES)} (default: all)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load: {os.getloadavg()}")
    print("| workload | resamples | files | direct CPU s | bootstrap CPU s | ratio (target <= 10) |")
    print("|---|---|---|---|---|---|")
    unknown = sorted(set(args.workloads) - set(CASES))
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {list(CASES)}")
    for name in args.workloads or list(CASES):
        r = run(name, args.runs)
        print(
            f"| {r['workload']} | {r['n_boot']} | {r['n_files']} | {r['direct_s']:.3f} "
            f"| {r['bootstrap_s']:.3f} | {r['ratio']:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
