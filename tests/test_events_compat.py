"""``compat="sed_eval"`` of the event-based metrics against sed_eval 0.2.1.

The golden file ``tests/assets/events/sed_eval_compat.json`` is written by
``tests/assets/events/make_golden_compat.py`` (run by hand, see its docstring).
Its times lie on a 1 ms grid and many pairs meet a tolerance exactly
(``|2.2 - 2.0| = 0.2``): float64 seconds, as sed_eval compares them,
miss some of those, the exact rule of audeval (``compat=None``) never does.
Mapping of the parameters as in ``test_events_golden.py``:
``onset_tolerance=t_collar`` (``None`` without onset),
``offset_tolerance=t_collar`` and ``duration_tolerance=percentage_of_length``
(both ``None`` without offset), ``matching=event_matching_type``.

In greedy mode every value must agree to 1e-12.
In optimal mode the matches (TP, F-scores, class-wise error rates) must agree;
the overall error rate too where audeval and sed_eval leave the same number of
substitutions (sed_eval pairs its leftovers first-fit, audeval by a maximum
matching, SPEC section 3), else audeval's substitutions are not fewer.
"""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pandas as pd
import pytest

import audformat

from audeval._events import event_fscore, event_report, event_statistics


HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "assets", "events", "sed_eval_compat.json")

with open(GOLDEN) as fp:
    DATA = json.load(fp)
LABELS = DATA["labels"]
CASES = [
    (name, k) for name, scenario in DATA["scenarios"].items() for k in range(len(scenario["cases"]))
]


def series(rows) -> pd.Series:
    files, on, off, labels = zip(*rows)
    index = audformat.segmented_index(
        list(files), pd.to_timedelta(list(on), unit="ms"), pd.to_timedelta(list(off), unit="ms")
    )
    return pd.Series(list(labels), index=index)


def options(case) -> dict:
    collar, pct = case["t_collar"], case["percentage_of_length"]
    return {
        "onset_tolerance": collar if case["evaluate_onset"] else None,
        "offset_tolerance": collar if case["evaluate_offset"] else None,
        "duration_tolerance": pct if case["evaluate_offset"] else None,
        "matching": case["matching"],
    }


def evaluate(name, case, compat):
    scenario = DATA["scenarios"][name]
    stats = event_statistics(
        series(scenario["truth"]), series(scenario["prediction"]), LABELS, compat=compat, **options(case)
    )
    report = event_report(stats, None, zero_division=np.nan, propagate_nans=True)
    return stats, report


@pytest.mark.parametrize("name, k", CASES)
def test_sed_eval_compat(name, k):
    case = DATA["scenarios"][name]["cases"][k]
    stats, report = evaluate(name, case, "sed_eval")
    sums = stats.sum()
    expected = case["overall"]
    assert (int(sums["n_truth"]), int(sums["n_prediction"]), int(sums["tp"])) == (
        expected["Nref"], expected["Nsys"], expected["Ntp"],
    )
    np.testing.assert_allclose(report.loc["micro", "fscore"], expected["f_measure"], rtol=0, atol=1e-12)
    classes = report.loc[LABELS]
    cw = case["class_wise"]
    np.testing.assert_array_equal(classes["tp"].to_numpy(), cw["Ntp"])
    np.testing.assert_allclose(classes["fscore"].to_numpy(), cw["f_measure"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(classes["error_rate"].to_numpy(), cw["error_rate"], rtol=0, atol=1e-12)
    substitutions = int(sums["substituted"])
    if case["matching"] == "greedy" or substitutions == expected["Nsubs"]:
        assert substitutions == expected["Nsubs"]
        np.testing.assert_allclose(
            report.loc["micro", "error_rate"], expected["error_rate"], rtol=0, atol=1e-12
        )
    else:
        assert substitutions > expected["Nsubs"]


def test_compat_none_differs_on_exact_ties():
    """The exact rule counts ties as met: more matches than sed_eval wherever they matter."""
    differ = 0
    for name, k in CASES:
        case = DATA["scenarios"][name]["cases"][k]
        stats, _ = evaluate(name, case, None)
        tp = int(stats["tp"].sum())
        assert tp >= case["overall"]["Ntp"]
        if case["exact_ties"] == 0:
            assert tp == case["overall"]["Ntp"]
        differ += tp != case["overall"]["Ntp"]
    assert differ >= len(CASES) // 2


def test_hand_computed_tie():
    """``|2.2 - 2.0| <= 0.2`` is false in float64: sed_eval misses the match."""
    truth = series([["f", 2000, 3000, "a"], ["f", 5000, 6000, "a"]])
    prediction = series([["f", 2200, 3000, "a"], ["f", 5100, 6000, "a"]])
    kwargs = {"onset_tolerance": 0.2, "offset_tolerance": 0.2}
    assert event_fscore(truth, prediction, **kwargs) == 1.0
    assert event_fscore(truth, prediction, compat="sed_eval", **kwargs) == 0.5
    # 0.3 - 0.1 = 0.19999999999999998 in float64: met both ways
    truth = series([["f", 100, 1000, "a"]])
    prediction = series([["f", 300, 1000, "a"]])
    assert event_fscore(truth, prediction, compat="sed_eval", **kwargs) == 1.0


def test_table_records_compat():
    truth = series([["f", 2000, 3000, "a"]])
    prediction = series([["f", 2200, 3000, "a"]])
    stats = event_statistics(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2, compat="sed_eval")
    assert stats.attrs["audeval"]["options"]["compat"] == "sed_eval"
    assert event_fscore(stats, None) == 0.0
    assert event_fscore(stats, None, compat="sed_eval") == 0.0
    with pytest.raises(ValueError, match="compat"):
        event_fscore(stats, None, compat=None)
    with pytest.raises(ValueError, match="compat"):
        event_fscore(truth, prediction, compat="mir_eval")


DESED = "/work/shared/fixtures/desed"


def read_desed(name: str) -> pd.Series:
    """A DESED table with times parsed exactly (decimal strings to ns); empty rows dropped."""
    df = pd.read_csv(os.path.join(DESED, name), sep="\t", dtype=str).dropna()
    index = audformat.segmented_index(
        df["filename"].tolist(),
        pd.to_timedelta(df["onset"] + "s"),
        pd.to_timedelta(df["offset"] + "s"),
    )
    return pd.Series(df["event_label"].to_numpy(), index=index)


@pytest.mark.skipif(not os.path.isdir(DESED), reason="DESED fixtures not available")
@pytest.mark.parametrize("matching", ["optimal", "greedy"])
def test_desed_baseline(matching):
    """DCASE 2021 baseline on DESED validation: sed_eval F 40.95 %, exact rule 40.98 %."""
    expected = DATA["desed"][matching]
    truth, prediction = read_desed("validation.tsv"), read_desed("student_pred05_clean.tsv")
    kwargs = {"onset_tolerance": 0.2, "offset_tolerance": 0.2, "duration_tolerance": 0.2, "matching": matching}
    stats = event_statistics(truth, prediction, compat="sed_eval", **kwargs)
    sums = stats.sum()
    assert [int(sums[c]) for c in ("n_truth", "n_prediction", "tp", "substituted")] == [
        expected["Nref"], expected["Nsys"], expected["Ntp"], expected["Nsubs"],
    ]
    report = event_report(stats, None)
    np.testing.assert_allclose(report.loc["micro", "fscore"], expected["f_measure"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(report.loc["micro", "error_rate"], expected["error_rate"], rtol=0, atol=1e-12)
    exact = event_fscore(truth, prediction, **kwargs)
    assert round(100 * exact, 2) == 40.98
    assert round(100 * expected["f_measure"], 2) == 40.95


def test_cli_compat(capsys, tmp_path):
    from audeval._cli import main

    header = "filename\tonset\toffset\tevent_label\n"
    truth = tmp_path / "truth.tsv"
    truth.write_text(header + "a.wav\t2.0\t3.0\tdog\na.wav\t5.0\t6.0\tdog\n")
    prediction = tmp_path / "prediction.tsv"
    prediction.write_text(header + "a.wav\t2.2\t3.0\tdog\na.wav\t5.1\t6.0\tdog\n")

    def tp(*extra):
        code = main(["events", str(truth), str(prediction), "--format", "csv", *extra])
        out, err = capsys.readouterr()
        assert code == 0, err
        report = pd.read_csv(io.StringIO(out)).set_index("label")
        return report.loc["micro", "tp"]

    assert tp() == 2
    assert tp("--compat", "sed_eval") == 1
