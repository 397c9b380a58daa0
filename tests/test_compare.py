"""``audeval.compare`` (issue 28): paired bootstrap and paired approximate randomization.

What it must reach: ``value`` is the direct metric bit for bit; the exact permutation
p-value equals the enumeration of all 2^n swaps by hand (swapped statistics tables
reduced by the public metric); identical systems give difference 0 and p-value 1;
swapping baseline and system negates the difference and keeps the p-value;
on null data the rejection rate at 0.05 lies in the binomial band, and the interval
of a known difference covers it at the nominal rate.
Every family of the issue has a case: events, segments, detection, diarization,
scores (PSDS), structure, hierarchy, and per-file tables of audeval.separation.
"""

from __future__ import annotations

import itertools

import audformat
import numpy as np
import pandas as pd
import pytest
import scipy.stats

import audeval
from audeval._generic.compare import arrays as _arrays
from audeval._generic.compare import inference as _inference
from audeval._generic.compare import sources as _sources
from audeval.separation import aggregate

from test_bootstrap_arrays import _informative_scores
from test_contract import FILES, FILES_DURATION, _labels, _levels, _partition


def _mixed(truth: pd.Series, other: pd.Series, keep: int) -> pd.Series:
    """The first ``keep`` rows of ``truth`` and the rest of ``other``: a better system."""
    return pd.concat([truth.iloc[:keep], other.iloc[keep:]])


TRUTH = _labels(1, 40)
A = _labels(2, 40)
B = _mixed(TRUTH, A, 25)
C = _mixed(TRUTH, _labels(3, 40), 15)

SCORE_TRUTH, SCORES_A = _informative_scores(n_files=6, seconds=8.0)
SCORES_B = SCORES_A.copy()
SCORES_B[:] = np.round(
    np.clip(SCORES_A.to_numpy() + np.random.default_rng(1).normal(0, 0.3, SCORES_A.shape), 0, 1), 3
)


def _case(name):
    """(metric, truth, {system: prediction}, options, component, statistics function)."""
    if name == "event":
        options = dict(onset_tolerance=0.5, offset_tolerance=None)
        return audeval.event_fscore, TRUTH, dict(a=A, b=B, c=C), options, None
    if name == "segment":
        return audeval.segment_fscore, TRUTH, dict(a=A, b=B, c=C), dict(time_resolution=1.0), None
    if name == "detection":
        options = dict(files_duration=FILES_DURATION, collar=0.5)
        return audeval.detection_error_rate, TRUTH, dict(a=A, b=B, c=C), options, None
    if name == "diarization":
        options = dict(files_duration=FILES_DURATION)
        return audeval.diarization_error_rate, TRUTH, dict(a=A, b=B, c=C), options, None
    if name == "diarization_global":  # one mapping over all files: no array reduction
        options = dict(files_duration=FILES_DURATION, individual_file_mapping=False)
        return audeval.diarization_error_rate, TRUTH, dict(a=A, b=B), options, None
    if name == "score":
        options = dict(dtc_threshold=0.3, gtc_threshold=0.3, max_efpr=300.0)
        return audeval.psds, SCORE_TRUTH, dict(a=SCORES_A, b=SCORES_B), options, None
    if name == "structure":
        systems = dict(a=_partition(4), b=_partition(5), c=_partition(3))
        return audeval.v_measure, _partition(3), systems, dict(frame_size=0.1), 2
    if name == "structure_ari":
        systems = dict(a=_partition(4), b=_partition(5))
        return audeval.adjusted_rand_index, _partition(3), systems, dict(frame_size=0.1), None
    if name == "hierarchy":
        systems = dict(a=_levels(9), b=_levels(10))
        return audeval.hierarchy_lmeasure, _levels(8), systems, dict(frame_size=0.25), 2
    raise KeyError(name)


FAMILIES = ["event", "segment", "detection", "diarization", "score", "structure", "structure_ari", "hierarchy"]


def _direct(metric, truth, prediction, options, component):
    value = metric(truth, prediction, **options)
    return value if component is None else value[component]


def _run(name, **kwargs):
    metric, truth, systems, options, component = _case(name)
    kwargs = {"n_resamples": 200, **kwargs}
    return audeval.compare(metric, truth, systems, component=component, **kwargs, **options)


# -------------------------------------------------------------------------
# Exactness
# -------------------------------------------------------------------------


@pytest.mark.parametrize("name", FAMILIES)
def test_value_is_the_direct_metric_bit_for_bit(name):
    metric, truth, systems, options, component = _case(name)
    result = _run(name)
    assert list(result.index) == list(systems)
    for system, prediction in systems.items():
        direct = _direct(metric, truth, prediction, options, component)
        assert result.loc[system, "value"] == direct, system
        assert result.loc[system, "difference"] == direct - result["value"].iloc[0]
    assert (result["low"] <= result["value"] + 1e-12).all() or name == "score"
    assert result["p_value"].iloc[1:].between(0, 1).all()
    assert np.isnan(result["p_value"].iloc[0])


def _swapped(statistics, tables, swap, files):
    """The statistics table holding, per file, the rows of ``tables[swap[file]]``."""
    parts = []
    for k, table in enumerate(tables):
        chosen = [file for file, s in zip(files, swap) if s == k]
        parts.append(table[table.index.get_level_values("file").isin(chosen)])
    out = pd.concat(parts)
    out.attrs = tables[0].attrs
    return out


def _enumerated_p(name, first, second):
    """Two-sided p-value of the exact paired permutation test by hand: every one of the
    2^n swaps of files between two systems, each swapped table reduced by the public metric."""
    metric, truth, systems, options, component = _case(name)
    statistics = metric  # the metric of a statistics table: metric(table, None, **metric options)
    from audeval._generic.registry import family_of, split_options

    family = family_of(metric)
    statistics_options, metric_options = split_options(family, metric, options)
    tables = [
        family.compute(truth, systems[system], None, {**family.required_options(metric), **statistics_options})
        for system in (first, second)
    ]
    files = list(pd.unique(pd.concat([t.index.to_frame()["file"] for t in tables]).astype(object)))
    swaps = list(itertools.product([0, 1], repeat=len(files)))
    value = {}  # swap -> the metric of its swapped table (the other system's table is the opposite swap's)
    for swap in swaps:
        value[swap] = metric(_swapped(statistics, tables, swap, files), None, **metric_options)
        if component is not None:
            value[swap] = value[swap][component]
    null = []
    for swap in swaps:
        a = value[swap]
        b = value[tuple(1 - s for s in swap)]
        null.append(b - a)
    null = np.asarray(null)
    observed = null[0]  # no file swapped
    tolerance = 1e-9 * abs(observed)
    less = np.mean(null <= observed + tolerance)
    greater = np.mean(null >= observed - tolerance)
    return min(1.0, 2 * min(less, greater)), len(null)


@pytest.mark.parametrize(
    "name, baseline, system",
    [
        ("event", "a", "b"),
        ("event", "b", "c"),
        ("segment", "b", "c"),
        ("detection", "a", "c"),
        ("diarization", "b", "c"),
        ("diarization_global", "a", "b"),
        ("score", "a", "b"),
        ("structure", "a", "b"),
        ("structure", "b", "c"),
        ("hierarchy", "a", "b"),
    ],
)
def test_exact_permutation_equals_enumeration_by_hand(name, baseline, system):
    result = _run(name, method="permutation", n_resamples=64, baseline=baseline)
    assert result.attrs["compare"]["exact"]
    expected, n = _enumerated_p(name, baseline, system)
    assert n == 2 ** len(FILES) == 64
    assert result.loc[system, "p_value"] == pytest.approx(expected, rel=1e-12)
    assert 0 < expected <= 1


@pytest.mark.parametrize("how", ["mean", "median"])
def test_exact_permutation_p_value_is_scipys(how):
    """The conventions of scipy.stats.permutation_test (paired samples, two-sided, exact)."""
    rng = np.random.default_rng(8)
    index = pd.Index([f"m{i}" for i in range(9)], name="file")
    a, b = rng.normal(0, 1, 9), rng.normal(0.6, 1, 9)
    tables = {"a": pd.DataFrame({"sdr": a}, index=index), "b": pd.DataFrame({"sdr": b}, index=index)}
    result = audeval.compare(aggregate, None, tables, method="permutation", n_resamples=512, how=how)
    assert result.attrs["compare"]["exact"]
    center = np.mean if how == "mean" else np.median
    reference = scipy.stats.permutation_test(
        (a, b),
        lambda x, y, axis: center(y, axis=axis) - center(x, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=512,
    )
    assert result.loc["b", "p_value"] == pytest.approx(reference.pvalue, rel=1e-12)


@pytest.mark.parametrize("average", ["micro", "macro"])
def test_a_label_only_one_system_predicts(average):
    options = dict(onset_tolerance=0.5, offset_tolerance=None, average=average)
    other = B.copy()
    other.iloc[:5] = "unknown"
    systems = {"a": A, "b": other}
    for method in ("bootstrap", "permutation"):
        result = audeval.compare(audeval.event_fscore, TRUTH, systems, method=method, n_resamples=64, **options)
        for name, prediction in systems.items():
            assert result.loc[name, "value"] == audeval.event_fscore(TRUTH, prediction, **options)
        assert 0 < result.loc["b", "p_value"] <= 1


def test_the_permutation_is_random_beyond_2_to_the_n():
    result = _run("event", method="permutation", n_resamples=63, seed=3)
    assert not result.attrs["compare"]["exact"]
    # random swaps: (1 + k) / (1 + n_resamples) on each side
    assert (result["p_value"].iloc[1:] * 64).round(9).mod(1).eq(0).all()


@pytest.mark.parametrize("method", ["bootstrap", "permutation"])
@pytest.mark.parametrize("name", ["event", "diarization", "score", "structure"])
def test_identical_systems_differ_by_0_with_p_1(name, method):
    metric, truth, systems, options, component = _case(name)
    same = {"x": systems["a"], "y": systems["a"].copy()}
    result = audeval.compare(
        metric, truth, same, method=method, n_resamples=100, component=component, **options
    )
    assert result.loc["y", "difference"] == 0.0
    assert result.loc["y", "p_value"] == 1.0
    assert result.loc["y", ["difference_low", "difference_high"]].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("method", ["bootstrap", "permutation"])
@pytest.mark.parametrize("name", ["event", "segment", "score", "hierarchy"])
def test_swapping_baseline_and_system_negates_the_difference_and_keeps_p(name, method):
    metric, truth, systems, options, component = _case(name)
    pair = {"a": systems["a"], "b": systems["b"]}
    kwargs = dict(method=method, n_resamples=300, seed=5, component=component, **options)
    forward = audeval.compare(metric, truth, pair, baseline="a", **kwargs)
    backward = audeval.compare(metric, truth, pair, baseline="b", **kwargs)
    assert backward.loc["a", "difference"] == -forward.loc["b", "difference"]
    assert backward.loc["a", "p_value"] == pytest.approx(forward.loc["b", "p_value"], rel=1e-12)
    np.testing.assert_allclose(
        backward.loc["a", ["difference_low", "difference_high"]].to_numpy(float),
        -forward.loc["b", ["difference_high", "difference_low"]].to_numpy(float),
        rtol=1e-12,
        atol=1e-15,
    )
    assert forward.loc["a", "value"] == backward.loc["a", "value"]


def test_pairwise_rows_are_antisymmetric_and_holm_corrects_the_unordered_pairs():
    result = _run("event", pairwise=True, n_resamples=500, method="permutation")
    assert result.index.names == ["system", "other"]
    assert len(result) == 6
    for (system, other), row in result.iterrows():
        assert row["difference"] == -result.loc[(other, system), "difference"]
        assert row["p_value"] == result.loc[(other, system), "p_value"]
    tests = result.loc[[("a", "b"), ("a", "c"), ("b", "c")], "p_value"].to_numpy()
    expected = _inference._adjust(tests, "holm")
    np.testing.assert_array_equal(
        result.loc[[("a", "b"), ("a", "c"), ("b", "c")], "p_adjusted"].to_numpy(), expected
    )
    single = _run("event", n_resamples=500, method="permutation")
    # the same seed gives the same swaps for the first pair
    assert single.loc["b", "difference"] == result.loc[("b", "a"), "difference"]


def test_holm_bonferroni_and_bh_by_hand():
    p = np.array([0.01, 0.04, 0.03, np.nan, 0.5])
    # Holm: sorted 0.01, 0.03, 0.04, 0.5 times 4, 3, 2, 1, then the running maximum
    np.testing.assert_allclose(
        _inference._adjust(p, "holm"), [0.04, 0.09, 0.09, np.nan, 0.5], equal_nan=True
    )
    np.testing.assert_allclose(
        _inference._adjust(p, "bonferroni"), [0.04, 0.16, 0.12, np.nan, 1.0], equal_nan=True
    )
    np.testing.assert_allclose(
        _inference._adjust(p, "bh"),
        [0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, np.nan, 0.5],
        equal_nan=True,
    )
    result = _run("event", correction=None)
    assert "p_adjusted" not in result.columns


def test_bootstrap_p_value_by_hand():
    differences = np.array([[0.1], [0.3], [0.2], [-0.05], [np.nan]])
    # centred on d = 0.2: |d* - d| = 0.1, 0.1, 0, 0.25 -> one >= 0.2 of 4 valid
    assert _inference._bootstrap_p(differences, np.array([0.2]))[0] == pytest.approx(2 / 5)


def test_statistics_tables_as_predictions_give_the_same_result():
    metric, truth, systems, options, _ = _case("event")
    tables = {name: audeval.event_statistics(truth, prediction, **options) for name, prediction in systems.items()}
    from_series = audeval.compare(metric, truth, systems, n_resamples=300, **options)
    from_tables = audeval.compare(metric, None, tables, n_resamples=300)
    pd.testing.assert_frame_equal(from_series, from_tables)


def test_the_bootstrap_draws_the_same_files_for_every_system(monkeypatch):
    """Paired: system b's resampled values minus a's are the differences of one count matrix."""
    seen = []
    original = _arrays._Stacked.__call__

    def spy(self, counts):
        seen.append(counts.copy())
        return original(self, counts)

    monkeypatch.setattr(_arrays._Stacked, "__call__", spy)
    result = _run("event", n_resamples=50)
    assert len(seen) == 1 and seen[0].shape == (50, len(FILES))
    assert (seen[0].sum(axis=1) == len(FILES)).all()
    assert result.attrs["compare"]["n_files"] == len(FILES)


def test_bca_interval_of_a_mean_is_close_to_scipy():
    rng = np.random.default_rng(2)
    files = [f"s{i:02d}" for i in range(40)]
    index = pd.MultiIndex.from_arrays([files, ["voice"] * 40], names=["file", "source"])
    values = {"a": rng.gamma(2.0, 2.0, 40), "b": rng.gamma(2.0, 2.0, 40) + 0.5}
    tables = {k: pd.DataFrame({"si_sdr": v}, index=index) for k, v in values.items()}
    result = audeval.compare(
        aggregate, None, tables, n_resamples=20_000, interval="bca", how="mean", seed=1
    )
    for name in ("a", "b"):
        assert result.loc[name, "value"] == aggregate(tables[name], how="mean", level="all")["si_sdr"].iloc[0]
        reference = scipy.stats.bootstrap(
            (values[name],), np.mean, method="BCa", n_resamples=20_000, rng=np.random.default_rng(3)
        ).confidence_interval
        width = reference.high - reference.low
        assert result.loc[name, "low"] == pytest.approx(reference.low, abs=0.05 * width)
        assert result.loc[name, "high"] == pytest.approx(reference.high, abs=0.05 * width)
    difference = scipy.stats.bootstrap(
        (values["b"] - values["a"],), np.mean, method="BCa", n_resamples=20_000, rng=np.random.default_rng(3)
    ).confidence_interval
    width = difference.high - difference.low
    assert result.loc["b", "difference_low"] == pytest.approx(difference.low, abs=0.05 * width)
    assert result.loc["b", "difference_high"] == pytest.approx(difference.high, abs=0.05 * width)


def test_separation_median_of_resamples_is_the_median_of_the_drawn_files():
    rng = np.random.default_rng(0)
    values = rng.normal(size=9)
    values[4] = np.nan  # a file without a score (silent): left out as aggregate does
    source = _sources._FileValues(values, pd.Index(range(9)), "median", np.nan)
    counts = np.stack([np.bincount(rng.integers(0, 9, 9), minlength=9) for _ in range(30)])
    expected = [np.nanmedian(np.repeat(values, row)) for row in counts]
    np.testing.assert_allclose(source(counts), expected, rtol=0, atol=0)


def test_separation_tables_per_source():
    index = pd.MultiIndex.from_product([[f"m{i}" for i in range(6)], ["s1", "s2"]], names=["file", "source"])
    rng = np.random.default_rng(4)
    tables = {
        "tasnet": pd.DataFrame({"si_sdr": rng.normal(10, 2, 12), "sdr": rng.normal(9, 2, 12)}, index=index),
        "unet": pd.DataFrame({"si_sdr": rng.normal(12, 2, 12), "sdr": rng.normal(11, 2, 12)}, index=index),
    }
    result = audeval.compare(aggregate, None, tables, column="sdr", how="median", method="permutation")
    for name, table in tables.items():
        assert result.loc[name, "value"] == aggregate(table, how="median", level="all")["sdr"].iloc[0]
    assert result.attrs["compare"]["exact"]
    # by hand: swap per-file values (median over a file's sources) between the systems
    per_file = {k: t.groupby(level="file")["sdr"].median().to_numpy() for k, t in tables.items()}
    null = []
    for swap in itertools.product([False, True], repeat=6):
        swap = np.array(swap)
        one = np.where(swap, per_file["unet"], per_file["tasnet"])
        other = np.where(swap, per_file["tasnet"], per_file["unet"])
        null.append(np.median(other) - np.median(one))
    null = np.array(null)
    observed = null[0]
    expected = min(1.0, 2 * min(np.mean(null <= observed + 1e-12), np.mean(null >= observed - 1e-12)))
    assert result.loc["unet", "p_value"] == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="column="):
        audeval.compare(aggregate, None, tables)


# -------------------------------------------------------------------------
# Statistics on simulated data
# -------------------------------------------------------------------------


def _simulated(rng, n_files, difference):
    """Per-file scores of two systems on the same files (a file effect shared by both,
    noise of each system): tables of audeval.separation.evaluate's shape."""
    index = pd.Index([f"q{i:03d}" for i in range(n_files)], name="file")
    effect = rng.normal(10.0, 3.0, n_files)
    return {
        "a": pd.DataFrame({"si_sdr": effect + rng.normal(0, 1, n_files)}, index=index),
        "b": pd.DataFrame({"si_sdr": effect + difference + rng.normal(0, 1, n_files)}, index=index),
    }


def _band(n, p, level=0.99):
    return scipy.stats.binom.ppf((1 - level) / 2, n, p), scipy.stats.binom.ppf((1 + level) / 2, n, p)


@pytest.mark.parametrize("method", ["bootstrap", "permutation"])
def test_null_rejection_rate_is_within_the_binomial_band(method):
    """Two systems drawn from one distribution: the test rejects at 0.05 about 5 % of the time
    (a small CI version on per-file scores; benchmarks/compare.py reports event F on DESED-like data)."""
    rng = np.random.default_rng(7)
    n_simulations = 200
    rejected = 0
    for _ in range(n_simulations):
        tables = _simulated(rng, 40, 0.0)
        result = audeval.compare(aggregate, None, tables, method=method, n_resamples=199, seed=rng)
        rejected += result.loc["b", "p_value"] <= 0.05
    low, high = _band(n_simulations, 0.05)
    assert low <= rejected <= high, rejected


@pytest.mark.parametrize("interval", ["percentile", "bca"])
def test_interval_coverage_of_a_known_difference(interval):
    """The 95 % interval of the difference of the means covers the true difference 0.5
    at about the nominal rate."""
    rng = np.random.default_rng(11)
    n_simulations = 200
    covered = 0
    for _ in range(n_simulations):
        tables = _simulated(rng, 40, 0.5)
        result = audeval.compare(aggregate, None, tables, n_resamples=199, interval=interval, seed=rng)
        covered += result.loc["b", "difference_low"] <= 0.5 <= result.loc["b", "difference_high"]
    low, high = _band(n_simulations, 0.95)
    assert low <= covered <= high, covered


# -------------------------------------------------------------------------
# Errors and edge cases
# -------------------------------------------------------------------------


def test_errors_name_the_argument():
    metric, truth, systems, options, _ = _case("event")
    with pytest.raises(TypeError, match="predictions must be a mapping"):
        audeval.compare(metric, truth, [A, B], **options)
    with pytest.raises(ValueError, match="at least two systems"):
        audeval.compare(metric, truth, {"a": A}, **options)
    with pytest.raises(ValueError, match="baseline must be one of"):
        audeval.compare(metric, truth, systems, baseline="z", **options)
    with pytest.raises(ValueError, match="method must be one of"):
        audeval.compare(metric, truth, systems, method="t-test", **options)
    with pytest.raises(ValueError, match="n_resamples"):
        audeval.compare(metric, truth, systems, n_resamples=0, **options)
    with pytest.raises(ValueError, match="confidence"):
        audeval.compare(metric, truth, systems, confidence=95, **options)
    with pytest.raises(ValueError, match="interval must be one of"):
        audeval.compare(metric, truth, systems, interval="student", **options)
    with pytest.raises(ValueError, match="correction must be one of"):
        audeval.compare(metric, truth, systems, correction="sidak", **options)
    with pytest.raises(ValueError, match="component="):
        audeval.compare(audeval.event_fscore_per_class, truth, systems, **options)
    with pytest.raises(TypeError, match="unknown options"):
        audeval.compare(metric, truth, systems, window=3)


def test_per_class_values_by_component():
    metric, truth, systems, options, _ = _case("event")
    result = audeval.compare(
        audeval.event_fscore_per_class, truth, systems, component="b", n_resamples=100, **options
    )
    for name, prediction in systems.items():
        assert result.loc[name, "value"] == audeval.event_fscore_per_class(truth, prediction, **options)["b"]


def test_fewer_than_3_files_warn_and_give_nan_intervals():
    truth = TRUTH[TRUTH.index.get_level_values("file").isin(["f0", "f1"])]
    systems = {"a": A[A.index.get_level_values("file").isin(["f0", "f1"])], "b": truth}
    with pytest.warns(audeval.BootstrapWarning, match="at least 3 files"):
        result = audeval.compare(audeval.event_fscore, truth, systems, onset_tolerance=0.5)
    assert result[["low", "high"]].isna().all().all()
    assert np.isnan(result.loc["b", "p_value"])
    with pytest.warns(audeval.BootstrapWarning):
        exact = audeval.compare(audeval.event_fscore, truth, systems, onset_tolerance=0.5, method="permutation")
    assert 0 < exact.loc["b", "p_value"] <= 1


# -------------------------------------------------------------------------
# The plot
# -------------------------------------------------------------------------


def test_plot_draws_every_system_with_its_interval():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import audeval.plot

    result = _run("event", n_resamples=200)
    try:
        ax = audeval.plot.compare(result)
        lines = {line.get_gid(): line for line in ax.get_lines()}
        assert lines["baseline:a"].get_xdata()[0] == result.loc["a", "value"]
        for name in ("b", "c"):
            np.testing.assert_array_equal(
                lines[f"system:{name}:interval"].get_xdata(), result.loc[name, ["low", "high"]].to_numpy(float)
            )
        assert lines["baseline-line"].get_xdata()[0] == result.loc["a", "value"]
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels == ["a (baseline)", "b", "c"]
        differences = audeval.plot.compare(result, difference=True)
        lines = {line.get_gid(): line for line in differences.get_lines()}
        assert lines["system:b"].get_xdata()[0] == result.loc["b", "difference"]
        assert lines["baseline-line"].get_xdata()[0] == 0.0
        pairs = audeval.plot.compare(_run("event", n_resamples=100, pairwise=True))
        assert len([t for t in pairs.get_yticklabels()]) == 6
        with pytest.raises(TypeError, match="audeval.compare"):
            audeval.plot.compare(pd.DataFrame({"value": [1.0]}))
        with pytest.raises(ValueError, match="colors"):
            audeval.plot.compare(result, colors={"nope": "red"})
    finally:
        plt.close("all")


def test_strata_keep_each_stratum_s_files_in_every_resample(monkeypatch):
    seen = []
    original = _arrays._Stacked.__call__

    def spy(self, counts):
        seen.append(counts.copy())
        return original(self, counts)

    monkeypatch.setattr(_arrays._Stacked, "__call__", spy)
    strata = {"f0": "x", "f1": "x", "f2": "y", "f3": "y", "f4": "y", "f5": "z"}
    result = _run("event", n_resamples=300, strata=strata)
    counts = seen[0]
    assert (counts[:, :2].sum(axis=1) == 2).all() and (counts[:, 2:5].sum(axis=1) == 3).all()
    assert (counts[:, 5] == 1).all()  # a stratum of one file: always that file
    assert result.attrs["compare"]["strata"] == 3
    unstratified = _run("event", n_resamples=300)
    assert result["value"].tolist() == unstratified["value"].tolist()
    with pytest.raises(ValueError, match="strata must name every file"):
        _run("event", strata={"f0": "x"})
