"""Agreement linear in raters (issue 32 item 4): the same numbers as before.

The previous implementation (every active ``(piece, rater, label)`` of the sweep,
rater-squared in time and memory) is kept frozen in
``tests/assets/agreement/reference``; here the linear implementation is compared
with it on random ratings: polyphonic labels (a rater's rows overlapping,
also with the same label, and touching), gaps, ``end=NaT`` with ``files_duration``,
files without rows of some raters or of anyone, 2-6 raters,
both ``unrated`` rules, continuous time and frames.
"""

import importlib.util
import os
import sys

import numpy as np
import pandas as pd
import pytest

from audeval import agreement_statistics
from audeval import cohen_kappa
from audeval import consensus
from audeval import disagreements
from audeval import fleiss_kappa
from audeval import krippendorff_alpha
from audeval import unitized_alpha
from audeval._agreement.coincidence import count_runs
from audeval._core.sweep import coverage
from audeval._core.sweep import sort_keys


HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "assets", "agreement", "reference")


def _load(name):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(REFERENCE, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


sweep_old = _load("sweep_old")  # the reference modules import it
old_statistics = _load("statistics_old")
old_spans = _load("spans_old")

LABELS = ["a", "b", "c"]
FILES = ["f0", "f1", "f2", "f3", "f4"]
RTOL = 1e-12


def random_ratings(seed: int) -> tuple[dict, dict]:
    """2-6 raters over 5 files; f4 only in files_duration, f3 with NaT ends.

    Every third seed: each rater monophonic (its rows never overlap, some touch).
    """
    rng = np.random.default_rng(seed)
    n_raters = int(rng.integers(2, 7))
    durations = {"f0": 10.0, "f1": 8.0, "f3": 6.0, "f4": 5.0}
    raters = {}
    for r in range(n_raters):
        if seed % 3 == 0:
            files, start, end = _monophonic_rows(rng)
        else:
            n = int(rng.integers(0, 14))
            files = rng.choice(FILES[:4], n)
            grid = rng.uniform() < 0.5  # shared boundaries on a 0.5 s grid, or anywhere
            start = rng.integers(0, 16, n) * 0.5 if grid else np.round(rng.uniform(0, 7.5, n), 3)
            length = rng.integers(0, 8, n) * 0.5 if grid else np.round(rng.uniform(0, 4, n), 3)
            end = pd.to_timedelta(start + length, unit="s")
            end = end.where(~((files == "f3") & (rng.uniform(size=n) < 0.4)), pd.NaT)
        labels = rng.choice(LABELS, len(files))
        index = pd.MultiIndex.from_arrays(
            [np.asarray(files).astype(object), pd.to_timedelta(start, unit="s"), end],
            names=["file", "start", "end"],
        )
        raters[f"r{r}"] = pd.Series(labels.astype(object), index=index)
    return raters, durations


def _monophonic_rows(rng):
    """Consecutive cuts of each file, some left out; the last row of f3 ends at NaT."""
    files, starts, ends = [], [], []
    for file in FILES[:4]:
        cuts = np.unique(rng.integers(0, 12, int(rng.integers(0, 6))) * 0.5)
        keep = rng.uniform(size=max(len(cuts) - 1, 0)) < 0.8
        starts += cuts[:-1][keep].tolist()
        ends += cuts[1:][keep].tolist()
        files += [file] * int(keep.sum())
    files = np.array(files, dtype=object)
    end = pd.to_timedelta(np.array(ends, dtype=float), unit="s")
    last_f3 = np.flatnonzero(files == "f3")[-1:]
    if len(last_f3) and rng.uniform() < 0.5 and starts[last_f3[0]] < 6.0:
        end = end.where(np.arange(len(files)) != last_f3[0], pd.NaT)
    return files, np.array(starts, dtype=float), end


CASES = [
    (seed, unrated, frame)
    for seed in range(24)
    for unrated, frame in [("no_label", None), ("missing", None), ("no_label", 0.5), ("missing", 0.3)]
]


def assert_tables_equal(new: pd.DataFrame, old: pd.DataFrame):
    assert new.index.equals(old.index)
    assert list(new.columns) == list(old.columns)
    for column in ("total", "pairable", "values", "first"):
        np.testing.assert_array_equal(new[column].to_numpy(), old[column].to_numpy(), err_msg=column)
    for column in ("coincide", "fleiss_agree", "fleiss_share"):
        np.testing.assert_allclose(new[column], old[column], rtol=RTOL, atol=0, err_msg=column)
    assert new.attrs == old.attrs


def assert_close(a, b):
    if isinstance(a, dict):
        assert list(a) == list(b)
        a, b = list(a.values()), list(b.values())
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=RTOL, atol=RTOL)


@pytest.mark.filterwarnings("ignore::UserWarning")  # rows beyond files_duration, undefined metrics
@pytest.mark.parametrize("seed, unrated, frame", CASES)
def test_statistics_and_metrics_equal_the_previous_implementation(seed, unrated, frame):
    raters, durations = random_ratings(seed)
    options = dict(frame_size=frame, unrated=unrated, files_duration=durations)
    for per_label in (False, True):
        new = agreement_statistics(raters, per_label=per_label, **options)
        old = old_statistics.agreement_statistics(raters, per_label=per_label, **options)
        assert_tables_equal(new, old)
        for metric in (fleiss_kappa, krippendorff_alpha):
            for extra in (
                [{}] if not per_label else [{"average": a} for a in ("macro", "micro", "none")]
            ):
                assert_close(metric(new, **extra), metric(old, **extra))
            pd.testing.assert_series_equal(
                metric(new, per_file=True), metric(old, per_file=True), rtol=RTOL
            )
        if len(raters) == 2:
            assert_close(cohen_kappa(new), cohen_kappa(old))


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("seed, unrated, frame", CASES)
def test_disagreements_and_consensus_equal_the_previous_implementation(seed, unrated, frame):
    raters, durations = random_ratings(seed)
    options = dict(frame_size=frame, unrated=unrated, files_duration=durations)
    pd.testing.assert_frame_equal(
        disagreements(raters, **options), old_spans.disagreements(raters, **options)
    )
    weights = {name: float(w) for name, w in zip(raters, np.random.default_rng(seed).integers(1, 4, 6))}
    for per_label in (False, True):
        for w in (None, weights):
            pd.testing.assert_series_equal(
                consensus(raters, per_label=per_label, weights=w, **options),
                old_spans.consensus(raters, per_label=per_label, weights=w, **options),
            )


def test_count_runs_and_coverage_by_hand():
    # pieces 0..5; category 0: segments [0, 3) and [1, 2) and [4, 6); category 2: [2, 5)
    first, stop = np.array([0, 1, 4, 2]), np.array([3, 2, 6, 5])
    category, n, lo, hi = count_runs(6, first, stop, np.array([0, 0, 0, 2]))
    assert list(zip(category.tolist(), n.tolist(), lo.tolist(), hi.tolist())) == [
        (0, 1, 0, 1), (0, 2, 1, 2), (0, 1, 2, 3), (0, 1, 4, 6), (2, 1, 2, 5)
    ]
    assert coverage(6, first, stop).tolist() == [1, 2, 2, 1, 2, 1]
    empty = count_runs(3, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert all(len(a) == 0 for a in empty)


def test_many_raters_table_is_linear_in_raters():
    """64 raters who all copy one rater: the pieces are those of one rater, not more."""
    index = pd.MultiIndex.from_arrays(
        [["f"] * 3, pd.to_timedelta([0.0, 1.0, 2.5], unit="s"), pd.to_timedelta([1.0, 2.0, 4.0], unit="s")],
        names=["file", "start", "end"],
    )
    one = pd.Series(["a", "b", "a"], index=index)
    raters = {f"r{i}": one for i in range(64)}
    stats = agreement_statistics(raters)
    # every rater agrees everywhere: o_cc = n_c, alpha 1
    np.testing.assert_allclose(stats["coincide"], stats["values"])
    assert stats.loc[("f", "<no label>"), "values"] == 64 * 500_000_000
    assert krippendorff_alpha(raters) == 1.0
    assert len(disagreements(raters)) == 0


def test_sort_keys_order_pairs_also_when_they_do_not_fit_one_int64():
    group = np.array([3, 0, 3, 10**12, 0])
    value = np.array([5, 2**61, 0, 7, 1])
    for n_groups in (4, 10**12 + 1):  # fits / does not fit into group * span + value
        g, v = (group, value) if n_groups > 4 else (group % 4, value % 100)
        keys = sort_keys(n_groups, g, v)
        assert np.argsort(keys, kind="stable").tolist() == np.lexsort((v, g)).tolist()
        assert len(np.unique(keys)) == len(set(zip(g.tolist(), v.tolist())))


def test_disagreements_with_more_than_127_label_sets():
    """Category codes beyond int8: the rater matrix takes a wider type."""
    rng = np.random.default_rng(1)
    labels = np.array([f"l{i:03d}" for i in range(150)], dtype=object)
    raters = {}
    for r in range(3):
        start = np.arange(150) * 1.0 + rng.uniform(0, 0.4, 150)
        index = pd.MultiIndex.from_arrays(
            [["f"] * 150, pd.to_timedelta(start, unit="s"), pd.to_timedelta(start + 0.5, unit="s")],
            names=["file", "start", "end"],
        )
        raters[f"r{r}"] = pd.Series(rng.permutation(labels), index=index)
    new = disagreements(raters)
    pd.testing.assert_frame_equal(new, old_spans.disagreements(raters))
    assert len(new["r0"].cat.categories) == 151
    pd.testing.assert_series_equal(consensus(raters), old_spans.consensus(raters))


old_unitizing = _load("unitizing_old")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("seed", range(24))
def test_unitized_alpha_equals_the_previous_implementation(seed):
    raters, durations = random_ratings(seed)
    for frame in (None, 0.5):
        for per_file in (False, True):
            for average in ("pooled", "none"):
                options = dict(files_duration=durations, frame_size=frame, per_file=per_file, average=average)
                new = unitized_alpha(raters, **options)
                old = old_unitizing.unitized_alpha(raters, **options)
                if per_file:
                    pd.testing.assert_frame_equal(pd.DataFrame(new), pd.DataFrame(old), rtol=RTOL)
                else:
                    assert_close(new, old)
