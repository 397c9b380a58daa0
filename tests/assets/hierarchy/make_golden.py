"""Golden values of mir_eval.hierarchy.evaluate on random hierarchies.

Create the environment and run (from the repository root):

    python3 -m venv /tmp/mir_eval_env
    /tmp/mir_eval_env/bin/pip install "mir_eval==0.8.2" "numpy<2" scipy
    /tmp/mir_eval_env/bin/python tests/assets/hierarchy/make_golden.py

It writes, next to this script:

* ``segments.csv``: rows ``side,file,level,start,end,label``
  (``side`` is ``truth`` or ``prediction``, levels 0 = coarsest),
  every level of a file sorted by start;
* ``expected.csv``: one row per ``(config, file)`` with the nine values
  of ``mir_eval.hierarchy.evaluate`` called on the levels of that file.

The hierarchies have 2-4 levels and 10-200 segments at the finest level,
on a 1 ms or a 0.1 s grid (the coarse grid puts boundaries on mir_eval's frames).
Kinds: nested boundaries with labels that follow the parent's
(monotonic), nested boundaries with independent labels (non-monotonic labels),
and independent boundaries per level (non-monotonic segments).
Some truths start after 0 (mir_eval pads ``__T_MIN``),
some predictions end before or after the truth (``__T_MAX`` pad, cropping),
and some levels have interior gaps (frames in no segment).
"""

import csv
import os
import warnings

import numpy as np

import mir_eval


HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261124
N_FILES = 18
CONFIGS = {
    "default": {},
    "window_5_frame_0.25": {"window": 5.0, "frame_size": 0.25},
}


def cuts(rng, start, end, n, grid):
    times = np.sort(rng.uniform(start, end, size=n - 1))
    times = np.round(times / grid) * grid
    times = np.round(np.concatenate([[start], times, [end]]), 3)
    return np.unique(times)


def hierarchy(rng, start, end, n_levels, n_fine, grid, kind):
    """Levels (coarse to fine) as lists of (start, end, label)."""
    fine = cuts(rng, start, end, n_fine, grid)
    levels_b = [fine]
    for _ in range(n_levels - 1):
        if kind == "independent":
            size = max(2, len(levels_b[0]) // int(rng.integers(2, 5)))
            levels_b.insert(0, cuts(rng, start, end, size, grid))
        else:
            parent = levels_b[0]
            inner = parent[1:-1]
            keep = inner[rng.random(len(inner)) < 0.35]
            levels_b.insert(0, np.unique(np.concatenate([[start], keep, [end]])))
    levels = []
    for depth, bounds in enumerate(levels_b):
        vocab = [f"L{depth}{c}" for c in "abcdefg"[: 2 + depth]]
        rows = []
        for a, b in zip(bounds[:-1], bounds[1:]):
            if kind == "monotonic" and depth > 0:
                parent = next(r for r in levels[-1] if r[0] <= a < r[1])
                label = parent[2] + "/" + str(rng.choice(vocab))
            else:
                label = str(rng.choice(vocab))
            rows.append((float(a), float(b), label))
        levels.append(rows)
    return levels


def with_gaps(rng, levels):
    """Remove a few interior rows of the finer levels (interior gaps)."""
    out = []
    for depth, rows in enumerate(levels):
        if depth > 0 and len(rows) > 4 and rng.random() < 0.5:
            drop = int(rng.integers(1, len(rows) - 1))
            rows = rows[:drop] + rows[drop + 1 :]
        out.append(rows)
    return out


def make_file(rng, name):
    grid = float(rng.choice([0.001, 0.1]))
    kind = str(rng.choice(["monotonic", "labels", "independent"]))
    n_levels = int(rng.integers(2, 5))
    t_start = float(rng.choice([0.0, 0.0, round(float(rng.uniform(0.1, 2.0)), 1)]))
    t_end = round(float(rng.uniform(30, 90)), 3)
    truth = hierarchy(rng, t_start, t_end, n_levels, int(rng.integers(10, 120)), grid, kind)
    p_end = round(t_end + float(rng.choice([0.0, -rng.uniform(1, 5), rng.uniform(1, 5)])), 3)
    p_start = float(rng.choice([0.0, 0.0, round(float(rng.uniform(0.1, 2.0)), 1)]))
    prediction = hierarchy(
        rng, p_start, p_end, int(rng.integers(2, 5)), int(rng.integers(10, 200)), grid, kind
    )
    if rng.random() < 0.3:
        truth = with_gaps(rng, truth)
    if rng.random() < 0.3:
        prediction = with_gaps(rng, prediction)
    return truth, prediction


def as_mir_eval(levels):
    intervals = [np.array([[a, b] for a, b, _ in rows]) for rows in levels]
    labels = [[label for _, _, label in rows] for rows in levels]
    return intervals, labels


def main():
    rng = np.random.default_rng(SEED)
    segments, expected = [], []
    for i in range(N_FILES):
        file = f"song{i:02d}"
        truth, prediction = make_file(rng, file)
        for side, levels in (("truth", truth), ("prediction", prediction)):
            for depth, rows in enumerate(levels):
                segments += [(side, file, depth, a, b, label) for a, b, label in rows]
        ref_i, ref_l = as_mir_eval(truth)
        est_i, est_l = as_mir_eval(prediction)
        for config, kwargs in CONFIGS.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scores = mir_eval.hierarchy.evaluate(ref_i, ref_l, est_i, est_l, **kwargs)
            expected.append({"config": config, "file": file, **scores})
        print(file, "done", flush=True)
    with open(os.path.join(HERE, "segments.csv"), "w", newline="") as fp:
        writer = csv.writer(fp)
        writer.writerow(["side", "file", "level", "start", "end", "label"])
        writer.writerows(segments)
    with open(os.path.join(HERE, "expected.csv"), "w", newline="") as fp:
        writer = csv.DictWriter(fp, fieldnames=list(expected[0]))
        writer.writeheader()
        for row in expected:
            writer.writerow({k: repr(v) if isinstance(v, float) else v for k, v in row.items()})


if __name__ == "__main__":
    main()
