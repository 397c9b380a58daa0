"""The documentation builds without warnings and every example in it runs.

* ``docs/`` builds with ``sphinx -W`` (warnings are errors),
  as ``python -m sphinx -W docs build/html`` does;
* every public name of ``audeval``, ``audeval.separation`` and ``audeval.plot``
  is in the built API reference,
  and every public function there has a doctested example
  (the docstring examples themselves run with ``--doctest-modules``);
* the ``>>>`` examples of every page run with :mod:`doctest`
  (including those in ``.. plot::`` directives);
* the ``$ audeval ...`` commands of the console blocks run
  and print what the page shows.
"""

from __future__ import annotations

import contextlib
import doctest
import glob
import importlib
import inspect
import io
import os
import re
import shlex
import shutil
import sys
import warnings

import pytest


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
PAGES = sorted(
    os.path.relpath(path, DOCS)
    for path in glob.glob(os.path.join(DOCS, "**", "*.rst"), recursive=True)
    if not os.path.relpath(path, DOCS).startswith(("_", "examples"))
)
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def api_names() -> list[str]:
    """Fully qualified public names, from the docs' own API extension."""
    sys.path.insert(0, os.path.join(DOCS, "_ext"))
    try:
        module = importlib.import_module("audeval_api")
    finally:
        sys.path.pop(0)
    return module.all_documented_names()


def resolve(qualified: str) -> object:
    module, _, name = qualified.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    """Build the HTML docs once, warnings as errors."""
    pytest.importorskip("sphinx")
    pytest.importorskip("matplotlib")
    from sphinx.cmd.build import build_main

    out = tmp_path_factory.mktemp("html")
    doctrees = tmp_path_factory.mktemp("doctrees")
    with warnings.catch_warnings():
        # deprecations inside sphinx and its extensions are not the docs' problem
        warnings.simplefilter("default")
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="sphinx")
        warnings.filterwarnings("ignore", category=PendingDeprecationWarning, module="sphinx")
        code = build_main(["-W", "-b", "html", "-q", "-d", str(doctrees), DOCS, str(out)])
    assert code == 0, "sphinx -W failed; run `python -m sphinx -W docs build/html` to see why"
    return out


def test_docs_build(html):
    assert (html / "index.html").exists()
    for page in PAGES:
        assert (html / page.replace(".rst", ".html")).exists(), page


def test_every_public_name_in_api_reference(html):
    text = "".join(
        path.read_text(encoding="utf-8") for path in (html / "api").glob("*.html")
    )
    names = api_names()
    import audeval
    import audeval.plot
    import audeval.separation

    expected = {
        f"audeval.{n}"
        for n in dir(audeval)
        if not n.startswith("_") and not inspect.ismodule(getattr(audeval, n))
    }
    expected |= {f"audeval.separation.{n}" for n in audeval.separation.__all__}
    expected |= {f"audeval.plot.{n}" for n in audeval.plot.__all__}
    assert expected <= set(names), sorted(expected - set(names))
    missing = [name for name in names if f'id="{name}"' not in text]
    assert not missing, f"not in the built API reference: {missing}"


def test_every_public_function_has_an_example():
    missing = [
        name
        for name in api_names()
        if inspect.isfunction(resolve(name)) and ">>>" not in (inspect.getdoc(resolve(name)) or "")
    ]
    assert not missing, f"public functions without a doctest example: {missing}"


# -------------------------------------------------------------------------
# The examples of the pages
# -------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_page_examples(page, monkeypatch, tmp_path):
    """``>>>`` examples of a page, run as doctest (one namespace per page)."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = doctest.testfile(
                os.path.join(DOCS, page),
                module_relative=False,
                optionflags=FLAGS,
                globs={},
                verbose=False,
                report=True,
            )
    finally:
        plt.close("all")
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {page}"
    # a page may show a warning only where it says so (by the warning's class name)
    with open(os.path.join(DOCS, page), encoding="utf-8") as fp:
        text = fp.read()
    unannounced = sorted(
        {f"{w.category.__name__}: {w.message}" for w in caught if w.category.__name__ not in text}
    )
    assert not unannounced, f"{page} emits warnings it does not mention: {unannounced}"


# -------------------------------------------------------------------------
# The commands of the console blocks
# -------------------------------------------------------------------------


CONSOLE = re.compile(r"^\.\. code-block:: console\n((?:\n|    .*\n)+)", re.MULTILINE)


def console_commands(page: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` of every ``$ audeval ...`` line of a page."""
    with open(os.path.join(DOCS, page), encoding="utf-8") as fp:
        text = fp.read()
    out = []
    for block in CONSOLE.findall(text):
        lines = [line[4:] for line in block.splitlines()]
        command = None
        expected: list[str] = []
        for line in lines + ["$ "]:
            if line.startswith("$ "):
                if command is not None and command.split()[0] == "audeval":
                    out.append((command, "\n".join(expected).strip()))
                command = line[2:].split("  #")[0].strip()
                expected = []
            else:
                expected.append(line)
    return out


COMMANDS = [
    pytest.param(page, command, expected, id=f"{page}: {command}")
    for page in PAGES
    for command, expected in console_commands(page)
]


@pytest.mark.parametrize("page, command, expected", COMMANDS)
def test_console_commands(page, command, expected, monkeypatch, tmp_path):
    """Run in a copy of ``docs/examples/cli``; the output must be what the page shows."""
    from audeval._cli import main

    folder = tmp_path / "cli"
    shutil.copytree(os.path.join(DOCS, "examples", "cli"), folder)
    monkeypatch.chdir(folder)
    argv = shlex.split(command)[1:]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        try:
            code = main(argv)
        except SystemExit as exit:  # argparse on --help
            code = int(exit.code or 0)
    output = buffer.getvalue()
    assert code == (2 if "audeval: error:" in expected else 0), output
    if expected:
        checker = doctest.OutputChecker()
        assert checker.check_output(expected + "\n", output, FLAGS), (
            f"$ {command}\n--- page ---\n{expected}\n--- got ---\n{output}"
        )
