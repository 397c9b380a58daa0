"""``audeval scores``: score-based metrics from the command line equal the API's.

Inputs in ``tests/assets/cli_scores`` (written by its ``make.py``):
a truth tsv of three clips (one without events), a sed_scores_eval score folder
and psds_eval operating points; and the DESED validation set with its 50 operating points.
"""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_FILES_WITHOUT_ROWS

import audeval
from audeval import _cli
from audeval._cli import main
from audeval._cli.messages import phase


ASSETS = os.path.join(os.path.dirname(__file__), "assets", "cli_scores")
TRUTH = os.path.join(ASSETS, "truth.tsv")
DURATIONS = os.path.join(ASSETS, "durations.tsv")
SCORES = os.path.join(ASSETS, "scores")
OPS = os.path.join(ASSETS, "ops")
DESED = "/work/shared/fixtures/desed"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_csv(capsys, *argv) -> pd.DataFrame:
    code, out, err = run(capsys, "scores", *argv, "--format", "csv")
    assert code == 0, err
    return pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""]).set_index("label")


def api_inputs(kind: str):
    """Truth, scores and durations by stem, as ``--match-files stem`` (the default) reads them."""
    truth = audeval.read_annotations(TRUTH)
    truth.index = truth.index.set_levels(truth.index.levels[0].str.replace(".wav", ""), level=0)
    durations = audeval.read_files_duration(DURATIONS)
    durations.index = durations.index.str.replace(".wav", "")
    if kind == "scores":
        return truth, audeval.read_sed_scores(SCORES), durations
    ops = audeval.read_operating_points(OPS)
    for threshold, series in ops.items():
        series.index = series.index.set_levels(series.index.levels[0].str.replace(".wav", ""), level=0)
    return truth, ops, durations


def expected(kind: str, **options) -> pd.DataFrame:
    truth, scores, durations = api_inputs(kind)
    common = dict(files_duration=durations)
    best = audeval.best_fscore(truth, scores, **common, **options)
    at = audeval.fscore_at(truth, scores, threshold=0.5, **common, **options)
    out = pd.DataFrame({
        "best_fscore": best["fscore"], "best_threshold": best["threshold"],
        "fscore": at["fscore"], "precision": at["precision"], "recall": at["recall"],
    })
    ap = pd.Series(audeval.average_precision(truth, scores, average=None, **common, **options))
    out["average_precision"] = ap.reindex(out.index)
    out.loc["macro", "average_precision"] = audeval.average_precision(truth, scores, **common, **options)
    out.loc["macro", "psds1"] = audeval.psds(truth, scores, **audeval.PSDS1, **common)
    out.loc["macro", "psds2"] = audeval.psds(truth, scores, **audeval.PSDS2, **common)
    if kind == "scores":
        auroc = pd.Series(audeval.auroc(truth, scores, average=None, **common))
        out["auroc"] = auroc.reindex(out.index)
        out.loc["macro", "auroc"] = audeval.auroc(truth, scores, **common)
    return out


@pytest.mark.parametrize("kind, path", [("scores", SCORES), ("operating_points", OPS)])
def test_equals_api(capsys, kind, path):
    got = run_csv(capsys, TRUTH, path, "--files-duration", DURATIONS)
    want = expected(kind)
    assert list(got.index) == ["cat", "dog", "macro", "micro"]
    assert list(got.columns[:2]) == ["psds1", "psds2"]
    assert ("auroc" in got.columns) == (kind == "scores")
    for column in want.columns:
        np.testing.assert_allclose(got[column], want.loc[got.index, column], rtol=1e-12, atol=0)
    # PSDS only in the macro row
    assert got["psds1"].notna().tolist() == [False, False, True, False]


def test_hand_checked_values(capsys):
    got = run_csv(capsys, TRUTH, OPS, "--files-duration", DURATIONS, "--psds", "psds1")
    # cat at 0.6: a.wav 2.5-3.5 and b.wav 0-1, exactly the truth -> F = 1;
    # at 0.8 b.wav's detection 0-0.5 covers half its truth event (< GTC 0.7): a miss
    assert got.loc["cat", "best_fscore"] == 1.0
    assert got.loc["cat", "best_threshold"] == pytest.approx(0.5)  # midway to the next, 0.4
    assert got.loc["cat", "fscore"] == 1.0  # --threshold 0.5: the operating point 0.6
    assert got.loc["cat", "recall"] == 1.0
    assert list(got.columns[:2]) == ["psds1", "best_fscore"]


def test_collar_and_options(capsys):
    got = run_csv(
        capsys, TRUTH, SCORES, "--files-duration", DURATIONS, "--criterion", "collar",
        "--onset-tolerance", "0.5", "--psds", "none", "--max-fpr", "0.5", "--mcclish",
    )
    truth, scores, durations = api_inputs("scores")
    options = dict(criterion="collar", onset_tolerance=0.5, files_duration=durations)
    best = audeval.best_fscore(truth, scores, **options)
    np.testing.assert_allclose(got["best_fscore"], best.loc[got.index, "fscore"], rtol=1e-12)
    auroc = audeval.auroc(truth, scores, files_duration=durations, max_fpr=0.5, mcclish=True, average=None)
    np.testing.assert_allclose(got.loc[["cat", "dog"], "auroc"], [auroc["cat"], auroc["dog"]], rtol=1e-12)
    assert "psds1" not in got.columns


def test_psds_options_change_one_scenario(capsys):
    got = run_csv(capsys, TRUTH, SCORES, "--files-duration", DURATIONS, "--psds", "psds2",
                  "--max-efpr", "50", "--alpha-st", "0")
    truth, scores, durations = api_inputs("scores")
    value = audeval.psds(truth, scores, **{**audeval.PSDS2, "max_efpr": 50.0, "alpha_st": 0.0},
                         files_duration=durations)
    assert got.loc["macro", "psds"] == pytest.approx(value, abs=1e-15)
    code, out, err = run(capsys, "scores", TRUTH, SCORES, "--alpha-ct", "1")
    assert code == 2 and "--psds psds1 or --psds psds2" in err


def test_formats(capsys):
    code, out, err = run(capsys, "scores", TRUTH, SCORES, "--files-duration", DURATIONS)
    assert code == 0, err
    title = out.splitlines()[0]
    assert title.startswith("Score-based metrics: 3 files, 2 labels, score table of 24 frames")
    assert "PSDS2 (macro row): DTC 0.1, GTC 0.1, CTTC 0.3, alpha_ct 0.5" in title
    assert "best_precision" not in out  # shown with --all-columns
    code, out, err = run(capsys, "scores", TRUTH, SCORES, "--format", "markdown", "--all-columns")
    assert code == 0 and out.startswith("### Score-based metrics") and "best_precision" in out
    code, out, err = run(capsys, "scores", TRUTH, OPS, "--format", "json", "--decimals", "3")
    records = json.loads(out)
    assert [r["label"] for r in records] == ["cat", "dog", "macro", "micro"]
    assert records[2]["psds1"] == 0.5 and records[0]["psds1"] is None


@pytest.mark.parametrize(
    "argv, message",
    [
        ([TRUTH, os.path.join(ASSETS, "missing")], "no such file or directory"),
        ([TRUTH, TRUTH], "SCORES must be a folder"),
        ([TRUTH, SCORES, "--compat", "psds_eval"], "operating points"),
        ([TRUTH, OPS, "--criterion", "collar"], "criterion='intersection' only"),
        ([TRUTH, SCORES, "--match-files", "exact"], "no frames for truth files"),
        ([TRUTH, SCORES, "--dtc-threshold", "1.5"], "dtc_threshold must be in [0, 1]; got 1.5"),
        ([TRUTH, SCORES, "--psds", "psds3"], "expected psds1, psds2 or none"),
        ([TRUTH, SCORES, "--labels", "cat,bird"], "bird"),
        ([TRUTH, SCORES, "--per-file"], "unrecognized arguments"),
    ],
)
def test_errors(capsys, argv, message):
    code, out, err = run(capsys, "scores", *argv)
    assert code == 2 and out == ""
    assert err.startswith("audeval: error: ") and message in err and err.count("\n") == 1


def test_help(capsys):
    code, out, err = run(capsys, "scores", "--help")
    assert code == 0
    assert out.startswith("usage: audeval scores [-h]") and "--cttc-threshold RATIO" in out
    code, out, err = run(capsys, "--help")
    assert "scores" in out


def test_progress_phase(capsys, monkeypatch):
    monkeypatch.setattr(_cli.messages, "_progress_wanted", lambda args: True)
    with phase(None, "Scoring", True):
        pass
    assert "Scoring" in capsys.readouterr().err
    with phase(None, "Scoring", False):  # few files: no bar
        pass
    assert capsys.readouterr().err == ""


@pytest.mark.skipif(not os.path.isdir(DESED), reason="DESED fixtures not available")
def test_desed_operating_points(capsys):
    """psds_eval gives PSDS1 0.33447 and PSDS2 0.5281 on these 50 operating points."""
    got = run_csv(
        capsys, os.path.join(DESED, "validation.tsv"), os.path.join(DESED, "ops"),
        "--files-duration", os.path.join(DESED, "validation_durations.tsv"), "--compat", "psds_eval",
    )
    assert got.loc["macro", "psds1"] == pytest.approx(0.33447, abs=5e-6)
    assert got.loc["macro", "psds2"] == pytest.approx(0.5281, abs=5e-5)
    assert len(got) == 12 and got.loc["Speech", "best_threshold"] == pytest.approx(0.52)


def test_audio_ids_with_dots(capsys, tmp_path):
    """DCASE names like Y..._30.000_40.000.wav: the score file's id is not cut at its last dot."""
    (tmp_path / "scores").mkdir()
    name = "Yabc_30.000_34.000"
    with open(os.path.join(SCORES, "a.tsv")) as fp:
        (tmp_path / "scores" / f"{name}.tsv").write_text(fp.read())
    (tmp_path / "truth.tsv").write_text(
        f"filename\tonset\toffset\tevent_label\n{name}.wav\t0.5\t2.0\tdog\n{name}.wav\t2.5\t3.5\tcat\n"
    )
    code, out, err = run(capsys, "scores", tmp_path / "truth.tsv", tmp_path / "scores", "--psds", "none")
    assert code == 0, err
    assert out.startswith("Score-based metrics: 1 files, 2 labels")


def test_every_long_phase_moves(capsys, monkeypatch, tmp_path):
    """Reading counts files; scoring shows its elapsed time (issue 33, item 18)."""
    monkeypatch.setattr(_cli.messages, "_progress_wanted", lambda args: True)
    (tmp_path / "scores").mkdir()
    with open(os.path.join(SCORES, "a.tsv")) as fp:
        text = fp.read()
    lines = ["filename\tonset\toffset\tevent_label"]
    for i in range(12):
        (tmp_path / "scores" / f"clip{i:02d}.tsv").write_text(text)
        lines.append(f"clip{i:02d}.wav\t0.5\t2.0\tdog")
    (tmp_path / "truth.tsv").write_text("\n".join(lines) + "\n")
    from audeval._io import scores as readers

    steps = []

    def progress(items, verbose, desc):
        steps.append((len(items), verbose, desc))
        return items

    monkeypatch.setattr(readers, "_progress", progress)
    code, out, err = run(capsys, "scores", tmp_path / "truth.tsv", tmp_path / "scores", "--psds", "psds1")
    assert code == 0, err
    assert steps == [(12, True, "Reading scores")]  # a bar with one step per file
    assert "Scoring (intersection): working, 00:00 elapsed" in err  # not a frozen 0 % bar
    assert "Scoring (segment): working, 00:00 elapsed" in err


def test_working_shows_the_elapsed_time(capsys, monkeypatch):
    import time

    from audeval._cli.scores import working

    monkeypatch.setattr(_cli.messages, "_progress_wanted", lambda args: True)
    with working(None, "Scoring", True):
        time.sleep(1.2)
    err = capsys.readouterr().err
    assert "Scoring: working, 00:00 elapsed" in err
    assert "Scoring: working, 00:01 elapsed" in err  # refreshed while the step runs
    with working(None, "Scoring", False):  # few files: no bar
        pass
    assert capsys.readouterr().err == ""


@MAY_WARN_FILES_WITHOUT_ROWS
def test_psds_eval_compat_uses_the_files_seconds(capsys, tmp_path):
    """The CLI reads operating points with their seconds: a cross trigger at the CTTC counts (item 9)."""
    peers = os.path.join(os.path.dirname(__file__), "assets", "scores_psds_eval")
    with open(os.path.join(peers, "golden.json")) as fp:
        expected = json.load(fp)["readme"][0]  # alpha_ct 1, alpha_st 0, max eFPR 5000
    (tmp_path / "ops").mkdir()
    with open(os.path.join(peers, "readme_th_0.5.det")) as fp:
        (tmp_path / "ops" / "predictions_th_0.5.tsv").write_text(fp.read())
    options = ["--psds", "psds2", "--dtc-threshold", "0.5", "--gtc-threshold", "0.5",
               "--alpha-ct", "1", "--alpha-st", "0", "--max-efpr", "5000"]
    got = run_csv(capsys, os.path.join(peers, "readme.gt"), tmp_path / "ops",
                  "--files-duration", os.path.join(peers, "readme.metadata"), "--compat", "psds_eval",
                  *options)
    assert got.loc["macro", "psds"] == pytest.approx(expected["psds"], abs=1e-6)  # 0.78736
    exact = run_csv(capsys, os.path.join(peers, "readme.gt"), tmp_path / "ops",
                    "--files-duration", os.path.join(peers, "readme.metadata"), *options)
    assert exact.loc["macro", "psds"] == pytest.approx(0.964, abs=1e-6)  # no cross trigger in ns
