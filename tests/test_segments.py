"""Tests of the segment-based metrics (SPEC section 4).

* golden values of sed_eval 0.2.1 SegmentBasedMetrics
  (``tests/assets/segments``, made by ``make_golden.py``),
  reproduced with ``compat="sed_eval"`` to 1e-12;
* hand-computed cases (DCASE S/D/I, MIREX 2018 accuracy, exact time);
* properties against a small rasterising reference written here,
  the continuous-time limit, invariances and additivity.
"""

from __future__ import annotations

import json
import math
import os
import warnings

import audformat
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_GENERATED_FILES as GENERATED_FILES
from conftest import MAY_WARN_UNKNOWN_DURATION
from conftest import MAY_WARN_BEYOND_DURATION
from conftest import MAY_WARN_ABSENT_LABELS

import audeval
import audeval._segments as seg


ASSETS = os.path.join(os.path.dirname(__file__), "assets", "segments")


def series(rows, labels=None):
    """Series from ``(file, start_s, end_s, label)`` rows (seconds)."""
    files = [r[0] for r in rows]
    starts = pd.to_timedelta([round(r[1] * 1e9) for r in rows], unit="ns")
    ends = pd.to_timedelta([round(r[2] * 1e9) for r in rows], unit="ns")
    index = audformat.segmented_index(files, starts, ends)
    values = [r[3] for r in rows]
    if labels is not None:
        return pd.Series(pd.Categorical(values, categories=labels), index=index)
    return pd.Series(values, index=index, dtype=object)


def series_ns(frame: pd.DataFrame, labels) -> pd.Series:
    index = audformat.segmented_index(
        frame["file"].tolist(),
        pd.to_timedelta(frame["start"].to_numpy(), unit="ns"),
        pd.to_timedelta(frame["end"].to_numpy(), unit="ns"),
    )
    return pd.Series(pd.Categorical(frame["label"], categories=labels), index=index)


# -------------------------------------------------------------------------
# Golden values from sed_eval
# -------------------------------------------------------------------------

with open(os.path.join(ASSETS, "golden.json")) as _fp:
    GOLDEN = json.load(_fp)
EVENTS = pd.read_csv(os.path.join(ASSETS, "events.csv"))
DURATIONS = pd.read_csv(os.path.join(ASSETS, "durations.csv"))
LABELS = GOLDEN["labels"]
SETTINGS = [
    (case, i)
    for case, settings_ in GOLDEN["cases"].items()
    for i in range(len(settings_))
]


def golden_inputs(case, mode):
    events = EVENTS[EVENTS["case"] == case]
    truth = series_ns(events[events["side"] == "truth"], LABELS)
    prediction = series_ns(events[events["side"] == "prediction"], LABELS)
    durations = DURATIONS[DURATIONS["case"] == case]
    files = sorted(set(events["file"]))
    ns = dict(zip(durations["file"], durations["duration"]))
    if mode == "latest":
        files_duration = None
    elif mode == "all":
        files_duration = {f: pd.Timedelta(ns[f], unit="ns") for f in files}
    else:  # every other file, as make_golden.py
        files_duration = {f: pd.Timedelta(ns[f], unit="ns") for i, f in enumerate(files) if i % 2 == 0}
    return truth, prediction, files_duration


def close(ours, reference):
    """Equal to 1e-12; sed_eval's x / eps for x / 0 must be inf here."""
    if reference is None or (isinstance(reference, float) and math.isnan(reference)):
        return math.isnan(ours)
    if abs(reference) > 1e12:  # sed_eval divided by N + eps with N = 0
        return ours == math.inf
    return math.isclose(ours, reference, rel_tol=1e-12, abs_tol=1e-12)


def test_golden_covers_settings():
    assert GOLDEN["sed_eval"] == "0.2.1"
    assert len(SETTINGS) == 45
    resolutions = {s["time_resolution"] for c in GOLDEN["cases"].values() for s in c}
    assert resolutions == {1.0, 0.1, 0.01}


@MAY_WARN_ABSENT_LABELS
@MAY_WARN_UNKNOWN_DURATION
@MAY_WARN_BEYOND_DURATION
@pytest.mark.parametrize("case, i", SETTINGS)
def test_golden_sed_eval(case, i):
    setting = GOLDEN["cases"][case][i]
    truth, prediction, files_duration = golden_inputs(case, setting["durations"])
    options = dict(
        labels=LABELS,
        time_resolution=setting["time_resolution"],
        files_duration=files_duration,
        compat="sed_eval",
    )
    stats = seg.segment_statistics(truth, prediction, **options)
    # sed_eval: NaN precision/recall where undefined, 0 for 0 / eps in accuracies
    prf = seg.segment_report(stats, zero_division=np.nan, propagate_nans=True)
    acc = seg.segment_report(stats, zero_division=0.0)
    results = setting["results"]
    checked = 0

    # counts, exactly
    counts = setting["counts"]
    total = stats.sum()
    s = int(total["substitutions"])
    assert int(total["tp"]) == counts["Ntp"]
    assert int(total["fp"]) == counts["Nfp"]
    assert int(total["fn"]) == counts["Nfn"]
    assert int(total["tn"]) == counts["Ntn"]
    assert int(total["tp"] + total["fn"]) == counts["Nref"]
    assert int(total["tp"] + total["fp"]) == counts["Nsys"]
    assert s == counts["S"]
    assert int(total["fn"]) - s == counts["D"]
    assert int(total["fp"]) - s == counts["I"]
    per_label = stats.groupby(level="label", observed=False).sum()
    for label in LABELS:
        ref = setting["class_counts"][label]
        row = per_label.loc[label]
        assert (row["tp"], row["fp"], row["fn"], row["tn"]) == (
            ref["Ntp"],
            ref["Nfp"],
            ref["Nfn"],
            ref["Ntn"],
        )

    def compare(row, reference):
        nonlocal checked
        for key in ("f_measure", "precision", "recall"):
            ours = prf.loc[row, "fscore" if key == "f_measure" else key]
            assert close(ours, reference["f_measure"][key]), (row, key, ours)
            checked += 1
        for key, ref in reference["error_rate"].items():
            ours = acc.loc[row, key]
            assert close(ours, ref), (row, key, ours, ref)
            checked += 1
        for key, ref in reference["accuracy"].items():
            ours = acc.loc[row, key]
            assert close(ours, ref), (row, key, ours, ref)
            checked += 1

    compare("micro", results["overall"])
    compare("macro", results["class_wise_average"])
    for label in LABELS:
        compare(label, results["class_wise"][label])
        assert prf.loc[label, "n_truth"] == results["class_wise"][label]["count"]["Nref"]
        assert prf.loc[label, "n_prediction"] == results["class_wise"][label]["count"]["Nsys"]
    assert checked == 11 + 10 + 5 * 10

    # the single metrics are reductions of the same table
    overall = results["overall"]
    assert close(
        seg.segment_fscore(truth, prediction, **options, zero_division=np.nan, propagate_nans=True),
        overall["f_measure"]["f_measure"],
    )
    assert close(seg.segment_error_rate(truth, prediction, **options), overall["error_rate"]["error_rate"])
    assert close(seg.segment_accuracy(truth, prediction, **options), overall["accuracy"]["accuracy"])
    fscores = seg.segment_fscore_per_class(
        truth, prediction, **options, zero_division=np.nan, propagate_nans=True
    )
    for label in LABELS:
        assert close(fscores[label], results["class_wise"][label]["f_measure"]["f_measure"])


@MAY_WARN_ABSENT_LABELS
@MAY_WARN_UNKNOWN_DURATION
@MAY_WARN_BEYOND_DURATION
def test_golden_exact_mode_differs_only_by_float_binning():
    """Exact binning equals sed_eval except where float64 division misplaces a boundary.

    Zero-length events are left out here: off the grid sed_eval gives them a segment.
    """
    same = 0
    for case, i in SETTINGS:
        setting = GOLDEN["cases"][case][i]
        truth, prediction, files_duration = golden_inputs(case, setting["durations"])
        positive = [
            s.index.get_level_values("end") > s.index.get_level_values("start")
            for s in (truth, prediction)
        ]
        truth, prediction = truth[positive[0]], prediction[positive[1]]
        options = dict(
            labels=LABELS, time_resolution=setting["time_resolution"], files_duration=files_duration
        )
        exact = seg.segment_statistics(truth, prediction, **options).sum()
        compat = seg.segment_statistics(truth, prediction, **options, compat="sed_eval").sum()
        same += bool((exact == compat).all())
        if setting["time_resolution"] == 1.0:
            # at 1 s float division by 1.0 is exact
            pd.testing.assert_series_equal(exact, compat)
    # 0.3 / 0.1 and friends: the edge case at 0.1 s differs
    assert 12 <= same < len(SETTINGS)


# -------------------------------------------------------------------------
# Hand-computed cases
# -------------------------------------------------------------------------


def test_hand_sdi():
    # segments at 1 s over 5 s:
    #   0: FN a       -> D
    #   1: FN a, FP b -> S
    #   2: TP b
    #   3: FN b, FP a -> S
    #   4: FP a       -> I
    truth = series([("f", 0, 2, "a"), ("f", 2, 4, "b")])
    prediction = series([("f", 1.5, 3, "b"), ("f", 3, 5, "a")])
    stats = seg.segment_statistics(truth, prediction)
    assert stats.to_dict("index") == {
        ("f", "a"): {"tp": 0, "fp": 2, "fn": 2, "tn": 1, "substitutions": 2},
        ("f", "b"): {"tp": 1, "fp": 1, "fn": 1, "tn": 2, "substitutions": 0},
    }
    report = seg.segment_report(truth, prediction)
    micro = report.loc["micro"]
    assert micro["substitution_rate"] == 0.5
    assert micro["deletion_rate"] == 0.25
    assert micro["insertion_rate"] == 0.25
    assert micro["error_rate"] == 1.0
    assert seg.segment_error_rate(truth, prediction) == 1.0
    assert seg.segment_error_rate_per_class(truth, prediction) == {"a": 2.0, "b": 1.0}
    assert math.isnan(report.loc["a", "substitution_rate"])
    assert report.loc["micro", "sensitivity"] == 0.25
    assert report.loc["micro", "specificity"] == 3 / 6
    assert report.loc["micro", "balanced_accuracy"] == (0.25 + 0.5) / 2
    assert report.loc["micro", "accuracy"] == 4 / 10
    assert report.loc["macro", "accuracy"] == (1 / 5 + 3 / 5) / 2


def test_hand_mirex_2018_accuracy():
    # MIREX 2018 music/speech detection: 10 ms frames,
    # accuracy = correct (frame, class) decisions / all of them
    truth = series([("a", 0, 0.5, "music"), ("a", 0.5, 1.0, "speech"), ("b", 0, 2.0, "music")])
    prediction = series([("a", 0, 0.6, "music"), ("b", 0.5, 1.25, "speech")])
    stats = seg.segment_statistics(truth, prediction, time_resolution=0.01)
    # a: music tp 50 fp 10 tn 40, speech fn 50 tn 50
    # b: music fn 200, speech fp 75 tn 125
    per_file = stats.groupby(level="file").sum()
    assert per_file.loc["a"].tolist() == [50, 10, 50, 90, 10]
    assert per_file.loc["b"].tolist() == [0, 75, 200, 125, 75]
    accuracy = (50 + 90 + 125) / 600
    assert seg.segment_accuracy(truth, prediction, time_resolution=0.01) == accuracy
    report = seg.segment_report(truth, prediction, time_resolution=0.01, per_file=True)
    assert report.loc[("a", "micro"), "accuracy"] == 140 / 200
    assert report.loc[("b", "micro"), "accuracy"] == 125 / 400
    assert report.loc[("a", "music"), "precision"] == 50 / 60
    assert report.loc[("b", "speech"), "specificity"] == 125 / 200
    # class-wise: music tp 50, fp 10, fn 200; speech tp 0, fp 75, fn 50
    fscores = seg.segment_fscore_per_class(truth, prediction, time_resolution=0.01)
    p, r = 50 / 60, 50 / 250
    assert fscores["music"] == pytest.approx(2 * p * r / (p + r), abs=1e-15)
    assert fscores["speech"] == 0.0


def test_hand_exact_time():
    truth = series(
        [("f", 0.25, 1.5, "a"), ("f", 1.0, 2.0, "a"), ("f", 0.5, 1.0, "b"), ("f", 2.5, 3, "c")]
    )
    prediction = series([("f", 0.5, 2.5, "a"), ("f", 0.75, 1.25, "b"), ("f", 2.25, 2.75, "b")])
    stats = seg.segment_statistics(truth, prediction, time_resolution=None, files_duration={"f": 3})
    assert (stats.dtypes == "timedelta64[ns]").all()
    seconds = (stats.apply(lambda c: c.dt.total_seconds())).to_dict("index")
    # a: truth [0.25, 2), prediction [0.5, 2.5)
    assert seconds[("f", "a")] == {"tp": 1.5, "fp": 0.5, "fn": 0.25, "tn": 0.75, "substitutions": 0.25}
    # b: tp [0.75, 1), fp [1, 1.25) and [2.25, 2.75), fn [0.5, 0.75)
    assert seconds[("f", "b")] == {"tp": 0.25, "fp": 0.75, "fn": 0.25, "tn": 1.75, "substitutions": 0.0}
    assert seconds[("f", "c")] == {"tp": 0.0, "fp": 0.0, "fn": 0.5, "tn": 2.5, "substitutions": 0.0}
    # S(t) = min(FN(t), FP(t)) > 0 only on [2.5, 2.75): c missed while b is inserted;
    # the file's S is stored in the row of its first label
    # D = FN - S = 1.0 - 0.25, I = FP - S = 1.25 - 0.25, N = 2.75
    report = seg.segment_report(truth, prediction, time_resolution=None, files_duration={"f": 3})
    assert report.loc["micro", "n_truth"] == 2.75
    assert report.loc["micro", "tn"] == 5.0
    assert report.loc["micro", "substitution_rate"] == 0.25 / 2.75
    assert report.loc["micro", "deletion_rate"] == 0.75 / 2.75
    assert report.loc["micro", "insertion_rate"] == 1.0 / 2.75
    assert report.loc["micro", "error_rate"] == 2.0 / 2.75
    # exact time is the limit of ever finer grids for these aligned events
    grid = seg.segment_statistics(truth, prediction, time_resolution=0.25, files_duration={"f": 3})
    pd.testing.assert_frame_equal(grid * 250_000_000, stats.astype("int64"), check_dtype=False)


def test_filewise_inputs_with_durations():
    truth = pd.Series(["music", "speech"], index=audformat.filewise_index(["a", "b"]))
    prediction = series([("a", 0, 1.5, "music"), ("b", 0, 3, "music")])
    durations = pd.Series([2.0, 3.0], index=["a", "b"])
    stats = seg.segment_statistics(truth, prediction, files_duration=durations)
    assert stats.loc[("a", "music")].tolist() == [2, 0, 0, 0, 0]
    assert stats.loc[("b", "music")].tolist() == [0, 3, 0, 0, 3]
    assert stats.loc[("b", "speech")].tolist() == [0, 0, 3, 0, 0]
    with pytest.raises(ValueError, match="files_duration"):
        seg.segment_statistics(truth, prediction)


def test_evaluated_length_cuts_and_pads():
    truth = series([("f", 0.5, 2.5, "a"), ("f", 8, 9, "a")])
    prediction = series([("f", 0, 1, "a")])
    with pytest.warns(UserWarning, match="truth has rows beyond the duration"):
        stats = seg.segment_statistics(truth, prediction, files_duration={"f": 2.2})
    # 3 segments: the event at 8 s is beyond them, [0.5, 2.5) covers 0..2
    assert stats.loc[("f", "a")].tolist() == [1, 0, 2, 0, 0]
    # 12 segments: truth 0, 1, 2 and 8, prediction 0
    stats = seg.segment_statistics(truth, prediction, files_duration={"f": 12})
    assert stats.loc[("f", "a")].tolist() == [1, 0, 3, 8, 0]
    stats = seg.segment_statistics(truth, prediction)  # latest end: 9 s
    assert stats.loc[("f", "a")].tolist() == [1, 0, 3, 5, 0]


def test_compat_float_binning():
    truth = series([("f", 0.3, 0.7, "a")])
    prediction = series([("f", 0.7, 0.9, "a")])
    exact = seg.segment_statistics(truth, prediction, time_resolution=0.1)
    compat = seg.segment_statistics(truth, prediction, time_resolution=0.1, compat="sed_eval")
    # exact: truth 3..6, prediction 7..8; sed_eval: 0.3 / 0.1 -> 2, 0.7 / 0.1 -> 6.999.. -> 7
    assert exact.loc[("f", "a")].tolist() == [0, 2, 4, 3, 0]
    assert compat.loc[("f", "a")].tolist() == [1, 2, 4, 2, 0]
    # zero-length events: nothing in exact mode, one segment off the grid in sed_eval's
    zero = series([("f", 0.25, 0.25, "a"), ("f", 1.0, 1.0, "a"), ("f", 0, 2, "b")])
    assert seg.segment_statistics(zero, zero).loc[("f", "a"), "tp"] == 0
    assert seg.segment_statistics(zero, zero, compat="sed_eval").loc[("f", "a"), "tp"] == 1


def test_time_resolution_as_timedelta():
    truth = series([("f", 0, 0.35, "a")])
    prediction = series([("f", 0.1, 0.2, "a")])
    a = seg.segment_statistics(truth, prediction, time_resolution=pd.Timedelta(50, unit="ms"))
    b = seg.segment_statistics(truth, prediction, time_resolution=0.05)
    pd.testing.assert_frame_equal(a, b)
    assert a.loc[("f", "a")].tolist() == [2, 0, 5, 0, 0]


def test_no_rasterising():
    """1000 hours at 1 ms would be 3.6e9 frames."""
    truth = series([("f", 0, 1800 * 3600, "a"), ("f", 10, 3_600_000, "b")])
    prediction = series([("f", 5, 3_599_000, "a")])
    stats = seg.segment_statistics(truth, prediction, time_resolution=0.001)
    assert stats.loc[("f", "a"), "tp"] == 3_599_000_000 - 5_000
    assert seg.segment_error_rate(stats) > 0


def test_empty_and_zero_division():
    empty = pd.Series([], index=audformat.segmented_index(), dtype=object)
    stats = seg.segment_statistics(empty, empty)
    assert len(stats) == 0 and list(stats.columns) == list(seg.COLUMNS)
    assert seg.segment_fscore(empty, empty) == 0.0
    assert seg.segment_fscore(empty, empty, zero_division=np.nan) == 0.0
    assert math.isnan(seg.segment_fscore(empty, empty, zero_division=np.nan, propagate_nans=True))
    assert seg.segment_error_rate(empty, empty) == 0.0
    assert seg.segment_accuracy(empty, empty) == 0.0
    assert math.isnan(seg.segment_fscore(empty, empty, average="macro"))
    report = seg.segment_report(empty, empty)
    assert list(report.index) == ["micro", "macro"]
    # truth without events: insertions over no reference are infinite
    prediction = series([("f", 0, 1, "a")])
    no_truth = pd.Series([], index=audformat.segmented_index(), dtype=object)
    assert seg.segment_error_rate(no_truth, prediction) == math.inf
    assert seg.segment_error_rate_per_class(no_truth, prediction)["a"] == math.inf
    assert seg.segment_precision_per_class(no_truth, prediction)["a"] == 0.0
    assert math.isnan(seg.segment_recall_per_class(no_truth, prediction, zero_division=np.nan)["a"])
    assert seg.segment_fscore_per_class(no_truth, prediction, zero_division=np.nan)["a"] == 0.0
    assert math.isnan(
        seg.segment_fscore_per_class(
            no_truth, prediction, zero_division=np.nan, propagate_nans=True
        )["a"]
    )


def test_labels_argument():
    truth = series([("f", 0, 2, "a"), ("f", 0, 2, "b")])
    prediction = series([("f", 0, 1, "b"), ("f", 0, 1, "c")])
    stats = seg.segment_statistics(truth, prediction, labels=["b", "a"])
    assert list(stats.index.get_level_values("label")) == ["b", "a"]
    assert list(seg.segment_fscore_per_class(truth, prediction, labels=["b", "a"])) == ["b", "a"]
    # c left out: in segment 0 a is missed and no other label inserted
    assert stats["substitutions"].sum() == 0
    assert seg.segment_statistics(truth, prediction)["substitutions"].sum() == 1


def test_errors():
    truth = series([("f", 0, 1, "a")])
    with pytest.raises(ValueError, match="compat"):
        seg.segment_statistics(truth, truth, compat="dcase")
    with pytest.raises(ValueError, match="time_resolution"):
        seg.segment_statistics(truth, truth, time_resolution=0)
    with pytest.raises(ValueError, match="time_resolution"):
        seg.segment_statistics(truth, truth, time_resolution=-1.0)
    with pytest.raises(TypeError, match="time_resolution"):
        seg.segment_statistics(truth, truth, time_resolution="1s")
    with pytest.raises(ValueError, match="compat"):
        seg.segment_statistics(truth, truth, time_resolution=None, compat="sed_eval")
    with pytest.raises(ValueError, match="average"):
        seg.segment_fscore(truth, truth, average="weighted")
    with pytest.raises(TypeError, match="zero_division"):
        seg.segment_fscore(truth, truth, zero_division="warn")
    with pytest.raises(TypeError, match="propagate_nans"):
        seg.segment_fscore(truth, truth, propagate_nans=None)
    with pytest.raises(TypeError, match="prediction"):
        seg.segment_fscore(truth)
    stats = seg.segment_statistics(truth, truth)
    # labels on a table: the direct call's number, or an error saying where to pass them
    assert seg.segment_fscore(stats, labels=["a"]) == seg.segment_fscore(truth, truth, labels=["a"])
    two = series([("f", 0, 1, "a"), ("f", 0.5, 2, "b")])
    stats_two = seg.segment_statistics(two, truth)
    for metric in (seg.segment_error_rate, seg.segment_report):
        with pytest.raises(ValueError, match="pass labels to segment_statistics"):
            metric(stats_two, labels=["a"])
    assert seg.segment_fscore(stats_two, labels=["a"]) == seg.segment_fscore(two, truth, labels=["a"])
    with pytest.raises(ValueError, match="time_resolution=1 s, but time_resolution=0.5 s"):
        seg.segment_fscore(stats, time_resolution=0.5)
    with pytest.raises(ValueError, match="columns"):
        seg.segment_fscore(stats.drop(columns="tn"))
    with pytest.raises(TypeError, match="Series"):
        seg.segment_statistics(stats, None)
    exact = seg.segment_statistics(truth, truth, time_resolution=None)
    mixed = pd.concat([stats, exact.assign(tp=exact["tp"].dt.total_seconds())])
    with pytest.raises(ValueError):
        seg.segment_report(mixed)


def test_truth_prediction_not_mutated():
    truth = series([("f", 0, 1, "a"), ("g", 0.5, 3, "b")])
    prediction = series([("f", 0.2, 1.5, "b")])
    before = truth.copy(), prediction.copy()
    seg.segment_report(truth, prediction, time_resolution=0.01, per_file=True)
    pd.testing.assert_series_equal(truth, before[0])
    pd.testing.assert_series_equal(prediction, before[1])


# -------------------------------------------------------------------------
# Properties
# -------------------------------------------------------------------------


def rasterise(truth_rows, prediction_rows, labels, r_ms, durations_ms):
    """Reference counts on materialised frames (times in integer ms).

    Files are those of the rows and of ``durations_ms`` (SPEC section 1:
    a file with no rows is evaluated, true negatives only).
    """
    files = sorted({row[0] for row in truth_rows + prediction_rows} | set(durations_ms))
    out = {}
    substitutions = {}
    for file in files:
        ends = [row[2] for row in truth_rows + prediction_rows if row[0] == file]
        extent = durations_ms.get(file, max(ends, default=0))
        n = -(-extent // r_ms)
        rolls = []
        for rows in (truth_rows, prediction_rows):
            roll = np.zeros((n, len(labels)), dtype=np.int64)
            for f, start, end, label in rows:
                if f == file and end > start:
                    roll[start // r_ms : -(-end // r_ms), labels.index(label)] = 1
            rolls.append(roll)
        t, p = rolls
        for c, label in enumerate(labels):
            out[(file, label)] = [
                int(np.sum(t[:, c] & p[:, c])),
                int(np.sum(p[:, c] & ~t[:, c] & 1)),
                int(np.sum(t[:, c] & ~p[:, c] & 1)),
                int(np.sum((1 - t[:, c]) & (1 - p[:, c]))),
            ]
        fn = np.sum(t & (1 - p), axis=1)
        fp = np.sum(p & (1 - t), axis=1)
        substitutions[file] = int(np.minimum(fn, fp).sum())
    return out, substitutions


LABEL_SET = ["a", "b", "c"]
event = st.tuples(
    st.sampled_from(["x", "y", "z"]),
    st.integers(0, 4000),
    st.integers(0, 3000),
    st.sampled_from(LABEL_SET),
).map(lambda e: (e[0], e[1], e[1] + e[2], e[3]))
events = st.lists(event, min_size=1, max_size=12)


def to_series(rows_ms, labels=LABEL_SET):
    return series([(f, s / 1000, e / 1000, label) for f, s, e, label in rows_ms], labels=labels)


@MAY_WARN_UNKNOWN_DURATION
@MAY_WARN_BEYOND_DURATION
@GENERATED_FILES
@settings(max_examples=60, deadline=None)
@given(
    truth=events,
    prediction=events,
    r_ms=st.sampled_from([1, 7, 250, 1000]),
    durations=st.dictionaries(st.sampled_from(["x", "y", "z"]), st.integers(0, 6000)),
)
def test_property_equals_rasterised_reference(truth, prediction, r_ms, durations):
    reference, substitutions = rasterise(truth, prediction, LABEL_SET, r_ms, durations)
    stats = seg.segment_statistics(
        to_series(truth),
        to_series(prediction),
        time_resolution=r_ms / 1000,
        files_duration={f: d / 1000 for f, d in durations.items()},
    )
    ours = {key: values[:4] for key, values in stats.T.to_dict("list").items()}
    files = set(stats.index.get_level_values("file"))
    assert files == set(substitutions)  # also the files known only from files_duration
    assert ours == {k: v for k, v in reference.items() if k[0] in files}
    s = stats["substitutions"].groupby(level="file").sum().to_dict()
    assert s == {f: v for f, v in substitutions.items() if f in files}


@MAY_WARN_UNKNOWN_DURATION
@MAY_WARN_BEYOND_DURATION
@MAY_WARN_ABSENT_LABELS
@GENERATED_FILES
@settings(max_examples=40, deadline=None)
@given(
    truth=events,
    prediction=events,
    r_ms=st.sampled_from([125, 250, 500, 1000]),
    durations=st.dictionaries(st.sampled_from(["x", "y", "z"]), st.integers(0, 48)),
)
def test_property_exact_equals_grid_for_aligned_events(truth, prediction, r_ms, durations):
    """On events aligned to the grid, exact time = grid counts x r, and compat = exact."""

    def align(rows):
        return [(f, (s // r_ms) * r_ms, (e // r_ms) * r_ms, label) for f, s, e, label in rows]

    truth, prediction = align(truth), align(prediction)
    files_duration = {f: d * r_ms / 1000 for f, d in durations.items()}
    t, p = to_series(truth), to_series(prediction)
    grid = seg.segment_statistics(t, p, time_resolution=r_ms / 1000, files_duration=files_duration)
    compat = seg.segment_statistics(
        t, p, time_resolution=r_ms / 1000, files_duration=files_duration, compat="sed_eval"
    )
    exact = seg.segment_statistics(t, p, time_resolution=None, files_duration=files_duration)
    pd.testing.assert_frame_equal(grid, compat)
    as_ns = exact.astype("int64")
    pd.testing.assert_frame_equal(grid * (r_ms * 1_000_000), as_ns, check_dtype=False)
    # and so are all metrics
    a = seg.segment_report(grid)
    b = seg.segment_report(exact)
    counts = ["n_truth", "n_prediction", "tp", "fp", "fn", "tn"]
    pd.testing.assert_frame_equal(a.drop(columns=counts), b.drop(columns=counts), rtol=1e-12)
    pd.testing.assert_frame_equal(a[counts] * (r_ms / 1000), b[counts], rtol=1e-12)


@MAY_WARN_ABSENT_LABELS
@GENERATED_FILES
@settings(max_examples=30, deadline=None)
@given(
    truth=events,
    prediction=events,
    r=st.sampled_from([None, 0.01, 1.0]),
    seed=st.integers(0, 2**16),
)
def test_property_invariances_and_additivity(truth, prediction, r, seed):
    rng = np.random.default_rng(seed)
    t, p = to_series(truth), to_series(prediction)
    stats = seg.segment_statistics(t, p, time_resolution=r)

    # row order does not matter
    shuffled = seg.segment_statistics(
        t.iloc[rng.permutation(len(t))], p.iloc[rng.permutation(len(p))], time_resolution=r
    )
    pd.testing.assert_frame_equal(stats, shuffled)

    # renaming files in reverse order changes nothing but the file level
    rename = {"x": "z2", "y": "y2", "z": "x2"}

    def renamed(s):
        idx = s.index
        return pd.Series(
            s.to_numpy(),
            index=audformat.segmented_index(
                [rename[f] for f in idx.get_level_values("file")],
                idx.get_level_values("start"),
                idx.get_level_values("end"),
            ),
        ).astype(s.dtype)

    other = seg.segment_statistics(renamed(t), renamed(p), time_resolution=r)
    assert other.sum().equals(stats.sum())

    # shards of whole files add up
    files = sorted(set(stats.index.get_level_values("file")))
    shard = files[: len(files) // 2]
    parts = []
    for keep in (shard, [f for f in files if f not in shard]):
        tt = t[t.index.get_level_values("file").isin(keep)]
        pp = p[p.index.get_level_values("file").isin(keep)]
        if len(tt) or len(pp):
            parts.append(seg.segment_statistics(tt, pp, time_resolution=r, labels=LABEL_SET))
    # (the shards are made with labels given, so the one-shot table too: given labels
    # count in macro averages even without support)
    one_shot = seg.segment_statistics(t, p, time_resolution=r, labels=LABEL_SET)
    summed = pd.concat(parts).groupby(level=["file", "label"], observed=True).sum()
    summed.attrs = one_shot.attrs  # plain pandas may drop what the table records
    pd.testing.assert_frame_equal(
        seg.segment_report(summed), seg.segment_report(one_shot), check_exact=True
    )
    summed_overall = pd.concat(parts)  # also works without grouping
    pd.testing.assert_frame_equal(
        seg.segment_report(summed_overall), seg.segment_report(one_shot), check_exact=True
    )

    # swapping truth and prediction swaps fp and fn, keeps tp, tn and substitutions
    swapped = seg.segment_statistics(p, t, time_resolution=r)
    pd.testing.assert_frame_equal(
        swapped, stats.rename(columns={"fp": "fn", "fn": "fp"})[list(seg.COLUMNS)]
    )


@GENERATED_FILES
@settings(max_examples=20, deadline=None)
@given(truth=events, prediction=events, r=st.sampled_from([None, 0.01, 1.0]))
def test_property_engine_path_equals_keyed_path(truth, prediction, r):
    """The fallback for huge key ranges (the piece engine's cut) gives the same table."""
    from audeval._core import sweep_keyed as _pieces_keyed

    t, p = to_series(truth), to_series(prediction)
    keyed = seg.segment_statistics(t, p, time_resolution=r)
    limit = _pieces_keyed.KEY_LIMIT
    try:
        _pieces_keyed.KEY_LIMIT = 0
        engine = seg.segment_statistics(t, p, time_resolution=r)
    finally:
        _pieces_keyed.KEY_LIMIT = limit
    pd.testing.assert_frame_equal(keyed, engine)


@MAY_WARN_ABSENT_LABELS
@GENERATED_FILES
@settings(max_examples=20, deadline=None)
@given(truth=events, prediction=events, r=st.sampled_from([None, 0.01, 1.0]))
def test_property_table_in_place_of_series(truth, prediction, r):
    t, p = to_series(truth), to_series(prediction)
    stats = seg.segment_statistics(t, p, time_resolution=r)
    options = dict(time_resolution=r)
    for function, kwargs in (
        (seg.segment_precision_per_class, {}),
        (seg.segment_recall_per_class, {"zero_division": np.nan}),
        (seg.segment_fscore_per_class, {"propagate_nans": True, "zero_division": np.nan}),
        (seg.segment_error_rate_per_class, {}),
    ):
        pd.testing.assert_series_equal(
            pd.Series(function(t, p, **options, **kwargs)), pd.Series(function(stats, **kwargs))
        )
    for function, kwargs in (
        (seg.segment_fscore, {}),
        (seg.segment_fscore, {"average": "macro"}),
        (seg.segment_error_rate, {}),
        (seg.segment_accuracy, {}),
    ):
        a, b = function(t, p, **options, **kwargs), function(stats, **kwargs)
        assert a == b or (math.isnan(a) and math.isnan(b))
    pd.testing.assert_frame_equal(
        seg.segment_report(t, p, **options, per_file=True), seg.segment_report(stats, per_file=True)
    )
    # a table summed over files (label level only) gives the same overall report
    report = seg.segment_report(stats)
    by_label = stats.groupby(level="label", observed=False).sum()
    pd.testing.assert_frame_equal(seg.segment_report(by_label), report)
    # micro over the per-file report's counts is the overall micro row
    per_file = seg.segment_report(stats, per_file=True)
    # the last block TOTAL is the report over all files
    pd.testing.assert_frame_equal(per_file.loc["TOTAL"], report, check_names=False)
    per_file = per_file.drop(index="TOTAL", level="file")
    micro = per_file.xs("micro", level="label")[["tp", "fp", "fn", "tn"]].sum()
    pd.testing.assert_series_equal(micro, report.loc["micro", ["tp", "fp", "fn", "tn"]], check_names=False)


def test_per_class_results_are_dicts_with_deprecated_series_attributes():
    """One per-class return type in every family (issue 16 item 6): a dict, as audmetric."""
    truth = series([("f", 0, 2, "a"), ("f", 2, 4, "b")])
    result = seg.segment_fscore_per_class(truth, truth)
    assert isinstance(result, dict) and result == {"a": 1.0, "b": 1.0}
    assert type(result) is type(audeval.event_fscore_per_class(truth, truth))
    with pytest.warns(FutureWarning, match=r"use pd.Series\(result\).round"):
        rounded = result.round(2)
    assert rounded.to_dict() == {"a": 1.0, "b": 1.0} and rounded.index.name == "label"
    with pytest.raises(AttributeError):
        result.no_such_attribute


# issue 18 item 10: MIREX2018_eval's final code (gap class, Ntp / Nref)
MIREX_TRUTH = [("f", 0, 4, "music"), ("f", 4, 6, "speech")]
MIREX_PREDICTION = [("f", 0, 4, "music"), ("f", 4, 9, "speech")]


def test_accuracy_gap_label_mirex_final_code():
    truth, prediction = series(MIREX_TRUTH), series(MIREX_PREDICTION)
    options = dict(time_resolution=0.01, files_duration={"f": 10})
    # README formula: music 1000 of 1000 decisions right, speech 700 of 1000
    assert seg.segment_accuracy(truth, prediction, **options) == pytest.approx(0.85)
    # final code: classes music 4 s, speech 2 s, '-' [6, 10) vs [9, 10): tp 4 + 2 + 1 of 10 s
    assert seg.segment_accuracy(truth, prediction, **options, gap_label="-") == pytest.approx(0.7)
    # exact time and without files_duration (the file ends at 9 s: gap [6, 9) vs nothing)
    exact = seg.segment_accuracy(truth, prediction, time_resolution=None, gap_label="-")
    assert exact == pytest.approx(6 / 9)


def test_accuracy_gap_label_overlaps_and_files():
    # overlapping truth classes count twice in Nref; a file with no prediction
    truth = series([("a", 0, 2, "x"), ("a", 1, 2, "y"), ("b", 0, 1, "x")])
    prediction = series([("a", 0, 1, "x"), ("a", 3, 4, "y")])
    acc = seg.segment_accuracy(
        truth, prediction, time_resolution=1.0, files_duration={"a": 4, "b": 2}, gap_label="-"
    )
    # a: truth x{0,1} y{1} -{2,3}; prediction x{0} y{3} -{1,2}: tp x 1, - 1 -> 2 of 5
    # b: truth x{0} -{1}, prediction -{0,1}: tp - 1 -> 1 of 2
    assert acc == pytest.approx(3 / 7)


def test_accuracy_gap_label_errors():
    truth, prediction = series(MIREX_TRUTH), series(MIREX_PREDICTION)
    with pytest.raises(ValueError, match="gap_label='music'"):
        seg.segment_accuracy(truth, prediction, gap_label="music")
    table = seg.segment_statistics(truth, prediction)
    with pytest.raises(TypeError, match="gap_label needs truth and prediction as Series"):
        seg.segment_accuracy(table, gap_label="-")


# issue 18 items 17/18: a key of files_duration that is no file id (here with its extension)
# adds a file of true negatives and leaves the file it meant at its latest end: warned, naming it
def test_files_duration_keys_that_miss_a_file_warn():
    truth, prediction = series(MIREX_TRUTH), series(MIREX_PREDICTION)
    with pytest.warns(UserWarning, match=r"files_duration is not known for 1 of 2 files \(f\)"):
        # issue 33 item 6: and the key's file is in neither input
        with pytest.warns(audeval.FilesWithoutRowsWarning, match=r"\('f.wav'\)"):
            seg.segment_accuracy(truth, prediction, time_resolution=0.01, files_duration={"f.wav": 10})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seg.segment_accuracy(truth, prediction, time_resolution=0.01, files_duration={"f": 10})
        seg.segment_accuracy(truth, prediction, time_resolution=0.01)  # sed_eval's rule, no warning


# issue 18 item 17: files known only from files_duration are evaluated (true negatives only)
def test_file_only_in_files_duration_is_evaluated():
    truth, prediction = series(MIREX_TRUTH), series(MIREX_PREDICTION)
    options = dict(time_resolution=0.01, files_duration={"f": 10, "empty": 10})
    with pytest.warns(audeval.FilesWithoutRowsWarning, match=r"\('empty'\)"):  # issue 33 item 6
        stats = seg.segment_statistics(truth, prediction, **options)
    assert stats.loc[("empty", "music")].tolist() == [0, 0, 0, 1000, 0]
    assert stats.loc[("empty", "speech")].tolist() == [0, 0, 0, 1000, 0]
    # MIREX folder with an empty file: (1700 + 2000) / 4000
    with pytest.warns(audeval.FilesWithoutRowsWarning):
        assert seg.segment_accuracy(truth, prediction, **options) == pytest.approx(0.925)
    # a file with an unknown (NaN) duration and no rows is not a file of the evaluation
    stats = seg.segment_statistics(truth, prediction, files_duration={"f": 10, "x": float("nan")})
    assert set(stats.index.get_level_values("file")) == {"f"}
