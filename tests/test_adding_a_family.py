"""The worked example of docs/contributing.rst: a new family, one registry line, and the rest follows.

``docs/examples/family/duration.py`` declares a toy family (options, statistics, reduction, metric,
``Family``). Registered (here by patching the registry, in audeval by one line in
``audeval/_generic/registry.py``), it goes through ``sum_statistics``, ``Accumulator``, ``bootstrap`` (on arrays)
and ``dask_statistics`` with the direct call's number, and the generated contract tries its options.
"""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest
import test_contract
import test_contract_declared

import audeval
from audeval._generic import registry as _registry


PATH = pathlib.Path(__file__).parents[1] / "docs" / "examples" / "family" / "duration.py"


def _load():
    spec = importlib.util.spec_from_file_location("duration_family_example", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example = _load()


@pytest.fixture
def registered(monkeypatch):
    """The family registered as ``audeval/_generic/registry.py`` would do with its one line."""
    family = example.FAMILY
    monkeypatch.setitem(_registry.FAMILIES, family.name, family)
    for function in (*family.metrics, family.statistics):
        monkeypatch.setitem(_registry._BY_METRIC, function, family)
    monkeypatch.setitem(test_contract.DATA, family.name, (*test_contract.LABELS, [{}], {}, None))
    return family


def test_the_example_gives_hand_computed_values():
    truth, prediction = test_contract.LABELS
    table = example.duration_statistics(truth, prediction)
    micro = table["prediction"].sum() / table["truth"].sum()
    assert example.duration_ratio(truth, prediction) == pytest.approx(micro, rel=1e-15)
    assert example.duration_ratio(table, None) == example.duration_ratio(truth, prediction)


def test_every_path_gives_the_direct_value(registered):
    truth, prediction = test_contract.LABELS
    for options in ({}, {"average": "macro"}, {"zero_division": 1.0}):
        direct = example.duration_ratio(truth, prediction, **options)
        for path, run in test_contract_declared._paths("duration", example.duration_ratio, options).items():
            assert run() == pytest.approx(direct, rel=1e-12), path


def test_the_generated_contract_tries_every_option(registered):
    cases = list(test_contract_declared._cases())
    tried = {tuple(case.values[2]) for case in cases if case.values[0] == "duration"}
    assert tried == {("files_duration",), ("zero_division",), ("average",)}
    for case in cases:
        if case.values[0] == "duration":
            test_contract_declared.test_every_declared_option_gives_the_direct_value_on_every_path(*case.values)


def test_the_bootstrap_runs_on_arrays(registered, monkeypatch):
    """The family's ``reduce`` serves every resample: the metric itself is called once (the point value)."""
    truth, prediction = test_contract.LABELS
    calls = []
    original = example.reduce  # (FAMILY.reduce calls the module's reduce)
    monkeypatch.setattr(example, "reduce", lambda c, o: calls.append(np.shape(c["truth"])) or original(c, o))
    result = audeval.bootstrap(example.duration_ratio, truth, prediction, n_boot=50)
    assert result.value == example.duration_ratio(truth, prediction)
    # one call for all 50 resamples: counts of shape (resamples, labels)
    assert (50, 3) in calls, calls


def test_options_are_checked_by_the_declaration():
    truth, prediction = test_contract.LABELS
    with pytest.raises(ValueError, match="average must be"):
        example.duration_ratio(truth, prediction, average="median")
