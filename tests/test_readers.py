"""Readers of annotation files (SPEC section 8)."""

from __future__ import annotations

import filecmp
import os
import warnings

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._io import example as _example


def write(path, text: str) -> str:
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as fp:
        fp.write(text)
    return path


def ns(series: pd.Series, level: str) -> list[int]:
    return series.index.get_level_values(level).as_unit("ns").asi8.tolist()


def expected(files, starts, ends, labels, name="label") -> pd.Series:
    return pd.Series(
        labels, index=audformat.segmented_index(files, starts, ends), name=name, dtype=object
    )


# -------------------------------------------------------------------------
# MIREX / DCASE tsv
# -------------------------------------------------------------------------


def test_mirex_directory(tmp_path):
    write(tmp_path / "ref" / "b.txt", "0.0\t2.2\tmusic\n2.2\t5.0\tno-music\n")
    write(tmp_path / "ref" / "a.txt", "1.5\t3\tspeech\n")
    write(tmp_path / "ref" / "sub" / "c.tsv", "")  # a file without events
    write(tmp_path / "ref" / "notes.md", "not read")
    series = audeval.read_tsv(tmp_path / "ref")
    pd.testing.assert_series_equal(
        series,
        expected(["a", "b", "b"], [1.5, 0, 2.2], [3, 2.2, 5], ["speech", "music", "no-music"]),
    )
    assert series.attrs["files"] == ["a", "b", "sub/c"]
    # exact nanoseconds: 2.2 s is 2_200_000_000 ns
    assert ns(series, "end")[1] == 2_200_000_000
    assert ns(series, "start")[2] == 2_200_000_000


def test_mirex_single_file_and_separators(tmp_path):
    # whitespace separated, label with spaces, comments and blank lines
    path = write(tmp_path / "x.lab", "# comment\n\n0 1.25 verse A\n1.25  3 chorus\n")
    series = audeval.read_tsv(path)
    assert series.tolist() == ["verse A", "chorus"]
    assert series.attrs["files"] == ["x"]
    # comma separated
    path = write(tmp_path / "y.txt", "0.5,1.0,dog\r\n")
    assert audeval.read_tsv(path).index[0] == ("y", pd.Timedelta(0.5, "s"), pd.Timedelta(1, "s"))


def test_dcase_with_header(tmp_path):
    path = write(
        tmp_path / "truth.tsv",
        "filename\tonset\toffset\tevent_label\n"
        "a.wav\t0.0\t1.0\tdog\n"
        "b.wav\n"  # no events
        "c.wav\t\t\t\n"  # no events, empty fields
        "a.wav\t2.0\t3.5\tcat\n",
    )
    series = audeval.read_tsv(path)
    pd.testing.assert_series_equal(
        series, expected(["a.wav", "a.wav"], [0, 2], [1, 3.5], ["dog", "cat"])
    )
    assert series.attrs["files"] == ["a.wav", "b.wav", "c.wav"]


def test_dcase_columns_in_any_order(tmp_path):
    path = write(tmp_path / "p.tsv", "event_label\toffset\tonset\tfilename\nx\t2\t1\tf.wav\n")
    pd.testing.assert_series_equal(audeval.read_tsv(path), expected(["f.wav"], [1], [2], ["x"]))


def test_dcase_without_header(tmp_path):
    path = write(
        tmp_path / "list.txt",
        "a.wav\t0\t1\tdog\nb.wav\na.wav\tscene\t1\t2\tcat\n",
    )
    series = audeval.read_tsv(path)
    pd.testing.assert_series_equal(
        series, expected(["a.wav", "a.wav"], [0, 1], [1, 2], ["dog", "cat"])
    )
    assert series.attrs["files"] == ["a.wav", "b.wav"]


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("0\t1\tdog\nzero\t1\tdog\n", 2, "onset must be a number"),
        ("0\t1\tdog\n0\tx\tdog\n", 2, "offset must be a number"),
        ("2\t1\tdog\n", 1, "offset 1 is before onset 2"),
        ("-1\t1\tdog\n", 1, "non-negative"),
        ("0\tinf\tdog\n", 1, "finite"),
        ("0\t1\tdog\n0\t1\n", 2, "like the lines before it"),
        ("0\t1\n0\t1\tdog\n", 2, "like the lines before it"),
        ("0\t1\tdog\ta.wav\t1\t2\n", 1, "got 6 field(s)"),
        ("0\t1\tdog\na.wav\t0\t1\tdog\n", 2, "like the lines before it"),
        ("a.wav\t0\t1\tdog\n0\t1\tdog\n", 2, "like the lines before it"),
        ("\n\n0\t1\t\n", 3, "the label is empty"),
        ("0\t1\t \t\n", 1, "the label is empty"),
        ("filename\tonset\toffset\tevent_label\na.wav\t1\n", 2, "expected onset, offset and label"),
        ("filename\tonset\toffset\tevent_label\na.wav\t1\t0.5\tx\n", 2, "before onset"),
        ("filename\tonset\toffset\tevent_label\n\t1\t2\tx\n", 2, "the file name is empty"),
        ("file\tonset\toffset\tfoo\tbar\na\t1\t2\tx\ty\n", 1, "no label column"),
    ],
)
def test_tsv_errors_name_file_and_line(tmp_path, text, line, message):
    path = write(tmp_path / "bad.txt", text)
    with pytest.raises(ValueError, match=r"bad\.txt:" + str(line) + ":") as info:
        audeval.read_tsv(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "0.5;0.7;event\n1;2.25;dog\n",  # sed_eval reads ';' lists
        "0.5 ; 0.7 ; event\n1;2.25;dog\n",
        "# comment\n0.5,0.7,event\n1,2.25,dog\n",
        "0.5\t0.7\tevent\n1\t2.25\tdog\n",
        "0.5 0.7 event\n1 2.25 dog\n",
    ],
)
def test_tsv_delimiters(tmp_path, text):
    series = audeval.read_tsv(write(tmp_path / "x.txt", text))
    pd.testing.assert_series_equal(
        series, expected(["x", "x"], [0.5, 1], [0.7, 2.25], ["event", "dog"])
    )


def test_tsv_semicolon_with_file_column_and_header(tmp_path):
    want = expected(["a.wav", "b.wav"], [0.5, 1], [0.7, 2], ["dog", "cat"])
    for text in (
        "a.wav;0.5;0.7;dog\nc.wav\nb.wav;scene;1;2;cat\n",
        "filename;onset;offset;event_label\na.wav;0.5;0.7;dog\nc.wav;;;\nb.wav;1;2;cat\n",
    ):
        path = write(tmp_path / "list.csv", text)
        series = audeval.read_tsv(path)
        pd.testing.assert_series_equal(series, want)
        assert series.attrs["files"] == ["a.wav", "c.wav", "b.wav"]
        pd.testing.assert_series_equal(audeval.read_annotations(path), want)


def test_tsv_delimiter_detected_per_file(tmp_path):
    write(tmp_path / "d" / "a.txt", "0\t1\tx\n")
    write(tmp_path / "d" / "b.txt", "0;1;y\n")
    write(tmp_path / "d" / "c.txt", "0,1,z\n")
    write(tmp_path / "d" / "e.txt", "0 1 w w\n")
    series = audeval.read_tsv(tmp_path / "d")
    assert series.tolist() == ["x", "y", "z", "w w"]
    assert series.index.get_level_values("file").tolist() == ["a", "b", "c", "e"]


def test_tsv_delimiter_characters_inside_labels(tmp_path):
    # a delimiter that does not split lines into onset and offset is part of the label
    cases = {
        "0.5 0.7 dog, barking\n": "dog, barking",
        "0.5 0.7 dog;cat\n": "dog;cat",
        "0.5,0.7,dog;cat\n": "dog;cat",
        "0.5\t0.7\tdog; cat, bird\n": "dog; cat, bird",
    }
    for text, label in cases.items():
        assert audeval.read_tsv(write(tmp_path / "x.txt", text)).tolist() == [label], text


@pytest.mark.parametrize(
    "text",
    [
        "0.5\t0.7\n1\t2.25\n",
        "0.5 0.7\n1 2.25\n",
        "0.5;0.7\n1;2.25\n",
        "onset\toffset\n0.5\t0.7\n1\t2.25\n",
    ],
)
def test_tsv_two_columns_get_the_default_label(tmp_path, text):
    from audeval._io.events import DEFAULT_LABEL

    assert DEFAULT_LABEL == "event"
    series = audeval.read_tsv(write(tmp_path / "x.txt", text))
    pd.testing.assert_series_equal(
        series, expected(["x", "x"], [0.5, 1], [0.7, 2.25], [DEFAULT_LABEL, DEFAULT_LABEL])
    )


@pytest.mark.parametrize(
    "text, line",
    [
        ("0.5|0.7|event\n1|2|dog\n", 1),  # unknown delimiter
        ("# header\n0,5;0,7;event\n", 2),  # decimal commas
        ("a.wav\nnot-a-file-name\n", 2),
        ("0.5\n", 1),
    ],
)
def test_tsv_without_events_fails_loudly(tmp_path, text, line):
    path = write(tmp_path / "bad.txt", text)
    with pytest.raises(ValueError, match=r"bad\.txt:" + str(line) + ": no event could be read"):
        audeval.read_tsv(path)
    with pytest.raises(ValueError, match=r"bad\.txt:" + str(line) + ":"):
        audeval.read_annotations(path)


def test_tsv_file_names_only_are_files_without_events(tmp_path):
    series = audeval.read_tsv(write(tmp_path / "list.txt", "a.wav\nsub/b.flac\n"))
    assert len(series) == 0
    assert series.attrs["files"] == ["a.wav", "sub/b.flac"]


def test_audacity_spectral_selection_lines_are_skipped(tmp_path):
    text = (
        "1.000000\t1.000000\tclick\n"
        "\\\t6928.456055\t6928.456055\n"
        "2.000000\t2.500000\tspeech\n"
        "\\\t-1.000000\t6334.588867\n"
    )
    series = audeval.read_tsv(write(tmp_path / "labels.txt", text))
    pd.testing.assert_series_equal(
        series, expected(["labels", "labels"], [1, 2], [1, 2.5], ["click", "speech"])
    )
    # a backslash line that is not a frequency range is still an error
    path = write(tmp_path / "bad.txt", "1\t2\tx\n\\\tlow\thigh\n")
    with pytest.raises(ValueError, match=r"bad\.txt:2: onset must be a number"):
        audeval.read_tsv(path)


def test_tsv_directory_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        audeval.read_tsv(tmp_path / "missing")
    os.makedirs(tmp_path / "empty")
    with pytest.raises(ValueError, match="no annotation files"):
        audeval.read_tsv(tmp_path / "empty")
    write(tmp_path / "two" / "a.txt", "0\t1\tx\n")
    write(tmp_path / "two" / "a.lab", "0\t1\tx\n")
    with pytest.raises(ValueError, match="same file name 'a'"):
        audeval.read_tsv(tmp_path / "two")
    write(tmp_path / "latin.txt", "")
    with open(tmp_path / "latin.txt", "wb") as fp:
        fp.write(b"0\t1\tcaf\xe9\n")
    with pytest.raises(ValueError, match="not a UTF-8 text file"):
        audeval.read_tsv(tmp_path / "latin.txt")


def test_read_lab(tmp_path):
    write(tmp_path / "labs" / "song1.lab", "0.000 12.5 intro\n12.5 40.0 verse A\n")
    write(tmp_path / "labs" / "song2.lab", "0\t3\tN\n")
    series = audeval.read_lab(tmp_path / "labs")
    pd.testing.assert_series_equal(
        series,
        expected(
            ["song1", "song1", "song2"], [0, 12.5, 0], [12.5, 40, 3], ["intro", "verse A", "N"]
        ),
    )
    # a file column is not part of the .lab format
    path = write(tmp_path / "bad.lab", "a.wav\t0\t1\tx\n")
    with pytest.raises(ValueError, match=r"bad\.lab:1: expected 'onset<TAB>offset<TAB>label'"):
        audeval.read_lab(path)
    os.makedirs(tmp_path / "nolab")
    with pytest.raises(ValueError, match="no .lab files"):
        audeval.read_lab(tmp_path / "nolab")


# -------------------------------------------------------------------------
# RTTM
# -------------------------------------------------------------------------


def test_read_rttm(tmp_path):
    write(
        tmp_path / "r" / "one.rttm",
        ";; a comment\n"
        "SPKR-INFO meeting 1 <NA> <NA> <NA> unknown alice <NA> <NA>\n"
        "SPEAKER meeting 1 1.10 2.20 <NA> <NA> alice <NA> <NA>\n"
        "SPEAKER meeting 1 0.5 0.25 <NA> <NA> bob <NA> <NA>\n",
    )
    write(tmp_path / "r" / "two.rttm", "SPEAKER call 1 0 1 <NA> <NA> carol <NA> <NA>\n")
    series = audeval.read_rttm(tmp_path / "r")
    pd.testing.assert_series_equal(
        series,
        expected(
            ["meeting", "meeting", "call"],
            [1.1, 0.5, 0],
            [3.3, 0.75, 1],
            ["alice", "bob", "carol"],
        ),
    )
    # onset + duration added in integer ns: 1.1 + 2.2 is exactly 3.3 s
    assert ns(series, "end")[0] == 3_300_000_000
    assert series.attrs["files"] == ["meeting", "call"]


@pytest.mark.parametrize(
    "line, message",
    [
        ("SPEAKER meeting 1 1.0 <NA> <NA> alice\n", "got 7 field(s)"),
        ("SPEAKER meeting 1 x 1.0 <NA> <NA> alice <NA> <NA>\n", "onset must be a number"),
        ("SPEAKER meeting 1 1 -2 <NA> <NA> alice <NA> <NA>\n", "duration must be a finite"),
    ],
)
def test_rttm_errors(tmp_path, line, message):
    path = write(tmp_path / "bad.rttm", "SPEAKER m 1 0 1 <NA> <NA> a <NA> <NA>\n" + line)
    with pytest.raises(ValueError, match=r"bad\.rttm:2:") as info:
        audeval.read_rttm(path)
    assert message in str(info.value)


def test_rttm_rejects_other_formats(tmp_path):
    tsv = write(tmp_path / "events.txt", "0.5\t0.7\tspeech\n1\t2\tmusic\n")
    with pytest.raises(ValueError, match=r"events\.txt:1: not an RTTM line") as info:
        audeval.read_rttm(tsv)
    assert "'0.5\\t0.7\\tspeech'" in str(info.value)
    with pytest.raises(ValueError, match=r"events\.txt:1: not an RTTM line"):
        audeval.read_annotations(tsv, format="rttm")
    mixed = write(
        tmp_path / "mixed.rttm",
        "SPEAKER m 1 0 1 <NA> <NA> a <NA> <NA>\nm 1 2 3 b\n",
    )
    with pytest.raises(ValueError, match=r"mixed\.rttm:2: not an RTTM line"):
        audeval.read_rttm(mixed)


# -------------------------------------------------------------------------
# audformat CSV and databases
# -------------------------------------------------------------------------


def test_audformat_csv_segmented(tmp_path):
    path = write(
        tmp_path / "t.csv",
        "file,start,end,class,other\n"
        "a.wav,0 days 00:00:00.500000,0 days 00:00:01.500000,speech,x\n"
        "a.wav,2.2,,music,y\n"  # seconds, end until the end of the file
        "b.wav,0,1,,z\n",  # no value: left out with a warning
    )
    with pytest.warns(UserWarning, match="1 row"):
        series = audeval.read_audformat_csv(path, "class")
    pd.testing.assert_series_equal(
        series, expected(["a.wav", "a.wav"], [0.5, 2.2], [1.5, None], ["speech", "music"], "class")
    )
    assert series.attrs["files"] == ["a.wav", "b.wav"]
    with pytest.raises(ValueError, match=r"choose a label column .* \['class', 'other'\]"):
        audeval.read_audformat_csv(path)
    with pytest.raises(ValueError, match="no column 'nope'"):
        audeval.read_audformat_csv(path, "nope")


def test_audformat_csv_as_written_by_audformat(tmp_path):
    db = audformat.Database("db")
    db.schemes["c"] = audformat.Scheme(labels=["music", "speech"])
    db["t"] = audformat.Table(audformat.segmented_index(["a.wav"] * 2, [0, 1.5], [1.5, 3.25]))
    db["t"]["c"] = audformat.Column(scheme_id="c")
    db["t"]["c"].set(["music", "speech"])
    db.save(tmp_path, storage_format="csv")
    series = audeval.read_audformat_csv(tmp_path / "db.t.csv")
    assert series.tolist() == ["music", "speech"]
    assert ns(series, "end") == [1_500_000_000, 3_250_000_000]
    # and the database reader gives the same rows (categorical there)
    db_series = audeval.read_database(tmp_path, "t", "c")
    assert isinstance(db_series.dtype, pd.CategoricalDtype)
    pd.testing.assert_index_equal(db_series.index, series.index)


def test_audformat_csv_filewise(tmp_path):
    path = write(tmp_path / "f.csv", "file,emotion\na.wav,happy\nb.wav,sad\n")
    series = audeval.read_audformat_csv(path)
    pd.testing.assert_index_equal(series.index, audformat.filewise_index(["a.wav", "b.wav"]))
    path = write(tmp_path / "g.csv", "file,emotion\na.wav,happy\na.wav,sad\n")
    with pytest.raises(ValueError, match="each file once"):
        audeval.read_audformat_csv(path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("name,label\na,b\n", r"g\.csv:1: an audformat CSV needs a 'file' column"),
        ("file,start,label\na,0,b\n", r"g\.csv:1: a segmented table needs both"),
        ("file,start,end,label\na,0,1,x\na,zero,1,x\n", r"g\.csv:3: start must be a time"),
        ("file,start,end,label\na,0,1,x\na,,1,x\n", r"g\.csv:3: start must be a time"),
        ("file,start,end,label\na,-1,1,x\n", r"g\.csv:2: start must be a time"),
        ("file,start,end,label\na,2,1,x\n", r"g\.csv:2: end '1' is before start '2'"),
        ("file,start,end,label\n,0,1,x\n", r"g\.csv:2: the file name is empty"),
        ("file,start,end\na,0,1\n", "no label column"),
        ("", "the file is empty"),
    ],
)
def test_audformat_csv_errors(tmp_path, text, message):
    path = write(tmp_path / "g.csv", text)
    with pytest.raises(ValueError, match=message):
        audeval.read_audformat_csv(path)


def test_read_database(tmp_path):
    db = audformat.Database("db")
    db.schemes["c"] = audformat.Scheme(labels=["noise", "music", "speech"])
    db["truth"] = audformat.Table(audformat.segmented_index(["a.wav", "b.wav"], [0, 1], [1, 2]))
    db["truth"]["c"] = audformat.Column(scheme_id="c")
    db["truth"]["c"].set(["music", None])
    db["other"] = audformat.Table(audformat.filewise_index(["a.wav"]))
    db["other"]["x"] = audformat.Column()
    db["other"]["y"] = audformat.Column()
    db.save(tmp_path)
    with pytest.warns(UserWarning, match="1 row"):
        series = audeval.read_database(tmp_path, column="c")
    assert series.tolist() == ["music"]
    assert list(series.cat.categories) == ["noise", "music", "speech"]  # scheme order
    assert series.attrs["files"] == ["a.wav", "b.wav"]
    with pytest.raises(ValueError, match="choose a table"):
        audeval.read_database(tmp_path)
    with pytest.raises(ValueError, match="no table 'nope'"):
        audeval.read_database(tmp_path, "nope", "c")
    with pytest.raises(ValueError, match="choose a column of table 'other'"):
        audeval.read_database(tmp_path, "other")
    with pytest.raises(ValueError, match="has no column 'z'"):
        audeval.read_database(tmp_path, "other", "z")
    with pytest.raises(FileNotFoundError, match="db.yaml is missing"):
        audeval.read_database(tmp_path / "nowhere", "truth", "c")
    # the dispatcher recognises the folder
    with pytest.warns(UserWarning):
        assert audeval.read_annotations(tmp_path, table="truth", column="c").tolist() == ["music"]


# -------------------------------------------------------------------------
# Durations, dispatcher, example
# -------------------------------------------------------------------------


def test_read_files_duration(tmp_path):
    path = write(tmp_path / "d.csv", "file,duration\na.wav,1.5\nb.wav,0 days 00:00:02\n")
    durations = audeval.read_files_duration(path)
    assert durations.to_dict() == {"a.wav": pd.Timedelta(1.5, "s"), "b.wav": pd.Timedelta(2, "s")}
    path = write(tmp_path / "d.tsv", "a.wav\t1.5\n")
    assert audeval.read_files_duration(path).index.tolist() == ["a.wav"]
    path = write(tmp_path / "e.csv", "file,duration\na.wav,1\nb.wav\n")
    with pytest.raises(ValueError, match=r"e\.csv:3: expected 'file,duration'"):
        audeval.read_files_duration(path)
    path = write(tmp_path / "e.csv", "file,duration\na.wav,1\nb.wav,long\n")
    with pytest.raises(ValueError, match=r"e\.csv:3: duration must be a time"):
        audeval.read_files_duration(path)
    path = write(tmp_path / "e.csv", "a.wav,1\na.wav,2\n")
    with pytest.raises(ValueError, match="twice"):
        audeval.read_files_duration(path)


def test_read_annotations_dispatch(tmp_path):
    events = "0\t1\tx\n"
    lab = write(tmp_path / "a.lab", events)
    tsv = write(tmp_path / "a.txt", events)
    rttm = write(tmp_path / "a.rttm", "SPEAKER a 1 0 1 <NA> <NA> x <NA> <NA>\n")
    csv = write(tmp_path / "a.csv", "file,start,end,label\na,0,1,x\n")
    dcase_csv = write(tmp_path / "b.csv", "filename,onset,offset,event_label\na,0,1,x\n")
    want = expected(["a"], [0], [1], ["x"])
    for path in (lab, tsv, rttm, dcase_csv):
        pd.testing.assert_series_equal(audeval.read_annotations(path), want)
    pd.testing.assert_series_equal(audeval.read_annotations(csv), want)
    pd.testing.assert_series_equal(audeval.read_annotations(lab, format="tsv"), want)
    write(tmp_path / "rttms" / "x.rttm", "SPEAKER a 1 0 1 <NA> <NA> x <NA> <NA>\n")
    pd.testing.assert_series_equal(audeval.read_annotations(tmp_path / "rttms"), want)
    with pytest.raises(ValueError, match="format must be one of"):
        audeval.read_annotations(lab, format="xls")
    with pytest.raises(FileNotFoundError):
        audeval.read_annotations(tmp_path / "nope.txt")


def test_example_data():
    truth, prediction, durations = audeval.example_data()
    assert truth.attrs["files"] == [f"clip{i:02d}.wav" for i in range(1, 7)]
    assert "clip06.wav" not in truth.index.get_level_values("file")  # silent clip
    assert durations.index.tolist() == truth.attrs["files"]
    assert set(truth) == set(prediction) == {"music", "speech", "noise"}
    audeval.event_report(truth, prediction, files_duration=durations)  # valid input
    assert sorted(audeval.example_files()) == ["files_duration", "prediction", "truth"]


def test_example_files_are_generated(tmp_path):
    _example._write(str(tmp_path))
    for name in ("truth.tsv", "prediction.tsv", "durations.csv"):
        assert filecmp.cmp(tmp_path / name, os.path.join(_example.ROOT, name), shallow=False), name


def test_readers_do_not_warn_on_clean_input(tmp_path):
    path = write(tmp_path / "a.txt", "0\t1\tx\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        audeval.read_tsv(path)
    assert np.all(np.asarray(ns(audeval.read_tsv(path), "end")) == 1_000_000_000)


# -------------------------------------------------------------------------
# The read_csv path of event lists against the line parser
# -------------------------------------------------------------------------


def read_both(monkeypatch, path):
    """What read_tsv gives (or the message it raises) through read_csv and line by line."""
    from audeval._io import table as _read_table

    read = _read_table.read_table
    vouched = []

    def counted(*args, **kwargs):
        table = read(*args, **kwargs)
        vouched.append(table is not None)
        return table

    monkeypatch.setattr(_read_table, "read_table", counted)
    results = []
    for min_bytes in (0, 10**12):  # every file through read_csv where it can vouch for it; none
        monkeypatch.setattr(_read_table, "MIN_BYTES", min_bytes)
        try:
            series = audeval.read_tsv(path)
            results.append((series, series.attrs["files"]))
        except ValueError as error:
            results.append(str(error))
    return results + [any(vouched)]


def assert_same(results):
    columns, lines = results[:2]
    if isinstance(lines, str) or isinstance(columns, str):
        assert columns == lines
    else:
        pd.testing.assert_series_equal(columns[0], lines[0])
        assert columns[1] == lines[1]


#: Lists, and whether read_csv reads them (else the line parser reads them or raises)
TRICKY_LISTS = [
    ("0\t1\tdog\n2\t3.5\tcat\n", True),
    ("0.5;0.7;event\n1;2.25;dog\n", True),
    ("0.5 ; 0.7 ; event\n1;2.25;dog\n", False),
    ("0.5,0.7,dog;cat\n", True),
    ("0.5\t0.7\tdog; cat, bird\n", True),
    ("0.5\t0.7\n1\t2.25\n", True),
    ("onset\toffset\n0.5\t0.7\n1\t2.25\n", True),
    ("filename\tonset\toffset\tevent_label\na.wav\t0.0\t1.0\tdog\nb.wav\nc.wav\t\t\t\na.wav\t2\t3.5\tcat\n", False),
    ("event_label\toffset\tonset\tfilename\nx\t2\t1\tf.wav\ny\t3\t2\tg.wav\n", True),
    ("a.wav\t0\t1\tdog\nb.wav\na.wav\tscene\t1\t2\tcat\n", False),
    ("a.wav\tscene\t0\t1\tdog\nb.wav\tscene\t1\t2\tcat\n", True),
    ("a.wav\t\t0\t1\tdog\n", True),  # an empty scene field
    ("\ufeff0\t1\tdog\n", True),  # byte order mark
    ("0\t1\tdog\r\n1\t2\tcat\r\n", True),
    ("0\t1\tdog\r1\t2\tcat\r", True),  # old Mac line breaks
    ("0\t1\tdo\rg\n", False),  # a line break inside a label
    ("0\t1\tdog\r\r\n1\t2\tcat\r\n", True),
    ("0\t1\tdog\n\n\n1\t2\tcat", True),  # blank lines, no final line break
    ("0\t1\tdog\n  \n1\t2\tcat\n", True),  # a line of spaces
    ("0\t1\tdog\n\t\t\n1\t2\tcat\n", False),  # a line of tabs
    ("0\t1\tdog \n1\t2\tcat\n", False),  # white space after a label
    ("0\t1\t dog\n1\t2\tcat\n", False),
    ("0\t1\tdog\xa0\n1\t2\tcat\n", False),  # no-break space
    ("0\t1\tdog\x0bcat\n", False),  # vertical tab: a line break for str.splitlines
    ("0\t1\tdog\u2028cat\n", False),
    ("0\t1\tdog\x00cat\n", False),
    ("0\t1\tdog\t\n1\t2\tcat\t\n", False),  # trailing tabs
    ("0\t1\tdog\n# a comment\n1\t2\tcat\n", False),
    ("# a comment\nfilename\tonset\toffset\tevent_label\na\t0\t1\tx\n", False),
    ("\nfilename\tonset\toffset\tevent_label\na\t0\t1\tx\n", False),
    ("a.wav\t0\t1\tdog\n#b.wav\t1\t2\tcat\n", False),  # a comment line in the file column
    ("scene\tonset\toffset\tevent_label\ns\t0\t1\tx\n#c\t1\t2\ty\n", False),  # ... in an unused column
    ("onset\toffset\tevent_label\n0\t1\t#hash\n", True),  # '#' inside a label is a label
    ("1\t1\tclick\n\\\t6928.4\t6928.4\n2\t2.5\tspeech\n", False),  # Audacity
    ("a.wav\t0\t1\tdog\n\\\t1\t2\tx\n", False),
    ("0\t1\t\"quoted label\"\n1\t2\t'x\n", True),
    ("0\tnan\tdog\n", False),
    ("0\tinfinity\tdog\n", False),
    ("0\t1e400\tdog\n", False),
    ("0\t1_0\tdog\n", False),
    ("0\t\u0661\tdog\n", False),  # an Arabic-Indic digit: a number to Python
    ("0\t-0.0\tdog\n", True),
    ("-0\t0\tdog\n", True),
    ("0\t1.5e\tdog\n", False),
    ("0\t+1\tdog\n", True),
    ("0\t1\tdog\ta.wav\t1\t2\n", False),
    ("0\t1\tdog\n0\t1\n", False),
    ("0\t1\tdog\n0\t1\tdog\tx\n", False),
    ("filename\tonset\toffset\tevent_label\na.wav\t1\t2\tx\textra\n", True),
    ("filename\tonset\toffset\tevent_label\na.wav\t1\n", False),
    ("filename\tonset\toffset\tevent_label\n\t1\t2\tx\n", False),
    ("filename;onset;offset;event_label\na.wav;0.5;0.7;dog\nc.wav;;;\nb.wav;1;2;cat\n", False),
    ("file\tonset\toffset\tfoo\tbar\na\t1\t2\tx\ty\n", False),
    ("0,1,dog\n1,2,\n", False),
    (";0;1;dog\n", False),
    ("2\t1\tdog\n", False),
    ("a.wav\nb.wav\n", False),
    ("0.5|0.7|event\n", False),
    ("0.5 0.7 event\n1 2.25 dog\n", False),
]


@pytest.mark.parametrize("text, by_columns", TRICKY_LISTS)
def test_tsv_columns_read_like_lines(tmp_path, monkeypatch, text, by_columns):
    """read_csv reads what the line parser reads, or leaves the list to it."""
    path = tmp_path / "list.txt"
    path.write_bytes(text.encode("utf-8"))
    results = read_both(monkeypatch, path)
    assert_same(results)
    assert results[2] == by_columns


def test_tsv_columns_read_like_lines_random(tmp_path, monkeypatch):
    """Random lists with random defects: the same Series or the same message both ways."""
    rng = np.random.default_rng(5)
    by_columns = 0
    pieces = ["a.wav", "b.wav", "0", "1.5", "2.25", "dog", "cat", "x y", "", " ", "#", "\\", "nan", "-1"]
    for case in range(150):
        delimiter = ["\t", ",", ";"][case % 3]
        n = int(rng.integers(2, 6))
        header = rng.random() < 0.3
        lines = []
        if header:
            names = ["filename", "onset", "offset", "event_label", "scene"][:n] if n > 2 else ["onset", "offset"]
            lines.append(delimiter.join(names))
            n = len(names)
        for _ in range(int(rng.integers(1, 30))):
            file = f"f{int(rng.integers(0, 4))}.wav"
            onset = round(float(rng.uniform(0, 5)), 3)
            offset = round(onset + float(rng.uniform(0, 2)), 3)
            label = ["dog", "cat", "car horn"][int(rng.integers(0, 3))]
            fields = {2: [onset, offset], 3: [onset, offset, label], 4: [file, onset, offset, label],
                      5: [file, onset, offset, label, "s"]}[n]
            if header and n >= 4:
                fields = [file, onset, offset, label, "s"][:n]
            fields = [str(f) for f in fields]
            if rng.random() < 0.05:  # a defect
                fields[int(rng.integers(0, len(fields)))] = pieces[int(rng.integers(0, len(pieces)))]
            if rng.random() < 0.02:
                fields = fields[:-1]
            lines.append(delimiter.join(fields))
        path = tmp_path / f"list{case}.txt"
        path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
        results = read_both(monkeypatch, path)
        assert_same(results)
        by_columns += results[2]
    assert by_columns > 40  # read_csv reads the lists without defects


@pytest.mark.parametrize(
    "bad, message",
    [
        ("clip9.wav\tzero\t1\tdog", "onset must be a number of seconds; got 'zero'"),
        ("clip9.wav\t0\tx\tdog", "offset must be a number of seconds; got 'x'"),
        ("clip9.wav\t2\t1\tdog", "offset 1 is before onset 2"),
        ("clip9.wav\t-1\t1\tdog", "must be a finite, non-negative number of seconds; got '-1'"),
        ("clip9.wav\t0\tinf\tdog", "must be a finite, non-negative number of seconds; got 'inf'"),
        ("clip9.wav\t0\t1", "expected onset, offset and label (or only a file name)"),
        ("\t0\t1\tdog", "the file name is empty"),
        ("clip9.wav\t0\t1\t", "expected onset, offset and label (or only a file name)"),
    ],
)
def test_large_tsv_errors_name_file_and_line(tmp_path, bad, message):
    """A large list (read by read_csv) with one bad line: the message names the file and that line."""
    rows = [f"clip{i // 10}.wav\t{i % 10}.0\t{i % 10}.5\tdog" for i in range(20_000)]
    rows[14_321] = bad
    path = write(tmp_path / "big.tsv", "filename\tonset\toffset\tevent_label\n" + "\n".join(rows) + "\n")
    with pytest.raises(ValueError) as info:
        audeval.read_tsv(path)
    assert str(info.value).startswith(f"{path}:14323: ")  # the header is line 1
    assert message in str(info.value)


def test_large_tsv_without_header_errors_name_file_and_line(tmp_path):
    rows = [f"{i}.0\t{i}.5\tdog" for i in range(20_000)]
    rows[9_999] = "5\t6"
    path = write(tmp_path / "big.txt", "\n".join(rows) + "\n")
    with pytest.raises(ValueError, match=r"big\.txt:10000: expected like the lines before it"):
        audeval.read_tsv(path)


def test_large_tsv_read_by_columns_equals_lines(tmp_path, monkeypatch):
    """A large DCASE list with a file without events and files in any order."""
    rng = np.random.default_rng(0)
    n = 5_000
    file = rng.choice([f"c{i}.wav" for i in range(300)], n)
    onset = np.round(rng.uniform(0, 10, n), 3)
    offset = np.round(onset + rng.uniform(0, 3, n), 6)
    label = rng.choice(["dog", "cat", "Speech", "Électrique"], n)
    text = "filename\tonset\toffset\tevent_label\n" + "".join(
        f"{f}\t{a}\t{b}\t{c}\n" for f, a, b, c in zip(file, onset, offset, label)
    )
    path = write(tmp_path / "big.tsv", text)
    from audeval._io import table as _read_table

    assert os.path.getsize(path) > _read_table.MIN_BYTES
    columns, lines, by_columns = read_both(monkeypatch, path)
    assert by_columns
    assert_same((columns, lines))
    assert columns[1] == list(dict.fromkeys(file))
    assert ns(columns[0], "end") == np.round(offset * 1e9).astype(np.int64).tolist()


def test_seconds_round_to_the_nearest_nanosecond_in_every_format(tmp_path):
    # 3.513388 s is 3513387999.9999995 ns as a float: pandas' to_timedelta truncates it,
    # the one rule (seconds_to_ns) rounds it, in tsv and in csv alike
    (tmp_path / "a.tsv").write_text("filename\tonset\toffset\tevent_label\na.wav\t3.513388\t4.0\tdog\n")
    (tmp_path / "a.csv").write_text("file,start,end,label\na.wav,3.513388,4.0,dog\n")
    for name in ("a.tsv", "a.csv"):
        series = audeval.read_annotations(str(tmp_path / name))
        assert series.index.get_level_values("start").asi8.tolist() == [3_513_388_000], name
        assert series.index.get_level_values("end").asi8.tolist() == [4_000_000_000], name


@pytest.mark.parametrize("value", ["inf", "-inf", "1e300"])
def test_csv_times_out_of_range_name_file_and_line(tmp_path, value):
    (tmp_path / "a.csv").write_text(f"file,start,end,label\na.wav,0.5,1.0,dog\na.wav,1.0,{value},cat\n")
    with pytest.raises(ValueError, match=r"a\.csv:3: end must be a time in seconds"):
        audeval.read_annotations(str(tmp_path / "a.csv"))
