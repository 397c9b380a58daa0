"""error_rate_curve and best_error_rate (issue 29, item 3): sed_scores_eval parity, hand values, errors."""

from __future__ import annotations

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from tests._pipsds_data import golden, load


def _options(case: dict) -> dict:
    given = case["options"]
    if case["criterion"] == "intersection":
        return dict(criterion="intersection", dtc_threshold=given["dtc_threshold"],
                    gtc_threshold=given["gtc_threshold"])
    return dict(criterion="collar", onset_tolerance=given["onset_collar"],
                offset_tolerance=given["offset_collar"], duration_tolerance=given["offset_collar_rate"])


@pytest.mark.parametrize("name", ["random", "desed"])
def test_best_error_rate_golden(name):
    scores, truth, durations = load(name)
    cases = golden()[name]["error_rate"]
    assert [c["criterion"] for c in cases] == ["intersection", "intersection", "collar", "collar"]
    for case in cases:
        best = audeval.best_error_rate(
            truth, scores, files_duration=durations, compat="sed_scores_eval", **_options(case)
        )
        expected = case["best"]
        labels = [k for k in expected["er"] if k != "macro_average"]
        assert list(best.index) == labels + ["macro"]
        for column, key in [("error_rate", "er"), ("insertion_rate", "ir"), ("deletion_rate", "dr")]:
            want = [expected[key][k] for k in labels + ["macro_average"]]
            np.testing.assert_allclose(best[column].to_numpy(), want, rtol=0, atol=1e-12)
        np.testing.assert_allclose(
            best["threshold"].to_numpy()[:-1], [expected["threshold"][k] for k in labels], rtol=0, atol=1e-12
        )


def test_error_rate_curve_golden():
    scores, truth, durations = load("random")
    for case in golden()["random"]["error_rate"]:
        curve = audeval.error_rate_curve(
            truth, scores, files_duration=durations, compat="sed_scores_eval", **_options(case)
        )
        for label, expected in case["curve"].items():
            part = curve.loc[label].iloc[::-1]  # thresholds ascending, as sed_scores_eval
            order = np.argsort(expected["threshold"], kind="stable")
            np.testing.assert_allclose(
                part.index.to_numpy(), np.asarray(expected["threshold"])[order], rtol=0, atol=1e-15
            )
            for column, key in [("error_rate", "er"), ("insertion_rate", "ir"), ("deletion_rate", "dr")]:
                np.testing.assert_allclose(
                    part[column].to_numpy(), np.asarray(expected[key])[order], rtol=0, atol=1e-12
                )


def test_hand_computed():
    truth = pd.Series(["a", "a", "b"], index=audformat.segmented_index(["f", "f", "g"], [0, 4, 1], [2, 6, 2]))
    index = audformat.segmented_index(["f"] * 6 + ["g"] * 3, [0, 1, 2, 3, 4, 5, 0, 1, 2], [1, 2, 3, 4, 5, 6, 1, 2, 3])
    scores = pd.DataFrame(
        {"a": [0.9, 0.9, 0.2, 0.6, 0.8, 0.8, 0.1, 0.1, 0.1], "b": [0.1] * 6 + [0.3, 0.7, 0.3]}, index=index
    )
    curve = audeval.error_rate_curve(truth, scores)
    # a: 0.9 detects [0, 2) (1 of 2 events); 0.8 also [4, 6); 0.6 makes it [3, 6) (DTC 2/3 < 0.7:
    # an insertion, and [4, 6) is deleted); 0.2 one detection [0, 6) (4/6 < 0.7); 0.1 also [0, 3) in g
    a = curve.loc["a"]
    assert a.index.tolist() == [np.inf, 0.9, 0.8, 0.6, 0.2, 0.1]
    assert a["deletions"].tolist() == [2, 1, 0, 1, 2, 2]
    assert a["insertions"].tolist() == [0, 0, 0, 1, 1, 2]
    assert a["error_rate"].tolist() == [1.0, 0.5, 0.0, 1.0, 1.5, 2.0]
    best = audeval.best_error_rate(truth, scores)
    assert best.loc["a"].tolist() == [0.0, 0.0, 0.0, pytest.approx(0.7)]
    assert best.loc["b", "threshold"] == pytest.approx(0.5)
    assert best.loc["macro", "error_rate"] == 0.0
    # a class without truth: inf with insertions, NaN at 0 / 0 (as sed_scores_eval)
    scores["c"] = [0.5] + [0.0] * 8
    best = audeval.best_error_rate(truth, scores)
    assert np.isnan(best.loc["c", "error_rate"]) and best.loc["c", "threshold"] == np.inf
    assert np.isnan(best.loc["macro", "error_rate"])
    curve = audeval.error_rate_curve(truth, scores)
    assert curve.loc["c", "error_rate"].tolist()[1] == np.inf


def test_tables_add_up():
    scores, truth, durations = load("random")
    files = sorted(durations.index)

    def of(data, part):
        return data[data.index.get_level_values("file").isin(part)]

    options = dict(criterion="collar", compat="sed_scores_eval")
    tables = [
        audeval.score_statistics(of(truth, part), of(scores, part), files_duration=durations[part], **options)
        for part in (files[:3], files[3:])
    ]
    summed = audeval.sum_statistics(tables)
    direct = audeval.best_error_rate(truth, scores, files_duration=durations, **options)
    pd.testing.assert_frame_equal(audeval.best_error_rate(summed, **options), direct)
    accumulator = audeval.Accumulator(audeval.error_rate_curve, files_duration=durations, **options)
    for part in (files[:3], files[3:]):
        accumulator.update(of(truth, part), of(scores, part))
    pd.testing.assert_frame_equal(
        accumulator.compute(), audeval.error_rate_curve(truth, scores, files_duration=durations, **options)
    )


def test_errors():
    scores, truth, durations = load("random")
    with pytest.raises(ValueError, match="criterion must be 'intersection' or 'collar'; got 'segment'"):
        audeval.best_error_rate(truth, scores, criterion="segment")
    table = audeval.score_statistics(truth, scores, files_duration=durations)
    with pytest.raises(ValueError, match="made with criterion='intersection'"):
        audeval.error_rate_curve(table, criterion="collar")
