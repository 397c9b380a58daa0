"""Event-based metrics: hand-computed cases, exact ties, properties."""

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_GENERATED_FILES as GENERATED_FILES
from conftest import MAY_WARN_NO_SHARED_FILE
from conftest import MAY_WARN_FILES_WITHOUT_ROWS
from conftest import MAY_WARN_ABSENT_LABELS
from conftest import MAY_WARN_DUPLICATES

import audeval
from audeval import _events
from audeval._core.validation import check_inputs

from conftest import series


ONSET_OFFSET = dict(onset_tolerance=0.2, offset_tolerance=0.2)


# --- exact tolerance ties (float toolkits miss these) ---------------------------


def test_onset_tolerance_met_exactly():
    # |2.2 - 2.0| = 0.20000000000000018 in float64: sed_eval and audmetric say "no"
    truth = series([("f", 2.0, 3.0, "a")])
    pred = series([("f", 2.2, 3.0, "a")])
    assert abs(2.2 - 2.0) > 0.2  # the float64 fact this test is about
    assert audeval.event_fscore(truth, pred, onset_tolerance=0.2, offset_tolerance=None) == 1.0
    just_outside = series([("f", 2.200000001, 3.0, "a")])
    assert audeval.event_fscore(truth, just_outside, onset_tolerance=0.2, offset_tolerance=None) == 0.0


def test_offset_tolerance_met_exactly():
    truth = series([("f", 0.0, 0.3, "a")])
    pred = series([("f", 0.0, 0.1, "a")])
    assert audeval.event_fscore(truth, pred, onset_tolerance=None, offset_tolerance=0.2) == 1.0
    assert audeval.event_fscore(truth, pred, onset_tolerance=None, offset_tolerance=0.199999999) == 0.0


def test_duration_tolerance_met_exactly():
    # allowance = max(0.2, 0.5 * 1.1) = 0.55 exactly
    truth = series([("f", 0.0, 1.1, "a")])
    hit = series([("f", 0.0, 1.65, "a")])
    miss = series([("f", 0.0, 1.650000001, "a")])
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5)
    assert audeval.event_fscore(truth, hit, **options) == 1.0
    assert audeval.event_fscore(truth, miss, **options) == 0.0
    # offset_tolerance=None with a duration tolerance: only the fraction counts
    assert audeval.event_fscore(truth, hit, onset_tolerance=None, offset_tolerance=None, duration_tolerance=0.5) == 1.0
    # 0.29 * 1 s = 290 ms exactly, although 0.29 * 1e9 is below 2.9e8 in float64
    truth = series([("f", 0.0, 1.0, "a")])
    pred = series([("f", 0.0, 1.29, "a")])
    assert audeval.event_fscore(truth, pred, onset_tolerance=None, offset_tolerance=None, duration_tolerance=0.29) == 1.0


def test_timedelta_tolerances():
    truth = series([("f", 2.0, 3.0, "a")])
    pred = series([("f", 2.2, 3.0, "a")])
    assert audeval.event_fscore(truth, pred, onset_tolerance=pd.Timedelta("200ms"), offset_tolerance=None) == 1.0


# --- matching -------------------------------------------------------------------


def _optimal_beats_greedy():
    # t1 takes p1 first in greedy order, leaving t2 without a partner;
    # the optimal matching pairs t1-p2 and t2-p1.
    truth = series([("f", 0.0, 1.0, "a"), ("f", 0.1, 2.0, "a")])
    pred = series([("f", 0.05, 1.5, "a"), ("f", 0.06, 1.0, "a")])
    return truth, pred


def test_optimal_and_greedy_differ():
    truth, pred = _optimal_beats_greedy()
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5)
    assert audeval.event_recall_per_class(truth, pred, **options) == {"a": 1.0}
    assert audeval.event_recall_per_class(truth, pred, matching="greedy", **options) == {"a": 0.5}


def test_greedy_order_is_time_order_not_row_order():
    truth, pred = _optimal_beats_greedy()
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5, matching="greedy")
    expected = audeval.event_statistics(truth, pred, **options)
    shuffled = audeval.event_statistics(truth.iloc[::-1], pred.iloc[::-1], **options)
    pd.testing.assert_frame_equal(expected, shuffled)


def test_greedy_matching_chain():
    # A chain of truths that compete for shared predictions, resolved in rounds
    from audeval._core.matching import greedy_matching

    # truth i may take predictions i and i + 1; greedy gives truth i prediction i
    n = 50
    t = np.repeat(np.arange(n), 2)
    p = np.stack([np.arange(n), np.arange(n) + 1], axis=1).ravel()
    match = greedy_matching(n, n + 1, t, p, np.arange(n), np.arange(n + 1))
    assert match.tolist() == list(range(n))
    # reversed preference order: truth i prefers i + 1
    match = greedy_matching(n, n + 1, t, p, np.arange(n), np.arange(n + 1)[::-1].copy())
    assert match.tolist() == list(range(1, n + 1))
    # reversed truth order: the last truth chooses first, each still gets its own
    match = greedy_matching(n, n + 1, t, p, np.arange(n)[::-1].copy(), np.arange(n + 1))
    assert match.tolist() == list(range(n))
    # reversed truth order and preference: truth 49 takes 50, and so on
    match = greedy_matching(n, n + 1, t, p, np.arange(n)[::-1].copy(), np.arange(n + 1)[::-1].copy())
    assert match.tolist() == list(range(1, n + 1))


def _sequential_greedy(n_truth, pairs, truth_rank, pred_rank):
    """Reference: the plain sequential first-fit loop."""
    candidates = {}
    for t, p in pairs:
        candidates.setdefault(t, []).append(p)
    taken = set()
    match = [-1] * n_truth
    for t in sorted(range(n_truth), key=lambda i: truth_rank[i]):
        for p in sorted(candidates.get(t, []), key=lambda j: pred_rank[j]):
            if p not in taken:
                taken.add(p)
                match[t] = p
                break
    return match


@hypothesis.given(
    st.integers(1, 12),
    st.integers(1, 12),
    st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=60),
    st.randoms(use_true_random=False),
)
def test_greedy_matching_equals_sequential_loop(n_truth, n_pred, pairs, random):
    from audeval._core.matching import greedy_matching

    pairs = sorted({(t % n_truth, p % n_pred) for t, p in pairs})
    truth_rank = list(range(n_truth))
    pred_rank = list(range(n_pred))
    random.shuffle(truth_rank)
    random.shuffle(pred_rank)
    t = np.array([a for a, _ in pairs], dtype=np.int64)
    p = np.array([b for _, b in pairs], dtype=np.int64)
    got = greedy_matching(n_truth, n_pred, t, p, np.array(truth_rank), np.array(pred_rank))
    assert got.tolist() == _sequential_greedy(n_truth, pairs, truth_rank, pred_rank)


def test_maximum_matching_is_maximum():
    from audeval._core.matching import maximum_matching

    # a path t0-p0, t0-p1, t1-p0: maximum is 2
    match = maximum_matching(2, 2, np.array([0, 0, 1]), np.array([0, 1, 0]))
    assert sorted(match.tolist()) == [0, 1]


# --- substitutions, confusion, error rates ----------------------------------------


def test_substitution_deletion_insertion():
    truth = series(
        [
            ("f1", 0.0, 1.0, "a"),  # matched
            ("f1", 2.0, 3.0, "a"),  # substituted by b
            ("f1", 5.0, 6.0, "b"),  # deleted
        ]
    )
    pred = series(
        [
            ("f1", 0.0, 1.0, "a"),
            ("f1", 2.1, 3.1, "b"),
            ("f2", 0.0, 1.0, "a"),  # inserted (file only in prediction)
        ]
    )
    stats = audeval.event_statistics(truth, pred, **ONSET_OFFSET)
    assert stats.loc[("f1", "a")].tolist() == [2, 1, 1, 0, 1, 1, 0]
    assert stats.loc[("f1", "b")].tolist() == [1, 1, 0, 1, 1, 0, 1]
    assert stats.loc[("f2", "a")].tolist() == [0, 1, 0, 1, 0, 0, 0]
    # S = 1, D = 1, I = 1, N = 3
    assert audeval.event_error_rate(truth, pred, **ONSET_OFFSET) == 1.0
    report = audeval.event_report(truth, pred, **ONSET_OFFSET)
    micro = report.loc["micro"]
    assert micro[["substitutions", "deletions", "insertions"]].tolist() == [1, 1, 1]
    assert micro["substitution_rate"] == pytest.approx(1 / 3)
    # class-wise error rate has no substitutions: (FN + FP) / N
    assert audeval.event_error_rate_per_class(truth, pred, **ONSET_OFFSET) == {"a": 1.0, "b": 2.0}
    assert audeval.event_confusion_matrix(truth, pred, **ONSET_OFFSET) == [
        [1, 1, 0],
        [0, 0, 1],
        [1, 0, 0],
    ]
    normalized = audeval.event_confusion_matrix(truth, pred, normalize=True, **ONSET_OFFSET)
    assert normalized[0] == [0.5, 0.5, 0.0]
    assert normalized[2] == [1.0, 0.0, 0.0]


def test_substitutions_are_a_maximum_matching_in_optimal_mode():
    # Leftover truth x1 could pair with y1 or y2, x2 only with y1.
    truth = series([("f", 0.0, 1.0, "x"), ("f", 0.15, 1.0, "x")])
    pred = series([("f", 0.1, 1.0, "y"), ("f", 0.0, 1.0, "z")])
    options = dict(onset_tolerance=0.1, offset_tolerance=None)
    # x@0.0 pairs with y@0.1 or z@0.0, x@0.15 only with y@0.1
    stats = audeval.event_statistics(truth, pred, **options)
    assert stats["substituted"].sum() == 2
    greedy = audeval.event_statistics(truth, pred, matching="greedy", **options)
    # first fit: x@0.0 takes z@0.0 (first in time order), x@0.15 takes y@0.1
    assert greedy["substituted"].sum() == 2
    reverse = series([("f", 0.0, 1.0, "y"), ("f", 0.1, 1.0, "z")])
    truth2 = series([("f", 0.0, 1.0, "x"), ("f", 0.2, 1.0, "x")])
    # x@0.0: y@0.0, z@0.1; x@0.2: z@0.1 -> greedy gives x@0.0 y@0.0, x@0.2 z@0.1
    assert audeval.event_statistics(truth2, reverse, matching="greedy", **options)["substituted"].sum() == 2


def test_onset_only_and_offset_only():
    truth = series([("f", 0.0, 1.0, "a"), ("f", 3.0, 4.0, "a")])
    pred = series([("f", 0.1, 9.0, "a"), ("f", 5.0, 4.05, "a")][:1] + [("f", 3.5, 4.05, "a")])
    assert audeval.event_fscore(truth, pred, onset_tolerance=0.2, offset_tolerance=None) == 0.5
    assert audeval.event_fscore(truth, pred, onset_tolerance=None, offset_tolerance=0.2) == 0.5
    assert audeval.event_fscore(truth, pred, **ONSET_OFFSET) == 0.0


def test_overlapping_events_of_one_label():
    truth = series([("f", 0.0, 5.0, "a"), ("f", 1.0, 2.0, "a"), ("f", 1.0, 2.0, "a")])
    pred = series([("f", 1.0, 2.0, "a"), ("f", 0.0, 5.0, "a")])
    with pytest.warns(UserWarning, match="repeat an identical row"):
        stats = audeval.event_statistics(truth, pred, **ONSET_OFFSET)
    assert stats[["tp", "fp", "fn"]].sum().tolist() == [2, 0, 1]


def test_zero_length_events():
    truth = series([("f", 1.0, 1.0, "a")])
    pred = series([("f", 1.1, 1.1, "a")])
    assert audeval.event_fscore(truth, pred, **ONSET_OFFSET) == 1.0


def test_nat_end_resolved_by_files_duration():
    truth = series([("f", 8.0, None, "a")])
    pred = series([("f", 8.0, 10.1, "a")])
    with pytest.warns(UserWarning, match="prediction has rows beyond the duration"):
        fscore = audeval.event_fscore(truth, pred, files_duration={"f": 10.0}, **ONSET_OFFSET)
    assert fscore == 1.0


def test_zero_division_and_propagate_nans():
    truth = series([("f", 0.0, 1.0, "a")])
    pred = series([("f", 0.0, 1.0, "b")])
    assert audeval.event_precision_per_class(truth, pred) == {"a": 0.0, "b": 0.0}
    nan = float("nan")
    precision = audeval.event_precision_per_class(truth, pred, zero_division=nan)
    assert np.isnan(precision["a"]) and precision["b"] == 0.0
    fscore = audeval.event_fscore_per_class(truth, pred, zero_division=nan)
    assert fscore == {"a": 0.0, "b": 0.0}
    fscore = audeval.event_fscore_per_class(truth, pred, zero_division=nan, propagate_nans=True)
    assert np.isnan(fscore["a"]) and np.isnan(fscore["b"])
    assert np.isnan(
        audeval.event_unweighted_average_fscore(truth, pred, zero_division=nan, propagate_nans=True)
    )
    # error rate: x / 0 is inf, 0 / 0 is zero_division
    assert audeval.event_error_rate_per_class(truth, pred) == {"a": 1.0, "b": float("inf")}
    assert audeval.event_error_rate(series([]), series([])) == 0.0
    assert audeval.event_error_rate(series([]), pred) == float("inf")


def test_audmetric_docstring_example():
    # Values of audmetric 1.4.2's documented example (greedy matching)
    truth = series([("f1.wav", 0, 0.1, "a"), ("f1.wav", 0.1, 0.2, "a"), ("f1.wav", 0.2, 0.3, "b"), ("f1.wav", 0.3, 0.4, "b")])
    pred = series(
        [
            ("f1.wav", 0, 0.1, "a"),
            ("f1.wav", 0.09, 0.2, "b"),
            ("f1.wav", 0.2, 0.3, "a"),
            ("f1.wav", 0.31, 0.41, "b"),
            ("f2.wav", 0.0, 1.0, "b"),
        ]
    )
    options = dict(onset_tolerance=0.02, offset_tolerance=0.02, matching="greedy")
    assert audeval.event_confusion_matrix(truth, pred, **options) == [[1, 1, 0], [1, 1, 0], [0, 1, 0]]


def test_report_per_file_has_total_row():
    truth = series([("f1", 0.0, 1.0, "a"), ("f2", 0.0, 1.0, "b")])
    pred = series([("f1", 0.0, 1.0, "a"), ("f3", 0.0, 1.0, "b")])
    report = audeval.event_report(truth, pred, per_file=True, **ONSET_OFFSET)
    # one block per file (labels, micro, macro) and a last block TOTAL, as segment_report
    assert list(report.index.get_level_values("file").unique()) == ["f1", "f2", "f3", "TOTAL"]
    assert list(report.loc["f1"].index) == ["a", "b", "micro", "macro"]
    assert report.xs("micro", level="label")["fscore"].tolist() == [1.0, 0.0, 0.0, 0.5]
    assert report.loc[("TOTAL", "micro"), "n_truth"] == 2
    pd.testing.assert_frame_equal(
        report.loc["TOTAL"], audeval.event_report(truth, pred, **ONSET_OFFSET), check_names=False
    )
    assert report.loc[("f1", "a"), "fscore"] == 1.0
    assert report.loc[("f2", "b"), "recall"] == 0.0
    assert report.loc[("f1", "micro"), "precision"] == 1.0


def test_metrics_from_statistics_table():
    truth = series([("f1", 0.0, 1.0, "a"), ("f1", 2.0, 3.0, "a"), ("f2", 0.0, 1.0, "b")])
    pred = series([("f1", 0.1, 1.0, "a"), ("f1", 2.0, 3.0, "b"), ("f2", 3.0, 4.0, "b")])
    stats = audeval.event_statistics(truth, pred, confusion=True, **ONSET_OFFSET)
    for function in (
        audeval.event_fscore,
        audeval.event_error_rate,
        audeval.event_fscore_per_class,
        audeval.event_precision_per_class,
        audeval.event_recall_per_class,
        audeval.event_error_rate_per_class,
        audeval.event_unweighted_average_fscore,
        audeval.event_confusion_matrix,
    ):
        assert function(stats, None) == function(truth, pred, **ONSET_OFFSET), function
    pd.testing.assert_frame_equal(audeval.event_report(stats, None), audeval.event_report(truth, pred, **ONSET_OFFSET))
    with pytest.raises(ValueError, match="lacks the columns"):
        audeval.event_fscore(stats[["tp"]], None)
    with pytest.raises(ValueError, match=r"lacks the columns \['substituted_by_a'"):
        audeval.event_confusion_matrix(stats.drop(columns="substituted_by_a"), None)
    with pytest.raises(TypeError, match="prediction is None"):
        audeval.event_fscore(truth, None)


# --- properties -------------------------------------------------------------------

# times on a 10 ms grid so that tolerances are met exactly now and then
_event = st.tuples(
    st.sampled_from(["f1", "f2", "f3"]),
    st.integers(0, 300),
    st.integers(0, 100),
    st.sampled_from(["a", "b", "c"]),
)
_events_list = st.lists(_event, max_size=25)


def _series(events):
    return series([(f, s / 100, (s + d) / 100, label) for f, s, d, label in events])


_OPTIONS = st.sampled_from(
    [
        dict(onset_tolerance=0.2, offset_tolerance=0.2),
        dict(onset_tolerance=0.1, offset_tolerance=None),
        dict(onset_tolerance=None, offset_tolerance=0.3),
        dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5),
    ]
)


@MAY_WARN_ABSENT_LABELS
@MAY_WARN_DUPLICATES
@GENERATED_FILES
@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(_events_list, _events_list, _OPTIONS, st.sampled_from(["optimal", "greedy"]), st.randoms(use_true_random=False))
def test_row_order_does_not_matter(truth, pred, options, matching, random):
    labels = ["a", "b", "c"]
    expected = audeval.event_statistics(_series(truth), _series(pred), labels, matching=matching, **options)
    random.shuffle(truth)
    random.shuffle(pred)
    got = audeval.event_statistics(_series(truth), _series(pred), labels, matching=matching, **options)
    pd.testing.assert_frame_equal(got, expected)


@MAY_WARN_ABSENT_LABELS
@MAY_WARN_DUPLICATES
@GENERATED_FILES
@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(_events_list, _events_list, _OPTIONS, st.sampled_from(["optimal", "greedy"]))
def test_shards_of_whole_files_sum_to_one_shot(truth, pred, options, matching):
    labels = ["a", "b", "c"]
    one_shot = audeval.event_statistics(_series(truth), _series(pred), labels, matching=matching, **options)
    shards = []
    for files in (["f1"], ["f2", "f3"]):
        t = [e for e in truth if e[0] in files]
        p = [e for e in pred if e[0] in files]
        shards.append(audeval.event_statistics(_series(t), _series(p), labels, matching=matching, **options))
    summed = pd.concat(shards).sort_index()
    pd.testing.assert_frame_equal(summed, one_shot.sort_index())
    assert audeval.event_error_rate(summed, None) == audeval.event_error_rate(
        _series(truth), _series(pred), labels, matching=matching, **options
    )


@GENERATED_FILES
@MAY_WARN_ABSENT_LABELS
@MAY_WARN_DUPLICATES
@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(_events_list, _events_list, st.sampled_from(
    [
        dict(onset_tolerance=0.2, offset_tolerance=0.2),
        dict(onset_tolerance=0.1, offset_tolerance=None),
        dict(onset_tolerance=None, offset_tolerance=0.3),
    ]
))
def test_swapping_truth_and_prediction_swaps_precision_and_recall(truth, pred, options):
    # symmetric time conditions + maximum matching: the match count is symmetric
    labels = ["a", "b", "c"]
    forward = audeval.event_report(_series(truth), _series(pred), labels, **options)
    backward = audeval.event_report(_series(pred), _series(truth), labels, **options)
    np.testing.assert_array_equal(forward["precision"], backward["recall"])
    np.testing.assert_array_equal(forward["recall"], backward["precision"])
    np.testing.assert_array_equal(forward["fscore"], backward["fscore"])
    assert forward.loc["micro", "substitutions"] == backward.loc["micro", "substitutions"]


@MAY_WARN_NO_SHARED_FILE
@MAY_WARN_FILES_WITHOUT_ROWS
@MAY_WARN_ABSENT_LABELS
@MAY_WARN_DUPLICATES
@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(_events_list, _events_list, _OPTIONS)
def test_optimal_matches_at_least_as_many_as_greedy(truth, pred, options):
    optimal = audeval.event_statistics(_series(truth), _series(pred), ["a", "b", "c"], **options)
    greedy = audeval.event_statistics(_series(truth), _series(pred), ["a", "b", "c"], matching="greedy", **options)
    assert (optimal["tp"].groupby(level="label", observed=False).sum() >= greedy["tp"].groupby(level="label", observed=False).sum()).all()


@MAY_WARN_DUPLICATES
@GENERATED_FILES
@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(_events_list, _events_list, _OPTIONS, st.sampled_from(["optimal", "greedy"]))
def test_match_conditions_hold_for_every_pair(truth, pred, options, matching):
    """Every reported match and substitution meets the time conditions, in exact ns."""
    inputs = check_inputs(_series(truth), _series(pred))
    tol = _events.tolerances(
        options.get("onset_tolerance"), options.get("offset_tolerance"), options.get("duration_tolerance")
    )
    em = _events.match_events(inputs, tol, matching)
    t, p = inputs.truth, inputs.prediction
    for pairs, same in ((em.match, True), (em.substitution, False)):
        i = np.flatnonzero(pairs >= 0)
        j = pairs[i]
        assert (t.file[i] == p.file[j]).all()
        assert ((t.label[i] == p.label[j]) == same).all()
        if tol.onset is not None:
            assert (np.abs(t.start[i] - p.start[j]) <= tol.onset).all()
        if tol.offset_evaluated:
            assert (np.abs(t.end[i] - p.end[j]) <= tol.offset_allowance(t.start[i], t.end[i])).all()
    # one-to-one, and no prediction is both matched and substituting
    used = np.concatenate([em.match[em.match >= 0], em.substitution[em.substitution >= 0]])
    assert len(np.unique(used)) == len(used)


@MAY_WARN_ABSENT_LABELS
def test_statistics_table_with_a_label_subset():
    """``labels`` on a table selects rows only where that gives the direct call's number.

    Per-class counts do not depend on other labels: rows are selected.
    Substitutions cross labels: ``labels`` must go to the statistics function
    (SPEC section 2: the same number on every path, or an error).
    """
    truth = series([("f1", 0.0, 1.0, "a"), ("f1", 2.0, 3.0, "b"), ("f2", 0.0, 1.0, "c")])
    pred = series([("f1", 0.0, 1.0, "a"), ("f1", 2.0, 3.0, "a"), ("f2", 0.0, 1.0, "c")])
    stats = audeval.event_statistics(truth, pred, confusion=True, **ONSET_OFFSET)
    for labels in (["a"], ["c", "a"], ["c", "a", "z"]):
        assert audeval.event_fscore_per_class(stats, None, labels) == audeval.event_fscore_per_class(
            truth, pred, labels, **ONSET_OFFSET
        )
        for metric in (audeval.event_confusion_matrix, audeval.event_error_rate, audeval.event_report):
            with pytest.raises(ValueError, match="pass labels to event_statistics"):
                metric(stats, None, labels)
        selected = audeval.event_statistics(truth, pred, labels, confusion=True, **ONSET_OFFSET)
        for metric in (audeval.event_confusion_matrix, audeval.event_error_rate):
            assert metric(selected, None, labels) == metric(truth, pred, labels, **ONSET_OFFSET)
    # on Series, "b" is dropped first: the second "a" becomes an insertion
    assert audeval.event_confusion_matrix(truth, pred, ["c", "a"], **ONSET_OFFSET) == [
        [1, 0, 0],
        [0, 1, 0],
        [0, 1, 0],
    ]


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    _events_list,
    _events_list,
    _OPTIONS,
    st.sampled_from(["optimal", "greedy"]),
    st.sampled_from([None, ["a", "b", "c"], ["c", "a"], ["b", "z"]]),
)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sums_from_the_matching_equal_the_table(truth, pred, options, matching, labels):
    """Metrics on Series reduce per-label sums taken from the matching, never the dense table:
    those sums equal the table's, so every metric equals its value from the table."""
    from audeval._events.reductions import Summed
    from audeval._events.statistics import _matched

    truth, pred = _series(truth), _series(pred)
    table = audeval.event_statistics(truth, pred, labels, matching=matching, confusion=True, **options)
    em, recorded = _matched(truth, pred, labels, matching=matching, confusion=True, **options)
    direct = Summed.of_match(em, confusion=True, labels_given=recorded["labels_given"], prefix="substituted_by_")
    summed = Summed.of_table(table)
    assert direct.labels == summed.labels
    assert direct.labels_given == summed.labels_given == (labels is not None)
    assert sorted(direct.columns) == sorted(summed.columns)
    for name, values in summed.columns.items():
        assert direct[name].dtype == np.int64
        np.testing.assert_array_equal(direct[name], values, err_msg=name)
    for metric in (audeval.event_fscore, audeval.event_error_rate, audeval.event_fscore_per_class,
                   audeval.event_unweighted_average_fscore, audeval.event_confusion_matrix):
        got = metric(truth, pred, labels, matching=matching, **options)
        np.testing.assert_equal(got, metric(table, None), err_msg=metric.__name__)
    pd.testing.assert_frame_equal(
        audeval.event_report(truth, pred, labels, matching=matching, **options), audeval.event_report(table, None)
    )


def _files_as(series, dtype):
    """The same Series with its file level of another dtype."""
    index = series.index
    return series.set_axis(index.set_levels(index.levels[0].astype(dtype), level=0))


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    _events_list,
    _events_list,
    st.integers(0, 25),
    st.dictionaries(st.sampled_from(["f1", "f2", "f3", "f4"]), st.sampled_from([3.5, 4.0, float("nan")])),
    st.booleans(),
)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_gate_file_alignment_paths_agree(truth, pred, keep, durations, series_durations):
    """Arrow file levels are aligned by one dictionary encoding, other levels by pandas:
    the same files, durations and codes (also with unused levels and extra files_duration)."""
    truth, pred = _series(truth), _series(pred).iloc[:keep]  # iloc keeps unused file levels
    files_duration = pd.Series(durations, dtype=float) if series_durations else durations
    for labels in (None, ["b", "a"]):
        fast = check_inputs(  # arrow strings ("str"), as files_duration's index
            _files_as(truth, "str"), _files_as(pred, "str"), labels=labels, files_duration=files_duration,
            require_end=False,
        )
        slow = check_inputs(
            _files_as(truth, object), _files_as(pred, object), labels=labels, files_duration=files_duration,
            require_end=False,
        )
        assert list(fast.files) == list(slow.files) == sorted(fast.files)
        assert fast.labels == slow.labels
        np.testing.assert_array_equal(fast.durations, slow.durations)
        np.testing.assert_array_equal(fast.latest, slow.latest)
        for a, b in ((fast.truth, slow.truth), (fast.prediction, slow.prediction)):
            for name in ("file", "start", "end", "label", "position"):
                np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
