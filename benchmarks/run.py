"""audeval against the reference toolkits on the same data, in one command.

Run from the repository root (reference toolkits installed, e.g.
``pip install -e ".[benchmark]"``; without them only audeval is timed)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/run.py --quick     # a few minutes
    OPENBLAS_NUM_THREADS=1 python benchmarks/run.py             # full sizes, ~30 min

Every (workload, size) runs in its own subprocess (``--in-process`` to run them
in this process), so peak memory of one workload does not leak into the next.
In it, the data are generated with a seed (``benchmarks/_data.py``), then

* audeval is timed: median wall time and median CPU time
  (``time.process_time``) of repeated runs (at least ``--repeat`` runs and
  ``--min-time`` seconds), after one warm-up run; its peak memory is the
  tracemalloc peak of one extra run (numpy allocations included);
* every reference toolkit runs on the same data, in the same process:
  if it would take more than ``--budget`` seconds, it runs on the first files
  (or the first seconds of audio) only and its time is scaled linearly to the
  whole workload (marked ``~`` and explained in the note; linear scaling
  underestimates toolkits whose cost grows faster than linearly);
* the numbers are compared: each reference against audeval on exactly the data
  the reference saw (max absolute difference), and audeval against itself along
  equivalent paths (statistics table vs Series, shards of files summed vs one shot).

Ratios (``speed-up``) are reference CPU time / audeval CPU time:
CPU time of this process is what a busy machine distorts least.
Options: ``--quick``, ``--smoke`` (tiny sizes, for the tests),
``--only events,segments``, ``--no-reference``, ``--budget``,
``--json FILE``, ``--markdown FILE``, ``--plot FILE.png``.

References that cannot share audeval's interpreter run in their own, given by
``--scores-python`` (sed_scores_eval: pandas < 3, numpy < 2; workload ``scores``),
``--separation-python`` (mir_eval, museval, fast_bss_eval: numpy < 2; ``separation_sources``) and
``--diarization-python`` (spy-der, simpleder, pyannote.metrics; ``diarization_speech``);
they get the same data through a file and time only their own call (CPU seconds of their process).
Without the option, their rows say "not measured" and which option to pass.
The data and the reference calls are those of ``bench_scores.py``, ``bench_separation.py``,
``bench_diarization.py`` and ``bench_agreement.py`` (imported, not copied).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib.metadata
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for path in (ROOT, HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import _data  # noqa: E402


EVENT_OPTIONS = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5)
RATE = 44100
AGREE = 1e-9  # max absolute difference counted as agreement

# sizes per mode; every size is a dict of generator arguments plus a label
SIZES = {
    "events": {
        "smoke": [{"events": 300}],
        "quick": [{"events": 1_000}, {"events": 10_000}],
        "full": [{"events": n} for n in (1_000, 10_000, 100_000, 1_000_000)]
        + [{"events": 10_000, "clip_seconds": 1000.0},
           {"events": 50_000, "clip_seconds": 3600.0, "files": 1},
           {"events": 8_000, "dense": True}],
    },
    "events_classes": {
        "smoke": [{"events": 300, "classes": 100}],
        "quick": [{"events": 100_000, "classes": 100}, {"events": 100_000, "classes": 1000}],
        "full": [{"events": 100_000, "classes": 100}, {"events": 100_000, "classes": 1000}],
    },
    "segments": {
        "smoke": [{"hours": 0.2, "file_seconds": 360.0}],
        "quick": [{"hours": 1}, {"hours": 10}],
        "full": [{"hours": h} for h in (1, 10, 100, 1000)],
    },
    "structure": {
        "smoke": [{"files": 5}],
        "quick": [{"files": 10}, {"files": 100}, {"files": 1000, "sections": 50}],
        "full": [{"files": 10}, {"files": 100}, {"files": 1000}, {"files": 1000, "sections": 50}],
    },
    "structure_long": {
        "smoke": [{"seconds": 120.0, "sections": 200}],
        "quick": [{"seconds": 360.0, "sections": 1_000}, {"seconds": 3600.0, "sections": 10_000}],
        "full": [{"seconds": 360.0, "sections": 1_000}, {"seconds": 3600.0, "sections": 10_000}],
    },
    "diarization": {
        "smoke": [{"files": 5}],
        "quick": [{"files": 10}, {"files": 100}],
        "full": [{"files": n} for n in (10, 100, 1000)],
    },
    "separation_si": {
        "smoke": [{"seconds": 0.5, "rate": 8000, "sources": 3, "channels": 1}],
        "quick": [{"seconds": 5.0}],
        "full": [{"seconds": s} for s in (5.0, 10.0, 30.0)],
    },
    "separation_bss": {
        "smoke": [{"seconds": 2.0, "rate": 8000, "sources": 2, "channels": 1}],
        "quick": [{"seconds": 5.0}],
        "full": [{"seconds": s} for s in (10.0, 30.0, 60.0)],
    },
    "scores": {
        "smoke": [{"data": "long", "seconds": 20.0, "files": 2}],
        "quick": [{"data": "long", "seconds": 60.0, "files": 5}, {"data": "desed"}],
        "full": [{"data": "desed"}, {"data": "long", "seconds": 60.0, "files": 5},
                 {"data": "long", "seconds": 240.0, "files": 5}],
    },
    "agreement": {
        "smoke": [{"raters": 3, "files": 4, "segments": 30, "rows": 80}],
        "quick": [{"raters": 5, "files": 100, "segments": 120, "rows": 10_000}],
        "full": [{"raters": 5, "files": 100, "segments": 120, "rows": 10_000}],
    },
    "separation_sources": {
        "smoke": [{"utterances": 2, "sources": 2, "seconds": 0.5, "rate": 8000}],
        "quick": [{"utterances": 10, "sources": 2, "seconds": 4.0, "rate": 8000},
                  {"utterances": 1, "sources": 4, "seconds": 5.0, "rate": 44100, "channels": 2}],
        "full": [{"utterances": 50, "sources": 2, "seconds": 4.0, "rate": 8000},
                 {"utterances": 1, "sources": 4, "seconds": 30.0, "rate": 44100, "channels": 2}],
    },
    "diarization_speech": {
        "smoke": [{"files": 3}],
        "quick": [{"files": 100}],
        "full": [{"files": 1000}],
    },
    "hierarchy": {
        "smoke": [{"songs": 3}],
        "quick": [{"songs": 20}, {"long": True}],
        "full": [{"songs": 20}, {"long": True}],
    },
}

# the size argument that grows along a workload's sizes
SCALE_KEY = {"events": "events", "events_classes": "classes", "segments": "hours", "structure": "files", "structure_long": "seconds",
             "diarization": "files", "separation_si": "seconds", "separation_bss": "seconds",
             "scores": "seconds", "agreement": "rows", "separation_sources": "seconds",
             "diarization_speech": "files", "hierarchy": "songs"}

WORKLOAD_TITLES = {
    "events": "Event-based metrics, DCASE-like 10 s clips (10 classes, 10 events per clip)",
    "events_classes": "Event-based metrics, DCASE-like 10 s clips, labels spread over 100 or 1,000 classes",
    "segments": "Segment-based metrics, broadcast-like 1 h files (music / speech / noise)",
    "structure": "Structural segmentation, songs of 3-5 min (10-60 sections, or 50)",
    "structure_long": "Structural segmentation, one long file",
    "diarization": "Diarization and detection, conversations of 2-5 speakers (1-5 min)",
    "separation_si": "Separation, scale-invariant family, 4 stereo sources, permutation-invariant",
    "separation_bss": "Separation, BSS Eval v4 (1 s windows and hops), 4 stereo sources",
    "scores": "Score-based, PSDS1 over all thresholds from 20 ms frame scores (10 classes)",
    "agreement": "Rater agreement, raters with equal numbers of segments (100 files of 10 min)",
    "separation_sources": "Separation, BSS Eval v3 bss_eval_sources (512 taps, no permutation)",
    "diarization_speech": "Diarization, 5 min conversations of 4 speakers (86 turns per file)",
    "hierarchy": "Hierarchical structure, songs of 3-5 min with 3 levels, or one 1 h file with 4 levels",
}


def size_label(workload: str, size: dict) -> str:
    if workload == "events":
        if size.get("dense"):
            return f"{size['events']:,} events, one label, one file (dense)"
        if size.get("files") == 1:
            return f"{size['events']:,} events, one {size['clip_seconds']:g} s file"
        if "clip_seconds" in size:
            return f"{size['events']:,} events, {size['clip_seconds']:g} s files"
        return f"{size['events']:,} events"
    if workload == "events_classes":
        return f"{size['events']:,} events, {size['classes']:,} classes"
    if workload == "segments":
        return f"{size['hours']:g} h"
    if workload == "structure":
        sections = size.get("sections", "10-60")
        return f"{size['files']:,} files x {sections} sections"
    if workload == "structure_long":
        return f"{size['seconds'] / 60:g} min x {size['sections']:,} sections"
    if workload == "diarization":
        return f"{size['files']:,} files"
    if workload == "diarization_speech":
        return f"{size['files']:,} files x 5 min"
    if workload == "scores":
        if size["data"] == "desed":
            return "DESED validation (1,168 x 10 s)"
        return f"{size['files']} files x {size['seconds']:g} s"
    if workload == "hierarchy":
        return "1 h, 4 levels, 10k finest segments" if size.get("long") else f"{size['songs']} songs, 3 levels"
    if workload == "agreement":
        return f"{size['raters']} raters x {size['rows']:,} segments"
    if workload == "separation_sources":
        channels = f" x {size['channels']} channels" if size.get("channels") else ""
        return f"{size['utterances']} x {size['sources']} sources x {size['seconds']:g} s{channels}"
    return f"{size['seconds']:g} s"


# -------------------------------------------------------------------------
# Measuring
# -------------------------------------------------------------------------


def _rss_reset() -> int | None:
    """Reset the peak RSS of this process (Linux); returns the current RSS in bytes, or None."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _rss_field("VmRSS")
    except OSError:
        return None


def _rss_field(name: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def measure(function, *, repeat: int, min_time: float, max_time: float = 120.0, warmup: bool = True):
    """Median wall and CPU seconds of repeated runs, and the last result.

    After a warm-up run, runs until ``repeat`` runs and ``min_time`` seconds are done
    (or ``max_time`` is spent); a warm-up run longer than ``max_time / 4`` is the only run.
    Also the largest increase of the peak RSS over the RSS before a run after the warm-up (Linux),
    which includes memory that tracemalloc does not see (C/C++ allocations).
    """
    walls, cpus, rss = [], [], []

    def once():
        before = _rss_reset()
        w, c = time.perf_counter(), time.process_time()
        out = function()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
        peak = _rss_field("VmHWM")
        if before is not None and peak is not None:
            rss.append(peak - before)
        return out

    result = None
    if warmup:
        result = once()
        if walls[0] > max_time / 4:  # slow: the warm-up run is the measurement
            return {"wall": walls[0], "cpu": cpus[0], "runs": 1,
                    "rss": max(rss) if rss else math.nan}, result
        walls.clear()
        cpus.clear()
        rss.clear()  # (the first call's lazy imports and caches are not the call's memory)
    while len(walls) < repeat or sum(walls) < min_time:
        result = once()
        if sum(walls) > max_time:
            break
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus), "runs": len(walls),
            "rss": max(rss) if rss else math.nan}, result


def peak_memory(function) -> float:
    """tracemalloc peak (bytes) of one run (Python and numpy allocations)."""
    tracemalloc.start()
    try:
        function()
        return float(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()


def max_abs_diff(a, b) -> float:
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        return math.inf
    both_nan = np.isnan(a) & np.isnan(b)
    same_inf = np.isinf(a) & (a == b)
    diff = np.abs(a - b)
    diff[both_nan | same_inf] = 0.0
    return float(diff.max()) if len(diff) else 0.0


class Context:
    """Options and results of one worker (one workload at one size)."""

    def __init__(self, workload, size, *, repeat, min_time, budget, hints, references, pythons=None):
        self.workload = workload
        self.size = size
        self.repeat = repeat
        self.min_time = min_time
        self.budget = budget
        self.hints = hints or {}
        self.references = references
        self.pythons = pythons or {}  # kind -> interpreter of references run in their own process
        self.rows = []
        self.checks = {}
        self.rates = {}
        self.main_cpu = None
        # sizes of one shape share hints; other shapes (e.g. longer files) do not
        scale = SCALE_KEY.get(workload)
        other = {k: v for k, v in sorted((size or {}).items()) if k != scale}
        self.variant = f"@{json.dumps(other)}" if other else ""

    def audeval(self, name, function, *, n_events=None, main=False, memory=True, note=""):
        """Time an audeval call (and its peak memory); returns its result."""
        timing, result = measure(function, repeat=self.repeat, min_time=self.min_time)
        if memory and timing["cpu"] > 30:  # one more slow run under tracemalloc: RSS only
            peak = math.nan
            note = (note + "; " if note else "") + "memory: RSS increase only"
        else:
            peak = peak_memory(function) if memory else math.nan
        worst = float(np.nanmax([peak, timing["rss"]])) if memory else math.nan
        row = {
            "implementation": "audeval",
            "call": name,
            "wall": timing["wall"],
            "cpu": timing["cpu"],
            "runs": timing["runs"],
            "peak_mb": peak / 1e6,
            "rss_mb": timing["rss"] / 1e6,
            "bytes_per_event": worst / n_events if n_events else math.nan,
            "main": main,
            "note": note,
        }
        self.rows.append(row)
        if main:
            self.main_cpu = timing["cpu"]
        return result

    def reference(self, toolkit, name, prepare, n_units, *, unit="files", compare=None, loop=None, growth=1.0):
        """Run a reference toolkit within the time budget, extrapolate, compare.

        ``prepare(k)`` returns a callable that runs the toolkit on the first
        ``k`` units (its preparation is not timed);
        ``loop(k_max, budget)`` instead runs unit by unit until the budget is
        spent and returns (wall, cpu, k_done, result) (for per-file APIs).
        ``compare(k, result)`` returns the max abs difference to audeval on the same k units.
        ``growth``: the exponent of the toolkit's cost in the number of units,
        used to choose ``k`` from the previous size's (units, CPU seconds) so that
        the run stays within the budget (the time is still scaled linearly).
        """
        if not self.references:
            return None
        key = f"{toolkit}:{name}{self.variant}"
        try:
            if loop is not None:
                wall, cpu, k, result = loop(n_units, self.budget)
                runs = 1
            else:
                previous = self.hints.get(key)
                k = n_units
                if previous is not None:
                    k_before, cpu_before = previous
                    if cpu_before * (n_units / k_before) ** growth > self.budget:
                        k = k_before * (self.budget / max(cpu_before, 1e-9)) ** (1 / growth)
                        k = max(1, min(int(k), n_units))
                function = prepare(k)
                timing, result = measure(function, repeat=1, min_time=0.0, warmup=False)
                if timing["wall"] < 1.0:  # cheap: repeat for a median
                    timing, result = measure(function, repeat=3, min_time=0.0, warmup=False)
                wall, cpu, runs = timing["wall"], timing["cpu"], timing["runs"]
        except ImportError as error:
            self.rows.append(self._skipped(toolkit, name, f"not installed ({error.name})"))
            return None
        self.rates[key] = (k, cpu)
        scale = n_units / k
        difference = compare(k, result) if compare is not None else None
        note = ""
        if scale != 1:
            note = (f"ran on {k:g} of {n_units:g} {unit} in {cpu:.1f} s CPU "
                    f"(budget {self.budget:g} s), time scaled linearly x{scale:.3g}")
            if growth > 1:
                note += " (a lower bound: its cost grows faster than linearly)"
        self.rows.append(
            {
                "implementation": toolkit,
                "call": name,
                "wall": wall * scale,
                "cpu": cpu * scale,
                "runs": runs,
                "peak_mb": math.nan,
                "bytes_per_event": math.nan,
                "extrapolated": scale != 1,
                "difference": difference,
                "note": note,
            }
        )
        return result

    def skip(self, toolkit, name, note, *, cpu=math.nan, extrapolated=False):
        if self.references:
            row = self._skipped(toolkit, name, note)
            row["cpu"] = row["wall"] = cpu
            row["extrapolated"] = extrapolated
            self.rows.append(row)

    @staticmethod
    def _skipped(toolkit, name, note):
        return {"implementation": toolkit, "call": name, "wall": math.nan, "cpu": math.nan,
                "runs": 0, "peak_mb": math.nan, "bytes_per_event": math.nan,
                "skipped": True, "note": note}


def subset_files(series: pd.Series, files) -> pd.Series:
    """Rows of some files, as a user would have them (no unused index levels)."""
    part = series[series.index.get_level_values("file").isin(files)]
    return part.set_axis(part.index.remove_unused_levels())


def first_files(truth, prediction, durations, k):
    files = sorted(durations.index)[:k]
    return subset_files(truth, files), subset_files(prediction, files), durations.loc[files]


def per_file_groups(series: pd.Series):
    """file -> (start s, end s, labels) arrays, one pass (for per-file reference APIs)."""
    files = series.index.get_level_values("file").to_numpy()
    start = series.index.get_level_values("start").to_numpy().astype("int64") / 1e9
    end = series.index.get_level_values("end").to_numpy().astype("int64") / 1e9
    labels = np.asarray(series.to_numpy(), dtype=object)
    order = np.argsort(files, kind="stable")
    files, start, end, labels = files[order], start[order], end[order], labels[order]
    names, first = np.unique(files, return_index=True)
    bounds = np.r_[first, len(files)]
    return {
        name: (start[a:b], end[a:b], labels[a:b])
        for name, a, b in zip(names, bounds[:-1], bounds[1:])
    }


def loop_files(files, prepare, run_one, finish, budget):
    """``run_one(prepare(file))`` file by file until ``budget`` CPU seconds, then ``finish()``.

    Only ``run_one`` and ``finish`` are timed (``prepare`` converts the inputs).
    """
    wall = cpu = 0.0
    done = 0
    for file in files:
        inputs = prepare(file)
        w, c = time.perf_counter(), time.process_time()
        run_one(inputs)
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
        done += 1
        if cpu > budget:
            break
    w, c = time.perf_counter(), time.process_time()
    result = finish()
    return wall + time.perf_counter() - w, cpu + time.process_time() - c, done, result


def shard_statistics(statistics_function, truth, prediction, durations, **options):
    """Statistics of two disjoint halves of the files, summed."""
    import audeval

    files = sorted(durations.index)
    half = len(files) // 2
    tables = []
    for part in (files[:half], files[half:]):
        tables.append(
            statistics_function(
                subset_files(truth, part), subset_files(prediction, part),
                files_duration=durations.loc[part], **options,
            )
        )
    return audeval.sum_statistics(tables)


# -------------------------------------------------------------------------
# Workloads
# -------------------------------------------------------------------------


def work_events_dense(ctx: Context):
    """One file, one label, near-perfect predictions: one huge component for optimal matching."""
    import audeval

    truth, prediction, durations = _data.dense_one_label(ctx.size["events"])
    n_events = len(truth) + len(prediction)
    ctx.info = {"truth": len(truth), "prediction": len(prediction), "files": 1, "n": ctx.size["events"]}
    options = dict(onset_tolerance=0.2, offset_tolerance=None, files_duration=durations)
    f_opt = ctx.audeval("event_fscore (optimal)", lambda: audeval.event_fscore(truth, prediction, **options),
                        n_events=n_events, main=True)
    f_greedy = ctx.audeval("event_fscore (greedy)",
                           lambda: audeval.event_fscore(truth, prediction, matching="greedy", **options),
                           n_events=n_events, memory=False)
    stats = audeval.event_statistics(truth, prediction, **options)
    ctx.checks = {"fscore from statistics table (optimal)": abs(audeval.event_fscore(stats, None) - f_opt)}
    ctx.sanity = {"fscore": f_opt, "greedy <= optimal": bool(f_greedy <= f_opt + 1e-12)}

    def sed_eval_loop(n_units, budget):
        import sed_eval

        metrics = sed_eval.sound_event.EventBasedMetrics(
            event_label_list=["event"], t_collar=0.2, evaluate_offset=False, event_matching_type="optimal")
        groups = [per_file_groups(truth), per_file_groups(prediction)]

        def events(side, file):
            s, e, lab = groups[side][file]
            order = np.lexsort((e, s))
            return [{"event_onset": float(s[i]), "event_offset": float(e[i]),
                     "event_label": lab[i], "filename": file} for i in order]

        return loop_files(["recording.wav"], lambda file: (events(0, file), events(1, file)),
                          lambda lists: metrics.evaluate(*lists),
                          lambda: metrics.results_overall_metrics()["f_measure"]["f_measure"], budget)

    ctx.reference("sed_eval", "EventBasedMetrics (optimal, onsets only)", None, 1,
                  compare=lambda k, result: abs(f_opt - result), loop=sed_eval_loop)


def work_events(ctx: Context):
    import audeval

    if ctx.size.get("dense"):
        return work_events_dense(ctx)
    clip = ctx.size.get("clip_seconds", 10.0)
    per_file = ctx.size["events"] / ctx.size["files"] if "files" in ctx.size else clip
    truth, prediction, durations = _data.dcase(ctx.size["events"], clip_seconds=clip, events_per_file=per_file)
    # rows in random order, as concatenated tables come (sort_index is timed on the same input)
    truth, prediction = _data.shuffled(truth, seed=1), _data.shuffled(prediction, seed=2)
    n_events = len(truth) + len(prediction)
    ctx.info = {"truth": len(truth), "prediction": len(prediction), "files": len(durations), "n": ctx.size["events"]}
    # the limit: sorting the truth, in this process
    timing, _ = measure(lambda: truth.sort_index(), repeat=ctx.repeat, min_time=ctx.min_time)
    ctx.rows.append({"implementation": "pandas", "call": "truth.sort_index() (the limit)",
                     "wall": timing["wall"], "cpu": timing["cpu"], "runs": timing["runs"],
                     "peak_mb": math.nan, "bytes_per_event": math.nan, "baseline": True, "note": ""})
    options = dict(EVENT_OPTIONS, files_duration=durations)
    f_opt = ctx.audeval("event_fscore (optimal)", lambda: audeval.event_fscore(truth, prediction, **options),
                        n_events=n_events, main=True)
    greedy = ctx.audeval(
        "event_fscore_per_class (greedy)",
        lambda: audeval.event_fscore_per_class(truth, prediction, matching="greedy", **options),
        n_events=n_events,
    )
    if len(truth) <= 100_000:
        ctx.audeval("event_report (optimal)", lambda: audeval.event_report(truth, prediction, **options),
                    n_events=n_events, memory=False)
    # equivalent paths (with greedy matching above 100k events: optimal is slow there)
    matching = "optimal" if len(truth) <= 100_000 else "greedy"
    f_check = f_opt if matching == "optimal" else audeval.event_fscore(
        truth, prediction, matching="greedy", **options)
    stats = audeval.event_statistics(truth, prediction, matching=matching, **options)
    shards = shard_statistics(audeval.event_statistics, truth, prediction, durations, matching=matching,
                              **EVENT_OPTIONS)
    ctx.checks = {
        f"fscore from statistics table ({matching})": abs(audeval.event_fscore(stats, None) - f_check),
        f"fscore from two shards summed ({matching})": abs(audeval.event_fscore(shards, None) - f_check),
    }
    f_greedy = f_check if matching == "greedy" else audeval.event_fscore(
        truth, prediction, matching="greedy", **options)
    ctx.sanity = {"fscore": f_opt, "greedy micro <= optimal": bool(f_greedy <= f_opt + 1e-12)}
    n_files = len(durations)
    if n_files == 1:  # the references evaluate file by file, quadratic in events per file
        note = "not run: one file of this size takes hours (quadratic in events per file)"
        ctx.skip("audmetric", "event_fscore_per_class", note)
        ctx.skip("sed_eval", "EventBasedMetrics (optimal)", note)
        return

    def audmetric_prepare(k):
        import audmetric

        t, p, _ = first_files(truth, prediction, durations, k)
        return lambda: audmetric.event_fscore_per_class(t, p, labels=_data.DCASE_LABELS, **EVENT_OPTIONS)

    def audmetric_compare(k, result):
        t, p, d = first_files(truth, prediction, durations, k)
        ours = greedy if k == n_files else audeval.event_fscore_per_class(
            t, p, _data.DCASE_LABELS, matching="greedy", files_duration=d, **EVENT_OPTIONS)
        return max_abs_diff([ours[c] for c in _data.DCASE_LABELS], [result[c] for c in _data.DCASE_LABELS])

    ctx.reference("audmetric", "event_fscore_per_class", audmetric_prepare, n_files,
                  compare=audmetric_compare, growth=2.0)

    def sed_eval_loop(n_units, budget):
        import sed_eval

        metrics = sed_eval.sound_event.EventBasedMetrics(
            event_label_list=_data.DCASE_LABELS, t_collar=0.2, percentage_of_length=0.5,
            event_matching_type="optimal",
        )
        groups = [per_file_groups(truth), per_file_groups(prediction)]
        empty = (np.zeros(0), np.zeros(0), np.zeros(0, dtype=object))

        def events(side, file):
            s, e, lab = groups[side].get(file, empty)
            order = np.lexsort((e, s))
            return [{"event_onset": float(s[i]), "event_offset": float(e[i]),
                     "event_label": lab[i], "filename": file} for i in order]

        return loop_files(
            sorted(durations.index), lambda file: (events(0, file), events(1, file)),
            lambda lists: metrics.evaluate(*lists),
            lambda: metrics.results_overall_metrics()["f_measure"]["f_measure"], budget)

    def sed_eval_compare(k, result):
        t, p, d = first_files(truth, prediction, durations, k)
        ours = f_opt if k == n_files else audeval.event_fscore(t, p, files_duration=d, **EVENT_OPTIONS)
        return abs(ours - result)

    ctx.reference("sed_eval", "EventBasedMetrics (optimal)", None, n_files,
                  compare=sed_eval_compare, loop=sed_eval_loop)


def work_segments(ctx: Context):
    import audeval

    kwargs = {"file_seconds": ctx.size["file_seconds"]} if "file_seconds" in ctx.size else {}
    truth, prediction, durations = _data.broadcast(ctx.size["hours"], **kwargs)
    n_events = len(truth) + len(prediction)
    ctx.info = {"truth": len(truth), "prediction": len(prediction), "files": len(durations),
                "n": ctx.size["hours"]}
    reports = {}
    for compat in ("sed_eval", None):
        for resolution in (1.0, 0.01):
            name = f"segment_report({resolution:g} s{', compat=sed_eval' if compat else ''})"
            reports[compat, resolution] = ctx.audeval(
                name,
                lambda: audeval.segment_report(truth, prediction, time_resolution=resolution,
                                               files_duration=durations, compat=compat),
                n_events=n_events, main=(compat is None and resolution == 1.0),
            )
    ctx.audeval("segment_report(exact time)",
                lambda: audeval.segment_report(truth, prediction, time_resolution=None,
                                               files_duration=durations), n_events=n_events)
    micro = reports[None, 0.01].loc["micro"]
    stats = audeval.segment_statistics(truth, prediction, time_resolution=0.01, files_duration=durations)
    shards = shard_statistics(audeval.segment_statistics, truth, prediction, durations, time_resolution=0.01)
    ctx.checks = {
        "10 ms fscore from statistics table": abs(audeval.segment_fscore(stats) - micro["fscore"]),
        "10 ms fscore from two shards summed": abs(audeval.segment_fscore(shards) - micro["fscore"]),
        "10 ms error rate from two shards summed": abs(audeval.segment_error_rate(shards) - micro["error_rate"]),
    }
    ctx.sanity = {"fscore 1 s": float(reports[None, 1.0].loc["micro", "fscore"]),
                  "fscore 10 ms": float(micro["fscore"])}
    n_files = len(durations)
    groups = {}

    for resolution in (1.0, 0.01):

        def sed_eval_loop(n_units, budget, resolution=resolution):
            import sed_eval

            if not groups:
                groups.update(truth=per_file_groups(truth), prediction=per_file_groups(prediction))
            metrics = sed_eval.sound_event.SegmentBasedMetrics(
                event_label_list=_data.BROADCAST_LABELS, time_resolution=resolution)
            empty = (np.zeros(0), np.zeros(0), np.zeros(0, dtype=object))

            def events(side, file):
                s, e, lab = groups[side].get(file, empty)
                return [{"filename": file, "event_label": lab[i], "onset": float(s[i]),
                         "offset": float(e[i])} for i in range(len(s))]

            lengths = durations.dt.total_seconds()
            files = sorted(durations.index)

            def prepare(f):
                return events("truth", f), events("prediction", f), float(lengths[f])

            def run_one(inputs):
                metrics.evaluate(inputs[0], inputs[1], evaluated_length_seconds=inputs[2])

            def finish():
                overall = metrics.results()["overall"]
                return [overall["f_measure"]["f_measure"], overall["error_rate"]["error_rate"],
                        overall["accuracy"]["accuracy"]]

            return loop_files(files, prepare, run_one, finish, budget)

        def sed_eval_compare(k, result, resolution=resolution):
            if k == n_files:
                micro = reports["sed_eval", resolution].loc["micro"]
            else:
                t, p, d = first_files(truth, prediction, durations, k)
                micro = audeval.segment_report(t, p, time_resolution=resolution, files_duration=d,
                                               compat="sed_eval").loc["micro"]
            return max_abs_diff([micro["fscore"], micro["error_rate"], micro["accuracy"]], result)

        ctx.reference("sed_eval", f"SegmentBasedMetrics({resolution:g} s)", None, n_files,
                      compare=sed_eval_compare, loop=sed_eval_loop)


def work_structure(ctx: Context, long: bool = False):
    import audeval
    from audeval._structure import MIR_EVAL_COLUMNS

    if long:
        truth, prediction, durations = _data.songs(
            1, sections=ctx.size["sections"], seconds=ctx.size["seconds"])
    else:
        truth, prediction, durations = _data.songs(ctx.size["files"], sections=ctx.size.get("sections", (10, 60)))
    n_events = len(truth) + len(prediction)
    ctx.info = {"truth": len(truth), "prediction": len(prediction), "files": len(durations),
                "n": ctx.size.get("files", ctx.size.get("sections"))}
    report = ctx.audeval("structure_report", lambda: audeval.structure_report(truth, prediction),
                         n_events=n_events, main=True)
    compat = ctx.audeval("structure_report(compat=mir_eval)",
                         lambda: audeval.structure_report(truth, prediction, compat="mir_eval"),
                         n_events=n_events)
    ctx.audeval("structure_report(frame_size=None)",
                lambda: audeval.structure_report(truth, prediction, frame_size=None),
                n_events=n_events, memory=False)
    # equivalent paths: the report is per file, so a report on each half of the files
    files = sorted(durations.index)
    if len(files) > 1:
        half = len(files) // 2
        parts = [audeval.structure_report(subset_files(truth, p), subset_files(prediction, p))
                 for p in (files[:half], files[half:])]
        ctx.checks = {"report on two shards of files": max_abs_diff(
            pd.concat(parts).loc[files].to_numpy(), report.loc[files].to_numpy())}
    nmi = report["normalized_mutual_information"].mean()
    ctx.checks["rand_index function vs report"] = abs(
        audeval.rand_index(truth, prediction) - report["rand_index"].mean())
    ctx.sanity = {"NMI mean": float(nmi),
                  "max |default - compat| (frame grid)": max_abs_diff(report.to_numpy(), compat.to_numpy())}
    n_files = len(durations)

    def mir_eval_loop(n_units, budget):
        import mir_eval

        groups = [per_file_groups(truth), per_file_groups(prediction)]
        results = []

        def prepare(f):
            (ts, te, tl), (ps, pe, pl) = groups[0][f], groups[1][f]
            return np.c_[ts, te], list(tl), np.c_[ps, pe], list(pl)

        def run_one(inputs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                results.append(mir_eval.segment.evaluate(*inputs))

        return loop_files(files, prepare, run_one, lambda: results, budget)

    def mir_eval_compare(k, results):
        ours = compat.loc[files[:k]]
        worst = 0.0
        for f, scores in zip(files[:k], results):
            worst = max(worst, max_abs_diff([ours.loc[f, c] for c in MIR_EVAL_COLUMNS.values()],
                                            [scores[key] for key in MIR_EVAL_COLUMNS]))
        return worst

    frames = durations.dt.total_seconds().max() / 0.1
    if frames > 20_000:
        largest = ctx.hints.get("mir_eval:segment.evaluate:frames")
        if largest is not None:
            small_frames, small_cpu = largest
            estimate = small_cpu * (frames / small_frames) ** 2
            ctx.skip("mir_eval", "segment.evaluate",
                     f"not run: {frames:,.0f} frames, its frame-pair matrices need several GB; "
                     f"~{estimate:.0f} s extrapolated quadratically from {small_frames:,.0f} frames",
                     cpu=estimate, extrapolated=True)
        else:
            ctx.skip("mir_eval", "segment.evaluate",
                     f"not run: {frames:,.0f} frames, its frame-pair matrices need several GB")
        return
    ctx.reference("mir_eval", "segment.evaluate", None, n_files, compare=mir_eval_compare, loop=mir_eval_loop)
    row = ctx.rows[-1]
    if long and row.get("implementation") == "mir_eval" and not row.get("skipped"):
        ctx.rates["mir_eval:segment.evaluate:frames"] = (frames, row["cpu"])


def work_diarization(ctx: Context):
    import audeval

    truth, prediction, durations = _data.conversations(ctx.size["files"])
    n_events = len(truth) + len(prediction)
    ctx.info = {"truth": len(truth), "prediction": len(prediction), "files": len(durations), "n": ctx.size["files"]}
    der = ctx.audeval("diarization_error_rate (optimal, per file)",
                      lambda: audeval.diarization_error_rate(truth, prediction, files_duration=durations),
                      n_events=n_events, main=True)
    report = ctx.audeval("diarization_report (+ JER)",
                         lambda: audeval.diarization_report(truth, prediction, files_duration=durations),
                         n_events=n_events, memory=False)
    det = ctx.audeval("detection_error_rate",
                      lambda: audeval.detection_error_rate(truth, prediction, files_duration=durations),
                      n_events=n_events, memory=False)
    stats = audeval.diarization_statistics(truth, prediction, files_duration=durations)
    shards = shard_statistics(audeval.diarization_statistics, truth, prediction, durations)
    ctx.checks = {
        "DER from statistics table": abs(audeval.diarization_error_rate(stats) - der),
        "DER from two shards summed": abs(audeval.diarization_error_rate(shards) - der),
        "DER of report TOTAL row": abs(report.loc["TOTAL", "diarization_error_rate"] - der),
    }
    ctx.sanity = {"DER": der, "detection ER": det}
    files = sorted(durations.index)
    n_files = len(files)
    annotations, groups = {}, []

    def pyannote_loop(metric_name):
        def loop(n_units, budget):
            from pyannote.core import Annotation, Segment, Timeline
            from pyannote.metrics import detection, diarization

            metric = (diarization.DiarizationErrorRate() if metric_name == "der"
                      else detection.DetectionErrorRate())
            if not groups:
                groups.extend([per_file_groups(truth), per_file_groups(prediction)])

            def prepare(f):
                if f not in annotations:
                    pair = []
                    for g in groups:
                        a = Annotation(uri=f)
                        s, e, lab = g.get(f, (np.zeros(0), np.zeros(0), []))
                        for i in range(len(s)):
                            a[Segment(float(s[i]), float(e[i])), i] = lab[i]
                        pair.append(a)
                    uem = Timeline([Segment(0.0, durations[f].total_seconds())], uri=f)
                    annotations[f] = (pair[0], pair[1], uem)
                return annotations[f]

            def run_one(inputs):
                metric(inputs[0], inputs[1], uem=inputs[2])

            return loop_files(files, prepare, run_one, lambda: abs(metric), budget)
        return loop

    def compare(function):
        def inner(k, result):
            if k == n_files:
                ours = der if function is audeval.diarization_error_rate else det
            else:
                t, p, d = first_files(truth, prediction, durations, k)
                ours = function(t, p, files_duration=d)
            return abs(ours - result)
        return inner

    ctx.reference("pyannote.metrics", "DiarizationErrorRate", None, n_files,
                  compare=compare(audeval.diarization_error_rate), loop=pyannote_loop("der"))
    ctx.reference("pyannote.metrics", "DetectionErrorRate", None, n_files,
                  compare=compare(audeval.detection_error_rate), loop=pyannote_loop("det"))

    def greedy(t, p):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no files_duration, as audmetric
            return audeval.diarization_error_rate(t, p, mapping="greedy", individual_file_mapping=False)

    def audmetric_prepare(k):
        import audmetric

        t, p, _ = first_files(truth, prediction, durations, k)
        return lambda: audmetric.diarization_error_rate(t, p)

    def audmetric_compare(k, result):
        t, p, _ = first_files(truth, prediction, durations, k)
        return abs(greedy(t, p) - result)

    ctx.reference("audmetric", "diarization_error_rate (greedy, global)", audmetric_prepare, n_files,
                  compare=audmetric_compare, growth=2.0)


def _separation_data(ctx):
    rate = int(ctx.size.get("rate", RATE))
    refs, est = _data.separation(ctx.size.get("sources", 4), ctx.size["seconds"], sampling_rate=rate,
                                 channels=ctx.size.get("channels", 2))
    ctx.info = {"samples": refs.shape[1], "sources": refs.shape[0], "channels": refs.shape[2],
                "rate": rate, "n": ctx.size["seconds"]}
    return refs, est, rate


def work_separation_si(ctx: Context):
    import audeval.separation as separation

    refs, est, rate = _separation_data(ctx)
    order = np.roll(np.arange(refs.shape[0]), 1)
    shuffled = est[order]
    ours = ctx.audeval("scale_invariant(permutation=True)",
                       lambda: separation.scale_invariant(refs, shuffled, permutation=True), main=True)
    plain = ctx.audeval("scale_invariant (matched order)", lambda: separation.scale_invariant(refs, est),
                        memory=False)
    ctx.checks = {"permutation found vs matched order": max(
        max_abs_diff(ours[k], plain[k]) for k in ("si_sdr", "si_sir", "si_sar", "sd_sdr", "snr", "srr"))}
    ctx.sanity = {"estimate order recovered": bool(
        (np.asarray(ours["estimate"]) == np.argsort(order)).all()),
        "median SI-SDR": float(np.median(ours["si_sdr"]))}
    seconds = refs.shape[1] / rate
    keys = {"SI-SDR": "si_sdr", "SI-SIR": "si_sir", "SI-SAR": "si_sar", "SD-SDR": "sd_sdr",
            "SNR": "snr", "SRR": "srr"}

    def prepare(k):
        sys.path.insert(0, os.path.join(ROOT, "tests", "assets", "separation"))
        try:
            import make_golden
        finally:
            sys.path.pop(0)
        try:
            bss_eval, audio_signal, _ = make_golden.load_nussl()
        except Exception as error:
            raise ImportError("nussl", name="nussl; not in the benchmark extra: "
                              "pip install --no-deps nussl==1.1.9") from error
        n = int(round(k * rate))
        r, e = refs[:, :n], shuffled[:, :n]

        def run():
            evaluator = bss_eval.BSSEvalScale([audio_signal(x.T) for x in r], [audio_signal(x.T) for x in e],
                                              compute_permutation=True)
            return evaluator.evaluate()
        return run

    def compare(k, theirs):
        n = int(round(k * rate))
        mine = ours if n >= refs.shape[1] else separation.scale_invariant(
            refs[:, :n], shuffled[:, :n], permutation=True)
        n_src = refs.shape[0]
        return max(max_abs_diff(mine[key], [theirs[f"source_{j}"][name] for j in range(n_src)])
                   for name, key in keys.items())

    ctx.reference("nussl", "BSSEvalScale(compute_permutation=True)", prepare, seconds,
                  unit="seconds of audio", compare=compare)


def work_separation_bss(ctx: Context):
    import audeval.separation as separation

    refs, est, rate = _separation_data(ctx)
    ours = ctx.audeval("bss_eval_v4(window=1 s, hop=1 s)",
                       lambda: separation.bss_eval_v4(refs, est, sampling_rate=rate, window=1.0, hop=1.0),
                       main=True)
    ctx.checks = {}
    if refs.shape[1] >= 2 * rate:
        half = (refs.shape[1] // rate // 2) * rate
        first = separation.bss_eval_v4(refs[:, :half], est[:, :half], sampling_rate=rate, window=1.0, hop=1.0)
        n_windows = first["sdr"].shape[1]
        ctx.checks["SDR of the first windows alone"] = max_abs_diff(first["sdr"], ours["sdr"][:, :n_windows])
    ctx.sanity = {"median SDR": float(np.nanmedian(ours["sdr"]))}
    seconds = refs.shape[1] / rate

    def prepare(k):
        try:
            import museval
        except ImportError as error:
            raise ImportError(str(error), name="museval") from error
        except (RuntimeError, OSError) as error:  # museval's stempeg raises RuntimeError without ffmpeg
            raise ImportError(str(error), name="ffmpeg, which museval needs at import: apt-get install ffmpeg") \
                from error

        n = int(round(k * rate))
        r, e = refs[:, :n], est[:, :n]
        return lambda: museval.evaluate(r, e, win=rate, hop=rate)

    def museval_rule(n):
        """audeval with museval's rule for silent windows (a silent source NaNs the whole window;
        audeval's default NaNs that source only, museval issue 94): the values to compare."""
        return separation.bss_eval_v4(refs[:, :n], est[:, :n], sampling_rate=rate, window=1.0, hop=1.0,
                                      silent="museval")

    def compare(k, theirs):
        # SDR is the target (1e-9 dB); the others are reported in the note
        return max_abs_diff(museval_rule(int(round(k * rate)))["sdr"], theirs[0])

    result = ctx.reference("museval", "evaluate (v4)", prepare, max(int(seconds), 1),
                           unit="seconds of audio", compare=compare)
    if result is not None:
        row = ctx.rows[-1]
        k = int(round(seconds)) if not row.get("extrapolated") else None
        if k is not None:
            mine = museval_rule(refs.shape[1])
            others = {name: max_abs_diff(mine[name], theirs) for name, theirs in zip(("isr", "sir", "sar"), result[1:])}
            row["note"] = (row["note"] + "; " if row["note"] else "") + "difference in dB: SDR (shown), " + ", ".join(
                f"{k.upper()} {v:.1e}" for k, v in others.items())


def many_classes(series: pd.Series, classes: int) -> pd.Series:
    """DCASE labels spread over ``classes`` labels: label k of the i-th file (in sorted
    order) becomes k + 10 (i mod classes / 10), truth and prediction alike."""
    codes = series.cat.codes.to_numpy().astype(np.int64)
    files = series.index.get_level_values("file").to_numpy()
    number = np.unique(files, return_inverse=True)[1].astype(np.int64)
    n = len(_data.DCASE_LABELS)
    names = [f"{_data.DCASE_LABELS[c % n]}_{c // n}" for c in range(classes)]
    new = codes + n * (number % (classes // n))
    return pd.Series(pd.Categorical.from_codes(new, categories=names), index=series.index)


def work_events_classes(ctx: Context):
    """Event metrics over many classes: the memory per event must not grow with files x classes."""
    import audeval

    truth, prediction, durations = _data.dcase(ctx.size["events"])
    truth, prediction = many_classes(truth, ctx.size["classes"]), many_classes(prediction, ctx.size["classes"])
    n_events = len(truth) + len(prediction)
    ctx.info = {"truth": len(truth), "prediction": len(prediction), "files": len(durations), "n": ctx.size["events"]}
    options = dict(EVENT_OPTIONS, files_duration=durations)
    f_opt = ctx.audeval("event_fscore (optimal)", lambda: audeval.event_fscore(truth, prediction, **options),
                        n_events=n_events, main=True)
    ctx.audeval("event_fscore_per_class (optimal)",
                lambda: audeval.event_fscore_per_class(truth, prediction, **options), n_events=n_events)
    stats = audeval.event_statistics(truth, prediction, **options)
    shards = shard_statistics(audeval.event_statistics, truth, prediction, durations, **EVENT_OPTIONS)
    ctx.checks = {"fscore from statistics table": abs(audeval.event_fscore(stats, None) - f_opt),
                  "fscore from two shards summed": abs(audeval.event_fscore(shards, None) - f_opt)}
    ctx.sanity = {"fscore": f_opt, "classes": int(truth.cat.categories.size)}


def work_hierarchy(ctx: Context):
    """Hierarchical structure (issue 23; no SPEC row): hierarchy_report against mir_eval.hierarchy."""
    import audeval._hierarchy as hierarchy
    import bench_hierarchy

    if ctx.size.get("long"):
        truth, prediction = bench_hierarchy.make_data(1, (3600.0, 3600.0), [100, 600, 2500, 10_000], seed=1)
    else:
        truth, prediction = bench_hierarchy.make_data(ctx.size["songs"], (180.0, 300.0), [4, 12, 40])
    files = list(pd.unique(truth.index.get_level_values("file")))
    n_events = len(truth) + len(prediction)
    ctx.info = {"data": f"{len(files):,} file{'s' * (len(files) > 1)}, {truth.shape[1]} levels, {len(truth):,} + {len(prediction):,} "
                        "finest segments", "n": ctx.size.get("songs", 1)}
    report = ctx.audeval("hierarchy_report", lambda: hierarchy.hierarchy_report(truth, prediction),
                         n_events=n_events, main=True)
    compat = ctx.audeval("hierarchy_report(compat=mir_eval)",
                         lambda: hierarchy.hierarchy_report(truth, prediction, compat="mir_eval"),
                         n_events=n_events, memory=False)
    ctx.audeval("hierarchy_report(frame_size=None, window=None)",
                lambda: hierarchy.hierarchy_report(truth, prediction, frame_size=None, window=None),
                n_events=n_events, memory=False)
    shuffled = hierarchy.hierarchy_report(truth.sample(frac=1.0, random_state=1),
                                          prediction.sample(frac=1.0, random_state=2))
    ctx.checks = {"report on rows in shuffled order": max_abs_diff(shuffled.loc[files].to_numpy(),
                                                                   report.loc[files].to_numpy())}
    ctx.sanity = {"max abs(default - compat)": max_abs_diff(report.to_numpy(), compat[report.columns].to_numpy())}
    if ctx.size.get("long"):
        ctx.skip("mir_eval", "hierarchy.evaluate", "not run: 36,000 x 36,000 frame matrices and Python loops "
                 "over frames (bench_hierarchy.py --mir-eval-long runs it)")
        return

    def loop(n_units, budget):  # song by song (about 6 s each) until the budget is spent
        if bench_hierarchy.mir_eval is None:
            raise ImportError("mir_eval", name="mir_eval")
        done = []
        return loop_files(files, lambda file: [file],
                          lambda one: done.append(bench_hierarchy.mir_eval_report(truth, prediction, one)),
                          lambda: pd.concat(done), budget)

    def compare(k, expected):
        ours = compat.loc[files[:k]]
        return max_abs_diff(ours.to_numpy(), expected[ours.columns].to_numpy())

    ctx.reference("mir_eval", "hierarchy.evaluate", None, len(files), compare=compare, loop=loop)


# -------------------------------------------------------------------------
# Workloads whose references run in another interpreter (--scores-python, ...)
# -------------------------------------------------------------------------

PYTHON_OPTIONS = {
    "scores": ("--scores-python", "an interpreter with sed_scores_eval (pandas<3, numpy<2; "
               "see benchmarks/bench_scores.py)"),
    "separation": ("--separation-python", "an interpreter with mir_eval, museval and fast_bss_eval "
                   "(numpy<2; see benchmarks/bench_separation.py)"),
    "diarization": ("--diarization-python", "an interpreter with spy-der, simpleder, pyannote.metrics "
                    "and audeval's dependencies (see benchmarks/bench_diarization.py)"),
}


def external_row(ctx: Context, toolkit: str, name: str, cpu: float, *, difference=None, note="",
                 scale: float = 1.0) -> None:
    """A reference measured in its own process (CPU seconds of its call), scaled by ``scale``."""
    ctx.rows.append({"implementation": toolkit, "call": name, "wall": math.nan, "cpu": cpu * scale,
                     "runs": 1, "peak_mb": math.nan, "bytes_per_event": math.nan,
                     "extrapolated": scale != 1, "difference": difference, "note": note})


def reference_python(ctx: Context, kind: str, toolkits: list[tuple[str, str]]) -> str | None:
    """The interpreter given for ``kind``'s references; without one, a skipped row per toolkit."""
    python = ctx.pythons.get(kind)
    if python is None:
        option, what = PYTHON_OPTIONS[kind]
        for toolkit, name in toolkits:
            ctx.skip(toolkit, name, f"not measured: pass {option} ({what})")
    return python if ctx.references else None


def work_scores(ctx: Context):
    """PSDS1 (all thresholds) from frame scores at 20 ms; sed_scores_eval in --scores-python."""
    import audeval
    import bench_scores

    if ctx.size["data"] == "desed":
        if not os.path.exists(bench_scores.DESED):
            raise FileNotFoundError(f"DESED validation fixture not found: {bench_scores.DESED}")
        data = bench_scores.desed_data()
    else:
        data = bench_scores.long_data(ctx.size["seconds"], n_files=ctx.size["files"])
    truth, table, durations = bench_scores.to_audeval(*data)
    ctx.info = {"data": f"{len(durations):,} files, {table.shape[0]:,} frames x {table.shape[1]} classes, "
                        f"{len(truth):,} truth events", "n": float(durations.sum())}
    metric = {k: v for k, v in bench_scores.PSDS1.items() if k not in ("dtc_threshold", "gtc_threshold")}
    stats_options = dict(dtc_threshold=bench_scores.PSDS1["dtc_threshold"],
                         gtc_threshold=bench_scores.PSDS1["gtc_threshold"], compat="sed_scores_eval")
    value = ctx.audeval("psds (PSDS1, compat=sed_scores_eval)", lambda: audeval.psds(
        truth, table, files_duration=durations, compat="sed_scores_eval", **bench_scores.PSDS1), main=True)
    stats = audeval.score_statistics(truth, table, files_duration=durations, **stats_options)
    ctx.checks = {"PSDS from statistics table": abs(audeval.psds(stats, None, **metric) - value)}
    files = sorted(durations.index)
    if len(files) > 1:
        parts = [audeval.score_statistics(subset_files(truth, p), table[table.index.isin(p, level="file")],
                                          files_duration=durations[p], **stats_options)
                 for p in (files[: len(files) // 2], files[len(files) // 2:])]
        ctx.checks["PSDS from two shards summed"] = abs(audeval.psds(audeval.sum_statistics(parts), None,
                                                                     **metric) - value)
    ctx.sanity = {"PSDS1": float(value)}
    name = "intersection_based.psds"
    python = reference_python(ctx, "scores", [("sed_scores_eval", name)])
    if python is None:
        return
    timeout = 10 * ctx.budget  # sed_scores_eval is slow on long files (SPEC: 169 s on 5 x 240 s)
    try:
        theirs = bench_scores.time_reference(python, data, timeout)
    except subprocess.CalledProcessError as error:
        last = (error.stderr or "").strip().splitlines()[-1:] or [f"exit code {error.returncode}"]
        ctx.skip("sed_scores_eval", name, f"failed in {python}: {last[0]}")
        return
    if "skipped" in theirs:
        ctx.skip("sed_scores_eval", name, f"not finished: killed after {timeout:g} s (10 x the budget)")
        return
    external_row(ctx, "sed_scores_eval", name, theirs["cpu"], difference=abs(theirs["value"] - value),
                 note=f"in {python}; peak RSS increase {theirs['peak_mb']:,.0f} MB")


def work_agreement(ctx: Context):
    """Rater agreement, every rater with the same number of segments (bench_agreement's data)."""
    import audeval
    import bench_agreement

    size = ctx.size
    raters, durations = bench_agreement.make_raters(files=size["files"], segments=size["segments"],
                                                    rows=size["rows"], raters=size["raters"])
    n_rows = sum(len(s) for s in raters.values())
    ctx.info = {"data": f"{len(raters)} raters x {size['rows']:,} segments, {len(durations):,} files x "
                        f"{bench_agreement.DURATION:g} s", "n": size["rows"]}
    pair = dict(list(raters.items())[:2])
    options = dict(files_duration=durations)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alpha = ctx.audeval("krippendorff_alpha", lambda: audeval.krippendorff_alpha(raters, **options),
                            n_events=n_rows, main=True)
        fleiss = ctx.audeval("fleiss_kappa", lambda: audeval.fleiss_kappa(raters, **options), n_events=n_rows)
        ctx.audeval("cohen_kappa (2 raters)", lambda: audeval.cohen_kappa(pair, **options),
                    n_events=2 * size["rows"])
        spans = ctx.audeval("disagreements", lambda: audeval.disagreements(raters, **options), n_events=n_rows)
        stats = audeval.agreement_statistics(raters, **options)
        names = sorted(durations)
        parts = [audeval.agreement_statistics({k: subset_files(s, p) for k, s in raters.items()},
                                              files_duration={f: durations[f] for f in p})
                 for p in (names[: len(names) // 2], names[len(names) // 2:])]
        ctx.checks = {
            "alpha from statistics table": abs(audeval.krippendorff_alpha(stats) - alpha),
            "fleiss kappa from statistics table": abs(audeval.fleiss_kappa(stats) - fleiss),
            "alpha from two shards summed": abs(audeval.krippendorff_alpha(audeval.sum_statistics(parts)) - alpha),
        }
    ctx.sanity = {"alpha": float(alpha), "fleiss kappa": float(fleiss), "disagreement spans": len(spans)}


# bench_separation's worker names -> (toolkit, call)
SEPARATION_TOOLS = {"mir_eval": ("mir_eval", "separation.bss_eval_sources"),
                    "museval_sources": ("museval", "metrics.bss_eval (sources version, one window)"),
                    "fast_exact": ("fast_bss_eval", "bss_eval_sources (exact)")}


def work_separation_sources(ctx: Context):
    """BSS Eval v3 bss_eval_sources (512 taps); references in --separation-python."""
    import audeval.separation as separation
    import bench_separation

    size = ctx.size
    gen = bench_separation._generator()
    n_samples = int(size["seconds"] * size["rate"])
    data = bench_separation._utterances(gen, size["utterances"], size["sources"], n_samples, size.get("channels"))
    ctx.info = {"data": f"{size['utterances']} x {size['sources']} sources x {size['seconds']:g} s at "
                        f"{size['rate']} Hz" + (f", {size['channels']} channels" if size.get("channels") else ""),
                "n": size["utterances"] * size["seconds"]}
    ours = ctx.audeval("bss_eval_sources", lambda: [separation.bss_eval_sources(r, e) for r, e in data], main=True)
    refs, est = data[0]
    found = separation.bss_eval_sources(refs, est[::-1], permutation=True)
    ctx.checks = {"permutation found vs matched order (first item)":
                  max(max_abs_diff(found[k], ours[0][k]) for k in bench_separation.KEYS)}
    ctx.sanity = {"median SDR": float(np.median([o["sdr"] for o in ours])),
                  "estimate order recovered": bool((found["estimate"] == np.arange(len(refs))[::-1]).all())}
    python = reference_python(ctx, "separation", list(SEPARATION_TOOLS.values()))
    for tool, (toolkit, name) in SEPARATION_TOOLS.items() if python else ():
        res, error = bench_separation._run_reference(python, tool, data, False)
        if res is None:
            ctx.skip(toolkit, name, f"failed in {python}: {error}")
            continue
        diffs, _ = bench_separation.compare_v3(ours, res["results"], False)
        external_row(ctx, toolkit, name, res["cpu"], difference=diffs["sdr"],
                     note=f"SDR difference (dB) shown; SIR {diffs['sir']:.1e}, SAR {diffs['sar']:.1e}")


DIARIZATION_TOOLS = ("spy-der", "simpleder", "pyannote.metrics", "md-eval-22 (NeMo port)")
"""md-eval-22.pl is on no package registry: its rules as NeMo 3.0.0 ports them, with --nemo-wheel."""


def work_diarization_speech(ctx: Context):
    """DER on 5 min conversations of 4 speakers; references in --diarization-python."""
    import tempfile

    import audeval
    import bench_diarization

    truth, prediction, durations = bench_diarization.make_data(ctx.size["files"])
    n_events = len(truth) + len(prediction)
    ctx.info = {"truth": len(truth), "prediction": len(prediction), "files": len(durations), "n": ctx.size["files"]}
    der = ctx.audeval("diarization_error_rate (optimal, per file)",
                      lambda: audeval.diarization_error_rate(truth, prediction, files_duration=durations),
                      n_events=n_events, main=True)
    stats = audeval.diarization_statistics(truth, prediction, files_duration=durations)
    shards = shard_statistics(audeval.diarization_statistics, truth, prediction, durations)
    ctx.checks = {"DER from statistics table": abs(audeval.diarization_error_rate(stats) - der),
                  "DER from two shards summed": abs(audeval.diarization_error_rate(shards) - der)}
    ctx.sanity = {"DER": der}
    python = reference_python(ctx, "diarization", [(tool, "DER") for tool in DIARIZATION_TOOLS])
    if python is None:
        return
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "data.npz")
        save_turns(path, truth, prediction, durations)
        spec = json.dumps({"kind": "diarization", "data": path, "budget": ctx.budget,
                           "nemo_wheel": ctx.pythons.get("nemo_wheel")})
        out = subprocess.run([python, os.path.abspath(__file__), "--reference-worker", spec],
                             capture_output=True, text=True, check=False, timeout=20 * ctx.budget + 60)
    if out.returncode != 0:
        error = (out.stderr.strip().splitlines() or [f"exit code {out.returncode}"])[-1]
        for tool in DIARIZATION_TOOLS:
            ctx.skip(tool, "DER", f"failed in {python}: {error}")
        return
    files = sorted(durations.index)
    for tool, res in json.loads(out.stdout.strip().splitlines()[-1]).items():
        if "error" in res:
            error = res["error"]
            ctx.skip(tool, "DER", error if error.startswith("not measured") else f"failed in {python}: {error}")
            continue
        k = res["files"]
        ours = der if k == len(files) else audeval.diarization_error_rate(*first_files(truth, prediction,
                                                                                        durations, k))
        note = f"in {python}" + ("" if k == len(files) else f"; ran on {k} of {len(files)} files in "
                                 f"{res['cpu']:.1f} s CPU (budget {ctx.budget:g} s), time scaled linearly")
        external_row(ctx, tool, "DER", res["cpu"], difference=abs(res["value"] - ours), note=note,
                     scale=len(files) / k)


def save_turns(path: str, truth: pd.Series, prediction: pd.Series, durations: pd.Series) -> None:
    """Two label Series and files' durations as plain arrays (read by another interpreter)."""
    arrays = {"duration_files": durations.index.to_numpy(dtype=str),
              "duration_ns": durations.to_numpy().astype("timedelta64[ns]").astype("int64")}
    for side, series in (("truth", truth), ("prediction", prediction)):
        arrays[f"{side}_file"] = series.index.get_level_values("file").to_numpy(dtype=str)
        for level in ("start", "end"):
            arrays[f"{side}_{level}"] = series.index.get_level_values(level).to_numpy().astype("int64")
        arrays[f"{side}_label"] = series.astype(str).to_numpy(dtype=str)
    np.savez(path, **arrays)


def load_turns(path: str) -> tuple[pd.Series, pd.Series, pd.Series]:
    """The inverse of :func:`save_turns`."""
    data = np.load(path)
    sides = []
    for side in ("truth", "prediction"):
        index = pd.MultiIndex.from_arrays(
            [data[f"{side}_file"].astype(object), pd.to_timedelta(data[f"{side}_start"], unit="ns"),
             pd.to_timedelta(data[f"{side}_end"], unit="ns")], names=["file", "start", "end"])
        sides.append(pd.Series(data[f"{side}_label"].astype(object), index=index))
    durations = pd.Series(pd.to_timedelta(data["duration_ns"], unit="ns"),
                          index=pd.Index(data["duration_files"].astype(object), name="file"))
    return sides[0], sides[1], durations


def reference_worker(spec: dict) -> dict:
    """Run in the reference interpreter: each diarization toolkit within the budget (CPU s)."""
    import bench_diarization as bd

    truth, prediction, durations = load_turns(spec["data"])
    files = sorted(durations.index)
    turns = bd.per_file(truth), bd.per_file(prediction)
    uem = {f: [(0.0, d.total_seconds())] for f, d in durations.items()}

    def part(mapping, chosen):
        return {f: mapping[f] for f in chosen if f in mapping}

    def pyannote(chosen):
        from pyannote.metrics.diarization import DiarizationErrorRate

        data = bd.annotations(truth, prediction, durations, chosen)
        return lambda: bd.pyannote_metric(DiarizationErrorRate(), data)

    def spyder(chosen):  # TurnLists built untimed where bench_diarization offers it
        inputs = part(turns[0], chosen), part(turns[1], chosen), part(uem, chosen)
        if hasattr(bd, "spyder_prepare"):
            return bd.spyder_prepare(*inputs)
        return lambda: bd.spyder_der(*inputs)

    prepare = {
        "spy-der": spyder,
        "simpleder": lambda chosen: lambda: bd.simpleder_der(part(turns[0], chosen), part(turns[1], chosen)),
        "pyannote.metrics": pyannote,
    }
    wheel = spec.get("nemo_wheel")
    prepare["md-eval-22 (NeMo port)"] = (
        (lambda chosen: bd.mdeval_prepare(wheel, part(turns[0], chosen), part(turns[1], chosen), part(uem, chosen)))
        if wheel else None
    )
    return {
        tool: within_budget(prepare[tool], files, spec["budget"]) if prepare[tool] else
        {"error": "not measured: pass --nemo-wheel (nemo_toolkit-3.0.0 wheel, see benchmarks/bench_diarization.py)"}
        for tool in DIARIZATION_TOOLS
    }


def within_budget(prepare, files: list, budget: float) -> dict:
    """CPU time and value of ``prepare(files)()`` (conversion untimed): on a tenth of the files
    first, then on all of them if that is expected to fit in ``budget`` CPU seconds;
    a run under 1 s is the median of 3 runs."""

    def once(chosen):
        function = prepare(chosen)
        start = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = function()
        return time.process_time() - start, value

    k = max(1, len(files) // 10)
    try:
        cpu, value = once(files[:k])
        if k < len(files) and cpu * len(files) / k <= budget:
            k = len(files)
            cpu, value = once(files)
        if cpu < 1.0:
            cpu = statistics.median([cpu, once(files[:k])[0], once(files[:k])[0]])
        return {"files": k, "cpu": cpu, "value": float(value)}
    except Exception as error:  # a missing toolkit, or one that fails on this input
        return {"error": f"{type(error).__name__}: {error}"}


WORKLOADS = {
    "events": work_events,
    "events_classes": work_events_classes,
    "segments": work_segments,
    "structure": work_structure,
    "structure_long": lambda ctx: work_structure(ctx, long=True),
    "diarization": work_diarization,
    "separation_si": work_separation_si,
    "separation_bss": work_separation_bss,
    "scores": work_scores,
    "agreement": work_agreement,
    "separation_sources": work_separation_sources,
    "diarization_speech": work_diarization_speech,
    "hierarchy": work_hierarchy,
}


def run_worker(workload, size, *, repeat, min_time, budget, hints, references, pythons=None) -> dict:
    ctx = Context(workload, size, repeat=repeat, min_time=min_time, budget=budget,
                  hints=hints, references=references, pythons=pythons)
    ctx.info, ctx.sanity = {}, {}
    begin = time.perf_counter()
    WORKLOADS[workload](ctx)
    for row in ctx.rows:
        if row["implementation"] not in ("audeval", "pandas") and ctx.main_cpu:
            row["speedup"] = row["cpu"] / ctx.main_cpu
    return {
        "workload": workload,
        "size": size,
        "label": size_label(workload, size),
        "info": ctx.info,
        "rows": ctx.rows,
        "checks": ctx.checks,
        "sanity": ctx.sanity,
        "rates": ctx.rates,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "seconds": time.perf_counter() - begin,
    }


# -------------------------------------------------------------------------
# Reporting
# -------------------------------------------------------------------------


def versions() -> dict:
    out = {"python": platform.python_version()}
    for name in ("audeval", "numpy", "pandas", "scipy", "audmetric", "sed_eval", "mir_eval",
                 "pyannote.metrics", "museval", "nussl"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


REFERENCE_PACKAGES = {"scores": ("numpy", "pandas", "sed_scores_eval"),
                      "separation": ("numpy", "scipy", "mir_eval", "museval", "fast_bss_eval"),
                      "diarization": ("numpy", "pandas", "spy-der", "simpleder", "pyannote.metrics")}


def pythons_of(args) -> dict:
    """kind -> interpreter given with --scores-python, --separation-python, --diarization-python."""
    given = {kind: getattr(args, option[2:].replace("-", "_")) for kind, (option, _) in PYTHON_OPTIONS.items()}
    given["nemo_wheel"] = getattr(args, "nemo_wheel", None)  # md-eval-22's rules (not an interpreter)
    return {kind: python for kind, python in given.items() if python}


def reference_versions(pythons: dict) -> dict:
    """Versions of the reference packages in each interpreter given."""
    script = ("import importlib.metadata as m, json, platform, sys\nout = {'python': platform.python_version()}\n"
              "for name in sys.argv[1:]:\n    try: out[name] = m.version(name)\n"
              "    except m.PackageNotFoundError: out[name] = None\nprint(json.dumps(out))")
    out = {}
    for kind, python in pythons.items():
        if kind not in REFERENCE_PACKAGES:
            continue
        done = subprocess.run([python, "-c", script, *REFERENCE_PACKAGES[kind]], capture_output=True, text=True,
                              check=False)
        out[kind] = {"python_path": python, **(json.loads(done.stdout) if done.returncode == 0 else
                                               {"error": done.stderr.strip()[-200:]})}
    return out


def machine() -> dict:
    memory = None
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/meminfo") as f:
            memory = int(f.readline().split()[1]) / 1024**2
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": memory, "system": platform.platform(),
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS")}


def fmt_time(seconds) -> str:
    if seconds is None or not np.isfinite(seconds):
        return "-"
    if seconds < 1e-2:
        return f"{seconds * 1000:.2f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 100:
        return f"{seconds:.2f} s"
    return f"{seconds:,.0f} s"


def fmt_diff(value) -> str:
    if value is None:
        return ""
    mark = "ok" if value <= AGREE else "DIFFERS"
    return f"{value:.1e} ({mark})"


def results_table(results: list[dict]) -> list[str]:
    lines = []
    by_workload = {}
    for result in results:
        by_workload.setdefault(result["workload"], []).append(result)
    for workload, items in by_workload.items():
        lines += ["", f"### {WORKLOAD_TITLES[workload]}", ""]
        lines.append("| size | data | implementation | call | CPU | wall | runs | peak: tracemalloc / RSS increase "
                     "| bytes / event | speed-up (CPU) | max abs diff | note |")
        lines.append("|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---|")
        for result in items:
            info = result["info"]
            if result.get("error"):
                lines.append(f"| {result['label']} | | | | | | | | | | | {result['error']} |")
                continue
            if "data" in info:
                data = info["data"]
            elif "truth" in info:
                data = f"{info['truth']:,} + {info['prediction']:,} rows, {info['files']:,} files"
            else:
                data = f"{info['sources']} x {info['samples']:,} x {info['channels']} at {info['rate']} Hz"
            for row in result["rows"]:
                mark = "~" if row.get("extrapolated") else ""
                speed = f"{mark}{row['speedup']:,.0f}x" if np.isfinite(row.get("speedup", math.nan)) else ""
                peak = ""
                if np.isfinite(row.get("rss_mb", math.nan)):
                    traced = f"{row['peak_mb']:.1f}" if np.isfinite(row["peak_mb"]) else "-"
                    peak = f"{traced} / {row['rss_mb']:.1f} MB"
                per = f"{row['bytes_per_event']:.0f}" if np.isfinite(row["bytes_per_event"]) else ""
                lines.append(
                    f"| {result['label']} | {data} | {row['implementation']} | {row['call']} | "
                    f"{mark}{fmt_time(row['cpu'])} | {mark}{fmt_time(row['wall'])} | {row['runs']} | {peak} | "
                    f"{per} | {speed} | {fmt_diff(row.get('difference'))} | {row['note']} |"
                )
            checks = "; ".join(f"{k}: {fmt_diff(v)}" for k, v in result["checks"].items())
            sanity = "; ".join(
                f"{k}: {v:.4g}" if isinstance(v, float) else f"{k}: {v}" for k, v in result["sanity"].items())
            lines.append(f"| {result['label']} | | audeval | equivalent paths | | | | | | | "
                         f"{checks} | {sanity}; worker max RSS {result['maxrss_mb']:.0f} MB |")
    return lines


def find(results, workload, label=None, implementation="audeval", call=None, main=False):
    for result in results:
        if result["workload"] != workload or (label is not None and result["label"] != label):
            continue
        for row in result["rows"]:
            if row["implementation"] != implementation:
                continue
            if call is not None and not row["call"].startswith(call):
                continue
            if main and not row.get("main"):
                continue
            return result, row
    return None, None


def peak_of(row) -> float:
    """The larger of the tracemalloc peak and the RSS increase (MB)."""
    return float(np.nanmax([row["peak_mb"], row.get("rss_mb", math.nan)]))


def largest(results, workload):
    items = [r for r in results if r["workload"] == workload]
    return items[-1]["label"] if items else None


def targets_table(results: list[dict], mode: str) -> list[str]:
    """One row per target of SPEC section 9, with the measured value."""
    rows = []

    def add(workload_desc, target, measured, met, note=""):
        status = {True: "met", False: "NOT met", None: "not measured"}[met]
        rows.append(f"| {workload_desc} | {target} | {measured} | {status} | {note} |")

    # events vs sort_index
    label = "1,000,000 events" if mode == "full" else largest(results, "events") or "1,000,000 events"
    res, ours = find(results, "events", label, main=True)
    _, base = find(results, "events", label, implementation="pandas")
    if ours and base:
        ratio = ours["cpu"] / base["cpu"]
        wall_ratio = ours["wall"] / base["wall"]
        _, greedy = find(results, "events", label, call="event_fscore_per_class (greedy)")
        add(f"event metrics, {label} per side, {res['info']['files']:,} files", "<= 3x truth.sort_index()",
            f"{ratio:.1f}x (CPU: {fmt_time(ours['cpu'])} vs {fmt_time(base['cpu'])}; wall {wall_ratio:.1f}x)",
            ratio <= 3, f"optimal matching; greedy matching: {greedy['cpu'] / base['cpu']:.1f}x ({fmt_time(greedy['cpu'])})")
    else:
        add("event metrics, 1M + 1M events, 100k files", "<= 3x truth.sort_index()", "-", None,
            _why_not(results, "events", label))
    # events vs references at 10k
    for label, shape in (("10,000 events", "10 s clips"), ("10,000 events, 1000 s files", "10 files of 1000 s")):
        # SPEC: >= 1000x audmetric on both shapes, >= 1000x sed_eval on long files;
        # on 10 s clips the target is <= 3 ms CPU (sed_eval's time is that row's note)
        for toolkit in ("audmetric", "sed_eval") if shape != "10 s clips" else ("audmetric",):
            res, row = find(results, "events", label, implementation=toolkit)
            if res is None:
                continue
            _, ours = find(results, "events", label, main=True)
            if row and np.isfinite(row.get("speedup", math.nan)):
                mark = "~" if row.get("extrapolated") else ""
                add(f"event metrics, 10k events ({shape}), vs {toolkit}", ">= 1000x faster",
                    f"{mark}{row['speedup']:,.0f}x ({mark}{fmt_time(row['cpu'])} vs {fmt_time(ours['cpu'])})",
                    row["speedup"] >= 1000,
                    (row["note"] + "; " if row["note"] else "") + "agreement " + fmt_diff(row.get("difference")))
            else:
                add(f"event metrics, 10k events ({shape}), vs {toolkit}", ">= 1000x faster", "-", None,
                    row["note"] if row else "")
    _event_extra_targets(results, add)
    # segments
    label = "1000 h" if mode == "full" else largest(results, "segments") or "1000 h"
    res, one = find(results, "segments", label, call="segment_report(1 s)")
    _, ten = find(results, "segments", label, call="segment_report(0.01 s)")
    _, one_c = find(results, "segments", label, call="segment_report(1 s, compat")
    _, ten_c = find(results, "segments", label, call="segment_report(0.01 s, compat")
    if one and ten:
        r1, r2 = ten["cpu"] / one["cpu"], ten_c["cpu"] / one_c["cpu"]
        add(f"segment metrics, {label} ({res['info']['files']:,} files), 10 ms vs 1 s", "time independent of resolution",
            f"10 ms / 1 s = {r1:.2f} (compat=sed_eval: {r2:.2f}); {fmt_time(one['cpu'])} / {fmt_time(ten['cpu'])}",
            max(r1, r2) <= 1.5, "met when the ratio is <= 1.5")
    else:
        add(f"segment metrics, {label}, 10 ms vs 1 s", "time independent of resolution", "-", None,
            _why_not(results, "segments", label))
    for resolution, ours in (("1 s", one_c), ("0.01 s", ten_c)):
        _, row = find(results, "segments", label, implementation="sed_eval", call=f"SegmentBasedMetrics({resolution})")
        if row and np.isfinite(row.get("speedup", math.nan)):
            mark = "~" if row.get("extrapolated") else ""
            speed = row["cpu"] / ours["cpu"]
            add(f"segment metrics, {label}, {resolution}, vs sed_eval", ">= 100x faster",
                f"{mark}{speed:,.0f}x ({mark}{fmt_time(row['cpu'])} vs {fmt_time(ours['cpu'])}, compat=sed_eval)",
                speed >= 100, (row["note"] + "; " if row["note"] else "") + "agreement " + fmt_diff(row.get("difference")))
        else:
            add(f"segment metrics, {label}, {resolution}, vs sed_eval", ">= 100x faster", "-", None,
                _why_not(results, "segments", label, "sed_eval"))
    # structure
    label = "1,000 files x 50 sections"
    res, row = find(results, "structure", label, main=True)
    if row:
        add("structure, 1000 files x 50 segments", "<= 1 s",
            f"{fmt_time(row['cpu'])} CPU, {fmt_time(row['wall'])} wall, peak {peak_of(row):.0f} MB",
            row["cpu"] <= 1.0)
    else:
        add("structure, 1000 files x 50 segments", "<= 1 s", "-", None, _why_not(results, "structure", label))
    label = "60 min x 10,000 sections"
    res, row = find(results, "structure_long", label, main=True)
    if row:
        add("structure, one 1 h file x 10k segments", "<= 0.5 s and <= 300 MB",
            f"{fmt_time(row['cpu'])} CPU, {fmt_time(row['wall'])} wall, peak {peak_of(row):.0f} MB",
            row["cpu"] <= 0.5 and peak_of(row) <= 300)
    else:
        add("structure, one 1 h file x 10k segments", "<= 0.5 s and <= 300 MB", "-", None,
            _why_not(results, "structure_long", label))
    # diarization
    label = "1,000 files" if mode == "full" else largest(results, "diarization") or "1,000 files"
    res, row = find(results, "diarization", label, implementation="pyannote.metrics", call="DiarizationErrorRate")
    if row and np.isfinite(row.get("speedup", math.nan)):
        mark = "~" if row.get("extrapolated") else ""
        add(f"diarization, {label}, vs pyannote.metrics", ">= 100x faster",
            f"{mark}{row['speedup']:,.0f}x ({fmt_time(row['cpu'])} vs {fmt_time(row['cpu'] / row['speedup'])})",
            row["speedup"] >= 100, "agreement " + fmt_diff(row.get("difference")))
    else:
        add(f"diarization, {label}, vs pyannote.metrics", ">= 100x faster", "-", None,
            _why_not(results, "diarization", label, "pyannote.metrics"))
    # separation
    label = largest(results, "separation_si") or "30 s"
    res, row = find(results, "separation_si", label, implementation="nussl")
    if row and np.isfinite(row.get("speedup", math.nan)):
        mark = "~" if row.get("extrapolated") else ""
        add(f"separation SI family, {label}, vs nussl", ">= 50x faster",
            f"{mark}{row['speedup']:,.0f}x ({fmt_time(row['cpu'])} vs {fmt_time(row['cpu'] / row['speedup'])})",
            row["speedup"] >= 50, "agreement " + fmt_diff(row.get("difference")))
    else:
        add(f"separation SI family, {label}, vs nussl", ">= 50x faster", "-", None,
            _why_not(results, "separation_si", label, "nussl"))
    label = largest(results, "separation_bss") or "60 s"
    res, row = find(results, "separation_bss", label, implementation="museval")
    if row and np.isfinite(row.get("speedup", math.nan)):
        mark = "~" if row.get("extrapolated") else ""
        add(f"separation BSS Eval v4, {label}, vs museval", ">= 2.5x faster",
            f"{mark}{row['speedup']:.1f}x ({fmt_time(row['cpu'])} vs {fmt_time(row['cpu'] / row['speedup'])})",
            row["speedup"] >= 2.5, row["note"])
        # agreement at the largest size measured fully
        diffs = [r2.get("difference") for r in results if r["workload"] == "separation_bss"
                 for r2 in r["rows"] if r2["implementation"] == "museval" and r2.get("difference") is not None]
        worst = max(diffs) if diffs else None
        add("separation BSS Eval v4, SDR vs museval", "agree to 1e-9 dB",
            f"max abs difference {worst:.1e} dB" if worst is not None else "-",
            None if worst is None else worst <= 1e-9, "over all sizes run")
    else:
        add(f"separation BSS Eval v4, {label}, vs museval", ">= 2.5x faster", "-", None,
            _why_not(results, "separation_bss", label, "museval"))
        add("separation BSS Eval v4, SDR vs museval", "agree to 1e-9 dB", "-", None,
            _why_not(results, "separation_bss", label, "museval"))
    # memory: bytes per event at the largest input of each label workload (fixed costs amortised)
    worst, where, small = 0.0, None, 0.0
    for workload in ("events", "segments", "structure", "structure_long", "diarization"):
        items = [r for r in results if r["workload"] == workload and "truth" in r["info"]]
        if not items:
            continue
        big = max(items, key=lambda r: r["info"]["truth"] + r["info"]["prediction"])
        for result in items:
            for row in result["rows"]:
                if row["implementation"] != "audeval" or not np.isfinite(row["bytes_per_event"]):
                    continue
                if result is big and row["bytes_per_event"] > worst:
                    worst = row["bytes_per_event"]
                    where = f"{workload}, {result['label']}, {row['call']}"
                elif result is not big:
                    small = max(small, row["bytes_per_event"])
    if where:
        add("memory: peak per event, largest input of each label workload", "<= 1 KB per event",
            f"worst {worst:.0f} bytes ({where})", worst <= 1024,
            f"smaller inputs: up to {small:,.0f} bytes per event, a fixed cost of about 2 MB "
            "(the first call in a process) over few rows")
    else:
        add("memory: peak per event, largest input of each label workload", "<= 1 KB per event", "-", None,
            "no label workload (events, segments, structure, diarization) in this run")
    _classes_target(results, add)
    _score_targets(results, add, mode)
    _agreement_targets(results, add)
    _sources_targets(results, add)
    _speech_targets(results, add, mode)
    _hierarchy_target(results, add)
    return ["| workload | target | measured | status | note |", "|---|---|---|---|---|"] + rows


def _event_extra_targets(results, add) -> None:
    """Issue 20's event rows: 10k events in 10 s clips, the dense files."""
    res, ours = find(results, "events", "10,000 events", main=True)
    if ours:
        _, sed = find(results, "events", "10,000 events", implementation="sed_eval")
        sed_time = fmt_time(sed["cpu"]) if sed and np.isfinite(sed.get("cpu", math.nan)) else "not run"
        add("event metrics, 10k events (10 s clips), event_fscore", "<= 3 ms CPU",
            f"{fmt_time(ours['cpu'])} CPU", ours["cpu"] <= 0.003, f"sed_eval: {sed_time}")
    res, ours = find(results, "events", "50,000 events, one 3600 s file", main=True)
    if ours:
        add("event metrics, one 1 h file with 50k polyphonic events (optimal)",
            "no slower than before (0.21 s CPU, same machine, before the change)",
            f"{fmt_time(ours['cpu'])} CPU", ours["cpu"] <= 0.21)
    res, ours = find(results, "events", "8,000 events, one label, one file (dense)", main=True)
    if ours:
        _, greedy = find(results, "events", "8,000 events, one label, one file (dense)", call="event_fscore (greedy)")
        _, sed = find(results, "events", "8,000 events, one label, one file (dense)", implementation="sed_eval")
        note = f"greedy {fmt_time(greedy['cpu'])}" if greedy else ""
        if sed and np.isfinite(sed.get("cpu", math.nan)):
            note += f"; sed_eval {fmt_time(sed['cpu'])}, agreement {fmt_diff(sed.get('difference'))}"
        add("event metrics, one file, one label, 8,000 near-perfect events (optimal)", "< 1 s",
            f"{fmt_time(ours['cpu'])} CPU", ours["cpu"] < 1.0, note)


def _why_not(results, workload, label, toolkit=None) -> str:
    """Why a target row has no measurement: the skipped row's note, the worker's error, or not run."""
    for result in results:
        if result["workload"] != workload or (label is not None and result["label"] != label):
            continue
        if result.get("error"):
            return result["error"]
        for row in result["rows"]:
            if row["implementation"] == toolkit and row.get("note"):
                return row["note"]
        return "reference not run (--no-reference)" if toolkit else ""
    if any(result["workload"] == workload for result in results):
        return f"not run: {label} is not among this run's sizes"
    return f"not run (workload {workload} not in this run)"


def _speed(row, ours) -> str:
    mark = "~" if row.get("extrapolated") else ""
    return f"{mark}{row['cpu'] / ours['cpu']:,.1f}x ({mark}{fmt_time(row['cpu'])} vs {fmt_time(ours['cpu'])})"


def _measured(row) -> bool:
    return row is not None and not row.get("skipped") and np.isfinite(row.get("cpu", math.nan))


def _classes_target(results, add) -> None:
    """Peak memory per event with 100 and 1,000 classes (every audeval call of the workload)."""
    items = [r for r in results if r["workload"] == "events_classes" and not r.get("error")]
    desc = "memory: peak per event, 100k events with 100 and 1,000 classes"
    if not items:
        add(desc, "<= 1 KB per event", "-", None, _why_not(results, "events_classes", None))
        return
    worst = {r["label"]: max((row["bytes_per_event"], row["call"]) for row in r["rows"]
                             if row["implementation"] == "audeval" and np.isfinite(row["bytes_per_event"]))
             for r in items}
    add(desc, "<= 1 KB per event", "; ".join(f"{label}: {value:,.0f} bytes ({call})"
                                              for label, (value, call) in worst.items()),
        max(value for value, _ in worst.values()) <= 1024, "the worst call of each size")


def _hierarchy_target(results, add) -> None:
    """Issue 23 (no SPEC row): the 1 h hierarchy within time and memory."""
    label = "1 h, 4 levels, 10k finest segments"
    desc = "hierarchy (issue 23, no SPEC row), one 1 h file, 4 levels, 10k finest segments"
    _, ours = find(results, "hierarchy", label, main=True)
    if ours:
        add(desc, "<= 0.5 s and <= 300 MB", f"{fmt_time(ours['cpu'])} CPU, peak {peak_of(ours):.0f} MB",
            ours["cpu"] <= 0.5 and peak_of(ours) <= 300, "hierarchy_report (T reduced, T full, L)")
    else:
        add(desc, "<= 0.5 s and <= 300 MB", "-", None, _why_not(results, "hierarchy", label))


def _score_targets(results, add, mode) -> None:
    """PSDS1 on DESED against sed_scores_eval; 5 long files within time and memory."""
    label = "DESED validation (1,168 x 10 s)"
    res, ours = find(results, "scores", label, main=True)
    _, ref = find(results, "scores", label, implementation="sed_scores_eval")
    desc = "score-based PSDS1 (all thresholds), DESED validation (1168 x 10 s), vs sed_scores_eval"
    if ours and _measured(ref):
        speed = ref["cpu"] / ours["cpu"]
        add(desc, ">= 10x faster", _speed(ref, ours), speed >= 10,
            f"{ref['note']}; agreement {fmt_diff(ref.get('difference'))}")
    else:
        add(desc, ">= 10x faster", "-", None, _why_not(results, "scores", label, "sed_scores_eval"))
    longs = [r["label"] for r in results if r["workload"] == "scores" and r["size"].get("data") == "long"]
    label = "5 files x 240 s" if mode == "full" or not longs else longs[-1]
    res, ours = find(results, "scores", label, main=True)
    desc = f"score-based PSDS1 (all thresholds), {label} at 20 ms"
    if ours:
        _, ref = find(results, "scores", label, implementation="sed_scores_eval")
        note = (f"sed_scores_eval {fmt_time(ref['cpu'])} CPU, {ref['note']}, agreement "
                f"{fmt_diff(ref.get('difference'))}" if _measured(ref)
                else "sed_scores_eval: " + _why_not(results, "scores", label, "sed_scores_eval"))
        add(desc, "<= 1 s and <= 200 MB", f"{fmt_time(ours['cpu'])} CPU, peak {peak_of(ours):.0f} MB",
            ours["cpu"] <= 1.0 and peak_of(ours) <= 200, note)
    else:
        add(desc, "<= 1 s and <= 200 MB", "-", None, _why_not(results, "scores", label))


def _agreement_targets(results, add) -> None:
    """Kappa, alpha and disagreements of 5 raters x 10k segments, each <= 1 s."""
    label = largest(results, "agreement") or "5 raters x 10,000 segments"
    desc = f"agreement, {label} each"
    calls = ("cohen_kappa", "fleiss_kappa", "krippendorff_alpha", "disagreements")
    rows = [find(results, "agreement", label, call=call)[1] for call in calls]
    if all(rows):
        add(desc, "kappa/alpha/disagreements <= 1 s",
            ", ".join(f"{call} {fmt_time(row['cpu'])}" for call, row in zip(calls, rows)) + " (CPU)",
            max(row["cpu"] for row in rows) <= 1.0, "cohen_kappa of 2 raters; the others of all raters")
    else:
        add(desc, "kappa/alpha/disagreements <= 1 s", "-", None, _why_not(results, "agreement", label))


def _sources_targets(results, add) -> None:
    """bss_eval_sources against each reference at each size; SDR agreement with mir_eval."""
    labels = [r["label"] for r in results if r["workload"] == "separation_sources"]
    worst = {}
    for label in labels or ["2-4 sources, 4-30 s"]:
        _, ours = find(results, "separation_sources", label, main=True)
        for toolkit, name in SEPARATION_TOOLS.values():
            _, ref = find(results, "separation_sources", label, implementation=toolkit)
            desc = f"bss_eval_sources, {label}, vs {toolkit} ({name})"
            if ours and _measured(ref):
                add(desc, "faster", _speed(ref, ours), ref["cpu"] > ours["cpu"], ref["note"])
                worst[toolkit] = max(worst.get(toolkit, 0.0), ref["difference"])
            else:
                add(desc, "faster", "-", None, _why_not(results, "separation_sources", label, toolkit))
    others = ", ".join(f"{k} {v:.1e} dB" for k, v in worst.items() if k != "mir_eval")
    if "mir_eval" in worst:
        add("bss_eval_sources, SDR vs mir_eval", "agree to 1e-9 dB", f"max abs difference {worst['mir_eval']:.1e} dB",
            worst["mir_eval"] <= 1e-9, "over all sizes run" + (f"; to {others}" if others else ""))
    else:
        add("bss_eval_sources, SDR vs mir_eval", "agree to 1e-9 dB", "-", None,
            _why_not(results, "separation_sources", labels[-1] if labels else None, "mir_eval"))


def _speech_targets(results, add, mode) -> None:
    """DER on 5 min files against the fastest other tool."""
    label = "1,000 files x 5 min" if mode == "full" else largest(results, "diarization_speech")
    desc = f"diarization, {label or '1000 files x 5 min'}, vs the fastest other tool"
    target = ">= 10x faster than the fastest other tool"
    _, ours = find(results, "diarization_speech", label, main=True)
    refs = [find(results, "diarization_speech", label, implementation=tool)[1] for tool in DIARIZATION_TOOLS]
    measured = [row for row in refs if _measured(row)]
    md_eval = "md-eval-22.pl itself is on no package registry (SPEC quotes 7.6 s for it)"
    if not (ours and measured):
        why = _why_not(results, "diarization_speech", label, DIARIZATION_TOOLS[0])
        add(desc, target, "-", None, f"{why}; {md_eval}")
        return
    fastest = min(measured, key=lambda row: row["cpu"])
    others = "; ".join(f"{row['implementation']} {_speed(row, ours)}, agreement {fmt_diff(row['difference'])}"
                       for row in measured)
    missing = "".join(f"; {tool}: {row['note'] if row else 'not run'}" for tool, row in zip(DIARIZATION_TOOLS, refs)
                      if not _measured(row))
    add(desc, target, f"{_speed(fastest, ours)} vs {fastest['implementation']}",
        fastest["cpu"] / ours["cpu"] >= 10, f"{others}{missing}; {md_eval}")


def limit_table(results: list[dict]) -> list[str]:
    """Event metrics against the limit, truth.sort_index() in the same process (CPU time)."""
    lines = ["| size | files | truth.sort_index() | optimal | ratio | greedy | ratio |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for result in results:
        if result["workload"] != "events" or not result["rows"]:
            continue
        rows = {row["call"]: row for row in result["rows"]}
        if "truth.sort_index() (the limit)" not in rows:
            continue
        base = rows["truth.sort_index() (the limit)"]["cpu"]
        optimal = rows["event_fscore (optimal)"]["cpu"]
        greedy = rows["event_fscore_per_class (greedy)"]["cpu"]
        lines.append(f"| {result['label']} | {result['info']['files']:,} | {fmt_time(base)} | {fmt_time(optimal)} | "
                     f"{optimal / base:.1f}x | {fmt_time(greedy)} | {greedy / base:.1f}x |")
    return lines


def growth_table(results: list[dict]) -> list[str]:
    """audeval's main call: how cost grows with size."""
    lines = ["| workload | size | rows (truth + prediction) | audeval CPU | per 1000 rows |", "|---|---|---:|---:|---:|"]
    for result in results:
        info = result["info"]
        if "truth" not in info:
            continue
        for row in result["rows"]:
            if row.get("main"):
                n = info["truth"] + info["prediction"]
                lines.append(f"| {result['workload']} | {result['label']} | {n:,} | {fmt_time(row['cpu'])} | "
                             f"{fmt_time(row['cpu'] / n * 1000)} |")
    return lines


def plot(results: list[dict], path: str) -> None:
    """CPU time against size per workload, log-log; open markers: extrapolated."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    panels = [
        (("events",), "truth events (10 s clips)", "event-based"),
        (("segments",), "hours of audio (1 h files)", "segment-based (1 s and 10 ms)"),
        (("structure",), "songs (10-60 sections)", "structure"),
        (("diarization",), "files (1-5 min)", "diarization / detection"),
        (("separation_si", "separation_bss"), "seconds of audio (4 stereo sources)", "separation"),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.0 * len(panels), 4.2))
    for ax, (workloads, xlabel, title) in zip(axes, panels):
        series = {}
        for r in results:
            if r["workload"] not in workloads or "sections" in r["size"] or "clip_seconds" in r["size"]:
                continue
            for row in r["rows"]:
                if not np.isfinite(row["cpu"]):
                    continue
                name = f"{row['implementation']}: {row['call']}"
                series.setdefault(name, []).append((r["info"]["n"], row["cpu"], row.get("extrapolated", False)))
        for name, points in series.items():
            xs, ys, _ = zip(*points)
            ours = name.startswith(("audeval", "pandas"))
            (line,) = ax.plot(xs, ys, "-" if ours else "--", marker="o", label=name, linewidth=1.2, markersize=3)
            for x, y, extrapolated in points:
                if extrapolated:
                    ax.plot([x], [y], "o", markerfacecolor="white", color=line.get_color(), markersize=6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel(xlabel)
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=5.5, loc="upper left")
    axes[0].set_ylabel("CPU seconds (open marker: extrapolated)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


# -------------------------------------------------------------------------
# Driver
# -------------------------------------------------------------------------


def spawn(workload, size, args, hints) -> dict:
    spec = json.dumps({"workload": workload, "size": size, "hints": hints, "repeat": args.repeat,
                       "min_time": args.min_time, "budget": args.budget, "references": not args.no_reference,
                       "pythons": pythons_of(args)})
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", spec],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        error = (out.stderr.strip().splitlines() or [f"exit code {out.returncode}"])[-1]
        return {"workload": workload, "size": size, "label": size_label(workload, size), "info": {},
                "rows": [], "checks": {}, "sanity": {}, "rates": {}, "maxrss_mb": math.nan,
                "seconds": math.nan, "error": f"worker failed: {error}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small sizes, a few minutes")
    mode.add_argument("--smoke", action="store_true", help="tiny sizes (tests)")
    parser.add_argument("--only", default=None, help="comma-separated workloads: " + ", ".join(WORKLOADS))
    parser.add_argument("--no-reference", action="store_true", help="time audeval only")
    parser.add_argument("--budget", type=float, default=None,
                        help="CPU seconds a reference may take per size before it runs on a share "
                             "(default 60, --quick 10)")
    parser.add_argument("--repeat", type=int, default=None, help="min. runs of audeval (default 5, --smoke 1)")
    parser.add_argument("--min-time", type=float, default=None, help="min. total seconds of audeval runs (default 1)")
    parser.add_argument("--in-process", action="store_true", help="no subprocess per workload")
    parser.add_argument("--json", default=None, help="write all results to this file")
    parser.add_argument("--markdown", default=None, help="write the tables to this file")
    parser.add_argument("--plot", default=None, help="write a plot of cost against size (needs matplotlib)")
    parser.add_argument("--from-json", default=None,
                        help="re-render the tables (and --plot) of a saved --json file, without running")
    for kind, (option, what) in PYTHON_OPTIONS.items():
        parser.add_argument(option, default=None, metavar="PYTHON",
                            help=f"{what}: runs the {kind} references (absent: those rows are not measured)")
    parser.add_argument("--nemo-wheel", default=None, metavar="WHEEL",
                        help="nemo_toolkit 3.0.0 wheel: times md-eval-22's rules as NeMo ports them "
                             "(diarization_speech; needs --diarization-python)")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--reference-worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.reference_worker:
        print(json.dumps(reference_worker(json.loads(args.reference_worker))))
        return []

    if args.worker:
        spec = json.loads(args.worker)
        result = run_worker(spec["workload"], spec["size"], repeat=spec["repeat"], min_time=spec["min_time"],
                            budget=spec["budget"], hints=spec["hints"], references=spec["references"],
                            pythons=spec.get("pythons"))
        print(json.dumps(result, default=float))
        return [result]

    if args.from_json:
        with open(args.from_json) as f:
            saved = json.load(f)
        text = report(saved["header"], saved["results"])
        print(text)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(text + "\n")
        if args.plot:
            plot(saved["results"], args.plot)
        return saved["results"]

    mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    if args.budget is None:
        args.budget = {"smoke": 5.0, "quick": 10.0, "full": 60.0}[mode]
    if args.repeat is None:
        args.repeat = 1 if mode == "smoke" else 5
    if args.min_time is None:
        args.min_time = 0.0 if mode == "smoke" else 1.0
    names = list(WORKLOADS) if args.only is None else args.only.split(",")
    unknown = set(names) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workloads: {sorted(unknown)}")

    started = datetime.datetime.now()
    load_before = os.getloadavg()
    header = {
        "command": " ".join(["python", "benchmarks/run.py"] + list(sys.argv[1:] if argv is None else argv)),
        "mode": mode, "machine": machine(), "versions": versions(), "budget": args.budget,
        "reference_versions": reference_versions(pythons_of(args)),
        "started": started.isoformat(timespec="seconds"),
    }
    print(f"# audeval benchmarks ({mode})", flush=True)
    print(f"{header['machine']['cpu']}, {header['machine']['cores']} cores, "
          f"{header['machine']['memory_gb'] or 0:.0f} GB, OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, "
          f"load average {load_before[0]:.1f}", flush=True)
    print(", ".join(f"{k} {v}" for k, v in header["versions"].items() if v), flush=True)
    results, hints, loads = [], {}, []
    for workload in names:
        for size in SIZES[workload][mode]:
            begin = time.perf_counter()
            loads.append(os.getloadavg()[0])
            if args.in_process:
                result = run_worker(workload, size, repeat=args.repeat, min_time=args.min_time,
                                    budget=args.budget, hints=hints, references=not args.no_reference,
                                    pythons=pythons_of(args))
            else:
                result = spawn(workload, size, args, hints)
            hints.update(result["rates"])
            results.append(result)
            header["load_average"] = {"min": min(loads), "max": max(loads + [os.getloadavg()[0]])}
            header["minutes"] = (datetime.datetime.now() - started).total_seconds() / 60
            if args.json:  # partial results survive an interrupted run
                with open(args.json, "w") as f:
                    json.dump({"header": header, "results": results}, f, indent=1, default=float)
            main_row = next((r for r in result["rows"] if r.get("main")), None)
            refs = ", ".join(
                f"{r['implementation']} {'~' if r.get('extrapolated') else ''}{r.get('speedup', math.nan):,.0f}x"
                for r in result["rows"] if np.isfinite(r.get("speedup", math.nan)))
            print(f"{workload:15s} {result['label']:32s} audeval {fmt_time(main_row['cpu'] if main_row else None):>9s} CPU"
                  f"  [{time.perf_counter() - begin:5.0f} s]  {refs}", flush=True)
    header["load_average"] = {"min": min(loads), "max": max(loads + [os.getloadavg()[0]])}
    header["minutes"] = (datetime.datetime.now() - started).total_seconds() / 60
    text = report(header, results)
    print()
    print(text, flush=True)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"header": header, "results": results}, f, indent=1, default=float)
    if args.plot:
        try:
            plot(results, args.plot)
        except ImportError:
            print("matplotlib is not installed: no plot", file=sys.stderr)
    return results


def report(header: dict, results: list[dict]) -> str:
    """The Markdown report: run details, SPEC targets, growth, all measurements."""
    mode = header["mode"]
    lines = [
        f"Command: `{header['command']}` ({mode} sizes), {header['started']}, {header['minutes']:.1f} min.",
        f"Machine: {header['machine']['cpu']}, {header['machine']['cores']} cores, "
        f"{header['machine']['memory_gb'] or 0:.0f} GB; OPENBLAS_NUM_THREADS={header['machine']['OPENBLAS_NUM_THREADS']}; "
        f"load average (1 min) {header['load_average']['min']:.1f}-{header['load_average']['max']:.1f} during the run.",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in header["versions"].items() if v) + ".",
        *[f"References in their own interpreter ({kind}): " + ", ".join(
            f"{k} {v}" for k, v in found.items() if v) + "."
          for kind, found in header.get("reference_versions", {}).items()],
        f"Reference budget: {header['budget']:g} CPU s per size ('~': ran on a share, time scaled linearly).",
        "",
        "## SPEC section 9 targets",
        "",
        *([] if mode == "full" else [
            f"({mode} sizes: the targets are defined at the SPEC's sizes; rows at smaller sizes are indicative.)", ""]),
        *targets_table(results, mode),
        "",
        "## The limit: event metrics against truth.sort_index() (CPU time, same process)",
        "",
        *limit_table(results),
        "",
        "## How audeval's cost grows (main call of each workload)",
        "",
        *growth_table(results),
        "",
        "## All measurements",
        *results_table(results),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
