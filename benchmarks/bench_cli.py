"""The command line against the API on the same files, in one process.

Run::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_cli.py [--files 100000] [--events-per-file 3]

Data: DCASE-like clips of 10 s (:func:`_data.dcase`) written as DCASE tsv files
(``filename``, ``onset``, ``offset``, ``event_label``) with a durations file.
For ``events`` and ``segments`` it times

* ``cli``: ``audeval.main([...])`` on the files (reading, checking, scoring, rendering),
* ``api``: the same work through the API: :func:`audeval.read_annotations` of both files,
  :func:`audeval.read_files_duration` and the family's report
  (:func:`audeval.event_report`, :func:`audeval.segment_report`),
* ``api (in memory)``: the report alone,

and prints the times and the ratio cli / api (the target of issue 20: at most 1.5).
The output of the command line is written to a file and not timed separately.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import audeval  # noqa: E402
from audeval._cli import main  # noqa: E402
from _data import dcase  # noqa: E402


def write_tsv(series: pd.Series, path: str) -> None:
    """A DCASE detection table (seconds with 3 decimals)."""
    index = series.index
    pd.DataFrame({
        "filename": index.get_level_values("file"),
        "onset": index.get_level_values("start").total_seconds().round(3),
        "offset": index.get_level_values("end").total_seconds().round(3),
        "event_label": series.astype(str).to_numpy(),
    }).to_csv(path, sep="\t", index=False)


def write_data(folder: str, n_files: int, events_per_file: float) -> dict[str, str]:
    truth, prediction, durations = dcase(int(n_files * events_per_file), events_per_file=events_per_file)
    paths = {name: os.path.join(folder, f"{name}.tsv") for name in ("truth", "prediction", "durations")}
    write_tsv(truth, paths["truth"])
    write_tsv(prediction, paths["prediction"])
    pd.DataFrame({"filename": durations.index, "duration": durations.dt.total_seconds()}).to_csv(
        paths["durations"], sep="\t", index=False
    )
    return paths


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def run_cli(argv: list[str]) -> None:
    with contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    if code != 0:
        raise RuntimeError(f"audeval {' '.join(argv)} exited with {code}")


def api(report, paths: dict[str, str], **options):
    def run():
        with contextlib.redirect_stderr(io.StringIO()):
            truth = audeval.read_annotations(paths["truth"])
            prediction = audeval.read_annotations(paths["prediction"])
            durations = audeval.read_files_duration(paths["durations"])
            return report(truth, prediction, files_duration=durations, **options)
    return run


def bench(paths: dict[str, str], folder: str, repeat: int) -> list[tuple]:
    truth = audeval.read_annotations(paths["truth"])
    prediction = audeval.read_annotations(paths["prediction"])
    durations = audeval.read_files_duration(paths["durations"])
    rows = []
    for command, report, options in (
        ("events", audeval.event_report, {}),
        ("segments", audeval.segment_report, {}),
    ):
        out = os.path.join(folder, f"{command}.txt")
        argv = [command, paths["truth"], paths["prediction"], "--files-duration",
                paths["durations"], "--no-progress", "-o", out]
        times = {"cli": [], "api": [], "api (in memory)": []}
        for _ in range(repeat):
            times["cli"].append(timed(lambda: run_cli(argv))[0])
            times["api"].append(timed(api(report, paths, **options))[0])
            times["api (in memory)"].append(
                timed(lambda: report(truth, prediction, files_duration=durations, **options))[0]
            )
        best = {k: min(v) for k, v in times.items()}
        rows.append((command, best["cli"], best["api"], best["api (in memory)"]))
    return rows


def main_(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[100_000])
    parser.add_argument("--events-per-file", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement (the minimum is shown)")
    args = parser.parse_args(argv)
    print(f"{'files':>7} {'events':>8} {'command':>9} {'cli (s)':>8} {'api (s)':>8} "
          f"{'in memory (s)':>13} {'cli / api':>9}")
    for n_files in args.files:
        with tempfile.TemporaryDirectory() as folder:
            paths = write_data(folder, n_files, args.events_per_file)
            n_events = int(n_files * args.events_per_file)
            for command, cli, api_, memory in bench(paths, folder, args.repeat):
                print(f"{n_files:>7} {n_events:>8} {command:>9} {cli:>8.2f} {api_:>8.2f} "
                      f"{memory:>13.2f} {cli / api_:>9.2f}", flush=True)


if __name__ == "__main__":
    main_()
