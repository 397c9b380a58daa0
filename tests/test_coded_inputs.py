"""Coded inputs: a dask partition's columns handed to the validation gate as arrays (issue 32, item 3).

The gate reads a :class:`audeval._core.sides.Coded` input as it reads a Series' index,
with the same checks and the same messages (the offending rows shown with their file, start and end);
no pandas index is built unless a message or a family needs the Series.
"""

import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._core.sides import Coded
from audeval._core.validation import check_inputs
from audeval._generic.dask_partitions import to_coded, to_series

from conftest import MAY_WARN_DUPLICATES
from test_dask_arrays import LAYOUTS, frame, layout_parts


dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n_parts", [1, 3])
def test_coded_partitions_validate_as_their_series(layout, n_parts):
    parts = layout_parts(layout) if n_parts > 1 else layout_parts(layout)[0]
    coded = to_coded(parts, "truth")
    series = to_series(parts, "truth")
    assert isinstance(coded, Coded)
    assert len(coded) == len(series)
    durations = dict.fromkeys(series.index.get_level_values("file"), 20.0)
    a = check_inputs(coded, series, files_duration=durations)
    b = check_inputs(series, coded, files_duration=durations)
    assert list(a.files) == list(b.files) and a.labels == b.labels
    for x, y in ((a.truth, b.prediction), (a.prediction, b.truth), (a.truth, a.prediction)):
        for field in ("file", "start", "end", "label", "position"):
            np.testing.assert_array_equal(getattr(x, field), getattr(y, field))
    pd.testing.assert_series_equal(coded.series, series)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_columns_read_without_pandas_accessor_are_the_same(layout, monkeypatch):
    # the columns are read by pandas' own accessor of a column's values where it has one,
    # else as ``part[name].array``: both give the same coded input
    parts = layout_parts(layout)
    with_accessor = to_coded(parts, "truth")
    monkeypatch.setattr(pd.DataFrame, "_get_column_array", None, raising=False)
    without = to_coded(parts, "truth")
    pd.testing.assert_index_equal(with_accessor.files, without.files)
    for field in ("file_codes", "start", "end"):
        np.testing.assert_array_equal(getattr(with_accessor, field), getattr(without, field))
    pd.testing.assert_extension_array_equal(pd.array(with_accessor.labels), pd.array(without.labels))
    assert with_accessor.labels.dtype == without.labels.dtype


def test_file_names_as_pandas_default_strings():
    pa = pytest.importorskip("pyarrow")
    from audeval._generic.dask_partitions import _DEFAULT_STRINGS, _names_index

    names = pa.array(["f1", "f10", "f2"])
    expected = pd.Index(["f1", "f10", "f2"], name="file")  # (pandas' default strings)
    pd.testing.assert_index_equal(_names_index(names), expected, exact=True)
    if isinstance(_DEFAULT_STRINGS, pd.StringDtype):
        from audeval._generic.dask_partitions import _arrow_strings

        pd.testing.assert_extension_array_equal(
            _arrow_strings(pa.array(["a", None])), pd.array(pa.array(["a", None]), dtype=_DEFAULT_STRINGS)
        )


def test_files_known_sorted_only_from_sorted_runs():
    # partitions in file order are coded by their runs: their names are unique and sorted,
    # and the gate does not check them again; other partitions are factorised and checked
    pytest.importorskip("pyarrow")
    sorted_files = to_coded(layout_parts("sorted files"), "truth")
    assert sorted_files.increasing
    assert sorted_files.files.is_unique and sorted_files.files.is_monotonic_increasing
    # (and each used by a row: the gate takes the level whole, without counting its rows)
    assert (np.bincount(sorted_files.file_codes, minlength=len(sorted_files.files)) > 0).all()
    series = sorted_files.series
    a, b = check_inputs(sorted_files, sorted_files), check_inputs(series, series)
    assert list(a.files) == list(b.files)
    for field in ("file", "start", "end", "label", "position"):
        np.testing.assert_array_equal(getattr(a.truth, field), getattr(b.truth, field))
    unsorted = frame(0).set_index("file")  # (rows not in file order)
    assert not to_coded(unsorted, "truth").increasing
    assert not to_coded(layout_parts("objects"), "truth").increasing


@pytest.mark.parametrize("same_files", [True, False])
def test_prediction_shares_the_truth_file_index(same_files):
    # both sides of a pair in file order with the same files: one file Index for both
    # (the gate finds them equal at once); other files: the prediction's own, and the same gate arrays
    pytest.importorskip("pyarrow")
    truth_parts = layout_parts("sorted files")
    prediction_parts = [part.assign(label=part["label"].iloc[::-1].array) for part in truth_parts]
    if not same_files:
        prediction_parts[0] = prediction_parts[0].drop(index=prediction_parts[0].index[0])  # (its first file)
    truth = to_coded(truth_parts, "truth")
    shared = to_coded(prediction_parts, "prediction", like=truth)
    alone = to_coded(prediction_parts, "prediction")
    assert (shared.files is truth.files) == same_files
    assert shared.increasing and alone.increasing
    a, b = check_inputs(truth, shared), check_inputs(truth, alone)
    assert list(a.files) == list(b.files)
    for x, y in ((a.truth, b.truth), (a.prediction, b.prediction)):
        for field in ("file", "start", "end", "label", "position"):
            np.testing.assert_array_equal(getattr(x, field), getattr(y, field))


@pytest.mark.parametrize("increasing", [False, True])
def test_file_union_of_equal_levels_known_sorted(increasing, monkeypatch):
    # equal levels known to be sorted are taken as they are, their order not checked again
    from audeval._core import file_levels

    checked = []
    original = file_levels.strictly_increasing
    monkeypatch.setattr(file_levels, "strictly_increasing", lambda index: checked.append(1) or original(index))
    level = pd.Index(["a", "b", "c"], name="file")
    files, positions = file_levels.file_union([level, level.copy()], increasing=increasing)
    pd.testing.assert_index_equal(files, level)
    np.testing.assert_array_equal(positions[1], [0, 1, 2])
    assert checked == ([] if increasing else [1])
    files, positions = file_levels.file_union([pd.Index(["b", "a"]), pd.Index(["b", "a"])])  # (not sorted: merged)
    assert list(files) == ["a", "b"] and list(positions[0]) == [1, 0]


def test_coded_times_are_not_views_of_the_partition():
    part = frame(0).set_index("file")
    before = part.copy()
    coded = to_coded(part, "truth")
    coded.start[:] = 0
    coded.end[:] = 0
    pd.testing.assert_frame_equal(part, before)


def test_filewise_partitions_stay_series():
    part = pd.Series(["a", "b"], index=pd.Index(["f1", "f2"], name="file"), name="label")
    assert isinstance(to_coded(part, "truth"), pd.Series)


def _bad(case: str) -> pd.DataFrame:
    table = frame(1, n_files=3, rows=12).sort_values("file", kind="stable").reset_index(drop=True)
    if case == "negative start":
        table.loc[4, "start"] = pd.Timedelta(-1, unit="s")
    elif case == "NaT start":
        table.loc[4, "start"] = pd.NaT
    elif case == "end before start":
        table.loc[4, "end"] = table.loc[4, "start"] - pd.Timedelta(1, unit="s")
    elif case == "missing label":
        table["label"] = table["label"].astype(object)
        table.loc[4, "label"] = None
    elif case == "unhashable label":
        table["label"] = table["label"].astype(object)
        table.at[4, "label"] = ["a"]
    return table


@pytest.mark.parametrize("case", ["negative start", "NaT start", "end before start", "missing label"])
@pytest.mark.parametrize("npartitions", [1, 2])
def test_bad_rows_raise_as_in_the_direct_call(case, npartitions):
    """The same error, naming the side and showing the rows with their file, start and end."""
    table = _bad(case)
    good = frame(2, n_files=3, rows=12)
    series = pd.Series(table["label"].array, index=pd.MultiIndex.from_frame(table[["file", "start", "end"]]))
    good_series = pd.Series(good["label"].array, index=pd.MultiIndex.from_frame(good[["file", "start", "end"]]))
    with pytest.raises(ValueError) as direct:
        audeval.event_statistics(good_series, series, onset_tolerance=0.5)
    truth = dd.from_pandas(good.set_index("file").sort_index(), npartitions=1)
    prediction = dd.from_pandas(table.set_index("file"), npartitions=npartitions)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError) as partitioned:
        audeval.dask_statistics(audeval.event_statistics, truth, prediction, onset_tolerance=0.5)
    message, shown = str(direct.value).split("first:")
    assert str(partitioned.value).startswith(message)
    # the same rows with their file, start and end (dask's strings show a missing label as <NA>)
    for line in shown.strip().splitlines()[1:]:
        assert line.rsplit(maxsplit=1)[0] in str(partitioned.value)


def test_unhashable_labels_show_their_rows():
    table = _bad("unhashable label").set_index("file")
    good = frame(2, n_files=3, rows=12).set_index("file")
    with pytest.raises(TypeError, match=r"(?s)prediction has unhashable labels .*first:.*f001 +0 days"):
        check_inputs(to_series(good, "truth"), to_coded(table, "prediction"))


hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

ROWS = st.lists(
    st.tuples(
        st.integers(0, 4),  # file
        st.integers(0, 3_000),  # start, ms
        st.one_of(st.integers(0, 1_500), st.none()),  # length, ms (None: open end)
        st.sampled_from(["a", "b", "c"]),
    ),
    min_size=1,
    max_size=40,
)


def _frame(rows, categorical: bool, seconds: bool) -> pd.DataFrame:
    file, start, length, label = zip(*rows)
    start = np.array(start, dtype=np.int64)
    end = np.array([np.nan if n is None else s + n for s, n in zip(start, length)]) / 1e3
    table = pd.DataFrame({"file": [f"f{k}" for k in file], "start": start / 1e3, "end": end, "label": label})
    if not seconds:
        table["start"] = pd.to_timedelta(table["start"], unit="s")
        table["end"] = pd.to_timedelta(table["end"], unit="s")
    if categorical:
        table["label"] = pd.Categorical(table["label"], categories=["c", "a", "b"])
    return table.sort_values("file", kind="stable").set_index("file")


@MAY_WARN_DUPLICATES
@pytest.mark.filterwarnings("ignore::audeval.NoSharedFileWarning")  # (random files: maybe none shared)
@pytest.mark.filterwarnings("ignore::audeval.FilesWithoutRowsWarning")  # (durations of all five files)
@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(
    truth=ROWS, prediction=ROWS, categorical=st.booleans(), seconds=st.booleans(),
    cuts=st.lists(st.integers(1, 4), max_size=3, unique=True),
)
def test_property_partitions_coded_as_arrays_equal_their_series(truth, prediction, categorical, seconds, cuts):
    """Any partitions by file (cut between files), any label and time dtypes:
    the gate reads the coded arrays as the Series of the same rows, and the statistics agree."""
    durations = {f"f{k}": 5.0 for k in range(5)}
    sides = []
    for rows in (truth, prediction):
        table = _frame(rows, categorical, seconds)
        bounds = [f"f{k}" for k in sorted(cuts)]
        parts = [table[(table.index >= low) & (table.index < high)]
                 for low, high in zip(["f"] + bounds, bounds + ["g"])]
        sides.append((parts, pd.concat(parts)))
    (t_parts, t_all), (p_parts, p_all) = sides
    coded = to_coded(t_parts, "truth"), to_coded(p_parts, "prediction")
    series = to_series(t_all, "truth"), to_series(p_all, "prediction")
    a = check_inputs(*coded, files_duration=durations)
    b = check_inputs(*series, files_duration=durations)
    assert list(a.files) == list(b.files) and a.labels == b.labels
    for x, y in ((a.truth, b.truth), (a.prediction, b.prediction)):
        for field in ("file", "start", "end", "label", "position"):
            np.testing.assert_array_equal(getattr(x, field), getattr(y, field))
    for statistics, options in (
        (audeval.event_statistics, {"onset_tolerance": 0.2, "files_duration": durations}),
        (audeval.segment_statistics, {"time_resolution": 0.5, "files_duration": durations}),
    ):
        pd.testing.assert_frame_equal(statistics(*coded, **options), statistics(*series, **options))


@pytest.mark.parametrize(
    "index",
    [
        pd.Index(["start", "end", "label"]),
        pd.Index(["a", None], dtype="string[pyarrow]"),
        pd.Index(["a", "b"], dtype="string[python]"),
        pd.Index(["a", 1], dtype=object),
        pd.RangeIndex(3),
    ],
    ids=["default strings", "arrow with a missing name", "python strings", "objects", "range"],
)
def test_column_names_listed_as_pandas_lists_them(index):
    from audeval._generic.dask_partitions import entries

    listed = entries(index)
    assert listed == index.tolist()
    assert [type(name) for name in listed] == [type(name) for name in index.tolist()]
