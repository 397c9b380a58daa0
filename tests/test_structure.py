"""Structural segmentation metrics (SPEC section 5)."""

from __future__ import annotations

import json
import math
import os

import audformat
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_GENERATED_FILES as GENERATED_FILES
import scipy.special

import audeval
from audeval._structure import CLUSTERING_COLUMNS
from audeval._structure import MIR_EVAL_COLUMNS


ASSETS = os.path.join(os.path.dirname(__file__), "assets")
FIXTURES = os.path.join(ASSETS, "mir_eval_segment")
GOLDEN = os.path.join(ASSETS, "structure")
COLUMNS = list(MIR_EVAL_COLUMNS.values())


def series(rows, *, categories=None) -> pd.Series:
    """Series from (file, start, end, label) rows, times in seconds."""
    files = [r[0] for r in rows]
    starts = pd.to_timedelta([float(r[1]) for r in rows], unit="s")
    ends = pd.to_timedelta([float(r[2]) for r in rows], unit="s")
    labels = [r[3] for r in rows]
    if categories is not None:
        labels = pd.Categorical(labels, categories=categories)
    elif not rows:
        labels = pd.Series([], dtype="string")
    return pd.Series(labels, index=audformat.segmented_index(files, starts, ends))


def values(report: pd.DataFrame, file) -> dict:
    return report.loc[file].to_dict()


# -------------------------------------------------------------------------
# mir_eval's own regression fixtures (compat mode)
# -------------------------------------------------------------------------


def read_lab(path: str, file: str) -> list:
    """mir_eval's .lab format: whitespace separated, '#' comments."""
    rows = []
    with open(path) as fp:
        for line in fp:
            if line.startswith("#") or not line.strip():
                continue
            start, end, label = line.strip().split(None, 2)
            rows.append((file, float(start), float(end), label))
    return rows


@pytest.fixture(scope="module")
def fixture_pairs():
    truth, prediction, expected = [], [], {}
    for i in range(10):
        file = f"pair{i:02d}"
        truth += read_lab(os.path.join(FIXTURES, f"ref{i:02d}.lab"), file)
        prediction += read_lab(os.path.join(FIXTURES, f"est{i:02d}.lab"), file)
        with open(os.path.join(FIXTURES, f"output{i:02d}.json")) as fp:
            expected[file] = json.load(fp)
    return series(truth), series(prediction), expected


def test_mir_eval_fixtures_compat(fixture_pairs):
    truth, prediction, expected = fixture_pairs
    report = audeval.structure_report(truth, prediction, compat="mir_eval")
    assert len(expected) == 10
    compared = 0
    for file, scores in expected.items():
        assert len(scores) == 22
        for key, value in scores.items():
            ours = report.loc[file, MIR_EVAL_COLUMNS[key]]
            np.testing.assert_allclose(ours, value, rtol=1e-5, atol=1e-12, err_msg=f"{file} {key}")
            compared += 1
    assert compared == 220


def test_mir_eval_fixtures_default(fixture_pairs):
    """The exact grid differs from mir_eval's float32 grid in one pair only, by < 4e-4."""
    truth, prediction, expected = fixture_pairs
    report = audeval.structure_report(truth, prediction)
    differ = 0
    for file, scores in expected.items():
        for key, value in scores.items():
            ours = report.loc[file, MIR_EVAL_COLUMNS[key]]
            if not np.isclose(ours, value, rtol=1e-5, atol=1e-12):
                differ += 1
                assert MIR_EVAL_COLUMNS[key] in CLUSTERING_COLUMNS
                assert abs(ours - value) < 4e-4
    assert differ == 12


def test_mir_eval_fixtures_single_functions(fixture_pairs):
    truth, prediction, expected = fixture_pairs
    mean = {key: np.mean([s[key] for s in expected.values()]) for key in MIR_EVAL_COLUMNS}

    def close(ours, keys):
        np.testing.assert_allclose(ours, [mean[k] for k in keys], rtol=1e-5, atol=1e-12)

    kw = dict(compat="mir_eval")
    close(
        audeval.boundary_detection(truth, prediction, window=3.0, **kw),
        ["Precision@3.0", "Recall@3.0", "F-measure@3.0"],
    )
    close(
        audeval.boundary_deviation(truth, prediction, **kw),
        ["Ref-to-est deviation", "Est-to-ref deviation"],
    )
    close(
        audeval.pairwise_clustering(truth, prediction, **kw),
        ["Pairwise Precision", "Pairwise Recall", "Pairwise F-measure"],
    )
    close(audeval.rand_index(truth, prediction, **kw), ["Rand Index"])
    close(audeval.adjusted_rand_index(truth, prediction, **kw), ["Adjusted Rand Index"])
    close(
        audeval.mutual_information(truth, prediction, **kw),
        [
            "Mutual Information",
            "Adjusted Mutual Information",
            "Normalized Mutual Information",
        ],
    )
    close(
        audeval.normalized_conditional_entropy(truth, prediction, **kw),
        ["NCE Over", "NCE Under", "NCE F-measure"],
    )
    close(audeval.v_measure(truth, prediction, **kw), ["V Precision", "V Recall", "V-measure"])


# -------------------------------------------------------------------------
# Golden values on random partitions (tests/assets/structure/make_golden.py)
# -------------------------------------------------------------------------


def read_golden_side(name: str) -> pd.Series:
    df = pd.read_csv(os.path.join(GOLDEN, f"{name}.csv"), dtype={"label": str})
    rows = list(df.itertuples(index=False, name=None))
    return series(rows)


@pytest.fixture(scope="module")
def golden():
    with open(os.path.join(GOLDEN, "configs.json")) as fp:
        configs = json.load(fp)
    expected = pd.read_csv(os.path.join(GOLDEN, "expected.csv"))
    return read_golden_side("truth"), read_golden_side("prediction"), configs, expected


@pytest.mark.parametrize("mode", ["mir_eval", "exact"])
@pytest.mark.parametrize("config", ["default", "trim_frame_0.25_beta_2"])
def test_golden(golden, mode, config):
    truth, prediction, configs, expected = golden
    # rows of different files interleaved, rows of a file unsorted
    assert not truth.index.get_level_values("file").is_monotonic_increasing
    compat = "mir_eval" if mode == "mir_eval" else None
    report = audeval.structure_report(truth, prediction, compat=compat, **configs[config])
    table = expected[expected["config"] == f"{mode}:{config}"].set_index("file")
    assert len(table) == 32
    for key, column in MIR_EVAL_COLUMNS.items():
        ours = report.loc[table.index, column].to_numpy()
        if mode == "mir_eval":
            np.testing.assert_allclose(ours, table[key], rtol=1e-5, atol=1e-12, err_msg=key)
        else:
            np.testing.assert_allclose(ours, table[key], rtol=1e-9, atol=1e-12, err_msg=key)


def test_golden_row_order_matters_only_in_compat(golden):
    truth, prediction, configs, expected = golden
    rng = np.random.default_rng(1)
    shuffled_truth = truth.iloc[rng.permutation(len(truth))]
    shuffled_prediction = prediction.iloc[rng.permutation(len(prediction))]
    a = audeval.structure_report(truth, prediction)
    b = audeval.structure_report(shuffled_truth, shuffled_prediction)
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)
    a = audeval.structure_report(truth, prediction, compat="mir_eval")
    b = audeval.structure_report(shuffled_truth, shuffled_prediction, compat="mir_eval")
    assert not np.allclose(a.to_numpy(), b.to_numpy(), equal_nan=True)


# -------------------------------------------------------------------------
# Hand-computed values
# -------------------------------------------------------------------------


def test_hand_computed_clustering():
    # truth a|b on [0, 4), prediction one segment; 1 s frames: 4 frames
    truth = series([("f", 0, 2, "a"), ("f", 2, 4, "b")])
    prediction = series([("f", 0, 4, "x")])
    kw = dict(frame_size=1.0)
    # pairs agreeing in truth: 2 of C(4,2) = 6; in prediction: 6; in both: 2
    assert audeval.pairwise_clustering(truth, prediction, **kw) == pytest.approx((1 / 3, 1, 0.5))
    assert audeval.rand_index(truth, prediction, **kw) == pytest.approx(1 / 3)
    assert audeval.adjusted_rand_index(truth, prediction, **kw) == 0.0
    mi, ami, nmi = audeval.mutual_information(truth, prediction, **kw)
    assert (mi, nmi) == (0.0, 0.0)
    assert ami == pytest.approx(0.0, abs=1e-15)
    # truth has 2 clusters: H(t|p) = 1 bit = log2(2): under-segmentation score 0;
    # the prediction has one cluster: its normaliser is 0, score 0
    assert audeval.normalized_conditional_entropy(truth, prediction, **kw) == (0.0, 0.0, 0.0)
    assert audeval.v_measure(truth, prediction, **kw) == (0.0, 0.0, 0.0)


def test_hand_computed_mutual_information():
    # truth a a b b, prediction x y y y (1 s frames)
    truth = series([("f", 0, 2, "a"), ("f", 2, 4, "b")])
    prediction = series([("f", 0, 1, "x"), ("f", 1, 4, "y")])
    # cells: (a,x)=1, (a,y)=1, (b,y)=2; a=(2,2), b=(1,3), n=4
    mi = 0.25 * math.log(4 / 2) + 0.25 * math.log(4 / 6) + 0.5 * math.log(8 / 6)
    h_t = math.log(2)
    h_p = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))
    # expected MI: only the cells (a, y) and (b, y) can hold k >= 1 frames
    # with non-zero log term; enumerate the hypergeometric distribution
    emi = 0.0
    for a in (2, 2):
        for b in (1, 3):
            for k in range(max(1, a + b - 4), min(a, b) + 1):
                p = math.comb(b, k) * math.comb(4 - b, a - k) / math.comb(4, a)
                emi += k / 4 * math.log(4 * k / (a * b)) * p
    ours = audeval.mutual_information(truth, prediction, frame_size=1.0)
    assert ours[0] == pytest.approx(mi, rel=1e-12)
    assert ours[1] == pytest.approx((mi - emi) / (max(h_t, h_p) - emi), rel=1e-12)
    assert ours[2] == pytest.approx(mi / math.sqrt(h_t * h_p), rel=1e-12)
    # frameless limit: the same probabilities, AMI undefined
    frameless = audeval.mutual_information(truth, prediction, frame_size=None)
    assert frameless[0] == pytest.approx(mi, rel=1e-12)
    assert math.isnan(frameless[1])
    assert frameless[2] == pytest.approx(ours[2], rel=1e-12)
    # conditional entropies in bits
    h_t_given_p = 0.75 * (-(1 / 3) * math.log2(1 / 3) - (2 / 3) * math.log2(2 / 3))
    h_p_given_t = 0.5 * 1.0
    over, under, f = audeval.normalized_conditional_entropy(truth, prediction, frame_size=1.0)
    assert under == pytest.approx(1 - h_t_given_p / 1.0)
    assert over == pytest.approx(1 - h_p_given_t / 1.0)
    assert f == pytest.approx(2 * over * under / (over + under))
    vp, vr, _ = audeval.v_measure(truth, prediction, frame_size=1.0)
    assert vp == pytest.approx(1 - h_p_given_t / (h_p / math.log(2)))
    assert vr == pytest.approx(1 - h_t_given_p / 1.0)


def test_identical_partitions():
    truth = series([("f", 0, 3, "a"), ("f", 3, 5, "b"), ("f", 5, 9, "a")])
    report = audeval.structure_report(truth, truth)
    row = values(report, "f")
    for column in COLUMNS:
        if "deviation" in column:
            assert row[column] == 0.0
        elif column == "mutual_information":
            assert row[column] > 0
        else:
            assert row[column] == pytest.approx(1.0, abs=1e-12), column


def test_boundary_window_is_exact():
    # |2.2 - 2.0| <= 0.2 holds exactly (float64: 2.2 - 0.2 > 2.0)
    truth = series([("f", 0, 2.0, "a"), ("f", 2.0, 4, "b")])
    prediction = series([("f", 0, 2.2, "a"), ("f", 2.2, 4, "b")])
    assert audeval.boundary_detection(truth, prediction, window=0.2) == (1.0, 1.0, 1.0)
    assert audeval.boundary_detection(truth, prediction, window=0.2, trim=True) == (1.0, 1.0, 1.0)
    p, r, f = audeval.boundary_detection(truth, prediction, window=pd.Timedelta("199ms"))
    assert (p, r) == (2 / 3, 2 / 3)
    assert audeval.boundary_deviation(truth, prediction) == pytest.approx((0.0, 0.0))
    assert audeval.boundary_deviation(truth, prediction, trim=True) == pytest.approx((0.2, 0.2))


def test_boundary_matching_is_maximum():
    # truth 1.0, 1.6; prediction 1.3, 1.9 (window 0.5): a first-fit of the
    # prediction 1.3 to the truth 1.6 would leave 1.9 unmatched
    truth = series([("f", 0, 1.0, "a"), ("f", 1.0, 1.6, "b"), ("f", 1.6, 5, "a")])
    prediction = series([("f", 0, 1.3, "a"), ("f", 1.3, 1.9, "b"), ("f", 1.9, 5, "a")])
    p, r, f = audeval.boundary_detection(truth, prediction, trim=True)
    assert (p, r, f) == (1.0, 1.0, 1.0)
    deviation = audeval.boundary_deviation(truth, prediction, trim=True)
    assert deviation == pytest.approx((0.3, 0.3))


def test_beta():
    truth = series([("f", 0, 2, "a"), ("f", 2, 4, "b"), ("f", 4, 6, "c")])
    prediction = series([("f", 0, 4, "x"), ("f", 4, 6, "y")])
    p, r, f = audeval.boundary_detection(truth, prediction, beta=2.0)
    assert (p, r) == (1.0, 0.75)
    assert f == pytest.approx(5 * p * r / (4 * p + r))


# -------------------------------------------------------------------------
# Preprocessing, gaps, degenerate cases
# -------------------------------------------------------------------------


def test_truth_padding_and_prediction_cropping():
    # truth starts at 1 s: [0, 1) is a gap of the truth;
    # prediction runs past the truth's end (6 s): cropped
    truth = series([("f", 1, 4, "a"), ("f", 4, 6, "b")])
    prediction = series([("f", 0, 1, "x"), ("f", 1, 4, "y"), ("f", 4, 9, "z"), ("f", 9, 12, "x")])
    same_truth = series([("f", 0, 1, "gap"), ("f", 1, 4, "a"), ("f", 4, 6, "b")])
    same_prediction = series([("f", 0, 1, "x"), ("f", 1, 4, "y"), ("f", 4, 6, "z")])
    a = audeval.structure_report(truth, prediction)
    b = audeval.structure_report(same_truth, same_prediction)
    pd.testing.assert_frame_equal(a, b)
    assert a.loc["f", "pairwise_f_measure"] == 1.0


def test_prediction_padding():
    # the prediction ends at 4 s of 6 s: [4, 6) is a gap; a missing prediction is one gap
    truth = series([("f", 0, 3, "a"), ("f", 3, 6, "b"), ("g", 0, 2, "a"), ("g", 2, 4, "b")])
    prediction = series([("f", 0, 3, "x"), ("f", 3, 4, "y")])
    report = audeval.structure_report(truth, prediction, frame_size=1.0)
    f = values(report, "f")
    # boundaries: truth 0, 3, 6; prediction 0, 3, 4, 6
    assert (f["precision_at_0_5"], f["recall_at_0_5"]) == (0.75, 1.0)
    # frames: truth a a a b b b, prediction x x x y gap gap
    assert f["pairwise_precision"] == pytest.approx(1.0)
    assert f["pairwise_recall"] == pytest.approx(4 / 6)
    g = values(report, "g")
    assert (g["precision_at_0_5"], g["recall_at_0_5"]) == (1.0, 2 / 3)
    assert g["pairwise_precision"] == pytest.approx(2 / 6)
    assert g["adjusted_rand_index"] == 0.0


def test_gap_is_its_own_cluster():
    # a gap never collides with a user label, whatever its name
    truth = series([("f", 0, 2, "a"), ("f", 2, 4, "b"), ("f", 4, 6, "a")])
    for label in ["none", "None", "", "__T_MIN", "gap"]:
        prediction = series([("f", 0, 2, label), ("f", 4, 6, label)])
        assert audeval.pairwise_clustering(truth, prediction, frame_size=1.0) == pytest.approx(
            (1.0, 1.0, 1.0)
        )
    # compat: mir_eval names interior gaps None and compares labels lower-cased;
    # frames (1 s) truth a a b b a a, prediction none none none none x x
    # (mir_eval's values: 3/7 for a label "None", (0.5, 2/7) for any other)
    prediction = series([("f", 0, 2, "None"), ("f", 4, 6, "x")])
    assert audeval.pairwise_clustering(truth, prediction, frame_size=1.0)[0] == 1.0
    ours = audeval.pairwise_clustering(truth, prediction, frame_size=1.0, compat="mir_eval")
    assert ours == pytest.approx((3 / 7, 3 / 7, 3 / 7))
    prediction = series([("f", 0, 2, "zz"), ("f", 4, 6, "x")])
    ours = audeval.pairwise_clustering(truth, prediction, frame_size=1.0, compat="mir_eval")
    assert ours[:2] == pytest.approx((0.5, 2 / 7))


def test_labels_case_sensitive_by_default():
    truth = series([("f", 0, 2, "a"), ("f", 2, 4, "b")])
    prediction = series([("f", 0, 2, "Verse"), ("f", 2, 4, "verse")])
    assert audeval.rand_index(truth, prediction, frame_size=1.0) == 1.0
    assert audeval.rand_index(truth, prediction, frame_size=1.0, compat="mir_eval") == (
        pytest.approx(2 / 6)
    )


def test_compat_boundary_frame_goes_to_later_row():
    # frame 20 (t = float32(20) * float32(0.1) = 2.0) lies on the boundary 2.0:
    # mir_eval gives it the label of the row written last
    truth = series([("f", 0, 2, "a"), ("f", 2, 4, "b")])
    prediction = series([("f", 0, 2, "x"), ("f", 2, 4, "y")])
    reversed_prediction = prediction.iloc[::-1]
    kw = dict(compat="mir_eval")
    assert audeval.rand_index(truth, prediction, **kw) == 1.0
    assert audeval.rand_index(truth, reversed_prediction, **kw) < 1.0
    assert audeval.rand_index(truth, reversed_prediction) == 1.0


def test_degenerate_table():
    truth = series(
        [
            ("one_cluster", 0, 5, "a"),
            ("short", 0, 0.05, "a"),
            ("one_frame", 0, 0.15, "a"),
            ("only_truth", 0, 1, "a"),
            ("only_truth", 1, 2, "b"),
        ]
    )
    prediction = series(
        [
            ("one_cluster", 0, 5, "x"),
            ("short", 0, 0.05, "x"),
            ("one_frame", 0, 0.15, "y"),
            ("only_prediction", 0, 3, "x"),
        ]
    )
    report = audeval.structure_report(truth, prediction)
    assert list(report.index) == ["one_cluster", "one_frame", "only_prediction", "only_truth", "short"]
    one = values(report, "one_cluster")
    assert one["pairwise_f_measure"] == 1.0 and one["rand_index"] == 1.0
    assert one["adjusted_rand_index"] == 1.0
    assert one["adjusted_mutual_information"] == 1.0
    assert one["normalized_mutual_information"] == 1.0
    assert one["mutual_information"] == 0.0
    assert one["nce_f_measure"] == 0.0 and one["v_measure"] == 0.0
    for file in ["short", "one_frame"]:  # n = 0 and n = 1 frames
        row = values(report, file)
        assert math.isnan(row["pairwise_precision"]) and math.isnan(row["rand_index"])
        assert row["adjusted_rand_index"] == 1.0
        assert row["normalized_mutual_information"] == 1.0
        assert row["nce_over"] == 0.0
    # no truth: every clustering value 0, boundary P/R/F 0, deviations NaN
    row = values(report, "only_prediction")
    assert all(row[c] == 0.0 for c in CLUSTERING_COLUMNS)
    assert row["precision_at_0_5"] == row["recall_at_3_0"] == 0.0
    assert math.isnan(row["truth_to_prediction_deviation"])
    # no prediction: one gap over the track
    row = values(report, "only_truth")
    assert (row["precision_at_0_5"], row["recall_at_0_5"]) == (1.0, 2 / 3)
    assert row["adjusted_rand_index"] == 0.0
    # functions return scalars / tuples of floats, the mean over files without NaN
    ri = audeval.rand_index(truth, prediction)
    assert isinstance(ri, float)
    assert ri == pytest.approx(report["rand_index"].mean())
    # trim leaves no boundary on some side of every file: NaN, not a crash
    deviation = audeval.boundary_deviation(truth, prediction, trim=True)
    assert len(deviation) == 2 and all(math.isnan(v) for v in deviation)


def test_trim_without_inner_boundaries():
    truth = series([("f", 0, 5, "a")])
    prediction = series([("f", 0, 5, "a")])
    assert audeval.boundary_detection(truth, prediction, trim=True) == (0.0, 0.0, 0.0)
    assert all(math.isnan(v) for v in audeval.boundary_deviation(truth, prediction, trim=True))


def test_empty_inputs():
    """No files at all: the values of a file without truth, as mir_eval gives for empty input.

    mir_eval 0.8.2: ``segment.detection`` (0, 0, 0), ``segment.deviation`` (nan, nan),
    every clustering metric 0.0 (issue 18 item 13).
    """
    empty = series([])
    assert audeval.boundary_detection(empty, empty) == (0.0, 0.0, 0.0)
    assert all(math.isnan(v) for v in audeval.boundary_deviation(empty, empty))
    assert audeval.rand_index(empty, empty) == 0.0
    assert audeval.adjusted_rand_index(empty, empty) == 0.0
    assert audeval.pairwise_clustering(empty, empty) == (0.0, 0.0, 0.0)
    assert audeval.mutual_information(empty, empty) == (0.0, 0.0, 0.0)
    assert audeval.normalized_conditional_entropy(empty, empty) == (0.0, 0.0, 0.0)
    assert audeval.v_measure(empty, empty, frame_size=None) == (0.0, 0.0, 0.0)
    report = audeval.structure_report(empty, empty)
    assert report.empty and list(report.columns) == COLUMNS


def test_frameless_limit():
    # boundaries on a 0.1 s grid: 1 ms frames count durations exactly
    truth = series([("f", 0, 1.2, "a"), ("f", 1.2, 2.5, "b"), ("f", 2.5, 4.0, "a")])
    prediction = series([("f", 0, 0.7, "x"), ("f", 0.7, 2.9, "y"), ("f", 2.9, 4.0, "x")])
    fine = audeval.structure_report(truth, prediction, frame_size=0.001)
    exact = audeval.structure_report(truth, prediction, frame_size=None)
    for column in CLUSTERING_COLUMNS:
        if column == "adjusted_mutual_information":
            assert math.isnan(exact.loc["f", column])
        elif column.startswith(("pairwise", "rand", "adjusted")):
            # C(x, 2) -> x^2 / 2: differs by O(1 / frames)
            assert exact.loc["f", column] == pytest.approx(fine.loc["f", column], abs=2e-3)
        else:
            assert exact.loc["f", column] == pytest.approx(fine.loc["f", column], rel=1e-12)
    # the limit by hand: overlaps (a,x) 0.7 + 1.1, (a,y) 0.5 + 0.4, (b,y) 1.3;
    # prediction clusters x 1.8, y 2.2; truth clusters a 2.7, b 1.3
    n_ij = np.array([1.8, 0.9, 1.3])
    a, b = np.array([2.7, 1.3]), np.array([1.8, 2.2])
    row = exact.loc["f"]
    assert row["pairwise_precision"] == pytest.approx((n_ij**2).sum() / (b**2).sum())
    assert row["pairwise_recall"] == pytest.approx((n_ij**2).sum() / (a**2).sum())
    rand = 1 + (2 * (n_ij**2).sum() - (a**2).sum() - (b**2).sum()) / 4.0**2
    assert row["rand_index"] == pytest.approx(rand)


def test_report_columns_and_windows():
    truth = series([("f", 0, 2, "a"), ("f", 2, 4, "b")])
    prediction = series([("f", 0, 2.3, "a"), ("f", 2.3, 4, "b")])
    report = audeval.structure_report(truth, prediction)
    assert list(report.columns) == COLUMNS
    assert report.index.name == "file"
    report = audeval.structure_report(truth, prediction, windows=[0.25, 1])
    assert list(report.columns[:6]) == [
        "precision_at_0_25",
        "recall_at_0_25",
        "f_measure_at_0_25",
        "precision_at_1_0",
        "recall_at_1_0",
        "f_measure_at_1_0",
    ]
    assert report.loc["f", "recall_at_0_25"] == 2 / 3
    assert report.loc["f", "recall_at_1_0"] == 1.0


def test_filewise_truth_and_categorical_labels():
    files_duration = {"f": 4.0}
    truth = pd.Series(
        pd.Categorical(["a"], categories=["a", "b"]),
        index=audformat.filewise_index(["f"]),
    )
    prediction = series([("f", 0, 2, "b"), ("f", 2, 4, "a")], categories=["a", "b"])
    p, r, f = audeval.boundary_detection(truth, prediction, files_duration=files_duration)
    assert (p, r) == (2 / 3, 1.0)
    with pytest.raises(ValueError, match="files_duration"):
        audeval.rand_index(truth, prediction)


def test_inputs_not_mutated():
    truth = series([("f", 2, 4, "B"), ("f", 0, 2, "a")])
    prediction = series([("f", 0, 3, "x")])
    copies = truth.copy(), prediction.copy()
    audeval.structure_report(truth, prediction, compat="mir_eval")
    pd.testing.assert_series_equal(truth, copies[0])
    pd.testing.assert_series_equal(prediction, copies[1])


# -------------------------------------------------------------------------
# Validation
# -------------------------------------------------------------------------


def test_overlap_is_an_error():
    truth = series([("f", 0, 2, "a"), ("g", 0, 5, "a"), ("f", 1.5, 4, "b")])
    prediction = series([("f", 0, 4, "x")])
    with pytest.raises(ValueError, match=r"truth has overlapping segments(.|\n)*1.5") as error:
        audeval.rand_index(truth, prediction)
    assert "2 row(s)" in str(error.value)
    with pytest.raises(ValueError, match="prediction has overlapping"):
        audeval.boundary_detection(prediction, truth)
    # touching segments are fine
    audeval.rand_index(series([("f", 0, 2, "a"), ("f", 2, 4, "b")]), prediction)


def test_zero_length_is_an_error():
    truth = series([("f", 0, 2, "a"), ("f", 2, 2, "b")])
    with pytest.raises(ValueError, match="truth has segments of zero length"):
        audeval.structure_report(truth, truth)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(compat="sed_eval"), ValueError, "compat"),
        (dict(frame_size=0), ValueError, "frame_size"),
        (dict(frame_size=-0.1), ValueError, "frame_size"),
        (dict(frame_size="1"), TypeError, "frame_size"),
        (dict(frame_size=None, compat="mir_eval"), ValueError, "frame_size"),
        (dict(beta=0), ValueError, "beta"),
        (dict(trim=1), TypeError, "trim"),
        (dict(windows=0.5), TypeError, "windows"),
        (dict(windows=[-1]), ValueError, "window"),
    ],
)
def test_bad_options(kwargs, error, match):
    truth = series([("f", 0, 2, "a")])
    with pytest.raises(error, match=match):
        audeval.structure_report(truth, truth, **kwargs)


def test_bad_series():
    with pytest.raises(TypeError, match="truth"):
        audeval.rand_index([1, 2], series([]))


# -------------------------------------------------------------------------
# Properties (hypothesis) against a brute-force frame implementation
# -------------------------------------------------------------------------

STEP = 0.05  # partition times on a 50 ms grid


@st.composite
def partitions(draw, files=("a", "b", "c")):
    """Rows (file, start, end, label) of partitions with gaps."""
    rows = []
    for file in draw(st.lists(st.sampled_from(files), unique=True, min_size=1)):
        cuts = sorted(draw(st.sets(st.integers(0, 120), min_size=2, max_size=12)))
        for a, b in zip(cuts[:-1], cuts[1:]):
            if draw(st.integers(0, 5)) == 0:
                continue  # gap
            rows.append((file, round(a * STEP, 2), round(b * STEP, 2), draw(st.sampled_from("xyzX"))))
    return rows


def brute_force(truth_rows, prediction_rows, frame_size):
    """Default semantics from explicit frame arrays and frame-pair matrices."""
    out = {}
    step = round(frame_size * 1e9)
    for file in sorted({r[0] for r in truth_rows}):
        t_rows = [(round(s * 1e9), round(e * 1e9), lab) for f, s, e, lab in truth_rows if f == file]
        p_rows = [
            (round(s * 1e9), round(e * 1e9), lab) for f, s, e, lab in prediction_rows if f == file
        ]
        end = max(e for _, e, _ in t_rows)
        times = np.arange(end // step) * step

        def frames(rows):
            y = np.full(len(times), "<gap>", dtype=object)
            for s, e, lab in rows:
                y[(times >= s) & (times < e)] = lab
            return y

        y_t, y_p = frames(t_rows), frames(p_rows)
        n = len(times)
        upper = np.triu(np.ones((n, n), dtype=bool), 1)
        same_t = np.equal.outer(y_t, y_t) & upper
        same_p = np.equal.outer(y_p, y_p) & upper
        both = (same_t & same_p).sum()
        n_pairs = upper.sum()
        row = {}
        with np.errstate(invalid="ignore", divide="ignore"):
            row["pairwise_precision"] = both / same_p.sum()
            row["pairwise_recall"] = both / same_t.sum()
            row["rand_index"] = (n_pairs - (same_t ^ same_p).sum()) / n_pairs
        _, ti = np.unique(y_t.astype(str), return_inverse=True)
        _, pi = np.unique(y_p.astype(str), return_inverse=True)
        table = np.zeros((ti.max(initial=-1) + 1, pi.max(initial=-1) + 1))
        np.add.at(table, (ti, pi), 1)
        a, b = table.sum(1), table.sum(0)
        nz = table > 0
        mi = (table[nz] / n * np.log(n * table[nz] / np.outer(a, b)[nz])).sum()
        h_t = -(a / n * np.log(a / n)).sum()
        h_p = -(b / n * np.log(b / n)).sum()
        emi = 0.0
        for ai in a:
            for bj in b:
                for k in range(max(1, int(ai + bj - n)), int(min(ai, bj)) + 1):
                    log_p = (
                        scipy.special.gammaln(ai + 1)
                        + scipy.special.gammaln(bj + 1)
                        + scipy.special.gammaln(n - ai + 1)
                        + scipy.special.gammaln(n - bj + 1)
                        - scipy.special.gammaln(n + 1)
                        - scipy.special.gammaln(k + 1)
                        - scipy.special.gammaln(ai - k + 1)
                        - scipy.special.gammaln(bj - k + 1)
                        - scipy.special.gammaln(n - ai - bj + k + 1)
                    )
                    emi += k / n * math.log(n * k / (ai * bj)) * math.exp(log_p)
        single = len(a) == len(b) == 1
        row["mutual_information"] = mi
        if not single and len(a) > 0:
            with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0: NaN, as audeval
                row["adjusted_mutual_information"] = (mi - emi) / (max(h_t, h_p) - emi)
        if len(a) == len(b) == n > 1:
            # every frame its own cluster on both sides: MI = H = E[MI] = log n, an exact 0 / 0
            # that audeval documents as 1.0 (issue 18 item 5); floats gave NaN or 1.0 by chance
            row["adjusted_mutual_information"] = 1.0
        out[file] = row
    return out


@GENERATED_FILES
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(truth=partitions(), prediction=partitions(), frame_size=st.sampled_from([0.1, 0.15, 0.25]))
def test_against_brute_force(truth, prediction, frame_size):
    report = audeval.structure_report(series(truth), series(prediction), frame_size=frame_size)
    for file, expected in brute_force(truth, prediction, frame_size).items():
        for column, value in expected.items():
            ours = report.loc[file, column]
            if math.isnan(value):
                assert math.isnan(ours), (file, column)
            else:
                assert ours == pytest.approx(value, rel=1e-9, abs=1e-12), (file, column)


@GENERATED_FILES
@settings(max_examples=30, deadline=None)
@given(truth=partitions(), prediction=partitions(), seed=st.integers(0, 2**32 - 1))
def test_row_and_file_order_do_not_matter(truth, prediction, seed):
    rng = np.random.default_rng(seed)
    a = audeval.structure_report(series(truth), series(prediction))
    t = [truth[i] for i in rng.permutation(len(truth))]
    p = [prediction[i] for i in rng.permutation(len(prediction))]
    b = audeval.structure_report(series(t), series(p))
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12, atol=1e-15)


@GENERATED_FILES
@settings(max_examples=30, deadline=None)
@given(truth=partitions(), prediction=partitions())
def test_shards_of_files(truth, prediction):
    """The report of disjoint sets of whole files is the union of their reports."""
    whole = audeval.structure_report(series(truth), series(prediction), compat="mir_eval")
    parts = []
    for files in (("a",), ("b", "c")):
        t = [r for r in truth if r[0] in files]
        p = [r for r in prediction if r[0] in files]
        if t or p:
            parts.append(audeval.structure_report(series(t), series(p), compat="mir_eval"))
    if not parts:
        assert whole.empty
        return
    union = pd.concat(parts).sort_index()
    pd.testing.assert_frame_equal(whole, union, check_exact=False, rtol=1e-12, atol=1e-15)


@settings(max_examples=30, deadline=None)
@given(truth=partitions(), prediction=partitions())
def test_swap_truth_and_prediction(truth, prediction):
    """On partitions of the same track, swapping the sides swaps the P/R roles."""

    def cover(rows):  # give every file the end 6 s so that nothing is cropped
        out = list(rows)
        for file in {r[0] for r in rows}:
            last = max(r[2] for r in rows if r[0] == file)
            if last < 6.0:
                out.append((file, last, 6.0, "end"))
        return out

    truth, prediction = cover(truth), cover(prediction)
    files = {r[0] for r in truth} & {r[0] for r in prediction}
    truth = [r for r in truth if r[0] in files]
    prediction = [r for r in prediction if r[0] in files]
    if not files:
        return
    a = audeval.structure_report(series(truth), series(prediction))
    b = audeval.structure_report(series(prediction), series(truth))
    pairs = [
        ("precision_at_0_5", "recall_at_0_5"),
        ("truth_to_prediction_deviation", "prediction_to_truth_deviation"),
        ("pairwise_precision", "pairwise_recall"),
        ("nce_over", "nce_under"),
        ("v_precision", "v_recall"),
    ]
    for x, y in pairs:
        np.testing.assert_allclose(a[x], b[y], rtol=1e-12, atol=1e-15)
    for column in ["rand_index", "adjusted_rand_index", "mutual_information",
                   "adjusted_mutual_information", "normalized_mutual_information",
                   "f_measure_at_3_0", "pairwise_f_measure", "nce_f_measure", "v_measure"]:
        np.testing.assert_allclose(a[column], b[column], rtol=1e-9, atol=1e-12)
