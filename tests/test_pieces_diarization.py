"""Differential tests: the diarization families on the piece engine against their old sweeps.

The old sweeps (``_counts_sweep``, ``_sweep_merged``, ``_sweep_pieces``, ``_sweep_rows``,
``mask_sweep`` of ``audeval/_diarization/masks.py``, ``_overlap_regions``, the speaker-change
pieces and the detection table) are kept in ``tests/assets/pieces/old_diarization_sweeps.py``;
the package now runs :func:`audeval._core.sweep_sides.two_sides` (bit masks of :mod:`audeval._core.sweep_masks`
where they fit, else interval pairs or pieces) and :func:`audeval._core.sweep.cut`. Exact int64 equality of the per-file components, the co-occurrence and its
columns and the speaking times, on polyphonic, self-overlapping, zero-length, empty-file and
many-speaker inputs (more than 62 bits: the mask strategy gives way to the pairs of
overlapping intervals of :mod:`audeval._core.sweep_pairs`, or to the pieces where every row counts).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest

from audeval._core.sweep_sides import two_sides
from audeval._core import sweep_masks as _pieces_masks
from audeval._diarization import statistics as _statistics
from audeval._core.sweep_pairs import merge_channels
from audeval._core.validation import NAT, Inputs, Segments


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


OLD = _load(
    "old_diarization_sweeps",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "pieces", "old_diarization_sweeps.py"),
)


# -------------------------------------------------------------------------
# Inputs: (file, label, start, end) of few files; polyphonic, self-overlapping,
# zero length, files without rows, optionally many labels
# -------------------------------------------------------------------------


@st.composite
def side(draw, n_files: int, n_labels: int, max_rows: int = 14):
    n = draw(st.integers(0, max_rows))
    ints = lambda low, high: np.array(draw(st.lists(st.integers(low, high), min_size=n, max_size=n)), np.int64)  # noqa: E731
    file, label = ints(0, n_files - 1), ints(0, n_labels - 1)
    start, length = ints(0, 40), ints(0, 15)  # zero lengths included
    return file, label, start, start + length


@st.composite
def inputs(draw, many: bool = False):
    n_files = draw(st.integers(1, 4))  # some files get no row
    n_labels = draw(st.integers(65, 80) if many else st.integers(1, 5))
    truth = draw(side(n_files, n_labels, 90 if many else 14))
    prediction = draw(side(n_files, n_labels, 90 if many else 14))
    return n_files, n_labels, truth, prediction


def many_labels(seed: int, n_files: int = 2, n_labels: int = 70, n_rows: int = 200):
    """More than 64 labels per file on each side: more bits than an int64 mask holds."""
    rng = np.random.default_rng(seed)

    def one():
        file = rng.integers(0, n_files, n_rows)
        label = np.arange(n_rows) % n_labels
        start = rng.integers(0, 500, n_rows)
        return file, label, start, start + rng.integers(0, 60, n_rows)

    return n_files, n_labels, one(), one()


def positive(rows):
    keep = rows[3] > rows[2]
    return tuple(x[keep] for x in rows)


def assert_same(new, old):
    """Every array of a sweep's result equal, int64."""
    per_file, cooc, pair, truth_time, prediction_time = new
    old_per_file, old_cooc, old_pair, old_truth, old_prediction = old
    assert list(per_file) == list(old_per_file)
    for name in old_per_file:
        np.testing.assert_array_equal(per_file[name], old_per_file[name], err_msg=name)
        assert per_file[name].dtype == np.int64, name
    assert list(pair) == list(old_pair)
    for got, want in zip((*cooc, *pair.values(), *truth_time, *prediction_time),
                         (*old_cooc, *old_pair.values(), *old_truth, *old_prediction)):
        np.testing.assert_array_equal(got, want)
        assert np.asarray(got).dtype == np.int64


def old_rows(n_files, n_labels, truth, prediction, overlap=True):
    """The old merged-label sweep (bit masks, else pairs of overlapping intervals)."""
    return OLD._sweep_rows((n_files, n_labels, n_labels), truth, prediction, overlap)


def old_pieces(n_files, n_labels, truth, prediction):
    """The old compat="pyannote" sweep (every row counted) and its speaking times."""
    per_file, cooc, pair = OLD._sweep_pieces(n_files, n_labels, truth, prediction)
    return per_file, cooc, pair, OLD._speaker_time(n_files, n_labels, truth), OLD._speaker_time(
        n_files, n_labels, prediction
    )


def sorted_rows(rows):
    order = np.lexsort((rows[3], rows[2], rows[1], rows[0]))
    return tuple(x[order] for x in rows)


def check_sweeps(n_files, n_labels, truth, prediction):
    truth, prediction = sorted_rows(positive(truth)), sorted_rows(positive(prediction))
    sizes = (n_files, n_labels, n_labels)
    for overlap in (True, False):
        assert_same(_statistics._sweep(sizes, truth, prediction, overlap=overlap),
                    old_rows(n_files, n_labels, truth, prediction, overlap))
    # merged first, as the package does where the region needs merged truth
    merged = [merge_channels(n_files, n_labels, rows) for rows in (truth, prediction)]
    for rows, new in zip((truth, prediction), merged):  # the union per label, as _region's was
        for got, want in zip(new, OLD._merge_labels_arrays(n_files, n_labels, *rows)):
            np.testing.assert_array_equal(got, want)
            assert got.dtype == np.int64
    assert_same(_statistics._sweep(sizes, *merged), old_rows(n_files, n_labels, *merged))
    assert_same(_statistics._sweep(sizes, truth, prediction, matched=True, distinct=False),
                old_pieces(n_files, n_labels, truth, prediction))


@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(inputs())
def test_sweeps_match_old(data):
    check_sweeps(*data)


@hypothesis.settings(max_examples=8, deadline=None)
@hypothesis.given(inputs(many=True))
def test_sweeps_match_old_with_many_labels(data):
    check_sweeps(*data)


@pytest.mark.parametrize("seed", [0, 1])
def test_more_than_64_labels_match_old(seed):
    n_files, n_labels, truth, prediction = many_labels(seed)
    assert _pieces_masks.mask_sums(
        n_files, n_labels, n_labels, positive(truth), positive(prediction), _statistics._components, {}
    ) is None  # more bits than one int64 holds: the pieces
    check_sweeps(n_files, n_labels, truth, prediction)


@hypothesis.settings(max_examples=30, deadline=None)
@hypothesis.given(inputs(), st.sampled_from(["pairs", "rows", "local", "blocks"]))
def test_every_strategy_matches_old(data, path):
    """The mask strategy's paths and the interval pairs, forced, against the old merged sweep."""
    n_files, n_labels, truth, prediction = data
    truth, prediction = (
        merge_channels(n_files, n_labels, positive(rows)) for rows in (truth, prediction)
    )
    expected = old_rows(n_files, n_labels, truth, prediction)
    with pytest.MonkeyPatch.context() as patch:
        if path == "pairs":  # no bit masks: each label merged, pairs of overlapping intervals
            patch.setattr(_pieces_masks, "MAX_BITS", 0)
        elif path == "rows":  # no dense grid: (file, mask) rows and ranks in file
            patch.setattr(_pieces_masks, "_DENSE", 0)
            patch.setattr(_pieces_masks, "_BINS_PER_EVENT", 0)
        elif path == "local":
            patch.setattr(_pieces_masks, "_DENSE", max((n_files << (2 * n_labels)) - 1, 0))
            patch.setattr(_pieces_masks, "_BINS_PER_EVENT", 0)
        else:  # the dense grid one file at a time
            patch.setattr(_pieces_masks, "_BLOCK", 1)
        result = _statistics._sweep((n_files, n_labels, n_labels), truth, prediction)
    assert_same(result, expected)


@hypothesis.settings(max_examples=20, deadline=None)
@hypothesis.given(inputs())
def test_pieces_strategy_matches_old(data):
    """Every row counted (compat="pyannote") without bit masks: the pieces."""
    n_files, n_labels, truth, prediction = data
    truth, prediction = sorted_rows(positive(truth)), sorted_rows(positive(prediction))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_pieces_masks, "MAX_BITS", 0)
        result = _statistics._sweep((n_files, n_labels, n_labels), truth, prediction, matched=True, distinct=False)
    assert_same(result, old_pieces(n_files, n_labels, truth, prediction))


# -------------------------------------------------------------------------
# The whole table: scored region, collars, overlap, UEM-free, compat
# -------------------------------------------------------------------------


def validated(n_files, n_labels, truth, prediction, durations):
    sides = [Segments(f, s, e, lab, np.arange(len(f))) for f, lab, s, e in (truth, prediction)]
    files = pd.Index([f"f{k}" for k in range(n_files)], name="file")
    return Inputs(sides[0], sides[1], files, list(range(n_labels)), durations)


OPTIONS = [
    dict(collar=0, skip_overlap=False),
    dict(collar=3, skip_overlap=False),
    dict(collar=2, skip_overlap=True, collar_convention="per_side"),
    dict(collar=0, skip_overlap=True),
    dict(collar=0, skip_overlap=False, compat="pyannote"),
    dict(collar=2, skip_overlap=True, compat="pyannote"),
]


def assert_same_table(new, old):
    for field in dataclasses.fields(old):
        a, b = getattr(new, field.name), getattr(old, field.name)
        if isinstance(b, dict):
            assert list(a) == list(b), field.name
            a, b = list(a.values()), list(b.values())
        if isinstance(b, (tuple, list)) and len(b) and isinstance(b[0], np.ndarray):
            assert len(a) == len(b), field.name
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x, y, err_msg=field.name)
                assert x.dtype == y.dtype, field.name
        elif isinstance(b, pd.Index):
            assert a.equals(b)
        else:
            assert a == b, field.name


@hypothesis.settings(max_examples=25, deadline=None)
@hypothesis.given(inputs(), st.sampled_from(OPTIONS), st.booleans())
def test_diarization_arrays_match_old(data, options, known):
    n_files, n_labels, truth, prediction = data
    durations = np.full(n_files, 60 if known else NAT, dtype=np.int64)
    inputs_ = validated(n_files, n_labels, truth, prediction, durations)
    with pytest.MonkeyPatch.context() as patch:  # unknown durations warn (the same both ways)
        patch.setattr("audeval._diarization.region.warn", lambda *a, **k: None)
        new = _statistics._diarization_arrays(inputs_, **options)
        old = OLD._diarization_arrays(inputs_, **options)
    assert_same_table(new, old)


@pytest.mark.parametrize("options", OPTIONS[:3] + OPTIONS[4:5])
def test_diarization_arrays_with_many_labels_match_old(options):
    n_files, n_labels, truth, prediction = many_labels(5)
    inputs_ = validated(n_files, n_labels, truth, prediction, np.full(n_files, 600, dtype=np.int64))
    assert_same_table(
        _statistics._diarization_arrays(inputs_, **options), OLD._diarization_arrays(inputs_, **options)
    )


def test_two_sides_hand_computed_and_empty():
    # truth: label 0 [0, 4) and [1, 4) (overlapping itself), label 1 [2, 6); prediction: 0 [1, 5);
    # pieces [0, 1) [1, 2) [2, 4) [4, 5) [5, 6) with 1, 2, 3, 1, 1 truth rows (1, 1, 2, 1, 1 labels)
    truth = tuple(np.array(x, np.int64) for x in ([0, 0, 0], [0, 0, 1], [0, 1, 2], [4, 4, 6]))
    prediction = tuple(np.array(x, np.int64) for x in ([0], [0], [1], [5]))

    def columns(n_t, n_p):
        return {"total": n_t, "miss": np.maximum(n_t - n_p, 0)}

    pair = {"time": ("product", None), "min": ("min", None)}
    counted = two_sides(2, truth, prediction, 2, 1, columns=columns, pair=pair)
    once = two_sides(2, truth, prediction, 2, 1, columns=columns, pair=pair, distinct=True)
    assert counted.columns["total"].tolist() == [4 + 3 + 4, 0]  # file 1 empty
    assert once.columns["total"].tolist() == [4 + 4, 0]
    assert counted.columns["miss"].tolist() == [1 + 1 + 2 * 2 + 0 + 1, 0]
    assert once.columns["miss"].tolist() == [1 + 0 + 1 * 2 + 0 + 1, 0]
    assert [x.tolist() for x in counted.pairs] == [[0, 0], [0, 1], [0, 0]]
    assert counted.pair["time"].tolist() == [2 * 1 + 2 * 2, 3] and counted.pair["min"].tolist() == [3, 3]
    assert once.pair["time"].tolist() == [3, 3] and once.pair["min"].tolist() == [3, 3]
    assert [x.tolist() for x in counted.left] == [[0, 0], [0, 1], [7, 4]]
    assert [x.tolist() for x in once.left] == [[0, 0], [0, 1], [4, 4]]
    empty = tuple(np.zeros(0, np.int64) for _ in range(4))
    nothing = two_sides(3, empty, empty, 2, 2, columns=columns, pair=pair)
    assert nothing.columns["total"].tolist() == [0, 0, 0]
    assert all(len(x) == 0 for x in (*nothing.pairs, *nothing.left, *nothing.right, *nothing.pair.values()))


# -------------------------------------------------------------------------
# Scored regions (overlap), speaker-change pieces and detection on the engine
# -------------------------------------------------------------------------


@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(inputs())
def test_overlap_regions_and_boundary_pieces_match_old(data):
    from audeval._diarization.region import _overlap_regions
    from audeval._diarization.segmentation import _pieces as boundary_pieces

    n_files, n_labels, truth, prediction = data
    for rows in (truth, prediction):
        for got, want in zip(_overlap_regions(n_files, rows), OLD._overlap_regions(n_files, rows)):
            np.testing.assert_array_equal(got, want)
            assert got.dtype == np.int64
        file, time = np.r_[rows[0], rows[0]], np.r_[rows[2], rows[3]]
        new = boundary_pieces(n_files, rows[0], rows[2], rows[3])
        for got, want in zip(new, OLD._boundary_pieces(n_files, file, time)):
            np.testing.assert_array_equal(got, want)
            assert got.dtype == np.int64


@hypothesis.settings(max_examples=30, deadline=None)
@hypothesis.given(inputs(), st.sampled_from(OPTIONS))
def test_detection_table_matches_old(data, options):
    from audeval._diarization.detection import _detection_table

    n_files, n_labels, truth, prediction = data
    inputs_ = validated(n_files, n_labels, truth, prediction, np.full(n_files, 60, dtype=np.int64))
    args = (inputs_, options["collar"], options["skip_overlap"], options.get("collar_convention", "total"), None,
            options.get("compat"))
    new, old = _detection_table(*args), OLD._detection_table(*args)
    assert list(new) == list(old)
    for name in old:
        np.testing.assert_array_equal(new[name], old[name], err_msg=name)
        assert new[name].dtype == np.int64
