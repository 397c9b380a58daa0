"""Options declared once: the agreement family (issue 31 items 1, 2, 3 and 6).

What ``tests/test_declare.py`` checks for the segment and score families:

* constraints are data: every keyword option of a declared function is a field of its declaration;
* one frozen options object per call, remembering what the caller gave;
* every option the caller gives is checked exactly once per call,
  on rater mappings and on statistics tables, for every public function of the family;
* no ``locals()`` and no ``Default`` sentinel in the family's modules;

and the family's ``reduce`` on summed count arrays (the bootstrap's array path).
"""

from __future__ import annotations

import dataclasses
import pathlib
import warnings

import audformat
import numpy as np
import pandas as pd
import pytest
from test_declare import checks, keyword_defaults  # noqa: F401  (checks: the fixture counting Option.check calls)

import audeval
from audeval._core import declare as _declare
from audeval._generic import resample as _resample
from audeval._agreement import FAMILY
from audeval._agreement import reductions
from audeval._agreement.options import AGREEMENT, RATERS
from audeval._core.protocol import Counts


PACKAGE = pathlib.Path(audeval.__file__).parent
TABLE_FUNCTIONS = (FAMILY.statistics, *FAMILY.metrics)
SPAN_FUNCTIONS = (audeval.unitized_alpha, audeval.disagreements, audeval.consensus)
FUNCTIONS = TABLE_FUNCTIONS + SPAN_FUNCTIONS


def rater(rows) -> pd.Series:
    files, starts, ends, labels = zip(*rows)
    return pd.Series(list(labels), index=audformat.segmented_index(files, starts, ends))


def two_raters() -> dict:
    return {
        "r1": rater([("f", 0.0, 2.0, "a"), ("f", 2.0, 4.0, "b"), ("g", 0.5, 3.0, "a")]),
        "r2": rater([("f", 0.0, 3.0, "a"), ("f", 3.0, 5.0, "b"), ("g", 0.0, 1.0, "b")]),
    }


def random_raters(n_raters: int, n_files: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    files = [f"f{i:03d}" for i in range(n_files)]
    out = {}
    for r in range(n_raters):
        n = 6 * n_files
        file = rng.choice(files, n)
        start = np.round(rng.uniform(0, 18, n), 2)
        end = np.round(start + rng.uniform(0.1, 3, n), 2)
        out[f"r{r}"] = pd.Series(rng.choice(list("abc"), n), index=audformat.segmented_index(file, start, end))
    return out




def given_options(function) -> dict:
    """Every option at its default, except ``average`` of the kappas (given, it needs per_label)."""
    options = keyword_defaults(function)
    if function in FAMILY.metrics:
        options["per_label"] = True
    return options


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_every_given_option_is_checked_once(checks, function):
    raters = two_raters()
    options = given_options(function)
    checks.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        function(raters, None, **options)
    assert dict(checks) == dict.fromkeys(options, 1)
    checks.clear()
    function(raters)  # nothing given: the defaults were checked when declared
    assert dict(checks) == {}


@pytest.mark.parametrize("function", FAMILY.metrics, ids=lambda f: f.__name__)
@pytest.mark.parametrize("per_label", [False, True])
def test_every_given_option_is_checked_once_on_a_table(checks, function, per_label):
    raters = two_raters()
    options = {**keyword_defaults(function), "per_label": per_label, "frame_size": 0.5}
    if not per_label:
        del options["average"]  # (given, it needs per_label=True)
    table = audeval.agreement_statistics(raters, per_label=per_label, frame_size=0.5)
    given = {k: v for k, v in options.items() if k != "files_duration"}
    direct = function(raters, **options)
    checks.clear()
    value = function(table, None, **given)
    assert dict(checks) == dict.fromkeys(given, 1)
    assert value == pytest.approx(direct, abs=1e-15)


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_declared_on_its_family(function):
    declared = function.declared
    declaration = AGREEMENT if function in TABLE_FUNCTIONS else RATERS
    assert declared.family is declaration
    assert declared.arguments == ("annotations", "prediction", "labels")
    for name, default in keyword_defaults(function).items():
        field = declaration.fields[name]  # a constraint a test can read
        assert field.doc
        assert field.kind in _declare.KINDS
        assert declared.defaults[name] == field.check(default) or default is None or np.isnan(default)
        assert f"{name}:" in function.__doc__  # documented in Args
    assert not any(type(d).__name__ == "Default" for d in keyword_defaults(function).values())


def test_no_locals_and_no_default_sentinels():
    for path in sorted((PACKAGE / "_agreement").glob("*.py")):
        text = path.read_text()
        assert "locals()" not in text, path.name
        assert "Default(" not in text, path.name
        assert "statistics_of" not in text, path.name  # the family's own gate is gone


def test_options_object():
    options = AGREEMENT.build({"frame_size": 0.25, "per_label": True})
    assert options.frame_size == 250_000_000  # seconds -> int64 ns, once
    assert options.given == {"frame_size", "per_label"}
    assert options.raw == {"frame_size": 0.25, "per_label": True}
    assert options.unrated == "no_label" and options.average == "macro" and np.isnan(options.zero_division)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.per_label = False
    assert AGREEMENT.table_options == ("per_label", "frame_size", "unrated", "level") == FAMILY.options
    assert AGREEMENT.record(options) == {"per_label": True, "frame_size": 250_000_000, "unrated": "no_label"}
    assert AGREEMENT.record(AGREEMENT.build({"level": "ratio"}))["level"] == "ratio"
    assert FAMILY.normalise({"frame_size": pd.Timedelta(1, unit="s")}) == {"frame_size": 1_000_000_000}
    assert RATERS.build({"average": "none"}).average == "none"
    with pytest.raises(ValueError, match="average must be 'pooled' or 'none'; got 'macro'"):
        RATERS.build({"average": "macro"})
    with pytest.raises(ValueError, match="unrated must be 'no_label' or 'missing'; got 'skip'"):
        AGREEMENT.build({"unrated": "skip"})
    with pytest.raises(ValueError, match="frame_size must be positive"):
        AGREEMENT.build({"frame_size": 0})


def test_one_table_gate():
    """``Declaration.table`` checks a given table: options, files_duration, labels of label sets."""
    raters = two_raters()
    table = audeval.agreement_statistics(raters)
    with pytest.raises(ValueError, match="files_duration cannot be applied to a statistics table"):
        audeval.krippendorff_alpha(table, None, files_duration={"f": 5.0, "g": 3.0})
    with pytest.raises(ValueError, match="made with frame_size=None, but frame_size=500000000 was given: pass frame_size to agreement_statistics"):
        audeval.krippendorff_alpha(table, None, frame_size=0.5)
    with pytest.raises(ValueError, match="labels cannot select rows of a table of label sets"):
        audeval.krippendorff_alpha(table, None, ["a", "b"])
    with pytest.raises(ValueError, match="labels cannot select rows of a table of label sets"):
        # (even labels equal to the table's categories: they are label sets, not labels)
        audeval.krippendorff_alpha(table, None, ["<no label>", "a", "b"])
    with pytest.raises(ValueError, match="truth is a segment statistics table"):
        audeval.cohen_kappa(audeval.segment_statistics(raters["r1"], raters["r2"]), None)
    per_label = audeval.agreement_statistics(raters, per_label=True)
    direct = audeval.krippendorff_alpha(raters, None, ["b"], per_label=True, average="none")
    assert audeval.krippendorff_alpha(per_label, None, ["b"], average="none") == direct


# -------------------------------------------------------------------------
# reduce on arrays (issue 31 item 3)
# -------------------------------------------------------------------------


def test_reduce_is_vectorised_over_leading_axes():
    """Per-file counts through ``reduce`` with a leading files axis = the per-file values."""
    raters = random_raters(3, 5, seed=3)
    for per_label, average in ((False, "macro"), (True, "macro"), (True, "micro"), (True, "none")):
        table = audeval.agreement_statistics(raters, per_label=per_label, frame_size=0.1)
        files = pd.Index(table.index.get_level_values("file").unique(), dtype=object)
        labels, per_file = _resample._table_counts(FAMILY, table, files)
        counts = Counts(per_file, labels, recorded=table.attrs["audeval"]["options"])
        for metric in FAMILY.metrics:
            if metric is audeval.cohen_kappa:
                continue  # (three raters)
            options = dict(metric=metric.__name__, average=average, zero_division=np.nan)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                arrays = reductions.reduce(counts, options)
                expected = metric(table, None, per_file=True, **({"average": average} if per_label else {}))
            np.testing.assert_allclose(arrays, expected.to_numpy(), rtol=1e-12, atol=1e-14)
    with pytest.raises(NotImplementedError):
        reductions.reduce(counts, dict(metric="krippendorff_alpha", per_file=True))


@pytest.mark.parametrize(
    "metric, options",
    [
        (audeval.krippendorff_alpha, {}),
        (audeval.krippendorff_alpha, {"frame_size": 0.25}),
        (audeval.fleiss_kappa, {"unrated": "missing"}),
        (audeval.fleiss_kappa, {"per_label": True, "average": "micro"}),
        (audeval.krippendorff_alpha, {"per_label": True, "average": "none", "zero_division": 0.0}),
    ],
)
def test_bootstrap_on_arrays(monkeypatch, metric, options):
    """The bootstrap reduces all resamples at once: the direct value,
    and the distribution of a table per resample (the public metric each time)."""
    raters = random_raters(4, 12, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = metric(raters, **options)
        used = []
        of = _resample._Arrays.of

        def spy(*args, **kwargs):
            arrays = of(*args, **kwargs)
            used.append(arrays is not None)
            return arrays

        monkeypatch.setattr(_resample._Arrays, "of", spy)
        result = audeval.bootstrap(metric, raters, n_boot=40, seed=2, **options)
        assert used == [True]
        monkeypatch.setattr(_resample._Arrays, "of", lambda *args, **kwargs: None)
        tables = audeval.bootstrap(metric, raters, n_boot=40, seed=2, **options)
    assert result.value == direct
    np.testing.assert_allclose(result.distribution, tables.distribution, rtol=1e-12, atol=1e-14)
    assert result.n_files == 12


def test_cohen_kappa_bootstrap_on_arrays():
    truth, prediction = random_raters(2, 10, seed=5).values()
    direct = audeval.cohen_kappa(truth, prediction, per_label=True, average="micro")
    result = audeval.bootstrap(audeval.cohen_kappa, truth, prediction, n_boot=30, per_label=True, average="micro")
    assert result.value == direct
    assert result.low <= direct <= result.high
