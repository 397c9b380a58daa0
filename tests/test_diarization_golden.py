"""Golden values of pyannote.metrics 4.2 and spy-der 0.4.1: UEM, collar conventions, regions,
compat="pyannote", cluster metrics (see tests/assets/diarization/make_golden_v2.py)."""

import json
import os
import warnings

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval import _diarization as dia


ASSETS = os.path.join(os.path.dirname(__file__), "assets", "diarization")
TOL = 1e-9


def _series(part, as_int=False):
    index = audformat.segmented_index(
        part["file"].tolist(),
        pd.to_timedelta(part["start_ms"].to_numpy(), unit="ms"),
        pd.to_timedelta(part["end_ms"].to_numpy(), unit="ms"),
    )
    labels = part["label"].astype(int).tolist() if as_int else part["label"].astype(str).tolist()
    return pd.Series(labels, index=index, dtype=np.int64 if as_int else object)


def _load():
    segments = pd.read_csv(os.path.join(ASSETS, "segments_v2.csv"))
    durations = pd.read_csv(os.path.join(ASSETS, "durations_v2.csv"))
    uems = pd.read_csv(os.path.join(ASSETS, "uem_v2.csv"))
    with open(os.path.join(ASSETS, "golden_v2.json")) as fp:
        golden = json.load(fp)
    data = {}
    for scenario in golden:
        part = segments[segments["scenario"] == scenario]
        dur = durations[durations["scenario"] == scenario]
        uem = uems[uems["scenario"] == scenario]
        data[scenario] = {
            "truth": _series(part[part["side"] == "truth"]),
            "prediction": _series(part[part["side"] == "prediction"], as_int=True),
            "identification": _series(part[part["side"] == "identification"]),
            "files_duration": dict(zip(dur["file"], dur["duration_ms"] / 1000)),
            "uem": audformat.segmented_index(
                uem["file"].tolist(),
                pd.to_timedelta(uem["start_ms"].to_numpy(), unit="ms"),
                pd.to_timedelta(uem["end_ms"].to_numpy(), unit="ms"),
            ),
            "golden": golden[scenario],
            "compat": "pyannote" if scenario == "selfoverlap" else None,
        }
    return data


DATA = _load()
PYANNOTE = [
    (scenario, k)
    for scenario, d in DATA.items()
    for k in range(len(d["golden"]["pyannote"]["cases"]))
]
SPYDER = [
    (scenario, k) for scenario, d in DATA.items() for k in range(len(d["golden"]["spyder"]))
]


def _scope(d, uem):
    if uem == "duration":
        return {"files_duration": d["files_duration"]}
    return {"files_duration": d["files_duration"], "uem": d["uem"]}


def test_prediction_labels_are_int_clusters():
    d = DATA["conv"]
    assert d["truth"].map(type).eq(str).all()
    assert d["prediction"].dtype == np.int64


@pytest.mark.parametrize("scenario, k", PYANNOTE)
def test_pyannote(scenario, k):
    d = DATA[scenario]
    case = d["golden"]["pyannote"]["cases"][k]
    options = dict(collar=case["collar"], skip_overlap=case["skip_overlap"], compat=d["compat"])
    options.update(_scope(d, case["uem"]))
    truth, prediction, ident = d["truth"], d["prediction"], d["identification"]
    assert audeval.diarization_error_rate(truth, prediction, **options) == pytest.approx(
        case["der"], abs=TOL
    )
    assert audeval.identification_error_rate(truth, ident, **options) == pytest.approx(
        case["ier"], abs=TOL
    )
    precision, recall, _ = dia.identification_precision_recall(truth, ident, **options)
    assert precision == pytest.approx(case["identification_precision"], abs=TOL)
    assert recall == pytest.approx(case["identification_recall"], abs=TOL)
    if d["compat"] is None:  # pyannote's JER of self-overlaps merges the turns: not reproduced
        assert audeval.jaccard_error_rate(truth, prediction, **options) == pytest.approx(
            case["jer"], abs=TOL
        )
    homogeneity, completeness = dia.diarization_homogeneity_completeness(
        truth, prediction, **options
    )
    assert homogeneity == pytest.approx(case["homogeneity"], abs=TOL)
    if case["collar"] == 0 and not case["skip_overlap"]:
        # pyannote's DiarizationCompleteness swaps the roles before cutting collars and
        # overlap (around the *prediction*); audeval keeps the truth's scored region
        assert completeness == pytest.approx(case["completeness"], abs=TOL)


@pytest.mark.parametrize("scenario", list(DATA))
def test_pyannote_purity_coverage(scenario):
    """On ``selfoverlap`` with compat="pyannote" too: pyannote.metrics takes purity and
    coverage on label supports, so a speaker overlapping itself counts once (issue 33 #1)."""
    d = DATA[scenario]
    whole = d["golden"]["pyannote"]["whole"]
    purity, coverage, f = dia.diarization_purity_coverage(
        d["truth"], d["prediction"], files_duration=d["files_duration"], compat=d["compat"]
    )
    assert purity == pytest.approx(whole["purity"], abs=TOL)
    assert coverage == pytest.approx(whole["coverage"], abs=TOL)
    assert f == pytest.approx(2 * purity * coverage / (purity + coverage), abs=TOL)


def _spyder_components(d, case):
    report = audeval.diarization_report(
        d["truth"],
        d["prediction"],
        regions=case["regions"],
        collar=case["collar"],
        collar_convention="per_side",
        **_scope(d, case["uem"]),
    )
    return report


@pytest.mark.parametrize(
    "scenario, k", [s for s in SPYDER if DATA[s[0]]["golden"]["spyder"][s[1]]["collar"] == 0]
)
def test_spyder_regions_uem(scenario, k):
    d = DATA[scenario]
    case = d["golden"]["spyder"][k]
    report = _spyder_components(d, case)
    overall = case["files"]["Overall"]
    total = report.loc["TOTAL"]
    assert total["total"] == pytest.approx(overall["duration"], abs=1e-9)
    for ours, theirs in (
        ("diarization_error_rate", "der"),
        ("miss_rate", "miss"),
        ("false_alarm_rate", "falarm"),
        ("confusion_rate", "conf"),
    ):
        assert total[ours] == pytest.approx(overall[theirs], abs=TOL), ours
    for file, values in case["files"].items():
        if file == "Overall" or values["duration"] == 0:
            continue
        assert report.loc[file, "diarization_error_rate"] == pytest.approx(values["der"], abs=TOL)


@pytest.mark.parametrize("scenario, k", [s for s in SPYDER if DATA[s[0]]["golden"]["spyder"][s[1]]["collar"] > 0])
def test_spyder_per_side_collar(scenario, k):
    """With a collar, spy-der finds the mapping before cutting the collars out
    (audeval and pyannote.metrics after): miss, false alarm and total agree always,
    DER where the mapping is the same."""
    d = DATA[scenario]
    case = d["golden"]["spyder"][k]
    report = _spyder_components(d, case)
    for file, values in case["files"].items():
        row = report.loc["TOTAL" if file == "Overall" else file]
        assert row["total"] == pytest.approx(values["duration"], abs=1e-6)
        if values["duration"] == 0:
            continue
        assert row["miss_rate"] == pytest.approx(values["miss"], abs=TOL)
        assert row["false_alarm_rate"] == pytest.approx(values["falarm"], abs=TOL)
        assert row["confusion_rate"] <= values["conf"] + TOL  # a mapping after the collar is optimal there


def test_compat_pyannote_example():
    """SPEC 6: ref A[0,10] + A[5,15], hyp a[0,15]: 25 % in pyannote.metrics, 0 % (NIST)."""
    index = audformat.segmented_index(["f", "f"], [0, 5], [10, 15])
    truth = pd.Series(["A", "A"], index=index)
    prediction = pd.Series([1], index=audformat.segmented_index(["f"], [0], [15]))
    assert audeval.diarization_error_rate(truth, prediction, files_duration={"f": 15}) == 0.0
    der = audeval.diarization_error_rate(
        truth, prediction, compat="pyannote", files_duration={"f": 15}
    )
    assert der == 0.25


@pytest.mark.parametrize("scenario", list(DATA))
def test_pyannote_segmentation(scenario):
    d = DATA[scenario]
    for case in d["golden"]["segmentation"]:
        tolerance = case["tolerance"]
        precision, recall, _ = dia.speaker_change_precision_recall(
            d["truth"], d["prediction"], tolerance=tolerance
        )
        assert precision == pytest.approx(case["precision"], abs=TOL), tolerance
        assert recall == pytest.approx(case["recall"], abs=TOL), tolerance
        purity, coverage, _ = dia.speaker_change_purity_coverage(
            d["truth"], d["prediction"], gap_tolerance=tolerance
        )
        assert purity == pytest.approx(case["purity"], abs=TOL), tolerance
        assert coverage == pytest.approx(case["coverage"], abs=TOL), tolerance


DSCORE = [(scenario, key) for scenario, d in DATA.items() for key in d["golden"]["dscore"]]


@pytest.mark.parametrize("scenario, key", DSCORE)
def test_dscore_cluster_metrics(scenario, key):
    """dscore's rules (reimplemented in make_golden_v2.py): 10 ms frames, and exact time."""
    d = DATA[scenario]
    uem_kind, kind = key.split("/")
    frame_size = 0.01 if kind == "frames" else None
    report = dia.diarization_cluster_report(
        d["truth"], d["prediction"], frame_size=frame_size, **_scope(d, uem_kind)
    )
    for file, values in d["golden"]["dscore"][key].items():
        for name, value in values.items():
            assert report.loc[file, name] == pytest.approx(value, abs=TOL), (file, name)
