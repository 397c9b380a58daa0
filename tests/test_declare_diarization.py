"""Options declared once (issue 31 items 1, 2 and 6): the diarization families.

The properties ``tests/test_declare.py`` checks for the segment and score families,
for diarization, detection, speaker change and speaker sets:

* constraints are data: every keyword option of a declared function is a field of its family;
* one frozen options object per call, remembering what the caller gave;
* every option the caller gives is checked exactly once per call,
  on Series and on statistics tables, for every public function of the four families;
* a table given in place of truth goes through the one gate (``Declaration.table``);
* no ``locals()`` and no ``Default`` sentinel in ``audeval/_diarization``.
"""

from __future__ import annotations

import collections
import dataclasses
import math

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._core import declare as _declare
from audeval._core.declare import Declaration
from audeval._diarization import DETECTION_FAMILY
from audeval._diarization import FAMILY as DIARIZATION_FAMILY
from audeval._diarization import SPEAKER_CHANGE_FAMILY, SPEAKER_SET_FAMILY
from audeval._diarization.options import DETECTION, DIARIZATION, SPEAKER_CHANGE, SPEAKER_SET

from test_declare import PACKAGE, checks, keyword_defaults  # noqa: F401 (fixture)


DECLARATIONS = {
    "diarization": DIARIZATION,
    "detection": DETECTION,
    "speaker_change": SPEAKER_CHANGE,
    "speaker_set": SPEAKER_SET,
}
FUNCTIONS = {
    family.name: (family.statistics, *family.metrics)
    for family in (DIARIZATION_FAMILY, DETECTION_FAMILY, SPEAKER_CHANGE_FAMILY, SPEAKER_SET_FAMILY)
}
DURATIONS = {"f": 10.0, "g": 8.0}


def speakers():
    index = audformat.segmented_index(["f", "f", "f", "g", "g"], [0, 2, 3, 0, 4], [2, 5, 6, 4, 8])
    truth = pd.Series(["A", "B", "A", "C", "A"], index=index)
    index = audformat.segmented_index(["f", "f", "g", "g"], [0, 2.5, 0, 3.5], [2.5, 6, 3.5, 8])
    prediction = pd.Series([1, 2, 3, 1], index=index)
    return truth, prediction


def cases(skip_tables: bool = False):
    for family, functions in FUNCTIONS.items():
        for k, function in enumerate(functions):
            if skip_tables and k == 0:
                continue  # the statistics function computes the table
            yield pytest.param(family, function, id=function.__name__)


def given_options(function) -> dict:
    """Every keyword option of ``function`` at its default, with the files' durations."""
    options = keyword_defaults(function)
    if "files_duration" in options:
        options["files_duration"] = DURATIONS
    return options


@pytest.mark.parametrize("family, function", list(cases()))
def test_every_given_option_is_checked_once(checks, family, function):
    truth, prediction = speakers()
    options = given_options(function)  # every option given (at its default)
    checks.clear()
    function(truth, prediction, **options)
    assert dict(checks) == dict.fromkeys(options, 1)
    checks.clear()
    given = {"files_duration": DURATIONS} if "files_duration" in options else {}
    function(truth, prediction, **given)  # the defaults were checked when declared
    assert dict(checks) == dict.fromkeys(given, 1)


@pytest.mark.parametrize("family, function", list(cases(skip_tables=True)))
def test_every_given_option_is_checked_once_on_a_table(checks, family, function, monkeypatch):
    truth, prediction = speakers()
    options = given_options(function)
    statistics = FUNCTIONS[family][0]
    names = set(keyword_defaults(statistics)) & set(options)
    table = statistics(truth, prediction, **{k: options[k] for k in names})
    given = {k: v for k, v in options.items() if k not in ("files_duration", "uem")}
    direct = function(truth, prediction, **options)
    # the one gate of a table: Declaration.table, once per call
    gates = collections.Counter()
    table_gate = Declaration.table

    def counting(self, *args, **kwargs):
        gates[self.family] += 1
        return table_gate(self, *args, **kwargs)

    monkeypatch.setattr(Declaration, "table", counting)
    checks.clear()
    value = function(table, None, **given)
    assert dict(checks) == dict.fromkeys(given, 1)
    assert dict(gates) == {family: 1}
    if isinstance(value, pd.DataFrame):
        pd.testing.assert_frame_equal(value, direct)
    elif isinstance(value, tuple):
        assert value == direct
    else:
        assert value == direct or (math.isnan(value) and math.isnan(direct))


@pytest.mark.parametrize("family, function", list(cases()))
def test_declared_on_its_family(family, function):
    declared = function.declared
    declaration = DECLARATIONS[family]
    assert declared.family is declaration
    assert declaration.family == family
    for name, default in keyword_defaults(function).items():
        field = declaration.fields[name]  # a constraint a test can read
        assert field.doc
        assert field.kind in _declare.KINDS
        assert declared.defaults[name] == field.check(default) or default is None
        assert f"{name}:" in function.__doc__  # documented in Args
    assert not any(type(d).__name__ == "Default" for d in keyword_defaults(function).values())
    # the family's table records exactly its declared statistics options
    assert tuple(FUNCTIONS[family][0].declared.options) == tuple(
        name for name in keyword_defaults(FUNCTIONS[family][0])
    )


@pytest.mark.parametrize("family", list(FUNCTIONS))
def test_tables_record_the_declared_options(family):
    truth, prediction = speakers()
    statistics = FUNCTIONS[family][0]
    options = given_options(statistics)
    table = statistics(truth, prediction, **options)
    recorded = table.attrs["audeval"]["options"]
    declaration = DECLARATIONS[family]
    expected = declaration.record(declaration.build({}))
    if family == "detection":
        expected = {"positive_labels": None, **expected}
    assert recorded == expected
    assert set(declaration.table_options) <= set(recorded)


def test_no_locals_and_no_default_sentinels():
    for path in sorted((PACKAGE / "_diarization").glob("*.py")):
        text = path.read_text()
        assert "locals()" not in text, path.name
        assert "Default(" not in text, path.name
        # the table gates are Declaration.table (opt.table_given), no hand-made ones
        assert "check_table(truth" not in text, path.name


def test_options_object():
    options = DIARIZATION.build({"collar": 0.25, "collar_convention": "per_side"})
    assert options.collar == 250_000_000  # seconds -> int64 ns, once
    assert options.raw == {"collar": 0.25, "collar_convention": "per_side"}
    assert options.given == {"collar", "collar_convention"}
    assert options.mapping == "optimal" and options.zero_division == 1.0 and options.beta == 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.collar = 0
    assert DIARIZATION.record(options) == {
        "collar": pd.Timedelta(0.25, unit="s"),
        "collar_convention": "per_side",
        "skip_overlap": False,
        "compat": None,
    }
    assert DIARIZATION.table_options == ("collar", "collar_convention", "skip_overlap", "compat")
    assert DETECTION.table_options == DIARIZATION.table_options
    assert SPEAKER_CHANGE.table_options == ("tolerance", "gap_tolerance")
    assert SPEAKER_SET.table_options == ("frame_size",)
    assert SPEAKER_SET.record(SPEAKER_SET.build({"frame_size": 0.01})) == {
        "frame_size": pd.Timedelta(10, unit="ms")
    }
    assert DIARIZATION_FAMILY.normalise({"collar": 0.5, "compat": "pyannote"}) == {
        "collar": pd.Timedelta(0.5, unit="s"), "compat": "pyannote",
    }
    assert SPEAKER_CHANGE_FAMILY.normalise({"gap_tolerance": 1}) == {"gap_tolerance": pd.Timedelta(1, unit="s")}


@pytest.mark.parametrize(
    "declaration, given, error, message",
    [
        (DIARIZATION, {"collar": -1.0}, ValueError, "collar must not be negative"),
        (DIARIZATION, {"collar_convention": "both"}, ValueError, "collar_convention must be 'total' or 'per_side'"),
        (DIARIZATION, {"skip_overlap": None}, TypeError, "skip_overlap must be True or False"),
        (DIARIZATION, {"compat": "md-eval"}, ValueError, "compat must be None or 'pyannote'"),
        (DIARIZATION, {"mapping": "hungarian"}, ValueError, "mapping must be one of"),
        (DIARIZATION, {"regions": "some"}, ValueError, "regions must be one of"),
        (DIARIZATION, {"beta": 0}, ValueError, "beta must be a positive, finite float; got 0"),
        (DIARIZATION, {"beta": np.inf}, ValueError, "beta must be a positive, finite float"),
        (DIARIZATION, {"beta": "1"}, TypeError, "beta must be a positive float; got str"),
        (DETECTION, {"zero_division": 0.5}, ValueError, "zero_division must be 0.0, 1.0 or nan"),
        (SPEAKER_SET, {"frame_size": 0}, ValueError, "frame_size must be positive"),
        (SPEAKER_CHANGE, {"gap_tolerance": None}, TypeError, "gap_tolerance must be a duration"),
    ],
)
def test_errors_name_the_option(declaration, given, error, message):
    with pytest.raises(error, match=message):
        declaration.build(given)


def test_identity_mapping_is_the_reports_and_the_identification_metrics_need_it():
    truth, prediction = speakers()
    assert audeval.identification_error_rate.declared.needs == {
        "mapping": "identity", "individual_file_mapping": True,
    }
    assert audeval.identification_precision_recall.declared.defaults["mapping"] == "identity"
    with pytest.raises(ValueError, match="mapping must be 'optimal' or 'greedy'; got 'identity'"):
        audeval.diarization_error_rate(truth, prediction, mapping="identity", files_duration=DURATIONS)
    with pytest.raises(ValueError, match="got 'identity'"):
        audeval.diarization_speaker_report(truth, prediction, mapping="identity", files_duration=DURATIONS)
    # the report takes it: its DER is the identification error rate
    truth_as_prediction = truth.copy()
    report = audeval.diarization_report(
        truth, truth_as_prediction.iloc[::-1], mapping="identity", files_duration=DURATIONS
    )
    assert report.loc["TOTAL", "diarization_error_rate"] == 0.0
    report = audeval.diarization_report(truth, prediction, mapping="identity", files_duration=DURATIONS)
    ier = audeval.identification_error_rate(truth, prediction, files_duration=DURATIONS)
    assert report.loc["TOTAL", "diarization_error_rate"] == ier == 1.0  # labels never equal


@pytest.mark.parametrize(
    "function, statistics",
    [
        (audeval.diarization_error_rate, audeval.diarization_statistics),
        (audeval.detection_error_rate, audeval.detection_statistics),
        (audeval.diarization_cluster_report, audeval.speaker_set_statistics),
    ],
)
def test_inputs_of_the_statistics_raise_with_a_table(function, statistics):
    truth, prediction = speakers()
    table = statistics(truth, prediction, files_duration=DURATIONS)
    uem = audformat.segmented_index(["f"], [0], [5])
    with pytest.raises(ValueError, match="files_duration cannot be applied to a statistics table"):
        function(table, files_duration=DURATIONS)
    name = statistics.__name__
    with pytest.raises(ValueError, match=f"uem cannot be applied to a statistics table; pass it to {name}"):
        function(table, uem=uem)
    with pytest.raises(ValueError, match="the statistics table was made with collar|frame_size"):
        function(table, **({"frame_size": 0.01} if "frame_size" in keyword_defaults(function) else {"collar": 0.5}))
    with pytest.raises(TypeError, match="prediction must be None"):
        function(table, prediction)
    with pytest.raises(TypeError, match=f"prediction is None: pass a prediction Series, or a table from {name}"):
        function(truth, None)


def test_detection_positive_labels_against_a_table():
    truth = pd.Series(["speech", "music"], index=audformat.segmented_index(["f", "f"], [0, 3], [2, 6]))
    prediction = pd.Series(["speech"], index=audformat.segmented_index(["f"], [1], [5]))
    options = dict(files_duration={"f": 8})
    table = audeval.detection_statistics(truth, prediction, ["speech"], **options)
    direct = audeval.detection_error_rate(truth, prediction, ["speech"], **options)
    assert direct == 2.0  # miss [0, 1), false alarm [2, 5): 4 s of errors over 2 s of speech
    assert audeval.detection_error_rate(table) == direct
    assert audeval.detection_error_rate(table, None, ["speech"]) == direct
    with pytest.raises(ValueError, match=r"made with positive_labels=\['speech'\]"):
        audeval.detection_error_rate(table, None, ["music"])
    with pytest.raises(ValueError, match="positive_labels must not contain duplicates"):
        audeval.detection_error_rate(truth, prediction, ["speech", "speech"], **options)
