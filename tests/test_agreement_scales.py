"""Agreement on rated scales (issue 29 item 4): Krippendorff's alpha of ordinal, interval and
ratio values, Cohen's kappa with linear and quadratic weights.

Golden values: ``tests/assets/agreement/make_golden_scales.py`` (the krippendorff package and
scikit-learn on frame grids); hand-computed cases; the table, shard, Accumulator and
bootstrap paths; the errors.
"""

from __future__ import annotations

import json
import os
import warnings

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._generic import resample as _resample


HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "assets", "agreement", "golden_scales.json")) as fp:
    GOLDEN = json.load(fp)


def series(rows, dtype=None) -> pd.Series:
    files, starts, ends, values = zip(*rows)
    return pd.Series(list(values), index=audformat.segmented_index(files, starts, ends), dtype=dtype)


def golden_raters(case: dict) -> dict:
    return {rater: series(rows) for rater, rows in case["raters"].items()}


@pytest.mark.parametrize("name", sorted(GOLDEN))
@pytest.mark.parametrize("level", ["ordinal", "interval", "ratio"])
def test_alpha_equals_the_krippendorff_package_on_frames(name, level):
    case = GOLDEN[name]
    raters = golden_raters(case)
    value = audeval.krippendorff_alpha(
        raters, level=level, frame_size=case["frame"], files_duration=case["durations"]
    )
    assert value == pytest.approx(case["alpha"][level], abs=1e-12)


@pytest.mark.parametrize("name", sorted(GOLDEN))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_equals_sklearn_on_frames(name, weights):
    case = GOLDEN[name]
    raters = golden_raters(case)
    for pair, expected in case["cohen"].items():
        a, b = pair.split("|")
        value = audeval.cohen_kappa(
            raters[a], raters[b], case["scale"], level="ordinal", weights=weights,
            frame_size=case["frame"], files_duration=case["durations"],
        )
        assert value == pytest.approx(expected[str(weights)], abs=1e-12), pair


@pytest.mark.parametrize("level", ["ordinal", "interval", "ratio"])
def test_continuous_time_is_the_limit_of_frames(level):
    """On rows of a frame grid the continuous-time coincidences are the frames' durations,
    and alpha differs only by the weight of one value: (1 - a_time) / N = (1 - a_frames) / (N - u)."""
    case = GOLDEN["likert"]
    raters = golden_raters(case)
    options = dict(level=level, files_duration=case["durations"])
    exact = audeval.krippendorff_alpha(raters, **options)
    frames = audeval.krippendorff_alpha(raters, frame_size=case["frame"], **options)
    table = audeval.agreement_statistics(raters, **options)
    n = table["values"].sum() / 1e9
    assert (1 - exact) / n == pytest.approx((1 - frames) / (n - case["frame"]), rel=1e-12)
    columns = [c for c in table.columns if c.startswith("coincide_with_")]
    framed = audeval.agreement_statistics(raters, frame_size=case["frame"], **options)
    np.testing.assert_allclose(table[columns].to_numpy(), framed[columns].to_numpy(), rtol=1e-12)


def test_hand_computed():
    r"""r1: 1 on [0, 2), 3 on [2, 4); r2: 1 on [0, 4).

    :math:`o_{11} = 4`, :math:`o_{13} = o_{31} = 2` (seconds), :math:`n_1 = 6`, :math:`n_3 = 2`, :math:`N = 8`.
    Interval: :math:`\delta^2_{13} = 4`, :math:`\alpha = 1 - 8 \cdot 16 / 96 = -1/3`,
    with frames of 1 s :math:`1 - 7 \cdot 16 / 96 = -1/6`.
    Ratio: :math:`\delta^2_{13} = 1/4`: the same.
    Ordinal: mid-ranks 3 and 7, :math:`\delta^2_{13} = 16`: the same.
    Cohen (two raters, C = [[2, 0], [2, 0]] s over the labels 1, 3): p_o = 1/2, p_e = 1/2, kappa 0.
    """
    r1 = series([("f", 0.0, 2.0, 1), ("f", 2.0, 4.0, 3)])
    r2 = series([("f", 0.0, 4.0, 1)])
    for level in ("ordinal", "interval", "ratio"):
        assert audeval.krippendorff_alpha({"r1": r1, "r2": r2}, level=level) == pytest.approx(-1 / 3, abs=1e-15)
        assert audeval.krippendorff_alpha({"r1": r1, "r2": r2}, level=level, frame_size=1.0) == pytest.approx(
            -1 / 6, abs=1e-15
        )
    table = audeval.agreement_statistics({"r1": r1, "r2": r2}, level="interval")
    assert table.attrs["audeval"]["options"]["level"] == "interval"
    assert (table[["coincide_with_1", "coincide_with_3"]] / 1e9).to_numpy().tolist() == [[4.0, 2.0], [2.0, 0.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (0 / 0 of the quadratic weights where one rater says one value)
        assert audeval.cohen_kappa(r1, r2, level="ordinal") == 0.0
        assert audeval.cohen_kappa(r1, r2, level="ordinal", weights="linear") == 0.0


def test_missing_values_and_a_third_value():
    """Time without a value is missing: only pieces with two values pair.

    r1: 1 on [0, 2), 2 on [2, 3); r2: 2 on [1, 3), 3 on [3, 5); r3 nothing.
    Pieces: [0, 1) one value (left out), [1, 2) (1, 2), [2, 3) (2, 2), [3, 5) one value.
    o_12 = o_21 = 1, o_22 = 2; n_1 = 1, n_2 = 3, N = 4;
    interval: alpha = 1 - 4 * 2 / (2 * 1 * 3) = -1/3; ordinal: mid-ranks 0.5, 2.5 (delta 4): the same.
    """
    raters = {
        "r1": series([("f", 0.0, 2.0, 1), ("f", 2.0, 3.0, 2)]),
        "r2": series([("f", 1.0, 3.0, 2), ("f", 3.0, 5.0, 3)]),
        "r3": series([("f", 0.0, 5.0, 1)]).iloc[:0],
    }
    for level in ("ordinal", "interval"):
        assert audeval.krippendorff_alpha(raters, level=level) == pytest.approx(-1 / 3, abs=1e-15)
    table = audeval.agreement_statistics(raters, level="ordinal")
    assert (table["total"] / 1e9).tolist() == [2.0, 2.0, 2.0]  # (the paired time)
    assert (table["values"] / 1e9).tolist() == [1.0, 3.0, 0.0]


def test_ordered_categorical_and_labels_give_the_order():
    rows1 = [("f", 0.0, 2.0, "low"), ("f", 2.0, 5.0, "high"), ("g", 0.0, 3.0, "mid")]
    rows2 = [("f", 0.0, 3.0, "mid"), ("f", 3.0, 5.0, "high"), ("g", 1.0, 3.0, "mid")]
    order = ["low", "mid", "high"]
    dtype = pd.CategoricalDtype(order, ordered=True)
    codes = {"low": 1, "mid": 2, "high": 3}
    numeric = {
        "r1": series([(f, s, e, codes[v]) for f, s, e, v in rows1]),
        "r2": series([(f, s, e, codes[v]) for f, s, e, v in rows2]),
    }
    expected = audeval.krippendorff_alpha(numeric, level="ordinal")
    ordered = {"r1": series(rows1, dtype), "r2": series(rows2, dtype)}
    assert audeval.krippendorff_alpha(ordered, level="ordinal") == pytest.approx(expected, abs=1e-15)
    plain = {"r1": series(rows1), "r2": series(rows2)}
    assert audeval.krippendorff_alpha(plain, None, order, level="ordinal") == pytest.approx(expected, abs=1e-15)
    weighted = audeval.cohen_kappa(numeric["r1"], numeric["r2"], level="ordinal", weights="quadratic")
    assert audeval.cohen_kappa(ordered["r1"], ordered["r2"], level="ordinal", weights="quadratic") == pytest.approx(
        weighted, abs=1e-15
    )
    with pytest.raises(ValueError, match="level='ordinal' needs ordered labels"):
        audeval.krippendorff_alpha(plain, level="ordinal")
    with pytest.raises(ValueError, match="level='interval' needs numbers as labels"):
        audeval.krippendorff_alpha(ordered, level="interval")


def test_every_path_gives_the_direct_value():
    case = GOLDEN["sparse"]
    raters = golden_raters(case)
    files = list(case["durations"])
    for metric, options in (
        (audeval.krippendorff_alpha, dict(level="ordinal")),
        (audeval.krippendorff_alpha, dict(level="ratio", frame_size=0.5)),
        (audeval.fleiss_kappa, dict(level="interval")),
    ):
        statistics = dict(options)
        metric_options = {k: v for k, v in options.items() if k not in ("level", "frame_size")}
        if metric is audeval.fleiss_kappa:  # (nominal Fleiss' kappa of the table of ordered values)
            direct = metric(audeval.agreement_statistics(raters, **statistics), None)
        else:
            direct = metric(raters, **options)
        table = audeval.agreement_statistics(raters, **statistics)
        assert metric(table, None, **metric_options) == pytest.approx(direct, abs=1e-12)
        shards = [
            audeval.agreement_statistics(
                {r: s[s.index.get_level_values("file").isin(part)] for r, s in raters.items()}, **statistics
            )
            for part in (files[:2], files[2:])
        ]
        assert metric(audeval.sum_statistics(shards), None) == pytest.approx(direct, abs=1e-12)
        accumulator = audeval.Accumulator(metric, **statistics)
        for part in (files[:1], files[1:]):
            accumulator.update({r: s[s.index.get_level_values("file").isin(part)] for r, s in raters.items()})
        assert accumulator.compute() == pytest.approx(direct, abs=1e-12)
        per_file = metric(table, None, per_file=True)
        for file in files:
            one = {r: s[s.index.get_level_values("file") == file] for r, s in raters.items()}
            assert per_file[file] == pytest.approx(
                metric(audeval.agreement_statistics(one, **statistics), None), abs=1e-12, nan_ok=True
            )


@pytest.mark.parametrize(
    "metric, options",
    [
        (audeval.krippendorff_alpha, dict(level="ordinal")),
        (audeval.krippendorff_alpha, dict(level="interval", frame_size=0.5)),
        (audeval.cohen_kappa, dict(level="ordinal", weights="quadratic")),
    ],
)
def test_bootstrap_on_arrays(monkeypatch, metric, options):
    """The coincidence matrix is a label block: the bootstrap sums it on arrays."""
    case = GOLDEN["likert"]
    raters = golden_raters(case)
    if metric is audeval.cohen_kappa:
        raters = {k: raters[k] for k in ("r1", "r2")}
    direct = metric(raters, **options)
    used = []
    of = _resample._Arrays.of

    def spy(*args, **kwargs):
        arrays = of(*args, **kwargs)
        used.append(arrays is not None)
        return arrays

    monkeypatch.setattr(_resample._Arrays, "of", spy)
    result = audeval.bootstrap(metric, raters, n_boot=30, seed=1, **options)
    assert used == [True] and result.value == direct
    monkeypatch.setattr(_resample._Arrays, "of", lambda *args, **kwargs: None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a resample may be 0 / 0: the public metric warns)
        tables = audeval.bootstrap(metric, raters, n_boot=30, seed=1, **options)
    np.testing.assert_allclose(result.distribution, tables.distribution, rtol=1e-12, atol=1e-14)


def test_errors():
    good = {"r1": series([("f", 0.0, 2.0, 1)]), "r2": series([("f", 0.0, 2.0, 2)])}
    with pytest.raises(ValueError, match="level must be one of 'nominal', 'ordinal', 'interval', 'ratio'"):
        audeval.krippendorff_alpha(good, level="metric")
    with pytest.raises(ValueError, match="weights must be one of None, 'linear', 'quadratic'"):
        audeval.cohen_kappa(good, weights="cubic")
    with pytest.raises(ValueError, match="per_label=True .* needs level='nominal'"):
        audeval.krippendorff_alpha(good, level="ordinal", per_label=True)
    with pytest.raises(ValueError, match="weights='linear' compares ordered labels: pass level='ordinal'"):
        audeval.cohen_kappa(good, weights="linear")
    with pytest.raises(ValueError, match="level='ratio' needs non-negative numbers"):
        audeval.krippendorff_alpha({"r1": series([("f", 0.0, 2.0, -1)]), "r2": good["r2"]}, level="ratio")
    overlapping = series([("f", 0.0, 2.0, 1), ("f", 1.0, 3.0, 2)])
    with pytest.raises(ValueError, match=r"annotations\['r1'\] gives several values at once in file 'f'"):
        audeval.krippendorff_alpha({"r1": overlapping, "r2": good["r2"]}, level="interval")
    table = audeval.agreement_statistics(good, level="ordinal")
    with pytest.raises(ValueError, match="made with level='ordinal', but level='interval' was given"):
        audeval.krippendorff_alpha(table, None, level="interval")
    nominal = audeval.agreement_statistics(good)
    with pytest.raises(ValueError, match="made with level='nominal', but level='ordinal' was given"):
        audeval.krippendorff_alpha(nominal, None, level="ordinal")
    with pytest.raises(ValueError, match="weights='quadratic' compares ordered labels"):
        audeval.cohen_kappa(nominal, None, weights="quadratic")
    # a table of ordered values knows its level
    assert audeval.cohen_kappa(table, None, weights="linear") == audeval.cohen_kappa(
        good, level="ordinal", weights="linear"
    )
