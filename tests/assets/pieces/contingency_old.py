"""Structure's contingency table as it was before it used the piece engine.

The reference of ``tests/test_pieces.py`` (``audeval._structure.frames.contingency``
now maps both sides onto :mod:`audeval._core.sweep`).
"""

from __future__ import annotations

import numpy as np

from audeval._core.intervals import group_keys
from audeval._structure.frames import Contingency
from audeval._structure.frames import _cluster_sizes
from audeval._structure.frames import frame_counts
from audeval._structure.frames import frame_starts


def contingency(prep, frame_size: int | float | None) -> Contingency:
    """Frame counts per ``(file, truth cluster, prediction cluster)``.

    The cut points of both piece lists (in frames) refine each file
    into runs of frames with one truth and one prediction piece;
    each run adds its length to one cell.
    """
    n_files = prep.n_files
    n = frame_counts(prep, frame_size)
    t, p = prep.truth, prep.prediction
    t_first = frame_starts(t, n, frame_size, prep.compat)
    p_first = frame_starts(p, n, frame_size, prep.compat)
    t_key, p_key = group_keys(n_files, (t.file, t_first), (p.file, p_first))

    cut_key, where = np.unique(np.concatenate([t_key, p_key]), return_index=True)
    cut_file = np.concatenate([t.file, p.file])[where]
    cut_frame = np.concatenate([t_first, p_first])[where]
    next_frame = np.empty_like(cut_frame)
    next_frame[:-1] = cut_frame[1:]
    last = np.ones(len(cut_file), dtype=bool)
    last[:-1] = cut_file[1:] != cut_file[:-1]
    next_frame[last] = n[cut_file[last]]
    length = next_frame - cut_frame

    ti = np.searchsorted(t_key, cut_key, side="right") - 1
    pi = np.searchsorted(p_key, cut_key, side="right") - 1
    keep = length > 0
    cell_file = cut_file[keep]
    tc = t.cluster[ti[keep]]
    pc = p.cluster[pi[keep]]
    length = length[keep].astype(np.float64)

    c = prep.n_clusters
    cell_key = (cell_file * c + tc) * c + pc
    cells, inverse = np.unique(cell_key, return_inverse=True)
    count = np.bincount(inverse, weights=length, minlength=len(cells))
    file = cells // (c * c)
    tc = (cells // c) % c
    pc = cells % c
    truth_file, truth_size, t_inv = _cluster_sizes(file, tc, count, c)
    prediction_file, prediction_size, p_inv = _cluster_sizes(file, pc, count, c)
    return Contingency(
        n.astype(np.float64),
        file,
        count,
        truth_size[t_inv],
        prediction_size[p_inv],
        truth_file,
        truth_size,
        prediction_file,
        prediction_size,
    )
