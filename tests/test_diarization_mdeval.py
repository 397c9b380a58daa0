"""Diarization against NIST md-eval-22's rules (NeMo's port; see tests/assets/diarization_mdeval).

DER components with UEM (several scored intervals per file), collars on each side of every
reference segment (``collar_convention="per_side"``), md-eval's ``-1`` (``skip_overlap``),
and the speaker mapping found before collars and overlap are taken out.
"""

import json
import os

import numpy as np
import pytest

import audeval

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "diarization_mdeval")
with open(os.path.join(HERE, "golden.json")) as f:
    GOLDEN = json.load(f)
COMPONENTS = {
    "SCORED_SPEAKER": "total",
    "MISSED_SPEAKER": "miss",
    "FALARM_SPEAKER": "false_alarm",
    "SPEAKER_ERROR": "confusion",
}


@pytest.fixture(scope="module")
def conversations():
    truth = audeval.read_rttm(os.path.join(HERE, "ref.rttm"))
    prediction = audeval.read_rttm(os.path.join(HERE, "sys.rttm"))
    return truth, prediction, audeval.read_uem(os.path.join(HERE, "all.uem"))


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: f"collar{c['collar']}-skip{c['skip_overlap']}")
def test_der_components_match_md_eval(conversations, case):
    truth, prediction, uem = conversations
    options = dict(
        collar=case["collar"], collar_convention="per_side", skip_overlap=case["skip_overlap"], uem=uem
    )
    report = audeval.diarization_report(truth, prediction, **options)
    for file, expected in case["files"].items():
        for key, column in COMPONENTS.items():
            assert report.loc[file, column] == pytest.approx(expected[key], abs=1e-9), (file, key)
    total = case["total"]
    expected = sum(total[k] for k in COMPONENTS if k != "SCORED_SPEAKER") / total["SCORED_SPEAKER"]
    der = audeval.diarization_error_rate(truth, prediction, **options)
    assert der == pytest.approx(expected, abs=1e-12)
    # md-eval prints the DER in percent with two decimals
    assert f"{100 * der:.2f}" == f"{100 * expected:.2f}"
    # the same from the statistics table, summed over two shards of files
    files = sorted(case["files"])
    shards = [
        audeval.diarization_statistics(
            truth[truth.index.get_level_values("file").isin(part)],
            prediction[prediction.index.get_level_values("file").isin(part)],
            collar=case["collar"], collar_convention="per_side", skip_overlap=case["skip_overlap"],
            uem=uem[uem.get_level_values("file").isin(part)],
        )
        for part in (files[:5], files[5:])
    ]
    summed = audeval.sum_statistics(shards)
    np.testing.assert_allclose(audeval.diarization_error_rate(summed), der, rtol=0, atol=1e-15)


def test_per_side_collars_map_speakers_before_the_collars():
    # A: six 0.6 s turns, B: one 10 s turn; cluster x covers A's turns and B's first 6 s.
    # Before collars: A-x 3.6 + B-y 4 > B-x 6, so A -> x, B -> y (md-eval, spy-der: 5.75 / 10.1);
    # after 0.25 s per side: A-x 0.6 + B-y 3.75 < B-x 5.75 (pyannote.metrics maps there: 4.35 / 10.1).
    # md-eval-22 (NeMo's port) and spy-der 0.4.1 give 0.569307, pyannote.metrics 4.2 0.430693.
    from conftest import series

    turns = [(k * 1.5, k * 1.5 + 0.6) for k in range(6)]
    truth = series([("f", s, e, "A") for s, e in turns] + [("f", 10, 20, "B")])
    prediction = series([("f", s, e, "x") for s, e in turns] + [("f", 10, 16, "x"), ("f", 16, 20, "y")])
    duration = {"f": 20}
    per_side = dict(collar=0.25, collar_convention="per_side", files_duration=duration)
    assert audeval.diarization_error_rate(truth, prediction, **per_side) == pytest.approx(5.75 / 10.1, abs=1e-12)
    total = dict(collar=0.5, files_duration=duration)
    assert audeval.diarization_error_rate(truth, prediction, **total) == pytest.approx(4.35 / 10.1, abs=1e-12)
    mapping = audeval.diarization_mapping(truth, prediction, **per_side)
    assert mapping["prediction"].tolist() == ["x", "y"]
    np.testing.assert_allclose(mapping["duration"], [3.6, 4.0], atol=1e-12)
    stats = audeval.diarization_statistics(truth, prediction, **per_side)
    assert "duration_mapping" in stats.columns
    assert audeval.diarization_error_rate(stats) == pytest.approx(5.75 / 10.1, abs=1e-12)
    assert audeval.diarization_report(stats).loc["f", "confusion"] == pytest.approx(5.75, abs=1e-12)
