"""Diarization: unrelated label sets, mapping, UEM, collar conventions, regions, compat,
cluster and speaker-change metrics, and the statistics-table path of each."""

import os
import warnings

import audformat
import hypothesis
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_GENERATED_FILES as GENERATED_FILES
from conftest import MAY_WARN_FILES_WITHOUT_ROWS

import audeval
from audeval import _diarization as dia

from conftest import series


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return func(*args, **kwargs)


TRUTH = series(
    [
        ("f1", 0, 4, "alice"),
        ("f1", 3, 7, "bob"),
        ("f1", 8, 10, "alice"),
        ("f2", 0, 5, "carol"),
        ("f2", 5, 9, "alice"),
    ]
)
PREDICTION = series(
    [
        ("f1", 0, 3.5, 0),
        ("f1", 3.5, 7, 1),
        ("f1", 7.5, 10, 0),
        ("f2", 0, 6, 2),
        ("f2", 6, 9, 0),
    ]
)
DURATIONS = {"f1": 10, "f2": 10}


# --- issue 18 #7: str speakers against int clusters ------------------------------------


def test_str_truth_int_clusters():
    der = audeval.diarization_error_rate(TRUTH, PREDICTION, files_duration=DURATIONS)
    # f1: total 4 + 4 + 2 = 10, overlap [3, 4) one missed, alice/0 bob/1: confusion 0.5 ([3.5, 4)
    # is bob/1 while alice speaks: 1 correct of 2 there); f2: carol/2 alice/0, confusion 1
    report = audeval.diarization_report(TRUTH, PREDICTION, files_duration=DURATIONS)
    assert report.loc["f1", "miss"] == 1.0
    assert report.loc["f1", "false_alarm"] == 0.5
    assert report.loc["f2", "confusion"] == 1.0
    assert der == pytest.approx(report.loc["TOTAL", "diarization_error_rate"])
    stats = audeval.diarization_statistics(TRUTH, PREDICTION, files_duration=DURATIONS)
    assert list(stats.index.levels[1]) == ["alice", "bob", "carol"]
    assert list(stats.index.levels[2]) == [0, 1, 2]
    assert audeval.diarization_error_rate(stats) == der


def test_detection_str_truth_int_prediction():
    value = audeval.detection_error_rate(TRUTH, PREDICTION, files_duration=DURATIONS)
    # f1 truth speech [0, 7) [8, 10), prediction [0, 7) [7.5, 10): fa 0.5; f2 equal
    assert value == pytest.approx(0.5 / 18)


def test_categorical_truth_keeps_its_order():
    truth = TRUTH.astype(pd.CategoricalDtype(["carol", "bob", "alice"]))
    stats = audeval.diarization_statistics(truth, PREDICTION, files_duration=DURATIONS)
    assert list(stats.index.levels[1]) == ["carol", "bob", "alice"]
    assert audeval.diarization_error_rate(stats) == audeval.diarization_error_rate(
        TRUTH, PREDICTION, files_duration=DURATIONS
    )


# --- issue 18 #8: the mapping ----------------------------------------------------------


def test_mapping_per_file_and_global():
    mapping = dia.diarization_mapping(TRUTH, PREDICTION, files_duration=DURATIONS)
    assert mapping["prediction"].to_dict() == {
        ("f1", "alice"): 0,
        ("f1", "bob"): 1,
        ("f2", "alice"): 0,
        ("f2", "carol"): 2,
    }
    report = audeval.diarization_report(TRUTH, PREDICTION, files_duration=DURATIONS)
    assert mapping.groupby(level="file")["duration"].sum().to_dict() == pytest.approx(
        report["correct"].drop("TOTAL").to_dict()
    )
    overall = dia.diarization_mapping(
        TRUTH, PREDICTION, individual_file_mapping=False, files_duration=DURATIONS
    )
    assert overall["prediction"].to_dict() == {"alice": 0, "bob": 1, "carol": 2}
    assert list(overall.index.names) == ["truth"]
    greedy = dia.diarization_mapping(TRUTH, PREDICTION, mapping="greedy", files_duration=DURATIONS)
    assert greedy["prediction"].to_dict() == mapping["prediction"].to_dict()


def test_mapping_from_table():
    stats = audeval.diarization_statistics(TRUTH, PREDICTION, files_duration=DURATIONS)
    pd.testing.assert_frame_equal(
        dia.diarization_mapping(stats),
        dia.diarization_mapping(TRUTH, PREDICTION, files_duration=DURATIONS),
    )


# --- issue 18 #15: a misspelt positive label -------------------------------------------


def test_positive_label_typo_raises():
    truth = series([("f", 0, 2, "speech"), ("f", 2, 4, "music")])
    prediction = series([("f", 0, 2, "speech")])
    with pytest.raises(ValueError, match=r"positive_labels \['Speech'\] occur in neither"):
        audeval.detection_error_rate(truth, prediction, ["Speech"])
    with pytest.raises(ValueError, match="Speech"):
        audeval.detection_statistics(truth, prediction, ["speech", "Speech"])
    with pytest.raises(ValueError, match="Speech"):
        audeval.detection_report(truth, prediction, ["Speech"])
    # a label found on one side only is fine
    assert audeval.detection_error_rate(truth, prediction, ["music"], files_duration={"f": 4}) == 1.0
    with pytest.raises(TypeError, match="positive_labels"):
        audeval.detection_error_rate(truth, prediction, "speech")


# --- UEM ---------------------------------------------------------------------------------


def test_uem_of_whole_files_equals_files_duration():
    uem = audformat.segmented_index(["f1", "f2"], [0, 0], [10, 10])
    for function in (audeval.diarization_error_rate, audeval.jaccard_error_rate):
        assert function(TRUTH, PREDICTION, uem=uem) == function(
            TRUTH, PREDICTION, files_duration=DURATIONS
        )


def test_uem_several_intervals():
    truth = series([("f", 0, 10, "A")])
    prediction = series([("f", 0, 5, 1), ("f", 5, 10, 2)])
    uem = audformat.segmented_index(["f", "f"], [0, 6], [2, 8])
    report = audeval.diarization_report(truth, prediction, uem=uem)
    assert report.loc["f", "total"] == 4.0
    assert report.loc["f", "confusion"] == 2.0
    # a Series with such an index works too, and a table made with it
    stats = audeval.diarization_statistics(truth, prediction, uem=pd.Series(1, index=uem))
    assert audeval.diarization_error_rate(stats) == 0.5
    with pytest.raises(ValueError, match="uem cannot be applied"):
        audeval.diarization_error_rate(stats, uem=uem)


def test_uem_files_without_annotations_are_evaluated():
    truth = series([("f", 0, 2, "speech")])
    prediction = series([("f", 0, 2, "speech")])
    uem = audformat.segmented_index(["f", "g"], [0, 0], [4, 5])
    stats = audeval.detection_statistics(truth, prediction, uem=uem)
    assert list(stats.index) == ["f", "g"]
    assert stats.loc["g", "true_negative"] == 5_000_000_000


def test_uem_errors():
    with pytest.raises(TypeError, match="uem"):
        audeval.diarization_error_rate(TRUTH, PREDICTION, uem=[("f1", 0, 1)])
    bad = audformat.segmented_index(["f1"], [2], [1])
    with pytest.raises(ValueError, match="uem"):
        audeval.diarization_error_rate(TRUTH, PREDICTION, uem=bad)


@MAY_WARN_FILES_WITHOUT_ROWS
def test_uem_beyond_files_duration_warns_and_is_cropped():
    """Issue 33 #14: a UEM row past the end of its file is warned about (naming the rows)
    as truth and prediction rows are, and cropped to [0, duration]."""
    truth = series([("f", 0, 10, "A")])
    prediction = series([("f", 0, 6, "x")])
    uem = audformat.segmented_index(["f", "f", "g"], [0, 12, 0], [11, 30, 5])
    durations = {"f": 10, "g": 5}
    with pytest.warns(UserWarning, match=r"uem has rows beyond the duration[\s\S]*2 row\(s\)") as record:
        stats = audeval.detection_statistics(truth, prediction, uem=uem, files_duration=durations)
    beyond = [w for w in record if "uem has rows beyond" in str(w.message)]
    assert "00:00:30" in str(beyond[0].message)  # the offending rows are shown
    assert stats.loc["f", "true_negative"] == 0  # nothing scored after 10 s
    assert (stats.sum(axis=1) == pd.Series([10, 5], index=stats.index) * 1_000_000_000).all()
    with pytest.warns(UserWarning, match="uem has rows beyond"):
        der = audeval.diarization_error_rate(truth, prediction, uem=uem, files_duration=durations)
    assert der == 0.4
    inside = audformat.segmented_index(["f"], [0], [10])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        audeval.diarization_error_rate(truth, prediction, uem=inside, files_duration={"f": 10})


@pytest.mark.parametrize("beta", [-1, 0, 0.0, float("nan"), float("inf")])
@pytest.mark.parametrize(
    "function, args",
    [
        (dia.diarization_purity_coverage, {"files_duration": {"f": 10}}),
        (dia.identification_precision_recall, {"files_duration": {"f": 10}}),
        (audeval.detection_report, {"files_duration": {"f": 10}}),
        (dia.speaker_change_precision_recall, {}),
        (dia.speaker_change_purity_coverage, {}),
    ],
)
def test_non_positive_beta_raises(function, args, beta):
    """Issue 33 #14: beta=-1 was accepted (an F-score above 1); the error names beta."""
    truth = series([("f", 0, 10, "A")])
    prediction = series([("f", 0, 6, "A")])
    with pytest.raises(ValueError, match="beta must be a positive"):
        function(truth, prediction, beta=beta, **args)
    with pytest.raises(TypeError, match="beta"):
        function(truth, prediction, beta="1", **args)

def test_read_uem(tmp_path):
    path = tmp_path / "x.uem"
    path.write_text(";; comment\nf1 1 0.0 4.5\n\nf1 1 6 10\nf2 1 0 10.0\n")
    uem = audeval.read_uem(path) if hasattr(audeval, "read_uem") else dia.read_uem(path)
    assert list(uem.get_level_values("file")) == ["f1", "f1", "f2"]
    assert uem.get_level_values("end")[0] == pd.Timedelta(4.5, unit="s")
    value = audeval.diarization_error_rate(TRUTH, PREDICTION, uem=uem)
    assert 0 < value < 1
    path.write_text("f1 1 0.0\n")
    with pytest.raises(ValueError, match="line 1"):
        dia.read_uem(path)
    path.write_text("f1 1 5 4\n")
    with pytest.raises(ValueError, match="line 1"):
        dia.read_uem(path)


# --- collar conventions ----------------------------------------------------------------


def test_collar_conventions():
    truth = series([("f", 0, 4, "A"), ("f", 4, 8, "B")])
    prediction = series([("f", 0, 5, 1), ("f", 5, 8, 2)])
    kwargs = {"files_duration": {"f": 8}}
    # boundary at 4, one second off: total width 2 (1 each side) forgives it,
    # per side 1 (2 in all) as well; total width 1 does not
    assert audeval.diarization_error_rate(truth, prediction, collar=2.0, **kwargs) == 0.0
    assert (
        audeval.diarization_error_rate(
            truth, prediction, collar=1.0, collar_convention="per_side", **kwargs
        )
        == 0.0
    )
    assert audeval.diarization_error_rate(truth, prediction, collar=1.0, **kwargs) > 0
    for total in (0.5, 1.0, 1.5):
        assert audeval.diarization_error_rate(
            truth, prediction, collar=total, **kwargs
        ) == audeval.diarization_error_rate(
            truth, prediction, collar=total / 2, collar_convention="per_side", **kwargs
        )
    report = audeval.diarization_report(
        truth, prediction, collar=0.5, collar_convention="per_side", **kwargs
    )
    assert report.attrs["collar_convention"] == "per_side"
    stats = audeval.diarization_statistics(
        truth, prediction, collar=0.5, collar_convention="per_side", **kwargs
    )
    assert audeval.diarization_report(stats).attrs["collar_convention"] == "per_side"
    with pytest.raises(ValueError, match="collar_convention"):
        audeval.diarization_error_rate(stats, collar_convention="total")
    with pytest.raises(ValueError, match="collar_convention"):
        audeval.diarization_error_rate(truth, prediction, collar_convention="both")
    assert audeval.detection_error_rate(
        truth, prediction, collar=1.0, collar_convention="per_side", **kwargs
    ) == audeval.detection_error_rate(truth, prediction, collar=2.0, **kwargs)


# --- regions -----------------------------------------------------------------------------


def test_regions_split_the_components():
    kwargs = {"files_duration": DURATIONS}
    reports = {
        r: audeval.diarization_report(TRUTH, PREDICTION, regions=r, **kwargs).loc["TOTAL"]
        for r in ("all", "single", "overlap", "nonoverlap")
    }
    for column in ("total", "correct", "confusion", "miss", "false_alarm"):
        assert reports["all"][column] == pytest.approx(
            reports["overlap"][column] + reports["nonoverlap"][column]
        )
    assert reports["single"]["total"] == reports["nonoverlap"]["total"]
    # silence false alarm: f1 [7.5, 8)
    assert reports["nonoverlap"]["false_alarm"] - reports["single"]["false_alarm"] == 0.5
    assert reports["overlap"]["total"] == 2.0  # [3, 4) with two speakers
    assert reports["overlap"]["miss"] == 1.0
    der = audeval.diarization_error_rate(TRUTH, PREDICTION, regions="overlap", **kwargs)
    assert der == reports["overlap"]["diarization_error_rate"]
    with pytest.raises(ValueError, match="regions"):
        audeval.diarization_error_rate(TRUTH, PREDICTION, regions="both", **kwargs)


# --- compat="pyannote" -------------------------------------------------------------------


def test_compat_pyannote_counts_self_overlap_twice():
    truth = series([("f", 0, 10, "A"), ("f", 5, 15, "A")])
    prediction = series([("f", 0, 15, 1)])
    report = audeval.diarization_report(truth, prediction, compat="pyannote", files_duration={"f": 15})
    assert report.loc["f", "total"] == 20.0
    assert report.loc["f", "miss"] == 5.0
    assert report.loc["f", "diarization_error_rate"] == 0.25
    stats = audeval.diarization_statistics(truth, prediction, compat="pyannote", files_duration={"f": 15})
    assert {"matched", "matched_overlap"} <= set(stats.columns)
    assert audeval.diarization_error_rate(stats) == 0.25
    with pytest.raises(ValueError, match="compat"):
        audeval.diarization_error_rate(stats, compat=None)
    with pytest.raises(ValueError, match="compat"):
        audeval.diarization_error_rate(truth, prediction, compat="md-eval")


# --- cluster metrics by hand -----------------------------------------------------------


def test_purity_coverage_homogeneity_by_hand():
    truth = series([("f", 0, 4, "A"), ("f", 4, 8, "B")])
    prediction = series([("f", 0, 8, 1)])
    purity, coverage, f = dia.diarization_purity_coverage(truth, prediction, files_duration={"f": 8})
    assert (purity, coverage) == (0.5, 1.0)
    assert f == pytest.approx(2 / 3)
    homogeneity, completeness = dia.diarization_homogeneity_completeness(
        truth, prediction, files_duration={"f": 8}
    )
    assert (homogeneity, completeness) == (0.0, 1.0)


def test_speaker_report_sums_to_report():
    speakers = dia.diarization_speaker_report(TRUTH, PREDICTION, files_duration=DURATIONS)
    report = audeval.diarization_report(TRUTH, PREDICTION, files_duration=DURATIONS)
    assert speakers["correct"].sum() == pytest.approx(report.loc["TOTAL", "correct"])
    assert speakers["jaccard_error_rate"].mean() == pytest.approx(
        report.loc["TOTAL", "jaccard_error_rate"]
    )
    assert speakers.loc[("f1", "bob"), "prediction"] == 1


def test_identification_precision_recall_by_hand():
    truth = series([("f", 0, 4, "A")])
    prediction = series([("f", 0, 2, "A"), ("f", 2, 6, "B")])
    p, r, f = dia.identification_precision_recall(truth, prediction, files_duration={"f": 6})
    assert (p, r) == (2 / 6, 0.5)


def test_cluster_report_degenerate_cases():
    truth = series([("f", 0, 4, "A")])
    prediction = series([("f", 0, 4, 1)])
    report = dia.diarization_cluster_report(truth, prediction, files_duration={"f": 4})
    row = report.loc["f"]
    assert (row["mi"], row["nmi"], row["tau_ref_sys"], row["tau_sys_ref"]) == (0.0, 1.0, 1.0, 1.0)
    report = dia.diarization_cluster_report(truth, prediction, files_duration={"f": 8})
    assert report.loc["f", "nmi"] == 1.0  # silence [4, 8) is a class on both sides
    assert report.loc["f", "mi"] == 1.0
    frames = dia.diarization_cluster_report(truth, prediction, frame_size=0.01, files_duration={"f": 8})
    pd.testing.assert_frame_equal(frames, report)


def test_speaker_change_by_hand():
    truth = series([("f", 0, 2, "A"), ("f", 2, 4, "B"), ("f", 4, 6, "A")])
    prediction = series([("f", 0, 2.4, 1), ("f", 2.4, 6, 2)])
    assert dia.speaker_change_precision_recall(truth, prediction) == (0.0, 0.0, 0.0)
    p, r, f = dia.speaker_change_precision_recall(truth, prediction, tolerance=0.5)
    assert (p, r) == (1.0, 0.5)
    purity, coverage, _ = dia.speaker_change_purity_coverage(truth, prediction)
    assert purity == pytest.approx((2 + 2) / 6)  # pieces [0, 2.4) and [2.4, 6)
    assert coverage == pytest.approx((2 + 1.6 + 2) / 6)


@pytest.mark.parametrize(
    "truth, prediction",
    [
        (series([]), series([("f", 0, 3, "x"), ("f", 3, 6, "y")])),
        (series([("f", 0, 3, "A"), ("f", 3, 6, "B")]), series([])),
        (series([]), series([])),
    ],
    ids=["empty-truth", "empty-prediction", "both-empty"],
)
def test_speaker_change_empty_side(truth, prediction):
    """Issue 33 #12: an empty side gave IndexError; now the documented zero-division values
    (1 where there are no boundaries or no overlap), as pyannote.metrics 4.2 gives them."""
    stats = dia.speaker_change_statistics(truth, prediction)
    assert (stats[["matches", "coverage", "purity", "intersection"]] == 0).all(axis=None)
    has_p = len(prediction) > 0
    has_t = len(truth) > 0
    assert stats["prediction_boundaries"].sum() == int(has_p)
    assert stats["truth_boundaries"].sum() == int(has_t)
    precision, recall, _ = dia.speaker_change_precision_recall(truth, prediction)
    assert (precision, recall) == (0.0 if has_p else 1.0, 0.0 if has_t else 1.0)
    assert dia.speaker_change_purity_coverage(truth, prediction) == (1.0, 1.0, 1.0)

# --- statistics tables: same numbers, options checked, shards add up --------------------


METRICS = [
    (audeval.diarization_error_rate, {}),
    (audeval.diarization_error_rate, {"regions": "overlap"}),
    (audeval.diarization_error_rate, {"mapping": "greedy", "individual_file_mapping": False}),
    (audeval.identification_error_rate, {}),
    (audeval.jaccard_error_rate, {}),
    (dia.identification_precision_recall, {}),
    (dia.diarization_purity_coverage, {}),
    (dia.diarization_homogeneity_completeness, {}),
]


@pytest.mark.parametrize("function, kwargs", METRICS)
@pytest.mark.parametrize("options", [{}, {"collar": 0.5, "collar_convention": "per_side"}, {"compat": "pyannote"}])
def test_table_path_equals_direct(function, kwargs, options):
    direct = function(TRUTH, PREDICTION, files_duration=DURATIONS, **kwargs, **options)
    stats = audeval.diarization_statistics(TRUTH, PREDICTION, files_duration=DURATIONS, **options)
    assert function(stats, **kwargs) == direct
    assert function(stats, **kwargs, **options) == direct
    shards = [
        audeval.diarization_statistics(
            TRUTH[TRUTH.index.get_level_values("file") == f],
            PREDICTION[PREDICTION.index.get_level_values("file") == f],
            files_duration={f: DURATIONS[f]},  # a shard's own files (issue 33 item 6)
            **options,
        )
        for f in ("f2", "f1")
    ]
    summed = pd.concat(shards)
    summed.attrs = shards[0].attrs
    assert function(summed, **kwargs) == pytest.approx(direct, abs=1e-12)


@pytest.mark.filterwarnings("ignore:files_duration is not known")
def test_other_tables_add_up():
    for statistics, metric, options in (
        (dia.speaker_change_statistics, dia.speaker_change_precision_recall, {"tolerance": 0.5}),
        (dia.speaker_change_statistics, dia.speaker_change_purity_coverage, {"gap_tolerance": 0.5}),
        (dia.speaker_set_statistics, dia.diarization_cluster_report, {"frame_size": 0.01}),
    ):
        direct = metric(TRUTH, PREDICTION, **options)
        stats = statistics(TRUTH, PREDICTION, **options)
        one = metric(stats)
        shards = [
            statistics(
                TRUTH[TRUTH.index.get_level_values("file") == f],
                PREDICTION[PREDICTION.index.get_level_values("file") == f],
                **options,
            )
            for f in ("f2", "f1")
        ]
        summed = pd.concat(shards)
        summed.attrs = shards[0].attrs
        if isinstance(direct, pd.DataFrame):
            pd.testing.assert_frame_equal(one, direct)
            pd.testing.assert_frame_equal(metric(summed), direct)
        else:
            assert one == direct
            assert metric(summed) == direct
        name = next(iter(options))
        with pytest.raises(ValueError, match=name):
            metric(stats, **{name: 1.0})


def test_detection_table_records_positive_labels():
    truth = series([("f", 0, 2, "speech"), ("f", 2, 4, "music")])
    prediction = series([("f", 0, 3, "speech")])
    stats = audeval.detection_statistics(truth, prediction, ["speech"], files_duration={"f": 4})
    assert audeval.detection_error_rate(stats) == 0.5
    with pytest.raises(ValueError, match="positive_labels"):
        audeval.detection_error_rate(stats, None, ["music"])


# --- properties ---------------------------------------------------------------------------


turns = st.lists(
    st.tuples(
        st.sampled_from(["a", "b"]),
        st.integers(0, 30),
        st.integers(1, 10),
        st.sampled_from(["x", "y", "z"]),
    ),
    min_size=1,
    max_size=10,
)
clusters = st.lists(
    st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 30), st.integers(1, 10), st.integers(0, 3)),
    min_size=1,
    max_size=10,
)


def _series(rows):
    return series([(f, s, s + d, label) for f, s, d, label in rows])


@GENERATED_FILES
@hypothesis.settings(max_examples=15, deadline=None)
@hypothesis.given(truth=turns, prediction=clusters, shift=st.integers(1, 50), seed=st.integers(0, 9))
def test_invariant_to_cluster_renaming_and_row_order(truth, prediction, shift, seed):
    truth, prediction = _series(truth), _series(prediction)
    renamed = prediction.map(lambda c: c * 7 + shift)
    shuffled = truth.sample(frac=1.0, random_state=seed)
    durations = {"a": 45, "b": 45}

    def values(t, p):
        return (
            audeval.diarization_error_rate(t, p, files_duration=durations),
            audeval.diarization_error_rate(t, p, regions="single", files_duration=durations),
            dia.diarization_purity_coverage(t, p, files_duration=durations),
            dia.diarization_homogeneity_completeness(t, p, files_duration=durations),
            dia.speaker_change_precision_recall(t, p, tolerance=1.0),
            dia.speaker_change_purity_coverage(t, p),
            tuple(dia.diarization_cluster_report(t, p, files_duration=durations).loc["TOTAL"]),
        )

    reference = values(truth, prediction)
    np.testing.assert_allclose(
        np.hstack([np.ravel(v) for v in values(shuffled, renamed)]),
        np.hstack([np.ravel(v) for v in reference]),
        atol=1e-12,
    )


@GENERATED_FILES
@hypothesis.settings(max_examples=20, deadline=None)
@hypothesis.given(truth=turns, prediction=clusters)
def test_cluster_report_exact_equals_millisecond_frames(truth, prediction):
    """Times on a whole-second grid: 1 ms frames count the exact durations."""
    truth, prediction = _series(truth), _series(prediction)
    durations = {"a": 45, "b": 45}
    exact = dia.diarization_cluster_report(truth, prediction, files_duration=durations)
    frames = dia.diarization_cluster_report(truth, prediction, frame_size=0.001, files_duration=durations)
    np.testing.assert_allclose(frames.to_numpy(), exact.to_numpy(), atol=1e-9)


def test_new_functions_are_exported_by_the_package_module():
    for name in (
        "diarization_mapping",
        "read_uem",
        "diarization_purity_coverage",
        "diarization_homogeneity_completeness",
        "identification_precision_recall",
        "diarization_speaker_report",
        "speaker_change_statistics",
        "speaker_change_precision_recall",
        "speaker_change_purity_coverage",
        "speaker_set_statistics",
        "diarization_cluster_report",
    ):
        assert name in dia.__all__
        assert callable(getattr(dia, name))
    assert os.path.basename(dia.__file__) == "__init__.py"


def test_cli_positive_label_typo_exits_2(tmp_path):
    import subprocess
    import sys

    (tmp_path / "r.rttm").write_text("SPEAKER m 1 0.00 4.00 <NA> <NA> speech <NA> <NA>\n")
    (tmp_path / "s.rttm").write_text("SPEAKER m 1 0.00 3.00 <NA> <NA> speech <NA> <NA>\n")
    result = subprocess.run(
        [sys.executable, "-m", "audeval", "detection", str(tmp_path / "r.rttm"),
         str(tmp_path / "s.rttm"), "--positive-labels", "Speech"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2
    assert "positive_labels ['Speech'] occur in neither" in result.stderr
