"""Golden values of mir_eval.segment.evaluate on random partitions.

Run by hand with the reference environment (mir_eval 0.8.2):

    /opt/refenv/bin/python tests/assets/structure/make_golden.py

It writes, next to this script:

* ``truth.csv``, ``prediction.csv``: rows ``file,start,end,label``
  in the row order of the Series the tests build
  (files interleaved, rows of a file unsorted);
* ``expected.csv``: one row per ``(config, file)``
  with the 22 values of ``mir_eval.segment.evaluate``:
  for configs ``mir_eval:<name>`` called on the rows of that file
  *in that row order* (what ``compat="mir_eval"`` reproduces);
  for configs ``exact:<name>`` called on audeval's default semantics,
  prepared here independently of audeval:
  rows sorted, prediction cropped to the truth's end ``T``,
  every gap filled with one "gap" label, labels made case-distinct,
  and mir_eval's frame sampler replaced by an exact one
  (integer nanoseconds, half-open segments, ``floor(T / frame_size)`` frames),
  so that mir_eval's own metric code gives the reference values.

The partitions mix three time grids (1 ms, 0.1 s and 0.5 s:
the coarse ones put boundaries exactly on mir_eval's float32 frame times),
leading and interior gaps, predictions that end before or after the truth,
rows starting after the truth's end (which make mir_eval drop the rows after them
in row order), and labels that differ only in case.
"""

import csv
import json
import os
import warnings

import numpy as np

import mir_eval


HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240607
N_FILES = 32
CONFIGS = {
    "default": {},
    "trim_frame_0.25_beta_2": {"trim": True, "frame_size": 0.25, "beta": 2.0},
}


def partition(rng, start, end, grid, n_segments, labels, gap_rate):
    """Random segments tiling [start, end) on a grid, some gaps left out."""
    cuts = np.sort(rng.choice(np.arange(1, 10_000), n_segments - 1, replace=False))
    times = start + (end - start) * np.concatenate([[0], cuts / 10_000, [1]])
    times = np.unique(np.round(times / grid) * grid)
    times = np.round(times, 3)
    rows = []
    for a, b in zip(times[:-1], times[1:]):
        if b <= a:
            continue
        if rows and rng.random() < gap_rate:
            continue  # leave a gap
        rows.append((float(a), float(b), str(rng.choice(labels))))
    return rows


def make_file(rng, name):
    grid = float(rng.choice([0.001, 0.1, 0.5]))
    sets = [["A", "B", "C"], ["verse", "Verse", "chorus", "bridge"], ["x", "y"]]
    labels = sets[int(rng.integers(len(sets)))]
    t_start = float(rng.choice([0.0, 0.0, round(rng.uniform(0.1, 3.0), 1)]))
    t_end = round(float(rng.uniform(20, 120)), 3)
    truth = partition(rng, t_start, t_end, grid, int(rng.integers(2, 15)), labels, 0.1)
    p_end = round(t_end + float(rng.choice([0.0, -rng.uniform(1, 10), rng.uniform(1, 10)])), 3)
    p_start = float(rng.choice([0.0, 0.0, round(rng.uniform(0.1, 3.0), 1)]))
    prediction = partition(rng, p_start, p_end, grid, int(rng.integers(2, 20)), labels, 0.1)
    if prediction and rng.random() < 0.3:
        # a row after the truth's end: in row order, mir_eval drops it
        # and every row after it (even rows inside the track)
        last = max([b for _, b, _ in truth] + [b for _, b, _ in prediction])
        start = round(last + float(rng.uniform(0.5, 5)), 3)
        prediction.append((start, round(start + float(rng.uniform(1, 5)), 3), labels[0]))
    if prediction and rng.random() < 0.2:
        prediction = [row for row in prediction if rng.random() > 0.3]  # more gaps
    if rng.random() < 0.15:
        prediction = []  # truth-only file: mir_eval pads the prediction
    return name, truth, prediction


def shuffled(rng, rows):
    rows = list(rows)
    order = rng.permutation(len(rows))
    return [rows[i] for i in order]


def evaluate(truth, prediction, config):
    ref = np.array([[a, b] for a, b, _ in truth], dtype=float).reshape(-1, 2)
    est = np.array([[a, b] for a, b, _ in prediction], dtype=float).reshape(-1, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = mir_eval.segment.evaluate(
            ref, [lab for *_, lab in truth], est, [lab for *_, lab in prediction], **config
        )
    return {k: float(v) for k, v in scores.items()}


def exact_samples(intervals, labels, offset=0, sample_size=0.1, fill_value=None):
    """Exact stand-in for mir_eval.util.intervals_to_samples (sorted, gap-free rows)."""
    ns = np.round(np.asarray(intervals) * 1e9).astype(np.int64)
    step = int(round(sample_size * 1e9))
    n = int(ns.max()) // step
    times = np.arange(n, dtype=np.int64) * step
    row = np.searchsorted(ns[:, 0], times, side="right") - 1
    assert (times < ns[row, 1]).all()
    return (times / 1e9).tolist(), [labels[i] for i in row]


def fill(rows, end, names):
    """Sorted rows of [0, end) with every gap given the label 'gap'."""
    out = []
    position = 0.0
    for a, b, label in sorted(rows):
        if a >= end:
            continue
        b = min(b, end)
        if a > position:
            out.append((position, a, "gap"))
        out.append((a, b, names[label]))
        position = b
    if position < end:
        out.append((position, end, "gap"))
    return out


def evaluate_exact(truth, prediction, config):
    end = max(b for _, b, _ in truth)
    labels = sorted({lab for *_, lab in truth + prediction})
    names = {label: f"l{i}" for i, label in enumerate(labels)}  # case-distinct
    original = mir_eval.util.intervals_to_samples
    mir_eval.util.intervals_to_samples = exact_samples
    try:
        return evaluate(fill(truth, end, names), fill(prediction, end, names), config)
    finally:
        mir_eval.util.intervals_to_samples = original


def clusters_ok(scores):
    """Leave out files where a side has one cluster: mir_eval's NMI is then
    rounding noise divided by 1e-10 (tested by hand-computed cases instead)."""
    return abs(scores["Normalized Mutual Information"]) > 1e-3


def main():
    rng = np.random.default_rng(SEED)
    files = []
    while len(files) < N_FILES:
        name, truth, prediction = make_file(rng, f"song{len(files):02d}")
        truth = shuffled(rng, truth)
        prediction = shuffled(rng, prediction)
        try:
            results = {f"mir_eval:{c}": evaluate(truth, prediction, kw) for c, kw in CONFIGS.items()}
            results.update(
                {f"exact:{c}": evaluate_exact(truth, prediction, kw) for c, kw in CONFIGS.items()}
            )
        except ValueError:
            continue  # mir_eval raises on this input (e.g. a row starting at T)
        if not all(clusters_ok(r) for r in results.values()):
            continue
        files.append((name, truth, prediction, results))

    # interleave the files in the Series: rows of all files in random order,
    # keeping the (shuffled) order of rows within each file
    for side, index in (("truth", 1), ("prediction", 2)):
        tagged = [(name, row) for name, *sides, _ in files for row in sides[index - 1]]
        owners = [name for name, _ in tagged]
        order = rng.permutation(len(tagged))
        by_file = {}
        for name, row in tagged:
            by_file.setdefault(name, []).append(row)
        queues = {name: iter(rows) for name, rows in by_file.items()}
        out = [(owners[p], next(queues[owners[p]])) for p in order]
        with open(os.path.join(HERE, f"{side}.csv"), "w", newline="") as fp:
            writer = csv.writer(fp)
            writer.writerow(["file", "start", "end", "label"])
            for name, (a, b, label) in out:
                writer.writerow([name, repr(a), repr(b), label])

    keys = list(next(iter(files[0][3].values())).keys())
    with open(os.path.join(HERE, "expected.csv"), "w", newline="") as fp:
        writer = csv.writer(fp)
        writer.writerow(["config", "file", *keys])
        for config in files[0][3]:
            for name, _, _, results in files:
                writer.writerow([config, name, *(repr(results[config][k]) for k in keys)])
    with open(os.path.join(HERE, "configs.json"), "w") as fp:
        json.dump(CONFIGS, fp, indent=2)
    print(f"wrote {len(files)} files, mir_eval {mir_eval.__version__}")


if __name__ == "__main__":
    main()
