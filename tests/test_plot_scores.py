"""audeval.plot.psd_roc and audeval.plot.precision_recall draw the metrics' own curves."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import audformat  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

import audeval  # noqa: E402
import audeval.plot  # noqa: E402


ASSETS = os.path.join(os.path.dirname(__file__), "assets", "cli_scores")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def data():
    """Three clips, two classes: truth, a score table and durations (files by stem)."""
    truth = audeval.read_annotations(os.path.join(ASSETS, "truth.tsv"))
    scores = audeval.read_sed_scores(os.path.join(ASSETS, "scores"), suffix=".wav")
    durations = audeval.read_files_duration(os.path.join(ASSETS, "durations.tsv"))
    return truth, scores, durations


def line(ax, gid):
    found = [line for line in ax.lines if line.get_gid() == gid]
    assert len(found) == 1, [line.get_gid() for line in ax.lines]
    return found[0]


def legend(ax) -> list[str]:
    return [text.get_text() for text in ax.get_legend().get_texts()]


# -------------------------------------------------------------------------
# PSD-ROC
# -------------------------------------------------------------------------


def test_psd_roc_from_truth_and_scores(data):
    truth, scores, durations = data
    options = dict(files_duration=durations, max_efpr=500.0)
    ax = audeval.plot.psd_roc(truth, scores, **options)
    roc = audeval.psd_roc(truth, scores, **options)
    drawn = line(ax, "psd-roc")
    np.testing.assert_array_equal(drawn.get_xdata(), roc["efpr"])
    np.testing.assert_array_equal(drawn.get_ydata(), roc["etpr"])
    value = audeval.psds(truth, scores, **options)
    assert legend(ax)[0] == f"PSD-ROC (PSDS {value:.3f})"
    assert ax.get_xlim() == (0.0, 500.0)
    # a class staircase starts at (0, 0) and runs flat to max_efpr
    classes = audeval.psd_roc(truth, scores, per_class=True, **options)
    dog = classes[classes["label"] == "dog"]
    drawn = line(ax, "psd-roc:dog")
    assert drawn.get_xdata()[-1] == 500.0 and drawn.get_ydata()[-1] == dog["tpr"].iloc[-1]
    assert {"psds-area"} == {c.get_gid() for c in ax.collections}


def test_psd_roc_from_curves_and_tables(data):
    truth, scores, durations = data
    roc = audeval.psd_roc(truth, scores, files_duration=durations)
    ax = audeval.plot.psd_roc(roc)
    assert [line.get_gid() for line in ax.lines] == ["psd-roc"]
    classes = audeval.psd_roc(truth, scores, files_duration=durations, per_class=True)
    ax = audeval.plot.psd_roc(classes, labels=["cat"])
    assert [line.get_gid() for line in ax.lines] == ["psd-roc:cat"]
    assert ax.get_ylabel() == "TPR"
    with pytest.raises(ValueError, match=r"labels \['bird'\] are not in the curve"):
        audeval.plot.psd_roc(classes, labels=["bird"])
    # a statistics table gives the same picture as truth and scores
    table = audeval.score_statistics(truth, scores, files_duration=durations,
                                     dtc_threshold=0.1, gtc_threshold=0.1, cttc_threshold=0.3)
    ax = audeval.plot.psd_roc(table, **audeval.PSDS2)
    value = audeval.psds(truth, scores, files_duration=durations, **audeval.PSDS2)
    assert legend(ax)[0] == f"PSD-ROC (PSDS {value:.3f})"


def test_psd_roc_operating_points_on_given_axes():
    ops = audeval.read_operating_points(os.path.join(ASSETS, "ops"))
    truth = audeval.read_annotations(os.path.join(ASSETS, "truth.tsv"))
    _, ax = plt.subplots()
    assert audeval.plot.psd_roc(truth, ops, ax=ax, per_class=False) is ax
    assert [line.get_gid() for line in ax.lines] == ["psd-roc"]


# -------------------------------------------------------------------------
# Precision-recall
# -------------------------------------------------------------------------


def test_precision_recall_marks_best_f_and_gives_ap(data):
    truth, scores, durations = data
    ax = audeval.plot.precision_recall(truth, scores, files_duration=durations)
    ap = audeval.average_precision(truth, scores, files_duration=durations, average=None)
    best = audeval.best_fscore(truth, scores, files_duration=durations)
    assert legend(ax) == [
        f"{label} (AP {ap[label]:.3f}, best F {best.loc[label, 'fscore']:.3f})"
        for label in ("cat", "dog")
    ]
    for label in ("cat", "dog"):
        marker = line(ax, f"best-f:{label}")
        assert marker.get_xdata()[0] == best.loc[label, "recall"]
        assert marker.get_ydata()[0] == best.loc[label, "precision"]
        # the staircase's area is the average precision
        drawn = line(ax, f"pr:{label}")
        x, y = np.asarray(drawn.get_xdata()), np.asarray(drawn.get_ydata())
        assert np.sum(y[1:] * np.diff(x)) == pytest.approx(ap[label], abs=1e-15)
        assert np.all(np.diff(x) > 0)


def test_precision_recall_from_curve():
    truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
    index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
    scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1], "b": [0.1, 0.1, 0.9, 0.2]}, index=index)
    curve = audeval.precision_recall_curve(truth, scores, criterion="segment")
    ax = audeval.plot.precision_recall(curve, labels=["a"])
    assert [line.get_gid() for line in ax.lines] == ["pr:a", "best-f:a"]
    # segments of 1 s: a's truth is segments 0 and 1, scored 0.9 and 0.6 -> AP 1
    assert legend(ax) == ["a (AP 1.000, best F 1.000)"]
    np.testing.assert_array_equal(line(ax, "pr:a").get_xdata(), [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match="not in the curve"):
        audeval.plot.precision_recall(curve, labels=["c"])


# -------------------------------------------------------------------------
# Legends outside the axes, titles that name the scenario (issue 33, item 19)
# -------------------------------------------------------------------------


def _legend_outside(ax) -> bool:
    ax.figure.canvas.draw()
    box = ax.get_legend().get_window_extent()
    axes = ax.get_window_extent()
    return box.x0 >= axes.x1


def test_psd_roc_title_names_the_scenario_and_legend_is_outside(data):
    truth, scores, durations = data
    ax = audeval.plot.psd_roc(truth, scores, files_duration=durations, **audeval.PSDS2)
    assert ax.get_title() == (
        "PSD-ROC: DTC 0.1, GTC 0.1, CTTC 0.3, alpha_ct 0.5, alpha_st 1, max eFPR 100/h"
    )
    assert _legend_outside(ax)
    ax = audeval.plot.psd_roc(truth, scores, files_duration=durations, max_efpr=500.0)
    assert ax.get_title() == "PSD-ROC: DTC 0.7, GTC 0.7, alpha_st 1, max eFPR 500/h"
    # a table: the criteria it was made with
    table = audeval.score_statistics(truth, scores, files_duration=durations,
                                     dtc_threshold=0.1, gtc_threshold=0.1, cttc_threshold=0.3)
    ax = audeval.plot.psd_roc(table, alpha_ct=0.5)
    assert ax.get_title() == (
        "PSD-ROC: DTC 0.1, GTC 0.1, CTTC 0.3, alpha_ct 0.5, alpha_st 1, max eFPR 100/h"
    )
    roc = audeval.psd_roc(truth, scores, files_duration=durations)
    assert audeval.plot.psd_roc(roc).get_title() == "PSD-ROC: max eFPR 100/h"


def test_precision_recall_legend_outside_and_recall_order(data):
    truth, scores, durations = data
    ax = audeval.plot.precision_recall(truth, scores, files_duration=durations,
                                       dtc_threshold=0.5, gtc_threshold=0.5)
    assert ax.get_title() == "precision-recall: intersection (DTC 0.5, GTC 0.5) (dot: best F)"
    assert _legend_outside(ax)
    curve = audeval.precision_recall_curve(truth, scores, files_duration=durations,
                                           dtc_threshold=0.5, gtc_threshold=0.5)
    for label in ("cat", "dog"):
        # drawn in recall order (a staircase), whatever the order of the thresholds
        x = np.asarray(line(ax, f"pr:{label}").get_xdata())
        assert np.all(np.diff(x) > 0)
        assert set(x) == set(curve.xs(label, level="label")["recall"])
    ax = audeval.plot.precision_recall(truth, scores, files_duration=durations, criterion="segment")
    assert ax.get_title() == "precision-recall: segment (dot: best F)"
