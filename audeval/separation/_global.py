r"""Global and source-aggregated SDRs of current leaderboards.

* SA-SDR (von Neumann et al., "SA-SDR: A novel loss function for
  separation of meeting style data", ICASSP 2022): one ratio over all
  sources, :math:`10 \log_{10} \sum_j \|s_j\|^2 / \sum_j \|s_j - \hat s_j\|^2`.
* The global SDR of the Music Demixing (MDX 2021) and Sound Demixing
  (SDX 2023) challenges per song and source,
  :math:`10 \log_{10} (\|s\|^2 + \delta) / (\|s - \hat s\|^2 + \delta)`
  over all samples and channels ("uSDR", utterance-level SDR),
  and its chunked median ("cSDR").

These are plain energy ratios computed from the samples (no distortion
filter, no projection), so they are exact in float64.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from audeval.separation._bss_eval import frames
from audeval.separation._checks import as_sources
from audeval.separation._checks import check_bool
from audeval.separation._checks import check_pair
from audeval.separation._checks import check_sampling_rate
from audeval.separation._checks import check_seconds
from audeval.separation._permutation import assign


def check_delta(delta: object) -> float:
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise TypeError(f"delta must be a non-negative number; got {delta!r}.")
    if not np.isfinite(delta) or delta < 0:  # type: ignore[call-overload]  # a numbers.Real (numpy's stubs do not know it)
        raise ValueError(f"delta must be a non-negative finite number; got {delta!r}.")
    return float(delta)


def ratio_db(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``10 log10(num / den)`` with IEEE rules (x/0 = inf, 0/0 = NaN)."""
    with np.errstate(all="ignore"):
        return 10 * np.log10(np.asarray(num, dtype=np.float64) / den)


def _prepare(truth, prediction, *, same_count):
    ref, squeeze = as_sources(truth, "truth")
    est, squeeze_p = as_sources(prediction, "prediction")
    if squeeze != squeeze_p:
        raise ValueError(
            "truth and prediction must both have a channel axis or both not; "
            f"got shapes {np.shape(truth)} and {np.shape(prediction)}."
        )
    check_pair(ref, est, same_count=same_count)
    return ref, est, squeeze


def _sa_assignment(ref, est, scale_invariant):
    """The estimate of each source maximising SA-SDR (Hungarian, exact)."""
    cross = np.einsum("jnc,knc->jk", ref, est)
    if scale_invariant:
        return assign(cross)
    est_energy = np.einsum("knc,knc->k", est, est)
    # sum_j ||s_j - e_k||^2 = const + sum_j (||e_k||^2 - 2 <s_j, e_k>)
    return assign(est_energy[None, :] - 2 * cross, maximize=False)


def sa_sdr(
    truth: object,
    prediction: object,
    *,
    scale_invariant: bool = False,
    zero_mean: bool = False,
    permutation: bool = False,
) -> dict[str, np.ndarray]:
    r"""Source-aggregated SDR (SA-SDR) of all sources together.

    von Neumann et al., ICASSP 2022 (torchmetrics
    ``source_aggregated_signal_distortion_ratio``): the energies are summed
    over the sources before the ratio is taken,

    .. math::

        \text{SA-SDR} = 10 \log_{10}
        \frac{\sum_j \|s_j\|^2}{\sum_j \|s_j - \hat s_j\|^2},

    so a quiet or silent source does not dominate the score
    (meeting-style data with one active speaker).
    With ``scale_invariant=True`` one scale for all sources,
    :math:`\alpha = \sum_j \langle \hat s_j, s_j\rangle / \sum_j \|s_j\|^2`,
    replaces :math:`s_j` by :math:`\alpha s_j` (torchmetrics' default;
    torchmetrics adds the float epsilon to every sum, audeval does not).
    Each channel is scored on its own.

    NaN/inf rules (IEEE division, no error): a perfect estimate gives
    ``+inf``; silent references with non-silent estimates ``-inf``;
    silent references and estimates NaN. A source without an estimate
    (fewer estimates, ``permutation=True``) counts as a silent estimate.

    Args:
        truth: references, shape (sources, samples[, channels])
        prediction: estimates of the same shape;
            with ``permutation=True`` the number of estimates may differ
        scale_invariant: one optimal scale for all sources
        zero_mean: subtract each signal's mean first
        permutation: the assignment of estimates to sources maximising
            SA-SDR (Hungarian on the pairwise distortion energies,
            or on the inner products with ``scale_invariant``; exact
            when every estimate is assigned)

    Returns:
        dict with ``sa_sdr`` in dB, a float (shape (channels,) with
        a channel axis), and with ``permutation=True`` also ``estimate``

    Raises:
        TypeError: if an input has the wrong type
        ValueError: if shapes do not fit or a sample is not finite

    Examples:
        >>> from audeval.separation import sa_sdr
        >>> s = np.array([[1.0, 0.0, -1.0, 0.0], [0.0, 0.1, 0.0, -0.1]])
        >>> e = np.array([[0.9, 0.0, -0.9, 0.0], [0.0, 0.0, 0.0, 0.0]])
        >>> round(float(sa_sdr(s, e)["sa_sdr"]), 6)  # 10 log10(2.02 / (0.02 + 0.02))
        17.032914
        >>> sa_sdr(s, e[::-1], permutation=True)["estimate"].tolist()
        [1, 0]

    """
    scale_invariant = check_bool(scale_invariant, "scale_invariant")
    zero_mean = check_bool(zero_mean, "zero_mean")
    permutation = check_bool(permutation, "permutation")
    ref, est, squeeze = _prepare(truth, prediction, same_count=not permutation)
    if zero_mean:
        ref = ref - ref.mean(axis=1, keepdims=True)
        est = est - est.mean(axis=1, keepdims=True)
    if permutation:
        assignment = _sa_assignment(ref, est, scale_invariant)
        chosen = np.zeros_like(ref)
        has = assignment >= 0
        chosen[has] = est[assignment[has]]
    else:
        assignment, chosen = np.arange(ref.shape[0]), est
    ref_energy = np.einsum("jnc,jnc->c", ref, ref)
    if scale_invariant:
        with np.errstate(all="ignore"):
            alpha = np.einsum("jnc,jnc->c", chosen, ref) / ref_energy
        target = alpha * ref
        num = alpha**2 * ref_energy
    else:
        target, num = ref, ref_energy
    diff = target - chosen
    value = ratio_db(num, np.einsum("jnc,jnc->c", diff, diff))
    out = {"sa_sdr": value[0] if squeeze else value}
    if permutation:
        out["estimate"] = assignment
    return out


def global_sdr(truth: object, prediction: object, *, delta: float = 1e-7) -> np.ndarray:
    r"""Global SDR per source of MDX 2021 / SDX 2023 ("uSDR", "nSDR").

    .. math::

        \text{SDR}_j = 10 \log_{10}
        \frac{\|s_j\|^2 + \delta}{\|s_j - \hat s_j\|^2 + \delta}

    with the norms over all samples and channels of the song
    (the Music Demixing Challenge 2021 definition, reported as
    "nSDR" by Demucs and "uSDR" in the Sound Demixing Challenge 2023).
    ``delta=1e-7`` (the challenges' value, for audio in [-1, 1])
    keeps silent sources finite; ``delta=0`` gives the plain ratio
    with IEEE rules (perfect estimate ``+inf``, silent reference
    ``-inf``, both silent NaN).

    Args:
        truth: references, shape (sources, samples[, channels])
        prediction: estimates of the same shape
        delta: added to numerator and denominator

    Returns:
        SDR in dB, shape (sources,)

    Raises:
        TypeError: if an input has the wrong type
        ValueError: if shapes do not fit, a sample is not finite
            or ``delta`` is negative

    Examples:
        >>> from audeval.separation import global_sdr
        >>> s = np.array([[1.0, -1.0, 1.0, -1.0]])
        >>> global_sdr(s, 0.9 * s, delta=0).round(6).tolist()  # 10 log10(4 / 0.04)
        [20.0]

    """
    delta = check_delta(delta)
    ref, est, _ = _prepare(truth, prediction, same_count=True)
    num = np.einsum("jnc,jnc->j", ref, ref)
    diff = ref - est
    return ratio_db(num + delta, np.einsum("jnc,jnc->j", diff, diff) + delta)


def chunked_sdr(
    truth: object,
    prediction: object,
    *,
    sampling_rate: float,
    chunk: float = 1.0,
    delta: float = 1e-7,
) -> dict[str, np.ndarray]:
    r"""Global SDR per chunk and its median over chunks ("cSDR").

    The song is cut into chunks of ``chunk`` seconds
    (non-overlapping, rounded to whole samples; the last partial chunk
    is dropped and a song shorter than a chunk is one chunk, as museval
    frames windows), :func:`global_sdr` is computed per chunk,
    and the median over chunks is the chunk-level SDR (cSDR)
    reported next to the uSDR in the Sound Demixing Challenge 2023.
    A chunk in which a reference is silent (all zeros) is NaN for that
    source only and left out of its median (museval issue 94: one silent
    stem must not NaN the window for every source); a source silent
    in every chunk has a NaN median.

    Args:
        truth: references, shape (sources, samples[, channels])
        prediction: estimates of the same shape
        sampling_rate: sampling rate in Hz
        chunk: chunk length in seconds
        delta: added to numerator and denominator (see :func:`global_sdr`)

    Returns:
        dict with ``sdr`` (sources, chunks) in dB, ``median``
        (sources,) and ``start``, ``end`` (chunk bounds in seconds)

    Raises:
        TypeError: if an input has the wrong type
        ValueError: if shapes do not fit, a sample is not finite
            or an option is out of range

    Examples:
        >>> from audeval.separation import chunked_sdr
        >>> s = np.array([[1.0, -1.0, 1.0, -1.0, 1.0, -1.0]])
        >>> e = np.array([[0.9, -0.9, 1.0, -1.0, 0.0, 0.0]])
        >>> res = chunked_sdr(s, e, sampling_rate=2, chunk=1.0, delta=0)
        >>> res["sdr"].round(6).tolist(), res["median"].round(6).tolist()
        ([[20.0, inf, 0.0]], [20.0])

    """
    rate = check_sampling_rate(sampling_rate)
    chunk = check_seconds(chunk, "chunk", allow_none=False)  # type: ignore[assignment]  # allow_none=False: a float
    delta = check_delta(delta)
    ref, est, _ = _prepare(truth, prediction, same_count=True)
    n_samples = ref.shape[1]
    length = max(1, int(round(chunk * rate)))
    starts, length = frames(n_samples, length, length)
    n_src, _, n_ch = ref.shape
    shape = (n_src, len(starts), length, n_ch)
    r = ref[:, : len(starts) * length].reshape(shape)
    e = est[:, : len(starts) * length].reshape(shape)
    num = np.einsum("jtnc,jtnc->jt", r, r)
    diff = r - e
    sdr = ratio_db(num + delta, np.einsum("jtnc,jtnc->jt", diff, diff) + delta)
    sdr = np.where(num == 0, np.nan, sdr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN sources
        median = np.nanmedian(sdr, axis=1)
    return {
        "sdr": sdr,
        "median": median,
        "start": starts / rate,
        "end": (starts + length) / rate,
    }
