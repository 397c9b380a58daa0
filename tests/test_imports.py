"""Start-up cost as a property: heavy optional parts load only when a function needs them.

``import audeval`` (and the command line up to ``--help``) must not import scipy's
optimisation or graph modules, audformat, matplotlib or dask;
the functions that need them import them on first use.
Timing is measured in ``benchmarks/bench_import.py``, never here.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest


ROOT = pathlib.Path(__file__).resolve().parents[1]

#: Modules that ``import audeval`` must not load
HEAVY = (
    "scipy.optimize",
    "scipy.sparse.csgraph",
    "scipy.special",
    "matplotlib",
    "dask",
    "audformat",
    "audiofile",
    "audeer",
)


def loaded_after(code: str) -> dict[str, bool]:
    """Which of :data:`HEAVY` are in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    script = (
        f"{code}\n"
        "import json, sys\n"
        f"print(json.dumps({{m: m in sys.modules for m in {list(HEAVY)!r}}}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_import_audeval_loads_no_heavy_module():
    loaded = loaded_after("import audeval")
    assert loaded == dict.fromkeys(HEAVY, False)


def test_import_audeval_is_the_worktree_copy():
    script = "import audeval, pathlib; print(pathlib.Path(audeval.__file__).resolve().parent)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(ROOT / "audeval")


def test_cli_help_loads_no_heavy_module():
    code = (
        "import contextlib, io\n"
        "from audeval._cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
    )
    assert loaded_after(code) == dict.fromkeys(HEAVY, False)


def test_cli_command_module_loads_no_separation_dependencies():
    """Running a family other than separation does not pay for separation's imports."""
    loaded = loaded_after("import audeval._cli.commands")
    assert not loaded["audiofile"]
    assert not loaded["scipy.optimize"]


@pytest.mark.parametrize(
    "code, module",
    [
        ("import audeval._core.matching.assignment as m; m.dense_assignment(__import__('numpy').eye(2))",
         "scipy.optimize"),
        ("import audeval, numpy as np\n"
         "from audeval._core.matching.maximum import flow_matching\n"
         "flow_matching(np.array([0, 0]), np.array([0, 1]))",
         "scipy.sparse.csgraph"),
    ],
)
def test_heavy_module_loads_when_needed(code, module):
    """The deferred imports are still reached: the function that needs them loads them."""
    assert loaded_after(code)[module]
