"""dask_statistics: partitions coded as arrays, counts concatenated in file order (issue 32, item 3).

Every path gives the direct call's table: the concatenation of partitions in file order,
the general sum where partitions are not in order or differ in labels,
the synchronous scheduler, file names in a column or the index, sorted or not,
open ends resolved by ``files_duration``.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_DUPLICATES

import audeval
from audeval._generic import rows as _rows
from audeval._generic.dask_partitions import _file_level, _time_level, to_series


dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")


def frame(seed: int, n_files: int = 12, labels=("a", "b", "c"), rows: int | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = rows or int(rng.integers(3 * n_files, 6 * n_files))
    start = rng.integers(0, 40, n) / 4
    return pd.DataFrame(
        {
            "file": [f"f{k:03d}" for k in rng.integers(0, n_files, n)],
            "start": pd.to_timedelta(start, unit="s"),
            "end": pd.to_timedelta(start + rng.integers(1, 8, n) / 4, unit="s"),
            "label": rng.choice(list(labels), n),
        }
    )


def as_series(table: pd.DataFrame) -> pd.Series:
    index = pd.MultiIndex.from_frame(table[["file", "start", "end"]])
    return pd.Series(table["label"].array, index=index, name="label")


def common(truth: pd.DataFrame, prediction: pd.DataFrame, n: int):
    """Both sides indexed by file with the same divisions."""
    files = np.unique(np.concatenate([truth["file"].to_numpy(), prediction["file"].to_numpy()]))
    cuts = tuple(files[np.unique(np.linspace(0, len(files) - 1, n + 1).round().astype(int))])
    return [
        dd.from_pandas(side.set_index("file"), npartitions=1, sort=True).repartition(divisions=cuts)
        for side in (truth, prediction)
    ]


@pytest.fixture
def concatenated(monkeypatch):
    """Counts how often partitions were concatenated, and how often summed in general
    (every pair of partitions evaluated alone, also on the synchronous scheduler)."""
    from audeval._generic import dask_groups

    monkeypatch.setattr(dask_groups, "GROUP_ROWS", 1)
    seen = {"concatenated": 0, "general": 0}
    original = _rows.concatenate_rows

    def spy(parts):
        out = original(parts)
        seen["general" if out is None else "concatenated"] += 1
        return out

    from audeval._generic import dask as _dask

    monkeypatch.setattr(_dask, "concatenate_rows", spy)
    return seen


@MAY_WARN_DUPLICATES
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "options",
    [
        {"onset_tolerance": 0.5, "offset_tolerance": 0.25, "confusion": True},
        {"onset_tolerance": 0.5, "offset_tolerance": None, "matching": "greedy"},
    ],
)
def test_sync_scheduler_concatenates_in_file_order(concatenated, seed, options):
    truth, prediction = frame(seed), frame(seed + 50)
    t, p = common(truth, prediction, 4)
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(audeval.event_statistics, t, p, **options)
    expected = audeval.event_statistics(as_series(truth), as_series(prediction), **options)
    pd.testing.assert_frame_equal(stats, expected)
    assert concatenated == {"concatenated": 1, "general": 0}


@MAY_WARN_DUPLICATES
@pytest.mark.parametrize("seed", range(3))
def test_labels_differ_between_partitions(concatenated, seed):
    # many labels, few per file: each partition has its own labels (the union is taken),
    # and confusion columns of labels a partition lacks are filled
    labels = [f"l{k:02d}" for k in range(30)]
    truth, prediction = frame(seed, 20, labels), frame(seed + 7, 20, labels)
    t, p = common(truth, prediction, 5)
    options = {"onset_tolerance": 1.0, "offset_tolerance": None, "confusion": True}
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(audeval.event_statistics, t, p, **options)
    expected = audeval.event_statistics(as_series(truth), as_series(prediction), **options)
    pd.testing.assert_frame_equal(stats, expected)
    assert concatenated["concatenated"] == 1
    assert audeval.event_error_rate(stats, None) == audeval.event_error_rate(
        as_series(truth), as_series(prediction), onset_tolerance=1.0, offset_tolerance=None
    )


@pytest.mark.parametrize("time_resolution", [1.0, None])
def test_dense_family_with_other_labels_per_partition_takes_the_general_sum(concatenated, time_resolution):
    # segment tables hold every (file, label) row: partitions with other labels are summed
    # by the general rule (true negatives of the labels a partition lacks)
    truth = frame(3, labels=("a", "b"))
    prediction = frame(4, labels=("a", "b"))
    truth.loc[truth["file"] < "f006", "label"] = "a"
    prediction.loc[prediction["file"] < "f006", "label"] = "a"
    t, p = common(truth, prediction, 3)
    options = {"time_resolution": time_resolution}
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(audeval.segment_statistics, t, p, **options)
    expected = audeval.segment_statistics(as_series(truth), as_series(prediction), **options)
    pd.testing.assert_frame_equal(stats, expected)
    assert concatenated == {"concatenated": 0, "general": 1}
    # partitions that all hold both labels: concatenated
    truth, prediction = frame(3, labels=("a", "b")), frame(4, labels=("a", "b"))
    t, p = common(truth, prediction, 3)
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(audeval.segment_statistics, t, p, **options)
    pd.testing.assert_frame_equal(
        stats, audeval.segment_statistics(as_series(truth), as_series(prediction), **options)
    )
    assert concatenated == {"concatenated": 1, "general": 1}


@MAY_WARN_DUPLICATES
def test_partitions_out_of_file_order_take_the_general_sum(concatenated):
    truth, prediction = frame(8), frame(9)
    truth = truth.sort_values("file").reset_index(drop=True)
    prediction = prediction.sort_values("file").reset_index(drop=True)
    groups = [["f08", "f09", "f10", "f11"], ["f00", "f01", "f02", "f03"], ["f04", "f05", "f06", "f07"]]
    groups = [[f"f0{g[1:]}" for g in group] for group in groups]

    def parts(side):  # file as a column, rows shuffled within a partition
        return dd.from_delayed(
            [
                dask.delayed(side[side["file"].isin(g)].sample(frac=1, random_state=0).reset_index(drop=True))
                for g in groups
            ],
            meta=side.iloc[:0],
        )

    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(audeval.event_statistics, parts(truth), parts(prediction), onset_tolerance=0.5)
    expected = audeval.event_statistics(as_series(truth), as_series(prediction), onset_tolerance=0.5)
    pd.testing.assert_frame_equal(stats, expected)
    assert concatenated == {"concatenated": 0, "general": 1}


def test_open_ends_and_files_duration():
    truth, prediction = frame(10), frame(11)
    truth.loc[::5, "end"] = pd.NaT  # until the end of the file
    durations = {f"f{k:03d}": 20.0 for k in range(14)}  # (two files in no partition)
    t, p = common(truth, prediction, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", audeval.FilesWithoutRowsWarning)
        with dask.config.set(scheduler="sync"):
            stats = audeval.dask_statistics(
                audeval.event_statistics, t, p, onset_tolerance=0.5, files_duration=durations
            )
        expected = audeval.event_statistics(
            as_series(truth), as_series(prediction), onset_tolerance=0.5, files_duration=durations
        )
    pd.testing.assert_frame_equal(stats, expected)


def test_sum_statistics_concatenates_disjoint_tables_in_order():
    truth, prediction = as_series(frame(12)), as_series(frame(13))
    options = {"onset_tolerance": 0.5, "confusion": True}
    files = truth.index.get_level_values("file")
    pfiles = prediction.index.get_level_values("file")
    halves = [
        audeval.event_statistics(truth[files < "f006"], prediction[pfiles < "f006"], **options),
        audeval.event_statistics(truth[files >= "f006"], prediction[pfiles >= "f006"], **options),
    ]
    expected = audeval.event_statistics(truth, prediction, **options)
    in_order = _rows.concatenate_rows([_rows.rows_of(t) for t in halves])
    assert in_order is not None
    pd.testing.assert_frame_equal(in_order, expected)
    assert _rows.concatenate_rows([_rows.rows_of(t) for t in halves[::-1]]) is None
    for tables in (halves, halves[::-1]):
        pd.testing.assert_frame_equal(audeval.sum_statistics(tables), expected)
    # a table of arrays and back
    pd.testing.assert_frame_equal(
        audeval.sum_statistics([_rows.table_of_rows(_rows.rows_of(t)) for t in halves]), expected
    )
    with pytest.raises(ValueError, match="in more than one table"):
        audeval.sum_statistics([halves[0], halves[0]])


def test_partition_levels():
    codes, level = _file_level(pd.Series(["b", "b", "c", None, "a"], dtype="string"))
    assert codes.tolist() == [0, 0, 1, -1, 2]
    assert level.tolist() == ["b", "c", "a"]
    codes, level = _file_level(pd.Series(["a", "a", "b", "c", "c"], dtype="string"))  # sorted: runs
    assert codes.tolist() == [0, 0, 1, 2, 2]
    assert level.tolist() == ["a", "b", "c"]
    assert level.dtype == pd.Index(["a"]).dtype  # pandas' default strings, as in pandas input
    codes, level = _file_level(pd.Series(pd.Categorical(["x", "y", "x"], categories=["y", "x", "z"])))
    assert codes.tolist() == [0, 1, 0]
    assert level.tolist() == ["x", "y"]
    codes, level = _time_level(pd.to_timedelta([1.0, None, 1.0], unit="s"))
    assert codes.tolist() == [0, -1, 2]
    assert level[[0, 2]].total_seconds().tolist() == [1.0, 1.0]
    part = pd.DataFrame(
        {"start": pd.to_timedelta([0.0, 1.0], unit="s"), "end": [2.0, None], "label": ["a", "b"]},
        index=pd.Index(["f2", "f1"], name="file"),
    )
    series = to_series(part, "truth")
    assert series.index.get_level_values("file").tolist() == ["f2", "f1"]
    assert series.index.get_level_values("end")[0] == pd.Timedelta(2, unit="s")
    assert pd.isna(series.index.get_level_values("end")[1])
    assert series.tolist() == ["a", "b"]


LAYOUTS = ["file index", "sorted files", "file column", "seconds", "microseconds", "objects", "strings", "open ends"]


def layout_parts(layout: str) -> list[pd.DataFrame]:
    """Three partitions of one layout (``LAYOUTS``), the second empty."""
    parts = []
    for seed in range(3):
        part = frame(seed).sort_values("file", kind="stable")
        part["label"] = pd.Categorical(part["label"], categories=["c", "b", "a"])
        if layout == "sorted files":  # (partitions by file in file order: coded by their runs)
            part["file"] = f"p{seed}-" + part["file"]
        if layout == "seconds":
            part["start"], part["end"] = part["start"].dt.total_seconds(), part["end"].dt.total_seconds()
        if layout == "microseconds":
            part["start"], part["end"] = part["start"].astype("m8[us]"), part["end"].astype("m8[us]")
        if layout == "objects":
            part["file"] = part["file"].astype(object)
        if layout == "strings":
            part["label"] = part["label"].astype(str)
        if layout == "open ends":
            part["end"] = part["end"].where(part.index % 3 != 0)
        parts.append(part if layout == "file column" else part.set_index("file"))
    parts[1] = parts[1].iloc[:0]  # (an empty partition among them)
    return parts


@pytest.mark.parametrize("layout", LAYOUTS)
def test_partitions_coded_together_equal_their_concatenation(layout):
    """A group's partitions are coded column by column: the Series of ``pd.concat`` of them."""
    parts = layout_parts(layout)
    together = to_series(parts, "truth")
    expected = to_series(pd.concat(parts), "truth")
    pd.testing.assert_series_equal(together, expected)
    assert together.index.equals(expected.index)
    assert together.index.get_level_values("file").tolist() == pd.concat(parts).reset_index()["file"].tolist()
    assert len(together) == sum(len(part) for part in parts)


def test_file_runs_only_where_every_file_is_one_run():
    codes, level = _file_level(pd.Series(["a", "b", "a"], dtype="string"))  # "a" twice: factorised
    assert codes.tolist() == [0, 1, 0]
    assert level.tolist() == ["a", "b"]
    codes, level = _file_level(pd.Series(["b", "b", "a"], dtype="string"))  # runs, not sorted
    assert codes.tolist() == [0, 0, 1]
    assert level.tolist() == ["b", "a"]
    codes, level = _file_level(pd.Series(["a", "a", "a", "b"], dtype="string"))
    assert codes.tolist() == [0, 0, 0, 1]
    assert level.tolist() == ["a", "b"]
    assert level.dtype == pd.Index(["a"]).dtype


@MAY_WARN_DUPLICATES
@pytest.mark.parametrize(
    "options",
    [
        {"onset_tolerance": 0.5, "offset_tolerance": 0.25},
        {"onset_tolerance": 0.5, "offset_tolerance": None, "confusion": True},
        {"onset_tolerance": 0.25, "offset_tolerance": 0.25, "dense": True, "matching": "greedy"},
    ],
)
def test_a_partition_sends_the_arrays_of_its_table(options):
    """The counts of a partition (no table built on the worker) are the arrays of its table."""
    from audeval._generic.dask import _partition_statistics
    from audeval._generic.registry import Batches, family_of

    truth, prediction = frame(3), frame(4)
    batches = Batches(family_of(audeval.event_statistics), None, options)
    sent, _, _ = _partition_statistics(batches, truth.set_index("file"), prediction.set_index("file"))
    expected = _rows.rows_of(audeval.event_statistics(as_series(truth), as_series(prediction), **options))
    assert isinstance(sent, _rows.Rows)
    assert sent.files.equals(expected.files) and sent.files.name == "file"
    assert sent.labels == expected.labels
    np.testing.assert_array_equal(sent.file_codes, expected.file_codes)
    np.testing.assert_array_equal(sent.label_codes, expected.label_codes)
    assert list(sent.columns) == list(expected.columns)
    for name, values in expected.columns.items():
        if isinstance(values, tuple):
            for a, b in zip(sent.columns[name], values):
                np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_array_equal(sent.columns[name], values)
    assert sent.attrs == expected.attrs
    if "dense" in options:  # (a view option of the table: not an option of dask_statistics)
        return
    t, p = common(truth, prediction, 3)
    with dask.config.set(scheduler="sync"):
        stats = audeval.dask_statistics(audeval.event_statistics, t, p, **options)
    pd.testing.assert_frame_equal(
        stats, audeval.event_statistics(as_series(truth), as_series(prediction), **options)
    )
