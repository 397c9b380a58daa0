"""Additive statistics as a feature (SPEC section 2): sums of shards, accumulator.

Every family registered in ``audeval._generic.registry.FAMILIES`` that is listed in CASES
is tested here; tests/test_contract.py runs every registered family through every path.
"""

from __future__ import annotations

import inspect
import warnings

import audformat
import hypothesis
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._generic.registry import FAMILIES


DURATION = 20.0  # seconds; every generated event ends before
SETTINGS = dict(
    deadline=None,
    phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
    suppress_health_check=[hypothesis.HealthCheck.too_slow],
)


def family_functions(name: str) -> dict:
    family = FAMILIES[name]
    return {f.__name__: f for f in (*family.metrics, family.statistics)}


# Options of the statistics function per family (several variants),
# and the metrics (with metric options) to check against the direct call.
CASES = {
    "event": [
        dict(onset_tolerance=0.5, offset_tolerance=None, confusion=True),
        dict(onset_tolerance=0.5, offset_tolerance=0.5, matching="greedy", confusion=True),
    ],
    "segment": [
        dict(time_resolution=1.0),
        dict(time_resolution=None),
    ],
    "detection": [dict(), dict(collar=0.5)],
    "diarization": [dict(), dict(collar=0.5, skip_overlap=True)],
}

METRICS = {
    "event": [
        ("event_fscore", {}),
        ("event_fscore", {"average": "macro"}),
        ("event_error_rate", {}),
        ("event_fscore_per_class", {}),
        ("event_precision_per_class", {}),
        ("event_recall_per_class", {}),
        ("event_error_rate_per_class", {}),
        ("event_unweighted_average_fscore", {}),
        ("event_confusion_matrix", {}),
        ("event_report", {}),
        ("event_report", {"per_file": True}),
    ],
    "segment": [
        ("segment_fscore", {}),
        ("segment_fscore", {"average": "macro"}),
        ("segment_error_rate", {}),
        ("segment_accuracy", {}),
        ("segment_fscore_per_class", {}),
        ("segment_precision_per_class", {}),
        ("segment_recall_per_class", {}),
        ("segment_error_rate_per_class", {}),
        ("segment_report", {}),
    ],
    "detection": [
        ("detection_error_rate", {}),
        ("detection_report", {}),
    ],
    "diarization": [
        ("identification_precision_recall", {}),
        ("diarization_purity_coverage", {}),
        ("diarization_homogeneity_completeness", {}),
        ("diarization_mapping", {}),
        ("diarization_speaker_report", {}),
        ("diarization_error_rate", {}),
        ("diarization_error_rate", {"mapping": "greedy"}),
        ("diarization_error_rate", {"individual_file_mapping": False}),
        ("identification_error_rate", {}),
        ("jaccard_error_rate", {}),
        ("diarization_report", {}),
    ],
}


def statistics_options(family: str, options: dict, files) -> dict:
    """Options of the statistics function, with durations where the family needs them."""
    if family in ("detection", "diarization"):
        return {**options, "files_duration": {f: DURATION for f in files}}
    return options


def make_series(rows) -> pd.Series:
    files = [f"f{r[0]}" for r in rows]
    starts = [r[1] / 2 for r in rows]
    ends = [(r[1] + r[2]) / 2 for r in rows]
    return pd.Series([r[3] for r in rows], index=audformat.segmented_index(files, starts, ends))


events = st.lists(
    st.tuples(
        st.integers(0, 5),  # file
        st.integers(0, 24),  # start in half seconds
        st.integers(1, 12),  # duration in half seconds
        st.sampled_from(["a", "b", "c"]),
    ),
    min_size=1,
    max_size=14,
)


def audeval_labels(stats: pd.DataFrame) -> list:
    return list(stats.index.get_level_values("label").categories)


def assert_same(a, b):
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b)
    else:
        np.testing.assert_equal(a, b)


def files_of(*series: pd.Series) -> list:
    return sorted(set().union(*(set(s.index.get_level_values("file")) for s in series)))


def subset(series: pd.Series, files) -> pd.Series:
    return series[series.index.get_level_values("file").isin(list(files))]


def shard_options(options: dict, files) -> dict:
    """Options of a shard: ``files_duration`` of its own files only (SPEC section 1)."""
    if options.get("files_duration") is None:
        return options
    durations = options["files_duration"]
    return {**options, "files_duration": {f: d for f, d in dict(durations).items() if f in set(files)}}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


# -------------------------------------------------------------------------
# Shards of whole files sum to the one-shot table, for every family
# -------------------------------------------------------------------------


@pytest.mark.parametrize("family", sorted(CASES))
@hypothesis.settings(max_examples=12, **SETTINGS)
@hypothesis.given(truth=events, prediction=events, shard_of=st.lists(st.integers(0, 2), min_size=6, max_size=6))
def test_shards_sum_to_one_shot(family, truth, prediction, shard_of):
    functions = family_functions(family)
    statistics = FAMILIES[family].statistics
    truth, prediction = make_series(truth), make_series(prediction)
    files = files_of(truth, prediction)
    for options in CASES[family]:
        options = statistics_options(family, options, files)
        one_shot = statistics(truth, prediction, **options)
        shard_files = [[f for f in files if shard_of[int(f[1:])] == k] for k in range(3)]
        shard_files = [mine for mine in shard_files if mine]
        shards = [
            statistics(subset(truth, mine), subset(prediction, mine), **shard_options(options, mine))
            for mine in shard_files
        ]
        summed = audeval.sum_statistics(shards)
        pd.testing.assert_frame_equal(summed, one_shot)
        # the shards in any order
        pd.testing.assert_frame_equal(audeval.sum_statistics(shards[::-1]), one_shot)
        # plain pandas sums give the same metrics when the shards share their labels
        if "labels" in inspect.signature(statistics).parameters:
            labels = audeval_labels(one_shot)
            shards = [
                statistics(
                    subset(truth, mine), subset(prediction, mine), labels, **shard_options(options, mine)
                )
                for mine in shard_files
            ]
        concatenated = pd.concat(shards).sort_index(level="file", sort_remaining=False)
        for name, metric_options in METRICS[family]:
            metric = functions[name]
            assert_same(metric(concatenated, None, **metric_options), metric(one_shot, None, **metric_options))


# -------------------------------------------------------------------------
# Every metric from a statistics table == the direct call
# -------------------------------------------------------------------------


@pytest.mark.parametrize("family", sorted(CASES))
@hypothesis.settings(max_examples=8, **SETTINGS)
@hypothesis.given(truth=events, prediction=events)
def test_every_metric_from_statistics(family, truth, prediction):
    functions = family_functions(family)
    truth, prediction = make_series(truth), make_series(prediction)
    for options in CASES[family]:
        options = statistics_options(family, options, files_of(truth, prediction))
        stats = FAMILIES[family].statistics(truth, prediction, **options)
        direct_options = {k: v for k, v in options.items() if k != "confusion"}
        for name, metric_options in METRICS[family]:
            metric = functions[name]
            direct = metric(truth, prediction, **direct_options, **metric_options)
            assert_same(metric(stats, None, **metric_options), direct)


def test_metrics_cover_the_families():
    """Every public metric of a family is in METRICS (so the tests above see it)."""
    for family, metrics in METRICS.items():
        names = {f.__name__ for f in FAMILIES[family].metrics}
        listed = {n for n, _ in metrics}
        assert names == listed, (
            f"{family} metrics {sorted(names - listed)} are not in METRICS "
            f"(or {sorted(listed - names)} are gone): update tests/test_accumulate.py"
        )


# -------------------------------------------------------------------------
# sum_statistics
# -------------------------------------------------------------------------


T1 = make_series([(1, 0, 2, "a"), (1, 4, 2, "b")])
P1 = make_series([(1, 0, 2, "a")])
T2 = make_series([(2, 0, 2, "c")])
P2 = make_series([(2, 0, 2, "a")])


def test_sum_statistics_hand_computed():
    a = audeval.event_statistics(T1, P1)
    b = audeval.event_statistics(T2, P2)
    assert list(a.index.get_level_values("label").categories) == ["a", "b"]
    summed = audeval.sum_statistics([b, a])
    # event tables hold only the (file, label) pairs that occur (issue 32 item 1);
    # the labels are the categories of the label level
    assert list(summed.index) == [("f1", "a"), ("f1", "b"), ("f2", "a"), ("f2", "c")]
    assert list(summed.index.get_level_values("label").categories) == ["a", "b", "c"]
    assert summed["n_truth"].tolist() == [1, 1, 0, 1]
    assert summed["n_prediction"].tolist() == [1, 0, 1, 0]
    assert summed["tp"].tolist() == [1, 0, 0, 0]
    assert summed["substituted"].tolist() == [0, 0, 0, 1]
    assert (summed.dtypes == np.int64).all()
    pd.testing.assert_frame_equal(
        summed, audeval.event_statistics(pd.concat([T1, T2]), pd.concat([P1, P2]))
    )


def test_sum_statistics_adds_repeated_rows():
    a = audeval.event_statistics(T1, P1)
    # rows repeated within one table are added ...
    doubled = audeval.sum_statistics([pd.concat([a, a])])
    pd.testing.assert_frame_equal(doubled, a * 2, check_flags=False)
    # ... but a file in two tables is refused, as the Accumulator refuses it (issue 33 item 11)
    with pytest.raises(ValueError, match=r"files \['f1'\] are in more than one table"):
        audeval.sum_statistics([a, a])


def test_sum_statistics_confusion_columns_follow_labels():
    a = audeval.event_statistics(T1, P1, confusion=True)
    b = audeval.event_statistics(T2, P2, confusion=True)
    summed = audeval.sum_statistics([b, a])
    one_shot = audeval.event_statistics(pd.concat([T1, T2]), pd.concat([P1, P2]), confusion=True)
    pd.testing.assert_frame_equal(summed, one_shot)
    assert audeval.event_confusion_matrix(summed, None) == [
        [1, 0, 0, 0],
        [0, 0, 0, 1],
        [1, 0, 0, 0],
        [0, 0, 0, 0],
    ]


def test_sum_statistics_keeps_given_label_order():
    labels = ["c", "b", "a"]
    a = audeval.event_statistics(T1, P1, labels)
    b = audeval.event_statistics(T2, P2, labels)
    summed = audeval.sum_statistics([a, b])
    assert list(summed.index.get_level_values("label").categories) == labels
    pd.testing.assert_frame_equal(
        summed, audeval.event_statistics(pd.concat([T1, T2]), pd.concat([P1, P2]), labels)
    )


def test_sum_statistics_errors():
    with pytest.raises(ValueError, match="tables is empty"):
        audeval.sum_statistics([])
    with pytest.raises(TypeError, match="statistics DataFrames"):
        audeval.sum_statistics([T1])
    a = audeval.event_statistics(T1, P1)
    with pytest.raises(ValueError, match="different index levels"):
        audeval.sum_statistics([a, a.droplevel("label")])
    with pytest.raises(ValueError, match="index level 'file'"):
        audeval.sum_statistics([a.droplevel("file")])


# -------------------------------------------------------------------------
# Accumulator
# -------------------------------------------------------------------------


@pytest.mark.parametrize("family", sorted(CASES))
@hypothesis.settings(max_examples=8, **SETTINGS)
@hypothesis.given(
    truth=events,
    prediction=events,
    batch_of=st.lists(st.integers(0, 3), min_size=6, max_size=6),
)
def test_accumulator_equals_functional_call(family, truth, prediction, batch_of):
    functions = family_functions(family)
    truth, prediction = make_series(truth), make_series(prediction)
    files = files_of(truth, prediction)
    options = statistics_options(family, CASES[family][0], files)
    direct_options = {k: v for k, v in options.items() if k != "confusion"}
    batches = [[f for f in files if batch_of[int(f[1:])] == b] for b in range(4)]
    batches = [batch for batch in batches if batch]
    # one accumulator of the family, every metric from it
    accumulator = audeval.Accumulator(family, **options)
    for batch in batches:
        accumulator.update(subset(truth, batch), subset(prediction, batch))
    assert accumulator.n_files == len(files)
    for name, metric_options in METRICS[family]:
        metric = functions[name]
        direct = metric(truth, prediction, **direct_options, **metric_options)
        assert_same(accumulator.compute(metric, **metric_options), direct)
    report = FAMILIES[family].report
    assert_same(accumulator.report(), report(truth, prediction, **direct_options))
    # an accumulator of a metric, in two halves merged
    name, metric_options = METRICS[family][-2]
    metric = functions[name]
    halves = [audeval.Accumulator(metric, **direct_options, **metric_options) for _ in range(2)]
    for k, batch in enumerate(batches):
        halves[k % 2].update(subset(truth, batch), subset(prediction, batch))
    direct = metric(truth, prediction, **direct_options, **metric_options)
    assert_same((halves[0] + halves[1]).compute(), direct)
    assert halves[0].n_files + halves[1].n_files == len(files)  # + leaves them alone
    assert_same(halves[0].merge(halves[1]).compute(), direct)


def test_accumulator_hand_computed():
    accumulator = audeval.Accumulator(audeval.event_fscore, average="macro")
    assert accumulator.family == "event"
    assert accumulator.metric is audeval.event_fscore
    assert accumulator.compute() != accumulator.compute()  # no files: NaN macro of no labels
    accumulator.update(T1, P1)  # a: 1/1 matched, b: missed
    assert accumulator.compute() == pytest.approx(0.5)
    accumulator.update(T2, P2)  # c missed, a inserted
    # a: P = 1/2, R = 1 -> 2/3; b: 0; c: 0
    assert accumulator.compute() == pytest.approx((2 / 3) / 3)
    assert accumulator.compute(average="micro") == pytest.approx(2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3))
    assert accumulator.compute(audeval.event_error_rate) == pytest.approx(2 / 3)
    assert accumulator.files == ["f1", "f2"]
    pd.testing.assert_frame_equal(
        accumulator.statistics,
        audeval.event_statistics(pd.concat([T1, T2]), pd.concat([P1, P2])),
    )
    assert repr(accumulator) == "Accumulator(event_fscore, files=2)"
    accumulator.reset()
    assert accumulator.n_files == 0
    accumulator.update(T2, P2)
    assert accumulator.compute() == pytest.approx(0.0)


def test_accumulator_family_name_and_statistics_updates():
    accumulator = audeval.Accumulator("event", onset_tolerance=0.2)
    accumulator.update(audeval.event_statistics(T1, P1, onset_tolerance=0.2), None)
    accumulator.update(T2, P2)
    with pytest.raises(TypeError, match="without a metric"):
        accumulator.compute()
    assert accumulator.compute(audeval.event_fscore) == pytest.approx(
        audeval.event_fscore(pd.concat([T1, T2]), pd.concat([P1, P2]), onset_tolerance=0.2)
    )


def test_accumulator_labels():
    accumulator = audeval.Accumulator(audeval.event_fscore_per_class, ["b", "a"])
    accumulator.update(T1, P1)
    accumulator.update(audeval.event_statistics(T2, P2))  # has label c: left out
    expected = audeval.event_fscore_per_class(
        pd.concat([T1, T2]), pd.concat([P1, P2]), ["b", "a"]
    )
    assert accumulator.compute() == expected
    assert list(expected) == ["b", "a"]


def test_accumulator_copy_is_independent():
    a = audeval.Accumulator(audeval.event_fscore).update(T1, P1)
    b = a.copy().update(T2, P2)
    assert (a.n_files, b.n_files) == (1, 2)


def test_accumulator_errors():
    with pytest.raises(TypeError, match="unknown options \\['avrage'\\]"):
        audeval.Accumulator(audeval.event_fscore, avrage="macro")
    with pytest.raises(ValueError, match="family must be one of"):
        audeval.Accumulator(audeval.event_fscore, family="events")
    with pytest.raises(ValueError, match="metric must be a metric function or a family name"):
        audeval.Accumulator("events")
    with pytest.raises(ValueError, match="cannot tell the metric family"):
        audeval.Accumulator(lambda stats, _: 0.0)
    accumulator = audeval.Accumulator(audeval.event_fscore).update(T1, P1)
    with pytest.raises(ValueError, match=r"files \['f1'\] were already accumulated"):
        accumulator.update(T1, P1)
    with pytest.raises(TypeError, match="prediction is None"):
        accumulator.update(T2)
    with pytest.raises(ValueError, match="cannot merge .* with different statistics options"):
        accumulator.merge(audeval.Accumulator(audeval.event_fscore, onset_tolerance=0.2))
    with pytest.raises(ValueError, match="cannot merge an accumulator into itself"):
        accumulator.merge(accumulator)
    with pytest.raises(ValueError, match="already accumulated"):
        accumulator.merge(audeval.Accumulator(audeval.event_fscore).update(T1, P1))
    with pytest.raises(TypeError, match="other must be an Accumulator"):
        accumulator.merge(3)
    # an invalid batch leaves the accumulator unchanged
    with pytest.raises(TypeError, match="truth must be a pandas.Series"):
        accumulator.update([1], P2)
    assert accumulator.n_files == 1


def test_accumulator_many_batches_consolidate():
    rows = [(k, 0, 2, "a") for k in range(6)]
    accumulator = audeval.Accumulator(audeval.event_fscore)
    stats = audeval.event_statistics(make_series(rows), make_series(rows))
    for k in range(200):
        table = stats.rename(index=lambda f: f"{f}-{k}", level="file")
        accumulator.update(table, None)
    assert accumulator.n_files == 1200
    assert accumulator.compute() == 1.0
    assert len(accumulator.statistics) == 1200


# -------------------------------------------------------------------------
# Every option through every path (issue 31)
# -------------------------------------------------------------------------


def events(files, starts, ends, labels):
    return pd.Series(labels, index=audformat.segmented_index(files, starts, ends))


def test_unweighted_average_fscore_keeps_compat():
    """Events exactly 0.2 s off: sed_eval's float64 misses one of them (issue 31, probe 1)."""
    truth = events(["f", "f", "g"], [0.0, 2.0, 0.0], [1.0, 3.0, 1.0], ["a", "b", "a"])
    prediction = events(["f", "f", "g"], [0.2, 2.2, 0.0], [1.2, 3.2, 1.0], ["a", "b", "a"])
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, compat="sed_eval")
    macro = audeval.event_fscore(truth, prediction, average="macro", **options)
    assert macro == pytest.approx(0.5)  # a: 1.0, b: 0.0
    assert audeval.event_unweighted_average_fscore(truth, prediction, **options) == macro
    stats = audeval.event_statistics(truth, prediction, **options)
    assert audeval.event_unweighted_average_fscore(stats, None) == macro
    with pytest.raises(ValueError, match="pass compat to event_statistics"):
        audeval.event_unweighted_average_fscore(
            audeval.event_statistics(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2),
            None,
            compat="sed_eval",
        )
    accumulator = audeval.Accumulator(audeval.event_unweighted_average_fscore, **options)
    for file in ("f", "g"):
        keep_t = truth.index.get_level_values("file") == file
        keep_p = prediction.index.get_level_values("file") == file
        accumulator.update(truth[keep_t], prediction[keep_p])
    assert accumulator.compute() == macro
    result = audeval.bootstrap(
        audeval.event_unweighted_average_fscore, truth, prediction, n_boot=3, **options
    )
    assert result.value == macro
    exact = {**options, "compat": None}
    assert audeval.event_unweighted_average_fscore(truth, prediction, **exact) == 1.0


@pytest.fixture
def scores_case():
    """Three files of frame scores of classes a, b; truth events in every file."""
    files = ["f0", "f1", "f2"]
    n = 20
    rng = np.random.default_rng(3)
    starts = np.round(np.arange(n) * 0.5, 6)
    index = audformat.segmented_index(
        np.repeat(files, n), np.tile(starts, 3), np.tile(starts + 0.5, 3)
    )
    truth = events(
        ["f0", "f0", "f1", "f2", "f2"],
        [1.0, 4.0, 2.0, 0.5, 6.0],
        [3.0, 6.5, 5.0, 2.0, 9.0],
        ["a", "b", "a", "b", "a"],
    )
    # high scores mostly inside the events of a class, low ones elsewhere
    values = np.round(rng.uniform(0, 0.4, (3 * n, 2)), 2)
    file = np.repeat(np.arange(3), n)
    middle = np.tile(starts + 0.25, 3)
    for (f, start, end), label in truth.items():
        inside = (file == int(f[1])) & (middle > start.total_seconds()) & (middle < end.total_seconds())
        values[inside, "ab".index(label)] = np.round(rng.uniform(0.5, 1.0, inside.sum()), 2)
    scores = pd.DataFrame(values, index=index, columns=["a", "b"])
    return truth, scores, {f: 10.0 for f in files}


def _of(data, files):
    return data[data.index.get_level_values("file").isin(files)]


def test_accumulator_psds_with_the_durations_of_all_files(scores_case):
    """The first batch holds one file, files_duration all three (issue 31, probe 3)."""
    truth, scores, durations = scores_case
    options = dict(dtc_threshold=0.5, gtc_threshold=0.5, files_duration=durations)
    direct = audeval.psds(truth, scores, **options)
    assert direct > 0
    accumulator = audeval.Accumulator(audeval.psds, **options)
    for files in (["f0"], ["f1", "f2"]):
        accumulator.update(_of(truth, files), _of(scores, files))
    assert accumulator.compute() == pytest.approx(direct, abs=1e-12)
    # a file of files_duration without frames: the direct call and the sum raise alike
    more = {**durations, "silent": 10.0}
    with pytest.raises(ValueError, match="no frames for truth files \\['silent'\\]"):
        audeval.psds(truth, scores, dtc_threshold=0.5, gtc_threshold=0.5, files_duration=more)
    accumulator = audeval.Accumulator(
        audeval.psds, dtc_threshold=0.5, gtc_threshold=0.5, files_duration=more
    )
    accumulator.update(truth, scores)
    with pytest.raises(ValueError, match="no frames for truth files \\['silent'\\]"):
        accumulator.compute()


@pytest.fixture
def activity():
    """Labels a, b, c in three files; the first file has no 'c'."""
    truth = events(
        ["f0", "f0", "f1", "f1", "f2"],
        [0.0, 3.0, 1.0, 5.0, 2.0],
        [2.0, 6.0, 4.0, 8.0, 7.0],
        ["a", "b", "c", "a", "b"],
    )
    prediction = events(
        ["f0", "f1", "f1", "f2"], [0.5, 0.0, 5.5, 2.5], [2.5, 4.5, 7.0, 6.0], ["a", "c", "a", "c"]
    )
    durations = {"f0": 10.0, "f1": 10.0, "f2": 10.0}
    return truth, prediction, durations


def test_positive_labels_checked_over_all_batches(activity):
    """A batch without a positive label is fine; a label of no batch raises (issue 31, probe 4)."""
    truth, prediction, durations = activity
    options = dict(positive_labels=["c", "a"], files_duration=durations, collar=0.2)
    direct = audeval.detection_error_rate(truth, prediction, **options)
    for how in ("keyword", "positional"):
        if how == "keyword":
            accumulator = audeval.Accumulator(audeval.detection_error_rate, **options)
        else:
            rest = {k: v for k, v in options.items() if k != "positive_labels"}
            accumulator = audeval.Accumulator(audeval.detection_error_rate, ["c", "a"], **rest)
        accumulator.update(_of(truth, ["f0"]), _of(prediction, ["f0"]))  # no 'c' here
        accumulator.update(_of(truth, ["f1", "f2"]), _of(prediction, ["f1", "f2"]))
        assert accumulator.compute() == pytest.approx(direct, abs=1e-15)
        pd.testing.assert_frame_equal(
            accumulator.statistics,
            audeval.detection_statistics(truth, prediction, **options),
        )
    result = audeval.bootstrap(audeval.detection_error_rate, truth, prediction, n_boot=3, **options)
    assert result.value == direct
    # a misspelt label: the direct call raises, the accumulator when it reduces
    misspelt = {**options, "positive_labels": ["c", "A"]}
    with pytest.raises(ValueError, match=r"positive_labels \['A'\] occur in neither"):
        audeval.detection_error_rate(truth, prediction, **misspelt)
    accumulator = audeval.Accumulator(audeval.detection_error_rate, **misspelt)
    accumulator.update(_of(truth, ["f0"]), _of(prediction, ["f0"]))
    accumulator.update(_of(truth, ["f1", "f2"]), _of(prediction, ["f1", "f2"]))
    with pytest.raises(ValueError, match=r"positive_labels \['A'\] occur in neither"):
        accumulator.compute()
    # merged accumulators pool the labels they found
    first = audeval.Accumulator(audeval.detection_error_rate, **options)
    first.update(_of(truth, ["f0"]), _of(prediction, ["f0"]))
    second = audeval.Accumulator(audeval.detection_error_rate, **options)
    second.update(_of(truth, ["f1", "f2"]), _of(prediction, ["f1", "f2"]))
    with pytest.raises(ValueError, match=r"positive_labels \['c'\] occur in neither"):
        first.compute()
    assert (first + second).compute() == pytest.approx(direct, abs=1e-15)


@pytest.mark.parametrize(
    "metric, options",
    [
        (audeval.diarization_error_rate, dict(collar=0.5)),
        (audeval.jaccard_error_rate, dict()),
        (audeval.detection_error_rate, dict(positive_labels=["a", "c"])),
        (audeval.diarization_cluster_report, dict()),
    ],
)
def test_uem_through_every_path(activity, metric, options):
    """uem reaches the statistics function on every path (issue 31, probe 4),
    also for a file that only the UEM names."""
    truth, prediction, _ = activity
    uem = audformat.segmented_index(
        ["f0", "f1", "f1", "f2", "extra"], [1.0, 0.0, 5.0, 3.0, 0.0], [5.0, 3.0, 9.0, 8.0, 4.0]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (no files_duration: extents of the files)
        direct = metric(truth, prediction, uem=uem, **options)
        without = metric(truth, prediction, **options)
        accumulator = audeval.Accumulator(metric, uem=uem, **options)
        accumulator.update(_of(truth, ["f0"]), _of(prediction, ["f0"]))
        accumulator.update(_of(truth, ["f1", "f2"]), _of(prediction, ["f1", "f2"]))
        accumulated = accumulator.compute()
        table = audeval.sum_statistics(
            [
                FAMILIES_OF[metric].compute(
                    _of(truth, files), _of(prediction, files), None,
                    {**options, "uem": uem[uem.get_level_values("file").isin(files)]},
                )
                for files in (["f0", "f2"], ["f1", "extra"])  # (each holds a and c)
            ]
        )
        summed = metric(table, None)
        if isinstance(direct, pd.DataFrame):
            pd.testing.assert_frame_equal(accumulated, direct)
            pd.testing.assert_frame_equal(summed, direct)
            assert not direct.equals(without)
        else:
            assert accumulated == pytest.approx(direct, abs=1e-15)
            assert summed == pytest.approx(direct, abs=1e-15)
            assert direct != without
            value = audeval.bootstrap(metric, truth, prediction, n_boot=3, uem=uem, **options).value
            assert value == pytest.approx(direct, abs=1e-15)
    assert "extra" in accumulator.statistics.index.get_level_values("file")


FAMILIES_OF = {
    audeval.diarization_error_rate: FAMILIES["diarization"],
    audeval.jaccard_error_rate: FAMILIES["diarization"],
    audeval.detection_error_rate: FAMILIES["detection"],
    audeval.diarization_cluster_report: FAMILIES["speaker_set"],
}


def test_unknown_durations_warned_once_as_the_direct_call(activity):
    """One warning for all batches, with the direct call's numbers (issue 33 item 21)."""
    truth, prediction, _ = activity
    durations = {"f0": 10.0}
    with pytest.warns(UserWarning) as direct_warnings:
        direct = audeval.detection_error_rate(truth, prediction, files_duration=durations)
    assert [str(w.message) for w in direct_warnings] == [
        "files_duration is not known for 2 of 3 files: their scored region is the union "
        "of the extents of truth and prediction (pyannote.metrics' rule). "
        "Pass files_duration to score [0, duration]."
    ]
    accumulator = audeval.Accumulator(audeval.detection_error_rate, files_duration=durations)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning per batch
        for file in ("f0", "f1", "f2"):
            accumulator.update(_of(truth, [file]), _of(prediction, [file]))
    with pytest.warns(UserWarning) as caught:
        assert accumulator.compute() == direct
        assert accumulator.compute() == direct  # (the same sum: not warned again)
    assert [str(w.message) for w in caught] == [str(w.message) for w in direct_warnings]
    assert caught[0].filename == __file__


def test_update_costs_the_batch_only(monkeypatch):
    """No per-batch isin against all files; events are matched once, when reduced (issue 32 item 2)."""
    truth = events([f"f{i}" for i in range(50)], [0.0] * 50, [1.0] * 50, ["a", "b"] * 25)
    prediction = events([f"f{i}" for i in range(50)], [0.1] * 50, [1.1] * 50, ["a", "b"] * 25)
    durations = pd.Series(5.0, index=[f"f{i}" for i in range(100)])  # 50 files in no batch
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, files_duration=durations)
    direct = audeval.event_report(truth, prediction, ["a", "b"], **options)
    batches = [(_of(truth, [f"f{i}"]), _of(prediction, [f"f{i}"])) for i in range(50)]
    calls = {"isin": 0, "match": 0}
    isin, match = pd.Index.isin, audeval._events.statistics.match_events

    def counted_isin(self, values, *args, **kwargs):
        calls["isin"] += 1
        return isin(self, values, *args, **kwargs)

    def counted_match(*args, **kwargs):
        calls["match"] += 1
        return match(*args, **kwargs)

    monkeypatch.setattr(pd.Index, "isin", counted_isin)
    monkeypatch.setattr(audeval._events.statistics, "match_events", counted_match)
    accumulator = audeval.Accumulator(audeval.event_report, ["a", "b"], **options)
    for t, p in batches:
        accumulator.update(t, p)
    assert calls == {"isin": 0, "match": 0}
    report = accumulator.compute()
    assert calls["match"] == 2  # all batches at once, and the files of no batch
    # (the file level's string dtype may differ, as in tests/test_contract.py)
    pd.testing.assert_frame_equal(report, direct, check_index_type=False)
    table = accumulator.statistics
    assert len(pd.unique(table.index.get_level_values("file"))) == 100
    pd.testing.assert_frame_equal(
        table,
        audeval.event_statistics(truth, prediction, ["a", "b"], **options),
        check_index_type=False,
    )


def test_batches_in_any_file_order_give_the_direct_table():
    """Event batches matched together keep the direct call's file order."""
    truth = events(["f3", "f1", "f2", "f0"], [0.0] * 4, [1.0] * 4, ["a", "b", "a", "b"])
    prediction = events(["f3", "f1", "f2", "f0"], [0.1] * 4, [1.1] * 4, ["a", "a", "a", "b"])
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2)
    accumulator = audeval.Accumulator(audeval.event_fscore, ["a", "b"], **options)
    for file in ("f3", "f1", "f2", "f0"):
        accumulator.update(_of(truth, [file]), _of(prediction, [file]))
    expected = audeval.event_statistics(truth, prediction, ["a", "b"], **options)
    pd.testing.assert_frame_equal(accumulator.statistics, expected, check_index_type=False)
    assert list(accumulator.statistics.index.get_level_values("file").unique()) == ["f0", "f1", "f2", "f3"]
