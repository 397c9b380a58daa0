"""audeval's warnings, issued at the caller's line (core: imports nothing of audeval)."""

from __future__ import annotations

import inspect
import os
import warnings


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for a label (no support in either input): it gets ``zero_division``."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn at the first stack frame outside audeval (the caller's line)."""
    frame = inspect.currentframe()
    level = 1
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_PACKAGE + os.sep):
            break
        frame = frame.f_back
        level += 1
    del frame
    warnings.warn(message, category, stacklevel=level)


__all__ = ["UndefinedMetricWarning", "warn"]
