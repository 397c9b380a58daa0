"""Segment-based metrics: audeval against sed_eval SegmentBasedMetrics.

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_segments.py [--quick]
        [--density 0.3] [--python-sed-eval /opt/refenv/bin/python] [--budget 60]

Workloads (10 classes, polyphonic events of 3 s mean length,
``--density`` truth events per second of audio
(default 0.3, as DESED / DCASE task 4: about 3 events per 10 s clip;
1.67 is a dense stress test, each class active half of the time),
the prediction is the truth with boundaries jittered by 150 ms,
10 % of events dropped and 10 % inserted):

* one file of 1 h;
* 1000 h over 10,000 files of 6 min (``--quick``: 100 h over 1,000 files);

each at ``time_resolution=1.0`` (DCASE) and ``0.01`` (MIREX).
audeval computes the whole report (``segment_report``, validation included)
with ``compat="sed_eval"`` and in exact time (``time_resolution=None``);
its times are medians of at least ``--repeat`` runs and 1 s.

sed_eval runs in a separate process (it lives in another environment,
``--python-sed-eval``), file by file as its API requires,
timing only ``evaluate()`` and ``results()``.
Where it does not finish within ``--budget`` seconds,
it stops after the files done so far and its time is extrapolated
linearly to all files (all files have the same length; marked ``~``).
Where it finishes, its overall F-score, error rate and accuracy
are compared with audeval's (``compat="sed_eval"``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402


N_LABELS = 10
LABELS = [f"class{i}" for i in range(N_LABELS)]


# -------------------------------------------------------------------------
# Data
# -------------------------------------------------------------------------


def make_arrays(n_files: int, file_seconds: float, density: float, *, seed: int = 0) -> dict:
    """Events as int64 ns arrays: file, start, end, label, side (0 truth, 1 prediction)."""
    rng = np.random.default_rng(seed)
    file_ns = int(round(file_seconds * 1e9))
    per_file = max(int(round(file_seconds * density)), 1)
    n = n_files * per_file
    file = np.repeat(np.arange(n_files, dtype=np.int64), per_file)
    # millisecond times, as in annotations
    start_ms = rng.integers(0, int(file_seconds * 1000), n)
    length_ms = (rng.exponential(3.0, n) * 1000).astype(np.int64) + 50
    end_ms = np.minimum(start_ms + length_ms, int(file_seconds * 1000))
    label = rng.integers(0, N_LABELS, n)
    keep = rng.uniform(size=n) > 0.1
    jitter = rng.normal(0, 150, (2, n)).astype(np.int64)
    p_start = np.clip(start_ms + jitter[0], 0, int(file_seconds * 1000) - 10)
    p_end = np.clip(end_ms + jitter[1], p_start + 10, int(file_seconds * 1000))
    n_extra = n // 10
    x_file = rng.integers(0, n_files, n_extra)
    x_start = rng.integers(0, int(file_seconds * 1000) - 1000, n_extra)
    x_end = x_start + rng.integers(100, 1000, n_extra)
    x_label = rng.integers(0, N_LABELS, n_extra)
    ms = 1_000_000
    return {
        "file": np.concatenate([file, file[keep], x_file]),
        "start": np.concatenate([start_ms, p_start[keep], x_start]) * ms,
        "end": np.concatenate([end_ms, p_end[keep], x_end]) * ms,
        "label": np.concatenate([label, label[keep], x_label]),
        "side": np.concatenate(
            [np.zeros(n, np.int64), np.ones(int(keep.sum()) + n_extra, np.int64)]
        ),
        "n_files": np.int64(n_files),
        "file_ns": np.int64(file_ns),
    }


def to_series(arrays: dict):
    import pandas as pd

    names = np.char.add("file", np.arange(int(arrays["n_files"])).astype(str))
    out = []
    for side in (0, 1):
        mask = arrays["side"] == side
        index = pd.MultiIndex.from_arrays(
            [
                names[arrays["file"][mask]],
                pd.to_timedelta(arrays["start"][mask], unit="ns"),
                pd.to_timedelta(arrays["end"][mask], unit="ns"),
            ],
            names=["file", "start", "end"],
        )
        labels = pd.Categorical.from_codes(arrays["label"][mask], categories=LABELS)
        out.append(pd.Series(labels, index=index))
    durations = pd.Series(
        pd.to_timedelta(np.full(len(names), int(arrays["file_ns"])), unit="ns"), index=names
    )
    return out[0], out[1], durations


# -------------------------------------------------------------------------
# sed_eval, in its own process
# -------------------------------------------------------------------------


def sed_eval_worker(path: str, resolution: float, budget: float) -> None:
    """Evaluate file by file with sed_eval; print JSON with time and results."""
    import sed_eval

    data = {key[2:]: value for key, value in np.load(path).items()}
    order = np.lexsort((data["start"], data["file"]))
    file, start, end = data["file"][order], data["start"][order], data["end"][order]
    label, side = data["label"][order], data["side"][order]
    n_files = int(data["n_files"])
    length = int(data["file_ns"]) / 1e9
    bounds = np.searchsorted(file, np.arange(n_files + 1))
    lists = []
    for f in range(n_files):
        sl = slice(bounds[f], bounds[f + 1])
        name = f"file{f}"
        events = [
            {"filename": name, "event_label": LABELS[c], "onset": a / 1e9, "offset": b / 1e9}
            for a, b, c in zip(start[sl].tolist(), end[sl].tolist(), label[sl].tolist())
        ]
        s = side[sl].tolist()
        lists.append(
            (
                [e for e, x in zip(events, s) if x == 0],
                [e for e, x in zip(events, s) if x == 1],
            )
        )
    metrics = sed_eval.sound_event.SegmentBasedMetrics(
        event_label_list=LABELS, time_resolution=float(resolution)
    )
    done = 0
    begin = time.perf_counter()
    for truth, prediction in lists:
        metrics.evaluate(truth, prediction, evaluated_length_seconds=length)
        done += 1
        if time.perf_counter() - begin > budget:
            break
    results = metrics.results()["overall"]
    elapsed = time.perf_counter() - begin
    print(
        json.dumps(
            {
                "seconds": elapsed,
                "files_done": done,
                "n_files": n_files,
                "fscore": results["f_measure"]["f_measure"],
                "error_rate": results["error_rate"]["error_rate"],
                "accuracy": results["accuracy"]["accuracy"],
            }
        )
    )


def run_sed_eval(python: str, arrays: dict, resolution: float, budget: float) -> dict | None:
    if not python or not os.path.exists(python):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.npz")
        np.savez(path, **{f"x_{key}": value for key, value in arrays.items()})
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        out = subprocess.run(
            [python, os.path.abspath(__file__), "--sed-eval-worker", path, str(resolution), str(budget)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
    if out.returncode != 0:
        print(out.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


# -------------------------------------------------------------------------
# audeval
# -------------------------------------------------------------------------


def timed(function, repeat: int, min_seconds: float = 1.0) -> tuple[float, object]:
    """Median time of at least ``repeat`` runs and at least ``min_seconds`` in total."""
    times = []
    result = None
    while len(times) < repeat or sum(times) < min_seconds:
        begin = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - begin)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 h instead of 1000 h")
    parser.add_argument("--python-sed-eval", default="/opt/refenv/bin/python")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds for sed_eval per run")
    parser.add_argument("--density", type=float, default=0.3, help="truth events per second")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sed-eval-worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sed_eval_worker:
        path, resolution, budget = args.sed_eval_worker
        sed_eval_worker(path, float(resolution), float(budget))
        return

    import pandas as pd

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import audeval

    hours = 100 if args.quick else 1000
    n_many = hours * 10
    workloads = [("one 1 h file", 1, 3600.0), (f"{hours} h, {n_many} files of 6 min", n_many, 360.0)]
    print(f"python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}")
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
        f"load average {os.getloadavg()[0]:.1f}, "
        f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, "
        f"density {args.density} truth events / s"
    )
    print()
    header = (
        "| workload | events | resolution | audeval compat | audeval exact time"
        " | sed_eval | sed_eval / audeval | agreement |"
    )
    print(header)
    print("|" + "---|" * 8)
    for name, n_files, seconds in workloads:
        arrays = make_arrays(n_files, seconds, args.density)
        truth, prediction, durations = to_series(arrays)
        n_events = len(truth) + len(prediction)
        exact, _ = timed(
            lambda: audeval.segment_report(
                truth, prediction, time_resolution=None, files_duration=durations
            ),
            args.repeat,
        )
        by_resolution = {}
        for resolution in (1.0, 0.01):
            ours, report = timed(
                lambda: audeval.segment_report(
                    truth,
                    prediction,
                    time_resolution=resolution,
                    files_duration=durations,
                    compat="sed_eval",
                    zero_division=0.0,
                ),
                args.repeat,
            )
            by_resolution[resolution] = ours
            reference = run_sed_eval(args.python_sed_eval, arrays, resolution, args.budget)
            if reference is None:
                sed, ratio, agreement = "n/a", "n/a", "n/a"
            else:
                fraction = reference["files_done"] / reference["n_files"]
                total = reference["seconds"] / fraction
                mark = "" if fraction == 1 else "~"
                sed = f"{mark}{total:.3g} s" + (
                    "" if fraction == 1 else f" ({reference['files_done']} files in {reference['seconds']:.0f} s)"
                )
                ratio = f"{mark}{total / ours:.0f}x"
                if fraction == 1:
                    micro = report.loc["micro"]
                    diff = max(
                        abs(micro["fscore"] - reference["fscore"]),
                        abs(micro["error_rate"] - reference["error_rate"]),
                        abs(micro["accuracy"] - reference["accuracy"]),
                    )
                    agreement = f"max diff {diff:.1e}"
                else:
                    agreement = "not compared"
            print(
                f"| {name} | {n_events:,} | {resolution:g} s | {ours * 1000:.1f} ms"
                f" | {exact * 1000:.1f} ms | {sed} | {ratio} | {agreement} |",
                flush=True,
            )
        print(
            f"| {name} | | 10 ms / 1 s | {by_resolution[0.01] / by_resolution[1.0]:.2f} | | | | |",
            flush=True,
        )


if __name__ == "__main__":
    main()
