"""Options declared once per family (issue 31 items 1, 2 and 6): the segment and score families.

* constraints are data: every keyword option of a declared function is a field of its family;
* one frozen options object per call, remembering what the caller gave;
* every option the caller gives is checked exactly once per call,
  on Series and on statistics tables, for every public function of the two families;
* no ``locals()`` and no ``Default`` sentinel in the two families' modules.
"""

from __future__ import annotations

import collections
import dataclasses
import inspect
import pathlib

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._core import declare as _declare
from audeval._core.declare import Declaration, Option
from audeval._core.options import Default
from audeval._sed_scores.family import FAMILY as SCORE_FAMILY
from audeval._sed_scores.options import SCORE
from audeval._segments import FAMILY as SEGMENT_FAMILY
from audeval._segments.options import SEGMENT


PACKAGE = pathlib.Path(audeval.__file__).parent
FUNCTIONS = {
    "segment": (SEGMENT_FAMILY.statistics, *SEGMENT_FAMILY.metrics),
    "score": (SCORE_FAMILY.statistics, *SCORE_FAMILY.metrics),
}


def segments():
    index = audformat.segmented_index(["f", "f", "g"], [0, 2, 0.5], [2, 4, 3])
    truth = pd.Series(["a", "b", "a"], index=index)
    index = audformat.segmented_index(["f", "f", "g"], [1.5, 3, 0], [3, 5, 1])
    prediction = pd.Series(["b", "a", "a"], index=index)
    return truth, prediction


def scores():
    truth = pd.Series(["a", "b"], index=audformat.segmented_index(["f", "f"], [0.0, 1.0], [2.0, 3.0]))
    index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
    table = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1], "b": [0.2, 0.7, 0.8, 0.4]}, index=index)
    return truth, table


INPUTS = {"segment": segments, "score": scores}


@pytest.fixture
def checks(monkeypatch):
    """Count :meth:`Option.check` calls by option name."""
    counter = collections.Counter()
    check = Option.check

    def counting(self, value):
        counter[self.name] += 1
        return check(self, value)

    monkeypatch.setattr(Option, "check", counting)
    return counter


def keyword_defaults(function) -> dict:
    parameters = inspect.signature(function).parameters.values()
    return {p.name: p.default for p in parameters if p.kind is p.KEYWORD_ONLY}


def cases():
    for family, functions in FUNCTIONS.items():
        for function in functions:
            yield pytest.param(family, function, id=function.__name__)


@pytest.mark.parametrize("family, function", list(cases()))
def test_every_given_option_is_checked_once(checks, family, function):
    truth, prediction = INPUTS[family]()
    options = keyword_defaults(function)  # every option given (at its default)
    checks.clear()
    expected = function(truth, prediction, **options)
    assert dict(checks) == dict.fromkeys(options, 1)
    checks.clear()
    function(truth, prediction)  # nothing given: the defaults were checked when declared
    assert dict(checks) == {}


@pytest.mark.parametrize("family, function", list(cases())[1:9] + list(cases())[10:])
def test_every_given_option_is_checked_once_on_a_table(checks, family, function):
    truth, prediction = INPUTS[family]()
    options = keyword_defaults(function)
    statistics = FUNCTIONS[family][0]
    names = set(keyword_defaults(statistics)) & set(options)
    table = statistics(truth, prediction, **{k: options[k] for k in names})
    recorded = table.attrs["audeval"]["options"]
    # (a table records None for what its criterion does not use: giving those raises, as it should)
    given = {
        k: v for k, v in options.items()
        if k != "files_duration" and not (k in recorded and recorded[k] is None and v is not None)
    }
    checks.clear()
    direct = function(truth, prediction, **options)
    checks.clear()
    value = function(table, None, **given)
    assert dict(checks) == dict.fromkeys(given, 1)
    if isinstance(value, pd.DataFrame):
        pd.testing.assert_frame_equal(value, direct)
    elif isinstance(value, pd.Series):
        pd.testing.assert_series_equal(value, direct)
    else:
        assert value == direct or (np.isnan(value) and np.isnan(direct))


@pytest.mark.parametrize("family, function", list(cases()))
def test_declared_on_its_family(family, function):
    declared = function.declared
    assert declared.family.family == family
    declaration = {"segment": SEGMENT, "score": SCORE}[family]
    assert declared.family is declaration
    for name, default in keyword_defaults(function).items():
        field = declaration.fields[name]  # a constraint a test can read
        assert field.doc
        assert field.kind in _declare.KINDS
        assert declared.defaults[name] == field.check(default) or default is None
        assert f"{name}:" in function.__doc__  # documented in Args
    assert not any(type(d).__name__ == "Default" for d in keyword_defaults(function).values())


@pytest.mark.parametrize("package", ["_segments", "_sed_scores"])
def test_no_locals_and_no_default_sentinels(package):
    paths = sorted((PACKAGE / package).glob("*.py"))
    assert len(paths) > 3, f"no modules found in {package}"  # a moved package must not pass by finding none
    for path in paths:
        text = path.read_text()
        assert "locals()" not in text, path.name
        assert "Default(" not in text, path.name


def test_options_object():
    options = SEGMENT.build({"time_resolution": 0.5, "compat": "sed_eval"})
    assert options.time_resolution == 500_000_000  # seconds -> int64 ns, once
    assert options.raw == {"time_resolution": 0.5, "compat": "sed_eval"}
    assert options.given == {"time_resolution", "compat"}
    assert options.zero_division == 0.0 and options.average == "micro"
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.compat = None
    assert SEGMENT.record(options) == {
        "compat": "sed_eval", "time_resolution": pd.Timedelta(0.5, unit="s"), "gap_label": None,
    }
    assert SEGMENT.table_options == ("time_resolution", "compat", "gap_label")  # issue 29: gap_label
    with pytest.raises(ValueError, match="cannot be combined with compat='sed_eval'"):
        SEGMENT.build({"time_resolution": None, "compat": "sed_eval"})
    with pytest.raises(ValueError, match="alpha_ct is not 0: pass cttc_threshold"):
        SCORE.build({"alpha_ct": 0.5, "cttc_threshold": None})
    assert SCORE.without(SCORE.build({"cttc_threshold": 0.3}), "cttc_threshold").given == frozenset()
    # a forwarded undeclared default (the other families' sentinel) is a value, not given
    forwarded = SCORE.build({"dtc_threshold": Default(0.5), "compat": Default(None)})
    assert forwarded.dtc_threshold == 0.5 and forwarded.given == frozenset()


@pytest.mark.parametrize(
    "field, value, error, message",
    [
        (Option("x", "doc", kind="real", low=0.0, high=1.0), 1.5, ValueError, r"x must be in \[0, 1\]; got 1.5"),
        (Option("x", "doc", kind="real", low=0.0, open_low=True), 0, ValueError, r"x must be in \(0, inf\)"),
        (Option("x", "doc", kind="real"), np.nan, TypeError, "x must be a finite float"),
        (Option("x", "doc", kind="real"), True, TypeError, "x must be a finite float"),
        (Option("x", "doc", kind="choice", choices=("a", "b")), "c", ValueError, "x must be 'a' or 'b'; got 'c'"),
        (Option("x", "doc", kind="choice", choices=("a", "b", "c")), None, ValueError, "x must be one of 'a', 'b', 'c'"),
        (Option("x", "doc", kind="seconds", open_low=True), 0, ValueError, "x must be positive"),
        (Option("x", "doc", kind="seconds"), None, TypeError, "x must be a duration"),
        (Option("x", "doc", kind="seconds"), -1, ValueError, "x must not be negative"),
        (Option("x", "doc", kind="bool"), 1, TypeError, "x must be True or False"),
        (Option("x", "doc", kind="zero_division"), 0.5, ValueError, "x must be 0.0, 1.0 or nan"),
    ],
)
def test_option_errors_name_the_option(field, value, error, message):
    with pytest.raises(error, match=message):
        field.check(value)


def test_option_values():
    assert Option("x", "doc", kind="seconds").check(pd.Timedelta(1, unit="ms")) == 1_000_000
    assert Option("x", "doc", kind="seconds").check(0.1) == 100_000_000
    assert Option("x", "doc", kind="seconds", none=True).check(None) is None
    assert Option("x", "doc", kind="real", low=0.0, high=1.0).check(1) == 1.0
    assert Option("x", "doc", kind="choice", choices=(None, "a")).check(None) is None
    assert Option("x", "doc", kind="bool").check(np.bool_(True)) is True
    with pytest.raises(ValueError, match="kind must be one of"):
        Option("x", "doc", kind="int")


def test_a_toy_family():
    toy = Declaration("toy", [
        Option("scale", "a factor", default=1.0, kind="real", low=0.0),
        Option("files_duration", "unused"),
    ])

    @toy.statistics(lambda truth, prediction, options: (truth - prediction) * options.scale)
    def toy_statistics(truth, prediction, *, scale: float = 2.0):
        """The scaled difference."""

    assert str(inspect.signature(toy_statistics)) == "(truth, prediction, *, scale: 'float' = 2.0)"
    assert toy_statistics(3, 1) == 4.0
    assert toy_statistics(3, 1, scale=0.5) == 1.0
    with pytest.raises(ValueError, match=r"scale must be in \[0, inf\)"):
        toy_statistics(3, 1, scale=-1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'other'"):
        toy_statistics(3, 1, other=1)
    with pytest.raises(TypeError, match="not declared by the toy family"):
        toy.statistics(lambda *args: None)(lambda truth, *, other=1: None)


def test_with_options_runs_a_declared_function_on_built_options():
    """``f.with_options(options, *inputs)``: the core's internal API the plots use to compute
    the public object they draw with the options of their own call (checked once)."""
    truth = pd.Series(["a", "b"], index=audformat.segmented_index(["f", "f"], [0.0, 2.0], [1.0, 3.0]))
    prediction = pd.Series(["a", "a"], index=audformat.segmented_index(["f", "f"], [0.1, 2.0], [1.1, 3.0]))
    EVENT = audeval.event_outcomes.declared.family
    options = EVENT.build({"onset_tolerance": 0.2, "offset_tolerance": 0.2, "as_frame": False})
    pd.testing.assert_frame_equal(
        audeval.event_outcomes.with_options(options, truth, prediction, None),
        audeval.event_outcomes(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2),
    )
    # the function's needs apply (the confusion matrix needs the substitution columns)
    frame = audeval.event_confusion_matrix.with_options(
        EVENT.build({"onset_tolerance": 0.2, "offset_tolerance": 0.2, "as_frame": True}), truth, prediction, None
    )
    assert frame.to_numpy().tolist() == [[1, 0, 0], [1, 0, 0], [0, 0, 0]]
    with pytest.raises(TypeError, match="EventOptions"):
        audeval.event_outcomes.with_options({"onset_tolerance": 0.2}, truth, prediction, None)
    with pytest.raises(TypeError, match="inputs"):
        audeval.event_outcomes.with_options(options, truth, prediction)
