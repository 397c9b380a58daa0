"""The segment family's gap class as it was computed before it came from the piece engine.

The reference of ``tests/test_pieces_segments.py`` (``audeval._segments.gaps._gaps`` now takes
the runs of :func:`audeval._core.sweep_keyed.channel_runs` where only the file's extent is active). Copied unchanged from
``audeval/_segments/gaps.py`` at f18e5b3.
"""

from __future__ import annotations

import numpy as np

from audeval._core.intervals import merge
from audeval._core.validation import Segments


def _gaps(side: Segments, extent: np.ndarray, code: int) -> Segments:
    """``side`` plus its uncovered parts of ``[0, extent_f)`` as label ``code``."""
    n_files = len(extent)
    end = np.where(side.end < 0, extent[side.file], side.end)  # NaT: until the end
    group, start, stop = merge(n_files, side.file, side.start, end)
    # gaps: before each merged interval (after the previous one of its file), and after the last
    previous = np.zeros(len(group), dtype=np.int64)
    same = np.zeros(len(group), dtype=bool)
    same[1:] = group[1:] == group[:-1]
    previous[1:] = np.where(same[1:], stop[:-1], 0)
    last = np.zeros(n_files, dtype=np.int64)
    np.maximum.at(last, group, stop)
    gap_file = np.concatenate([group, np.arange(n_files, dtype=np.int64)])
    gap_start = np.concatenate([previous, last])
    gap_end = np.concatenate([np.minimum(start, extent[group]), extent])
    keep = gap_end > gap_start
    n = int(keep.sum())
    return Segments(
        np.concatenate([side.file, gap_file[keep]]),
        np.concatenate([side.start, gap_start[keep]]),
        np.concatenate([side.end, gap_end[keep]]),
        np.concatenate([side.label, np.full(n, code, dtype=np.int64)]),
        np.concatenate([side.position, np.full(n, -1, dtype=np.int64)]),
    )
