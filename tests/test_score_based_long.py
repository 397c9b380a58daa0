"""Score statistics on long files: the PSD-ROC band, label blocks and the clipped tree (issue 32).

A PSD-ROC from a score table computes only the thresholds whose eFPR can be within
``max_efpr``: the band of thresholds beyond it is summed into one row
(module :mod:`audeval._sed_scores.prune`); the curve must be the one made from
the full :func:`score_statistics` table, where nothing is left out.
"""

import importlib.util
import json
import os

import numpy as np
import pandas as pd
import pytest

from audeval._sed_scores import psd_roc, psds, score_statistics
from audeval._sed_scores import intersection
from audeval._sed_scores.deltas import flatten_clipped, nodes
from audeval._sed_scores.inputs import check_scores
from audeval._sed_scores.statistics import accumulate, curve_statistics

SECONDS_PER_HOUR = 3600.0


def _index(files, starts, ends):
    return pd.MultiIndex.from_arrays(
        [list(files), pd.to_timedelta(starts, unit="s"), pd.to_timedelta(ends, unit="s")],
        names=["file", "start", "end"],
    )


def _long(seed, n_files=2, n=6000, classes="abc", hop=0.1, decimals=3, empty_file=True):
    """Long files of smoothed noisy scores that follow the truth (events 0.3-6 s, gaps 1-20 s)."""
    rng = np.random.default_rng(seed)
    parts, rows = [], []
    for f in range(n_files):
        active = np.zeros((n, len(classes)))
        for i, c in enumerate(classes):
            t = rng.uniform(0, 5)
            while not (empty_file and f == n_files - 1):
                end = t + rng.uniform(0.3, 6)
                if end > n * hop:
                    break
                rows.append((f"f{f}", round(t, 3), round(end, 3), c))
                active[int(t / hop): int(np.ceil(end / hop)), i] = 1.0
                t = end + rng.uniform(1, 20)
        noise = rng.normal(0, 1, (n, len(classes)))
        kernel = np.hanning(7) / np.hanning(7).sum()
        smooth = np.apply_along_axis(lambda x: np.convolve(x, kernel, mode="same"), 0,
                                     1.6 * active + noise - 1.1)
        values = 1 / (1 + np.exp(-3 * smooth))
        if decimals is not None:  # ties
            values = np.round(values, decimals)
        start = np.arange(n) * hop
        parts.append(pd.DataFrame(values, columns=list(classes),
                                  index=_index([f"f{f}"] * n, start, start + hop)))
    files, starts, ends, labels = zip(*rows)
    truth = pd.Series(list(labels), index=_index(files, starts, ends), dtype=object)
    return truth, pd.concat(parts)


CASES = [
    dict(dtc_threshold=0.7, gtc_threshold=0.7, max_efpr=100.0),
    dict(dtc_threshold=0.7, gtc_threshold=0.7, max_efpr=30.0, compat="sed_scores_eval"),
    dict(dtc_threshold=0.1, gtc_threshold=0.1, cttc_threshold=0.3, alpha_ct=0.5, max_efpr=100.0),
    dict(dtc_threshold=0.5, gtc_threshold=0.5, alpha_st=0.0, max_efpr=500.0),
]


def _statistics(case):
    return {k: case[k] for k in ("dtc_threshold", "gtc_threshold", "cttc_threshold", "compat") if k in case}


def _curve(case):
    return {k: v for k, v in case.items() if k not in ("dtc_threshold", "gtc_threshold", "compat")}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("case", CASES)
def test_band_keeps_the_curve(seed, case):
    truth, scores = _long(seed, decimals=None if seed else 3)
    table = score_statistics(truth, scores, **_statistics(case))
    for per_class in (False, True):
        expected = psd_roc(table, None, per_class=per_class, **_curve(case))
        got = psd_roc(truth, scores, per_class=per_class, **case)
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert psds(truth, scores, **case) == psds(table, None, **_curve(case))


def test_band_is_beyond_max_efpr_and_leaves_most_thresholds_out():
    truth, scores = _long(2, n_files=1, n=20000, empty_file=False)
    options = {"dtc_threshold": 0.7, "gtc_threshold": 0.7}
    inputs = check_scores(truth, scores)
    cuts = intersection._cuts(inputs, intersection.Truth(inputs), 0.7, None, 100.0, intersection.CELLS)
    assert cuts.bottom.all()  # one long file: few long detections at the lowest thresholds
    full = accumulate(score_statistics(truth, scores, **options))
    hours = float(inputs.durations.sum()) / 1e9 / SECONDS_PER_HOUR
    for i, label in enumerate(full.labels):
        rows = full.rows(i)
        threshold = full.threshold[rows]
        efpr = full.counts["fp"][rows] / hours
        inside = (threshold >= cuts.low[i]) & (threshold < cuts.high[i])
        assert inside.sum() > len(threshold) / 2  # most thresholds lie in the band
        assert (efpr[inside] > 100.0).all()  # none of them can be on the curve
        # the band's lowest level is a threshold, below the band there are others
        assert cuts.level[i] in threshold[inside]
        assert (threshold < cuts.low[i]).any()
    part = accumulate(curve_statistics(truth, scores, None, options, max_efpr=100.0))
    assert len(part.threshold) < len(full.threshold) / 3
    for i, label in enumerate(full.labels):  # every kept threshold has the full table's counts
        mine, theirs = part.rows(i), full.rows(i)
        at = np.searchsorted(-full.threshold[theirs], -part.threshold[mine])
        for name in ("tp", "fp"):
            np.testing.assert_array_equal(part.counts[name][mine], full.counts[name][theirs][at])


@pytest.mark.parametrize("cttc", [None, 0.3])
@pytest.mark.parametrize("max_efpr", [None, 100.0])
def test_label_blocks_give_the_same_table(monkeypatch, cttc, max_efpr):
    truth, scores = _long(3, n_files=3, n=2000, classes="abcde")
    options = {"dtc_threshold": 0.7, "gtc_threshold": 0.7, "cttc_threshold": cttc}
    if max_efpr is None:
        expected = score_statistics(truth, scores, **options)
    else:
        expected = curve_statistics(truth, scores, None, options, max_efpr=max_efpr)
    monkeypatch.setattr(intersection, "CELLS", 1)  # one label at a time
    if max_efpr is None:
        got = score_statistics(truth, scores, **options)
    else:
        got = curve_statistics(truth, scores, None, options, max_efpr=max_efpr)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_flatten_clipped_runs_become_one_element():
    values = np.array([[0.1, 0.9, 0.8, 0.2, 0.95, 0.3, 0.7, 0.6]]).T  # 8 frames, one class
    frame_file = np.array([0, 0, 0, 0, 0, 0, 1, 1])  # the last two frames: another file
    keep = np.array([True, True])
    out, group, first, last = flatten_clipped(
        values, frame_file, 2, keep, np.array([0.5]), np.array([0.6]), (0, 1)
    )
    np.testing.assert_array_equal(out, [0.1, 0.6, 0.2, 0.6, 0.3, 0.6])
    np.testing.assert_array_equal(group, [0, 0, 0, 0, 0, 1])
    np.testing.assert_array_equal(first, [0, 1, 3, 4, 5, 6])
    np.testing.assert_array_equal(last, [0, 2, 3, 4, 5, 7])
    found = nodes(out, group, first, last)
    # file 0 at thresholds <= 0.6: runs [1, 2] and [4, 4]; <= 0.3: [1, 5]; <= 0.1: [0, 5]
    runs = sorted(zip(found.group.tolist(), found.first.tolist(), found.last.tolist(), found.birth.tolist()))
    assert runs == [(0, 0, 5, 0.1), (0, 1, 2, 0.6), (0, 1, 5, 0.2), (0, 4, 4, 0.6), (0, 4, 5, 0.3), (1, 6, 7, 0.6)]


def test_every_detection_relevant_with_a_file_without_truth():
    # dtc_threshold=0: every detection is relevant, also in a file without truth of its class
    # (once an IndexError there); cross triggers never count
    idx = _index(["f", "f", "f", "g", "g"], [0, 1, 2, 0, 1], [1, 2, 3, 1, 2])
    scores = pd.DataFrame({"a": [0.9, 0.2, 0.8, 0.5, 0.7], "b": [0.1, 0.6, 0.3, 0.4, 0.2]}, index=idx)
    truth = pd.Series(["a", "b"], index=_index(["f", "f"], [0.0, 1.0], [1.0, 2.0]), dtype=object)
    table = score_statistics(truth, scores, dtc_threshold=0.0, gtc_threshold=0.5, cttc_threshold=0.3)
    acc = accumulate(table)
    assert (acc.counts["fp"] == 0).all()
    assert (acc.counts["ct_a"] == 0).all() and (acc.counts["ct_b"] == 0).all()
    rows = acc.rows(acc.labels.index("a"))
    # a: [0, 1) is detected from 0.9 on, the truth event in f
    assert acc.threshold[rows].tolist()[:2] == [np.inf, 0.9]
    assert acc.counts["tp"][rows].tolist()[:2] == [0, 1]
    value = psds(truth, scores, dtc_threshold=0.0, gtc_threshold=0.5, cttc_threshold=0.3, alpha_ct=0.5)
    assert value == psds(table, None, alpha_ct=0.5)


# ---------------------------------------------------------------------------
# Differential: the implementation before issue 32 item 5 (tests/assets/scores_long)
# ---------------------------------------------------------------------------

GOLDEN = os.path.join(os.path.dirname(__file__), "assets", "scores_long")


def _golden_module():
    spec = importlib.util.spec_from_file_location("make_golden", os.path.join(GOLDEN, "make_golden.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_same_tables_and_psds_as_before():
    golden = _golden_module()
    # floats round-trip by default; columns of other cases (ct_*) are empty
    tables = pd.read_csv(os.path.join(GOLDEN, "tables.csv.gz"))
    with open(os.path.join(GOLDEN, "psds.json")) as fp:
        values = json.load(fp)
    n_values = 0
    for seed in golden.SEEDS:
        truth, scores = golden.data(seed)
        for name, case in golden.CASES.items():
            got = score_statistics(truth, scores, **case).reset_index()
            expected = tables[tables["case"] == f"{seed}-{name}"].drop(columns="case")
            expected = expected.dropna(axis=1, how="all").reset_index(drop=True)
            assert sorted(got.columns) == sorted(expected.columns)
            assert got["file"].astype(str).tolist() == expected["file"].astype(str).tolist()
            assert got["label"].astype(str).tolist() == expected["label"].astype(str).tolist()
            np.testing.assert_array_equal(got["threshold"].to_numpy(), expected["threshold"].to_numpy())
            for column in got.columns[3:]:
                np.testing.assert_array_equal(got[column].to_numpy(), expected[column].to_numpy())
            extra = {"alpha_ct": 0.5} if "cttc_threshold" in case else {}
            for max_efpr in golden.MAX_EFPR:
                value = psds(truth, scores, max_efpr=max_efpr, **case, **extra)
                assert value == values[f"{seed}-{name}-{max_efpr:g}"]
                n_values += 1
    assert n_values == len(values)
