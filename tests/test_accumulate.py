"""Additive statistics as a feature (SPEC section 2): sums of shards, accumulator.

Every family registered in ``audeval._registry.FAMILIES`` that is listed in CASES
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
from audeval._registry import FAMILIES


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
    doubled = audeval.sum_statistics([a, a])
    pd.testing.assert_frame_equal(doubled, a * 2)


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
