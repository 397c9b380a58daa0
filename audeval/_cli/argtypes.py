"""Small argument types of the ``audeval`` command line: seconds, numbers, lists.

Each turns one command-line word into a value or raises
:class:`argparse.ArgumentTypeError` with a message argparse shows in one line.
"""

from __future__ import annotations

import argparse
import math


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected non-negative seconds, got {text!r}")
    return value


def _seconds_or_none(text: str) -> float | None:
    if text.strip().lower() in ("none", "off", "exact"):
        return None
    return _seconds(text)


def _positive_seconds_or_none(text: str) -> float | None:
    value = _seconds_or_none(text)
    if value is not None and value <= 0:
        raise argparse.ArgumentTypeError(f"expected positive seconds or 'none', got {text!r}")
    return value


def _number(text: str) -> float:
    if text.strip().lower() == "nan":
        return float("nan")
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _list(text: str) -> list[str]:
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
    return items


def _seconds_list(text: str) -> list[float]:
    return [_seconds(item) for item in _list(text)]


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value

def _ratio(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def _psds_list(text: str) -> list[str]:
    items = [] if text.strip().lower() == "none" else _list(text.lower())
    bad = [item for item in items if item not in ("psds1", "psds2")]
    if bad:
        raise argparse.ArgumentTypeError(f"expected psds1, psds2 or none, got {text!r}")
    return list(dict.fromkeys(items))
