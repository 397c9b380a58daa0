"""Bootstrap confidence intervals over files (SPEC section 8)."""

from __future__ import annotations

import warnings

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._generic.registry import FAMILIES
from audeval._generic.bootstrap import BootstrapWarning, resample_counts


DURATION = 30.0


def make_series(rows) -> pd.Series:
    files = [r[0] for r in rows]
    return pd.Series(
        [r[3] for r in rows],
        index=audformat.segmented_index(files, [r[1] for r in rows], [r[2] for r in rows]),
    )


def random_pair(n_files: int, seed: int = 0, labels=("a", "b", "c")):
    rng = np.random.default_rng(seed)
    rows_t, rows_p = [], []
    for k in range(n_files):
        for _ in range(rng.integers(1, 5)):
            start = float(rng.integers(0, 40)) / 2
            length = float(rng.integers(1, 8)) / 2
            label = str(rng.choice(labels))
            rows_t.append((f"f{k}", start, start + length, label))
            if rng.random() < 0.7:  # a detection, maybe shifted or with another label
                shift = float(rng.integers(-1, 2)) / 2
                other = label if rng.random() < 0.8 else str(rng.choice(labels))
                rows_p.append((f"f{k}", max(start + shift, 0.0), start + shift + length, other))
        if rng.random() < 0.5:
            start = float(rng.integers(0, 40)) / 2
            rows_p.append((f"f{k}", start, start + 1.0, str(rng.choice(labels))))
    return make_series(rows_t), make_series(rows_p)


TRUTH, PREDICTION = random_pair(7)
FILES = sorted(set(TRUTH.index.get_level_values("file")) | set(PREDICTION.index.get_level_values("file")))
FILES_DURATION = {f: DURATION for f in FILES}


# (family, metric name, options): options of the statistics function and of the metric
CASES = [
    ("event", "event_fscore", {"onset_tolerance": 0.5, "offset_tolerance": None}),
    ("event", "event_fscore", {"onset_tolerance": 0.5, "offset_tolerance": None, "average": "macro"}),
    ("event", "event_error_rate", {"onset_tolerance": 0.5, "offset_tolerance": None}),
    ("event", "event_fscore_per_class", {"onset_tolerance": 0.5, "offset_tolerance": None}),
    ("event", "event_confusion_matrix", {"onset_tolerance": 0.5, "offset_tolerance": None}),
    ("segment", "segment_fscore", {"time_resolution": 1.0}),
    ("segment", "segment_error_rate", {"time_resolution": None}),
    ("segment", "segment_accuracy", {"time_resolution": 1.0, "files_duration": FILES_DURATION}),
    ("segment", "segment_fscore_per_class", {}),
    ("detection", "detection_error_rate", {"files_duration": FILES_DURATION}),
    ("diarization", "diarization_error_rate", {"files_duration": FILES_DURATION}),
    ("diarization", "jaccard_error_rate", {"files_duration": FILES_DURATION}),
]


def naive_distribution(metric, counts, files, options):
    """The definition: the metric of the resampled dataset, one resample at a time."""
    out = []
    by_file_t = {f: TRUTH[TRUTH.index.get_level_values("file") == f] for f in files}
    by_file_p = {f: PREDICTION[PREDICTION.index.get_level_values("file") == f] for f in files}
    for row in counts:
        truth, prediction, durations = [], [], {}
        for j, file in enumerate(np.repeat(np.asarray(files, dtype=object), row)):
            copy = f"copy{j}"
            truth.append(by_file_t[file].rename(index={file: copy}, level="file"))
            prediction.append(by_file_p[file].rename(index={file: copy}, level="file"))
            durations[copy] = DURATION
        call = dict(options)
        if "files_duration" in call:
            call["files_duration"] = durations
        value = metric(pd.concat(truth), pd.concat(prediction), **call)
        if isinstance(value, dict):
            value = list(value.values())
        elif isinstance(value, pd.Series):
            value = value.to_numpy()
        out.append(np.asarray(value, dtype=float))
    return np.array(out)


@pytest.mark.parametrize("family, name, options", CASES, ids=[f"{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_resamples_are_the_resampled_datasets(family, name, options):
    """The vectorised resamples equal the metric of each resampled dataset."""
    metric = getattr(audeval, name)
    n_boot = 12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = audeval.bootstrap(metric, TRUTH, PREDICTION, n_boot=n_boot, seed=3, **options)
        counts = resample_counts(len(FILES), n_boot, np.random.default_rng(3))
        expected = naive_distribution(metric, counts, FILES, options)
        direct = metric(TRUTH, PREDICTION, **options)
    np.testing.assert_allclose(result.distribution, expected, rtol=1e-12, atol=1e-12)
    assert result.n_files == len(FILES)
    if isinstance(direct, float):
        assert result.value == direct
    # the interval is the percentiles of the resamples
    low = np.nanquantile(result.distribution, 0.025, axis=0)
    high = np.nanquantile(result.distribution, 0.975, axis=0)
    if isinstance(direct, dict):
        assert list(result.low) == list(direct)
        np.testing.assert_allclose(list(result.low.values()), low, rtol=1e-12)
        np.testing.assert_allclose(list(result.high.values()), high, rtol=1e-12)
    elif isinstance(direct, pd.Series):
        pd.testing.assert_index_equal(result.low.index, direct.index)
        np.testing.assert_allclose(result.high.to_numpy(), high, rtol=1e-12)
    else:
        np.testing.assert_allclose(np.asarray(result.low), low, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(result.high), high, rtol=1e-12)


def test_resample_counts():
    counts = resample_counts(5, 1000, np.random.default_rng(0))
    assert counts.shape == (1000, 5)
    assert (counts.sum(axis=1) == 5).all()
    # each file is drawn 5 * 1/5 = 1 time on average
    np.testing.assert_allclose(counts.mean(axis=0), 1.0, atol=0.1)


def test_seed_gives_the_same_interval():
    kwargs = dict(n_boot=200, onset_tolerance=0.5, offset_tolerance=None)
    a = audeval.bootstrap(audeval.event_fscore, TRUTH, PREDICTION, seed=7, **kwargs)
    b = audeval.bootstrap(audeval.event_fscore, TRUTH, PREDICTION, seed=7, **kwargs)
    c = audeval.bootstrap(audeval.event_fscore, TRUTH, PREDICTION, seed=8, **kwargs)
    d = audeval.bootstrap(
        audeval.event_fscore, TRUTH, PREDICTION, seed=np.random.default_rng(7), **kwargs
    )
    np.testing.assert_array_equal(a.distribution, b.distribution)
    np.testing.assert_array_equal(a.distribution, d.distribution)
    assert (a.low, a.high, a.standard_error) == (b.low, b.high, b.standard_error)
    assert not np.array_equal(a.distribution, c.distribution)
    assert a.value == c.value == audeval.event_fscore(
        TRUTH, PREDICTION, onset_tolerance=0.5, offset_tolerance=None
    )
    assert a.low <= a.value <= a.high
    assert a.confidence_interval == (a.low, a.high)
    assert a.standard_error == pytest.approx(np.std(a.distribution, ddof=1))
    # the default seed is fixed too
    e = audeval.bootstrap(audeval.event_fscore, TRUTH, PREDICTION, **kwargs)
    f = audeval.bootstrap(audeval.event_fscore, TRUTH, PREDICTION, **kwargs)
    assert (e.low, e.high) == (f.low, f.high)
    # seed=None: fresh entropy, still valid
    g = audeval.bootstrap(audeval.event_fscore, TRUTH, PREDICTION, seed=None, **kwargs)
    assert 0 <= g.low <= g.high <= 1


def test_confidence_level_narrows_the_interval():
    wide = audeval.bootstrap(audeval.event_error_rate, TRUTH, PREDICTION, n_boot=300, confidence=0.99)
    narrow = audeval.bootstrap(audeval.event_error_rate, TRUTH, PREDICTION, n_boot=300, confidence=0.5)
    np.testing.assert_array_equal(wide.distribution, narrow.distribution)  # same seed
    assert wide.low <= narrow.low <= narrow.high <= wide.high
    assert narrow.high - narrow.low < wide.high - wide.low


def test_hand_computed_two_outcomes():
    """Three files, two perfect and one all wrong: the resampled F-scores are known."""
    truth = make_series([("f1", 0, 1, "a"), ("f2", 0, 1, "a"), ("f3", 0, 1, "a")])
    prediction = make_series([("f1", 0, 1, "a"), ("f2", 0, 1, "a"), ("f3", 5, 6, "a")])
    result = audeval.bootstrap(audeval.event_recall_per_class, truth, prediction, n_boot=500, seed=0)
    assert result.value == {"a": 2 / 3}
    # a resample holding the wrong file k times has recall (3 - k) / 3
    counts = resample_counts(3, 500, np.random.default_rng(0))
    np.testing.assert_allclose(result.distribution[:, 0], (3 - counts[:, 2]) / 3)
    assert result.low == {"a": 0.0}
    assert result.high == {"a": 1.0}


def test_statistics_table_in_place_of_truth():
    stats = audeval.event_statistics(TRUTH, PREDICTION, onset_tolerance=0.5, offset_tolerance=None)
    from_stats = audeval.bootstrap(audeval.event_fscore, stats, None, n_boot=50, average="macro")
    from_series = audeval.bootstrap(
        audeval.event_fscore,
        TRUTH,
        PREDICTION,
        n_boot=50,
        average="macro",
        onset_tolerance=0.5,
        offset_tolerance=None,
    )
    np.testing.assert_array_equal(from_stats.distribution, from_series.distribution)
    # labels select rows of the table, in their order
    per_class = audeval.bootstrap(audeval.event_fscore_per_class, stats, None, ["c", "a"], n_boot=20)
    assert list(per_class.value) == ["c", "a"]
    assert per_class.value == audeval.event_fscore_per_class(
        TRUTH, PREDICTION, ["c", "a"], onset_tolerance=0.5, offset_tolerance=None
    )


def test_report_bootstraps_every_cell():
    result = audeval.bootstrap(audeval.event_report, TRUTH, PREDICTION, n_boot=30)
    assert isinstance(result.low, pd.DataFrame)
    pd.testing.assert_index_equal(result.low.index, result.value.index)
    assert result.distribution.shape == (30,) + result.value.shape


def test_accumulator_bootstrap():
    accumulator = audeval.Accumulator(audeval.event_fscore, average="macro", onset_tolerance=0.5)
    for file in FILES:
        accumulator.update(
            TRUTH[TRUTH.index.get_level_values("file") == file],
            PREDICTION[PREDICTION.index.get_level_values("file") == file],
        )
    a = accumulator.bootstrap(n_boot=40, seed=2)
    b = audeval.bootstrap(
        audeval.event_fscore, TRUTH, PREDICTION, n_boot=40, seed=2, average="macro", onset_tolerance=0.5
    )
    np.testing.assert_array_equal(a.distribution, b.distribution)
    assert a.value == b.value == accumulator.compute()


@pytest.mark.parametrize("n_files", [0, 1, 2])
def test_fewer_than_three_files(n_files):
    truth = make_series([(f"f{k}", 0, 1, "a") for k in range(n_files)])
    prediction = make_series([(f"f{k}", 0, 1, "a") for k in range(n_files)])
    with pytest.warns(BootstrapWarning, match=f"at least 3 files; got {n_files}"):
        result = audeval.bootstrap(audeval.event_fscore, truth, prediction)
    assert result.value == audeval.event_fscore(truth, prediction)
    assert np.isnan(result.low) and np.isnan(result.high) and np.isnan(result.standard_error)
    assert result.n_files == n_files
    assert result.distribution.shape == (0,)
    with pytest.warns(BootstrapWarning):
        per_class = audeval.bootstrap(audeval.event_fscore_per_class, truth, prediction, ["a"])
    assert np.isnan(per_class.low["a"])


def test_errors():
    with pytest.raises(ValueError, match="n_boot must be a positive integer"):
        audeval.bootstrap(audeval.event_fscore, TRUTH, PREDICTION, n_boot=0)
    with pytest.raises(ValueError, match="confidence must be in \\(0, 1\\)"):
        audeval.bootstrap(audeval.event_fscore, TRUTH, PREDICTION, confidence=95)
    with pytest.raises(TypeError, match="seed must be"):
        audeval.bootstrap(audeval.event_fscore, TRUTH, PREDICTION, seed="x")
    with pytest.raises(TypeError, match="prediction is None"):
        audeval.bootstrap(audeval.event_fscore, TRUTH)
    with pytest.raises(TypeError, match="unknown options \\['averag'\\]"):
        audeval.bootstrap(audeval.event_fscore, TRUTH, PREDICTION, averag="macro")
    with pytest.raises(ValueError, match="cannot tell the metric family"):
        audeval.bootstrap(lambda stats, _: 1.0, TRUTH, PREDICTION)


def test_any_function_of_a_statistics_table():
    def recall(stats, _):
        return stats["tp"].sum() / stats["n_truth"].sum()

    result = audeval.bootstrap(recall, TRUTH, PREDICTION, family="event", n_boot=50)
    stats = audeval.event_statistics(TRUTH, PREDICTION)
    assert result.value == recall(stats, None)
    assert 0 <= result.low <= result.high <= 1
