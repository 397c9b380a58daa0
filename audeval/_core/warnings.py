"""audeval's warnings, issued at the caller's line (core: imports nothing of audeval)."""

from __future__ import annotations

import functools
import inspect
import os
import warnings


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for a label (no support in either input): it gets ``zero_division``."""


class UnknownDurationsWarning(UserWarning):
    """Files without ``files_duration`` (or UEM) are scored over the union of their extents.

    Carries its counts, so that batched paths (``Accumulator``, ``dask_statistics``)
    warn once for all batches, with the numbers of the direct call (:meth:`combine`).
    """

    def __init__(self, unknown: int, total: int):
        self.unknown, self.total = int(unknown), int(total)
        super().__init__(
            f"files_duration is not known for {self.unknown} of {self.total} files: "
            "their scored region is the union of the extents "
            "of truth and prediction (pyannote.metrics' rule). "
            "Pass files_duration to score [0, duration]."
        )

    def __reduce__(self):
        return type(self), (self.unknown, self.total)

    @classmethod
    def combine(cls, parts: list[UnknownDurationsWarning], n_files: int) -> UnknownDurationsWarning:
        """The warning of the batches of disjoint files ``parts``, ``n_files`` evaluated in all."""
        return cls(sum(part.unknown for part in parts), n_files)


class NoSharedFileWarning(UserWarning):
    """Truth and prediction have rows but share no file.

    Files are matched by exact equality of the ``file`` index level
    (``"a.wav"``, ``"audio/a.wav"`` and ``"a"`` are three files),
    so every truth row is scored as missed and every prediction row as a false alarm:
    usually a naming mismatch, not a result.
    """


class FilesWithoutRowsWarning(UserWarning):
    """Files of ``files_duration`` occur in neither truth nor prediction.

    They are evaluated as files without events
    (true negatives only, SPEC section 1), which raises accuracies and specificities.
    Silence it where that is intended::

        warnings.filterwarnings("ignore", category=audeval.FilesWithoutRowsWarning)
    """


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # audeval/


def _inside(filename: str) -> bool:
    """A code file of audeval (absolute names resolved once, not per warning and frame)."""
    if not os.path.isabs(filename):  # relative to the current directory, which may change
        return os.path.abspath(filename).startswith(_PACKAGE + os.sep)
    return _inside_absolute(filename)


@functools.lru_cache(maxsize=1024)
def _inside_absolute(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE + os.sep)


def warn(message: str | Warning, category: type[Warning] = UserWarning) -> None:
    """Warn at the first stack frame outside audeval (the caller's line)."""
    frame = inspect.currentframe()
    level = 1
    while frame is not None:
        if not _inside(frame.f_code.co_filename):
            break
        frame = frame.f_back
        level += 1
    del frame
    warnings.warn(message, category, stacklevel=level)


__all__ = ["UndefinedMetricWarning", "UnknownDurationsWarning", "warn"]


__all__ = ["FilesWithoutRowsWarning", "NoSharedFileWarning", "UndefinedMetricWarning", "warn"]
