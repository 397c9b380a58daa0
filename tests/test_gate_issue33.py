"""Issue 33, the validation gate: silent numbers and unclear errors found by first use.

Items 3 (no shared file), 6 (files only in ``files_duration``), 7 (a row makes a label occur),
11 (``sum_statistics`` of one file twice), 13 (durations beyond int64 ns, unhashable labels),
15 (``best_permutation`` with NaN, ``labels=[]``), 23 (no ``isna`` pass over object labels)
and 22 (documentation of the frame rule, AMI of singletons, offline math).
"""

from __future__ import annotations

import inspect
import os
import re
import warnings

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
import audeval.separation as sep
from audeval._core.validation import check_inputs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def S(rows, dtype=object) -> pd.Series:
    """Series on an audformat segmented index from (file, start, end, label) rows."""
    files, starts, ends, labels = zip(*rows) if rows else ([], [], [], [])
    index = audformat.segmented_index(list(files), list(starts), list(ends))
    return pd.Series(list(labels), index=index, dtype=dtype)


# -------------------------------------------------------------------------
# Item 3: truth and prediction share no file
# -------------------------------------------------------------------------

A_WAV = S([("a.wav", 0, 1, "x")])
A = S([("a", 0, 1, "x")])


@pytest.mark.parametrize(
    "metric, expected",
    [
        (audeval.event_fscore, 0.0),
        (audeval.segment_fscore, 0.0),
        (audeval.diarization_error_rate, 2.0),
        (audeval.cohen_kappa, -1.0),
    ],
)
def test_no_shared_file_warns_how_files_match(metric, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # e.g. DER without files_duration
        warnings.simplefilter("error", audeval.NoSharedFileWarning)
        with pytest.raises(audeval.NoSharedFileWarning) as caught:
            metric(A_WAV, A)
    message = str(caught.value)
    assert "share no file" in message
    assert "exact equality of the 'file' index level" in message
    assert "'a.wav'" in message and "'a'" in message  # a few names of each side
    assert "without folder and extension" in message  # their stems agree
    with pytest.warns(audeval.NoSharedFileWarning):  # the number is still returned
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            warnings.simplefilter("always", audeval.NoSharedFileWarning)
            assert metric(A_WAV, A) == expected


def test_no_shared_file_only_when_both_sides_have_rows():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_inputs(A_WAV, A_WAV)  # shared
        check_inputs(A_WAV, A.iloc[:0])  # one side empty: nothing to match
        check_inputs(A.iloc[:0], A)
        check_inputs(S([("a", 0, 1, "x"), ("b", 0, 1, "x")]), S([("b", 0, 2, "x"), ("c", 0, 1, "x")]))


def test_no_shared_file_is_a_user_warning_without_stem_hint():
    assert issubclass(audeval.NoSharedFileWarning, UserWarning)
    with pytest.warns(audeval.NoSharedFileWarning, match=r"truth has 1 file\(s\): 'a'.*prediction has 1") as caught:
        check_inputs(A, S([("b", 0, 1, "x")]))
    assert "without folder and extension" not in str(caught[0].message)


# -------------------------------------------------------------------------
# Item 6: files of files_duration in neither input
# -------------------------------------------------------------------------


def test_files_only_in_files_duration_warn_naming_them():
    truth, prediction, durations = audeval.example_data()
    assert len(durations) == 6
    clip = truth.index.get_level_values("file")[0]
    t = truth[truth.index.get_level_values("file") == clip]
    p = prediction[prediction.index.get_level_values("file") == clip]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        alone = audeval.segment_accuracy(t, p, files_duration=durations.loc[[clip]])
    with pytest.warns(audeval.FilesWithoutRowsWarning) as caught:
        inflated = audeval.segment_accuracy(t, p, files_duration=durations)
    message = str(caught[0].message)
    assert message.startswith("5 file(s) of files_duration occur in neither truth nor prediction")
    others = sorted(set(durations.index) - {clip})
    assert repr(others[0]) in message and "..." in message
    assert "FilesWithoutRowsWarning" in message  # how to silence it
    assert inflated > alone  # the warned-about effect: true negatives of five files
    # the documented way to silence it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=audeval.FilesWithoutRowsWarning)
        assert audeval.segment_accuracy(t, p, files_duration=durations) == inflated


def test_files_only_in_files_duration_every_family():
    t = S([("f", 0, 1, "x")])
    durations = {"f": 2.0, "g": 2.0}
    for metric in (
        audeval.event_fscore,
        audeval.segment_fscore,
        audeval.detection_error_rate,
        audeval.cohen_kappa,
    ):
        with pytest.warns(audeval.FilesWithoutRowsWarning, match=r"1 file\(s\).*\('g'\)"):
            metric(t, t, files_duration=durations)
    with warnings.catch_warnings():  # a key with an unknown duration is no evaluated file
        warnings.simplefilter("error")
        check_inputs(t, t, files_duration={"f": 2.0, "g": None})
        # families whose evaluated time comes from the truth do not evaluate such files
        check_inputs(t, t, files_duration=durations, duration_files=False)


def test_batched_paths_do_not_warn_per_batch():
    t = S([("f", 0, 1, "x"), ("g", 0, 1, "x")])
    durations = {"f": 2.0, "g": 2.0}
    acc = audeval.Accumulator(audeval.segment_fscore, files_duration=durations)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        acc.update(t.loc[["f"]], t.loc[["f"]])
        acc.update(t.loc[["g"]], t.loc[["g"]])
        assert acc.compute() == audeval.segment_fscore(t, t, files_duration=durations)


def test_files_of_no_batch_so_far_are_named_mid_epoch():
    """Item 6: a compute() before the last batch counts the files no batch held: say so."""
    t = S([("f", 0, 1, "x"), ("g", 0, 1, "x"), ("h", 0, 1, "x")])
    durations = {"f": 2.0, "g": 2.0, "h": 2.0}
    acc = audeval.Accumulator(audeval.segment_accuracy, files_duration=durations)
    acc.update(t.loc[["f"]], t.loc[["f"]])
    with pytest.warns(audeval.FilesWithoutRowsWarning, match=r"2 file\(s\) of files_duration are in no batch.*'g', 'h'"):
        mid_epoch = acc.compute()
    assert mid_epoch == 1.0  # f right, g and h counted as files without events
    acc.update(t.loc[["g", "h"]], t.loc[["g", "h"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert acc.compute() == audeval.segment_accuracy(t, t, files_duration=durations)


# -------------------------------------------------------------------------
# Item 7: a row makes a label occur
# -------------------------------------------------------------------------


def test_zero_length_label_counts_in_macro_averages():
    t = S([("f0.wav", 0, 0, "b")])
    p = S([("f0.wav", 0, 10, "a")])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*left out of macro averages.*")
        warnings.simplefilter("ignore", audeval.UndefinedMetricWarning)
        report = audeval.segment_report(t, p)
        macro_f = audeval.segment_fscore(t, p, average="macro")
    rows = report.loc[["a", "b"]]
    assert list(report.index) == ["a", "b", "micro", "macro"]
    for column in ("precision", "recall", "fscore", "specificity", "balanced_accuracy", "accuracy"):
        assert report.loc["macro", column] == pytest.approx(rows[column].mean()), column
    assert report.loc["macro", "accuracy"] == 0.5  # a: 0 of 10 segments, b: 10 of 10
    assert macro_f == report.loc["macro", "fscore"] == 0.0


def test_unused_category_still_left_out_of_macro_averages():
    categories = ["a", "b", "c"]
    t = S([("f", 0, 0, "b"), ("f", 0, 10, "a")], dtype=pd.CategoricalDtype(categories))
    with pytest.warns(UserWarning, match=r"labels \['c'\] occur in neither"):
        report = audeval.segment_report(t, t)
    assert report.loc["macro", "accuracy"] == 1.0  # a and b (zero length) count, c does not
    assert report.loc["macro", "specificity"] == pytest.approx(np.mean(report.loc[["a", "b"], "specificity"]))


def test_events_zero_length_label_counts():
    t = S([("f0.wav", 0, 0, "b")])
    p = S([("f0.wav", 0, 10, "a")])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*left out of macro averages.*")
        warnings.simplefilter("ignore", audeval.UndefinedMetricWarning)
        report = audeval.event_report(t, p)
    assert report.loc["macro", "recall"] == pytest.approx(report.loc[["a", "b"], "recall"].mean())


# -------------------------------------------------------------------------
# Item 11: sum_statistics of the same files twice
# -------------------------------------------------------------------------


def test_sum_statistics_refuses_a_file_in_two_tables():
    t = S([("f1", 0, 1, "x"), ("f2", 0, 1, "x")])
    st = audeval.event_statistics(t, t)
    with pytest.raises(ValueError, match=r"files \['f1', 'f2'\] are in more than one table"):
        audeval.sum_statistics([st, st])
    other = audeval.event_statistics(S([("f3", 0, 1, "x")]), S([("f3", 0, 1, "x")]))
    with pytest.raises(ValueError, match=r"files \['f1', 'f2'\]"):
        audeval.sum_statistics([st, other, st])
    # consistent with the Accumulator's message
    acc = audeval.Accumulator(audeval.event_fscore)
    acc.update(st)
    with pytest.raises(ValueError, match="every file must be in one"):
        acc.update(st)
    assert audeval.sum_statistics([st, other]).shape[0] == 3


# -------------------------------------------------------------------------
# Item 13: options of duration kind beyond int64 ns, unhashable labels
# -------------------------------------------------------------------------

T = S([("f.wav", 0, 1, "a"), ("f.wav", 2, 3, "b")])
P = S([("f.wav", 0, 1.5, "a"), ("f.wav", 2, 4, "b")])
FRAMES = pd.DataFrame(
    {"a": [0.9, 0.1, 0.8, 0.2], "b": [0.1, 0.9, 0.9, 0.3]},
    index=pd.MultiIndex.from_arrays(
        [
            ["f.wav"] * 4,
            pd.to_timedelta(np.arange(4), unit="s"),
            pd.to_timedelta(np.arange(1, 5), unit="s"),
        ],
        names=["file", "start", "end"],
    ),
)


def _public_functions():
    for name in sorted(audeval.__all__):
        function = getattr(audeval, name)
        if callable(function) and not inspect.isclass(function):
            yield name, function


def _is_duration(name: str, parameter: inspect.Parameter) -> bool:
    """Options of duration kind, found by their annotation (seconds or a timedelta)."""
    annotation = str(parameter.annotation)
    return "Timedelta" in annotation or "Tolerance" in annotation or name == "windows"


DURATION_OPTIONS = [
    (name, option)
    for name, function in _public_functions()
    for option, parameter in inspect.signature(function).parameters.items()
    if _is_duration(option, parameter)
]


def _arguments(name: str, function) -> tuple:
    first = list(inspect.signature(function).parameters)[:2]
    if first == ["truth", "scores"]:
        return T, FRAMES
    if first in (["scores", "threshold"], ["scores", "length"]) or name == "scores_to_events":
        return (FRAMES,)
    if name.startswith("hierarchy"):
        return {"l0": S([("f.wav", 0, 4, "x")]), "l1": T}, {"l0": S([("f.wav", 0, 4, "x")]), "l1": P}
    return T, P


def test_duration_options_are_found():
    options = {option for _, option in DURATION_OPTIONS}
    assert {
        "time_resolution", "onset_tolerance", "offset_tolerance", "collar", "frame_size",
        "window", "windows", "tolerance", "gap_tolerance", "segment_length", "median_filter",
    } <= options
    assert len(DURATION_OPTIONS) >= 98


@pytest.mark.parametrize("value", [1e10, 1e300])
@pytest.mark.parametrize("name, option", DURATION_OPTIONS)
def test_huge_durations_raise_naming_the_option(name, option, value):
    function = getattr(audeval, name)
    given = (value, value) if option == "windows" or (option == "window" and name.startswith("structure")) else value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=rf"^{option} must be at most 1e\+09 seconds"):
            function(*_arguments(name, function), **{option: given})


SERIES_FUNCTIONS = [
    name
    for name, function in _public_functions()
    if list(inspect.signature(function).parameters)[:2]
    in (["truth", "prediction"], ["annotations", "prediction"], ["truth", "scores"])
]


def test_series_functions_are_found():
    assert len(SERIES_FUNCTIONS) >= 60


@pytest.mark.parametrize("side", ["truth", "prediction"])
@pytest.mark.parametrize("name", SERIES_FUNCTIONS)
def test_unhashable_labels_raise_naming_the_side(name, side):
    function = getattr(audeval, name)
    bad = S([("f.wav", 0, 1, ["a"]), ("f.wav", 2, 3, "b")])
    first = list(inspect.signature(function).parameters)[:2]
    if first[1] == "scores":
        if side == "prediction":
            pytest.skip("scores are numbers")
        arguments = (bad, FRAMES)
    elif name.startswith("hierarchy"):
        arguments = ({"l0": bad}, {"l0": T}) if side == "truth" else ({"l0": T}, {"l0": bad})
    else:
        arguments = (bad, P) if side == "truth" else (T, bad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match="has unhashable labels") as caught:
            function(*arguments)
    message = str(caught.value)
    assert side in message  # truth, prediction, or annotations['truth'] ...
    assert "[a]" in message and "f.wav" in message  # the row


def test_missing_labels_still_named_without_isna(monkeypatch):
    """Item 23: the gate reads missing labels from the factorization (no isna pass)."""

    def no_isna(self):
        raise AssertionError("isna over the labels")

    monkeypatch.setattr(pd.arrays.NumpyExtensionArray, "isna", no_isna)
    labels = np.array(["a", "b"])
    t = pd.Series(list(labels), index=T.index, dtype=object)  # numpy strings in objects
    inputs = check_inputs(t, t)
    assert inputs.labels == ["a", "b"]
    for missing in (None, np.nan, pd.NA):
        bad = pd.Series(["a", missing], index=T.index, dtype=object)
        with pytest.raises(ValueError, match=r"prediction has missing \(NaN\) labels: 1 row"):
            check_inputs(t, bad)
    with pytest.raises(ValueError, match=r"truth has missing \(NaN\) labels"):
        check_inputs(pd.Series(["a", None], index=T.index, dtype="category"), t)


# -------------------------------------------------------------------------
# Item 15: best_permutation with NaN, labels=[]
# -------------------------------------------------------------------------


def test_best_permutation_nan_raises():
    with pytest.raises(ValueError, match=r"^scores is NaN for 2 of 4 .*\(0, 0\), \(1, 1\)"):
        sep.best_permutation([[np.nan, 1.0], [2.0, np.nan]])


@pytest.mark.parametrize(
    "metric", [audeval.event_fscore, audeval.segment_fscore, audeval.event_report, audeval.cohen_kappa]
)
def test_empty_labels_raise(metric):
    with pytest.raises(ValueError, match=r"^labels is empty.*\['a', 'b'\]"):
        metric(T, P, labels=[])


def test_empty_labels_of_empty_inputs_are_no_error():
    empty = T.iloc[:0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", audeval.UndefinedMetricWarning)
        assert audeval.event_fscore(empty, empty, labels=[]) == 0.0


# -------------------------------------------------------------------------
# Item 22: documentation
# -------------------------------------------------------------------------


def _read(*path: str) -> str:
    with open(os.path.join(ROOT, *path), encoding="utf-8") as fp:
        return fp.read()


def test_frame_rule_of_agreement_is_public():
    rule = "any overlap labels a frame"
    assert rule in audeval.cohen_kappa.__doc__.replace("\n", " ")
    assert rule in re.sub(r"\s+", " ", _read("docs", "definitions.rst"))


def test_ami_of_singletons_documented_as_computed():
    """Every frame its own cluster on both sides: AMI 1.0 (sklearn's value), as documented."""
    text = re.sub(r"\s+", " ", _read("docs", "definitions.rst"))
    row = text.split("both sides :math:`n` clusters")[1][:200]
    assert "AMI 1" in row
    truth = S([("f", k / 10, (k + 1) / 10, str(k)) for k in range(4)])
    for compat in (None, "mir_eval"):
        assert audeval.mutual_information(truth, truth, compat=compat)[1] == 1.0


def test_docs_math_needs_no_network():
    conf = _read("docs", "conf.py")
    assert '"sphinx.ext.mathjax"' not in conf and 'html_math_renderer = "mathml"' in conf
    import sys

    sys.path.insert(0, os.path.join(ROOT, "docs", "_ext"))
    try:
        import mathml
    finally:
        sys.path.pop(0)
    converted = mathml._mathml(r"\text{total} \mathrel{+}= \frac{n_t}{d}", None, block=True)
    assert converted.startswith("<math") and "<mfrac>" in converted and "mathrel" not in converted


def test_readme_says_how_to_build_the_docs():
    readme = _read("README.md")
    assert re.search(r"## Documentation\n\n```bash\n.*python -m sphinx -W docs build/html", readme)
