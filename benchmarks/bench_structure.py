"""Structural segmentation metrics: audeval against mir_eval.segment.

Run (mir_eval installed in the same environment, e.g. the reference venv)::

    OPENBLAS_NUM_THREADS=1 /opt/refenv/bin/python benchmarks/bench_structure.py
        [--mir-eval-files 20] [--mir-eval-long] [--repeat 5]

(``--mir-eval-files 0`` leaves mir_eval out.)

Workloads (SPEC section 9 targets):

* ``1000 files x 50 segments``: 200 s tracks, 8 labels;
  the prediction moves every true boundary by N(0, 0.3 s),
  drops 20 % of them, adds 20 % new ones and relabels 20 % of the segments.
  Target: all 22 values of ``structure_report`` in <= 1 s.
* ``1 h x 10k segments``: one 3600 s track with 10,000 segments per side
  (10 labels), made the same way.
  Target: <= 0.5 s and <= 300 MB.

audeval computes every value of ``mir_eval.segment.evaluate``
(``structure_report``, default and ``compat="mir_eval"``).
mir_eval runs ``evaluate`` file by file;
on the 1000-file workload only ``--mir-eval-files`` files are run and the time
is scaled to 1000 files (mir_eval's cost is the same for every file here).
On the 1 h file mir_eval builds several 36,000 x 36,000 frame-pair matrices
(about 1.3 GB each): it runs only with ``--mir-eval-long``.
Times are wall-clock medians of ``--repeat`` runs (and process CPU time);
peak memory is the tracemalloc peak of one extra run (numpy allocations included).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import tracemalloc
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import audeval  # noqa: E402
from audeval._structure import MIR_EVAL_COLUMNS  # noqa: E402


try:
    import mir_eval
except ImportError:  # pragma: no cover - depends on the environment
    mir_eval = None


def make_data(n_files: int, n_segments: int, duration: float, n_labels: int, seed: int = 0):
    """Truth partitions and predictions derived from them (see module docstring)."""
    rng = np.random.default_rng(seed)
    labels = np.array([f"part{i}" for i in range(n_labels)])
    cuts = np.sort(rng.uniform(0, duration, (n_files, n_segments - 1)), axis=1)
    names = np.array([f"track{i:05d}" for i in range(n_files)])
    # truth: one partition per file
    bounds = np.concatenate([np.zeros((n_files, 1)), cuts, np.full((n_files, 1), duration)], 1)
    bounds = np.round(bounds, 3)
    seg_labels = labels[rng.integers(0, n_labels, (n_files, n_segments))]
    file_index = np.repeat(np.arange(n_files), n_segments)
    start, end = bounds[:, :-1].ravel(), bounds[:, 1:].ravel()
    keep = end > start
    t_file, t_start, t_end = names[file_index[keep]], start[keep], end[keep]
    t_label = seg_labels.ravel()[keep]
    # prediction: jittered, thinned and extended boundaries, partly relabelled
    inner = cuts + rng.normal(0, 0.3, cuts.shape)
    inner = np.where(rng.uniform(size=cuts.shape) < 0.2, np.nan, inner)  # drop 20 %
    extra = rng.uniform(0, duration, (n_files, max(1, n_segments // 5)))  # add 20 %
    inner = np.concatenate([inner, extra], 1)
    inner = np.clip(inner, 0.01, duration - 0.01)
    p_bounds = np.sort(np.concatenate([np.zeros((n_files, 1)), inner, np.full((n_files, 1), duration)], 1), 1)
    p_bounds = np.round(p_bounds, 3)
    valid = ~np.isnan(p_bounds)
    # rows of every file: consecutive valid bounds
    per_file = [p_bounds[i][valid[i]] for i in range(n_files)]
    p_file = np.concatenate([np.full(len(b) - 1, names[i]) for i, b in enumerate(per_file)])
    p_start = np.concatenate([b[:-1] for b in per_file])
    p_end = np.concatenate([b[1:] for b in per_file])
    keep = p_end > p_start
    p_file, p_start, p_end = p_file[keep], p_start[keep], p_end[keep]
    # label of the prediction: the true label at the segment's middle, 20 % random
    middle = (p_start + p_end) / 2
    file_of = np.searchsorted(names, p_file)
    offset = 2 * duration * np.arange(n_files)[:, None]
    keys = (bounds[:, :-1] + offset).ravel()  # segment starts of all files, sorted
    position = np.searchsorted(keys, middle + offset[file_of, 0], side="right") - 1
    position = position - file_of * n_segments
    p_label = seg_labels[file_of, position]
    noise = rng.uniform(size=len(p_label)) < 0.2
    p_label = np.where(noise, labels[rng.integers(0, n_labels, len(p_label))], p_label)
    truth = series(t_file, t_start, t_end, t_label)
    prediction = series(p_file, p_start, p_end, p_label)
    return truth, prediction


def series(files, start, end, labels) -> pd.Series:
    index = pd.MultiIndex.from_arrays(
        [files, pd.to_timedelta(start, unit="s"), pd.to_timedelta(end, unit="s")],
        names=["file", "start", "end"],
    )
    return pd.Series(labels, index=index)


def measure(function, repeat: int) -> dict:
    """Median wall time, median CPU time, tracemalloc peak (MB)."""
    function()  # warm up
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        function()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus), "peak_mb": peak / 1e6}


def mir_eval_inputs(truth: pd.Series, prediction: pd.Series, files):
    """Per file: (ref intervals, ref labels, est intervals, est labels) in seconds."""
    out = []
    for side in (truth, prediction):
        frame = side.reset_index()
        frame["start"] = frame["start"].dt.total_seconds()
        frame["end"] = frame["end"].dt.total_seconds()
        out.append({f: g for f, g in frame.groupby("file", sort=False)})
    inputs = []
    for f in files:
        t, p = out[0][f], out[1][f]
        inputs.append(
            (
                t[["start", "end"]].to_numpy(),
                list(t.iloc[:, -1]),
                p[["start", "end"]].to_numpy(),
                list(p.iloc[:, -1]),
            )
        )
    return inputs


def run_mir_eval(inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [mir_eval.segment.evaluate(*args) for args in inputs]


def agreement(report: pd.DataFrame, files, results) -> float:
    worst = 0.0
    for f, scores in zip(files, results):
        for key, column in MIR_EVAL_COLUMNS.items():
            ours, theirs = report.loc[f, column], float(scores[key])
            if not (np.isnan(ours) and np.isnan(theirs)):
                worst = max(worst, abs(ours - theirs) / max(abs(theirs), 1e-12))
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mir-eval-files", type=int, default=20)
    parser.add_argument("--mir-eval-long", action="store_true")
    args = parser.parse_args()

    print(f"python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}, "
          f"mir_eval {getattr(mir_eval, '__version__', 'not installed')}, {os.cpu_count()} CPUs")
    print()
    rows = []
    workloads = {
        "1000 files x 50 segments": (1000, 50, 200.0, 8, 1.0),
        "1 h file x 10k segments": (1, 10_000, 3600.0, 10, 0.5),
    }
    for name, (n_files, n_segments, duration, n_labels, target) in workloads.items():
        truth, prediction = make_data(n_files, n_segments, duration, n_labels)
        print(f"{name}: truth {len(truth)} rows, prediction {len(prediction)} rows")
        for compat in (None, "mir_eval"):
            m = measure(lambda: audeval.structure_report(truth, prediction, compat=compat), args.repeat)
            label = f"audeval structure_report(compat={compat!r})"
            ok = "ok" if m["wall"] <= target and m["peak_mb"] <= 300 else "MISSED"
            rows.append((name, label, m["wall"], m["cpu"], m["peak_mb"], f"target {target} s / 300 MB: {ok}"))
        if mir_eval is None or args.mir_eval_files <= 0:
            continue
        files = sorted(set(truth.index.get_level_values("file")))
        if n_files > 1:
            subset = files[: args.mir_eval_files]
        elif args.mir_eval_long:
            subset = files
        else:
            rows.append((name, "mir_eval.segment.evaluate", np.nan, np.nan, np.nan,
                         "skipped: ~5 frame-pair matrices of 36k x 36k (pass --mir-eval-long)"))
            continue
        inputs = mir_eval_inputs(truth, prediction, subset)
        m = measure(lambda: run_mir_eval(inputs), 1)
        scale = n_files / len(subset)
        note = f"{len(subset)} files run, time x{scale:g}" if scale != 1 else "all files"
        results = run_mir_eval(inputs)
        report = audeval.structure_report(truth, prediction, compat="mir_eval")
        note += f"; max rel. difference to compat: {agreement(report, subset, results):.1e}"
        rows.append((name, "mir_eval.segment.evaluate", m["wall"] * scale, m["cpu"] * scale,
                     m["peak_mb"], note))

    print()
    print("| workload | implementation | wall (s) | CPU (s) | peak (MB) | note |")
    print("|---|---|---:|---:|---:|---|")
    for workload, label, wall, cpu, peak, note in rows:
        print(f"| {workload} | {label} | {wall:.3f} | {cpu:.3f} | {peak:.1f} | {note} |")


if __name__ == "__main__":
    main()
