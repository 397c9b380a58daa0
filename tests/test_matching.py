"""Event matching: exact optimum, the tie rule, every solver path, row-order independence."""

import itertools

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_GENERATED_FILES as GENERATED_FILES
from conftest import MAY_WARN_NO_SHARED_FILE
from conftest import MAY_WARN_ABSENT_LABELS
from conftest import MAY_WARN_DUPLICATES

import audeval
from audeval._core.matching import (
    canonical_order,
    greedy_matching,
    lexicographic_matching,
    maximum_matching,
)
from audeval._core.matching import lexicographic as _lexicographic
from audeval._core.matching import small as _small

from conftest import series


# --- references ---------------------------------------------------------------------


def _all_assignments(n_truth, n_pred, kinds):
    """Every partial one-to-one assignment with its (matches, substitutions)."""
    for chosen in itertools.product(range(-1, n_pred), repeat=n_truth):
        used = [c for c in chosen if c >= 0]
        if len(used) != len(set(used)):
            continue
        if any(c >= 0 and (i, c) not in kinds for i, c in enumerate(chosen)):
            continue
        m = sum(1 for i, c in enumerate(chosen) if c >= 0 and kinds[(i, c)] == "same")
        s = sum(1 for i, c in enumerate(chosen) if c >= 0 and kinds[(i, c)] == "other")
        yield chosen, m, s


def _reference(n_truth, n_pred, kinds):
    """Best (matches, substitutions) and the lexicographically first best assignment.

    Lexicographic order of the truth vector with "none" after every prediction.
    """
    best = None
    for chosen, m, s in _all_assignments(n_truth, n_pred, kinds):
        key = (-m, -s, tuple(c if c >= 0 else n_pred for c in chosen))
        if best is None or key < best[0]:
            best = (key, chosen)
    (neg_m, neg_s, _), chosen = best
    return -neg_m, -neg_s, list(chosen)


def _split(kinds):
    same = [(t, p) for (t, p), k in kinds.items() if k == "same"]
    other = [(t, p) for (t, p), k in kinds.items() if k == "other"]

    def arrays(pairs):
        return (
            np.array([t for t, _ in pairs], dtype=np.int64),
            np.array([p for _, p in pairs], dtype=np.int64),
        )

    return arrays(same), arrays(other)


def _counts(match, substitution):
    return int((match >= 0).sum()), int((substitution >= 0).sum())


# --- lexicographic matching ---------------------------------------------------------


graphs = st.integers(1, 5).flatmap(
    lambda n_truth: st.integers(1, 5).flatmap(
        lambda n_pred: st.tuples(
            st.just(n_truth),
            st.just(n_pred),
            st.dictionaries(
                st.tuples(st.integers(0, n_truth - 1), st.integers(0, n_pred - 1)),
                st.sampled_from(["same", "other"]),
                max_size=n_truth * n_pred,
            ),
        )
    )
)


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(graphs)
def test_lexicographic_matching_is_the_lexicographically_first_optimum(graph):
    # up to 5 x 5 events the tie rule is exact: compare with full enumeration
    n_truth, n_pred, kinds = graph
    match, substitution = lexicographic_matching(n_truth, n_pred, *_split(kinds))
    m, s, chosen = _reference(n_truth, n_pred, kinds)
    assert _counts(match, substitution) == (m, s)
    got = np.where(match >= 0, match, substitution).tolist()
    assert got == chosen
    # matches are same-label pairs, substitutions other-label pairs
    for t in range(n_truth):
        if match[t] >= 0:
            assert kinds[(t, int(match[t]))] == "same"
        if substitution[t] >= 0:
            assert kinds[(t, int(substitution[t]))] == "other"


def _random_graph(rng, n_truth, n_pred, density, other_share):
    kinds = {}
    for t in range(n_truth):
        for p in range(n_pred):
            if rng.uniform() < density:
                kinds[(t, p)] = "other" if rng.uniform() < other_share else "same"
    return kinds


@pytest.mark.parametrize("seed", range(6))
def test_lexicographic_matching_large_components_are_optimal(seed):
    # 6 x 6 and 7 x 6 components go to the weighted solver: still optimal counts
    rng = np.random.default_rng(seed)
    n_truth, n_pred = (6, 6) if seed % 2 else (7, 6)
    kinds = _random_graph(rng, n_truth, n_pred, 0.6, 0.5)
    match, substitution = lexicographic_matching(n_truth, n_pred, *_split(kinds))
    m, s, _ = _reference(n_truth, n_pred, kinds)
    assert _counts(match, substitution) == (m, s)
    used = np.concatenate([match[match >= 0], substitution[substitution >= 0]])
    assert len(set(used.tolist())) == len(used)


def test_lexicographic_matching_many_components_in_batches(monkeypatch):
    # several batches of large components, and large components without other-label pairs
    monkeypatch.setattr(_lexicographic, "BATCH_SIZE", 10)
    rng = np.random.default_rng(0)
    same_t, same_p, other_t, other_p = [], [], [], []
    expected_m = expected_s = 0
    offset = 0
    for k in range(8):
        kinds = _random_graph(rng, 6, 6, 0.7, 0.4 if k % 3 else 0.0)
        (st_, sp_), (ot, op) = _split(kinds)
        same_t.append(st_ + offset), same_p.append(sp_ + offset)
        other_t.append(ot + offset), other_p.append(op + offset)
        m, s, _ = _reference(6, 6, kinds)
        expected_m, expected_s = expected_m + m, expected_s + s
        offset += 6
    match, substitution = lexicographic_matching(
        offset,
        offset,
        (np.concatenate(same_t), np.concatenate(same_p)),
        (np.concatenate(other_t), np.concatenate(other_p)),
    )
    assert _counts(match, substitution) == (expected_m, expected_s)


def test_small_blocks_enumeration_sizes():
    assert _small.n_assignments(2, 2) == 7
    assert _small.n_assignments(5, 5) == 1546
    table, tie = _small.assignments(2, 2)
    # lexicographic: truth 0 takes prediction 0 first; 2 means "none"
    assert table.tolist()[0] == [0, 1]
    assert table.tolist()[-1] == [2, 2]
    assert tie[0] > tie[-1]


# --- maximum matching ----------------------------------------------------------------


@hypothesis.settings(max_examples=200, deadline=None)
@hypothesis.given(graphs)
def test_maximum_matching_is_maximum(graph):
    n_truth, n_pred, kinds = graph
    pairs = sorted(kinds)
    t = np.array([a for a, _ in pairs], dtype=np.int64)
    p = np.array([b for _, b in pairs], dtype=np.int64)
    match = maximum_matching(n_truth, n_pred, t, p)
    same = {pair: "same" for pair in kinds}
    best, _, _ = _reference(n_truth, n_pred, same)
    assert int((match >= 0).sum()) == best
    assert all((i, int(j)) in kinds for i, j in enumerate(match) if j >= 0)
    assert len(set(match[match >= 0].tolist())) == int((match >= 0).sum())


def test_dense_one_label_file_is_matched_exactly():
    # one label, an event every 40 ms, onsets jittered by N(0, 0.1 s), onset tolerance 0.2 s:
    # one connected component of 8,000 events (scipy's Hopcroft-Karp took minutes here)
    rng = np.random.default_rng(0)
    n = 8000
    start = np.arange(n) * 0.04 + 1.0
    jittered = np.maximum(start + rng.normal(0, 0.1, n), 0)
    truth = series([("f", s, s + 0.5, "a") for s in start])
    pred = series([("f", s, s + 0.5, "a") for s in jittered[rng.permutation(n)]])
    options = dict(onset_tolerance=0.2, offset_tolerance=None)
    optimal = audeval.event_statistics(truth, pred, **options)
    # the maximum equals the flow bound computed independently on the pair graph
    ns = (start * 1e9).round().astype(np.int64)
    ps = np.sort((jittered * 1e9).round().astype(np.int64))
    left = np.searchsorted(ps, ns - 200_000_000, side="left")
    right = np.searchsorted(ps, ns + 200_000_000, side="right")
    t = np.repeat(np.arange(n), right - left)
    p = np.concatenate([np.arange(a, b) for a, b in zip(left, right)])
    assert optimal["tp"].sum() == (maximum_matching(n, n, t, p) >= 0).sum()


# --- the tie rule on events (issue 18 item 1) --------------------------------------


def _confusion(truth, pred, **options):
    return audeval.event_confusion_matrix(truth, pred, **options)


def test_substituted_label_does_not_depend_on_row_order():
    # b and c can both be substituted by a, only one can be:
    # the earlier truth event in (file, start, end, label) order, b, is
    truth = series([("f", 1.0, 2.0, "b"), ("f", 1.1, 2.0, "c")])
    pred = series([("f", 1.05, 2.0, "a")])
    options = dict(onset_tolerance=0.1, offset_tolerance=None)
    expected = [[0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]]
    assert _confusion(truth, pred, **options) == expected
    assert _confusion(truth.iloc[::-1], pred, **options) == expected
    stats = audeval.event_statistics(truth.iloc[::-1], pred, confusion=True, **options)
    assert stats["substituted"].to_dict() == {("f", "a"): 0, ("f", "b"): 1, ("f", "c"): 0}


@pytest.mark.parametrize("matching", ["optimal", "greedy"])
def test_ties_between_labels_follow_label_order(matching):
    # equal times, different labels: the first label in label order is substituted,
    # and takes the prediction of the first label
    truth = series([("f", 0.0, 1.0, "y"), ("f", 0.0, 1.0, "x")])
    pred = series([("f", 0.0, 1.0, "w"), ("f", 0.0, 1.0, "z")])
    options = dict(onset_tolerance=0.1, offset_tolerance=0.1, matching=matching)
    for t, p in [(truth, pred), (truth.iloc[::-1], pred), (truth, pred.iloc[::-1])]:
        stats = audeval.event_statistics(t, p, confusion=True, **options)
        pairs = {
            (label, column[len("substituted_by_"):]): int(value)
            for (_, label), row in stats.iterrows()
            for column, value in row.items()
            if column.startswith("substituted_by_") and value
        }
        assert pairs == {("x", "w"): 1, ("y", "z"): 1}


events = st.lists(
    st.tuples(
        st.sampled_from(["f1", "f2"]),
        st.integers(0, 8),
        st.integers(1, 4),
        st.sampled_from(["a", "b", "c"]),
    ),
    max_size=14,
)


def _to_series(rows):
    return series([(f, s * 0.25, (s + d) * 0.25, label) for f, s, d, label in rows])


@MAY_WARN_ABSENT_LABELS
@MAY_WARN_DUPLICATES
@GENERATED_FILES
@hypothesis.settings(max_examples=80, deadline=None)
@hypothesis.given(events, events, st.randoms(use_true_random=False), st.sampled_from(["optimal", "greedy"]))
def test_statistics_do_not_depend_on_row_order(truth_rows, pred_rows, random, matching):
    hypothesis.assume(truth_rows and pred_rows)
    options = dict(
        onset_tolerance=0.5, offset_tolerance=0.25, matching=matching, confusion=True, labels=["a", "b", "c"]
    )
    expected = audeval.event_statistics(_to_series(truth_rows), _to_series(pred_rows), **options)
    random.shuffle(truth_rows)
    random.shuffle(pred_rows)
    shuffled = audeval.event_statistics(_to_series(truth_rows), _to_series(pred_rows), **options)
    pd.testing.assert_frame_equal(expected, shuffled)
    for name in ("substituted", "substituting"):
        assert (expected[name] <= expected["n_truth" if name == "substituted" else "n_prediction"]).all()


@MAY_WARN_ABSENT_LABELS
@MAY_WARN_DUPLICATES
@GENERATED_FILES
@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(events, events)
def test_optimal_has_most_matches_then_most_substitutions(truth_rows, pred_rows):
    # the optimal matching is at least as good as greedy, lexicographically
    hypothesis.assume(truth_rows and pred_rows)
    options = dict(onset_tolerance=0.5, offset_tolerance=0.25, labels=["a", "b", "c"])
    truth, pred = _to_series(truth_rows), _to_series(pred_rows)
    optimal = audeval.event_statistics(truth, pred, **options).sum()
    greedy = audeval.event_statistics(truth, pred, matching="greedy", **options).sum()
    assert (optimal["tp"], optimal["substituted"]) >= (greedy["tp"], greedy["substituted"])


# --- canonical order and greedy --------------------------------------------------------


@MAY_WARN_DUPLICATES
def test_canonical_order_sorts_by_key_end_label_position():
    key = np.array([5, 3, 5, 3, 5], dtype=np.int64)
    end = np.array([9, 4, 9, 4, 8], dtype=np.int64)
    label = np.array([1, 0, 0, 0, 2], dtype=np.int64)
    position = np.array([0, 1, 2, 3, 4], dtype=np.int64)
    order, sorted_key = canonical_order(key, end, label, position)
    assert order.tolist() == [1, 3, 4, 2, 0]
    assert sorted_key.tolist() == [3, 3, 5, 5, 5]


@MAY_WARN_DUPLICATES
def test_canonical_order_with_wide_keys():
    # keys too wide to pack with the row number are coarsened, then ties re-sorted
    rng = np.random.default_rng(0)
    key = rng.integers(0, 2**62, 1000) // 7 * 7
    key[::3] = key[0]
    end = rng.integers(0, 5, 1000)
    label = rng.integers(0, 3, 1000)
    position = np.arange(1000)
    order, sorted_key = canonical_order(key, end, label, position)
    assert order.tolist() == np.lexsort((position, label, end, key)).tolist()
    assert sorted_key.tolist() == key[order].tolist()


def test_greedy_matching_single_key_sort():
    # truth ranks and prediction ranks far apart still order pairs correctly
    t = np.array([0, 0, 1, 1], dtype=np.int64)
    p = np.array([0, 1, 0, 1], dtype=np.int64)
    match = greedy_matching(2, 2, t, p, np.array([1, 0]), np.array([1, 0]))
    assert match.tolist() == [0, 1]


def test_greedy_matching_on_long_chains():
    """A dense file: every truth event competes with its neighbours for the same predictions
    (deferred acceptance needs a few rounds; the result is first fit in truth order)."""
    rng = np.random.default_rng(3)
    n = 400
    pairs = sorted(
        {(i, k) for i in range(n) for k in range(max(i - 6, 0), min(i + 7, n)) if rng.uniform() < 0.8}
    )
    t = np.array([a for a, _ in pairs], dtype=np.int64)
    p = np.array([b for _, b in pairs], dtype=np.int64)
    taken, expected = set(), []
    for i in range(n):
        free = [k for a, k in pairs if a == i and k not in taken]
        expected.append(free[0] if free else -1)
        taken.update(free[:1])
    got = greedy_matching(n, n, t, p, np.arange(n), np.arange(n))
    assert got.tolist() == expected
    assert sum(m >= 0 for m in expected) > 0.9 * n


@hypothesis.given(
    st.lists(st.integers(0, 60), max_size=40),
    st.lists(st.integers(0, 60), max_size=40),
    st.sampled_from([1, 2**55]),
    st.booleans(),
)
def test_count_below_is_searchsorted(values, queries, scale, inclusive):
    from audeval._core.matching.order import count_below

    values = np.sort(np.array(values, dtype=np.int64)) * scale
    queries = np.sort(np.array(queries, dtype=np.int64)) * scale
    expected = np.searchsorted(values, queries, side="right" if inclusive else "left")
    np.testing.assert_array_equal(count_below(values, queries, inclusive=inclusive), expected)


# --- identical events (issue 32 item 6) ---------------------------------------------------


def _outcomes(truth, pred, collapse, monkeypatch, **options):
    """event_outcomes with runs of identical events collapsed (now) or all their pairs (before)."""
    from audeval._core.matching import match as _match

    with monkeypatch.context() as patch:
        patch.setattr(_match, "MIN_RUN", 2)  # collapse every run (by default only long ones)
        if not collapse:
            patch.setattr(_match, "_identical_runs", lambda *args: None)
        with pytest.warns(UserWarning, match="repeat an identical row"):
            return audeval.event_outcomes(truth, pred, **options)


def _with_copies(rng, n_templates, max_copies):
    """Events on few distinct (file, start, end, label) templates, each repeated 1 to max_copies times."""
    rows = []
    for _ in range(n_templates):
        template = (
            f"f{rng.integers(0, 2)}",
            float(rng.integers(0, 6)) * 0.25,
            None,
            ["a", "b"][rng.integers(0, 2)],
        )
        end = template[1] + float(rng.integers(1, 4)) * 0.25
        rows += [(template[0], template[1], end, template[3])] * int(rng.integers(1, max_copies + 1))
    order = rng.permutation(len(rows))
    return series([rows[k] for k in order])


@MAY_WARN_NO_SHARED_FILE
@pytest.mark.parametrize("matching", ["optimal", "greedy"])
def test_identical_events_match_as_with_all_their_pairs(monkeypatch, matching):
    """Differential: collapsed runs of identical events give the partners of the full pair graph."""
    rng = np.random.default_rng(32)
    options = dict(onset_tolerance=0.25, offset_tolerance=0.25, matching=matching)
    for _ in range(60):
        truth = _with_copies(rng, int(rng.integers(1, 7)), 4)
        pred = _with_copies(rng, int(rng.integers(1, 7)), 4)
        if not (truth.index.duplicated().any() or pred.index.duplicated().any()):
            continue
        now = _outcomes(truth, pred, True, monkeypatch, **options)
        before = _outcomes(truth, pred, False, monkeypatch, **options)
        pd.testing.assert_frame_equal(now, before)


@pytest.mark.parametrize("matching", ["optimal", "greedy"])
def test_many_identical_events_are_matched_in_index_order(monkeypatch, matching):
    """30 identical events against 20 identical ones, plus an unrelated pair: diagonal partners."""
    truth = series([("f", 1.0, 2.0, "a")] * 30 + [("f", 5.0, 6.0, "a")])
    pred = series([("f", 1.0, 2.0, "a")] * 20 + [("f", 5.0, 6.0, "b")])
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, matching=matching)
    now = _outcomes(truth, pred, True, monkeypatch, **options)
    side = now[now["side"] == "truth"]
    assert side["partner"].tolist()[:30] == list(range(20)) + [-1] * 10
    assert side["partner"].tolist()[30] == 20  # the substitution
    with pytest.warns(UserWarning, match="repeat an identical row"):
        stats = audeval.event_statistics(truth.iloc[::-1], pred, confusion=True, **options)
    assert stats["tp"].sum() == 20 and stats["substituted"].sum() == 1
    if matching == "greedy":  # first fit: the same partners as on all 600 pairs
        pd.testing.assert_frame_equal(now, _outcomes(truth, pred, False, monkeypatch, **options))
    else:  # the weighted solver on all pairs may pick other partners: the same counts
        before = _outcomes(truth, pred, False, monkeypatch, **options)
        assert (before["outcome"].value_counts() == now["outcome"].value_counts()).all()


def test_identical_events_of_other_runs_keep_all_pairs(monkeypatch):
    """A run with two candidate runs is not collapsed: optimal picks the match over the substitution."""
    truth = series([("f", 1.0, 2.0, "a")] * 3)
    pred = series([("f", 1.0, 2.0, "b")] * 2 + [("f", 1.1, 2.0, "a")] * 2)
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2)
    now = _outcomes(truth, pred, True, monkeypatch, **options)
    pd.testing.assert_frame_equal(now, _outcomes(truth, pred, False, monkeypatch, **options))
    with pytest.warns(UserWarning, match="repeat an identical row"):
        stats = audeval.event_statistics(truth, pred, **options)
    assert stats["tp"].sum() == 2 and stats["substituted"].sum() == 1
