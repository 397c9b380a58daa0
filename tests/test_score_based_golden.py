"""Score-based metrics against sed_scores_eval (golden values, tests/assets/scores/make_golden.py)."""

import json
import os

import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_FILES_WITHOUT_ROWS

from audeval._sed_scores import (
    auroc,
    average_precision,
    best_fscore,
    fscore_at,
    psd_roc,
    psds,
    score_statistics,
)
from audeval._sed_scores.statistics import accumulate
from audeval._core.validation import seconds_to_ns

ASSETS = os.path.join(os.path.dirname(__file__), "assets", "scores")
CLASSES = ["alarm", "dog", "speech"]


def _td(seconds):
    return pd.to_timedelta(seconds_to_ns(np.asarray(seconds, dtype=float)), unit="ns")


@pytest.fixture(scope="module")
def data():
    frames = pd.read_csv(os.path.join(ASSETS, "scores.csv"))
    index = pd.MultiIndex.from_arrays(
        [frames["file"], _td(frames["start"]), _td(frames["end"])], names=["file", "start", "end"]
    )
    scores = pd.DataFrame(frames[CLASSES].to_numpy(), index=index, columns=CLASSES)
    events = pd.read_csv(os.path.join(ASSETS, "truth.csv"))
    truth = pd.Series(
        events["label"].to_numpy(),
        index=pd.MultiIndex.from_arrays(
            [events["file"], _td(events["start"]), _td(events["end"])],
            names=["file", "start", "end"],
        ),
    )
    durations = pd.read_csv(os.path.join(ASSETS, "durations.csv")).set_index("file")["duration"]
    with open(os.path.join(ASSETS, "golden.json")) as fp:
        golden = json.load(fp)
    return truth, scores, durations, golden


def _at(acc, i, thresholds):
    """Counts of label ``i`` at "score >= t" for every t (ours: thresholds descending)."""
    rows = acc.rows(i)
    mine = acc.threshold[rows]
    # the smallest change point >= t is the last one (descending) that is >= t
    position = np.searchsorted(-mine, -np.asarray(thresholds), side="right") - 1
    return {k: v[rows][position] for k, v in acc.counts.items()}


@pytest.mark.parametrize("case", range(3))
def test_intersection_statistics(data, case):
    truth, scores, durations, golden = data
    expected = golden["intersection"]["statistics"][case]
    table = score_statistics(
        truth, scores, dtc_threshold=expected["dtc"], gtc_threshold=expected["gtc"],
        cttc_threshold=expected["cttc"], compat="sed_scores_eval",
    )
    acc = accumulate(table)
    for i, cls in enumerate(acc.labels):
        want = expected["per_class"][cls]
        got = _at(acc, i, want["threshold"])
        np.testing.assert_array_equal(got["tp"], want["tp"])
        np.testing.assert_array_equal(got["fp"], want["fp"])
        for other, values in want["ct"].items():
            np.testing.assert_array_equal(got[f"ct_{other}"], values)
        assert acc.totals["n_truth"][i] == want["n_truth"]
        assert acc.totals["truth_duration"][i] / 1e9 == pytest.approx(want["truth_duration"], abs=1e-9)


@pytest.mark.parametrize("case", range(4))
def test_psds(data, case):
    truth, scores, durations, golden = data
    expected = golden["intersection"]["psds"][case]
    options = dict(
        dtc_threshold=expected["dtc"], gtc_threshold=expected["gtc"],
        cttc_threshold=expected["cttc"], alpha_ct=expected["alpha_ct"],
        alpha_st=expected["alpha_st"], max_efpr=expected["max_efpr"],
        files_duration=durations, compat="sed_scores_eval",
    )
    value = psds(truth, scores, **options)
    assert value == pytest.approx(expected["psds"], abs=1e-12)
    roc = psd_roc(truth, scores, **options)
    np.testing.assert_allclose(roc["efpr"], expected["efpr"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(roc["etpr"], expected["etpr"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", range(2))
def test_best_fscore_and_fscore_at(data, case):
    truth, scores, durations, golden = data
    expected = golden["intersection"]["fscore"][case]
    options = dict(
        dtc_threshold=expected["dtc"], gtc_threshold=expected["gtc"], compat="sed_scores_eval"
    )
    for key, extra in (("best", {}), ("best_constrained", {"min_precision": 0.5, "min_recall": 0.3})):
        got = best_fscore(truth, scores, **options, **extra)
        want = expected[key]
        for cls in CLASSES:
            assert got.loc[cls, "fscore"] == pytest.approx(want["f"][cls], abs=1e-12)
            assert got.loc[cls, "precision"] == pytest.approx(want["p"][cls], abs=1e-12)
            assert got.loc[cls, "recall"] == pytest.approx(want["r"][cls], abs=1e-12)
            assert got.loc[cls, "threshold"] == pytest.approx(want["threshold"][cls], abs=1e-12)
        for row, name in (("macro", "macro_average"), ("micro", "micro_average")):
            assert got.loc[row, "fscore"] == pytest.approx(want["f"][name], abs=1e-12)
            assert got.loc[row, "precision"] == pytest.approx(want["p"][name], abs=1e-12)
            assert got.loc[row, "recall"] == pytest.approx(want["r"][name], abs=1e-12)
    got = fscore_at(truth, scores, threshold=0.5, **options)
    want = expected["at_0.5"]
    for cls in CLASSES:
        assert got.loc[cls, "fscore"] == pytest.approx(want["f"][cls], abs=1e-12)
        assert got.loc[cls, "precision"] == pytest.approx(want["p"][cls], abs=1e-12)
    for row, name in (("macro", "macro_average"), ("micro", "micro_average")):
        assert got.loc[row, "fscore"] == pytest.approx(want["f"][name], abs=1e-12)


@pytest.mark.parametrize("case", range(3))
def test_average_precision(data, case):
    truth, scores, durations, golden = data
    expected = golden["intersection"]["statistics"][case]
    options = dict(
        dtc_threshold=expected["dtc"], gtc_threshold=expected["gtc"], compat="sed_scores_eval"
    )
    per_class = average_precision(truth, scores, average=None, **options)
    for cls in CLASSES:
        assert per_class[cls] == pytest.approx(expected["average_precision"][cls], abs=1e-12)
    mean = average_precision(truth, scores, **options)
    assert mean == pytest.approx(expected["average_precision"]["mean"], abs=1e-12)


ITEM_CASES = [("segment", 0), ("segment", 1), ("clip", 0)]


@pytest.mark.parametrize("criterion, case", ITEM_CASES)
def test_item_statistics_and_metrics(data, criterion, case):
    truth, scores, durations, golden = data
    expected = golden[criterion][case]
    options = {"criterion": criterion, "files_duration": durations, "compat": "sed_scores_eval"}
    if criterion == "segment":
        options["segment_length"] = expected["segment_length"]
    acc = accumulate(score_statistics(truth, scores, **options))
    for i, cls in enumerate(acc.labels):
        want = expected["per_class"][cls]
        got = _at(acc, i, want["threshold"])
        np.testing.assert_array_equal(got["tp"], want["tp"])
        np.testing.assert_array_equal(got["fp"], want["fp"])
        assert acc.totals["n_truth"][i] == want["n_truth"]
    # sed_scores_eval sorts tied FPRs with an unstable sort (make_golden.stable_staircase):
    # we agree with its area computed with a stable sort everywhere,
    # and with its own number where that sort kept the order
    kept = {"segment": (1, 1, 1), "clip": (1, 1, 1)}[criterion] if case == 0 else (0, 0, 0)
    for k, (key, max_fpr) in enumerate((("auroc", None), ("pauc_0.1", 0.1), ("pauc_0.3", 0.3))):
        stable = expected["stable"][str(max_fpr)]
        per_class = auroc(truth, scores, average=None, max_fpr=max_fpr, **options)
        for cls in CLASSES:
            assert per_class[cls] == pytest.approx(stable[cls], abs=1e-12)
            if kept[k]:
                assert per_class[cls] == pytest.approx(expected[key][cls], abs=1e-12)
        assert auroc(truth, scores, max_fpr=max_fpr, **options) == pytest.approx(stable["mean"], abs=1e-12)
    ap = average_precision(truth, scores, average=None, **options)
    for cls in CLASSES:
        assert ap[cls] == pytest.approx(expected["average_precision"][cls], abs=1e-12)
    best = best_fscore(truth, scores, **options)
    at = fscore_at(truth, scores, threshold=0.5, **options)
    for cls in CLASSES + ["macro_average", "micro_average"]:
        row = {"macro_average": "macro", "micro_average": "micro"}.get(cls, cls)
        assert best.loc[row, "fscore"] == pytest.approx(expected["best"]["f"][cls], abs=1e-12)
        assert at.loc[row, "fscore"] == pytest.approx(expected["at_0.5"]["f"][cls], abs=1e-12)
        assert at.loc[row, "precision"] == pytest.approx(expected["at_0.5"]["p"][cls], abs=1e-12)
        if row == cls:
            assert best.loc[row, "threshold"] == pytest.approx(expected["best"]["threshold"][cls], abs=1e-12)


def _events(frame, file="filename", start="onset", end="offset", label="event_label"):
    index = pd.MultiIndex.from_arrays(
        [frame[file].to_numpy(), _td(frame[start]), _td(frame[end])], names=["file", "start", "end"]
    )
    return pd.Series(frame[label].to_numpy(), index=index)


@pytest.mark.parametrize("case", range(3))
def test_operating_points_random_psds_eval(data, case):
    truth, scores, durations, golden = data
    expected = golden["operating_points"][case]
    frame = pd.read_csv(os.path.join(ASSETS, "operating_points.csv"))
    ops = {t: _events(part) for t, part in frame.groupby("threshold")}
    value = psds(
        truth, ops, files_duration=durations, dtc_threshold=expected["dtc"],
        gtc_threshold=expected["gtc"], cttc_threshold=expected["cttc"],
        alpha_ct=expected["alpha_ct"], alpha_st=expected["alpha_st"], max_efpr=expected["max_efpr"],
    )
    assert value == pytest.approx(expected["psds"], abs=1e-9)


DESED = "/work/shared/fixtures/desed"


@pytest.mark.skipif(not os.path.isdir(DESED), reason="DESED fixtures not available")
@pytest.mark.filterwarnings("ignore:.*beyond the duration of their file")
def test_operating_points_desed_psds_eval(data):
    golden = data[3]["desed_operating_points"]
    truth = _events(pd.read_csv(os.path.join(DESED, "validation.tsv"), sep="\t").dropna())
    durations = pd.read_csv(os.path.join(DESED, "validation_durations.tsv"), sep="\t")
    durations = durations.set_index("filename")["duration"]
    ops = {}
    for name in sorted(os.listdir(os.path.join(DESED, "ops"))):
        threshold = float(name[len("predictions_th_"):-len(".tsv")])
        ops[threshold] = _events(pd.read_csv(os.path.join(DESED, "ops", name), sep="\t"))
    table = score_statistics(truth, ops, files_duration=durations, cttc_threshold=0.3,
                             dtc_threshold=0.7, gtc_threshold=0.7, compat="psds_eval")
    assert psds(table, None) == pytest.approx(golden[0]["psds"], abs=1e-9)  # PSDS1 0.33447
    # exact ns, events cropped to the file durations: DESED's detections on a 64 ms grid
    # meet some criteria exactly, and 553 detections reach beyond their file
    exact = psds(truth, ops, files_duration=durations)
    assert exact == pytest.approx(0.3346162677041842, abs=1e-12)
    for expected in golden[1:]:
        value = psds(
            truth, ops, files_duration=durations, dtc_threshold=expected["dtc"],
            gtc_threshold=expected["gtc"], cttc_threshold=expected["cttc"],
            alpha_ct=expected["alpha_ct"], alpha_st=expected["alpha_st"],
            max_efpr=expected["max_efpr"], compat="psds_eval",
        )
        assert value == pytest.approx(expected["psds"], abs=1e-9)  # PSDS2 0.5281


@pytest.mark.parametrize("case", range(3))
def test_collar(data, case):
    truth, scores, durations, golden = data
    expected = golden["collar"][case]
    options = dict(
        criterion="collar", onset_tolerance=expected["onset"], offset_tolerance=expected["offset"],
        duration_tolerance=expected["rate"], compat="sed_scores_eval",
    )
    acc = accumulate(score_statistics(truth, scores, **options))
    for i, cls in enumerate(acc.labels):
        want = expected["per_class"][cls]
        got = _at(acc, i, want["threshold"])
        np.testing.assert_array_equal(got["tp"], want["tp"])
        np.testing.assert_array_equal(got["fp"], want["fp"])
        assert acc.totals["n_truth"][i] == want["n_truth"]
    best = best_fscore(truth, scores, **options)
    at = fscore_at(truth, scores, threshold=0.5, **options)
    for cls in CLASSES + ["macro_average", "micro_average"]:
        row = {"macro_average": "macro", "micro_average": "micro"}.get(cls, cls)
        assert best.loc[row, "fscore"] == pytest.approx(expected["best"]["f"][cls], abs=1e-12)
        assert at.loc[row, "fscore"] == pytest.approx(expected["at_0.5"]["f"][cls], abs=1e-12)
        if row == cls:
            assert best.loc[row, "threshold"] == pytest.approx(expected["best"]["threshold"][cls], abs=1e-12)


# psds_eval's own test data (issue 33, items 8 and 9; tests/assets/scores_psds_eval/make_golden.py)
PEERS = os.path.join(os.path.dirname(__file__), "assets", "scores_psds_eval")


def _peer_golden():
    with open(os.path.join(PEERS, "golden.json")) as fp:
        return json.load(fp)


def _peer_classes_case():
    from audeval import read_tsv

    truth = read_tsv(os.path.join(PEERS, "test_1.gt"))
    meta = pd.read_csv(os.path.join(PEERS, "test.metadata"), sep="\t")
    durations = meta.set_index("filename")["duration"]
    z4 = pd.read_csv(os.path.join(PEERS, "test_4.det"), sep="\t")
    z4 = z4[(z4.event_label == "z4") & (z4.offset <= 50)].assign(filename="test.wav")
    ops = {0.5: read_tsv(os.path.join(PEERS, "test_1.det")),
           0.7: read_tsv(os.path.join(PEERS, "test_1a.det"))}
    ops[0.3] = pd.concat([ops[0.5], _events(z4)])
    return truth, ops, durations


@MAY_WARN_FILES_WITHOUT_ROWS
def test_psds_eval_classes_are_the_truths():
    """psds_eval evaluates the truth's classes; audeval's default is the union (SPEC section 1)."""
    truth, ops, durations = _peer_classes_case()
    for expected in _peer_golden()["classes"]:
        options = dict(
            files_duration=durations, dtc_threshold=expected["dtc"], gtc_threshold=expected["gtc"],
            cttc_threshold=expected["cttc"], alpha_ct=expected["alpha_ct"],
            alpha_st=expected["alpha_st"], max_efpr=expected["max_efpr"],
        )
        assert psds(truth, ops, compat="psds_eval", **options) == pytest.approx(expected["psds"], abs=1e-12)
        # the default evaluates z4 too (TPR 0: no truth); labels= gives psds_eval's classes
        assert psds(truth, ops, ["c1", "c2", "c3"], **options) == pytest.approx(expected["psds"], abs=1e-12)
    # alpha_st=0: the mean TPR over 4 classes instead of 3
    first = _peer_golden()["classes"][0]
    union = psds(truth, ops, files_duration=durations, dtc_threshold=0.5, gtc_threshold=0.5,
                 alpha_st=0.0)
    assert first["psds"] == pytest.approx(0.9142857142857141, abs=1e-12)
    assert union == pytest.approx(first["psds"] * 3 / 4, abs=1e-12)  # 0.6857
    table = score_statistics(truth, ops, files_duration=durations, dtc_threshold=0.5,
                             gtc_threshold=0.5, compat="psds_eval")
    assert list(table.index.get_level_values("label").categories) == ["c1", "c2", "c3"]


@MAY_WARN_FILES_WITHOUT_ROWS
def test_psds_eval_cross_trigger_at_the_cttc():
    """A share of exactly 0.3 in float64 on the file's seconds is a cross trigger in psds_eval."""
    from audeval import read_operating_points, read_tsv

    truth = read_tsv(os.path.join(PEERS, "readme.gt"))
    ops = read_operating_points([os.path.join(PEERS, "readme_th_0.5.det")])
    durations = {"Y23R6_ppquxs_247.000_257.000.wav": 10.0}
    options = dict(files_duration=durations, dtc_threshold=0.5, gtc_threshold=0.5, cttc_threshold=0.3)
    table = score_statistics(truth, ops, compat="psds_eval", **options)
    assert table["ct_Speech"].sum() == 1  # the Frying detection [2.2247619047619045, 2.5955555555555554)
    # exact ns (the default): the times rounded to ns give the share 0.29999999919
    assert score_statistics(truth, ops, **options)["ct_Speech"].sum() == 0
    for expected in _peer_golden()["readme"]:
        value = psds(truth, ops, compat="psds_eval", alpha_ct=expected["alpha_ct"],
                     alpha_st=expected["alpha_st"], max_efpr=expected["max_efpr"], **options)
        assert value == pytest.approx(expected["psds"], abs=1e-12)
    # a Series changed after reading (its kept seconds no longer match) falls back to ns / 1e9
    changed = {0.5: ops[0.5].sort_index()}
    assert changed[0.5].attrs["seconds"].start[0] != changed[0.5].index[0][1].total_seconds()
    # the kept seconds do not keep pandas from concatenating such Series
    both = pd.concat([ops[0.5], read_operating_points([os.path.join(PEERS, "readme_th_0.5.det")])[0.5]])
    assert len(both) == 2 * len(ops[0.5])
    assert score_statistics(truth, changed, compat="psds_eval", **options)["ct_Speech"].sum() == 0


SKLEARN = os.path.join(os.path.dirname(__file__), "assets", "scores_sklearn")


def test_auroc_ties_half_is_sklearn():
    """``ties="half"`` is sklearn's roc_auc_score; the default staircase counts ties after (item 22)."""
    import audformat

    frames = pd.read_csv(os.path.join(SKLEARN, "frames.csv"))
    index = audformat.segmented_index(frames["file"], frames["start"], frames["end"])
    scores = pd.DataFrame(frames[["bird", "car"]].to_numpy(), index=index, columns=["bird", "car"])
    rows = pd.read_csv(os.path.join(SKLEARN, "truth.csv"))
    truth = pd.Series(rows["label"].to_numpy(),
                      index=audformat.segmented_index(rows["file"], rows["start"], rows["end"]))
    with open(os.path.join(SKLEARN, "golden.json")) as fp:
        golden = json.load(fp)
    full = auroc(truth, scores, average=None, ties="half")
    staircase = auroc(truth, scores, average=None)
    for label, expected in golden["auroc"].items():
        assert full[label] == pytest.approx(expected["full"], abs=1e-12)
        assert staircase[label] < full[label]  # ties counted after the false positives
        for m in (0.1, 0.3):
            value = auroc(truth, scores, [label], max_fpr=m, mcclish=True, ties="half")
            assert value == pytest.approx(expected[str(m)], abs=1e-12)
    # one tied pair (a positive and a negative segment with one score): 0.0 and sklearn's 0.5
    one = pd.DataFrame({"a": [0.5, 0.5]}, index=audformat.segmented_index(["f", "f"], [0, 1], [1, 2]))
    truth_one = pd.Series(["a"], index=audformat.segmented_index(["f"], [0], [1]))
    assert auroc(truth_one, one) == 0.0
    assert auroc(truth_one, one, ties="half") == golden["one_tied_pair"] == 0.5
    with pytest.raises(ValueError, match="ties must be 'after' or 'half'"):
        auroc(truth_one, one, ties="sklearn")
