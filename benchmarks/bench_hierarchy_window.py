"""The exact windowed T-measure (issue 29 item 5): time and distance to frames.

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_hierarchy_window.py [--repeat 5]

Data of ``bench_hierarchy.py``: 20 songs of 3-5 min with 3 nested levels,
and one 3600 s hierarchy with 4 levels (100 to 10,000 segments per side).
For each: ``hierarchy_tmeasure`` (reduced) with ``window=15`` on frames of 0.1 s and 0.01 s
and exact (``frame_size=None``), and exact without a window;
median CPU seconds of interleaved runs, and the largest distance of the frame values
from the exact ones (the frames approach them in proportion to the frame size).
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import audeval  # noqa: E402
from _timing import interleaved_with_results  # noqa: E402
import bench_hierarchy  # noqa: E402


WORKLOADS = {
    "20 songs": (20, (180.0, 300.0), [4, 12, 40]),
    "1 h": (1, (3600.0, 3600.0), [100, 600, 2500, 10_000]),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    for name, (n, duration, sizes) in WORKLOADS.items():
        truth, prediction = bench_hierarchy.make_data(n, duration, sizes, seed=1)

        def run(**options):
            return lambda: np.array(audeval.hierarchy_tmeasure(truth, prediction, **options))

        functions = {
            "frames 0.1 s, window 15 s": run(frame_size=0.1, window=15.0),
            "frames 0.01 s, window 15 s": run(frame_size=0.01, window=15.0),
            "exact, window 15 s": run(frame_size=None, window=15.0),
            "exact, no window": run(frame_size=None, window=None),
        }
        times, results = interleaved_with_results(functions, repeat=args.repeat)
        exact = results["exact, window 15 s"]
        print(f"{name}:")
        for key, seconds in times.items():
            distance = np.abs(results[key] - exact).max() if "window 15" in key else float("nan")
            print(f"  {key:28s} {seconds:7.3f} s CPU   max |value - exact| {distance:.2e}")


if __name__ == "__main__":
    main()
