"""Golden values of agreement on rated scales from the reference packages, on frame grids.

Random ratings of several raters on a scale are drawn on a grid of ``FRAME`` seconds:
each rater covers each file with rows of one value, with gaps (time without a value),
and a rater may leave a file out. Every frame of every rater gets its value
(``NaN`` in a gap: a missing value) with plain Python loops, and is scored with

* the ``krippendorff`` package, ``alpha(reliability_data=raters x frames,
  level_of_measurement=level, value_domain=scale)`` for the levels
  ``"ordinal"``, ``"interval"``, ``"ratio"``,
* scikit-learn ``cohen_kappa_score(y1, y2, weights=w, labels=scale)`` for
  ``w`` in ``None``, ``"linear"``, ``"quadratic"``, of every pair of raters
  on the frames both rate.

The tests check that audeval gives the same numbers to 1e-12 with ``frame_size=FRAME``
and ``level=...`` (alpha) or ``level="ordinal", weights=w`` (Cohen's kappa).

Run (writes golden_scales.json next to this file)::

    python3 -m venv /work/venvs/agr-kripp
    /work/venvs/agr-kripp/bin/pip install krippendorff scikit-learn
    /work/venvs/agr-kripp/bin/python tests/assets/agreement/make_golden_scales.py

Versions used: krippendorff 0.9.0, scikit-learn 1.9.1, numpy 2.4.6.
"""

import itertools
import json
import os

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score


FRAME = 0.5
HERE = os.path.dirname(os.path.abspath(__file__))
LEVELS = ("ordinal", "interval", "ratio")


def draw_base(rng, files, n_frames, n_scale):
    """Per file, runs ``[first frame, stop frame)`` with a position on the scale (the rated signal,
    a random walk)."""
    out = {}
    for file in files:
        runs, k = [], 0
        position = int(rng.integers(0, n_scale))
        while k < n_frames[file]:
            end = min(k + int(rng.integers(2, 8)), n_frames[file])
            position = int(np.clip(position + rng.integers(-1, 2), 0, n_scale - 1))
            runs.append((k, end, position))
            k = end
        out[file] = runs
    return out


def draw_rows(rng, base, files, scale, gaps, skip):
    """Rows ``[file, start, end, value]`` in seconds on the frame grid: one value at a time,
    the base signal's run with its value moved by one step now and then, its end a frame early now and then."""
    rows = []
    for file in files:
        if file in skip:
            continue
        for k, end, position in base[file]:
            if rng.random() < gaps:
                continue
            shift = -int(rng.integers(0, 2)) if end - k > 2 else 0  # (a gap, never an overlap)
            value = scale[int(np.clip(position + rng.choice([-1, 0, 0, 0, 1]), 0, len(scale) - 1))]
            rows.append([file, k * FRAME, (end + shift) * FRAME, value])
    return rows


def frames(rows, files, n_frames):
    """The value of every frame of every file in order (NaN: no value)."""
    out = {file: [np.nan] * n_frames[file] for file in files}
    for file, start, end, value in rows:
        for k in range(round(start / FRAME), round(end / FRAME)):
            out[file][k] = value
    return [v for file in files for v in out[file]]


def case(seed, n_raters, scale, gaps, skip_last=()):
    rng = np.random.default_rng(seed)
    files = [f"f{i}" for i in range(4)]
    n_frames = {file: int(rng.integers(15, 41)) for file in files}
    base = draw_base(rng, files, n_frames, len(scale))
    raters = {}
    for i in range(n_raters):
        skip = skip_last if i == n_raters - 1 else ()
        raters[f"r{i + 1}"] = draw_rows(np.random.default_rng([seed, i]), base, files, scale, gaps, skip)
    matrix = np.array([frames(rows, files, n_frames) for rows in raters.values()], dtype=float)
    alpha = {
        level: float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level, value_domain=scale))
        for level in LEVELS
    }
    cohen = {}
    for (a, x), (b, y) in itertools.combinations(zip(raters, matrix), 2):
        both = ~np.isnan(x) & ~np.isnan(y)
        cohen[f"{a}|{b}"] = {
            str(w): float(cohen_kappa_score(x[both], y[both], weights=w, labels=scale))
            for w in (None, "linear", "quadratic")
        }
    return {
        "frame": FRAME,
        "scale": scale,
        "durations": {file: n * FRAME for file, n in n_frames.items()},
        "raters": raters,
        "alpha": alpha,
        "cohen": cohen,
    }


def main():
    cases = {
        "likert": case(11, 3, [1, 2, 3, 4, 5], gaps=0.2),
        "dense": case(12, 2, [1, 2, 3, 4, 5], gaps=0.0),
        "sparse": case(13, 5, [1, 2, 3, 4, 5], gaps=0.5, skip_last=("f2",)),
        "pitch": case(14, 4, [80.0, 110.0, 150.0, 220.0, 330.0, 440.0], gaps=0.3),
        "zero": case(15, 3, [0, 1, 2, 4, 8], gaps=0.25),
    }
    with open(os.path.join(HERE, "golden_scales.json"), "w") as fp:
        json.dump(cases, fp, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
