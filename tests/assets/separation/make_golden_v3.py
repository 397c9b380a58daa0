"""Write the golden values of BSS Eval v3 ``bss_eval_sources`` (run by hand).

The reference packages are needed only here, never by the test suite.
Create their venv (numpy < 2: fast_bss_eval's numpy backend fails on
numpy >= 2 for batched input) and run from the repository root::

    python3 -m venv /tmp/v3ref
    /tmp/v3ref/bin/pip install "numpy<2" "scipy<1.14" mir_eval==0.8.2 fast_bss_eval
    PYTHONPATH=. /tmp/v3ref/bin/python tests/assets/separation/make_golden_v3.py

It writes ``golden_v3.json`` beside this file:

* ``mir_eval``: mir_eval 0.8.2's decomposition (``_bss_decomp_mtifilt``
  and ``_bss_source_crit``, which ``bss_eval_sources`` calls with a
  512-tap filter) for several filter lengths, with mir_eval's
  permutation search (mean SIR, first best permutation) on or off;
  a channel axis is scored channel by channel;
* ``fast_bss_eval``: ``fast_bss_eval.bss_eval_sources`` (numpy backend,
  exact solve) where it runs, for reference only (it differs from
  mir_eval by up to about 1e-4 dB on these inputs).

torchmetrics is not used: it needs torch, which does not install
for CPU from PyPI alone; the SA-SDR tests use hand-computed cases.
The signals come from ``make_golden.py`` (integer hash noise),
so the tests rebuild them; a checksum of each input detects drift.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os

import numpy as np


HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden_v3.json")

_spec = importlib.util.spec_from_file_location("make_golden", os.path.join(HERE, "make_golden.py"))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

# case -> (filter length, permutation)
CASES = {
    "v3_mono_512": (512, False),
    "v3_mono_512_perm": (512, True),
    "v3_three_256": (256, False),
    "v3_three_256_perm": (256, True),
    "v3_stereo_64": (64, False),
    "v3_stereo_64_perm": (64, True),
    "v3_high_sdr_128": (128, False),
    "v3_more_estimates_32": (32, True),
    "v3_short_filter_1": (1, False),
}


def signals(case: str) -> dict[str, np.ndarray]:
    """The inputs of one case (well-conditioned random mixtures)."""
    if case.startswith("v3_mono_512"):
        refs = gen.coloured(30, (2, 8000), 0.9)
        est = gen.mix(refs, 31, 0.3, 0.1)
        return {"truth": refs, "prediction": est[[1, 0]] if case.endswith("perm") else est}
    if case.startswith("v3_three_256"):
        refs = gen.coloured(32, (3, 6000), 0.7)
        est = gen.mix(refs, 33, 0.25, 0.2)
        return {"truth": refs, "prediction": est[[2, 0, 1]] if case.endswith("perm") else est}
    if case.startswith("v3_stereo_64"):
        refs = gen.coloured(34, (2, 5000, 2), 0.8)
        est = gen.mix(refs, 35, 0.3, 0.05)
        return {"truth": refs, "prediction": est[[1, 0]] if case.endswith("perm") else est}
    if case == "v3_high_sdr_128":
        refs = gen.coloured(36, (2, 4000), 0.5)
        est = refs + 1e-3 * gen.noise(37, refs.shape)  # about 60 dB
        est[1] = gen.mix(refs, 38, 0.01, 1e-4)[1]  # about 40 dB SIR
        return {"truth": refs, "prediction": est}
    if case == "v3_more_estimates_32":
        refs = gen.coloured(39, (2, 3000), 0.6)
        extra = gen.coloured(40, (1, 3000), 0.6)
        est = gen.mix(np.concatenate([refs, extra]), 41, 0.3, 0.1)
        return {"truth": refs, "prediction": est[[2, 1, 0]]}
    if case == "v3_short_filter_1":
        refs = gen.coloured(42, (3, 2000), 0.3)
        est = gen.mix(refs, 43, 0.5, 0.3)
        return {"truth": refs, "prediction": est}
    raise KeyError(case)


def mir_eval_sources(refs, ests, flen, permutation):
    """mir_eval's bss_eval_sources for one channel with any filter length."""
    import mir_eval.separation as me

    n_ref, n_est = refs.shape[0], ests.shape[0]
    pairs = itertools.product(range(n_est), range(n_ref)) if permutation else [
        (j, j) for j in range(n_ref)
    ]
    values = np.full((3, n_est, n_ref), np.nan)
    for k, j in pairs:
        parts = me._bss_decomp_mtifilt(refs, ests[k], j, flen)
        values[:, k, j] = me._bss_source_crit(*parts)
    if permutation:
        # mir_eval's search (extended to more estimates than references)
        perms = list(itertools.permutations(range(n_est), n_ref))
        dum = np.arange(n_ref)
        mean_sir = [np.mean(values[1][list(p), dum]) for p in perms]
        popt = np.asarray(perms[int(np.argmax(mean_sir))])
    else:
        popt = np.arange(n_ref)
    sdr, sir, sar = (values[m][popt, np.arange(n_ref)] for m in range(3))
    return sdr, sir, sar, popt


def fast(refs, ests, flen, permutation):
    import fast_bss_eval

    if refs.shape != ests.shape:
        return None
    out = fast_bss_eval.bss_eval_sources(
        refs, ests, filter_length=flen, compute_permutation=permutation
    )
    return [np.asarray(x).tolist() for x in out]


def golden(case: str) -> dict:
    flen, permutation = CASES[case]
    data = signals(case)
    refs, ests = data["truth"], data["prediction"]
    channels = [(refs, ests)] if refs.ndim == 2 else [
        (refs[..., c], ests[..., c]) for c in range(refs.shape[2])
    ]
    results = [mir_eval_sources(r, e, flen, permutation) for r, e in channels]
    entry = {
        "filter_length": flen,
        "permutation": permutation,
        "checksum": gen.checksum(data),
        "mir_eval": {
            key: np.stack([res[m] for res in results], axis=-1).squeeze(-1).tolist()
            if refs.ndim == 2
            else np.stack([res[m] for res in results], axis=-1).tolist()
            for m, key in enumerate(("sdr", "sir", "sar"))
        },
        "perm_per_channel": [res[3].tolist() for res in results],
    }
    try:
        entry["fast_bss_eval"] = [fast(r, e, flen, permutation) for r, e in channels]
    except Exception as error:  # noqa: BLE001 - record why it did not run
        entry["fast_bss_eval"] = f"failed: {type(error).__name__}: {error}"
    return entry


def main() -> None:
    import importlib.metadata

    made_with = {"numpy": np.__version__}
    for name in ("mir_eval", "fast_bss_eval", "scipy"):
        try:
            made_with[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            made_with[name] = None
    cases = {case: golden(case) for case in CASES}
    with open(GOLDEN, "w") as fp:
        json.dump({"made_with": made_with, "cases": cases}, fp, indent=1)
        fp.write("\n")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
