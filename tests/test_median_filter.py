"""audeval.median_filter (issue 29, item 1): sed_scores_eval's medfilt, the continuous median, errors."""

from __future__ import annotations

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from tests._pipsds_data import golden, load


def table(values, hop=1.0, files=None):
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    n = len(values)
    files = ["f"] * n if files is None else files
    starts = np.zeros(n)
    for i in range(1, n):
        starts[i] = 0.0 if files[i] != files[i - 1] else starts[i - 1] + hop
    index = audformat.segmented_index(files, starts, starts + hop)
    return pd.DataFrame(values, index=index, columns=[f"c{j}" for j in range(values.shape[1])])


def brute_force(x: np.ndarray, hop: float, length: float, edge: str) -> np.ndarray:
    """The weighted median over [c - L/2, c + L/2] at every frame centre c, by its definition:
    the smallest score v whose frames (weighted by overlap) cover at least half the window."""
    n = len(x)
    pad = int(np.ceil(length / hop)) + 2
    fill = (x[0], x[-1]) if edge == "nearest" else (-np.inf, -np.inf)
    values = np.concatenate([np.full(pad, fill[0]), x, np.full(pad, fill[1])])
    starts = (np.arange(len(values)) - pad) * hop
    out = np.empty(n)
    for i in range(n):
        centre = (i + 0.5) * hop
        low, high = centre - length / 2, centre + length / 2
        weight = np.clip(np.minimum(starts + hop, high) - np.maximum(starts, low), 0, None)
        order = np.argsort(values, kind="stable")
        cumulative = np.cumsum(weight[order])
        out[i] = values[order][np.searchsorted(cumulative, length / 2 - 1e-9)]
    return out


def held(x: np.ndarray, m: int) -> np.ndarray:
    """sed_scores_eval 0.0.4's medfilt for a length of 2m frames, by its recurrence, frame by frame:
    at the start of frame i its window holds frames i - m .. i + m - 1 whole (-inf beyond the file)
    and splits exactly between their m-th and (m+1)-th smallest, a <= b; its median bar stays
    where it was if that lies in [a, b], else moves to the nearer of them:
    s = min(max(s, a), b), from s = -inf; frame i gets the state at its end."""
    padded = np.concatenate([np.full(m, -np.inf), x, np.full(m, -np.inf)])
    state, out = -np.inf, []
    for j in range(len(x) + 1):  # the boundaries t_0 .. t_n
        window = np.sort(padded[j : j + 2 * m])
        state = min(max(state, window[m - 1]), window[m])
        out.append(state)
    return np.array(out[1:])


def test_hand_computed():
    scores = table([0.1, 0.9, 0.2, 0.8, 0.7])
    # 3 s on 1 s frames: the median of 3 frames; beyond the ends the edge frame (native) or -inf
    assert audeval.median_filter(scores, 3.0)["c0"].tolist() == [0.1, 0.2, 0.8, 0.7, 0.7]
    assert audeval.median_filter(scores, 3.0, compat="sed_scores_eval")["c0"].tolist() == [
        0.1, 0.2, 0.8, 0.7, 0.7
    ]
    scores = table([0.9, 0.8, 0.1, 0.7, 0.6])
    assert audeval.median_filter(scores, 3.0)["c0"].tolist() == [0.9, 0.8, 0.7, 0.6, 0.6]
    assert audeval.median_filter(scores, 3.0, compat="sed_scores_eval")["c0"].tolist() == [
        0.8, 0.8, 0.7, 0.6, 0.6
    ]
    # 2 s (an even multiple): the window of frame i holds frames i +- 1 at half weight,
    # the lower value at the exact tie: min(max(a, b), s_i)
    assert audeval.median_filter(table([0.5, 0.1, 0.9, 0.3]), 2.0)["c0"].tolist() == [0.5, 0.1, 0.3, 0.3]
    # under compat, sed_scores_eval's state at the exact ties of even windows (frames i, i + 1 for 2 s):
    # min(max(previous, min(s_i, s_i+1)), max(s_i, s_i+1)), from -inf; not the lower median
    assert audeval.median_filter(table([0.5, 0.1, 0.9, 0.3]), 2.0, compat="sed_scores_eval")["c0"].tolist() == [
        0.1, 0.1, 0.3, 0.3
    ]
    assert audeval.median_filter(table([0.2, 0.8, 0.4, 0.6]), 2.0, compat="sed_scores_eval")["c0"].tolist() == [
        0.2, 0.4, 0.4, 0.4
    ]
    # shorter than a frame, or 0: unchanged
    assert audeval.median_filter(scores, 0.5).equals(scores)
    assert audeval.median_filter(scores, 0.0).equals(scores)


@pytest.mark.parametrize("hop", [1.0, 0.064, 0.02])
def test_equals_the_continuous_median_by_its_definition(hop):
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(1, 30))
        x = np.round(rng.random(n), 1)  # many ties
        multiple = float(rng.choice([rng.integers(0, 12), rng.uniform(0, 12)]))
        length = round(multiple * hop, 6)
        got = audeval.median_filter(table(x, hop), length)["c0"].to_numpy()
        np.testing.assert_array_equal(got, brute_force(x, hop, length, "nearest"))
        got = audeval.median_filter(table(x, hop), length, compat="sed_scores_eval")["c0"].to_numpy()
        if not np.isclose((length / hop) % 2, 0) or length < hop:
            np.testing.assert_array_equal(got, brute_force(x, hop, length, "-inf"))
        else:
            np.testing.assert_array_equal(got, held(x, int(round(length / hop)) // 2))


def test_files_and_classes_at_once_equal_one_at_a_time():
    rng = np.random.default_rng(2)
    files = ["a"] * 7 + ["b"] * 3 + ["c"] * 12
    values = rng.random((len(files), 3))
    scores = table(values, 0.5, files)
    lengths = {"c0": 1.5, "c1": 2.2, "c2": 0.0}
    both = audeval.median_filter(scores, lengths)
    for file in set(files):
        part = scores[scores.index.get_level_values("file") == file]
        for column, length in lengths.items():
            alone = audeval.median_filter(part[[column]], length)
            np.testing.assert_array_equal(both.loc[part.index, column].to_numpy(), alone[column].to_numpy())
    # rows in another order: the same values on the same rows
    shuffled = scores.iloc[rng.permutation(len(scores))]
    np.testing.assert_array_equal(
        audeval.median_filter(shuffled, lengths).loc[scores.index].to_numpy(), both.to_numpy()
    )


def test_sed_scores_eval_medfilt_golden():
    """sed_scores_eval 0.0.4's medfilt read at the frame centres (64 ms frames, 3 classes, 7 files)."""
    scores, _, _ = load("random")
    cases = golden()["random"]["medfilt"]
    assert len(cases) == 7
    for case in cases:
        got = audeval.median_filter(scores, case["length"], compat="sed_scores_eval")
        for file, expected in case["values"].items():
            values = got[got.index.get_level_values("file") == file].to_numpy()
            np.testing.assert_allclose(values, np.asarray(expected), rtol=0, atol=1e-12)
    # the native filter differs only near the files' ends
    native = audeval.median_filter(scores, 1.0)
    compat = audeval.median_filter(scores, 1.0, compat="sed_scores_eval")
    start = native.index.get_level_values("start").total_seconds()
    inner = (start > 0.6) & (start < 3.0)
    np.testing.assert_array_equal(native[inner].to_numpy(), compat[inner].to_numpy())
    assert not native.equals(compat)


def test_sed_scores_eval_medfilt_even_golden():
    """sed_scores_eval 0.0.4's medfilt for even multiples of the 64 ms frames (2, 4, 8, 16 frames,
    and one per class beside odd and other lengths): its state at the ties, not the lower median."""
    scores, _, _ = load("random")
    cases = golden()["random"]["medfilt_even"]
    assert len(cases) == 5
    differs = 0
    for case in cases:
        got = audeval.median_filter(scores, case["length"], compat="sed_scores_eval")
        for file, expected in case["values"].items():
            values = got[got.index.get_level_values("file") == file].to_numpy()
            np.testing.assert_allclose(values, np.asarray(expected), rtol=0, atol=1e-12)
            for j, column in enumerate(scores.columns):
                length = case["length"][column] if isinstance(case["length"], dict) else case["length"]
                if round(length / 0.064) % 2 == 0:
                    x = scores[scores.index.get_level_values("file") == file][column].to_numpy()
                    np.testing.assert_array_equal(values[:, j], held(x, round(length / 0.064) // 2))
        differs += not got.equals(audeval.median_filter(scores, case["length"]))
    assert differs == len(cases)  # not the native filter (the lower median, edge frames beyond the ends)


def test_errors():
    scores = table([0.1, 0.9, 0.2])
    with pytest.raises(ValueError, match="must name every class.*missing \\['c0'\\]"):
        audeval.median_filter(scores, {"x": 1.0})
    with pytest.raises(ValueError, match="length"):
        audeval.median_filter(scores, -1.0)
    with pytest.raises(TypeError, match="length"):
        audeval.median_filter(scores, None)
    with pytest.raises(ValueError, match="compat must be"):
        audeval.median_filter(scores, 1.0, compat="psds_eval")
    index = audformat.segmented_index(["f", "f", "f"], [0, 1, 3], [1, 3, 4])
    with pytest.raises(ValueError, match="frames of one length per file.*\\['f'\\]"):
        audeval.median_filter(pd.DataFrame({"a": [0.1, 0.2, 0.3]}, index=index), 1.0)
    with pytest.raises(TypeError, match="scores must be a pandas.DataFrame"):
        audeval.median_filter(pd.Series([1.0]), 1.0)
