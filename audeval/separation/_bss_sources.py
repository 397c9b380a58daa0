r"""BSS Eval version 3 ``bss_eval_sources`` (mir_eval.separation).

For one channel, an estimate :math:`x = \hat s_k` is projected by
least squares on the span of the delayed references
(delays :math:`0 \dots L - 1`, :math:`L` = ``filter_length``,
signals zero-padded by :math:`L - 1` samples):
:math:`P_j` on the delays of reference :math:`s_j` alone and
:math:`P` on the delays of all references. Then (Vincent et al. 2006)

.. math::

    \text{SDR} = 10 \log_{10} \frac{\|P_j\|^2}{\|x - P_j\|^2},\quad
    \text{SIR} = 10 \log_{10} \frac{\|P_j\|^2}{\|P - P_j\|^2},\quad
    \text{SAR} = 10 \log_{10} \frac{\|P\|^2}{\|x - P\|^2}.

Implementation: with the Gram matrix :math:`G` of the delayed references
(block Toeplitz, from lag correlations computed blockwise by FFT) and
:math:`d = S^T x`, the filters are :math:`c = G^{-1} d` and
:math:`c_j = G_{jj}^{-1} d_j`. :math:`G` and each :math:`G_{jj}` are
factorised once per channel (:class:`~audeval.separation._solve.GramSolver`)
and solved for all estimates at once. The energies follow from
quadratic forms: :math:`\|P_j\|^2 = c_j^T G_{jj} c_j`,
:math:`\|P - P_j\|^2 = \delta^T G \delta` with the coefficient
difference :math:`\delta = c - c_j` (no cancellation), and the residuals
:math:`\|x - P\|^2 = \|x\|^2 - 2 c^T d + c^T G c`; a residual below
``REFINE_BELOW`` of :math:`\|x\|^2` (a ratio above about 30 dB, where the
difference would lose digits) is recomputed from the filtered samples,
as mir_eval computes it.
"""

from __future__ import annotations

import numpy as np
import scipy.fft

from audeval.separation._bss_eval import lag_correlations
from audeval.separation._checks import as_sources
from audeval.separation._checks import check_bool
from audeval.separation._checks import check_pair
from audeval.separation._checks import check_positive_int
from audeval.separation._permutation import assign
from audeval.separation._bss_eval import toeplitz_gram
from audeval.separation._solve import GramSolver
from audeval.separation._solve import duplicate_groups


KEYS = ("sdr", "sir", "sar")
# Residuals below this fraction of the estimate's energy are recomputed
# from the samples (the Gram shortcut would lose digits).
REFINE_BELOW = 1e-3


class _Channel:
    """Filters and energies of every (reference, estimate) pair of one channel."""

    def __init__(self, ref: np.ndarray, est: np.ndarray, n_taps: int, same=None):
        # ref (R, N), est (E, N); ``same``: a _Channel with equal references,
        # whose Gram matrix and factorisations are reused
        self.ref, self.est, self.n_taps = ref, est, n_taps
        n_ref, n_est = ref.shape[0], est.shape[0]
        if same is None:
            r = lag_correlations(ref[:, :, None], np.concatenate([ref, est])[:, :, None], n_taps)
            self._factorise(r[:, :n_ref], ref)
        else:
            r = lag_correlations(ref[:, :, None], est[:, :, None], n_taps)
            r = np.concatenate([np.zeros((n_ref, n_ref, n_taps)), r], axis=1)
            self.silent_ref, self.gram, self.own_gram = same.silent_ref, same.gram, same.own_gram
            self.solver, self.own_solvers = same.solver, same.own_solvers
        self.rhs = r[:, n_ref:].transpose(0, 2, 1).reshape(n_ref * n_taps, n_est)
        self.c_all = self.solver.solve(self.rhs)  # (R L, E)
        self.c_own = np.empty((n_ref, n_taps, n_est))
        for j, own in enumerate(self.own_solvers):
            self.c_own[j] = own.solve(self.rhs[j * n_taps : (j + 1) * n_taps])
        self.kinds = [self.solver.kind] + [own.kind for own in self.own_solvers]
        self.x_energy = np.einsum("en,en->e", est, est)
        self._energy: dict[str, np.ndarray] | None = None

    def _factorise(self, r_ref: np.ndarray, ref: np.ndarray) -> None:
        """Gram matrix of the references and its factorisations (full and own blocks)."""
        n_ref, n_taps = ref.shape[0], self.n_taps
        self.silent_ref = r_ref[np.arange(n_ref), np.arange(n_ref), 0] == 0
        gram = toeplitz_gram(r_ref)
        # a silent reference spans nothing: identity block, zero right-hand side
        for j in np.flatnonzero(self.silent_ref):
            block = slice(j * n_taps, (j + 1) * n_taps)
            gram[block, block] = np.eye(n_taps)
        self.gram = gram
        self.solver = GramSolver(gram, block=n_taps, groups=duplicate_groups(ref))
        blocks = [slice(j * n_taps, (j + 1) * n_taps) for j in range(n_ref)]
        self.own_gram = np.stack([gram[b, b] for b in blocks])
        self.own_solvers = [GramSolver(block) for block in self.own_gram]

    def energies(self) -> dict[str, np.ndarray]:
        """Energies of all pairs, shape (R, E), computed once."""
        if self._energy is None:
            self._energy = self._energies()
        return self._energy

    def _energies(self) -> dict[str, np.ndarray]:
        n_ref, n_taps, n_est = self.c_own.shape
        gram, rhs = self.gram, self.rhs
        g_all = gram @ self.c_all
        p_all = (self.c_all * g_all).sum(axis=0)
        d_all = (self.c_all * rhs).sum(axis=0)
        own_rhs = rhs.reshape(n_ref, n_taps, n_est)
        # embed each own filter in the full coefficient space: delta = c - c_j
        # (j, source block, tap, estimate)
        delta = np.repeat(self.c_all.reshape(1, n_ref, n_taps, n_est), n_ref, axis=0)
        delta[np.arange(n_ref), np.arange(n_ref)] -= self.c_own
        flat = delta.transpose(1, 2, 0, 3).reshape(n_ref * n_taps, n_ref * n_est)
        interf = (flat * (gram @ flat)).sum(axis=0).reshape(n_ref, n_est)
        g_own = self.own_gram @ self.c_own
        p_own = (self.c_own * g_own).sum(axis=1)
        d_own = (self.c_own * own_rhs).sum(axis=1)
        x = self.x_energy
        return {
            "own": p_own,
            "interf": np.maximum(interf, 0.0),
            "all": np.broadcast_to(p_all, (n_ref, n_est)).copy(),
            "sdr_den": x - 2 * d_own + p_own,
            "sar_den": np.broadcast_to(x - 2 * d_all + p_all, (n_ref, n_est)).copy(),
        }

    def refine(self, energy: dict[str, np.ndarray], pairs: np.ndarray) -> None:
        """Recompute the residuals of ``pairs`` (P, 2) from the filtered samples."""
        x = self.x_energy
        flag_sdr = energy["sdr_den"][pairs[:, 0], pairs[:, 1]] <= REFINE_BELOW * x[pairs[:, 1]]
        flag_sar = energy["sar_den"][pairs[:, 0], pairs[:, 1]] <= REFINE_BELOW * x[pairs[:, 1]]
        if not (flag_sdr.any() or flag_sar.any()):
            return
        n_ref, n_samples = self.ref.shape
        n_taps = self.n_taps
        n_out = n_samples + n_taps - 1
        n_fft = scipy.fft.next_fast_len(n_out, real=True)
        ref_f = scipy.fft.rfft(self.ref, n=n_fft, axis=-1)
        for (j, k), f_sdr, f_sar in zip(pairs, flag_sdr, flag_sar):
            x_pad = np.zeros(n_out)
            x_pad[:n_samples] = self.est[k]
            if f_sdr:
                h = scipy.fft.rfft(self.c_own[j, :, k], n=n_fft)
                p_own = scipy.fft.irfft(ref_f[j] * h, n=n_fft)[:n_out]
                energy["sdr_den"][j, k] = ((x_pad - p_own) ** 2).sum()
            if f_sar:
                h = scipy.fft.rfft(self.c_all[:, k].reshape(n_ref, n_taps), n=n_fft, axis=-1)
                p_all = scipy.fft.irfft((ref_f * h).sum(axis=0), n=n_fft)[:n_out]
                energy["sar_den"][j, k] = ((x_pad - p_all) ** 2).sum()


def safe_db(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``10 log10(num / den)``, ``+inf`` where ``den == 0`` (mir_eval)."""
    with np.errstate(all="ignore"):
        out = 10 * np.log10(num / den)
    return np.where(den == 0, np.inf, out)


def pairwise_sources(ref: np.ndarray, est: np.ndarray, n_taps: int) -> list[_Channel]:
    """One :class:`_Channel` per channel of ``ref`` (R, N, C) and ``est`` (E, N, C).

    Channels with equal references (mono sources copied to stereo)
    share one Gram matrix and its factorisations.
    """
    channels: list[_Channel] = []
    seen: dict[bytes, _Channel] = {}
    for c in range(ref.shape[2]):
        r = np.ascontiguousarray(ref[:, :, c])
        channel = _Channel(r, np.ascontiguousarray(est[:, :, c]), n_taps, seen.get(r.tobytes()))
        seen.setdefault(r.tobytes(), channel)
        channels.append(channel)
    return channels


def scores(channels: list[_Channel], assignment: np.ndarray) -> dict[str, np.ndarray]:
    """SDR, SIR, SAR of the assigned pairs, shape (R, C); NaN where none."""
    n_ref = channels[0].ref.shape[0]
    out = {key: np.full((n_ref, len(channels)), np.nan) for key in KEYS}
    has = np.flatnonzero(assignment >= 0)
    pairs = np.stack([has, assignment[has]], axis=1)
    for c, channel in enumerate(channels):
        energy = channel.energies()
        channel.refine(energy, pairs)
        j, k = pairs[:, 0], pairs[:, 1]
        silent = channel.silent_ref[j] | (channel.x_energy[k] == 0)
        values = {
            "sdr": safe_db(energy["own"][j, k], energy["sdr_den"][j, k]),
            "sir": safe_db(energy["own"][j, k], energy["interf"][j, k]),
            "sar": safe_db(energy["all"][j, k], energy["sar_den"][j, k]),
        }
        for key, value in values.items():
            out[key][j, c] = np.where(silent, np.nan, value)
    return out


def sir_matrix(channels: list[_Channel]) -> np.ndarray:
    """SIR of every (reference, estimate) pair, shape (R, E, C)."""
    out = []
    for channel in channels:
        energy = channel.energies()
        sir = safe_db(energy["own"], energy["interf"])
        silent = channel.silent_ref[:, None] | (channel.x_energy == 0)[None, :]
        out.append(np.where(silent, np.nan, sir))
    return np.stack(out, axis=-1)


def bss_eval_sources(
    truth: object,
    prediction: object,
    *,
    filter_length: int = 512,
    permutation: bool = False,
) -> dict[str, np.ndarray]:
    r"""BSS Eval v3 SDR, SIR and SAR of each source (mir_eval ``bss_eval_sources``).

    The "SDR" of most speech separation papers
    (mir_eval.separation, fast_bss_eval, torchmetrics
    ``SignalDistortionRatio``, BSS Eval v3 of Vincent et al. 2006).
    For estimate :math:`x = \hat s_k` of reference :math:`s_j`,
    :math:`P_j` is its least-squares projection on the
    ``filter_length`` delays of :math:`s_j` (a time-invariant distortion
    filter) and :math:`P` on the delays of all references:

    .. math::

        \text{SDR} = 10 \log_{10} \frac{\|P_j\|^2}{\|x - P_j\|^2},\quad
        \text{SIR} = 10 \log_{10} \frac{\|P_j\|^2}{\|P - P_j\|^2},\quad
        \text{SAR} = 10 \log_{10} \frac{\|P\|^2}{\|x - P\|^2}

    over the whole signals (zero-padded by ``filter_length - 1``).
    Each channel is scored on its own (as fast_bss_eval and torchmetrics
    do with leading axes). The Gram (block Toeplitz) matrix of the
    references is factorised once per channel and shared by all
    estimates; the own-source blocks likewise.
    Agrees with ``mir_eval.separation.bss_eval_sources`` (0.8.2) to
    1e-9 dB where its solve is well conditioned (tested).

    NaN/inf rules (no ``LinAlgError`` is ever raised; mir_eval raises
    ``ValueError`` for silent signals):

    * a silent (all-zero) reference: its SDR, SIR and SAR are NaN,
      and the other sources are scored as if it were absent
      (its delays span nothing);
    * a silent estimate: NaN SDR, SIR and SAR for its source only;
    * a zero denominator gives ``+inf`` (mir_eval), e.g. SIR of an
      estimate with no interference; a zero numerator ``-inf``;
    * identical references are detected exactly and solved once
      (the filter split equally among the copies, the minimum-norm
      least-squares solution): a copy adds no interference (the SIR
      is the one with a single copy; without another reference it is
      ``+inf`` or above 250 dB, up to rounding);
    * other linearly dependent references (proportional or delayed
      copies within ``filter_length``), or a Gram matrix whose Cholesky
      pivots fall below 1e-12 of the largest: the pivoted Cholesky
      factorisation at the numerical rank (the least-squares projection
      on the span of the references, unique even where the filters are
      not; mir_eval's LU solve returns rounding-dependent values there).

    Args:
        truth: references, shape (sources, samples[, channels])
        prediction: estimates of the same shape;
            with ``permutation=True`` the number of estimates may differ
        filter_length: taps of the distortion filter (mir_eval: 512)
        permutation: assign estimates to references by
            :func:`best_permutation` on the SIR (averaged over channels),
            which is exact for mir_eval's criterion (the mean SIR over
            sources, a sum over pairs); mir_eval's default is ``True``

    Returns:
        dict with ``sdr``, ``sir``, ``sar`` in dB of shape
        (sources[, channels]); with ``permutation=True`` also
        ``estimate``, the estimate assigned to each source
        (mir_eval's ``perm``; ``-1`` and NaN scores where there
        are fewer estimates than sources)

    Raises:
        TypeError: if an input has the wrong type
        ValueError: if shapes do not fit, a sample is not finite
            or ``filter_length`` is not a positive integer

    Examples:
        >>> from audeval.separation import bss_eval_sources
        >>> rng = np.random.default_rng(1)
        >>> s = np.zeros((2, 300))
        >>> s[0, :100] = rng.standard_normal(100)
        >>> s[1, 200:] = s[0, :100]  # same energy, far apart: orthogonal delays
        >>> e = s + 0.1 * s[::-1]  # 10 log10(1 / 0.1 ** 2) = 20 dB interference
        >>> res = bss_eval_sources(s, e, filter_length=16)
        >>> res["sdr"].round(6).tolist(), res["sir"].round(6).tolist()
        ([20.0, 20.0], [20.0, 20.0])
        >>> bool((res["sar"] > 200).all())  # no artifacts (up to rounding)
        True
        >>> bss_eval_sources(s, e[::-1], permutation=True)["estimate"].tolist()
        [1, 0]

    """
    permutation = check_bool(permutation, "permutation")
    n_taps = check_positive_int(filter_length, "filter_length")
    ref, squeeze = as_sources(truth, "truth")
    est, squeeze_p = as_sources(prediction, "prediction")
    if squeeze != squeeze_p:
        raise ValueError(
            "truth and prediction must both have a channel axis or both not; "
            f"got shapes {np.shape(truth)} and {np.shape(prediction)}."  # type: ignore[call-overload]  # np.shape takes any object at run time
        )
    check_pair(ref, est, same_count=not permutation)
    channels = pairwise_sources(ref, est, n_taps)
    if permutation:
        assignment = assign(sir_matrix(channels))
    else:
        assignment = np.arange(ref.shape[0])
    out = scores(channels, assignment)
    if squeeze:
        out = {key: value[:, 0] for key, value in out.items()}
    if permutation:
        out["estimate"] = assignment
    return out
