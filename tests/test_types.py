"""The annotations are true: mypy finds no error in ``audeval/``.

The settings are the ``[tool.mypy]`` section of ``pyproject.toml``.
The check is one test (marked ``typecheck``);
it is skipped when mypy is not installed
(``pip install -e .[tests]`` installs it).
A cold run takes about 40 s of wall time on a loaded 2-core machine (20 s CPU);
mypy's cache is kept in the temporary directory (one per checkout),
so a second run takes under a second.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import tempfile

import pytest


ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.typecheck
def test_mypy_finds_no_error():
    api = pytest.importorskip("mypy.api", reason="mypy is not installed (it is in the tests extra)")
    # one cache per checkout: two checkouts of different code do not undo each other's cache
    tag = hashlib.sha1(str(ROOT).encode()).hexdigest()[:10]
    cache = pathlib.Path(tempfile.gettempdir()) / f"audeval-mypy-cache-{tag}"
    config = ROOT / "pyproject.toml"
    cwd = os.getcwd()
    os.chdir(ROOT)  # the package, and the config's relative paths, from the repository root
    try:
        stdout, stderr, status = api.run(
            ["--config-file", str(config), "--cache-dir", str(cache), "--no-color-output", "audeval"]
        )
    finally:
        os.chdir(cwd)
    errors = [line for line in stdout.splitlines() if ": error:" in line]
    assert status == 0 and not errors, stdout + stderr
