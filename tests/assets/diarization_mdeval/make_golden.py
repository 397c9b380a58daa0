"""Golden DER components from NIST md-eval-22's rules, as ported to Python in NeMo.

md-eval-22.pl itself is on no package registry (dscore, which ships it, is not on PyPI;
the PyPI package ``dscore`` is an unrelated protein tool). ``nemo_toolkit`` 3.0.0 ships
``nemo/collections/asr/metrics/md_eval.py``, "mostly a Python port of the NIST md-eval
(version 22) Perl script" (its docstring): the speaker-diarization path of md-eval's
``evaluate`` / ``score_speaker_diarization`` with UEM, ``-c`` collars on each side of every
reference segment, ``-1`` (no overlap scored) and the speaker mapping found on the UEM
before collars and overlap are taken out. This script runs that file (numpy and scipy only;
``nemo.utils.logging`` is stubbed, nothing else of NeMo is imported).

Reproduce (the wheel is only unpacked, not installed)::

    python3 -m venv /tmp/mdeval && /tmp/mdeval/bin/pip install numpy scipy
    /tmp/mdeval/bin/pip download --no-deps nemo_toolkit==3.0.0 -d /tmp/mdeval/wheel
    /tmp/mdeval/bin/python tests/assets/diarization_mdeval/make_golden.py \\
        /tmp/mdeval/wheel/nemo_toolkit-3.0.0-py3-none-any.whl

It draws random conversations (times on a millisecond grid, RTTM with 3 decimals, exact),
writes ``ref.rttm``, ``sys.rttm`` and ``all.uem`` (1-3 scored intervals per file) and
md-eval's summed and per-file SCORED_SPEAKER, MISSED_SPEAKER, FALARM_SPEAKER and
SPEAKER_ERROR (seconds) for collars 0, 0.25 and 0.5 s with and without ``-1``
to ``golden.json``, all next to this script.
The reference turns of one speaker neither touch nor overlap (md-eval puts collars
around every reference segment as written; audeval around the merged turns, as spy-der).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import logging
import os
import sys
import tempfile
import types
import warnings
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = "nemo/collections/asr/metrics/md_eval.py"
CASES = [{"collar": c, "skip_overlap": s} for c in (0.0, 0.25, 0.5) for s in (False, True)]
KEYS = ("SCORED_SPEAKER", "MISSED_SPEAKER", "FALARM_SPEAKER", "SPEAKER_ERROR")


def load_md_eval(wheel: str):
    """md_eval.py from the wheel, with ``nemo.utils.logging`` stubbed."""
    nemo, utils = types.ModuleType("nemo"), types.ModuleType("nemo.utils")
    utils.logging = logging.getLogger("md_eval")
    nemo.utils = utils
    sys.modules.setdefault("nemo", nemo)
    sys.modules.setdefault("nemo.utils", utils)
    path = os.path.join(tempfile.mkdtemp(), "md_eval.py")
    with zipfile.ZipFile(wheel) as archive, open(path, "wb") as out:
        out.write(archive.read(MODULE))
    spec = importlib.util.spec_from_file_location("md_eval", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def conversation(rng, name: str):
    """Reference and system turns (speaker, start ms, end ms) and UEM intervals (ms)."""
    n_speakers = int(rng.integers(2, 5))
    turns, t = [], 0
    for _ in range(int(rng.integers(8, 25))):
        speaker = int(rng.integers(n_speakers))
        length = int(rng.integers(300, 4000))
        turns.append((speaker, t, t + length))
        t += length + int(rng.integers(-800, 1200))  # negative: the next turn overlaps
        t = max(t, 0)
    # one speaker's turns must not touch or overlap: merge them
    ref = []
    for speaker in range(n_speakers):
        own = sorted((s, e) for k, s, e in turns if k == speaker)
        merged = []
        for s, e in own:
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        ref += [(f"spk{speaker}", s, e) for s, e in merged]
    names = rng.permutation(6)
    sys_turns = []
    for speaker, s, e in turns:
        if rng.uniform() < 0.08:
            continue  # missed
        label = names[speaker] if rng.uniform() > 0.15 else int(rng.integers(6))
        s = max(0, s + int(rng.integers(-300, 300)))
        e = max(s + 50, e + int(rng.integers(-300, 300)))
        sys_turns.append((f"c{label}", s, e))
    for _ in range(int(rng.integers(0, 4))):  # false alarms
        s = int(rng.integers(0, t))
        sys_turns.append((f"c{int(rng.integers(6))}", s, s + int(rng.integers(100, 1500))))
    end = max(e for _, _, e in ref + sys_turns) + 500
    cuts = np.sort(rng.choice(np.arange(1, end // 100), size=2 * int(rng.integers(1, 4)), replace=False)) * 100
    uem = [(int(a), int(b)) for a, b in zip(cuts[::2], cuts[1::2])]
    if rng.uniform() < 0.3:
        uem = [(0, end)]
    return ref, sys_turns, uem


def write(name: str, rows, path) -> None:
    with open(path, "a") as out:
        for label, s, e in rows:
            out.write(f"SPEAKER {name} 1 {s / 1000:.3f} {(e - s) / 1000:.3f} <NA> <NA> {label} <NA> <NA>\n")


def main(wheel: str) -> None:
    md = load_md_eval(wheel)
    rng = np.random.default_rng(21)
    paths = {k: os.path.join(HERE, f) for k, f in (("ref", "ref.rttm"), ("sys", "sys.rttm"), ("uem", "all.uem"))}
    for path in paths.values():
        open(path, "w").close()
    for k in range(12):
        name = f"conv{k:02d}"
        ref, sys_turns, uem = conversation(rng, name)
        write(name, ref, paths["ref"])
        write(name, sys_turns, paths["sys"])
        with open(paths["uem"], "a") as out:
            out.writelines(f"{name} 1 {a / 1000:.3f} {b / 1000:.3f}\n" for a, b in uem)
    ref, sys_data = {}, {}
    md.get_rttm_data(ref, paths["ref"])
    md.get_rttm_data(sys_data, paths["sys"])
    uem = md.get_uem_data(paths["uem"])
    golden = []
    warnings.simplefilter("ignore")  # "Speaker c3 speaking more than once": system turns overlap
    for case in CASES:
        scores, total = md.evaluate(
            copy.deepcopy(ref), copy.deepcopy(sys_data), uem,
            collar=case["collar"], opt_1=case["skip_overlap"], verbose=False,
        )
        per_file = {f: {k: scores[f]["1"][k] for k in KEYS} for f in sorted(scores)}
        golden.append({**case, "total": {k: total[k] for k in KEYS}, "files": per_file})
    with open(os.path.join(HERE, "golden.json"), "w") as out:
        json.dump({"source": "nemo_toolkit 3.0.0 " + MODULE, "cases": golden}, out, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
