"""Golden values where a speaker overlaps itself: purity, coverage and detection.

Run by hand (not in CI) in a venv with the reference toolkit::

    python3 -m venv /work/venvs/diar-pyannote
    /work/venvs/diar-pyannote/bin/pip install "pyannote.metrics==4.2.*" pandas
    /work/venvs/diar-pyannote/bin/python tests/assets/diarization/make_golden_selfoverlap.py

Inputs: the scenario ``selfoverlap`` of ``segments_v2.csv``, ``durations_v2.csv`` and
``uem_v2.csv`` (written by ``make_golden_v2.py``: truth and prediction rows of one speaker
overlap each other), and a few hand-made cases (``CASES`` below, among them the
reproducers of issue 33 items 1 and 2), which are written to the output as well.

Output ``golden_selfoverlap.json`` next to this script, values of pyannote.metrics 4.2:

* ``DiarizationPurity``, ``DiarizationCoverage``: per file and accumulated over files
  (they score the whole annotations: no UEM, no collar, no overlap removal);
* ``DetectionErrorRate``, ``DetectionPrecision``, ``DetectionRecall``, ``DetectionAccuracy``:
  per file and accumulated, for collar 0 / 0.5 s (total width), skip_overlap off / on,
  and the scored region ``[0, duration]`` or the UEM intervals of ``uem_v2.csv``.

pyannote.metrics takes purity and coverage on each label's support (its rows merged),
and with ``skip_overlap`` removes every region where two truth rows overlap,
two rows of one speaker included.
"""

from __future__ import annotations

import json
import os
import warnings

import pandas as pd


HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = "selfoverlap"
DETECTION_CASES = [
    {"collar": collar, "skip_overlap": skip, "uem": uem}
    for uem in ("duration", "multi")
    for collar in (0.0, 0.5)
    for skip in (False, True)
]
# hand-made cases: rows (start_ms, end_ms, label) of one file "f", its duration, a UEM
CASES = {
    # issue 33 #1: a cluster overlapping itself; audeval's compat mode gave coverage 1.2
    "item1": {
        "duration_ms": 10_000,
        "truth": [[0, 10_000, "A"]],
        "prediction": [[0, 6_000, "x"], [4_000, 10_000, "x"]],
        "uem": [[0, 10_000]],
    },
    # issue 33 #2: a truth speaker overlapping itself, skip_overlap (pyannote 0.7)
    "item2": {
        "duration_ms": 20_000,
        "truth": [[0, 10_000, "A"], [5_000, 15_000, "A"]],
        "prediction": [[2_000, 20_000, "s"]],
        "uem": [[0, 20_000]],
    },
    # both sides overlap themselves, with other speakers and clusters around
    "mixed": {
        "duration_ms": 30_000,
        "truth": [
            [0, 8_000, "A"], [6_000, 12_000, "A"], [10_000, 16_000, "B"],
            [14_000, 20_000, "B"], [22_000, 28_000, "A"], [23_000, 25_000, "A"],
        ],
        "prediction": [
            [500, 7_000, 1], [5_000, 13_000, 1], [11_000, 21_000, 2],
            [12_000, 14_000, 2], [21_500, 29_000, 1], [26_000, 27_000, 3],
        ],
        "uem": [[0, 18_000], [20_000, 30_000]],
    },
}


def load():
    segments = pd.read_csv(os.path.join(HERE, "segments_v2.csv"))
    durations = pd.read_csv(os.path.join(HERE, "durations_v2.csv"))
    uems = pd.read_csv(os.path.join(HERE, "uem_v2.csv"))
    segments = segments[segments["scenario"] == SCENARIO]
    durations = durations[durations["scenario"] == SCENARIO]
    uems = uems[uems["scenario"] == SCENARIO]
    files = {}
    for file, duration in zip(durations["file"], durations["duration_ms"]):
        part = segments[segments["file"] == file]
        sides = {}
        for side in ("truth", "prediction"):
            rows = part[part["side"] == side]
            sides[side] = [
                [int(s), int(e), int(label) if side == "prediction" else str(label)]
                for s, e, label in zip(rows["start_ms"], rows["end_ms"], rows["label"])
            ]
        uem = uems[uems["file"] == file]
        files[file] = {
            "duration_ms": int(duration),
            **sides,
            "uem": [[int(a), int(b)] for a, b in zip(uem["start_ms"], uem["end_ms"])],
        }
    return files


def annotation(rows, uri):
    from pyannote.core import Annotation, Segment

    out = Annotation(uri=uri)
    for k, (start, end, label) in enumerate(rows):
        out[Segment(start / 1000, end / 1000), k] = label
    return out


def timelines(data, uri):
    from pyannote.core import Segment, Timeline

    return {
        "duration": Timeline([Segment(0.0, data["duration_ms"] / 1000)], uri=uri),
        "multi": Timeline([Segment(a / 1000, b / 1000) for a, b in data["uem"]], uri=uri),
    }


def values(files):
    from pyannote.metrics.detection import (
        DetectionAccuracy,
        DetectionErrorRate,
        DetectionPrecision,
        DetectionRecall,
    )
    from pyannote.metrics.diarization import DiarizationCoverage, DiarizationPurity

    prepared = {
        file: (
            annotation(d["truth"], file),
            annotation(d["prediction"], file),
            timelines(d, file),
        )
        for file, d in files.items()
    }

    def run(metric, uem_kind=None):
        per_file = {}
        for file, (truth, prediction, uems) in prepared.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the UEM approximation of purity/coverage
                if uem_kind is None:
                    per_file[file] = float(metric(truth, prediction))
                else:
                    per_file[file] = float(metric(truth, prediction, uem=uems[uem_kind]))
        return {"value": float(abs(metric)), "files": per_file}

    out = {
        "purity": run(DiarizationPurity()),
        "coverage": run(DiarizationCoverage()),
        "detection": [],
    }
    for case in DETECTION_CASES:
        options = {"collar": case["collar"], "skip_overlap": case["skip_overlap"]}
        result = dict(case)
        for name, cls in (
            ("detection_error_rate", DetectionErrorRate),
            ("precision", DetectionPrecision),
            ("recall", DetectionRecall),
            ("accuracy", DetectionAccuracy),
        ):
            result[name] = run(cls(**options), case["uem"])
        out["detection"].append(result)
    return out


def main():
    from importlib.metadata import version

    golden = {"pyannote.metrics": version("pyannote.metrics")}
    files = load()
    golden[SCENARIO] = {"files": files, "values": values(files)}
    for name, case in CASES.items():
        golden[name] = {"files": {"f": case}, "values": values({"f": case})}
    with open(os.path.join(HERE, "golden_selfoverlap.json"), "w") as fp:
        json.dump(golden, fp, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
