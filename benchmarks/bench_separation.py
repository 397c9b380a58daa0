"""Benchmark audeval.separation against mir_eval, museval, fast_bss_eval and nussl (one core).

audeval runs in this interpreter; the reference toolkits run in their own
venv (numpy < 2: fast_bss_eval's numpy backend fails on numpy >= 2 for
batched input), started as a worker process and given the same signals::

    python3 -m venv /work/venvs/h5
    /work/venvs/h5/bin/pip install "numpy<2" "pandas<3" "scipy<1.14" \\
        mir_eval==0.8.2 museval==0.4.1 fast_bss_eval
    apt-get install -y ffmpeg            # museval imports stempeg
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_separation.py \\
        --ref-python /work/venvs/h5/bin/python

Workloads (``--only``):

* ``v3``: BSS Eval v3 ``bss_eval_sources`` (512 taps, no permutation,
  and with the permutation on the speech workload) on
  50 utterances of 2 sources x 4 s at 8 kHz (speech separation papers),
  and one song of 4 sources x 30 s at 44.1 kHz stereo (each channel
  scored on its own by every tool): audeval, mir_eval 0.8.2,
  museval 0.4.1 (``bss_eval(..., bsseval_sources_version=True)``, one
  window), fast_bss_eval exact and conjugate-gradient (10 iterations);
* ``degenerate``: BSS Eval v4 with identical reference channels
  (mono sources duplicated to stereo), 2 sources x 8,000 samples
  at 8 kHz, 1 s windows: audeval ``bss_eval_v4`` vs ``museval.evaluate``;

The scale-invariant family and BSS Eval v4 on 4 stereo sources are
measured by ``benchmarks/run.py``; its ``separation_sources`` workload runs
``bss_eval_sources`` against these references with this script's data and worker
(``--separation-python``).

Times are CPU seconds (``time.process_time``) of each process; signals
are coloured noise with leakage, filtering and additive noise
(``tests/assets/separation/make_golden.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time


os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402


HERE = os.path.dirname(os.path.abspath(__file__))
RATE = 44100
KEYS = ("sdr", "sir", "sar")


# -------------------------------------------------------------------------
# Reference worker (runs in the reference venv; never imports audeval)
# -------------------------------------------------------------------------


def _ref_v3(tool: str, refs: np.ndarray, est: np.ndarray, permutation: bool):
    """(sdr, sir, sar, perm) of one utterance (sources, samples[, channels])."""
    channels = [(refs, est)] if refs.ndim == 2 else [
        (refs[..., c], est[..., c]) for c in range(refs.shape[2])
    ]
    if tool == "mir_eval":
        import mir_eval.separation as me

        out = [me.bss_eval_sources(r, e, compute_permutation=permutation) for r, e in channels]
    elif tool == "museval_sources":
        import museval.metrics as mm

        out = []
        for r, e in channels:
            sdr, _, sir, sar, perm = mm.bss_eval(
                r[..., None], e[..., None], window=np.inf, hop=np.inf,
                compute_permutation=permutation, bsseval_sources_version=True,
            )
            out.append((sdr[:, 0], sir[:, 0], sar[:, 0], perm[:, 0]))
    else:
        import fast_bss_eval

        cg = 10 if tool == "fast_cg" else None
        batch = np.stack([r for r, _ in channels]), np.stack([e for _, e in channels])
        res = fast_bss_eval.bss_eval_sources(
            batch[0], batch[1], use_cg_iter=cg, compute_permutation=permutation
        )
        if len(res) == 3:  # no permutation returned
            res = (*res, np.broadcast_to(np.arange(refs.shape[0]), (len(channels), refs.shape[0])))
        out = [tuple(np.asarray(x)[c] for x in res) for c in range(len(channels))]
    return [
        [np.stack([np.asarray(o[m], dtype=float) for o in out], axis=-1).tolist() for m in range(3)],
        [np.asarray(o[3]).tolist() for o in out],
    ]


def worker(path: str, tool: str, permutation: bool) -> None:
    data = np.load(path)
    n = len([k for k in data.files if k.startswith("refs")])
    # import the toolkit before timing
    if tool.startswith("museval"):
        import museval  # noqa: F401
        import museval.metrics  # noqa: F401
    elif tool == "mir_eval":
        import mir_eval.separation  # noqa: F401
    else:
        import fast_bss_eval  # noqa: F401
    start = time.process_time()
    results = []
    for i in range(n):
        refs, est = data[f"refs{i}"], data[f"est{i}"]
        if tool == "museval_v4":
            import museval

            res = museval.evaluate(refs, est, win=int(data["rate"]), hop=int(data["rate"]))
            results.append([np.asarray(x, dtype=float).tolist() for x in res])
        else:
            results.append(_ref_v3(tool, refs, est, permutation))
    cpu = time.process_time() - start
    json.dump({"cpu": cpu, "results": results}, sys.stdout)


# -------------------------------------------------------------------------
# Driver (audeval in this interpreter)
# -------------------------------------------------------------------------


def _generator():
    path = os.path.join(HERE, "..", "tests", "assets", "separation", "make_golden.py")
    spec = importlib.util.spec_from_file_location("make_golden", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _utterances(gen, n_utt, n_src, n_samples, channels):
    shape = (n_src, n_samples) if channels is None else (n_src, n_samples, channels)
    out = []
    for i in range(n_utt):
        refs = gen.coloured(3000 + i, shape, 0.9)
        out.append((refs, gen.mix(refs, 4000 + i, 0.3, 0.1)))
    return out


def _run_reference(python, tool, data, permutation, rate=0):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "data.npz")
        arrays = {f"refs{i}": r for i, (r, _) in enumerate(data)}
        arrays.update({f"est{i}": e for i, (_, e) in enumerate(data)})
        np.savez(path, rate=rate, **arrays)
        cmd = [python, os.path.abspath(__file__), "--worker", path, tool]
        if permutation:
            cmd.append("--permutation")
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=folder)
    if proc.returncode != 0:
        return None, proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"
    return json.loads(proc.stdout), None


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def compare_v3(ours: list, results: list, permutation: bool) -> tuple[dict, bool]:
    """Max abs difference (dB) per metric of a reference worker's results to audeval's, per
    utterance pair; and whether every permutation agrees."""
    diffs, perm_ok = dict.fromkeys(KEYS, 0.0), True
    for mine, (values, perms) in zip(ours, results):
        for m, key in enumerate(KEYS):
            theirs = np.asarray(values[m]).reshape(mine[key].shape)
            diffs[key] = max(diffs[key], float(np.abs(mine[key] - theirs).max()))
        if permutation:
            perm_ok &= all(list(p) == mine["estimate"].tolist() for p in perms)
    return diffs, perm_ok


def bench_v3(gen, python, name, data, permutation):
    import audeval.separation as sep

    start = time.process_time()
    ours = [sep.bss_eval_sources(r, e, permutation=permutation) for r, e in data]
    t_ours = time.process_time() - start
    n = len(data)
    print(f"\n{name}, permutation={permutation} ({n} x {data[0][0].shape})")
    print("| implementation | CPU total | per utterance | audeval speed-up | max abs diff to mir_eval (dB) |")
    print("|---|---:|---:|---:|---|")
    print(f"| audeval bss_eval_sources | {_fmt(t_ours)} | {_fmt(t_ours / n)} | 1.0x | see rows |")
    tools = [("mir_eval", "mir_eval 0.8.2 bss_eval_sources"),
             ("museval_sources", "museval 0.4.1 bss_eval (sources version)"),
             ("fast_exact", "fast_bss_eval 0.1.4 (exact)"),
             ("fast_cg", "fast_bss_eval 0.1.4 (CG, 10 iterations)")]
    for tool, label in tools:
        res, error = _run_reference(python, tool, data, permutation)
        if res is None:
            print(f"| {label} | failed: {error} | | | |")
            continue
        diffs, perm_ok = compare_v3(ours, res["results"], permutation)
        note = f"{max(diffs.values()):.1e}" + ("" if perm_ok else " (permutation differs)")
        if tool != "mir_eval":
            note += " (to audeval)"
        print(f"| {label} | {_fmt(res['cpu'])} | {_fmt(res['cpu'] / n)} | "
              f"{res['cpu'] / t_ours:.1f}x | {note} |")


def bench_degenerate(gen, python, repeat):
    import audeval.separation as sep

    mono = gen.coloured(5000, (2, 8000), 0.9)
    refs = np.stack([mono, mono], axis=-1)
    est = gen.mix(refs, 5001, 0.3, 0.1)
    est = np.stack([est[..., 0], est[..., 0]], axis=-1)  # equal channels as well
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        ours = sep.bss_eval_v4(refs, est, sampling_rate=8000, window=1.0)
        best = min(best, time.process_time() - start)
    res, error = _run_reference(python, "museval_v4", [(refs, est)], False, rate=8000)
    print("\nBSS Eval v4, identical reference channels, 2 sources x 8,000 samples stereo")
    if res is None:
        print(f"museval failed: {error}")
        return
    theirs = res["results"][0]
    diffs = {k: float(np.abs(ours[k] - np.asarray(v)).max())
             for k, v in zip(("sdr", "isr", "sir", "sar"), theirs)}
    print(f"audeval {_fmt(best)}, museval {_fmt(res['cpu'])}, speed-up {res['cpu'] / best:.1f}x; "
          "max |diff| dB " + ", ".join(f"{k.upper()} {v:.1e}" for k, v in diffs.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=2, metavar=("DATA", "TOOL"), help=argparse.SUPPRESS)
    parser.add_argument("--permutation", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ref-python", default=sys.executable,
                        help="python of the venv with mir_eval, museval, fast_bss_eval")
    parser.add_argument("--only", choices=("v3", "degenerate"), default=None)
    parser.add_argument("--utterances", type=int, default=50)
    parser.add_argument("--song-seconds", type=float, default=30.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], args.permutation)
        return
    gen = _generator()
    print(f"numpy {np.__version__}, OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, "
          f"references: {args.ref_python}; times are CPU seconds (time.process_time)")
    if args.only in (None, "v3"):
        speech = _utterances(gen, args.utterances, 2, 32000, None)
        bench_v3(gen, args.ref_python, "Speech: 2 sources x 4 s at 8 kHz", speech, False)
        bench_v3(gen, args.ref_python, "Speech: 2 sources x 4 s at 8 kHz", speech, True)
        song = _utterances(gen, 1, 4, int(args.song_seconds * RATE), 2)
        title = f"Music: 4 sources x {args.song_seconds:g} s at 44.1 kHz stereo"
        bench_v3(gen, args.ref_python, title, song, False)
    if args.only in (None, "degenerate"):
        bench_degenerate(gen, args.ref_python, args.repeat)


if __name__ == "__main__":
    main()
