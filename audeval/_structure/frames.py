"""Frame grid, contingency table and expected mutual information of the structure metrics.

:func:`contingency` turns the two piece lists of :mod:`._prepare` into the sparse
contingency table of frame counts (or durations)
per ``(file, truth cluster, prediction cluster)``:
every piece owns a range of frames (grid points counted with integer divisions),
and the piece engine (:mod:`audeval._core.sweep`) sums the frames of every pair of clusters
active together: no frame arrays, no frame-pair matrices.

Default grid (``compat=None``): frame ``k`` takes the label active at ``k * frame_size``;
a file has ``floor(T / frame_size)`` frames.
``compat="mir_eval"``: frame times ``float32(k) * float32(frame_size)`` compared in float64
with segments closed on both ends, where a frame on a shared boundary
takes the label of the row that comes *later in the input*
(mir_eval writes the rows in order, each overwriting the last);
the frame count ``floor(T / frame_size)`` in float64.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from audeval._core import sweep as _pieces
from audeval._core.intervals import expand_ranges
from audeval._structure.prepare import Pieces
from audeval._structure.prepare import Prepared
from audeval._core.validation import NS_PER_SECOND

EMI_LOG_CUTOFF = 40.0  # hypergeometric terms below exp(-40) * mode are left out


# -------------------------------------------------------------------------
# Frame grid
# -------------------------------------------------------------------------


def _float32_time(k: np.ndarray, frame_size: float) -> np.ndarray:
    """mir_eval's frame times: ``float32(k) * float32(frame_size)`` in float32."""
    return (k.astype(np.float32) * np.float32(frame_size)).astype(np.float64)


def _first_frame(
    seconds: np.ndarray,
    n_frames: np.ndarray,
    frame_size: float,
    strict: np.ndarray,
) -> np.ndarray:
    """First ``k`` in ``[0, n]`` with ``t_k >= s`` (``t_k > s`` where ``strict``).

    A vectorised bisection over the float32 grid (monotone in ``k``):
    as exact as mir_eval's ``searchsorted`` on the materialised grid.
    """
    low = np.zeros(len(seconds), dtype=np.int64)
    high = n_frames.astype(np.int64, copy=True)
    while True:
        active = low < high
        if not active.any():
            return low
        mid = (low + high) // 2
        t = _float32_time(mid, frame_size)
        ok = np.where(strict, t > seconds, t >= seconds)
        high = np.where(active & ok, mid, high)
        low = np.where(active & ~ok, mid + 1, low)


def frame_counts(prep: Prepared, frame_size: int | float | None) -> np.ndarray:
    """Number of frames per file (``T`` in ns when ``frame_size`` is None)."""
    if frame_size is None:
        return prep.extent.copy()
    if prep.compat:
        seconds = prep.extent / NS_PER_SECOND
        return np.floor(seconds / float(frame_size)).astype(np.int64)
    return prep.extent // int(frame_size)


def frame_starts(
    pieces: Pieces,
    n_frames: np.ndarray,
    frame_size: int | float | None,
    compat: bool,
) -> np.ndarray:
    """First frame of every piece; a piece owns the frames up to the next one's."""
    n = n_frames[pieces.file]
    if frame_size is None:
        return np.minimum(pieces.start, n)
    if not compat:
        fs = int(frame_size)
        return np.minimum(-(-pieces.start // fs), n)
    # compat: rows are closed intervals; a frame on the start of a piece
    # goes to the row before it if that row comes later in the input,
    # or if the piece is a gap (no row claims it)
    first = np.ones(len(pieces), dtype=bool)
    first[1:] = pieces.file[1:] != pieces.file[:-1]
    previous_rank = np.roll(pieces.rank, 1)
    previous_row = np.roll(pieces.is_row, 1)
    strict = ~first & previous_row & (~pieces.is_row | (pieces.rank <= previous_rank))
    seconds = pieces.start / NS_PER_SECOND
    return _first_frame(seconds, n, float(frame_size), strict)


# -------------------------------------------------------------------------
# Contingency table
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Contingency:
    """Sparse contingency table of all files (only non-zero cells).

    ``count`` are frames (or ns without frames) per
    ``(file, truth cluster, prediction cluster)``;
    ``a``/``b`` are the truth/prediction cluster sizes of every cell;
    ``truth_*``/``prediction_*`` list the non-empty clusters of each file.
    """

    n: np.ndarray  # frames (or ns) per file
    file: np.ndarray
    count: np.ndarray
    a: np.ndarray
    b: np.ndarray
    truth_file: np.ndarray
    truth_size: np.ndarray
    prediction_file: np.ndarray
    prediction_size: np.ndarray


def _cluster_sizes(file, cluster, count, n_clusters):
    """Size of every non-empty cluster of a file, and the cluster of every cell."""
    key = file * n_clusters + cluster
    unique, inverse = np.unique(key, return_inverse=True)
    size = np.bincount(inverse, weights=count, minlength=len(unique))
    return unique // n_clusters, size, inverse


def _frame_ranges(side: Pieces, first: np.ndarray, n: np.ndarray) -> np.ndarray:
    """One past the last frame of every piece: the next piece's first frame, or ``n`` of its file."""
    stop = np.empty_like(first)
    stop[:-1] = first[1:]
    last = np.ones(len(first), dtype=bool)
    last[:-1] = side.file[1:] != side.file[:-1]
    stop[last] = n[side.file[last]]
    return stop


def contingency(prep: Prepared, frame_size: int | float | None) -> Contingency:
    """Frame counts per ``(file, truth cluster, prediction cluster)``.

    Every piece of both sides owns a range of frames (:func:`frame_starts`);
    the piece engine (:mod:`audeval._core.sweep`) cuts every file at the ends of all ranges
    and sums, per file, the frames where a truth and a prediction cluster are active together.
    """
    n_files = prep.n_files
    n = frame_counts(prep, frame_size)
    t, p = prep.truth, prep.prediction
    t_first = frame_starts(t, n, frame_size, prep.compat)
    p_first = frame_starts(p, n, frame_size, prep.compat)
    t_stop = _frame_ranges(t, t_first, n)
    p_stop = _frame_ranges(p, p_first, n)
    pieces = _pieces.cut(n_files, np.r_[t.file, p.file], np.r_[t_first, p_first], np.r_[t_stop, p_stop])
    k, c = len(t), prep.n_clusters
    t_active = _pieces.activity(len(pieces), pieces.first[:k], pieces.stop[:k], t.cluster, c)
    p_active = _pieces.activity(len(pieces), pieces.first[k:], pieces.stop[k:], p.cluster, c)
    file, tc, pc, frames = _pieces.cooccurrence(pieces, t_active, p_active, c, c)
    count = frames.astype(np.float64)
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


# -------------------------------------------------------------------------
# Clustering scores
# -------------------------------------------------------------------------


def _per_file(file: np.ndarray, values: np.ndarray, n_files: int) -> np.ndarray:
    return np.bincount(file, weights=values, minlength=n_files)


EMI_CHUNK = 1 << 16  # hypergeometric terms evaluated at once (fits in L2 cache)


def expected_mutual_information(table: Contingency, n_files: int) -> np.ndarray:
    r"""Expected mutual information under the hypergeometric model, per file.

    .. math::

        E[MI] = \sum_{i,j} \sum_{k} \frac{k}{N} \log\frac{N k}{a_i b_j}
            \frac{a_i!\,b_j!\,(N-a_i)!\,(N-b_j)!}
                 {N!\,k!\,(a_i-k)!\,(b_j-k)!\,(N-a_i-b_j+k)!}

    over ``max(1, a_i + b_j - N) <= k <= min(a_i, b_j)``
    (``N`` frames, cluster sizes ``a_i``, ``b_j``).
    Clusters of equal size in a file are taken together.
    The pmf is log-concave, so the terms whose probability is below
    ``exp(-40)`` times that of the mode form the two tails;
    they are left out (their sum is below ``1e-14`` of the result).
    The remaining terms are evaluated from tables of ``log k!`` and
    ``k log k`` in chunks of pairs of similar window width:
    memory stays bounded, cost grows with ``sum sqrt(min(a_i, b_j))``.
    """
    out = np.zeros(n_files, dtype=np.float64)
    if len(table.truth_file) == 0:
        return out
    file, a, b, mult, big_n, lo, hi = _size_pairs(table)
    if len(file) == 0:
        return out
    k_max = int(big_n.max())
    if k_max > 50_000_000:  # pragma: no cover - tables would be too large
        raise ValueError(
            "adjusted mutual information needs at most 5e7 frames per file; "
            "use a larger frame_size."
        )
    import scipy.special  # deferred: heavy, loaded on first use

    lf = scipy.special.gammaln(np.arange(k_max + 1, dtype=np.float64) + 1.0)  # log k!
    with np.errstate(divide="ignore", invalid="ignore"):
        k_log_k = np.arange(k_max + 1) * np.log(np.arange(k_max + 1))
    k_log_k[0] = 0.0
    const = lf[a] + lf[b] + lf[big_n - a] + lf[big_n - b] - lf[big_n]
    rest = big_n - a - b
    first, last = _pmf_window(lf, const, a, b, rest, big_n, lo, hi)
    # sum_k k log(k / mu) P(k), mu = a b / N
    log_mu = np.log(a.astype(np.float64)) + np.log(b.astype(np.float64)) - np.log(
        big_n.astype(np.float64)
    )
    per_pair = _window_sums(lf, k_log_k, const, a, b, rest, log_mu, first, last)
    per_pair /= big_n
    return _per_file(file, per_pair * mult, n_files)


def _size_pairs(table: Contingency) -> tuple[np.ndarray, ...]:
    """Pairs of cluster sizes ``(a, b)`` per file (equal sizes taken together, ``mult`` times)
    with the range ``lo..hi`` of their overlap ``k``."""
    n_int = table.n.astype(np.int64)
    base = int(n_int.max()) + 1

    def sizes(file, size):
        key = file * base + size.astype(np.int64)
        unique, mult = np.unique(key, return_counts=True)
        return unique // base, unique % base, mult

    fa, a, ma = sizes(table.truth_file, table.truth_size)
    fb, b, mb = sizes(table.prediction_file, table.prediction_size)
    left = np.searchsorted(fb, fa, side="left")
    right = np.searchsorted(fb, fa, side="right")
    i, j = expand_ranges(left, right)
    file = fa[i]
    a, b = a[i], b[j]
    mult = (ma[i] * mb[j]).astype(np.float64)
    big_n = n_int[file]
    lo = np.maximum(1, a + b - big_n)
    hi = np.minimum(a, b)
    ok = lo <= hi
    return tuple(x[ok] for x in (file, a, b, mult, big_n, lo, hi))


def _pmf_window(lf, const, a, b, rest, big_n, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest ``k`` whose pmf is above ``exp(-cutoff)`` times the mode's."""

    def log_pmf(k):
        return const - lf[k] - lf[a - k] - lf[b - k] - lf[rest + k]

    mode = np.clip((a + 1) * (b + 1) // (big_n + 2), lo, hi)
    threshold = log_pmf(mode) - EMI_LOG_CUTOFF
    # smallest k in [lo, mode] and largest k in [mode, hi] above the threshold
    low, high = lo.copy(), mode.copy()
    while (low < high).any():
        mid = (low + high) // 2
        above = log_pmf(mid) >= threshold
        high = np.where(above, mid, high)
        low = np.where(above, low, mid + 1)
    first = low
    low, high = mode.copy(), hi.copy()
    while (low < high).any():
        mid = (low + high + 1) // 2
        above = log_pmf(mid) >= threshold
        low = np.where(above, mid, low)
        high = np.where(above, high, mid - 1)
    return first, low


def _window_sums(lf, k_log_k, const, a, b, rest, log_mu, first, last) -> np.ndarray:
    """``sum_k P(k) (k log k - k log mu)`` over each pair's window, in chunks of similar width."""
    width = last - first + 1
    order = np.argsort(width, kind="stable")
    steps = np.arange(int(width.max()), dtype=np.int64)
    per_pair = np.zeros(len(first), dtype=np.float64)
    start = 0
    while start < len(order):
        # rows up to a budget of EMI_CHUNK cells at the chunk's largest width
        stop = start + 1
        while stop < len(order):
            grow = min(len(order), stop + max(1, (stop - start)))
            if width[order[grow - 1]] * (grow - start) > EMI_CHUNK:
                break
            stop = grow
        rows = order[start:stop]
        w = int(width[rows].max())
        k = first[rows, None] + steps[:w]
        np.minimum(k, last[rows, None], out=k)  # cells beyond a row's window: masked
        log_p = np.subtract(const[rows, None], np.take(lf, k))
        other = np.subtract(a[rows, None], k)
        log_p -= np.take(lf, other)
        np.subtract(b[rows, None], k, out=other)
        log_p -= np.take(lf, other)
        np.add(rest[rows, None], k, out=other)
        log_p -= np.take(lf, other)
        p = np.exp(log_p, out=log_p)
        p *= steps[:w] < width[rows, None]
        value = np.take(k_log_k, k)
        value -= k * log_mu[rows, None]
        per_pair[rows] = np.einsum("ij,ij->i", p, value)
        start = stop
    return per_pair


