"""The command line, issue 33: what a first user hit (one rule with the API, lost output, messages)."""

from __future__ import annotations

import io
import json
import os

import pandas as pd
import pytest

import audeval
from audeval._cli import main


def write(path, text: str) -> str:
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as fp:
        fp.write(text)
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_csv(capsys, *argv) -> pd.DataFrame:
    code, out, err = run(capsys, *argv, "--format", "csv")
    assert code == 0, err
    return pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""])


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
