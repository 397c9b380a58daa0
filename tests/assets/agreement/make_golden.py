"""Golden values of the agreement family from the reference packages, on frame grids.

Random annotations of several raters are drawn on a grid of ``FRAME`` seconds
(every start and end is a whole number of frames),
turned into one category per frame and rater with plain Python loops,
and scored with

* scikit-learn ``cohen_kappa_score`` (two raters, the frames' categories),
* the ``krippendorff`` package ``alpha(reliability_data=raters x frames, "nominal")``
  (missing ratings as NaN),
* statsmodels ``fleiss_kappa`` of ``aggregate_raters`` (frames x raters).

Categories are label sets (the frame's set of labels of a rater, "no label" included)
and, per label, binary present/absent; "micro" pools the binary frames of all labels.
The tests check that audeval gives the same numbers to 1e-12
in continuous time (Cohen's kappa, Fleiss' kappa: the frames only count durations)
and with ``frame_size=FRAME`` (Krippendorff's alpha, whose small-sample term counts frames).

Run (writes golden.json next to this file)::

    python3 -m venv /work/venvs/h2
    /work/venvs/h2/bin/pip install scikit-learn krippendorff statsmodels
    /work/venvs/h2/bin/python tests/assets/agreement/make_golden.py

Versions used: scikit-learn 1.9.1, krippendorff 0.9.0, statsmodels 0.15.0, numpy 2.4.6.
"""

import itertools
import json
import os

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa


FRAME = 0.25
LABELS = ["a", "b", "c"]
HERE = os.path.dirname(os.path.abspath(__file__))


def draw_rows(rng, files, n_frames, polyphonic):
    """Rows ``[file, start, end, label]`` in seconds, on the frame grid."""
    rows = []
    for file in files:
        tracks = LABELS if polyphonic else [None]
        for track in tracks:
            k = 0
            while k < n_frames[file]:
                length = int(rng.integers(1, 8))
                end = min(k + length, n_frames[file])
                if polyphonic:
                    label = track if rng.random() < 0.45 else None
                else:
                    label = [None, *LABELS][int(rng.integers(0, 4))]
                if label is not None:
                    rows.append([file, k * FRAME, end * FRAME, label])
                k = end
    return rows


def frame_sets(rows, files, n_frames):
    """Per file, per frame: the set of labels active."""
    out = {file: [set() for _ in range(n_frames[file])] for file in files}
    for file, start, end, label in rows:
        for k in range(round(start / FRAME), round(end / FRAME)):
            out[file][k].add(label)
    return out


def set_name(labels):
    labels = sorted(labels)
    if not labels:
        return "<no label>"
    return labels[0] if len(labels) == 1 else " + ".join(labels)


def categories(raters, files, n_frames, rated, per_label=None):
    """Per rater: the category of every frame of every file (None where not rated)."""
    out = {}
    for rater, rows in raters.items():
        sets = frame_sets(rows, files, n_frames)
        values = []
        for file in files:
            for labels in sets[file]:
                if not rated[rater][file]:
                    values.append(None)
                elif per_label is None:
                    values.append(set_name(labels))
                else:
                    values.append(int(per_label in labels))
        out[rater] = values
    return out


def kappa_pair(x, y):
    keep = [i for i in range(len(x)) if x[i] is not None and y[i] is not None]
    return float(cohen_kappa_score([str(x[i]) for i in keep], [str(y[i]) for i in keep]))


def alpha(values):
    codes = {v: i for i, v in enumerate(sorted({v for vs in values.values() for v in vs if v is not None}, key=str))}
    matrix = np.array(
        [[np.nan if v is None else codes[v] for v in vs] for vs in values.values()], dtype=float
    )
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"))


def fleiss(values):
    codes = {v: i for i, v in enumerate(sorted({v for vs in values.values() for v in vs}, key=str))}
    data = np.array([[codes[v] for v in vs] for vs in values.values()]).T
    table, _ = aggregate_raters(data, n_cat=len(codes))
    return float(fleiss_kappa(table, method="fleiss"))


def scores(values, complete):
    raters = list(values)
    out = {
        "cohen": {
            f"{a}|{b}": kappa_pair(values[a], values[b]) for a, b in itertools.combinations(raters, 2)
        },
        "alpha": alpha(values),
    }
    if complete:
        out["fleiss"] = fleiss(values)
    return out


def case(seed, n_raters, polyphonic, missing):
    rng = np.random.default_rng(seed)
    files = [f"f{i}" for i in range(4)]
    n_frames = {file: int(rng.integers(20, 41)) for file in files}
    raters = {f"r{i + 1}": draw_rows(rng, files, n_frames, polyphonic) for i in range(n_raters)}
    rated = {rater: {file: True for file in files} for rater in raters}
    if missing:  # the last rater did not rate f1
        last = list(raters)[-1]
        raters[last] = [row for row in raters[last] if row[0] != "f1"]
        rated[last]["f1"] = False
    out = {
        "frame": FRAME,
        "durations": {file: n * FRAME for file, n in n_frames.items()},
        "raters": raters,
        "missing": missing,
        "sets": scores(categories(raters, files, n_frames, rated), not missing),
        "per_label": {},
    }
    micro = {rater: [] for rater in raters}
    for label in LABELS:
        values = categories(raters, files, n_frames, rated, per_label=label)
        out["per_label"][label] = scores(values, not missing)
        for rater in raters:
            micro[rater] += values[rater]
    out["micro"] = scores(micro, not missing)
    return out


def main():
    cases = {
        "mono": case(1, 3, polyphonic=False, missing=False),
        "poly": case(2, 3, polyphonic=True, missing=False),
        "missing": case(3, 3, polyphonic=False, missing=True),
        "two": case(4, 2, polyphonic=True, missing=False),
    }
    with open(os.path.join(HERE, "golden.json"), "w") as fp:
        json.dump(cases, fp, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
