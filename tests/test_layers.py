"""The architecture, enforced: layers, no import cycles, small functions.

* core modules (family-agnostic: validation, intervals, sweep, matching,
  options, protocol, tables, ratios) import no family and no generic layer;
* families import the core only (never another family, never a generic layer);
* no import cycles between audeval's packages (module- or function-level imports),
  and no cycle between files beyond the ones known today (KNOWN_FILE_CYCLES);
* no private name imported across packages beyond the ones known today (KNOWN_PRIVATE_IMPORTS);
* no function over ~80 code lines and no module over ~600 lines anywhere in the package.
"""

from __future__ import annotations

import ast
import pathlib

import pytest


PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "audeval"

# The layers, bottom to top: each may import the ones below it and itself only.
CORE = "audeval._core"  # family-agnostic: validation, options, intervals, sweep, matching, protocol, tables, ratios
IO = "audeval._io"  # readers and example data
GENERIC = "audeval._generic"  # sum, accumulate, bootstrap, resample, dask, matrix, compare, the registry
EDGES = {"audeval", "audeval.__main__", "audeval._cli", "audeval._html", "audeval.plot"}
SEPARATION = "audeval.separation"  # a family of its own namespace, outside the registry


def registered_families() -> set[str]:
    """The family packages, as the registry lists them (one line each there)."""
    from audeval._generic.registry import FAMILIES as REGISTERED

    return {".".join(f.statistics.__module__.split(".")[:2]) for f in REGISTERED.values()}


FAMILIES = registered_families()
# families may build on the families named here (a metric computed from another's)
FAMILY_USES = {
    "audeval._agreement": {"audeval._events", "audeval._segments"},
    "audeval._hierarchy": {"audeval._structure"},
    "audeval._sed_scores": {"audeval._events"},
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


def layer_of(name: str) -> str:
    package = top(name)
    if package in (CORE, IO, GENERIC, SEPARATION):
        return package
    if package in FAMILIES:
        return "family"
    assert package in EDGES, f"{name}: a package in no layer (add it to one in tests/test_layers.py)"
    return "edge"


def allowed_imports(name: str) -> set[str] | None:
    """The packages a module may import (``None``: any, the edges)."""
    layer = layer_of(name)
    own = {top(name)}
    if layer == CORE:
        return own
    if layer in (IO, SEPARATION):
        return own | {CORE}
    if layer == "family":
        return own | {CORE, IO} | FAMILY_USES.get(top(name), set())
    if layer == GENERIC:
        return own | {CORE, IO, SEPARATION} | FAMILIES
    return None


def test_registry_lists_the_families():
    assert FAMILIES == {
        "audeval._agreement",
        "audeval._diarization",
        "audeval._events",
        "audeval._hierarchy",
        "audeval._sed_scores",
        "audeval._segments",
        "audeval._structure",
    }


@pytest.mark.parametrize("layer", [CORE, IO, "family", GENERIC, SEPARATION])
def test_each_layer_imports_only_the_layers_below(layer):
    wrong = []
    for name, used in GRAPH.items():
        if layer_of(name) != layer:
            continue
        allowed = allowed_imports(name)
        wrong += [f"{name} -> {m}" for m in sorted(used) if top(m) not in allowed]
    assert not wrong, wrong


def test_every_module_is_in_a_layer():
    for name in GRAPH:
        layer_of(name)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one node (the import cycles)."""
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
    return cycles


def test_no_import_cycles():
    """No cycle over the module graph with packages as one node."""
    graph: dict[str, set[str]] = {}
    for name, used in GRAPH.items():
        node = top(name)
        graph.setdefault(node, set()).update(top(m) for m in used if top(m) != node)
    cycles = strongly_connected(graph)
    assert not cycles, f"import cycles: {cycles}"


# Cycles between files (function-level imports included) that exist today (issue 27):
# a new cycle, or one of these grown by a file, fails; cut them and shrink this list.
KNOWN_FILE_CYCLES: list[set[str]] = []  # none left (issue 27); keep it empty


def test_no_new_import_cycles_between_files():
    """Files as nodes, every import (module- or function-level) as an edge."""
    cycles = strongly_connected({name: set(used) for name, used in GRAPH.items()})
    new = [c for c in cycles if not any(set(c) <= known for known in KNOWN_FILE_CYCLES)]
    assert not new, f"new import cycles between files (function-level imports count): {new}"


def private_imports(path: pathlib.Path, name: str) -> set[str]:
    """``"importer: module.name"`` of each private name this file imports from another package.

    Private, across packages:

    * a name with a leading underscore (dunders aside);
    * any name of a module with a leading underscore inside another package
      (``audeval.plot._x``), unless the importer is a public namespace that re-exports it;
    * for the generic layers and the edges: any name of a family's inner module;
      they take a family's internal API from the family package (its ``__init__``).

    The core's modules are its documented internal API (``audeval/_core/__init__.py``):
    their public names may be imported from every layer above.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    public_importer = not any(part.startswith("_") for part in name.split(".")[1:])
    # the public namespace re-exports family functions: only the layers between take the family API
    above_families = layer_of(name) in ("edge", GENERIC) and name != "audeval"
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = node.module or ""
        if node.level:
            parent = package.split(".")
            parent = parent[: len(parent) - node.level + 1]
            base = ".".join([*parent, base] if base else parent)
        if base.split(".")[0] != "audeval":
            continue
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            module = submodule if submodule in KNOWN else base
            if top(module) == top(name):
                continue
            inner = module.split(".")[2:]  # the module's path inside its package
            is_package = module == submodule and len(inner) == 0  # ``from audeval import _events``
            private_name = alias.name.startswith("_") and not alias.name.startswith("__") and not is_package
            private_module = any(part.startswith("_") for part in inner) and not public_importer
            family_inside = above_families and top(module) in FAMILIES and bool(inner)
            if private_name or private_module or family_inside:
                found.add(f"{name}: {base}.{alias.name}")
    return found


# Private names imported across packages: none (issue 27). Keep it empty.
KNOWN_PRIVATE_IMPORTS: set[str] = set()


def test_no_new_private_imports_across_packages():
    found = set()
    for name, path in modules().items():
        found |= private_imports(path, name)
    new = sorted(found - KNOWN_PRIVATE_IMPORTS)
    assert not new, (
        f"private names imported across packages: {new}; "
        "import the other package's public names (or move the helper into the core)"
    )


def test_the_known_private_imports_still_exist():
    """A list entry that is gone must leave the list (it only shrinks)."""
    found = set()
    for name, path in modules().items():
        found |= private_imports(path, name)
    assert not sorted(KNOWN_PRIVATE_IMPORTS - found)


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
