"""Diarization: the bit-mask strategy of the piece engine against the sweep over pairs of overlapping intervals.

Every path of ``audeval._core.sweep_masks.mask_sums`` (dense grid in blocks of files, rows, local bits,
keys too wide to pack, a label overlapping itself), as the diarization sweep
(``audeval._diarization.statistics._sweep``) runs it, gives the same statistics as the
former pairwise sweep on merged labels (kept in ``tests/assets/pieces/old_diarization_sweeps.py``);
with more than 62 labels in a file the engine takes the pieces.
"""

import importlib.util
import os

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._core import sweep_masks as _masks
from audeval._core.sweep_pairs import merge_channels
from audeval._diarization.statistics import _components, _sweep

from conftest import series

_spec = importlib.util.spec_from_file_location(
    "old_diarization_sweeps",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "pieces", "old_diarization_sweeps.py"),
)
OLD = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(OLD)


def mask_sums(n_files, n_t, n_p, truth, prediction):
    """The mask strategy with the diarization components and the overlap column."""
    return _masks.mask_sums(n_files, n_t, n_p, truth, prediction, _components, {"duration": None})


def rows(rng, n_files, n_rows, n_labels, scale, self_overlap):
    """(file, label, start, end) int64 rows of positive length, unsorted."""
    file = rng.integers(0, n_files, n_rows)
    label = rng.integers(0, n_labels, n_rows)
    start = rng.integers(0, scale, n_rows)
    end = start + rng.integers(1, max(scale // 4, 2), n_rows)
    if not self_overlap:  # one label's rows apart: merge them first
        return merge_channels(n_files, n_labels, (file, label, start, end))
    return file, label, start, end


def reference(n_files, n_t, n_p, truth, prediction):
    n = max(n_t, n_p, 1)
    truth = merge_channels(n_files, n, truth)
    prediction = merge_channels(n_files, n, prediction)
    per_file, cooccurrence, pair = OLD._sweep_merged(n_files, n, truth, prediction)
    return per_file, cooccurrence, pair, OLD._speaker_time(n_files, n, truth), OLD._speaker_time(
        n_files, n, prediction
    )


def assert_same(result, expected):
    assert result is not None
    per_file, cooccurrence, pair, truth_time, prediction_time = result
    for name, values in expected[0].items():
        np.testing.assert_array_equal(per_file[name], values, err_msg=name)
    for got, want in zip(cooccurrence, expected[1]):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(pair["duration_overlap"], expected[2]["duration_overlap"])
    for got, want in zip(truth_time + prediction_time, expected[3] + expected[4]):
        np.testing.assert_array_equal(got, want)


def sweep(n_files, n_t, n_p, truth, prediction):
    """The diarization sweep (masks, or pieces where a label overlaps itself: each label once)."""
    return _sweep((n_files, n_t, n_p), truth, prediction)


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    seed=st.integers(0, 2**32 - 1),
    n_files=st.integers(1, 6),
    n_t=st.integers(1, 6),
    n_p=st.integers(1, 6),
    scale=st.sampled_from([20, 10**6, 10**15, 2**54]),
    self_overlap=st.booleans(),
    path=st.sampled_from(["grid", "rows", "local", "blocks"]),  # scale 2**54: rows, keys sorted apart
)
def test_mask_sweep_equals_pairwise_sweep(seed, n_files, n_t, n_p, scale, self_overlap, path):
    rng = np.random.default_rng(seed)
    truth = rows(rng, n_files, int(rng.integers(0, 30)), n_t, scale, self_overlap)
    prediction = rows(rng, n_files, int(rng.integers(0, 30)), n_p, scale, self_overlap)
    with pytest.MonkeyPatch.context() as patch:
        if path == "rows":
            patch.setattr(_masks, "_DENSE", 0)  # no dense grid: rows (and ranks in file)
            patch.setattr(_masks, "_BINS_PER_EVENT", 0)
        elif path == "local":  # codes need too large a grid: ranks in file (grid if they need less)
            patch.setattr(_masks, "_DENSE", (n_files << (n_t + n_p)) - 1)
            patch.setattr(_masks, "_BINS_PER_EVENT", 0)
        elif path == "blocks":  # the dense grid one file at a time (issue 32: no step to a sort)
            patch.setattr(_masks, "_BLOCK", 1)
        result = sweep(n_files, n_t, n_p, truth, prediction)
    assert_same(result, reference(n_files, n_t, n_p, truth, prediction))


def test_self_overlap_is_reported_not_miscounted():
    # label 0 twice at once in [5, 10): its bit would carry into label 1's
    truth = tuple(np.array(x, dtype=np.int64) for x in ([0, 0], [0, 0], [0, 5], [10, 15]))
    prediction = tuple(np.array(x, dtype=np.int64) for x in ([0], [0], [0], [15]))
    assert mask_sums(1, 2, 1, truth, prediction) is None
    assert_same(sweep(1, 2, 1, truth, prediction), reference(1, 2, 1, truth, prediction))


def test_keys_too_wide_to_pack_are_sorted_apart():
    # 2 files, times up to 2**61 ns: (file, time) keys leave no bits for the event codes
    t = tuple(np.array(x, dtype=np.int64) for x in ([0, 1], [0, 1], [0, 2**60], [2**61, 2**60 + 5]))
    p = tuple(np.array(x, dtype=np.int64) for x in ([0, 1], [1, 0], [2**59, 2**60 + 1], [2**61, 2**60 + 9]))
    assert_same(sweep(2, 2, 2, t, p), reference(2, 2, 2, t, p))


def test_more_than_62_labels_in_a_file_use_the_pieces():
    n = 40  # 40 truth and 40 predicted speakers in one file: 80 bits
    start = np.arange(n) * 10
    truth = series([("f", s, s + 15, f"t{k:02d}") for k, s in enumerate(start)])
    prediction = series([("f", s + 1, s + 14, k) for k, s in enumerate(start)])
    assert mask_sums(1, n, n, *[
        (np.zeros(n, np.int64), np.arange(n), start * 10**9, (start + 15) * 10**9)
    ] * 2) is None
    der = audeval.diarization_error_rate(truth, prediction, files_duration={"f": 500})
    # per speaker: 2 s missed (1 s each side), overlap of neighbours scored twice in total
    total = n * 15
    assert der == pytest.approx(2 * n / total, abs=1e-12)


@pytest.mark.filterwarnings("ignore::audeval.FilesWithoutRowsWarning")  # random files: some have no rows
def test_many_files_and_labels_agree_with_the_table_path():
    rng = np.random.default_rng(7)
    records = []
    for side, names in (("t", [f"spk{k}" for k in range(30)]), ("p", list(range(30)))):
        n = 600
        file = rng.integers(0, 200, n)
        start = rng.uniform(0, 100, n).round(3)
        label = rng.choice(len(names), n)
        records.append(series([
            (f"f{f:03d}", s, s + rng.uniform(0.1, 5), names[k]) for f, s, k in zip(file, start, label)
        ]))
    truth, prediction = records
    durations = pd.Series(200.0, index=pd.Index([f"f{k:03d}" for k in range(200)], name="file"))
    stats = audeval.diarization_statistics(truth, prediction, files_duration=durations)
    direct = audeval.diarization_error_rate(truth, prediction, files_duration=durations)
    assert audeval.diarization_error_rate(stats) == direct


@pytest.mark.parametrize("size", [5, 10**7])  # a presence grid, or a sort where the range is wide
def test_distinct_keys_equal_np_unique(size):
    key = np.random.default_rng(3).integers(0, 5, 50) * (size // 5)
    unique, inverse = _masks._distinct(key, size)
    expected, expected_inverse = np.unique(key, return_inverse=True)
    np.testing.assert_array_equal(unique, expected)
    np.testing.assert_array_equal(inverse, expected_inverse)


def test_many_files_take_the_grid_in_blocks_as_few_files_do(monkeypatch):
    """Issue 32: above ~4,096 files the sweep stepped from the dense grid to a sort
    (1.3x-1.35x growth per file); now the grid is built in blocks of files at any size.
    The same statistics, bit for bit, with one file per block, every file in one block,
    and the sort path."""
    rng = np.random.default_rng(11)
    n_files, n_t, n_p = 40, 4, 5
    truth = rows(rng, n_files, 400, n_t, 10**9, False)
    prediction = rows(rng, n_files, 400, n_p, 10**9, False)
    grids = []
    original = _masks._grid_blocks
    monkeypatch.setattr(_masks, "_grid_blocks", lambda *a: grids.append(a[0]) or original(*a))
    blocks = sweep(n_files, n_t, n_p, truth, prediction)
    assert grids == [n_files]
    monkeypatch.setattr(_masks, "_BLOCK", 1)  # one file per block
    one_per_block = sweep(n_files, n_t, n_p, truth, prediction)
    monkeypatch.setattr(_masks, "_DENSE", 0)
    monkeypatch.setattr(_masks, "_BINS_PER_EVENT", 0)  # the sort path
    rows_path = sweep(n_files, n_t, n_p, truth, prediction)
    assert len(grids) == 2
    expected = reference(n_files, n_t, n_p, truth, prediction)
    for result in (blocks, one_per_block, rows_path):
        assert_same(result, expected)


def test_popcount_table_counts_bits():
    values = np.array([0, 1, 2, 3, 2**40 + 7, 2**62 - 1, 2**63 - 1], dtype=np.int64)
    expected = [bin(int(v)).count("1") for v in values]
    np.testing.assert_array_equal(_masks._popcount_table(values), expected)
    np.testing.assert_array_equal(_masks.popcount(values), expected)
