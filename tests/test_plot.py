"""Tests of audeval.plot: what is drawn equals what the metrics count."""

from __future__ import annotations

import collections
import pathlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_ABSENT_LABELS

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import audformat  # noqa: E402
import matplotlib.colors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

import audeval  # noqa: E402
import audeval.plot  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def series(files, starts, ends, labels):
    return pd.Series(labels, index=audformat.segmented_index(files, starts, ends))


def gids(ax, prefix=""):
    """Counter of the gids of the patches drawn on ``ax``."""
    return collections.Counter(
        p.get_gid() for p in ax.patches if p.get_gid() and p.get_gid().startswith(prefix)
    )


def event_patches(ax, gid):
    return [p for p in ax.patches if p.get_gid() == gid]


def expected_counts(stats, file):
    """Drawn patches per gid implied by the statistics of one file."""
    c = stats.xs(file, level="file")[list(audeval._events.COLUMNS)].sum()
    return {
        "truth:tp": c["tp"],
        "truth:substitution": c["substituted"],
        "truth:deletion": c["fn"] - c["substituted"],
        "prediction:tp": c["tp"],
        "prediction:substitution": c["substituting"],
        "prediction:insertion": c["fp"] - c["substituting"],
    }


def random_case(seed, n_files=3, labels=("a", "b", "c")):
    """Truth, and a prediction made of shifted, relabelled, dropped and extra events.

    Times sit on a 50 ms grid so that tolerances are met exactly at times.
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 25))
    files = [f"f{k}" for k in rng.integers(0, n_files, n)]
    start = rng.integers(0, 200, n) * 0.05
    end = start + rng.choice([0, 1, 5, 10, 20, 40], n) * 0.05
    label = list(rng.choice(labels, n))
    truth = series(files, start, end, label)
    keep = rng.random(n) < 0.8
    shift = rng.integers(-4, 5, n) * 0.05
    p_start = np.maximum(start + shift, 0.0)
    p_end = np.maximum(end + rng.integers(-4, 5, n) * 0.05, p_start)
    p_label = [rng.choice(labels) if rng.random() < 0.25 else lab for lab in label]
    m = int(rng.integers(0, 6))
    extra_start = rng.integers(0, 200, m) * 0.05
    prediction = series(
        [f for f, k in zip(files, keep) if k] + [f"f{k}" for k in rng.integers(0, n_files, m)],
        np.concatenate([p_start[keep], extra_start]),
        np.concatenate([p_end[keep], extra_start + 0.5]),
        [lab for lab, k in zip(p_label, keep) if k] + list(rng.choice(labels, m)),
    )
    return truth, prediction


OPTIONS = [
    dict(onset_tolerance=0.2, offset_tolerance=0.2),
    dict(onset_tolerance=0.1, offset_tolerance=None),
    dict(onset_tolerance=0.2, offset_tolerance=0.0, duration_tolerance=0.5),
    dict(onset_tolerance=None, offset_tolerance=0.15),
    dict(onset_tolerance=0.0, offset_tolerance=0.0),
]


# -------------------------------------------------------------------------
# Event timeline: the done criterion
# -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("matching", ["optimal", "greedy"])
def test_timeline_counts_equal_statistics(seed, matching):
    truth, prediction = random_case(seed)
    options = dict(OPTIONS[seed % len(OPTIONS)], matching=matching)
    stats = audeval.event_statistics(truth, prediction, **options)
    report = audeval.event_report(truth, prediction, per_file=True, **options)
    files = stats.index.get_level_values("file").unique()
    for file in files:
        ax = audeval.plot.event_timeline(truth, prediction, file=file, **options)
        drawn = gids(ax, "truth:") + gids(ax, "prediction:")
        expected = expected_counts(stats, file)
        assert {k: drawn[k] for k in expected} == expected
        assert sum(drawn.values()) == sum(expected.values())
        # one dashed line per substitution pair
        links = [line for line in ax.lines if line.get_gid() == "substitution-link"]
        assert len(links) == expected["truth:substitution"]
        # the title carries the file's scores from the same statistics
        row = report.loc[(file, "micro")]  # the file's block of the per-file report
        assert f"F = {row['fscore']:.3f}" in ax.get_title()
        assert f"TP {int(row['tp'])}, S {int(row['substitutions'])}," in ax.get_title()
        plt.close(ax.figure)


def test_timeline_colours_per_outcome():
    truth, prediction = random_case(3)
    ax = audeval.plot.event_timeline(
        truth, prediction, file="f0", onset_tolerance=0.2, offset_tolerance=0.2
    )
    seen = set()
    for patch in ax.patches:
        gid = patch.get_gid()
        side, outcome = gid.split(":")
        if side == "collar":
            continue
        expected = matplotlib.colors.to_rgba(audeval.plot.OUTCOME_COLORS[outcome])
        assert patch.get_facecolor() == expected
        seen.add(gid)
    assert len(seen) >= 4
    # custom colours replace the defaults
    ax = audeval.plot.event_timeline(
        truth,
        prediction,
        file="f0",
        onset_tolerance=0.2,
        offset_tolerance=0.2,
        colors={"tp": "black"},
    )
    for patch in event_patches(ax, "truth:tp"):
        assert patch.get_facecolor() == (0.0, 0.0, 0.0, 1.0)


# -------------------------------------------------------------------------
# Event timeline: hand-made cases
# -------------------------------------------------------------------------


@pytest.fixture
def small():
    truth = series(["f1"] * 3, [0.0, 2.0, 4.0], [1.0, 3.0, 5.0], ["a", "a", "b"])
    prediction = series(["f1"] * 3, [0.1, 2.0, 6.0], [1.1, 3.0, 7.0], ["a", "b", "b"])
    return truth, prediction


def bar(patch):
    """(start, end, top, bottom) of a rectangle."""
    x, y = patch.get_xy()
    return x, x + patch.get_width(), y, y + patch.get_height()


def test_timeline_hand_case(small):
    truth, prediction = small
    ax = audeval.plot.event_timeline(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
    assert gids(ax, "truth:") == {"truth:tp": 1, "truth:substitution": 1, "truth:deletion": 1}
    assert gids(ax, "prediction:") == {
        "prediction:tp": 1,
        "prediction:substitution": 1,
        "prediction:insertion": 1,
    }
    (tp,) = event_patches(ax, "truth:tp")
    (missed,) = event_patches(ax, "truth:deletion")
    (matched,) = event_patches(ax, "prediction:tp")
    (alarm,) = event_patches(ax, "prediction:insertion")
    (sub_t,) = event_patches(ax, "truth:substitution")
    (sub_p,) = event_patches(ax, "prediction:substitution")
    assert bar(tp)[:2] == pytest.approx((0.0, 1.0))
    assert bar(matched)[:2] == pytest.approx((0.1, 1.1))
    assert bar(missed)[:2] == pytest.approx((4.0, 5.0))
    assert bar(alarm)[:2] == pytest.approx((6.0, 7.0))
    # y grows downwards: truth lane above prediction lane, label a above label b
    assert ax.yaxis_inverted()
    assert bar(tp)[3] <= bar(matched)[2]
    assert bar(sub_t)[3] <= bar(missed)[2]  # a (truth) above b (truth)
    assert bar(missed)[3] <= bar(alarm)[2] and bar(sub_p)[2] == bar(alarm)[2]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    assert [t.get_text() for t in ax.get_yticklabels(minor=True)] == [
        "truth",
        "prediction",
        "truth",
        "prediction",
    ]
    assert ax.get_xlim() == pytest.approx((0.0, 7.0))
    assert ax.get_title() == (
        "f1\nF = 0.333 (P = 0.333, R = 0.333), ER = 1.000; TP 1, S 1, D 1, I 1"
    )
    (link,) = [line for line in ax.lines if line.get_gid() == "substitution-link"]
    assert list(link.get_xdata()) == pytest.approx([2.5, 2.5])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [
        "true positive",
        "substitution",
        "miss (deletion)",
        "false alarm (insertion)",
        "tolerance collar",
    ]


def test_timeline_collars(small):
    truth, prediction = small
    ax = audeval.plot.event_timeline(
        truth, prediction, onset_tolerance=0.2, offset_tolerance=0.1, duration_tolerance=0.5
    )
    onset = event_patches(ax, "collar:onset")
    offset = event_patches(ax, "collar:offset")
    assert len(onset) == len(offset) == 3
    np.testing.assert_allclose(
        sorted(bar(p)[:2] for p in onset), [(-0.2, 0.2), (1.8, 2.2), (3.8, 4.2)]
    )
    # max(0.1, 0.5 * 1 s) = 0.5 s around each offset
    np.testing.assert_allclose(
        sorted(bar(p)[:2] for p in offset), [(0.5, 1.5), (2.5, 3.5), (4.5, 5.5)]
    )
    # a collar spans both lanes of its label and lies behind the events
    (tp,) = event_patches(ax, "truth:tp")
    (matched,) = event_patches(ax, "prediction:tp")
    first = min(onset, key=lambda p: p.get_x())
    assert bar(first)[2] <= bar(tp)[2] and bar(first)[3] >= bar(matched)[3]
    assert first.get_zorder() < tp.get_zorder()

    # offsets not evaluated, zero onset tolerance, or collars=False: no bands
    ax = audeval.plot.event_timeline(truth, prediction, onset_tolerance=0.2, offset_tolerance=None)
    assert gids(ax, "collar") == {"collar:onset": 3}
    ax = audeval.plot.event_timeline(truth, prediction, onset_tolerance=0.0, offset_tolerance=0.0)
    assert gids(ax, "collar") == {}
    assert "tolerance collar" not in [t.get_text() for t in ax.get_legend().get_texts()]
    ax = audeval.plot.event_timeline(
        truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2, collars=False
    )
    assert gids(ax, "collar") == {}


def test_timeline_stacks_overlapping_events():
    truth = series(["f"] * 4, [0.0, 0.5, 1.0, 2.0], [2.0, 1.5, 3.0, 2.5], ["a"] * 4)
    prediction = series(["f"], [0.0], [2.0], ["a"])
    ax = audeval.plot.event_timeline(truth, prediction)
    bars = sorted((bar(p) for p in ax.patches if p.get_gid().startswith("truth")))
    tops = [b[2] for b in bars]
    # [0, 2] level 0, [0.5, 1.5] level 1, [1, 3] level 2, [2, 2.5] level 0 again (touches [0, 2])
    assert tops[0] == tops[3]
    assert len({tops[0], tops[1], tops[2]}) == 3
    for one in bars:
        for other in bars:
            if one is not other and one[2] == other[2]:
                assert one[1] <= other[0] or other[1] <= one[0]
    # the prediction lane lies below all three truth levels
    (pred,) = [p for p in ax.patches if p.get_gid().startswith("prediction")]
    assert bar(pred)[2] > max(b[3] for b in bars)


def test_timeline_nat_end_drawn_to_duration():
    truth = pd.Series(
        ["a", "b"],
        index=audformat.segmented_index(["f", "f"], [1.0, 2.0], [pd.NaT, 3.0]),
    )
    prediction = series(["f"], [1.0], [8.0], ["a"])
    with pytest.raises(ValueError, match="files_duration"):
        audeval.plot.event_timeline(truth, prediction)
    ax = audeval.plot.event_timeline(truth, prediction, files_duration={"f": 8.0})
    (matched,) = event_patches(ax, "truth:tp")
    assert bar(matched)[:2] == pytest.approx((1.0, 8.0))
    (line,) = [line for line in ax.lines if line.get_gid() == "file-end"]
    assert list(line.get_xdata()) == [8.0, 8.0]
    assert ax.get_xlim() == pytest.approx((0.0, 8.0))
    # filewise rows (one label for the whole file) work the same way
    filewise = pd.Series(["a"], index=audformat.filewise_index(["f"]))
    ax = audeval.plot.event_timeline(filewise, prediction, files_duration={"f": 8.0})
    (patch,) = [p for p in ax.patches if p.get_gid().startswith("truth")]
    assert bar(patch)[:2] == pytest.approx((0.0, 8.0))


def test_timeline_window(small):
    truth, prediction = small
    whole = audeval.plot.event_timeline(
        truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2
    )
    ax = audeval.plot.event_timeline(
        truth,
        prediction,
        start=pd.Timedelta(seconds=2.5),
        end=4.5,
        onset_tolerance=0.2,
        offset_tolerance=0.2,
    )
    assert ax.get_xlim() == pytest.approx((2.5, 4.5))
    # events overlapping [2.5, 4.5]; the title still shows the whole file
    assert gids(ax, "truth:") == {"truth:substitution": 1, "truth:deletion": 1}
    assert gids(ax, "prediction:") == {"prediction:substitution": 1}
    assert ax.get_title() == whole.get_title()
    # the rows do not change with the window
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    with pytest.raises(ValueError, match="end must be after start"):
        audeval.plot.event_timeline(truth, prediction, start=3.0, end=2.0)
    with pytest.raises(ValueError, match="start"):
        audeval.plot.event_timeline(truth, prediction, start=-1.0)


def test_timeline_long_file_default_window():
    # issue 18 item 24: 2,000 events in 1 h; without end= the first 60 s are shown
    starts = np.arange(2000) * 1.8
    truth = series(["f"] * 2000, starts, starts + 1.0, ["a", "b"] * 1000)
    prediction = series(["f"] * 2000, starts + 0.05, starts + 1.05, ["a", "b"] * 1000)
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, files_duration={"f": 3600.0})
    ax = audeval.plot.event_timeline(truth, prediction, **options)
    assert ax.get_xlim() == pytest.approx((0.0, 60.0))
    in_window = int(np.sum(starts <= 60.0))  # ends >= 0 for all
    assert gids(ax, "truth:") == {"truth:tp": in_window}
    assert gids(ax, "prediction:") == {"prediction:tp": int(np.sum(starts + 0.05 <= 60.0))}
    lines = ax.get_title().split("\n")
    # the scores are those of the whole file
    assert lines[1] == "F = 1.000 (P = 1.000, R = 1.000), ER = 0.000; TP 2000, S 0, D 0, I 0"
    assert lines[2] == "0-60 s of 3600 s shown; pass start= and end= (seconds) for another window"
    # start without end: 60 s from start
    ax = audeval.plot.event_timeline(truth, prediction, start=1000.0, **options)
    assert ax.get_xlim() == pytest.approx((1000.0, 1060.0))
    assert ax.get_title().split("\n")[2].startswith("1000-1060 s of 3600 s shown")
    # up to the file's end, or an explicit end: no note
    ax = audeval.plot.event_timeline(truth, prediction, start=3570.0, **options)
    assert ax.get_xlim() == pytest.approx((3570.0, 3600.0))
    assert len(ax.get_title().split("\n")) == 2
    ax = audeval.plot.event_timeline(truth, prediction, end=3600.0, **options)
    assert ax.get_xlim() == pytest.approx((0.0, 3600.0))
    assert len(ax.get_title().split("\n")) == 2


def test_timeline_data_limits_hold_every_bar():
    # the bars' data limits are updated once for all bars: as add_patch bar by bar would
    starts = np.array([2.0, 10.0, 30.0])
    truth = series(["f"] * 3, starts, starts + 1.0, ["a", "b", "a"])
    prediction = series(["f"] * 3, starts + 0.5, starts + 4.0, ["a", "b", "b"])
    ax = audeval.plot.event_timeline(truth, prediction, onset_tolerance=0.2, offset_tolerance=None)
    bars = [p for p in ax.patches if (p.get_gid() or "").startswith(("truth:", "prediction:", "collar:"))]
    assert len(bars) >= 6
    x0 = min(p.get_x() for p in bars)
    x1 = max(p.get_x() + p.get_width() for p in bars)
    assert ax.dataLim.x0 == pytest.approx(x0)
    assert ax.dataLim.x1 == pytest.approx(x1)
    assert (x0, x1) == pytest.approx((1.8, 34.0))  # (the first onset collar, the last prediction's end)


def test_timeline_offset_collar_not_clipped():
    # issue 18 item 24: the window reaches the last offset collar's end
    truth = series(["f"], [0.0], [1.0], ["a"])
    prediction = series(["f"], [0.0], [1.0], ["a"])
    ax = audeval.plot.event_timeline(truth, prediction, offset_tolerance=0.5)
    assert ax.get_xlim() == pytest.approx((0.0, 1.5))
    (collar,) = event_patches(ax, "collar:offset")
    assert bar(collar)[:2] == pytest.approx((0.5, 1.5))
    ax = audeval.plot.event_timeline(truth, prediction, duration_tolerance=2.0)
    assert ax.get_xlim() == pytest.approx((0.0, 3.0))
    # no collars drawn, or a known file duration: up to the data / the file end
    ax = audeval.plot.event_timeline(truth, prediction, offset_tolerance=0.5, collars=False)
    assert ax.get_xlim() == pytest.approx((0.0, 1.0))
    ax = audeval.plot.event_timeline(
        truth, prediction, offset_tolerance=0.5, files_duration={"f": 1.2}
    )
    assert ax.get_xlim() == pytest.approx((0.0, 1.2))


def test_timeline_greedy_and_optimal_differ():
    # greedy gives the first truth event the first prediction, leaving the second unmatched
    truth = series(["f"] * 2, [0.0, 0.5], [1.0, 0.8], ["a", "a"])
    prediction = series(["f"] * 2, [0.0, 0.0], [0.9, 1.05], ["a", "a"])
    options = dict(onset_tolerance=None, offset_tolerance=0.1)
    for matching, tp in (("optimal", 2), ("greedy", 1)):
        ax = audeval.plot.event_timeline(truth, prediction, matching=matching, **options)
        stats = audeval.event_statistics(truth, prediction, matching=matching, **options)
        assert int(stats["tp"].sum()) == tp
        assert gids(ax, "truth:")["truth:tp"] == tp
        assert gids(ax, "prediction:")["prediction:tp"] == tp


def test_timeline_files_and_labels():
    truth = series(["f1", "f2", "f2"], [0.0, 0.0, 1.0], [1.0, 1.0, 2.0], ["a", "b", "c"])
    prediction = series(["f2"], [0.0], [1.0], ["b"])
    with pytest.raises(ValueError, match="file must be given"):
        audeval.plot.event_timeline(truth, prediction)
    with pytest.raises(ValueError, match="'f3'"):
        audeval.plot.event_timeline(truth, prediction, file="f3")
    # labels=None: labels with events in the file
    ax = audeval.plot.event_timeline(truth, prediction, file="f2")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "c"]
    # given labels: all of them, in that order; other labels left out
    ax = audeval.plot.event_timeline(truth, prediction, ["c", "a"], file="f2")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["c", "a"]
    assert gids(ax, "prediction") == {}
    assert gids(ax, "truth") == {"truth:deletion": 1}
    # a prediction-only file: all false alarms
    ax = audeval.plot.event_timeline(prediction, truth, file="f1")
    assert gids(ax, "prediction") == {"prediction:insertion": 1}
    assert ax.get_title().endswith("TP 0, S 0, D 0, I 1")
    assert "ER = inf" in ax.get_title()


def test_timeline_zero_length_and_empty():
    truth = series(["f"], [1.0], [1.0], ["a"])
    prediction = series(["f"], [1.0], [1.0], ["a"])
    ax = audeval.plot.event_timeline(truth, prediction)
    (patch,) = event_patches(ax, "truth:tp")
    assert patch.get_width() == 0.0 and patch.get_linewidth() > 1
    assert patch.get_edgecolor() == matplotlib.colors.to_rgba(audeval.plot.OUTCOME_COLORS["tp"])
    assert ax.get_xlim() == (0.0, 1.0)
    empty = series([], [], [], [])
    ax = audeval.plot.event_timeline(empty, prediction)
    assert gids(ax) == {"prediction:insertion": 1}


def test_timeline_axes_convention(small, tmp_path):
    truth, prediction = small
    fig, given = plt.subplots()
    ax = audeval.plot.event_timeline(truth, prediction, ax=given)
    assert ax is given
    n_figures = len(plt.get_fignums())
    ax = audeval.plot.event_timeline(truth, prediction)
    assert ax is not given and len(plt.get_fignums()) == n_figures + 1
    path = tmp_path / "timeline.png"
    ax.figure.savefig(path)
    assert path.stat().st_size > 1000


def test_timeline_invalid_options(small):
    truth, prediction = small
    with pytest.raises(ValueError, match="matching"):
        audeval.plot.event_timeline(truth, prediction, matching="best")
    with pytest.raises(ValueError, match="at least the onset or the offset"):
        audeval.plot.event_timeline(truth, prediction, onset_tolerance=None, offset_tolerance=None)
    with pytest.raises(ValueError, match="colors"):
        audeval.plot.event_timeline(truth, prediction, colors={"hit": "red"})
    with pytest.raises(TypeError, match="truth"):
        audeval.plot.event_timeline(truth.to_frame("x"), prediction)


# -------------------------------------------------------------------------
# Confusion matrix
# -------------------------------------------------------------------------


@pytest.mark.parametrize("normalize", [False, True])
def test_confusion_matrix_equals_metric(normalize):
    truth, prediction = random_case(11)
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, normalize=normalize)
    expected = np.asarray(audeval.event_confusion_matrix(truth, prediction, **options))
    ax = audeval.plot.event_confusion_matrix(truth, prediction, **options)
    (image,) = ax.images
    shown = image.get_array()
    assert shown.mask[-1, -1] and shown.mask.sum() == 1
    np.testing.assert_array_equal(shown.filled(0), expected)
    texts = [t.get_text() for t in ax.texts if t.get_gid() == "confusion-value"]
    n = len(expected)
    cells = [expected[r, c] for r in range(n) for c in range(n) if (r, c) != (n - 1, n - 1)]
    assert texts == [f"{v:.2f}" if normalize else f"{int(v)}" for v in cells]
    names = ["a", "b", "c", "no event"]
    assert [t.get_text() for t in ax.get_xticklabels()] == names
    assert [t.get_text() for t in ax.get_yticklabels()] == names
    assert ax.get_xlabel() == "prediction" and ax.get_ylabel() == "truth"
    assert len(ax.figure.axes) == 2  # with the colour bar


def test_confusion_matrix_from_statistics_and_labels():
    truth, prediction = random_case(5)
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2)
    stats = audeval.event_statistics(truth, prediction, confusion=True, **options)
    ax = audeval.plot.event_confusion_matrix(stats, None, colorbar=False)
    np.testing.assert_array_equal(
        ax.images[0].get_array().filled(0),
        audeval.event_confusion_matrix(truth, prediction, **options),
    )
    assert len(ax.figure.axes) == 1
    ax = audeval.plot.event_confusion_matrix(truth, prediction, ["c", "a"], **options)
    np.testing.assert_array_equal(
        ax.images[0].get_array().filled(0),
        audeval.event_confusion_matrix(truth, prediction, ["c", "a"], **options),
    )
    assert [t.get_text() for t in ax.get_yticklabels()] == ["c", "a", "no event"]
    # the matrix counts every drawn outcome of the timelines
    cm = np.asarray(audeval.event_confusion_matrix(truth, prediction, **options))
    drawn = collections.Counter()
    for file in stats.index.get_level_values("file").unique():
        drawn += gids(audeval.plot.event_timeline(truth, prediction, file=file, **options))
    assert drawn["truth:tp"] == np.trace(cm[:-1, :-1])
    assert drawn["truth:deletion"] == cm[:-1, -1].sum()
    assert drawn["prediction:insertion"] == cm[-1, :-1].sum()
    assert drawn["truth:substitution"] == cm[:-1, :-1].sum() - np.trace(cm[:-1, :-1])


# -------------------------------------------------------------------------
# Missing matplotlib
# -------------------------------------------------------------------------


def test_helpful_error_without_matplotlib(monkeypatch, small):
    truth, prediction = small
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    for name in audeval.plot.__all__:
        function = getattr(audeval.plot, name)
        if callable(function):
            with pytest.raises(ImportError, match=r'pip install "audeval\[plot\]"'):
                function(truth, prediction)


def test_import_is_lazy():
    # importing audeval, and audeval.plot itself, does not import matplotlib
    code = (
        "import sys, audeval; assert 'audeval.plot' not in sys.modules; "
        "import audeval.plot; assert 'matplotlib' not in sys.modules"
    )
    root = pathlib.Path(audeval.__file__).parents[1]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)


# -------------------------------------------------------------------------
# Segment view
# -------------------------------------------------------------------------


def block_of(ax, patch):
    """The label (major y tick) of the block a patch is drawn in."""
    ticks = ax.get_yticks()
    names = [t.get_text() for t in ax.get_yticklabels()]
    centre = patch.get_y() + patch.get_height() / 2
    return names[int(np.argmin(np.abs(ticks - centre)))]


def drawn_lengths(ax, unit):
    """Summed bar length per (gid, label), in units of ``unit`` seconds."""
    out = collections.Counter()
    for patch in ax.patches:
        gid = patch.get_gid()
        if gid.endswith(":tp") or gid.endswith(":fn") or gid.endswith(":fp"):
            out[(gid, block_of(ax, patch))] += patch.get_width() / unit
    return out


@MAY_WARN_ABSENT_LABELS
@pytest.mark.parametrize(
    "time_resolution, compat",
    [(1.0, None), (0.25, None), (0.1, "sed_eval"), (None, None)],
)
@pytest.mark.parametrize("seed", range(3))
def test_segment_counts_equal_statistics(seed, time_resolution, compat):
    truth, prediction = random_case(20 + seed)
    options = dict(time_resolution=time_resolution, compat=compat)
    stats = audeval.segment_statistics(truth, prediction, **options)
    if time_resolution is None:
        stats = stats.apply(lambda c: c.dt.total_seconds())
    unit = 1.0 if time_resolution is None else time_resolution
    report = audeval.segment_report(truth, prediction, per_file=True, **options)
    for file in stats.index.get_level_values("file").unique():
        ax = audeval.plot.segment_timeline(truth, prediction, file=file, **options)
        drawn = drawn_lengths(ax, unit)
        rows = stats.xs(file, level="file")
        shown = [t.get_text() for t in ax.get_yticklabels()]
        for label in rows.index:
            row = rows.loc[label]
            if str(label) not in shown:
                assert row["tp"] == row["fp"] == row["fn"] == 0
                continue
            for gid, column in (
                ("truth:tp", "tp"),
                ("prediction:tp", "tp"),
                ("truth:fn", "fn"),
                ("prediction:fp", "fp"),
            ):
                assert drawn[(gid, str(label))] == pytest.approx(row[column], abs=1e-6)
        # colours per outcome
        for patch in ax.patches:
            outcome = patch.get_gid().split(":")[1]
            key = {"tp": "tp", "fn": "deletion", "fp": "insertion"}.get(outcome)
            if key:
                assert patch.get_facecolor() == matplotlib.colors.to_rgba(
                    audeval.plot.OUTCOME_COLORS[key]
                )
        # events of the file drawn as strips
        n_events = (truth.index.get_level_values("file") == file).sum() + (
            prediction.index.get_level_values("file") == file
        ).sum()
        assert sum(gids(ax, "").get(k, 0) for k in ("truth:event", "prediction:event")) == n_events
        # the title carries the file's micro scores
        micro = report.loc[(file, "micro")]
        assert f"F = {micro['fscore']:.3f}, ER = {micro['error_rate']:.3f}" in ax.get_title()
        plt.close(ax.figure)


def test_segment_hand_case():
    truth = series(["f", "f"], [0.0, 1.5], [2.0, 3.0], ["speech", "music"])
    prediction = series(["f"], [0.5], [3.0], ["speech"])
    ax = audeval.plot.segment_timeline(truth, prediction)
    bars = sorted(
        (p.get_gid(), block_of(ax, p), p.get_x(), p.get_width())
        for p in ax.patches
        if "event" not in p.get_gid()
    )
    assert bars == [
        ("prediction:fp", "speech", 2.0, 1.0),
        ("prediction:tp", "speech", 0.0, 2.0),
        ("truth:fn", "music", 1.0, 2.0),
        ("truth:tp", "speech", 0.0, 2.0),
    ]
    # rows in label order (sorted union), truth lane above prediction lane
    assert [t.get_text() for t in ax.get_yticklabels()] == ["music", "speech"]
    assert ax.get_xlim() == (0.0, 3.0)
    (grid,) = [c for c in ax.collections if c.get_gid() == "segment-grid"]
    assert len(grid.get_segments()) == 4  # boundaries 0, 1, 2, 3
    assert ax.get_title() == (
        "f (1 s segments)\nF = 0.571, ER = 0.500; TP 2, FP 1, FN 2, S 1, D 1, I 0 segments"
    )
    # window, exact time, no event strips
    ax = audeval.plot.segment_timeline(
        truth, prediction, time_resolution=None, start=1.0, end=2.5, events=False
    )
    assert ax.get_xlim() == (1.0, 2.5)
    assert not [c for c in ax.collections if c.get_gid() == "segment-grid"]
    assert gids(ax, "truth:event") == {}
    bars = sorted((p.get_gid(), p.get_x(), p.get_width()) for p in ax.patches)
    assert bars == [
        ("prediction:fp", 2.0, 1.0),
        ("prediction:tp", 0.5, 1.5),
        ("truth:fn", 1.5, 1.5),
        ("truth:tp", 0.5, 1.5),
    ]


def test_segment_sed_eval_binning_and_duration():
    # sed_eval: a zero-length event off the grid activates one segment
    truth = series(["f"], [0.25], [0.25], ["a"])
    prediction = series(["f"], [2.0], [3.0], ["a"])
    exact = audeval.plot.segment_timeline(truth, prediction, files_duration={"f": 4.0})
    assert gids(exact, "truth:fn") == {}
    compat = audeval.plot.segment_timeline(
        truth, prediction, compat="sed_eval", files_duration={"f": 4.0}
    )
    (missed,) = event_patches(compat, "truth:fn")
    assert (missed.get_x(), missed.get_width()) == (0.0, 1.0)
    (line,) = [line for line in compat.lines if line.get_gid() == "evaluated-end"]
    assert list(line.get_xdata()) == [4.0, 4.0]
    with pytest.raises(ValueError, match="time_resolution"):
        audeval.plot.segment_timeline(truth, prediction, time_resolution=0.0)
    with pytest.raises(ValueError, match="compat"):
        audeval.plot.segment_timeline(truth, prediction, compat="dcase")


# -------------------------------------------------------------------------
# Structure view
# -------------------------------------------------------------------------


def random_partitions(seed, n_files=2):
    """Truth and prediction partitions (with gaps) on a 0.1 s grid."""
    rng = np.random.default_rng(seed)
    sides = []
    for _ in range(2):
        files, starts, ends, labels = [], [], [], []
        for k in range(n_files):
            cuts = np.sort(rng.choice(np.arange(11, 300), int(rng.integers(2, 9)), replace=False))
            bounds = np.concatenate([[int(rng.integers(0, 3)) * 5], cuts, [300]]) * 0.1
            for a, b in zip(bounds[:-1], bounds[1:]):
                if rng.random() < 0.1:
                    continue  # a gap
                files.append(f"f{k}")
                starts.append(a)
                ends.append(b)
                labels.append(rng.choice(["A", "B", "C"]))
        sides.append(series(files, starts, ends, labels))
    return sides


def lines(ax, gid):
    return [line for line in ax.lines if line.get_gid() == gid]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("trim", [False, True])
def test_structure_boundaries_equal_detection(seed, trim):
    truth, prediction = random_partitions(seed)
    window = [0.5, 3.0, 0.2, 1.0][seed]
    report = audeval.structure_report(truth, prediction, windows=(window,), trim=trim)
    for file in report.index:
        ax = audeval.plot.structure_timeline(
            truth, prediction, file=file, window=window, trim=trim
        )
        hits_t = len(lines(ax, "truth:tp"))
        hits_p = len(lines(ax, "prediction:tp"))
        n_t = hits_t + len(lines(ax, "truth:deletion"))
        n_p = hits_p + len(lines(ax, "prediction:insertion"))
        assert hits_t == hits_p == len(lines(ax, "boundary-link"))
        row = report.loc[file]
        name = audeval._structure._window_name(window)
        assert row[f"recall_at_{name}"] == pytest.approx(hits_t / n_t if n_t and n_p else 0.0)
        assert row[f"precision_at_{name}"] == pytest.approx(hits_p / n_p if n_t and n_p else 0.0)
        assert f"F = {row[f'f_measure_at_{name}']:.3f}" in ax.get_title()
        assert len(event_patches(ax, "collar:window")) == n_t
        # each link joins boundaries at most `window` apart
        for link in lines(ax, "boundary-link"):
            a, b = link.get_xdata()
            assert abs(a - b) <= window + 1e-9
        # the segments tile [0, T) on both lanes
        extent = max(
            p.get_x() + p.get_width()
            for p in ax.patches
            if p.get_gid().endswith((":gap", ":segment"))
        )
        for side in ("truth", "prediction"):
            tiles = sorted(
                (p.get_x(), p.get_x() + p.get_width())
                for p in ax.patches
                if p.get_gid() in (f"{side}:segment", f"{side}:gap")
            )
            assert tiles[0][0] == 0.0 and tiles[-1][1] == pytest.approx(extent)
            for (_, b), (c, _) in zip(tiles[:-1], tiles[1:]):
                assert b == pytest.approx(c)
        plt.close(ax.figure)


def test_structure_hand_case():
    truth = series(["a", "a"], [0, 10], [10, 20], ["verse", "chorus"])
    prediction = series(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20], ["x", "y", "x"])
    ax = audeval.plot.structure_timeline(truth, prediction)
    assert sorted(line.get_xdata()[0] for line in lines(ax, "truth:tp")) == [0.0, 10.0, 20.0]
    assert [line.get_xdata()[0] for line in lines(ax, "prediction:insertion")] == [15.0]
    row = audeval.structure_report(truth, prediction).loc["a"]
    assert ax.get_title() == (
        "a\nboundaries \u00b10.5 s: P = 0.750, R = 1.000, F = 0.857; "
        f"pairwise F = {row['pairwise_f_measure']:.3f}, "
        f"NCE F = {row['nce_f_measure']:.3f}, V = 0.329"
    )
    texts = sorted(t.get_text() for t in ax.texts if t.get_gid() == "segment-label")
    assert texts == ["chorus", "verse", "x", "x", "y"]
    # same label, same colour; truth lane above the prediction lane
    segments = event_patches(ax, "truth:segment") + event_patches(ax, "prediction:segment")
    assert len(segments) == 5
    (x_first, x_second) = sorted(
        (p for p in event_patches(ax, "prediction:segment") if p.get_x() in (0.0, 15.0)),
        key=lambda p: p.get_x(),
    )
    assert x_first.get_facecolor() == x_second.get_facecolor()
    assert max(p.get_y() for p in event_patches(ax, "truth:segment")) < min(
        p.get_y() for p in event_patches(ax, "prediction:segment")
    )
    # a window of 0.1 s: 10.0 and 10.2 no longer hit
    ax = audeval.plot.structure_timeline(truth, prediction, window=0.1, start=5.0, end=16.0)
    assert [line.get_xdata()[0] for line in lines(ax, "truth:deletion")] == [10.0]
    assert sorted(line.get_xdata()[0] for line in lines(ax, "prediction:insertion")) == [10.2, 15.0]
    assert ax.get_xlim() == (5.0, 16.0)


def test_structure_gaps_and_errors():
    # truth padded to start at 0, prediction padded up to T
    truth = series(["a", "a"], [2, 5], [4, 8], ["A", "B"])
    prediction = series(["a"], [0], [6], ["A"])
    ax = audeval.plot.structure_timeline(truth, prediction)
    gaps_t = sorted((p.get_x(), p.get_width()) for p in event_patches(ax, "truth:gap"))
    gaps_p = sorted((p.get_x(), p.get_width()) for p in event_patches(ax, "prediction:gap"))
    assert gaps_t == [(0.0, 2.0), (4.0, 1.0)]
    assert gaps_p == [(6.0, 2.0)]
    overlapping = series(["a", "a"], [0, 1], [2, 3], ["A", "B"])
    with pytest.raises(ValueError, match="overlapping"):
        audeval.plot.structure_timeline(overlapping, prediction)
    with pytest.raises(ValueError, match="file must be given"):
        audeval.plot.structure_timeline(
            series(["a", "b"], [0, 0], [1, 1], ["A", "A"]), prediction
        )


# -------------------------------------------------------------------------
# Diarization view
# -------------------------------------------------------------------------


def random_speakers(seed, n_files=2):
    rng = np.random.default_rng(seed)
    sides = []
    for names in (["A", "B", "C"], ["s1", "s2", "s3", "s4"]):
        n = int(rng.integers(3, 12))
        start = rng.integers(0, 180, n) * 0.05
        sides.append(
            series(
                [f"f{k}" for k in rng.integers(0, n_files, n)],
                start,
                start + rng.integers(1, 60, n) * 0.05,
                list(rng.choice(names, n)),
            )
        )
    return sides


def lengths(ax, prefix):
    return sum(p.get_width() for p in ax.patches if p.get_gid().startswith(prefix))


@pytest.mark.parametrize(
    "options",
    [
        dict(),
        dict(collar=0.5),
        dict(skip_overlap=True, mapping="greedy"),
        dict(individual_file_mapping=False, collar=0.2),
        dict(mapping="identity"),
    ],
)
@pytest.mark.parametrize("seed", range(2))
def test_diarization_durations_equal_report(seed, options):
    truth, prediction = random_speakers(seed)
    if options.get("mapping") == "identity":
        prediction = prediction.map({"s1": "A", "s2": "B", "s3": "C", "s4": "D"})
    durations = {"f0": 12.0, "f1": 12.0}
    report = audeval.diarization_report(truth, prediction, files_duration=durations, **options)
    for file in ("f0", "f1"):
        if file not in report.index:
            continue
        ax = audeval.plot.diarization_timeline(
            truth, prediction, file=file, files_duration=durations, **options
        )
        row = report.loc[file]
        assert lengths(ax, "truth:correct") == pytest.approx(row["correct"])
        assert lengths(ax, "prediction:correct") == pytest.approx(row["correct"])
        assert lengths(ax, "truth:") == pytest.approx(row["total"])
        assert lengths(ax, "prediction:") == pytest.approx(
            row["correct"] + row["confusion"] + row["false_alarm"]
        )
        assert f"DER = {row['diarization_error_rate']:.3f}" in ax.get_title()
        # a correct bar has its twin in the lane below
        truth_bars = sorted(
            (p.get_x(), p.get_width(), p.get_y()) for p in event_patches(ax, "truth:correct")
        )
        prediction_bars = sorted(
            (p.get_x(), p.get_width(), p.get_y()) for p in event_patches(ax, "prediction:correct")
        )
        for (a, w, y), (b, v, z) in zip(truth_bars, prediction_bars):
            assert (a, w) == pytest.approx((b, v)) and z == pytest.approx(y + 1.0)
        for patch in ax.patches:
            if patch.get_gid() == "unscored":
                continue
            key = {
                "truth:correct": "tp",
                "prediction:correct": "tp",
                "truth:error": "deletion",
                "prediction:error": "insertion",
            }[patch.get_gid()]
            assert patch.get_facecolor() == matplotlib.colors.to_rgba(
                audeval.plot.OUTCOME_COLORS[key]
            )
        plt.close(ax.figure)


def test_diarization_hand_case():
    truth = series(["f", "f"], [0, 2], [2, 4], ["A", "B"])
    prediction = series(["f", "f", "f"], [0, 2.5, 5.0], [2.5, 4, 6.0], ["s1", "s2", "s3"])
    ax = audeval.plot.diarization_timeline(truth, prediction, files_duration={"f": 6.0})
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A", "B", "unmapped"]
    assert [t.get_text() for t in ax.get_yticklabels(minor=True)] == [
        "truth",
        "prediction: s1",
        "truth",
        "prediction: s2",
        "prediction: s3",
    ]
    assert sorted((p.get_gid(), p.get_x(), p.get_width()) for p in ax.patches) == [
        ("prediction:correct", 0.0, 2.0),
        ("prediction:correct", 2.5, 1.5),
        ("prediction:error", 2.0, 0.5),
        ("prediction:error", 5.0, 1.0),
        ("truth:correct", 0.0, 2.0),
        ("truth:correct", 2.5, 1.5),
        ("truth:error", 2.0, 0.5),
    ]
    assert ax.get_title() == (
        "f (optimal mapping per file)\n"
        "DER = 0.375: confusion 0.50 s, false alarm 1.00 s, miss 0.00 s of 4.00 s "
        "(correct 3.50 s)"
    )
    assert ax.get_xlim() == (0.0, 6.0)
    # a collar of 1 s (0.5 s each side of 0, 2 and 4) is not scored
    ax = audeval.plot.diarization_timeline(
        truth, prediction, collar=1.0, files_duration={"f": 6.0}
    )
    spans = sorted(
        (round(p.get_x(), 6), round(p.get_x() + p.get_width(), 6))
        for p in ax.patches
        if p.get_gid() == "unscored"
    )
    assert spans == [(0.0, 0.5), (1.5, 2.5), (3.5, 4.5)]
    # scored truth: A in [0.5, 1.5], B in [2.5, 3.5]
    assert lengths(ax, "truth:") == pytest.approx(2.0)


def test_diarization_mapping_options():
    # greedy takes the largest co-occurrence first: A-s1 (3 s), leaving B without s1
    truth = series(["f"] * 2, [0, 3], [3, 5], ["A", "B"])
    prediction = series(["f"] * 2, [0, 3.5], [4.0, 5.0], ["s1", "s2"])
    for mapping in ("optimal", "greedy"):
        ax = audeval.plot.diarization_timeline(
            truth, prediction, mapping=mapping, files_duration={"f": 5}
        )
        report = audeval.diarization_report(
            truth, prediction, mapping=mapping, files_duration={"f": 5}
        )
        assert lengths(ax, "truth:correct") == pytest.approx(report.loc["f", "correct"])
    # one mapping over all files: the same partner in every file
    truth = series(["f", "g"], [0, 0], [2, 2], ["A", "A"])
    prediction = series(["f", "g", "g"], [0, 0, 0], [2, 1, 2], ["s1", "s1", "s2"])
    for file in ("f", "g"):
        ax = audeval.plot.diarization_timeline(
            truth,
            prediction,
            file=file,
            individual_file_mapping=False,
            files_duration={"f": 2, "g": 2},
        )
        minor = [t.get_text() for t in ax.get_yticklabels(minor=True)]
        assert minor[:2] == ["truth", "prediction: s1"]
    # without files_duration: the metric's warning, the union of extents is scored
    with pytest.warns(UserWarning, match="files_duration"):
        ax = audeval.plot.diarization_timeline(truth, prediction, file="g")
    with pytest.raises(ValueError, match="mapping"):
        audeval.plot.diarization_timeline(truth, prediction, file="g", mapping="best")


# -------------------------------------------------------------------------
# Every option of the family reaches the picture (issue 31)
# -------------------------------------------------------------------------


def _title_numbers(title):
    """F, P, R and ER of a timeline title."""
    line = title.splitlines()[1]
    f = float(line.split("F = ")[1].split(" ")[0])
    p = float(line.split("P = ")[1].split(",")[0])
    r = float(line.split("R = ")[1].split(")")[0])
    er = float(line.split("ER = ")[1].split(";")[0])
    return f, p, r, er


def test_event_plots_take_compat():
    # events exactly 0.2 s off: met in integer ns, the second missed in sed_eval's float64
    truth = series(["f", "f"], [0.0, 2.0], [1.0, 3.0], ["a", "b"])
    prediction = series(["f", "f"], [0.2, 2.2], [1.2, 3.2], ["a", "b"])
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2)
    for compat in (None, "sed_eval"):
        ax = audeval.plot.event_timeline(truth, prediction, compat=compat, **options)
        f, p, r, er = _title_numbers(ax.get_title())
        assert f == pytest.approx(
            audeval.event_fscore(truth, prediction, compat=compat, **options), abs=5e-4
        )
        assert er == pytest.approx(
            audeval.event_error_rate(truth, prediction, compat=compat, **options), abs=5e-4
        )
        stats = audeval.event_statistics(truth, prediction, compat=compat, **options)
        drawn = {k: v for k, v in gids(ax).items() if not k.startswith("collar")}
        assert drawn == {k: v for k, v in expected_counts(stats, "f").items() if v}
        ax = audeval.plot.event_confusion_matrix(truth, prediction, compat=compat, **options)
        assert ax.images[0].get_array().filled(0).tolist() == audeval.event_confusion_matrix(
            truth, prediction, compat=compat, **options
        )
    assert f == pytest.approx(0.5)
    assert ax.images[0].get_array().filled(0).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]


@pytest.mark.parametrize(
    "options",
    [
        dict(uem=True),
        dict(uem=True, collar=0.5, collar_convention="per_side"),
        dict(collar=0.4, collar_convention="per_side", skip_overlap=True),
        dict(compat="pyannote", uem=True),
    ],
)
@pytest.mark.parametrize("seed", range(2))
def test_diarization_timeline_title_is_the_metric(seed, options):
    """The title's DER is diarization_error_rate of the file with the same options (issue 31)."""
    truth, prediction = random_speakers(seed)
    durations = {"f0": 12.0, "f1": 12.0}
    options = dict(options)
    if options.pop("uem", False):
        options["uem"] = audformat.segmented_index(["f0", "f0", "f1"], [0.5, 6.0, 1.0], [4.5, 11.0, 10.0])
    for file in ("f0", "f1"):
        keep = {
            name: side[side.index.get_level_values("file") == file]
            for name, side in (("truth", truth), ("prediction", prediction))
        }
        if not len(keep["truth"]):
            continue
        file_options = dict(options)
        if "uem" in options:
            uem = options["uem"]
            file_options["uem"] = uem[uem.get_level_values("file") == file]
        der = audeval.diarization_error_rate(
            keep["truth"], keep["prediction"], files_duration={file: 12.0}, **file_options
        )
        ax = audeval.plot.diarization_timeline(
            truth, prediction, file=file, files_duration=durations, **options
        )
        assert f"DER = {der:.3f}" in ax.get_title()
        report = audeval.diarization_report(truth, prediction, files_duration=durations, **options)
        row = report.loc[file]
        assert row["diarization_error_rate"] == pytest.approx(der, abs=1e-12)
        if options.get("compat") is None:  # (pyannote counts self-overlap twice; bars merge)
            assert lengths(ax, "truth:") == pytest.approx(row["total"])
            assert lengths(ax, "truth:correct") == pytest.approx(row["correct"])
        plt.close(ax.figure)


def test_diarization_timeline_uem_is_not_scored():
    truth = series(["f", "f"], [0, 2], [2, 4], ["A", "B"])
    prediction = series(["f", "f"], [0, 2.5], [2.5, 4], ["s1", "s2"])
    uem = audformat.segmented_index(["f"], [1.0], [3.0])
    ax = audeval.plot.diarization_timeline(truth, prediction, files_duration={"f": 4}, uem=uem)
    der = audeval.diarization_error_rate(truth, prediction, files_duration={"f": 4}, uem=uem)
    assert der == pytest.approx(0.25)  # 0.5 s of 2 s confused
    assert f"DER = {der:.3f}" in ax.get_title()
    spans = sorted(
        (round(p.get_x(), 6), round(p.get_x() + p.get_width(), 6))
        for p in ax.patches
        if p.get_gid() == "unscored"
    )
    assert spans == [(0.0, 1.0), (3.0, 4.0)]
    assert lengths(ax, "truth:") == pytest.approx(2.0)


def _bars(ax, prefix):
    """(gid, start, end) of the bars whose gid starts with ``prefix``, rounded to ns."""
    return sorted(
        (p.get_gid(), round(p.get_x(), 9), round(p.get_x() + p.get_width(), 9))
        for p in ax.patches
        if p.get_gid().startswith(prefix)
    )


def test_diarization_timeline_uem_title_is_the_uem_scored_der():
    # issue 31: the title gave the DER without the UEM (0.257) where the UEM-scored DER was 0.287;
    # here 0.389 without and 0.500 with the UEM (which also changes the mapping of B)
    truth = series(["f"] * 3, [0.0, 3.0, 6.5], [3.0, 6.5, 9.0], ["A", "B", "A"])
    prediction = series(["f"] * 4, [0.0, 2.0, 5.0, 7.5], [2.0, 5.0, 7.5, 9.0], ["s1", "s2", "s3", "s1"])
    uem = audformat.segmented_index(["f", "f"], [1.0, 5.0], [4.0, 8.0])
    durations = {"f": 9.0}
    unscored = audeval.diarization_error_rate(truth, prediction, files_duration=durations)
    scored = audeval.diarization_error_rate(truth, prediction, files_duration=durations, uem=uem)
    # hand: without UEM A-s1 (3.5 s) and B-s2 (2 s) mapped: 5.5 of 9 s correct
    assert unscored == pytest.approx(3.5 / 9.0)
    # with UEM [1, 4] and [5, 8] (6 s): A-s1 1.5 s and B-s3 1.5 s (no longer B-s2) correct
    assert scored == pytest.approx(3.0 / 6.0)
    ax = audeval.plot.diarization_timeline(truth, prediction, files_duration=durations)
    assert f"DER = {unscored:.3f}" in ax.get_title()
    plt.close(ax.figure)
    ax = audeval.plot.diarization_timeline(truth, prediction, files_duration=durations, uem=uem)
    assert f"DER = {scored:.3f}:" in ax.get_title() and f"{unscored:.3f}" not in ax.get_title()
    assert ax.get_title().splitlines()[1] == (
        "DER = 0.500: confusion 3.00 s, false alarm 0.00 s, miss 0.00 s of 6.00 s (correct 3.00 s)"
    )
    # hatched: the window [0, 9] outside the UEM
    assert _bars(ax, "unscored") == [("unscored", 0.0, 1.0), ("unscored", 4.0, 5.0), ("unscored", 8.0, 9.0)]
    # the bars are the scored rows of diarization_speaker_outcomes, one to one
    speakers = audeval.diarization_speaker_outcomes(truth, prediction, files_duration=durations, uem=uem)
    scored_rows = speakers[(speakers["outcome"] != "unscored").to_numpy()]
    expected = sorted(
        (f"{side}:{outcome}", round(s.total_seconds(), 9), round(e.total_seconds(), 9))
        for (_, s, e), side, outcome in zip(scored_rows.index, scored_rows["side"], scored_rows["outcome"])
    )
    assert _bars(ax, "truth:") + _bars(ax, "prediction:") == sorted(
        [row for row in expected if row[0].startswith("truth")]
    ) + sorted([row for row in expected if row[0].startswith("prediction")])
    minor = [t.get_text() for t in ax.get_yticklabels(minor=True)]
    assert minor == ["truth", "prediction: s1", "truth", "prediction: s3", "prediction: s2"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A", "B", "unmapped"]
    plt.close(ax.figure)


@pytest.mark.parametrize(
    "options",
    [
        dict(),
        dict(collar=0.5, collar_convention="per_side"),
        dict(skip_overlap=True, compat="pyannote"),
        dict(mapping="greedy", individual_file_mapping=False, uem=True),
    ],
)
def test_diarization_timeline_draws_the_outcome_objects(options):
    truth, prediction = random_speakers(3)
    durations = {"f0": 12.0, "f1": 12.0}
    options = dict(options)
    if options.pop("uem", False):
        options["uem"] = audformat.segmented_index(["f0", "f1"], [0.5, 1.0], [10.5, 11.0])
    speakers = audeval.diarization_speaker_outcomes(truth, prediction, files_duration=durations, **options)
    region_options = {k: v for k, v in options.items() if k not in ("mapping", "individual_file_mapping")}
    region = audeval.diarization_scored_region(truth, prediction, files_duration=durations, **region_options)
    for file in ("f0", "f1"):
        ax = audeval.plot.diarization_timeline(truth, prediction, file=file, files_duration=durations, **options)
        rows = speakers[(speakers.index.get_level_values("file") == file) & (speakers["outcome"] != "unscored").to_numpy()]
        expected = sorted(
            (f"{side}:{outcome}", round(s.total_seconds(), 9), round(e.total_seconds(), 9))
            for (_, s, e), side, outcome in zip(rows.index, rows["side"], rows["outcome"])
        )
        assert sorted(_bars(ax, "truth:") + _bars(ax, "prediction:")) == expected
        # hatched bands and scored region tile the window [0, 12]
        r = region[region.get_level_values("file") == file]
        covered = sum((e - s).total_seconds() for _, s, e in r)
        assert sum(b - a for _, a, b in _bars(ax, "unscored")) == pytest.approx(12.0 - covered)
        der = audeval.diarization_error_rate(
            truth[truth.index.get_level_values("file") == file],
            prediction[prediction.index.get_level_values("file") == file],
            files_duration={file: 12.0},
            **{
                k: (v[v.get_level_values("file") == file] if k == "uem" else v)
                for k, v in options.items()
                if k != "individual_file_mapping"
            },
        ) if options.get("individual_file_mapping", True) else audeval.diarization_report(
            truth, prediction, files_duration=durations, **options
        ).loc[file, "diarization_error_rate"]
        assert f"DER = {der:.3f}:" in ax.get_title()
        plt.close(ax.figure)


# -------------------------------------------------------------------------
# The event plots draw the public objects (issue 31 item 5, issue 27 item 3)
# -------------------------------------------------------------------------


def test_event_timeline_draws_the_rows_of_event_outcomes():
    truth = series(["f", "f", "f", "g"], [0.0, 2.0, 4.0, 0.0], [1.0, 3.0, 5.0, 9.0], ["a", "b", "a", "c"])
    prediction = series(["f", "f", "f"], [0.15, 2.0, 6.0], [1.1, 3.0, 7.0], ["a", "a", "b"])
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, compat="sed_eval", matching="greedy")
    durations = {"f": 8.0, "g": 9.0}
    ax = audeval.plot.event_timeline(truth, prediction, file="f", files_duration=durations, **options)
    outcomes = audeval.event_outcomes(truth, prediction, files_duration=durations, **options)
    rows = outcomes[(outcomes["file"] == "f").to_numpy()]
    drawn_as = {"tp": "tp", "substituted": "substitution", "substituting": "substitution", "fn": "deletion", "fp": "insertion"}
    expected = sorted(
        (f"{side}:{drawn_as[outcome]}", round(s.total_seconds(), 9), round(e.total_seconds(), 9))
        for side, outcome, s, e in zip(rows["side"], rows["outcome"], rows["start"], rows["end"])
    )
    drawn = sorted(
        (p.get_gid(), round(p.get_x(), 9), round(p.get_x() + p.get_width(), 9))
        for p in ax.patches
        if p.get_gid().split(":")[0] in ("truth", "prediction")
    )
    assert drawn == expected
    assert expected == [
        ("prediction:insertion", 6.0, 7.0),
        ("prediction:substitution", 2.0, 3.0),
        ("prediction:tp", 0.15, 1.1),
        ("truth:deletion", 4.0, 5.0),
        ("truth:substitution", 2.0, 3.0),
        ("truth:tp", 0.0, 1.0),
    ]
    assert ax.get_xlim() == (0.0, 8.0)  # the file's duration
    # a file only in files_duration is a file of the outcomes: an empty picture
    with pytest.warns(audeval.FilesWithoutRowsWarning):
        ax = audeval.plot.event_timeline(truth, prediction, file="h", files_duration={**durations, "h": 2.0}, **options)
    assert not [p for p in ax.patches if p.get_gid().startswith(("truth", "prediction"))]
    assert ax.get_xlim() == (0.0, 2.0)
    # without files_duration the window ends at the file's latest end, over all labels
    ax = audeval.plot.event_timeline(truth, prediction, ["a"], file="f", **options)
    assert ax.get_xlim() == (0.0, 7.0)


def test_event_confusion_matrix_draws_the_labelled_matrix():
    truth = series(["f", "f", "f"], [0.0, 2.0, 4.0], [1.0, 3.0, 5.0], ["a", "b", "c"])
    prediction = series(["f", "f", "f"], [0.0, 2.0, 6.0], [1.0, 3.0, 7.0], ["a", "c", "b"])
    for labels in (None, ["c", "a", "b"]):
        for normalize in (False, True):
            frame = audeval.event_confusion_matrix(truth, prediction, labels, normalize=normalize, as_frame=True)
            ax = audeval.plot.event_confusion_matrix(truth, prediction, labels, normalize=normalize, colorbar=False)
            np.testing.assert_array_equal(ax.images[0].get_array().filled(0), frame.to_numpy())
            names = [str(label) for label in frame.index[:-1]] + ["no event"]
            assert [t.get_text() for t in ax.get_yticklabels()] == names
            assert [t.get_text() for t in ax.get_xticklabels()] == names
            plt.close(ax.figure)
    assert names == ["c", "a", "b", "no event"]
    assert frame.loc["b", "c"] == 1.0 and frame.loc["c", "<no event>"] == 1.0


@pytest.mark.parametrize("options", [dict(), dict(trim=True, window=3.0), dict(pad=False, compat="mir_eval")])
def test_structure_timeline_draws_structure_outcomes(options):
    truth, prediction = random_partitions(5)
    out = audeval.structure_outcomes(truth, prediction, **options)
    report = audeval.structure_report(
        truth, prediction, windows=(options.get("window", 0.5),), **{k: v for k, v in options.items() if k != "window"}
    )
    for file in report.index:
        ax = audeval.plot.structure_timeline(truth, prediction, file=file, **options)
        rows = out[out.index.get_level_values("file") == file]
        for side, miss in (("truth", "deletion"), ("prediction", "insertion")):
            bounds = rows[(rows["side"] == side).to_numpy() & (rows["kind"] == "boundary").to_numpy()]
            expected = sorted(
                (f"{side}:{'tp' if o == 'hit' else miss}", round(t, 9))
                for o, t in zip(bounds["outcome"], bounds.index.get_level_values("start").total_seconds())
            )
            drawn = sorted(
                (line.get_gid(), round(line.get_xdata()[0], 9))
                for line in ax.lines
                if line.get_gid() in (f"{side}:tp", f"{side}:{miss}")
            )
            assert drawn == expected
            tiles = rows[(rows["side"] == side).to_numpy() & (rows["kind"] != "boundary").to_numpy()]
            expected = sorted(
                (f"{side}:{kind}", round(s.total_seconds(), 9), round(e.total_seconds(), 9))
                for (_, s, e), kind in zip(tiles.index, tiles["kind"])
            )
            drawn = sorted(
                (p.get_gid(), round(p.get_x(), 9), round(p.get_x() + p.get_width(), 9))
                for p in ax.patches
                if p.get_gid() in (f"{side}:segment", f"{side}:gap")
            )
            assert drawn == expected
        name = audeval._structure._window_name(options.get("window", 0.5))
        assert f"F = {report.loc[file, f'f_measure_at_{name}']:.3f}" in ax.get_title()
        plt.close(ax.figure)


def test_structure_timeline_compat_rounds_boundaries():
    truth = series(["f", "f"], [0, 9.999996], [9.999996, 20], ["A", "B"])
    prediction = series(["f", "f"], [0, 10.5], [10.5, 20], ["A", "B"])
    ax = audeval.plot.structure_timeline(truth, prediction)
    assert [line.get_xdata()[0] for line in lines(ax, "truth:deletion")] == [pytest.approx(9.999996)]
    assert "R = 0.667" in ax.get_title()
    ax = audeval.plot.structure_timeline(truth, prediction, compat="mir_eval")
    assert not lines(ax, "truth:deletion") and len(lines(ax, "boundary-link")) == 3
    assert "P = 1.000, R = 1.000" in ax.get_title()
