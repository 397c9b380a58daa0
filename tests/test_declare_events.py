"""Options declared once, the event family (issue 31 items 1, 2, 3, 5 and 6).

* constraints are data: every keyword option of every public event function
  (statistics, metrics, ``event_outcomes``, the event plots) is a field of ``EVENT``;
* every option the caller gives is checked exactly once per call,
  on Series and on statistics tables;
* no ``locals()`` and no ``Default`` sentinel in the event modules;
  the protocol's hidden registry is gone;
* the probes of issue 31: ``compat`` and every statistics option reach
  ``event_unweighted_average_fscore``, ``event_outcomes``, ``plot.event_timeline``
  and ``plot.event_confusion_matrix`` (each gives what ``event_statistics`` counts).
"""

from __future__ import annotations

import collections
import pathlib

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._core import declare as _declare
from audeval._core import protocol as _protocol
from audeval._events import FAMILY
from audeval._events.options import EVENT
from test_declare import checks  # noqa: F401  (the fixture counting Option.check calls)
from test_declare import keyword_defaults


matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import audeval.plot  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402


PACKAGE = pathlib.Path(audeval.__file__).parent
MODULES = [
    *sorted((PACKAGE / "_events").glob("*.py")),
    PACKAGE / "plot" / "_events.py",
]
PLOTS = (audeval.plot.event_timeline, audeval.plot.event_confusion_matrix)
FUNCTIONS = (FAMILY.statistics, *FAMILY.metrics, audeval.event_outcomes, *PLOTS)
TABLE_FUNCTIONS = (*FAMILY.metrics, audeval.plot.event_confusion_matrix)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def events(rows) -> pd.Series:
    files, starts, ends, labels = zip(*rows)
    ends = [pd.NaT if e is None else pd.to_timedelta(e, unit="s") for e in ends]
    return pd.Series(list(labels), index=audformat.segmented_index(list(files), list(starts), ends))


def case() -> tuple[pd.Series, pd.Series]:
    """One file where every statistics option changes the counts (see ``test_the_case``)."""
    truth = events([
        ("f", 0.0, 1.0, "a"),  # a: optimal matches both truth events, greedy one
        ("f", 0.0, 3.0, "a"),
        ("f", 5.0, 6.0, "b"),  # b: exactly 0.2 s off (sed_eval's float64 says more)
        ("f", 8.0, 9.0, "c"),  # c: substituted by a
        ("f", 10.0, None, "d"),  # d: ends at the file's duration
        ("f", 3.5, 3.6, "e"),  # e: offset 0.3 s off
    ])
    prediction = events([
        ("f", 0.0, 1.5, "a"),
        ("f", 0.1, 0.7, "a"),
        ("f", 5.2, 6.2, "b"),
        ("f", 8.0, 9.0, "a"),
        ("f", 10.0, 11.5, "d"),
        ("f", 3.5, 3.9, "e"),
    ])
    return truth, prediction


BASE = dict(
    onset_tolerance=0.2,
    offset_tolerance=0.2,
    duration_tolerance=0.5,
    matching="optimal",
    compat=None,
    files_duration={"f": 11.5},
)
VARIANTS = dict(
    onset_tolerance=0.0,
    offset_tolerance=0.4,
    duration_tolerance=None,
    matching="greedy",
    compat="sed_eval",
    files_duration={"f": 14.0},
)
"""A non-default value per statistics option, each changing the counts of :func:`case`."""

METRIC_VALUES = dict(
    zero_division=np.nan,
    propagate_nans=True,
    average="macro",
    per_file=True,
    normalize=True,
    as_frame=True,
    colorbar=False,
    cmap="Greens",
)
"""A non-default value per metric (and plot) option."""


def given_options(function, values: dict) -> dict:
    """``values`` for the options ``function`` takes; ``BASE`` for the others; a file to show."""
    options = {k: v for k, v in {**BASE, **values}.items() if k in keyword_defaults(function)}
    if function is audeval.plot.event_timeline:
        options["file"] = "f"
    return options


def same(a, b) -> None:
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif hasattr(a, "images"):  # axes of a heat map
        np.testing.assert_array_equal(a.images[0].get_array(), b.images[0].get_array())
        assert a.get_title() == b.get_title()
    else:
        np.testing.assert_equal(a, b)


# -------------------------------------------------------------------------
# The declaration: constraints as data
# -------------------------------------------------------------------------


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_declared_on_the_event_family(function):
    declared = function.declared
    assert declared.family is EVENT
    assert declared.arguments == ("truth", "prediction", "labels")
    for name, default in keyword_defaults(function).items():
        field = EVENT.fields[name]  # every keyword option is a field: a constraint a test can read
        assert field.doc
        assert field.kind in _declare.KINDS
        assert declared.defaults[name] == field.check(default) or default is None
        assert f"{name}:" in function.__doc__  # documented in Args
        assert type(default).__name__ != "Default"


def test_the_statistics_options_are_the_recorded_ones():
    assert EVENT.table_options == FAMILY.options == (
        "onset_tolerance", "offset_tolerance", "duration_tolerance", "matching", "confusion", "compat",
    )
    assert EVENT.fields["onset_tolerance"].kind == "seconds" and EVENT.fields["onset_tolerance"].none
    assert EVENT.fields["duration_tolerance"].kind == "real" and EVENT.fields["duration_tolerance"].low == 0.0
    assert EVENT.fields["matching"].choices == ("optimal", "greedy")
    assert EVENT.fields["compat"].choices == (None, "sed_eval")
    assert audeval.event_confusion_matrix.declared.needs == {"confusion": True}
    cross = {f.__name__ for f in FAMILY.metrics if f.declared.cross_label}
    assert cross == {f.__name__ for f in FAMILY.cross_label}


def test_options_object():
    options = EVENT.build({"onset_tolerance": 0.25, "duration_tolerance": 0.5, "compat": "sed_eval"})
    assert options.onset_tolerance == 250_000_000  # seconds -> int64 ns, once
    assert options.offset_tolerance == 0 and options.matching == "optimal"
    assert options.given == {"onset_tolerance", "duration_tolerance", "compat"}
    assert EVENT.record(options) == {
        "onset_tolerance": pd.Timedelta(0.25, unit="s"),
        "offset_tolerance": pd.Timedelta(0),
        "duration_tolerance": 0.5,
        "matching": "optimal",
        "confusion": False,
        "compat": "sed_eval",
    }
    with pytest.raises(ValueError, match="at least the onset or the offset must be evaluated"):
        EVENT.build({"onset_tolerance": None, "offset_tolerance": None})
    # the errors every event check gave
    with pytest.raises(ValueError, match="matching must be one of 'optimal', 'greedy'; got 'best'"):
        EVENT.build({"matching": "best"})
    with pytest.raises(ValueError, match="duration_tolerance must be a finite, non-negative number"):
        EVENT.build({"duration_tolerance": np.nan})
    with pytest.raises(TypeError, match="duration_tolerance must be a float or None"):
        EVENT.build({"duration_tolerance": "0.5"})


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_locals_and_no_default_sentinels(path):
    text = path.read_text()
    assert "locals()" not in text
    assert "Default(" not in text
    assert "resolve(" not in text or path.name == "statistics.py"  # (PendingEvents.resolve only)


def test_no_hidden_registry():
    assert not hasattr(_protocol, "_DECLARED")
    assert not hasattr(_protocol, "declared")


# -------------------------------------------------------------------------
# Every given option checked exactly once per call
# -------------------------------------------------------------------------


@pytest.mark.parametrize("values", [{}, METRIC_VALUES, VARIANTS], ids=["defaults", "metric-values", "variants"])
@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_every_given_option_is_checked_once(checks, function, values):  # noqa: F811
    truth, prediction = case()
    options = {**keyword_defaults(function), **given_options(function, values)}
    checks.clear()
    function(truth, prediction, **options)
    assert dict(checks) == dict.fromkeys(options, 1)
    checks.clear()
    few = {"files_duration": BASE["files_duration"]}  # (the case has an end=NaT)
    if function is audeval.plot.event_timeline:
        few["file"] = "f"
    function(truth, prediction, **few)  # the defaults were checked when declared
    assert dict(checks) == dict.fromkeys(few, 1)


@pytest.mark.parametrize("values", [{}, METRIC_VALUES, VARIANTS], ids=["defaults", "metric-values", "variants"])
@pytest.mark.parametrize("function", TABLE_FUNCTIONS, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_every_given_option_is_checked_once_on_a_table(checks, function, values):  # noqa: F811
    truth, prediction = case()
    options = {**keyword_defaults(function), **given_options(function, values)}
    statistics = {k: v for k, v in options.items() if k in keyword_defaults(audeval.event_statistics)}
    table = audeval.event_statistics(truth, prediction, **statistics, confusion=True)
    given = {k: v for k, v in options.items() if k != "files_duration"}
    direct = function(truth, prediction, **options)
    checks.clear()
    value = function(table, None, **given)
    assert dict(checks) == dict.fromkeys(given, 1)
    same(value, direct)


def test_a_table_checks_the_given_options():
    truth, prediction = case()
    table = audeval.event_statistics(truth, prediction, **BASE)
    with pytest.raises(ValueError, match="made with compat=None, but compat='sed_eval' was given"):
        audeval.event_unweighted_average_fscore(table, None, compat="sed_eval")
    with pytest.raises(ValueError, match="made with matching='optimal', but matching='greedy'"):
        audeval.plot.event_confusion_matrix(table, None, matching="greedy")
    with pytest.raises(ValueError, match="files_duration cannot be applied to a statistics table"):
        audeval.event_report(table, None, files_duration={"f": 12.0})
    with pytest.raises(ValueError, match="needs a table made with confusion=True"):
        audeval.event_confusion_matrix(table, None)
    with pytest.raises(ValueError, match="needs a table made with confusion=True"):
        audeval.plot.event_confusion_matrix(table, None)
    with pytest.raises(ValueError, match="event_error_rate counts across labels"):
        audeval.event_error_rate(table, None, ["a", "b"])
    assert audeval.event_fscore_per_class(table, None, ["b", "a"]) == audeval.event_fscore_per_class(
        truth, prediction, ["b", "a"], **BASE
    )


# -------------------------------------------------------------------------
# The probes of issue 31: compat and every option reach every event path
# -------------------------------------------------------------------------


def test_the_case():
    """Every variant changes the counts of :func:`case` (so the tests below can tell)."""
    truth, prediction = case()
    base = audeval.event_statistics(truth, prediction, **BASE)
    for name, value in VARIANTS.items():
        variant = audeval.event_statistics(truth, prediction, **{**BASE, name: value})
        assert not variant.equals(base), name


def test_unweighted_average_fscore_takes_compat():
    """Issue 31's probe: events exactly 0.2 s off, ``compat="sed_eval"`` reaches the UAF."""
    truth = events([("f", 2.0, 3.0, "a"), ("f", 0.0, 1.0, "b")])
    prediction = events([("f", 2.2, 3.2, "a"), ("f", 0.0, 1.0, "b")])
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2)
    for compat, expected in ((None, 1.0), ("sed_eval", 0.5)):  # sed_eval: 2.2 - 2.0 > 0.2 in float64
        uaf = audeval.event_unweighted_average_fscore(truth, prediction, **options, compat=compat)
        macro = audeval.event_fscore(truth, prediction, **options, average="macro", compat=compat)
        assert uaf == macro == expected
        table = audeval.event_statistics(truth, prediction, **options, compat=compat)
        assert audeval.event_unweighted_average_fscore(table, None, compat=compat) == expected


def outcome_counts(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Counts per label of the outcome table, in the columns of the statistics."""
    table = pd.crosstab(
        outcomes["label"], [outcomes["side"], outcomes["outcome"]], dropna=False
    )
    column = lambda side, outcome: table.get((side, outcome), pd.Series(0, index=table.index))  # noqa: E731
    return pd.DataFrame({
        "tp": column("truth", "tp"),
        "fp": column("prediction", "fp") + column("prediction", "substituting"),
        "fn": column("truth", "fn") + column("truth", "substituted"),
        "substituted": column("truth", "substituted"),
        "substituting": column("prediction", "substituting"),
    })


@pytest.mark.parametrize("name", list(VARIANTS))
def test_event_outcomes_honour_every_option(name):
    truth, prediction = case()
    options = {**BASE, name: VARIANTS[name]}
    counts = outcome_counts(audeval.event_outcomes(truth, prediction, **options))
    stats = audeval.event_statistics(truth, prediction, **options).xs("f", level="file")
    for column in counts:
        assert counts[column].tolist() == stats[column].tolist(), column


def drawn(ax) -> collections.Counter:
    return collections.Counter(p.get_gid() for p in ax.patches if p.get_gid() and ":" in p.get_gid())


@pytest.mark.parametrize("name", list(VARIANTS))
def test_event_timeline_honours_every_option(name):
    truth, prediction = case()
    options = {**BASE, name: VARIANTS[name]}
    ax = audeval.plot.event_timeline(truth, prediction, **options, file="f", collars=False)
    c = audeval.event_statistics(truth, prediction, **options).sum()
    expected = {
        "truth:tp": c["tp"],
        "truth:substitution": c["substituted"],
        "truth:deletion": c["fn"] - c["substituted"],
        "prediction:tp": c["tp"],
        "prediction:substitution": c["substituting"],
        "prediction:insertion": c["fp"] - c["substituting"],
    }
    assert drawn(ax) == collections.Counter({k: int(v) for k, v in expected.items() if v})
    micro = audeval.event_report(truth, prediction, **options).loc["micro"]
    assert f"TP {int(micro['tp'])}, S {int(micro['substitutions'])}" in ax.get_title()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_event_confusion_matrix_plot_honours_every_option(name):
    truth, prediction = case()
    options = {**BASE, name: VARIANTS[name]}
    ax = audeval.plot.event_confusion_matrix(truth, prediction, **options)
    matrix = audeval.event_confusion_matrix(truth, prediction, **options)
    np.testing.assert_array_equal(ax.images[0].get_array().filled(0), np.asarray(matrix))
    assert matrix != audeval.event_confusion_matrix(truth, prediction, **BASE)
