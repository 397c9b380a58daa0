"""The validation gate: every bad input of SPEC section 1, and what good input becomes."""

import warnings

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._core.validation import NAT, check_inputs, file_extent, to_ns
from audeval._core.warnings import UndefinedMetricWarning

from conftest import series


GOOD = series([("f1", 0.0, 1.0, "a"), ("f2", 0.5, 2.0, "b")])


# --- bad inputs: type, message naming the argument, offending rows shown --------


def test_not_a_series():
    with pytest.raises(TypeError, match="truth must be a pandas.Series"):
        audeval.event_fscore([1, 2], GOOD)
    with pytest.raises(TypeError, match="prediction must be a pandas.Series .* DataFrame"):
        audeval.event_fscore(GOOD, GOOD.to_frame("x"))


def test_not_a_segmented_index():
    bad = pd.Series(["a"], index=pd.Index(["f1"], name="filename"))
    with pytest.raises(ValueError, match=r"prediction must have an audformat segmented index.*\['filename'\]"):
        audeval.event_fscore(GOOD, bad)


def test_filewise_index_rejected_where_segments_are_needed():
    filewise = pd.Series(["a"], index=audformat.filewise_index(["f1"]))
    with pytest.raises(ValueError, match="truth has a filewise index"):
        check_inputs(filewise, GOOD, allow_filewise=False)


def test_nat_start():
    index = pd.MultiIndex.from_arrays(
        [["f1", "f2"], pd.to_timedelta([np.nan, 1.0], unit="s"), pd.to_timedelta([1.0, 2.0], unit="s")],
        names=["file", "start", "end"],
    )
    bad = pd.Series(["a", "b"], index=index)
    with pytest.raises(ValueError, match=r"(?s)truth has NaT start times: 1 row\(s\), first:\n.*f1"):
        audeval.event_fscore(bad, GOOD)


def test_end_before_start():
    index = pd.MultiIndex.from_arrays(
        [["f1", "f2"], pd.to_timedelta([0.0, 3.0], unit="s"), pd.to_timedelta([1.0, 2.0], unit="s")],
        names=["file", "start", "end"],
    )
    bad = pd.Series(["a", "b"], index=index)
    with pytest.raises(ValueError, match=r"(?s)prediction has rows whose end is before their start: 1 row.*\n.*f2"):
        audeval.event_fscore(GOOD, bad)


def test_negative_times():
    index = pd.MultiIndex.from_arrays(
        [["f1"], pd.to_timedelta([-1.0], unit="s"), pd.to_timedelta([1.0], unit="s")],
        names=["file", "start", "end"],
    )
    with pytest.raises(ValueError, match="truth has negative start times"):
        audeval.event_fscore(pd.Series(["a"], index=index), GOOD)


def test_missing_labels():
    bad = series([("f1", 0.0, 1.0, "a"), ("f1", 1.0, 2.0, None)])
    with pytest.raises(ValueError, match=r"truth has missing \(NaN\) labels: 1 row"):
        audeval.event_fscore(bad, GOOD)


def test_mixed_label_types_need_labels():
    mixed = series([("f1", 0.0, 1.0, "a"), ("f1", 1.0, 2.0, 3)])
    with pytest.raises(TypeError, match="cannot be ordered; pass labels="):
        audeval.event_fscore(mixed, GOOD)
    # with labels given it works
    assert audeval.event_fscore(mixed, mixed, labels=["a", 3], onset_tolerance=0.0) == 1.0


def test_unknown_options():
    with pytest.raises(ValueError, match="matching must be one of 'optimal', 'greedy'; got 'best'"):
        audeval.event_fscore(GOOD, GOOD, matching="best")
    with pytest.raises(ValueError, match="average must be one of 'micro', 'macro'; got 'weighted'"):
        audeval.event_fscore(GOOD, GOOD, average="weighted")


def test_bad_tolerances():
    with pytest.raises(ValueError, match="onset_tolerance must not be negative"):
        audeval.event_fscore(GOOD, GOOD, onset_tolerance=-0.1)
    with pytest.raises(TypeError, match="offset_tolerance must be a duration"):
        audeval.event_fscore(GOOD, GOOD, offset_tolerance="0.2")
    with pytest.raises(ValueError, match="duration_tolerance must be a finite, non-negative"):
        audeval.event_fscore(GOOD, GOOD, duration_tolerance=float("nan"))
    with pytest.raises(ValueError, match="at least the onset or the offset must be evaluated"):
        audeval.event_fscore(GOOD, GOOD, onset_tolerance=None, offset_tolerance=None)


def test_nat_end_needs_duration():
    open_end = series([("f1", 0.0, None, "a"), ("f3", 1.0, None, "a")])
    with pytest.raises(ValueError, match=r"truth has rows with end=NaT .* files \['f1', 'f3'\]; pass files_duration"):
        audeval.event_fscore(open_end, GOOD)


def test_duplicate_labels():
    with pytest.raises(ValueError, match="labels must not contain duplicates"):
        audeval.event_fscore(GOOD, GOOD, labels=["a", "a"])


def test_files_duration_type():
    with pytest.raises(TypeError, match="files_duration must be a mapping or a pandas.Series"):
        check_inputs(GOOD, GOOD, files_duration=[1.0])


# --- good inputs --------------------------------------------------------------


def test_inputs_are_not_mutated():
    truth = series([("f2", 1.0, 2.0, "b"), ("f1", 0.0, None, "a")])
    before = truth.copy()
    audeval.event_fscore(truth, GOOD, files_duration={"f1": 3.0})
    pd.testing.assert_series_equal(truth, before)


def test_nanoseconds_and_union_of_files():
    truth = series([("f2", 0.2, 2.2, "b")])
    pred = series([("f1", 0.0, 1.0, "a")], unit="us")
    with pytest.warns(audeval.NoSharedFileWarning):  # issue 33 item 3
        inputs = check_inputs(truth, pred)
    assert list(inputs.files) == ["f1", "f2"]
    assert inputs.labels == ["a", "b"]
    assert inputs.truth.start.tolist() == [200_000_000]
    assert inputs.truth.end.tolist() == [2_200_000_000]
    assert inputs.prediction.end.tolist() == [1_000_000_000]
    assert inputs.truth.file.tolist() == [1]


@pytest.mark.parametrize("dtype", ["object", "string[python]", "string[pyarrow]", "str"])
@pytest.mark.parametrize(
    "names, expected",
    [
        ([], True),
        (["a"], True),
        (["a", "b", "c"], True),
        (["a", "b", "b"], False),  # not unique
        (["b", "a", "c"], False),  # not sorted
        (["a", "ab", "b"], True),  # a prefix sorts first
        (["a", None, "c"], False),  # missing: pandas decides
    ],
)
def test_strictly_increasing_file_levels(dtype, names, expected):
    from audeval._core.file_levels import file_union, strictly_increasing

    pytest.importorskip("pyarrow")
    index = pd.Index(names, dtype=dtype)
    assert strictly_increasing(index) is expected
    if expected and names:  # equal sorted levels are taken as they are
        files, positions = file_union([index, index.copy()])
        assert files.equals(index)
        assert [p.tolist() for p in positions] == [list(range(len(names)))] * 2


def test_nat_end_resolved_and_filewise():
    truth = series([("f1", 0.5, None, "a")])
    filewise = pd.Series(["a"], index=audformat.filewise_index(["f1"]))
    durations = pd.Series([pd.Timedelta(3, unit="s")], index=pd.Index(["f1"], name="file"))
    inputs = check_inputs(truth, filewise, files_duration=durations)
    assert inputs.truth.end.tolist() == [3_000_000_000]
    assert inputs.prediction.start.tolist() == [0]
    assert inputs.prediction.end.tolist() == [3_000_000_000]
    # seconds work as durations too, and unresolved ends stay NaT when allowed
    inputs = check_inputs(truth, filewise, files_duration={"f1": 3}, require_end=True)
    assert inputs.truth.end.tolist() == [3_000_000_000]
    inputs = check_inputs(truth, filewise, require_end=False)
    assert inputs.truth.end.tolist() == [NAT]
    assert file_extent(inputs).tolist() == [500_000_000]


def test_label_order_categorical_then_sorted():
    truth = series([("f1", 0.0, 1.0, "z"), ("f1", 1.0, 2.0, "b")], categories=["z", "b", "q"])
    pred = series([("f1", 0.0, 1.0, "a")])
    # every category is kept (macro averages leave out the unused, see test_events/test_segments)
    assert check_inputs(truth, pred).labels == ["z", "b", "q", "a"]
    assert check_inputs(pred, pred).labels == ["a"]
    # given labels are evaluated, an unknown one with an UndefinedMetricWarning
    with pytest.warns(UndefinedMetricWarning, match=r"labels \['q'\] occur in neither"):
        assert check_inputs(truth, pred, labels=["q", "a"]).labels == ["q", "a"]
    with pytest.raises(TypeError, match="labels must hold hashable labels"):
        check_inputs(truth, pred, labels=[["a"]])


def test_huge_durations_raise():
    truth = series([("f1", 0.0, 1.0, "a")])
    for bad in (np.inf, -np.inf, 1e10):
        with pytest.raises(ValueError, match="files_duration must hold finite durations"):
            check_inputs(truth, truth, files_duration={"f1": bad})
    with pytest.raises(ValueError, match="onset_tolerance must be at most"):
        audeval.event_fscore(truth, truth, onset_tolerance=1e10)


def test_rows_beyond_the_duration_warn():
    truth = series([("f1", 0.0, 1.0, "a"), ("f1", 4.0, 6.0, "a")])
    with pytest.warns(UserWarning, match="rows beyond the duration") as record:
        check_inputs(truth, truth, files_duration={"f1": 5.0})
    assert record[0].filename == __file__  # at the caller's line


def test_rows_with_other_labels_are_left_out():
    truth = series([("f1", 0.0, 1.0, "a"), ("f1", 1.0, 2.0, "b")])
    inputs = check_inputs(truth, truth, labels=["b"])
    assert inputs.labels == ["b"]
    assert inputs.truth.position.tolist() == [1]
    assert list(inputs.files) == ["f1"]


def test_empty_inputs():
    empty = series([])
    inputs = check_inputs(empty, empty)
    assert inputs.n_files == 0 and inputs.labels == []
    assert audeval.event_fscore(empty, empty) == 0.0
    assert audeval.event_fscore_per_class(empty, empty, labels=["a"]) == {"a": 0.0}
    assert audeval.event_error_rate(empty, empty) == 0.0


def test_to_ns_exact():
    assert to_ns(0.2, "x") == 200_000_000
    assert to_ns(pd.Timedelta(milliseconds=200), "x") == 200_000_000
    assert to_ns(np.timedelta64(3, "us"), "x") == 3_000
    assert to_ns(None, "x") is None
    with pytest.raises(ValueError, match="x must be a finite number of seconds"):
        to_ns(float("inf"), "x")


def test_seconds_are_rounded_to_the_nearest_nanosecond():
    # pd.to_timedelta(3.513388, unit="s") truncates to 3513387999 ns
    assert to_ns(3.513388, "x") == 3_513_388_000
    inputs = check_inputs(GOOD, GOOD, files_duration={"f1": 3.513388, "f2": pd.Timedelta(3, unit="s")})
    assert inputs.durations.tolist() == [3_513_388_000, 3_000_000_000]
    inputs = check_inputs(GOOD, GOOD, files_duration=pd.Series({"f1": 2.5, "f2": np.nan}))
    assert inputs.durations.tolist() == [2_500_000_000, NAT]
    with pytest.raises(ValueError, match="files_duration must not be negative"):
        check_inputs(GOOD, GOOD, files_duration={"f1": pd.Timedelta(1, unit="s"), "f2": -1.0})


def test_identical_duplicate_events_warn_with_their_rows():
    # issue 18 item 20: a repeated (file, start, end, label) row counts twice: warn
    truth = series([("f", 0, 1, "a"), ("f", 2, 3, "a"), ("f", 0, 1, "b"), ("f", 2, 3, "a")])
    prediction = series([("f", 0, 1, "a")])
    with pytest.warns(UserWarning, match=r"1 event\(s\) repeat an identical row .* rows 1, 3 "):
        assert audeval.event_fscore(truth, prediction) == pytest.approx(0.4)
    with pytest.warns(UserWarning, match=r"rows 0, 2 "):
        audeval.event_fscore(prediction, truth.iloc[[1, 0, 3]])
    # same times with another label, or another end, are not duplicates
    distinct = series([("f", 0, 1, "a"), ("f", 0, 1, "b"), ("f", 0, 2, "a")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        audeval.event_fscore(distinct, distinct.iloc[::-1])


def test_files_only_in_files_duration_are_evaluated():
    # issue 18 item 17 / SPEC section 1: the union of truth, prediction and files_duration
    truth = series([("b", 0, 1, "x")])
    prediction = series([("c", 0, 1, "x")])
    # issue 33 items 3 and 6: b and c share nothing, a and z are in neither input
    with pytest.warns(audeval.NoSharedFileWarning), pytest.warns(
        audeval.FilesWithoutRowsWarning, match=r"1 file\(s\) .*\('a'\)"
    ):
        inputs = check_inputs(truth, prediction, files_duration={"a": 2.0, "b": 3.0, "d": None})
    assert list(inputs.files) == ["a", "b", "c"]
    np.testing.assert_array_equal(file_extent(inputs), [2 * 10**9, 3 * 10**9, 10**9])
    with pytest.warns(audeval.NoSharedFileWarning), pytest.warns(audeval.FilesWithoutRowsWarning):
        inputs = check_inputs(truth, prediction, files_duration=pd.Series({"z": pd.Timedelta(1, "s")}))
    assert list(inputs.files) == ["b", "c", "z"]
    with pytest.warns(audeval.NoSharedFileWarning), pytest.warns(audeval.FilesWithoutRowsWarning):
        stats = audeval.event_statistics(truth, prediction, files_duration={"a": 2.0})
    assert stats.loc[("a", "x")].tolist() == [0] * len(stats.columns)


def test_structure_and_hierarchy_leave_out_files_only_in_files_duration():
    # issue 18 item 17, decided: their track is [0, T) with T the truth's latest end;
    # a file without rows has no track (mir_eval warns on empty references and scores 0)
    truth = series([("a", 0, 4, "A"), ("a", 4, 8, "B")])
    prediction = series([("a", 0, 5, "x"), ("a", 5, 8, "y")])
    one = audeval.structure_report(truth, prediction, files_duration={"a": 8})
    two = audeval.structure_report(truth, prediction, files_duration={"a": 8, "b": 8})
    assert list(two.index) == list(one.index) == ["a"]
    pd.testing.assert_frame_equal(one, two)
    inputs = check_inputs(truth, prediction, files_duration={"a": 8, "b": 8}, duration_files=False)
    assert list(inputs.files) == ["a"]


def test_batch_durations_restricts_to_the_batch_files():
    truth = series([("b", 0, 1, "x")])
    prediction = series([("c", 0, 1, "x")])
    restricted = audeval._core.validation.batch_durations({"a": 1.0, "b": 2.0, "c": 3.0}, truth, prediction)
    assert restricted.to_dict() == {"b": 2.0, "c": 3.0}
    assert audeval._core.validation.batch_durations(None, truth, prediction) is None


def test_detection_file_only_in_files_duration_is_scored_silence_as_pyannote():
    # issue 18 item 17: pyannote.metrics 4.2.0 with uem [0, 20) for an empty reference and
    # hypothesis "b" (and uem [0, 10) for "a"): DetectionAccuracy 0.9667 (true negative 25 s),
    # DetectionErrorRate and DiarizationErrorRate 0.25 as without "b"
    truth = series([("a", 0, 4, "A")])
    prediction = series([("a", 0, 5, "x")])
    durations = {"a": 10, "b": 20}
    with pytest.warns(audeval.FilesWithoutRowsWarning, match=r"\('b'\)"):  # issue 33 item 6
        total = audeval.detection_report(truth, prediction, files_duration=durations).loc["TOTAL"]
    assert total["true_negative"] == pytest.approx(25.0)
    assert total["accuracy"] == pytest.approx(29 / 30)
    with pytest.warns(audeval.FilesWithoutRowsWarning):
        assert audeval.detection_error_rate(truth, prediction, files_duration=durations) == 0.25
    with pytest.warns(audeval.FilesWithoutRowsWarning):
        assert audeval.diarization_error_rate(truth, prediction, files_duration=durations) == 0.25
