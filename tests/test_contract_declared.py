"""The contract generated from the declarations (issue 31, item 6).

For every registered family whose functions are declared (``function.declared``,
:mod:`audeval._core.declare`), every metric, and every keyword option it declares,
the option is set to each non-default value its constraint allows
(``bool``: the other value; ``choice``: every other choice; ``real``/``seconds``:
a value in range; ``zero_division``: another value; ``any``: a sample below),
and the metric goes through every path:
direct, statistics table, summed shards, ``Accumulator``, ``bootstrap(...).value``
and ``dask_statistics``.
Every path gives the direct call's number (1e-12),
or, where the direct call refuses the value, raises too;
a table computed without a statistics option the metric needs
may be refused with an error that names the statistics function.

No case is written by hand here: a new option or a new metric of a declared family
is tried as soon as it is declared.
An option of kind ``"any"`` needs a sample in ``SAMPLES``
(or a reason in ``NOT_SAMPLED``): ``test_every_any_option_has_a_sample`` says which.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from test_contract import (
    DATA,
    FILES,
    FILES_DURATION,
    NO_DASK,
    UEM,
    _batch,
    _call,
    _dask_frame,
    _subset,
    assert_same,
    shared_table,
)

import audeval
from audeval._generic.registry import FAMILIES, reduce, split_options

pytestmark = pytest.mark.usefixtures("dask_sync")  # the paths, not the schedulers (tests/test_dask.py)


SAMPLES = {
    "files_duration": FILES_DURATION,
    "uem": UEM,
    "threshold": 0.45,
    "gap_label": "-",
    "positive_labels": ["a", "c"],
    "window": 1.0,
    "windows": [1.0, 2.0],
    "median_filter_lengths": (0.0, 0.3),
}
"""Non-default values of the options whose constraint is ``"any"``."""

NOT_SAMPLED = {
    "labels": "an argument, not an option",
}
"""Options of kind ``"any"`` the generated contract does not try, with the reason."""

REAL_CANDIDATES = (0.5, 0.3, 0.25, 0.8, 2.0, 1.5, 0.0, 1.0, 10.0)
SECONDS_CANDIDATES = (0.5, 0.25, 2.0, None)


def _declared(function):
    return getattr(function, "declared", None)


def _other_values(field, default):
    """Non-default values of one declared option, from its constraint."""
    if field.kind == "bool":
        return [not default]
    if field.kind == "choice":
        return [c for c in field.choices if c != default]
    if field.kind == "zero_division":
        return [1.0] if default == 0.0 else [0.0]
    if field.kind in ("real", "seconds"):
        candidates = REAL_CANDIDATES if field.kind == "real" else SECONDS_CANDIDATES
        for value in candidates:
            try:
                checked = field.check(value)
            except (TypeError, ValueError):
                continue
            if checked != default:
                return [value]
        return []
    if field.name in SAMPLES:
        return [SAMPLES[field.name]]
    return []


KNOWN: dict[tuple[str, str], str] = {}
"""Cases that fail today, with the reason (strict xfail: a fix makes them fail until removed here)."""


def _cases():
    for name in sorted(FAMILIES):
        family = FAMILIES[name]
        if name not in DATA:
            continue
        for metric in family.metrics:
            declared = _declared(metric)
            if declared is None:
                continue
            for option in declared.options:
                field = declared.family.fields[option]
                for value in _other_values(field, declared.defaults[option]):
                    shown = "<mapping>" if isinstance(value, dict) else "<uem>" if option == "uem" else repr(value)
                    reason = KNOWN.get((metric.__name__, option))
                    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                    yield pytest.param(
                        name, metric, {option: value}, id=f"{metric.__name__}-{option}={shown}", marks=marks
                    )


CASES = list(_cases())


def test_the_generated_contract_has_cases():
    """Every declared family contributes cases (a declaration the generator cannot read would not)."""
    declared = {name for name in FAMILIES if any(_declared(m) for m in FAMILIES[name].metrics)}
    assert declared, "no declared family"
    covered = {case.values[0] for case in CASES}
    assert declared <= covered, sorted(declared - covered)


def test_every_any_option_has_a_sample():
    """An option without a constraint the generator can read needs a sample or a reason."""
    missing = set()
    for family in FAMILIES.values():
        for function in (family.statistics, *family.metrics):
            declared = _declared(function)
            if declared is None:
                continue
            for option in declared.options:
                field = declared.family.fields[option]
                if field.kind == "any" and option not in SAMPLES and option not in NOT_SAMPLED:
                    missing.add(f"{function.__name__}: {option}")
    assert not missing, sorted(missing)


def _outcome(call):
    """``(value, None)``, or ``(None, error)`` where the call raises ``TypeError``/``ValueError``:
    each path runs once for both questions (does it refuse? which number?)."""
    try:
        return call(), None
    except (TypeError, ValueError) as error:
        return None, error


def _paths(name, metric, options):
    """Each path's result as a callable: name -> () -> value."""
    family = FAMILIES[name]
    truth, prediction, _, _, _ = DATA[name]
    statistics_options, metric_options = split_options(family, metric, options)

    def table():
        computed = shared_table(
            (name, "table", None, statistics_options),
            lambda: family.compute(truth, prediction, None, statistics_options),
        )
        return _call(metric, computed, None, None, metric_options, family)

    def shards():
        def summed():
            tables = [
                family.compute(_subset(truth, f), _subset(prediction, f), None, _batch(statistics_options, f))
                for f in (FILES[:2], FILES[2:])
            ]
            return audeval.sum_statistics(tables)

        computed = shared_table((name, "shards", None, statistics_options), summed)
        return _call(metric, computed, None, None, metric_options, family)

    def accumulator():
        accumulate = audeval.Accumulator(metric, **options)
        for files in ([FILES[0]], FILES[1:4], FILES[4:]):
            accumulate.update(_subset(truth, files), _subset(prediction, files))
        return accumulate.compute()

    def bootstrap():
        return audeval.bootstrap(metric, truth, prediction, n_boot=2, **options).value

    def dask():
        frames = _dask_frame(truth), _dask_frame(prediction)
        computed = shared_table(
            (name, "dask", None, statistics_options),
            lambda: audeval.dask_statistics(family.statistics, *frames, **statistics_options),
        )
        return reduce(metric, computed.sort_index(), None, metric_options, family)

    paths = {"table": table, "shards": shards, "Accumulator": accumulator, "bootstrap": bootstrap}
    if name not in NO_DASK and not family.single_input and "uem" not in statistics_options:
        paths["dask"] = dask
    return paths


TABLE_PATHS = ("table", "shards", "dask")
"""Paths where the user computes the table with the statistics defaults: the metric may refuse it
with an error that names the statistics function (where the option goes)."""


def _is_number(value):
    return isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(value, bool)


@pytest.mark.parametrize("name, metric, options", CASES)
def test_every_declared_option_gives_the_direct_value_on_every_path(name, metric, options):
    truth, prediction, _, _, _ = DATA[name]
    family = FAMILIES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct, refused = _outcome(lambda: _call(metric, truth, prediction, None, options, family))
        for path, run in _paths(name, metric, options).items():
            if path == "bootstrap" and (refused is None and not _is_number(direct) or options.get("per_file")):
                continue  # (a bootstrap interval is of a number over files)
            if path == "dask":
                pytest.importorskip("dask.dataframe")
            actual, error = _outcome(run)
            if refused is not None:
                assert error is not None, f"{path} accepts what the direct call refuses: {refused}"
                continue
            if error is not None:
                if path not in TABLE_PATHS:
                    raise error
                # a clear error naming where to pass the option
                assert f"to {family.statistics.__name__}" in str(error), (path, error)
                continue
            if _is_number(direct) and math.isnan(float(direct)):
                assert math.isnan(float(actual)), path
            else:
                assert_same(actual, direct, path)
