"""Detection and diarization error rates: golden values, hand-computed cases, properties."""

import itertools
import json
import os
import warnings

import audformat
import hypothesis
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_GENERATED_FILES as GENERATED_FILES
from conftest import MAY_WARN_BEYOND_DURATION
import scipy.optimize

import audeval
from audeval._core.matching.assignment import greedy_assignment, optimal_assignment
from audeval import _diarization

from conftest import series


ASSETS = os.path.join(os.path.dirname(__file__), "assets", "diarization")
TOL = 1e-9


def quiet(func, *args, **kwargs):
    """Call without the scored-region warning (asserted separately)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return func(*args, **kwargs)


# --- golden values: pyannote.metrics 4.2 and audmetric 1.4.2 ----------------------


def _golden_series(part):
    index = audformat.segmented_index(
        part["file"].tolist(),
        pd.to_timedelta(part["start_ms"].to_numpy(), unit="ms"),
        pd.to_timedelta(part["end_ms"].to_numpy(), unit="ms"),
    )
    return pd.Series(part["label"].tolist(), index=index, dtype=object)


def _load_golden():
    segments = pd.read_csv(os.path.join(ASSETS, "segments.csv"))
    durations = pd.read_csv(os.path.join(ASSETS, "durations.csv"))
    with open(os.path.join(ASSETS, "pyannote.json")) as fp:
        pyannote = json.load(fp)
    with open(os.path.join(ASSETS, "audmetric.json")) as fp:
        audmetric = json.load(fp)
    data = {}
    for scenario in pyannote:
        part = segments[segments["scenario"] == scenario]
        dur = durations[durations["scenario"] == scenario]
        data[scenario] = {
            side: _golden_series(part[part["side"] == side])
            for side in ("truth", "prediction", "identification")
        }
        data[scenario]["files_duration"] = dict(zip(dur["file"], dur["duration_ms"] / 1000))
    return data, pyannote, audmetric


GOLDEN_DATA, PYANNOTE, AUDMETRIC = _load_golden()
PYANNOTE_CASES = [
    (scenario, k) for scenario, cases in PYANNOTE.items() for k in range(len(cases))
]


def _case_id(param):
    scenario, k = param
    case = PYANNOTE[scenario][k]
    return f"{scenario}-collar{case['collar']}-skip{case['skip_overlap']}-uem{case['uem']}"


@pytest.mark.parametrize("param", PYANNOTE_CASES, ids=[_case_id(p) for p in PYANNOTE_CASES])
def test_pyannote_golden(param):
    scenario, k = param
    case = PYANNOTE[scenario][k]
    data = GOLDEN_DATA[scenario]
    truth, prediction = data["truth"], data["prediction"]
    options = dict(
        collar=case["collar"],
        skip_overlap=case["skip_overlap"],
        files_duration=data["files_duration"] if case["uem"] else None,
    )
    expected = pytest.approx
    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if not case["uem"] else "error", UserWarning)
        # predictions run past the end of some files: reported (SPEC 1), not an error here
        warnings.filterwarnings("ignore", message=".*beyond the duration", category=UserWarning)
        stats = audeval.diarization_statistics(truth, prediction, **options)
        id_stats = audeval.diarization_statistics(truth, data["identification"], **options)
        det = audeval.detection_report(truth, prediction, **options)
    assert audeval.diarization_error_rate(stats) == expected(case["der"]["value"], abs=TOL)
    assert audeval.diarization_error_rate(stats, mapping="greedy") == expected(
        case["greedy_der"]["value"], abs=TOL
    )
    assert audeval.jaccard_error_rate(stats) == expected(case["jer"]["value"], abs=TOL)
    assert audeval.identification_error_rate(id_stats) == expected(case["ier"]["value"], abs=TOL)
    # per-file components
    for name, mapping in (("der", "optimal"), ("greedy_der", "greedy")):
        report = audeval.diarization_report(stats, mapping=mapping)
        for file, values in case[name]["files"].items():
            row = report.loc[file]
            assert row["total"] == expected(values["total"], abs=TOL)
            assert row["correct"] == expected(values["correct"], abs=TOL)
            assert row["confusion"] == expected(values["confusion"], abs=TOL)
            assert row["false_alarm"] == expected(values["false alarm"], abs=TOL)
            assert row["miss"] == expected(values["missed detection"], abs=TOL)
            assert row["diarization_error_rate"] == expected(values["diarization error rate"], abs=TOL)
    report = audeval.diarization_report(stats)
    for file, values in case["jer"]["files"].items():
        assert report.loc[file, "speakers"] == values["speaker count"]
        assert report.loc[file, "jaccard_error_rate"] * values["speaker count"] == expected(
            values["speaker error"], abs=TOL
        )
    id_report = audeval.diarization_report(id_stats, mapping="identity")
    for file, values in case["ier"]["files"].items():
        assert id_report.loc[file, "confusion"] == expected(values["confusion"], abs=TOL)
        assert id_report.loc[file, "correct"] == expected(values["correct"], abs=TOL)
    # detection
    assert det.loc["TOTAL", "detection_error_rate"] == expected(
        case["detection_error_rate"]["value"], abs=TOL
    )
    assert det.loc["TOTAL", "accuracy"] == expected(case["detection_accuracy"]["value"], abs=TOL)
    for name in ("precision", "recall", "fscore"):
        assert det.loc["TOTAL", name] == expected(case["detection_fscore"][name], abs=TOL)
    for file, values in case["detection_error_rate"]["files"].items():
        assert det.loc[file, "miss"] == expected(values["miss"], abs=TOL)
        assert det.loc[file, "false_alarm"] == expected(values["false alarm"], abs=TOL)
        assert det.loc[file, "total"] == expected(values["total"], abs=TOL)
    for file, values in case["detection_accuracy"]["files"].items():
        assert det.loc[file, "true_negative"] == expected(values["true negative"], abs=TOL)
        assert det.loc[file, "true_positive"] == expected(values["true positive"], abs=TOL)


@pytest.mark.parametrize("scenario", list(AUDMETRIC))
def test_audmetric_golden(scenario):
    data = GOLDEN_DATA[scenario]
    truth, prediction = data["truth"], data["prediction"]
    stats = quiet(audeval.diarization_statistics, truth, prediction)
    for individual in (False, True):
        expected = AUDMETRIC[scenario][f"der_individual_{individual}"]
        options = dict(mapping="greedy", individual_file_mapping=individual)
        assert audeval.diarization_error_rate(stats, **options) == pytest.approx(
            expected["value"], abs=TOL
        )
        total = audeval.diarization_report(stats, **options).loc["TOTAL"]
        assert total["confusion_rate"] == pytest.approx(expected["conf_rate"], abs=TOL)
        assert total["false_alarm_rate"] == pytest.approx(expected["fa_rate"], abs=TOL)
        assert total["miss_rate"] == pytest.approx(expected["miss_rate"], abs=TOL)
    expected = AUDMETRIC[scenario]["ier"]
    ier = quiet(audeval.identification_error_rate, truth, data["identification"])
    assert ier == pytest.approx(expected["value"], abs=TOL)


def test_golden_series_equal_statistics():
    """The Series path and the statistics path give identical numbers."""
    data = GOLDEN_DATA["medium"]
    options = dict(collar=0.5, skip_overlap=True, files_duration=data["files_duration"])
    truth, prediction = data["truth"], data["prediction"]
    stats = audeval.diarization_statistics(truth, prediction, **options)
    for mapping in ("optimal", "greedy"):
        for individual in (True, False):
            kw = dict(mapping=mapping, individual_file_mapping=individual)
            assert audeval.diarization_error_rate(
                truth, prediction, **options, **kw
            ) == audeval.diarization_error_rate(stats, **kw)
            assert audeval.jaccard_error_rate(
                truth, prediction, **options, **kw
            ) == audeval.jaccard_error_rate(stats, **kw)
            pd.testing.assert_frame_equal(
                audeval.diarization_report(truth, prediction, **options, **kw),
                audeval.diarization_report(stats, **kw),
            )


# --- hand-computed cases --------------------------------------------------------------


def test_der_by_hand():
    truth = series([("f", 0, 2, "A"), ("f", 2, 4, "B")])
    prediction = series([("f", 0, 2.5, "s1"), ("f", 2.5, 4, "s2")])
    # s1 -> A (2 s), s2 -> B (1.5 s); 0.5 s of B is confused
    report = audeval.diarization_report(truth, prediction, files_duration={"f": 4})
    row = report.loc["f"]
    assert (row["total"], row["correct"], row["confusion"]) == (4.0, 3.5, 0.5)
    assert (row["false_alarm"], row["miss"]) == (0.0, 0.0)
    assert row["diarization_error_rate"] == 0.125
    # JER: A|s1 = 1 - 2 / 2.5, B|s2 = 1 - 1.5 / 2
    assert row["jaccard_error_rate"] == pytest.approx((0.2 + 0.25) / 2)


def test_self_overlap_counts_once():
    truth = series([("f", 0, 4, "A")])
    prediction = series([("f", 0, 3, "s"), ("f", 1, 4, "s"), ("f", 2, 2.5, "s")])
    assert audeval.diarization_error_rate(truth, prediction, files_duration={"f": 4}) == 0.0
    assert audeval.detection_error_rate(truth, prediction, files_duration={"f": 4}) == 0.0
    # a truth label overlapping itself is no overlap region either
    truth = series([("f", 0, 3, "A"), ("f", 1, 4, "A")])
    assert audeval.diarization_error_rate(
        truth, series([("f", 0, 4, "x")]), skip_overlap=True, files_duration={"f": 4}
    ) == 0.0


def test_overlap_miss_false_alarm_confusion():
    # 0-2: A and B in truth, x in prediction -> 1 miss, x maps to A or B
    # 2-3: nothing in truth, x and y -> 2 s of false alarm
    truth = series([("f", 0, 2, "A"), ("f", 0, 2, "B")])
    prediction = series([("f", 0, 3, "x"), ("f", 2, 3, "y")])
    row = audeval.diarization_report(truth, prediction, files_duration={"f": 3}).loc["f"]
    assert (row["total"], row["miss"], row["false_alarm"], row["confusion"]) == (4, 2, 2, 0)
    # skip_overlap leaves out 0-2
    row = audeval.diarization_report(
        truth, prediction, skip_overlap=True, files_duration={"f": 3}
    ).loc["f"]
    assert (row["total"], row["miss"], row["false_alarm"]) == (0, 0, 2)
    assert row["diarization_error_rate"] == 1.0  # no truth, some error


def test_collar_is_total_width():
    truth = series([("f", 2, 6, "A")])
    prediction = series([("f", 2.5, 5.5, "x")])
    # a collar of 1 s removes 0.5 s on each side of 2 and 6: no error left
    assert audeval.diarization_error_rate(truth, prediction, collar=1.0, files_duration={"f": 8}) == 0
    row = audeval.diarization_report(
        truth, prediction, collar=0.5, files_duration={"f": 8}
    ).loc["f"]
    # scored truth 2.25-5.75 = 3.5 s, 0.25 s missed on each side
    assert (row["total"], row["miss"]) == (3.5, 0.5)
    assert audeval.diarization_error_rate(
        truth, prediction, collar=pd.Timedelta("1s"), files_duration={"f": 8}
    ) == 0


def test_files_duration_crops_and_extent_warns():
    truth = series([("f", 1, 3, "A")])
    prediction = series([("f", 1, 5, "x")])
    # scored region [0, 4]: 1 s false alarm, not 2
    with pytest.warns(UserWarning, match="prediction has rows beyond the duration"):
        row = audeval.diarization_report(truth, prediction, files_duration={"f": 4}).loc["f"]
    assert row["false_alarm"] == 1.0
    with pytest.warns(UserWarning, match="union of the extents"):
        row = audeval.diarization_report(truth, prediction).loc["f"]
    assert row["false_alarm"] == 2.0
    # detection: true negative only inside the scored region
    det = audeval.detection_report(truth, prediction, files_duration={"f": 6})
    assert det.loc["f", "true_negative"] == 2.0
    with pytest.warns(UserWarning):
        det = audeval.detection_report(truth, prediction)
    assert det.loc["f", "true_negative"] == 0.0  # extent [1, 5]


def test_missing_files_on_one_side():
    truth = series([("a", 0, 2, "A"), ("b", 0, 1, "B")])
    prediction = series([("b", 0, 1, "x"), ("c", 0, 3, "y")])
    report = audeval.diarization_report(truth, prediction, files_duration={"a": 2, "b": 1, "c": 3})
    assert report.loc["a", "miss"] == 2.0  # truth-only file: all missed
    assert report.loc["c", "false_alarm"] == 3.0  # prediction-only file: all false alarm
    assert report.loc["TOTAL", "diarization_error_rate"] == pytest.approx(5 / 3)


def test_greedy_versus_optimal():
    # co-occurrence A-x 3, A-y 2, B-x 2: greedy takes A-x, optimal A-y + B-x
    truth = series([("f", 0, 5, "A"), ("f", 5, 7, "B")])
    prediction = series([("f", 0, 3, "x"), ("f", 5, 7, "x"), ("f", 3, 5, "y")])
    options = dict(files_duration={"f": 7})
    optimal = audeval.diarization_report(truth, prediction, **options).loc["f"]
    greedy = audeval.diarization_report(truth, prediction, mapping="greedy", **options).loc["f"]
    assert (optimal["correct"], greedy["correct"]) == (4.0, 3.0)
    assert optimal["diarization_error_rate"] == pytest.approx(3 / 7)
    assert greedy["diarization_error_rate"] == pytest.approx(4 / 7)


def test_global_mapping_across_files():
    # file 1 says x is A, file 2 says x is B (less time): one global mapping x -> A
    truth = series([("f1", 0, 3, "A"), ("f2", 0, 2, "B")])
    prediction = series([("f1", 0, 3, "x"), ("f2", 0, 2, "x")])
    options = dict(files_duration={"f1": 3, "f2": 2})
    assert audeval.diarization_error_rate(truth, prediction, **options) == 0.0
    for mapping in ("optimal", "greedy"):
        value = audeval.diarization_error_rate(
            truth, prediction, mapping=mapping, individual_file_mapping=False, **options
        )
        assert value == pytest.approx(2 / 5)
    assert audeval.jaccard_error_rate(
        truth, prediction, individual_file_mapping=False, **options
    ) == pytest.approx(0.5)


def test_identification_error_rate_by_hand():
    truth = series([("f", 0, 2, "A"), ("f", 2, 4, "B")])
    prediction = series([("f", 0, 2.5, "A"), ("f", 2.5, 4, "A")])
    assert audeval.identification_error_rate(truth, prediction, files_duration={"f": 4}) == 0.5


def test_detection_positive_labels_and_report():
    truth = series([("f", 0, 2, "speech"), ("f", 2, 4, "music"), ("f", 5, 6, "speech")])
    prediction = series([("f", 1, 3, "speech"), ("f", 3, 6, "noise")])
    options = dict(files_duration={"f": 8})
    # every row is activity: truth [0, 4] + [5, 6], prediction [1, 6]
    stats = audeval.detection_statistics(truth, prediction, **options) / 1e9
    assert stats.loc["f"].tolist() == [4.0, 1.0, 1.0, 2.0]
    # only speech: truth [0, 2] + [5, 6], prediction [1, 3]
    stats = audeval.detection_statistics(truth, prediction, ["speech"], **options) / 1e9
    assert stats.loc["f"].tolist() == [1.0, 1.0, 2.0, 4.0]
    assert audeval.detection_error_rate(truth, prediction, ["speech"], **options) == 1.0
    report = audeval.detection_report(truth, prediction, ["speech"], **options)
    assert report.loc["TOTAL", "precision"] == 0.5
    assert report.loc["TOTAL", "recall"] == pytest.approx(1 / 3)
    assert report.loc["TOTAL", "accuracy"] == pytest.approx(5 / 8)
    assert report.loc["TOTAL", "fscore"] == pytest.approx(0.4)


def test_detection_skip_overlap_and_collar():
    truth = series([("f", 0, 4, "A"), ("f", 2, 6, "B")])
    prediction = series([("f", 0, 2, "s")])
    options = dict(files_duration={"f": 6})
    # overlap 2-4 is not scored: truth 0-2 and 4-6, miss 4-6
    stats = audeval.detection_statistics(truth, prediction, skip_overlap=True, **options) / 1e9
    assert stats.loc["f"].tolist() == [2.0, 0.0, 2.0, 0.0]
    assert audeval.detection_error_rate(truth, prediction, skip_overlap=True, **options) == 0.5
    # collar 2 s around 0, 2, 4, 6: scored 1-1, 3-3, 5-5 -> nothing left
    stats = audeval.detection_statistics(truth, prediction, collar=2.0, **options)
    assert stats.to_numpy().sum() == 0
    assert audeval.detection_error_rate(truth, prediction, collar=2.0, **options) == 0.0


def test_empty_inputs():
    empty = series([])
    assert audeval.diarization_error_rate(empty, empty) == 0.0
    assert audeval.identification_error_rate(empty, empty) == 0.0
    assert audeval.jaccard_error_rate(empty, empty) == 1.0  # pyannote: no speakers
    assert audeval.detection_error_rate(empty, empty) == 0.0
    report = audeval.diarization_report(empty, empty)
    assert list(report.index) == ["TOTAL"]
    assert report.loc["TOTAL", "diarization_error_rate"] == 0.0
    det = audeval.detection_report(empty, empty)
    assert det.loc["TOTAL", "precision"] == 1.0  # pyannote's zero-division rule
    assert audeval.detection_report(empty, empty, zero_division=0.0).loc["TOTAL", "recall"] == 0.0
    # no truth at all, only prediction: total 0 with errors -> 1
    prediction = series([("f", 0, 1, "x")])
    assert audeval.diarization_error_rate(empty, prediction, files_duration={"f": 1}) == 1.0
    assert audeval.detection_error_rate(empty, prediction, files_duration={"f": 1}) == 1.0


def test_errors():
    truth = series([("f", 0, 2, "A")])
    prediction = series([("f", 0, 2, "x")])
    with pytest.raises(ValueError, match="mapping"):
        audeval.diarization_error_rate(truth, prediction, mapping="hungarian")
    with pytest.raises(ValueError, match="mapping"):
        audeval.diarization_error_rate(truth, prediction, mapping="identity")
    with pytest.raises(TypeError, match="individual_file_mapping"):
        audeval.diarization_error_rate(truth, prediction, individual_file_mapping="yes")
    with pytest.raises(ValueError, match="collar"):
        audeval.diarization_error_rate(truth, prediction, collar=-1.0)
    with pytest.raises(TypeError, match="skip_overlap"):
        audeval.detection_error_rate(truth, prediction, skip_overlap=None)
    stats = audeval.diarization_statistics(truth, prediction, files_duration={"f": 2})
    with pytest.raises(TypeError, match="prediction must be None"):
        audeval.diarization_error_rate(stats, prediction)
    with pytest.raises(ValueError, match="collar"):
        audeval.diarization_error_rate(stats, collar=0.5)
    with pytest.raises(ValueError, match="index levels"):
        audeval.diarization_error_rate(stats.droplevel("prediction"))
    with pytest.raises(ValueError, match="diarization statistics table"):
        audeval.detection_error_rate(stats.reset_index(drop=True))
    plain = stats.reset_index(drop=True)
    plain.attrs = {}
    with pytest.raises(ValueError, match="columns"):
        audeval.detection_error_rate(plain)
    with pytest.raises(ValueError, match="end=NaT"):
        audeval.diarization_error_rate(series([("f", 0, None, "A")]), prediction)


def test_open_end_resolved_from_files_duration():
    truth = series([("f", 0, None, "A")])
    prediction = series([("f", 0, 3, "x")])
    assert audeval.diarization_error_rate(truth, prediction, files_duration={"f": 4}) == 0.25


# --- statistics: additivity and round trips ----------------------------------------------


def test_statistics_of_shards_add_up():
    data = GOLDEN_DATA["crowded"]
    truth, prediction = data["truth"], data["prediction"]
    options = dict(collar=0.5, skip_overlap=False, files_duration=data["files_duration"])
    whole = audeval.diarization_statistics(truth, prediction, **options)
    files = sorted(data["files_duration"])
    shards = []
    for part in (files[:2], files[2:]):
        t = truth[truth.index.get_level_values("file").isin(part)]
        p = prediction[prediction.index.get_level_values("file").isin(part)]
        mine = {**options, "files_duration": {f: data["files_duration"][f] for f in part}}
        shards.append(audeval.diarization_statistics(t, p, **mine))
    joined = pd.concat(shards)
    for kw in (
        dict(),
        dict(mapping="greedy"),
        dict(individual_file_mapping=False),
        dict(mapping="greedy", individual_file_mapping=False),
    ):
        assert audeval.diarization_error_rate(joined, **kw) == pytest.approx(
            audeval.diarization_error_rate(whole, **kw), abs=1e-15
        )
        assert audeval.jaccard_error_rate(joined, **kw) == pytest.approx(
            audeval.jaccard_error_rate(whole, **kw), abs=1e-15
        )
    # summing a table with itself doubles every duration: rates unchanged
    doubled = pd.concat([whole, whole])
    assert audeval.diarization_error_rate(doubled) == pytest.approx(
        audeval.diarization_error_rate(whole), abs=1e-15
    )
    det = [
        audeval.detection_statistics(
            truth[truth.index.get_level_values("file").isin(part)],
            prediction[prediction.index.get_level_values("file").isin(part)],
            **{**options, "files_duration": {f: data["files_duration"][f] for f in part}},
        )
        for part in (files[:2], files[2:])
    ]
    pd.testing.assert_frame_equal(
        pd.concat(det), audeval.detection_statistics(truth, prediction, **options)
    )


def test_statistics_table_layout():
    truth = series([("f", 0, 2, "A"), ("f", 2, 4, "B")])
    prediction = series([("f", 0, 2.5, "s1"), ("f", 2.5, 4, "s2")])
    stats = audeval.diarization_statistics(truth, prediction, files_duration={"f": 4})
    assert list(stats.index.names) == ["file", "truth", "prediction"]
    assert list(stats.columns) == [
        "total",
        "miss",
        "false_alarm",
        "total_overlap",
        "miss_overlap",
        "false_alarm_overlap",
        "false_alarm_silence",
        "duration",
        "duration_overlap",
    ]
    assert all(dtype == np.int64 for dtype in stats.dtypes)
    assert stats.loc[("f", "A", "s1"), "duration"] == 2_000_000_000
    assert stats["total"].sum() == 4_000_000_000


# --- properties against a brute-force raster on a millisecond grid ------------------------


FILES = ["f0", "f1", "f2"]
rows = st.lists(
    st.tuples(
        st.sampled_from(FILES),
        st.integers(0, 40),
        st.integers(0, 12),
        st.sampled_from(["a", "b", "c"]),
    ),
    max_size=12,
)
pred_rows = st.lists(
    st.tuples(
        st.sampled_from(FILES),
        st.integers(0, 40),
        st.integers(0, 12),
        st.sampled_from(["a", "b", "x", "y"]),
    ),
    max_size=12,
)


def ms_series(data):
    return series([(f, s / 1000, (s + d) / 1000, label) for f, s, d, label in data])


def raster(data, file, length, labels):
    out = np.zeros((len(labels), length), dtype=bool)
    for f, s, d, label in data:
        if f == file and d > 0:
            out[labels.index(label), s : s + d] = True
    return out


def brute_force(truth, prediction, collar_ms, skip_overlap, duration_ms):
    """Per-file raster: components, co-occurrence matrices and detection counts."""
    labels = sorted({r[3] for r in truth} | {r[3] for r in prediction})
    offset = collar_ms  # room for collars before 0
    result = {}
    for file in sorted({r[0] for r in truth} | {r[0] for r in prediction}):
        length = 80 + 2 * offset
        shift = lambda data: [(f, s + offset, d, lab) for f, s, d, lab in data]  # noqa: E731
        t = raster(shift(truth), file, length, labels)
        p = raster(shift(prediction), file, length, labels)
        scored = np.zeros(length, dtype=bool)
        if duration_ms is None:
            spans = [(s, s + d) for f, s, d, _ in truth + prediction if f == file and d > 0]
            if spans:
                scored[min(a for a, _ in spans) + offset : max(b for _, b in spans) + offset] = True
        else:
            scored[offset : offset + duration_ms] = True
        for f, s, d, _ in truth:
            if f == file and d > 0 and collar_ms:
                for b in (s, s + d):
                    scored[b + offset - collar_ms // 2 : b + offset + collar_ms // 2] = False
        if skip_overlap:
            scored &= t.sum(axis=0) < 2
        t &= scored
        p &= scored
        nt, np_ = t.sum(axis=0), p.sum(axis=0)
        t_any, p_any = t.any(axis=0), p.any(axis=0)
        result[file] = dict(
            total=nt.sum(),
            miss=np.maximum(nt - np_, 0).sum(),
            false_alarm=np.maximum(np_ - nt, 0).sum(),
            cooc=t.astype(int) @ p.astype(int).T,
            t_time=t.sum(axis=1),
            p_time=p.sum(axis=1),
            tp=(t_any & p_any).sum(),
            fp=(~t_any & p_any).sum(),
            fn=(t_any & ~p_any).sum(),
            tn=(scored & ~t_any & ~p_any).sum(),
        )
    return labels, result


def greedy_reference(cooc):
    cooc = cooc.astype(float).copy()
    pairs = []
    while cooc.size and cooc.max() > 0:
        i, j = np.unravel_index(np.argmax(cooc), cooc.shape)
        pairs.append((i, j))
        cooc[i, :] = 0
        cooc[:, j] = 0
    return pairs


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(
    truth=rows,
    prediction=pred_rows,
    collar_ms=st.sampled_from([0, 4]),
    skip_overlap=st.booleans(),
    with_duration=st.booleans(),
)
def test_against_brute_force(truth, prediction, collar_ms, skip_overlap, with_duration):
    duration_ms = 45 if with_duration else None
    labels, expected = brute_force(truth, prediction, collar_ms, skip_overlap, duration_ms)
    options = dict(
        collar=collar_ms / 1000,
        skip_overlap=skip_overlap,
        files_duration={f: duration_ms / 1000 for f in FILES} if with_duration else None,
    )
    t, p = ms_series(truth), ms_series(prediction)
    stats = quiet(audeval.diarization_statistics, t, p, **options)
    optimal = audeval.diarization_report(stats)
    greedy = audeval.diarization_report(stats, mapping="greedy")
    identity = audeval.diarization_report(stats, mapping="identity")
    detection = quiet(audeval.detection_report, t, p, **options)
    jer_errors, jer_count = 0.0, 0
    for file, e in expected.items():
        ms = 1000.0
        row = optimal.loc[file]
        assert row["total"] * ms == pytest.approx(e["total"])
        assert row["miss"] * ms == pytest.approx(e["miss"])
        assert row["false_alarm"] * ms == pytest.approx(e["false_alarm"])
        rr, cc = scipy.optimize.linear_sum_assignment(e["cooc"], maximize=True)
        assert row["correct"] * ms == pytest.approx(e["cooc"][rr, cc].sum())
        pairs = greedy_reference(e["cooc"])
        assert greedy.loc[file, "correct"] * ms == pytest.approx(sum(e["cooc"][i, j] for i, j in pairs))
        assert identity.loc[file, "correct"] * ms == pytest.approx(np.trace(e["cooc"]))
        # JER with the (deterministic) greedy mapping
        mapped = dict(pairs)
        for i in np.flatnonzero(e["t_time"]):
            jer_count += 1
            if i in mapped:
                c = e["cooc"][i, mapped[i]]
                jer_errors += 1 - c / (e["t_time"][i] + e["p_time"][mapped[i]] - c)
            else:
                jer_errors += 1
        for name, key in (("true_positive", "tp"), ("false_alarm", "fp"), ("miss", "fn"), ("true_negative", "tn")):
            assert detection.loc[file, name] * ms == pytest.approx(e[key])
    jer = audeval.jaccard_error_rate(stats, mapping="greedy")
    assert jer == pytest.approx(jer_errors / jer_count if jer_count else 1.0)


@MAY_WARN_BEYOND_DURATION
@GENERATED_FILES
@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(truth=rows, prediction=pred_rows, seed=st.integers(0, 2**16), skip=st.booleans())
def test_row_and_file_order_do_not_matter(truth, prediction, seed, skip):
    rng = np.random.default_rng(seed)
    options = dict(collar=0.004, skip_overlap=skip, files_duration={f: 0.05 for f in FILES})
    t, p = ms_series(truth), ms_series(prediction)
    shuffled_t = t.iloc[rng.permutation(len(t))]
    shuffled_p = p.iloc[rng.permutation(len(p))]
    for kw in (dict(), dict(mapping="greedy", individual_file_mapping=False)):
        a = audeval.diarization_report(t, p, **options, **kw)
        b = audeval.diarization_report(shuffled_t, shuffled_p, **options, **kw)
        pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(
        audeval.detection_report(t, p, **options),
        audeval.detection_report(shuffled_t, shuffled_p, **options),
    )


@GENERATED_FILES
@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(truth=rows, prediction=rows)
def test_detection_swap_truth_and_prediction(truth, prediction):
    # without collar and overlap removal, swapping exchanges miss and false alarm
    options = dict(files_duration={f: 0.06 for f in FILES})
    t, p = ms_series(truth), ms_series(prediction)
    a = audeval.detection_statistics(t, p, **options)
    b = audeval.detection_statistics(p, t, **options)
    assert (a["miss"] == b["false_alarm"]).all()
    assert (a["true_positive"] == b["true_positive"]).all()
    assert (a["true_negative"] == b["true_negative"]).all()
    # diarization: miss and false alarm swap, total correct is symmetric
    a = audeval.diarization_report(t, p, **options)
    b = audeval.diarization_report(p, t, **options)
    np.testing.assert_allclose(a["miss"], b["false_alarm"])
    np.testing.assert_allclose(a["correct"], b["correct"])


# --- the matching engines ------------------------------------------------------------


@hypothesis.settings(max_examples=100, deadline=None)
@hypothesis.given(
    edges=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 5), st.integers(0, 5), st.integers(1, 6)),
        max_size=40,
        unique_by=lambda e: e[:3],
    )
)
def test_optimal_and_greedy_match_references(edges):
    group = np.array([e[0] for e in edges], dtype=np.int64)
    row = np.array([e[1] for e in edges], dtype=np.int64)
    col = np.array([e[2] for e in edges], dtype=np.int64)
    weight = np.array([e[3] for e in edges], dtype=np.int64)
    optimal = optimal_assignment(group, row, col, weight)
    greedy = greedy_assignment(group, row, col, weight)
    for selected in (optimal, greedy):  # one-to-one within each group
        pairs = list(zip(group[selected], row[selected]))
        assert len(pairs) == len(set(pairs))
        pairs = list(zip(group[selected], col[selected]))
        assert len(pairs) == len(set(pairs))
    for g in range(4):
        matrix = np.zeros((6, 6), dtype=np.int64)
        in_group = group == g
        matrix[row[in_group], col[in_group]] = weight[in_group]
        rr, cc = scipy.optimize.linear_sum_assignment(matrix, maximize=True)
        assert weight[optimal & in_group].sum() == matrix[rr, cc].sum()
        expected = {(int(i), int(j)) for i, j in greedy_reference(matrix)}
        chosen = set(zip(row[greedy & in_group].tolist(), col[greedy & in_group].tolist()))
        assert chosen == expected


def test_optimal_handles_large_dense_components():
    rng = np.random.default_rng(0)
    n = 30
    row, col = (a.ravel() for a in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    weight = rng.integers(1, 1000, size=n * n)
    selected = optimal_assignment(np.zeros(n * n, np.int64), row, col, weight)
    rr, cc = scipy.optimize.linear_sum_assignment(weight.reshape(n, n), maximize=True)
    assert weight[selected].sum() == weight.reshape(n, n)[rr, cc].sum()


def test_all_permutations_small():
    # optimal equals the best of all one-to-one mappings on a 3 x 3 case
    w = np.array([[5, 4, 0], [4, 0, 3], [0, 3, 2]])
    best = max(sum(w[i, p[i]] for i in range(3)) for p in itertools.permutations(range(3)))
    r, c = np.nonzero(w)
    selected = optimal_assignment(np.zeros(len(r), np.int64), r, c, w[r, c])
    assert w[r, c][selected].sum() == best


def test_statistics_table_rejects_series_options():
    truth = series([("f", 0, 2, "A")])
    prediction = series([("f", 0, 2, "x")])
    stats = audeval.diarization_statistics(truth, prediction, files_duration={"f": 2})
    with pytest.raises(ValueError, match="files_duration"):
        audeval.diarization_error_rate(stats, files_duration=pd.Series({"f": 2.0}))
    det = audeval.detection_statistics(truth, prediction, files_duration={"f": 2})
    with pytest.raises(ValueError, match="positive_labels"):
        audeval.detection_error_rate(det, positive_labels=["A"])
    with pytest.raises(TypeError, match="positive_labels"):
        audeval.detection_error_rate(truth, prediction, "A")
    assert audeval.detection_error_rate(det) == 0.0
    pd.testing.assert_frame_equal(
        audeval.detection_report(det),
        audeval.detection_report(truth, prediction, files_duration={"f": 2}),
    )


def test_zero_length_rows_are_ignored():
    truth = series([("f", 0, 2, "A"), ("f", 1, 1, "B")])
    prediction = series([("f", 0, 2, "x"), ("f", 1.5, 1.5, "y")])
    options = dict(files_duration={"f": 2})
    assert audeval.diarization_error_rate(truth, prediction, **options) == 0.0
    # no collar around the empty row at 1 s: only 0 and 2 get one
    row = audeval.diarization_report(truth, prediction, collar=0.5, **options).loc["f"]
    assert row["total"] == 1.5
