"""Write the golden values of the separation tests (run by hand).

The reference packages are needed only here, never by the test suite::

    PYTHONPATH=. /opt/refenv/bin/python tests/assets/separation/make_golden.py

needs museval 0.4.1, mir_eval 0.8.2, scikit-learn and nussl 1.1.9
(``pip install --no-deps nussl``: only its two evaluation modules are
loaded, with stand-ins for the parts of nussl that need torch).
It writes ``golden.json`` beside this file.

The test signals are made by :func:`signals` from an integer hash,
so the tests rebuild them without storing audio;
``golden.json`` keeps a checksum of each input to detect drift.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import types

import numpy as np
import scipy.signal


HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden.json")


# -------------------------------------------------------------------------
# Deterministic test signals (shared with the tests)
# -------------------------------------------------------------------------


def noise(seed: int, shape: tuple[int, ...]) -> np.ndarray:
    """Zero-mean unit-variance noise from an integer hash (no RNG stream).

    Irwin-Hall: the sum of four uniform values, each from a
    splitmix64-style hash of (seed, index), exactly representable.
    """
    n = int(np.prod(shape))
    out = np.zeros(n)
    mask = np.uint64(0xFFFFFFFFFFFFFFFF)
    for k in range(4):
        z = (np.arange(n, dtype=np.uint64) * np.uint64(4) + np.uint64(k)) + np.uint64(
            (seed * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        )
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9) & mask
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB) & mask
        z = z ^ (z >> np.uint64(31))
        out += (z >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return ((out - 2.0) * np.sqrt(3.0)).reshape(shape)


def coloured(seed: int, shape: tuple[int, ...], pole: float) -> np.ndarray:
    """First-order low-pass noise along axis 1 (audio-like spectra)."""
    return scipy.signal.lfilter([1.0 - pole], [1.0, -pole], noise(seed, shape), axis=1)


def mix(refs: np.ndarray, seed: int, leak: float, artifacts: float) -> np.ndarray:
    """Estimates: each reference plus leakage of the others, filtering and noise."""
    n_src = refs.shape[0]
    weights = leak * noise(seed, (n_src, n_src)) + np.eye(n_src)
    est = np.einsum("ij,jn...->in...", weights, refs)
    est = scipy.signal.lfilter([1.0, 0.3, -0.1], [1.0], est, axis=1)
    return est + artifacts * noise(seed + 1, refs.shape)


def signals(case: str) -> dict[str, np.ndarray]:
    """The inputs of one golden case."""
    if case == "si_stereo":
        refs = coloured(1, (3, 6000, 2), 0.9) + 0.05  # a DC offset: zero_mean matters
        est = mix(refs, 2, 0.3, 0.2)
        est[2] = 0.999 * refs[2] + 1e-4 * noise(3, refs[2].shape)  # about 60 dB
        return {"truth": refs, "prediction": est[[2, 0, 1]]}
    if case == "si_mono_more_estimates":
        refs = coloured(4, (2, 5000), 0.5)
        est = mix(np.concatenate([refs, coloured(5, (1, 5000), 0.7)]), 6, 0.4, 0.3)
        return {"truth": refs, "prediction": est[[2, 1, 0]]}
    if case == "si_mixture":
        refs = coloured(7, (2, 4000, 2), 0.8)
        est = mix(refs, 8, 0.2, 0.1)
        mixture = refs.sum(axis=0) + 0.3 * noise(9, refs.shape[1:])
        return {"truth": refs, "prediction": est, "mixture": mixture}
    if case == "bss_stereo":
        refs = coloured(10, (3, 16000, 2), 0.9)
        est = mix(refs, 11, 0.3, 0.05)
        est[1, 11950:] = 0.0  # a silent estimate in the last window: NaN
        return {"truth": refs, "prediction": est}
    if case == "bss_mono_permutation":
        refs = coloured(12, (3, 6000), 0.6)
        est = mix(refs, 13, 0.3, 0.1)
        return {"truth": refs, "prediction": est[[1, 2, 0]]}
    if case == "bss_images":
        refs = coloured(14, (2, 5000, 2), 0.85)
        est = mix(refs, 15, 0.25, 0.05)
        return {"truth": refs, "prediction": est[[1, 0]]}
    if case == "masks":
        t = noise(16, (3, 20, 30, 2)) > 0
        p = noise(17, (3, 20, 30, 2)) > 0.5
        p[2, :, :, 1] = False  # no predicted bin: precision undefined
        return {"truth": t, "prediction": p}
    raise KeyError(case)


# Options of the BSS Eval cases (sampling rate, window, hop in seconds).
BSS_OPTIONS = {
    "bss_stereo": {"sampling_rate": 8000, "window": 0.5, "hop": 0.25},
    "bss_mono_permutation": {"sampling_rate": 8000, "window": 0.25, "hop": 0.25},
    "bss_images": {"sampling_rate": 8000, "window": None, "hop": None},
}

SI_KEYS = {
    "SI-SDR": "si_sdr", "SI-SIR": "si_sir", "SI-SAR": "si_sar", "SD-SDR": "sd_sdr",
    "SNR": "snr", "SRR": "srr", "SI-SDRi": "si_sdri", "SD-SDRi": "sd_sdri", "SNRi": "snri",
}


def checksum(arrays: dict[str, np.ndarray]) -> dict[str, float]:
    return {k: float(np.abs(np.asarray(v, dtype=float)).sum()) for k, v in arrays.items()}


# -------------------------------------------------------------------------
# References (only imported when run as a script)
# -------------------------------------------------------------------------


def load_nussl():
    """nussl's evaluation modules without the rest of nussl (torch etc.)."""
    import importlib.metadata

    root = os.path.join(
        os.path.dirname(importlib.util.find_spec("museval").origin), "..", "nussl"
    )
    root = os.path.normpath(root)
    version = importlib.metadata.version("nussl")
    package = types.ModuleType("nussl")
    package.__path__ = [root]

    class AudioSignal:
        """Stand-in: nussl only reads ``audio_data`` and ``num_channels``."""

        path_to_input_file = None

        def __init__(self, data):
            self.audio_data = np.array(data, dtype=np.float64, ndmin=2)
            self.num_channels = self.audio_data.shape[0]

    package.AudioSignal = AudioSignal
    core = types.ModuleType("nussl.core")
    core.__path__ = []
    utils = types.ModuleType("nussl.core.utils")
    utils.verify_audio_signal_list_strict = lambda signals: signals
    core.utils = utils
    evaluation = types.ModuleType("nussl.evaluation")
    evaluation.__path__ = [os.path.join(root, "evaluation")]
    sys.modules.update(
        {
            "nussl": package,
            "nussl.core": core,
            "nussl.core.utils": utils,
            "nussl.evaluation": evaluation,
        }
    )
    modules = {}
    for name in ("evaluation_base", "bss_eval"):
        spec = importlib.util.spec_from_file_location(
            f"nussl.evaluation.{name}", os.path.join(root, "evaluation", f"{name}.py")
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        modules[name] = module
        if name == "evaluation_base":
            evaluation.EvaluationBase = module.EvaluationBase
    return modules["bss_eval"], AudioSignal, version


def _listify(x):
    return np.asarray(x, dtype=float).tolist()


def golden_si(case, bss_eval_module, audio_signal):
    data = signals(case)
    refs, est = data["truth"], data["prediction"]
    if refs.ndim == 2:
        refs, est = refs[..., None], est[..., None]
    out = {"checksum": checksum(data)}
    if "mixture" in data:
        # nussl's scale_bss_eval with an explicit mixture, per channel
        # (zero-mean inputs, as BSSEvalScale.preprocess does)
        r = refs - refs.mean(axis=1, keepdims=True)
        e = est - est.mean(axis=1, keepdims=True)
        m = data["mixture"] - data["mixture"].mean(axis=0)
        values = {key: np.zeros((refs.shape[0], refs.shape[2])) for key in SI_KEYS.values()}
        for j in range(refs.shape[0]):
            for c in range(refs.shape[2]):
                res = bss_eval_module.scale_bss_eval(
                    r[:, :, c].T, e[j, :, c], m[:, c], j, compute_sir_sar=True
                )
                for key, value in zip(SI_KEYS.values(), res[:9]):
                    values[key][j, c] = value
        out["matched"] = {key: _listify(v) for key, v in values.items()}
        return out
    for permute in (False, True):
        if not permute and refs.shape[0] != est.shape[0]:
            continue
        evaluator = bss_eval_module.BSSEvalScale(
            [audio_signal(x.T) for x in refs],
            [audio_signal(x.T) for x in est],
            compute_permutation=permute,
        )
        scores = evaluator.evaluate()
        result = {key: [] for key in SI_KEYS.values()}
        for j in range(refs.shape[0]):
            for name, key in SI_KEYS.items():
                result[key].append(scores[f"source_{j}"][name])
        result = {key: _listify(v) for key, v in result.items()}
        if permute:
            # nussl: reference order[i] is scored with estimate combination[i]
            estimate = [-1] * refs.shape[0]
            for i, o in enumerate(scores["permutation"]):
                estimate[o] = int(scores["combination"][i])
            result["estimate"] = estimate
        out["permutation" if permute else "matched"] = result
    return out


def golden_bss(case):
    import museval

    data = signals(case)
    refs, est = data["truth"], data["prediction"]
    opt = BSS_OPTIONS[case]
    rate = opt["sampling_rate"]
    win = np.inf if opt["window"] is None else int(round(opt["window"] * rate))
    hop = np.inf if opt["hop"] is None else int(round(opt["hop"] * rate))
    out = {"checksum": checksum(data), "options": opt}
    for permute in (False, True):
        sdr, isr, sir, sar, perm = museval.metrics.bss_eval(
            refs, est, window=win, hop=hop, compute_permutation=permute,
            filters_len=512, framewise_filters=False, bsseval_sources_version=False,
        )
        out["permutation" if permute else "matched"] = {
            "sdr": _listify(sdr), "isr": _listify(isr), "sir": _listify(sir),
            "sar": _listify(sar), "estimate": np.asarray(perm)[:, 0].astype(int).tolist(),
        }
    if case == "bss_images":
        import mir_eval.separation

        for permute in (False, True):
            sdr, isr, sir, sar, perm = mir_eval.separation.bss_eval_images(
                refs, est, compute_permutation=permute
            )
            out["mir_eval_permutation" if permute else "mir_eval"] = {
                "sdr": _listify(sdr), "isr": _listify(isr), "sir": _listify(sir),
                "sar": _listify(sar), "estimate": np.asarray(perm).astype(int).tolist(),
            }
    return out


def golden_masks(case):
    import sklearn.metrics

    data = signals(case)
    t, p = data["truth"], data["prediction"]
    n_src, n_ch = t.shape[0], t.shape[-1]
    values = {k: np.zeros((n_src, n_ch)) for k in ("precision", "recall", "f1", "accuracy")}
    functions = {
        "precision": sklearn.metrics.precision_score,
        "recall": sklearn.metrics.recall_score,
        "f1": sklearn.metrics.f1_score,
        "accuracy": sklearn.metrics.accuracy_score,
    }
    for j in range(n_src):
        for c in range(n_ch):
            a, b = t[j, ..., c].ravel(), p[j, ..., c].ravel()
            for key, fn in functions.items():
                kwargs = {} if key == "accuracy" else {"zero_division": 0}
                values[key][j, c] = fn(a, b, **kwargs)
    return {"checksum": checksum(data), "zero_division": 0.0,
            "matched": {k: _listify(v) for k, v in values.items()}}


def main() -> None:
    import importlib.metadata

    bss_eval_module, audio_signal, nussl_version = load_nussl()
    golden = {
        "made_with": {
            name: importlib.metadata.version(name)
            for name in ("museval", "mir_eval", "scikit-learn", "numpy", "scipy")
        }
        | {"nussl": nussl_version},
        "cases": {},
    }
    for case in ("si_stereo", "si_mono_more_estimates", "si_mixture"):
        golden["cases"][case] = golden_si(case, bss_eval_module, audio_signal)
    for case in BSS_OPTIONS:
        golden["cases"][case] = golden_bss(case)
    golden["cases"]["masks"] = golden_masks("masks")
    with open(GOLDEN, "w") as fp:
        json.dump(golden, fp, indent=1, allow_nan=True)
        fp.write("\n")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
