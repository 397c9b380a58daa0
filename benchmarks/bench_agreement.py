"""Rater agreement: 5 raters x 10k segments each (SPEC section 9: each step <= 1 s).

Run::

    OPENBLAS_NUM_THREADS=1 /work/venv/bin/python benchmarks/bench_agreement.py [--repeat 5]
        [--pygamma PYTHON]

Data: 100 files of 10 min; a hidden reference labels each file with 100 segments
(5 labels, 10 % gaps); every rater copies it with boundaries moved by N(0, 0.3 s),
5 % of the segments dropped and 10 % relabelled: 5 raters x 10,000 segments.

Steps (each timed alone, process CPU time with ``time.process_time``, median of ``--repeat``
after one warm-up run; the inputs are validated inside every step):

* ``agreement_matrix`` of ``event_fscore`` (onset/offset tolerance 0.2 s): 20 ordered pairs,
* ``cohen_kappa`` of two raters, ``fleiss_kappa`` and ``krippendorff_alpha`` of all five,
* ``krippendorff_alpha(per_label=True)`` and with ``frame_size=0.01``,
* ``disagreements``, ``consensus``, ``unitized_alpha``.

``--pygamma PYTHON`` runs pygamma-agreement's gamma on 2 raters x 1,000 segments
(10 of the files) with that interpreter, for comparison (it is stochastic and slow).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from audeval._generic.matrix import agreement_matrix  # noqa: E402
from audeval._agreement import cohen_kappa  # noqa: E402
from audeval._agreement import consensus  # noqa: E402
from audeval._agreement import disagreements  # noqa: E402
from audeval._agreement import fleiss_kappa  # noqa: E402
from audeval._agreement import krippendorff_alpha  # noqa: E402
from audeval._agreement import unitized_alpha  # noqa: E402
from audeval._events import event_fscore  # noqa: E402


N_FILES, N_SEGMENTS, DURATION, N_RATERS = 100, 120, 600.0, 5
N_ROWS = 10_000
LABELS = np.array(["speech", "music", "noise", "laughter", "singing"])


def make_raters(
    seed: int = 0, *, files: int = N_FILES, segments: int = N_SEGMENTS, rows: int = N_ROWS, raters: int = N_RATERS
) -> tuple[dict, dict]:
    """Raters' Series and the files' durations (see the module docstring).

    ``files`` x ``segments`` hidden segments; every rater keeps exactly ``rows`` of them
    (smaller values for the smoke run of ``benchmarks/run.py``).
    """
    rng = np.random.default_rng(seed)
    names = np.array([f"file{i:03d}" for i in range(files)])
    cuts = np.sort(rng.uniform(0, DURATION, (files, segments - 1)), axis=1)
    bounds = np.concatenate([np.zeros((files, 1)), cuts, np.full((files, 1), DURATION)], 1)
    labels = rng.integers(0, len(LABELS), (files, segments))
    gap = rng.uniform(size=(files, segments)) < 0.1
    n_raters, raters = raters, {}
    for r in range(n_raters):
        moved = bounds + rng.normal(0, 0.3, bounds.shape)
        moved = np.clip(np.sort(moved, axis=1), 0, DURATION)
        moved[:, 0], moved[:, -1] = 0, DURATION
        start, end = np.round(moved[:, :-1], 3), np.round(moved[:, 1:], 3)
        label = np.where(rng.uniform(size=labels.shape) < 0.1, rng.integers(0, len(LABELS), labels.shape), labels)
        keep = ~gap & (rng.uniform(size=labels.shape) >= 0.05) & (end > start)
        # exactly N_ROWS segments: drop the excess at random
        flat = np.flatnonzero(keep.ravel())
        keep = np.zeros(keep.size, dtype=bool)
        keep[rng.choice(flat, rows, replace=False)] = True
        keep = keep.reshape(labels.shape)
        file = np.repeat(names[:, None], segments, axis=1)
        index = pd.MultiIndex.from_arrays(
            [file[keep], pd.to_timedelta(start[keep], unit="s"), pd.to_timedelta(end[keep], unit="s")],
            names=["file", "start", "end"],
        )
        raters[f"rater{r + 1}"] = pd.Series(LABELS[label[keep]], index=index)
    return raters, {name: DURATION for name in names}


def measure(function, repeat: int) -> float:
    """Median CPU seconds of ``repeat`` runs after one warm-up run."""
    function()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return statistics.median(times)


PYGAMMA = r'''
import sys, time, pandas as pd
from pyannote.core import Segment
from pygamma_agreement import Continuum, CombinedCategoricalDissimilarity
data = pd.read_csv(sys.argv[1])
continuum = Continuum()
for row in data.itertuples():
    continuum.add(row.rater, Segment(row.start, row.end), row.label)
start = time.process_time()
gamma = continuum.compute_gamma(CombinedCategoricalDissimilarity(), precision_level=0.05)
print(time.process_time() - start, gamma.gamma)
'''


def pygamma(python: str, raters: dict) -> str:
    """pygamma-agreement on 2 raters x 10 files (1,000 segments each), one continuum."""
    rows = []
    for name in list(raters)[:2]:
        s = raters[name]
        files = sorted(pd.unique(s.index.get_level_values("file")))[:10]
        part = s[s.index.get_level_values("file").isin(files)].reset_index()
        offset = part["file"].map({f: i * DURATION for i, f in enumerate(files)})
        rows.append(pd.DataFrame({
            "rater": name,
            "start": part["start"].dt.total_seconds() + offset,
            "end": part["end"].dt.total_seconds() + offset,
            "label": part[0],
        }))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.csv")
        pd.concat(rows).to_csv(path, index=False)
        script = os.path.join(tmp, "gamma.py")
        with open(script, "w") as fp:
            fp.write(PYGAMMA)
        done = subprocess.run([python, script, path], capture_output=True, text=True)
    return done.stdout.strip() or done.stderr.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pygamma", default=None, help="python with pygamma-agreement")
    args = parser.parse_args()
    raters, durations = make_raters()
    pair = {k: raters[k] for k in list(raters)[:2]}
    options = dict(files_duration=durations)
    steps = {
        "agreement_matrix(event_fscore), 20 pairs": lambda: agreement_matrix(
            raters, metric=event_fscore, onset_tolerance=0.2, offset_tolerance=0.2
        ),
        "cohen_kappa (2 raters)": lambda: cohen_kappa(pair, **options),
        "fleiss_kappa": lambda: fleiss_kappa(raters, **options),
        "krippendorff_alpha": lambda: krippendorff_alpha(raters, **options),
        "krippendorff_alpha(per_label=True)": lambda: krippendorff_alpha(raters, per_label=True, **options),
        "krippendorff_alpha(frame_size=0.01)": lambda: krippendorff_alpha(raters, frame_size=0.01, **options),
        "disagreements": lambda: disagreements(raters, **options),
        "consensus": lambda: consensus(raters, **options),
        "unitized_alpha": lambda: unitized_alpha(raters, **options),
    }
    sizes = {name: len(s) for name, s in raters.items()}
    print(f"{N_RATERS} raters, segments per rater: {sizes}, {N_FILES} files x {DURATION:.0f} s")
    print(f"{'step':45s} {'CPU s':>8s}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, function in steps.items():
            print(f"{name:45s} {measure(function, args.repeat):8.3f}", flush=True)
        print(f"{'(alpha = ' + format(krippendorff_alpha(raters, **options), '.4f') + ')':45s}")
    if args.pygamma:
        print("pygamma-agreement, 2 raters x 1,000 segments (CPU s, gamma):", pygamma(args.pygamma, raters))


if __name__ == "__main__":
    main()
