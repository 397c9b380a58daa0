"""Options declared once per family (issue 31 items 1, 2 and 6): the structure and hierarchy families.

The properties ``tests/test_declare.py`` checks for the segment and score families:

* constraints are data: every keyword option of a declared function is a field of its family;
* one frozen options object per call, remembering what the caller gave;
* every option the caller gives is checked exactly once per call,
  on Series and on statistics tables, for every public function of the two families;
* no ``locals()``, no ``Default`` sentinel and no gate of their own
  (``Declaration.table`` and the input gate only) in the two families' modules;
* per-metric needs declared on the metric: ``v_measure`` needs ``marginal=True``;
  ``hierarchy_lmeasure``'s ``window`` and the boundary metrics' ``frame_size``
  are declared unused (kept for the public signature):
  they do not change the number, and a table still checks them.
"""

from __future__ import annotations

import dataclasses
import pathlib

import audformat
import numpy as np
import pandas as pd
import pytest
from test_declare import checks, keyword_defaults  # noqa: F401  (checks: the fixture counting Option.check calls)

import audeval
from audeval._core import declare as _declare
from audeval._hierarchy import FAMILY as HIERARCHY_FAMILY
from audeval._hierarchy.options import HIERARCHY
from audeval._structure import FAMILY as STRUCTURE_FAMILY
from audeval._structure.options import STRUCTURE


PACKAGE = pathlib.Path(audeval.__file__).parent
FUNCTIONS = {
    "structure": (STRUCTURE_FAMILY.statistics, *STRUCTURE_FAMILY.metrics),
    "hierarchy": (HIERARCHY_FAMILY.statistics, *HIERARCHY_FAMILY.metrics),
}
DECLARATIONS = {"structure": STRUCTURE, "hierarchy": HIERARCHY}


def partitions():
    index = audformat.segmented_index(["f", "f", "g", "g"], [0, 4, 0, 3], [4, 10, 3, 8])
    truth = pd.Series(["a", "b", "a", "c"], index=index)
    index = audformat.segmented_index(["f", "f", "f", "g"], [0, 3.8, 7, 0], [3.8, 7, 10, 8])
    prediction = pd.Series(["x", "y", "x", "x"], index=index)
    return truth, prediction


def hierarchies():
    index = audformat.segmented_index(["a"] * 4, [0, 10, 20, 30], [10, 20, 30, 40])
    truth = pd.DataFrame({"coarse": ["A", "A", "B", "B"], "fine": ["a", "b", "c", "d"]}, index=index)
    index = audformat.segmented_index(["a"] * 4, [0, 12, 20, 33], [12, 20, 33, 40])
    prediction = pd.DataFrame({"coarse": ["x", "x", "x", "y"], "fine": ["p", "q", "r", "s"]}, index=index)
    return truth, prediction


INPUTS = {"structure": partitions, "hierarchy": hierarchies}




def cases(first: int = 0):
    for family, functions in FUNCTIONS.items():
        for function in functions[first:]:
            yield pytest.param(family, function, id=function.__name__)


def assert_same(value, expected):
    if isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(value, expected)
    else:
        np.testing.assert_array_equal(np.asarray(value), np.asarray(expected))


@pytest.mark.parametrize("family, function", list(cases()))
def test_every_given_option_is_checked_once(checks, family, function):
    truth, prediction = INPUTS[family]()
    options = keyword_defaults(function)  # every option given (at its default)
    checks.clear()
    value = function(truth, prediction, **options)
    assert dict(checks) == dict.fromkeys(options, 1)
    checks.clear()
    assert_same(function(truth, prediction), value)  # nothing given: defaults checked when declared
    assert dict(checks) == {}


@pytest.mark.parametrize("family, function", list(cases(first=1)))
def test_every_given_option_is_checked_once_on_a_table(checks, family, function):
    truth, prediction = INPUTS[family]()
    options = keyword_defaults(function)
    statistics = FUNCTIONS[family][0]
    names = set(keyword_defaults(statistics)) & set(options)
    table = statistics(truth, prediction, **{k: options[k] for k in names})
    given = {k: v for k, v in options.items() if k != "files_duration"}
    direct = function(truth, prediction, **options)
    checks.clear()
    value = function(table, None, **given)
    assert dict(checks) == dict.fromkeys(given, 1)
    assert_same(value, direct)


@pytest.mark.parametrize("family, function", list(cases()))
def test_declared_on_its_family(family, function):
    declared = function.declared
    declaration = DECLARATIONS[family]
    assert declared.family is declaration and declaration.family == family
    for name, default in keyword_defaults(function).items():
        field = declaration.fields[name]  # a constraint a test can read
        assert field.doc
        assert field.kind in _declare.KINDS
        assert declared.defaults[name] == field.check(default) or default is None
        assert f"{name}:" in function.__doc__  # documented in Args
    assert not any(type(d).__name__ == "Default" for d in keyword_defaults(function).values())
    assert set(declared.unused) <= set(declared.options)


@pytest.mark.parametrize("package", ["_structure", "_hierarchy"])
def test_no_locals_no_default_sentinels_and_no_gate_of_their_own(package):
    for path in sorted((PACKAGE / package).glob("*.py")):
        text = path.read_text()
        assert "locals()" not in text, path.name
        assert "Default(" not in text, path.name
        assert "check_table" not in text, path.name  # tables are checked by Declaration.table only
        assert "def resolve" not in text, path.name


def test_statistics_options_are_the_table_options():
    assert STRUCTURE.table_options == ("frame_size", "window", "trim", "pad", "compat")
    assert STRUCTURE_FAMILY.options == STRUCTURE.table_options
    assert HIERARCHY.table_options == ("frame_size", "window", "monotonic", "compat")
    assert HIERARCHY_FAMILY.options == HIERARCHY.table_options
    for family, functions in FUNCTIONS.items():
        statistics = functions[0]
        assert set(DECLARATIONS[family].table_options) <= set(keyword_defaults(statistics))


def test_structure_options_object():
    options = STRUCTURE.build({"frame_size": 0.25, "compat": "mir_eval", "window": [1.0, 0.5, 1]})
    assert options.frame_size == 250_000_000  # seconds -> int64 ns, once
    assert options.raw["frame_size"] == 0.25
    assert options.given == {"frame_size", "compat", "window"}
    assert options.trim is False and options.pad is True and options.beta == 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.compat = None
    second = pd.Timedelta(1, unit="s")
    assert STRUCTURE.record(options) == {
        "frame_size": pd.Timedelta(0.25, unit="s"),
        "window": (second, second / 2),  # duplicates once, order kept
        "trim": False,
        "pad": True,
        "compat": "mir_eval",
    }
    assert STRUCTURE.normalise({"trim": True, "frame_size": None}) == {"trim": True, "frame_size": None}
    with pytest.raises(ValueError, match="frame_size=None .*mir_eval"):
        STRUCTURE.build({"frame_size": None, "compat": "mir_eval"})
    with pytest.raises(TypeError, match="windows must be a sequence of durations"):
        STRUCTURE.build({"windows": 0.5})
    with pytest.raises(ValueError, match="window must hold at least one duration"):
        STRUCTURE.build({"window": []})
    with pytest.raises(ValueError, match=r"beta must be in \(0, inf\)"):
        STRUCTURE.build({"beta": 0})


def test_hierarchy_options_object():
    options = HIERARCHY.build({"window": None, "frame_size": pd.Timedelta(50, unit="ms")})
    assert options.window is None and options.frame_size == 50_000_000
    assert options.given == {"window", "frame_size"}
    assert options.transitive is False and options.monotonic is False
    assert HIERARCHY.record(options) == {
        "frame_size": pd.Timedelta(50, unit="ms"), "window": None, "monotonic": False, "compat": None,
    }
    with pytest.raises(ValueError, match="window must be positive"):
        HIERARCHY.build({"window": 0})
    with pytest.raises(ValueError, match="frame_size=None .*mir_eval"):
        HIERARCHY.build({"frame_size": None, "compat": "mir_eval"})


def test_v_measure_needs_marginal():
    """``v_measure`` is the NCE reduction with ``marginal=True``, declared on the metric."""
    truth, prediction = partitions()
    assert audeval.v_measure.declared.needs == {"marginal": True}
    assert "marginal" not in keyword_defaults(audeval.v_measure)
    assert audeval.v_measure(truth, prediction, beta=2.0) == audeval.normalized_conditional_entropy(
        truth, prediction, beta=2.0, marginal=True
    )
    table = audeval.structure_statistics(truth, prediction)
    assert audeval.v_measure(table, None) == audeval.v_measure(truth, prediction)


def test_unused_options_change_no_number_and_a_table_still_checks_them():
    """``hierarchy_lmeasure(window=)`` and the boundary metrics' ``frame_size`` stay in the
    signatures (the public API), declared unused: no effect on the number;
    a table made with another value still raises (it records them)."""
    assert audeval.hierarchy_lmeasure.declared.unused == ("window",)
    assert audeval.boundary_detection.declared.unused == ("frame_size",)
    assert audeval.boundary_deviation.declared.unused == ("frame_size",)
    for function in (*FUNCTIONS["structure"][1:], *FUNCTIONS["hierarchy"][1:]):
        if function not in (audeval.hierarchy_lmeasure, audeval.boundary_detection, audeval.boundary_deviation):
            assert function.declared.unused == ()
    truth, prediction = hierarchies()
    expected = audeval.hierarchy_lmeasure(truth, prediction)
    for window in (None, 0.5, 300.0):  # (0.5 s is shorter than the frame of 1 s: no matter here)
        assert audeval.hierarchy_lmeasure(truth, prediction, window=window, frame_size=1.0) == (
            audeval.hierarchy_lmeasure(truth, prediction, frame_size=1.0)
        )
        assert audeval.hierarchy_lmeasure(truth, prediction, window=window) == expected
    table = audeval.hierarchy_statistics(truth, prediction)
    assert audeval.hierarchy_lmeasure(table, None, window=15.0) == expected
    with pytest.raises(ValueError, match="window.*hierarchy_statistics"):
        audeval.hierarchy_lmeasure(table, None, window=5.0)
    truth, prediction = partitions()
    for function in (audeval.boundary_detection, audeval.boundary_deviation):
        expected = function(truth, prediction)
        assert function(truth, prediction, frame_size=None) == expected
        assert function(truth, prediction, frame_size=2.5) == expected
        table = audeval.structure_statistics(truth, prediction, window=0.5, frame_size=None)
        assert function(table, None, frame_size=None) == expected
        with pytest.raises(ValueError, match="frame_size.*structure_statistics"):
            function(table, None, frame_size=0.1)


def test_direct_calls_compute_only_what_the_metric_reduces(monkeypatch):
    """A direct call computes the column groups of its metric (declared per metric)."""
    from audeval._structure import reductions
    from audeval._structure import statistics as _table

    asked = []
    statistics_table = _table.statistics_table

    def recording(prep, settings, groups=_table.GROUPS):
        asked.append(groups)
        return statistics_table(prep, settings, groups)

    monkeypatch.setattr(_table, "statistics_table", recording)
    truth, prediction = partitions()
    for function in FUNCTIONS["structure"][1:]:
        asked.clear()
        function(truth, prediction)
        assert asked == [reductions.GROUPS[function.__name__]]
    assert reductions.GROUPS["boundary_detection"] == {"boundary"}
    assert reductions.GROUPS["rand_index"] == {"pairs"}
    asked.clear()
    audeval.structure_statistics(truth, prediction)
    assert asked == [_table.GROUPS]


@pytest.mark.parametrize("pad", [True, False])
def test_structure_timeline_takes_pad_and_draws_the_detection_boundaries(pad):
    """The structure plot checks its options through the family's declaration and takes ``pad``:
    its hits and drawn boundaries give :func:`audeval.boundary_detection` with the same ``pad``."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    import audeval.plot

    index = audformat.segmented_index(["f", "f"], [1, 2], [2, 3])
    truth = pd.Series(["a", "b"], index=index)
    index = audformat.segmented_index(["f", "f"], [0, 2], [2, 3])
    prediction = pd.Series(["x", "y"], index=index)
    ax = audeval.plot.structure_timeline(truth, prediction, window=0.5, pad=pad)
    gids = [line.get_gid() for line in ax.lines]
    hits, n_t, n_p = gids.count("truth:tp"), gids.count("truth:tp") + gids.count("truth:deletion"), (
        gids.count("prediction:tp") + gids.count("prediction:insertion")
    )
    precision, recall, _ = audeval.boundary_detection(truth, prediction, window=0.5, pad=pad)
    assert (precision, recall) == (hits / n_p, hits / n_t)
    assert (n_t, n_p) == ((3, 3) if not pad else (4, 3))  # padded: the truth starts at 0
    plt.close(ax.figure)
    with pytest.raises(TypeError, match="pad must be True or False"):
        audeval.plot.structure_timeline(truth, prediction, pad="no")
