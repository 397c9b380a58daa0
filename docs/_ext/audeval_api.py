"""The API reference of audeval, generated from the package itself.

``.. audeval-api:: <group>`` documents every public name of a group
with an overview table (autosummary) and one autodoc entry per name.
The names come from the package at build time
(``dir(audeval)``, ``audeval.separation.__all__``, ``audeval.plot.__all__``),
so a new public function shows up without editing the docs:
a name of a module that no group claims is listed by ``.. audeval-api:: other``.
No files are written into the source tree.
"""

from __future__ import annotations

import inspect
import types

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles


# family groups: a page per registered family (``audeval._generic.registry.FAMILIES``),
# showing every public name of the family's module or package;
# a page may show several families (its name: the families, in this order)
FAMILY_PAGES = {
    "events": ("event",),
    "segments": ("segment",),
    "structure": ("structure", "hierarchy"),
    "diarization": ("diarization", "detection", "speaker_change", "speaker_set"),
    "scores": ("score",),
    "agreement": ("agreement",),
}
# modules beside a family's own that belong on its page
PAGE_EXTRAS = {
    "events": ("audeval._events.outcomes",),
    "agreement": ("audeval._generic.matrix",),
    "scores": ("audeval._io.scores",),
}
# the generic layers: (the modules whose public names a group shows, in this order)
LAYER_GROUPS = {
    "statistics": (
        "audeval._generic.sum",
        "audeval._generic.accumulate",
        "audeval._generic.bootstrap",
        "audeval._generic.compare",
        "audeval._generic.dask",
        "audeval._core.warnings",
    ),
    "readers": ("audeval._io.readers", "audeval._io.events", "audeval._io.example"),
    "report": ("audeval._html",),
}


def _top(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _family_modules() -> dict[str, tuple[str, ...]]:
    """Group -> the (top-level) modules of its registered families."""
    from audeval._generic.registry import FAMILIES

    out = {}
    for page, names in FAMILY_PAGES.items():
        modules = []
        for name in names:
            if name in FAMILIES:
                module = _top(FAMILIES[name].statistics.__module__)
                if module not in modules:
                    modules.append(module)
        out[page] = (*modules, *PAGE_EXTRAS.get(page, ()))
    unclaimed = [f for f in FAMILIES if not any(f in names for names in FAMILY_PAGES.values())]
    if unclaimed:
        raise ValueError(f"families {unclaimed} have no API page: add them to FAMILY_PAGES")
    return out


def groups() -> dict[str, tuple[str, ...]]:
    """Every group with its modules: the families' (from the registry), then the layers."""
    return {**_family_modules(), **LAYER_GROUPS}
# sub-packages with their own page (their names are ``<package>.<name>``)
PACKAGES = {
    "separation": "audeval.separation",
    "plot": "audeval.plot",
}


def top_level_names() -> list[str]:
    """Public names of ``audeval`` (not sub-modules, not ``__version__``)."""
    import audeval

    return sorted(
        name
        for name in dir(audeval)
        if not name.startswith("_") and not isinstance(getattr(audeval, name), types.ModuleType)
    )


def home_module(obj: object) -> str:
    """The module an object is defined in (the family it belongs to)."""
    return getattr(obj, "__module__", "") or ""


def group_names(group: str) -> tuple[str, list[str]]:
    """``(current module, names)`` of a group, in definition order within each module."""
    import importlib

    import audeval

    if group in PACKAGES:
        package = importlib.import_module(PACKAGES[group])
        names = list(getattr(package, "__all__", None) or [
            n for n in dir(package) if not n.startswith("_")
        ])
        return PACKAGES[group], names
    names = top_level_names()
    known = groups()
    if group == "other":
        claimed = {m for modules in known.values() for m in modules}
        return "audeval", [n for n in names if _home(getattr(audeval, n), claimed, n) is None]
    if group not in known:
        raise ValueError(f"unknown API group {group!r}; known: {sorted(known) + sorted(PACKAGES)}")
    out = []
    for module in known[group]:
        chosen = [n for n in names if _home(getattr(audeval, n), known[group], n) == module]
        out.extend(sorted(chosen, key=lambda n: _source_line(getattr(audeval, n))))
    return "audeval", out


def _home(obj: object, modules, name: str | None = None) -> str | None:
    """The module of ``modules`` that an object comes from (a family package counts whole).

    Data without ``__module__`` (e.g. a dict of presets) belongs to the module
    whose namespace holds it under ``name``.
    """
    import importlib

    home = home_module(obj)
    for module in modules:
        if home == module or home.startswith(module + "."):
            return module
    if not home and name is not None:
        for module in modules:
            if getattr(importlib.import_module(module), name, None) is obj:
                return module
    return None


def _source_line(obj: object) -> int:
    try:
        return inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return 0


def all_documented_names() -> list[str]:
    """Fully qualified names the reference documents (used by the tests)."""
    out = []
    for group in [*groups(), "other", *PACKAGES]:
        module, names = group_names(group)
        out.extend(f"{module}.{n}" for n in names)
    return out


def _overview(group: str) -> list[str]:
    """The module docstrings of a group without their summary lines."""
    import importlib

    lines = []
    for name in groups().get(group, ()):
        doc = inspect.getdoc(importlib.import_module(name)) or ""
        body = doc.split("\n\n", 1)[1] if "\n\n" in doc else ""
        lines += body.splitlines() + [""]
    return lines


def _entry(module: str, name: str) -> list[str]:
    import importlib

    obj = getattr(importlib.import_module(module), name)
    if inspect.isclass(obj):
        if issubclass(obj, Warning):
            return [f".. autoexception:: {name}", ""]
        return [f".. autoclass:: {name}", "   :members:", ""]
    if callable(obj):
        return [f".. autofunction:: {name}", ""]
    return [f".. autodata:: {name}", ""]


class AudevalApi(SphinxDirective):
    """``.. audeval-api:: group``: overview table and entries of a group."""

    required_arguments = 1
    has_content = False
    option_spec = {"overview": directives.flag}

    def run(self) -> list[nodes.Node]:
        group = self.arguments[0]
        module, names = group_names(group)
        if not names:
            return []
        lines = [f".. currentmodule:: {module}", ""]
        if "overview" in self.options:
            lines += _overview(group)
        if group == "other":
            lines += ["Other", "-----", ""]
        lines += [".. autosummary::", "   :nosignatures:", ""]
        lines += [f"   {name}" for name in names]
        lines.append("")
        for name in names:
            lines += _entry(module, name)
        source = self.get_source_info()[0] or "<audeval-api>"
        content = StringList(lines, source=source)
        node = nodes.section() if group == "other" else nodes.container()
        node.document = self.state.document
        nested_parse_with_titles(self.state, content, node)
        return node.children


def setup(app):
    app.add_directive("audeval-api", AudevalApi)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
