"""dask_statistics against the direct call: where partitions pay off (issue 32, item 3).

Run (needs the ``dask`` extra: ``pip install "dask[dataframe]" distributed``)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/dask_scaling.py [--sizes 10000 100000 1000000] [--repeat 5]

Data: DCASE-like clips of 10 s with 10 classes (``benchmarks/_data.py``, categorical labels),
truth and prediction as dask DataFrames indexed by ``file`` with the same file divisions
(as two parquet datasets written by file would be), ``--events-per-partition`` truth events
per partition (at least 2 partitions). Built untimed and kept in memory:
in this process for the synchronous scheduler,
persisted on the workers for the cluster (the data live where they are evaluated).

Timed, in interleaved rounds (medians of ``--repeat``), all giving the same table:

* ``direct``: :func:`audeval.event_statistics` on the pandas Series in this process;
* ``sync``: :func:`audeval.dask_statistics` with dask's synchronous scheduler (one process);
* ``2 workers``: :func:`audeval.dask_statistics` on a ``dask.distributed`` LocalCluster
  of ``--workers`` processes with one thread each,
  started without distributed's ``MALLOC_TRIM_THRESHOLD_=65536``
  (``--malloc-trim`` keeps it: it makes the workers' array work 2.5x slower,
  as every large temporary array is mapped and faulted in anew).

``direct`` and ``sync`` report CPU time (``time.process_time``) and wall time;
the cluster reports wall time (its work is in other processes), and so does its ratio:
wall time against the direct call's wall time.

The cost model (printed after the table) comes from the same runs:
the direct call's cost per event ``c``; the partition work per event on a worker ``w``
(the sync run less the concatenation, per event);
the cost per partition ``q`` (sync at many small partitions against few, same events);
the client's cost per event ``d`` (concatenating the partitions' counts, and receiving them);
the cluster's fixed cost per call ``t0`` (the cluster run less its work at the smallest size).
With ``W`` workers and ``p`` partitions: ``T(n) = t0 + p q / W + n (w / W + d)``,
which overtakes the direct call ``n c`` from ``n* = (t0 + p q / W) / (c - w / W - d)`` on.
``w`` is also measured with all workers busy at once (the same partition's work, thread CPU time,
in the workers against this process alone): on a machine whose cores are shared
that factor is what keeps the local workers from overtaking.
"""

from __future__ import annotations

import argparse
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

    few, many = 2, 64
    calls = {}
    for p in (few, many):
        t, d = (c.persist(scheduler="sync") for c in collections(truth, prediction, p))
        calls[p] = lambda t=t, d=d: _sync(t, d, dask)
    _, cpu, _ = interleaved(calls, repeat)
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
    with warnings.catch_warnings(), dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
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
            local = [c.persist(scheduler="sync") for c in collections(truth, prediction, n_partitions)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the data are sent to the workers once, untimed)
                remote = client.persist(collections(truth, prediction, n_partitions))
            distributed.wait(distributed.futures_of(remote))

            def on_cluster(remote=remote):
                with dask.config.set(scheduler=client.get):
                    return audeval.dask_statistics(audeval.event_statistics, *remote, **OPTIONS)

            calls = {
                "direct": lambda: audeval.event_statistics(truth, prediction, **OPTIONS),
                "sync": lambda: _sync(*local, dask),
                "workers": on_cluster,
            }
            load = os.getloadavg()[0]
            wall, cpu, results = interleaved(calls, args.repeat)
            load = max(load, os.getloadavg()[0])
            for name in ("sync", "workers"):
                pd.testing.assert_frame_equal(results[name], results["direct"])
            concatenation = concatenation_cost(truth, prediction, n_partitions, args.repeat)
            rows.append((n, n_partitions, wall, cpu, load, concatenation))
            model[n] = dict(wall=wall, cpu=cpu, partitions=n_partitions, concatenation=concatenation)
            del remote
        partition = per_partition_cost(*_data.dcase(min(args.sizes), seed=0)[:2], args.repeat)
        # the same work alone in this process, and in all workers at once (cores shared with the load)
        alone = _speed()
        together = statistics.mean(client.run(_speed).values())
        factor = together / alone
    finally:
        client.close()
        cluster.close()

    print()
    print(
        "| truth events | partitions | direct CPU (wall) | sync CPU (wall) | sync / direct (CPU) "
        f"| {args.workers} workers wall | {args.workers} workers / direct (wall) | identical | load |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for n, p, wall, cpu, load, _ in rows:
        print(
            f"| {n:,} | {p} | {cpu['direct']:.4f} s ({wall['direct']:.4f}) "
            f"| {cpu['sync']:.4f} s ({wall['sync']:.4f}) | {cpu['sync'] / cpu['direct']:.2f}x "
            f"| {wall['workers']:.4f} s | {wall['workers'] / wall['direct']:.2f}x | yes | {load:.1f} |"
        )

    # cost model (CPU per event from the largest size, fixed costs from the smallest)
    largest, smallest = max(model), min(model)
    big, small = model[largest], model[smallest]
    c = big["cpu"]["direct"] / largest
    d = big["concatenation"] / largest
    w = max(big["cpu"]["sync"] - big["concatenation"] - partition * big["partitions"], 0.0) / largest
    workers = args.workers
    work_small = small["partitions"] * partition / workers + smallest * (w / workers + d)
    t0 = max(small["wall"]["workers"] - work_small, 0.0)
    print()
    print("Cost model (CPU seconds; T(n) = t0 + p q / W + n (w / W + d), direct n c):")
    print(
        f"  c = {c * 1e9:.0f} ns per event (direct), w = {w * 1e9:.0f} ns per event (partition work), "
        f"d = {d * 1e9:.0f} ns per event (client concatenation), q = {partition * 1e3:.2f} ms per partition, "
        f"t0 = {t0 * 1e3:.1f} ms per call (cluster round trip, measured with {workers} workers)"
    )
    print(
        f"  the same partition's work takes {factor:.2f}x its CPU time in one process "
        f"when the {workers} workers run it at once on this machine (cores shared with the load): "
        f"w = {w * factor * 1e9:.0f} ns per event here"
    )
    predicted = t0 + big["partitions"] * partition / workers + largest * (w * factor / workers + d)
    print(
        f"  check: the model gives {predicted:.2f} s for {largest:,} events with {workers} workers here, "
        f"measured {big['wall']['workers']:.2f} s (wall)"
    )
    print(
        "| workers W | partitions p | n* on idle cores (w as in one process) "
        f"| n* with this machine's {factor:.2f}x |"
    )
    print("|---:|---:|---:|---:|")
    for n_workers in (2, 4, 8, 16, 64):
        p = max(n_workers, 8)
        cells = []
        for f in (1.0, factor):
            gain = c - w * f / n_workers - d
            if gain <= 0:
                cells.append("never (workers + client >= direct per event)")
            else:
                cells.append(f"{(t0 + p * partition / n_workers) / gain:,.0f} events")
        print(f"| {n_workers} | {p} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
