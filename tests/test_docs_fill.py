"""The docstring fill function (``audeval._core.docs``) and the filled public docstrings.

* no docstring of the package holds an unfilled placeholder
  (public names, their wrapped functions, every function and class of every module);
* ``fill`` puts a text in place of a whole-line ``{name}`` at the placeholder's indentation,
  leaves other braces alone, and raises on an unknown placeholder,
  on a part that no placeholder uses and on a function without docstring;
* every shared text of ``ARGS`` is shown by functions of two families or more.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import audeval
from audeval._core.docs import ARGS
from audeval._core.docs import fill
import audeval.plot
import audeval.separation


PLACEHOLDER = re.compile(r"^[ \t]*\{[A-Za-z_]\w*\}[ \t]*$", re.MULTILINE)
# part names the families use (a placeholder left inside a line would show one of them)
PART_NAMES = {"args", "common", "tolerances", "example", "shared", "level", "weights", "raises", "ARGS", *ARGS}


def public_objects() -> dict[str, object]:
    objects = {}
    for module in (audeval, audeval.separation, audeval.plot):
        for name in module.__all__:
            obj = getattr(module, name)
            objects[f"{module.__name__}.{name}"] = obj
            if callable(obj) and inspect.unwrap(obj) is not obj:
                objects[f"{module.__name__}.{name} (wrapped)"] = inspect.unwrap(obj)
    return objects


def module_objects() -> dict[str, object]:
    objects = {}
    for info in pkgutil.walk_packages(audeval.__path__, "audeval."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        objects[info.name] = module
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == info.name:
                objects[f"{info.name}.{name}"] = obj
    return objects


def unfilled(doc: str | None) -> list[str]:
    doc = doc or ""
    found = [m.group(0).strip() for m in PLACEHOLDER.finditer(doc)]
    found += [f"{{{name}}}" for name in PART_NAMES if f"{{{name}}}" in doc]
    return found


def test_public_docstrings_are_filled():
    objects = public_objects()
    assert len(objects) > 150
    left = {name: unfilled(obj.__doc__) for name, obj in objects.items() if unfilled(obj.__doc__)}
    assert left == {}


def test_module_docstrings_are_filled():
    objects = module_objects()
    # the module docstring of audeval._core.docs shows a placeholder inside a doctest (indented code)
    skip = {"audeval._core.docs", "audeval._core.docs.fill"}
    left = {
        name: unfilled(obj.__doc__)
        for name, obj in objects.items()
        if name not in skip and unfilled(obj.__doc__)
    }
    assert left == {}


def test_fill_indents_a_text_as_its_placeholder():
    @fill(args="""
        x: a number
            (seconds)

        y: a label
    """)
    def f(x, y):
        """F.

        Args:
            {args}
            {zero_division}

        Examples:
            >>> {"a": 1}
            {'a': 1}

        :math:`C_{ck}`, {args} inside a line
        """

    lines = f.__doc__.splitlines()
    assert lines[2:9] == [
        "        Args:",
        "            x: a number",
        "                (seconds)",
        "",
        "            y: a label",
        "            zero_division: value of an undefined precision or recall",
        "",
    ]
    assert "            {'a': 1}" in lines
    assert "        :math:`C_{ck}`, {args} inside a line" in lines


def test_fill_prefers_a_part_to_the_shared_text():
    @fill(zero_division="zero_division: value of 0 / 0")
    def f():
        """F.

        {zero_division}
        """

    assert f.__doc__ == "F.\n\n        zero_division: value of 0 / 0\n        "


def test_fill_raises_on_an_unknown_placeholder():
    with pytest.raises(ValueError, match=r"f: no text for the docstring placeholder \{unknown\}"):

        @fill(args="a: b")
        def f():
            """F.

            {args}
            {unknown}
            """


def test_fill_raises_on_an_unused_part():
    with pytest.raises(TypeError, match=r"f: fill\(\) parts \['extra'\] are used by no placeholder"):

        @fill(extra="a: b")
        def f():
            """F."""


def test_fill_raises_without_docstring():
    with pytest.raises(TypeError, match="f: fill.. needs a docstring"):

        @fill()
        def f():
            pass


def test_shared_texts_are_shared_by_families():
    families = {}
    for name, obj in public_objects().items():
        module = getattr(inspect.unwrap(obj), "__module__", "") if callable(obj) else ""
        family = ".".join(module.split(".")[:2])
        for key, text in ARGS.items():
            if text in (obj.__doc__ or ""):
                families.setdefault(key, set()).add(family)
    assert set(families) == set(ARGS)
    assert {key: len(found) >= 2 for key, found in families.items()} == {key: True for key in ARGS}
