"""Score-based SED: hand cases, input checks, table path and additivity."""

import numpy as np
import pandas as pd
import pytest

from audeval._sed_scores import (
    average_precision,
    best_fscore,
    fscore_at,
    precision_recall_curve,
    psd_roc,
    psds,
    score_statistics,
)
from audeval._sed_scores.deltas import nearest_smaller, nodes, run_changes
from audeval._sed_scores.statistics import accumulate


def _index(files, starts, ends):
    return pd.MultiIndex.from_arrays(
        [list(files), pd.to_timedelta(starts, unit="s"), pd.to_timedelta(ends, unit="s")],
        names=["file", "start", "end"],
    )


def events(rows):
    files, starts, ends, labels = zip(*rows) if rows else ([], [], [], [])
    return pd.Series(list(labels), index=_index(files, starts, ends), dtype=object)


def frames(file, columns, hop=1.0):
    n = len(next(iter(columns.values())))
    starts = np.arange(n) * hop
    return pd.DataFrame(columns, index=_index([file] * n, starts, starts + hop))


def curve(table, label):
    acc = accumulate(table)
    i = acc.labels.index(label)
    rows = acc.rows(i)
    return {k: acc.counts[k][rows].tolist() for k in ("tp", "fp")}, acc.threshold[rows].tolist()


# ---------------------------------------------------------------------------
# Engine
# ---------------------------------------------------------------------------


def test_nearest_smaller_brute_force():
    rng = np.random.default_rng(0)
    values = np.round(rng.random(300), 1)
    new = np.zeros(300, dtype=bool)
    new[[0, 50, 51, 200]] = True
    got = nearest_smaller(values, new)
    got_equal = nearest_smaller(values, new, strict=False)
    starts = np.maximum.accumulate(np.where(new, np.arange(300), 0))
    for k in range(300):
        lt = [j for j in range(starts[k], k) if values[j] < values[k]]
        le = [j for j in range(starts[k], k) if values[j] <= values[k]]
        assert got[k] == (lt[-1] if lt else 300)
        assert got_equal[k] == (le[-1] if le else 300)


def test_nodes_are_runs_at_every_threshold():
    rng = np.random.default_rng(1)
    scores = np.round(rng.random((40, 2)), 1)
    file = np.repeat([0, 1], 20)
    from audeval._sed_scores.deltas import flatten

    found = nodes(*flatten(scores, file, 2, np.ones(4, dtype=bool)))
    for theta in np.unique(scores):
        for label in range(2):
            for f in range(2):
                group = label * 2 + f
                alive = (found.group == group) & (found.birth >= theta) & (found.death < theta)
                got = sorted(zip(found.first[alive], found.last[alive]))
                active = scores[file == f, label] >= theta
                runs, k = [], 0
                while k < 20:
                    if active[k]:
                        j = k
                        while j + 1 < 20 and active[j + 1]:
                            j += 1
                        runs.append((f * 20 + k, f * 20 + j))
                        k = j + 1
                    else:
                        k += 1
                assert got == runs

                # the telescoped changes of the number of runs add up to it
                g, level, change = run_changes(scores, file, 2)
                assert change[(g == group) & (level >= theta)].sum() == len(runs)


def test_node_parents():
    rng = np.random.default_rng(2)
    scores = np.round(rng.random((60, 2)), 1)  # many ties
    file = np.repeat([0, 1, 2], 20)
    from audeval._sed_scores.deltas import flatten

    found = nodes(*flatten(scores, file, 3, np.ones(6, dtype=bool)))
    dies = found.death > -np.inf
    assert ((found.parent >= 0) == dies).all()
    parent = found.parent[dies]
    # a dying run merges into the smallest longer run of its group that holds it, born at its death
    assert (found.birth[parent] == found.death[dies]).all()
    assert (found.group[parent] == found.group[dies]).all()
    assert (found.first[parent] <= found.first[dies]).all()
    assert (found.last[parent] >= found.last[dies]).all()
    assert ((found.last - found.first)[parent] > (found.last - found.first)[dies]).all()


def test_run_changes_only_at_extrema():
    # one file, rising 0.1 -> 0.4, plateau, falling, rising again: +1 at the two tops, -1 at the trough
    scores = np.array([[0.1], [0.2], [0.4], [0.4], [0.3], [0.2], [0.5]])
    group, level, change = run_changes(scores, np.zeros(7, dtype=np.int64), 1)
    got = sorted(zip(level.tolist(), change.tolist()))
    assert got == [(0.2, -1), (0.4, 1), (0.5, 1)]
    # a file's first frame above its neighbour counts +1 at its score; files do not see each other
    scores = np.array([[0.9], [0.1], [0.3], [0.2]])
    group, level, change = run_changes(scores, np.array([0, 0, 1, 1]), 2)
    got = sorted(zip(group.tolist(), level.tolist(), change.tolist()))
    assert got == [(0, 0.9, 1), (1, 0.3, 1)]


# ---------------------------------------------------------------------------
# Hand cases
# ---------------------------------------------------------------------------


def test_hand_intersection_curve():
    truth = events([("f", 0.0, 2.0, "a")])
    scores = frames("f", {"a": [0.9, 0.6, 0.3, 0.1]})
    counts, thresholds = curve(score_statistics(truth, scores), "a")
    # >= 0.9: [0, 1) relevant, covers half the event; >= 0.6: [0, 2) detects it;
    # >= 0.3: [0, 3) has 2/3 < 0.7 inside truth: a false positive; >= 0.1: the same
    assert thresholds == [np.inf, 0.6, 0.3]
    assert counts == {"tp": [0, 1, 0], "fp": [0, 0, 1]}


def test_score_ties_make_one_detection():
    truth = events([("f", 0.0, 3.0, "a")])
    scores = frames("f", {"a": [0.5, 0.5, 0.5, 0.2]})
    counts, thresholds = curve(score_statistics(truth, scores), "a")
    # >= 0.2: [0, 4) is 3/4 inside the truth, still relevant: no change
    assert thresholds == [np.inf, 0.5]
    assert counts == {"tp": [0, 1], "fp": [0, 0]}


def test_threshold_exactly_at_a_score_is_not_active():
    truth = events([("f", 0.0, 2.0, "a")])
    scores = frames("f", {"a": [0.9, 0.6, 0.3, 0.1]})
    at = fscore_at(truth, scores, threshold=0.6)
    assert at.loc["a", "recall"] == 0.0  # only the 0.9 frame is above 0.6
    below = fscore_at(truth, scores, threshold=0.5999)
    assert below.loc["a", "fscore"] == 1.0


def test_file_without_truth_and_class_never_active():
    truth = events([("f", 0.0, 2.0, "a")])
    scores = pd.concat([
        frames("f", {"a": [0.9, 0.8, 0.1], "b": [0.2, 0.2, 0.2]}),
        frames("g", {"a": [0.1, 0.7, 0.1], "b": [0.0, 0.0, 0.0]}),
    ])
    table = score_statistics(truth, scores)
    counts, thresholds = curve(table, "a")
    # >= 0.9 covers half the event (no change); >= 0.7 adds a false detection in g;
    # >= 0.1: [0, 3) in f is 2/3 inside the truth (false), g's run grows (still one)
    assert thresholds == [np.inf, 0.8, 0.7, 0.1]
    assert counts == {"tp": [0, 1, 1, 0], "fp": [0, 0, 1, 2]}
    counts_b, _ = curve(table, "b")
    assert counts_b["tp"] == [0, 0, 0]
    assert counts_b["fp"] == [0, 1, 2]
    pr = precision_recall_curve(truth, scores)
    assert (pr.loc["b", "recall"] == 1.0).all()  # no truth: recall 1 (sed_scores_eval)
    assert table.xs(np.inf, level="threshold")["duration"].tolist() == [3e9] * 4


def test_touching_truth_events_are_separate():
    truth = events([("f", 0.0, 1.0, "a"), ("f", 1.0, 2.0, "a")])
    scores = frames("f", {"a": [0.9, 0.9, 0.1]})
    counts, _ = curve(score_statistics(truth, scores), "a")
    assert counts["tp"] == [0, 2, 0]


def test_cross_triggers():
    truth = events([("f", 0.0, 2.0, "b")])
    scores = frames("f", {"a": [0.9, 0.9, 0.1], "b": [0.0, 0.0, 0.0]})
    table = score_statistics(truth, scores, cttc_threshold=0.3)
    acc = accumulate(table)
    rows = acc.rows(acc.labels.index("a"))
    # >= 0.9: [0, 2) lies on b's truth; >= 0.1: [0, 3) is 2/3 on it, still a cross trigger
    assert acc.threshold[rows].tolist() == [np.inf, 0.9]
    assert acc.counts["ct_b"][rows].tolist() == [0, 1]
    assert acc.counts["fp"][rows].tolist() == [0, 1]


def _runs(values, starts, ends, theta):
    """Maximal runs of frames with score >= theta, as (start, end) ns."""
    runs, k = [], 0
    while k < len(values):
        if values[k] >= theta:
            j = k
            while j + 1 < len(values) and values[j + 1] >= theta:
                j += 1
            runs.append((starts[k], ends[j]))
            k = j + 1
        else:
            k += 1
    return runs


def _brute_intersection(truth_rows, columns, files, labels, theta, criteria, decimals):
    """tp, fp and ct per label at one threshold, from the definitions (loops, small data)."""
    from audeval._sed_scores.intersection import meets

    dtc, gtc, cttc = criteria

    def share(amount, ratio, length):
        return bool(meets(np.array([amount]), ratio, np.array([length]), decimals)[0])

    def inter(a, b, events):
        return sum(max(0, min(b, y) - max(a, x)) for x, y in events)

    out = {c: {"tp": 0, "fp": 0, **{f"ct_{o}": 0 for o in labels}} for c in labels}
    for f in files:
        truth_of = {o: [(x, y) for ff, x, y, cc in truth_rows if ff == f and cc == o] for o in labels}
        for c in labels:
            relevant = []
            for a, b in _runs(*columns[f, c], theta):
                if share(inter(a, b, truth_of[c]), dtc, b - a):
                    relevant.append((a, b))
                    continue
                out[c]["fp"] += 1
                for o in labels:
                    if o != c and truth_of[o] and cttc is not None:
                        out[c][f"ct_{o}"] += share(inter(a, b, truth_of[o]), cttc, b - a)
            for x, y in truth_of[c]:
                out[c]["tp"] += share(inter(x, y, relevant), gtc, y - x)
    return out


@pytest.mark.parametrize(
    "seed, criteria, compat",
    [(0, (0.7, 0.7, 0.3), None), (1, (0.1, 0.1, 0.3), "sed_scores_eval"), (2, (0.0, 0.5, 0.0), None),
     (3, (1.0, 1.0, 0.5), "sed_scores_eval"), (4, (0.5, 0.3, None), None)],
)
def test_intersection_brute_force(seed, criteria, compat):
    # every count at every threshold, against the definitions run by brute force
    rng = np.random.default_rng(seed)
    labels, files, hop = ["a", "b", "c"], ["f0", "f1", "f2"], 0.25
    truth_rows, parts, columns = [], [], {}
    for f in files:
        for c in labels:
            t = rng.uniform(0, 1)
            while t < 6.5 and rng.random() < 0.8:
                end = min(t + rng.uniform(0.1, 2.0), 7.5)
                truth_rows.append((f, int(round(t * 1e9)), int(round(end * 1e9)), c))
                t = end + rng.uniform(0.2, 2.0)
        values = {c: np.round(rng.random(30), 1) for c in labels}  # ties and plateaus
        parts.append(frames(f, values, hop=hop))
        starts = (np.arange(30) * hop * 1e9).astype(np.int64)
        for c in labels:
            columns[f, c] = (values[c], starts, starts + int(hop * 1e9))
    truth = pd.Series(
        [r[3] for r in truth_rows],
        index=pd.MultiIndex.from_arrays(
            [[r[0] for r in truth_rows], pd.to_timedelta([r[1] for r in truth_rows]),
             pd.to_timedelta([r[2] for r in truth_rows])], names=["file", "start", "end"]),
    )
    dtc, gtc, cttc = criteria
    table = score_statistics(truth, pd.concat(parts), dtc_threshold=dtc, gtc_threshold=gtc,
                             cttc_threshold=cttc, compat=compat)
    acc = accumulate(table)
    for theta in np.unique(np.concatenate([v for v, _, _ in columns.values()])):
        expected = _brute_intersection(truth_rows, columns, files, labels, theta, criteria,
                                       6 if compat else None)
        for i, c in enumerate(acc.labels):
            rows = acc.rows(i)
            at = rows.start + int(np.flatnonzero(acc.threshold[rows] >= theta)[-1])
            for name, value in expected[c].items():
                if name in acc.counts:
                    assert acc.counts[name][at] == value, (theta, c, name)
            assert (cttc is None) == ("ct_a" not in acc.counts)


def test_best_fscore_constraints_and_ap():
    truth = events([("f", 0.0, 1.0, "a"), ("f", 3.0, 4.0, "a")])
    scores = frames("f", {"a": [0.9, 0.1, 0.8, 0.4, 0.1]})
    # >= 0.9: tp 1, fp 0 (F 2/3); >= 0.8 and >= 0.4: tp 1, fp 1 (F 1/2);
    # >= 0.1: one detection [0, 5), 2/5 inside the truth: tp 0, fp 1
    best = best_fscore(truth, scores)
    assert best.loc["a", "fscore"] == pytest.approx(2 / 3)
    assert best.loc["a", "threshold"] == pytest.approx(0.85)
    assert fscore_at(truth, scores, threshold=0.85).loc["a", "fscore"] == pytest.approx(2 / 3)
    constrained = best_fscore(truth, scores, min_recall=1.0)  # never reached
    assert constrained.loc["a", "fscore"] == 0.0
    assert constrained.loc["a", "threshold"] == np.inf
    # PR points (r, p): (0, 1), (0.5, 1), (0.5, 0.5), (0.5, 0.5), (0, 0)
    assert average_precision(truth, scores) == pytest.approx(0.5)


def test_psds_perfect_and_empty():
    truth = events([("f", 0.0, 2.0, "a")])
    scores = frames("f", {"a": [0.9, 0.8, 0.1, 0.1]})
    assert psds(truth, scores) == 1.0
    silent = frames("f", {"a": [0.0, 0.0, 0.0, 0.0]})
    assert psds(truth, silent) == 0.0


# ---------------------------------------------------------------------------
# Input checks
# ---------------------------------------------------------------------------


def test_errors_name_argument_and_rows():
    truth = events([("f", 0.0, 2.0, "a")])
    gap = pd.DataFrame({"a": [0.1, 0.2]}, index=_index(["f", "f"], [0.0, 1.5], [1.0, 2.5]))
    with pytest.raises(ValueError, match="scores must hold consecutive"):
        score_statistics(truth, gap)
    nan = frames("f", {"a": [0.1, np.nan]})
    with pytest.raises(ValueError, match="not finite"):
        score_statistics(truth, nan)
    with pytest.raises(ValueError, match="labels \\['x'\\] that are not classes"):
        score_statistics(events([("f", 0.0, 1.0, "x")]), frames("f", {"a": [0.1, 0.2]}))
    with pytest.raises(ValueError, match="no frames for truth files \\['g'\\]"):
        score_statistics(events([("g", 0.0, 1.0, "a")]), frames("f", {"a": [0.1, 0.2]}))
    with pytest.raises(ValueError, match="overlapping events of one class"):
        score_statistics(
            events([("f", 0.0, 1.5, "a"), ("f", 1.0, 2.0, "a")]), frames("f", {"a": [0.1, 0.2]})
        )
    with pytest.raises(TypeError, match="scores must be a pandas.DataFrame"):
        score_statistics(truth, truth)
    with pytest.raises(ValueError, match="criterion must be one of"):
        score_statistics(truth, frames("f", {"a": [0.1, 0.2]}), criterion="x")
    with pytest.raises(ValueError, match="dtc_threshold must be in"):
        psds(truth, frames("f", {"a": [0.1, 0.2]}), dtc_threshold=1.5)


# ---------------------------------------------------------------------------
# Table path, shards, invariance
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def random_data():
    rng = np.random.default_rng(5)
    parts, rows = [], []
    for f in range(6):
        n = int(rng.integers(20, 60))
        walk = np.cumsum(rng.normal(0, 0.3, (n, 3)), axis=0)
        parts.append(frames(f"f{f}", {c: 1 / (1 + np.exp(-walk[:, i])) for i, c in enumerate("abc")},
                            hop=0.25))
        for c in "abc":
            t = rng.uniform(0, 1)
            while t + 1 < n * 0.25:
                length = rng.uniform(0.2, 2)
                rows.append((f"f{f}", round(t, 2), round(min(t + length, n * 0.25), 2), c))
                t += length + rng.uniform(0.1, 3)
    return events(rows), pd.concat(parts)


def test_table_path_gives_the_same_numbers(random_data):
    truth, scores = random_data
    table = score_statistics(truth, scores, dtc_threshold=0.5, gtc_threshold=0.5, cttc_threshold=0.3)
    options = dict(dtc_threshold=0.5, gtc_threshold=0.5, cttc_threshold=0.3, alpha_ct=0.5)
    assert psds(table, None, **options) == psds(truth, scores, **options)
    assert psds(table, None, alpha_ct=0.5) == psds(truth, scores, **options)
    pd.testing.assert_frame_equal(
        best_fscore(table, None), best_fscore(truth, scores, dtc_threshold=0.5, gtc_threshold=0.5)
    )
    with pytest.raises(ValueError, match="was made with dtc_threshold=0.5"):
        psds(table, None, dtc_threshold=0.7)


def test_shards_add_up(random_data):
    truth, scores = random_data
    files = sorted(set(scores.index.get_level_values("file")))
    shards = []
    for part in (files[:2], files[2:5], files[5:]):
        s = scores[scores.index.get_level_values("file").isin(part)]
        t = truth[truth.index.get_level_values("file").isin(part)]
        shards.append(score_statistics(t, s, cttc_threshold=0.3, labels=["a", "b", "c"]))
    summed = pd.concat(shards)
    summed.attrs = shards[0].attrs
    whole = score_statistics(truth, scores, cttc_threshold=0.3, labels=["a", "b", "c"])
    assert psds(summed, None, alpha_ct=1.0) == psds(whole, None, alpha_ct=1.0)
    pd.testing.assert_frame_equal(
        precision_recall_curve(summed, None), precision_recall_curve(whole, None)
    )
    pd.testing.assert_frame_equal(summed.sort_index(), whole.sort_index(), check_index_type=False)


def test_row_order_and_label_renaming(random_data):
    truth, scores = random_data
    expected = psds(truth, scores, dtc_threshold=0.5, gtc_threshold=0.5)
    shuffled = scores.sample(frac=1.0, random_state=3)
    assert psds(truth.sample(frac=1.0, random_state=4), shuffled,
                dtc_threshold=0.5, gtc_threshold=0.5) == expected
    renamed = {"a": "x", "b": "y", "c": "z"}
    got = psds(truth.map(renamed), scores.rename(columns=renamed),
               dtc_threshold=0.5, gtc_threshold=0.5)
    assert got == pytest.approx(expected, abs=1e-15)


def test_psd_roc_per_class(random_data):
    truth, scores = random_data
    per_class = psd_roc(truth, scores, per_class=True)
    assert list(per_class.columns) == ["label", "efpr", "tpr", "threshold"]
    for _, part in per_class.groupby("label"):
        assert (np.diff(part["efpr"]) > 0).all()
        assert (np.diff(part["tpr"]) > 0).all()


# ---------------------------------------------------------------------------
# scores_to_events
# ---------------------------------------------------------------------------


def test_scores_to_events_median_filter_is_scipy(random_data):
    from scipy.ndimage import median_filter

    from audeval._sed_scores import scores_to_events

    _, scores = random_data
    events = scores_to_events(scores, threshold={"a": 0.5, "b": 0.6, "c": 0.4}, median_filter=1.2)
    # 1.2 s at 0.25 s frames: 5 frames
    for file, part in scores.groupby(level="file"):
        for c, th in (("a", 0.5), ("b", 0.6), ("c", 0.4)):
            active = median_filter((part[c].to_numpy() > th).astype(int), size=5, mode="reflect")
            mine = np.zeros(len(part), dtype=int)
            got = events[(events == c).to_numpy() & (events.index.get_level_values("file") == file)]
            for start, end in zip(got.index.get_level_values("start"), got.index.get_level_values("end")):
                mine[int(start.total_seconds() / 0.25) : int(end.total_seconds() / 0.25)] = 1
            np.testing.assert_array_equal(mine, active)


def test_scores_to_events_agrees_with_fscore_at(random_data):
    from audeval._sed_scores import scores_to_events

    truth, scores = random_data
    for threshold in (0.3, 0.5, 0.8):
        events = scores_to_events(scores, threshold=threshold)
        from_events = accumulate(score_statistics(truth, {threshold: events}))
        from_scores = fscore_at(truth, scores, threshold=threshold)
        for i, label in enumerate(from_events.labels):
            rows = from_events.rows(i)
            tp, fp = from_events.counts["tp"][rows][-1], from_events.counts["fp"][rows][-1]
            n_truth = from_events.totals["n_truth"][i]
            recall = tp / n_truth
            precision = tp / (tp + fp) if tp + fp else 1.0
            assert from_scores.loc[label, "recall"] == pytest.approx(recall, abs=1e-15)
            assert from_scores.loc[label, "precision"] == pytest.approx(precision, abs=1e-15)


# ---------------------------------------------------------------------------
# Generic layers (the family registered as the lead will register it)
# ---------------------------------------------------------------------------


@pytest.fixture
def registered(monkeypatch):
    from audeval._generic import registry as _registry
    from audeval._sed_scores.family import FAMILY

    monkeypatch.setitem(_registry.FAMILIES, "score", FAMILY)
    for function in (*FAMILY.metrics, FAMILY.statistics):
        monkeypatch.setitem(_registry._BY_METRIC, function, FAMILY)
    return FAMILY


def _split(truth, scores, parts):
    for part in parts:
        yield (
            truth[truth.index.get_level_values("file").isin(part)],
            scores[scores.index.get_level_values("file").isin(part)],
        )


def test_sum_accumulator_bootstrap(registered, random_data):
    import audeval

    truth, scores = random_data
    files = sorted(set(scores.index.get_level_values("file")))
    parts = [files[:2], files[2:3], files[3:]]
    options = dict(dtc_threshold=0.5, gtc_threshold=0.5, cttc_threshold=0.3, alpha_ct=0.5)
    direct = psds(truth, scores, **options)
    stats = options.copy()
    del stats["alpha_ct"]
    tables = [score_statistics(t, s, labels=["a", "b", "c"], **stats) for t, s in _split(truth, scores, parts)]
    summed = audeval.sum_statistics(tables)
    assert psds(summed, None, alpha_ct=0.5) == direct
    accumulator = audeval.Accumulator(psds, labels=["a", "b", "c"], **options)
    for t, s in _split(truth, scores, parts):
        accumulator.update(t, s)
    assert accumulator.compute() == direct
    result = audeval.bootstrap(psds, truth, scores, n_boot=20, seed=1, **options)
    assert result.value == direct
    assert result.low <= direct <= result.high
    auc = audeval.bootstrap(auroc_fn(), truth, scores, n_boot=10, seed=1, max_fpr=0.2)
    assert auc.value == auroc_fn()(truth, scores, max_fpr=0.2)


def auroc_fn():
    from audeval._sed_scores import auroc

    return auroc


# ---------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------


def test_read_sed_scores_round_trip(tmp_path, random_data):
    from audeval._sed_scores import read_sed_scores

    _, scores = random_data
    for file, part in scores.groupby(level="file"):
        frame = pd.DataFrame({
            "onset": part.index.get_level_values("start").total_seconds(),
            "offset": part.index.get_level_values("end").total_seconds(),
            **{c: part[c].to_numpy() for c in part.columns},
        })
        frame.to_csv(tmp_path / f"{file}.tsv", sep="\t", index=False, float_format="%.17g")
    read = read_sed_scores(tmp_path)
    pd.testing.assert_frame_equal(read, scores.sort_index(), check_index_type=False)
    (tmp_path / "bad.tsv").write_text("start\tend\ta\n0\t1\t0.5\n")
    with pytest.raises(ValueError, match="first columns must be 'onset' and 'offset'"):
        read_sed_scores(tmp_path)


def test_read_operating_points(tmp_path):
    from audeval._sed_scores import read_operating_points

    for threshold in (0.1, 0.5):
        (tmp_path / f"predictions_th_{threshold}.tsv").write_text(
            "filename\tonset\toffset\tevent_label\nf.wav\t0.0\t1.0\ta\n"
        )
    ops = read_operating_points(tmp_path)
    assert sorted(ops) == [0.1, 0.5]
    truth = events([("f.wav", 0.0, 1.0, "a")])
    assert psds(truth, ops, max_efpr=10.0) == 1.0
    (tmp_path / "notes.tsv").write_text("x")
    with pytest.raises(ValueError, match="holds no threshold"):
        read_operating_points(tmp_path)


def test_labels_select_classes():
    truth = events([("f", 0.0, 2.0, "a"), ("f", 2.0, 3.0, "b")])
    scores = frames("f", {"a": [0.9, 0.8, 0.1, 0.1], "b": [0.1, 0.1, 0.9, 0.1]})
    only_a = psd_roc(truth, scores, labels=["a"], per_class=True)
    assert set(only_a["label"]) == {"a"}
    both = psd_roc(truth, scores, per_class=True)
    pd.testing.assert_frame_equal(only_a, both[both["label"] == "a"].reset_index(drop=True))
    with pytest.raises(ValueError, match="labels \\['x'\\] are not columns"):
        psds(truth, scores, labels=["x"])


def test_no_files_gives_an_empty_table(registered):
    from audeval._generic.registry import empty_statistics

    table = empty_statistics(registered, ["a", "b"], {})
    assert len(table) == 0
    assert {"tp", "fp", "n_truth"} <= set(table.columns)
    assert psds(table, None) == 0.0


def _brute_collar(truth_rows, values, hop, theta, onset, offset, rate):
    """Maximum matching of the runs with score >= theta (one file, one class)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    active = np.r_[False, values >= theta, False]
    starts = np.flatnonzero(~active[:-1] & active[1:])
    ends = np.flatnonzero(active[:-1] & ~active[1:])
    runs = [(s * hop, e * hop) for s, e in zip(starts, ends)]
    edges = [(i, j) for i, (s, e) in enumerate(runs) for j, (ts, te) in enumerate(truth_rows)
             if abs(s - ts) <= onset + 1e-9 and abs(e - te) <= max(offset, rate * (te - ts)) + 1e-9]
    if not edges:
        return 0, len(runs)
    rows, cols = zip(*edges)
    graph = csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(len(runs), len(truth_rows)))
    tp = int((maximum_bipartite_matching(graph, perm_type="column") >= 0).sum())
    return tp, len(runs) - tp


@pytest.mark.parametrize("seed", range(4))
def test_collar_conflicts_brute_force(seed):
    rng = np.random.default_rng(seed)
    hop = 0.05
    values = np.round(rng.random(80), 1)  # ties, many short runs
    truth_rows, t = [], 0.1
    while t < 3.8:
        length = rng.choice([0.05, 0.1, 0.15, 0.3])
        truth_rows.append((round(t, 2), round(t + length, 2)))
        t += length + rng.choice([0.05, 0.1, 0.2])
    truth = events([("f", s, e, "a") for s, e in truth_rows])
    scores = frames("f", {"a": values}, hop=hop)
    table = score_statistics(truth, scores, criterion="collar", onset_tolerance=0.1,
                             offset_tolerance=0.1, duration_tolerance=0.5)
    counts, thresholds = curve(table, "a")
    for theta in np.unique(values):
        k = int(np.searchsorted(-np.asarray(thresholds), -theta, side="right")) - 1
        assert (counts["tp"][k], counts["fp"][k]) == _brute_collar(
            truth_rows, values, hop, theta, 0.1, 0.1, 0.5
        )


def test_sum_statistics_keeps_the_threshold_order(random_data):
    """Summed score tables keep their rows from +inf down (issue 33, item 10)."""
    import audeval

    truth, scores = random_data
    options = dict(labels=["a", "b", "c"], cttc_threshold=0.3)
    whole = score_statistics(truth, scores, **options)
    pd.testing.assert_frame_equal(audeval.sum_statistics([whole]), whole)
    files = sorted(set(scores.index.get_level_values("file")))
    shards = [score_statistics(t, s, **options) for t, s in _split(truth, scores, [files[:2], files[2:]])]
    summed = audeval.sum_statistics(shards)
    pd.testing.assert_frame_equal(summed, whole)
    # a cumulative sum over the rows of a (file, label) gives the counts at "score >= threshold"
    counts = summed.groupby(level=["file", "label"], observed=True)[["tp", "fp"]].cumsum()
    expected = whole.groupby(level=["file", "label"], observed=True)[["tp", "fp"]].cumsum()
    pd.testing.assert_frame_equal(counts, expected)
    first = summed.groupby(level=["file", "label"], observed=True).head(1)
    assert (first.index.get_level_values("threshold") == np.inf).all()
    assert (counts.to_numpy() >= 0).all()


def test_read_operating_points_empty_directory(tmp_path):
    """An empty folder is an error naming it, not ``{}`` (issue 33, item 15)."""
    from audeval._sed_scores import read_operating_points

    with pytest.raises(ValueError, match=f"directory {tmp_path} holds no operating points"):
        read_operating_points(tmp_path)
    with pytest.raises(ValueError, match="paths is empty"):
        read_operating_points([])


def test_scores_without_suffix_hint_at_suffix(tmp_path):
    """Score files named by audio id and truth by file name: the error names suffix= (item 15)."""
    from audeval._sed_scores import read_sed_scores

    for name in ("a", "b"):
        (tmp_path / f"{name}.tsv").write_text("onset\toffset\tdog\n0.0\t0.5\t0.9\n0.5\t1.0\t0.2\n")
    truth = events([("a.wav", 0.0, 0.5, "dog"), ("b.wav", 0.0, 0.5, "dog")])
    with pytest.raises(ValueError) as info:
        psds(truth, read_sed_scores(tmp_path))
    message = str(info.value)
    assert "no frames for truth files ['a.wav', 'b.wav']" in message
    assert "names its files like ['a', 'b']" in message
    assert "read_sed_scores(path, suffix='.wav')" in message
    assert psds(truth, read_sed_scores(tmp_path, suffix=".wav"), max_efpr=1000.0) == 1.0


def test_scores_to_events_unknown_class():
    """A threshold for a class the scores lack is an error naming it (issue 33, item 14)."""
    from audeval._sed_scores import scores_to_events

    scores = frames("f", {"a": [0.9, 0.1], "b": [0.2, 0.8]})
    with pytest.raises(ValueError, match=r"threshold names classes that scores lacks: \['zz'\]"):
        scores_to_events(scores, threshold={"a": 0.5, "b": 0.5, "zz": 0.1})
    assert len(scores_to_events(scores, threshold={"a": 0.5, "b": 0.5})) == 2


def test_read_sed_scores_one_parse_equals_pandas_per_file(tmp_path):
    """Files are parsed at once: CRLF, a BOM, blank lines and a missing last newline read as pandas."""
    from audeval._sed_scores import read_sed_scores

    texts = {
        "a": "onset\toffset\tdog\tcat\n0.0\t0.5\t0.9\t0.1\n0.5\t1.0\t0.2\t0.3\n",
        "b": "\ufeffonset\toffset\tdog\tcat\r\n0.0\t0.25\t0.4\t0.6\r\n\r\n0.25\t0.5\t1e-3\t1\r\n",
        "c": "onset\toffset\tdog\tcat\n0\t1\t0.5\t0.5",
        "d": "onset\toffset\tdog\tcat\n",
    }
    for name, text in texts.items():
        (tmp_path / f"{name}.tsv").write_bytes(text.encode())
    read = read_sed_scores(tmp_path, suffix=".wav")
    expected = []
    for name in sorted(texts):
        frame = pd.read_csv(tmp_path / f"{name}.tsv", sep="\t", encoding="utf-8-sig")
        expected += [(f"{name}.wav", *row) for row in frame.itertuples(index=False)]
    files, onset, offset, dog, cat = zip(*expected)
    assert read.index.get_level_values("file").tolist() == list(files)
    assert read.index.get_level_values("start").total_seconds().tolist() == list(onset)
    assert read.index.get_level_values("end").total_seconds().tolist() == list(offset)
    assert read["dog"].tolist() == list(dog) and read["cat"].tolist() == list(cat)
    (tmp_path / "e.tsv").write_text("onset\toffset\tdog\tcat\n0\t1\tx\t0.5\n")
    with pytest.raises(ValueError, match=r"e\.tsv: could not convert"):
        read_sed_scores(tmp_path)
    (tmp_path / "e.tsv").write_text("onset\toffset\tdog\tdog\n0\t1\t0.5\t0.5\n")
    with pytest.raises(ValueError, match=r"e\.tsv has the classes \['dog', 'dog'\]"):
        read_sed_scores(tmp_path)
