"""The ``audeval`` command line interface, end to end.

Most paths run in-process through ``main([...])``;
a few run ``python -m audeval`` in a subprocess.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import run, run_csv, write

import audeval
from audeval import _cli
from audeval._cli import inputs
from audeval._cli import main


ASSETS = os.path.join(os.path.dirname(__file__), "assets", "cli")
EXAMPLE = audeval.example_files()


@pytest.fixture(scope="module")
def mirex(tmp_path_factory):
    """The example dataset as MIREX directories (one .txt per audio file)."""
    root = tmp_path_factory.mktemp("mirex")
    for side, folder in (("truth", "ref"), ("prediction", "est")):
        rows: dict[str, list] = {}
        with open(EXAMPLE[side]) as fp:
            reader = csv.reader(fp, delimiter="\t")
            next(reader)
            for fields in reader:
                rows.setdefault(fields[0], [])
                if len(fields) == 4:
                    rows[fields[0]].append(fields[1:])
        for file, events in rows.items():
            write(
                root / folder / file.replace(".wav", ".txt"),
                "".join("\t".join(e) + "\n" for e in events),
            )
    return root


@pytest.fixture(scope="module")
def golden():
    with open(os.path.join(ASSETS, "mirex_golden.json")) as fp:
        return json.load(fp)


# -------------------------------------------------------------------------
# The example and the MIREX 2018 workflow
# -------------------------------------------------------------------------


def test_example(capsys):
    code, out, err = run(capsys, "example")
    assert code == 0, err
    assert err == ""
    assert "Event-based metrics: 6 files, 3 labels" in out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert "micro" in lines and "macro" in lines and "speech" in lines
    code, out, _ = run(capsys, "example", "--path")
    assert code == 0 and out.strip() == os.path.dirname(EXAMPLE["truth"])


def test_example_formats(capsys):
    code, out, _ = run(capsys, "example", "--format", "markdown")
    assert code == 0
    assert "### Event-based metrics" in out and "| label | n_truth |" in out
    code, out, _ = run(capsys, "example", "--format", "json")
    assert code == 0
    # events, then (once the family exists) segments
    assert out.startswith("[")


def test_mirex_events(capsys, mirex, golden):
    """audeval events REF_DIR EST_DIR --onset-tolerance 0.5 --no-offset: sed_eval with onsets only.

    (MIREX 2018's own evaluation checks offsets too: see test_cli_issue33.py.)
    """
    argv = ["events", mirex / "ref", mirex / "est", "--onset-tolerance", "0.5", "--no-offset"]
    report = run_csv(capsys, *argv).set_index("label")
    dataset = golden["events"]["dataset"]
    for label in golden["labels"]:
        for ours, theirs in (
            ("precision", "precision"),
            ("recall", "recall"),
            ("fscore", "f_measure"),
            ("deletion_rate", "deletion_rate"),
            ("insertion_rate", "insertion_rate"),
            ("error_rate", "error_rate"),
        ):
            assert report.loc[label, ours] == pytest.approx(dataset[label][theirs], abs=1e-12)
    overall = dataset["overall"]
    micro = report.loc["micro"]
    assert micro["precision"] == pytest.approx(overall["precision"], abs=1e-12)
    assert micro["recall"] == pytest.approx(overall["recall"], abs=1e-12)
    assert micro["fscore"] == pytest.approx(overall["f_measure"], abs=1e-12)
    assert micro["deletion_rate"] == pytest.approx(overall["deletion_rate"], abs=1e-12)
    assert micro["insertion_rate"] == pytest.approx(overall["insertion_rate"], abs=1e-12)
    # the dataset error rate includes substitutions (MIREX 2018 left them out)
    assert micro["error_rate"] == pytest.approx(overall["error_rate"], abs=1e-12)
    assert micro["error_rate"] == pytest.approx(
        overall["error_rate_without_substitutions"] + micro["substitution_rate"], abs=1e-12
    )
    assert micro["substitution_rate"] == pytest.approx(overall["substitution_rate"], abs=1e-12)
    # per file, class-wise
    per_file = run_csv(capsys, *argv, "--per-file").set_index(["file", "label"])
    for file, values in golden["events"]["files"].items():
        key = file.removesuffix(".txt")
        for label in golden["labels"]:
            row = per_file.loc[(key, label)]
            if not np.isnan(values[label]["f_measure"]):
                assert row["fscore"] == pytest.approx(values[label]["f_measure"], abs=1e-12)
            assert row["deletion_rate"] == pytest.approx(
                values[label]["deletion_rate"], abs=1e-12, nan_ok=True
            )
    # the dataset rows are the TOTAL rows of the long table
    total = per_file.loc["TOTAL"]
    pd.testing.assert_frame_equal(total, report, check_names=False)


def test_mirex_segments(capsys, mirex, golden):
    """audeval segments REF_DIR EST_DIR --time-resolution 0.01."""
    argv = ["segments", mirex / "ref", mirex / "est", "--time-resolution", "0.01"]
    dataset = golden["segments"]["dataset"]
    # sed_eval's float binning: equal to the last digit
    report = run_csv(capsys, *argv, "--compat", "sed_eval").set_index("label")
    for label in golden["labels"]:
        assert report.loc[label, "precision"] == pytest.approx(dataset[label]["precision"], abs=1e-12)
        assert report.loc[label, "recall"] == pytest.approx(dataset[label]["recall"], abs=1e-12)
        assert report.loc[label, "fscore"] == pytest.approx(dataset[label]["f_measure"], abs=1e-12)
    micro = report.loc["micro"]
    assert micro["accuracy"] == pytest.approx(dataset["overall"]["accuracy"], abs=1e-12)
    assert micro["error_rate"] == pytest.approx(dataset["overall"]["error_rate"], abs=1e-12)
    # exact times: a few 10 ms segments apart
    exact = run_csv(capsys, *argv).set_index("label")
    assert exact.loc["micro", "accuracy"] == pytest.approx(dataset["overall"]["accuracy"], abs=2e-3)
    per_file = run_csv(capsys, *argv, "--compat", "sed_eval", "--per-file")
    per_file = per_file.set_index(["file", "label"])
    for file, values in golden["segments"]["files"].items():
        key = file.removesuffix(".txt")
        assert per_file.loc[(key, "micro"), "accuracy"] == pytest.approx(
            values["overall"]["accuracy"], abs=1e-12
        )


def test_table_output(capsys, mirex):
    code, out, err = run(
        capsys, "events", mirex / "ref", mirex / "est", "--onset-tolerance", "0.5", "--no-offset",
        "--per-file",
    )
    assert code == 0, err
    assert out.index("Per file") < out.index("Event-based metrics")
    assert "clip06" in out  # no truth events, one false alarm
    # counts without decimals, rates with three
    micro = [line for line in out.splitlines() if line.startswith("micro")][-1].split()
    assert micro[1:4] == ["36", "38", "33"]
    assert micro[4] == "0.868"
    code, out, _ = run(capsys, "events", mirex / "ref", mirex / "est", "--all-columns")
    assert "substitutions" in out
    code, out, _ = run(capsys, "events", mirex / "ref", mirex / "est", "--decimals", "1")
    assert " 0.9 " in out or " 0.8 " in out


def test_output_file_and_formats(capsys, tmp_path, mirex):
    base = ["events", mirex / "ref", mirex / "est"]
    for format in ("table", "csv", "json", "markdown"):
        target = tmp_path / f"out.{format}"
        code, out, err = run(capsys, *base, "--format", format, "--output", target)
        assert code == 0, err
        assert out == ""
        text = target.read_text()
        assert "micro" in text
    records = json.loads((tmp_path / "out.json").read_text())
    assert [r["label"] for r in records] == ["music", "noise", "speech", "micro", "macro"]
    assert records[-1]["n_truth"] is None  # NaN as null
    markdown = (tmp_path / "out.markdown").read_text().splitlines()
    assert markdown[2].startswith("| label |") and markdown[3].startswith("|---|---:|")


# -------------------------------------------------------------------------
# Every input format
# -------------------------------------------------------------------------


def test_dcase_tsv_keeps_files_without_events(capsys, tmp_path):
    truth = write(
        tmp_path / "truth.tsv",
        "filename\tonset\toffset\tevent_label\na.wav\t0\t1\tdog\nb.wav\n",
    )
    prediction = write(
        tmp_path / "prediction.tsv",
        "filename\tonset\toffset\tevent_label\na.wav\t0.1\t1\tdog\nb.wav\n",
    )
    per_file = run_csv(capsys, "events", truth, prediction, "--per-file").set_index(["file", "label"])
    assert ("b.wav", "micro") in per_file.index  # a file without events is evaluated
    assert per_file.loc[("b.wav", "micro"), "n_truth"] == 0
    code, _, err = run(capsys, "events", truth, prediction)
    assert code == 0 and err == ""  # both sides name b.wav: nothing to report


def test_segments_count_silent_files(capsys, tmp_path):
    truth = write(tmp_path / "t.tsv", "filename\tonset\toffset\tevent_label\na\t0\t2\tx\nb\n")
    prediction = write(tmp_path / "p.tsv", "filename\tonset\toffset\tevent_label\na\t0\t2\tx\nb\n")
    durations = write(tmp_path / "d.csv", "file,duration\na,2\nb,3\n")
    report = run_csv(
        capsys, "segments", truth, prediction, "--files-duration", durations
    ).set_index("label")
    # 2 segments of a and 3 true-negative segments of the silent file b
    assert report.loc["x", "tn"] == 3
    assert report.loc["x", "tp"] == 2


def test_audformat_csv_and_database(capsys, tmp_path):
    import audformat

    db = audformat.Database("db")
    db.schemes["c"] = audformat.Scheme(labels=["speech", "music"])
    index = audformat.segmented_index(["a.wav", "a.wav"], [0, 2], [2, 4])
    db["truth"] = audformat.Table(index)
    db["truth"]["c"] = audformat.Column(scheme_id="c")
    db["truth"]["c"].set(["speech", "music"])
    db["pred"] = audformat.Table(index)
    db["pred"]["c"] = audformat.Column(scheme_id="c")
    db["pred"]["c"].set(["speech", "speech"])
    db.save(tmp_path / "db", storage_format="csv")
    argv = [
        "events", tmp_path / "db", tmp_path / "db",
        "--truth-table", "truth", "--prediction-table", "pred", "--column", "c",
    ]
    report = run_csv(capsys, *argv).set_index("label")
    assert list(report.index) == ["speech", "music", "micro", "macro"]  # scheme order
    assert report.loc["micro", "tp"] == 1
    # the tables as audformat CSV files give the same report
    csv_report = run_csv(
        capsys, "events", tmp_path / "db" / "db.truth.csv", tmp_path / "db" / "db.pred.csv"
    ).set_index("label")
    assert csv_report.loc["micro", "tp"] == 1
    # a database column against a tsv: labels compared as text
    tsv = write(tmp_path / "p" / "a.txt", "0\t2\tspeech\n2\t4\tmusic\n")
    report = run_csv(
        capsys, "events", tmp_path / "db", tsv, "--truth-table", "truth", "--column", "c",
        "--match-files", "stem",
    ).set_index("label")
    assert report.loc["micro", "tp"] == 2


def test_match_files(capsys, tmp_path):
    truth = write(tmp_path / "t.tsv", "filename\tonset\toffset\tevent_label\naudio/a.wav\t0\t1\tx\n")
    prediction = write(tmp_path / "est" / "a.txt", "0\t1\tx\n")
    code, out, err = run(capsys, "events", truth, tmp_path / "est")
    assert code == 0
    assert "use --match-files stem" in err
    assert "1 file(s) only in the truth, scored as missed: audio/a.wav" in err
    report = run_csv(capsys, "events", truth, prediction, "--match-files", "stem").set_index("label")
    assert report.loc["micro", "tp"] == 1
    clash = write(
        tmp_path / "u.tsv",
        "filename\tonset\toffset\tevent_label\nx/a.wav\t0\t1\tx\ny/a.wav\t0\t1\tx\n",
    )
    code, _, err = run(capsys, "events", clash, prediction, "--match-files", "stem")
    assert code == 2 and "same stem 'a'" in err


def test_lab_structure(capsys, tmp_path):
    write(tmp_path / "ref" / "s1.lab", "0\t10\tverse\n10\t20\tchorus\n")
    write(tmp_path / "est" / "s1.lab", "0\t10\tA\n10\t20\tB\n")
    write(tmp_path / "ref" / "s2.lab", "0 5 a\n5 9 b\n")
    write(tmp_path / "est" / "s2.lab", "0 4 x\n4 9 y\n")
    argv = ["structure", tmp_path / "ref", tmp_path / "est"]
    mean = run_csv(capsys, *argv).set_index("file")
    assert list(mean.index) == ["mean"]
    per_file = run_csv(capsys, *argv, "--per-file").set_index("file")
    assert list(per_file.index) == ["s1", "s2", "mean"]
    assert per_file.loc["s1", "f_measure_at_0_5"] == 1.0
    assert per_file.loc["mean", "rand_index"] == pytest.approx(
        per_file.loc[["s1", "s2"], "rand_index"].mean()
    )
    code, out, _ = run(capsys, *argv, "--frame-size", "exact", "--windows", "0.5")
    assert code == 0 and "frameless" in out and "f_measure_at_3_0" not in out


def test_rttm_diarization_and_detection(capsys, tmp_path):
    truth = write(
        tmp_path / "ref.rttm",
        "SPEAKER m1 1 0 5 <NA> <NA> alice <NA> <NA>\n"
        "SPEAKER m1 1 5 5 <NA> <NA> bob <NA> <NA>\n",
    )
    prediction = write(
        tmp_path / "est.rttm",
        "SPEAKER m1 1 0 5 <NA> <NA> s1 <NA> <NA>\n"
        "SPEAKER m1 1 5 4 <NA> <NA> s2 <NA> <NA>\n",
    )
    durations = write(tmp_path / "d.csv", "m1,10\n")
    argv = ["diarization", truth, prediction, "--files-duration", durations]
    report = run_csv(capsys, *argv).set_index("file")
    assert list(report.index) == ["TOTAL"]
    assert report.loc["TOTAL", "diarization_error_rate"] == pytest.approx(0.1)
    per_file = run_csv(capsys, *argv, "--per-file", "--mapping", "greedy").set_index("file")
    assert list(per_file.index) == ["m1", "TOTAL"]
    code, out, err = run(capsys, "diarization", truth, prediction)
    assert code == 0 and "files_duration is not known" in err  # the family's warning
    detection = run_csv(
        capsys, "detection", truth, prediction, "--files-duration", durations, "--collar", "0"
    ).set_index("file")
    assert detection.loc["TOTAL", "detection_error_rate"] == pytest.approx(0.1)


def test_separation(capsys, tmp_path):
    import audeval.separation  # noqa: F401 (a subpackage)

    audiofile = pytest.importorskip("audiofile")
    rng = np.random.default_rng(1)
    truth_rows, estimate_rows = ["file,a,b"], ["file,a,b"]
    for mix in ("m1", "m2"):
        a, b = rng.standard_normal((2, 800)) / 8
        audiofile.write(os.fspath(tmp_path / f"{mix}-a.wav"), a, 8000, bit_depth=32)
        audiofile.write(os.fspath(tmp_path / f"{mix}-b.wav"), b, 8000, bit_depth=32)
        audiofile.write(os.fspath(tmp_path / f"{mix}-a-est.wav"), a + 0.1 * b, 8000, bit_depth=32)
        audiofile.write(os.fspath(tmp_path / f"{mix}-b-est.wav"), b + 0.1 * a, 8000, bit_depth=32)
        truth_rows.append(f"{mix}.wav,{mix}-a.wav,{mix}-b.wav")
        estimate_rows.append(f"{mix}.wav,{mix}-a-est.wav,{mix}-b-est.wav")
    truth = write(tmp_path / "truth.csv", "\n".join(truth_rows) + "\n")
    prediction = write(tmp_path / "est.csv", "\n".join(estimate_rows) + "\n")
    report = run_csv(capsys, "separation", truth, prediction).set_index("source")
    assert list(report.index) == ["a", "b"]
    assert report.loc["a", "si_sdr"] == pytest.approx(20.0, abs=0.5)
    per_file = run_csv(capsys, "separation", truth, prediction, "--per-file")
    assert per_file["file"].tolist() == ["m1.wav", "m1.wav", "m2.wav", "m2.wav", "TOTAL", "TOTAL"]
    bss = run_csv(
        capsys, "separation", truth, prediction, "--metrics", "bss_eval_v4", "--window", "0.05"
    ).set_index("source")
    assert {"sdr", "sir", "sar", "isr"} <= set(bss.columns)
    # the metrics of issue 22 from the command line, as from the API
    tables = [audeval.separation.evaluate(
        *(pd.read_csv(f).set_index("file").map(lambda p: os.fspath(tmp_path / p)) for f in (truth, prediction)),
        metrics=metrics,
    ) for metrics in ("bss_eval_sources", "global_sdr", "sa_sdr")]
    v3 = run_csv(capsys, "separation", truth, prediction, "--metrics", "bss_eval_sources").set_index("source")
    assert v3.loc["a", "sdr"] == pytest.approx(tables[0].xs("a", level="source")["sdr"].median(), abs=1e-3)
    usdr = run_csv(capsys, "separation", truth, prediction, "--metrics", "global_sdr").set_index("source")
    assert usdr.loc["b", "usdr"] == pytest.approx(tables[1].xs("b", level="source")["usdr"].median(), abs=1e-3)
    sa = run_csv(capsys, "separation", truth, prediction, "--metrics", "sa_sdr", "--per-file")
    assert sa["file"].tolist() == ["m1.wav", "m2.wav", "TOTAL"]
    assert sa["sa_sdr"].iloc[-1] == pytest.approx(tables[2]["sa_sdr"].median(), abs=1e-3)
    bad = write(tmp_path / "bad.csv", "file,a,b\nm1.wav,m1-a.wav,\n")
    code, _, err = run(capsys, "separation", bad, prediction)
    assert code == 2 and "bad.csv:2: empty cell in column 'b'" in err
    missing = write(tmp_path / "missing.csv", "file,a,b\nm1.wav,m1-a.wav,nope.wav\n")
    code, _, err = run(capsys, "separation", missing, missing)
    assert code == 2 and err.count("\n") == 1
    assert "missing.csv:2: no audio file" in err
    broken = write(tmp_path / "broken.wav", "not audio")
    broken_csv = write(tmp_path / "broken.csv", f"file,a,b\nm1.wav,{broken},{broken}\n")
    code, _, err = run(capsys, "separation", broken_csv, broken_csv)
    assert code == 2 and err.count("\n") == 1 and "cannot read audio" in err


# -------------------------------------------------------------------------
# Errors: one line on stderr, exit code 2
# -------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    os.makedirs(tmp_path / "empty")
    return {
        "good": write(tmp_path / "good.txt", "0\t1\tx\n"),
        "bad_time": write(tmp_path / "bad_time.txt", "0\t1\tx\n1\tlate\tx\n"),
        # "0\t1" is a valid onset-offset list now (issue 18 item 2): six fields are not
        "bad_fields": write(tmp_path / "bad_fields.txt", "0\t1\tx\ta.wav\t1\t2\n"),
        "reversed": write(tmp_path / "reversed.txt", "2\t1\tx\n"),
        "bad_csv": write(tmp_path / "bad.csv", "file,start,end,label\na,0,one,x\n"),
        "bad_rttm": write(tmp_path / "bad.rttm", "SPEAKER a 1 zero 1 <NA> <NA> x <NA> <NA>\n"),
        "durations": write(tmp_path / "d.csv", "file,duration\ngood,abc\n"),
        "empty_dir": os.fspath(tmp_path / "empty"),
        "missing": os.fspath(tmp_path / "missing.txt"),
    }


ERRORS = [
    (["events"], "the following arguments are required: TRUTH, PREDICTION"),
    (["events", "{good}"], "the following arguments are required"),
    (["events", "{missing}", "{good}"], "missing.txt: no such file or directory"),
    (["events", "{good}", "{bad_time}"], "bad_time.txt:2: offset must be a number"),
    (["events", "{bad_fields}", "{good}"], "bad_fields.txt:1: expected"),
    (["events", "{reversed}", "{good}"], "reversed.txt:1: offset 1 is before onset 2"),
    (["events", "{bad_csv}", "{good}"], "bad.csv:2: end must be a time"),
    (["events", "{bad_rttm}", "{good}"], "bad.rttm:1: onset must be a number"),
    (["events", "{empty_dir}", "{good}"], "no annotation files"),
    (["events", "{good}", "{good}", "--files-duration", "{durations}"], "d.csv:2: duration"),
    (["events", "{good}", "{good}", "--files-duration", "{missing}"], "no such file"),
    (["events", "{good}", "{good}", "--onset-tolerance", "-1"], "expected non-negative seconds"),
    (["events", "{good}", "{good}", "--onset-tolerance", "x"], "expected seconds"),
    (["events", "{good}", "{good}", "--no-onset", "--no-offset"], "leave nothing to evaluate"),
    (["events", "{good}", "{good}", "--matching", "best"], "invalid choice: 'best'"),
    (["events", "{good}", "{good}", "--format", "xml"], "invalid choice: 'xml'"),
    (["events", "{good}", "{good}", "--labels", "a,,b"], "comma-separated list"),
    (["events", "{good}", "{good}", "--decimals", "-1"], "non-negative integer"),
    (["events", "{good}", "{good}", "--input-format", "db"], "db.yaml is missing"),
    (["events", "{good}", "{good}", "--example"], "give either --example or TRUTH"),
    (["events", "{good}", "{good}", "--bogus"], "unrecognized arguments: --bogus"),
    (["segments", "{good}", "{good}", "--time-resolution", "0"], "positive seconds"),
    (["structure", "{good}", "{good}", "--windows", "a"], "expected seconds"),
    (["diarization", "{good}", "{good}", "--mapping", "x"], "invalid choice"),
    (["separation", "{good}", "{good}"], "needs a 'file' column"),
    (["separation", "{empty_dir}", "{good}"], "is a directory, expected a CSV"),
    (["separation", "{missing}", "{good}"], "no such file"),
    (["nonsense"], "invalid choice: 'nonsense'"),
    ([], "COMMAND"),
]


@pytest.mark.parametrize("argv, message", ERRORS)
def test_errors(capsys, files, argv, message):
    code, out, err = run(capsys, *[a.format(**files) for a in argv])
    assert code == 2
    assert out == ""
    if argv:
        assert err.count("\n") == 1, err
        assert err.startswith("audeval: error: ") or err.startswith("audeval")
    assert message in err


def test_error_from_a_metric_is_one_line(capsys, tmp_path):
    # filewise truth without durations: the validation gate's multi-line message in one line
    truth = write(tmp_path / "t.csv", "file,label\na.wav,x\n")
    prediction = write(tmp_path / "a.txt", "0\t1\tx\n")
    code, _, err = run(capsys, "events", truth, prediction, "--match-files", "stem")
    assert code == 2
    assert err.count("\n") == 1 and "files_duration" in err


def test_help_and_version(capsys):
    assert main(["--help"]) == 0
    assert "events" in capsys.readouterr().out
    assert main(["events", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--onset-tolerance", "--no-offset", "--per-file", "--format", "--output"):
        assert option in out
    assert main(["--version"]) == 0
    assert audeval.__version__ in capsys.readouterr().out


def test_progress_bar(capsys, monkeypatch, tmp_path):
    for i in range(_cli.PROGRESS_MIN_FILES + 2):
        write(tmp_path / "ref" / f"{i}.txt", "0\t1\tx\n")
    monkeypatch.setattr(_cli.messages, "_progress_wanted", lambda args: True)
    code, out, err = run(
        capsys, "events", tmp_path / "ref", tmp_path / "ref", "--per-file", "--format", "csv"
    )
    assert code == 0
    assert "Reading" in err and "Scoring events" in err
    code, out, err = run(capsys, "segments", tmp_path / "ref", tmp_path / "ref", "--per-file")
    assert "Scoring segments " in err and "Scoring segments per file" in err
    # one large annotation file: a bar while it is read
    monkeypatch.setattr(inputs, "LARGE_FILE_BYTES", 0)
    code, out, err = run(capsys, "events", EXAMPLE["truth"], EXAMPLE["prediction"])
    assert "Reading truth" in err and "Reading prediction" in err
    assert "Scoring" not in err  # 6 files: no bar while scoring
    monkeypatch.setattr(_cli.messages, "_progress_wanted", lambda args: False)
    code, out, err = run(capsys, "events", tmp_path / "ref", tmp_path / "ref")
    assert code == 0 and err == ""


# -------------------------------------------------------------------------
# A few real processes
# -------------------------------------------------------------------------


def _process(*argv):
    return subprocess.run(
        [sys.executable, "-m", "audeval", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )


def test_process_example():
    process = _process("example")
    assert process.returncode == 0, process.stderr
    assert "Event-based metrics" in process.stdout
    assert "micro" in process.stdout


def test_process_bad_input(tmp_path):
    bad = write(tmp_path / "bad.txt", "0\t1\tx\nzero\t1\tx\n")
    process = _process("events", bad, bad)
    assert process.returncode == 2
    assert process.stdout == ""
    assert process.stderr == (
        f"audeval: error: {bad}:2: onset must be a number of seconds; got 'zero'.\n"
    )


def test_diarization_scored_region_options(capsys, tmp_path):
    """--collar-convention, --uem, --regions and --compat reach the API (issue 21)."""
    folder = os.path.join(os.path.dirname(__file__), "..", "docs", "examples", "cli")
    reference, system = (os.path.join(folder, f) for f in ("reference.rttm", "system.rttm"))
    truth, prediction = audeval.read_rttm(reference), audeval.read_rttm(system)
    uem = tmp_path / "scored.uem"
    uem.write_text("meeting1 1 0.0 6.0\nmeeting2 1 1.0 8.0\n")
    argv = [
        "diarization", reference, system, "--collar", "0.25", "--collar-convention", "per_side",
        "--uem", str(uem), "--regions", "nonoverlap", "--compat", "pyannote",
    ]
    table = run_csv(capsys, *argv).set_index("file")
    expected = audeval.diarization_report(
        truth,
        prediction,
        collar=0.25,
        collar_convention="per_side",
        uem=audeval.read_uem(uem),
        regions="nonoverlap",
        compat="pyannote",
    )
    assert table.loc["TOTAL", "diarization_error_rate"] == pytest.approx(
        expected.loc["TOTAL", "diarization_error_rate"], abs=1e-12
    )
    code, out, err = run(capsys, *argv[:-2], "--format", "markdown")
    assert "collar 0.25 s per side (md-eval)" in out


def test_agreement(capsys, tmp_path):
    """audeval agreement RATER RATER ...: the API's kappa and alpha (issue 19).

    The rater files r1.txt, r2.txt, r3.txt each list the events of one audio file:
    the CLI scores them as one file (the API is given them under one file name).
    """
    rows = {
        "r1": "0.0\t2.0\tspeech\n2.0\t5.0\tmusic\n",
        "r2": "0.0\t2.5\tspeech\n2.5\t5.0\tmusic\n",
        "r3": "0.0\t2.0\tspeech\n3.0\t5.0\tmusic\n",
    }
    paths = [write(tmp_path / f"{name}.txt", text) for name, text in rows.items()]
    raters = {}
    for name, path in zip(rows, paths):
        series = audeval.read_annotations(path)
        series.index = series.index.set_levels(["r1"], level="file")
        raters[name] = series
    table = run_csv(capsys, "agreement", *paths).set_index("rater")
    assert table.loc["r1", "r2"] == pytest.approx(audeval.cohen_kappa(raters["r1"], raters["r2"]), abs=1e-12)
    assert table.loc["all raters", "krippendorff_alpha"] == pytest.approx(
        audeval.krippendorff_alpha(raters), abs=1e-12
    )
    assert table.loc["all raters", "fleiss_kappa"] == pytest.approx(audeval.fleiss_kappa(raters), abs=1e-12)
    code, out, err = run(capsys, "agreement", paths[0])
    assert code == 2 and "at least two raters" in err
    # the rater columns of an audformat database
    import audformat

    db = audformat.Database("qa")
    db.schemes["kind"] = audformat.Scheme(labels=["speech", "music"])
    index = audformat.segmented_index(["f.wav"] * 3, [0.0, 2.0, 4.0], [2.0, 4.0, 5.0])
    db["segments"] = audformat.Table(index)
    for rater, labels in {"a": ["speech", "music", "music"], "b": ["speech", "speech", "music"]}.items():
        db.raters[rater] = audformat.Rater()
        db["segments"][rater] = audformat.Column(scheme_id="kind", rater_id=rater)
        db["segments"][rater].set(labels)
    db.save(os.fspath(tmp_path / "db"))
    table = run_csv(capsys, "agreement", "--database", os.fspath(tmp_path / "db")).set_index("rater")
    raters = audeval.rater_annotations(db)
    assert table.loc["a", "b"] == pytest.approx(audeval.cohen_kappa(raters["a"], raters["b"]), abs=1e-12)
    code, out, err = run(capsys, "agreement", *paths, "--names", "a,b")
    assert code == 2 and "--names" in err


def test_empty_mirex_file_and_durations_agree_with_the_api(capsys, tmp_path):
    """Issue 18, item 17: a file without events counts (true negatives) in the CLI and the API alike."""
    for side, rows in (("ref", "0.0\t4.0\tmusic\n4.0\t6.0\tspeech\n"), ("est", "0.0\t4.0\tmusic\n4.0\t9.0\tspeech\n")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "f.txt").write_text(rows)
        (tmp_path / side / "empty.txt").write_text("")
    durations = tmp_path / "d.csv"
    durations.write_text("file,duration\nf.txt,10\nempty.txt,10\n")
    argv = [tmp_path / "ref", tmp_path / "est", "--time-resolution", "0.01", "--files-duration", durations]
    table = run_csv(capsys, "segments", *argv, "--match-files", "stem")
    truth = audeval.read_annotations(str(tmp_path / "ref"))
    prediction = audeval.read_annotations(str(tmp_path / "est"))
    with pytest.warns(audeval.FilesWithoutRowsWarning, match=r"\('empty'\)"):  # issue 33 item 6
        api = audeval.segment_accuracy(
            truth, prediction, time_resolution=0.01, files_duration={"f": 10, "empty": 10}
        )
    assert api == pytest.approx(0.925)  # (1700 + 2000) / 4000
    assert table.set_index("label").loc["micro", "accuracy"] == pytest.approx(api)
    # keys with the extension do not name the files "f" and "empty" of the annotations: warned
    code, out, err = run(capsys, "segments", *argv)
    assert code == 0
    assert "files_duration is not known for 2 of 4 files (empty, f)" in err
    assert "Segment-based metrics: 4 files" in out
