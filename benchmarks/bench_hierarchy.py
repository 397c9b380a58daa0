"""Hierarchical structure metrics: audeval against mir_eval.hierarchy.

Run (mir_eval 0.8.2 in the same environment for the comparison)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_hierarchy.py
        [--songs 20] [--mir-eval-songs 5] [--repeat 5] [--mir-eval-long]

(``--mir-eval-songs 0`` leaves mir_eval out.)
``benchmarks/run.py --only hierarchy`` runs the same data and mir_eval calls
(imported from here) with the other workloads.

Workloads (issue 23):

* ``songs``: songs of 3-5 min, 3 levels (about 4, 12 and 40 segments),
  nested boundaries with labels that follow the parent level;
  the prediction moves every boundary of the finest level by N(0, 1 s),
  keeps the nesting and relabels 20 % of the segments.
* ``1 h``: one 3600 s hierarchy with 4 levels (100, 600, 2,500 and 10,000 segments)
  per side, made the same way.
  Target: ``hierarchy_report`` (T reduced, T full, L) in <= 0.5 s and <= 300 MB.

audeval computes every value of ``mir_eval.hierarchy.evaluate``
(``hierarchy_report``: default, ``compat="mir_eval"``,
and the exact ``frame_size=None, window=None``).
mir_eval runs ``evaluate`` song by song on ``--mir-eval-songs`` songs
(time scaled to all songs); on the 1 h hierarchy it builds 36,000 x 36,000
sparse frame matrices and loops over frames in Python:
it runs only with ``--mir-eval-long``.
Times are medians of ``--repeat`` runs (process CPU time and wall clock);
peak memory is the tracemalloc peak of one extra run (numpy allocations included).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import audformat  # noqa: E402

from audeval._hierarchy import MIR_EVAL_COLUMNS  # noqa: E402
from audeval._hierarchy import hierarchy_report  # noqa: E402


try:
    import mir_eval
except ImportError:  # pragma: no cover - depends on the environment
    mir_eval = None


def _levels(rng, duration: float, sizes: list[int], jitter: float, finest=None):
    """Nested boundaries (coarse to fine) and labels that follow the parent level."""
    if finest is None:
        finest = np.sort(rng.uniform(0, duration, sizes[-1] - 1))
    else:
        finest = np.sort(np.clip(finest + rng.normal(0, jitter, finest.shape), 0.01, duration - 0.01))
    finest = np.unique(np.round(finest, 3))
    bounds = [finest]
    for size in sizes[-2::-1]:
        bounds.insert(0, np.sort(rng.choice(bounds[0], size - 1, replace=False)))
    return [np.concatenate([[0.0], b, [duration]]) for b in bounds], finest


def _frame(file: str, bounds: list[np.ndarray], rng, relabel: float) -> pd.DataFrame:
    """One row per finest segment, one label column per level."""
    fine = bounds[-1]
    start, end = fine[:-1], fine[1:]
    keep = end > start
    start, end = start[keep], end[keep]
    columns, parent = {}, None
    for depth, b in enumerate(bounds):
        segment = np.searchsorted(b, start, side="right") - 1
        labels = rng.integers(0, 3, len(b) - 1)
        flip = rng.uniform(size=len(labels)) < relabel
        labels = np.where(flip, rng.integers(0, 3, len(labels)), labels)[segment]
        code = labels if parent is None else parent * 3 + labels
        columns[f"level{depth}"] = np.array([f"s{c}" for c in code])
        parent = code
    index = audformat.segmented_index([file] * len(start), start, end)
    return pd.DataFrame(columns, index=index)


def make_data(n_files: int, duration: tuple[float, float], sizes: list[int], seed: int = 0):
    rng = np.random.default_rng(seed)
    truth, prediction = [], []
    for i in range(n_files):
        length = float(np.round(rng.uniform(*duration), 3))
        file = f"song{i:04d}"
        t_bounds, finest = _levels(rng, length, sizes, 0.0)
        p_bounds, _ = _levels(rng, length, sizes, 1.0, finest=finest)
        truth.append(_frame(file, t_bounds, rng, 0.0))
        prediction.append(_frame(file, p_bounds, rng, 0.2))
    return pd.concat(truth), pd.concat(prediction)


def measure(function, repeat: int) -> dict:
    function()  # warm-up
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        function()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"cpu": statistics.median(cpu), "wall": statistics.median(wall), "peak_mb": peak / 1e6}


def mir_eval_report(truth: pd.DataFrame, prediction: pd.DataFrame, files) -> pd.DataFrame:
    rows = {}
    for file in files:
        sides = []
        for frame in (truth.loc[file], prediction.loc[file]):
            intervals, labels = [], []
            for column in frame.columns:
                level = frame[column]
                starts = level.index.get_level_values("start").total_seconds().to_numpy()
                ends = level.index.get_level_values("end").total_seconds().to_numpy()
                values = level.to_numpy()
                # adjacent rows with one label are one segment of the level
                new = np.concatenate([[True], (values[1:] != values[:-1]) | (starts[1:] != ends[:-1])])
                first = np.flatnonzero(new)
                last = np.append(first[1:], len(values)) - 1
                intervals.append(np.stack([starts[first], ends[last]], axis=1))
                labels.append(list(values[first]))
            sides.append((intervals, labels))
        (ri, rl), (ei, el) = sides
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows[file] = mir_eval.hierarchy.evaluate(ri, rl, ei, el)
    return pd.DataFrame.from_dict(rows, orient="index").rename(columns=MIR_EVAL_COLUMNS)


def run(name: str, truth, prediction, repeat: int, mir_eval_files: int) -> list[dict]:
    files = list(pd.unique(truth.index.get_level_values("file")))
    rows = []
    calls = {
        "hierarchy_report": {},
        "hierarchy_report(compat=mir_eval)": {"compat": "mir_eval"},
        "hierarchy_report(frame_size=None, window=None)": {"frame_size": None, "window": None},
    }
    for call, kwargs in calls.items():
        result = measure(lambda kwargs=kwargs: hierarchy_report(truth, prediction, **kwargs), repeat)
        rows.append({"workload": name, "implementation": "audeval", "call": call, **result})
    if mir_eval is not None and mir_eval_files:
        chosen = files[:mir_eval_files]
        c, w = time.process_time(), time.perf_counter()
        expected = mir_eval_report(truth, prediction, chosen)
        cpu, wall = time.process_time() - c, time.perf_counter() - w
        scale = len(files) / len(chosen)
        ours = hierarchy_report(truth, prediction, compat="mir_eval").loc[chosen]
        diff = float(np.abs(ours.to_numpy() - expected[ours.columns].to_numpy()).max())
        rows.append(
            {
                "workload": name, "implementation": "mir_eval", "call": "hierarchy.evaluate",
                "cpu": cpu * scale, "wall": wall * scale, "peak_mb": float("nan"),
                "note": f"ran on {len(chosen)} of {len(files)} files, scaled x{scale:g}; "
                f"max abs diff to compat=mir_eval {diff:.1e}",
            }
        )
    return rows


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--songs", type=int, default=20)
    parser.add_argument("--mir-eval-songs", type=int, default=5)
    parser.add_argument("--mir-eval-long", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    rows = []
    truth, prediction = make_data(args.songs, (180.0, 300.0), [4, 12, 40])
    rows += run(f"{args.songs} songs of 3-5 min, 3 levels", truth, prediction, args.repeat, args.mir_eval_songs)
    truth, prediction = make_data(1, (3600.0, 3600.0), [100, 600, 2500, 10_000], seed=1)
    rows += run(
        "1 h, 4 levels, 10k finest segments", truth, prediction, args.repeat,
        1 if args.mir_eval_long else 0,
    )
    print("| workload | implementation | call | CPU | wall | tracemalloc peak | note |")
    print("|---|---|---|---:|---:|---:|---|")
    for row in rows:
        peak = "" if np.isnan(row["peak_mb"]) else f"{row['peak_mb']:.0f} MB"
        print(
            f"| {row['workload']} | {row['implementation']} | {row['call']} | "
            f"{row['cpu']:.3f} s | {row['wall']:.3f} s | {peak} | {row.get('note', '')} |"
        )
    return rows


if __name__ == "__main__":
    main()
