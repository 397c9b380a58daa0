r"""Scale-invariant separation metrics (nussl's ``BSSEvalScale`` family).

For a reference :math:`s` and an estimate :math:`\hat s`
(one channel, both made zero-mean first, as nussl does)
with the optimal scale :math:`\alpha = \langle s, \hat s\rangle / \|s\|^2`:

.. math::

    \text{SI-SDR} &= 10 \log_{10} \frac{\|\alpha s\|^2}{\|\hat s - \alpha s\|^2} \\
    \text{SNR} &= 10 \log_{10} \frac{\|s\|^2}{\|\hat s - s\|^2} \\
    \text{SD-SDR} &= \text{SNR} + 10 \log_{10} \alpha^2 \\
    \text{SRR} &= -10 \log_{10} (1 - 1/\alpha)^2

and, with the residual :math:`e = \hat s - \alpha s` split by its least-squares
projection :math:`e_\text{interf} = S (S^T S)^{-1} S^T e` on *all* references
:math:`S` and :math:`e_\text{artif} = e - e_\text{interf}`:

.. math::

    \text{SI-SIR} = 10 \log_{10} \frac{\|\alpha s\|^2}{\|e_\text{interf}\|^2},
    \qquad
    \text{SI-SAR} = 10 \log_{10} \frac{\|\alpha s\|^2}{\|e_\text{artif}\|^2}.

The improvements SI-SDRi, SD-SDRi and SNRi subtract the same metric
computed with the mixture in place of the estimate.

Implementation: every quantity above is a function of inner products,
so one Gram matrix per channel of all references, estimates
(and the mixture) gives every reference/estimate pair at once.
Pairs where a difference of inner products would lose digits to
cancellation (a residual energy below ``1e-3`` of the signal energy,
i.e. a ratio above about 30 dB) are recomputed sample by sample,
exactly as nussl does.
"""

from __future__ import annotations

import numpy as np

from audeval.separation._checks import as_mixture
from audeval.separation._checks import as_sources
from audeval.separation._checks import check_bool
from audeval.separation._checks import check_pair
from audeval.separation._permutation import assign
from audeval.separation._permutation import take_assignment


KEYS = (
    "si_sdr",
    "si_sir",
    "si_sar",
    "sd_sdr",
    "snr",
    "srr",
    "si_sdri",
    "sd_sdri",
    "snri",
)

# A residual below this fraction of the energy it is compared with is
# recomputed from the samples (the Gram shortcut would lose digits).
REFINE_BELOW = 1e-3
# References whose correlation matrix has an eigenvalue below this are
# treated as linearly dependent: SI-SIR and SI-SAR are NaN.
DEPENDENT_BELOW = 1e-10
# Samples per block when accumulating Gram matrices (bounded memory).
_BLOCK_VALUES = 1 << 21


def _gram(blocks: list[np.ndarray], means: list[np.ndarray]) -> np.ndarray:
    """Gram matrix per channel of the centred rows of all ``blocks``.

    Each block has shape (rows, samples, channels);
    the result has shape (channels, rows, rows).
    """
    n_rows = sum(b.shape[0] for b in blocks)
    n_samples, n_channels = blocks[0].shape[1:]
    step = max(4096, _BLOCK_VALUES // max(n_rows * n_channels, 1))
    gram = np.zeros((n_channels, n_rows, n_rows))
    for start in range(0, n_samples, step):
        stop = min(start + step, n_samples)
        x = np.empty((n_channels, n_rows, stop - start))
        row = 0
        for block, mean in zip(blocks, means):
            n = block.shape[0]
            x[:, row : row + n] = (block[:, start:stop] - mean[:, None, :]).transpose(2, 0, 1)
            row += n
        gram += x @ x.transpose(0, 2, 1)
    return gram


def _dependent_channels(g_ref: np.ndarray) -> np.ndarray:
    """Channels whose references are (numerically) linearly dependent."""
    energy = np.einsum("cii->ci", g_ref)
    silent = (energy <= 0).any(axis=1)
    scale = np.sqrt(np.where(energy > 0, energy, 1.0))
    corr = g_ref / scale[:, :, None] / scale[:, None, :]
    corr = np.where(silent[:, None, None], np.eye(g_ref.shape[1]), corr)
    smallest = np.linalg.eigvalsh(corr)[:, 0]
    return silent | ~(smallest > DEPENDENT_BELOW)


class _Terms:
    """Energies per (channel, reference, candidate) from which all dB follow."""

    def __init__(self, alpha, ref_energy, signal, noise_si, noise_snr, interf, artif):
        self.alpha = alpha
        self.ref_energy = ref_energy
        self.signal = signal
        self.noise_si = noise_si
        self.noise_snr = noise_snr
        self.interf = interf
        self.artif = artif

    def db(self) -> dict[str, np.ndarray]:
        with np.errstate(all="ignore"):
            snr = 10 * np.log10(self.ref_energy / self.noise_snr)
            return {
                "si_sdr": 10 * np.log10(self.signal / self.noise_si),
                "si_sir": 10 * np.log10(self.signal / self.interf),
                "si_sar": 10 * np.log10(self.signal / self.artif),
                "sd_sdr": snr + 10 * np.log10(self.alpha**2),
                "snr": snr,
                "srr": -10 * np.log10((1 - 1 / self.alpha) ** 2),
            }


def _terms_from_gram(
    g_ref: np.ndarray,
    cross: np.ndarray,
    cand_energy: np.ndarray,
    dependent: np.ndarray,
    sir_sar: bool,
) -> _Terms:
    """Energies for all (reference, candidate) pairs of every channel.

    ``g_ref`` (C, R, R), ``cross`` (C, R, K) inner products of references
    with candidates, ``cand_energy`` (C, K).
    """
    n_ch, n_ref, n_cand = cross.shape
    ref_energy = np.einsum("cii->ci", g_ref)[:, :, None]
    with np.errstate(all="ignore"):
        alpha = cross / ref_energy
        signal = alpha**2 * ref_energy
        noise_si = cand_energy[:, None, :] - alpha * cross
        noise_snr = cand_energy[:, None, :] - 2 * cross + ref_energy
    interf = np.full(cross.shape, np.nan)
    artif = np.full(cross.shape, np.nan)
    if sir_sar:
        # v[c, i, k, j] = <s_j, e_ik> with e_ik = est_k - alpha_ik s_i
        v = cross.transpose(0, 2, 1)[:, None, :, :] - alpha[..., None] * g_ref[:, :, None, :]
        system = np.where(dependent[:, None, None], np.eye(n_ref), g_ref)
        rhs = v.reshape(n_ch, n_ref * n_cand, n_ref).transpose(0, 2, 1)
        with np.errstate(all="ignore"):
            b = np.linalg.solve(system, np.nan_to_num(rhs))
            quad = np.einsum("cjm,cjm->cm", rhs, b).reshape(n_ch, n_ref, n_cand)
            interf = np.where(dependent[:, None, None], np.nan, quad)
            artif = noise_si - interf
    return _Terms(alpha, np.broadcast_to(ref_energy, cross.shape).copy(), signal, noise_si,
                  noise_snr, interf, artif)


def _needs_refinement(terms: _Terms, cand_energy: np.ndarray, sir_sar: bool) -> np.ndarray:
    t = REFINE_BELOW
    with np.errstate(invalid="ignore"):
        flag = terms.noise_si <= t * cand_energy[:, None, :]
        flag |= terms.noise_snr <= t * (cand_energy[:, None, :] + terms.ref_energy)
        if sir_sar:
            flag |= terms.interf <= t * terms.signal
            flag |= terms.artif <= t * np.abs(terms.noise_si)
    return flag


def _refine(
    terms: _Terms,
    flag: np.ndarray,
    ref: np.ndarray,
    ref_mean: np.ndarray,
    candidate,
    g_ref: np.ndarray,
    dependent: np.ndarray,
    sir_sar: bool,
) -> None:
    """Recompute flagged pairs sample by sample (nussl's own arithmetic).

    ``candidate(k, c)`` returns the centred candidate signal.
    """
    centred_refs: dict[int, np.ndarray] = {}
    for c, i, k in np.argwhere(flag):
        s = ref[i, :, c] - ref_mean[i, c]
        e = candidate(k, c)
        with np.errstate(all="ignore"):
            energy = (s**2).sum()
            alpha = (s @ e) / energy
            e_true = alpha * s
            residual = e - e_true
            terms.alpha[c, i, k] = alpha
            terms.ref_energy[c, i, k] = energy
            terms.signal[c, i, k] = (e_true**2).sum()
            terms.noise_si[c, i, k] = (residual**2).sum()
            terms.noise_snr[c, i, k] = ((e - s) ** 2).sum()
        if sir_sar and not dependent[c] and np.all(np.isfinite(residual)):
            if c not in centred_refs:
                centred_refs[c] = ref[:, :, c] - ref_mean[:, c][:, None]
            refs_c = centred_refs[c]
            b = np.linalg.solve(g_ref[c], refs_c @ residual)
            e_interf = b @ refs_c
            terms.interf[c, i, k] = (e_interf**2).sum()
            terms.artif[c, i, k] = ((residual - e_interf) ** 2).sum()


def _evaluate_pairs(truth, prediction, mixture, zero_mean, sir_sar):
    """All metrics for all pairs: dict of (C, R, E) arrays."""
    n_ref = truth.shape[0]
    n_est = prediction.shape[0]
    n_ch = truth.shape[2]

    def mean(x):
        if not zero_mean:
            return np.zeros((x.shape[0], x.shape[2]))
        # (sources, channels); a BLAS product is much faster than x.mean(axis=1)
        return np.matmul(np.ones(x.shape[1]), x) / x.shape[1]

    ref_mean = mean(truth)
    est_mean = mean(prediction)
    blocks = [truth, prediction]
    means = [ref_mean, est_mean]
    if mixture is not None:
        mix_mean = mean(mixture[None])
        blocks.append(mixture[None])
        means.append(mix_mean)
    gram = _gram(blocks, means)
    g_ref = gram[:, :n_ref, :n_ref]
    dependent = _dependent_channels(g_ref) if sir_sar else np.ones(n_ch, dtype=bool)

    # estimates
    cross = gram[:, :n_ref, n_ref : n_ref + n_est]
    est_energy = np.einsum("cii->ci", gram[:, n_ref : n_ref + n_est, n_ref : n_ref + n_est])
    terms = _terms_from_gram(g_ref, cross, est_energy, dependent, sir_sar)
    flag = _needs_refinement(terms, est_energy, sir_sar)
    if flag.any():
        _refine(
            terms, flag, truth, ref_mean,
            lambda k, c: prediction[k, :, c] - est_mean[k, c],
            g_ref, dependent, sir_sar,
        )
    out = terms.db()

    # the mixture: nussl's default is the sum of the (centred) references
    if mixture is None:
        mix_cross = g_ref.sum(axis=2)[:, :, None]
        mix_energy = g_ref.sum(axis=(1, 2))[:, None]

        def mix_signal(k, c):
            return (truth[:, :, c] - ref_mean[:, c][:, None]).sum(axis=0)

    else:
        mix_cross = gram[:, :n_ref, -1:]
        mix_energy = gram[:, -1, -1][:, None]

        def mix_signal(k, c):
            return mixture[:, c] - mix_mean[0, c]

    mix_terms = _terms_from_gram(g_ref, mix_cross, mix_energy, dependent, False)
    mix_flag = _needs_refinement(mix_terms, mix_energy, False)
    if mix_flag.any():
        _refine(mix_terms, mix_flag, truth, ref_mean, mix_signal, g_ref, dependent, False)
    mix = mix_terms.db()
    with np.errstate(invalid="ignore"):
        out["si_sdri"] = out["si_sdr"] - mix["si_sdr"]
        out["sd_sdri"] = out["sd_sdr"] - mix["sd_sdr"]
        out["snri"] = out["snr"] - mix["snr"]
    return {key: out[key] for key in KEYS}


def _prepare(truth, prediction, mixture, zero_mean, sir_sar, same_count):
    zero_mean = check_bool(zero_mean, "zero_mean")
    sir_sar = check_bool(sir_sar, "sir_sar")
    truth, squeeze = as_sources(truth, "truth")
    prediction, squeeze_p = as_sources(prediction, "prediction")
    if squeeze != squeeze_p:
        raise ValueError(
            "truth and prediction must both have a channel axis or both not; "
            f"got {truth.ndim - squeeze}-D and {prediction.ndim - squeeze_p}-D arrays."
        )
    check_pair(truth, prediction, same_count=same_count)
    if mixture is not None:
        mixture = as_mixture(mixture, truth)
    return truth, prediction, mixture, zero_mean, sir_sar, squeeze


def scale_invariant_matrix(
    truth: object,
    prediction: object,
    mixture: object | None = None,
    *,
    zero_mean: bool = True,
    sir_sar: bool = True,
) -> dict[str, np.ndarray]:
    r"""Scale-invariant metrics of every estimate against every reference.

    The pairwise version of :func:`scale_invariant`
    (see there for the formulas and the NaN/inf rules):
    entry ``[i, k]`` scores estimate ``k`` against reference ``i``,
    with SI-SIR/SI-SAR projecting on all references
    and the improvements taken over the mixture's score against reference ``i``.
    One Gram matrix per channel serves all pairs.

    Args:
        truth: references, shape (sources, samples[, channels])
        prediction: estimates, shape (estimates, samples[, channels]);
            the number of estimates may differ from the number of sources
        mixture: shape (samples[, channels]);
            ``None`` uses the sum of the references (nussl)
        zero_mean: subtract each signal's mean first (nussl)
        sir_sar: compute SI-SIR and SI-SAR (else NaN)

    Returns:
        dict with the keys ``si_sdr``, ``si_sir``, ``si_sar``, ``sd_sdr``,
        ``snr``, ``srr``, ``si_sdri``, ``sd_sdri``, ``snri``,
        each an array of shape (sources, estimates[, channels]) in dB

    Raises:
        TypeError: if an input is not a real-valued array
        ValueError: if shapes do not fit or a sample is not finite

    Examples:
        >>> s = np.array([[1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0]])
        >>> m = scale_invariant_matrix(s, s[::-1])
        >>> m["si_sdr"].tolist()
        [[-inf, inf], [inf, -inf]]

    """
    truth, prediction, mixture, zero_mean, sir_sar, squeeze = _prepare(
        truth, prediction, mixture, zero_mean, sir_sar, same_count=False
    )
    out = _evaluate_pairs(truth, prediction, mixture, zero_mean, sir_sar)
    out = {key: np.moveaxis(value, 0, -1) for key, value in out.items()}
    if squeeze:
        out = {key: value[..., 0] for key, value in out.items()}
    return out


def scale_invariant(
    truth: object,
    prediction: object,
    mixture: object | None = None,
    *,
    permutation: bool = False,
    zero_mean: bool = True,
    sir_sar: bool = True,
) -> dict[str, np.ndarray]:
    r"""Scale-invariant SDR family of nussl for each source and channel.

    Each channel is scored on its own (nussl's ``BSSEvalScale``).
    With the zero-mean reference :math:`s`, estimate :math:`\hat s`
    and :math:`\alpha = \langle s, \hat s\rangle / \|s\|^2`:

    .. math::

        \text{SI-SDR} = 10 \log_{10} \frac{\|\alpha s\|^2}{\|\hat s - \alpha s\|^2},\quad
        \text{SNR} = 10 \log_{10} \frac{\|s\|^2}{\|\hat s - s\|^2},\quad
        \text{SD-SDR} = \text{SNR} + 10 \log_{10} \alpha^2,\quad
        \text{SRR} = -10 \log_{10} (1 - 1/\alpha)^2.

    SI-SIR and SI-SAR split the residual :math:`\hat s - \alpha s`
    into its least-squares projection on all references (interference)
    and the rest (artifacts), both compared with :math:`\|\alpha s\|^2`.
    SI-SDRi, SD-SDRi and SNRi are the metric minus the same metric
    of the mixture against the reference.

    NaN/inf rules (IEEE arithmetic of the formulas, no error is raised):

    * perfect estimate: SI-SDR, SNR, SD-SDR, SRR ``+inf``
      (when the residual is exactly zero; otherwise a large finite value);
    * silent estimate: SI-SDR, SI-SIR, SI-SAR NaN (0/0),
      SNR 0, SD-SDR and SRR ``-inf``;
    * estimate orthogonal to the reference: SI-SDR ``-inf``;
    * silent reference (after removing the mean): every metric NaN
      except SNR, which is ``-inf`` (NaN if the estimate is silent too);
    * linearly dependent references in a channel
      (a silent reference, identical or proportional references):
      SI-SIR and SI-SAR are NaN for that channel
      (nussl raises ``LinAlgError`` or returns arbitrary values).

    Args:
        truth: references, shape (sources, samples[, channels])
        prediction: estimates of the same shape;
            with ``permutation=True`` the number of estimates may differ
        mixture: shape (samples[, channels]);
            ``None`` uses the sum of the references (nussl)
        permutation: assign estimates to references by
            :func:`best_permutation` on the channel-mean SI-SDR,
            which is exact for nussl's criterion
            (the mean SI-SDR over sources and channels, a sum over pairs)
        zero_mean: subtract each signal's mean first (nussl)
        sir_sar: compute SI-SIR and SI-SAR (else NaN)

    Returns:
        dict with the keys ``si_sdr``, ``si_sir``, ``si_sar``, ``sd_sdr``,
        ``snr``, ``srr``, ``si_sdri``, ``sd_sdri``, ``snri``,
        each of shape (sources[, channels]) in dB;
        with ``permutation=True`` also ``estimate``,
        the index of the estimate assigned to each source
        (``-1`` and NaN scores where there are fewer estimates than sources)

    Raises:
        TypeError: if an input is not a real-valued array
        ValueError: if shapes do not fit or a sample is not finite

    Examples:
        >>> s = np.array([[1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0]])
        >>> res = scale_invariant(s, 0.5 * s + 0.1 * s[::-1])
        >>> round(float(res["si_sdr"][0]), 4)  # 10 log10(1 / 0.04)
        13.9794
        >>> round(float(res["snr"][0]), 4)  # 10 log10(4 / 1.04)
        5.8503
        >>> round(float(res["sd_sdr"][0]), 4)  # SNR + 10 log10(0.25)
        -0.1703
        >>> float(res["si_sar"][0])  # the residual is all interference
        inf
        >>> scale_invariant(s, s[::-1], permutation=True)["estimate"].tolist()
        [1, 0]

    """
    permutation = check_bool(permutation, "permutation")
    truth, prediction, mixture, zero_mean, sir_sar, squeeze = _prepare(
        truth, prediction, mixture, zero_mean, sir_sar, same_count=not permutation
    )
    pairs = _evaluate_pairs(truth, prediction, mixture, zero_mean, sir_sar)
    pairs = {key: np.moveaxis(value, 0, -1) for key, value in pairs.items()}
    if permutation:
        assignment = assign(pairs["si_sdr"])
    else:
        assignment = np.arange(truth.shape[0])  # type: ignore[attr-defined]  # truth is an array after the checks above
    out = {key: take_assignment(value, assignment) for key, value in pairs.items()}
    if squeeze:
        out = {key: value[..., 0] for key, value in out.items()}
    if permutation:
        out["estimate"] = assignment
    return out


def si_sdr(truth: object, prediction: object, *, zero_mean: bool = True) -> np.ndarray:
    r"""Scale-invariant signal-to-distortion ratio per source and channel.

    .. math::

        \text{SI-SDR} = 10 \log_{10}
        \frac{\|\alpha s\|^2}{\|\hat s - \alpha s\|^2},
        \qquad \alpha = \frac{\langle s, \hat s\rangle}{\|s\|^2}

    on zero-mean signals (nussl, Le Roux et al. 2019).
    A shortcut for ``scale_invariant(..., sir_sar=False)["si_sdr"]``
    with the same NaN/inf rules.

    Args:
        truth: references, shape (sources, samples[, channels])
        prediction: estimates of the same shape
        zero_mean: subtract each signal's mean first

    Returns:
        SI-SDR in dB, shape (sources[, channels])

    Examples:
        >>> s = np.array([[0.0, 1.0, 0.0, -1.0]])
        >>> e = np.array([[0.1, 2.0, 0.0, -2.0]])
        >>> round(float(si_sdr(s, e)[0]), 4)  # 10 log10(8 / 0.0075)
        30.2803

    """
    return scale_invariant(truth, prediction, zero_mean=zero_mean, sir_sar=False)["si_sdr"]
