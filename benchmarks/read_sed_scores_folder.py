"""Time ``audeval.read_sed_scores`` on a folder of DESED-sized score files (issue 33, item 18).

Writes ``--files`` score files of 10 s at 64 ms frames and 10 classes into a temporary folder
(sed_scores_eval's format), then reads the folder ``--repeat`` times and prints the median,
beside the per-file ``pandas.read_csv`` loop the reader replaced (``--per-file``)::

    python benchmarks/read_sed_scores_folder.py --files 10000 --repeat 3 --per-file
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np
import pandas as pd

import audeval

CLASSES = ["Alarm_bell_ringing", "Blender", "Cat", "Dishes", "Dog", "Electric_shaver_toothbrush",
           "Frying", "Running_water", "Speech", "Vacuum_cleaner"]


def write(folder: str, n_files: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    hop, n = 0.064, 156
    times = np.round(np.arange(n + 1) * hop, 3)
    header = "onset\toffset\t" + "\t".join(CLASSES)
    for i in range(n_files):
        rows = np.column_stack([times[:-1], times[1:], rng.random((n, len(CLASSES))).round(3)])
        np.savetxt(os.path.join(folder, f"Y{i:05d}.tsv"), rows, fmt="%.3f", delimiter="\t",
                   header=header, comments="")


def per_file(folder: str) -> pd.DataFrame:
    """The former reader: one ``pandas.read_csv`` per file, then a concat."""
    frames = [pd.read_csv(os.path.join(folder, name), sep="\t").assign(file=name[:-4])
              for name in sorted(os.listdir(folder))]
    return pd.concat(frames, ignore_index=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--per-file", action="store_true", help="also time the per-file loop")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        write(folder, args.files)
        runs: dict[str, list[float]] = {"read_sed_scores": [], "per-file read_csv": []}
        for _ in range(args.repeat):  # interleaved
            start = time.perf_counter()
            audeval.read_sed_scores(folder, suffix=".wav")
            runs["read_sed_scores"].append(time.perf_counter() - start)
            if args.per_file:
                start = time.perf_counter()
                per_file(folder)
                runs["per-file read_csv"].append(time.perf_counter() - start)
        for name, times in runs.items():
            if times:
                print(f"{name}: median {statistics.median(times):.2f} s of {len(times)} "
                      f"({args.files} files)")


if __name__ == "__main__":
    main()
