"""Differential tests of the elementary-piece engine (``audeval._core.sweep``).

The engine against the sweeps it replaces, kept as references
(the former ``audeval._sweep`` in ``tests/assets/agreement/reference/sweep_old.py``,
the diarization sweep with multiplicity and structure's contingency in ``tests/assets/pieces/``), with exact int64 equality,
on polyphonic, zero-length, NaT-end and empty-file inputs.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pytest

from audeval._core import sweep as _pieces
from audeval._structure import frames as _frames
from audeval._structure.prepare import Pieces as StructurePieces
from audeval._diarization.sets import _set_sweep
from audeval._diarization.statistics import _sweep as _diarization_sweep
from audeval._core.sweep import NAT


REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "agreement", "reference")


def _load(name):
    return _load_path(name, os.path.join(REFERENCE, f"{name}.py"))


def _load_path(name, path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_sweep = _load("sweep_old")  # the former audeval._sweep
PIECES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "pieces")
contingency_old = _load_path("contingency_old", os.path.join(PIECES, "contingency_old.py"))
set_sweep_old = _load_path("set_sweep_old", os.path.join(PIECES, "set_sweep_old.py"))
diarization_sweep = _load_path("diarization_sweep_old", os.path.join(PIECES, "diarization_sweep_old.py"))._sweep


# -------------------------------------------------------------------------
# Inputs: intervals of a few files, polyphonic, zero length, open ends, empty files
# -------------------------------------------------------------------------


@st.composite
def intervals(draw, n_files: int, n_labels: int, max_rows: int = 12):
    """(file, label, start, end) with some NaT ends; files may have no interval."""
    n = draw(st.integers(0, max_rows))
    file = np.array(draw(st.lists(st.integers(0, n_files - 1), min_size=n, max_size=n)), np.int64)
    label = np.array(draw(st.lists(st.integers(0, n_labels - 1), min_size=n, max_size=n)), np.int64)
    start = np.array(draw(st.lists(st.integers(0, 40), min_size=n, max_size=n)), np.int64)
    length = np.array(draw(st.lists(st.integers(0, 15), min_size=n, max_size=n)), np.int64)
    open_end = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    end = np.where(open_end, NAT, start + length)
    return file, label, start, end


@st.composite
def case(draw, sides: int = 1):
    n_files = draw(st.integers(1, 4))
    n_labels = draw(st.integers(1, 4))
    durations = np.array(draw(st.lists(st.integers(55, 70), min_size=n_files, max_size=n_files)), np.int64)
    rows = [draw(intervals(n_files, n_labels)) for _ in range(sides)]
    resolved = []
    for file, label, start, end in rows:
        end = _pieces.resolve_ends(file, end, durations)
        resolved.append((file, label, start, end))
    return n_files, n_labels, durations, resolved


def _rows(*arrays) -> list:
    return sorted(zip(*(a.tolist() for a in arrays)))


# -------------------------------------------------------------------------
# Engine against audeval._sweep
# -------------------------------------------------------------------------


@hypothesis.given(case(), st.booleans())
def test_cut_matches_sweep(data, with_extent):
    n_files, _, durations, [(file, _, start, end)] = data
    extent = durations if with_extent else None
    new = _pieces.cut(n_files, file, start, end, extent=extent)
    old = _sweep.elementary_segments(n_files, file, start, end, extent=extent)
    for name in ("file", "start", "end", "first", "stop"):
        np.testing.assert_array_equal(getattr(new, name), getattr(old, name), err_msg=name)
        assert getattr(new, name).dtype == np.int64
    if with_extent:  # the pieces tile every file, empty ones included
        total = np.bincount(new.file, weights=new.duration, minlength=n_files)
        np.testing.assert_array_equal(total, durations)


@hypothesis.given(case())
def test_activity_and_coverage_match_sweep(data):
    n_files, n_labels, _, [(file, label, start, end)] = data
    p = _pieces.cut(n_files, file, start, end)
    piece, chan, count = _pieces.activity(len(p), p.first, p.stop, label, n_labels)
    old_piece, old_chan = _sweep.activity(_sweep.elementary_segments(n_files, file, start, end), label, n_labels)
    np.testing.assert_array_equal(piece, old_piece)
    np.testing.assert_array_equal(chan, old_chan)
    all_piece, _ = _sweep.activity(p, label, n_labels, distinct=False)
    np.testing.assert_array_equal(
        np.bincount(piece, weights=count, minlength=len(p)), np.bincount(all_piece, minlength=len(p))
    )
    np.testing.assert_array_equal(
        _pieces.coverage(len(p), p.first, p.stop), np.bincount(all_piece, minlength=len(p))
    )


@hypothesis.given(case())
def test_cooccurrence_matches_sweep(data):
    n_files, n_labels, _, [(file, label, start, end)] = data
    p = _pieces.cut(n_files, file, start, end)
    act = _pieces.activity(len(p), p.first, p.stop, label, n_labels)
    f, a, b, d = _pieces.cooccurrence(p, act, act, n_labels, n_labels, per_file=False, weight="once")
    assert not f.any() and d.dtype == np.int64
    old = _sweep.cooccurrence(p, *_sweep.activity(p, label, n_labels), n_labels)
    assert _rows(a, b, d) == _rows(*old)


# -------------------------------------------------------------------------
# Two sides against the diarization sweep (intervals counted with multiplicity)
# -------------------------------------------------------------------------


def _two_sides(n_files, n_labels, truth, prediction):
    """Per-file components and co-occurrence (file, t, p, duration, matched) by the engine."""
    n_t = len(truth[0])
    p = _pieces.cut(
        n_files, np.r_[truth[0], prediction[0]], np.r_[truth[2], prediction[2]], np.r_[truth[3], prediction[3]]
    )
    t_first, p_first = p.first[:n_t], p.first[n_t:]
    t_stop, p_stop = p.stop[:n_t], p.stop[n_t:]
    n_truth = _pieces.coverage(len(p), t_first, t_stop)
    n_prediction = _pieces.coverage(len(p), p_first, p_stop)
    d = p.duration

    def per_file(values, where=True):
        return np.bincount(p.file, weights=np.where(where, values, 0) * d, minlength=n_files).astype(np.int64)

    miss = np.maximum(n_truth - n_prediction, 0)
    false_alarm = np.maximum(n_prediction - n_truth, 0)
    components = {
        "total": per_file(n_truth),
        "miss": per_file(miss),
        "false_alarm": per_file(false_alarm),
        "total_overlap": per_file(n_truth, n_truth >= 2),
        "miss_overlap": per_file(miss, n_truth >= 2),
        "false_alarm_overlap": per_file(false_alarm, n_truth >= 2),
        "false_alarm_silence": per_file(false_alarm, n_truth == 0),
    }
    t_act = _pieces.activity(len(p), t_first, t_stop, truth[1], n_labels)
    p_act = _pieces.activity(len(p), p_first, p_stop, prediction[1], n_labels)
    f, a, b, duration = _pieces.cooccurrence(p, t_act, p_act, n_labels, n_labels)
    f2, a2, b2, matched = _pieces.cooccurrence(p, t_act, p_act, n_labels, n_labels, weight="min")
    assert _rows(f, a, b) == _rows(f2, a2, b2)
    return components, (f, a, b, duration, matched)


@hypothesis.given(case(sides=2))
def test_two_sides_match_diarization_sweep(data):
    n_files, n_labels, _, (truth, prediction) = data

    def sorted_side(side):  # the diarization sweep takes rows sorted by (file, label)
        order = np.lexsort((side[2], side[1], side[0]))
        return tuple(x[order] for x in side)

    truth, prediction = sorted_side(truth), sorted_side(prediction)
    components, cooc = _two_sides(n_files, n_labels, truth, prediction)
    old_components, old_cooc, old_pair = diarization_sweep(
        n_files, n_labels, truth, prediction, multiplicity=True
    )
    for name, values in old_components.items():
        np.testing.assert_array_equal(components[name], values, err_msg=name)
    assert _rows(*cooc) == _rows(*old_cooc, old_pair["matched"])
    # the package's compat="pyannote" sweep on the engine: the same, column by column
    positive = [tuple(x[side[3] > side[2]] for x in side) for side in (truth, prediction)]
    sizes = (n_files, n_labels, n_labels)
    new_components, new_cooc, new_pair, _, _ = _diarization_sweep(sizes, *positive, matched=True, distinct=False)
    for name, values in old_components.items():
        np.testing.assert_array_equal(new_components[name], values, err_msg=name)
    assert list(new_pair) == list(old_pair)
    assert _rows(*new_cooc, *new_pair.values()) == _rows(*old_cooc, *old_pair.values())


# -------------------------------------------------------------------------
# Structure's contingency (partitions of every file, frames or ns) against the old one
# -------------------------------------------------------------------------


@st.composite
def partitions(draw, n_files: int, extent: np.ndarray, n_clusters: int):
    """Pieces covering ``[0, extent)`` of every file, sorted by (file, start)."""
    file, start, end = [], [], []
    for f in range(n_files):
        if extent[f] == 0:
            continue
        inner = st.lists(st.integers(1, int(extent[f]) - 1), max_size=6) if extent[f] > 1 else st.just([])
        cuts = sorted(set(draw(inner)))
        bounds = [0, *cuts, int(extent[f])]
        file += [f] * (len(bounds) - 1)
        start += bounds[:-1]
        end += bounds[1:]
    n = len(file)
    cluster = draw(st.lists(st.integers(0, n_clusters - 1), min_size=n, max_size=n))
    rank = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    is_row = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return StructurePieces(
        *(np.array(x, dtype=np.int64) for x in (file, start, end, cluster, rank)), np.array(is_row, bool)
    )


@st.composite
def prepared(draw):
    n_files = draw(st.integers(1, 4))
    n_clusters = draw(st.integers(1, 5))
    extent = np.array(draw(st.lists(st.integers(0, 60), min_size=n_files, max_size=n_files)), np.int64)
    truth = draw(partitions(n_files, extent, n_clusters))
    prediction = draw(partitions(n_files, extent, n_clusters))
    compat = draw(st.booleans())
    frame_size = draw(
        st.sampled_from([None, 2e-9, 7e-9] if compat else [None, 1, 3, 7, 100])
    )
    prep = types.SimpleNamespace(
        n_files=n_files, extent=extent, truth=truth, prediction=prediction, n_clusters=n_clusters,
        compat=compat,
    )
    return prep, frame_size


@hypothesis.given(prepared())
def test_structure_contingency_matches_old(data):
    prep, frame_size = data
    new = _frames.contingency(prep, frame_size)
    old = contingency_old.contingency(prep, frame_size)
    for name in ("n", "file", "count", "a", "b", "truth_file", "truth_size", "prediction_file", "prediction_size"):
        np.testing.assert_array_equal(getattr(new, name), getattr(old, name), err_msg=name)
        if len(getattr(old, name)):  # empty tables: the old one's empty bincount is int64
            assert getattr(new, name).dtype == getattr(old, name).dtype, name


@hypothesis.given(case(sides=3))
def test_speaker_sets_match_old_set_sweep(data):
    # region: any intervals (the old sweep counts a piece once if any region interval covers it)
    n_files, _, _, ((r_file, _, r_start, r_end), truth, prediction) = data
    region = (r_file, r_start, r_end)
    new = _set_sweep(n_files, region, truth, prediction)
    old = set_sweep_old._set_sweep(n_files, region, truth, prediction)
    for a, b in zip(new, old):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == np.int64


# -------------------------------------------------------------------------
# Hand-computed
# -------------------------------------------------------------------------


def test_hand_computed_contingency():
    # file 0: truth a [0, 4), b [2, 6); prediction x [1, 5); file 1 empty; file 2: truth a [0, NaT)
    durations = np.array([6, 3, 5])
    t_file, t_label = np.array([0, 0, 2]), np.array([0, 1, 0])
    t_start = np.array([0, 2, 0])
    t_end = _pieces.resolve_ends(t_file, np.array([4, 6, NAT]), durations)
    assert t_end.tolist() == [4, 6, 5]
    p_file, p_label, p_start, p_end = np.array([0, 2]), np.array([0, 0]), np.array([1, 0]), np.array([5, 0])
    p = _pieces.cut(3, np.r_[t_file, p_file], np.r_[t_start, p_start], np.r_[t_end, p_end], extent=durations)
    assert list(zip(p.file.tolist(), p.start.tolist(), p.end.tolist())) == [
        (0, 0, 1), (0, 1, 2), (0, 2, 4), (0, 4, 5), (0, 5, 6), (1, 0, 3), (2, 0, 5)
    ]
    t = _pieces.activity(len(p), p.first[:3], p.stop[:3], t_label, 2)
    s = _pieces.activity(len(p), p.first[3:], p.stop[3:], p_label, 1)
    assert _rows(*_pieces.cooccurrence(p, t, s, 2, 1)) == [(0, 0, 0, 3), (0, 1, 0, 3)]
    assert _rows(*_pieces.cooccurrence(p, t, t, 2, 2)) == [
        (0, 0, 0, 4), (0, 0, 1, 2), (0, 1, 0, 2), (0, 1, 1, 4), (2, 0, 0, 5)
    ]


def test_resolve_ends_unknown_duration():
    with pytest.raises(ValueError, match="files_duration"):
        _pieces.resolve_ends(np.array([1]), np.array([NAT]), np.array([3, NAT]))


def test_empty():
    p = _pieces.cut(2, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert len(p) == 0
    act = _pieces.activity(0, p.first, p.stop, np.zeros(0, np.int64), 3)
    assert all(len(x) == 0 for x in _pieces.cooccurrence(p, act, act, 3, 3))


def test_unpacked_path_matches_packed():
    # times spread over the int64 range: (file, time) keys do not fit, the lexsort path runs
    big = np.int64(2**61)
    file = np.array([0, 1, 1, 0])
    start = np.array([0, -big, 5, 3])
    end = np.array([big, 7, big, 3])
    p = _pieces.cut(2, file, start, end)
    old = _sweep.elementary_segments(2, file, start, end)
    for name in ("file", "start", "end", "first", "stop"):
        np.testing.assert_array_equal(getattr(p, name), getattr(old, name))
    labels = np.array([0, 1, 2, 0])
    act = _pieces.activity(len(p), p.first, p.stop, labels, 2**62)  # (piece, label) keys do not fit
    expected = [(0, 0, 1), (1, 0, 1), (2, 1, 1), (3, 1, 1), (3, 2, 1), (4, 2, 1)]
    assert _rows(*act) == expected
    assert _rows(*_pieces.activity(len(p), p.first, p.stop, labels, 3)) == expected
    f, a, b, d = _pieces.cooccurrence(p, act, act, 2**62, 2**62)  # (file, a, b) keys do not fit
    assert _rows(f, a, b) == [(0, 0, 0), (1, 1, 1), (1, 1, 2), (1, 2, 1), (1, 2, 2)]
    assert d[(a == 1) & (b == 2)].tolist() == [2]


@hypothesis.given(case())
def test_runs_snap_and_keys_match_sweep(data):
    n_files, n_labels, _, [(file, label, start, end)] = data
    for frame in (1, 7):
        new, old = _pieces.snap_to_frames(start, end, frame), _sweep.snap_to_frames(start, end, frame)
        np.testing.assert_array_equal(new[0], old[0])
        np.testing.assert_array_equal(new[1], old[1])
    np.testing.assert_array_equal(_pieces.sort_keys(n_files, file, start), _sweep.sort_keys(n_files, file, start))
    p = _pieces.cut(n_files, file, start, end)
    code = (p.start // 10) % 2  # some touching pieces share a code
    for new, old in zip(
        _pieces.join_runs(p.file, p.start, p.end, code), _sweep.runs(p.file, p.start, p.end, code)
    ):
        np.testing.assert_array_equal(new, old)


@hypothesis.given(case(sides=2))
def test_pair_sums_sorted_path_matches_dense(data):
    # channel codes spread over 10**6 codes: the (file, a, b) grid is too large for the dense path
    n_files, n_labels, _, (truth, prediction) = data
    n_t = len(truth[0])
    p = _pieces.cut(n_files, np.r_[truth[0], prediction[0]], np.r_[truth[2], prediction[2]], np.r_[truth[3], prediction[3]])
    spread = 10**6 // n_labels
    dense, sparse = [], []
    for scale, out in ((1, dense), (spread, sparse)):
        t = _pieces.activity(len(p), p.first[:n_t], p.stop[:n_t], truth[1] * scale, n_labels * scale)
        s = _pieces.activity(len(p), p.first[n_t:], p.stop[n_t:], prediction[1] * scale, n_labels * scale)
        columns = {"product": ("product", None), "min": ("min", p.duration > 3), "once": ("once", None)}
        f, a, b, sums = _pieces.pair_sums(p, t, s, n_labels * scale, n_labels * scale, columns)
        out.append(_rows(f, a // scale, b // scale, *sums.values()))
    assert dense == sparse
