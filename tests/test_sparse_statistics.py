"""Statistics tables that hold only what occurs (issue 32 item 1).

Event tables have one row per ``(file, label)`` pair that occurs
(a file without events: one row of zeros with the first label),
their labels are the categories of the ``label`` level,
and the confusion columns are sparse;
every path (table, ``sum_statistics``, ``Accumulator``, ``bootstrap``, plain pandas)
gives the numbers of the direct call, and ``dense=True`` gives the whole grid.
"""

from __future__ import annotations

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._generic.registry import FAMILIES
from audeval._core.tables import per_label
from audeval._core.warnings import UndefinedMetricWarning


TOL = dict(onset_tolerance=0.2, offset_tolerance=0.2)


def events(rows):
    files, starts, ends, labels = zip(*rows) if rows else ([], [], [], [])
    return pd.Series(list(labels), index=audformat.segmented_index(list(files), list(starts), list(ends)), dtype=object)


TRUTH = events([("f1", 0, 1, "a"), ("f1", 2, 3, "b"), ("f2", 0, 1, "c"), ("f3", 0, 1, "a")])
PREDICTION = events([("f1", 0.1, 1.1, "a"), ("f1", 2, 3, "a"), ("f2", 0, 1, "b"), ("f4", 0, 1, "c")])
DURATIONS = {"f1": 5.0, "f2": 5.0, "f3": 5.0, "f4": 5.0, "f5": 5.0}

# DURATIONS names a file without events on purpose (it keeps one row of zeros),
# and shards of whole files may hold a truth-only and a prediction-only file:
# audeval says so with FilesWithoutRowsWarning and NoSharedFileWarning, expected here.
pytestmark = [
    pytest.mark.filterwarnings("ignore::audeval.FilesWithoutRowsWarning"),
    pytest.mark.filterwarnings("ignore::audeval.NoSharedFileWarning"),
]



def test_rows_are_the_pairs_that_occur():
    stats = audeval.event_statistics(TRUTH, PREDICTION, files_duration=DURATIONS, **TOL)
    # hand-counted: f1 a (1 truth, 2 predicted, 1 match, the second "a" substitutes "b"),
    # f1 b (substituted), f2 b / f2 c (substitution), f3 a (miss), f4 c (insertion),
    # f5 (only in files_duration): one row of zeros with the first label
    expected = pd.DataFrame(
        {
            "n_truth": [1, 1, 0, 1, 1, 0, 0],
            "n_prediction": [2, 0, 1, 0, 0, 1, 0],
            "tp": [1, 0, 0, 0, 0, 0, 0],
            "fp": [1, 0, 1, 0, 0, 1, 0],
            "fn": [0, 1, 0, 1, 1, 0, 0],
            "substituted": [0, 1, 0, 1, 0, 0, 0],
            "substituting": [1, 0, 1, 0, 0, 0, 0],
        },
        index=pd.MultiIndex.from_tuples(
            [("f1", "a"), ("f1", "b"), ("f2", "b"), ("f2", "c"), ("f3", "a"), ("f4", "c"), ("f5", "a")],
            names=["file", "label"],
        ),
    )
    assert list(stats.index) == list(expected.index)
    assert list(stats.columns) == list(expected.columns)
    np.testing.assert_array_equal(stats.to_numpy(), expected.to_numpy())
    assert (stats.dtypes == np.int64).all()
    assert list(stats.index.levels[1].categories) == ["a", "b", "c"]
    assert audeval.event_report(stats, None).equals(
        audeval.event_report(TRUTH, PREDICTION, files_duration=DURATIONS, **TOL)
    )


def test_dense_view_is_the_grid_with_the_same_numbers():
    sparse = audeval.event_statistics(TRUTH, PREDICTION, files_duration=DURATIONS, confusion=True, **TOL)
    dense = audeval.event_statistics(
        TRUTH, PREDICTION, files_duration=DURATIONS, confusion=True, dense=True, **TOL
    )
    assert len(dense) == 5 * 3
    assert (dense.dtypes == np.int64).all()
    grid = sparse.astype(np.int64).reindex(dense.index, fill_value=0)
    pd.testing.assert_frame_equal(grid, dense, check_index_type=False)
    for metric in (audeval.event_fscore, audeval.event_error_rate, audeval.event_fscore_per_class,
                   audeval.event_confusion_matrix):
        assert metric(sparse, None) == metric(dense, None) == metric(
            TRUTH, PREDICTION, files_duration=DURATIONS, **TOL
        )
    pd.testing.assert_frame_equal(audeval.event_report(dense, None), audeval.event_report(sparse, None))
    # summing a dense table gives the rows that occur
    pd.testing.assert_frame_equal(audeval.sum_statistics([dense]).astype(np.int64), sparse.astype(np.int64))
    with pytest.raises(TypeError, match="dense"):
        audeval.event_statistics(TRUTH, PREDICTION, dense="yes")


def test_confusion_columns_are_sparse_and_give_the_matrix():
    stats = audeval.event_statistics(TRUTH, PREDICTION, confusion=True, **TOL)
    names = ["substituted_by_a", "substituted_by_b", "substituted_by_c"]
    assert all(stats[name].dtype == pd.SparseDtype(np.int64, 0) for name in names)
    # stored values: f1 b substituted by a, f2 c substituted by b
    assert [int(stats[name].sparse.npoints) for name in names] == [1, 1, 0]
    assert stats.loc[("f1", "b"), "substituted_by_a"] == 1
    assert stats.loc[("f2", "c"), "substituted_by_b"] == 1
    matrix = audeval.event_confusion_matrix(stats, None)
    assert matrix == audeval.event_confusion_matrix(TRUTH, PREDICTION, **TOL)
    assert matrix == [[1, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
    summed = per_label(stats)
    expected = per_label(stats.astype(np.int64))
    pd.testing.assert_frame_equal(summed, expected)


def test_labels_that_occur_nowhere_stay_in_the_table():
    labels = ["a", "b", "c", "z"]
    with pytest.warns(UndefinedMetricWarning, match="z"):
        stats = audeval.event_statistics(TRUTH, PREDICTION, labels, **TOL)
    assert "z" not in set(stats.index.get_level_values("label"))
    assert list(stats.index.levels[1].categories) == labels
    for metric in (audeval.event_fscore_per_class, audeval.event_unweighted_average_fscore):
        from_table = metric(stats, None)  # (warned once, by event_statistics)
        with pytest.warns(UndefinedMetricWarning, match="z"):
            direct = metric(TRUTH, PREDICTION, labels, **TOL)
        assert from_table == direct
    # F(a) = 1/2 (2 truth, 2 predicted, 1 match), F(b) = F(c) = 0, F(z) = zero_division = 0
    assert audeval.event_fscore_per_class(stats, None) == {"a": 0.5, "b": 0.0, "c": 0.0, "z": 0.0}
    assert audeval.event_fscore(stats, None, average="macro") == 0.5 / 4


@pytest.mark.parametrize("labels", [None, ["a", "b", "c"], ["c", "a", "b", "z"]])
@pytest.mark.filterwarnings("ignore::audeval._core.warnings.UndefinedMetricWarning")  # (labels absent from a shard)
def test_shards_sum_to_the_table_on_every_path(labels):
    files = sorted(DURATIONS)
    kwargs = dict(confusion=True, **TOL)
    direct = audeval.event_statistics(TRUTH, PREDICTION, labels, files_duration=DURATIONS, **kwargs)

    def part(series, keep):
        return series[series.index.get_level_values("file").isin(keep)]

    def shard(keep):
        return audeval.event_statistics(
            part(TRUTH, keep), part(PREDICTION, keep), labels if labels else ["a", "b", "c"],
            files_duration={f: DURATIONS[f] for f in keep}, **kwargs,
        )

    shards = [shard(files[:2]), shard(files[2:])]
    summed = audeval.sum_statistics(shards)
    if labels is None:  # (shards computed with the labels of the whole data)
        summed.attrs = direct.attrs
    pd.testing.assert_frame_equal(summed, direct)
    # plain pandas: the same rows (shards of the same labels)
    pd.testing.assert_frame_equal(pd.concat(shards), direct, check_index_type=False)
    accumulator = audeval.Accumulator(audeval.event_confusion_matrix, labels=labels, files_duration=DURATIONS, **TOL)
    for keep in (files[:2], files[2:]):
        accumulator.update(part(TRUTH, keep), part(PREDICTION, keep))
    assert accumulator.compute() == audeval.event_confusion_matrix(direct, None)
    pd.testing.assert_frame_equal(accumulator.statistics, direct, check_index_type=False)


def test_bootstrap_of_the_sparse_table_equals_the_dense_grid():
    sparse = audeval.event_statistics(TRUTH, PREDICTION, files_duration=DURATIONS, confusion=True, **TOL)
    dense = audeval.event_statistics(
        TRUTH, PREDICTION, files_duration=DURATIONS, confusion=True, dense=True, **TOL
    )
    for metric in (audeval.event_fscore, audeval.event_error_rate):
        a = audeval.bootstrap(metric, sparse, n_boot=200, seed=3)
        b = audeval.bootstrap(metric, dense, n_boot=200, seed=3)
        c = audeval.bootstrap(metric, TRUTH, PREDICTION, n_boot=200, seed=3, files_duration=DURATIONS, **TOL)
        np.testing.assert_array_equal(a.distribution, b.distribution)
        np.testing.assert_array_equal(a.distribution, c.distribution)
        assert a.value == metric(TRUTH, PREDICTION, files_duration=DURATIONS, **TOL)
    matrix = audeval.bootstrap(audeval.event_confusion_matrix, sparse, n_boot=50, seed=1)
    np.testing.assert_array_equal(
        matrix.distribution, audeval.bootstrap(audeval.event_confusion_matrix, dense, n_boot=50, seed=1).distribution
    )


def test_the_schema_declares_the_rows():
    assert FAMILIES["event"].sparse
    # segment tables count true negatives in every (file, label): the grid by nature
    assert not FAMILIES["segment"].sparse


def test_table_memory_grows_with_the_events_not_with_the_labels():
    rng = np.random.default_rng(0)
    n, n_files = 2_000, 200
    files = np.array([f"f{k:03d}" for k in range(n_files)])[rng.integers(0, n_files, n)]
    starts = rng.uniform(0, 9, n)

    def side(seed):
        codes = np.random.default_rng(seed).permutation(np.arange(n) % 1_000)  # every label occurs
        labels = [f"c{k:04d}" for k in range(1_000)]
        return pd.Series(
            pd.Categorical.from_codes(codes, categories=labels),
            index=audformat.segmented_index(files, starts, starts + 0.5),
        )

    truth, prediction = side(1), side(2)
    stats = audeval.event_statistics(truth, prediction, confusion=True, **TOL)
    assert len(stats) <= 2 * n
    assert stats.memory_usage(deep=True).sum() < 200 * 2 * n
    assert audeval.event_fscore(stats, None, average="macro") == audeval.event_fscore(
        truth, prediction, average="macro", **TOL
    )
    assert audeval.event_confusion_matrix(stats, None) == audeval.event_confusion_matrix(truth, prediction, **TOL)


@pytest.mark.parametrize("n_files, n_labels", [(3, 2), (50, 1_000)])  # a pass over the grid; a sort
def test_occurring_rows_by_either_path(n_files, n_labels):
    from audeval._core.tables import occurring_rows

    rng = np.random.default_rng(5)
    truth = rng.integers(0, n_files * n_labels, 40)
    prediction = rng.integers(0, n_files * n_labels, 30) // n_labels * n_labels  # first labels only
    keys, (t_row, p_row) = occurring_rows((truth, prediction), n_files, n_labels)
    files = np.arange(n_files)
    empty = files[~np.isin(files, np.concatenate([truth, prediction]) // n_labels)] * n_labels
    np.testing.assert_array_equal(keys, np.unique(np.concatenate([truth, prediction, empty])))
    np.testing.assert_array_equal(keys[t_row], truth)
    np.testing.assert_array_equal(keys[p_row], prediction)


def test_sum_of_a_file_with_only_zero_rows_keeps_one_row_with_the_first_label():
    # a user's table (e.g. selected or built by hand) whose file f has only a zero row of label b
    stats = audeval.event_statistics(TRUTH, PREDICTION, files_duration=DURATIONS, **TOL)
    f5 = stats.xs("f5", level="file", drop_level=False)
    assert list(f5.index) == [("f5", "a")]
    zero_b = f5.set_axis(
        pd.MultiIndex.from_arrays(
            [pd.Index(["f5"]), pd.CategoricalIndex(["b"], categories=["a", "b", "c"], ordered=True)],
            names=["file", "label"],
        )
    )
    summed = audeval.sum_statistics([stats.drop(index="f5", level="file"), zero_b])
    pd.testing.assert_frame_equal(summed, stats, check_index_type=False)
