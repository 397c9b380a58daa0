"""Structure statistics (SPEC sections 2 and 5): every path gives the direct call's number.

Also issue 18 items 5 (AMI of all-singleton clusterings), 9 (``pad=False``)
and 13 (no files at all: tests/test_structure.py::test_empty_inputs).
"""

from __future__ import annotations

import inspect
import math
import os

import audformat
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._structure import FAMILY
from audeval._structure import structure_statistics


GOLDEN = os.path.join(os.path.dirname(__file__), "assets", "structure")

METRICS = [
    audeval.boundary_detection,
    audeval.boundary_deviation,
    audeval.pairwise_clustering,
    audeval.rand_index,
    audeval.adjusted_rand_index,
    audeval.mutual_information,
    audeval.normalized_conditional_entropy,
    audeval.v_measure,
]

OPTION_SETS = [
    {},
    {"frame_size": 0.25, "trim": True, "beta": 2.0},
    {"frame_size": None},
    {"compat": "mir_eval"},
    {"compat": "mir_eval", "pad": False, "trim": True},
    {"pad": False, "window": 3.0},
]


def series(rows) -> pd.Series:
    files = [r[0] for r in rows]
    starts = pd.to_timedelta([float(r[1]) for r in rows], unit="s")
    ends = pd.to_timedelta([float(r[2]) for r in rows], unit="s")
    labels = [r[3] for r in rows] if rows else pd.Series([], dtype="string")
    return pd.Series(labels, index=audformat.segmented_index(files, starts, ends))


def read_side(name: str) -> pd.Series:
    df = pd.read_csv(os.path.join(GOLDEN, f"{name}.csv"), dtype={"label": str})
    return series(list(df.itertuples(index=False, name=None)))


@pytest.fixture(scope="module")
def data():
    return read_side("truth"), read_side("prediction")


def accepted(function, options: dict) -> dict:
    names = inspect.signature(function).parameters
    return {k: v for k, v in options.items() if k in names}


def statistics_options(options: dict) -> dict:
    return {k: v for k, v in options.items() if k in FAMILY.options}


def assert_same(a, b):
    """Equal to the last bit (NaN equal to NaN)."""
    np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))


# -------------------------------------------------------------------------
# The table and its paths
# -------------------------------------------------------------------------


@pytest.mark.parametrize("options", OPTION_SETS)
def test_metric_of_table_is_the_direct_call(data, options):
    truth, prediction = data
    table = structure_statistics(truth, prediction, **statistics_options(options))
    for metric in METRICS:
        kwargs = accepted(metric, options)
        direct = metric(truth, prediction, **kwargs)
        metric_only = {k: v for k, v in kwargs.items() if k not in FAMILY.options}
        # options given again (checked against the table) or left out
        assert_same(metric(table, None, **kwargs), direct)
        assert_same(metric(table, None, **metric_only), direct)


@pytest.mark.parametrize("options", OPTION_SETS[:4])
def test_report_of_table_is_the_direct_report(data, options):
    truth, prediction = data
    options = {k: v for k, v in options.items() if k != "window"}
    table = structure_statistics(truth, prediction, **statistics_options(options))
    kwargs = accepted(audeval.structure_report, options)
    direct = audeval.structure_report(truth, prediction, **kwargs)
    pd.testing.assert_frame_equal(audeval.structure_report(table, None, **kwargs), direct)
    pd.testing.assert_frame_equal(audeval.structure_report(table, None, beta=kwargs.get("beta", 1.0)), direct)


def test_table_schema(data):
    truth, prediction = data
    table = structure_statistics(truth, prediction)
    assert table.index.name == "file" and table.index.is_unique
    assert len(table) == 32
    assert set(FAMILY.columns) <= set(table.columns)
    assert ["hits_at_0_5", "hits_at_3_0"] == [c for c in table.columns if c.startswith("hits_at_")]
    for column in ("truth_boundaries", "prediction_boundaries", "hits_at_0_5", "frames", "truth_clusters"):
        assert table[column].dtype == np.int64
    assert table["duration"].dtype == "timedelta64[ns]"
    recorded = table.attrs["audeval"]
    assert recorded["family"] == "structure"
    assert recorded["options"] == {
        "frame_size": pd.Timedelta(0.1, unit="s"),
        "window": (pd.Timedelta(0.5, unit="s"), pd.Timedelta(3.0, unit="s")),
        "trim": False,
        "pad": True,
        "compat": None,
    }
    assert FAMILY.pooled is False and FAMILY.index == ("file",)


def test_hand_computed_table():
    # truth a|b on [0, 4); prediction x on [0, 1), y on [1, 4); 1 s frames
    truth = series([("f", 0, 2, "a"), ("f", 2, 4, "b")])
    prediction = series([("f", 0, 1, "x"), ("f", 1, 4, "y")])
    row = structure_statistics(truth, prediction, frame_size=1.0, window=0.5).loc["f"]
    assert (row["truth_boundaries"], row["prediction_boundaries"], row["hits_at_0_5"]) == (3, 3, 2)
    assert row["frames"] == 4
    # cells (a,x)=1 (a,y)=1 (b,y)=2: pairs 0+0+1; truth pairs 1+1; prediction pairs 0+3
    assert (row["pairs"], row["truth_pairs"], row["prediction_pairs"], row["all_pairs"]) == (1, 2, 3, 6)
    assert (row["truth_clusters"], row["prediction_clusters"]) == (2, 2)
    assert row["truth_entropy"] == pytest.approx(math.log(2))
    assert row["truth_given_prediction"] == pytest.approx(0.75 * (-(1 / 3) * math.log2(1 / 3) - (2 / 3) * math.log2(2 / 3)))
    assert row["truth_to_prediction_deviation"] == 0.0
    assert row["prediction_to_truth_deviation"] == 0.0  # boundaries 0, 1, 4 -> 0, 1, 0


def test_shards_of_files(data):
    truth, prediction = data
    files = sorted(set(truth.index.get_level_values("file")))
    shards = []
    for part in (files[:5], files[5:20], files[20:]):
        shards.append(
            structure_statistics(
                truth[truth.index.get_level_values("file").isin(part)],
                prediction[prediction.index.get_level_values("file").isin(part)],
            )
        )
    summed = audeval.sum_statistics(shards)
    whole = structure_statistics(truth, prediction)
    pd.testing.assert_frame_equal(summed, whole)
    assert summed.attrs == whole.attrs
    for metric in METRICS:
        assert_same(metric(summed, None), metric(truth, prediction))


def test_accumulator_bootstrap_and_registry(data):
    truth, prediction = data
    files = sorted(set(truth.index.get_level_values("file")))
    accumulator = audeval.Accumulator(audeval.rand_index, frame_size=0.25)
    for part in (files[:10], files[10:]):
        accumulator.update(
            truth[truth.index.get_level_values("file").isin(part)],
            prediction[prediction.index.get_level_values("file").isin(part)],
        )
    assert accumulator.compute() == audeval.rand_index(truth, prediction, frame_size=0.25)
    assert_same(
        accumulator.compute(audeval.v_measure, beta=2.0),
        audeval.v_measure(truth, prediction, frame_size=0.25, beta=2.0),
    )
    window = audeval.Accumulator(audeval.boundary_detection, window=1.0)
    window.update(truth, prediction)
    assert window.compute() == audeval.boundary_detection(truth, prediction, window=1.0)
    result = audeval.bootstrap(audeval.adjusted_rand_index, truth, prediction, n_boot=20, seed=0)
    assert result.value == audeval.adjusted_rand_index(truth, prediction)
    assert result.low <= result.value <= result.high
    # no batch: the values of no files at all
    assert audeval.Accumulator(audeval.rand_index).compute() == 0.0


def test_windows_of_a_table(data):
    truth, prediction = data
    table = structure_statistics(truth, prediction)
    for window in (0.5, 3.0, pd.Timedelta(3, unit="s")):
        assert audeval.boundary_detection(table, None, window=window) == audeval.boundary_detection(
            truth, prediction, window=window
        )
    with pytest.raises(ValueError, match="hits_at_1_0.*pass window=1 to structure_statistics"):
        audeval.boundary_detection(table, None, window=1.0)
    one = structure_statistics(truth, prediction, window=1.0)
    assert audeval.boundary_detection(one, None) == audeval.boundary_detection(truth, prediction, window=1.0)
    two = structure_statistics(truth, prediction, window=[1.0, 2.0])
    with pytest.raises(ValueError, match="pass window= to choose one"):
        audeval.boundary_detection(two, None)
    report = audeval.structure_report(two, None)
    assert [c for c in report.columns if c.startswith("f_measure_at")] == ["f_measure_at_1_0", "f_measure_at_2_0"]
    with pytest.raises(ValueError, match="hits_at_0_5"):
        audeval.structure_report(two, None, windows=[0.5])


@pytest.mark.parametrize(
    "made, asked, match",
    [
        ({}, {"frame_size": 0.25}, "frame_size"),
        ({}, {"frame_size": None}, "frame_size"),
        ({"frame_size": None}, {"frame_size": 0.1}, "frame_size"),
        ({}, {"trim": True}, "trim"),
        ({}, {"pad": False}, "pad"),
        ({}, {"compat": "mir_eval"}, "compat"),
    ],
)
def test_options_that_differ_from_the_table_raise(data, made, asked, match):
    truth, prediction = data
    table = structure_statistics(truth, prediction, **made)
    for metric in METRICS + [audeval.structure_report]:
        kwargs = accepted(metric, asked)
        if not kwargs:
            continue
        with pytest.raises(ValueError, match=f"{match}.*structure_statistics"):
            metric(table, None, **kwargs)


def test_bad_tables(data):
    truth, prediction = data
    table = structure_statistics(truth, prediction)
    with pytest.raises(ValueError, match="files_duration.*structure_statistics"):
        audeval.rand_index(table, None, files_duration={"song00": 100.0})
    events = audeval.event_statistics(truth, prediction)
    with pytest.raises(ValueError, match="event statistics table"):
        audeval.rand_index(events, None)
    with pytest.raises(ValueError, match="lacks the column 'pairs'"):
        audeval.rand_index(table.drop(columns="pairs"), None)
    with pytest.raises(TypeError, match="prediction is None"):
        audeval.rand_index(truth, None)


def test_metrics_do_not_change_the_table(data):
    truth, prediction = data
    table = structure_statistics(truth.loc[["song00", "song01"]], prediction.loc[["song00", "song01"]])
    copy = table.copy()
    for metric in METRICS:
        metric(table, None)
    audeval.structure_report(table, None)
    pd.testing.assert_frame_equal(table, copy)


def test_table_of_no_files():
    empty = series([])
    table = structure_statistics(empty, empty)
    assert len(table) == 0 and set(FAMILY.columns) <= set(table.columns)
    assert audeval.boundary_detection(table, None) == (0.0, 0.0, 0.0)
    assert audeval.rand_index(table, None) == 0.0
    assert all(math.isnan(v) for v in audeval.boundary_deviation(table, None))
    assert audeval.structure_report(table, None).empty


@settings(max_examples=15, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["f1", "f2", "f3"]),
            st.lists(st.integers(1, 6), min_size=1, max_size=5),
            st.lists(st.integers(1, 6), min_size=1, max_size=5),
        ),
        min_size=1,
        max_size=3,
        unique_by=lambda r: r[0],
    ),
    order=st.randoms(use_true_random=False),
)
def test_file_order_and_shards(rows, order):
    """Tables of single files concatenated in any order give every metric of the whole."""
    t_rows, p_rows = [], []
    for file, t_lengths, p_lengths in rows:
        for target, lengths, labels in ((t_rows, t_lengths, "ab"), (p_rows, p_lengths, "xyz")):
            edges = np.cumsum([0] + lengths) * 0.3
            for i, (start, end) in enumerate(zip(edges[:-1], edges[1:])):
                target.append((file, start, end, labels[i % len(labels)]))
    truth, prediction = series(t_rows), series(p_rows)
    files = [r[0] for r in rows]
    order.shuffle(files)
    shards = [structure_statistics(truth.loc[[f]], prediction.loc[[f]]) for f in files]
    concatenated = pd.concat(shards)
    for metric in METRICS:
        direct = metric(truth, prediction)
        # E[MI] of a file is summed in chunks shared with other files: equal to ~1e-15
        np.testing.assert_allclose(metric(concatenated, None), direct, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(
            metric(audeval.sum_statistics(shards), None), direct, rtol=1e-12, atol=1e-15
        )


# -------------------------------------------------------------------------
# Issue 18 item 5: AMI when every frame is its own cluster
# -------------------------------------------------------------------------


@pytest.mark.parametrize("compat", [None, "mir_eval"])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 9])
def test_ami_of_all_singletons_is_one(n, compat):
    """Both sides put every frame in its own cluster: E[MI] = MI = H exactly (0 / 0).

    Before the fix floating-point noise decided (NaN for 2 frames, 1.0 for 4 and 5);
    identical partitions get 1.0 for every n, as ARI.
    """
    index = audformat.segmented_index(["f"] * n, list(range(n)), list(range(1, n + 1)))
    truth = pd.Series([f"a{i}" for i in range(n)], index=index)
    prediction = pd.Series([f"x{i}" for i in range(n)], index=index)
    mi, ami, nmi = audeval.mutual_information(truth, prediction, frame_size=1.0, compat=compat)
    assert (ami, nmi) == (1.0, 1.0)
    assert mi == pytest.approx(math.log(n))
    assert audeval.adjusted_rand_index(truth, prediction, frame_size=1.0, compat=compat) == 1.0


def test_ami_of_singletons_against_one_cluster_is_zero():
    index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
    truth = pd.Series(["a", "b", "c", "d"], index=index)
    prediction = pd.Series(["x", "x", "y", "y"], index=index)
    _, ami, _ = audeval.mutual_information(truth, prediction, frame_size=1.0)
    assert ami == pytest.approx(0.0, abs=1e-12)


# -------------------------------------------------------------------------
# Issue 18 item 9: boundaries without evaluate()'s padding
# -------------------------------------------------------------------------


def test_pad_false_issue_example():
    truth = series([("f", 1, 2, "a"), ("f", 2, 3, "b")])
    prediction = series([("f", 0, 2, "x"), ("f", 2, 3, "y")])
    # evaluate(): truth padded to start at 0 -> boundaries 0, 1, 2, 3
    assert audeval.boundary_detection(truth, prediction) == (1.0, 0.75, pytest.approx(6 / 7))
    # detection() on the rows: truth 1, 2, 3 and prediction 0, 2, 3 -> 2 hits
    for compat in (None, "mir_eval"):
        p, r, f = audeval.boundary_detection(truth, prediction, pad=False, compat=compat)
        assert (p, r, f) == (pytest.approx(2 / 3), pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert audeval.boundary_deviation(truth, prediction, pad=False) == (0.0, 0.0)


def test_pad_false_golden(data):
    """compat="mir_eval", pad=False equals mir_eval.segment.detection / deviation on the rows."""
    truth, prediction = data
    expected = pd.read_csv(os.path.join(GOLDEN, "unpadded.csv"))
    assert len(expected) == 64
    for trim in (False, True):
        rows = expected[expected["trim"] == trim].set_index("file")
        report = audeval.structure_report(truth, prediction, trim=trim, pad=False, compat="mir_eval")
        for window in ("0.5", "3.0"):
            suffix = window.replace(".", "_")
            for key, column in (("Precision", "precision"), ("Recall", "recall"), ("F-measure", "f_measure")):
                np.testing.assert_allclose(
                    report.loc[rows.index, f"{column}_at_{suffix}"], rows[f"{key}@{window}"], rtol=1e-12, atol=0
                )
        for key, column in (
            ("Ref-to-est deviation", "truth_to_prediction_deviation"),
            ("Est-to-ref deviation", "prediction_to_truth_deviation"),
        ):
            np.testing.assert_allclose(report.loc[rows.index, column], rows[key], rtol=1e-9, atol=1e-12)
        # the single functions are the means of those per-file values
        np.testing.assert_allclose(
            audeval.boundary_detection(truth, prediction, window=3.0, trim=trim, pad=False, compat="mir_eval"),
            rows[["Precision@3.0", "Recall@3.0", "F-measure@3.0"]].mean(),
            rtol=1e-12,
        )
