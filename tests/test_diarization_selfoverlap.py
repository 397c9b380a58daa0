"""A speaker that overlaps itself: the default rule and ``compat="pyannote"``.

Golden values of pyannote.metrics 4.2 from ``tests/assets/diarization/make_golden_selfoverlap.py``:
purity and coverage (label supports, merged) and the detection metrics
(with ``skip_overlap``, two rows of one truth speaker are overlap there),
on the ``selfoverlap`` scenario of the v2 goldens and on hand-made cases (issue 33 items 1, 2).
"""

import io
import json
import os
import warnings

import audformat
import hypothesis
import hypothesis.strategies as st
import pandas as pd
import pytest
from conftest import MAY_WARN_FILES_WITHOUT_ROWS
from conftest import MAY_WARN_NO_SHARED_FILE

import audeval
from audeval import _diarization as dia

from conftest import series


ASSETS = os.path.join(os.path.dirname(__file__), "assets", "diarization")
TOL = 1e-9

with open(os.path.join(ASSETS, "golden_selfoverlap.json")) as _fp:
    GOLDEN = json.load(_fp)
SCENARIOS = [name for name in GOLDEN if name != "pyannote.metrics"]


def _side(files, side):
    rows = [
        (file, start / 1000, end / 1000, label)
        for file, d in files.items()
        for start, end, label in d[side]
    ]
    return series(rows)


def _data(name):
    files = GOLDEN[name]["files"]
    uem_rows = [(file, a / 1000, b / 1000) for file, d in files.items() for a, b in d["uem"]]
    return {
        "truth": _side(files, "truth"),
        "prediction": _side(files, "prediction"),
        "files_duration": {file: d["duration_ms"] / 1000 for file, d in files.items()},
        "uem": audformat.segmented_index(*map(list, zip(*uem_rows))),
        "values": GOLDEN[name]["values"],
    }


def _scope(d, uem):
    if uem == "duration":
        return {"files_duration": d["files_duration"]}
    return {"files_duration": d["files_duration"], "uem": d["uem"]}


def test_golden_made_with_pyannote_4_2():
    assert GOLDEN["pyannote.metrics"].startswith("4.2")
    assert {"item1", "item2", "mixed", "selfoverlap"} <= set(SCENARIOS)


# --- purity and coverage: label supports in both modes ------------------------------------


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("compat", [None, "pyannote"])
def test_purity_coverage_on_label_supports(name, compat):
    """pyannote.metrics 4.2 computes purity and coverage on label supports;
    compat="pyannote" gave coverage 1.2 on item 1 (issue 33 #1)."""
    d = _data(name)
    purity, coverage, f = dia.diarization_purity_coverage(
        d["truth"], d["prediction"], files_duration=d["files_duration"], compat=compat
    )
    assert purity == pytest.approx(d["values"]["purity"]["value"], abs=TOL)
    assert coverage == pytest.approx(d["values"]["coverage"]["value"], abs=TOL)
    assert f == pytest.approx(2 * purity * coverage / (purity + coverage), abs=TOL)
    # per file (the report, and so the CLI's per-file table)
    report = audeval.diarization_report(
        d["truth"], d["prediction"], files_duration=d["files_duration"], compat=compat
    )
    for what in ("purity", "coverage"):
        for file, value in d["values"][what]["files"].items():
            assert report.loc[file, what] == pytest.approx(value, abs=TOL), (file, what)
        assert report.loc["TOTAL", what] == pytest.approx(d["values"][what]["value"], abs=TOL)


def test_item1_reproducer():
    truth = series([("f", 0, 10, "A")])
    prediction = series([("f", 0, 6, "x"), ("f", 4, 10, "x")])
    assert dia.diarization_purity_coverage(
        truth, prediction, files_duration={"f": 10}, compat="pyannote"
    ) == (1.0, 1.0, 1.0)
    # DER keeps pyannote.metrics' rule: the cluster's overlap counts twice (2 s false alarm)
    assert audeval.diarization_error_rate(
        truth, prediction, files_duration={"f": 10}, compat="pyannote"
    ) == pytest.approx(0.2)
    assert audeval.diarization_error_rate(truth, prediction, files_duration={"f": 10}) == 0.0


def test_purity_coverage_from_a_compat_table():
    """The table carries the support durations (``duration_support``): the same numbers."""
    d = _data("mixed")
    options = dict(files_duration=d["files_duration"], compat="pyannote")
    stats = audeval.diarization_statistics(d["truth"], d["prediction"], **options)
    assert "duration_support" in stats.columns
    direct = dia.diarization_purity_coverage(d["truth"], d["prediction"], **options)
    assert dia.diarization_purity_coverage(stats) == direct
    # two shards add up
    files = list(d["files_duration"])
    shards = [stats.loc[[f]] for f in files]
    for shard in shards:
        shard.attrs = stats.attrs
    summed = audeval.sum_statistics(shards)
    assert dia.diarization_purity_coverage(summed) == pytest.approx(direct, abs=TOL)
    # a compat table without the column is refused, not scored by the other rule
    with pytest.raises(ValueError, match="duration_support"):
        dia.diarization_purity_coverage(stats.drop(columns="duration_support"))


def test_cli_per_file_purity_coverage(capsys, tmp_path):
    """The CLI's per-file table (issue 33 #1 printed 1.0096 there)."""
    from audeval._cli import main

    d = _data("selfoverlap")
    paths = {}
    for side in ("truth", "prediction"):
        path = tmp_path / f"{side}.rttm"
        with open(path, "w") as fp:
            for (file, start, end), label in d[side].items():
                onset, offset = start.total_seconds(), end.total_seconds()
                fp.write(
                    f"SPEAKER {os.path.splitext(os.path.basename(file))[0]} 1 {onset:.3f} "
                    f"{offset - onset:.3f} <NA> <NA> {label} <NA> <NA>\n"
                )
        paths[side] = str(path)
    durations = tmp_path / "durations.csv"
    durations.write_text(
        "".join(
            f"{os.path.splitext(os.path.basename(f))[0]},{v}\n"
            for f, v in d["files_duration"].items()
        )
    )
    argv = [
        "diarization", paths["truth"], paths["prediction"], "--compat", "pyannote",
        "--files-duration", str(durations), "--per-file", "--all-columns",
        "--format", "csv", "--no-progress",
    ]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("file")
    for what in ("purity", "coverage"):
        for file, value in d["values"][what]["files"].items():
            stem = os.path.splitext(os.path.basename(file))[0]
            assert table.loc[stem, what] == pytest.approx(value, abs=1e-6), (stem, what)
        assert table.loc["TOTAL", what] == pytest.approx(d["values"][what]["value"], abs=1e-6)


# --- detection: compat="pyannote" skips a speaker's self-overlap ----------------------------


DETECTION = [
    (name, k) for name in SCENARIOS for k in range(len(GOLDEN[name]["values"]["detection"]))
]


def _detection(d, case, compat):
    options = dict(collar=case["collar"], skip_overlap=case["skip_overlap"], compat=compat)
    options.update(_scope(d, case["uem"]))
    return audeval.detection_report(d["truth"], d["prediction"], **options)


@pytest.mark.parametrize("name, k", DETECTION)
def test_detection_compat_pyannote(name, k):
    """compat="pyannote" reproduces pyannote.metrics 4.2 in every case, per file and in total."""
    d = _data(name)
    case = d["values"]["detection"][k]
    report = _detection(d, case, "pyannote")
    for ours, theirs in (
        ("detection_error_rate", "detection_error_rate"),
        ("precision", "precision"),
        ("recall", "recall"),
        ("accuracy", "accuracy"),
    ):
        assert report.loc["TOTAL", ours] == pytest.approx(case[theirs]["value"], abs=TOL), ours
        for file, value in case[theirs]["files"].items():
            assert report.loc[file, ours] == pytest.approx(value, abs=TOL), (file, ours)
    der = audeval.detection_error_rate(
        d["truth"], d["prediction"], collar=case["collar"], skip_overlap=case["skip_overlap"],
        compat="pyannote", **_scope(d, case["uem"]),
    )
    assert der == pytest.approx(case["detection_error_rate"]["value"], abs=TOL)


@pytest.mark.parametrize("name, k", DETECTION)
def test_detection_default_rule(name, k):
    """The default equals pyannote.metrics without skip_overlap; with it, a speaker's
    self-overlap is scored (audeval's rule), so the scored time is at least pyannote's."""
    d = _data(name)
    case = d["values"]["detection"][k]
    default = _detection(d, case, None)
    compat = _detection(d, case, "pyannote")
    if not case["skip_overlap"]:
        pd.testing.assert_frame_equal(default, compat)
        assert default.loc["TOTAL", "detection_error_rate"] == pytest.approx(
            case["detection_error_rate"]["value"], abs=TOL
        )
    else:
        scored = ["true_positive", "false_alarm", "miss", "true_negative"]
        assert (default[scored].sum(axis=1) >= compat[scored].sum(axis=1) - 1e-9).all()


def test_item2_reproducer():
    truth = series([("f", 0, 10, "A"), ("f", 5, 15, "A")])
    prediction = series([("f", 2, 20, "speech")])
    options = dict(skip_overlap=True, files_duration={"f": 20})
    # default: the speaker's overlap [5, 10) is scored: (2 + 5) / 15
    assert audeval.detection_error_rate(truth, prediction, **options) == pytest.approx(7 / 15)
    # pyannote.metrics: [5, 10) is overlap and skipped: (2 + 5) / 10
    assert audeval.detection_error_rate(
        truth, prediction, compat="pyannote", **options
    ) == pytest.approx(0.7)
    stats = audeval.detection_statistics(truth, prediction, compat="pyannote", **options)
    assert stats.attrs["audeval"]["options"]["compat"] == "pyannote"
    assert audeval.detection_error_rate(stats) == pytest.approx(0.7)
    with pytest.raises(ValueError, match="compat"):
        audeval.detection_error_rate(stats, compat=None)
    with pytest.raises(ValueError, match="compat"):
        audeval.detection_error_rate(truth, prediction, compat="md-eval", **options)


def test_detection_compat_positive_labels():
    """Rows of other labels are left out before the overlap is found, in both modes."""
    truth = series([("f", 0, 10, "A"), ("f", 5, 15, "A"), ("f", 4, 6, "noise")])
    prediction = series([("f", 2, 20, "A")])
    options = dict(skip_overlap=True, files_duration={"f": 20}, compat="pyannote")
    assert audeval.detection_error_rate(truth, prediction, ["A"], **options) == pytest.approx(0.7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # every row: noise [4, 6) overlaps A too; overlap [4, 10)
        assert audeval.detection_error_rate(truth, prediction, **options) == pytest.approx(
            (2 + 5) / 9
        )


# --- properties on random rows that overlap themselves ---------------------------------------

_ROWS = st.lists(
    st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 30), st.integers(1, 10), st.integers(0, 2)),
    min_size=1,
    max_size=12,
)


def _rows(rows):
    return series([(f, s, s + d, label) for f, s, d, label in rows])


@MAY_WARN_FILES_WITHOUT_ROWS
@MAY_WARN_NO_SHARED_FILE
@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(truth=_ROWS, prediction=_ROWS, collar=st.sampled_from([0.0, 1.0]))
def test_purity_coverage_same_in_both_modes(truth, prediction, collar):
    """Without skip_overlap both modes score one region, and purity and coverage are
    taken on label supports in both: equal, and at most 1."""
    truth, prediction = _rows(truth), _rows(prediction)
    options = dict(collar=collar, files_duration={"a": 45, "b": 45})
    default = dia.diarization_purity_coverage(truth, prediction, **options)
    compat = dia.diarization_purity_coverage(truth, prediction, compat="pyannote", **options)
    assert compat == pytest.approx(default, abs=TOL)
    assert all(0.0 <= v <= 1.0 + TOL for v in compat)
    report = audeval.diarization_report(truth, prediction, compat="pyannote", **options)
    assert (report[["purity", "coverage"]] <= 1.0 + TOL).all(axis=None)


@MAY_WARN_FILES_WITHOUT_ROWS
@MAY_WARN_NO_SHARED_FILE
@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(truth=_ROWS, prediction=_ROWS)
def test_detection_compat_skips_at_least_the_default_overlap(truth, prediction):
    """compat="pyannote" skips every region of two truth rows: a superset of the default's
    (two labels); without a row overlapping another of its label both modes agree."""
    truth, prediction = _rows(truth), _rows(prediction)
    options = dict(skip_overlap=True, files_duration={"a": 45, "b": 45})
    default = audeval.detection_statistics(truth, prediction, **options)
    compat = audeval.detection_statistics(truth, prediction, compat="pyannote", **options)
    assert (compat.sum(axis=1) <= default.sum(axis=1)).all()
    merged = audeval.diarization_statistics(truth, prediction, files_duration={"a": 45, "b": 45})
    rows = audeval.diarization_statistics(
        truth, prediction, compat="pyannote", files_duration={"a": 45, "b": 45}
    )
    if merged["total"].sum() == rows["total"].sum():  # no truth time counted twice
        pd.testing.assert_frame_equal(default, compat, check_like=True, check_flags=False)
