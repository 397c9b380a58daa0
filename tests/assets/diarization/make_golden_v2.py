"""Golden values for UEM, collar conventions, regions, compat and cluster metrics.

Run by hand (not in CI) in a venv with the reference toolkits::

    python3 -m venv /work/venvs/h6
    /work/venvs/h6/bin/pip install "pyannote.metrics==4.2" spy-der==0.4.1 pandas numpy
    /work/venvs/h6/bin/python tests/assets/diarization/make_golden_v2.py

It draws random conversations (times on a millisecond grid, inside the file),
truth speakers named ``spk<k>`` (str) and predicted clusters numbered (int),
one to three UEM intervals per file, and a scenario ``selfoverlap``
whose truth and prediction rows of one speaker overlap each other.
It writes ``segments_v2.csv``, ``durations_v2.csv``, ``uem_v2.csv`` and
``golden_v2.json`` next to this script with the values of

* pyannote.metrics 4.2: ``DiarizationErrorRate``, ``IdentificationErrorRate``,
  ``IdentificationPrecision``/``Recall``, ``DiarizationHomogeneity``/``Completeness``
  (collar 0 / 0.5 total width, skip_overlap, UEM [0, duration] or several intervals),
  ``DiarizationPurity``/``Coverage`` (which score the whole annotations),
  ``SegmentationPrecision``/``Recall`` and ``SegmentationPurity``/``Coverage``;
  on ``selfoverlap`` the raw rows (pyannote counts a self-overlap twice);
* spy-der 0.4.1 (``spyder.DER``): DER and its components per file and overall
  on ``regions`` all/single/overlap/nonoverlap, collar 0 / 0.25 s per side,
  with the UEM (its mapping is found before the collar is applied).

* dscore's clustering metrics (B-cubed, Goodman-Kruskal tau, conditional entropies,
  MI, NMI in bits), reimplemented here from its published rules, because dscore
  is not pip-installable (PyPI's ``dscore`` is another project):
  frame ``i`` at ``0.01 * i`` s (float64) belongs to a turn ``[onset, offset)``,
  frames outside the UEM are dropped, every frame is labelled by the set of active
  speakers (silence included) and the overall contingency matrix is block-diagonal
  over files (``"frames"``); the same on an exact integer millisecond raster
  (``"exact"``: the continuous-time values, as times are on a millisecond grid).
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pandas as pd


HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = {
    # name: (seed, files, max truth speakers, max clusters, self-overlap)
    "conv": (11, 5, 4, 5, False),
    "small": (12, 6, 2, 3, False),
    "crowded": (13, 4, 6, 6, False),
    "selfoverlap": (14, 4, 3, 3, True),
}
PYANNOTE_CASES = [
    {"collar": collar, "skip_overlap": skip, "uem": uem}
    for uem in ("duration", "multi")
    for collar in (0.0, 0.5)
    for skip in (False, True)
]
SPYDER_CASES = [
    {"collar": collar, "regions": regions, "uem": uem}
    for uem in ("duration", "multi")
    for collar in (0.0, 0.25)
    for regions in ("all", "single", "overlap", "nonoverlap")
]
TOLERANCES = (0.0, 0.5, 1.0)


def union(intervals):
    out = []
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out


def conversation(rng, duration, n_speakers, self_overlap):
    """Turns of random speakers; other speakers overlap; a speaker itself only if asked."""
    turns = []
    position = int(rng.integers(0, 2000))
    previous = None
    while position < duration - 500:
        length = int(rng.integers(400, 6000))
        speaker = int(rng.integers(0, n_speakers))
        if speaker == previous and not self_overlap and n_speakers > 1:
            speaker = (speaker + 1) % n_speakers
        end = min(position + length, duration)
        turns.append([position, end, speaker])
        previous = speaker
        step = int(rng.integers(-1500, 2500))
        position = max(end + step, position + 1)
    if not self_overlap:  # merge a speaker's touching or overlapping turns
        merged = []
        for k in range(n_speakers):
            merged += [[s, e, k] for s, e in union([[s, e] for s, e, j in turns if j == k])]
        turns = merged
    return turns


def make_file(rng, max_truth, max_pred, self_overlap):
    duration = int(rng.integers(20_000, 60_000))
    n_truth = int(rng.integers(1, max_truth + 1))
    truth = conversation(rng, duration, n_truth, self_overlap)
    n_pred = int(rng.integers(1, max_pred + 1))
    cluster = rng.permutation(max(n_truth, n_pred))[:n_truth] % n_pred
    prediction = []
    for start, end, speaker in truth:
        if rng.random() < 0.1:
            continue
        jitter = rng.integers(-600, 601, size=2)
        start = min(max(0, start + int(jitter[0])), duration)
        end = min(max(start, end + int(jitter[1])), duration)
        label = int(cluster[speaker]) if rng.random() > 0.1 else int(rng.integers(0, n_pred))
        prediction.append([start, end, label])
    for _ in range(int(rng.integers(0, 3))):
        start = int(rng.integers(0, duration - 100))
        prediction.append([start, min(duration, start + int(rng.integers(100, 3000))), 0])
    if not self_overlap:
        merged = []
        for k in range(n_pred):
            merged += [[s, e, k] for s, e in union([[s, e] for s, e, j in prediction if j == k])]
        prediction = merged
    identification = []
    for start, end, speaker in truth:
        if rng.random() < 0.1:
            continue
        label = f"spk{speaker}" if rng.random() < 0.8 else f"spk{int(rng.integers(0, n_truth + 1))}"
        jitter = rng.integers(-400, 401, size=2)
        start = min(max(0, start + int(jitter[0])), duration)
        end = min(max(start, end + int(jitter[1])), duration)
        identification.append([start, end, label])
    if not self_overlap:
        merged = []
        for label in sorted({x[2] for x in identification}):
            merged += [[s, e, label] for s, e in union([[s, e] for s, e, j in identification if j == label])]
        identification = merged
    points = np.sort(rng.choice(np.arange(0, duration + 1, 10), size=2 * int(rng.integers(1, 4)), replace=False))
    uem = [[int(a), int(b)] for a, b in zip(points[::2], points[1::2])]
    truth = [[s, e, f"spk{k}"] for s, e, k in truth]
    return duration, {"truth": truth, "prediction": prediction, "identification": identification}, uem


def make_data():
    rows, durations, uems = [], [], []
    for name, (seed, n_files, max_truth, max_pred, self_overlap) in SCENARIOS.items():
        rng = np.random.default_rng(seed)
        for k in range(n_files):
            file = f"{name}/f{k}.wav"
            duration, sides, uem = make_file(rng, max_truth, max_pred, self_overlap)
            if k == n_files - 1 and name == "small":
                sides["prediction"] = []
                sides["identification"] = []
            durations.append({"scenario": name, "file": file, "duration_ms": duration})
            uems += [{"scenario": name, "file": file, "start_ms": a, "end_ms": b} for a, b in uem]
            for side, turns in sides.items():
                for start, end, label in turns:
                    if end > start:
                        rows.append(
                            {"scenario": name, "side": side, "file": file,
                             "start_ms": start, "end_ms": end, "label": label}
                        )
    return pd.DataFrame(rows), pd.DataFrame(durations), pd.DataFrame(uems)


def annotations(segments, durations, uems):
    from pyannote.core import Annotation, Segment, Timeline

    out = {}
    for file in durations["file"]:
        per_side = {}
        for side in ("truth", "prediction", "identification"):
            annotation = Annotation(uri=file)
            part = segments[(segments["file"] == file) & (segments["side"] == side)]
            for k, row in enumerate(part.itertuples()):
                annotation[Segment(row.start_ms / 1000, row.end_ms / 1000), k] = row.label
            per_side[side] = annotation
        duration = float(durations.loc[durations["file"] == file, "duration_ms"].iloc[0]) / 1000
        per_side["duration"] = Timeline([Segment(0.0, duration)], uri=file)
        part = uems[uems["file"] == file]
        per_side["multi"] = Timeline(
            [Segment(a / 1000, b / 1000) for a, b in zip(part["start_ms"], part["end_ms"])], uri=file
        )
        out[file] = per_side
    return out


def accumulate(metric, data, side, uem):
    for sides in data.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if uem is None:
                metric(sides["truth"], sides[side])
            else:
                metric(sides["truth"], sides[side], uem=sides[uem])
    return metric


def pyannote_values(data):
    from pyannote.metrics.diarization import (
        DiarizationCompleteness,
        DiarizationCoverage,
        DiarizationErrorRate,
        DiarizationHomogeneity,
        DiarizationPurity,
        JaccardErrorRate,
    )
    from pyannote.metrics.identification import (
        IdentificationErrorRate,
        IdentificationPrecision,
        IdentificationRecall,
    )

    cases = []
    for case in PYANNOTE_CASES:
        result = dict(case)
        options = {"collar": case["collar"], "skip_overlap": case["skip_overlap"]}
        for name, cls, side in (
            ("der", DiarizationErrorRate, "prediction"),
            ("jer", JaccardErrorRate, "prediction"),
            ("ier", IdentificationErrorRate, "identification"),
            ("identification_precision", IdentificationPrecision, "identification"),
            ("identification_recall", IdentificationRecall, "identification"),
            ("homogeneity", DiarizationHomogeneity, "prediction"),
            ("completeness", DiarizationCompleteness, "prediction"),
        ):
            result[name] = float(abs(accumulate(cls(**options), data, side, case["uem"])))
        cases.append(result)
    # purity and coverage score the whole annotations (no UEM, no collar)
    whole = {
        "purity": float(abs(accumulate(DiarizationPurity(), data, "prediction", None))),
        "coverage": float(abs(accumulate(DiarizationCoverage(), data, "prediction", None))),
    }
    return {"cases": cases, "whole": whole}


def segmentation_values(data):
    from pyannote.metrics.segmentation import (
        SegmentationCoverage,
        SegmentationPrecision,
        SegmentationPurity,
        SegmentationRecall,
    )

    out = []
    for tolerance in TOLERANCES:
        result = {"tolerance": tolerance}
        for name, cls in (
            ("precision", SegmentationPrecision),
            ("recall", SegmentationRecall),
            ("purity", SegmentationPurity),
            ("coverage", SegmentationCoverage),
        ):
            result[name] = float(abs(accumulate(cls(tolerance=tolerance), data, "prediction", None)))
        out.append(result)
    return out


def spyder_values(segments, durations, uems):
    import spyder

    def turns(side):
        out = {}
        for file in durations["file"]:
            part = segments[(segments["file"] == file) & (segments["side"] == side)]
            out[file] = [
                (str(label), s / 1000, e / 1000)
                for label, s, e in zip(part["label"], part["start_ms"], part["end_ms"])
            ]
        return out

    uem = {
        "duration": {f: [(0.0, d / 1000)] for f, d in zip(durations["file"], durations["duration_ms"])},
        "multi": {
            f: [(a / 1000, b / 1000) for a, b in zip(p["start_ms"], p["end_ms"])]
            for f, p in uems.groupby("file")
        },
    }
    out = []
    for case in SPYDER_CASES:
        result = dict(case)
        try:
            metrics = spyder.DER(
                turns("truth"), turns("prediction"), uem=dict(uem[case["uem"]]), per_file=True,
                regions=case["regions"], collar=case["collar"], verbose=False,
            )
        except ZeroDivisionError:  # no scored time at all on these regions
            continue
        result["files"] = {
            f: {"duration": m.duration, "miss": m.miss, "falarm": m.falarm, "conf": m.conf, "der": m.der}
            for f, m in metrics.items()
        }
        out.append(result)
    return out


def set_labels(active):
    """One class per distinct row of a (frames, speakers) 0/1 matrix."""
    if active.shape[1] == 0:
        return np.zeros(len(active), dtype=np.int64)
    return np.unique(active, axis=0, return_inverse=True)[1].ravel()


def frame_labels(turns, regions, step, exact):
    """dscore's turns_to_frames on one side (exact: integer ms raster)."""
    speakers = sorted({label for label, _, _ in turns})
    if exact:
        n_frames = max(b for _, b in regions)
        times = np.arange(n_frames)
        keep = np.zeros(n_frames, dtype=bool)
        for a, b in regions:
            keep[a:b] = True
        active = np.zeros((n_frames, len(speakers)), dtype=np.int64)
        for label, a, b in turns:
            active[a:b, speakers.index(label)] = 1
        return set_labels(active[keep])
    dur = max(b for _, b in regions) / 1000
    n_frames = int(dur / step)
    times = step * np.arange(n_frames)
    active = np.zeros((n_frames, len(speakers)), dtype=np.int64)
    for label, a, b in turns:
        i, j = np.searchsorted(times, [a / 1000, b / 1000])
        active[i:j, speakers.index(label)] = 1
    keep = np.zeros(n_frames, dtype=bool)
    for a, b in regions:
        i, j = np.searchsorted(times, [a / 1000, b / 1000])
        keep[i:j] = True
    return set_labels(active[keep])


def contingency(ref, sys):
    cm = np.zeros((ref.max() + 1, sys.max() + 1))
    np.add.at(cm, (ref, sys), 1.0)
    return cm[cm.sum(axis=1) > 0][:, cm.sum(axis=0) > 0]


def cluster_scores(cm):
    """dscore's published formulas (bits) on a dense contingency matrix."""
    n = cm.sum()
    rows, cols = cm.sum(axis=1), cm.sum(axis=0)
    nz = cm > 0
    p = cm / n
    precision = float(np.sum(p * cm / cols[None, :]))
    recall = float(np.sum(p * cm / rows[:, None]))
    out = {"bcubed_precision": precision, "bcubed_recall": recall,
           "bcubed_f1": 2 * precision * recall / (precision + recall)}
    pr, pc = rows / n, cols / n
    if cm.shape[1] == 1:
        out["tau_ref_sys"] = 1.0
    else:
        v = 1 - np.sum(pc ** 2)
        out["tau_ref_sys"] = float((v - (1 - np.sum(np.sum(p ** 2, axis=1) / pr))) / v)
    if cm.shape[0] == 1:
        out["tau_sys_ref"] = 1.0
    else:
        v = 1 - np.sum(pr ** 2)
        out["tau_sys_ref"] = float((v - (1 - np.sum(np.sum(p ** 2, axis=0) / pc))) / v)
    r_idx, c_idx = np.nonzero(nz)
    m = cm[r_idx, c_idx]
    out["ce_ref_sys"] = float(np.sum(m / n * (np.log2(cols[c_idx]) - np.log2(m))))
    out["ce_sys_ref"] = float(np.sum(m / n * (np.log2(rows[r_idx]) - np.log2(m))))
    one_r, one_c = cm.shape[0] == 1, cm.shape[1] == 1
    if one_r != one_c:
        out["mi"], out["nmi"] = 0.0, 0.0
    elif one_r and one_c:
        out["mi"], out["nmi"] = 0.0, 1.0
    else:
        mi = max(float(np.sum(m / n * (np.log2(m) - np.log2(rows[r_idx] * cols[c_idx]) + np.log2(n)))), 0.0)
        h_r = max(-np.sum(pr * np.log2(pr)), 0)
        h_c = max(-np.sum(pc * np.log2(pc)), 0)
        out["mi"], out["nmi"] = mi, float(min(max(mi / np.sqrt(h_r * h_c), 0.0), 1.0))
    return out


def dscore_values(segments, durations, uems):
    from scipy.linalg import block_diag

    out = {}
    for uem_kind in ("duration", "multi"):
        for kind in ("frames", "exact"):
            cms, files = [], {}
            for file, duration in zip(durations["file"], durations["duration_ms"]):
                if uem_kind == "duration":
                    regions = [(0, int(duration))]
                else:
                    part = uems[uems["file"] == file]
                    regions = list(zip(part["start_ms"].astype(int), part["end_ms"].astype(int)))
                sides = []
                for side in ("truth", "prediction"):
                    part = segments[(segments["file"] == file) & (segments["side"] == side)]
                    turns = list(zip(part["label"], part["start_ms"].astype(int), part["end_ms"].astype(int)))
                    sides.append(frame_labels(turns, regions, 0.01, kind == "exact"))
                cm = contingency(*sides)
                cms.append(cm)
                files[file] = cluster_scores(cm)
            files["TOTAL"] = cluster_scores(block_diag(*cms))
            out[f"{uem_kind}/{kind}"] = files
    return out


def main():
    segments, durations, uems = make_data()
    segments.to_csv(os.path.join(HERE, "segments_v2.csv"), index=False)
    durations.to_csv(os.path.join(HERE, "durations_v2.csv"), index=False)
    uems.to_csv(os.path.join(HERE, "uem_v2.csv"), index=False)
    golden = {}
    for scenario in SCENARIOS:
        part = durations[durations["scenario"] == scenario]
        seg = segments[segments["scenario"] == scenario]
        uem = uems[uems["scenario"] == scenario]
        data = annotations(seg, part, uem)
        golden[scenario] = {
            "pyannote": pyannote_values(data),
            "segmentation": segmentation_values(data),
            "spyder": spyder_values(seg, part, uem),
            "dscore": dscore_values(seg, part, uem),
        }
    with open(os.path.join(HERE, "golden_v2.json"), "w") as fp:
        json.dump(golden, fp, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
