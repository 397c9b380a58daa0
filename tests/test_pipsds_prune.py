"""piPSDS with median filters computed exactly only where they can reach the PSD-ROC
(``audeval/_sed_scores/medfilt_floor.py``): the same values as filtering every frame."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import ndimage

import audeval
from audeval._sed_scores import medfilt, medfilt_floor, statistics

HOP = 0.05


def _data(seed: int, n_files: int = 120, n_frames: int = 80, classes=("a", "b", "c")):
    """Smoothed noisy scores that rise on the truth events; events in about a third of the files."""
    rng = np.random.default_rng(seed)
    files, starts, values, rows = [], [], [], []
    kernel = np.hanning(7) / np.hanning(7).sum()
    for i in range(n_files):
        active = np.zeros((n_frames, len(classes)))
        for c, label in enumerate(classes):
            if rng.random() < 0.35:
                first = int(rng.integers(0, n_frames - 10))
                last = int(min(n_frames, first + rng.integers(5, 40)))
                active[first:last, c] = 1.0
                rows.append((f"f{i:03d}", round(first * HOP, 6), round(last * HOP, 6), label))
        raw = 1.6 * active + rng.normal(0, 1, active.shape) - 1.1
        smooth = np.apply_along_axis(lambda x: np.convolve(x, kernel, mode="same"), 0, raw)
        values.append(np.round(1 / (1 + np.exp(-3 * smooth)), 6))
        files += [f"f{i:03d}"] * n_frames
        starts.append(np.arange(n_frames) * HOP)
    start = np.round(np.concatenate(starts) * 1e9).astype(np.int64)
    index = pd.MultiIndex.from_arrays(
        [np.array(files, dtype=object), pd.to_timedelta(start, unit="ns"),
         pd.to_timedelta(start + int(round(HOP * 1e9)), unit="ns")], names=["file", "start", "end"],
    )
    scores = pd.DataFrame(np.concatenate(values), index=index, columns=list(classes))
    frame = pd.DataFrame(rows, columns=["file", "start", "end", "label"])
    truth = pd.Series(frame["label"].to_numpy(), index=pd.MultiIndex.from_arrays(
        [frame["file"].to_numpy(dtype=object), pd.to_timedelta(frame["start"], unit="s"),
         pd.to_timedelta(frame["end"], unit="s")], names=["file", "start", "end"],
    ))
    durations = pd.Series(n_frames * HOP, index=[f"f{i:03d}" for i in range(n_files)])
    return truth, scores, durations


def _count_pruned(monkeypatch) -> list:
    """Per rule tried, its window size and whether the pruned scores were used."""
    calls = []
    original = medfilt._Layout.pruned

    def counted(self, k, lower, upper, *args):
        level = original(self, k, lower, upper, *args)
        calls.append((2 * k + 3 if lower else 2 * k + 1, level is not None))
        return level

    monkeypatch.setattr(medfilt._Layout, "pruned", counted)
    return calls


OPTIONS = [
    dict(compat="sed_scores_eval", alpha_st=1.0),
    dict(compat=None, alpha_st=0.0, dtc_threshold=0.5, gtc_threshold=0.5),
    dict(compat="sed_scores_eval", alpha_ct=0.5, cttc_threshold=0.3, alpha_st=1.0),
    dict(compat=None, max_efpr=50.0, alpha_st=0.5),
]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("options", OPTIONS)
def test_same_as_every_frame_filtered(monkeypatch, seed, options):
    truth, scores, durations = _data(seed)
    lengths = [0.0, 0.15, 0.35, 0.65, 0.6]  # 3, 7, 13 frames and 12 (an even multiple)
    arguments = dict(median_filter_lengths=lengths, files_duration=durations, **options)
    calls = _count_pruned(monkeypatch)
    value = audeval.pipsds(truth, scores, **arguments)
    roc = audeval.pi_psd_roc(truth, scores, **arguments)
    used = sorted({size for size, pruned in calls if pruned})
    assert used == [7, 13]  # the rank filters of more than 5 frames were pruned
    monkeypatch.setattr(statistics, "_below", lambda *args: None)  # every frame filtered
    assert audeval.pipsds(truth, scores, **arguments) == value
    pd.testing.assert_frame_equal(audeval.pi_psd_roc(truth, scores, **arguments), roc, check_exact=True)
    assert 0.0 < value < 1.0


def test_a_level_no_file_reaches_falls_back(monkeypatch):
    truth, scores, durations = _data(2)
    arguments = dict(median_filter_lengths=[0.0, 0.35, 0.65], files_duration=durations, alpha_st=1.0)
    value = audeval.pipsds(truth, scores, **arguments)
    original = medfilt.levels
    monkeypatch.setattr(medfilt, "levels", lambda *args: original(*args) + 10.0)  # beyond every score
    calls = _count_pruned(monkeypatch)
    assert audeval.pipsds(truth, scores, **arguments) == value
    assert calls == [(7, False), (13, False)]  # too few files reach the level: every frame filtered


def test_too_few_files_without_truth_filter_every_frame(monkeypatch):
    truth, scores, durations = _data(3, n_files=12)  # budget 100 / h * 38.4 s: 2 false positives
    arguments = dict(median_filter_lengths=[0.0, 0.35], files_duration=durations, max_efpr=1000.0)
    calls = _count_pruned(monkeypatch)  # 1000 / h: 11 > 12 files less those with truth
    value = audeval.pipsds(truth, scores, **arguments)
    assert all(not pruned for _, pruned in calls)
    monkeypatch.setattr(statistics, "_below", lambda *args: None)
    assert audeval.pipsds(truth, scores, **arguments) == value


@pytest.mark.parametrize("size", [7, 13, 35])
def test_pruned_rank_is_the_rank_filter_at_and_above_the_level(size):
    rng = np.random.default_rng(size)
    rows, width = 3, 400
    flat = np.round(rng.random(rows * width), 3)
    level = np.array([0.3, 0.5, 0.8])
    at, value, count = medfilt_floor.pruned_rank(flat, level, size // 2, size)
    out = np.repeat(np.nextafter(level, -np.inf), width)
    out[at] = value
    half = size // 2
    full = ndimage.rank_filter(flat, size // 2, size=size, mode="nearest")
    row_level = np.repeat(level, width)
    inner = np.zeros(len(flat), dtype=bool)
    inner.reshape(rows, width)[:, half : width - half] = True  # windows within their row
    exact = inner & (full >= row_level)
    assert np.array_equal(out[exact], full[exact])
    below = inner & ~exact
    assert below.any() and exact.any()
    assert (out[below] == np.nextafter(row_level, -np.inf)[below]).all()  # the largest float below
    assert np.array_equal(np.diff(count)[inner], exact[inner])  # the cumulative count of exact elements


def test_peaks_are_frames_of_their_file():
    rng = np.random.default_rng(5)
    values = np.asfortranarray(rng.random((103, 2)))
    starts, ends = np.array([0, 2, 3, 50]), np.array([1, 2, 49, 102])
    centre = medfilt_floor.peaks(medfilt_floor.block_sums(values), starts, ends, 9)
    assert centre.shape == (4, 2)
    assert ((centre >= starts[:, None]) & (centre <= ends[:, None])).all()


def test_run_changes_at_least_are_the_rows_at_or_above():
    from audeval._sed_scores import deltas

    rng = np.random.default_rng(7)
    for case in range(300):
        n, n_labels, n_files = int(rng.integers(1, 50)), int(rng.integers(1, 4)), int(rng.integers(1, 5))
        frame_file = np.sort(rng.integers(0, n_files, n))
        scores = np.asfortranarray(rng.integers(0, 5, (n, n_labels)) / 4.0)  # ties, plateaus
        if case % 4 == 0:
            scores = np.ascontiguousarray(scores)
        at_least = rng.integers(-1, 5, n_labels) / 4.0
        group, level, change = deltas.run_changes(scores, frame_file, n_files)
        keep = level >= at_least[group // n_files]
        got = deltas.run_changes(scores, frame_file, n_files, None, at_least)
        for expected, value in zip((group[keep], level[keep], change[keep]), got):
            assert np.array_equal(expected, value) and expected.dtype == value.dtype


def test_flatten_runs_at_a_floor_is_flatten_of_the_runs():
    from audeval._sed_scores import deltas

    rng = np.random.default_rng(8)
    for case in range(300):
        n, n_labels, n_files = int(rng.integers(1, 40)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
        frame_file = np.sort(rng.integers(0, n_files, n))
        scores = np.asfortranarray(rng.integers(0, 4, (n, n_labels)) / 4.0)
        keep = rng.random(n_labels * n_files) < 0.7
        floor = None if case % 3 == 0 else rng.integers(0, 4, n_labels) / 4.0
        values, group, first, last = deltas.flatten_runs(scores, frame_file, n_files, keep, floor)
        cells, cell_group, frame = deltas.flatten(scores, frame_file, n_files, keep, floor)
        if len(cells) == 0:
            assert len(values) == 0
            continue
        # a run: consecutive cells of one group with one value
        lead = np.flatnonzero(np.r_[True, (cell_group[1:] != cell_group[:-1]) | (frame[1:] != frame[:-1] + 1)
                                    | (cells[1:] != cells[:-1])])
        assert np.array_equal(values, cells[lead]) and np.array_equal(group, cell_group[lead])
        assert np.array_equal(first, frame[lead])
        assert np.array_equal(last, frame[np.append(lead[1:], len(frame)) - 1])
