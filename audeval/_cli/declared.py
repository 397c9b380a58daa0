"""Command-line flags made from a family's declared options (:mod:`audeval._core.declare`).

A flag's name, type, choices, default and help come from the :class:`~audeval._core.declare.Option`
field, so that the command line and the Python API cannot drift apart:
``time_resolution`` becomes ``--time-resolution SECONDS``, a ``"choice"`` option lists its choices,
a ``"real"`` option is checked by the field's own constraint when the command line is read.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
import re

from audeval._cli.argtypes import _number, _positive_seconds_or_none, _seconds, _seconds_or_none


def plain(doc: str) -> str:
    """A field's doc text without reStructuredText markup (for ``--help``)."""
    doc = re.sub(r"\s*\(or ``pd.Timedelta``\)| or as timedelta| \(seconds or timedelta\)", "", doc)
    doc = doc.replace("``None``", "'none'")
    doc = re.sub(r":math:`\\?(\w+)`", r"\1", doc)
    doc = re.sub(r"``([^`]*)``", r"\1", doc)
    return doc.replace('"', "'")


def _shown(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _real(field) -> Callable:
    def parse(text: str) -> float | None:
        value = None if field.none and text.strip().lower() == "none" else _number(text)
        try:
            return field.check(value)
        except (TypeError, ValueError) as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parse.__name__ = field.name  # (argparse names the type in its messages)
    return parse


def _seconds_type(field) -> Callable:
    if field.none:
        return _positive_seconds_or_none if field.open_low else _seconds_or_none
    return _seconds


def add_option(
    group,
    field,
    *,
    default: object = ...,
    context: str = "",
    hint: str = "",
    flag: str | None = None,
    choices: tuple = (),
) -> None:
    """Add the flag of a declared option to an argparse group.

    Args:
        group: argparse parser or argument group
        field: the declared :class:`~audeval._core.declare.Option`
        default: the command's default (default: the field's)
        context: what the option is of, put before the doc text (e.g. ``"AUROC"``)
        hint: command-line words added to the field's doc text (e.g. what MIREX uses)
        flag: the flag (default: ``--`` and the field name with dashes)
        choices: the choices the command offers (default: the field's, but ``None``)

    """
    default = field.default if default is ... else default
    flag = flag or "--" + field.name.replace("_", "-")
    # (a command that offers fewer choices than the field says its own)
    doc = "" if choices else plain(field.doc)
    text = "; ".join(part for part in (doc, hint) if part)
    text = f"{context}: {text}" if context else text
    kwargs: dict = {"default": default, "dest": field.name}
    if field.kind == "bool":
        if default:
            flag = "--no-" + field.name.replace("_", "-")
        group.add_argument(flag, action="store_false" if default else "store_true", help=text, dest=field.name)
        return
    if field.kind == "choice":
        kwargs["choices"] = choices or tuple(c for c in field.choices if c is not None)
    elif field.kind == "seconds":
        kwargs.update(type=_seconds_type(field), metavar="SECONDS")
    elif field.kind == "real":
        bounded = field.low == 0.0 and field.high == 1.0
        kwargs.update(type=_real(field), metavar="RATIO" if bounded else "VALUE")
    elif field.kind == "zero_division":
        kwargs.update(type=_number, metavar="VALUE")
    else:
        raise TypeError(f"{field.name}: an option of kind {field.kind!r} needs its own flag.")
    shown = "" if "default" in hint else f" (default: {_shown(default)})"
    group.add_argument(flag, help=text + shown, **kwargs)


__all__ = ["add_option", "plain"]
