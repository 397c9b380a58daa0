"""dask_statistics on the synchronous scheduler: consecutive small partitions evaluated in one call
(issue 32, item 3: the fixed cost of a statistics call paid once per group, not per partition).

The table is the direct call's whatever the grouping; a group is full at ``GROUP_ROWS`` rows;
partitions of different layouts are evaluated alone; a file in two partitions of a group
raises as one split across groups, naming its partitions.
"""

import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_DUPLICATES
import test_dask_arrays as arrays

import audeval
from audeval._generic import dask as _dask
from audeval._generic import dask_groups


dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

OPTIONS = {"onset_tolerance": 0.5, "offset_tolerance": 0.25, "confusion": True}


def frame(seed: int, n_files: int = 12) -> pd.DataFrame:
    """Events of ``5 * n_files`` rows (:func:`test_dask_arrays.frame`)."""
    return arrays.frame(seed, n_files, rows=5 * n_files)


as_series = arrays.as_series
by_file = arrays.common


@pytest.fixture
def calls(monkeypatch):
    """The number of rows of truth of each statistics call on partitions that gave a result
    (partitions found to differ in a column's dtype while they are read are not evaluated together)."""
    seen = []
    original = _dask._partition_statistics

    def spy(batches, truth, prediction, *args, **kwargs):
        result = original(batches, truth, prediction, *args, **kwargs)
        # (a group's partitions come as a list, put one after the other in the call)
        seen.append(sum(len(part) for part in truth) if isinstance(truth, list) else len(truth))
        return result

    monkeypatch.setattr(_dask, "_partition_statistics", spy)
    return seen


@MAY_WARN_DUPLICATES
@pytest.mark.parametrize("limit, expected_calls", [(10**9, 1), (1, 4), ("two pairs", 2)])
def test_groups_of_partitions_give_the_direct_table(monkeypatch, calls, limit, expected_calls):
    truth, prediction = frame(1), frame(2)  # 60 rows each, 4 partitions
    t, p = (side.persist(scheduler="sync") for side in by_file(truth, prediction, 4))
    rows = [len(a) + len(b) for a, b in zip(t.partitions, p.partitions)]
    if limit == "two pairs":  # pairs 0 and 1 fill a group, pair 2 does not, pair 3 is the last
        limit = rows[0] + rows[1]
        assert rows[2] < limit
    monkeypatch.setattr(dask_groups, "GROUP_ROWS", limit)
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(audeval.event_statistics, t, p, **OPTIONS)
    pd.testing.assert_frame_equal(stats, audeval.event_statistics(as_series(truth), as_series(prediction), **OPTIONS))
    assert len(calls) == expected_calls
    assert sum(calls) == len(truth)  # every row once


@MAY_WARN_DUPLICATES
def test_segment_family_in_one_group(calls):
    truth, prediction = frame(3), frame(4)
    t, p = by_file(truth, prediction, 3)
    options = {"time_resolution": 1.0}
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(audeval.segment_statistics, t, p, **options)
    expected = audeval.segment_statistics(as_series(truth), as_series(prediction), **options)
    pd.testing.assert_frame_equal(stats, expected)
    assert calls == [len(truth)]


@MAY_WARN_DUPLICATES
@pytest.mark.parametrize("column", ["label", "end"])
def test_partitions_of_other_layouts_are_evaluated_alone(calls, column):
    truth, prediction = frame(5), frame(6)
    files = sorted(set(truth["file"]) | set(prediction["file"]))
    low = files[: len(files) // 2]

    def parts(side, other_second):
        first, second = side[side["file"].isin(low)], side[~side["file"].isin(low)]
        if other_second and column == "label":  # (another dtype of the label column)
            second = second.assign(label=second["label"].astype("category"))
        if other_second and column == "end":  # (another unit of a time column)
            second = second.assign(end=second["end"].astype("m8[ms]"))
        return dd.from_delayed([dask.delayed(first), dask.delayed(second)], meta=first.iloc[:0], verify_meta=False)

    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(
            audeval.event_statistics, parts(truth, True), parts(prediction, True), **OPTIONS
        )
    pd.testing.assert_frame_equal(stats, audeval.event_statistics(as_series(truth), as_series(prediction), **OPTIONS))
    assert len(calls) == 2


@MAY_WARN_DUPLICATES
def test_a_file_split_within_a_group_names_its_partitions(calls):
    truth = frame(9).sort_values("file").reset_index(drop=True)
    prediction = frame(10).sort_values("file").reset_index(drop=True)
    # cut by row position, not by file: a file ends up in two partitions of the one group
    t = dd.from_pandas(truth, npartitions=3, sort=False)
    p = dd.from_pandas(prediction, npartitions=3, sort=False)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(ValueError, match=r"split across partitions: 'f\d\d\d' in partitions \[\d, \d\]"):
            audeval.dask_statistics(audeval.event_statistics, t, p)
    assert calls == [len(truth)]


def test_partition_of_each_file_of_a_group():
    # truth rows: f1 f1 | f2 (pairs 0, 1); prediction rows: f3 | f2 f2
    t_level, p_level = pd.Index(["f1", "f2"]), pd.Index(["f3", "f2"])
    files = ((t_level, np.array([0, 0, 1])), (p_level, np.array([0, 1, 1])), ([2, 1], [1, 2]))
    where = dask_groups._partitions(files, 5)
    assert where.to_dict() == {"f1": 5, "f2": 6, "f3": 5}
    # f3 in prediction of pair 0 and truth of pair 1: split
    files = ((t_level, np.array([0, 0, 1])), (pd.Index(["f1", "f2"]), np.array([1, 1, 1])), ([2, 1], [1, 2]))
    with pytest.raises(ValueError, match=r"1 file\(s\) are split across partitions: 'f2' in partitions \[5, 6\]"):
        dask_groups._partitions(files, 5)


@MAY_WARN_DUPLICATES
def test_split_files_are_looked_for_only_without_known_divisions(monkeypatch):
    looked = []
    original = dask_groups._partitions

    def spy(files, first):
        looked.append(first)
        return original(files, first)

    monkeypatch.setattr(dask_groups, "_partitions", spy)
    truth, prediction = frame(11), frame(12)
    expected = audeval.event_statistics(as_series(truth), as_series(prediction), **OPTIONS)
    t, p = by_file(truth, prediction, 3)  # known divisions: every file in one partition by construction
    with dask.config.set(scheduler="sync"):
        pd.testing.assert_frame_equal(audeval.dask_statistics(audeval.event_statistics, t, p, **OPTIONS), expected)
    assert looked == []
    t, p = (side.reset_index() for side in (t, p))  # file as a column: paired by position, looked for
    with dask.config.set(scheduler="sync"):
        pd.testing.assert_frame_equal(audeval.dask_statistics(audeval.event_statistics, t, p, **OPTIONS), expected)
    assert looked == [0]


CASES = [
    ("event", {"onset_tolerance": 0.5, "offset_tolerance": None, "matching": "greedy"}),
    ("segment", {"time_resolution": None}),
    ("detection", {"collar": 0.5}),
    ("detection", {"collar": 0.5, "positive_labels": ["c", "a"]}),
    ("diarization", {"skip_overlap": True}),
]


@MAY_WARN_DUPLICATES
@pytest.mark.filterwarnings("ignore:.*has rows beyond the duration")
@pytest.mark.parametrize("family, options", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_every_family_in_one_group(calls, family, options):
    from audeval._generic.registry import FAMILIES

    statistics = FAMILIES[family].statistics
    truth, prediction = frame(13), frame(14)
    if family in ("detection", "diarization"):
        files = set(truth["file"]) | set(prediction["file"])
        options = {**options, "files_duration": {f: 12.0 for f in files}}
    t, p = by_file(truth, prediction, 3)
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(statistics, t, p, **options)
    pd.testing.assert_frame_equal(stats, statistics(as_series(truth), as_series(prediction), **options))
    assert calls == [len(truth)]


def test_filewise_series_in_one_group(calls):
    statistics = audeval.segment_statistics
    truth = pd.Series(["a", "b", "a", "b"], index=pd.Index(["f1", "f2", "f3", "f4"], name="file"))
    prediction = pd.Series(["a", "a", "a", "b"], index=pd.Index(["f1", "f2", "f3", "f4"], name="file"))
    durations = {"f1": 3.0, "f2": 2.0, "f3": 1.0, "f4": 4.0}
    t, p = (dd.from_pandas(side, npartitions=2) for side in (truth, prediction))
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(statistics, t, p, files_duration=durations)
    pd.testing.assert_frame_equal(stats, statistics(truth, prediction, files_duration=durations))
    assert calls == [4]


@pytest.mark.parametrize("object_files_last", [False, True])
def test_score_family_in_one_group(calls, object_files_last):
    # scores: a table of one column per class (prediction) put one after the other as the truth
    rng = np.random.default_rng(3)
    files = [f"f{k}" for k in range(6)]
    starts = np.arange(0.0, 4.0, 0.5)
    index = pd.MultiIndex.from_product(
        [files, pd.to_timedelta(starts, unit="s")], names=["file", "start"]
    ).to_frame(index=False)
    index["end"] = index["start"] + pd.Timedelta(0.5, unit="s")
    scores = index.assign(a=rng.random(len(index)), b=rng.random(len(index)))
    truth = pd.DataFrame(  # (disjoint events per class, as score-based criteria need)
        {
            "file": [f for f in files for _ in range(2)],
            "start": pd.to_timedelta([0.0, 1.5] * len(files), unit="s"),
            "end": pd.to_timedelta([1.0, 3.5] * len(files), unit="s"),
            "label": rng.choice(["a", "b"], 2 * len(files)),
        }
    )
    durations = {f: 4.0 for f in files}
    options = {"median_filter_lengths": [0.0], "files_duration": durations}
    t, s = (
        dd.from_pandas(side.set_index("file").sort_index(), npartitions=3, sort=True)
        for side in (truth, scores)
    )
    if object_files_last:  # (a score partition of another index dtype: each pair is evaluated alone)
        parts = [part.compute(scheduler="sync") for part in s.to_delayed()]
        parts[-1].index = parts[-1].index.astype(object)
        s = dd.from_delayed([dask.delayed(p) for p in parts], meta=parts[0].iloc[:0], divisions=s.divisions)
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(audeval.score_statistics, t, s, **options)
    scores_table = scores.set_index(["file", "start", "end"])
    expected = audeval.score_statistics(as_series(truth), scores_table, **options)
    pd.testing.assert_frame_equal(stats, expected)
    if object_files_last:
        assert calls == [len(part.compute(scheduler="sync")) for part in t.to_delayed()]
    else:
        assert calls == [len(truth)]


def test_partition_of_each_file_by_hand():
    from audeval._generic.dask_groups import _partitions

    t_level, p_level = pd.Index(["a", "b", "c"]), pd.Index(["b", "d"])
    t_codes = np.array([0, 0, 1, 2])  # truth rows: a a | b c (two pairs of two rows)
    # prediction rows: all in the second pair: b in the second partition only
    where = _partitions(((t_level, t_codes), (p_level, np.array([0, 1, 1])), ([2, 2], [0, 3])), 5)
    assert where.to_dict() == {"a": 5, "b": 6, "c": 6, "d": 6}
    # b's prediction row in the first pair, its truth row in the second: split
    with pytest.raises(ValueError, match=r"1 file\(s\) are split across partitions: 'b' in partitions \[5, 6\]"):
        _partitions(((t_level, t_codes), (p_level, np.array([0, 1, 1])), ([2, 2], [1, 2])), 5)


def test_partition_of_each_file_holds_no_file_by_partition_matrix():
    # 20,000 one-row pairs of 20,000 files: a file x partition matrix would take 400 MB
    import tracemalloc

    from audeval._generic.dask_groups import _partitions

    n = 20_000
    level = pd.Index([f"f{k:05d}" for k in range(n)])
    codes = np.arange(n, dtype=np.int64)
    empty = (pd.Index([], dtype=object), np.zeros(0, dtype=np.int64))
    tracemalloc.start()
    where = _partitions(((level, codes), empty, ([1] * n, [0] * n)), 0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert where.tolist() == list(range(n)) and where.index.equals(level)
    assert peak < 20e6
