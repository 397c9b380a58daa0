"""Rater agreement (SPEC section 11): golden values, hand-computed cases, properties."""

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

from audeval import agreement_matrix
from audeval import agreement_statistics
from audeval import cohen_kappa
from audeval import consensus
from audeval import disagreements
from audeval import fleiss_kappa
from audeval import krippendorff_alpha
from audeval import rater_annotations
from audeval import unitized_alpha
from audeval._agreement.inputs import check_ratings
from audeval._agreement.unitizing import unitizing_disagreement
from audeval import UndefinedMetricWarning
from audeval._core.sweep import activity
from audeval._core.sweep import cooccurrence
from audeval._core.sweep import cut
from audeval._core.sweep import join_runs


HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "assets", "agreement", "golden.json")) as fp:
    GOLDEN = json.load(fp)
SETTINGS = dict(
    deadline=None,
    max_examples=15,
    phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
    suppress_health_check=[hypothesis.HealthCheck.too_slow],
)


def series(rows) -> pd.Series:
    """Series from (file, start, end, label) rows, times in seconds."""
    if not rows:
        return pd.Series([], index=audformat.segmented_index(), dtype="object")
    files, starts, ends, labels = zip(*rows)
    return pd.Series(list(labels), index=audformat.segmented_index(list(files), list(starts), list(ends)))


def rater(starts, ends, labels, file="f"):
    return series([(file, s, e, lab) for s, e, lab in zip(starts, ends, labels)])


# -------------------------------------------------------------------------
# The sweep engine
# -------------------------------------------------------------------------


def test_sweep_pieces_with_extent_and_files():
    file = np.array([1, 0, 0, 1])
    start = np.array([2, 0, 5, 2])
    end = np.array([4, 5, 5, 3])  # a zero-length interval at 5
    pieces = cut(3, file, start, end, extent=np.array([10, 6, 0]))
    assert pieces.file.tolist() == [0, 0, 1, 1, 1, 1]
    assert pieces.start.tolist() == [0, 5, 0, 2, 3, 4]
    assert pieces.end.tolist() == [5, 10, 2, 3, 4, 6]
    assert (pieces.stop - pieces.first).tolist() == [2, 1, 0, 1]
    act = activity(len(pieces), pieces.first, pieces.stop, np.array([0, 1, 1, 2]), 3)
    piece, channel, _ = act
    assert list(zip(piece.tolist(), channel.tolist())) == [(0, 1), (3, 0), (3, 2), (4, 0)]
    _, a, b, d = cooccurrence(pieces, act, act, 3, 3, per_file=False)
    assert dict(zip(zip(a.tolist(), b.tolist()), d.tolist())) == {
        (0, 0): 2, (0, 2): 1, (1, 1): 5, (2, 0): 1, (2, 2): 1
    }
    first, last = join_runs(pieces.file, pieces.start, pieces.end, np.array([1, 1, 2, 2, 2, 3]))
    assert first.tolist() == [0, 2, 5] and last.tolist() == [1, 4, 5]


def test_sweep_activity_counts_overlaps_once():
    pieces = cut(1, np.zeros(2, np.int64), np.array([0, 1]), np.array([3, 2]))
    piece, channel, count = activity(len(pieces), pieces.first, pieces.stop, np.array([0, 0]), 1)
    assert piece.tolist() == [0, 1, 2]
    assert count.tolist() == [1, 2, 1]  # the overlapping intervals of one channel, counted


# -------------------------------------------------------------------------
# Golden values: sklearn, krippendorff, statsmodels on frame grids
# -------------------------------------------------------------------------


def golden_inputs(case):
    raters = {name: series([tuple(r) for r in rows]) for name, rows in case["raters"].items()}
    unrated = "missing" if case["missing"] else "no_label"
    return raters, dict(files_duration=case["durations"], unrated=unrated)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_label_sets(name):
    case = GOLDEN[name]
    raters, options = golden_inputs(case)
    expected = case["sets"]
    for pair, value in expected["cohen"].items():
        a, b = pair.split("|")
        pair_raters = {a: raters[a], b: raters[b]}
        assert cohen_kappa(pair_raters, **options) == pytest.approx(value, abs=1e-12)
        assert cohen_kappa(pair_raters, frame_size=case["frame"], **options) == pytest.approx(value, abs=1e-12)
    assert krippendorff_alpha(raters, frame_size=case["frame"], **options) == pytest.approx(
        expected["alpha"], abs=1e-12
    )
    if "fleiss" in expected:
        assert fleiss_kappa(raters, **options) == pytest.approx(expected["fleiss"], abs=1e-12)
        assert fleiss_kappa(raters, frame_size=case["frame"], **options) == pytest.approx(
            expected["fleiss"], abs=1e-12
        )


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_per_label(name):
    case = GOLDEN[name]
    raters, options = golden_inputs(case)
    options = dict(options, per_label=True, labels=["a", "b", "c"])
    frame = case["frame"]
    alpha = krippendorff_alpha(raters, frame_size=frame, average="none", **options)
    for label, expected in case["per_label"].items():
        assert alpha[label] == pytest.approx(expected["alpha"], abs=1e-12)
    micro = case["micro"]
    assert krippendorff_alpha(raters, frame_size=frame, average="micro", **options) == pytest.approx(
        micro["alpha"], abs=1e-12
    )
    for pair, value in micro["cohen"].items():
        a, b = pair.split("|")
        pair_raters = {a: raters[a], b: raters[b]}
        per_label = cohen_kappa(pair_raters, average="none", **options)
        for label, expected in case["per_label"].items():
            assert per_label[label] == pytest.approx(expected["cohen"][pair], abs=1e-12)
        assert cohen_kappa(pair_raters, average="micro", **options) == pytest.approx(value, abs=1e-12)
        macro = np.mean([case["per_label"][lab]["cohen"][pair] for lab in "abc"])
        assert cohen_kappa(pair_raters, **options) == pytest.approx(macro, abs=1e-12)
    if "fleiss" in micro:
        fleiss = fleiss_kappa(raters, average="none", **options)
        for label, expected in case["per_label"].items():
            assert fleiss[label] == pytest.approx(expected["fleiss"], abs=1e-12)
        assert fleiss_kappa(raters, average="micro", **options) == pytest.approx(micro["fleiss"], abs=1e-12)


# -------------------------------------------------------------------------
# Hand-computed continuous cases
# -------------------------------------------------------------------------


def test_cohen_hand_computed_off_grid():
    # truth a [0, 1.3) b [1.3, 2); prediction a [0, 1) nothing after; T = 2
    truth = rater([0.0, 1.3], [1.3, 2.0], ["a", "b"])
    prediction = rater([0.0], [1.0], ["a"])
    # C(a,a)=1, C(a,none)=0.3, C(b,none)=0.7; truth a=1.3 b=0.7; prediction a=1 none=1
    p_o = 1.0 / 2
    p_e = (1.3 * 1.0 + 0.0 + 0.0) / 4
    assert cohen_kappa(truth, prediction) == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-15)


def test_alpha_and_fleiss_hand_computed():
    # 3 raters over 4 s: [0,2) a a a; [2,3) b b a; [3,4) b b b
    raters = {
        "r1": rater([0.0, 2.0], [2.0, 4.0], ["a", "b"]),
        "r2": rater([0.0, 2.0], [2.0, 4.0], ["a", "b"]),
        "r3": rater([0.0, 3.0], [3.0, 4.0], ["a", "b"]),
    }
    # coincidences (seconds): o_aa = 2*6/2 + 0 = 6, o_ab = o_ba = 1*2/2 = 1, o_bb = 1*2/2 + 1*6/2 = 4
    n_a, n_b = 7.0, 5.0
    n = n_a + n_b
    assert krippendorff_alpha(raters) == pytest.approx(1 - n * 2 / (2 * n_a * n_b), abs=1e-15)
    p_bar = (2 * 1 + 1 * (2 / 6) + 1 * 1) / 4
    p_a, p_b = (2 + 1 / 3) / 4, (2 / 3 + 1) / 4
    p_e = p_a**2 + p_b**2
    assert fleiss_kappa(raters) == pytest.approx((p_bar - p_e) / (1 - p_e), abs=1e-15)


def test_no_label_is_a_category_and_polyphony():
    # r1: a [0,2) and b [1,2); r2: a [0,2); files_duration 3 s
    r1 = series([("f", 0.0, 2.0, "a"), ("f", 1.0, 2.0, "b")])
    r2 = series([("f", 0.0, 2.0, "a")])
    stats = agreement_statistics({"r1": r1, "r2": r2}, files_duration={"f": 3.0})
    values = (stats["values"] / 1e9).droplevel("file").to_dict()
    assert values == {"<no label>": 2.0, "a": 3.0, "a + b": 1.0}
    coincide = (stats["coincide"] / 1e9).droplevel("file").to_dict()
    assert coincide == {"<no label>": 2.0, "a": 2.0, "a + b": 0.0}
    per_label = agreement_statistics({"r1": r1, "r2": r2}, files_duration={"f": 3.0}, per_label=True)
    assert (per_label["values"] / 1e9).droplevel("file").to_dict() == {"a": 4.0, "b": 1.0}
    assert (per_label["total"] / 1e9).unique().tolist() == [3.0]
    # per label b: present 1 s by r1 only; absent otherwise
    kappa_b = cohen_kappa(r1, r2, files_duration={"f": 3.0}, per_label=True, average="none")["b"]
    assert kappa_b == pytest.approx(0.0, abs=1e-15)


def test_continuous_is_the_limit_of_fine_frames():
    rng = np.random.default_rng(5)
    raters = {}
    for r in range(3):
        rows = []
        for file in ("f1", "f2"):
            bounds = np.sort(rng.choice(np.arange(1, 9999), size=12, replace=False)) / 1000
            for s, e in zip(bounds[::2], bounds[1::2]):
                rows.append((file, float(s), float(e), str(rng.choice(["a", "b"]))))
        raters[f"r{r}"] = series(rows)
    options = dict(files_duration={"f1": 10.0, "f2": 10.0})
    exact = krippendorff_alpha(raters, **options)
    errors = [abs(krippendorff_alpha(raters, frame_size=f, **options) - exact) for f in (1e-2, 1e-4, 1e-6)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-7
    # on the 1 ms grid of the data, frames only change the small-sample term of alpha
    assert fleiss_kappa(raters, frame_size=1e-3, **options) == pytest.approx(fleiss_kappa(raters, **options), abs=1e-12)
    pair = {"r0": raters["r0"], "r1": raters["r1"]}
    assert cohen_kappa(pair, frame_size=1e-3, **options) == pytest.approx(cohen_kappa(pair, **options), abs=1e-12)


def test_undefined_when_everyone_always_agrees():
    raters = {"r1": rater([0.0], [2.0], ["a"]), "r2": rater([0.0], [2.0], ["a"])}
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(krippendorff_alpha(raters))
    with pytest.warns(UndefinedMetricWarning):
        assert cohen_kappa(raters, zero_division=1.0) == 1.0
    with pytest.warns(UndefinedMetricWarning):
        assert fleiss_kappa(raters, zero_division=0.0) == 0.0


# -------------------------------------------------------------------------
# Files rated by some raters only
# -------------------------------------------------------------------------


def test_unrated_files():
    r1 = series([("f1", 0.0, 1.0, "a"), ("f2", 0.0, 1.0, "a")])
    r2 = series([("f1", 0.0, 1.0, "a")])
    duration = {"f1": 2.0, "f2": 2.0}
    # no_label: r2 said nothing in f2 -> disagreement on [0, 1) of f2
    stats = agreement_statistics({"r1": r1, "r2": r2}, files_duration=duration)
    assert stats.loc["f2", "total"].tolist() == [2_000_000_000, 2_000_000_000]
    # missing: f2 is rated by one rater only and adds nothing; f1 agrees fully
    stats = agreement_statistics({"r1": r1, "r2": r2}, files_duration=duration, unrated="missing")
    assert stats.loc["f2"].to_numpy().sum() == 0
    assert cohen_kappa(r1, r2, files_duration=duration, unrated="missing") == pytest.approx(1.0)
    assert cohen_kappa(r1, r2, files_duration=duration) < 1.0
    with pytest.warns(UndefinedMetricWarning):
        per_file = cohen_kappa(r1, r2, files_duration=duration, unrated="missing", per_file=True, zero_division=0.0)
    assert per_file.to_dict() == {"f1": 1.0, "f2": 0.0}
    table = disagreements({"r1": r1, "r2": r2}, files_duration=duration, unrated="missing")
    assert len(table) == 0


# -------------------------------------------------------------------------
# Statistics tables: the same number on every path
# -------------------------------------------------------------------------


@pytest.fixture
def three():
    case = GOLDEN["poly"]
    raters, options = golden_inputs(case)
    return raters, case["durations"]


@pytest.mark.parametrize("per_label", [False, True])
@pytest.mark.parametrize("metric", [krippendorff_alpha, fleiss_kappa])
def test_table_path_and_shards(three, metric, per_label):
    raters, durations = three
    labels = ["a", "b", "c"]
    options = dict(per_label=per_label, frame_size=0.25)
    stats = agreement_statistics(raters, None, labels, files_duration=durations, **options)
    direct = metric(raters, None, labels, files_duration=durations, **options)
    assert metric(stats, None) == pytest.approx(direct, abs=1e-12)
    assert metric(stats, None, frame_size=0.25) == pytest.approx(direct, abs=1e-12)
    # shards of whole files, concatenated with plain pandas
    shards = []
    for file in durations:
        part = {r: s[s.index.get_level_values("file") == file] for r, s in raters.items()}
        shards.append(agreement_statistics(part, None, labels, files_duration={file: durations[file]}, **options))
    summed = pd.concat(shards)
    summed.attrs = stats.attrs
    assert metric(summed, None) == pytest.approx(direct, abs=1e-12)
    per_file = metric(stats, None, per_file=True)
    for file, shard in zip(durations, shards):
        assert per_file[file] == pytest.approx(metric(shard, None), abs=1e-12, nan_ok=True)
    with pytest.raises(ValueError, match="frame_size"):
        metric(stats, None, frame_size=0.5)


def test_table_errors(three):
    raters, durations = three
    stats = agreement_statistics(raters, files_duration=durations)
    with pytest.raises(ValueError, match="labels cannot select"):
        krippendorff_alpha(stats, None, ["a"])
    with pytest.raises(ValueError, match="two raters"):
        cohen_kappa(stats, None)
    with pytest.raises(TypeError, match="prediction must be None"):
        krippendorff_alpha(stats, raters["r1"])
    with pytest.raises(ValueError, match="per_label"):
        krippendorff_alpha(stats, None, per_label=True)
    plain = stats.copy()
    plain.attrs = {}  # e.g. summed by an older pandas, which drops attrs
    with pytest.raises(ValueError, match="records no options"):
        krippendorff_alpha(plain, None)


# -------------------------------------------------------------------------
# Properties
# -------------------------------------------------------------------------


@st.composite
def annotations(draw):
    out = {}
    for r in range(draw(st.integers(2, 4))):
        rows = []
        for file in ("f1", "f2"):
            for _ in range(draw(st.integers(0, 4))):
                start = draw(st.integers(0, 90)) / 10
                length = draw(st.integers(0, 30)) / 10
                rows.append((file, start, start + length, draw(st.sampled_from(["a", "b", "c"]))))
        out[f"r{r}"] = rows
    return out


def _all(raters, **options):
    options = dict(files_duration={"f1": 12.0, "f2": 12.0}, zero_division=0.0, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return [krippendorff_alpha(raters, **options), fleiss_kappa(raters, **options)]


@GENERATED_FILES
@hypothesis.settings(**SETTINGS)
@hypothesis.given(annotations(), st.randoms(use_true_random=False), st.booleans())
def test_invariances(rows, random, per_label):
    raters = {r: series(v) for r, v in rows.items()}
    expected = _all(raters, per_label=per_label)
    # rater order
    names = list(raters)
    random.shuffle(names)
    np.testing.assert_allclose(_all({r: raters[r] for r in names}, per_label=per_label), expected, atol=1e-12)
    # row order within each rater
    shuffled = {r: s.sample(frac=1.0, random_state=random.randint(0, 99)) for r, s in raters.items()}
    np.testing.assert_allclose(_all(shuffled, per_label=per_label), expected, atol=1e-12)
    # file renaming (and so file order)
    swap = {"f1": "f2", "f2": "f1"}
    moved = {r: s.rename(index=swap, level="file") for r, s in raters.items()}
    np.testing.assert_allclose(_all(moved, per_label=per_label), expected, atol=1e-12)
    # label renaming
    rename = {"a": "z", "b": "y", "c": "x"}
    renamed = {r: s.map(rename) for r, s in raters.items()}
    np.testing.assert_allclose(_all(renamed, per_label=per_label), expected, atol=1e-12)


@GENERATED_FILES
@hypothesis.settings(**SETTINGS)
@hypothesis.given(annotations())
def test_shards_add_up(rows):
    raters = {r: series(v) for r, v in rows.items()}
    durations = {"f1": 12.0, "f2": 12.0}
    stats = agreement_statistics(raters, files_duration=durations)
    shards = [
        agreement_statistics(
            {r: s[s.index.get_level_values("file") == f] for r, s in raters.items()},
            files_duration={f: durations[f]},
        )
        for f in durations
    ]
    # category sums add up (a shard lacks rows of categories its files do not have:
    # zeros there; total and pairable are per-file, filled by sum_statistics)
    columns = ["values", "first", "coincide", "fleiss_agree", "fleiss_share"]
    summed = pd.concat(shards)[columns].groupby(level="label", observed=True).sum()
    one_shot = stats[columns].groupby(level="label", observed=True).sum()
    pd.testing.assert_frame_equal(summed.reindex(one_shot.index, fill_value=0), one_shot, check_exact=False, rtol=1e-12)
    per_file = pd.concat(shards)[["total", "pairable"]].groupby(level="file").max()
    pd.testing.assert_frame_equal(per_file, stats[["total", "pairable"]].groupby(level="file").max())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert krippendorff_alpha(pd.concat(shards), None) == pytest.approx(
            krippendorff_alpha(stats, None), abs=1e-12, nan_ok=True
        )


# -------------------------------------------------------------------------
# Disagreements, consensus, matrix
# -------------------------------------------------------------------------


def test_disagreements_spans():
    raters = {
        "r1": series([("f", 0.0, 2.0, "a"), ("f", 1.0, 2.0, "b"), ("g", 0.0, 1.0, "a")]),
        "r2": series([("f", 0.0, 1.5, "a"), ("g", 0.0, 1.0, "a")]),
    }
    table = disagreements(raters)
    assert table.index.names == ["file", "start", "end"]
    assert table["r1"].tolist() == ["a + b", "a + b"]
    assert table["r2"].tolist() == ["a", "<no label>"]
    assert table["duration"].dt.total_seconds().tolist() == [0.5, 0.5]
    assert table.index.get_level_values("start").total_seconds().tolist() == [1.0, 1.5]
    longest = disagreements(raters).sort_values("duration", ascending=False)
    assert len(longest) == 2


def test_consensus_ties_and_weights():
    raters = {
        "r1": rater([0.0], [2.0], ["a"]),
        "r2": rater([0.0], [2.0], ["b"]),
        "r3": rater([1.0], [2.0], ["b"]),
    }
    # [0, 1): a, b, none tie -> r1's a; [1, 2): b wins 2:1
    result = consensus(raters)
    assert result.tolist() == ["a", "b"]
    assert result.index.get_level_values("end").total_seconds().tolist() == [1.0, 2.0]
    result = consensus(raters, weights={"r1": 1.0, "r2": 2.0, "r3": 0.5})
    assert result.tolist() == ["b"]
    # ties go to the first rater: reorder
    result = consensus({k: raters[k] for k in ["r2", "r1", "r3"]})
    assert result.tolist() == ["b"]
    with pytest.raises(ValueError, match="weights"):
        consensus(raters, weights={"r1": 1.0})


def test_consensus_per_label_and_audformat_round_trip():
    raters = {
        "r1": series([("f", 0.0, 2.0, "a"), ("f", 0.0, 1.0, "b")]),
        "r2": series([("f", 0.0, 1.5, "a"), ("f", 0.5, 1.0, "b")]),
        "r3": series([("f", 0.5, 2.0, "a")]),
    }
    per_label = consensus(raters, per_label=True)
    assert list(zip(per_label.index.get_level_values("start").total_seconds(), per_label)) == [
        (0.0, "a"), (0.5, "b")
    ]
    assert per_label.index.get_level_values("end").total_seconds().tolist() == [2.0, 1.0]
    # [0, 0.5): {a, b}, {a}, {} tie -> r1's {a, b}; [0.5, 1): {a, b} 2:1; then a
    result = consensus(raters)
    assert result.tolist() == ["a + b", "a"]
    db = audformat.Database("qa")
    db.schemes["label"] = audformat.Scheme("str")
    db["consensus"] = audformat.Table(result.index)
    db["consensus"]["label"] = audformat.Column(scheme_id="label")
    db["consensus"]["label"].set(result.values)
    pd.testing.assert_series_equal(
        db["consensus"]["label"].get().astype(object), result, check_names=False
    )


def test_database_input_and_matrix():
    db = audformat.Database("qa")
    db.schemes["emotion"] = audformat.Scheme(labels=["happy", "sad"])
    index = audformat.segmented_index(["f1", "f1", "f2"], [0.0, 1.0, 0.0], [1.0, 2.0, 1.0])
    db["segments"] = audformat.Table(index)
    for name, labels in {"r1": ["happy", "sad", "sad"], "r2": ["happy", "happy", "sad"], "r3": ["happy", "sad", None]}.items():
        db.raters[name] = audformat.Rater()
        db["segments"][name] = audformat.Column(scheme_id="emotion", rater_id=name)
        db["segments"][name].set(labels)
    raters = rater_annotations(db)
    assert list(raters) == ["r1", "r2", "r3"]
    assert krippendorff_alpha(db) == krippendorff_alpha(raters)
    matrix = agreement_matrix(db, metric=cohen_kappa)
    assert np.isnan(np.diag(matrix.to_numpy())).all()
    assert matrix.loc["r1", "r2"] == pytest.approx(cohen_kappa(raters["r1"], raters["r2"]))
    assert matrix.loc["r2", "r1"] == pytest.approx(matrix.loc["r1", "r2"])
    with pytest.warns(UndefinedMetricWarning):  # r1 and r2 both say "sad" all over f2
        per_file = agreement_matrix(db, metric=cohen_kappa, per_file=True, zero_division=0.0)
    assert per_file.index.names == ["file", "rater"]
    assert per_file.loc[("f1", "r1"), "r3"] == pytest.approx(1.0)


def test_matrix_with_event_fscore():
    from audeval._events import event_error_rate
    from audeval._events import event_fscore

    raters = {
        "r1": series([("f", 0.0, 1.0, "a"), ("f", 2.0, 3.0, "b")]),
        "r2": series([("f", 0.1, 1.0, "a")]),
        "r3": series([("f", 0.0, 1.1, "a"), ("f", 2.0, 3.0, "b"), ("f", 4.0, 5.0, "b")]),
    }
    matrix = agreement_matrix(raters, metric=event_fscore, onset_tolerance=0.2, offset_tolerance=0.2)
    assert matrix.loc["r1", "r3"] == pytest.approx(
        event_fscore(raters["r1"], raters["r3"], onset_tolerance=0.2, offset_tolerance=0.2)
    )
    errors = agreement_matrix(raters, metric=event_error_rate, onset_tolerance=0.2, offset_tolerance=0.2)
    assert errors.loc["r1", "r2"] != errors.loc["r2", "r1"]
    from audeval._events import event_fscore_per_class

    with pytest.raises(TypeError, match="one number"):
        agreement_matrix(raters, metric=event_fscore_per_class)


# -------------------------------------------------------------------------
# Unitizing alpha: published worked examples
# -------------------------------------------------------------------------


def test_unitized_alpha_krippendorff_2004_example():
    # Krippendorff (2004), Content Analysis, 2nd ed., p. 254: continuum [150, 450),
    # observers i and j; published: c: D_o = 0.0144, D_e = 0.0532, alpha = 0.7286;
    # k: D_o = 0, D_e = 0.0490; overall 0.8591 (from rounded intermediates;
    # the unrounded value is 0.8587, as DKPro Statistics' test tolerance of 0.0005 allows)
    def units(rows):
        return series([("f", o - 150.0, o + length - 150.0, c) for o, length, c in rows])

    raters = {
        "i": units([(225, 70, "c"), (370, 30, "c"), (180, 60, "k"), (300, 50, "k")]),
        "j": units([(220, 80, "c"), (355, 20, "c"), (400, 20, "c"), (180, 60, "k"), (300, 50, "k")]),
    }
    ratings = check_ratings(raters, files_duration={"f": 300.0})
    observed, expected = unitizing_disagreement(ratings, 1_000_000_000, False)
    np.testing.assert_allclose(observed[0], [0.0144, 0.0], atol=5e-5)
    np.testing.assert_allclose(expected[0], [0.0532, 0.0490], atol=5e-5)
    alpha = unitized_alpha(raters, files_duration={"f": 300.0}, frame_size=1.0, average="none")
    assert alpha["c"] == pytest.approx(0.7286, abs=5e-5)
    assert alpha["k"] == 1.0
    overall = unitized_alpha(raters, files_duration={"f": 300.0}, frame_size=1.0)
    assert overall == pytest.approx(0.8591, abs=5e-4)
    # the continuous coefficient is the limit of ever smaller units
    exact = unitized_alpha(raters, files_duration={"f": 300.0})
    errors = [abs(unitized_alpha(raters, files_duration={"f": 300.0}, frame_size=u) - exact) for u in (1.0, 0.01)]
    assert errors[1] < errors[0] / 50


@pytest.mark.parametrize(
    "category, x, y, observed, expected, alpha",
    [
        # Krippendorff (1995), Sociological Methodology 25, p. 57, examples A-D (continuum of 24);
        # expected disagreements and alphas are the continuous limits as DKPro Statistics
        # reproduces them (its Krippendorff1995Test: D_e to 0.005, alpha to 0.02, noting
        # an error in the published D_e)
        ("A", [(2, 8), (14, 6)], [(4, 4), (15, 2)], 0.03125, 0.06990, 0.553),
        ("B", [(0, 18)], [(0, 2), (2, 1), (3, 1), (4, 1), (5, 1), (6, 3), (9, 1)], 2.26736, 1.17731, -0.926),
        ("C", [(2, 6), (10, 2), (14, 4), (20, 2)], [(0, 2), (4, 4), (10, 4), (16, 2), (20, 2)], 0.02777, 0.08642, 0.679),
        ("D", [(0, 2), (2, 8), (10, 4), (14, 6), (20, 4)], [(0, 4), (4, 4), (8, 7), (15, 2), (17, 7)], 0.38715, 0.41445, 0.066),
    ],
)
def test_unitized_alpha_krippendorff_1995_examples(category, x, y, observed, expected, alpha):
    raters = {
        "x": series([("f", float(o), float(o + n), category) for o, n in x]),
        "y": series([("f", float(o), float(o + n), category) for o, n in y]),
    }
    ratings = check_ratings(raters, files_duration={"f": 24.0})
    d_o, d_e = unitizing_disagreement(ratings, None, False)
    assert d_o[0, 0] == pytest.approx(observed, abs=1e-5)
    assert d_e[0, 0] == pytest.approx(expected, abs=5e-3)
    assert unitized_alpha(raters, files_duration={"f": 24.0}) == pytest.approx(alpha, abs=2e-2)


def test_unitized_alpha_hand_computed_and_per_file():
    raters = {
        "r1": rater([1.0, 5.0], [3.0, 8.0], ["a", "a"]),
        "r2": rater([1.0, 5.0], [3.0, 7.0], ["a", "a"]),
    }
    # D_o = 2 * 1 / (2 * 1 * 10^2); D_e = (2 / 10) * 114 / 379 (see the docstring example)
    expected = 1 - 0.01 / (0.2 * 114 / 379)
    assert unitized_alpha(raters, files_duration={"f": 10.0}) == pytest.approx(expected, abs=1e-12)
    # a second, identical file: per file the same; one continuum of 20 s differs
    both = {r: pd.concat([s, s.rename(index={"f": "g"}, level="file")]) for r, s in raters.items()}
    per_file = unitized_alpha(both, files_duration={"f": 10.0, "g": 10.0}, per_file=True)
    np.testing.assert_allclose(per_file.to_numpy(), [expected, expected], atol=1e-12)
    # touching units of one rater are two units; overlapping rows merge
    split = {"r1": rater([0.0, 1.0], [1.0, 2.0], ["a", "a"]), "r2": rater([0.0], [2.0], ["a"])}
    assert unitized_alpha(split, files_duration={"f": 4.0}) < 1.0
    merged = {"r1": rater([0.0, 0.5], [1.5, 2.0], ["a", "a"]), "r2": rater([0.0], [2.0], ["a"])}
    assert unitized_alpha(merged, files_duration={"f": 4.0}) == pytest.approx(1.0)


# -------------------------------------------------------------------------
# Errors
# -------------------------------------------------------------------------


def test_errors_name_the_rater_and_option():
    good = rater([0.0], [1.0], ["a"])
    with pytest.raises(ValueError, match="at least two raters"):
        krippendorff_alpha({"r1": good})
    with pytest.raises(TypeError, match="mapping rater"):
        krippendorff_alpha([good, good])
    bad = pd.Series([None], index=audformat.segmented_index(["f"], [0.0], [1.0]))
    with pytest.raises(ValueError, match=r"annotations\['r2'\] has missing"):
        krippendorff_alpha({"r1": good, "r2": bad})
    with pytest.raises(ValueError, match="unrated"):
        krippendorff_alpha({"r1": good, "r2": good}, unrated="skip")
    with pytest.raises(ValueError, match="frame_size"):
        krippendorff_alpha({"r1": good, "r2": good}, frame_size=0.0)
    with pytest.raises(ValueError, match="average"):
        krippendorff_alpha({"r1": good, "r2": good}, per_label=True, average="weighted")
    with pytest.raises(ValueError, match="needs per_label=True"):
        krippendorff_alpha({"r1": good, "r2": good}, average="none")
    with pytest.raises(ValueError, match="two raters"):
        cohen_kappa({"r1": good, "r2": good, "r3": good})


def test_matrix_per_file_from_statistics_tables():
    from audeval._events import event_fscore

    raters = {
        "r1": series([("f", 0.0, 1.0, "a"), ("g", 0.0, 1.0, "a")]),
        "r2": series([("f", 0.0, 1.0, "a"), ("g", 5.0, 6.0, "a")]),
    }
    per_file = agreement_matrix(raters, metric=event_fscore, per_file=True)
    assert per_file.loc[("f", "r1"), "r2"] == 1.0
    assert per_file.loc[("g", "r2"), "r1"] == 0.0
    assert np.isnan(per_file.loc[("g", "r1"), "r1"])


def test_frames_categorical_and_empty():
    s = pd.Series(
        pd.Categorical(["b", "a"], categories=["b", "a", "c"]),
        index=audformat.segmented_index(["f", "f"], [0.0, 1.0], [1.0, 2.0]),
    )
    raters = {"r1": s, "r2": s.iloc[:1]}
    # on 0.3 s frames the frame [0.9, 1.2) holds b and a for r1 (labels in category order)
    spans = disagreements(raters, frame_size=0.3)
    assert spans["r1"].tolist() == ["b + a", "a"]
    assert spans["r2"].tolist() == ["b", "<no label>"]
    assert spans.index.get_level_values("start").total_seconds().tolist() == [0.9, 1.2]
    result = consensus({"r1": s, "r2": s})
    assert isinstance(result.dtype, pd.CategoricalDtype)
    assert list(result.cat.categories) == ["b", "a", "c"]
    empty = series([])
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(krippendorff_alpha({"r1": empty, "r2": empty}))
    assert len(consensus({"r1": empty, "r2": empty})) == 0
    assert len(disagreements({"r1": empty, "r2": empty})) == 0


def test_fill_missing_rows_get_the_file_totals():
    from audeval._agreement import fill_missing

    # 2 files x 2 categories; the second file lacks its second row
    storage = {
        "total": np.array([5, 5, 7, 0]),
        "pairable": np.array([10, 10, 14, 0]),
        "values": np.array([3, 7, 14, 0]),
    }
    present = np.array([True, True, True, False])
    fill_missing(storage, present, (2, 2))
    assert storage["total"].tolist() == [5, 5, 7, 7]
    assert storage["pairable"].tolist() == [10, 10, 14, 14]
    assert storage["values"].tolist() == [3, 7, 14, 0]
