"""dask_statistics against the direct call: where partitions pay off (issue 32, item 3).

Run (needs the ``dask`` extra: ``pip install "dask[dataframe]" distributed``)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/dask_scaling.py [--sizes 10000 100000 1000000] [--repeat 5]

Data: DCASE-like clips of 10 s with 10 classes (``benchmarks/_data.py``, categorical labels),
``--events-per-partition`` truth events per partition (at least 2 partitions), written untimed
as two parquet datasets (truth, prediction) of one file per partition, cut at the same files
(``part.000.parquet``, ...: columns ``file``, ``start``, ``end`` as durations, ``label``),
as an evaluation that outgrows one process keeps its annotations.

Timed, in interleaved rounds (medians of ``--repeat``), all giving the same table:

* ``direct``: :func:`audeval.event_statistics` on the pandas Series held in this process;
* ``direct + read``: the same after reading both datasets with ``pandas.read_parquet``
  and building the segmented index (what a user writes in one process);
* ``sync``: :func:`audeval.dask_statistics` with dask's synchronous scheduler (one process)
  on the dask DataFrames held in this process (``persist``: the target compares the statistics;
  the persisted partitions are read from their data's keys, so ``from_pandas(...).repartition(...)``
  adds no task a user reading the data would not have), consecutive small partitions in one call;
* ``workers``: :func:`audeval.dask_statistics` on a ``dask.distributed`` LocalCluster
  of ``--workers`` processes with one thread each, on ``dd.read_parquet`` of the datasets:
  the workers read their partitions and only the partitions' counts travel back
  (the partitions are paired by position: both datasets are cut at the same files),
  started without distributed's ``MALLOC_TRIM_THRESHOLD_=65536``
  (``--malloc-trim`` keeps it: it makes the workers' array work 2.5x slower,
  as every large temporary array is mapped and faulted in anew);
* ``workers, in memory``: the same cluster on the same datasets persisted in the workers' memory
  before timing (``client.persist``: the partitions are where the workers read them,
  the equivalent of the direct call's data already in memory).

``direct`` and ``sync`` report CPU time (``time.process_time``) and wall time;
their ratio (the target: sync <= 1.3x direct) comes from rounds of those two calls alone
(in the rounds of all five the direct call follows the cluster's calls,
and the client's thread finishing them adds to its CPU time: up to a third at 10,000 events);
the workers report wall time (their work is in other processes), and so do their ratios:
against the wall time of ``direct + read`` (the same work from the same files)
and of ``direct`` (the data already in memory).

The cost model (printed after the table) comes from the same runs:
the direct call's cost per event ``c`` and pandas' reading cost per event ``r``
(``direct + read`` less ``direct``, CPU time of all of pyarrow's reading threads);
the partition work per event ``w`` (the sync run less its concatenation, per event);
the cost per partition ``q`` (sync at many small partitions against few, same events,
each pair of partitions evaluated alone as on a worker);
the client's cost per event ``d`` (concatenating the partitions' counts);
the cluster's fixed cost per call ``t0`` (the workers' run less their work at the smallest size).
With ``W`` workers and ``p`` partitions: ``T(n) = t0 + p q / W + n ((w + r) / W + d)``,
which overtakes ``direct + read`` (``n (c + r)``) from ``n* = (t0 + p q / W) / (c + r - (w + r) / W - d)`` on.
``w`` is also measured with all workers busy at once (the same partition's work, thread CPU time,
in the workers against this process alone): on a machine whose cores are shared
that factor is what keeps the local workers from overtaking.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import os
import pathlib
import platform
import statistics
import sys
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import _data  # noqa: E402

import audeval  # noqa: E402
from audeval._generic.rows import concatenate_rows, rows_of  # noqa: E402


OPTIONS = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5)


def flat(series: pd.Series) -> pd.DataFrame:
    """file (index), start, end, label: the layout of a parquet dataset of events."""
    return series.rename("label").reset_index().set_index("file")


def divisions(truth: pd.Series, prediction: pd.Series, n_partitions: int) -> tuple:
    files = np.unique(
        np.concatenate(
            [
                np.asarray(truth.index.get_level_values("file"), dtype=object),
                np.asarray(prediction.index.get_level_values("file"), dtype=object),
            ]
        )
    )
    cuts = np.linspace(0, len(files) - 1, n_partitions + 1).round().astype(int)
    return tuple(files[np.unique(cuts)])


def collections(truth, prediction, n_partitions: int):
    import dask.dataframe as dd

    cuts = divisions(truth, prediction, n_partitions)
    out = []
    for series in (truth, prediction):
        frame = flat(series)
        out.append(dd.from_pandas(frame, npartitions=1, sort=True).repartition(divisions=cuts))
    return out


def write_datasets(truth, prediction, n_partitions: int, root: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """Both sides as parquet datasets of one file per partition, cut at the same files."""
    cuts = divisions(truth, prediction, n_partitions)
    paths = []
    for name, series in (("truth", truth), ("prediction", prediction)):
        frame = series.rename("label").reset_index()
        where = np.searchsorted(np.asarray(cuts[1:-1], dtype=object), frame["file"].to_numpy(dtype=object), side="right")
        folder = root / name
        folder.mkdir(parents=True)
        for k in range(len(cuts) - 1):
            frame[where == k].to_parquet(folder / f"part.{k:03d}.parquet", index=False)
        paths.append(folder)
    return paths[0], paths[1]


def read_direct(folder: pathlib.Path) -> pd.Series:
    """A dataset read with pandas into a Series on a segmented index (the one-process way)."""
    frame = pd.read_parquet(folder)
    index = pd.MultiIndex.from_arrays(
        [frame["file"], frame["start"], frame["end"]], names=["file", "start", "end"]
    )
    return pd.Series(frame["label"].array, index=index, name="label")


def read_dask(folder: pathlib.Path):
    import dask.dataframe as dd

    return dd.read_parquet(str(folder))


def clock(function) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def interleaved(functions: dict, repeat: int) -> tuple[dict, dict, dict]:
    """Median wall and CPU seconds per function (after one warm-up each), and each result."""
    results = {name: function() for name, function in functions.items()}
    walls: dict = {name: [] for name in functions}
    cpus: dict = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            wall, cpu, _ = clock(function)
            walls[name].append(wall)
            cpus[name].append(cpu)
    median = statistics.median
    return {k: median(v) for k, v in walls.items()}, {k: median(v) for k, v in cpus.items()}, results


def _warm_up():
    import audeval  # noqa: F401

    return True


def _speed(n_events: int = 125_000) -> float:
    """Thread CPU seconds of event_statistics on ``n_events`` (the work of one partition)."""
    truth, prediction, _ = _data.dcase(n_events, seed=1)
    audeval.event_statistics(truth, prediction, **OPTIONS)
    times = []
    for _ in range(3):
        start = time.thread_time()
        audeval.event_statistics(truth, prediction, **OPTIONS)
        times.append(time.thread_time() - start)
    return statistics.median(times)


def per_partition_cost(truth, prediction, repeat: int) -> float:
    """CPU seconds per partition of the synchronous path (many small partitions against 2)."""
    import dask

    try:
        from audeval._generic import dask_groups
    except ImportError:  # (a checkout before groups: each pair alone anyway)
        import types

        dask_groups = types.SimpleNamespace(GROUP_ROWS=0)
    few, many = 2, 64
    calls = {}
    grouped, dask_groups.GROUP_ROWS = dask_groups.GROUP_ROWS, 0  # (each pair alone, as on a worker)
    for p in (few, many):
        t, d = (c.persist(scheduler="sync") for c in collections(truth, prediction, p))
        calls[p] = lambda t=t, d=d: _sync(t, d, dask)
    try:
        _, cpu, _ = interleaved(calls, repeat)
    finally:
        dask_groups.GROUP_ROWS = grouped
    return max(cpu[many] - cpu[few], 0.0) / (many - few)


def _sync(t, p, dask):
    with dask.config.set(scheduler="sync"):
        return audeval.dask_statistics(audeval.event_statistics, t, p, **OPTIONS)


def concatenation_cost(truth, prediction, n_partitions: int, repeat: int) -> float:
    """CPU seconds of the client's concatenation of the partitions' counts."""
    cuts = divisions(truth, prediction, n_partitions)
    files_t = truth.index.get_level_values("file")
    files_p = prediction.index.get_level_values("file")
    parts = []
    for k in range(len(cuts) - 1):
        last = k == len(cuts) - 2
        low, high = cuts[k], cuts[k + 1]

        def within(files):
            return (files >= low) & ((files <= high) if last else (files < high))

        table = audeval.event_statistics(truth[within(files_t)], prediction[within(files_p)], **OPTIONS)
        parts.append(rows_of(table))
    times = []
    for _ in range(repeat):
        _, cpu, _ = clock(lambda: concatenate_rows(parts))
        times.append(cpu)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--events-per-partition", type=int, default=125_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--matching", choices=["greedy", "optimal"], default="optimal")
    parser.add_argument(
        "--malloc-trim", action="store_true",
        help="keep distributed's MALLOC_TRIM_THRESHOLD_=65536 in the workers (its default)",
    )
    args = parser.parse_args()
    OPTIONS["matching"] = args.matching

    import dask
    import distributed

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}, pandas {pd.__version__}, dask {dask.__version__}, "
        f"distributed {distributed.__version__}; load average {os.getloadavg()[0]:.2f} at start"
    )
    print(f"event_statistics options: {OPTIONS}")
    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
    if not args.malloc_trim:
        # distributed sets MALLOC_TRIM_THRESHOLD_=65536 in its workers, which also fixes glibc's
        # mmap threshold: every large temporary array is mapped and faulted in anew
        # (2.5x the CPU time of the same work in this process, measured here)
        environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    print(f"worker environment: {environ}")
    root = pathlib.Path(tempfile.mkdtemp(prefix="dask_scaling_"))
    with warnings.catch_warnings(), dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            env={"OPENBLAS_NUM_THREADS": "1"},
        )
        client = distributed.Client(cluster)
    rows = []
    model = {}
    try:
        client.run(_warm_up)  # imports in the workers are not timed
        for n in args.sizes:
            truth, prediction, _ = _data.dcase(n, seed=0)
            n_partitions = max(2, round(n / args.events_per_partition))
            truth_path, prediction_path = write_datasets(truth, prediction, n_partitions, root / str(n))
            local = [c.persist(scheduler="sync") for c in collections(truth, prediction, n_partitions)]
            in_workers = client.persist([read_dask(truth_path), read_dask(prediction_path)])
            distributed.wait(in_workers)

            def direct_read():
                return audeval.event_statistics(
                    read_direct(truth_path), read_direct(prediction_path), **OPTIONS
                )

            def on_cluster():
                with dask.config.set(scheduler=client.get):
                    return audeval.dask_statistics(
                        audeval.event_statistics, read_dask(truth_path), read_dask(prediction_path),
                        **OPTIONS,
                    )

            def in_memory():
                with dask.config.set(scheduler=client.get):
                    return audeval.dask_statistics(audeval.event_statistics, *in_workers, **OPTIONS)

            calls = {
                "direct": lambda: audeval.event_statistics(truth, prediction, **OPTIONS),
                "direct + read": direct_read,
                "sync": lambda: _sync(*local, dask),
                "workers": on_cluster,
                "workers, in memory": in_memory,
            }
            load = os.getloadavg()[0]
            # sync against direct in rounds of their own: in the rounds of all calls the direct call
            # follows the cluster's calls, whose tail (the client's thread) lands in its CPU time
            _, alone, _ = interleaved({name: calls[name] for name in ("direct", "sync")}, args.repeat)
            wall, cpu, results = interleaved(calls, args.repeat)
            load = max(load, os.getloadavg()[0])
            for name in ("sync", "workers", "workers, in memory"):
                pd.testing.assert_frame_equal(results[name], results["direct"])
            pd.testing.assert_frame_equal(
                results["direct + read"], results["direct"], check_index_type=False
            )
            concatenation = concatenation_cost(truth, prediction, n_partitions, args.repeat)
            del in_workers
            rows.append((n, n_partitions, wall, cpu, load, alone))
            model[n] = dict(wall=wall, cpu=cpu, partitions=n_partitions, concatenation=concatenation)
        partition = per_partition_cost(*_data.dcase(min(args.sizes), seed=0)[:2], args.repeat)
        # the same work alone in this process, and in all workers at once (cores shared with the load)
        alone = _speed()
        together = statistics.mean(client.run(_speed).values())
        factor = together / alone
    finally:
        client.close()
        cluster.close()
        shutil.rmtree(root, ignore_errors=True)

    W = args.workers
    print()
    print(
        "| truth events | partitions | direct CPU (wall) | direct + read CPU (wall) "
        "| sync CPU (direct CPU), rounds of their own | sync / direct (CPU) "
        f"| {W} workers reading, wall | / direct + read (wall) | / direct (wall) | identical | load |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for n, p, wall, cpu, load, alone in rows:
        print(
            f"| {n:,} | {p} | {cpu['direct']:.4f} s ({wall['direct']:.4f}) "
            f"| {cpu['direct + read']:.4f} s ({wall['direct + read']:.4f}) "
            f"| {alone['sync']:.4f} s ({alone['direct']:.4f}) | {alone['sync'] / alone['direct']:.2f}x "
            f"| {wall['workers']:.4f} s | {wall['workers'] / wall['direct + read']:.2f}x "
            f"| {wall['workers'] / wall['direct']:.2f}x | yes | {load:.1f} |"
        )
    print()
    print(
        f"Data in the workers' memory (persisted before timing) against the direct call on data in memory, "
        f"{W} workers:"
    )
    print("| truth events | partitions | direct wall (CPU) | workers, in memory, wall | / direct wall | / direct CPU | load |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n, p, wall, cpu, load, _ in rows:
        print(
            f"| {n:,} | {p} | {wall['direct']:.4f} s ({cpu['direct']:.4f}) | {wall['workers, in memory']:.4f} s "
            f"| {wall['workers, in memory'] / wall['direct']:.2f}x | {wall['workers, in memory'] / cpu['direct']:.2f}x "
            f"| {load:.1f} |"
        )

    # cost model (per event from the largest size, fixed costs from the smallest)
    largest, smallest = max(model), min(model)
    big, small = model[largest], model[smallest]
    c = big["cpu"]["direct"] / largest
    r = max(big["cpu"]["direct + read"] - big["cpu"]["direct"], 0.0) / largest  # (CPU: all of pyarrow's threads)
    d = big["concatenation"] / largest
    w = max(big["cpu"]["sync"] - big["concatenation"] - partition * big["partitions"], 0.0) / largest
    work_small = small["partitions"] * partition / W + smallest * ((w + r) / W + d)
    t0 = max(small["wall"]["workers"] - work_small, 0.0)
    work_small_memory = small["partitions"] * partition / W + smallest * (w / W + d)
    t0_memory = max(small["wall"]["workers, in memory"] - work_small_memory, 0.0)
    print()
    print("Cost model (seconds; workers T(n) = t0 + p q / W + n ((w + r) / W + d), direct + read n (c + r)):")
    print(
        f"  c = {c * 1e9:.0f} ns per event (direct), r = {r * 1e9:.0f} ns per event (reading), "
        f"w = {w * 1e9:.0f} ns per event (partition work), d = {d * 1e9:.0f} ns per event (client concatenation), "
        f"q = {partition * 1e3:.2f} ms per partition, "
        f"t0 = {t0 * 1e3:.1f} ms per call (cluster round trip, measured with {W} workers), "
        f"{t0_memory * 1e3:.1f} ms with the data in the workers' memory"
    )
    print(
        f"  the same partition's work takes {factor:.2f}x its CPU time in one process "
        f"when the {W} workers run it at once on this machine (cores shared with the load)"
    )
    predicted = t0 + big["partitions"] * partition / W + largest * ((w + r) * factor / W + d)
    print(
        f"  check: the model gives {predicted:.2f} s for {largest:,} events with {W} workers here, "
        f"measured {big['wall']['workers']:.2f} s (wall)"
    )
    load = max(row[4] for row in rows)
    slowdown = max(1.0, load / (os.cpu_count() or 1))
    print(
        f"  at the load average {load:.1f} on {os.cpu_count()} cores each process gets about 1/{slowdown:.1f} of a core: "
        f"the model gives {t0 + (predicted - t0) * slowdown:.2f} s "
        f"(and {largest * (c + r) * slowdown:.2f} s for direct + read, measured {big['wall']['direct + read']:.2f} s)"
    )
    print(
        "| workers W | partitions p | n* vs direct + read, idle cores "
        f"| n* vs direct + read, this machine's {factor:.2f}x | n* vs direct (in memory), idle cores "
        "| n* vs direct (in memory), data in the workers' memory, idle cores |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for n_workers in (2, 4, 8, 16, 64):
        p = max(n_workers, 8)
        cells = []
        for f, reading, fixed in ((1.0, r, t0), (factor, r, t0), (1.0, None, t0), (1.0, 0.0, t0_memory)):
            if reading is None:  # the workers read, the direct call holds the data
                gain = c - (w + r) / n_workers - d
            elif not reading:  # both hold the data
                gain = c - w / n_workers - d
            else:
                gain = c + reading - (w + reading) * f / n_workers - d
            if gain <= 0:
                cells.append("never")
            else:
                cells.append(f"{(fixed + p * partition / n_workers) / gain:,.0f} events")
        print(f"| {n_workers} | {p} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
