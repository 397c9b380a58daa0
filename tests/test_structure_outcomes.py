"""structure_outcomes: the partitions and boundary hits behind boundary_detection (issue 31 item 5)."""

from __future__ import annotations

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval


def series(files, starts, ends, labels):
    return pd.Series(labels, index=audformat.segmented_index(files, starts, ends))


def random_partitions(seed, n_files=3):
    rng = np.random.default_rng(seed)
    sides = []
    for names in (["A", "B", "C"], ["a", "B", "none"]):
        files, starts, ends, labels = [], [], [], []
        for k in range(n_files):
            cuts = np.sort(rng.choice(np.arange(11, 270), int(rng.integers(2, 9)), replace=False))
            bounds = np.concatenate([[int(rng.integers(0, 3)) * 5], cuts, [300 + int(rng.integers(-20, 21))]]) * 0.1
            for a, b in zip(bounds[:-1], bounds[1:]):
                if rng.random() < 0.1:
                    continue  # a gap
                files.append(f"f{k}")
                starts.append(a)
                ends.append(b)
                labels.append(rng.choice(names))
        sides.append(series(files, starts, ends, labels))
    return sides


def seconds(index, level="start"):
    return index.get_level_values(level).total_seconds().to_numpy()


CASES = [
    dict(window=0.5),
    dict(window=3.0, trim=True),
    dict(window=0.2, pad=False),
    dict(window=0.5, compat="mir_eval"),
    dict(window=1.0, compat="mir_eval", trim=True, pad=False),
]


@pytest.mark.parametrize("options", CASES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("seed", range(3))
def test_hits_are_boundary_detection(seed, options):
    truth, prediction = random_partitions(seed)
    out = audeval.structure_outcomes(truth, prediction, **options)
    for file in ("f0", "f1", "f2"):
        rows = out[out.index.get_level_values("file") == file]
        bounds = rows[(rows["kind"] == "boundary").to_numpy()]
        side, outcome = bounds["side"].to_numpy(), bounds["outcome"].to_numpy()
        n_t, n_p = int((side == "truth").sum()), int((side == "prediction").sum())
        hits_t = int(((side == "truth") & (outcome == "hit")).sum())
        hits_p = int(((side == "prediction") & (outcome == "hit")).sum())
        assert hits_t == hits_p
        assert set(outcome[side == "truth"]) <= {"hit", "miss"}
        assert set(outcome[side == "prediction"]) <= {"hit", "false_alarm"}
        one = {name: s[s.index.get_level_values("file") == file] for name, s in (("t", truth), ("p", prediction))}
        precision, recall, _ = audeval.boundary_detection(one["t"], one["p"], **options)
        assert recall == pytest.approx(hits_t / n_t if n_t and n_p else 0.0, abs=1e-12)
        assert precision == pytest.approx(hits_p / n_p if n_t and n_p else 0.0, abs=1e-12)
        # a hit's partner is a boundary of the other side at most `window` away
        t = bounds[(side == "truth") & (outcome == "hit")]
        partner = t["partner"].dt.total_seconds().to_numpy()
        assert np.all(np.abs(partner - seconds(t.index)) <= options["window"] + 1e-9)
        other = set(np.round(seconds(bounds[side == "prediction"].index), 9))
        assert set(np.round(partner, 9)) <= other
        assert bounds["partner"].isna().to_numpy().tolist() == (outcome != "hit").tolist()
        # segments and gaps tile [0, T) on both sides; boundaries have zero length
        assert (seconds(bounds.index) == seconds(bounds.index, "end")).all()
        T = seconds(rows[(rows["side"] == "truth").to_numpy() & (rows["kind"] != "boundary").to_numpy()].index, "end").max()
        for name in ("truth", "prediction"):
            tiles = rows[(rows["side"] == name).to_numpy() & (rows["kind"] != "boundary").to_numpy()]
            starts, ends = seconds(tiles.index), seconds(tiles.index, "end")
            assert starts[0] == 0.0 and ends[-1] == pytest.approx(T)
            np.testing.assert_allclose(starts[1:], ends[:-1])
            assert tiles.loc[(tiles["kind"] == "gap").to_numpy(), "label"].isna().all()
            assert tiles["outcome"].isna().all()


def test_hand_case():
    truth = series(["a", "a"], [2, 5], [4, 8], ["A", "B"])
    prediction = series(["a", "a"], [0, 4.3], [4.3, 9], ["A", "None"])
    out = audeval.structure_outcomes(truth, prediction, window=0.5)
    rows = list(
        zip(out["side"], out["kind"], out["label"], out["outcome"].astype(object), seconds(out.index), seconds(out.index, "end"))
    )
    nan = rows[0][3]
    assert pd.isna(nan)
    assert rows == [
        ("truth", "gap", None, nan, 0.0, 2.0),
        ("truth", "segment", "A", nan, 2.0, 4.0),
        ("truth", "gap", None, nan, 4.0, 5.0),
        ("truth", "segment", "B", nan, 5.0, 8.0),
        ("truth", "boundary", None, "hit", 0.0, 0.0),
        ("truth", "boundary", None, "miss", 2.0, 2.0),
        ("truth", "boundary", None, "hit", 4.0, 4.0),
        ("truth", "boundary", None, "miss", 5.0, 5.0),
        ("truth", "boundary", None, "hit", 8.0, 8.0),
        ("prediction", "segment", "A", nan, 0.0, 4.3),
        ("prediction", "segment", "None", nan, 4.3, 8.0),
        ("prediction", "boundary", None, "hit", 0.0, 0.0),
        ("prediction", "boundary", None, "hit", 4.3, 4.3),
        ("prediction", "boundary", None, "hit", 8.0, 8.0),
    ]
    assert out["partner"].dt.total_seconds().tolist()[4:9] == pytest.approx([0.0, np.nan, 4.3, np.nan, 8.0], nan_ok=True)
    # mir_eval: "None" lower-cased is its gap label; boundaries of rows and pads (not gaps)
    out = audeval.structure_outcomes(truth, prediction, window=0.5, compat="mir_eval")
    prediction_rows = out[(out["side"] == "prediction").to_numpy() & (out["kind"] != "boundary").to_numpy()]
    assert prediction_rows["kind"].tolist() == ["segment", "gap"]
    assert prediction_rows["label"].tolist() == ["a", None]


def test_compat_rounds_boundaries():
    # 9.999996 s is 10.0 in mir_eval's rounded seconds: 0.5 s from 10.5, a hit; exact: 0.500004 s
    truth = series(["f", "f"], [0, 9.999996], [9.999996, 20], ["A", "B"])
    prediction = series(["f", "f"], [0, 10.5], [10.5, 20], ["A", "B"])
    exact = audeval.structure_outcomes(truth, prediction, window=0.5)
    mir = audeval.structure_outcomes(truth, prediction, window=0.5, compat="mir_eval")
    middle = lambda out: out[(out["kind"] == "boundary").to_numpy() & (seconds(out.index) > 1) & (seconds(out.index) < 19)]
    assert middle(exact)["outcome"].tolist() == ["miss", "false_alarm"]
    assert middle(mir)["outcome"].tolist() == ["hit", "hit"]
    assert seconds(middle(mir).index).tolist() == [10.0, 10.5]


def test_errors():
    truth = series(["a"], [0], [10], ["A"])
    with pytest.raises(ValueError, match="one duration"):
        audeval.structure_outcomes(truth, truth, window=(0.5, 3.0))
    with pytest.raises(TypeError, match="structure_outcomes"):
        audeval.structure_outcomes(audeval.structure_statistics(truth, truth), None)
    with pytest.raises(ValueError, match="compat"):
        audeval.structure_outcomes(truth, truth, compat="mir")
