"""Event-based metrics: audeval against sort_index, audmetric and sed_eval.

Run (reference toolkits installed in the same environment,
e.g. ``pip install -e ".[benchmark]"``)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_events.py [--quick]

Data: DCASE-like files of 10 s ... 10 min with 10 classes;
each prediction is the truth jittered by 100 ms,
with 10 % of events dropped and 10 % inserted; rows in random order.
Timings are the median of repeated runs in this one process.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import audeval  # noqa: E402


OPTIONS = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5)


def make_data(n_events: int, n_files: int, *, n_labels: int = 10, seed: int = 0):
    """Truth and a jittered prediction with the same statistics."""
    rng = np.random.default_rng(seed)
    files = np.char.add("file", rng.integers(0, n_files, n_events).astype(str))
    start = rng.uniform(0, 600, n_events).round(3)
    end = start + rng.exponential(2.0, n_events).round(3) + 0.05
    labels = np.char.add("class", rng.integers(0, n_labels, n_events).astype(str))
    truth = pd.Series(
        labels,
        index=pd.MultiIndex.from_arrays(
            [files, pd.to_timedelta(start, unit="s"), pd.to_timedelta(end, unit="s")],
            names=["file", "start", "end"],
        ),
    )
    keep = rng.uniform(size=n_events) > 0.1
    p_start = np.maximum(start + rng.normal(0, 0.1, n_events), 0)
    p_end = np.maximum(end + rng.normal(0, 0.1, n_events), p_start + 0.01)
    p_start, p_end = p_start[keep], p_end[keep]
    p_files, p_labels = files[keep], labels[keep]
    n_extra = n_events // 10
    extra_start = rng.uniform(0, 600, n_extra)
    prediction = pd.Series(
        np.concatenate([p_labels, np.char.add("class", rng.integers(0, n_labels, n_extra).astype(str))]),
        index=pd.MultiIndex.from_arrays(
            [
                np.concatenate([p_files, np.char.add("file", rng.integers(0, n_files, n_extra).astype(str))]),
                pd.to_timedelta(np.concatenate([p_start, extra_start]), unit="s"),
                pd.to_timedelta(np.concatenate([p_end, extra_start + 1.0]), unit="s"),
            ],
            names=["file", "start", "end"],
        ),
    )
    return truth, prediction


def timed(function, repeat: int) -> tuple[float, object]:
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def run_sed_eval(truth: pd.Series, prediction: pd.Series, matching: str):
    import sed_eval

    labels = sorted(set(truth) | set(prediction))
    metrics = sed_eval.sound_event.EventBasedMetrics(
        event_label_list=labels,
        t_collar=0.2,
        percentage_of_length=0.5,
        event_matching_type=matching,
    )

    def to_list(series, file):
        part = series[series.index.get_level_values("file") == file].sort_index()
        return [
            {
                "event_onset": s.total_seconds(),
                "event_offset": e.total_seconds(),
                "event_label": label,
                "filename": file,
            }
            for (_, s, e), label in part.items()
        ]

    files = sorted(set(truth.index.get_level_values("file")) | set(prediction.index.get_level_values("file")))
    for file in files:
        metrics.evaluate(to_list(truth, file), to_list(prediction, file))
    return metrics.results_overall_metrics()["f_measure"]["f_measure"]


def run_audmetric(truth: pd.Series, prediction: pd.Series):
    import audmetric

    return audmetric.event_fscore_per_class(truth, prediction, **OPTIONS)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    args = parser.parse_args()
    sizes = [1_000, 10_000, 100_000, 1_000_000]
    if args.quick:
        sizes = [1_000, 10_000]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}, pandas {pd.__version__}, numpy {np.__version__}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")
    print()
    print("| events per side | files | sort_index (s) | audeval optimal (s) | audeval greedy (s) | ratio to sort_index | audmetric (s) | sed_eval (s) | speed-up vs audmetric | speed-up vs sed_eval |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        n_files = max(n // 10, 1)
        truth, prediction = make_data(n, n_files)
        # rows in random order (sort_index below is timed on the same shuffled input)
        rng = np.random.default_rng(1)
        truth = truth.iloc[rng.permutation(len(truth))]
        prediction = prediction.iloc[rng.permutation(len(prediction))]
        repeat = 5 if n <= 100_000 else 3
        t_sort, _ = timed(lambda: truth.sort_index(), repeat)
        t_opt, f_opt = timed(lambda: audeval.event_fscore(truth, prediction, **OPTIONS), repeat)
        t_greedy, per_class = timed(
            lambda: audeval.event_fscore_per_class(truth, prediction, matching="greedy", **OPTIONS), repeat
        )
        t_audmetric = t_sed = float("nan")
        if n <= 10_000:
            try:
                t_audmetric, reference = timed(lambda: run_audmetric(truth, prediction), 1)
                np.testing.assert_allclose(list(reference.values()), list(per_class.values()), atol=1e-12)
            except ImportError:
                pass
            try:
                t_sed, f_sed = timed(lambda: run_sed_eval(truth, prediction, "optimal"), 1)
                assert abs(f_sed - f_opt) < 1e-12, (f_sed, f_opt)
            except ImportError:
                pass
        print(
            f"| {n:,} | {n_files:,} | {t_sort:.3f} | {t_opt:.3f} | {t_greedy:.3f} | {t_opt / t_sort:.2f} | "
            f"{t_audmetric:.1f} | {t_sed:.1f} | {t_audmetric / t_opt:.0f}x | {t_sed / t_opt:.0f}x |"
        )


if __name__ == "__main__":
    main()
