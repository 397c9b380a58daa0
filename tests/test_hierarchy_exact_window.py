"""Issue 29 item 5: the exact T-measure with a window, and malformed hierarchies.

* ``frame_size=None`` takes any ``window``: the per-query score integrated over the track,
  the limit of finer and finer frame grids (first order in the frame size:
  frames of 0.01 s within 5e-3, Richardson extrapolation of two grids within 1e-4);
  a window that covers the track gives the ``window=None`` values, which equal
  frames on a grid that holds every boundary.
* Levels that end at different times raise, a finer level without a boundary of a coarser
  one warns, as ``mir_eval.hierarchy`` (golden outcomes in ``tests/assets/hierarchy_malformed``,
  made by mir_eval 0.8.2).
"""

from __future__ import annotations

import os
import warnings

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._hierarchy import counts as _counts
from audeval._hierarchy.inputs import InconsistentHierarchyWarning


HERE = os.path.join(os.path.dirname(__file__), "assets")
T_COLUMNS = [
    "t_precision_reduced", "t_recall_reduced", "t_measure_reduced",
    "t_precision_full", "t_recall_full", "t_measure_full",
]


def level(rows) -> pd.Series:
    files, starts, ends, labels = zip(*rows) if rows else ([], [], [], [])
    return pd.Series(list(labels), index=audformat.segmented_index(list(files), list(starts), list(ends)), dtype=object)


def nested(rng, file, end, sizes, grid):
    """Nested levels (coarse to fine) on ``[0, end)``, boundaries on ``grid`` seconds."""
    n = int(round(end / grid))
    fine = np.unique(np.concatenate([[0, n], rng.integers(1, n, size=sizes[-1])]))
    bounds = [fine]
    for size in sizes[-2::-1]:
        inner = bounds[0][1:-1]
        keep = rng.choice(inner, size=min(size, len(inner)), replace=False) if len(inner) else inner
        bounds.insert(0, np.unique(np.concatenate([[0, n], keep])))
    return {
        f"level{depth}": level(
            [(file, a * grid, b * grid, str(rng.choice(list("abc")))) for a, b in zip(b_[:-1], b_[1:])]
        )
        for depth, b_ in enumerate(bounds)
    }


@pytest.fixture(scope="module")
def songs():
    """Three files of 20-40 s, 2-3 nested levels, every boundary on a 0.1 s grid."""
    rng = np.random.default_rng(29)
    truth, prediction = {}, {}
    for i, sizes in enumerate(([3, 9], [2, 6, 14], [4, 12])):
        end = float(rng.integers(200, 400)) / 10.0
        for side in (truth, prediction):
            for key, series in nested(rng, f"song{i}", end, sizes, 0.1).items():
                side[key] = pd.concat([side[key], series]) if key in side else series
    # a level only some files have: the others lack it
    return truth, prediction


def report(truth, prediction, **options):
    return audeval.hierarchy_report(truth, prediction, **options)[T_COLUMNS]


@pytest.mark.parametrize("monotonic", [False, True])
@pytest.mark.parametrize("window", [3.0, 15.0])
def test_exact_window_is_the_limit_of_fine_frames(songs, window, monotonic):
    truth, prediction = songs
    exact = report(truth, prediction, frame_size=None, window=window, monotonic=monotonic).to_numpy()
    fine = report(truth, prediction, frame_size=0.01, window=window, monotonic=monotonic).to_numpy()
    finer = report(truth, prediction, frame_size=0.005, window=window, monotonic=monotonic).to_numpy()
    assert np.abs(fine - exact).max() < 5e-3
    assert np.abs(finer - exact).max() < 5e-3
    # frames sum the score on the grid (a Riemann sum, first order in the frame size):
    # with boundaries and window on both grids, two grids extrapolate to the integral
    assert np.abs(2 * finer - fine - exact).max() < 1e-4
    assert np.abs(2 * finer - fine - exact).max() < np.abs(fine - exact).max() / 10
    # the exact value is no frame value: the window moves within a frame
    assert np.abs(fine - exact).max() > 1e-6


def test_exact_window_on_the_golden_data_is_near_fine_frames():
    """The 18 golden files of mir_eval (boundaries on a 1 ms grid, gaps, pads, crops)."""
    segments = pd.read_csv(os.path.join(HERE, "hierarchy", "segments.csv"))
    sides = {
        side: {
            f"level{depth}": level(list(zip(g.file, g.start, g.end, g.label)))
            for depth, g in rows.groupby("level")
        }
        for side, rows in segments.groupby("side")
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InconsistentHierarchyWarning)  # (its independent files)
        exact = report(sides["truth"], sides["prediction"], frame_size=None, window=15.0)
        fine = report(sides["truth"], sides["prediction"], frame_size=0.01, window=15.0)
    assert np.abs(fine.to_numpy() - exact.to_numpy()).max() < 5e-3


def test_a_window_over_the_whole_track_is_no_window(songs):
    """A window that holds the whole track at every query: the ``window=None`` integral,
    which frames on a grid that holds every boundary give exactly."""
    truth, prediction = songs
    none = report(truth, prediction, frame_size=None, window=None)
    wide = report(truth, prediction, frame_size=None, window=100.0)
    np.testing.assert_allclose(wide.to_numpy(), none.to_numpy(), rtol=1e-12, atol=1e-12)
    frames = report(truth, prediction, frame_size=0.1, window=None)
    np.testing.assert_allclose(frames.to_numpy(), none.to_numpy(), rtol=1e-11, atol=1e-12)
    frames = report(truth, prediction, frame_size=0.1, window=100.0)
    np.testing.assert_allclose(frames.to_numpy(), none.to_numpy(), rtol=1e-11, atol=1e-12)


def hand_case():
    """One file of 4 s: truth levels [0, 4) and [0, 2) [2, 4); prediction one level [0, 4)."""
    truth = {"top": level([("f", 0, 4, "A")]), "low": level([("f", 0, 2, "a"), ("f", 2, 4, "b")])}
    prediction = {"top": level([("f", 0, 4, "X")]), "low": level([("f", 0, 4, "x")])}
    return truth, prediction


def test_hand_computed_exact_window():
    r"""Window 1 s, recall (the truth ranks).

    For ``q`` in ``[1, 2)`` the window ``[q - 1, q + 1)`` holds units of truth meet 2
    (``[q - 1, 2)``, the same low segment) and of meet 1 (``[2, q + 1)``);
    the prediction meets every unit alike (one segment per level): every pair is a tie,
    an inversion, so the query scores 0. For ``q`` in ``[0, 1)`` the window holds no unit
    of meet 1: no pair, the query does not count. Symmetric on ``[2, 4)``.
    Recall 0 over a counted length of 2 s; precision has no pair anywhere.
    """
    truth, prediction = hand_case()
    table = audeval.hierarchy_statistics(truth, prediction, frame_size=None, window=1.0)
    assert table["t_reduced_recall_queries"].iloc[0] == 2 * 10**9  # [1, 3) s in ns
    assert table["t_reduced_recall_score"].iloc[0] == pytest.approx(0.0, abs=1e-6)  # ns, rounding only
    assert table["t_reduced_precision_queries"].iloc[0] == 0
    assert audeval.hierarchy_tmeasure(truth, prediction, frame_size=None, window=1.0) == pytest.approx(
        (0.0, 0.0, 0.0), abs=1e-15
    )
    # the prediction as truth: precision is then 0 on [1, 3) and recall has no pair
    table = audeval.hierarchy_statistics(prediction, truth, frame_size=None, window=1.0)
    assert table["t_reduced_precision_queries"].iloc[0] == 2 * 10**9
    assert table["t_reduced_recall_queries"].iloc[0] == 0


def test_hand_computed_partial_inversions():
    r"""Truth [0, 4) / [0, 2) [2, 4); prediction [0, 4) / [0, 3) [3, 4); window 1 s, recall.

    Query ``q`` in ``[1, 2)``: meet-2 units ``[q - 1, 2)`` (length ``3 - q``, all in the
    prediction's ``[0, 3)``: predicted meet 2), meet-1 units ``[2, q + 1)`` (length ``q - 1``,
    also in ``[0, 3)``: predicted meet 2): every pair is a tie, an inversion: score 0.
    Query ``q`` in ``[2, 3)``: meet-2 units ``[2, q + 1)``; those in ``[3, 4)`` have predicted
    meet 1 (length ``max(q - 2, 0)``): inverted against meet-1 units ``[q - 1, 2)`` with
    predicted meet 2 (length ``3 - q``) only if ``meet_p(i) >= meet_p(j)``: ``2 >= 1`` yes.
    The other pairs ``(i, j)`` with ``j`` in ``[2, 3)`` (predicted meet 2): ``2 >= 2`` yes.
    So every pair is inverted there too: recall 0 — and precision, by symmetry of the
    construction, is computed against the brute force of fine frames.
    """
    truth = {"top": level([("f", 0, 4, "A")]), "low": level([("f", 0, 2, "a"), ("f", 2, 4, "b")])}
    prediction = {"top": level([("f", 0, 4, "X")]), "low": level([("f", 0, 3, "x"), ("f", 3, 4, "y")])}
    exact = audeval.hierarchy_tmeasure(truth, prediction, frame_size=None, window=1.0)
    assert exact[1] == pytest.approx(0.0, abs=1e-15)
    frames = [audeval.hierarchy_tmeasure(truth, prediction, frame_size=f, window=1.0) for f in (0.01, 0.005)]
    np.testing.assert_allclose(2 * np.array(frames[1]) - np.array(frames[0]), exact, atol=1e-4)


def test_pieces_make_every_count_linear(songs):
    """On every piece the counts ``c`` are exact integers plus integer slopes times the offset."""
    truth, prediction = songs
    from audeval._hierarchy.inputs import prepare, validate

    t, p, files = validate(truth, prediction, None)
    axis = prepare(t, p, len(files), None, False)
    pieces = _counts.window_pieces(axis, len(files), 3 * 10**9, False)
    assert pieces.c0.dtype == np.int64 and pieces.c1.dtype == np.int64
    assert set(np.unique(pieces.c1)) <= {-2, -1, 0, 1, 2}
    # the pieces tile each file's track
    np.testing.assert_array_equal(np.bincount(pieces.file, weights=pieces.length), axis.n.astype(float))
    # c is the measure of units per (truth meet, prediction meet) in the window: at the ends of a
    # piece it is non-negative and sums to the window's length within the track
    for x in (np.zeros(len(pieces.file)), pieces.length.astype(float)):
        c = pieces.c0 + pieces.c1 * x[:, None, None]
        assert (c >= 0).all()
        q = pieces.start + x
        n = axis.n[pieces.file]
        np.testing.assert_allclose(
            c.sum(axis=(1, 2)), np.minimum(q + 3e9, n) - np.maximum(q - 3e9, 0), rtol=0, atol=1e-6
        )


# -------------------------------------------------------------------------
# Malformed hierarchies (golden outcomes of mir_eval 0.8.2)
# -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def malformed():
    segments = pd.read_csv(os.path.join(HERE, "hierarchy_malformed", "segments.csv"))
    expected = pd.read_csv(os.path.join(HERE, "hierarchy_malformed", "expected.csv"), keep_default_na=False)
    cases = {
        case: {
            f"level{depth}": level([(case, a, b, label) for a, b, label in zip(g.start, g.end, g.label)])
            for depth, g in rows.groupby("level")
        }
        for case, rows in segments.groupby("case")
    }
    return cases, expected.set_index("case")


def outcome(hierarchy, other):
    """What audeval says of ``hierarchy`` (truth) against a consistent ``other``:
    ``("raise", message)``, ``("warn", levels 0-based)`` or ``("ok", ())``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            audeval.hierarchy_tmeasure(hierarchy, other, frame_size=None, window=None)
        except ValueError as error:
            return "raise", str(error)
    messages = [str(w.message) for w in caught if w.category is InconsistentHierarchyWarning]
    if not messages:
        return "ok", ()
    (message,) = messages
    assert message.startswith("truth is an inconsistent hierarchy")
    levels = message.split("(finer levels: ")[1].split(")")[0]
    return "warn", tuple(int(level) - 1 for level in levels.split(", "))


def test_malformed_hierarchies_as_mir_eval(malformed):
    cases, expected = malformed
    assert set(expected["outcome"]) == {"ok", "warn", "raise"}
    for case, hierarchy in cases.items():
        single = {"level0": level([(case, 0.0, float(hierarchy["level0"].index.get_level_values("end").max().total_seconds()), "x")])}
        what, detail = outcome(hierarchy, single)
        row = expected.loc[case]
        assert what == row["outcome"], case
        if what == "warn":
            assert detail == tuple(int(level) for level in row["levels"].split()), case
        if what == "raise":
            assert "levels end at different times" in detail and repr(case) in detail


def test_malformed_prediction_and_messages():
    truth = {"top": level([("f", 0, 4, "A")]), "low": level([("f", 0, 2, "a"), ("f", 2, 4, "b")])}
    short = {"top": level([("f", 0, 4, "A")]), "low": level([("f", 0, 2, "a"), ("f", 2, 3.5, "b")])}
    with pytest.raises(ValueError, match=r"prediction is not a hierarchy.*'f': level 1 ends at 4 s, level 2 ends at 3.5 s"):
        audeval.hierarchy_lmeasure(truth, short)
    with pytest.raises(ValueError, match=r"truth is not a hierarchy"):
        audeval.hierarchy_statistics(short, truth)
    # a DataFrame (adjacent equal labels one segment): the fine column splits each coarse segment
    index = audformat.segmented_index(["f"] * 3, [0, 1, 2], [1, 2, 4])
    frame = pd.DataFrame({"coarse": ["A", "A", "B"], "fine": ["a", "b", "c"]}, index=index)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        audeval.hierarchy_tmeasure(frame, frame)
    # ... a fine run across the coarse boundary at 1 s: inconsistent
    frame = pd.DataFrame({"coarse": ["A", "B", "B"], "fine": ["a", "a", "b"]}, index=index)
    with pytest.warns(InconsistentHierarchyWarning, match=r"at 1 s \(a boundary of level 1, not of level 2\)"):
        audeval.hierarchy_tmeasure(frame, truth)
    # a file where a level has no rows is left out of the checks of that level
    partial = {"top": level([("f", 0, 4, "A"), ("g", 0, 2, "A")]), "low": level([("f", 0, 2, "a"), ("f", 2, 4, "b")])}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        audeval.hierarchy_lmeasure(partial, partial)
