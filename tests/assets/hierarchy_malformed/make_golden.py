"""What mir_eval.hierarchy says of malformed hierarchies (issue 29 item 5).

Create the environment and run (from the repository root):

    python3 -m venv /work/venvs/strh-mireval
    /work/venvs/strh-mireval/bin/pip install "mir_eval==0.8.2" "numpy<2" scipy
    /work/venvs/strh-mireval/bin/python tests/assets/hierarchy_malformed/make_golden.py

Random hierarchies (2-4 levels from 0 s, boundaries on a 0.1 s grid) of four kinds:
``nested`` (every boundary of a level is one of every finer level),
``dropped`` (nested, then one boundary of a coarser level removed from a finer one),
``independent`` (boundaries drawn per level) and ``ends`` (nested, then one level
ending earlier or later than the others).
Each is given to ``mir_eval.hierarchy.validate_hier_intervals``
(what ``tmeasure`` and ``lmeasure`` run on both inputs).

It writes, next to this script:

* ``segments.csv``: rows ``case,level,start,end,label`` (levels 0 = coarsest, every row a segment);
* ``expected.csv``: one row per case: ``kind``, ``outcome`` (``ok``, ``warn`` or ``raise``),
  ``levels``: the levels (0-based) mir_eval warns about ("inconsistent at level l"),
  space separated, and ``message``: its error message.
"""

import csv
import os
import re
import warnings

import numpy as np

import mir_eval


HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261127
N_CASES = 40
KINDS = ("nested", "dropped", "independent", "ends")


def grid_cuts(rng, end, n):
    inner = np.unique(rng.integers(1, int(round(end * 10)), size=n)) / 10.0
    return np.concatenate([[0.0], inner, [end]])


def nested_levels(rng, end, n_levels):
    fine = grid_cuts(rng, end, int(rng.integers(4, 14)))
    levels = [fine]
    for _ in range(n_levels - 1):
        inner = levels[0][1:-1]
        keep = inner[rng.random(len(inner)) < 0.5]
        levels.insert(0, np.concatenate([[0.0], keep, [end]]))
    return levels


def make_case(rng, kind):
    n_levels = int(rng.integers(2, 5))
    end = float(rng.integers(50, 200)) / 10.0
    if kind == "independent":
        levels = [grid_cuts(rng, end, int(rng.integers(2, 10))) for _ in range(n_levels)]
    else:
        levels = nested_levels(rng, end, n_levels)
    if kind == "dropped":
        candidates = [
            (k, t) for k in range(1, n_levels) for t in levels[k - 1][1:-1] if len(levels[k]) > 2
        ]
        if candidates:
            k, t = candidates[int(rng.integers(len(candidates)))]
            levels[k] = levels[k][levels[k] != t]
    if kind == "ends":
        k = int(rng.integers(n_levels))
        shift = float(rng.choice([-1, 1])) * float(rng.integers(1, 20)) / 10.0
        bounds = levels[k][levels[k] < end + shift] if shift < 0 else levels[k]
        levels[k] = np.concatenate([bounds[:-1] if shift > 0 else bounds, [end + shift]])
    rows = []
    for depth, bounds in enumerate(levels):
        labels = rng.choice(list("abc"), size=len(bounds) - 1)
        rows.append([(float(a), float(b), str(c)) for a, b, c in zip(bounds[:-1], bounds[1:], labels)])
    return rows


def main():
    rng = np.random.default_rng(SEED)
    segments, expected = [], []
    for i in range(N_CASES):
        kind = KINDS[i % len(KINDS)]
        case = f"case{i:02d}"
        levels = make_case(rng, kind)
        for depth, rows in enumerate(levels):
            for a, b, label in rows:
                segments.append((case, depth, round(a, 3), round(b, 3), label))
        intervals = [np.array([[a, b] for a, b, _ in rows]) for rows in levels]
        outcome, warned, message = "ok", [], ""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                mir_eval.hierarchy.validate_hier_intervals(intervals)
            except ValueError as error:
                outcome, message = "raise", str(error)
        for w in caught:
            found = re.search(r"inconsistent at level (\d+)", str(w.message))
            if found:
                warned.append(int(found.group(1)))
        if outcome == "ok" and warned:
            outcome = "warn"
        expected.append((case, kind, outcome, " ".join(map(str, sorted(set(warned)))), message))
    with open(os.path.join(HERE, "segments.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["case", "level", "start", "end", "label"])
        writer.writerows(segments)
    with open(os.path.join(HERE, "expected.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["case", "kind", "outcome", "levels", "message"])
        writer.writerows(expected)


if __name__ == "__main__":
    main()
