r"""Class-aware SDR improvement (CA-SDRi) of DCASE 2025 task 4.

Yasuda et al., "Description and discussion on DCASE 2025 challenge
task 4: spatial semantic segmentation of sound scenes" (arXiv:2506.10676):
for the reference classes :math:`C` and the estimated classes
:math:`\hat C` of one mixture :math:`y`,

.. math::

    \text{CA-SDRi} = \frac{1}{|C \cup \hat C|}
    \sum_{c \in C \cup \hat C} P_c,\qquad
    P_c = \begin{cases}
    \text{SDR}(\hat s_c, s_c) - \text{SDR}(y, s_c) & c \in C \cap \hat C\\
    0 & \text{otherwise (a missed or a spurious class)}
    \end{cases}

with :math:`\text{SDR}(\hat s, s) = 10 \log_{10} \|s\|^2 / \|s - \hat s\|^2`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from audeval.separation._checks import as_mixture
from audeval.separation._global import ratio_db


def _signals(x: object, name: str, labels: Any, label_name: str):
    """Array (sources, samples, channels) and its list of unique labels."""
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be an array of shape (sources, samples[, channels]).")
    arr = np.asarray(x)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must hold real numbers; got dtype {arr.dtype}.")
    if arr.ndim not in (2, 3) or arr.shape[1] == 0:
        raise ValueError(
            f"{name} must have shape (sources, samples[, channels]) with samples; "
            f"got shape {arr.shape}."
        )
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must not contain NaN or infinite samples.")
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
        raise TypeError(f"{label_name} must be a sequence of class labels; got {labels!r}.")
    labels = list(labels)
    if len(labels) != arr.shape[0]:
        raise ValueError(
            f"{label_name} must have one label per row of {name}: "
            f"got {len(labels)} labels for {arr.shape[0]} signals."
        )
    try:
        seen = set()
        duplicated = [x for x in labels if x in seen or seen.add(x)]  # type: ignore[func-returns-value]  # add() is None: keeps the first
    except TypeError as error:
        raise TypeError(f"{label_name} must hold hashable labels; got {labels!r}.") from error
    if duplicated:
        raise ValueError(f"{label_name} must not repeat a class; repeated: {duplicated}.")
    squeeze = arr.ndim == 2
    return (arr[:, :, None] if squeeze else arr), labels, squeeze


def _sdr(ref: np.ndarray, est: np.ndarray) -> np.ndarray:
    """Plain SDR over samples and channels, rows of (K, N, C) arrays."""
    diff = ref - est
    return ratio_db(np.einsum("knc,knc->k", ref, ref), np.einsum("knc,knc->k", diff, diff))


def ca_sdri(
    truth: object,
    prediction: object,
    mixture: object,
    *,
    truth_labels: object,
    prediction_labels: object,
) -> dict[str, object]:
    r"""Class-aware SDR improvement of one mixture (DCASE 2025 task 4, S5).

    Estimates are matched to references by their class labels
    (no permutation search). Following Yasuda et al. 2025
    (arXiv:2506.10676, the CA-SDRi of the S5 task):

    .. math::

        \text{CA-SDRi} = \frac{1}{|C \cup \hat C|}
        \sum_{c \in C \cup \hat C} P_c,

    where :math:`P_c = \text{SDR}(\hat s_c, s_c) - \text{SDR}(y, s_c)`
    for a class in both the reference classes :math:`C` and the
    estimated classes :math:`\hat C`, and :math:`P_c = 0` for a missed
    (reference only) or spurious (estimate only) class;
    :math:`\text{SDR}(\hat s, s) = 10 \log_{10} \|s\|^2/\|s - \hat s\|^2`
    over all samples and channels, :math:`y` the mixture
    (for S5: the reference channel of the array).
    The challenge's score is the mean of CA-SDRi over mixtures.

    NaN/inf rules (IEEE, no error): no class on either side: NaN
    (``0 / 0``); a silent reference of a matched class: NaN SDRi
    (``-inf - -inf``), which makes CA-SDRi NaN; a perfect estimate:
    ``+inf``.

    Args:
        truth: references, shape (sources, samples[, channels]);
            ``sources`` may be 0
        prediction: estimates, shape (estimates, samples[, channels]);
            ``estimates`` may be 0
        mixture: shape (samples[, channels]) as one reference
        truth_labels: the class of each reference (unique)
        prediction_labels: the class of each estimate (unique)

    Returns:
        dict with ``ca_sdri`` (float, dB), ``labels``
        (the union: reference classes in their order, then the
        spurious classes in theirs), ``sdri`` (:math:`P_c` per label),
        and ``status`` per label (``"matched"``, ``"missed"``,
        ``"spurious"``)

    Raises:
        TypeError: if an input has the wrong type
        ValueError: if shapes or label counts do not fit,
            a class repeats or a sample is not finite

    Examples:
        >>> from audeval.separation import ca_sdri
        >>> dog = np.array([1.0, -1.0, 1.0, -1.0])
        >>> bell = np.array([1.0, 1.0, -1.0, -1.0])
        >>> res = ca_sdri(
        ...     [dog, bell], [0.9 * dog, bell], dog + bell,
        ...     truth_labels=["dog", "bell"], prediction_labels=["dog", "cat"],
        ... )
        >>> res["labels"], res["status"]
        (['dog', 'bell', 'cat'], ['matched', 'missed', 'spurious'])
        >>> [round(float(x), 6) for x in res["sdri"]]  # 10 log10(4/0.04) - 10 log10(4/4)
        [20.0, 0.0, 0.0]
        >>> round(float(res["ca_sdri"]), 6)
        6.666667

    """
    ref, t_labels, squeeze = _signals(truth, "truth", truth_labels, "truth_labels")
    est, p_labels, squeeze_p = _signals(
        prediction, "prediction", prediction_labels, "prediction_labels"
    )
    if squeeze != squeeze_p or ref.shape[1:] != est.shape[1:]:
        raise ValueError(
            "truth and prediction must have the same samples (and channels); "
            f"got shapes {np.shape(truth)} and {np.shape(prediction)}."  # type: ignore[call-overload]  # np.shape takes any object at run time
        )
    mix = as_mixture(mixture, ref)
    labels = t_labels + [x for x in p_labels if x not in set(t_labels)]
    status = [
        "matched" if x in p_labels and x in t_labels else "missed" if x in t_labels else "spurious"
        for x in labels
    ]
    sdri = np.zeros(len(labels))
    matched = [x for x in t_labels if x in set(p_labels)]
    if matched:
        ti = np.array([t_labels.index(x) for x in matched])
        pi = np.array([p_labels.index(x) for x in matched])
        r = ref[ti]
        with np.errstate(invalid="ignore"):
            gain = _sdr(r, est[pi]) - _sdr(r, np.broadcast_to(mix, r.shape))
        sdri[[labels.index(x) for x in matched]] = gain
    with np.errstate(invalid="ignore"):
        value = sdri.sum() / len(labels) if labels else np.nan
    return {"ca_sdri": float(value), "labels": labels, "sdri": sdri, "status": status}
