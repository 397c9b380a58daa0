"""The bootstrap on arrays (issue 31 item 4) against the bootstrap of a table per resample.

Every registered family and metric (the data of the contract test) is bootstrapped twice
with the same seed: on arrays (the family's ``reduce`` of the count-matrix product)
and by the reference, the metric called on the statistics table of every resample
(the implementation before the array path, kept in :mod:`audeval._generic.bootstrap`
for metrics without an array reduction).
The draws are the same, so the resampled values and the intervals must be too.
"""

from __future__ import annotations

import warnings

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._generic import bootstrap as _bootstrap
from audeval._generic import resample as _resample
from audeval._generic.registry import FAMILIES

from test_contract import DATA, cases


# metrics that must take the array path with the contract's options
ARRAY_METRICS = {
    "event_precision_per_class", "event_recall_per_class", "event_fscore_per_class",
    "event_unweighted_average_fscore", "event_fscore", "event_error_rate",
    "event_error_rate_per_class", "event_confusion_matrix",
    "segment_precision_per_class", "segment_recall_per_class", "segment_fscore_per_class",
    "segment_fscore", "segment_error_rate", "segment_error_rate_per_class", "segment_accuracy",
    "diarization_error_rate", "identification_error_rate", "jaccard_error_rate",
    "identification_precision_recall",
    "psds",
    "boundary_detection", "boundary_deviation", "pairwise_clustering", "rand_index",
    "adjusted_rand_index", "mutual_information", "normalized_conditional_entropy", "v_measure",
    "hierarchy_tmeasure", "hierarchy_lmeasure",
    "detection_error_rate", "speaker_change_precision_recall", "speaker_change_purity_coverage",
}


def _bootstrap_both(metric, truth, prediction, options, monkeypatch):
    """(array path taken, result on arrays, result of the table per resample)."""
    taken = []
    original = _bootstrap._Arrays.of

    def spy(*args, **kwargs):
        arrays = original(*args, **kwargs)
        taken.append(arrays is not None)
        return arrays

    kwargs = dict(n_boot=25, seed=4, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        monkeypatch.setattr(_bootstrap._Arrays, "of", classmethod(lambda cls, *a, **k: None))
        try:
            on_tables = audeval.bootstrap(metric, truth, prediction, **kwargs)
        except ValueError as error:  # curves, mappings: values of another shape per resample
            with pytest.raises(ValueError):
                monkeypatch.setattr(_bootstrap._Arrays, "of", spy)
                audeval.bootstrap(metric, truth, prediction, **kwargs)
            pytest.skip(f"no interval of {metric.__name__}: {error}")
        monkeypatch.setattr(_bootstrap._Arrays, "of", spy)
        on_arrays = audeval.bootstrap(metric, truth, prediction, **kwargs)
    return bool(taken and taken[0]), on_arrays, on_tables


def _same(a, b):
    if isinstance(b, dict):
        assert list(a) == list(b)
        np.testing.assert_allclose(list(a.values()), list(b.values()), rtol=1e-12, atol=1e-12)
    elif isinstance(b, (pd.Series, pd.DataFrame)):
        np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name, metric, options", list(cases()))
def test_arrays_equal_a_table_per_resample(name, metric, options, monkeypatch):
    if options.get("per_file"):
        pytest.skip("a bootstrap interval is of the metric over files, not of per-file values")
    truth, prediction = DATA[name][:2]
    taken, on_arrays, on_tables = _bootstrap_both(metric, truth, prediction, options, monkeypatch)
    if metric.__name__ in ARRAY_METRICS and not (
        metric.__name__ == "diarization_error_rate" and options.get("mapping") == "greedy"
        and not options.get("individual_file_mapping", True)
    ):
        assert taken, f"{metric.__name__} took the table path"
    # the point value is the direct call's, bit for bit, on both paths
    if isinstance(on_tables.value, float):
        assert on_arrays.value == on_tables.value or np.isnan(on_arrays.value) and np.isnan(on_tables.value)
    assert on_arrays.n_files == on_tables.n_files
    np.testing.assert_allclose(
        on_arrays.distribution, on_tables.distribution, rtol=1e-12, atol=1e-12, equal_nan=True
    )
    for field in ("low", "high", "standard_error"):
        _same(getattr(on_arrays, field), getattr(on_tables, field))


def test_a_mapping_over_all_files_takes_the_table_path(monkeypatch):
    truth, prediction = DATA["diarization"][:2]
    options = dict(files_duration=DATA["diarization"][2][0]["files_duration"], individual_file_mapping=False)
    taken, on_arrays, on_tables = _bootstrap_both(
        audeval.diarization_error_rate, truth, prediction, options, monkeypatch
    )
    assert not taken
    np.testing.assert_array_equal(on_arrays.distribution, on_tables.distribution)


def _series(rows):
    files, starts, ends, labels = zip(*rows)
    return pd.Series(labels, index=audformat.segmented_index(list(files), starts, ends))


def test_files_without_rows_are_resampled():
    """Issue 33 item 21: files of files_duration (or of the inputs) without events count."""
    truth = _series([("f1", 0, 1, "a"), ("f2", 0, 1, "a"), ("f3", 0, 1, "a")])
    prediction = _series([("f1", 0, 1, "a"), ("f2", 0, 1, "a"), ("f3", 5, 6, "a")])
    durations = {"f1": 10.0, "f2": 10.0, "f3": 10.0, "silent": 10.0}
    with pytest.warns(audeval.FilesWithoutRowsWarning, match="'silent'"):
        event = audeval.bootstrap(
            audeval.event_fscore, truth, prediction, n_boot=200, seed=0, files_duration=durations
        )
    with pytest.warns(audeval.FilesWithoutRowsWarning, match="'silent'"):
        segment = audeval.bootstrap(
            audeval.segment_fscore, truth, prediction, n_boot=200, seed=0, files_duration=durations
        )
    assert event.n_files == segment.n_files == 4
    # the silent file is drawn like any other: with r draws of the right files
    # and w of the wrong one, P = R = F = r / (r + w) (0 if only the silent file is drawn)
    counts = _bootstrap.resample_counts(4, 200, np.random.default_rng(0))
    right, wrong = counts[:, :2].sum(axis=1), counts[:, 2]
    assert (counts[:, 3] > 0).any()
    expected = np.where(right + wrong == 0, 0.0, right / np.maximum(right + wrong, 1))
    np.testing.assert_allclose(event.distribution, expected, rtol=1e-12)
    # without files_duration the files of the inputs are the units
    assert audeval.bootstrap(audeval.event_fscore, truth, prediction, n_boot=5).n_files == 3


def test_counts_of_the_array_path_are_exact_integers():
    """Summed on float64 only while every resample sum is an exact integer."""
    assert _resample._exact({"x": np.array([2.0**40])}, 1000)
    assert not _resample._exact({"x": np.array([2.0**44])}, 1000)
    assert not _resample._exact({"x": np.array([np.nan])}, 3)


def test_every_array_family_declares_reduce():
    for name in ("event", "segment", "diarization", "structure", "hierarchy"):
        assert FAMILIES[name].reduce is not None, name
    assert FAMILIES["score"].resample is not None


def _informative_scores(n_files=8, seconds=12.0, frame=0.1, seed=0):
    """Truth events and frame scores that follow them, with noise (PSDS strictly between 0 and 1)."""
    rng = np.random.default_rng(seed)
    files = [f"g{k}" for k in range(n_files)]
    n = int(seconds / frame)
    starts = np.round(np.arange(n) * frame, 6)
    rows, values = [], []
    for file in files:
        active = np.zeros((n, 3))
        for c, label in enumerate("abc"):
            a, b = np.sort(rng.choice(np.arange(1, n - 1), 2, replace=False))
            rows.append((file, starts[a], starts[b], label))
            active[a:b, c] = 1.0
        values.append(np.round(1 / (1 + np.exp(-(2.5 * active - 1.2 + rng.normal(0, 1, (n, 3))))), 3))
    index = audformat.segmented_index(
        np.repeat(files, n), np.tile(starts, n_files), np.tile(np.round(starts + frame, 6), n_files)
    )
    scores = pd.DataFrame(np.concatenate(values), index=index, columns=list("abc"))
    return _series(rows), scores


@pytest.mark.parametrize(
    "options",
    [
        dict(alpha_ct=0.5, cttc_threshold=0.3, dtc_threshold=0.1, gtc_threshold=0.1),
        dict(dtc_threshold=0.3, gtc_threshold=0.3, max_efpr=50.0),  # the bound prunes thresholds
        dict(dtc_threshold=0.3, gtc_threshold=0.3, max_efpr=300.0, alpha_st=0.0),
    ],
)
def test_psds_on_arrays_equals_a_table_per_resample(options, monkeypatch):
    truth, scores = _informative_scores()
    taken, on_arrays, on_tables = _bootstrap_both(audeval.psds, truth, scores, options, monkeypatch)
    assert taken
    assert on_arrays.value == on_tables.value == audeval.psds(truth, scores, **options)
    np.testing.assert_array_equal(on_arrays.distribution, on_tables.distribution)
    assert np.ptp(on_arrays.distribution) > 0


def test_average_precision_and_auroc_per_class_are_dicts():
    """Issue 31 item 5: one per-class type (PerClass, a dict label -> value) in every family."""
    from audeval._core.report import PerClass

    truth, scores = _informative_scores(n_files=3)
    for metric in (audeval.average_precision, audeval.auroc):
        per_class = metric(truth, scores, average=None)
        assert type(per_class) is PerClass
        assert list(per_class) == ["a", "b", "c"]
        assert all(type(v) is float for v in per_class.values())
        assert np.mean(list(per_class.values())) == pytest.approx(metric(truth, scores), rel=1e-15)
    # and the bootstrap gives a dict per class too
    result = audeval.bootstrap(audeval.auroc, truth, scores, n_boot=20, average=None)
    assert type(result.value) is PerClass and list(result.low) == ["a", "b", "c"]


def test_files_a_reader_saw_without_events_are_resampled(tmp_path):
    """Issue 33 item 21: DESED lists 1,168 files, 15 without events; every one is a unit
    (the event bootstrap reported 1,166 files, those of either input's rows)."""
    truth_file, prediction_file = tmp_path / "truth.tsv", tmp_path / "prediction.tsv"
    truth_file.write_text(
        "filename\tonset\toffset\tevent_label\n"
        "f1.wav\t0.0\t1.0\ta\nf2.wav\t0.0\t1.0\ta\nf3.wav\t0.0\t1.0\ta\nquiet.wav\t\t\t\n"
    )
    prediction_file.write_text(
        "filename\tonset\toffset\tevent_label\nf1.wav\t0.0\t1.0\ta\nf2.wav\t0.0\t1.0\ta\nf3.wav\t5.0\t6.0\ta\n"
    )
    truth = audeval.read_annotations(truth_file)
    prediction = audeval.read_annotations(prediction_file)
    assert "quiet.wav" in truth.attrs["files"]
    event = audeval.bootstrap(audeval.event_fscore, truth, prediction, n_boot=200, seed=0)
    segment = audeval.bootstrap(audeval.segment_fscore, truth, prediction, n_boot=200, seed=0)
    assert event.n_files == segment.n_files == 4
    counts = _bootstrap.resample_counts(4, 200, np.random.default_rng(0))
    right, wrong = counts[:, :2].sum(axis=1), counts[:, 2]
    expected = np.where(right + wrong == 0, 0.0, right / np.maximum(right + wrong, 1))
    np.testing.assert_allclose(event.distribution, expected, rtol=1e-12)


@pytest.mark.parametrize(
    "name, metric, options",
    [
        ("structure", audeval.boundary_detection, dict(window=3.0, beta=0.5)),
        ("structure", audeval.normalized_conditional_entropy, dict(marginal=True)),
        ("structure", audeval.pairwise_clustering, dict(beta=2.0, frame_size=0.1)),
        ("hierarchy", audeval.hierarchy_tmeasure, dict(transitive=True, window=5.0)),
    ],
)
def test_means_over_files_on_arrays(name, metric, options, monkeypatch):
    """Families whose metrics are means over files: per-file values, the mean of each resample."""
    truth, prediction = DATA[name][:2]
    taken, on_arrays, on_tables = _bootstrap_both(metric, truth, prediction, options, monkeypatch)
    assert taken
    assert on_arrays.value == on_tables.value
    np.testing.assert_allclose(
        on_arrays.distribution, on_tables.distribution, rtol=1e-12, atol=1e-12, equal_nan=True
    )


def test_sum_statistics_reads_the_declared_label_blocks():
    """The confusion block is the event family's declared ``label_blocks``:
    its columns follow the label order; other columns keep their place, whatever their names."""
    assert FAMILIES["event"].label_blocks == ("substituted_by_",)
    a = _series([("f1", 0, 1, "b"), ("f1", 2, 3, "c")])
    b = _series([("f2", 0, 1, "a")])
    options = dict(onset_tolerance=0.5, offset_tolerance=None, confusion=True)
    shards = [audeval.event_statistics(a, a, **options), audeval.event_statistics(b, b, **options)]
    summed = audeval.sum_statistics(shards)
    blocks = [c for c in summed.columns if c.startswith("substituted_by_")]
    assert blocks == ["substituted_by_a", "substituted_by_b", "substituted_by_c"]
    full = audeval.event_statistics(pd.concat([a, b]), pd.concat([a, b]), **options)
    pd.testing.assert_frame_equal(summed, full)
    # a column named like a label but not declared as a block stays where it is
    extra = [t.assign(total_a=1) for t in shards]
    assert list(audeval.sum_statistics(extra).columns)[-1] == "total_a"
