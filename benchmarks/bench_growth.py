"""Growth exponents of every metric family: CPU time and peak memory at n, 4n and 16n.

Run from the repository root::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_growth.py --markdown growth.md --json growth.json
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_growth.py --quick --only events_optimal,der

For every family (the main metric call of ``benchmarks/run.py``'s workload, on the seeded data
of ``benchmarks/_data.py`` and the per-family scripts) the input grows by 4 and 16:

* **CPU time** (``time.process_time``): one subprocess per family generates the data of the three
  sizes, runs each once (warm-up), then runs the sizes in turn, ``--repeat`` rounds (>= 3),
  and takes the median per size. A call faster than 20 ms is repeated within a sample
  (the sample is the mean of those calls).
* **Peak memory**, in a fresh subprocess per (family, size), after imports and data generation:
  the increase of the peak RSS over the RSS before the first call (Linux: the peak is reset with
  ``/proc/self/clear_refs``, so the data generation's own peak does not hide the call's; elsewhere
  ``resource.getrusage`` ``ru_maxrss`` minus its value before the call), then the tracemalloc peak
  of a second call (Python and numpy allocations; deterministic, not blurred by the allocator
  keeping freed pages). The exponents use the tracemalloc peak; the RSS increase is shown beside it.

Growth exponent of a size triple: ``log(x(16n) / x(n)) / log(16)``
(1 is linear; fixed costs at n pull it below 1; above 1.15 is flagged as super-linear).
The load average (``uptime``) before and after is recorded: the machine may be shared.

Options: ``--quick`` (small sizes, a smoke test), ``--only FAMILIES`` (comma-separated),
``--repeat N``, ``--in-process`` (no subprocesses: memory is tracemalloc only),
``--markdown PATH``, ``--json PATH``, ``--from-json PATH`` (re-render a saved run).
"""

from __future__ import annotations

import argparse
import datetime
import gc
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

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _path in (ROOT, HERE):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import numpy as np  # noqa: E402

import _data  # noqa: E402


EVENT_OPTIONS = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5)
SUPERLINEAR = 1.15
FACTORS = (1, 4, 16)


# -------------------------------------------------------------------------
# Workloads: each returns (the call, what its input is)
# -------------------------------------------------------------------------


def _rows(*series) -> int:
    return int(sum(len(s) for s in series))


def _events(n, matching):
    import audeval

    truth, prediction, durations = _data.dcase(int(n))
    truth, prediction = _data.shuffled(truth, seed=1), _data.shuffled(prediction, seed=2)
    options = dict(EVENT_OPTIONS, files_duration=durations, matching=matching)
    return (lambda: audeval.event_fscore(truth, prediction, **options),
            f"{_rows(truth, prediction):,} rows, {len(durations):,} files")


def _segments(hours, resolution):
    import audeval

    truth, prediction, durations = _data.broadcast(hours)
    return (lambda: audeval.segment_report(truth, prediction, time_resolution=resolution,
                                           files_duration=durations),
            f"{_rows(truth, prediction):,} rows, {len(durations):,} files")


def _structure(files):
    import audeval

    truth, prediction, durations = _data.songs(int(files))
    return (lambda: audeval.structure_report(truth, prediction),
            f"{_rows(truth, prediction):,} rows, {len(durations):,} files")


def _hierarchy(songs):
    import audeval
    import bench_hierarchy

    truth, prediction = bench_hierarchy.make_data(int(songs), (180.0, 300.0), [4, 12, 40])
    return (lambda: audeval.hierarchy_report(truth, prediction),
            f"{_rows(truth, prediction):,} finest rows, {int(songs):,} files")


def _diarization(files, detection):
    import audeval

    truth, prediction, durations = _data.conversations(int(files))
    function = audeval.detection_error_rate if detection else audeval.diarization_error_rate
    return (lambda: function(truth, prediction, files_duration=durations),
            f"{_rows(truth, prediction):,} rows, {len(durations):,} files")


def _psds(seconds):
    import audeval
    import bench_scores

    data = bench_scores.long_data(seconds, n_files=1)
    truth, table, durations = bench_scores.to_audeval(*data)
    return (lambda: audeval.psds(truth, table, files_duration=durations, compat="sed_scores_eval",
                                 **bench_scores.PSDS1),
            f"{table.shape[0]:,} frames x {table.shape[1]} classes, {len(truth):,} truth events")


def _agreement(rows, fleiss):
    import audeval
    import bench_agreement

    rows = int(rows)
    files = max(rows // 80, 2)  # 120 hidden segments per file, about 102 kept by each rater
    raters, durations = bench_agreement.make_raters(files=files, segments=120, rows=rows, raters=5)
    function = audeval.fleiss_kappa if fleiss else audeval.krippendorff_alpha
    return (lambda: function(raters, files_duration=durations),
            f"5 raters x {rows:,} segments, {files:,} files")


def _separation(seconds, bss, rate=44100, channels=2, sources=4):
    import audeval.separation as separation

    refs, est = _data.separation(sources, seconds, sampling_rate=rate, channels=channels)
    what = f"{sources} sources x {refs.shape[1]:,} samples x {channels} channels"
    if bss:
        return (lambda: separation.bss_eval_v4(refs, est, sampling_rate=rate, window=1.0, hop=1.0), what)
    shuffled = est[np.roll(np.arange(refs.shape[0]), 1)]
    return lambda: separation.scale_invariant(refs, shuffled, permutation=True), what


# name -> (family, main call, base size n per mode, unit of n, data factory)
FAMILIES = {
    "events_optimal": ("events", "event_fscore (optimal), DCASE-like 10 s clips",
                       {"full": 62_500, "quick": 400}, "events",
                       lambda n: _events(n, "optimal")),
    "events_greedy": ("events", "event_fscore (greedy), DCASE-like 10 s clips",
                      {"full": 62_500, "quick": 400}, "events",
                      lambda n: _events(n, "greedy")),
    "segments_1s": ("segments", "segment_report(time_resolution=1 s), 1 h broadcast files",
                    {"full": 62.5, "quick": 0.25}, "hours",
                    lambda n: _segments(n, 1.0)),
    "segments_10ms": ("segments", "segment_report(time_resolution=10 ms), 1 h broadcast files",
                      {"full": 62.5, "quick": 0.25}, "hours",
                      lambda n: _segments(n, 0.01)),
    "structure": ("structure", "structure_report, songs of 3-5 min, 10-60 sections",
                  {"full": 250, "quick": 2}, "files", _structure),
    "hierarchy": ("hierarchy", "hierarchy_report, songs of 3-5 min, 3 levels",
                  {"full": 25, "quick": 1}, "songs", _hierarchy),
    "der": ("diarization", "diarization_error_rate, conversations of 2-5 speakers",
            {"full": 1000, "quick": 2}, "files", lambda n: _diarization(n, False)),
    "detection": ("detection", "detection_error_rate, conversations of 2-5 speakers",
                  {"full": 1000, "quick": 2}, "files", lambda n: _diarization(n, True)),
    "psds1": ("score-based", "psds (PSDS1, compat=sed_scores_eval), one file, 20 ms frames x 10 classes",
              {"full": 450.0, "quick": 20.0}, "seconds", _psds),
    "alpha": ("agreement", "krippendorff_alpha, 5 raters (fixed)",
              {"full": 4_000, "quick": 200}, "segments per rater",
              lambda n: _agreement(n, False)),
    "fleiss": ("agreement", "fleiss_kappa, 5 raters (fixed)",
               {"full": 4_000, "quick": 200}, "segments per rater",
               lambda n: _agreement(n, True)),
    "si_sdr": ("separation", "scale_invariant(permutation=True), 4 stereo sources at 44.1 kHz",
               {"full": 2.5, "quick": 0.05}, "seconds", lambda n: _separation(n, False)),
    "bss_v4": ("separation", "bss_eval_v4(window=1 s, hop=1 s), 4 stereo sources at 44.1 kHz "
               "(--quick: 2 mono sources at 2 kHz)",
               {"full": 1.0, "quick": 1.0}, "seconds", lambda n: _separation(n, True)),
}


# smaller signals in --quick where the window fixes the smallest input
QUICK_FACTORY = {"bss_v4": lambda n: _separation(n, True, rate=2000, channels=1, sources=2)}


def make(name: str, n: float, mode: str):
    """The call and a description of its input, for family ``name`` at size ``n``."""
    if mode == "quick" and name in QUICK_FACTORY:
        return QUICK_FACTORY[name](n)
    return FAMILIES[name][4](n)


def sizes_of(name: str, mode: str) -> list[float]:
    base = FAMILIES[name][2][mode]
    return [base * k for k in FACTORS]


# -------------------------------------------------------------------------
# Measuring
# -------------------------------------------------------------------------


def cpu_sample(function, number: int) -> float:
    start = time.process_time()
    for _ in range(number):
        function()
    return (time.process_time() - start) / number


def time_family(name: str, sizes: list[float], repeat: int, mode: str, trace: bool = False) -> dict:
    """Median CPU seconds per size: a warm-up run each, then ``repeat`` interleaved rounds.

    ``trace``: also the tracemalloc peak of one more call per size (``--in-process``).
    """
    calls, inputs = [], []
    for n in sizes:
        function, what = make(name, n, mode)
        calls.append(function)
        inputs.append(what)
    numbers = []
    shortest = 0.005 if mode == "quick" else 0.02
    for function in calls:  # warm-up, and calls per sample so a sample takes >= 20 ms (--quick: 5 ms)
        first = cpu_sample(function, 1)
        numbers.append(max(1, min(50, math.ceil(shortest / max(first, 1e-6)))))
    samples = [[] for _ in sizes]
    for _ in range(repeat):
        for k, function in enumerate(calls):
            samples[k].append(cpu_sample(function, numbers[k]))
    peaks = [traced_peak(function) for function in calls] if trace else None
    return {"cpu": [statistics.median(s) for s in samples], "samples": samples,
            "calls_per_sample": numbers, "inputs": inputs, "peaks": peaks}


def traced_peak(function) -> float:
    """tracemalloc peak (bytes) of one call."""
    gc.collect()
    tracemalloc.start()
    try:
        function()
        return float(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()


def _status(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def memory_once(name: str, n: float, mode: str) -> dict:
    """Peak memory of the call at size ``n``: RSS increase of its first run, tracemalloc peak of a second."""
    import scipy.optimize  # noqa: F401  (imported by calls lazily: keep import costs out of the RSS)
    import scipy.signal  # noqa: F401

    import audeval.separation  # noqa: F401

    function, what = make(name, n, mode)
    gc.collect()
    if _reset_peak() and _status("VmRSS") is not None:
        before = _status("VmRSS")
        function()
        rss_bytes, how = float(_status("VmHWM") - before), "peak reset by /proc/self/clear_refs, VmHWM - VmRSS"
    else:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        function()
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        scale = 1 if sys.platform == "darwin" else 1024
        rss_bytes, how = float((after - before) * scale), "ru_maxrss after - before"
    return {"tracemalloc": traced_peak(function), "rss": rss_bytes, "rss_method": how, "input": what}


def worker(spec: dict) -> dict:
    if spec["kind"] == "time":
        return time_family(spec["name"], spec["sizes"], spec["repeat"], spec["mode"])
    return memory_once(spec["name"], spec["n"], spec["mode"])


def spawn(spec: dict) -> dict:
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise RuntimeError(f"worker {spec} failed: {(out.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def exponent(values, first: int = 0, last: int = -1) -> float:
    """log(x[last] / x[first]) / log(size ratio): 1 is linear."""
    a, b = values[first], values[last]
    if not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
        return math.nan
    return math.log(b / a) / math.log(FACTORS[last] / FACTORS[first])


def steps(values) -> list[float]:
    """Exponents of the two steps, n -> 4n and 4n -> 16n."""
    return [exponent(values, k, k + 1) for k in range(len(FACTORS) - 1)]


def measure_family(name: str, mode: str, repeat: int, in_process: bool) -> dict:
    sizes = sizes_of(name, mode)
    family, call, _, unit, _ = FAMILIES[name]
    spec = {"kind": "time", "name": name, "sizes": sizes, "repeat": repeat, "mode": mode}
    if in_process:
        timing = time_family(name, sizes, repeat, mode, trace=True)
        peaks, rss, how = timing["peaks"], [math.nan] * len(sizes), "not measured (--in-process)"
    else:
        timing = spawn(spec)
        memory = [spawn({"kind": "memory", "name": name, "n": n, "mode": mode}) for n in sizes]
        peaks, rss, how = [m["tracemalloc"] for m in memory], [m["rss"] for m in memory], memory[0]["rss_method"]
    return {
        "name": name, "family": family, "workload": call, "unit": unit, "sizes": sizes,
        "inputs": timing["inputs"], "cpu": timing["cpu"], "samples": timing["samples"],
        "calls_per_sample": timing["calls_per_sample"], "peak_tracemalloc": peaks, "rss_increase": rss,
        "rss_method": how,
        "time_exponent": exponent(timing["cpu"]), "memory_exponent": exponent(peaks),
        "rss_exponent": exponent(rss), "time_steps": steps(timing["cpu"]), "memory_steps": steps(peaks),
    }


# -------------------------------------------------------------------------
# Report
# -------------------------------------------------------------------------


def fmt_time(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def fmt_mb(size: float) -> str:
    if not math.isfinite(size):
        return "-"
    return f"{size / 1e6:.3g}"


def superlinear(value: float) -> bool:
    """Above 1.15 at the two decimals shown."""
    return math.isfinite(value) and round(value, 2) > SUPERLINEAR


def fmt_exp(value: float) -> str:
    if not math.isfinite(value):
        return "-"
    flag = " **>1.15**" if superlinear(value) else ""
    return f"{value:.2f}{flag}"


def fmt_steps(values) -> str:
    return "(" + ", ".join("-" if not math.isfinite(v) else f"{v:.2f}" for v in values) + ")"


def fmt_size(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def markdown(header: dict, results: list[dict]) -> str:
    load = header["load"]
    lines = [
        f"Command: `{header['command']}` ({header['mode']} sizes), started {header['started']}, "
        f"{header['minutes']:.1f} min.",
        f"Machine: {header['machine']}; OPENBLAS_NUM_THREADS={header['openblas']}; "
        f"load average (1, 5, 15 min) before {load['before']}, after {load['after']} "
        f"(`uptime` before: `{header['uptime_before']}`).",
        f"Time: median CPU time (`time.process_time`) of {header['repeat']} interleaved rounds "
        "(sizes in turn) after a warm-up run, one subprocess per family"
        + (" (in-process run)." if header["in_process"] else "."),
        "Memory: " + ("tracemalloc peak of one more call after the timed ones, in this process "
                      "(`--in-process`: no RSS)."
                      if header["in_process"] else
                      "a fresh subprocess per family and size, after imports and data generation; "
                      "peak = tracemalloc peak of the call (exponent), RSS = increase of the peak RSS over "
                      f"the RSS before the first call ({results[0]['rss_method'] if results else '-'})."),
        "Exponent: log(x(16n) / x(n)) / log(16); above 1.15 marked **>1.15** (super-linear); "
        "in brackets the exponents of the steps n -> 4n and 4n -> 16n.",
        "",
        "| family | workload (main call) | n, 4n, 16n | input at 16n | CPU per size | time exp. "
        "| peak MB per size | memory exp. | RSS increase MB per size | RSS exp. |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['family']} | {r['workload']} | {', '.join(fmt_size(s) for s in r['sizes'])} {r['unit']} "
            f"| {r['inputs'][-1]} | {' / '.join(fmt_time(t) for t in r['cpu'])} "
            f"| {fmt_exp(r['time_exponent'])} {fmt_steps(r.get('time_steps') or steps(r['cpu']))} "
            f"| {' / '.join(fmt_mb(m) for m in r['peak_tracemalloc'])} "
            f"| {fmt_exp(r['memory_exponent'])} {fmt_steps(r.get('memory_steps') or steps(r['peak_tracemalloc']))} "
            f"| {' / '.join(fmt_mb(m) for m in r['rss_increase'])} | {fmt_exp(r['rss_exponent'])} |"
        )
    flagged = [r for r in results if superlinear(r["time_exponent"]) or superlinear(r["memory_exponent"])]
    lines.append("")
    if flagged:
        lines.append("Super-linear (exponent > 1.15): " + "; ".join(
            f"{r['name']} (time {r['time_exponent']:.2f}, memory {r['memory_exponent']:.2f})" for r in flagged) + ".")
    else:
        lines.append("No family grows super-linearly (all time and memory exponents <= 1.15).")
    return "\n".join(lines)


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "{:.2f}, {:.2f}, {:.2f}".format(*os.getloadavg())


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    parser.add_argument("--only", default=None, help="comma-separated families: " + ", ".join(FAMILIES))
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds for the time medians (>= 3)")
    parser.add_argument("--in-process", action="store_true", help="no subprocesses (memory: tracemalloc only)")
    parser.add_argument("--markdown", default=None, help="write the table to this file")
    parser.add_argument("--json", default=None, help="write all results to this file")
    parser.add_argument("--from-json", default=None, help="re-render the table of a saved --json file, without running")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        result = worker(json.loads(args.worker))
        print(json.dumps(result))
        return [result]
    if args.from_json:
        with open(args.from_json) as f:
            saved = json.load(f)
        text = markdown(saved["header"], saved["results"])
        print(text)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(text + "\n")
        return saved["results"]
    if args.repeat < 3:
        parser.error("--repeat must be at least 3")
    names = list(FAMILIES) if args.only is None else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(names) - set(FAMILIES))
    if unknown:
        parser.error(f"--only: unknown families {unknown}; known: {', '.join(FAMILIES)}")
    size_mode = "quick" if args.quick else "full"
    started = datetime.datetime.now(datetime.timezone.utc)
    header = {
        "command": " ".join(["python", "benchmarks/bench_growth.py"] + list(sys.argv[1:] if argv is None else argv)),
        "mode": size_mode, "repeat": args.repeat, "in_process": args.in_process,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "openblas": os.environ.get("OPENBLAS_NUM_THREADS"),
        "started": started.isoformat(timespec="seconds"), "uptime_before": uptime(),
        "load": {"before": ", ".join(f"{x:.2f}" for x in os.getloadavg())},
    }
    results = []
    for name in names:
        begin = time.perf_counter()
        result = measure_family(name, size_mode, args.repeat, args.in_process)
        results.append(result)
        print(f"{name:15s} time exp {result['time_exponent']:5.2f}  memory exp {result['memory_exponent']:5.2f}  "
              f"CPU {' / '.join(fmt_time(t) for t in result['cpu'])}  [{time.perf_counter() - begin:.0f} s]",
              file=sys.stderr, flush=True)
    header["load"]["after"] = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    header["uptime_after"] = uptime()
    header["minutes"] = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds() / 60
    text = markdown(header, results)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"header": header, "results": results}, f, indent=1)
    return results


if __name__ == "__main__":
    main()
