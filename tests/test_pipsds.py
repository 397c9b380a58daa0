"""audeval.pipsds and pi_psd_roc (issue 29, item 2): sed_scores_eval parity, additivity, errors."""

from __future__ import annotations

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from tests._pipsds_data import golden, load


def _options(case: dict) -> dict:
    return dict(
        median_filter_lengths=case["lengths"], dtc_threshold=case["dtc"], gtc_threshold=case["gtc"],
        cttc_threshold=case["cttc"], alpha_ct=case["alpha_ct"], alpha_st=case["alpha_st"],
        max_efpr=case["max_efpr"], compat="sed_scores_eval",
    )


def _read(efpr: np.ndarray, etpr: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A staircase's value at ``at`` (the last point at or below; 0 before the first)."""
    position = np.searchsorted(efpr, at, side="right") - 1
    return np.where(position >= 0, etpr[np.maximum(position, 0)], 0.0)


@pytest.mark.parametrize("key, n_cases", [("pipsds", 4), ("pipsds_even", 3)])
@pytest.mark.parametrize("name", ["random", "desed"])
def test_sed_scores_eval_golden(name, key, n_cases):
    """median_filter_independent_psds of sed_scores_eval 0.0.4: value, curve and each length's PSDS
    (``pipsds_even``: lengths that are even multiples of the 64 ms frames, its state at their ties)."""
    scores, truth, durations = load(name)
    cases = golden()[name][key]
    assert len(cases) == n_cases
    for case in cases:
        options = _options(case)
        value = audeval.pipsds(truth, scores, files_duration=durations, **options)
        assert value == pytest.approx(case["pipsds"], abs=1e-12)
        roc = audeval.pi_psd_roc(truth, scores, files_duration=durations, **options)
        # the same staircase: both curves read at the union of their eFPR values
        at = np.union1d(roc["efpr"].to_numpy(), case["efpr"])
        np.testing.assert_allclose(
            _read(roc["efpr"].to_numpy(), roc["etpr"].to_numpy(), at),
            _read(np.asarray(case["efpr"]), np.asarray(case["etpr"]), at),
            rtol=0, atol=1e-12,
        )
        lengths = options.pop("median_filter_lengths")
        single = [
            audeval.psds(
                truth, audeval.median_filter(scores, length, compat="sed_scores_eval"),
                files_duration=durations, **options,
            )
            for length in lengths
        ]
        np.testing.assert_allclose(single, case["psds"], rtol=0, atol=1e-12)
        if case["alpha_st"] == 0.0:  # the best of every length's curve
            assert case["pipsds"] >= max(case["psds"]) - 1e-15
    values = [c["pipsds"] for c in cases]
    assert len(set(values)) == len(values)


def test_one_length_is_psds_of_the_filtered_scores():
    scores, truth, durations = load("random")
    for length in (0.0, 0.3, 1.0):
        filtered = audeval.median_filter(scores, length)
        for options in (dict(alpha_st=0.0), dict(alpha_st=1.0, dtc_threshold=0.5, gtc_threshold=0.5)):
            pi = audeval.pipsds(truth, scores, median_filter_lengths=[length], files_duration=durations, **options)
            psds = audeval.psds(truth, filtered, files_duration=durations, **options)
            assert pi == pytest.approx(psds, abs=1e-15)


def test_additive_over_files():
    scores, truth, durations = load("desed")
    options = dict(median_filter_lengths=[0.0, 0.3, 1.0], alpha_st=1.0, compat="sed_scores_eval")
    direct = audeval.pipsds(truth, scores, files_duration=durations, **options)
    assert 0.3 < direct < 1.0
    files = sorted(durations.index)
    halves = [files[:25], files[25:]]

    def of(data, part):
        return data[data.index.get_level_values("file").isin(part)]

    tables = [
        audeval.score_statistics(
            of(truth, part), of(scores, part), median_filter_lengths=options["median_filter_lengths"],
            files_duration=durations[part], compat="sed_scores_eval",
        )
        for part in halves
    ]
    summed = audeval.sum_statistics(tables)
    assert audeval.pipsds(summed, **options) == pytest.approx(direct, abs=1e-12)
    assert list(summed.columns[:6]) == ["tp@0", "fp@0", "tp@1", "fp@1", "tp@2", "fp@2"]
    accumulator = audeval.Accumulator(audeval.pipsds, files_duration=durations, **options)
    for part in halves:
        accumulator.update(of(truth, part), of(scores, part))
    assert accumulator.compute() == pytest.approx(direct, abs=1e-12)
    roc = audeval.pi_psd_roc(summed, **options)
    pd.testing.assert_frame_equal(roc, audeval.pi_psd_roc(truth, scores, files_duration=durations, **options))
    result = audeval.bootstrap(
        audeval.pipsds, truth, scores, n_boot=20, files_duration=durations, **options
    )
    assert result.value == pytest.approx(direct, abs=1e-12)
    assert result.low <= direct <= result.high


def test_table_checks():
    scores, truth, durations = load("random")
    table = audeval.score_statistics(truth, scores, median_filter_lengths=[0.0, 0.3], files_duration=durations)
    assert audeval.pipsds(table, median_filter_lengths=[0.0, 0.3]) == pytest.approx(
        audeval.pipsds(truth, scores, median_filter_lengths=[0.0, 0.3], files_duration=durations), abs=1e-15
    )
    with pytest.raises(ValueError, match="made with median_filter_lengths=\\(0.0, 0.3\\)"):
        audeval.pipsds(table, median_filter_lengths=[0.0, 1.0])
    with pytest.raises(ValueError, match="lacks the columns \\['tp', 'fp'"):
        audeval.psds(table)
    plain = audeval.score_statistics(truth, scores, files_duration=durations)
    with pytest.raises(ValueError, match="made with median_filter_lengths=None"):
        audeval.pipsds(plain, median_filter_lengths=[0.0])
    with pytest.raises(ValueError, match="lacks the columns \\['tp@0'"):
        audeval.pipsds(plain)
    assert audeval.pipsds(table) == audeval.pipsds(table, median_filter_lengths=[0.0, 0.3])


def test_errors():
    truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
    index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
    scores = pd.DataFrame({"a": [0.9, 0.2, 0.3, 0.1]}, index=index)
    with pytest.raises(TypeError, match="pipsds of a score table needs median_filter_lengths"):
        audeval.pipsds(truth, scores, median_filter_lengths=None)
    with pytest.raises(ValueError, match="median_filter_lengths is empty"):
        audeval.pipsds(truth, scores, median_filter_lengths=[])
    with pytest.raises(ValueError, match="finite seconds >= 0"):
        audeval.pipsds(truth, scores, median_filter_lengths=[0.0, -1.0])
    with pytest.raises(ValueError, match="a length twice"):
        audeval.pipsds(truth, scores, median_filter_lengths=[1.0, 1.0])
    with pytest.raises(TypeError, match="sequence of seconds"):
        audeval.pipsds(truth, scores, median_filter_lengths=1.0)
    with pytest.raises(ValueError, match="alpha_ct is not 0"):
        audeval.pipsds(truth, scores, median_filter_lengths=[0.0], alpha_ct=0.5, cttc_threshold=None)
    with pytest.raises(ValueError, match="criterion='intersection'"):
        audeval.score_statistics(truth, scores, criterion="collar", median_filter_lengths=[0.0])
    uneven = pd.DataFrame({"a": [0.9, 0.2, 0.3]}, index=audformat.segmented_index(["f"] * 3, [0, 1, 3], [1, 3, 4]))
    with pytest.raises(ValueError, match="frames of one length per file.*\\['f'\\]"):
        audeval.pipsds(truth, uneven)
    operating_points = {0.5: pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [1.0]))}
    with pytest.raises(TypeError, match="score table"):
        audeval.pipsds(truth, operating_points)
    with pytest.raises(ValueError, match="not to operating points"):
        audeval.score_statistics(truth, operating_points, median_filter_lengths=[0.0])


def test_dask_table_gives_the_direct_value():
    dd = pytest.importorskip("dask.dataframe")
    scores, truth, durations = load("random")

    def frame(data):
        df = data.reset_index() if isinstance(data, pd.DataFrame) else data.rename("label").reset_index()
        return dd.from_pandas(df.set_index("file").sort_index(), npartitions=3, sort=True)

    options = dict(median_filter_lengths=[0.0, 0.3, 1.0], compat="sed_scores_eval")
    table = audeval.dask_statistics(
        audeval.score_statistics, frame(truth), frame(scores), files_duration=durations, **options
    )
    direct = audeval.pipsds(truth, scores, files_duration=durations, alpha_st=1.0, **options)
    assert audeval.pipsds(table, alpha_st=1.0, **options) == pytest.approx(direct, abs=1e-12)
