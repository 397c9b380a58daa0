"""Differential tests: the segment and hierarchy families on the piece engine.

The segment family's keyed engine and the hierarchy family's atoms as they were
(``tests/assets/pieces/segments_engine_old.py``, ``tests/assets/pieces/hierarchy_counts_old.py``)
against :func:`audeval._core.sweep_keyed.channel_totals` and :func:`audeval._core.sweep_keyed.channel_runs`
(both strategies: packed keys and cut pieces),
:func:`audeval._core.sweep.covering` and the families' code on them,
with exact int64 equality, on polyphonic, zero-length, NaT-end and empty-file inputs.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types

import contextlib

import hypothesis
import hypothesis.strategies as st
import numpy as np

from audeval._core import sweep as _pieces
from audeval._core import sweep_keyed as _pieces_keyed
from audeval._hierarchy import counts as _counts
from audeval._hierarchy.inputs import Axis
from audeval._hierarchy.inputs import Side
from audeval._core.sweep import NAT
from audeval._segments import engine
from audeval._segments.outcomes import outcome_runs
from audeval._segments.gaps import _gaps
from audeval._core.validation import Inputs
from audeval._core.validation import Segments


PIECES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "pieces")


def _load(name):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(PIECES, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


old_engine = _load("segments_engine_old")
old_counts = _load("hierarchy_counts_old")
old_runs = _load("segment_runs_old")
old_gaps = _load("segment_gaps_old")
SETTINGS = hypothesis.settings(max_examples=40, deadline=None)


@contextlib.contextmanager
def unpacked():
    """No key range fits: :mod:`audeval._core.sweep_keyed` cuts pieces."""
    limit = _pieces_keyed.KEY_LIMIT
    _pieces_keyed.KEY_LIMIT = 0
    try:
        yield
    finally:
        _pieces_keyed.KEY_LIMIT = limit


def _equal(new, old):
    for a, b in zip(new, old, strict=True):
        np.testing.assert_array_equal(a, b)
        assert np.asarray(a).dtype == np.int64


# -------------------------------------------------------------------------
# Segments: channel totals against the keyed engine and the interval engine
# -------------------------------------------------------------------------


@st.composite
def sides(draw, scale: int = 1):
    """Extent per file (0: an empty file) and two sides ``(file, label, start, end)``.

    Ends are NaT (until the end of the file) or ``start + length`` (length 0: zero-length events),
    then cut at the extent (events beyond it have ``end < start``).
    """
    n_files = draw(st.integers(1, 4))
    n_labels = draw(st.integers(1, 4))
    extent = np.array(draw(st.lists(st.integers(0, 60), min_size=n_files, max_size=n_files)), np.int64) * scale
    out = []
    for _ in range(2):
        n = draw(st.integers(0, 14))
        ints = lambda low, high: np.array(  # noqa: E731
            draw(st.lists(st.integers(low, high), min_size=n, max_size=n)), np.int64
        )
        file, label, start, length = ints(0, n_files - 1), ints(0, n_labels - 1), ints(0, 64), ints(0, 20)
        open_end = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
        start = start * scale
        end = _pieces.resolve_ends(file, np.where(open_end, NAT, start + length * scale), extent)
        out.append((file, label, start, end))
    return extent, n_labels, out


def _old_totals(extent, n_labels, truth, prediction, keyed: bool):
    n_files = len(extent)
    old_sides = [
        (file * n_labels + label, start, np.minimum(end, extent[file]), file)
        for file, label, start, end in (truth, prediction)
    ]
    if keyed:
        group_base, file_base = old_engine._key_bases(extent, n_labels)
        return old_engine._counts_keyed(None, *old_sides, group_base, file_base)
    inputs = types.SimpleNamespace(n_files=n_files, n_labels=n_labels)
    return old_engine._counts_engine(inputs, *old_sides)


def _new_totals(extent, n_labels, truth, prediction):
    new_sides = [(file, label, start, np.minimum(end, extent[file])) for file, label, start, end in (truth, prediction)]
    return _pieces_keyed.channel_totals(extent, n_labels, *new_sides)


@SETTINGS
@hypothesis.given(sides())
def test_channel_totals_packed_matches_old_keyed(data):
    extent, n_labels, (truth, prediction) = data
    assert _pieces_keyed.fits(extent, n_labels)
    new = _new_totals(extent, n_labels, truth, prediction)
    _equal(new, _old_totals(extent, n_labels, truth, prediction, keyed=True))
    _equal(new, _old_totals(extent, n_labels, truth, prediction, keyed=False))


@SETTINGS
@hypothesis.given(sides())
def test_channel_totals_cut_matches_old_engine(data):
    extent, n_labels, (truth, prediction) = data
    with unpacked():
        assert not _pieces_keyed.fits(extent, n_labels)
        new = _new_totals(extent, n_labels, truth, prediction)
    _equal(new, _old_totals(extent, n_labels, truth, prediction, keyed=False))
    _equal(new, _old_totals(extent, n_labels, truth, prediction, keyed=True))


def _inputs(extent, n_labels, truth, prediction) -> Inputs:
    """Checked inputs as the gate makes them (ends resolved, durations known)."""

    def side(file, label, start, end):
        return Segments(file, start, end, label, np.arange(len(file), dtype=np.int64))

    return Inputs(
        side(*truth),
        side(*prediction),
        files=__import__("pandas").Index([f"f{i}" for i in range(len(extent))]),
        labels=[f"l{i}" for i in range(n_labels)],
        durations=extent,
    )


@SETTINGS
@hypothesis.given(sides(scale=10**8), st.sampled_from([(None, None), (10**9, None), (3 * 10**8, None), (10**9, "sed_eval"), (3 * 10**8, "sed_eval")]))
def test_segment_counts_match_old(data, grid):
    # events on a 0.1 s grid, files of 0 to 6 s (0: evaluated, no time), exact time or 1 s / 0.3 s segments
    extent, n_labels, (truth, prediction) = data
    r_ns, compat = grid
    r_seconds = None if r_ns is None else r_ns / 1e9
    inputs = _inputs(extent, n_labels, truth, prediction)
    new = engine._counts_from_inputs(inputs, r_ns, r_seconds, compat)
    old = old_engine._counts_from_inputs(inputs, r_ns, r_seconds, compat)
    for name in ("tp", "fp", "fn", "tn", "substitutions"):
        np.testing.assert_array_equal(getattr(new, name), getattr(old, name), err_msg=name)
        assert getattr(new, name).dtype == np.int64, name


@SETTINGS
@hypothesis.given(sides(scale=10**8), st.sampled_from([(None, None), (10**9, None), (3 * 10**8, "sed_eval")]))
def test_outcome_runs_match_old(data, grid):
    extent, n_labels, (truth, prediction) = data
    r_ns, compat = grid
    r_seconds = None if r_ns is None else r_ns / 1e9
    inputs = _inputs(extent, n_labels, truth, prediction)
    n_units = engine._n_units(extent, r_ns, r_seconds, compat)

    def units(start, end):
        return engine._to_units(start, end, r_ns, r_seconds, compat)

    old = old_runs.outcome_runs(inputs, n_units, units)
    for strategy in (contextlib.nullcontext, unpacked):
        with strategy():
            new = outcome_runs(inputs, n_units, units)
        assert list(new) == list(old)
        for name in old:
            _equal(new[name], old[name])


@SETTINGS
@hypothesis.given(sides(), st.data())
def test_gaps_match_old(data, draw):
    extent, _, ((file, label, start, end), _) = data
    # ends past the extent, zero-length events, and unresolved NaT ends (until the end)
    open_end = np.array(draw.draw(st.lists(st.booleans(), min_size=len(file), max_size=len(file))), bool)
    side = Segments(file, start, np.where(open_end, NAT, end), label, np.arange(len(file), dtype=np.int64))
    old = old_gaps._gaps(side, extent, 9)
    columns = ("file", "start", "end", "label", "position")
    n = len(file)
    for strategy in (contextlib.nullcontext, unpacked):
        with strategy():
            new = _gaps(side, extent, 9)
        _equal([getattr(new, c)[:n] for c in columns], [getattr(old, c)[:n] for c in columns])
        assert _rows(*(getattr(new, c)[n:] for c in columns)) == _rows(*(getattr(old, c)[n:] for c in columns))


def _rows(*arrays) -> list:
    return sorted(zip(*(a.tolist() for a in arrays)))


def test_channel_totals_hand_computed():
    # file 0 (length 10): left a [0, 4) + [2, 6) (polyphonic, one label), b [5, 5) (zero length);
    # right a [3, 8), b [1, 9); file 1 (length 0): nothing; file 2 (length 4): right b [0, 4)
    left = (np.array([0, 0, 0]), np.array([0, 0, 1]), np.array([0, 2, 5]), np.array([4, 6, 5]))
    right = (np.array([0, 0, 2]), np.array([0, 1, 1]), np.array([3, 1, 0]), np.array([8, 9, 4]))
    extent = np.array([10, 0, 4])
    expected = (
        [3, 0, 0, 0, 0, 0],  # both: a [3, 6)
        [6, 0, 0, 0, 0, 0],  # left: a [0, 6)
        [5, 8, 0, 0, 0, 4],  # right
        # file 0: pieces [0,1) 1 vs 0; [1,3) 1 vs 1; [3,6) 1 vs 2; [6,8) 0 vs 2; [8,9) 0 vs 1
        [0 + 2 + 3, 0, 0],
    )
    assert _pieces_keyed.fits(extent, 2)
    assert [x.tolist() for x in _pieces_keyed.channel_totals(extent, 2, left, right)] == list(expected)
    with unpacked():
        assert [x.tolist() for x in _pieces_keyed.channel_totals(extent, 2, left, right)] == list(expected)


# -------------------------------------------------------------------------
# Hierarchy: atoms and the segments holding them
# -------------------------------------------------------------------------


@st.composite
def hierarchy_side(draw, n: np.ndarray, offset: int):
    """Levels that partition ``[0, n_f)`` of every file; some segments dropped (compat: gaps)."""
    n_levels = draw(st.integers(1, 3))
    rows = []
    for level in range(n_levels):
        for f, length in enumerate(n.tolist()):
            if length == 0:
                continue
            cuts = sorted(set(draw(st.lists(st.integers(1, max(length - 1, 1)), max_size=5)))) if length > 1 else []
            bounds = [0, *cuts, length]
            for a, b in zip(bounds[:-1], bounds[1:]):
                if draw(st.integers(0, 5)) == 0:  # uncovered
                    continue
                rows.append((level, f, a, b, offset + 10 * level + draw(st.integers(0, 2))))
    columns = [np.array([r[i] for r in rows], dtype=np.int64) for i in range(5)]
    return Side(*columns, n_levels=n_levels, pads=((0, 0),) * n_levels)


@st.composite
def axes(draw):
    n_files = draw(st.integers(1, 3))
    n = np.array(draw(st.lists(st.integers(0, 24), min_size=n_files, max_size=n_files)), np.int64)
    truth = draw(hierarchy_side(n, 0))
    prediction = draw(hierarchy_side(n, 100))
    return n_files, Axis(n, n * 7, truth, prediction, frames=True)


def _frames(axis, n_files):
    """Every frame of every file, and one query past the end of each."""
    file = np.repeat(np.arange(n_files), axis.n + 1)
    pos = np.concatenate([np.arange(k + 1) for k in axis.n.tolist()]).astype(np.int64)
    return file, pos


@SETTINGS
@hypothesis.given(axes(), st.booleans())
def test_hierarchy_atoms_match_old(data, monotonic):
    n_files, axis = data
    at = _counts.atoms(axis, n_files)
    file, pos, length = old_counts.atoms(axis, n_files)
    _equal((at.file, at.start, at.length), (file, pos, length))
    old_held = [old_counts._containing(side, n_files, file, pos) for side in (axis.truth, axis.prediction)]
    _equal((at.truth, at.prediction), old_held)
    # frame queries: the atom holding each, then its segments
    f_file, f_pos = _frames(axis, n_files)
    held = _counts.holding(at, n_files, f_file, f_pos)
    _equal(held, [old_counts._containing(side, n_files, f_file, f_pos) for side in (axis.truth, axis.prediction)])
    if not (len(axis.truth) and len(axis.prediction)):
        return  # (a side without segments is a validation error)
    for window in (None, 3):
        np.testing.assert_array_equal(
            _counts.interval_counts(axis, held, f_file, f_pos, window, monotonic),
            old_counts.interval_counts(axis, n_files, f_file, f_pos, window, monotonic),
        )
    np.testing.assert_array_equal(
        _counts.interval_counts(axis, (at.truth, at.prediction), file, pos, None, monotonic),
        old_counts.interval_counts(axis, n_files, file, pos, None, monotonic),
    )
    weight = length.astype(np.float64)
    for new, old in zip(
        _counts.label_counts(axis, at, weight, monotonic),
        old_counts.label_counts(axis, n_files, file, pos, weight, monotonic),
        strict=True,
    ):
        np.testing.assert_array_equal(new, old)
    new_pieces = _counts.window_pieces(axis, n_files, 3, monotonic)
    old_pieces = old_counts.window_pieces(axis, n_files, 3, monotonic)
    for name in ("file", "start", "length", "c0", "c1", "counted"):
        np.testing.assert_array_equal(getattr(new_pieces, name), getattr(old_pieces, name), err_msg=name)


def test_hierarchy_atoms_hand_computed():
    # one file of 6 units: truth level 0 [0, 6), level 1 [0, 2) [2, 6); prediction [0, 3) [4, 6) (gap [3, 4))
    truth = Side(*(np.array(x) for x in ([0, 1, 1], [0, 0, 0], [0, 0, 2], [6, 2, 6], [0, 10, 11])), 2, ((0, 0),) * 2)
    prediction = Side(*(np.array(x) for x in ([0, 0], [0, 0], [0, 4], [3, 6], [100, 101])), 1, ((0, 0),))
    at = _counts.atoms(Axis(np.array([6]), np.array([6]), truth, prediction, frames=True), 1)
    assert list(zip(at.start.tolist(), at.length.tolist())) == [(0, 2), (2, 1), (3, 1), (4, 2)]
    assert at.truth.tolist() == [[0, 1], [0, 2], [0, 2], [0, 2]]
    assert at.prediction.tolist() == [[0], [0], [-1], [1]]
    t, p = _counts.holding(at, 1, np.array([0, 0, 0]), np.array([3, 5, 6]))
    assert t.tolist() == [[0, 2], [0, 2], [-1, -1]] and p.tolist() == [[-1], [1], [-1]]


def test_channel_runs_hand_computed():
    # file 0 (length 10), channel 0: left [0, 3) + [2, 5) (one run), right [5, 7) (touching: a new run);
    # channel 1: left [1, 1) (zero length), right [0, 10); file 1 (length 0); file 2 (length 4): left [0, 4)
    left = (np.array([0, 0, 0, 2]), np.array([0, 0, 1, 0]), np.array([0, 2, 1, 0]), np.array([3, 5, 1, 4]))
    right = (np.array([0, 0]), np.array([0, 1]), np.array([5, 0]), np.array([7, 10]))
    extent = np.array([10, 0, 4])
    expected = [[0, 0, 1, 4], [0, 5, 0, 0], [5, 7, 10, 4], [1, 2, 2, 1]]  # group, start, end, state
    assert [x.tolist() for x in _pieces_keyed.channel_runs(extent, 2, left, right)] == expected
    with unpacked():
        assert [x.tolist() for x in _pieces_keyed.channel_runs(extent, 2, left, right)] == expected
