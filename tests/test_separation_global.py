"""SA-SDR, MDX/SDX global and chunked SDR, CA-SDRi: hand-computed cases and properties."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import audeval.separation as sep


def db(x):
    return 10 * np.log10(x)


def noise(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape)


# -------------------------------------------------------------------------
# SA-SDR
# -------------------------------------------------------------------------

S = np.array([[3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 4.0, 0.0]])
E = np.array([[2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 4.0, 1.0]])


def test_sa_sdr_hand_cases():
    # energies 9 + 16, distortions 1 + 1
    assert sep.sa_sdr(S, E)["sa_sdr"] == pytest.approx(db(25 / 2), abs=1e-12)
    # one scale: alpha = (6 + 16) / 25; target energy alpha^2 25;
    # distortion (2.64 - 2)^2 + (3.52 - 4)^2 + 1
    res = sep.sa_sdr(S, E, scale_invariant=True)["sa_sdr"]
    assert res == pytest.approx(db(0.88**2 * 25 / (0.64**2 + 0.48**2 + 1)), abs=1e-12)
    # zero_mean removes each row's mean first
    res = sep.sa_sdr(S + 5.0, E + 5.0, zero_mean=True)["sa_sdr"]
    assert res == pytest.approx(sep.sa_sdr(S - S.mean(1, keepdims=True),
                                           E - E.mean(1, keepdims=True))["sa_sdr"], abs=1e-12)


def test_sa_sdr_one_source_is_the_plain_sdr_and_channels_are_separate():
    s, e = noise(1, (1, 100, 2)), noise(2, (1, 100, 2))
    e = s + 0.1 * e
    res = sep.sa_sdr(s, e)["sa_sdr"]
    assert res.shape == (2,)
    expected = db((s**2).sum(axis=(0, 1)) / ((s - e) ** 2).sum(axis=(0, 1)))
    np.testing.assert_allclose(res, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sep.global_sdr(s[..., :1], e[..., :1], delta=0), expected[:1])


def test_sa_sdr_quiet_source_does_not_dominate():
    # a near-silent source badly estimated barely moves SA-SDR (unlike the mean SDR)
    s = np.stack([noise(3, 1000), 1e-3 * noise(4, 1000)])
    e = np.stack([s[0] + 0.01 * noise(5, 1000), np.zeros(1000)])
    assert sep.sa_sdr(s, e)["sa_sdr"] > 35
    assert sep.global_sdr(s, e, delta=0)[1] == 0.0


@pytest.mark.parametrize("scale_invariant", [False, True])
@pytest.mark.parametrize("seed", [6, 7, 8])
def test_sa_sdr_permutation_equals_brute_force(seed, scale_invariant):
    s = noise(seed, (4, 200))
    e = s[[2, 0, 3, 1]] + 0.8 * noise(seed + 100, (4, 200))
    res = sep.sa_sdr(s, e, permutation=True, scale_invariant=scale_invariant)
    best = max(
        itertools.permutations(range(4)),
        key=lambda p: sep.sa_sdr(s, e[list(p)], scale_invariant=scale_invariant)["sa_sdr"],
    )
    assert res["estimate"].tolist() == list(best)
    expected = sep.sa_sdr(s, e[list(best)], scale_invariant=scale_invariant)["sa_sdr"]
    assert res["sa_sdr"] == pytest.approx(expected, abs=1e-12)


def test_sa_sdr_missing_estimate_counts_as_silent_and_ieee_rules():
    res = sep.sa_sdr(S, E[1:], permutation=True)
    assert res["estimate"].tolist() == [-1, 0]
    assert res["sa_sdr"] == pytest.approx(db(25 / (9 + 1)), abs=1e-12)
    with np.errstate(all="raise"):
        assert sep.sa_sdr(S, S)["sa_sdr"] == np.inf
        assert sep.sa_sdr(np.zeros((2, 4)), E)["sa_sdr"] == -np.inf
        assert np.isnan(sep.sa_sdr(np.zeros((2, 4)), np.zeros((2, 4)))["sa_sdr"])
    with pytest.raises(ValueError, match="number of sources"):
        sep.sa_sdr(S, E[:1])
    with pytest.raises(TypeError, match="scale_invariant"):
        sep.sa_sdr(S, E, scale_invariant=1)


# -------------------------------------------------------------------------
# Global SDR (uSDR) and chunked SDR (cSDR)
# -------------------------------------------------------------------------


def test_global_sdr_hand_cases():
    s = np.array([[[1.0, 0.0], [-1.0, 2.0]], [[0.0, 0.0], [0.0, 0.0]]])  # (2, 2, 2)
    e = np.array([[[1.0, 0.0], [-1.0, 1.0]], [[0.5, 0.0], [0.0, 0.0]]])
    # norms over samples and channels: 6 / 1; silent reference: delta / (0.25 + delta)
    expected = [db((6 + 1e-7) / (1 + 1e-7)), db(1e-7 / (0.25 + 1e-7))]
    np.testing.assert_allclose(sep.global_sdr(s, e), expected, rtol=0, atol=1e-12)
    res = sep.global_sdr(s, e, delta=0)
    assert res[0] == pytest.approx(db(6), abs=1e-12) and res[1] == -np.inf
    assert sep.global_sdr(s[:1], s[:1], delta=0)[0] == np.inf
    with pytest.raises(ValueError, match="delta"):
        sep.global_sdr(s, e, delta=-1.0)


def test_chunked_sdr_silent_chunk_of_one_source_only():
    s = noise(9, (2, 40))
    e = s + 0.1 * noise(10, (2, 40))
    s[1, 10:20] = 0.0  # source 1 silent in chunk 1
    res = sep.chunked_sdr(s, e, sampling_rate=10, chunk=1.0)
    assert res["sdr"].shape == (2, 4)
    assert np.isnan(res["sdr"][1, 1]) and np.isfinite(res["sdr"][0]).all()
    for j in range(2):
        for t in range(4):
            if j == 1 and t == 1:
                continue
            chunk = slice(10 * t, 10 * t + 10)
            expected = sep.global_sdr(s[j : j + 1, chunk], e[j : j + 1, chunk])[0]
            assert res["sdr"][j, t] == pytest.approx(expected, abs=1e-12)
    np.testing.assert_allclose(res["median"], [np.median(res["sdr"][0]),
                                               np.median(res["sdr"][1, [0, 2, 3]])])
    assert res["start"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert res["end"].tolist() == [1.0, 2.0, 3.0, 4.0]


def test_chunked_sdr_framing_and_all_silent_source():
    s = noise(11, (2, 25))
    s[1] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = sep.chunked_sdr(s, s + 0.1, sampling_rate=10, chunk=1.0)
    assert res["sdr"].shape == (2, 2)  # the last 5 samples are dropped
    assert np.isnan(res["median"][1])
    res = sep.chunked_sdr(s, s + 0.1, sampling_rate=10, chunk=10.0)
    assert res["sdr"].shape == (2, 1) and res["end"].tolist() == [2.5]


# -------------------------------------------------------------------------
# CA-SDRi
# -------------------------------------------------------------------------

DOG = np.array([1.0, -1.0, 1.0, -1.0])
BELL = np.array([1.0, 1.0, -1.0, -1.0])
MIX = DOG + BELL


def test_ca_sdri_matched_missed_spurious():
    res = sep.ca_sdri([DOG, BELL], [0.9 * DOG, BELL + 0.5 * DOG], MIX,
                      truth_labels=["dog", "bell"], prediction_labels=["dog", "bell"])
    # SDR(mix, s) = 10 log10(4/4) = 0
    np.testing.assert_allclose(res["sdri"], [db(4 / 0.04), db(4 / 1.0)], rtol=0, atol=1e-12)
    assert res["ca_sdri"] == pytest.approx((db(100) + db(4)) / 2, abs=1e-12)
    assert res["status"] == ["matched", "matched"]
    # a swap of labels is two matched classes with poor SDRi (no permutation search)
    swapped = sep.ca_sdri([DOG, BELL], [BELL, DOG], MIX,
                          truth_labels=["dog", "bell"], prediction_labels=["dog", "bell"])
    assert swapped["ca_sdri"] == pytest.approx(db(4 / 8), abs=1e-12)
    # only a spurious class: 0; only missed classes: 0
    res = sep.ca_sdri([DOG], [BELL], MIX, truth_labels=["dog"], prediction_labels=["cat"])
    assert res["ca_sdri"] == 0.0 and res["labels"] == ["dog", "cat"]
    res = sep.ca_sdri([DOG], np.zeros((0, 4)), MIX, truth_labels=["dog"], prediction_labels=[])
    assert res["ca_sdri"] == 0.0 and res["status"] == ["missed"]


def test_ca_sdri_empty_and_multichannel_and_errors():
    res = sep.ca_sdri(np.zeros((0, 4)), np.zeros((0, 4)), MIX,
                      truth_labels=[], prediction_labels=[])
    assert np.isnan(res["ca_sdri"]) and res["labels"] == []
    s = np.stack([DOG, BELL], axis=-1)[None]  # one source, 2 channels
    res = sep.ca_sdri(s, 0.9 * s, s[0] * 2, truth_labels=[1], prediction_labels=[1])
    assert res["ca_sdri"] == pytest.approx(db(8 / 0.08) - db(8 / 8), abs=1e-12)
    with pytest.raises(ValueError, match="repeat"):
        sep.ca_sdri([DOG, BELL], [DOG], MIX, truth_labels=["a", "a"], prediction_labels=["a"])
    with pytest.raises(ValueError, match="one label per row"):
        sep.ca_sdri([DOG, BELL], [DOG], MIX, truth_labels=["a"], prediction_labels=["a"])
    with pytest.raises(ValueError, match="mixture"):
        sep.ca_sdri([DOG], [DOG], MIX[:3], truth_labels=["a"], prediction_labels=["a"])
    with pytest.raises(TypeError, match="truth_labels"):
        sep.ca_sdri([DOG], [DOG], MIX, truth_labels="a", prediction_labels=["a"])


# -------------------------------------------------------------------------
# Issue 18: best_permutation on NaN, (samples, sources) arrays
# -------------------------------------------------------------------------


def test_best_permutation_nan_raises_the_documented_rule_is_explicit():
    # issue 33 item 15: an undefined pair raises, naming the argument and the pairs
    with pytest.raises(ValueError, match=r"scores is NaN for 4 of 4 .*\(0, 0\)"):
        sep.best_permutation(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match=r"scores is NaN for 2 of 4 .*\(0, 0\), \(1, 1\)"):
        sep.best_permutation([[np.nan, 1.0], [2.0, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # the docstring's rule: NaN as -inf, worse than any number: the finite pair is chosen
        scores = np.array([[np.nan, 1.0], [2.0, np.nan]])
        assert sep.best_permutation(np.where(np.isnan(scores), -np.inf, scores)).tolist() == [1, 0]
        # NaN in an extra axis is ignored by the average (a pair with one defined window)
        windows = np.array([[[1.0, np.nan], [9.0, 9.0]], [[8.0, 8.0], [2.0, 2.0]]])
        assert sep.best_permutation(windows).tolist() == [1, 0]
        # metric functions on silent inputs do not warn; their scores are NaN
        res = sep.scale_invariant(np.zeros((2, 10)), np.zeros((2, 10)), permutation=True)
        assert np.isnan(res["si_sdr"]).all()


def test_samples_fewer_than_sources_warns():
    x = noise(12, (40, 2))  # (samples, sources): transposed by mistake
    with pytest.warns(UserWarning, match="fewer samples"):
        sep.si_sdr(x, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sep.si_sdr(x.T, x.T)


# -------------------------------------------------------------------------
# Properties
# -------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), order=st.permutations(range(4)))
def test_property_source_order_does_not_change_aggregated_scores(seed, order):
    s = noise(seed, (4, 64))
    e = s + noise(seed + 1, (4, 64))
    mix = s.sum(axis=0)
    labels = ["a", "b", "c", "d"]
    assert sep.sa_sdr(s[order], e[order])["sa_sdr"] == pytest.approx(
        sep.sa_sdr(s, e)["sa_sdr"], abs=1e-9)
    np.testing.assert_allclose(sep.global_sdr(s[order], e[order]), sep.global_sdr(s, e)[order])
    base = sep.ca_sdri(s, e[:3], mix, truth_labels=labels, prediction_labels=labels[:3])
    shuffled = sep.ca_sdri(
        s[order], e[:3][::-1], mix,
        truth_labels=[labels[i] for i in order], prediction_labels=labels[:3][::-1],
    )
    assert shuffled["ca_sdri"] == pytest.approx(base["ca_sdri"], abs=1e-9)
    by_label = dict(zip(base["labels"], base["sdri"]))
    for label, value in zip(shuffled["labels"], shuffled["sdri"]):
        assert value == pytest.approx(by_label[label], abs=1e-9)
