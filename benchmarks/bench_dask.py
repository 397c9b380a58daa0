"""Event statistics through dask (2 workers) against pandas in one process.

Run (needs the ``dask`` extra: ``pip install "dask[dataframe]" distributed``)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_dask.py [--events 1000000] [--workers 2]

Data: DCASE-like clips of 10 s with 10 classes (``benchmarks/_data.py``),
1M truth events and about 1M predicted events over 100k files,
written once (untimed) as two parquet datasets partitioned by file.

Timed, end to end from parquet to the macro F-score:

* pandas: ``pd.read_parquet`` of both datasets, Series on a segmented index,
  :func:`audeval.event_statistics` and :func:`audeval.event_fscore` in this process;
* dask: ``dd.read_parquet(..., index="file", calculate_divisions=True)``,
  :func:`audeval.dask_statistics` on a ``dask.distributed`` LocalCluster
  of ``--workers`` worker processes with one thread each,
  and :func:`audeval.event_fscore` of the summed table.

Also timed: the statistics alone from in-memory pandas Series.
The dask table is checked to be identical to the pandas table.
Timings are the median of ``--repeat`` runs (cluster start-up not included).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import statistics
import sys
import tempfile
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pandas as pd  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))

import _data  # noqa: E402

import audeval  # noqa: E402


OPTIONS = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5)


def timed(function, repeat: int):
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def flat(series: pd.Series) -> pd.DataFrame:
    """file, start, end, label columns (the parquet layout)."""
    frame = series.rename("label").reset_index()
    frame["label"] = frame["label"].astype(str)
    return frame


def from_flat(frame: pd.DataFrame) -> pd.Series:
    index = pd.MultiIndex.from_frame(frame[["file", "start", "end"]])
    return pd.Series(frame["label"].to_numpy(), index=index, name="label")


def _warm_up():
    import audeval  # noqa: F401

    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--matching", choices=["greedy", "optimal"], default="greedy")
    args = parser.parse_args()
    OPTIONS["matching"] = args.matching

    import dask.dataframe as dd
    import distributed

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}, pandas {pd.__version__}, "
        f"dask {distributed.__version__}"
    )
    print(f"event_statistics options: {OPTIONS}")
    truth, prediction, _ = _data.dcase(args.events, seed=0)
    n_files = len(set(truth.index.get_level_values("file")) | set(prediction.index.get_level_values("file")))
    print(f"{len(truth)} truth events, {len(prediction)} predicted events, {n_files} files")

    with tempfile.TemporaryDirectory() as root:
        root = pathlib.Path(root)
        for name, series in (("truth", truth), ("prediction", prediction)):
            frame = flat(series).set_index("file")
            dd.from_pandas(frame, npartitions=args.partitions).to_parquet(root / name)

        def with_pandas():
            t = from_flat(pd.read_parquet(root / "truth").reset_index())
            p = from_flat(pd.read_parquet(root / "prediction").reset_index())
            stats = audeval.event_statistics(t, p, **OPTIONS)
            return stats, audeval.event_fscore(stats, None, average="macro")

        def in_memory():
            return audeval.event_statistics(truth, prediction, **OPTIONS)

        def with_dask():
            t = dd.read_parquet(root / "truth", index="file", calculate_divisions=True)
            p = dd.read_parquet(root / "prediction", index="file", calculate_divisions=True)
            stats = audeval.dask_statistics(audeval.event_statistics, t, p, **OPTIONS)
            return stats, audeval.event_fscore(stats, None, average="macro")

        t_memory, _ = timed(in_memory, args.repeat)
        t_pandas, (stats_pandas, f_pandas) = timed(with_pandas, args.repeat)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cluster = distributed.LocalCluster(
                n_workers=args.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                env={"OPENBLAS_NUM_THREADS": "1"},
            )
            client = distributed.Client(cluster)
            try:
                client.run(_warm_up)  # imports in the workers are not timed
                t_dask, (stats_dask, f_dask) = timed(with_dask, args.repeat)
            finally:
                client.close()
                cluster.close()

    same = stats_dask.equals(stats_pandas)
    pd.testing.assert_frame_equal(stats_dask, stats_pandas)
    print()
    print(
        "| events per side | files | partitions | statistics in memory, pandas (s) "
        "| parquet -> macro F, pandas 1 process (s) "
        f"| parquet -> macro F, dask {args.workers} workers (s) | dask / pandas | identical table |"
    )
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| {len(truth):,} | {n_files:,} | {args.partitions} | {t_memory:.2f} | {t_pandas:.2f} "
        f"| {t_dask:.2f} | {t_dask / t_pandas:.2f} | {same} (F = {f_dask:.6f} / {f_pandas:.6f}) |"
    )


if __name__ == "__main__":
    main()
