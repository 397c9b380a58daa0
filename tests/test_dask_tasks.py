"""What a dask_statistics task carries to a worker (issue 32, item 3: the fixed cost of a cluster call).

The options travel with each task as the family's name and plain values (a few hundred bytes,
not the family's functions pickled by value), and a persisted partition is read from
its data's key (not through an alias, which is a task of its own).
"""

import pickle

import pandas as pd
import pytest

import audeval
from audeval._generic.dask import _target
from audeval._generic.registry import Batches, family_of


dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
cloudpickle = pytest.importorskip("cloudpickle")


def test_batches_travel_by_family_name():
    family = family_of(audeval.event_statistics)
    options = {"onset_tolerance": 0.2, "offset_tolerance": None, "files_duration": {"f1": 3.0, "f2": 4.0}}
    batches = Batches(family, ["a", "b"], options)
    shipped = cloudpickle.dumps(batches)
    assert len(shipped) < 2_000  # (16 kB with the family's functions)
    back = pickle.loads(shipped)
    assert back.family is family
    assert back.labels == ["a", "b"]
    assert back.options.keys() == batches.options.keys()
    assert back.file_options.keys() == batches.file_options.keys() == {"files_duration"}
    assert list(back.file_options["files_duration"].files) == ["f1", "f2"]


def test_alias_keys_resolve_to_the_data():
    from dask._task_spec import Alias, DataNode

    graph = {"data": DataNode("data", 1), "a1": Alias("a1", "data"), "a2": Alias("a2", "a1"), "loop": Alias("loop", "loop")}
    assert _target(graph, "a2") == "data"
    assert _target(graph, "a1") == "data"
    assert _target(graph, "data") == "data"
    assert _target(graph, "loop") == "loop"
    assert _target(graph, "other") == "other"
    assert len(graph) == 4  # (the graph is left as it is)


def _four_events() -> tuple[pd.DataFrame, pd.Series]:
    """Four events in three files, as a frame with a file column and as a Series."""
    frame = pd.DataFrame(
        {
            "file": ["f1", "f1", "f2", "f3"],
            "start": pd.to_timedelta([0.0, 2.0, 0.0, 1.0], unit="s"),
            "end": pd.to_timedelta([1.0, 3.0, 1.0, 2.0], unit="s"),
            "label": ["a", "b", "a", "b"],
        }
    )
    return frame, pd.Series(frame["label"].array, index=pd.MultiIndex.from_frame(frame[["file", "start", "end"]]))


def test_persisted_collections_and_the_same_collection_on_both_sides():
    frame, series = _four_events()
    ddf = dd.from_pandas(frame.set_index("file"), npartitions=2).persist(scheduler="sync")
    for scheduler in ("sync", "threads"):
        with dask.config.set(scheduler=scheduler):
            stats = audeval.dask_statistics(audeval.event_statistics, ddf, ddf, onset_tolerance=0.5)
        pd.testing.assert_frame_equal(stats, audeval.event_statistics(series, series, onset_tolerance=0.5))


def test_persisted_partitions_skip_the_synchronous_scheduler(monkeypatch):
    """In-memory partitions on the synchronous scheduler are handed to the chain of groups
    as they are (no graph to order and run); partitions that are tasks go through dask."""
    import dask.local

    frame, series = _four_events()
    expected = audeval.event_statistics(series, series.iloc[[0, 2, 3]], onset_tolerance=0.5)
    truth = dd.from_pandas(frame.set_index("file"), npartitions=2)
    prediction = truth.map_partitions(lambda part: part[part["start"] != pd.Timedelta(2, unit="s")])
    assert prediction.divisions == truth.divisions  # (else the sides are repartitioned: tasks)
    runs = []
    original = dask.local.get_async
    monkeypatch.setattr(dask.local, "get_async", lambda *a, **k: runs.append(1) or original(*a, **k))
    for persisted in (True, False):
        sides = [side.persist(scheduler="sync") if persisted else side for side in (truth, prediction)]
        runs.clear()
        with dask.config.set(scheduler="sync"):
            stats = audeval.dask_statistics(audeval.event_statistics, *sides, onset_tolerance=0.5)
        pd.testing.assert_frame_equal(stats, expected)
        assert runs == ([] if persisted else [1])


def test_persisted_partitions_are_read_off_the_expression(monkeypatch):
    """A persisted collection's partitions are its data in partition order, read without its
    graph (no lowering of the expression); any other collection has none to read."""
    import audeval._generic.dask as dask_module

    frame, series = _four_events()
    collection = dd.from_pandas(frame.set_index("file"), npartitions=2)
    persisted = collection.persist(scheduler="sync")
    parts = dask_module._persisted(persisted)
    assert [type(part) for part in parts] == [pd.DataFrame, pd.DataFrame]
    for part, computed in zip(parts, persisted.to_delayed()):
        pd.testing.assert_frame_equal(part, computed.compute(scheduler="sync"))
    assert dask_module._persisted(collection) is None  # (its partitions are tasks)
    assert dask_module._persisted(persisted.map_partitions(lambda part: part)) is None
    monkeypatch.setattr(dask_module, "_graph", lambda obj: pytest.fail("the graph was built"))
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(audeval.event_statistics, persisted, persisted, onset_tolerance=0.5)
    pd.testing.assert_frame_equal(stats, audeval.event_statistics(series, series, onset_tolerance=0.5))


def test_counts_travel_in_small_types():
    import numpy as np

    from audeval._generic.rows import rows_of, table_of_rows

    truth = pd.Series(
        ["a", "b", "a"],
        index=pd.MultiIndex.from_arrays(
            [["f1", "f1", "f2"], pd.to_timedelta([0.0, 2.0, 0.0], unit="s"), pd.to_timedelta([1.0, 3.0, 1.0], unit="s")],
            names=["file", "start", "end"],
        ),
    )
    prediction = truth.copy()
    prediction.iloc[1] = "a"
    table = audeval.event_statistics(truth, prediction, onset_tolerance=0.5, confusion=True)
    rows = rows_of(table)
    packed = rows.packed()
    assert packed.file_codes.dtype == np.uint8 and packed.columns["tp"].dtype == np.uint8
    assert len(cloudpickle.dumps(packed)) < len(cloudpickle.dumps(rows))
    back = packed.unpacked()
    for name, values in rows.columns.items():
        restored = back.columns[name]
        for a, b in zip(values if isinstance(values, tuple) else (values,), restored if isinstance(restored, tuple) else (restored,)):
            assert b.dtype == a.dtype
            np.testing.assert_array_equal(a, b)
    pd.testing.assert_frame_equal(table_of_rows(back), table)
    # large or negative values keep their type
    from audeval._generic.rows import _narrow

    assert _narrow(np.array([0, 2**40])).dtype == np.int64
    assert _narrow(np.array([-1, 3])).dtype == np.int64
    assert _narrow(np.array([0, 70_000])).dtype == np.uint32


@pytest.mark.parametrize("name", ["sync", "Synchronous", "single-threaded", "threads", "processes", None])
def test_scheduler_named_in_the_config_as_dask_finds_it(name):
    from audeval._generic.dask import _scheduler

    frame, _ = _four_events()
    ddf = dd.from_pandas(frame.set_index("file"), npartitions=2)
    with dask.config.set(scheduler=name):
        assert _scheduler(dask, [ddf, ddf]) is dask.base.get_scheduler(collections=[ddf, ddf])


def test_labels_found_in_a_batch():
    # the labels a batch holds: categories used by a row, in category order (unused ones and missing
    # labels left out); other labels in the order first seen
    from audeval._core.sides import Coded
    from audeval._generic.registry import _found_labels

    family = family_of(audeval.event_statistics)
    labels = pd.Categorical(["b", None, "d", "b"], categories=["d", "c", "b", "a"])
    series = pd.Series(labels)
    assert _found_labels(series, family) == ["d", "b"]
    coded = Coded(pd.Index(["f"]), None, None, None, labels, lambda: series)
    assert _found_labels(coded, family) == ["d", "b"]
    assert _found_labels(pd.Series(["y", None, "x", "y"]), family) == ["y", "x"]
    assert _found_labels(pd.Series(pd.Categorical([None, None], categories=["a"])), family) == []
