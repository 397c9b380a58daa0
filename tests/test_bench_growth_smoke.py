"""Smoke run of benchmarks/bench_growth.py on its --quick sizes, in this process (no timing asserted)."""

from __future__ import annotations

import gc
import importlib.util
import json
import math
import os

import pytest


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benchmarks", "bench_growth.py")


@pytest.fixture(scope="module")
def growth():
    spec = importlib.util.spec_from_file_location("audeval_bench_growth", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def quick_run(growth, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("growth")
    path, markdown = tmp / "growth.json", tmp / "growth.md"
    # the script collects garbage before each tracemalloc peak: the objects of the tests run before
    # this one are not its input, so they wait in the permanent generation (a collection then costs
    # what the benchmark allocated, not the size of the whole test session's heap)
    gc.freeze()
    try:
        growth.main(["--quick", "--in-process", "--json", str(path), "--markdown", str(markdown)])
    finally:
        gc.unfreeze()
    with open(path) as f:
        data = json.load(f)
    return data, markdown.read_text()


def test_a_row_per_family(quick_run, growth):
    data, markdown = quick_run
    assert [r["name"] for r in data["results"]] == list(growth.FAMILIES)
    rows = [line for line in markdown.splitlines() if line.startswith("| ") and not line.startswith("| family")]
    assert len(rows) == len(growth.FAMILIES)
    families = {line.split(" | ")[0][2:] for line in rows}
    assert families == {f[0] for f in growth.FAMILIES.values()}
    for r in data["results"]:
        assert r["sizes"][1] == 4 * r["sizes"][0] and r["sizes"][2] == 16 * r["sizes"][0]
        assert len(r["cpu"]) == 3 and all(len(s) == 3 for s in r["samples"])  # >= 3 interleaved rounds


def test_exponents_are_finite(quick_run):
    for r in quick_run[0]["results"]:
        assert math.isfinite(r["time_exponent"]), r["name"]
        assert math.isfinite(r["memory_exponent"]), r["name"]
        assert all(t > 0 for t in r["cpu"]) and all(m > 0 for m in r["peak_tracemalloc"])


def test_header_records_load_and_method(quick_run):
    data, markdown = quick_run
    assert data["header"]["mode"] == "quick" and data["header"]["in_process"] is True
    assert "load average" in markdown and "uptime" in markdown
    assert "tracemalloc" in markdown and "OPENBLAS_NUM_THREADS" in markdown


def test_exponent_and_flag(growth):
    assert growth.exponent([1.0, 4.0, 16.0]) == pytest.approx(1.0)
    assert growth.exponent([2.0, 16.0, 512.0]) == pytest.approx(2.0)
    assert math.isnan(growth.exponent([0.0, 1.0, 2.0]))
    row = {"name": "x", "family": "f", "workload": "w", "unit": "u", "sizes": [1, 4, 16], "inputs": ["a", "b", "c"],
           "cpu": [1.0, 5.0, 64.0], "peak_tracemalloc": [1e6, 4e6, 16e6], "rss_increase": [math.nan] * 3,
           "rss_method": "-", "time_exponent": 1.5, "memory_exponent": 1.0, "rss_exponent": math.nan}
    header = {"command": "c", "mode": "full", "minutes": 0.0, "started": "s", "machine": "m", "openblas": "1",
              "load": {"before": "1", "after": "1"}, "uptime_before": "u", "repeat": 3, "in_process": False}
    text = growth.markdown(header, [row])
    assert "1.50 **>1.15**" in text and "x (time 1.50, memory 1.00)" in text
