"""The architecture, enforced: layers, no import cycles, small functions.

* core modules (family-agnostic: validation, intervals, sweep, matching,
  options, protocol, tables, ratios) import no family and no generic layer;
* families import the core only (never another family, never a generic layer);
* no import cycles between audeval's modules (module- or function-level imports);
* no function over ~80 code lines and no module over ~600 lines anywhere in the package.
"""

from __future__ import annotations

import ast
import pathlib

import pytest


PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "audeval"

CORE = {
    "audeval._declare",
    "audeval._file_levels",
    "audeval._intervals",
    "audeval._labels",
    "audeval._matching",
    "audeval._options",
    "audeval._report",
    "audeval._warnings",
    "audeval._protocol",
    "audeval._scores",
    "audeval._pieces",
    "audeval._tables",
    "audeval._validation",
}
FAMILIES = {
    "audeval._agreement",
    "audeval._diarization",
    "audeval._event_outcomes",
    "audeval._events",
    "audeval._hierarchy",
    "audeval._score_based",
    "audeval._segments",
    "audeval._structure",
}
# families may build on the families named here (a metric computed from another's)
FAMILY_USES = {
    "audeval._agreement": {"audeval._events", "audeval._segments"},
    "audeval._event_outcomes": {"audeval._events"},
    "audeval._hierarchy": {"audeval._structure"},
    # score readers share the event-list parsing of the readers (an IO layer without families)
    "audeval._score_based": {"audeval._events", "audeval._read_common", "audeval._read_events"},
}


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, pathlib.Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


KNOWN = set()


def imports(path: pathlib.Path, name: str) -> set[str]:
    """audeval modules imported anywhere in a file (relative imports resolved)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[: len(parent) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in KNOWN else base)
    known = KNOWN
    return {m for m in found if m in known and m != name}


def top(name: str) -> str:
    """The first two parts: a family package counts as one module."""
    return ".".join(name.split(".")[:2])


KNOWN.update(modules())
GRAPH = {name: imports(path, name) for name, path in modules().items()}


def test_core_imports_no_family_and_no_generic_layer():
    for name, used in GRAPH.items():
        if top(name) not in CORE:
            continue
        outside = sorted(m for m in used if top(m) not in CORE and top(m) != top(name))
        assert not outside, f"{name} (core) imports {outside}"


def test_families_import_the_core_only():
    for name, used in GRAPH.items():
        family = top(name)
        if family not in FAMILIES:
            continue
        allowed = CORE | {family} | FAMILY_USES.get(family, set())
        outside = sorted(m for m in used if top(m) not in allowed)
        assert not outside, f"{name} (family) imports {outside}"


def test_no_import_cycles():
    """Tarjan's strongly connected components over the module graph (packages as one node)."""
    graph: dict[str, set[str]] = {}
    for name, used in GRAPH.items():
        node = top(name)
        graph.setdefault(node, set()).update(top(m) for m in used if top(m) != node)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    assert not cycles, f"import cycles: {cycles}"


MAX_FUNCTION_LINES = 85  # "no function over ~80 code lines"
MAX_MODULE_LINES = 650  # "no module a grab-bag over ~600 lines"


def code_lines(node: ast.AST, source: list[str]) -> int:
    """Lines of a function that are code (no docstring, blank or comment lines)."""
    body = node.body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant):
        body = body[1:]
    if not body:
        return 0
    lines = source[body[0].lineno - 1 : node.end_lineno]
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


@pytest.mark.parametrize("name", sorted(modules()))
def test_functions_fit_on_a_screen(name):
    path = modules()[name]
    text = path.read_text()
    source = text.splitlines()
    long = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = code_lines(node, source)
            if n > MAX_FUNCTION_LINES:
                long.append(f"{node.name}: {n} lines")
    assert not long, f"{name}: {long}"
    assert len(source) <= MAX_MODULE_LINES, f"{name} has {len(source)} lines: split it by concern"
