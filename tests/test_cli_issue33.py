"""The command line, issue 33: what a first user hit (one rule with the API, lost output, messages)."""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pandas as pd
import pytest
from conftest import run, run_csv, write

import audeval


# -------------------------------------------------------------------------
# Item 4: unused scheme categories follow the API's rule
# -------------------------------------------------------------------------


@pytest.fixture
def scheme_db(tmp_path):
    """A rater table ``r`` with column ``v`` of scheme [a, b, c]; only a and b are used."""
    import audformat

    db = audformat.Database("db")
    db.schemes["s"] = audformat.Scheme(labels=["a", "b", "c"])
    index = audformat.segmented_index(["f.wav", "f.wav"], [0, 2], [2, 4])
    db["r"] = audformat.Table(index)
    db["r"]["v"] = audformat.Column(scheme_id="s")
    db["r"]["v"].set(["a", "b"])
    db.save(os.fspath(tmp_path / "db"), storage_format="csv")
    return tmp_path / "db", db["r"]["v"].get()


@pytest.mark.parametrize(
    "command, report", [("events", audeval.event_report), ("segments", audeval.segment_report)]
)
def test_unused_scheme_category_left_out_of_macro_as_in_the_api(capsys, scheme_db, command, report):
    path, series = scheme_db
    argv = [command, path, path, "--truth-table", "r", "--prediction-table", "r", "--column", "v"]
    code, out, err = run(capsys, *argv, "--format", "csv")
    assert code == 0
    table = pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""]).set_index("label")
    with pytest.warns(UserWarning, match="left out of macro averages"):
        api = report(series, series)
    assert list(table.index) == ["a", "b", "c", "micro", "macro"]  # scheme order, c listed
    assert table.loc["macro", "fscore"] == 1.0  # was 0.667: c counted as F = 0
    assert table.loc["macro", "fscore"] == api.loc["macro", "fscore"]
    assert err.count("\n") == 1
    assert "['c'] occur in neither truth nor prediction (unused categories?)" in err
    assert "left out of macro averages; pass --labels A,B,... to include them" in err
    assert "spelling" not in err
    # given labels count, as in the API
    table = run_csv(capsys, *argv, "--labels", "a,b,c").set_index("label")
    assert table.loc["macro", "fscore"] == pytest.approx(2 / 3)


def test_unused_category_rule_with_files_without_events(capsys, tmp_path):
    """A file without events (a filler row keeps it) does not change the rule or the labels."""
    truth = write(tmp_path / "t.tsv", "filename\tonset\toffset\tevent_label\na\t0\t1\t1\nb\n")
    prediction = write(tmp_path / "p.tsv", "filename\tonset\toffset\tevent_label\na\t0\t1\t1\na\t2\t3\t2\nb\n")
    table = run_csv(capsys, "events", truth, prediction, "--per-file").set_index(["file", "label"])
    # integer labels: sorted, and the file without events has its block
    assert [str(label) for label in table.loc["TOTAL"].index] == ["1", "2", "micro", "macro"]
    assert ("b", "micro") in table.index
    assert table.loc[("TOTAL", "macro"), "fscore"] == pytest.approx(0.5)  # (1 + 0) / 2


# -------------------------------------------------------------------------
# Items 5 and 17: agreement writes every table, with the API's numbers
# -------------------------------------------------------------------------


def by_rater(table: pd.DataFrame) -> pd.DataFrame:
    """The long agreement table indexed by (file, rater, label); label "" outside per-label rows."""
    table = table.copy()
    table["label"] = ["" if pd.isna(v) else v for v in table["label"]]
    return table.set_index(["file", "rater", "label"])


@pytest.fixture
def raters(tmp_path):
    """Three raters of two files, one folder each; durations 10 s and 4 s."""
    rows = {
        "r1": {"f": "0\t2\tspeech\n2\t5\tmusic\n", "g": "0\t1\tspeech\n"},
        "r2": {"f": "0\t2.5\tspeech\n2.5\t5\tmusic\n", "g": "0\t1\tspeech\n"},
        "r3": {"f": "0\t2\tspeech\n3\t5\tmusic\n", "g": "0\t3\tspeech\n"},
    }
    paths = []
    for rater, files in rows.items():
        for file, text in files.items():
            write(tmp_path / rater / f"{file}.txt", text)
        paths.append(os.fspath(tmp_path / rater))
    durations = write(tmp_path / "d.csv", "file,duration\nf,10\ng,4\n")
    annotations = {os.path.basename(p): audeval.read_annotations(p) for p in paths}
    return paths, durations, annotations


@pytest.mark.parametrize("format", ["csv", "json"])
def test_agreement_per_file_in_csv_and_json(capsys, tmp_path, raters, format):
    paths, durations, annotations = raters
    target = tmp_path / f"out.{format}"
    argv = ["agreement", *paths, "--files-duration", durations, "--per-file", "--format", format]
    code, out, err = run(capsys, *argv, "-o", target)
    assert code == 0, err
    assert out == ""
    text = target.read_text()
    if format == "csv":
        table = pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])
    else:
        table = pd.DataFrame(json.loads(text))
    table = by_rater(table)
    api = audeval.krippendorff_alpha(annotations, files_duration={"f": 10, "g": 4}, per_file=True)
    for file in ("f", "g"):  # the per-file rows were dropped before
        assert table.loc[(file, "all raters", ""), "krippendorff_alpha"] == pytest.approx(api[file], abs=1e-12)
    assert table.loc[("TOTAL", "all raters", ""), "krippendorff_alpha"] == pytest.approx(
        audeval.krippendorff_alpha(annotations, files_duration={"f": 10, "g": 4}), abs=1e-12
    )
    assert table.loc[("TOTAL", "r1", ""), "r2"] == pytest.approx(
        audeval.cohen_kappa(annotations["r1"], annotations["r2"], files_duration={"f": 10, "g": 4}),
        abs=1e-12,
    )


def test_agreement_files_duration_and_per_label_equal_the_api(capsys, raters):
    paths, durations, annotations = raters
    durations_api = {"f": 10, "g": 4}
    table = run_csv(capsys, "agreement", *paths, "--files-duration", durations)
    table = by_rater(table)
    alpha = audeval.krippendorff_alpha(annotations, files_duration=durations_api)
    assert alpha != pytest.approx(audeval.krippendorff_alpha(annotations), abs=1e-6)  # durations matter
    assert table.loc[("TOTAL", "all raters", ""), "krippendorff_alpha"] == pytest.approx(alpha, abs=1e-12)
    assert table.loc[("TOTAL", "all raters", ""), "fleiss_kappa"] == pytest.approx(
        audeval.fleiss_kappa(annotations, files_duration=durations_api), abs=1e-12
    )
    # --per-label: one row per label, their mean in the row of all raters
    table = run_csv(capsys, "agreement", *paths, "--files-duration", durations, "--per-label")
    table = by_rater(table)
    for name, function in (("fleiss_kappa", audeval.fleiss_kappa), ("krippendorff_alpha", audeval.krippendorff_alpha)):
        values = function(annotations, per_label=True, average="none", files_duration=durations_api)
        assert set(values) == {"music", "speech"}
        for label, value in values.items():
            assert table.loc[("TOTAL", "all raters", label), name] == pytest.approx(value, abs=1e-12)
        assert table.loc[("TOTAL", "all raters", ""), name] == pytest.approx(
            function(annotations, per_label=True, files_duration=durations_api), abs=1e-12
        )
    code, out, err = run(capsys, "agreement", *paths, "--per-label", "--files-duration", durations)
    assert code == 0 and "Per label (over all raters)" in out


def test_agreement_writes_disagreements_and_consensus(capsys, tmp_path, raters):
    paths, durations, annotations = raters
    spans, votes = tmp_path / "spans.csv", tmp_path / "votes.csv"
    code, out, err = run(
        capsys, "agreement", *paths, "--files-duration", durations,
        "--disagreements", spans, "--consensus", votes,
    )
    assert code == 0, err
    assert "Agreement of 3 raters" in out
    written = pd.read_csv(spans, keep_default_na=False)
    expected = audeval.disagreements(annotations, files_duration={"f": 10, "g": 4})
    expected = expected.sort_values("duration", ascending=False, kind="stable")
    assert list(written.columns) == ["file", "start", "end", "r1", "r2", "r3", "duration"]
    assert written["duration"].tolist() == expected["duration"].dt.total_seconds().tolist()
    assert written["duration"].tolist() == [2.0, 0.5, 0.5]  # longest first
    assert written["start"].tolist() == expected.index.get_level_values("start").total_seconds().tolist()
    for rater in ("r1", "r2", "r3"):
        assert written[rater].tolist() == expected[rater].astype(str).tolist()
    # the consensus file is an audformat CSV: read back, it is the API's Series
    back = audeval.read_annotations(os.fspath(votes))
    api = audeval.consensus(annotations, files_duration={"f": 10, "g": 4})
    assert back.index.equals(api.index)
    assert back.tolist() == api.tolist() == ["speech", "music", "speech"]


def test_agreement_options_errors(capsys, tmp_path, raters):
    paths, durations, _ = raters
    code, out, err = run(capsys, "agreement", *paths, "--consensus", tmp_path / "nope" / "c.csv")
    assert code == 2 and out == ""
    assert err == f"audeval: error: --consensus {tmp_path / 'nope' / 'c.csv'}: the folder {tmp_path / 'nope'} does not exist\n"


# -------------------------------------------------------------------------
# Item 15: one-line messages that name the option and the path
# -------------------------------------------------------------------------

RTTM = os.path.join(os.path.dirname(__file__), "..", "docs", "examples", "cli")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["diarization", "{ref}", "{sys}", "--uem", "{tmp}/nope.uem"], "--uem {tmp}/nope.uem: no such file"),
        (["detection", "{ref}", "{sys}", "--uem", "{tmp}"], "--uem {tmp}: is a folder, expected a file"),
        (["events", "--example", "-o", "/nonexistent/x"], "--output /nonexistent/x: the folder /nonexistent does not exist"),
        (["events", "--example", "-o", "{tmp}"], "--output {tmp}: is a folder; give a file name"),
        (["events", "--example", "--files-duration", "{tmp}/d.csv"], "--files-duration {tmp}/d.csv: no such file"),
        (["agreement", "--database", "{tmp}"], "--database {tmp}: not an audformat database (the folder has no db.yaml)"),
        (["agreement", "--database", "{tmp}/x"], "--database {tmp}/x: no such folder"),
        (["events", "--example", "--bogus"], "unrecognized arguments: --bogus (see 'audeval events --help')"),
        (["agreement", "{ref}"], "agreement needs the annotations of at least two raters (see 'audeval agreement --help')"),
        (["--bogus"], "unrecognized arguments: --bogus (see 'audeval --help')"),
    ],
)
def test_path_and_usage_errors_name_the_option(capsys, tmp_path, argv, message):
    names = dict(
        ref=os.path.join(RTTM, "reference.rttm"), sys=os.path.join(RTTM, "system.rttm"), tmp=os.fspath(tmp_path)
    )
    code, out, err = run(capsys, *[a.format(**names) for a in argv])
    assert code == 2
    assert out == ""
    assert err == f"audeval: error: {message.format(**names)}\n"
    assert "Errno" not in err


# -------------------------------------------------------------------------
# Item 16: the documented MIREX 2018 options give MIREX2018_eval's README values
# -------------------------------------------------------------------------

MIREX2018 = "/work/shared/fixtures/peers/mirex2018/examples"
MIREX_OPTIONS = ["--onset-tolerance", "0.5", "--offset-tolerance", "0.5", "--duration-tolerance", "0"]


@pytest.fixture
def mirex2018(tmp_path):
    """MIREX2018_eval's example folders (examples/ref_dir, examples/est_dir)."""
    if os.path.isdir(MIREX2018):
        return os.path.join(MIREX2018, "ref_dir"), os.path.join(MIREX2018, "est_dir")
    # the same four files, as in the fixture (MIREX2018_eval, commit f55c053)
    alternating = "0.0\t25.0\tmusic\n25.0\t35.0\tno-music\n35.0\t45.0\tmusic\n45.0\t55.0\tno-music\n" \
        "55.0\t65.0\tmusic\n65.0\t75.0\tno-music\n75.0\t100.0\tmusic\n"
    plain = "0.0\t25.0\tmusic\n25.0\t75.0\tno-music\n75.0\t100.0\tmusic\n"
    for side, first, second in (("ref_dir", plain, alternating), ("est_dir", alternating, plain)):
        write(tmp_path / side / "1.txt", first)
        write(tmp_path / side / "2.txt", second)
    return os.fspath(tmp_path / "ref_dir"), os.fspath(tmp_path / "est_dir")


def test_mirex2018_readme_values(capsys, mirex2018):
    """MIREX2018_eval's README, "Output / Example", event-based (dataset and per file)."""
    ref, est = mirex2018
    report = run_csv(capsys, "events", ref, est, *MIREX_OPTIONS, "--per-file").set_index(["file", "label"])
    total = report.loc["TOTAL"]
    readme = {  # label: (precision, recall, f_measure, deletion_rate, insertion_rate, error_rate)
        "music": (2 / 3, 2 / 3, 2 / 3, 1 / 3, 1 / 3, 2 / 3),
        "no-music": (0.0, 0.0, 0.0, 1.0, 1.0, 2.0),
        "micro": (0.4, 0.4, 0.4, 0.6, 0.6, 1.2),  # the README's "overall"
    }
    columns = ["precision", "recall", "fscore", "deletion_rate", "insertion_rate", "error_rate"]
    for label, values in readme.items():
        assert total.loc[label, columns].tolist() == pytest.approx(values, abs=1e-12)
    # per file, overall: 1.txt P 2/7, R 2/3, F 0.4; 2.txt P 2/3, R 2/7, F 0.4
    assert report.loc[("1", "micro"), ["precision", "recall", "fscore"]].tolist() == pytest.approx([2 / 7, 2 / 3, 0.4])
    assert report.loc[("2", "micro"), ["precision", "recall", "fscore"]].tolist() == pytest.approx([2 / 3, 2 / 7, 0.4])
    # onsets only (what the guides said before) gives another number
    onsets = run_csv(capsys, "events", ref, est, "--onset-tolerance", "0.5", "--no-offset").set_index("label")
    assert onsets.loc["micro", "fscore"] == pytest.approx(0.6)


def test_events_help_names_the_defaults_and_the_presets(capsys):
    code, out, _ = run(capsys, "events", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "defaults are DCASE's" not in text
    assert "Default tolerances (sed_eval's defaults): onsets within 0.2 s, offsets within max(0.2 s, 0.5 x event length)" in text
    assert "DCASE task 4: --duration-tolerance 0.2" in text
    assert "--onset-tolerance 0.5 --offset-tolerance 0.5 --duration-tolerance 0" in text


def test_guides_give_the_mirex_options():
    root = os.path.join(os.path.dirname(__file__), "..")
    for page in ("docs/guide/events.rst", "docs/guide/cli.rst", "README.md"):
        with open(os.path.join(root, page), encoding="utf-8") as fp:
            text = fp.read()
        assert "only checks onsets" not in text, page
        assert "--onset-tolerance 0.5 --offset-tolerance 0.5 --duration-tolerance 0" in text, page


# -------------------------------------------------------------------------
# Item 20: separation says what its improvements are measured against
# -------------------------------------------------------------------------


@pytest.fixture
def separation_files(tmp_path):
    audiofile = pytest.importorskip("audiofile")
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 800)) / 8
    signals = {"a": a, "b": b, "a-est": a + 0.1 * b, "b-est": (b + 0.1 * a)[:700], "mix": 0.9 * (a + b)}
    for name, signal in signals.items():
        audiofile.write(os.fspath(tmp_path / f"{name}.wav"), signal, 8000, bit_depth=32)
    truth = write(tmp_path / "truth.csv", "file,a,b\nm.wav,a.wav,b.wav\n")
    prediction = write(tmp_path / "est.csv", "file,a,b\nm.wav,a-est.wav,b-est.wav\n")
    mixture = write(tmp_path / "mix.csv", "file,mixture\nm.wav,mix.wav\n")
    return truth, prediction, mixture


def test_separation_says_improvements_are_over_the_sum_of_references(capsys, separation_files):
    truth, prediction, mixture = separation_files
    code, out, err = run(capsys, "separation", truth, prediction, "--length-mismatch", "pad_or_truncate")
    assert code == 0
    title = out.splitlines()[0]
    assert title.endswith("; si_sdri, sd_sdri, snri over the sum of the references (no --mixture)")
    assert err == (
        "audeval: warning: si_sdri, sd_sdri, snri are improvements over the sum of the references, "
        "as no --mixture was given; pass --mixture for those of the real mixture\n"
    )
    code, out, err = run(
        capsys, "separation", truth, prediction, "--length-mismatch", "pad_or_truncate", "--mixture", mixture
    )
    assert code == 0 and err == ""
    assert "no --mixture" not in out
    # other metric families have no improvements: nothing to say
    code, out, err = run(
        capsys, "separation", truth, prediction, "--length-mismatch", "pad_or_truncate", "--metrics", "bss_eval_sources"
    )
    assert code == 0 and err == "" and "mixture" not in out


def test_separation_length_mismatch_hint_uses_the_option(capsys, separation_files):
    truth, prediction, _ = separation_files
    code, out, err = run(capsys, "separation", truth, prediction)
    assert code == 2
    assert "(use --length-mismatch pad_or_truncate)" in err
    assert "length_mismatch=" not in err


# -------------------------------------------------------------------------
# Item 18: every long phase shows a line that moves
# -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command, slow, line",
    [
        ("events", "event_statistics", "Scoring events"),
        ("segments", "segment_statistics", "Scoring segments"),
        ("diarization", "diarization_report", "Scoring diarization"),
        ("agreement", "agreement_matrix", "Scoring agreement"),
    ],
)
def test_long_phases_redraw_their_elapsed_time(capsys, monkeypatch, tmp_path, command, slow, line):
    import time

    from audeval import _cli
    from audeval._cli import messages

    for i in range(_cli.PROGRESS_MIN_FILES + 2):
        write(tmp_path / "ref" / f"{i}.txt", "0\t1\tx\n")
        write(tmp_path / "est" / f"{i}.txt", "0\t1.5\tx\n")
    function = getattr(audeval, slow)

    def slowly(*args, **kwargs):
        time.sleep(0.6)
        return function(*args, **kwargs)

    monkeypatch.setattr(audeval, slow, slowly)
    monkeypatch.setattr(_cli.messages, "_progress_wanted", lambda args: True)
    monkeypatch.setattr(messages, "TICK_SECONDS", 0.05)
    code, out, err = run(capsys, command, tmp_path / "ref", tmp_path / "est", "--format", "csv")
    assert code == 0, err
    draws = [part.strip() for part in err.split("\r") if line in part]
    assert len(draws) >= 5  # redrawn while the work runs, not one frozen line
    assert all(d.startswith("[00:0") and "elapsed]" in d for d in draws[1:])


def test_large_outputs_are_formatted_under_a_progress_line(capsys, monkeypatch):
    from audeval import _cli

    monkeypatch.setattr(_cli.messages, "_progress_wanted", lambda args: True)
    monkeypatch.setattr(_cli, "PROGRESS_MIN_ROWS", 3)
    code, out, err = run(capsys, "events", "--example", "--per-file")
    assert code == 0
    assert "Formatting the table" in err
    monkeypatch.setattr(_cli, "PROGRESS_MIN_ROWS", 10_000)
    code, out, err = run(capsys, "events", "--example", "--per-file")
    assert "Formatting" not in err


# -------------------------------------------------------------------------
# Item 21: counts are integers in the CLI's csv and json; a labelled confusion matrix
# -------------------------------------------------------------------------


def test_counts_are_integers_in_csv_and_json(capsys):
    code, out, _ = run(capsys, "events", "--example", "--per-file", "--format", "csv")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("file,label,n_truth,n_prediction,tp,fp,fn,")
    truth, prediction, files_duration = audeval.example_data()
    api = audeval.event_report(
        truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5,
        files_duration=files_duration,
    )
    music = next(line for line in lines if line.startswith("TOTAL,music,"))
    expected = api.loc["music", ["n_truth", "n_prediction", "tp", "fp", "fn"]]
    assert music.split(",")[2:7] == [str(int(v)) for v in expected]  # was 20.0,19.0,...
    assert music.split(",")[2:4] == ["20", "19"]
    micro = next(line for line in lines if line.startswith("TOTAL,micro,")).split(",")
    header = lines[0].split(",")
    columns = ("substitutions", "deletions", "insertions")
    assert [micro[header.index(c)] for c in columns] == [str(int(api.loc["micro", c])) for c in columns]
    code, out, _ = run(capsys, "segments", "--example", "--format", "json")
    records = {r["label"]: r for r in json.loads(out)}
    assert records["music"]["n_truth"] == 113 and isinstance(records["music"]["n_truth"], int)
    assert records["macro"]["n_truth"] is None
    assert isinstance(records["music"]["precision"], float)
    # exact time: the counts are seconds and stay decimals
    code, out, _ = run(capsys, "segments", "--example", "--time-resolution", "exact", "--format", "json")
    records = {r["label"]: r for r in json.loads(out)}
    assert isinstance(records["music"]["n_truth"], float)


def test_event_confusion_matrix_as_frame():
    truth, prediction, _ = audeval.example_data()
    options = dict(onset_tolerance=0.5, offset_tolerance=None)
    labels = ["music", "noise", "speech"]
    nested = audeval.event_confusion_matrix(truth, prediction, labels, **options)
    frame = audeval.event_confusion_matrix(truth, prediction, labels, as_frame=True, **options)
    assert list(frame.index) == list(frame.columns) == [*labels, "<no event>"]
    assert frame.index.name == "truth" and frame.columns.name == "prediction"
    assert frame.to_numpy().tolist() == nested
    assert frame.loc["speech", "<no event>"] == 2  # missed speech events
    assert frame.loc["<no event>", "speech"] == 3  # speech false alarms
    assert frame.loc["music", "speech"] == 1  # a music event predicted as speech
    normalized = audeval.event_confusion_matrix(truth, prediction, labels, normalize=True, as_frame=True, **options)
    assert normalized.to_numpy().sum(axis=1) == pytest.approx([1.0, 1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="'<no event>'"):
        import audformat

        index = audformat.segmented_index(["f"], [0], [1])
        odd = pd.Series(["<no event>"], index=index)
        audeval.event_confusion_matrix(odd, odd, as_frame=True)


# -------------------------------------------------------------------------
# One list of one audio file per side: the lists name the same audio file
# -------------------------------------------------------------------------


def test_one_file_lists_side_by_side_are_one_audio_file(capsys, tmp_path):
    """``ref.txt est.txt`` (MIREX lists of one audio file each) compare that file's events.

    Before, each list was its own file: every event missed and every prediction a false alarm.
    """
    ref = write(tmp_path / "r1.txt", "0.0\t1.0\ta\n1.0\t2.0\tb\n")
    est = write(tmp_path / "r2.txt", "0.0\t1.0\ta\n1.0\t2.5\tb\n")
    table = run_csv(capsys, "events", ref, est, "--no-progress")
    micro = table.set_index(table.columns[0]).loc["micro"]
    assert micro["fscore"] == 1.0  # onsets equal, offsets within 0.5 x length
    # agreement: [0, 1) a = a, [1, 2) b = b, [2, 2.5) none vs b (file length 2.5 s):
    # p_o = 0.8, p_e = 0.4 * 0.4 + 0.4 * 0.6 = 0.4, kappa = 0.4 / 0.6
    code, out, err = run(capsys, "agreement", ref, est, "--no-progress", "--format", "json")
    assert code == 0, err
    assert "share no file" not in err
    truth = audeval.read_annotations(ref)
    other = audeval.read_annotations(est)
    other.index = other.index.set_levels(["r1"], level="file")
    assert audeval.cohen_kappa(truth, other) == pytest.approx(2 / 3)
    assert "0.6666666" in out
