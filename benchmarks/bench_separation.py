"""Benchmark audeval.separation against museval and nussl (one core).

Run with the reference environment (museval 0.4.1, nussl 1.1.9 installed
with ``pip install --no-deps nussl``)::

    PYTHONPATH=. /opt/refenv/bin/python benchmarks/bench_separation.py

Options: ``--duration`` seconds of audio (default 30 for BSS Eval,
``--si-duration`` 10 for the scale-invariant family),
``--sources`` (default 4, stereo, 44.1 kHz), ``--repeat`` (best of N
for audeval). The signals are coloured noise with leakage, filtering and
additive noise (``tests/assets/separation/make_golden.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time


os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import audeval.separation as sep  # noqa: E402


HERE = os.path.dirname(os.path.abspath(__file__))
RATE = 44100


def _generator():
    path = os.path.join(HERE, "..", "tests", "assets", "separation", "make_golden.py")
    spec = importlib.util.spec_from_file_location("make_golden", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _signals(gen, n_src: int, seconds: float):
    n = int(seconds * RATE)
    refs = gen.coloured(1000 + n_src, (n_src, n, 2), 0.95)
    est = gen.mix(refs, 2000 + n_src, 0.3, 0.1)
    return refs, est


def _time(fn, repeat: int = 1) -> tuple[float, object]:
    """Best CPU time of ``repeat`` runs (one thread: robust to a busy machine)."""
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return best, out


def _max_diff(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    finite = np.isfinite(a) & np.isfinite(b)
    return float(np.abs(a[finite] - b[finite]).max())


def bench_bss_eval(gen, n_src: int, seconds: float, repeat: int) -> None:
    import museval

    refs, est = _signals(gen, n_src, seconds)
    t_ours, ours = _time(
        lambda: sep.bss_eval_v4(refs, est, sampling_rate=RATE, window=1.0, hop=1.0), repeat
    )
    t_museval, theirs = _time(lambda: museval.evaluate(refs, est, win=RATE, hop=RATE))
    diffs = {k: _max_diff(ours[k], v) for k, v in zip(("sdr", "isr", "sir", "sar"), theirs)}
    print(
        f"BSS Eval v4, {n_src} stereo sources, {seconds:g} s at 44.1 kHz, 1 s windows: "
        f"museval {t_museval:.2f} s, audeval {t_ours:.2f} s, "
        f"speed-up {t_museval / t_ours:.1f}x; max |diff| dB "
        + ", ".join(f"{k.upper()} {v:.1e}" for k, v in diffs.items())
    )


def _nussl_loop(gen):
    try:
        bss_eval_module, audio_signal, version = gen.load_nussl()
    except Exception as error:  # pragma: no cover - depends on the environment
        print(f"nussl not available ({error}); skipping the scale-invariant benchmark")
        return None

    def run(refs, est):
        evaluator = bss_eval_module.BSSEvalScale(
            [audio_signal(x.T) for x in refs],
            [audio_signal(x.T) for x in est],
            compute_permutation=True,
        )
        return evaluator.evaluate()

    return run, version


def bench_scale_invariant(gen, n_src: int, seconds: float, repeat: int) -> None:
    loaded = _nussl_loop(gen)
    if loaded is None:
        return
    nussl_run, version = loaded
    refs, est = _signals(gen, n_src, seconds)
    order = np.roll(np.arange(n_src), 1)
    est = est[order]
    t_ours, ours = _time(lambda: sep.scale_invariant(refs, est, permutation=True), repeat)
    t_nussl, theirs = _time(lambda: nussl_run(refs, est))
    estimate = [-1] * n_src
    for i, o in enumerate(theirs["permutation"]):
        estimate[o] = int(theirs["combination"][i])
    assert estimate == ours["estimate"].tolist()
    diff = max(
        _max_diff(ours[key], [theirs[f"source_{j}"][name] for j in range(n_src)])
        for name, key in gen.SI_KEYS.items()
    )
    print(
        f"SI family (9 metrics), permutation-invariant, {n_src} stereo sources, "
        f"{seconds:g} s at 44.1 kHz: nussl {version} loop over {np.prod(range(1, n_src + 1))} "
        f"permutations {t_nussl:.2f} s, audeval {t_ours * 1000:.1f} ms, "
        f"speed-up {t_nussl / t_ours:.0f}x; max |diff| {diff:.1e} dB"
    )
    t_plain, _ = _time(lambda: sep.scale_invariant(refs, est[np.argsort(order)]), repeat)
    print(f"  (audeval without permutation: {t_plain * 1000:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--si-duration", type=float, default=10.0)
    parser.add_argument("--sources", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("bss", "si"), default=None)
    args = parser.parse_args()
    gen = _generator()
    print(
        f"numpy {np.__version__}, OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, "
        "times are CPU seconds (time.process_time)"
    )
    if args.only in (None, "si"):
        bench_scale_invariant(gen, args.sources, args.si_duration, args.repeat)
    if args.only in (None, "bss"):
        bench_bss_eval(gen, args.sources, args.duration, args.repeat)


if __name__ == "__main__":
    main()
