"""PSD-ROC from a score table: only the thresholds within ``max_efpr`` are computed.

The curve (and every per-class staircase with its thresholds) must equal the one
made from the full :func:`score_statistics` table, where nothing is left out.
"""

import numpy as np
import pandas as pd
import pytest

from audeval._sed_scores import psd_roc, psds, score_statistics
from audeval._sed_scores.prune import from_ordered, ordered
from audeval._sed_scores.statistics import accumulate, curve_statistics

SECONDS_PER_HOUR = 3600.0


def _index(files, starts, ends):
    return pd.MultiIndex.from_arrays(
        [list(files), pd.to_timedelta(starts, unit="s"), pd.to_timedelta(ends, unit="s")],
        names=["file", "start", "end"],
    )


def _data(seed, n_files=30, classes="abc", negative=False, decimals=None):
    """Files of 5-15 s at 0.1 s frames; each class has truth in about a third of the files."""
    rng = np.random.default_rng(seed)
    parts, rows = [], []
    for f in range(n_files):
        n = int(rng.integers(50, 150))
        active = np.zeros((n, len(classes)))
        for i, c in enumerate(classes):
            if rng.random() < 0.35:
                a = int(rng.integers(0, n - 10))
                b = a + int(rng.integers(3, 10))
                active[a:b, i] = 1.0
                rows.append((f"f{f:02d}", round(a * 0.1, 1), round(b * 0.1, 1), c))
        walk = 2.0 * active + np.cumsum(rng.normal(0, 0.4, (n, len(classes))), axis=0) * 0.3
        values = walk if negative else 1 / (1 + np.exp(-walk))
        if decimals is not None:
            values = np.round(values, decimals)
        start = np.arange(n) * 0.1
        parts.append(pd.DataFrame(values, columns=list(classes),
                                  index=_index([f"f{f:02d}"] * n, start, start + 0.1)))
    files, starts, ends, labels = zip(*rows)
    truth = pd.Series(list(labels), index=_index(files, starts, ends), dtype=object)
    return truth, pd.concat(parts)


CASES = [
    dict(dtc_threshold=0.7, gtc_threshold=0.7, max_efpr=100.0),
    dict(dtc_threshold=0.7, gtc_threshold=0.7, max_efpr=20.0, compat="sed_scores_eval"),
    dict(dtc_threshold=0.1, gtc_threshold=0.1, cttc_threshold=0.3, alpha_ct=0.5, max_efpr=50.0),
    dict(dtc_threshold=0.5, gtc_threshold=0.5, alpha_st=0.0, max_efpr=1e6),
    dict(dtc_threshold=0.0, gtc_threshold=0.5, max_efpr=10.0),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("negative", [False, True])
def test_curve_equals_full_table(seed, case, negative):
    truth, scores = _data(seed, negative=negative, decimals=2 if seed == 2 else None)
    statistics = {k: case[k] for k in ("dtc_threshold", "gtc_threshold", "cttc_threshold", "compat")
                  if k in case}
    table = score_statistics(truth, scores, **statistics)
    options = {k: v for k, v in case.items() if k not in ("dtc_threshold", "gtc_threshold", "compat")}
    for per_class in (False, True):
        expected = psd_roc(table, None, per_class=per_class, **options)
        got = psd_roc(truth, scores, per_class=per_class, **case)
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert psds(truth, scores, **case) == psds(table, None, **options)


def test_thresholds_below_the_floor_are_beyond_max_efpr():
    truth, scores = _data(3, n_files=60)
    options = {"dtc_threshold": 0.7, "gtc_threshold": 0.7}
    full = accumulate(score_statistics(truth, scores, **options))
    part = accumulate(curve_statistics(truth, scores, None, options, max_efpr=30.0))
    assert len(part.threshold) < len(full.threshold) / 2  # most thresholds are left out
    seconds = full.totals["duration"][0] / 1e9
    for i in range(len(full.labels)):
        rows, kept = full.rows(i), part.rows(i)
        floor = part.threshold[kept][-1]
        # the rows at and above the floor are the full table's, the rows below exceed max_efpr
        above = full.threshold[rows] >= floor
        np.testing.assert_array_equal(full.threshold[rows][above], part.threshold[kept])
        for name in ("tp", "fp"):
            np.testing.assert_array_equal(full.counts[name][rows][above], part.counts[name][kept])
        assert (full.counts["fp"][rows][~above] / seconds * SECONDS_PER_HOUR > 30.0).all()


def test_ordered_keys_keep_the_float_order():
    values = np.array([-np.inf, -1e300, -2.5, -1e-300, -0.0, 0.0, 5e-324, 1e-300, 0.3, 1.0, 1e300, np.inf])
    key = ordered(values)
    assert (np.diff(key[1:-1]) >= 0).all() and (np.diff(key) >= 0).all()
    assert key[4] == key[5]  # -0.0 == 0.0
    np.testing.assert_array_equal(from_ordered(key), values + 0.0)
