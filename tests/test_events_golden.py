"""Event-based metrics against golden values of sed_eval 0.2.1 and audmetric 1.4.2.

The golden files under ``tests/assets/events/`` are written
by ``tests/assets/events/make_golden.py``
(run by hand with the reference environment, see its docstring).
Every value is compared to 1e-12 absolute.

Mapping of the parameters:

* sed_eval ``EventBasedMetrics(evaluate_onset, evaluate_offset, t_collar,
  percentage_of_length, event_matching_type)``
  is audeval with ``onset_tolerance=t_collar`` (``None`` without onset),
  ``offset_tolerance=t_collar`` and ``duration_tolerance=percentage_of_length``
  (both ``None`` without offset) and ``matching=event_matching_type``.
  sed_eval gives NaN for an undefined precision or recall
  and an F-score of NaN when one of them is NaN:
  audeval with ``zero_division=nan, propagate_nans=True``.
  sed_eval divides error rates by ``N + eps``:
  where ``N = 0`` this gives ``x / eps`` (audeval: ``inf``)
  or 0 (audeval: ``zero_division``, here 0.0).
* audmetric is audeval with ``matching="greedy"``;
  audmetric's ``offset_tolerance=None`` means 0
  unless a ``duration_tolerance`` is given.

Every case is checked with the metrics computed from ``event_statistics``
(the statistics table in place of ``truth``);
the first case of every scenario also with every metric called on the Series.

Substitutions:
in greedy mode audeval and sed_eval (first fit in time order) agree exactly.
In optimal mode sed_eval pairs the leftovers of *its* maximum matching first-fit,
audeval (SPEC section 3) the leftovers of *its* maximum matching
by a maximum matching.
The numbers of matches always agree;
the substitutions differ on 12 of the 70 optimal cases
(first fit vs maximum, and a different choice among several maximum matchings):
there the overall error rates are checked against sed_eval's counts
with audeval's substitutions,
and ``test_optimal_substitutions_not_fewer_than_sed_eval``
asks for at least sed_eval's number
(audeval maximises substitutions over all maximum matchings).
"""

from __future__ import annotations

import functools
import json
import math
import os

import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_ABSENT_LABELS

import audformat

import audeval


ASSETS = os.path.join(os.path.dirname(__file__), "assets", "events")
ATOL = 1e-12
EPS = float(np.spacing(1))
NAN = float("nan")
INF = float("inf")


def load(name: str) -> list[dict]:
    with open(os.path.join(ASSETS, name)) as fp:
        return json.load(fp)["cases"]


SED_EVAL = load("sed_eval.json")
AUDMETRIC = load("audmetric.json")


def read(path: str) -> pd.Series:
    # parse the decimal strings with float(), as the generator does
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    index = audformat.segmented_index(
        df["file"].tolist(),
        [float(x) for x in df["start"]],
        [float(x) for x in df["end"]],
    )
    return pd.Series(df["label"].tolist(), index=index, dtype=object)


@functools.cache
def scenario(name: str) -> tuple[pd.Series, pd.Series]:
    truth = read(os.path.join(ASSETS, "inputs", f"{name}.truth.csv"))
    prediction = read(os.path.join(ASSETS, "inputs", f"{name}.prediction.csv"))
    return truth, prediction


class Checker:
    """Collects every mismatch of one case, then fails with all of them."""

    def __init__(self, case_id: str):
        self.case_id = case_id
        self.errors = []
        self.max_diff = 0.0

    def value(self, what: str, actual: float, expected: float | None) -> None:
        actual = float(actual)
        expected = NAN if expected is None else float(expected)
        if math.isnan(expected) or math.isinf(expected):
            ok = (math.isnan(expected) and math.isnan(actual)) or actual == expected
        else:
            ok = not math.isnan(actual) and abs(actual - expected) <= ATOL
            if ok:
                self.max_diff = max(self.max_diff, abs(actual - expected))
        if not ok:
            self.errors.append(f"{what}: audeval {actual!r} != reference {expected!r}")

    def values(self, what: str, actual, expected, labels) -> None:
        actual = list(actual)
        if len(actual) != len(expected):
            self.errors.append(f"{what}: {len(actual)} values != {len(expected)}")
            return
        for label, a, e in zip(labels, actual, expected):
            self.value(f"{what}[{label}]", a, e)

    def equal(self, what: str, actual, expected) -> None:
        if actual != expected:
            self.errors.append(f"{what}: audeval {actual!r} != reference {expected!r}")

    def check(self) -> None:
        assert not self.errors, f"{self.case_id}:\n" + "\n".join(self.errors)


def rate(value: float | None, n: int, zero_division: float = 0.0) -> float | None:
    """sed_eval's ``x / (N + eps)`` as audeval gives it with ``zero_division``."""
    if value is not None and n == 0:
        # x / eps: the count is recovered exactly
        count = value * EPS
        assert abs(count - round(count)) < 1e-9
        return INF if count > 0 else zero_division
    return value


def average_rate(value: float | None) -> float | None:
    """A class-wise average including some ``x / eps`` is ``inf`` in audeval."""
    if value is not None and value > 1e14:
        return INF
    return value


# -------------------------------------------------------------------------
# sed_eval
# -------------------------------------------------------------------------


def sed_options(case: dict) -> dict:
    collar = case["t_collar"]
    offset = case["evaluate_offset"]
    return dict(
        onset_tolerance=collar if case["evaluate_onset"] else None,
        offset_tolerance=collar if offset else None,
        duration_tolerance=case["percentage_of_length"] if offset else None,
        matching=case["matching"],
    )


def sed_id(case: dict) -> str:
    return case["id"]


class Calls:
    """Calls a metric on the Series, or on a statistics table (``prediction=None``)."""

    def __init__(self, truth, prediction, labels, options):
        self.args = (truth, prediction, labels)
        self.options = options

    def __call__(self, function, **kwargs):
        return function(*self.args, **self.options, **kwargs)


STATISTICS = {}


def statistics(case: dict, options: dict, confusion: bool = False) -> pd.DataFrame:
    """``event_statistics`` of a case (computed once, read only)."""
    key = (case["id"], confusion)
    if key not in STATISTICS:
        truth, prediction = scenario(case["scenario"])
        STATISTICS[key] = audeval.event_statistics(
            truth, prediction, case["labels"], confusion=confusion, **options
        )
    return STATISTICS[key]


def compare_sed_eval(case: dict, call: Calls, stats: pd.DataFrame) -> Checker:
    """Every sed_eval value of one case against audeval."""
    label_list = case["label_list"]
    nan = dict(zero_division=NAN)
    prop = dict(zero_division=NAN, propagate_nans=True)
    zero = dict(zero_division=0.0)
    c = Checker(case["id"])
    cw = case["class_wise"]
    ov = case["overall"]
    avg = case["class_wise_average"]

    # Counts
    # (sort=True: the label order of the categorical level; event tables hold only the rows
    # that occur, so the order of first appearance is not the label order, issue 32 item 1)
    summed = stats.groupby(level="label", observed=False, sort=True).sum()
    c.equal("labels", [str(x) for x in summed.index], label_list)
    c.equal("n_truth", summed["n_truth"].tolist(), cw["Nref"])
    c.equal("n_prediction", summed["n_prediction"].tolist(), cw["Nsys"])
    c.equal("tp", summed["tp"].tolist(), cw["Ntp"])
    c.equal("tp overall", int(summed["tp"].sum()), ov["Ntp"])
    n = ov["Nref"]
    fn = n - ov["Ntp"]
    fp = ov["Nsys"] - ov["Ntp"]
    substitutions = int(summed["substituted"].sum())
    c.equal("substituting", int(summed["substituting"].sum()), substitutions)
    if case["matching"] == "greedy":
        c.equal("substitutions", substitutions, ov["Nsubs"])
    else:
        # maximum matching among leftovers (audeval) vs first fit (sed_eval):
        # the direction is checked in test_optimal_substitutions_not_fewer
        assert substitutions <= min(fn, fp)

    # Class-wise
    for name, function, options, theirs in (
        ("precision", audeval.event_precision_per_class, nan, "precision"),
        ("recall", audeval.event_recall_per_class, nan, "recall"),
        ("fscore", audeval.event_fscore_per_class, prop, "f_measure"),
    ):
        c.values(name, call(function, **options).values(), cw[theirs], label_list)
    c.values(
        "error_rate",
        call(audeval.event_error_rate_per_class, **zero).values(),
        [rate(v, k) for v, k in zip(cw["error_rate"], cw["Nref"])],
        label_list,
    )
    # one report with zero_division=nan: a rate 0 / 0 is NaN there
    report = call(audeval.event_report, **prop)
    classes = report.loc[label_list]
    for ours, theirs in (("precision", "precision"), ("recall", "recall"), ("fscore", "f_measure")):
        c.values(f"report {ours}", classes[ours], cw[theirs], label_list)
    for column in ("error_rate", "deletion_rate", "insertion_rate"):
        c.values(
            f"report {column}",
            classes[column],
            [rate(v, k, NAN) for v, k in zip(cw[column], cw["Nref"])],
            label_list,
        )

    # Overall (micro)
    c.value("fscore micro", call(audeval.event_fscore, average="micro", **prop), ov["f_measure"])
    micro = report.loc["micro"]
    c.value("report micro precision", micro["precision"], ov["precision"])
    c.value("report micro recall", micro["recall"], ov["recall"])
    if ov["f_measure"] is not None:
        # a NaN micro F-score: see test_report_micro_fscore_propagates_nans
        c.value("report micro fscore", micro["fscore"], ov["f_measure"])
    expected = {
        "error_rate": ov["error_rate"],
        "substitution_rate": ov["substitution_rate"],
        "deletion_rate": ov["deletion_rate"],
        "insertion_rate": ov["insertion_rate"],
    }
    if substitutions != ov["Nsubs"]:
        # sed_eval's values follow from its counts ...
        s = ov["Nsubs"]
        for key, count in (
            ("error_rate", fn + fp - s),
            ("substitution_rate", s),
            ("deletion_rate", fn - s),
            ("insertion_rate", fp - s),
        ):
            assert abs(expected[key] - count / n) <= ATOL
        # ... audeval's from the same counts with its substitutions
        s = substitutions
        expected = {
            "error_rate": (fn + fp - s) / n,
            "substitution_rate": s / n,
            "deletion_rate": (fn - s) / n,
            "insertion_rate": (fp - s) / n,
        }
    c.value(
        "error_rate overall",
        call(audeval.event_error_rate, **zero),
        rate(expected["error_rate"], n),
    )
    for key, value in expected.items():
        c.value(f"report micro {key}", micro[key], rate(value, n, NAN))

    # Class-wise averages (nanmean over classes)
    c.value(
        "fscore macro", call(audeval.event_fscore, average="macro", **prop), avg["f_measure"]
    )
    c.value(
        "unweighted average fscore",
        call(audeval.event_unweighted_average_fscore, **prop),
        avg["f_measure"],
    )
    macro = report.loc["macro"]
    for ours, theirs in (("precision", "precision"), ("recall", "recall"), ("fscore", "f_measure")):
        c.value(f"report macro {ours}", macro[ours], avg[theirs])
    if not all(cw["Nref"]):
        # sed_eval averages 0 / (0 + eps) = 0 for a class without truth events and errors
        macro = call(audeval.event_report, **zero).loc["macro"]
    for column in ("error_rate", "deletion_rate", "insertion_rate"):
        c.value(f"report macro {column}", macro[column], average_rate(avg[column]))
    return c


@MAY_WARN_ABSENT_LABELS
@pytest.mark.parametrize("case", SED_EVAL, ids=sed_id)
def test_sed_eval(case):
    """All cases, the metrics computed from the statistics table."""
    options = sed_options(case)
    stats = statistics(case, options)
    compare_sed_eval(case, Calls(stats, None, case["labels"], {}), stats).check()


def _first_per_scenario(cases: list[dict], key) -> list[dict]:
    seen = set()
    out = []
    for case in cases:
        if key(case) not in seen:
            seen.add(key(case))
            out.append(case)
    return out


# The first parameter set of every scenario, matching and label list:
# every metric called on the Series
SED_EVAL_SERIES = _first_per_scenario(
    SED_EVAL, lambda case: (case["scenario"], case["matching"], case["labels"] is None)
)


@MAY_WARN_ABSENT_LABELS
@pytest.mark.parametrize("case", SED_EVAL_SERIES, ids=sed_id)
def test_sed_eval_series(case):
    """Some cases, every metric called on the Series."""
    truth, prediction = scenario(case["scenario"])
    options = sed_options(case)
    stats = statistics(case, options)
    compare_sed_eval(case, Calls(truth, prediction, case["labels"], options), stats).check()


def test_sed_eval_cases_exercise_what_they_should():
    """The golden cases really cover what they are meant to cover."""
    kinds = {case["kind"] for case in SED_EVAL}
    assert kinds == {"sparse", "dense", "hand"}
    # greedy and optimal differ (number of matches) on several dense cases
    tp = {case["id"]: case["overall"]["Ntp"] for case in SED_EVAL}
    differ = [
        case_id
        for case_id in tp
        if "-optimal" in case_id and tp[case_id] != tp[case_id.replace("-optimal", "-greedy")]
    ]
    assert len(differ) >= 5
    # files with events on one side only
    one_side = 0
    for name in {case["scenario"] for case in SED_EVAL}:
        truth, prediction = scenario(name)
        files_truth = set(truth.index.get_level_values("file"))
        files_prediction = set(prediction.index.get_level_values("file"))
        one_side += bool(files_truth - files_prediction) and bool(files_prediction - files_truth)
    assert one_side >= 3
    # substitutions, labels on one side only, empty sides
    assert sum(c["overall"]["Nsubs"] > 0 for c in SED_EVAL) >= 50
    assert any(c["overall"]["Nref"] == 0 for c in SED_EVAL)
    assert any(c["overall"]["Nsys"] == 0 for c in SED_EVAL)
    assert any(0 in c["class_wise"]["Nref"] and c["overall"]["Nref"] for c in SED_EVAL)
    assert any(0 in c["class_wise"]["Nsys"] and c["overall"]["Nsys"] for c in SED_EVAL)
    # every kind of evaluation
    modes = {(c["evaluate_onset"], c["evaluate_offset"]) for c in SED_EVAL}
    assert modes == {(True, True), (True, False), (False, True)}
    assert {c["t_collar"] for c in SED_EVAL} >= {0.05, 0.2, 0.5}
    assert {c["percentage_of_length"] for c in SED_EVAL} >= {0.0, 0.2, 0.5}


# -------------------------------------------------------------------------
# audmetric
# -------------------------------------------------------------------------


def audmetric_options(case: dict) -> dict:
    offset = case["offset_tolerance"]
    duration = case["duration_tolerance"]
    if offset is None and duration is None:
        offset = 0.0  # audmetric's None is 0; audeval's None is "not evaluated"
    return dict(
        onset_tolerance=case["onset_tolerance"],
        offset_tolerance=offset,
        duration_tolerance=duration,
        matching="greedy",
    )


def compare_audmetric(case: dict, call: Calls) -> Checker:
    label_list = case["label_list"]
    c = Checker(case["id"])
    for key, zero_division, propagate_nans in (
        ("zero", 0.0, False),
        ("nan", NAN, True),
        ("one", 1.0, False),
    ):
        precision = call(audeval.event_precision_per_class, zero_division=zero_division)
        c.equal("labels", [str(x) for x in precision], label_list)
        c.values(f"precision_{key}", precision.values(), case[f"precision_{key}"], label_list)
        recall = call(audeval.event_recall_per_class, zero_division=zero_division)
        c.values(f"recall_{key}", recall.values(), case[f"recall_{key}"], label_list)
        options = dict(zero_division=zero_division, propagate_nans=propagate_nans)
        fscore = call(audeval.event_fscore_per_class, **options)
        c.values(f"fscore_{key}", fscore.values(), case[f"fscore_{key}"], label_list)
        uaf = call(audeval.event_unweighted_average_fscore, **options)
        c.value(f"uaf_{key}", uaf, case[f"uaf_{key}"])
    c.equal("confusion_matrix", call(audeval.event_confusion_matrix), case["confusion_matrix"])
    cm = call(audeval.event_confusion_matrix, normalize=True)
    expected = case["confusion_matrix_normalized"]
    c.equal("normalized shape", [len(row) for row in cm], [len(row) for row in expected])
    for i, (row, expected_row) in enumerate(zip(cm, expected)):
        c.values(f"normalized row {i}", row, expected_row, range(len(row)))
    return c


def audmetric_id(case: dict) -> str:
    return case["id"]


@pytest.mark.parametrize("case", AUDMETRIC, ids=audmetric_id)
def test_audmetric(case):
    """All cases, the metrics computed from the statistics table."""
    stats = statistics(case, audmetric_options(case), confusion=True)
    compare_audmetric(case, Calls(stats, None, case["labels"], {})).check()


AUDMETRIC_SERIES = _first_per_scenario(AUDMETRIC, lambda case: case["scenario"])


@pytest.mark.parametrize("case", AUDMETRIC_SERIES, ids=audmetric_id)
def test_audmetric_series(case):
    """The first case of every scenario, every metric called on the Series."""
    truth, prediction = scenario(case["scenario"])
    call = Calls(truth, prediction, case["labels"], audmetric_options(case))
    compare_audmetric(case, call).check()


def test_audmetric_cases_exercise_what_they_should():
    assert any(c["onset_tolerance"] is None for c in AUDMETRIC)
    assert any(c["offset_tolerance"] is None and c["duration_tolerance"] is None for c in AUDMETRIC)
    assert any(c["offset_tolerance"] is None and c["duration_tolerance"] for c in AUDMETRIC)
    assert any(c["labels"] is not None for c in AUDMETRIC)
    # substitutions (off-diagonal entries of the label block)
    def substitutions(cm):
        n = len(cm) - 1
        return sum(cm[i][j] for i in range(n) for j in range(n) if i != j)

    assert sum(substitutions(c["confusion_matrix"]) > 0 for c in AUDMETRIC) >= 20
    # exact matches with zero tolerance
    exact = [c for c in AUDMETRIC if c["scenario"] == "exact_copies"]
    assert exact and all(
        sum(c["confusion_matrix"][i][i] for i in range(len(c["label_list"]))) > 0 for c in exact
    )


# -------------------------------------------------------------------------
# Where audeval and sed_eval differ by design (substitutions), and regressions
# -------------------------------------------------------------------------


OPTIMAL = [case for case in SED_EVAL if case["matching"] == "optimal"]


@MAY_WARN_ABSENT_LABELS
def test_optimal_substitutions_not_fewer_than_sed_eval():
    """sed_eval pairs the leftovers of a maximum matching first-fit.

    Taking the most substitutions over all maximum matchings
    can only give as many or more.
    """
    fewer = []
    for case in OPTIMAL:
        stats = statistics(case, sed_options(case))
        substitutions = int(stats["substituted"].sum())
        if substitutions < case["overall"]["Nsubs"]:
            fewer.append((case["id"], substitutions, case["overall"]["Nsubs"]))
    assert not fewer, fewer


def events(rows):
    files, starts, ends, labels = zip(*rows)
    return pd.Series(
        list(labels), index=audformat.segmented_index(list(files), list(starts), list(ends))
    )


def test_error_rate_does_not_depend_on_row_order():
    """Minimal case (also the golden scenario ``tie_break``).

    Truth "a" at 0.5 s can match either predicted "a";
    only the later one can substitute the truth "b" at 1.3 s.
    sed_eval (optimal and greedy) gives ER = 0.5.
    """
    truth = events([("f", 0.5, 1.5, "a"), ("f", 1.3, 2.3, "b")])
    prediction = events([("f", 0.1, 1.1, "a"), ("f", 0.9, 1.9, "a")])
    options = dict(onset_tolerance=0.5, offset_tolerance=None)
    assert audeval.event_error_rate(truth, prediction, **options) == 0.5
    assert audeval.event_error_rate(truth, prediction.iloc[::-1], **options) == 0.5


NAN_MICRO = [case for case in SED_EVAL if case["overall"]["f_measure"] is None]


@pytest.mark.parametrize("case", NAN_MICRO, ids=sed_id)
def test_report_micro_fscore_propagates_nans(case):
    """sed_eval's overall F-score is NaN when precision or recall is NaN."""
    truth, prediction = scenario(case["scenario"])
    options = dict(sed_options(case), zero_division=NAN, propagate_nans=True)
    expected = audeval.event_fscore(truth, prediction, case["labels"], average="micro", **options)
    report = audeval.event_report(truth, prediction, case["labels"], **options)
    assert math.isnan(expected)
    assert math.isnan(report.loc["micro", "fscore"])
