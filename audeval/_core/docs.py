"""Argument docs shared by the families' docstrings, and the one function that fills them in.

A public function's docstring is written where the function is,
with the text it shares with other functions named by a placeholder;
:func:`fill` puts the texts in place once, when the module is imported,
so ``help()``, the API reference and ``__doc__`` show the whole docstring.

Conventions:

* A **placeholder** is a docstring line that holds nothing but ``{name}``
  after its indentation (``name`` an identifier).
  Braces anywhere else are text: ``:math:`C_{ck}```,
  dict displays in examples, a ``{name}`` inside a sentence.
* ``@fill(**parts)`` fills every placeholder of the decorated function:
  ``name`` is looked up in ``parts`` (the family's own texts), then in :data:`ARGS`
  (the texts several families share word for word).
  A placeholder found in neither raises ``ValueError``,
  a part no placeholder uses raises ``TypeError`` (a text nobody shows),
  and so does a function without a docstring.
* A **text** is written as it reads in a docstring, at any indentation:
  a triple-quoted string that starts with a newline, e.g.
  an ``Args:`` entry and its continuation lines four spaces deeper.
  Its common indentation is removed, and every line is indented
  as the placeholder is, so the same text fits an ``Args:`` entry (8 spaces),
  a section header (4 spaces) or a doctest block; blank lines stay empty.
  A text may hold several arguments, a whole section or an example.
* :data:`ARGS` holds the wording that several families share;
  where an argument means something else in a family
  (``files_duration`` of segments and of diarization, ``zero_division`` of an error rate),
  the family writes its own text, in the docstring
  or as a part in its module (e.g. ``fill(args=_ARGS)``).
  The declared option texts (``Option.doc``) are one-line summaries for the CLI
  and the declaration, not the docstrings' wording, so they are not read here.
* Put ``@fill(...)`` right above ``def`` (below the family's ``metric`` or
  ``statistics`` decorator), so that the function and its wrapper carry the filled text.

Example:
    >>> @fill(result="Returns:\\n    the sum")
    ... def add(a, b, *, zero_division=0.0):
    ...     '''Add.
    ...
    ...     Args:
    ...         a: a number
    ...         b: a number
    ...         {zero_division}
    ...
    ...     {result}
    ...     '''
    >>> print(add.__doc__.rstrip())
    Add.
    <BLANKLINE>
        Args:
            a: a number
            b: a number
            zero_division: value of an undefined precision or recall
    <BLANKLINE>
        Returns:
            the sum

"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import re
import textwrap
import types
from typing import TypeVar


__all__ = ["ARGS", "fill"]


def _text(text: str) -> str:
    """A text without its common indentation and without its first and last newlines."""
    return textwrap.dedent(text).strip("\n")


ARGS: Mapping[str, str] = types.MappingProxyType(
    {
        # events, segments
        "average": _text('''
            average: ``"micro"`` or ``"macro"``
        '''),
        # structure, hierarchy
        "beta": _text("""
            beta: weight of recall in the F-measure
        """),
        # structure_report, hierarchy_report
        "beta_report": _text("""
            beta: weight of recall in every F-measure
        """),
        # structure, hierarchy
        "files_duration": _text("""
            files_duration: durations to resolve ``end=NaT``
        """),
        # events, segments, diarization (identification), separation (masks)
        "zero_division": _text("""
            zero_division: value of an undefined precision or recall
        """),
    }
)
"""Argument docs shared word for word by several families, by placeholder name."""

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)\{(?P<name>[A-Za-z_]\w*)\}[ \t]*$", re.MULTILINE)

F = TypeVar("F", bound=Callable)


def fill(**parts: str) -> Callable[[F], F]:
    r"""A decorator that fills the placeholders of a docstring (module docstring: Conventions).

    Args:
        **parts: the family's texts by placeholder name;
            a name not given here is looked up in :data:`ARGS`

    Returns:
        decorator that sets ``__doc__`` of the function and returns it

    Raises:
        ValueError: a placeholder neither in ``parts`` nor in :data:`ARGS`
        TypeError: a part no placeholder uses, or a function without docstring

    Examples:
        >>> @fill(args='''
        ...     x: a number
        ...         (seconds)
        ... ''')
        ... def f(x):
        ...     '''F.
        ...
        ...     Args:
        ...         {args}
        ...     '''
        >>> f.__doc__.splitlines()[2:]
        ['    Args:', '        x: a number', '            (seconds)', '    ']
        >>> @fill()
        ... def g():
        ...     '''G.
        ...
        ...         {nothing}
        ...     '''
        Traceback (most recent call last):
        ...
        ValueError: g: no text for the docstring placeholder {nothing}; pass it to fill() or add it to audeval._core.docs.ARGS.

    """
    texts = {name: _text(text) for name, text in parts.items()}

    def document(function: F) -> F:
        name = getattr(function, "__qualname__", repr(function))
        doc = function.__doc__
        if not doc:
            raise TypeError(f"{name}: fill() needs a docstring with placeholders.")
        used = set()

        def replace(match: re.Match) -> str:
            key, indent = match["name"], match["indent"]
            if key in texts:
                text = texts[key]
            elif key in ARGS:
                text = ARGS[key]
            else:
                raise ValueError(
                    f"{name}: no text for the docstring placeholder {{{key}}}; "
                    "pass it to fill() or add it to audeval._core.docs.ARGS."
                )
            used.add(key)
            return "\n".join(indent + line if line.strip() else "" for line in text.split("\n"))

        filled = _PLACEHOLDER.sub(replace, doc)
        unused = sorted(set(texts) - used)
        if unused:
            raise TypeError(f"{name}: fill() parts {unused} are used by no placeholder of its docstring.")
        function.__doc__ = filled
        return function

    return document
