"""Diarization and detection: audeval against pyannote.metrics and audmetric.

Run in an environment that has audeval's dependencies plus the reference toolkits
(here the reference venv, which has pyannote.metrics 4.2 and audmetric 1.4.2)::

    OPENBLAS_NUM_THREADS=1 /opt/refenv/bin/python benchmarks/bench_diarization.py \
        [--quick] [--workload long|files|both]

Workloads (SPEC section 9):

* one long file with 10k truth segments (4 speakers, ~7 h)
  and a prediction of about the same size;
* 1000 files of ~2 min with 2-5 speakers (~24 truth segments each).

Truth is a conversation: turns of random speakers (each >= 0.6 s)
that overlap the previous turn by up to 0.3 s, so a speaker never overlaps itself.
The prediction jitters every boundary by up to 0.25 s,
relabels speakers by a random permutation with 10 % of turns confused,
drops 5 % and adds 5 % short false alarms; its labels are merged per speaker.

Timed:

* audeval: ``diarization_error_rate`` (optimal mapping per file),
  ``diarization_report`` (DER, components and JER per file),
  ``detection_error_rate``, all from the Series, with ``files_duration``;
* pyannote.metrics: ``DiarizationErrorRate`` and ``DetectionErrorRate`` over all files,
  with a UEM of [0, duration]; the conversion of the Series to ``Annotation``
  objects is *not* timed (in favour of pyannote.metrics);
* audmetric: ``diarization_error_rate`` (greedy, global mapping, its defaults)
  on the same Series, compared with audeval's
  ``mapping="greedy", individual_file_mapping=False``.

Timings are CPU seconds of this one process (single-threaded work):
the shortest of 7 runs for audeval, one run for the references.
audmetric needs hours on the full workloads: it runs on a share of the data
(10 % of the long file's time line, 2 % of the files)
and its time is scaled up linearly, an underestimate
since its cost grows faster than linearly; the values shown
for that row are both computed on that share.
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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import audeval  # noqa: E402


def conversation(rng, n_turns: int, n_speakers: int):
    """Start, end (s) and speaker of overlapping turns; no speaker overlaps itself."""
    length = np.maximum(rng.exponential(2.5, n_turns), 0.6).round(3)
    overlap = rng.uniform(0, 0.3, n_turns).round(3) * (rng.uniform(size=n_turns) < 0.3)
    gap = rng.exponential(0.5, n_turns).round(3) * (rng.uniform(size=n_turns) < 0.5)
    step = np.where(overlap > 0, -overlap, gap)
    start = np.zeros(n_turns)
    end = np.zeros(n_turns)
    position = 0.0
    for k in range(n_turns):  # data generation only, not timed
        start[k] = max(position, 0.0)
        end[k] = start[k] + length[k]
        position = end[k] + step[k]
    shift = rng.integers(1, n_speakers, n_turns) if n_speakers > 1 else np.zeros(n_turns, int)
    speaker = np.cumsum(shift) % n_speakers  # never the same speaker twice in a row
    return start.round(3), end.round(3), speaker


def union_per_label(file, start, end, label):
    """Merge the intervals of each (file, label) (data generation only)."""
    frame = pd.DataFrame({"file": file, "start": start, "end": end, "label": label})
    frame = frame[frame["end"] > frame["start"]].sort_values(["file", "label", "start"])
    reach = frame.groupby(["file", "label"])["end"].cummax()
    previous = reach.groupby([frame["file"], frame["label"]]).shift()
    new = ~(frame["start"] <= previous)
    run = new.cumsum()
    merged = frame.groupby(run).agg(
        file=("file", "first"), start=("start", "first"), end=("end", "max"), label=("label", "first")
    )
    return merged


def make_data(n_files: int, turns_per_file: int, *, seed: int = 0):
    rng = np.random.default_rng(seed)
    truth_rows, pred_rows, durations = [], [], {}
    for f in range(n_files):
        file = f"file{f:05d}.wav"
        n_speakers = int(rng.integers(2, 6)) if n_files > 1 else 4
        start, end, speaker = conversation(rng, turns_per_file, n_speakers)
        duration = float(end.max()) + 1.0
        durations[file] = duration
        truth_rows.append(
            pd.DataFrame({"file": file, "start": start, "end": end, "label": np.char.add("spk", speaker.astype(str))})
        )
        keep = rng.uniform(size=len(start)) > 0.05
        p_start = np.maximum(start + rng.uniform(-0.25, 0.25, len(start)), 0).round(3)[keep]
        p_end = (end + rng.uniform(-0.25, 0.25, len(end))).round(3)[keep]
        permutation = rng.permutation(n_speakers)
        p_speaker = permutation[speaker][keep]
        confused = rng.uniform(size=len(p_speaker)) < 0.1
        p_speaker[confused] = rng.integers(0, n_speakers, int(confused.sum()))
        n_extra = max(1, len(start) // 20)
        extra = rng.uniform(0, duration - 1, n_extra).round(3)
        pred_rows.append(
            pd.DataFrame(
                {
                    "file": file,
                    "start": np.concatenate([p_start, extra]),
                    "end": np.concatenate([p_end, extra + rng.uniform(0.2, 1.0, n_extra).round(3)]),
                    "label": np.char.add("s", np.concatenate([p_speaker, rng.integers(0, n_speakers, n_extra)]).astype(str)),
                }
            )
        )
    truth = pd.concat(truth_rows, ignore_index=True)
    prediction = union_per_label(*(pd.concat(pred_rows, ignore_index=True)[c] for c in ("file", "start", "end", "label")))

    def series(frame):
        index = pd.MultiIndex.from_arrays(
            [
                frame["file"].to_numpy(),
                pd.to_timedelta(frame["start"].to_numpy(), unit="s"),
                pd.to_timedelta(frame["end"].to_numpy(), unit="s"),
            ],
            names=["file", "start", "end"],
        )
        return pd.Series(frame["label"].to_numpy(), index=index)

    return series(truth), series(prediction), durations


def timed(function, repeat: int) -> tuple[float, object]:
    """Shortest CPU time of ``repeat`` runs (one run if it takes over a minute).

    CPU time of this process (``time.process_time``), not wall-clock time:
    everything here is single-threaded, and CPU time does not count
    the time other processes on a busy machine take from this one.
    """
    times, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = function()
        times.append(time.process_time() - start)
        if times[-1] > 60:
            break
    return min(times), result


def to_annotations(truth, prediction, durations):
    from pyannote.core import Annotation, Segment, Timeline

    out = {}
    for name, series in (("truth", truth), ("prediction", prediction)):
        files = series.index.get_level_values("file").to_numpy()
        starts = series.index.get_level_values("start").total_seconds().to_numpy()
        ends = series.index.get_level_values("end").total_seconds().to_numpy()
        for k, (file, start, end, label) in enumerate(zip(files, starts, ends, series.to_numpy())):
            pair = out.setdefault(file, {"truth": Annotation(uri=file), "prediction": Annotation(uri=file)})
            pair[name][Segment(start, end), k] = label
    for file, duration in durations.items():
        pair = out.setdefault(file, {"truth": Annotation(uri=file), "prediction": Annotation(uri=file)})
        pair["uem"] = Timeline([Segment(0.0, duration)], uri=file)
    return out


def run_pyannote(annotations, metric_class):
    metric = metric_class()
    for pair in annotations.values():
        metric(pair["truth"], pair["prediction"], uem=pair["uem"])
    return abs(metric)


def subset(series, files=None, until=None):
    """Rows of some files, or rows that end before a time (for the slow references)."""
    keep = np.ones(len(series), dtype=bool)
    if files is not None:
        keep &= series.index.get_level_values("file").isin(files)
    if until is not None:
        keep &= series.index.get_level_values("end") <= pd.Timedelta(seconds=until)
    return series[keep]


def workload(name, n_files, turns, repeat, audmetric_share):
    truth, prediction, durations = make_data(n_files, turns)
    files_duration = pd.Series(durations)
    print(f"\n## {name}: {n_files} file(s), {len(truth)} truth and {len(prediction)} predicted segments")
    options = dict(files_duration=files_duration)

    t_der, der = timed(lambda: audeval.diarization_error_rate(truth, prediction, **options), repeat)
    t_report, _ = timed(lambda: audeval.diarization_report(truth, prediction, **options), repeat)
    t_det, det = timed(lambda: audeval.detection_error_rate(truth, prediction, **options), repeat)
    t_stats, _ = timed(lambda: audeval.diarization_statistics(truth, prediction, **options), repeat)

    from pyannote.metrics.detection import DetectionErrorRate
    from pyannote.metrics.diarization import DiarizationErrorRate

    annotations = to_annotations(truth, prediction, durations)
    t_py_der, py_der = timed(lambda: run_pyannote(annotations, DiarizationErrorRate), 1)
    t_py_det, py_det = timed(lambda: run_pyannote(annotations, DetectionErrorRate), 1)

    # audmetric is far slower (super-linear in segments per file and in files):
    # it runs on a share of the data and its time is scaled up linearly,
    # which underestimates it (the speed-up shown is a lower bound)
    if n_files > 1:
        files = sorted(durations)[: max(1, int(n_files * audmetric_share))]
        t_sub, p_sub = subset(truth, files=files), subset(prediction, files=files)
    else:
        until = float(truth.index.get_level_values("end").total_seconds().max()) * audmetric_share
        t_sub, p_sub = subset(truth, until=until), subset(prediction, until=until)
    share = len(t_sub) / len(truth)

    import audmetric

    t_am, am = timed(lambda: audmetric.diarization_error_rate(t_sub, p_sub), 1)

    def audeval_greedy(t, p):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no files_duration, as audmetric
            return audeval.diarization_error_rate(t, p, mapping="greedy", individual_file_mapping=False)

    t_greedy, greedy = timed(lambda: audeval_greedy(truth, prediction), repeat)
    greedy_sub = audeval_greedy(t_sub, p_sub)

    rows = [
        ("diarization_error_rate (optimal, per file)", t_der, "pyannote DiarizationErrorRate", t_py_der, der, py_der),
        ("diarization_report (components + JER per file)", t_report, "pyannote DiarizationErrorRate", t_py_der, None, None),
        ("diarization_statistics", t_stats, "pyannote DiarizationErrorRate", t_py_der, None, None),
        ("detection_error_rate", t_det, "pyannote DetectionErrorRate", t_py_det, det, py_det),
        (
            "diarization_error_rate (greedy, global)",
            t_greedy,
            f"audmetric diarization_error_rate (x{1 / share:.1f} of a {share:.0%} share)",
            t_am / share,
            greedy_sub,
            am,
        ),
    ]
    print("| audeval | CPU s | reference | CPU s | speed-up | audeval value | reference value |")
    print("|---|---|---|---|---|---|---|")
    for ours, t_ours, ref, t_ref, v_ours, v_ref in rows:
        values = f"{v_ours:.12f} | {v_ref:.12f}" if v_ours is not None else " | "
        print(f"| {ours} | {t_ours:.4f} | {ref} | {t_ref:.2f} | {t_ref / t_ours:.0f}x | {values} |")
    print("(audmetric values are on its share of the data, audeval's too)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller workloads")
    parser.add_argument(
        "--workload", choices=["long", "files", "both"], default="both",
        help="which workload (pyannote.metrics needs minutes on the long file)",
    )
    args = parser.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}")
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, {platform.processor() or platform.machine()}")
    turns, files = (1000, 100) if args.quick else (10_000, 1000)
    if args.workload in ("long", "both"):
        workload("one long file", 1, turns, 7, 0.2 if args.quick else 0.1)
    if args.workload in ("files", "both"):
        workload("many files", files, 24, 7, 0.1 if args.quick else 0.02)


if __name__ == "__main__":
    main()
