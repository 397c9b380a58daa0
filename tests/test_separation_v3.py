"""bss_eval_sources (BSS Eval v3) against mir_eval 0.8.2 and fast_bss_eval."""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

import audeval.separation as sep


ASSETS = os.path.join(os.path.dirname(__file__), "assets", "separation")
with open(os.path.join(ASSETS, "golden_v3.json")) as _fp:
    GOLDEN = json.load(_fp)["cases"]
_spec = importlib.util.spec_from_file_location(
    "separation_make_golden_v3", os.path.join(ASSETS, "make_golden_v3.py")
)
make_golden_v3 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_golden_v3)
gen = make_golden_v3.gen

TOL = 1e-9  # dB


def run(case):
    entry = GOLDEN[case]
    data = make_golden_v3.signals(case)
    res = sep.bss_eval_sources(
        data["truth"], data["prediction"],
        filter_length=entry["filter_length"], permutation=entry["permutation"],
    )
    return entry, data, res


@pytest.mark.parametrize("case", list(GOLDEN))
def test_inputs_are_the_golden_inputs(case):
    data = make_golden_v3.signals(case)
    for key, value in GOLDEN[case]["checksum"].items():
        assert np.abs(data[key]).sum() == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("case", list(GOLDEN))
def test_matches_mir_eval(case):
    entry, data, res = run(case)
    for key in ("sdr", "sir", "sar"):
        expected = np.asarray(entry["mir_eval"][key])
        assert res[key].shape == expected.shape
        np.testing.assert_allclose(res[key], expected, rtol=0, atol=TOL, err_msg=key)
    if entry["permutation"]:
        for perm in entry["perm_per_channel"]:
            assert res["estimate"].tolist() == perm
    else:
        assert "estimate" not in res


@pytest.mark.parametrize(
    "case", [c for c in GOLDEN if isinstance(GOLDEN[c]["fast_bss_eval"], list)
             and GOLDEN[c]["fast_bss_eval"][0] is not None]
)
def test_matches_fast_bss_eval(case):
    entry, data, res = run(case)
    for c, values in enumerate(entry["fast_bss_eval"]):
        for m, key in enumerate(("sdr", "sir", "sar")):
            ours = res[key] if res[key].ndim == 1 else res[key][:, c]
            # fast_bss_eval's exact solve differs from mir_eval by <= 1e-8 dB here
            np.testing.assert_allclose(ours, values[m], rtol=0, atol=1e-7)
        if entry["permutation"]:
            assert res["estimate"].tolist() == values[3]


def test_channels_are_scored_one_by_one():
    refs = gen.coloured(50, (2, 3000, 2), 0.7)
    est = gen.mix(refs, 51, 0.3, 0.1)
    both = sep.bss_eval_sources(refs, est, filter_length=16)
    for c in range(2):
        one = sep.bss_eval_sources(refs[..., c], est[..., c], filter_length=16)
        for key in ("sdr", "sir", "sar"):
            np.testing.assert_allclose(both[key][:, c], one[key], rtol=0, atol=1e-12)


def test_permutation_is_invariant_to_estimate_order():
    refs = gen.coloured(52, (4, 3000), 0.6)
    est = gen.mix(refs, 53, 0.3, 0.1)
    plain = sep.bss_eval_sources(refs, est, filter_length=16)
    for order in ([3, 2, 1, 0], [1, 3, 0, 2]):
        res = sep.bss_eval_sources(refs, est[order], filter_length=16, permutation=True)
        assert np.asarray(order)[res["estimate"]].tolist() == [0, 1, 2, 3]
        for key in ("sdr", "sir", "sar"):
            np.testing.assert_allclose(res[key], plain[key], rtol=0, atol=1e-12)


def test_hand_case_pure_interference_and_perfect_estimate():
    # references on disjoint supports more than filter_length apart: orthogonal delays
    refs = gen.noise(54, (2, 2000))
    refs[0, 1000:] = 0.0
    refs[1, :1100] = 0.0
    est = np.stack([refs[0], refs[1] + 0.5 * refs[0]])
    res = sep.bss_eval_sources(refs, est, filter_length=4)
    # source 1: P_1 = s_1, P = est, interference 0.5 s_0, no artifacts
    e0, e1 = (refs**2).sum(axis=1)
    assert res["sir"][1] == pytest.approx(10 * np.log10(e1 / (0.25 * e0)), abs=1e-9)
    assert res["sdr"][1] == pytest.approx(10 * np.log10(e1 / (0.25 * e0)), abs=1e-9)
    assert res["sar"][1] > 250
    assert res["sir"][0] > 250  # no interference: P = P_0 up to rounding
    assert res["sdr"][0] > 250 and res["sar"][0] > 250  # exact up to rounding


@pytest.mark.filterwarnings("error")
def test_silent_signals_have_documented_results():
    refs = gen.coloured(55, (3, 2000), 0.5)
    est = gen.mix(refs, 56, 0.2, 0.1)
    full = sep.bss_eval_sources(refs[:2], est[:2], filter_length=8)
    silent_ref = refs.copy()
    silent_ref[2] = 0.0
    res = sep.bss_eval_sources(silent_ref, est, filter_length=8)
    assert np.isnan([res[k][2] for k in ("sdr", "sir", "sar")]).all()
    # the silent reference spans nothing: the others are scored without it
    # (SIR/SAR against two references; the estimates differ from `full` only by s_2 leakage)
    assert np.isfinite([res[k][:2] for k in ("sdr", "sir", "sar")]).all()
    two = sep.bss_eval_sources(refs[:2], est[:2], filter_length=8)
    np.testing.assert_allclose(two["sdr"], full["sdr"])
    silent_est = est.copy()
    silent_est[1] = 0.0
    res = sep.bss_eval_sources(refs, silent_est, filter_length=8)
    assert np.isnan([res[k][1] for k in ("sdr", "sir", "sar")]).all()
    assert np.isfinite([res[k][[0, 2]] for k in ("sdr", "sir", "sar")]).all()
    res = sep.bss_eval_sources(np.zeros((2, 500)), np.zeros((2, 500)), filter_length=8,
                               permutation=True)
    assert np.isnan(res["sdr"]).all()


@pytest.mark.filterwarnings("error")
def test_dependent_references_never_raise():
    refs = gen.coloured(57, (2, 2000), 0.5)
    same = np.stack([refs[0], refs[0], 2 * refs[1], refs[1]])
    est = same + 0.1 * gen.noise(58, same.shape)
    res = sep.bss_eval_sources(same, est, filter_length=16)
    assert all(np.isfinite(res[k]).all() for k in ("sdr", "sar"))
    # an identical copy adds no interference: SIR as with one copy
    three = np.stack([refs[0], refs[0], refs[1]])
    est3 = three + 0.1 * gen.noise(64, three.shape)
    with_copy = sep.bss_eval_sources(three, est3, filter_length=16)
    without = sep.bss_eval_sources(three[1:], est3[1:], filter_length=16)
    np.testing.assert_allclose(with_copy["sir"][1:], without["sir"], rtol=0, atol=1e-9)
    only_copies = sep.bss_eval_sources(three[:2], est3[:2], filter_length=16)
    assert (only_copies["sir"] > 250).all()  # no interference up to rounding
    # SDR only uses the own reference: equal to the one-reference value
    alone = sep.bss_eval_sources(refs[:1], est[:1], filter_length=16)
    assert res["sdr"][0] == pytest.approx(alone["sdr"][0], abs=1e-9)
    # delayed copy within the filter length
    delayed = np.stack([refs[0], np.roll(refs[0], 3) * (np.arange(2000) >= 3)])
    res = sep.bss_eval_sources(delayed, delayed + 0.1 * refs[[1, 1]], filter_length=16)
    assert np.isfinite(res["sdr"]).all()


def test_errors():
    refs = gen.coloured(59, (2, 500), 0.5)
    with pytest.raises(ValueError, match="filter_length"):
        sep.bss_eval_sources(refs, refs, filter_length=0)
    with pytest.raises(TypeError, match="permutation"):
        sep.bss_eval_sources(refs, refs, permutation="yes")
    with pytest.raises(ValueError, match="number of sources"):
        sep.bss_eval_sources(refs, refs[:1])
    with pytest.raises(ValueError, match="channel axis"):
        sep.bss_eval_sources(refs, refs[..., None])
    res = sep.bss_eval_sources(refs, refs[:1] + 0.1, filter_length=4, permutation=True)
    assert res["estimate"].tolist() == [0, -1]
    assert np.isnan(res["sdr"][1])


# -------------------------------------------------------------------------
# Singular Gram matrices (issue 18 #25): pivoted Cholesky, no lstsq
# -------------------------------------------------------------------------


def test_gram_solver_fallback_is_the_least_squares_projection():
    from audeval.separation._solve import GramSolver

    basis = gen.noise(60, (200, 5))
    s = np.concatenate([basis, basis[:, :2], 3 * basis[:, 4:]], axis=1)  # 3 dependent columns
    x = gen.noise(61, (200, 3))
    solver = GramSolver(s.T @ s)
    assert solver.kind == "pivoted" and solver.rank == 5
    expected = s @ np.linalg.lstsq(s, x, rcond=None)[0]
    np.testing.assert_allclose(s @ solver.solve(s.T @ x), expected, rtol=0, atol=1e-12)
    assert GramSolver(basis.T @ basis).kind == "cholesky"
    zero = GramSolver(np.zeros((3, 3)))
    assert zero.rank == 0 and (zero.solve(np.ones(3)) == 0).all()


@pytest.mark.filterwarnings("error")
def test_bss_eval_v4_identical_channels_equal_the_mono_result():
    mono = gen.coloured(62, (2, 3000), 0.8)
    est = gen.mix(mono, 63, 0.3, 0.1)
    stereo = sep.bss_eval_v4(
        np.stack([mono, mono], -1), np.stack([est, est], -1),
        sampling_rate=1000, window=1.0, filter_length=32,
    )
    single = sep.bss_eval_v4(mono, est, sampling_rate=1000, window=1.0, filter_length=32)
    for key in ("sdr", "isr", "sir", "sar"):
        np.testing.assert_allclose(stereo[key], single[key], rtol=0, atol=1e-8, err_msg=key)


@pytest.mark.parametrize("scales", [(2.0, -0.5, 3.0), (1e-3, 1e3, 1.0)])
def test_invariant_to_reference_scaling_and_common_gain(scales):
    # the projections span the delays of each reference: its gain (and sign) is irrelevant
    refs = gen.coloured(65, (3, 2500), 0.7)
    est = gen.mix(refs, 66, 0.3, 0.1)
    base = sep.bss_eval_sources(refs, est, filter_length=24)
    scaled = sep.bss_eval_sources(refs * np.asarray(scales)[:, None], est, filter_length=24)
    louder = sep.bss_eval_sources(refs * 7.0, est * 7.0, filter_length=24)
    for key in ("sdr", "sir", "sar"):
        np.testing.assert_allclose(scaled[key], base[key], rtol=0, atol=1e-9)
        np.testing.assert_allclose(louder[key], base[key], rtol=0, atol=1e-9)


def test_equal_reference_channels_share_the_factorisation():
    mono = gen.coloured(67, (2, 3000), 0.7)
    refs = np.stack([mono, mono], axis=-1)
    est = gen.mix(refs, 68, 0.3, 0.1)  # channels of the estimates differ
    both = sep.bss_eval_sources(refs, est, filter_length=16, permutation=True)
    for c in range(2):
        one = sep.bss_eval_sources(mono, est[..., c], filter_length=16)
        for key in ("sdr", "sir", "sar"):
            np.testing.assert_allclose(both[key][:, c], one[key], rtol=0, atol=1e-12)
    from audeval.separation._bss_sources import pairwise_sources

    first, second = pairwise_sources(refs, est, 16)
    assert second.solver is first.solver
