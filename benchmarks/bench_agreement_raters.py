"""Agreement against the number of raters: 8, 32, 128 raters x 10k segments each (issue 32 item 4).

Run::

    OPENBLAS_NUM_THREADS=1 /work/venv/bin/python benchmarks/bench_agreement_raters.py
        [--raters 8 32 128] [--repeat 3] [--steps fleiss_kappa krippendorff_alpha ...]

Data: as ``bench_agreement.py`` (100 files of 10 min; every rater copies a hidden
reference of 12,000 segments with boundaries moved by N(0, 0.3 s), 10 % relabelled,
and keeps 10,000 of them), with 8, 32 and 128 raters.

Every step runs in a fresh process (so peak memory is the step's own):
one warm-up call, then the process CPU time of a second call (``time.process_time``),
and the peak resident memory the calls add (``ru_maxrss`` after them minus the
resident memory before them, the inputs already built). Runs of all sizes are interleaved
(size 1, size 2, size 3, size 1, ...) and the median of ``--repeat`` runs is reported.
The growth exponent from ``a`` to ``b`` raters is
``log(t_b / t_a) / log(b / a)`` (1: linear in raters, 2: quadratic).

Targets (issue 32): 128 raters: ``krippendorff_alpha`` and ``fleiss_kappa``
<= 3 s and <= 1 GB, time exponent <= 1.15 from 8 to 128 raters.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

STEPS = {
    "fleiss_kappa": "fleiss_kappa(raters, files_duration=durations)",
    "krippendorff_alpha": "krippendorff_alpha(raters, files_duration=durations)",
    "krippendorff_alpha(per_label=True)": "krippendorff_alpha(raters, per_label=True, files_duration=durations)",
    "krippendorff_alpha(frame_size=0.01)": "krippendorff_alpha(raters, frame_size=0.01, files_duration=durations)",
    "agreement_statistics": "agreement_statistics(raters, files_duration=durations)",
    "disagreements": "disagreements(raters, files_duration=durations)",
    "consensus": "consensus(raters, files_duration=durations)",
    "unitized_alpha": "unitized_alpha(raters, files_duration=durations)",
}
DEFAULT_STEPS = ["fleiss_kappa", "krippendorff_alpha", "krippendorff_alpha(per_label=True)", "disagreements"]


def _rss_kb() -> int:
    with open("/proc/self/statm") as fp:
        return int(fp.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def run_one(step: str, n_raters: int) -> dict:
    """One step on ``n_raters`` raters in this process: CPU seconds and added peak MB."""
    from bench_agreement import make_raters

    from audeval import agreement_statistics  # noqa: F401
    from audeval import consensus  # noqa: F401
    from audeval import disagreements  # noqa: F401
    from audeval import fleiss_kappa  # noqa: F401
    from audeval import krippendorff_alpha  # noqa: F401
    from audeval import unitized_alpha  # noqa: F401

    raters, durations = make_raters(raters=n_raters)
    namespace = dict(locals())
    code = compile(STEPS[step], step, "eval")
    before = _rss_kb()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eval(code, namespace)  # warm-up
        start = time.process_time()
        value = eval(code, namespace)
        seconds = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux
    out = {"seconds": seconds, "mb": max(peak - before, 0) / 1024}
    if isinstance(value, float):
        out["value"] = value
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raters", type=int, nargs="+", default=[8, 32, 128])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--steps", nargs="+", default=DEFAULT_STEPS, choices=list(STEPS))
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # internal: step, raters
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]))))
        return
    print(f"load: {os.getloadavg()}")
    results = {(s, n): [] for s in args.steps for n in args.raters}
    for _ in range(args.repeat):
        for step in args.steps:
            for n in args.raters:  # interleaved: every size once per round
                done = subprocess.run(
                    [sys.executable, __file__, "--one", step, str(n)],
                    capture_output=True, text=True, check=True,
                )
                results[(step, n)].append(json.loads(done.stdout.strip().splitlines()[-1]))
    header = f"{'step':38s}" + "".join(f"{n:>6d} raters: s / MB " for n in args.raters) + " exponent (time, memory)"
    print(header)
    for step in args.steps:
        row = f"{step:38s}"
        t = {n: statistics.median(r["seconds"] for r in results[(step, n)]) for n in args.raters}
        m = {n: statistics.median(r["mb"] for r in results[(step, n)]) for n in args.raters}
        for n in args.raters:
            row += f"{t[n]:>10.3f} / {m[n]:>7.0f}"
        a, b = args.raters[0], args.raters[-1]
        growth = math.log(b / a)
        exponent_t = math.log(t[b] / t[a]) / growth if t[a] > 0 else float("nan")
        exponent_m = math.log(max(m[b], 1) / max(m[a], 1)) / growth
        row += f"   {exponent_t:.2f}, {exponent_m:.2f} ({a} -> {b})"
        print(row, flush=True)


if __name__ == "__main__":
    main()
