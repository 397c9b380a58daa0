"""Golden values for detection and diarization metrics.

Run by hand with the reference environment (not in CI):

    /opt/refenv/bin/python tests/assets/diarization/make_golden.py

It draws random multi-speaker files (times on a millisecond grid),
writes them to ``segments.csv`` and ``durations.csv``
and the values of pyannote.metrics 4.2 and audmetric 1.4.2
to ``pyannote.json`` and ``audmetric.json`` next to this script.

Within one label, segments never overlap
(pyannote.metrics and audmetric would count such time twice;
audeval merges a label with itself),
but different labels overlap freely,
files may lack a prediction or a truth,
and predictions may run past the end of a file.
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pandas as pd


HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = {
    # name: (seed, number of files, max truth speakers, max predicted speakers)
    "small": (1, 4, 2, 3),
    "medium": (2, 6, 4, 5),
    "crowded": (3, 5, 6, 7),
    "sparse": (4, 8, 3, 3),
}
CASES = [
    {"collar": collar, "skip_overlap": skip, "uem": uem}
    for uem in (True, False)
    for collar in (0.0, 0.5)
    for skip in (False, True)
]


def union(intervals):
    """Union of [start, end) intervals (ms), touching ones joined."""
    out = []
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out


def random_speaker(rng, duration, n_max):
    """Sorted distinct random points paired into disjoint segments."""
    k = int(rng.integers(1, n_max + 1))
    points = np.unique(rng.integers(0, duration + 1, size=2 * k))
    if len(points) % 2:
        points = points[:-1]
    return [[int(a), int(b)] for a, b in zip(points[::2], points[1::2])]


def make_file(rng, max_truth, max_pred):
    duration = int(rng.integers(20_000, 60_000))
    n_truth = int(rng.integers(1, max_truth + 1))
    truth = {f"spk{k}": random_speaker(rng, duration, 8) for k in range(n_truth)}
    # prediction: truth speakers relabelled (sometimes merged), jittered, plus noise
    n_pred = int(rng.integers(1, max_pred + 1))
    names = [f"s{k}" for k in range(n_pred)]
    prediction = {}
    for segments in truth.values():
        name = names[int(rng.integers(0, n_pred))]
        for start, end in segments:
            if rng.random() < 0.15:
                continue  # missed
            jitter = rng.integers(-700, 701, size=2)
            start, end = max(0, start + int(jitter[0])), end + int(jitter[1])
            end = min(end, duration + 500)  # may run past the end of the file
            if rng.random() < 0.1:
                name = names[int(rng.integers(0, n_pred))]  # confusion
            prediction.setdefault(name, []).append([start, end])
    for _ in range(int(rng.integers(0, 3))):
        start = int(rng.integers(0, duration))
        name = names[int(rng.integers(0, n_pred))]
        prediction.setdefault(name, []).append([start, start + int(rng.integers(100, 3000))])
    # identification: truth speakers with some swaps, same label set plus an intruder
    labels = list(truth) + ["intruder"]
    identification = {}
    for label, segments in truth.items():
        for start, end in segments:
            if rng.random() < 0.1:
                continue
            jitter = rng.integers(-500, 501, size=2)
            start, end = max(0, start + int(jitter[0])), end + int(jitter[1])
            chosen = label if rng.random() < 0.8 else labels[int(rng.integers(0, len(labels)))]
            identification.setdefault(chosen, []).append([start, end])
    sides = {"truth": truth, "prediction": prediction, "identification": identification}
    return duration, {side: {k: union(v) for k, v in d.items()} for side, d in sides.items()}


def make_data():
    rows, durations = [], []
    for name, (seed, n_files, max_truth, max_pred) in SCENARIOS.items():
        rng = np.random.default_rng(seed)
        for k in range(n_files):
            file = f"{name}/f{k}.wav"
            duration, sides = make_file(rng, max_truth, max_pred)
            if k == n_files - 1:
                sides["prediction"] = {}  # a file without prediction
                sides["identification"] = {}
            if name == "sparse" and k == 0:
                sides["truth"] = {}  # a file without truth
            durations.append({"scenario": name, "file": file, "duration_ms": duration})
            for side, labels in sides.items():
                for label, segments in labels.items():
                    for start, end in segments:
                        rows.append(
                            {
                                "scenario": name,
                                "side": side,
                                "file": file,
                                "start_ms": start,
                                "end_ms": end,
                                "label": label,
                            }
                        )
    return pd.DataFrame(rows), pd.DataFrame(durations)


def annotations(segments, durations):
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
        per_side["uem"] = Timeline([Segment(0.0, duration)], uri=file)
        out[file] = per_side
    return out


def pyannote_values(segments, durations):
    from pyannote.metrics.detection import DetectionAccuracy
    from pyannote.metrics.detection import DetectionErrorRate
    from pyannote.metrics.detection import DetectionPrecisionRecallFMeasure
    from pyannote.metrics.diarization import DiarizationErrorRate
    from pyannote.metrics.diarization import GreedyDiarizationErrorRate
    from pyannote.metrics.diarization import JaccardErrorRate
    from pyannote.metrics.identification import IdentificationErrorRate

    metrics = {
        "der": (DiarizationErrorRate, "prediction"),
        "greedy_der": (GreedyDiarizationErrorRate, "prediction"),
        "jer": (JaccardErrorRate, "prediction"),
        "ier": (IdentificationErrorRate, "identification"),
        "detection_error_rate": (DetectionErrorRate, "prediction"),
        "detection_accuracy": (DetectionAccuracy, "prediction"),
        "detection_fscore": (DetectionPrecisionRecallFMeasure, "prediction"),
    }
    out = {}
    for scenario in SCENARIOS:
        part = durations[durations["scenario"] == scenario]
        data = annotations(segments[segments["scenario"] == scenario], part)
        cases = []
        for case in CASES:
            result = dict(case)
            for name, (cls, side) in metrics.items():
                metric = cls(collar=case["collar"], skip_overlap=case["skip_overlap"])
                files = {}
                for file, sides in data.items():
                    uem = sides["uem"] if case["uem"] else None
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        detail = metric(sides["truth"], sides[side], uem=uem, detailed=True)
                    files[file] = {str(k): float(v) for k, v in detail.items()}
                entry = {"value": float(abs(metric)), "files": files}
                if name == "detection_fscore":
                    precision, recall, f = metric.compute_metrics()
                    entry.update(precision=float(precision), recall=float(recall), fscore=float(f))
                result[name] = entry
            cases.append(result)
        out[scenario] = cases
    return out


def rates(details):
    return {
        "conf_rate": details.conf_rate,
        "fa_rate": details.fa_rate,
        "miss_rate": details.miss_rate,
    }


def audmetric_values(segments, durations):
    import audformat
    import audmetric

    def series(part):
        index = audformat.segmented_index(
            part["file"].tolist(),
            pd.to_timedelta(part["start_ms"].to_numpy(), unit="ms"),
            pd.to_timedelta(part["end_ms"].to_numpy(), unit="ms"),
        )
        return pd.Series(part["label"].tolist(), index=index, dtype="object")

    out = {}
    for scenario in SCENARIOS:
        part = segments[segments["scenario"] == scenario]
        truth = series(part[part["side"] == "truth"])
        prediction = series(part[part["side"] == "prediction"])
        identification = series(part[part["side"] == "identification"])
        result = {}
        for individual in (False, True):
            der, details = audmetric.diarization_error_rate_detailed(
                truth, prediction, individual_file_mapping=individual
            )
            result[f"der_individual_{individual}"] = {"value": der, **rates(details)}
        ier, details = audmetric.identification_error_rate_detailed(truth, identification)
        result["ier"] = {"value": ier, **rates(details)}
        out[scenario] = result
    return out


def main():
    segments, durations = make_data()
    segments.to_csv(os.path.join(HERE, "segments.csv"), index=False)
    durations.to_csv(os.path.join(HERE, "durations.csv"), index=False)
    with open(os.path.join(HERE, "pyannote.json"), "w") as fp:
        json.dump(pyannote_values(segments, durations), fp, indent=1, sort_keys=True)
    with open(os.path.join(HERE, "audmetric.json"), "w") as fp:
        json.dump(audmetric_values(segments, durations), fp, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
