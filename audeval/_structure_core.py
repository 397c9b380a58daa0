"""Engine of the structural segmentation metrics (SPEC section 5).

Everything here works on the int64 arrays of the validation gate,
for all files at once:

1. :func:`prepare` checks that each side is a partition of its file,
   applies ``mir_eval.segment.evaluate``'s preprocessing
   (truth starts at 0, prediction cropped/padded to the truth's end ``T``)
   and fills every gap with an explicit *piece*,
   so that each side becomes a sorted list of contiguous pieces
   covering ``[0, T)`` per file.
2. :func:`contingency` turns the two piece lists into the sparse
   contingency table of frame counts (or durations)
   per ``(file, truth cluster, prediction cluster)``
   by counting grid points per piece with integer divisions:
   no frame arrays, no frame-pair matrices.
3. :func:`clustering_scores` reduces that table to the pairwise, Rand,
   ARI, MI/AMI/NMI, NCE and V-measure values per file;
   :func:`boundary_scores` matches boundaries per file.

Default semantics (``compat=None``): segments are half-open ``[start, end)``
in exact nanoseconds; frame ``k`` takes the label active at ``k * frame_size``;
a file has ``floor(T / frame_size)`` frames; gaps of one side are one
"no label" cluster.

``compat="mir_eval"`` reproduces ``mir_eval.segment`` 0.8.2:
frame times ``float32(k) * float32(frame_size)`` compared in float64
with segments closed on both ends, where a frame on a shared boundary
takes the label of the row that comes *later in the input*
(mir_eval writes the rows in order, each overwriting the last);
the frame count ``floor(T / frame_size)`` in float64;
labels compared as ``str(label).lower()``;
the padding labels ``__T_MIN`` (before the first segment),
``__T_MAX`` (after the last predicted one) and ``None`` (interior gaps);
prediction rows from the first one (in row order) that starts after ``T`` dropped;
boundaries rounded to 5 decimals and compared in float64 seconds.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import scipy.special

from audeval._intervals import expand_ranges
from audeval._intervals import group_keys
from audeval._intervals import window_join
from audeval._matching import maximum_matching
from audeval._scores import divide
from audeval._scores import fscore
from audeval._validation import _show
from audeval._validation import NS_PER_SECOND
from audeval._validation import Inputs
from audeval._validation import Segments


LOWEST = np.iinfo(np.int64).min + 1  # rank of a row that loses every tie
HIGHEST = np.iinfo(np.int64).max  # rank of a row that wins every tie
EMI_LOG_CUTOFF = 40.0  # hypergeometric terms below exp(-40) * mode are left out


# -------------------------------------------------------------------------
# Partition check and pieces
# -------------------------------------------------------------------------


def _show_rows(series: pd.Series, positions: np.ndarray) -> str:
    """The rows at ``positions`` of ``series``, shown by the gate's formatter."""
    mask = np.zeros(len(series), dtype=bool)
    mask[positions] = True
    return _show(series, mask)


def sort_side(side: Segments, n_files: int) -> Segments:
    """Rows sorted by ``(file, start)``."""
    (key,) = group_keys(n_files, (side.file, side.start))
    return side.take(np.argsort(key, kind="stable"))


def check_partition(side: Segments, series: pd.Series, name: str) -> None:
    """Raise unless the rows of every file are disjoint and of positive length.

    ``side`` must be sorted by ``(file, start)``.
    Rows sorted by start overlap somewhere
    exactly when two neighbours overlap.
    """
    bad = side.end <= side.start
    if bad.any():
        raise ValueError(
            f"{name} has segments of zero length; "
            "structural segmentation metrics need a partition of each file "
            f"into segments of positive length: {_show_rows(series, side.position[bad])}"
        )
    same = side.file[1:] == side.file[:-1]
    overlap = same & (side.start[1:] < side.end[:-1])
    if overlap.any():
        where = np.flatnonzero(overlap)
        positions = np.concatenate([side.position[where], side.position[where + 1]])
        raise ValueError(
            f"{name} has overlapping segments within a file; "
            "structural segmentation metrics need a partition of each file "
            f"(one label at a time): {_show_rows(series, positions)}"
        )


@dataclasses.dataclass(frozen=True)
class Pieces:
    """One side as contiguous pieces covering ``[0, T)`` of every file.

    Sorted by ``(file, start)``; ``end`` of a piece is the start of the next
    (or ``T``). ``is_row`` tells a row of mir_eval's padded input (a real
    row or a pad) from an interior gap; ``rank`` orders rows for ties at a
    shared boundary in compat mode (the higher rank wins).
    """

    file: np.ndarray
    start: np.ndarray
    end: np.ndarray
    cluster: np.ndarray
    rank: np.ndarray
    is_row: np.ndarray

    def __len__(self) -> int:
        return len(self.file)


def make_pieces(
    rows: Segments,
    cluster: np.ndarray,
    extent: np.ndarray,
    n_files: int,
    *,
    lead: int,
    inner: int,
    trail: int,
    empty: int,
    lead_is_row: bool,
) -> Pieces:
    """Fill the gaps of sorted, disjoint ``rows`` up to ``[0, extent)`` per file.

    Args:
        rows: rows sorted by ``(file, start)``, inside ``[0, extent)``;
            ``position`` is their rank for ties (compat mode)
        cluster: cluster code of every row
        extent: ``T`` per file
        n_files: number of files
        lead: cluster of a gap before the first row
        inner: cluster of a gap between two rows
        trail: cluster of a gap after the last row
            (a pad row that wins every tie)
        empty: cluster of a file without rows (a pad row)
        lead_is_row: whether a gap before the first row is a pad row
            (its edges are boundaries) or a gap like ``inner``

    """
    file, start, end = rows.file, rows.start, rows.end
    n = len(file)
    first = np.ones(n, dtype=bool)
    first[1:] = file[1:] != file[:-1]
    last = np.ones(n, dtype=bool)
    last[:-1] = file[1:] != file[:-1]

    lead_gap = first & (start > 0)
    inner_gap = ~last & (np.roll(start, -1) > end)
    trail_gap = last & (end < extent[file])
    has_rows = np.zeros(n_files, dtype=bool)
    has_rows[file] = True
    empty_files = np.flatnonzero(~has_rows & (extent > 0))

    zero = np.zeros(0, dtype=np.int64)
    parts = [
        # file, start, end, cluster, rank, is_row
        (file, start, end, cluster, rows.position, np.ones(n, dtype=bool)),
        (
            file[lead_gap],
            np.zeros(int(lead_gap.sum()), dtype=np.int64),
            start[lead_gap],
            np.full(int(lead_gap.sum()), lead),
            np.full(int(lead_gap.sum()), LOWEST),
            np.full(int(lead_gap.sum()), lead_is_row),
        ),
        (
            file[inner_gap],
            end[inner_gap],
            np.roll(start, -1)[inner_gap] if n else zero,
            np.full(int(inner_gap.sum()), inner),
            np.full(int(inner_gap.sum()), LOWEST),
            np.zeros(int(inner_gap.sum()), dtype=bool),
        ),
        (
            file[trail_gap],
            end[trail_gap],
            extent[file[trail_gap]],
            np.full(int(trail_gap.sum()), trail),
            np.full(int(trail_gap.sum()), HIGHEST),
            np.ones(int(trail_gap.sum()), dtype=bool),
        ),
        (
            empty_files,
            np.zeros(len(empty_files), dtype=np.int64),
            extent[empty_files],
            np.full(len(empty_files), empty),
            np.full(len(empty_files), LOWEST),
            np.ones(len(empty_files), dtype=bool),
        ),
    ]
    columns = [np.concatenate([p[i] for p in parts]) for i in range(6)]
    columns = [c.astype(np.int64) if i < 5 else c for i, c in enumerate(columns)]
    (key,) = group_keys(n_files, (columns[0], columns[1]))
    order = np.argsort(key, kind="stable")
    return Pieces(*(c[order] for c in columns))


@dataclasses.dataclass(frozen=True)
class Prepared:
    """Both sides as pieces, with the track end ``T`` of every file."""

    files: pd.Index
    extent: np.ndarray  # T per file (ns); 0 where the file has no truth
    truth: Pieces
    prediction: Pieces
    n_clusters: int
    compat: bool

    @property
    def n_files(self) -> int:
        return len(self.files)


def _start_pad(rows: Segments, extent: np.ndarray, n_files: int) -> Segments:
    """mir_eval's ``__T_MIN`` pad ``[0, min(first start, T))`` of files whose rows start late.

    The first start is taken over all rows of the file,
    also those that the cropping drops afterwards (as mir_eval does).
    """
    first = np.full(n_files, np.iinfo(np.int64).max, dtype=np.int64)
    if len(rows):
        np.minimum.at(first, rows.file, rows.start)
    has = (first > 0) & (first != np.iinfo(np.int64).max) & (extent > 0)
    file = np.flatnonzero(has)
    zero = np.zeros(len(file), dtype=np.int64)
    return Segments(
        file,
        zero,
        np.minimum(first[file], extent[file]),
        zero,
        np.full(len(file), LOWEST, dtype=np.int64),
    )


def prepare(
    inputs: Inputs,
    truth: pd.Series,
    prediction: pd.Series,
    compat: bool,
) -> Prepared:
    """Partition check, mir_eval's preprocessing, and gap filling."""
    n_files = inputs.n_files
    t_rows = sort_side(inputs.truth, n_files)
    p_rows = sort_side(inputs.prediction, n_files)
    check_partition(t_rows, truth, "truth")
    check_partition(p_rows, prediction, "prediction")

    extent = np.zeros(n_files, dtype=np.int64)
    if len(t_rows):
        np.maximum.at(extent, t_rows.file, t_rows.end)

    if compat:
        names = [str(label).lower() for label in inputs.labels]
        codes, uniques = pd.factorize(
            pd.Index(names + ["__t_min", "__t_max", "none"], dtype=object)
        )
        codes = np.asarray(codes, dtype=np.int64)
        label_code = codes[: len(names)]
        t_min, t_max, gap = (int(c) for c in codes[len(names) :])
        n_clusters = len(uniques)
    else:
        label_code = np.arange(inputs.n_labels, dtype=np.int64)
        t_min = t_max = gap = inputs.n_labels
        n_clusters = inputs.n_labels + 1

    # mir_eval pads each side before it crops the prediction:
    # [0, first start] with __T_MIN, placed first in row order
    if compat:
        t_pad = _start_pad(t_rows, extent, n_files)
        p_pad = _start_pad(p_rows, extent, n_files)

    # Prediction: crop to the truth's end
    keep = p_rows.start < extent[p_rows.file]
    if compat:
        # mir_eval drops every row from the first one (in row order)
        # that starts after T; rows starting at T would be of zero length
        # and make mir_eval raise, they are dropped here
        beyond = p_rows.start > extent[p_rows.file]
        cut = np.full(n_files, np.iinfo(np.int64).max, dtype=np.int64)
        if beyond.any():
            np.minimum.at(cut, p_rows.file[beyond], p_rows.position[beyond])
        keep &= p_rows.position < cut[p_rows.file]
    p_rows = p_rows.take(np.flatnonzero(keep))
    p_rows = Segments(
        p_rows.file,
        p_rows.start,
        np.minimum(p_rows.end, extent[p_rows.file]),
        p_rows.label,
        p_rows.position,
    )

    sides = []
    for rows in (t_rows, p_rows):
        cluster = label_code[rows.label]
        if compat:
            pad = t_pad if rows is t_rows else p_pad
            rows = Segments(
                np.concatenate([rows.file, pad.file]),
                np.concatenate([rows.start, pad.start]),
                np.concatenate([rows.end, pad.end]),
                np.concatenate([rows.label, pad.label]),
                np.concatenate([rows.position, pad.position]),
            )
            cluster = np.concatenate([cluster, np.full(len(pad), t_min)])
            order = np.argsort(group_keys(n_files, (rows.file, rows.start))[0], kind="stable")
            rows, cluster = rows.take(order), cluster[order]
        sides.append(
            make_pieces(
                rows,
                cluster,
                extent,
                n_files,
                lead=gap if compat else t_min,
                inner=gap,
                trail=t_max,
                empty=t_min,
                lead_is_row=not compat,
            )
        )
    t_pieces, p_pieces = sides
    return Prepared(inputs.files, extent, t_pieces, p_pieces, n_clusters, compat)


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


def contingency(prep: Prepared, frame_size: int | float | None) -> Contingency:
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
    file, a, b, mult, big_n, lo, hi = (x[ok] for x in (file, a, b, mult, big_n, lo, hi))
    if len(file) == 0:
        return out

    k_max = int(big_n.max())
    if k_max > 50_000_000:  # pragma: no cover - tables would be too large
        raise ValueError(
            "adjusted mutual information needs at most 5e7 frames per file; "
            "use a larger frame_size."
        )
    lf = scipy.special.gammaln(np.arange(k_max + 1, dtype=np.float64) + 1.0)  # log k!
    with np.errstate(divide="ignore", invalid="ignore"):
        k_log_k = np.arange(k_max + 1) * np.log(np.arange(k_max + 1))
    k_log_k[0] = 0.0
    const = lf[a] + lf[b] + lf[big_n - a] + lf[big_n - b] - lf[big_n]
    rest = big_n - a - b

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
    last = low

    # sum_k k log(k / mu) P(k), mu = a b / N, in chunks of similar width
    log_mu = np.log(a.astype(np.float64)) + np.log(b.astype(np.float64)) - np.log(
        big_n.astype(np.float64)
    )
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
    per_pair /= big_n
    return _per_file(file, per_pair * mult, n_files)


def clustering_scores(
    table: Contingency,
    n_files: int,
    *,
    frames: bool,
    beta: float = 1.0,
    which: frozenset | None = None,
) -> dict[str, np.ndarray]:
    """Per-file clustering scores from the contingency table.

    ``which`` selects groups of scores:
    ``pairwise``, ``rand``, ``ari``, ``mi``, ``ami``, ``nce``, ``v``
    (all when None).
    """
    which = which or frozenset({"pairwise", "rand", "ari", "mi", "ami", "nce", "v"})
    f, nij, a, b, n = table.file, table.count, table.a, table.b, table.n
    unit = 1.0 if frames else 0.0
    k_t = np.bincount(table.truth_file, minlength=n_files)
    k_p = np.bincount(table.prediction_file, minlength=n_files)
    out: dict[str, np.ndarray] = {}

    def pairs(x):
        return x * (x - unit) / 2.0

    if which & {"pairwise", "rand", "ari"}:
        s_ij = _per_file(f, pairs(nij), n_files)
        s_a = _per_file(table.truth_file, pairs(table.truth_size), n_files)
        s_b = _per_file(table.prediction_file, pairs(table.prediction_size), n_files)
        s_n = pairs(n)
    if "pairwise" in which:
        precision = divide(s_ij, s_b)
        recall = divide(s_ij, s_a)
        out["pairwise_precision"] = precision
        out["pairwise_recall"] = recall
        out["pairwise_f_measure"] = fscore(precision, recall, beta=beta, propagate_nans=True)
    if "rand" in which:
        out["rand_index"] = divide(s_n + 2 * s_ij - s_a - s_b, s_n)
    if "ari" in which:
        expected = divide(s_a * s_b, s_n, 0.0)
        ari = divide(s_ij - expected, (s_a + s_b) / 2.0 - expected)
        special = (k_t == k_p) & ((k_t <= 1) | ((k_t == n) & frames))
        out["adjusted_rand_index"] = np.where(special, 1.0, ari)

    if which & {"mi", "ami", "nce", "v"}:
        with np.errstate(divide="ignore", invalid="ignore"):
            nf = n[f]
            p_ij = nij / nf
            mi = _per_file(f, p_ij * np.log(nf * nij / (a * b)), n_files)
            h_t = -_per_file(
                table.truth_file,
                table.truth_size / n[table.truth_file] * np.log(table.truth_size / n[table.truth_file]),
                n_files,
            )
            h_p = -_per_file(
                table.prediction_file,
                table.prediction_size
                / n[table.prediction_file]
                * np.log(table.prediction_size / n[table.prediction_file]),
                n_files,
            )
    if "mi" in which or "ami" in which:
        single = (k_t == k_p) & (k_t <= 1)
        out["mutual_information"] = mi
        nmi = mi / np.maximum(np.sqrt(h_t * h_p), 1e-10)
        out["normalized_mutual_information"] = np.where(single, 1.0, nmi)
        if "ami" in which and frames:
            emi = expected_mutual_information(table, n_files)
            ami = divide(mi - emi, np.maximum(h_t, h_p) - emi)
            out["adjusted_mutual_information"] = np.where(single, 1.0, ami)
        else:
            out["adjusted_mutual_information"] = np.full(n_files, np.nan)
    if which & {"nce", "v"}:
        with np.errstate(divide="ignore", invalid="ignore"):
            # H(truth | prediction) and H(prediction | truth), in bits
            h_t_given_p = -_per_file(f, p_ij * np.log2(nij / b), n_files)
            h_p_given_t = -_per_file(f, p_ij * np.log2(nij / a), n_files)
        for key, z_t, z_p in (
            ("nce", np.log2(np.maximum(k_t, 1)), np.log2(np.maximum(k_p, 1))),
            ("v", h_t / np.log(2), h_p / np.log(2)),
        ):
            if key not in which:
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                under = np.where(z_t > 0, 1.0 - h_t_given_p / z_t, 0.0)
                over = np.where(z_p > 0, 1.0 - h_p_given_t / z_p, 0.0)
            names = (
                ("nce_over", "nce_under", "nce_f_measure")
                if key == "nce"
                else ("v_precision", "v_recall", "v_measure")
            )
            out[names[0]] = over
            out[names[1]] = under
            out[names[2]] = fscore(over, under, beta=beta, propagate_nans=True)
    return out


# -------------------------------------------------------------------------
# Boundaries
# -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Boundaries:
    """Boundary times of one side, sorted by ``(file, time)``.

    ``time`` is int64: nanoseconds by default; in compat mode the rank
    of the rounded seconds among the boundaries of both sides.
    ``value`` is the time in seconds (float64).
    """

    file: np.ndarray
    time: np.ndarray
    value: np.ndarray


def boundaries(prep: Prepared, trim: bool) -> tuple[Boundaries, Boundaries]:
    """Segment boundaries of both sides (the edges of rows and pads), optionally trimmed.

    Default: exact nanoseconds.
    compat: seconds rounded to 5 decimals, as mir_eval's ``intervals_to_boundaries``.
    """
    n_files = prep.n_files
    sides = []
    for pieces in (prep.truth, prep.prediction):
        # the edges of rows and pads (gap edges are edges of rows)
        row = pieces.is_row
        file = np.concatenate([pieces.file[row], pieces.file[row]])
        ns = np.concatenate([pieces.start[row], pieces.end[row]])
        sides.append((file, ns))
    if prep.compat:
        seconds = [np.round(ns / NS_PER_SECOND, 5) for _, ns in sides]
        _, rank = np.unique(np.concatenate(seconds), return_inverse=True)
        rank = rank.astype(np.int64)
        times = [rank[: len(seconds[0])], rank[len(seconds[0]) :]]
    else:
        seconds = [ns / NS_PER_SECOND for _, ns in sides]
        times = [ns for _, ns in sides]
    out = []
    for (file, _), time, value in zip(sides, times, seconds):
        (key,) = group_keys(n_files, (file, time))
        _, where = np.unique(key, return_index=True)  # sorted, duplicates once
        file, time, value = file[where], time[where], value[where]
        if trim:
            first = np.ones(len(file), dtype=bool)
            first[1:] = file[1:] != file[:-1]
            last = np.ones(len(file), dtype=bool)
            last[:-1] = file[1:] != file[:-1]
            keep = ~first & ~last
            file, time, value = file[keep], time[keep], value[keep]
        out.append(Boundaries(file, time, value))
    return out[0], out[1]


def _window_pairs(
    truth: Boundaries,
    prediction: Boundaries,
    window: float | int,
    compat: bool,
    n_files: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (truth, prediction) of boundaries of one file within the window.

    Default: ``|t - p| <= window`` in exact ns.
    compat: mir_eval's ``p - window <= t <= p + window`` in float64 seconds,
    made exact by ranking the float values.
    """
    if compat:
        m, q = len(truth.value), len(prediction.value)
        values = np.concatenate(
            [truth.value, prediction.value - float(window), prediction.value + float(window)]
        )
        _, rank = np.unique(values, return_inverse=True)
        rank = rank.astype(np.int64)
        item, low, high = rank[:m], rank[m : m + q], rank[m + q :]
    else:
        item = truth.time
        low, high = prediction.time - int(window), prediction.time + int(window)
    query, position = window_join(n_files, truth.file, item, prediction.file, low, high)
    return position, query


def detection_scores(
    truth: Boundaries,
    prediction: Boundaries,
    window: float | int,
    beta: float,
    compat: bool,
    n_files: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall, F per file from a maximum matching of boundaries."""
    t_index, p_index = _window_pairs(truth, prediction, window, compat, n_files)
    match = maximum_matching(len(truth.file), len(prediction.file), t_index, p_index)
    matched = np.bincount(truth.file[match >= 0], minlength=n_files).astype(np.float64)
    n_t = np.bincount(truth.file, minlength=n_files)
    n_p = np.bincount(prediction.file, minlength=n_files)
    defined = (n_t > 0) & (n_p > 0)
    precision = np.where(defined, divide(matched, n_p, 0.0), 0.0)
    recall = np.where(defined, divide(matched, n_t, 0.0), 0.0)
    return precision, recall, fscore(precision, recall, beta=beta)


def _nearest_distance(
    source: Boundaries, target: Boundaries, compat: bool, n_files: int
) -> np.ndarray:
    """Distance of every source boundary to the nearest target boundary of its file."""
    out = np.full(len(source.time), np.inf)
    if len(target.time) == 0:
        return out
    source_key, target_key = group_keys(
        n_files, (source.file, source.time), (target.file, target.time)
    )
    index = np.searchsorted(target_key, source_key, side="left")
    for candidate in (index - 1, index):
        c = np.clip(candidate, 0, len(target_key) - 1)
        valid = (candidate >= 0) & (candidate < len(target_key)) & (target.file[c] == source.file)
        if compat:
            distance = np.abs(source.value - target.value[c])
        else:
            distance = np.abs(source.time - target.time[c]).astype(np.float64)
        out = np.where(valid, np.minimum(out, distance), out)
    return out


def _median_per_file(file: np.ndarray, values: np.ndarray, n_files: int) -> np.ndarray:
    """np.median per file (NaN for files without values); ``file`` sorted."""
    out = np.full(n_files, np.nan)
    if len(file) == 0:
        return out
    order = np.lexsort((values, file))
    file, values = file[order], values[order]
    counts = np.bincount(file, minlength=n_files)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    has = counts > 0
    lower = start + (counts - 1) // 2
    upper = start + counts // 2
    out[has] = (values[lower[has]] + values[upper[has]]) / 2.0
    return out


def deviation_scores(
    truth: Boundaries,
    prediction: Boundaries,
    compat: bool,
    n_files: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Median distance truth-to-prediction and prediction-to-truth per file (s)."""
    n_t = np.bincount(truth.file, minlength=n_files)
    n_p = np.bincount(prediction.file, minlength=n_files)
    defined = (n_t > 0) & (n_p > 0)
    scale = 1.0 if compat else 1.0 / NS_PER_SECOND
    t_to_p = _median_per_file(truth.file, _nearest_distance(truth, prediction, compat, n_files), n_files)
    p_to_t = _median_per_file(prediction.file, _nearest_distance(prediction, truth, compat, n_files), n_files)
    t_to_p = np.where(defined, t_to_p * scale, np.nan)
    p_to_t = np.where(defined, p_to_t * scale, np.nan)
    return t_to_p, p_to_t
