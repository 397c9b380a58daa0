"""Benchmark of the score family (PSDS1 from score tables) against sed_scores_eval.

audeval runs in this process; sed_scores_eval (which needs pandas < 3 and numpy < 2)
runs in its own interpreter on the same data, written to a temporary folder::

    python3 -m venv /work/venvs/h3
    /work/venvs/h3/bin/pip install "pandas<3" "numpy<2" sed_scores_eval==0.0.4
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_scores.py --reference-python /work/venvs/h3/bin/python

Workloads (seeded):

* ``desed``: the DESED validation truth (1,168 clips of 10 s, 10 classes;
  ``/work/shared/fixtures/desed``) with scores at 20 ms frames
  made from the truth (a smoothed, noisy indicator, as a trained model's output looks);
* ``long-60``, ``long-120``, ``long-240``: 5 files of 60 / 120 / 240 s,
  10 classes, random events, scores at 20 ms frames made the same way;
* ``hour``: one file of 1 h made the same way (sed_scores_eval needs far more than
  the default budget there: ``--only hour`` runs it without the reference unless asked).

Reported: CPU time (``time.process_time``, median of ``--repeat`` runs after a warm-up),
the tracemalloc peak of one extra run, the PSDS value,
and for sed_scores_eval its CPU time, the increase of its peak RSS during the call
(Linux ``clear_refs``) and its value
(``--budget`` seconds per workload: longer reference runs are skipped).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np
import pandas as pd

DESED = "/work/shared/fixtures/desed"
HOP = 0.02
PSDS1 = dict(dtc_threshold=0.7, gtc_threshold=0.7, alpha_ct=0.0, alpha_st=1.0, max_efpr=100.0)


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def _scores_from_truth(rng, files, durations, truth_rows, classes):
    """Scores at HOP frames: a smoothed indicator of the truth with noise and false alarms."""
    frames = {}
    by_file = {}
    for file, start, end, label in truth_rows:
        by_file.setdefault(file, []).append((start, end, classes.index(label)))
    kernel = np.hanning(9)
    kernel /= kernel.sum()
    for file in files:
        n = int(round(durations[file] / HOP))
        active = np.zeros((n, len(classes)))
        for start, end, c in by_file.get(file, []):
            active[int(start / HOP) : max(int(end / HOP), int(start / HOP) + 1), c] = 1.0
        noise = rng.normal(0, 1.0, (n, len(classes))) + rng.normal(0, 0.3, (1, len(classes)))
        raw = 1.6 * active + noise - 1.1
        smooth = np.apply_along_axis(lambda x: np.convolve(x, kernel, mode="same"), 0, raw)
        frames[file] = np.round(1 / (1 + np.exp(-3 * smooth)), 6)
    return frames


def desed_data(seed=0):
    truth = pd.read_csv(os.path.join(DESED, "validation.tsv"), sep="\t").dropna()
    durations = pd.read_csv(os.path.join(DESED, "validation_durations.tsv"), sep="\t")
    durations = dict(zip(durations["filename"], durations["duration"]))
    classes = sorted(truth["event_label"].unique())
    rows = list(truth[["filename", "onset", "offset", "event_label"]].itertuples(index=False))
    # frames cover whole 20 ms steps of each file
    durations = {f: round(np.ceil(d / HOP - 1e-9) * HOP, 6) for f, d in durations.items()}
    rows = [(f, s, min(e, durations[f]), label) for f, s, e, label in rows if s < durations[f]]
    scores = _scores_from_truth(np.random.default_rng(seed), sorted(durations), durations, rows, classes)
    return classes, rows, durations, scores


def long_data(length, n_files=5, seed=0):
    rng = np.random.default_rng(seed)
    classes = [f"class{c}" for c in range(10)]
    files = [f"long{i}.wav" for i in range(n_files)]
    durations = {f: float(length) for f in files}
    rows = []
    for file in files:
        for label in classes:
            t = rng.uniform(0, 5)
            while True:
                event = rng.uniform(0.3, 6)
                if t + event > length:
                    break
                rows.append((file, round(t, 3), round(t + event, 3), label))
                t += event + rng.uniform(1, 20)
    scores = _scores_from_truth(rng, files, durations, rows, classes)
    return classes, rows, durations, scores


# ---------------------------------------------------------------------------
# audeval
# ---------------------------------------------------------------------------


def to_audeval(classes, rows, durations, scores):
    files, starts = [], []
    for file, values in scores.items():
        files.append(np.full(len(values), file, dtype=object))
        starts.append(np.arange(len(values), dtype=np.int64) * int(HOP * 1e9))
    start = np.concatenate(starts)
    index = pd.MultiIndex.from_arrays(
        [np.concatenate(files), pd.to_timedelta(start, unit="ns"),
         pd.to_timedelta(start + int(HOP * 1e9), unit="ns")],
        names=["file", "start", "end"],
    )
    table = pd.DataFrame(np.concatenate(list(scores.values())), index=index, columns=classes)
    frame = pd.DataFrame(rows, columns=["file", "start", "end", "label"])
    truth = pd.Series(
        frame["label"].to_numpy(),
        index=pd.MultiIndex.from_arrays(
            [frame["file"].to_numpy(dtype=object),
             pd.to_timedelta(np.round(frame["start"].to_numpy() * 1e9).astype(np.int64), unit="ns"),
             pd.to_timedelta(np.round(frame["end"].to_numpy() * 1e9).astype(np.int64), unit="ns")],
            names=["file", "start", "end"],
        ),
    )
    return truth, table, pd.Series(durations)


def time_audeval(truth, table, durations, repeat):
    from audeval._sed_scores import psds

    def run():
        return psds(truth, table, files_duration=durations, compat="sed_scores_eval", **PSDS1)

    value = run()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"value": value, "cpu": float(np.median(times)), "peak_mb": peak / 1e6}


# ---------------------------------------------------------------------------
# sed_scores_eval (runs in the reference interpreter: no audeval import)
# ---------------------------------------------------------------------------


def write_reference_input(folder, classes, rows, durations, scores):
    np.savez(os.path.join(folder, "scores.npz"), **{f"s{i}": v for i, v in enumerate(scores.values())})
    with open(os.path.join(folder, "meta.json"), "w") as fp:
        json.dump({"files": list(scores), "classes": classes, "rows": [list(r) for r in rows],
                   "durations": durations, "hop": HOP}, fp)


def reference_main(folder):
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
    before = _rss_mb("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as fp:
            fp.write("5")  # reset the peak RSS (Linux)
    except OSError:
        pass
    start = time.process_time()
    value = sed_scores_eval.intersection_based.psds(
        scores=scores, ground_truth=truth, audio_durations=meta["durations"], **PSDS1
    )[0]
    cpu = time.process_time() - start
    peak = _rss_mb("VmHWM") - before
    print(json.dumps({"value": float(value), "cpu": cpu, "peak_mb": peak}))


def _rss_mb(field):
    with open("/proc/self/status") as fp:
        for line in fp:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1e3
    return float("nan")


def time_reference(python, data, timeout):
    with tempfile.TemporaryDirectory() as folder:
        write_reference_input(folder, *data)
        try:
            out = subprocess.run(
                [python, os.path.abspath(__file__), "--reference-run", folder],
                capture_output=True, text=True, timeout=timeout, check=True,
                env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
            )
        except subprocess.TimeoutExpired:
            return {"skipped": f"over {timeout:g} s"}
        return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

WORKLOADS = {
    "desed": desed_data,
    "long-60": lambda: long_data(60),
    "long-120": lambda: long_data(120),
    "long-240": lambda: long_data(240),
    "hour": lambda: long_data(3600, n_files=1),
}
NO_REFERENCE = ("hour",)  # sed_scores_eval's cost grows with (unique scores x events) per file


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(WORKLOADS))
    parser.add_argument("--reference-all", action="store_true",
                        help=f"also run the reference on {', '.join(NO_REFERENCE)}")
    parser.add_argument("--reference-python", default=None,
                        help="interpreter with sed_scores_eval (pandas<3, numpy<2)")
    parser.add_argument("--budget", type=float, default=600.0,
                        help="seconds per reference run before it is skipped")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", default=None)
    parser.add_argument("--reference-run", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.reference_run:
        reference_main(args.reference_run)
        return
    results = {}
    for name in args.only.split(","):
        data = WORKLOADS[name]()
        truth, table, durations = to_audeval(*data)
        row = {"frames": len(table), "classes": table.shape[1], "events": len(truth),
               "audeval": time_audeval(truth, table, durations, args.repeat)}
        if args.reference_python and (args.reference_all or name not in NO_REFERENCE):
            row["sed_scores_eval"] = time_reference(args.reference_python, data, args.budget)
        results[name] = row
        print(name, json.dumps(row), flush=True)
    print()
    print("| workload | frames x classes | events | audeval CPU s | audeval peak MB "
          "| sed_scores_eval CPU s | sed_scores_eval peak MB | speed-up | PSDS1 audeval / sed_scores_eval |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, row in results.items():
        ours = row["audeval"]
        ref = row.get("sed_scores_eval", {"skipped": "not run"})
        if "skipped" in ref:
            ref_cpu, ref_mb, ratio, ref_value = ref["skipped"], "", "", ""
        else:
            ref_cpu, ref_mb = f"{ref['cpu']:.2f}", f"{ref['peak_mb']:.0f}"
            ratio = f"{ref['cpu'] / ours['cpu']:.0f}x"
            ref_value = f"{ref['value']:.6f}"
        print(f"| {name} | {row['frames']} x {row['classes']} | {row['events']} | {ours['cpu']:.3f} "
              f"| {ours['peak_mb']:.0f} | {ref_cpu} | {ref_mb} | {ratio} "
              f"| {ours['value']:.6f} / {ref_value} |")
    if args.json:
        with open(args.json, "w") as fp:
            json.dump(results, fp, indent=1)


if __name__ == "__main__":
    sys.exit(main())
