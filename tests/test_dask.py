"""Statistics on dask collections partitioned by file (SPEC section 8)."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_DUPLICATES

import audeval
from audeval._generic.registry import FAMILIES


dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

DURATION = 30.0


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        )
        client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def random_frame(seed: int, n_files: int = 12, labels=("a", "b", "c")) -> pd.DataFrame:
    """Events as a flat table: file, start, end, label (timedeltas)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(n_files, 5 * n_files))
    start = rng.integers(0, 40, n) / 2
    return pd.DataFrame(
        {
            "file": [f"f{k:02d}" for k in rng.integers(0, n_files, n)],
            "start": pd.to_timedelta(start, unit="s"),
            "end": pd.to_timedelta(start + rng.integers(1, 8, n) / 2, unit="s"),
            "label": rng.choice(list(labels), n),
        }
    )


def to_series(frame: pd.DataFrame) -> pd.Series:
    index = pd.MultiIndex.from_frame(frame[["file", "start", "end"]])
    return pd.Series(frame["label"].array, index=index, name="label")


def by_file(frame: pd.DataFrame, npartitions: int):
    return dd.from_pandas(frame.set_index("file"), npartitions=npartitions)


CASES = [
    ("event", {"onset_tolerance": 0.5, "offset_tolerance": None, "confusion": True}),
    ("event", {"onset_tolerance": 0.5, "offset_tolerance": 0.5, "matching": "greedy"}),
    ("segment", {"time_resolution": 1.0}),
    ("segment", {"time_resolution": None}),
    ("detection", {"collar": 0.5}),
    ("diarization", {"skip_overlap": True}),
]


def statistics_function(family: str):
    return FAMILIES[family].statistics


def with_durations(family, options, *frames):
    if family in ("detection", "diarization"):
        files = set().union(*(set(f["file"]) for f in frames))
        return {**options, "files_duration": {f: DURATION for f in files}}
    return options


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("family, options", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_dask_equals_pandas_on_a_local_cluster(client, family, options, seed):
    statistics = statistics_function(family)
    truth, prediction = random_frame(seed), random_frame(seed + 100)
    options = with_durations(family, options, truth, prediction)
    expected = statistics(to_series(truth), to_series(prediction), **options)
    # truth and prediction with different partitions: aligned on their file divisions
    stats = audeval.dask_statistics(
        statistics, by_file(truth, 3), by_file(prediction, 4), **options
    )
    pd.testing.assert_frame_equal(stats, expected)


def test_metrics_from_dask_statistics(client):
    truth, prediction = random_frame(5), random_frame(6)
    options = {"onset_tolerance": 0.5, "offset_tolerance": None}
    stats = audeval.dask_statistics(
        audeval.event_statistics, by_file(truth, 3), by_file(prediction, 3), **options
    )
    for average in ("micro", "macro"):
        assert audeval.event_fscore(stats, None, average=average) == audeval.event_fscore(
            to_series(truth), to_series(prediction), average=average, **options
        )


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside dask's parquet writer
def test_recipe_from_parquet(client, tmp_path):
    truth, prediction = random_frame(2), random_frame(3)
    # write: one parquet dataset per side, partitioned by file
    by_file(truth, 3).to_parquet(tmp_path / "truth")
    by_file(prediction, 2).to_parquet(tmp_path / "prediction")
    # read: the file divisions come from the parquet statistics
    dask_truth = dd.read_parquet(tmp_path / "truth", index="file", calculate_divisions=True)
    dask_prediction = dd.read_parquet(tmp_path / "prediction", index="file", calculate_divisions=True)
    assert dask_truth.known_divisions
    stats = audeval.dask_statistics(
        audeval.event_statistics, dask_truth, dask_prediction, onset_tolerance=0.5
    )
    expected = audeval.event_statistics(to_series(truth), to_series(prediction), onset_tolerance=0.5)
    pd.testing.assert_frame_equal(stats, expected)
    # unsorted parquet without divisions: set_index("file") partitions it by file
    truth.sample(frac=1, random_state=0).to_parquet(tmp_path / "shuffled.parquet")
    shuffled = dd.read_parquet(tmp_path / "shuffled.parquet").set_index("file")
    stats = audeval.dask_statistics(
        audeval.event_statistics, shuffled, dask_prediction, onset_tolerance=0.5
    )
    pd.testing.assert_frame_equal(stats, expected)


def test_paired_by_position_without_divisions(client):
    truth, prediction = random_frame(4), random_frame(5)
    # file as a column; both cut at the same files
    truth = truth.sort_values("file", kind="stable").reset_index(drop=True)
    prediction = prediction.sort_values("file", kind="stable").reset_index(drop=True)
    groups = [["f00", "f01", "f02", "f03"], ["f04", "f05", "f06", "f07"], ["f08", "f09", "f10", "f11"]]

    def parts(frame):
        return dd.from_delayed(
            [
                __import__("dask").delayed(frame[frame["file"].isin(g)].reset_index(drop=True))
                for g in groups
            ],
            meta=frame.iloc[:0],
        )

    stats = audeval.dask_statistics(audeval.event_statistics, parts(truth), parts(prediction), ["c", "a", "b"])
    expected = audeval.event_statistics(to_series(truth), to_series(prediction), ["c", "a", "b"])
    pd.testing.assert_frame_equal(stats, expected)


def test_seconds_and_categorical_labels(client):
    truth, prediction = random_frame(7), random_frame(8)
    categories = ["c", "b", "a"]
    for frame in (truth, prediction):
        frame["label"] = pd.Categorical(frame["label"], categories=categories)
    seconds = {
        name: frame.assign(start=frame["start"].dt.total_seconds(), end=frame["end"].dt.total_seconds())
        for name, frame in (("truth", truth), ("prediction", prediction))
    }
    stats = audeval.dask_statistics(
        audeval.event_statistics, by_file(seconds["truth"], 3), by_file(seconds["prediction"], 3)
    )
    expected = audeval.event_statistics(to_series(truth), to_series(prediction))
    assert list(expected.index.get_level_values("label").categories) == categories
    pd.testing.assert_frame_equal(stats, expected)


def test_filewise_dask_series(client):
    statistics = statistics_function("segment")
    truth = pd.Series(["a", "b", "a", "b"], index=pd.Index(["f1", "f2", "f3", "f4"], name="file"))
    prediction = pd.Series(["a", "a", "a", "b"], index=pd.Index(["f1", "f2", "f3", "f4"], name="file"))
    durations = {"f1": 3.0, "f2": 2.0, "f3": 1.0, "f4": 4.0}
    stats = audeval.dask_statistics(
        statistics,
        dd.from_pandas(truth, npartitions=2),
        dd.from_pandas(prediction, npartitions=2),
        files_duration=durations,
    )
    pd.testing.assert_frame_equal(stats, statistics(truth, prediction, files_duration=durations))


@MAY_WARN_DUPLICATES
def test_file_split_across_partitions(client):
    truth, prediction = random_frame(9), random_frame(10)
    truth = truth.sort_values("file").reset_index(drop=True)
    prediction = prediction.sort_values("file").reset_index(drop=True)
    # cut by row position, not by file: a file ends up in two partitions
    split_truth = dd.from_pandas(truth, npartitions=3, sort=False)
    split_prediction = dd.from_pandas(prediction, npartitions=3, sort=False)
    with pytest.raises(ValueError, match=r"split across partitions: 'f\d\d' in partitions \[\d, \d\]"):
        audeval.dask_statistics(audeval.event_statistics, split_truth, split_prediction)
    # indexed by file, but a file in two partitions
    dask = pytest.importorskip("dask")
    odd = truth["file"].str[-1].astype(int) % 2 == 1
    overlapping = dd.from_delayed(
        [dask.delayed(part.set_index("file")) for part in (truth[odd], truth[~odd])],
        meta=truth.set_index("file").iloc[:0],
    )
    with pytest.raises(ValueError, match="truth is indexed by file but its partitions overlap"):
        audeval.dask_statistics(audeval.event_statistics, overlapping, by_file(prediction, 2))
    with pytest.raises(ValueError, match="truth has 3 partitions and prediction 2"):
        audeval.dask_statistics(
            audeval.event_statistics, split_truth, dd.from_pandas(prediction, npartitions=2, sort=False)
        )


def test_input_errors(client):
    frame = random_frame(11)
    good = by_file(frame, 2)
    with pytest.raises(TypeError, match="truth must be a dask DataFrame or Series"):
        audeval.dask_statistics(audeval.event_statistics, frame, good)
    with pytest.raises(ValueError, match="prediction must have 'file' as its index or as a column"):
        audeval.dask_statistics(audeval.event_statistics, good, dd.from_pandas(frame.drop(columns="file"), npartitions=2))
    with pytest.raises(ValueError, match="only one of the columns 'start' and 'end'"):
        audeval.dask_statistics(audeval.event_statistics, good, by_file(frame.drop(columns="end"), 2))
    two = by_file(frame.assign(other=frame["label"]), 2)
    with pytest.raises(ValueError, match="one label column .* pass column="):
        audeval.dask_statistics(audeval.event_statistics, two, two)
    stats = audeval.dask_statistics(audeval.event_statistics, two, two, column="other")
    pd.testing.assert_frame_equal(stats, audeval.event_statistics(to_series(frame), to_series(frame)))
    with pytest.raises(TypeError, match="statistics must be a statistics function"):
        audeval.dask_statistics("event", good, good)
    # errors of the statistics function reach the caller
    with pytest.raises(ValueError, match="onset_tolerance, offset_tolerance and duration_tolerance are all None"):
        audeval.dask_statistics(
            audeval.event_statistics, good, good, onset_tolerance=None, offset_tolerance=None
        )


def test_missing_dask_names_the_extra(monkeypatch):
    from audeval._generic import dask as _dask

    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(ImportError, match=r"pip install 'audeval\[dask\]'"):
        _dask.import_dask()
    assert not _dask.is_dask_collection(pd.Series([1]))
