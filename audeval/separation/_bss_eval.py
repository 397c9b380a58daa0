r"""BSS Eval version 4 (museval's ``bss_eval`` in images mode).

For each reference image :math:`s_j` (all channels) and estimate
:math:`\hat s_j`, the estimate is projected with time-invariant
multichannel FIR filters of ``filter_length`` taps:
:math:`P_j` on the delayed channels of :math:`s_j` alone and
:math:`P` on the delayed channels of all references.
The filters are least-squares fits on the whole signals
(v4: one set of filters for all windows);
in each window the windowed references are filtered
(zero-padded by ``filter_length - 1`` samples) and

.. math::

    \text{SDR} &= 10 \log_{10} \frac{\|s_j\|^2}{\|\hat s_j - s_j\|^2}, &
    \text{ISR} &= 10 \log_{10} \frac{\|s_j\|^2}{\|P_j - s_j\|^2}, \\
    \text{SIR} &= 10 \log_{10} \frac{\|P_j\|^2}{\|P - P_j\|^2}, &
    \text{SAR} &= 10 \log_{10} \frac{\|P\|^2}{\|\hat s_j - P\|^2}.

Implementation, equivalent to museval up to rounding:

* the lagged (cross-)correlations of the whole signals are computed
  blockwise with FFTs and summed in the frequency domain
  (only lags ``0 .. filter_length - 1`` are needed);
* the regularised Gram matrix :math:`G + \epsilon I`
  (:math:`\epsilon` the float64 machine epsilon, as museval)
  is factorised once (Cholesky, pivoted Cholesky if singular)
  and solved for all estimates and channels;
* all windows are filtered at once in the frequency domain (in batches).
"""

from __future__ import annotations

import numpy as np
import scipy.fft

from audeval._core.validation import check_option
from audeval.separation._checks import as_sources
from audeval.separation._checks import check_bool
from audeval.separation._checks import check_pair
from audeval.separation._checks import check_positive_int
from audeval.separation._checks import check_sampling_rate
from audeval.separation._checks import check_seconds
from audeval.separation._permutation import assign
from audeval.separation._solve import GramSolver
from audeval.separation._solve import duplicate_groups


KEYS = ("sdr", "isr", "sir", "sar")
EPS = np.finfo(np.float64).eps
# FFT length of the blocks for the whole-signal correlations.
_CORR_FFT = 1 << 14
# Values per batch of windows (bounds memory).
_BATCH_VALUES = 1 << 23


def frames(n_samples: int, window: int | None, hop: int) -> tuple[np.ndarray, int]:
    """Start samples of the windows and their common length (museval)."""
    if window is None or window >= n_samples:
        return np.zeros(1, dtype=np.int64), n_samples
    n_windows = (n_samples - window + hop) // hop
    return np.arange(n_windows, dtype=np.int64) * hop, window


def _block_spectra(
    x: np.ndarray, first: int, n_blocks: int, block: int, length: int, n_fft: int
) -> np.ndarray:
    """rfft of the blocks ``x[:, s:s+length, :]``, ``s = (first + b) * block``.

    Samples beyond the end are zero.
    ``x`` has shape (rows, samples, channels);
    the result has shape (rows * channels, blocks, bins).
    """
    n_rows, n_samples, n_ch = x.shape
    start = first * block
    stop = start + (n_blocks - 1) * block + length
    seg = x[:, start:stop, :].transpose(0, 2, 1)
    if seg.shape[-1] < stop - start:
        pad = np.zeros((n_rows, n_ch, stop - start - seg.shape[-1]))
        seg = np.concatenate([seg, pad], axis=-1)
    view = np.lib.stride_tricks.sliding_window_view(seg, length, axis=-1)[..., ::block, :]
    spec = scipy.fft.rfft(view, n=n_fft, axis=-1)  # (rows, ch, blocks, bins)
    return spec.reshape(n_rows * n_ch, n_blocks, -1)


def lag_correlations(x: np.ndarray, y: np.ndarray, n_lags: int) -> np.ndarray:
    r"""Correlations :math:`r_{kl}[m] = \sum_n x_k[n]\, y_l[n + m]`, ``0 <= m < n_lags``.

    ``x`` (rows, samples, channels) and ``y`` (rows', samples, channels)
    are zero outside their samples; rows of the result are
    (row, channel) pairs flattened, shape (K, K', n_lags).
    The sum over samples is done blockwise in the frequency domain:
    each block of ``x`` is correlated with the same block of ``y``
    extended by ``n_lags - 1`` samples, and the cross-spectra are summed
    before one inverse FFT.
    """
    n_samples = x.shape[1]
    n_fft = max(_CORR_FFT, scipy.fft.next_fast_len(4 * n_lags, real=True))
    block = n_fft - n_lags + 1
    n_blocks = -(-n_samples // block)
    k_x = x.shape[0] * x.shape[2]
    k_y = y.shape[0] * y.shape[2]
    per_block = 2 * (k_x + k_y) * n_fft
    group = max(1, min(n_blocks, _BATCH_VALUES // per_block))
    spectrum = np.zeros((n_fft // 2 + 1, k_x, k_y), dtype=np.complex128)
    for first in range(0, n_blocks, group):
        count = min(group, n_blocks - first)
        fx = _block_spectra(x, first, count, block, block, n_fft)
        fy = _block_spectra(y, first, count, block, block + n_lags - 1, n_fft)
        spectrum += np.conj(fx.transpose(2, 0, 1)) @ fy.transpose(2, 1, 0)
    corr = scipy.fft.irfft(spectrum, n=n_fft, axis=0)[:n_lags]
    return np.ascontiguousarray(corr.transpose(1, 2, 0))


def toeplitz_gram(r: np.ndarray) -> np.ndarray:
    """Gram matrix of the delayed rows from their lag correlations.

    ``r`` (K, K, L) with ``r[k, l, m] = <x_k, x_l shifted by m>``;
    entry ((k, a), (l, b)) is :math:`\\sum_n x_k[n - a] x_l[n - b]`.
    """
    n_k, _, n_lags = r.shape
    # v[k, l, L - 1 + d] = G entry at lag difference d = a - b
    v = np.concatenate([r.transpose(1, 0, 2)[:, :, :0:-1], r], axis=-1)
    # block[a, b] = v[L - 1 + a - b]: windows of the reversed vector, rows reversed
    blocks = np.lib.stride_tricks.sliding_window_view(v[..., ::-1], n_lags, axis=-1)[..., ::-1, :]
    return blocks.transpose(0, 2, 1, 3).reshape(n_k * n_lags, n_k * n_lags)


class _Solver(GramSolver):
    """:class:`GramSolver` of the regularised matrix ``G + eps I`` (museval)."""

    def __init__(self, gram: np.ndarray, signals: np.ndarray, n_taps: int):
        super().__init__(
            gram + EPS * np.eye(gram.shape[0]), block=n_taps, groups=duplicate_groups(signals)
        )


def _safe_db(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``10 log10(num / den)``, ``+inf`` where ``den == 0`` (museval)."""
    with np.errstate(all="ignore"):
        out = 10 * np.log10(num / den)
    return np.where(den == 0, np.inf, out)


def _filters(
    ref: np.ndarray, est: np.ndarray, n_taps: int, pairs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Distortion filters on the whole signals (v4): of every estimate on all references,
    and of each pair's estimate on its own reference."""
    n_src, n_samples, n_ch = ref.shape
    n_est = est.shape[0]
    k_ref = n_src * n_ch
    r = lag_correlations(ref, np.concatenate([ref, est]), n_taps)
    r_rr, r_re = r[:, :k_ref], r[:, k_ref:]  # (K, K, L), (K, E*C, L)
    gram = toeplitz_gram(r_rr)
    rhs = r_re.transpose(0, 2, 1).reshape(k_ref * n_taps, n_est * n_ch)
    solver = _Solver(gram, ref.transpose(0, 2, 1).reshape(k_ref, n_samples), n_taps)
    filt_all = solver.solve(rhs).reshape(n_src, n_ch, n_taps, n_est, n_ch)
    block = n_ch * n_taps
    filt_own = np.empty((len(pairs), n_ch, n_taps, n_ch))
    for j in np.unique(pairs[:, 0]):  # one factorisation per reference
        rows = slice(j * block, (j + 1) * block)
        own = _Solver(gram[rows, rows], ref[j].T, n_taps)
        which = np.flatnonzero(pairs[:, 0] == j)
        cols = (pairs[which, 1][:, None] * n_ch + np.arange(n_ch)).ravel()
        sol = own.solve(rhs[rows][:, cols]).reshape(n_ch, n_taps, len(which), n_ch)
        filt_own[which] = sol.transpose(2, 0, 1, 3)
    return filt_all, filt_own


_ENERGIES = ("true", "sdr_den", "isr_den", "own", "interf", "all", "artif")


def _batch_energies(
    energy, sl, ref_f, ref_t, est_t, h_all, h_own, pairs, length, n_fft, n_out
) -> None:
    """The energies of one batch of windows (``sl``), written into ``energy``."""
    proj_all = {}
    for k in np.unique(pairs[:, 1]):
        spec = np.einsum("rcbf,rcfo->obf", ref_f, h_all[:, :, :, k, :])
        p = scipy.fft.irfft(spec, n=n_fft, axis=-1)[..., :n_out]  # (Cout, B, n_out)
        head, tail = p[..., :length], p[..., length:]
        proj_all[k] = (head, tail)
        which = pairs[:, 1] == k
        energy["all"][which, sl] = (head**2).sum(axis=(0, 2)) + (tail**2).sum(axis=(0, 2))
        energy["artif"][which, sl] = ((est_t[k] - head) ** 2).sum(axis=(0, 2)) + (tail**2).sum(
            axis=(0, 2)
        )
    for q, (j, k) in enumerate(pairs):
        spec = np.einsum("cbf,cfo->obf", ref_f[j], h_own[q])
        p = scipy.fft.irfft(spec, n=n_fft, axis=-1)[..., :n_out]
        head, tail = p[..., :length], p[..., length:]
        s_true = ref_t[j]
        tail_sq = (tail**2).sum(axis=(0, 2))
        energy["true"][q, sl] = (s_true**2).sum(axis=(0, 2))
        energy["sdr_den"][q, sl] = ((est_t[k] - s_true) ** 2).sum(axis=(0, 2))
        energy["isr_den"][q, sl] = ((head - s_true) ** 2).sum(axis=(0, 2)) + tail_sq
        energy["own"][q, sl] = (head**2).sum(axis=(0, 2)) + tail_sq
        all_head, all_tail = proj_all[k]
        energy["interf"][q, sl] = ((all_head - head) ** 2).sum(axis=(0, 2)) + (
            (all_tail - tail) ** 2
        ).sum(axis=(0, 2))


def _evaluate(
    ref: np.ndarray,
    est: np.ndarray,
    starts: np.ndarray,
    length: int,
    n_taps: int,
    pairs: np.ndarray,
    silent: str,
) -> dict[str, np.ndarray]:
    """Metrics of the (reference, estimate) ``pairs`` (P, 2) for all windows."""
    n_src, _, n_ch = ref.shape
    n_est, n_win, n_pairs = est.shape[0], len(starts), len(pairs)
    filt_all, filt_own = _filters(ref, est, n_taps, pairs)
    n_out = length + n_taps - 1
    n_fft = scipy.fft.next_fast_len(n_out, real=True)
    h_all = scipy.fft.rfft(filt_all, n=n_fft, axis=2)  # (R, Cin, F, E, Cout)
    h_own = scipy.fft.rfft(filt_own, n=n_fft, axis=2)  # (P, Cin, F, Cout)

    energy = {name: np.empty((n_pairs, n_win)) for name in _ENERGIES}
    per_window = (n_src * n_ch + 2 * n_est * n_ch + 2 * n_pairs * n_ch) * n_fft
    batch = max(1, _BATCH_VALUES // per_window)
    offsets = np.arange(length)
    ref_silent = np.zeros((n_src, n_win), dtype=bool)
    est_silent = np.zeros((n_est, n_win), dtype=bool)
    for first in range(0, n_win, batch):  # batches of windows (memory), not one per window
        b_starts = starts[first : first + batch]
        sl = slice(first, first + len(b_starts))
        index = b_starts[:, None] + offsets
        ref_t = ref[:, index, :].transpose(0, 3, 1, 2)  # (R, C, B, w)
        est_t = est[:, index, :].transpose(0, 3, 1, 2)  # (E, C, B, w)
        ref_silent[:, sl] = ~(ref_t != 0).any(axis=(1, 3))
        est_silent[:, sl] = ~(est_t != 0).any(axis=(1, 3))
        ref_f = scipy.fft.rfft(ref_t, n=n_fft, axis=-1)  # (R, C, B, F)
        _batch_energies(energy, sl, ref_f, ref_t, est_t, h_all, h_own, pairs, length, n_fft, n_out)
    return _metrics(energy, ref_silent, est_silent, pairs, silent)


def _metrics(energy, ref_silent, est_silent, pairs, silent: str) -> dict[str, np.ndarray]:
    """SDR, ISR, SIR and SAR from the window energies, NaN where silence makes them undefined."""
    out = {
        "sdr": _safe_db(energy["true"], energy["sdr_den"]),
        "isr": _safe_db(energy["true"], energy["isr_den"]),
        "sir": _safe_db(energy["own"], energy["interf"]),
        "sar": _safe_db(energy["all"], energy["artif"]),
    }
    if silent == "museval":
        # museval: a window in which any reference or estimate is silent is NaN
        shape = out["sdr"].shape
        nan = np.broadcast_to(ref_silent.any(axis=0) | est_silent.any(axis=0), shape)
    else:
        nan = ref_silent[pairs[:, 0]] | est_silent[pairs[:, 1]]
    for value in out.values():
        value[nan] = np.nan
    return out


def bss_eval_v4(
    truth: object,
    prediction: object,
    *,
    sampling_rate: float,
    window: float | None = 1.0,
    hop: float | None = None,
    filter_length: int = 512,
    permutation: bool = False,
    silent: str = "source",
) -> dict[str, np.ndarray]:
    r"""BSS Eval v4 framewise SDR, ISR, SIR and SAR (museval, images mode).

    Distortion filters of ``filter_length`` taps are fitted once
    on the whole signals and applied in every window
    (museval ``bss_eval(..., framewise_filters=False,
    bsseval_sources_version=False)``, as used by SiSEC 2018).
    With :math:`P_j` the projection of the estimate on the delayed
    channels of its reference and :math:`P` on those of all references:

    .. math::

        \text{SDR} = 10 \log_{10} \frac{\|s_j\|^2}{\|\hat s_j - s_j\|^2},\quad
        \text{ISR} = 10 \log_{10} \frac{\|s_j\|^2}{\|P_j - s_j\|^2},\quad
        \text{SIR} = 10 \log_{10} \frac{\|P_j\|^2}{\|P - P_j\|^2},\quad
        \text{SAR} = 10 \log_{10} \frac{\|P\|^2}{\|\hat s_j - P\|^2}

    with norms over the window and all channels.
    Windows start every ``hop`` seconds and last ``window`` seconds,
    both rounded to whole samples; the last partial window is dropped
    (museval's framing); a window at least as long as the signal
    gives one window over the whole signal.

    NaN/inf rules (no ``LinAlgError`` is ever raised):

    * a window in which a reference or its estimate is all zeros
      is NaN for that source only (``silent="source"``, the default:
      one silent stem must not void the window of the others,
      museval issue 94); ``silent="museval"`` makes the window NaN for
      every source as museval does. museval raises ``ValueError`` for a
      reference or estimate silent throughout; audeval returns NaN for
      that source in every window;
    * a zero denominator gives ``+inf`` (museval), e.g. SDR of a
      perfect estimate, and a zero numerator ``-inf``;
    * identical reference signals (channels or sources, e.g. mono
      sources duplicated to stereo) are detected exactly and their
      delays kept once: the system is smaller, and the filter is split
      equally among the copies (the minimum-norm least-squares
      solution, museval's ``lstsq`` result); a copy adds no
      interference (without another reference the SIR is ``+inf``
      or huge, up to rounding);
    * other linearly dependent references (proportional, or delayed
      copies within the filter length): the regularised system
      :math:`G + \epsilon I` is solved by a pivoted Cholesky
      factorisation at its numerical rank
      (:class:`audeval.separation._solve.GramSolver`), which costs no
      more than the regular solve; SDR is unaffected, the projections
      on the span of the references are the least-squares ones,
      and ISR/SIR/SAR are finite but the split of the projection
      between the dependent references is arbitrary.

    Args:
        truth: reference images, shape (sources, samples[, channels])
        prediction: estimated images of the same shape;
            with ``permutation=True`` the number of estimates may differ
        sampling_rate: sampling rate in Hz of both
        window: window length in seconds (museval default 1 s);
            ``None`` evaluates the whole signal as one window
        hop: hop size in seconds; ``None`` uses ``window``
        filter_length: number of taps of the distortion filters
        permutation: choose the estimate of each reference by
            :func:`best_permutation` on the mean SIR over windows,
            which is exact for museval's criterion (mean SIR over sources
            and windows, a sum over pairs); costs one projection per pair
        silent: ``"source"`` or ``"museval"``, which sources a window
            with a silent reference or estimate makes NaN (see above)

    Returns:
        dict with ``sdr``, ``isr``, ``sir``, ``sar`` of shape
        (sources, windows) in dB, ``start`` and ``end``
        (window bounds in seconds, shape (windows,)),
        and with ``permutation=True`` also ``estimate``
        (the estimate assigned to each source, ``-1`` if none)

    Raises:
        TypeError: if an input has the wrong type
        ValueError: if shapes do not fit, a sample is not finite
            or a duration is not positive

    Examples:
        >>> t = np.arange(400) / 100
        >>> s = np.stack([np.sin(2 * np.pi * 5 * t), np.cos(2 * np.pi * 9 * t)])
        >>> e = s + 0.1 * s[::-1]
        >>> res = bss_eval_v4(s, e, sampling_rate=100, window=2.0, filter_length=8)
        >>> res["sdr"].shape, res["start"].tolist(), res["end"].tolist()
        ((2, 2), [0.0, 2.0], [2.0, 4.0])
        >>> [round(float(x), 4) for x in res["sdr"][:, 0]]  # 10 log10(1 / 0.01)
        [20.0, 20.0]

    """
    permutation = check_bool(permutation, "permutation")
    silent = check_option(silent, "silent", ("source", "museval"))
    rate = check_sampling_rate(sampling_rate)
    window = check_seconds(window, "window", allow_none=True)
    hop = check_seconds(hop, "hop", allow_none=True)
    n_taps = check_positive_int(filter_length, "filter_length")
    ref, _ = as_sources(truth, "truth")
    est, _ = as_sources(prediction, "prediction")
    check_pair(ref, est, same_count=not permutation)
    n_src, n_samples = ref.shape[:2]

    win_samples = None if window is None else max(1, int(round(window * rate)))
    if hop is None:
        hop_samples = win_samples if win_samples is not None else n_samples
    else:
        hop_samples = max(1, int(round(hop * rate)))
    starts, length = frames(n_samples, win_samples, hop_samples)

    if permutation:
        pairs = np.array(
            [(j, k) for j in range(n_src) for k in range(est.shape[0])], dtype=np.int64
        )
    else:
        pairs = np.stack([np.arange(n_src), np.arange(n_src)], axis=1)
    values = _evaluate(ref, est, starts, length, n_taps, pairs, silent)

    if permutation:
        matrix = {key: v.reshape(n_src, est.shape[0], -1) for key, v in values.items()}
        assignment = assign(matrix["sir"])
        safe = np.maximum(assignment, 0)
        out = {key: v[np.arange(n_src), safe].copy() for key, v in matrix.items()}
        for v in out.values():
            v[assignment < 0] = np.nan
        out["estimate"] = assignment
    else:
        out = values
    out["start"] = starts / rate
    out["end"] = (starts + length) / rate
    return out
