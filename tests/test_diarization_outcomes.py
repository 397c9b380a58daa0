"""diarization_outcomes: one row per elementary span; its sums are the report's components."""

from __future__ import annotations

import warnings

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval


def _series(rows):
    files, starts, ends, labels = zip(*rows)
    return pd.Series(list(labels), index=audformat.segmented_index(list(files), list(starts), list(ends)))


def _random(seed, n_files=3, n_rows=12, speakers=("A", "B", "C"), clusters=(0, 1, 2, 3)):
    rng = np.random.default_rng(seed)

    def side(labels):
        rows = []
        for f in range(n_files):
            start = np.round(rng.uniform(0, 9, n_rows), 2)
            length = np.round(rng.uniform(0.05, 2.5, n_rows), 2)
            rows += [(f"f{f}", s, s + d, labels[rng.integers(len(labels))]) for s, d in zip(start, length)]
        return _series(rows)

    return side(list(speakers)), side(list(clusters))


DURATIONS = {"f0": 12.0, "f1": 12.0, "f2": 12.0}
UEM = audformat.segmented_index(["f0", "f0", "f1", "f2"], [0.5, 6.0, 1.0, 0.0], [4.0, 11.0, 9.0, 12.0])
CASES = [
    {},
    {"collar": 0.5},
    {"collar": 0.5, "collar_convention": "per_side"},
    {"skip_overlap": True},
    {"uem": UEM},
    {"compat": "pyannote"},
    {"compat": "pyannote", "skip_overlap": True, "collar": 0.3},
    {"mapping": "greedy"},
    {"mapping": "greedy", "individual_file_mapping": False},
    {"individual_file_mapping": False, "collar": 0.25, "uem": UEM},
]


def _check_sums(truth, prediction, options):
    outcomes = audeval.diarization_outcomes(truth, prediction, files_duration=DURATIONS, **options)
    report = audeval.diarization_report(truth, prediction, files_duration=DURATIONS, **options)
    sums = outcomes.groupby(level="file")[["correct", "miss", "false_alarm", "confusion"]].sum()
    report = report.drop(index="TOTAL")
    sums = sums.reindex(report.index, fill_value=0.0)
    for column in ("correct", "miss", "false_alarm", "confusion"):
        np.testing.assert_allclose(sums[column], report[column], atol=1e-9, err_msg=column)
    # an "unscored" span carries no time; a span's components are at most its speakers' time
    unscored = outcomes["outcome"] == "unscored"
    assert (outcomes.loc[unscored, ["correct", "miss", "false_alarm", "confusion"]] == 0).all().all()
    assert (outcomes["duration"] > 0).all()
    return outcomes


@pytest.mark.parametrize("options", CASES, ids=lambda o: ",".join(f"{k}={v if k != 'uem' else 'uem'}" for k, v in o.items()) or "default")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sums_equal_report(seed, options):
    truth, prediction = _random(seed)
    _check_sums(truth, prediction, options)


def test_hand_case():
    truth = _series([("f1", 0, 2, "A"), ("f1", 2, 4, "B")])
    prediction = _series([("f1", 0, 2.5, 7), ("f1", 2.5, 4, 3)])
    out = audeval.diarization_outcomes(truth, prediction, files_duration={"f1": 4})
    assert out["truth"].tolist() == ["A", "B", "B"]
    assert out["prediction"].tolist() == ["A", "A", "B"]  # 7 is mapped onto A, 3 onto B
    assert out["outcome"].tolist() == ["correct", "confusion", "correct"]
    assert out["duration"].tolist() == [2.0, 0.5, 1.5]
    assert list(out.index.names) == ["file", "start", "end"]


def test_hand_overlap_and_collar():
    # A 0-4, B 2-6 (overlap 2-4); prediction 0 on 0-6: mapped onto A or B (4 s each -> A first)
    truth = _series([("f", 0, 4, "A"), ("f", 2, 6, "B")])
    prediction = _series([("f", 0, 6, 0)])
    out = audeval.diarization_outcomes(truth, prediction, files_duration={"f": 8})
    assert out["truth"].tolist() == ["A", "A+B", "B"]
    assert out["outcome"].tolist() == ["correct", "miss", "confusion"]
    assert out["correct"].tolist() == [2.0, 2.0, 0.0]
    assert out["miss"].tolist() == [0.0, 2.0, 0.0]
    assert out["confusion"].tolist() == [0.0, 0.0, 2.0]
    # collar 1 s (total): 0.5 s each side of 0, 2, 4, 6 is unscored
    out = audeval.diarization_outcomes(truth, prediction, files_duration={"f": 8}, collar=1.0)
    unscored = out[out["outcome"] == "unscored"]
    assert unscored["duration"].sum() == pytest.approx(3.5)  # 0-0.5, 1.5-2.5, 3.5-4.5, 5.5-6.5
    # skip_overlap: 2-4 unscored
    out = audeval.diarization_outcomes(truth, prediction, files_duration={"f": 8}, skip_overlap=True)
    assert out["outcome"].tolist() == ["correct", "unscored", "confusion"]


def test_uem_outside_is_unscored():
    truth = _series([("f", 0, 4, "A")])
    prediction = _series([("f", 1, 5, 0)])
    uem = audformat.segmented_index(["f"], [2.0], [3.0])
    out = audeval.diarization_outcomes(truth, prediction, uem=uem)
    scored = out[out["outcome"] != "unscored"]
    assert scored["duration"].sum() == pytest.approx(1.0)
    assert scored["outcome"].tolist() == ["correct"]


def test_table_in_place_of_truth_raises():
    truth, prediction = _random(0)
    table = audeval.diarization_statistics(truth, prediction, files_duration=DURATIONS)
    with pytest.raises(TypeError, match="diarization_outcomes"):
        audeval.diarization_outcomes(table, None)


def test_no_stray_warnings():
    truth, prediction = _random(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        audeval.diarization_outcomes(truth, prediction, files_duration=DURATIONS, collar=0.2)


def test_empty_sides():
    truth = _series([("f", 0, 2, "A")])
    empty = pd.Series([], dtype=object, index=audformat.segmented_index([], [], []))
    out = audeval.diarization_outcomes(truth, empty, files_duration={"f": 3})
    assert out["outcome"].tolist() == ["miss"] and out["miss"].tolist() == [2.0]
    assert out["prediction"].tolist() == [""]
    out = audeval.diarization_outcomes(empty, truth, files_duration={"f": 3})
    assert out["outcome"].tolist() == ["false_alarm"] and out["false_alarm"].tolist() == [2.0]
    with pytest.warns(audeval.FilesWithoutRowsWarning):
        out = audeval.diarization_outcomes(empty, empty, files_duration={"f": 3})
    assert len(out) == 0 and list(out.index.names) == ["file", "start", "end"]


def test_pyannote_self_overlap_counts_twice():
    # A overlaps itself on 1-2: compat="pyannote" counts it twice (truth "A*2")
    truth = _series([("f", 0, 2, "A"), ("f", 1, 3, "A")])
    prediction = _series([("f", 0, 3, 5)])
    out = audeval.diarization_outcomes(truth, prediction, files_duration={"f": 3}, compat="pyannote")
    assert out["truth"].tolist() == ["A", "A*2", "A"]
    assert out["miss"].tolist() == [0.0, 1.0, 0.0]
    assert out["correct"].tolist() == [1.0, 1.0, 1.0]
    out = audeval.diarization_outcomes(truth, prediction, files_duration={"f": 3})
    assert out["truth"].tolist() == ["A"] and out["outcome"].tolist() == ["correct"]


hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


@st.composite
def _sides(draw):
    def rows(labels):
        n = draw(st.integers(0, 6))
        out = []
        for _ in range(n):
            f = draw(st.sampled_from(["f0", "f1"]))
            start = draw(st.integers(0, 30)) / 4
            length = draw(st.integers(1, 12)) / 4
            out.append((f, start, start + length, draw(st.sampled_from(labels))))
        return out

    truth, prediction = rows(["A", "B", "C"]), rows([0, 1, 2])
    hypothesis.assume(truth and prediction)
    return _series(truth), _series(prediction)


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(_sides(), st.sampled_from(CASES))
def test_sums_equal_report_hypothesis(sides, options):
    truth, prediction = sides
    with warnings.catch_warnings():  # files of DURATIONS without rows: the input gate's warning
        warnings.simplefilter("ignore", audeval.FilesWithoutRowsWarning)
        _check_sums(truth, prediction, options)


# -------------------------------------------------------------------------
# diarization_speaker_outcomes, diarization_scored_region
# -------------------------------------------------------------------------


def _seconds(index, level):
    return index.get_level_values(level).total_seconds().to_numpy()


def _check_speaker_sums(truth, prediction, options):
    speakers = audeval.diarization_speaker_outcomes(truth, prediction, files_duration=DURATIONS, **options)
    report = audeval.diarization_report(truth, prediction, files_duration=DURATIONS, **options)
    report = report.drop(index="TOTAL")
    d = pd.Series(_seconds(speakers.index, "end") - _seconds(speakers.index, "start"), index=speakers.index)
    assert (d > 0).all()
    side, outcome = speakers["side"].to_numpy(), speakers["outcome"].to_numpy()

    def per_file(keep):
        return d[keep].groupby(level="file").sum().reindex(report.index, fill_value=0.0)

    if options.get("compat") is None:  # pyannote counts a speaker overlapping itself twice
        np.testing.assert_allclose(per_file((side == "truth") & (outcome == "correct")), report["correct"], atol=1e-9)
        np.testing.assert_allclose(per_file((side == "prediction") & (outcome == "correct")), report["correct"], atol=1e-9)
        np.testing.assert_allclose(per_file((side == "truth") & (outcome != "unscored")), report["total"], atol=1e-9)
        np.testing.assert_allclose(
            per_file((side == "prediction") & (outcome != "unscored")),
            report["correct"] + report["confusion"] + report["false_alarm"],
            atol=1e-9,
        )
    # runs are the longest: two rows of one (file, side, speaker, outcome) never touch
    frame = speakers.reset_index()
    frame = frame.sort_values(["file", "side", "speaker", "outcome", "start"], kind="stable")
    same = (frame[["file", "side", "speaker", "outcome"]].shift() == frame[["file", "side", "speaker", "outcome"]]).all(axis=1)
    assert not (same & (frame["start"] == frame["end"].shift())).any()
    return speakers


@pytest.mark.parametrize("options", CASES, ids=lambda o: ",".join(f"{k}={v if k != 'uem' else 'uem'}" for k, v in o.items()) or "default")
@pytest.mark.parametrize("seed", [0, 1])
def test_speaker_outcomes_sum_to_report(seed, options):
    truth, prediction = _random(seed)
    _check_speaker_sums(truth, prediction, options)


def test_speaker_outcomes_hand_case():
    # A 0-4 and B 2-6 overlap on 2-4; cluster 0 on 0-6 is mapped onto A (first of two 4 s ties)
    truth = _series([("f", 0, 4, "A"), ("f", 2, 6, "B")])
    prediction = _series([("f", 0, 6, 0)])
    out = audeval.diarization_speaker_outcomes(truth, prediction, files_duration={"f": 8}, collar=1.0)
    rows = list(
        zip(
            out["side"], out["speaker"], out["partner"], out["outcome"],
            _seconds(out.index, "start"), _seconds(out.index, "end"),
        )
    )
    assert rows == [
        ("truth", "A", 0, "unscored", 0.0, 0.5),
        ("truth", "A", 0, "correct", 0.5, 1.5),
        ("truth", "A", 0, "unscored", 1.5, 2.5),
        ("truth", "A", 0, "correct", 2.5, 3.5),
        ("truth", "A", 0, "unscored", 3.5, 4.0),
        ("truth", "B", None, "unscored", 2.0, 2.5),
        ("truth", "B", None, "error", 2.5, 3.5),
        ("truth", "B", None, "unscored", 3.5, 4.5),
        ("truth", "B", None, "error", 4.5, 5.5),
        ("truth", "B", None, "unscored", 5.5, 6.0),
        ("prediction", 0, "A", "unscored", 0.0, 0.5),
        ("prediction", 0, "A", "correct", 0.5, 1.5),
        ("prediction", 0, "A", "unscored", 1.5, 2.5),
        ("prediction", 0, "A", "correct", 2.5, 3.5),
        ("prediction", 0, "A", "unscored", 3.5, 4.5),
        ("prediction", 0, "A", "error", 4.5, 5.5),
        ("prediction", 0, "A", "unscored", 5.5, 6.0),
    ]


def test_identity_partner_is_the_same_label():
    # A of both sides never speak together: still each other's partner under "identity"
    truth = _series([("f", 0, 2, "A"), ("f", 2, 4, "B")])
    prediction = _series([("f", 2, 4, "A")])
    out = audeval.diarization_speaker_outcomes(truth, prediction, files_duration={"f": 4}, mapping="identity")
    assert out["partner"].dtype == object and out["speaker"].dtype == object
    assert dict(zip(out["speaker"] + ":" + out["side"].astype(str), out["partner"])) == {
        "A:truth": "A", "B:truth": None, "A:prediction": "A"
    }
    assert out["outcome"].tolist() == ["error", "error", "error"]


def test_scored_region_hand_case():
    truth = _series([("f", 0, 4, "A"), ("f", 2, 6, "B")])
    prediction = _series([("f", 0, 6, 0)])
    region = audeval.diarization_scored_region(
        truth, prediction, files_duration={"f": 8}, collar=1.0, skip_overlap=True
    )
    assert list(region.names) == ["file", "start", "end"]
    assert list(zip(_seconds(region, "start"), _seconds(region, "end"))) == [(0.5, 1.5), (4.5, 5.5), (6.5, 8.0)]
    uem = audformat.segmented_index(["f", "g"], [1.0, 0.0], [7.0, 3.0])
    region = audeval.diarization_scored_region(truth, prediction, files_duration={"f": 8}, uem=uem)
    assert region.get_level_values("file").tolist() == ["f", "g"]
    assert list(zip(_seconds(region, "start"), _seconds(region, "end"))) == [(1.0, 7.0), (0.0, 3.0)]


@pytest.mark.parametrize(
    "options",
    [case for case in CASES if case.get("collar_convention") != "per_side" and case],
    ids=lambda o: ",".join(f"{k}={v if k != 'uem' else 'uem'}" for k, v in o.items()),
)
def test_scored_region_is_the_uem_the_options_amount_to(options):
    truth, prediction = _random(4)
    region_options = {k: v for k, v in options.items() if k not in ("mapping", "individual_file_mapping")}
    region = audeval.diarization_scored_region(truth, prediction, files_duration=DURATIONS, **region_options)
    expected = audeval.diarization_error_rate(truth, prediction, files_duration=DURATIONS, **options)
    plain = {k: v for k, v in options.items() if k in ("mapping", "individual_file_mapping", "compat")}
    assert audeval.diarization_error_rate(
        truth, prediction, files_duration=DURATIONS, uem=region, **plain
    ) == pytest.approx(expected, abs=1e-12)
    # the spans outside the region are exactly the "unscored" ones
    outcomes = audeval.diarization_outcomes(truth, prediction, files_duration=DURATIONS, **options)
    unscored = outcomes[(outcomes["outcome"] == "unscored").to_numpy()]
    for file in DURATIONS:
        r = region[region.get_level_values("file") == file]
        u = unscored[unscored.index.get_level_values("file") == file].index
        inside = np.zeros(len(u), dtype=bool)
        for s, e in zip(_seconds(r, "start"), _seconds(r, "end")):
            inside |= (_seconds(u, "start") < e) & (_seconds(u, "end") > s)
        assert not inside.any()


def test_new_functions_reject_a_table():
    truth, prediction = _random(0)
    table = audeval.diarization_statistics(truth, prediction, files_duration=DURATIONS)
    with pytest.raises(TypeError, match="diarization_speaker_outcomes"):
        audeval.diarization_speaker_outcomes(table, None)
    with pytest.raises(TypeError, match="diarization_scored_region"):
        audeval.diarization_scored_region(table, None)
    with pytest.raises(ValueError, match="collar_convention"):
        audeval.diarization_scored_region(truth, prediction, collar_convention="both")
