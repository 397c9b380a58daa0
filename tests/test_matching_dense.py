"""Optimal matching of dense files on a band of their candidate pairs (issue 32, item 6).

The band path must give exactly the statistics of the exact path
(``_solve``, the matching before the band existed) wherever it answers,
and hand over to the exact path where it cannot prove its answer.
"""

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_ABSENT_LABELS
from conftest import MAY_WARN_DUPLICATES
from conftest import MAY_WARN_GENERATED_FILES as GENERATED_FILES
from conftest import series

import audeval
from audeval._core.matching import dense as _dense
from audeval._core.matching import match as _match


@pytest.fixture
def calls(monkeypatch):
    """Counts the band's answers (proven) and refusals (``None``)."""
    seen = {"proven": 0, "refused": 0}
    original = _dense.dense_matching

    def spy(*args, **kwargs):
        out = original(*args, **kwargs)
        seen["refused" if out is None else "proven"] += 1
        return out

    monkeypatch.setattr(_match, "dense_matching", spy)
    return seen


def band_everywhere(monkeypatch, band: int):
    """Every file with a pair is dense, and the band is ``band`` wide."""
    monkeypatch.setattr(_match, "DENSE_PAIRS", -1)
    monkeypatch.setattr(_dense, "DENSE_PAIRS", -1)
    monkeypatch.setattr(_dense, "DENSE_RATIO", -1)
    monkeypatch.setattr(_dense, "BAND", band)


def exact(truth, prediction, **options):
    """The statistics of the exact path alone (the band never tried)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_match, "DENSE_PAIRS", np.iinfo(np.int64).max)
        return audeval.event_statistics(truth, prediction, **options)


def staircase(n: int, shift: float, labels=("dog",), spacing: float = 1e-3):
    onset = np.arange(n) * spacing
    label = [labels[k % len(labels)] for k in range(n)]
    truth = series([("a.wav", s, s + 1.0, lab) for s, lab in zip(onset, label)])
    prediction = series([("a.wav", s + shift, s + shift + 1.0, lab) for s, lab in zip(onset, label)])
    return truth, prediction


@pytest.mark.parametrize("labels", [("dog",), ("dog", "cat")])
def test_dense_staircase_takes_the_band(calls, labels):
    # 600 events 1 ms apart, 1 s tolerance: ~360,000 candidate pairs, a dense file
    truth, prediction = staircase(600, 0.05, labels)
    options = dict(onset_tolerance=1.0, offset_tolerance=1.0, confusion=True)
    stats = audeval.event_statistics(truth, prediction, **options)
    assert calls == {"proven": 1, "refused": 0}
    pd.testing.assert_frame_equal(stats, exact(truth, prediction, **options))
    assert stats["tp"].sum() == 600


@MAY_WARN_DUPLICATES
def test_identical_against_shifted_with_another_label(calls):
    # every pair a candidate: 600 dog matched of 1,200 truth, the other 600 substituted by cat
    n = 1200
    truth = series([("a.wav", 0.5, 1.5, "dog")] * n)
    prediction = series([("a.wav", 0.6, 1.6, "dog")] * (n // 2) + [("a.wav", 0.6, 1.6, "cat")] * (n // 2))
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, confusion=True)
    stats = audeval.event_statistics(truth, prediction, **options)
    assert calls == {"proven": 1, "refused": 0}
    pd.testing.assert_frame_equal(stats, exact(truth, prediction, **options))
    dog = stats.loc[("a.wav", "dog")]
    assert (dog["tp"], dog["substituted"], dog["substituted_by_cat"]) == (600, 600, 600)


def test_without_proof_the_exact_path_decides(calls, monkeypatch):
    # a band of one prediction cannot reach the partners 50 ranks away: no proof, the exact path
    band_everywhere(monkeypatch, 0)
    truth, prediction = staircase(200, 0.05, spacing=1e-3)
    shifted = series([("a.wav", s + 0.3, s + 1.3, "dog") for s in np.arange(200) * 1e-3])
    options = dict(onset_tolerance=0.25, offset_tolerance=0.25)
    stats = audeval.event_statistics(truth, shifted, **options)
    assert calls["refused"] == 1
    pd.testing.assert_frame_equal(stats, exact(truth, shifted, **options))


events = st.lists(
    st.tuples(
        st.sampled_from(["f1", "f2"]),
        st.integers(0, 12),
        st.integers(1, 4),
        st.sampled_from(["a", "b", "c"]),
    ),
    max_size=30,
)


@MAY_WARN_ABSENT_LABELS
@MAY_WARN_DUPLICATES
@GENERATED_FILES
@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(events, events, st.integers(0, 3), st.sampled_from([(0.5, 0.25), (1.0, 1.0), (0.25, None)]))
def test_band_gives_the_exact_statistics(truth_rows, pred_rows, band, tolerances):
    hypothesis.assume(truth_rows and pred_rows)
    truth = series([(f, s * 0.25, (s + d) * 0.25, label) for f, s, d, label in truth_rows])
    prediction = series([(f, s * 0.25, (s + d) * 0.25, label) for f, s, d, label in pred_rows])
    onset, offset = tolerances
    options = dict(
        onset_tolerance=onset, offset_tolerance=offset, confusion=True, labels=["a", "b", "c"]
    )
    expected = exact(truth, prediction, **options)
    with pytest.MonkeyPatch.context() as patch:
        band_everywhere(patch, band)
        stats = audeval.event_statistics(truth, prediction, **options)
    pd.testing.assert_frame_equal(stats, expected)


@MAY_WARN_DUPLICATES
@pytest.mark.parametrize("seed", range(6))
def test_band_answers_on_near_identical_events(monkeypatch, calls, seed):
    # many events on a coarse grid (heavy overlap): the band proves most of these
    rng = np.random.default_rng(seed)
    n = 60
    rows = lambda: [  # noqa: E731
        ("f", float(s) / 10, float(s) / 10 + 1.0, str(lab))
        for s, lab in zip(rng.integers(0, 6, n), rng.choice(["a", "b"], n, p=[0.8, 0.2]))
    ]
    truth, prediction = series(rows()), series(rows())
    options = dict(onset_tolerance=0.5, offset_tolerance=0.5, confusion=True)
    expected = exact(truth, prediction, **options)
    band_everywhere(monkeypatch, 2)
    stats = audeval.event_statistics(truth, prediction, **options)
    pd.testing.assert_frame_equal(stats, expected)
    assert calls["proven"] + calls["refused"] == 1
