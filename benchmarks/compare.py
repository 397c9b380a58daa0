"""``audeval.compare`` against a plain loop over resamples (issue 28).

Targets (issue 28, "Numbers it must reach"):

* ``event``: 10 systems x 1,168 files x 10,000 paired resamples of event F
  <= 10x the CPU time of computing the 10 systems' statistics once;
* ``psds``: PSDS1 of 10 systems x 1,000 resamples on DESED in seconds, not minutes;
* ``permutation``: the same 10 event-F systems, 10,000 random swaps per system against the baseline;
* ``null``: on simulated null data (two systems drawn from one distribution)
  the rejection rate at alpha 0.05 within the binomial band of 0.05,
  and the coverage of the 95 % interval of a known difference.

Data: the DESED validation set (``/work/shared/fixtures/desed``: truth, durations,
the baseline's 50 operating points); the systems are operating points:
event F of the thresholds 0.01, 0.11, ..., 0.91 (DCASE collars 0.2 s / 20 %),
PSDS1 of the 50 operating points thinned to every 1st, 2nd, ..., 10th threshold.

The plain loop is what users write today: per resample, draw files with replacement,
take the rows of the drawn files from each system's statistics table (computed once:
the loop is given the statistics for free) and call the metric on them;
it is timed on a few resamples and scaled to the full count (stated in the table).
CPU times are medians of interleaved runs (``benchmarks/_timing.py``).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/compare.py [event psds permutation null] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd
import scipy.stats

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout

import audeval  # noqa: E402
from _timing import interleaved_with_results  # noqa: E402

DESED = "/work/shared/fixtures/desed"
EVENT = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.2)
PSDS1 = dict(dtc_threshold=0.7, gtc_threshold=0.7, alpha_ct=0.0, alpha_st=1.0, max_efpr=100.0)


def desed():
    truth = audeval.read_annotations(os.path.join(DESED, "validation.tsv"))
    durations = audeval.read_files_duration(os.path.join(DESED, "validation_durations.tsv"))
    ops = audeval.read_operating_points(os.path.join(DESED, "ops"))
    return truth, durations, ops


def cpu(function):
    start = time.process_time()
    out = function()
    return time.process_time() - start, out


def plain_loop(metric, tables, files, n_resamples, seed=0, **options):
    """Per resample: the drawn files' rows of every system's table, then the metric."""
    rng = np.random.default_rng(seed)
    codes = {name: files.get_indexer(table.index.get_level_values("file")) for name, table in tables.items()}
    out = np.empty((n_resamples, len(tables)))
    for b in range(n_resamples):
        drawn = rng.integers(0, len(files), len(files))
        for k, (name, table) in enumerate(tables.items()):
            # rows of each drawn file, a file drawn twice twice
            order = np.argsort(codes[name], kind="stable")
            bounds = np.searchsorted(codes[name][order], np.arange(len(files) + 1))
            rows = np.concatenate([order[bounds[f] : bounds[f + 1]] for f in drawn])
            out[b, k] = metric(table.iloc[rows], None, **options)
    return out


def _ratio_row(name, n_systems, n_files, n_resamples, once, compared, loop, loop_resamples, target):
    print(
        f"| {name} | {n_systems} x {n_files} x {n_resamples:,} | {once:.3f} | {compared:.2f} "
        f"({compared / once:.1f}x) | {loop:.1f} ({loop / once:.0f}x; {loop_resamples} resamples "
        f"x {n_resamples // loop_resamples}) | {loop / compared:.0f}x | {target} |",
        flush=True,
    )


def event(runs: int) -> None:
    truth, durations, ops = desed()
    thresholds = sorted(ops)[::5]
    systems = {f"{t:g}": ops[t] for t in thresholds}
    options = dict(EVENT, files_duration=durations)
    n_resamples = 10_000

    def statistics():
        return {name: audeval.event_statistics(truth, p, **options) for name, p in systems.items()}

    def compared():
        return audeval.compare(audeval.event_fscore, truth, systems, n_resamples=n_resamples, **options)

    times, results = interleaved_with_results({"once": statistics, "compare": compared}, repeat=runs)
    result = results["compare"]
    for name, prediction in systems.items():
        assert result.loc[name, "value"] == audeval.event_fscore(truth, prediction, **options)
    tables = results["once"]
    files = pd.Index(sorted(set(durations.index)), dtype=object)
    loop_resamples = 20
    loop, _ = cpu(lambda: plain_loop(audeval.event_fscore, tables, files, loop_resamples))
    _ratio_row(
        "event F (bootstrap)", len(systems), len(files), n_resamples, times["once"], times["compare"],
        loop * n_resamples / loop_resamples, loop_resamples, "<= 10x",
    )


def psds(runs: int) -> None:
    truth, durations, ops = desed()
    thresholds = sorted(ops)
    systems = {f"every {k}": {t: ops[t] for t in thresholds[::k]} for k in range(1, 11)}
    options = dict(PSDS1, files_duration=durations)
    n_resamples = 1000

    def once():
        return {
            name: audeval.score_statistics(truth, p, dtc_threshold=0.7, gtc_threshold=0.7, files_duration=durations)
            for name, p in systems.items()
        }

    def direct():
        return [audeval.psds(truth, p, **options) for p in systems.values()]

    def compared():
        return audeval.compare(audeval.psds, truth, systems, n_resamples=n_resamples, **options)

    times, results = interleaved_with_results({"once": direct, "compare": compared}, repeat=runs)
    result = results["compare"]
    assert result["value"].tolist() == results["once"]
    tables = once()
    files = pd.Index(sorted(set(durations.index)), dtype=object)
    loop_resamples = 2
    metric_options = dict(alpha_ct=0.0, alpha_st=1.0, max_efpr=100.0)
    first = next(iter(tables))
    assert audeval.psds(tables[first], None, **metric_options) == result.loc[first, "value"]
    loop, _ = cpu(lambda: plain_loop(audeval.psds, tables, files, loop_resamples, **metric_options))
    _ratio_row(
        "PSDS1 (bootstrap)", len(systems), len(files), n_resamples, times["once"], times["compare"],
        loop * n_resamples / loop_resamples, loop_resamples, "seconds",
    )


def permutation(runs: int) -> None:
    truth, durations, ops = desed()
    systems = {f"{t:g}": ops[t] for t in sorted(ops)[::5]}
    options = dict(EVENT, files_duration=durations)
    n_resamples = 10_000

    def statistics():
        return {name: audeval.event_statistics(truth, p, **options) for name, p in systems.items()}

    def compared():
        return audeval.compare(
            audeval.event_fscore, truth, systems, n_resamples=n_resamples, method="permutation", **options
        )

    times, results = interleaved_with_results({"once": statistics, "compare": compared}, repeat=runs)
    print(
        f"| event F (permutation + bootstrap intervals) | {len(systems)} x 1168 x {n_resamples:,} "
        f"| {times['once']:.3f} | {times['compare']:.2f} ({times['compare'] / times['once']:.1f}x) | | | |",
        flush=True,
    )


def _simulated(truth, rng, recall):
    """A system that finds each truth event with probability ``recall`` (exactly), nothing else."""
    keep = rng.random(len(truth)) < recall
    return truth[keep]


def null(runs: int, n_simulations: int = 200) -> None:
    truth, durations, _ = desed()
    truth = truth[truth.notna()] if truth.isna().any() else truth
    rng = np.random.default_rng(0)
    band = scipy.stats.binom.ppf([0.005, 0.995], n_simulations, 0.05)
    print(f"null simulations: {n_simulations} x 2 systems (recall 0.6 each) on the DESED truth; "
          f"99 % binomial band of 0.05: [{band[0]:.0f}, {band[1]:.0f}] rejections")
    for method in ("bootstrap", "permutation"):
        rejected = 0
        start = time.process_time()
        for _ in range(n_simulations):
            systems = {"a": _simulated(truth, rng, 0.6), "b": _simulated(truth, rng, 0.6)}
            result = audeval.compare(audeval.event_fscore, truth, systems, method=method,
                                     n_resamples=999, seed=rng, **EVENT)
            rejected += result.loc["b", "p_value"] <= 0.05
        print(f"| {method} | {rejected} / {n_simulations} = {rejected / n_simulations:.3f} "
              f"| {'within' if band[0] <= rejected <= band[1] else 'OUTSIDE'} the band "
              f"| {time.process_time() - start:.0f} s CPU |", flush=True)
    # coverage of a known difference: F = 2r / (1 + r) for recall r without false alarms
    true = 2 * 0.65 / 1.65 - 2 * 0.6 / 1.6
    band = scipy.stats.binom.ppf([0.005, 0.995], n_simulations, 0.95)
    for interval in ("percentile", "bca"):
        covered = 0
        for _ in range(n_simulations):
            systems = {"a": _simulated(truth, rng, 0.6), "b": _simulated(truth, rng, 0.65)}
            result = audeval.compare(audeval.event_fscore, truth, systems, n_resamples=999,
                                     interval=interval, seed=rng, **EVENT)
            covered += result.loc["b", "difference_low"] <= true <= result.loc["b", "difference_high"]
        print(f"| coverage, {interval} | {covered} / {n_simulations} = {covered / n_simulations:.3f} "
              f"| band [{band[0]:.0f}, {band[1]:.0f}]: {'within' if band[0] <= covered <= band[1] else 'OUTSIDE'} |",
              flush=True)


CASES = {"event": event, "psds": psds, "permutation": permutation, "null": null}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", help=f"of {list(CASES)} (default: all)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--simulations", type=int, default=200)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.workloads) - set(CASES))
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {list(CASES)}")
    print(f"load: {os.getloadavg()}")
    print("| workload | systems x files x resamples | once CPU s | compare CPU s (ratio) "
          "| plain loop CPU s, scaled (ratio) | compare vs loop | target |")
    print("|---|---|---|---|---|---|---|")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.workloads or list(CASES):
            if name == "null":
                null(args.runs, args.simulations)
            else:
                CASES[name](args.runs)


if __name__ == "__main__":
    main()
