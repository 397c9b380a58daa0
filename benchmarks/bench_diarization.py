"""Diarization: audeval against pyannote.metrics, spy-der and simpleder (SPEC sections 6, 9).

Run in a venv with audeval's dependencies and the reference toolkits::

    python3 -m venv /work/venvs/h6
    /work/venvs/h6/bin/pip install "pyannote.metrics==4.2" spy-der==0.4.1 simpleder==0.0.8 \\
        audformat audeer audiofile
    /work/venvs/h6/bin/pip download --no-deps nemo_toolkit==3.0.0 -d /tmp/nemo  # md-eval rules
    OPENBLAS_NUM_THREADS=1 /work/venvs/h6/bin/python benchmarks/bench_diarization.py \\
        [--files 1000] [--share 0.1] [--repeat 5] \\
        [--nemo-wheel /tmp/nemo/nemo_toolkit-3.0.0-py3-none-any.whl]

md-eval-22.pl is on no package registry; ``--nemo-wheel`` times NeMo's Python port of it
(``nemo/collections/asr/metrics/md_eval.py``, loaded from the wheel without installing NeMo).

Data (``benchmarks/_data.conversations``): ``--files`` conversations of 4 speakers
with 86 turns each (about 5 min a file; 86k truth turns for 1000 files):
turns of at least 0.6 s, 30 % overlapping the previous one by up to 0.3 s,
no speaker overlapping itself; the prediction jitters every boundary by up to 0.25 s,
renames speakers to int clusters, gives 10 % of turns to a wrong speaker,
drops 5 % and adds 5 % short false alarms, merged per cluster.
``files_duration``: last end plus 1 s; the references get the same UEM ``[0, duration]``.

Timed: CPU seconds of this process (``time.process_time``), the median of ``--repeat`` runs
(5) for every tool, fewer for a tool once its runs have taken a minute in all (the column
``runs``); audeval from the Series (validation included), the references from their own
objects, whose conversion is *not* timed (in their favour).
spy-der is called the fastest way it offers: per file its C++ ``compute_der`` on
``TurnList`` objects built beforehand (untimed; fresh ones for every run, as
``compute_der`` changes them), summed as ``spyder.DER`` sums files
(``spyder.DER`` on dicts of tuples costs about 0.1 s more: its conversion).
pyannote.metrics' cluster and segmentation metrics run on a share (``--share``)
of the files and their time is scaled up linearly (their cost is linear in files);
the values compared for those rows are on that share, audeval's too.
dscore's metrics are audeval's only (dscore is not pip-installable).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import _data  # noqa: E402

import audeval  # noqa: E402
from audeval import _diarization as dia  # noqa: E402


def make_data(n_files: int):
    truth, prediction, durations = _data.conversations(n_files, turns=86, speakers=(4, 4))
    prediction = pd.Series(prediction.str[1:].astype(np.int64).to_numpy(), index=prediction.index)
    return truth, prediction, durations


def timed(prepare, repeat: int) -> tuple[float, object, int]:
    """Median CPU seconds of ``prepare()()`` (``prepare`` untimed), its value, the runs."""
    times, result = [], None
    for _ in range(repeat):
        function = prepare()
        start = time.process_time()
        result = function()
        times.append(time.process_time() - start)
        if sum(times) > 60:
            break
    return float(np.median(times)), result, len(times)


def plain(function):
    """``function`` as :func:`timed` takes it (nothing to prepare)."""
    return lambda: function


def per_file(series: pd.Series) -> dict:
    """file -> list of (label, start s, end s)."""
    files = series.index.get_level_values("file").to_numpy()
    starts = series.index.get_level_values("start").total_seconds().to_numpy()
    ends = series.index.get_level_values("end").total_seconds().to_numpy()
    out: dict = {}
    for file, start, end, label in zip(files, starts, ends, series.to_numpy()):
        out.setdefault(file, []).append((str(label), float(start), float(end)))
    return out


def annotations(truth, prediction, durations, files):
    from pyannote.core import Annotation, Segment, Timeline

    out = {}
    sides = (per_file(truth), per_file(prediction))
    for file in files:
        pair = []
        for side in sides:
            annotation = Annotation(uri=file)
            for k, (label, start, end) in enumerate(side.get(file, [])):
                annotation[Segment(start, end), k] = label
            pair.append(annotation)
        uem = Timeline([Segment(0.0, durations[file].total_seconds())], uri=file)
        out[file] = (pair[0], pair[1], uem)
    return out


def pyannote_metric(metric, data, use_uem=True):
    for reference, hypothesis, uem in data.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if use_uem:
                metric(reference, hypothesis, uem=uem)
            else:
                metric(reference, hypothesis)
    return abs(metric)


def spyder_prepare(truth_turns, prediction_turns, uem, **options):
    """spy-der's fastest use: ``TurnList`` objects built here (untimed), then a function
    that runs its C++ ``compute_der`` per file and sums as ``spyder.DER`` does.
    The function runs once (``compute_der`` changes its turn lists)."""
    from spyder import Turn, TurnList, compute_der

    lists = [
        (
            TurnList([Turn(*turn) for turn in truth_turns[f]]),
            TurnList([Turn(*turn) for turn in prediction_turns.get(f, [])]),
            TurnList([Turn("dummy", start, end) for start, end in uem[f]]),
        )
        for f in truth_turns
    ]

    def run():
        duration = error = 0.0
        for ref, hyp, scored in lists:
            metrics = compute_der(ref, hyp, scored, **options)
            duration += metrics.duration
            error += metrics.duration * (metrics.miss + metrics.falarm + metrics.conf)
        return error / duration

    return run


def spyder_der(truth_turns, prediction_turns, uem, **options):
    """spy-der's DER over files (see :func:`spyder_prepare`)."""
    return spyder_prepare(truth_turns, prediction_turns, uem, **options)()


def mdeval_prepare(wheel, truth_turns, prediction_turns, uem, collar=0.0):
    """md-eval-22's rules as NeMo ports them (``nemo/collections/asr/metrics/md_eval.py``
    from the ``nemo_toolkit`` wheel ``wheel``, see tests/assets/diarization_mdeval):
    RTTM and UEM files written and parsed here (untimed), then a function running its
    ``evaluate`` over all files (mapping per file, DER summed over files)."""
    import copy
    import tempfile

    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "assets", "diarization_mdeval"))
    from make_golden import load_md_eval

    md = load_md_eval(wheel)
    folder = tempfile.mkdtemp()
    paths = [os.path.join(folder, name) for name in ("ref.rttm", "sys.rttm", "all.uem")]
    for path, turns in zip(paths, (truth_turns, prediction_turns)):
        with open(path, "w") as out:
            for file, rows in turns.items():
                name = os.path.splitext(file)[0]
                out.writelines(
                    f"SPEAKER {name} 1 {s:.9f} {e - s:.9f} <NA> <NA> {label} <NA> <NA>\n"
                    for label, s, e in rows
                )
    with open(paths[2], "w") as out:
        for file, intervals in uem.items():
            out.writelines(f"{os.path.splitext(file)[0]} 1 {s:.9f} {e:.9f}\n" for s, e in intervals)
    ref, hyp = {}, {}
    md.get_rttm_data(ref, paths[0])
    md.get_rttm_data(hyp, paths[1])
    scored = md.get_uem_data(paths[2])
    ref, hyp = copy.deepcopy(ref), copy.deepcopy(hyp)

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, total = md.evaluate(ref, hyp, scored, collar=collar, verbose=False)
        errors = total["MISSED_SPEAKER"] + total["FALARM_SPEAKER"] + total["SPEAKER_ERROR"]
        return errors / total["SCORED_SPEAKER"]

    return run


def simpleder_der(truth_turns, prediction_turns):
    import simpleder

    error = total = 0.0
    for file, ref in truth_turns.items():
        detail = simpleder.DER(ref, prediction_turns.get(file, []), detailed=True)
        error += detail["miss"] + detail["false_alarm"] + detail["confusion"]
        total += detail["ref_length"]
    return error / total


def row(name, t_ours, reference, t_ref, v_ours, v_ref, runs=None):
    speed = f"{t_ref / t_ours:,.1f}x" if t_ref else ""
    agree = f"{abs(v_ours - v_ref):.1e}" if v_ref is not None else ""
    t_ref = f"{t_ref:.3f}" if t_ref else ""
    runs = "" if runs is None else "/".join(str(r) for r in runs)
    print(f"| {name} | {t_ours:.4f} | {reference} | {t_ref} | {speed} | {agree} | {runs} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--share", type=float, default=0.1, help="share of files for slow references")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--nemo-wheel", help="nemo_toolkit wheel: md-eval-22's rules as NeMo ports them")
    args = parser.parse_args()
    truth, prediction, durations = make_data(args.files)
    print(f"python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}")
    print(f"{args.files} files, {len(truth)} truth turns, {len(prediction)} predicted turns, "
          f"{durations.dt.total_seconds().sum() / 3600:.1f} h\n")
    options = {"files_duration": durations}
    files = sorted(durations.index)
    share_files = files[: max(1, int(len(files) * args.share))]
    in_share = truth.index.get_level_values("file").isin(share_files)
    p_share = prediction.index.get_level_values("file").isin(share_files)
    t_sub, p_sub = truth[in_share], prediction[p_share]
    share_durations = durations[share_files]
    scale = len(files) / len(share_files)

    truth_turns, prediction_turns = per_file(truth), per_file(prediction)
    uem = {f: [(0.0, d.total_seconds())] for f, d in durations.items()}

    from pyannote.metrics import diarization as pd_dia
    from pyannote.metrics import segmentation as pd_seg

    print("| audeval | CPU s | reference | CPU s | speed-up | difference | runs |")
    print("|---|---|---|---|---|---|---|")
    n = args.repeat
    t_der, der, r_der = timed(plain(lambda: audeval.diarization_error_rate(truth, prediction, **options)), n)
    t_sp, sp, r_sp = timed(lambda: spyder_prepare(truth_turns, prediction_turns, uem), n)
    row("diarization_error_rate", t_der, "spy-der compute_der", t_sp, der, sp, (r_der, r_sp))
    if args.nemo_wheel:
        t_md, md, r_md = timed(lambda: mdeval_prepare(args.nemo_wheel, truth_turns, prediction_turns, uem), n)
        row("diarization_error_rate", t_der, "md-eval-22 rules (NeMo 3.0.0 port)", t_md, der, md, (r_der, r_md))
    for label, opts, spy in (
        ("DER, collar 0.25 s per side, single-speaker regions",
         dict(collar=0.25, collar_convention="per_side", regions="single"),
         dict(collar=0.25, regions="single")),
        ("DER, overlap regions", dict(regions="overlap"), dict(regions="overlap")),
    ):
        t, value, r = timed(
            plain(lambda: audeval.diarization_error_rate(truth, prediction, **opts, **options)), n
        )
        t_sp, sp, r_sp = timed(lambda: spyder_prepare(truth_turns, prediction_turns, uem, **spy), n)
        row(label, t, f"spy-der compute_der {spy}", t_sp, value, sp, (r, r_sp))
    # pyannote.metrics' objects (millions of Python objects) are built only now:
    # while they live, every tool in this process runs about a third slower
    everything = annotations(truth, prediction, durations, files)
    share = {f: everything[f] for f in share_files}
    t_py, py, r_py = timed(plain(lambda: pyannote_metric(pd_dia.DiarizationErrorRate(), everything)), n)
    row("diarization_error_rate", t_der, "pyannote.metrics DiarizationErrorRate", t_py, der, py, (r_der, r_py))
    t_si, si, r_si = timed(plain(lambda: simpleder_der(truth_turns, prediction_turns)), n)
    row("diarization_error_rate (files_duration = extent)", t_der, "simpleder DER (per file, summed)", t_si,
        der, si, (r_der, r_si))
    t, report, _ = timed(plain(lambda: audeval.diarization_report(truth, prediction, **options)), n)
    row("diarization_report (DER, components, JER, purity, coverage, homogeneity, completeness per file)",
        t, "", 0, 0, None)
    t, _, _ = timed(plain(lambda: dia.diarization_cluster_report(truth, prediction, **options)), n)
    row("diarization_cluster_report (dscore: B-cubed, GKT, H, MI, NMI; exact)", t, "", 0, 0, None)
    t, _, _ = timed(
        plain(lambda: dia.diarization_cluster_report(truth, prediction, frame_size=0.01, **options)), n
    )
    row("diarization_cluster_report (dscore's 10 ms frames)", t, "", 0, 0, None)

    for name, ours, theirs in (
        ("purity", lambda t_, p_, d_: dia.diarization_purity_coverage(t_, p_, files_duration=d_)[0],
         lambda: pyannote_metric(pd_dia.DiarizationPurity(), share, use_uem=False)),
        ("coverage", lambda t_, p_, d_: dia.diarization_purity_coverage(t_, p_, files_duration=d_)[1],
         lambda: pyannote_metric(pd_dia.DiarizationCoverage(), share, use_uem=False)),
        ("homogeneity", lambda t_, p_, d_: dia.diarization_homogeneity_completeness(t_, p_, files_duration=d_)[0],
         lambda: pyannote_metric(pd_dia.DiarizationHomogeneity(), share)),
        ("completeness", lambda t_, p_, d_: dia.diarization_homogeneity_completeness(t_, p_, files_duration=d_)[1],
         lambda: pyannote_metric(pd_dia.DiarizationCompleteness(), share)),
        ("speaker_change precision (tolerance 0.5 s)",
         lambda t_, p_, d_: dia.speaker_change_precision_recall(t_, p_, tolerance=0.5)[0],
         lambda: pyannote_metric(pd_seg.SegmentationPrecision(tolerance=0.5), share, use_uem=False)),
        ("speaker_change purity (gaps 0.5 s)",
         lambda t_, p_, d_: dia.speaker_change_purity_coverage(t_, p_)[0],
         lambda: pyannote_metric(pd_seg.SegmentationPurity(tolerance=0.5), share, use_uem=False)),
    ):
        t, _, _ = timed(plain(lambda: ours(truth, prediction, durations)), n)
        value = ours(t_sub, p_sub, share_durations)
        t_ref, ref, _ = timed(plain(theirs), 1)
        row(name, t, f"pyannote.metrics (x{scale:.0f} of {len(share_files)} files)", t_ref * scale, value, ref)


if __name__ == "__main__":
    main()
