"""Tests of audeval.separation.evaluate and aggregate on small audio files."""

from __future__ import annotations

import importlib.util
import os

import audformat
import audiofile
import numpy as np
import pandas as pd
import pytest

import audeval.separation as sep


ASSETS = os.path.join(os.path.dirname(__file__), "assets", "separation")
_spec = importlib.util.spec_from_file_location(
    "separation_make_golden_t", os.path.join(ASSETS, "make_golden.py")
)
make_golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_golden)

RATE = 4000
SOURCES = ["vocals", "drums"]


def _write(path, signal, rate=RATE):
    audiofile.write(str(path), signal.T, rate, bit_depth=32)


def _read(path):
    return audiofile.read(str(path), always_2d=True, dtype="float64")[0].T


@pytest.fixture
def dataset(tmp_path):
    """Two files, two stereo sources, estimates with leakage; relative paths."""
    truth_rows, pred_rows, mix_rows = [], [], []
    files = ["song1.wav", "song2.wav"]
    for n, file in enumerate(files):
        refs = 0.2 * make_golden.coloured(50 + n, (2, 3 * RATE, 2), 0.7)
        est = make_golden.mix(refs, 60 + n, 0.3, 0.05)
        est = 0.5 * est / np.abs(est).max()
        row_t, row_p = {}, {}
        for j, source in enumerate(SOURCES):
            _write(tmp_path / f"{n}-{source}.wav", refs[j])
            _write(tmp_path / f"{n}-{source}-est.wav", est[j])
            row_t[source] = f"{n}-{source}.wav"
            row_p[source] = f"{n}-{source}-est.wav"
        _write(tmp_path / f"{n}-mix.wav", refs.sum(axis=0) + 0.02 * make_golden.noise(70 + n, refs.shape[1:]))
        truth_rows.append(row_t)
        pred_rows.append(row_p)
        mix_rows.append(f"{n}-mix.wav")
    index = audformat.filewise_index(files)
    truth = pd.DataFrame(truth_rows, index=index)
    prediction = pd.DataFrame(pred_rows, index=index)
    mixture = pd.Series(mix_rows, index=index, name="mixture")
    return tmp_path, truth, prediction, mixture


def _arrays(root, frame, n):
    return np.stack([_read(root / frame.iloc[n][s]) for s in frame.columns])


def test_evaluate_scale_invariant_equals_array_function(dataset):
    root, truth, prediction, mixture = dataset
    res = sep.evaluate(truth, prediction, mixture, root=str(root))
    assert list(res.index.names) == ["file", "source"]
    assert res.index.tolist() == [(f, s) for f in truth.index for s in SOURCES]
    assert list(res.columns) == list(sep._scale_invariant.KEYS)
    for n, file in enumerate(truth.index):
        refs = _arrays(root, truth, n)
        est = _arrays(root, prediction, n)
        mix = _read(root / mixture.iloc[n])
        expected = sep.scale_invariant(refs, est, mix)
        for key in sep._scale_invariant.KEYS:
            np.testing.assert_allclose(
                res.loc[file][key].to_numpy(), expected[key].mean(axis=1), atol=1e-12
            )
    # without a mixture: the sum of the references
    res0 = sep.evaluate(truth, prediction, root=str(root))
    np.testing.assert_allclose(res0["si_sdr"], res["si_sdr"], atol=1e-12)
    assert not np.allclose(res0["si_sdri"], res["si_sdri"])


def test_evaluate_bss_eval_and_aggregate(dataset):
    root, truth, prediction, _ = dataset
    res = sep.evaluate(
        truth, prediction, metrics="bss_eval_v4", window=1.0, hop=1.0,
        filter_length=32, root=str(root),
    )
    assert list(res.index.names) == ["file", "source", "start", "end"]
    assert len(res) == 2 * 2 * 3
    assert res.index.get_level_values("start")[:3].tolist() == [
        pd.Timedelta(s, unit="s") for s in (0, 1, 2)
    ]
    refs = _arrays(root, truth, 1)
    est = _arrays(root, prediction, 1)
    expected = sep.bss_eval_v4(refs, est, sampling_rate=RATE, window=1.0, filter_length=32)
    got = res.loc["song2.wav"]
    for key in ("sdr", "isr", "sir", "sar"):
        np.testing.assert_allclose(got[key].to_numpy(), expected[key].ravel(), atol=1e-12)

    # SiSEC: median over windows, then over files
    agg = sep.aggregate(res)
    assert agg.index.tolist() == SOURCES
    for source in SOURCES:
        per_file = [
            np.median(res.xs((f, source), level=["file", "source"])["sdr"])
            for f in truth.index
        ]
        assert agg.loc[source, "sdr"] == pytest.approx(np.median(per_file))
    per_file = sep.aggregate(res, how="mean", level="file")
    assert per_file.index.names == ["file", "source"]
    assert per_file.loc[("song1.wav", "drums"), "sar"] == pytest.approx(
        res.xs(("song1.wav", "drums"), level=["file", "source"])["sar"].mean()
    )


def test_evaluate_permutation_names_the_estimate(dataset):
    root, truth, prediction, _ = dataset
    swapped = prediction[["drums", "vocals"]].copy()
    swapped.columns = ["est0", "est1"]
    res = sep.evaluate(truth, swapped, permutation=True, root=str(root))
    assert res["estimate"].tolist() == ["est1", "est0", "est1", "est0"]
    plain = sep.evaluate(truth, prediction, root=str(root))
    np.testing.assert_allclose(res["si_sdr"], plain["si_sdr"], atol=1e-12)
    bss = sep.evaluate(
        truth, swapped, permutation=True, metrics="bss_eval_v4", filter_length=16,
        root=str(root),
    )
    assert set(bss.xs("vocals", level="source")["estimate"]) == {"est1"}


def test_evaluate_mismatches_are_clear_errors(dataset):
    root, truth, prediction, _ = dataset
    # sampling rate
    x = _read(root / "0-vocals-est.wav")
    _write(root / "sr.wav", x, rate=RATE * 2)
    bad = prediction.copy()
    bad.iloc[0, 0] = "sr.wav"
    with pytest.raises(ValueError, match="Sampling rate mismatch"):
        sep.evaluate(truth, bad, root=str(root))
    # length
    _write(root / "short.wav", x[:-10])
    bad.iloc[0, 0] = "short.wav"
    with pytest.raises(ValueError, match="Length mismatch"):
        sep.evaluate(truth, bad, root=str(root))
    padded = sep.evaluate(truth, bad, root=str(root), length_mismatch="pad_or_truncate")
    refs = _arrays(root, truth, 0)
    est = _arrays(root, prediction, 0)
    est[0, -10:] = 0.0
    expected = sep.scale_invariant(refs, est)["si_sdr"].mean(axis=1)
    np.testing.assert_allclose(padded.loc["song1.wav"]["si_sdr"], expected, atol=1e-12)
    # channels
    _write(root / "mono.wav", x[:, :1])
    bad.iloc[0, 0] = "mono.wav"
    with pytest.raises(ValueError, match="Channel mismatch"):
        sep.evaluate(truth, bad, root=str(root))


def test_evaluate_argument_errors(dataset):
    root, truth, prediction, mixture = dataset
    with pytest.raises(TypeError, match="truth"):
        sep.evaluate([1, 2], prediction)
    with pytest.raises(ValueError, match="filewise"):
        sep.evaluate(truth.reset_index(), prediction)
    with pytest.raises(ValueError, match="same files"):
        sep.evaluate(truth, prediction.iloc[:1], root=str(root))
    with pytest.raises(ValueError, match="same columns"):
        sep.evaluate(truth, prediction.rename(columns={"drums": "x"}), root=str(root))
    with pytest.raises(ValueError, match="metrics"):
        sep.evaluate(truth, prediction, metrics="pesq")
    with pytest.raises(ValueError, match="missing path"):
        sep.evaluate(truth, prediction.where(prediction != "0-drums-est.wav"))
    with pytest.raises(ValueError, match="how"):
        sep.aggregate(pd.DataFrame(), how="max")
    with pytest.raises(ValueError, match="levels"):
        sep.aggregate(pd.DataFrame({"a": [1.0]}))
    # reordered columns are aligned by name
    res = sep.evaluate(truth, prediction[["drums", "vocals"]], mixture, root=str(root))
    assert res.index.get_level_values("source").tolist() == SOURCES * 2


def test_evaluate_v3_global_and_sa_sdr_equal_array_functions(dataset):
    root, truth, prediction, _ = dataset
    v3 = sep.evaluate(truth, prediction, metrics="bss_eval_sources", filter_length=32,
                      root=str(root))
    glob = sep.evaluate(truth, prediction, metrics="global_sdr", window=0.5, root=str(root))
    sa = sep.evaluate(truth, prediction[["drums", "vocals"]], metrics="sa_sdr",
                      permutation=True, root=str(root))
    assert list(v3.index.names) == ["file", "source"] and list(sa.index.names) == ["file"]
    for n, file in enumerate(truth.index):
        refs, est = _arrays(root, truth, n), _arrays(root, prediction, n)
        res = sep.bss_eval_sources(refs, est, filter_length=32)
        for key in ("sdr", "sir", "sar"):
            np.testing.assert_allclose(v3.loc[file][key], res[key].mean(axis=1), atol=1e-12)
        np.testing.assert_allclose(glob.loc[file]["usdr"], sep.global_sdr(refs, est))
        chunks = sep.chunked_sdr(refs, est, sampling_rate=RATE, chunk=0.5)
        np.testing.assert_allclose(glob.loc[file]["csdr"], chunks["median"])
        assert sa.loc[file, "sa_sdr"] == pytest.approx(sep.sa_sdr(refs, est)["sa_sdr"].mean())
        assert sa.loc[file, "estimate"] == "vocals,drums"
    per_file = sep.aggregate(sa, level="file")
    assert per_file["sa_sdr"].tolist() == sa["sa_sdr"].tolist()
    overall = sep.aggregate(sa, how="mean", level="all")
    assert overall["sa_sdr"].tolist() == [pytest.approx(sa["sa_sdr"].mean())]
    with pytest.raises(ValueError, match="level='all'"):
        sep.aggregate(sa)
    with pytest.raises(ValueError, match="not supported"):
        sep.evaluate(truth, prediction, metrics="global_sdr", permutation=True, root=str(root))


def test_evaluate_ca_sdri_with_absent_classes(dataset):
    root, truth, prediction, mixture = dataset
    # song1: both classes estimated; song2: drums missed, a spurious "bell" (a copy of vocals)
    pred = prediction.copy()
    pred["bell"] = [np.nan, prediction.iloc[1]["vocals"]]
    pred.iloc[1, pred.columns.get_loc("drums")] = np.nan
    res = sep.evaluate(truth, pred, mixture, metrics="ca_sdri", root=str(root))
    assert res.index.tolist() == [
        ("song1.wav", "vocals"), ("song1.wav", "drums"),
        ("song2.wav", "vocals"), ("song2.wav", "drums"), ("song2.wav", "bell"),
    ]
    assert res["status"].tolist() == ["matched", "matched", "matched", "missed", "spurious"]
    per_file = []
    for n, file in enumerate(truth.index):
        refs, est = _arrays(root, truth, n), _arrays(root, prediction, n)
        mix = _read(root / mixture.iloc[n])
        labels = ["vocals", "drums"] if n == 0 else ["vocals", "bell"]
        est = est if n == 0 else est[[0, 0]]
        value = sep.ca_sdri(refs, est, mix, truth_labels=SOURCES, prediction_labels=labels)
        np.testing.assert_allclose(res.loc[file]["sdri"], value["sdri"], atol=1e-12)
        per_file.append(value["ca_sdri"])
    assert res.loc[("song2.wav", "drums"), "sdri"] == 0.0
    overall = sep.aggregate(res, how="mean", level="all")["sdri"].iloc[0]
    assert overall == pytest.approx(np.mean(per_file), abs=1e-12)
    with pytest.raises(ValueError, match="mixture"):
        sep.evaluate(truth, pred, metrics="ca_sdri", root=str(root))


def test_evaluate_missing_or_directory_path_names_file_and_column(dataset):
    root, truth, prediction, _ = dataset
    bad = prediction.copy()
    bad.iloc[1, 1] = "nowhere.wav"
    with pytest.raises(ValueError, match=r"prediction\['drums'\] of file 'song2.wav'.*missing"):
        sep.evaluate(truth, bad, root=str(root))
    (root / "folder.wav").mkdir()
    bad.iloc[1, 1] = "folder.wav"
    with pytest.raises(ValueError, match=r"prediction\['drums'\].*directory"):
        sep.evaluate(truth, bad, root=str(root))
    (root / "junk.wav").write_text("not audio")
    bad = truth.copy()
    bad.iloc[0, 0] = "junk.wav"
    with pytest.raises(ValueError, match=r"truth\['vocals'\] of file 'song1.wav': cannot read audio"):
        sep.evaluate(bad, prediction, root=str(root))
