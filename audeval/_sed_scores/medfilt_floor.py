r"""Median filters computed exactly only where they can reach a PSD-ROC.

A PSD-ROC cut at ``max_efpr`` uses no threshold whose false positives exceed the budget
:math:`B = e_{max} T / 3600` (:mod:`audeval._sed_scores.prune`). In a file without truth
of class :math:`c` every detection is a false positive, and at any threshold
:math:`\theta < g` each such file whose filtered scores reach :math:`g` somewhere holds at
least one, so

.. math::

    \text{fp}(\theta) \ge |\{f \text{ without truth of } c : \max_i \tilde s_{f, i} \ge g\}|
    \quad (\theta < g).

Where that count exceeds :math:`B`, no threshold below :math:`g` is on the curve:
the filtered scores are needed exactly only where they are at least :math:`g`,
elsewhere any value below :math:`g` does (the floor of the engine is then at least
:math:`g`; the counts at and above it are unchanged).

For a middle rank :math:`r` of an odd window of :math:`2h + 1` frames,
:math:`\tilde s_i \ge g` exactly when at most :math:`r` of the window's scores are below
:math:`g`: a running count (a cumulative sum). The rank filter then runs only on the
frames with :math:`\tilde s_i \ge g` and their :math:`h` neighbours each side,
laid end to end (a window of such a frame holds only those), the other frames get the
largest float below :math:`g`.

:math:`g` per class: the :math:`(\lfloor B \rfloor + 1)`-th largest, over the files
without truth of the class, of one filtered score of each file, at the centre of its window
of scores with the largest sum (:func:`peaks`, a heuristic on sums of :data:`STEP` frames;
one rank of one window per file: a score the file has, so at most its highest). The count
above is checked on the frames; where it fails (not expected) or a class has too few such
files, every score is computed. Exact scores get the level the same way from each file's
highest score (:func:`highest`): the engine then needs no change point below it.
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Below:
    """What the engine leaves out: ``outside`` (classes x files), the groups without truth of
    the class; ``budget``, the false positives beyond which a threshold is off the curve."""

    outside: np.ndarray
    budget: float

    @property
    def needed(self) -> int:
        """The files without truth that, each reaching a level, put every threshold below it
        off the curve (more than the budget)."""
        return int(np.floor(self.budget)) + 1


STEP = 4
"""Frames summed into one value for :func:`peaks` (a heuristic: a quarter of the work)."""


def block_sums(values: np.ndarray) -> np.ndarray:
    """``(classes, blocks + 1)``: cumulative sums of the scores (``(frames, classes)``)
    of every :data:`STEP` frames (for :func:`peaks`)."""
    n, n_columns = values.shape
    rows = values.T[:, : n // STEP * STEP].reshape(n_columns, n // STEP, STEP)  # (classes are contiguous)
    total = np.zeros((n_columns, n // STEP + 1))
    np.add(rows[:, :, 0], rows[:, :, 1], out=total[:, 1:])
    for j in range(2, STEP):
        total[:, 1:] += rows[:, :, j]
    np.cumsum(total[:, 1:], axis=1, out=total[:, 1:])
    return total


def peaks(total: np.ndarray, starts: np.ndarray, ends: np.ndarray, width: int) -> np.ndarray:
    """``(files, classes)``: per file (its frames ``starts .. ends``) a frame where its scores
    are high: the centre of the window of about ``width`` frames with the largest sum
    (``total``: :func:`block_sums`; windows may reach into neighbouring files: a heuristic,
    any frame of the file gives a level)."""
    n_blocks = total.shape[1] - 1
    if n_blocks == 0:
        return np.repeat(starts[:, None], total.shape[0], axis=1)
    span = min(max(1, width // STEP), n_blocks)
    n_windows = n_blocks - span + 1
    # the largest sum (its bits as int64: in order for sums >= 0, a heuristic otherwise),
    # its lower bits replaced by the window
    key = np.subtract(total[:, span:], total[:, :n_windows]).view(np.int64)
    bits = int(n_windows).bit_length()
    key &= ~((1 << bits) - 1)
    key |= np.arange(n_windows)
    centre_of = np.arange(n_windows) * STEP + (span * STEP) // 2
    first = np.minimum(np.searchsorted(centre_of, starts), n_windows - 1)
    best = np.maximum.reduceat(key, first, axis=1) & ((1 << bits) - 1)
    return np.clip(centre_of[best], starts, ends).T


def levels(
    padded: np.ndarray, position: np.ndarray, centre: np.ndarray, run_file: np.ndarray,
    rank: int, size: int, below: Below,
) -> np.ndarray | None:
    """Per class the level :math:`g` (module docstring), or ``None`` where a class has none.

    ``padded``: classes x padded frames; ``position``: padded column of every frame;
    ``centre``: :func:`peaks`; ``run_file``: file code of every run."""
    n_runs, n_classes = centre.shape
    half = size // 2
    column = position[centre] + np.arange(-half, half + 1)[:, None, None]  # (size, runs, classes)
    window = padded[np.arange(n_classes)[None, None, :], column]
    value = np.partition(window, rank, axis=0)[rank]  # (runs, classes)
    return reached(value, run_file, below)


def reached(top: np.ndarray, run_file: np.ndarray, below: Below) -> np.ndarray | None:
    """Per class the level that :attr:`Below.needed` files without its truth reach: the
    that-many-th largest of ``top`` (``(files, classes)``, a score each file has) over those
    files (``run_file``: file code of every row of ``top``); ``None`` where a class has none."""
    if below.needed > len(top):
        return None
    value = np.where(below.outside[:, run_file].T, top, -np.inf)
    level = -np.partition(-value, below.needed - 1, axis=0)[below.needed - 1]
    return level if np.isfinite(level).all() else None


def highest(values: np.ndarray, frame_file: np.ndarray, below: Below) -> np.ndarray | None:
    """:func:`reached` of exact scores (``(frames, classes)``, frames sorted by file):
    each file's highest score is one of its scores."""
    if len(values) == 0:
        return None
    starts = np.flatnonzero(np.r_[True, frame_file[1:] != frame_file[:-1]])
    top = np.maximum.reduceat(values.T, starts, axis=1).T  # (classes contiguous)
    return reached(top, frame_file[starts], below)


def pruned_rank(flat: np.ndarray, level: np.ndarray, rank: int, size: int):
    """The ``rank``-th smallest of the ``size`` values centred on each element of ``flat``
    (rows of equal length end to end, ``level`` per row; the first and last ``size // 2``
    elements are not used) where it is at least the row's level.

    Returns those elements (positions in ``flat``), their values and the cumulative count
    of those elements (``len(flat) + 1`` values)."""
    from scipy import ndimage

    n_rows = len(level)
    half = size // 2
    m = len(flat)
    count = np.zeros(m + 1 + 2 * half, dtype=np.int32)  # scores below the level, then exact elements
    np.cumsum(flat.reshape(n_rows, -1) < level[:, None], out=count[1 : m + 1], axis=None)
    exact = np.zeros(m, dtype=bool)
    np.less_equal(count[size : m + 1] - count[: m + 1 - size], rank, out=exact[half : m - half])
    count[: half + 1] = 0
    np.cumsum(exact, out=count[half + 1 : m + half + 1])
    count[m + half + 1 :] = count[m + half]
    need = np.flatnonzero(count[size : size + m] > count[:m])  # within ``half`` of an exact element
    whole = exact[need]  # (the others' windows are not whole)
    value = ndimage.rank_filter(flat[need], rank, size=size, mode="nearest")[whole] if len(need) else flat[:0]
    return need[whole], value, count[half : m + half + 1]
