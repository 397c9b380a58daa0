"""Tests of event_outcomes: one row per event, counts equal to the statistics table."""

from __future__ import annotations

import audformat
from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_GENERATED_FILES as GENERATED_FILES
from conftest import MAY_WARN_NO_SHARED_FILE
from conftest import MAY_WARN_FILES_WITHOUT_ROWS
from conftest import MAY_WARN_DUPLICATES
from conftest import MAY_WARN_ABSENT_LABELS

import audeval
from audeval._events.outcomes import event_outcomes


def series(files, starts, ends, labels, dtype=None):
    return pd.Series(labels, index=audformat.segmented_index(files, starts, ends), dtype=dtype)


@pytest.fixture
def small():
    truth = series(["f1", "f1", "f1", "f2"], [0.0, 2.0, 4.0, 0.0], [1.0, 3.0, 5.0, 1.0], list("aabb"))
    prediction = series(["f1", "f1", "f1", "f3"], [0.1, 2.0, 6.0, 0.0], [1.1, 3.0, 7.0, 1.0], list("abba"))
    return truth, prediction


OPTIONS = dict(onset_tolerance=0.2, offset_tolerance=0.2)


def test_hand_computed(small):
    truth, prediction = small
    out = event_outcomes(truth, prediction, **OPTIONS)
    assert list(out.columns) == [
        "side", "position", "file", "start", "end", "label", "outcome", "partner",
        "onset_deviation", "offset_deviation",
    ]
    assert out["side"].tolist() == ["truth"] * 4 + ["prediction"] * 4
    assert out["position"].tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    assert out["file"].tolist() == ["f1", "f1", "f1", "f2", "f1", "f1", "f1", "f3"]
    assert out["label"].tolist() == list("aabb") + list("abba")
    assert out["outcome"].tolist() == [
        "tp", "substituted", "fn", "fn", "tp", "substituting", "fp", "fp",
    ]
    assert out["partner"].tolist() == [0, 1, -1, -1, 0, 1, -1, -1]
    np.testing.assert_allclose(
        out["onset_deviation"], [0.1, 0.0, np.nan, np.nan, 0.1, 0.0, np.nan, np.nan]
    )
    np.testing.assert_allclose(
        out["offset_deviation"], [0.1, 0.0, np.nan, np.nan, 0.1, 0.0, np.nan, np.nan]
    )
    assert out["start"].dtype == "timedelta64[ns]"
    assert out["start"].iloc[4] == pd.Timedelta(0.1, unit="s")
    assert list(out["label"].cat.categories) == ["a", "b"]
    assert list(out["file"].cat.categories) == ["f1", "f2", "f3"]


def test_sign_and_exact_tolerance():
    # |2.2 - 2.0| <= 0.2 holds exactly; deviations are prediction minus truth
    truth = series(["f"], [2.0], [3.0], ["a"])
    prediction = series(["f"], [2.2], [2.8], ["a"])
    out = event_outcomes(truth, prediction, **OPTIONS)
    assert out["outcome"].tolist() == ["tp", "tp"]
    np.testing.assert_allclose(out["onset_deviation"], [0.2, 0.2])
    np.testing.assert_allclose(out["offset_deviation"], [-0.2, -0.2])


def test_labels_leave_rows_out_positions_stay(small):
    truth, prediction = small
    out = event_outcomes(truth, prediction, ["b"], **OPTIONS)
    assert out["side"].tolist() == ["truth", "truth", "prediction", "prediction"]
    assert out["position"].tolist() == [2, 3, 1, 2]
    assert out["outcome"].tolist() == ["fn", "fn", "fp", "fp"]
    assert list(out["label"].cat.categories) == ["b"]


def test_greedy_differs_from_optimal():
    # greedy: the first truth event takes the only prediction the second could use
    truth = series(["f", "f"], [0.0, 0.0], [1.0, 1.3], ["a", "a"])
    prediction = series(["f", "f"], [0.0, 0.1], [1.1, 1.0], ["a", "a"])
    greedy = event_outcomes(truth, prediction, matching="greedy", **OPTIONS)
    optimal = event_outcomes(truth, prediction, matching="optimal", **OPTIONS)
    assert greedy["outcome"].tolist() == ["tp", "fn", "tp", "fp"]
    assert greedy["partner"].tolist() == [0, -1, 0, -1]
    assert optimal["outcome"].tolist() == ["tp", "tp", "tp", "tp"]
    assert optimal["partner"].tolist() == [1, 0, 1, 0]
    np.testing.assert_allclose(optimal["offset_deviation"], [0.0, -0.2, -0.2, 0.0])


def test_empty_and_errors():
    empty = series([], [], [], [], dtype=object)
    out = event_outcomes(empty, empty)
    assert len(out) == 0 and list(out.columns)[0] == "side"
    truth = series(["f"], [0.0], [1.0], ["a"])
    out = event_outcomes(truth, empty)
    assert out["outcome"].tolist() == ["fn"] and out["partner"].tolist() == [-1]
    with pytest.raises(ValueError, match="matching"):
        event_outcomes(truth, truth, matching="best")
    with pytest.raises(ValueError, match="onset_tolerance"):
        event_outcomes(truth, truth, onset_tolerance=None, offset_tolerance=None)
    with pytest.raises(ValueError, match="files_duration"):
        event_outcomes(series(["f"], [0.0], [pd.NaT], ["a"]), truth)
    out = event_outcomes(
        series(["f"], [0.0], [pd.NaT], ["a"]), truth, files_duration={"f": 1.0}
    )
    assert out["end"].tolist() == [pd.Timedelta(1, unit="s")] * 2
    assert out["outcome"].tolist() == ["tp", "tp"]


def test_inputs_not_mutated(small):
    truth, prediction = small
    before = truth.copy(), prediction.copy()
    event_outcomes(truth, prediction, **OPTIONS)
    pd.testing.assert_series_equal(truth, before[0])
    pd.testing.assert_series_equal(prediction, before[1])


# -------------------------------------------------------------------------
# Agreement with event_statistics and event_confusion_matrix
# -------------------------------------------------------------------------


def counts_of(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Statistics columns per (file, label) from the outcome rows."""
    table = pd.crosstab(
        [outcomes["file"], outcomes["label"]],
        [outcomes["side"], outcomes["outcome"]],
        dropna=False,
    )
    def c(side, outcome):
        key = (side, outcome)
        return table[key] if key in table.columns else 0 * table.iloc[:, 0]
    return pd.DataFrame(
        {
            "n_truth": table["truth"].sum(axis=1),
            "n_prediction": table["prediction"].sum(axis=1),
            "tp": c("truth", "tp"),
            "fp": c("prediction", "fp") + c("prediction", "substituting"),
            "fn": c("truth", "fn") + c("truth", "substituted"),
            "substituted": c("truth", "substituted"),
            "substituting": c("prediction", "substituting"),
        }
    )


def events(draw, n_files, labels, size):
    n = draw(st.integers(0, size))
    files = draw(st.lists(st.integers(0, n_files - 1), min_size=n, max_size=n))
    starts = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    lengths = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    names = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    return series(
        [f"f{f}" for f in files],
        [s / 4 for s in starts],
        [(s + d) / 4 for s, d in zip(starts, lengths)],
        names,
        dtype=object,
    )


@st.composite
def cases(draw):
    labels = ["a", "b", "c"][: draw(st.integers(1, 3))]
    truth = events(draw, 3, labels, 12)
    prediction = events(draw, 3, labels, 12)
    options = draw(
        st.sampled_from(
            [
                dict(onset_tolerance=0.25, offset_tolerance=0.25),
                dict(onset_tolerance=0.5, offset_tolerance=None),
                dict(onset_tolerance=None, offset_tolerance=0.25, duration_tolerance=0.5),
                dict(onset_tolerance=0.0, offset_tolerance=0.0),
            ]
        )
    )
    options["matching"] = draw(st.sampled_from(["optimal", "greedy"]))
    return truth, prediction, options


@MAY_WARN_NO_SHARED_FILE
@MAY_WARN_FILES_WITHOUT_ROWS
@MAY_WARN_DUPLICATES
@MAY_WARN_ABSENT_LABELS
@settings(max_examples=60, deadline=None)
@given(cases())
def test_counts_equal_statistics(case):
    truth, prediction, options = case
    outcomes = event_outcomes(truth, prediction, **options)
    stats = audeval.event_statistics(truth, prediction, **options)
    assert len(outcomes) == len(truth) + len(prediction)
    if not len(outcomes):
        assert stats["n_truth"].sum() == 0
        return
    got = counts_of(outcomes)
    got.index = pd.MultiIndex.from_tuples([(str(f), str(l)) for f, l in got.index])
    expected = stats[got.columns]
    expected.index = pd.MultiIndex.from_tuples([(str(f), str(l)) for f, l in expected.index])
    got = got.reindex(expected.index, fill_value=0)
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())

    # partners point at each other, with the right labels
    t = outcomes[outcomes["side"] == "truth"].set_index("position")
    p = outcomes[outcomes["side"] == "prediction"].set_index("position")
    paired = t[t["partner"] >= 0]
    back = p.loc[paired["partner"].to_numpy()]
    np.testing.assert_array_equal(back["partner"].to_numpy(), paired.index.to_numpy())
    same = paired["label"].to_numpy(dtype=object) == back["label"].to_numpy(dtype=object)
    np.testing.assert_array_equal(same, (paired["outcome"] == "tp").to_numpy())
    np.testing.assert_allclose(
        back["onset_deviation"].to_numpy(), paired["onset_deviation"].to_numpy()
    )
    onset = (back["start"].to_numpy() - paired["start"].to_numpy()) / np.timedelta64(1, "s")
    np.testing.assert_allclose(paired["onset_deviation"].to_numpy(), onset)


@MAY_WARN_DUPLICATES
@MAY_WARN_ABSENT_LABELS
@MAY_WARN_NO_SHARED_FILE
@MAY_WARN_FILES_WITHOUT_ROWS
@settings(max_examples=30, deadline=None)
@given(cases())
def test_counts_equal_confusion_matrix(case):
    truth, prediction, options = case
    outcomes = event_outcomes(truth, prediction, **options)
    cm = np.asarray(audeval.event_confusion_matrix(truth, prediction, **options))
    labels = list(outcomes["label"].cat.categories)
    n = len(labels)
    assert cm.shape == (n + 1, n + 1)
    expected = np.zeros((n + 1, n + 1), dtype=np.int64)
    t = outcomes[outcomes["side"] == "truth"]
    p = outcomes[outcomes["side"] == "prediction"].set_index("position")
    row = t["label"].cat.codes.to_numpy()
    paired = t["partner"].to_numpy() >= 0
    column = np.full(len(t), n)
    column[paired] = p.loc[t["partner"].to_numpy()[paired], "label"].cat.codes.to_numpy()
    np.add.at(expected, (row, column), 1)
    alone = p[p["outcome"] == "fp"]["label"].cat.codes.to_numpy()
    np.add.at(expected, (np.full(len(alone), n), alone), 1)
    np.testing.assert_array_equal(cm, expected)


@MAY_WARN_DUPLICATES
@MAY_WARN_ABSENT_LABELS
@GENERATED_FILES
@settings(max_examples=20, deadline=None)
@given(cases(), st.randoms(use_true_random=False))
def test_row_order_invariance(case, rng):
    truth, prediction, options = case
    if options["matching"] == "greedy":
        options["matching"] = "optimal"
    order = list(range(len(truth)))
    rng.shuffle(order)
    shuffled = truth.iloc[order]
    a = event_outcomes(truth, prediction, **options)
    b = event_outcomes(shuffled, prediction, **options)
    # the outcome counts per (side, file, label, outcome) do not depend on row order
    key = ["side", "file", "label", "outcome"]
    np.testing.assert_array_equal(
        a.groupby(key, observed=False).size().to_numpy(),
        b.groupby(key, observed=False).size().to_numpy(),
    )
    # positions follow the rows
    truth_b = b[b["side"] == "truth"]
    np.testing.assert_array_equal(
        truth_b["start"].to_numpy(),
        shuffled.index.get_level_values("start").to_numpy()[truth_b["position"].to_numpy()],
    )


def test_event_timeline_draws_the_outcomes(small):
    # the plot reads event_outcomes: one bar per outcome row of the file
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import audeval.plot

    truth, prediction = small
    outcomes = event_outcomes(truth, prediction, **OPTIONS)
    drawn = {"tp": "tp", "substituted": "substitution", "substituting": "substitution",
             "fn": "deletion", "fp": "insertion"}
    for file in ("f1", "f2", "f3"):
        ax = audeval.plot.event_timeline(truth, prediction, file=file, **OPTIONS)
        rows = outcomes[outcomes["file"] == file]
        expected = sorted(
            f"{side}:{drawn[outcome]}" for side, outcome in zip(rows["side"], rows["outcome"])
        )
        assert sorted(p.get_gid() for p in ax.patches if ":" in p.get_gid()
                      and not p.get_gid().startswith("collar")) == expected
        links = [line for line in ax.lines if line.get_gid() == "substitution-link"]
        assert len(links) == int((rows["outcome"] == "substituted").sum())
        plt.close(ax.figure)


def test_compat_sed_eval_gives_the_statistics_decisions():
    """Events exactly 0.2 s off: met in integer ns, missed in sed_eval's float64 (issue 31)."""
    truth = series(["f", "f"], [0.0, 2.0], [1.0, 3.0], ["a", "b"])
    prediction = series(["f", "f"], [0.2, 2.2], [1.2, 3.2], ["a", "b"])
    exact = event_outcomes(truth, prediction, **OPTIONS)
    sed_eval = event_outcomes(truth, prediction, compat="sed_eval", **OPTIONS)
    assert exact["outcome"].tolist() == ["tp", "tp", "tp", "tp"]
    # 0.2 - 0.0 <= 0.2 holds in float64, 2.2 - 2.0 <= 0.2 does not
    assert sed_eval["outcome"].tolist() == ["tp", "fn", "tp", "fp"]
    for compat in (None, "sed_eval"):
        outcomes = event_outcomes(truth, prediction, compat=compat, **OPTIONS)
        stats = audeval.event_statistics(truth, prediction, compat=compat, **OPTIONS)
        counts = counts_of(outcomes)
        for column in counts.columns:
            assert counts[column].tolist() == stats[column].tolist(), (compat, column)
    with pytest.raises(ValueError, match="compat"):
        event_outcomes(truth, prediction, compat="sed", **OPTIONS)
