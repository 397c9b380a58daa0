"""Smoke run of benchmarks/run.py on tiny sizes (audeval only; no timing asserted).

The reference toolkits are not installed in CI: where they are
(e.g. the reference venv), the subprocess run compares them too.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys

import pytest


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join(ROOT, "benchmarks", "run.py")


def load_run():
    spec = importlib.util.spec_from_file_location("audeval_benchmarks_run", RUN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run_module():
    return load_run()


@pytest.fixture(scope="module")
def smoke(run_module, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bench")
    path, markdown = tmp / "results.json", tmp / "results.md"
    run_module.main(["--smoke", "--in-process", "--no-reference", "--json", str(path), "--markdown", str(markdown)])
    with open(path) as f:
        data = json.load(f)
    return data, markdown.read_text()


def test_every_workload_runs(smoke, run_module):
    data, _ = smoke
    assert data["header"]["mode"] == "smoke"
    workloads = [r["workload"] for r in data["results"]]
    assert workloads == [w for w in run_module.WORKLOADS for _ in run_module.SIZES[w]["smoke"]]
    for result in data["results"]:
        rows = result["rows"]
        assert sum(bool(r.get("main")) for r in rows) == 1
        for row in rows:
            assert row["implementation"] in ("audeval", "pandas")  # --no-reference
            assert row["runs"] >= 1
            assert 0 < row["cpu"] < 60 and 0 < row["wall"] < 60


def test_equivalent_paths_agree(smoke):
    data, _ = smoke
    for result in data["results"]:
        assert result["checks"], result["workload"]
        for name, difference in result["checks"].items():
            assert difference <= 1e-9, (result["workload"], name, difference)


def test_numbers_are_sane(smoke):
    sanity = {r["workload"]: r["sanity"] for r in smoke[0]["results"]}
    assert 0.6 < sanity["events"]["fscore"] < 0.95
    assert sanity["events"]["greedy micro <= optimal"] is True
    assert 0.7 < sanity["segments"]["fscore 1 s"] < 0.98
    assert 0.7 < sanity["segments"]["fscore 10 ms"] < 0.98
    assert 0.3 < sanity["structure"]["NMI mean"] < 0.95
    assert sanity["structure"]["max |default - compat| (frame grid)"] < 0.05
    assert 0.05 < sanity["diarization"]["DER"] < 0.5
    assert 0.0 < sanity["diarization"]["detection ER"] < sanity["diarization"]["DER"]
    assert sanity["separation_si"]["estimate order recovered"] is True
    assert 0 < sanity["separation_si"]["median SI-SDR"] < 30
    assert 0 < sanity["separation_bss"]["median SDR"] < 30
    assert 0.6 < sanity["events_classes"]["fscore"] < 0.95 and sanity["events_classes"]["classes"] == 100
    assert 0.0 < sanity["scores"]["PSDS1"] < 1.0
    assert 0.0 < sanity["agreement"]["fleiss kappa"] < 1.0
    assert 0.0 < sanity["agreement"]["alpha"] < 1.0
    assert sanity["agreement"]["disagreement spans"] > 0
    assert sanity["separation_sources"]["estimate order recovered"] is True
    assert 0 < sanity["separation_sources"]["median SDR"] < 30
    assert 0.05 < sanity["diarization_speech"]["DER"] < 0.5
    assert 0.0 < sanity["hierarchy"]["max abs(default - compat)"] < 0.05


def test_memory_is_measured(smoke):
    for result in smoke[0]["results"]:
        main = next(r for r in result["rows"] if r.get("main"))
        assert main["peak_mb"] > 0
        if "truth" in result["info"]:
            # 1 KB per event is the target at scale; tiny inputs carry fixed costs
            assert main["bytes_per_event"] < 20_000


def test_report_lists_targets(smoke):
    _, markdown = smoke
    assert "## SPEC section 9 targets" in markdown
    for target in ("<= 3x truth.sort_index()", "time independent of resolution", "<= 1 s",
                   "<= 0.5 s and <= 300 MB", ">= 100x faster", ">= 50x faster", ">= 2.5x faster",
                   ">= 10x faster", "<= 1 s and <= 200 MB", "kappa/alpha/disagreements <= 1 s",
                   "agree to 1e-9 dB", ">= 10x faster than the fastest other tool", "with 100 and 1,000 classes",
                   "hierarchy (issue 23, no SPEC row)"):
        assert target in markdown
    # every SPEC section 9 row is in the table: measured, or saying why not
    rows = [line for line in markdown.splitlines() if line.startswith("| score-based")
            or line.startswith("| bss_eval_sources") or line.startswith("| diarization, 3 files x 5 min")]
    assert len(rows) == 2 + 4 + 1
    assert all("| not measured |" in line and ("--no-reference" in line or "not among" in line)
               for line in rows if "vs " in line)
    assert "## All measurements" in markdown


def test_reference_budget_extrapolates(run_module):
    """A reference over budget runs on a share chosen from the previous size and is scaled."""
    calls = []

    def prepare(k):
        calls.append(k)
        return lambda: sum(range(1000))

    ctx = run_module.Context("events", {}, repeat=1, min_time=0.0, budget=10.0,
                             hints={"tool:call": (10, 5.0)}, references=True)
    ctx.main_cpu = 1.0
    ctx.reference("tool", "call", prepare, 100, compare=lambda k, result: 0.0)
    assert calls == [20]  # 5 s for 10 files: 20 files fit in 10 s (linear growth)
    row = ctx.rows[-1]
    assert row["extrapolated"] and "20 of 100 files" in row["note"]
    assert ctx.rates["tool:call"][0] == 20
    calls.clear()
    ctx.reference("tool", "call", prepare, 100, compare=lambda k, result: 0.0, growth=2.0)
    assert calls == [14]  # sqrt(10 / 5) * 10 for quadratic growth
    assert "lower bound" in ctx.rows[-1]["note"]


def test_reference_missing_is_noted(run_module):
    def prepare(k):
        import audeval_no_such_toolkit  # noqa: F401

    ctx = run_module.Context("events", {}, repeat=1, min_time=0.0, budget=1.0, hints={}, references=True)
    ctx.reference("tool", "call", prepare, 10)
    assert ctx.rows[-1]["skipped"] and "not installed" in ctx.rows[-1]["note"]


def test_other_interpreter_missing_is_noted(run_module):
    """References that need another interpreter say which option to pass when it is absent."""
    ctx = run_module.Context("diarization_speech", {"files": 3}, repeat=1, min_time=0.0, budget=1.0,
                             hints={}, references=True)
    run_module.work_diarization_speech(ctx)
    skipped = [row for row in ctx.rows if row.get("skipped")]
    assert [row["implementation"] for row in skipped] == list(run_module.DIARIZATION_TOOLS)
    assert all("--diarization-python" in row["note"] for row in skipped)
    table = "\n".join(run_module.targets_table([{
        "workload": "diarization_speech", "label": "3 files x 5 min", "size": {"files": 3},
        "info": ctx.info, "rows": ctx.rows}], "smoke"))
    assert "pass --diarization-python" in table and "md-eval" in table


def test_reference_turns_round_trip(run_module, tmp_path):
    """The label Series handed to a reference interpreter come back identical."""
    import bench_diarization

    truth, prediction, durations = bench_diarization.make_data(2)
    path = str(tmp_path / "turns.npz")
    run_module.save_turns(path, truth, prediction, durations)
    t, p, d = run_module.load_turns(path)
    assert t.index.equals(truth.index) and (t.to_numpy() == truth.to_numpy()).all()
    assert p.index.equals(prediction.index) and (p.to_numpy() == prediction.astype(str).to_numpy()).all()
    assert d.sort_index().equals(durations.rename_axis("file").sort_index())


def test_within_budget_runs_a_share(run_module):
    """A reference in another interpreter runs on a tenth of the files first, on all if it fits."""
    calls = []

    def prepare(files):
        calls.append(len(files))
        return lambda: float(len(files))

    files = [f"f{i}" for i in range(30)]
    out = run_module.within_budget(prepare, files, 1e9)
    assert out["files"] == 30 and out["value"] == 30.0 and 0 <= out["cpu"] < 1
    assert calls == [3, 30, 30, 30]  # a fast run is the median of 3
    calls.clear()
    out = run_module.within_budget(prepare, files, -1.0)  # over any budget: the share is the result
    assert calls == [3, 3, 3] and out["files"] == 3 and out["value"] == 3.0

    def broken(files):
        raise ImportError("No module named 'spyder'")

    assert "ImportError" in run_module.within_budget(broken, files, 1.0)["error"]


def test_command_line(tmp_path):
    """The documented command, tiny sizes, one workload per subprocess worker."""
    path = tmp_path / "events.json"
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, RUN, "--smoke", "--only", "events", "--json", str(path)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "## SPEC section 9 targets" in out.stdout
    results = json.loads(path.read_text())["results"]
    assert [r["workload"] for r in results] == ["events"]
    for result in results:
        for row in result["rows"]:
            if row["implementation"] in ("audeval", "pandas"):
                continue
            # reference toolkits: noted as missing, or run and agreeing
            if row.get("skipped"):
                assert "not installed" in row["note"]
            else:
                assert row["difference"] is not None and row["difference"] <= 1e-9, row
                assert math.isfinite(row["speedup"])
