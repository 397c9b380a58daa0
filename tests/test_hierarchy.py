"""Hierarchical structure metrics (SPEC section 5, issue 23): T-measure, L-measure."""

from __future__ import annotations

import itertools
import os
import warnings

import audformat
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
import pandas as pd
import pytest

from audeval._hierarchy import FAMILY
from audeval._hierarchy import MIR_EVAL_COLUMNS
from audeval._hierarchy import hierarchy_lmeasure
from audeval._hierarchy import hierarchy_report
from audeval._hierarchy import hierarchy_statistics
from audeval._hierarchy import hierarchy_tmeasure
from audeval._hierarchy.inputs import InconsistentHierarchyWarning


GOLDEN = os.path.join(os.path.dirname(__file__), "assets", "hierarchy")
CONFIGS = {"default": {}, "window_5_frame_0.25": {"window": 5.0, "frame_size": 0.25}}


def level(rows) -> pd.Series:
    """Series from (file, start, end, label) rows, times in seconds."""
    files, starts, ends, labels = zip(*rows) if rows else ([], [], [], [])
    index = audformat.segmented_index(list(files), list(starts), list(ends))
    return pd.Series(list(labels), index=index, dtype=object)


@pytest.fixture(scope="module")
def golden():
    segments = pd.read_csv(os.path.join(GOLDEN, "segments.csv"))
    expected = pd.read_csv(os.path.join(GOLDEN, "expected.csv"))
    sides = {}
    for side, rows in segments.groupby("side"):
        sides[side] = {
            f"level{depth}": level(list(zip(g.file, g.start, g.end, g.label)))
            for depth, g in rows.groupby("level")
        }
    return sides["truth"], sides["prediction"], expected


# -------------------------------------------------------------------------
# mir_eval.hierarchy (tests/assets/hierarchy/make_golden.py)
# -------------------------------------------------------------------------


@pytest.mark.parametrize("config", list(CONFIGS))
def test_golden_mir_eval(golden, config):
    truth, prediction, expected = golden
    # (its "independent" files have boundaries per level: mir_eval warned on them too)
    with pytest.warns(InconsistentHierarchyWarning):
        report = hierarchy_report(truth, prediction, compat="mir_eval", **CONFIGS[config])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InconsistentHierarchyWarning)
        golden_means(truth, prediction, expected, config)


def golden_means(truth, prediction, expected, config):
    report = hierarchy_report(truth, prediction, compat="mir_eval", **CONFIGS[config])
    table = expected[expected["config"] == config].set_index("file")
    assert len(table) == 18
    for key, column in MIR_EVAL_COLUMNS.items():
        np.testing.assert_allclose(
            report.loc[table.index, column], table[key], rtol=0, atol=1e-9, err_msg=key
        )
    means = table[list(MIR_EVAL_COLUMNS)].mean()
    options = dict(compat="mir_eval", **CONFIGS[config])
    np.testing.assert_allclose(
        hierarchy_tmeasure(truth, prediction, **options),
        means[["T-Precision reduced", "T-Recall reduced", "T-Measure reduced"]],
        atol=1e-9,
    )
    np.testing.assert_allclose(
        hierarchy_tmeasure(truth, prediction, transitive=True, **options),
        means[["T-Precision full", "T-Recall full", "T-Measure full"]],
        atol=1e-9,
    )
    options.pop("window", None)
    np.testing.assert_allclose(
        hierarchy_lmeasure(truth, prediction, **options),
        means[["L-Precision", "L-Recall", "L-Measure"]],
        atol=1e-9,
    )


@pytest.mark.parametrize("monotonic", [False, True])
@pytest.mark.filterwarnings("ignore::audeval._hierarchy.inputs.InconsistentHierarchyWarning")
def test_frameless_equals_frames_on_the_grid(golden, monotonic):
    """Golden boundaries lie on a 1 ms grid: 1 ms frames sum what frame_size=None integrates."""
    truth, prediction, _ = golden
    frames = hierarchy_report(truth, prediction, frame_size=0.001, window=None, monotonic=monotonic)
    exact = hierarchy_report(truth, prediction, frame_size=None, window=None, monotonic=monotonic)
    np.testing.assert_allclose(frames.to_numpy(), exact.to_numpy(), rtol=1e-11, atol=1e-12)
    # boundaries off a coarser grid: frames only approximate
    coarse = hierarchy_report(truth, prediction, frame_size=0.5, window=None, monotonic=monotonic)
    assert not np.allclose(coarse.to_numpy(), exact.to_numpy(), rtol=1e-6)


# -------------------------------------------------------------------------
# Brute force over frame pairs
# -------------------------------------------------------------------------


def meets(levels, n, by_label, monotonic):
    """Frame x frame meet matrix of a hierarchy given as rows per level (integer times)."""
    meet = np.zeros((n, n), dtype=int)
    path = np.ones((n, n), dtype=bool)
    for depth, rows in enumerate(levels, 1):
        key = np.full(n, -1, dtype=object)
        for i, (start, end, label) in enumerate(rows):
            key[start:end] = label if by_label else i
        agree = (key[:, None] == key[None, :]) & (key[:, None] != -1)
        path &= agree
        meet[path if monotonic else agree] = depth
    return meet


def brute(truth, prediction, n, *, by_label, transitive, window, monotonic, exclude_self):
    ref = meets(truth, n, by_label, monotonic)
    est = meets(prediction, n, by_label, monotonic)
    out = []
    for a, b in ((est, ref), (ref, est)):  # precision, recall
        scores = []
        for q in range(n):
            others = [
                j for j in range(n)
                if (window is None or q - window <= j < q + window) and not (exclude_self and j == q)
            ]
            pairs = inversions = 0
            for i, j in itertools.product(others, others):
                if a[q, i] < a[q, j] and (transitive or a[q, j] == a[q, i] + 1):
                    pairs += 1
                    inversions += b[q, i] >= b[q, j]
            if pairs:
                scores.append(1 - inversions / pairs)
        out.append(float(np.mean(scores)) if scores else 0.0)
    return out


@st.composite
def hierarchies(draw, n=12):
    """Nested or independent levels, labels drawn freely: integer times on [0, n)."""
    n_levels = draw(st.integers(1, 3))
    levels = []
    for _ in range(n_levels):
        cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=5)))
        edges = [0, *cuts, n]
        levels.append(
            [(a, b, draw(st.sampled_from("ab"))) for a, b in zip(edges[:-1], edges[1:])]
        )
    return levels


def as_mapping(levels, file="f"):
    return {
        f"level{depth}": level([(file, a, b, label) for a, b, label in rows])
        for depth, rows in enumerate(levels)
    }


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    truth=hierarchies(),
    prediction=hierarchies(),
    monotonic=st.booleans(),
    window=st.sampled_from([None, 3]),
)
def test_against_brute_force(truth, prediction, monotonic, window):
    t, p = as_mapping(truth), as_mapping(prediction)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hierarchy_tmeasure(t, p, frame_size=1.0)
    inconsistent = [str(w.message).split()[0] for w in caught if w.category is InconsistentHierarchyWarning]
    assert inconsistent == [
        name for name, levels in (("truth", truth), ("prediction", prediction)) if not consistent(levels)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InconsistentHierarchyWarning)
        brute_force_cases(truth, prediction, monotonic, window, t, p)


def consistent(levels) -> bool:
    """Every boundary of a level is one of every finer level (mir_eval's validate_hier_intervals)."""
    bounds = [{a for a, _, _ in rows} | {b for _, b, _ in rows} for rows in levels]
    return all(bounds[k] <= bounds[m] for k in range(len(bounds)) for m in range(k, len(bounds)))


def brute_force_cases(truth, prediction, monotonic, window, t, p):
    for compat in (None, "mir_eval"):
        kwargs = dict(frame_size=1.0, monotonic=monotonic, compat=compat)
        exclude = compat == "mir_eval"
        for transitive in (False, True):
            ours = hierarchy_tmeasure(t, p, window=window, transitive=transitive, **kwargs)
            expected = brute(
                truth, prediction, 12, by_label=False, transitive=transitive, window=window,
                monotonic=monotonic, exclude_self=exclude,
            )
            np.testing.assert_allclose(ours[:2], expected, atol=1e-12)
        ours = hierarchy_lmeasure(t, p, **kwargs)
        expected = brute(
            truth, prediction, 12, by_label=True, transitive=True, window=None,
            monotonic=monotonic, exclude_self=exclude,
        )
        np.testing.assert_allclose(ours[:2], expected, atol=1e-12)


# -------------------------------------------------------------------------
# Inputs
# -------------------------------------------------------------------------


def frame_hierarchy():
    index = audformat.segmented_index(["a"] * 4, [0, 10, 20, 30], [10, 20, 30, 40])
    truth = pd.DataFrame({"coarse": ["A", "A", "B", "B"], "fine": ["a", "b", "c", "d"]}, index=index)
    prediction = pd.DataFrame({"coarse": ["x", "x", "x", "y"], "fine": ["p", "q", "r", "s"]}, index=index)
    return truth, prediction


def test_dataframe_merges_runs_like_a_mapping():
    truth, prediction = frame_hierarchy()
    mapping = {
        "coarse": level([("a", 0, 20, "A"), ("a", 20, 40, "B")]),
        "fine": truth["fine"],
    }
    np.testing.assert_array_equal(
        hierarchy_report(truth, prediction).to_numpy(), hierarchy_report(mapping, prediction).to_numpy()
    )
    # a mapping keeps adjacent segments with one label apart (a T-measure boundary)
    apart = {"coarse": level([("a", 0, 10, "A"), ("a", 10, 20, "A"), ("a", 20, 40, "B")]), "fine": truth["fine"]}
    assert hierarchy_tmeasure(apart, prediction) != hierarchy_tmeasure(mapping, prediction)
    assert hierarchy_lmeasure(apart, prediction) == hierarchy_lmeasure(mapping, prediction)


def test_hand_computed_lmeasure():
    # one level each: truth a|b, prediction one label; 4 frames of 1 s
    truth = level([("f", 0, 2, "a"), ("f", 2, 4, "b")])
    prediction = level([("f", 0, 4, "x")])
    # recall: every query has 1 frame of its label (meet 1, itself included) ... 2 frames
    # at meet 0; the prediction ties them all (meet 1): every pair is an inversion
    assert hierarchy_lmeasure(truth, prediction, frame_size=1.0) == (0.0, 0.0, 0.0)
    assert hierarchy_lmeasure(truth, truth, frame_size=1.0) == (1.0, 1.0, 1.0)
    # swapped: recall ranks nothing (one meet value; no query counts -> 0, as mir_eval),
    # precision finds only ties
    assert hierarchy_lmeasure(prediction, truth, frame_size=1.0) == (0.0, 0.0, 0.0)
    # truth a a b b, prediction x y y y (frames of 1 s, the query among its results):
    # query 0: 4 ranked pairs, 2 inversions (frames 2, 3 vs 1); query 1: all 4 inverted;
    # queries 2, 3: 2 of 4 inverted
    half = level([("f", 0, 1, "x"), ("f", 1, 4, "y")])
    _, r, _ = hierarchy_lmeasure(truth, half, frame_size=1.0)
    assert r == (0.5 + 0.0 + 0.5 + 0.5) / 4


def test_monotonic_option():
    # level 2 labels agree across different level-1 labels
    truth = {
        "top": level([("f", 0, 2, "A"), ("f", 2, 4, "B")]),
        "low": level([("f", 0, 1, "x"), ("f", 1, 3, "y"), ("f", 3, 4, "x")]),
    }
    prediction = {
        "top": level([("f", 0, 2, "A"), ("f", 2, 4, "B")]),
        "low": level([("f", 0, 1, "x"), ("f", 1, 2, "y"), ("f", 2, 3, "z"), ("f", 3, 4, "w")]),
    }
    # (the truth's level 2 lacks the boundary at 2 s: an inconsistent hierarchy, as mir_eval says)
    with pytest.warns(InconsistentHierarchyWarning, match="truth .* at 2 s"):
        loose = hierarchy_lmeasure(truth, prediction, frame_size=1.0)
        strict = hierarchy_lmeasure(truth, prediction, frame_size=1.0, monotonic=True)
        assert strict == hierarchy_lmeasure(truth, prediction, frame_size=None, monotonic=True)
    assert loose != strict
    # nested labels on both sides: both definitions agree
    nested = {"top": truth["top"], "low": level([("f", 0, 1, "x"), ("f", 1, 2, "y"), ("f", 2, 4, "z")])}
    assert hierarchy_lmeasure(nested, prediction, frame_size=1.0) == hierarchy_lmeasure(
        nested, prediction, frame_size=1.0, monotonic=True
    )


def test_errors():
    truth, prediction = frame_hierarchy()
    with pytest.raises(TypeError, match="truth must be a DataFrame"):
        hierarchy_lmeasure([1, 2], prediction)
    with pytest.raises(TypeError, match=r"prediction\['x'\] must be a Series"):
        hierarchy_lmeasure(truth, {"x": [1]})
    overlapping = {"l": level([("a", 0, 10, "A"), ("a", 5, 40, "B")])}
    with pytest.raises(ValueError, match=r"truth \(level 1\) has overlapping segments"):
        hierarchy_lmeasure(overlapping, prediction)
    missing = truth.copy()
    missing.iloc[1, 1] = None
    with pytest.raises(ValueError, match="missing labels at level 2"):
        hierarchy_lmeasure(missing, prediction)
    # issue 29 item 5: frame_size=None takes any window (it raised): the limit of fine frames
    np.testing.assert_allclose(
        hierarchy_tmeasure(truth, prediction, frame_size=None),
        hierarchy_tmeasure(truth, prediction, frame_size=0.001),
        atol=1e-4,
    )
    with pytest.raises(ValueError, match="frame_size must not exceed window"):
        hierarchy_tmeasure(truth, prediction, frame_size=2.0, window=1.0)
    # the L-measure has no window: any frame size
    assert len(hierarchy_lmeasure(truth, prediction, frame_size=20.0, window=1.0)) == 3
    with pytest.raises(ValueError, match="compat"):
        hierarchy_lmeasure(truth, prediction, compat="msaf")
    with pytest.raises(TypeError, match="transitive"):
        hierarchy_tmeasure(truth, prediction, transitive="yes")


# -------------------------------------------------------------------------
# Statistics
# -------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::audeval._hierarchy.inputs.InconsistentHierarchyWarning")
def test_statistics_table_paths(golden):
    truth, prediction, _ = golden
    table = hierarchy_statistics(truth, prediction)
    assert table.index.name == "file" and len(table) == 18
    assert list(table.columns) == list(FAMILY.columns)
    assert table["l_recall_queries"].dtype == np.int64
    assert table.attrs["audeval"]["family"] == "hierarchy"
    assert FAMILY.pooled is False
    for transitive in (False, True):
        assert hierarchy_tmeasure(table, None, transitive=transitive) == hierarchy_tmeasure(
            truth, prediction, transitive=transitive
        )
    assert hierarchy_lmeasure(table, None, beta=2.0) == hierarchy_lmeasure(truth, prediction, beta=2.0)
    pd.testing.assert_frame_equal(hierarchy_report(table, None), hierarchy_report(truth, prediction))
    # tables of single files, concatenated: the same means
    files = list(table.index)
    shards = [
        hierarchy_statistics(
            {k: v[v.index.get_level_values("file") == f] for k, v in truth.items()},
            {k: v[v.index.get_level_values("file") == f] for k, v in prediction.items()},
        )
        for f in files[:6]
    ]
    np.testing.assert_allclose(
        hierarchy_lmeasure(pd.concat(shards), None), hierarchy_lmeasure(table.loc[files[:6]], None), rtol=1e-12
    )
    with pytest.raises(ValueError, match="window.*hierarchy_statistics"):
        hierarchy_tmeasure(table, None, window=5.0)
    with pytest.raises(ValueError, match="frame_size.*hierarchy_statistics"):
        hierarchy_lmeasure(table, None, frame_size=None)
    with pytest.raises(ValueError, match="window.*hierarchy_statistics"):
        hierarchy_lmeasure(table, None, window=5.0)
    frameless = hierarchy_statistics(truth, prediction, frame_size=None)
    # issue 29 item 5: the frameless T-measure is defined with a window (it was NaN and raised)
    assert frameless["t_full_recall_score"].notna().all()
    assert hierarchy_tmeasure(frameless, None) == hierarchy_tmeasure(truth, prediction, frame_size=None)
    assert hierarchy_lmeasure(frameless, None) == hierarchy_lmeasure(truth, prediction, frame_size=None)


def test_no_files_and_files_without_truth():
    empty = level([])
    assert hierarchy_lmeasure(empty, empty) == (0.0, 0.0, 0.0)
    assert hierarchy_tmeasure(empty, empty) == (0.0, 0.0, 0.0)
    assert hierarchy_report(empty, empty).empty
    prediction_only = level([("f", 0, 4, "x")])
    assert hierarchy_lmeasure(empty, prediction_only) == (0.0, 0.0, 0.0)
