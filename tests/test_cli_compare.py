"""``audeval compare`` (issue 28): the command line gives audeval.compare's table."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

import audeval
from conftest import run, write


TRUTH = "filename\tonset\toffset\tevent_label\n" + "".join(
    f"f{i}.wav\t0.0\t1.0\tdog\nf{i}.wav\t2.0\t3.0\tcat\n" for i in range(6)
)
GOOD = "filename\tonset\toffset\tevent_label\n" + "".join(
    f"f{i}.wav\t0.0\t1.0\tdog\nf{i}.wav\t{2.0 if i < 5 else 4.0}\t{3.0 if i < 5 else 5.0}\tcat\n" for i in range(6)
)
BAD = "filename\tonset\toffset\tevent_label\n" + "".join(
    f"f{i}.wav\t{0.0 if i < 2 else 5.0}\t{1.0 if i < 2 else 6.0}\tdog\nf{i}.wav\t2.0\t3.0\tcat\n" for i in range(6)
)


@pytest.fixture
def files(tmp_path):
    return (
        write(tmp_path / "truth.tsv", TRUTH),
        write(tmp_path / "good.tsv", GOOD),
        write(tmp_path / "bad.tsv", BAD),
    )


def test_compare_gives_the_api_table(capsys, files):
    truth, good, bad = files
    code, out, err = run(
        capsys, "compare", truth, bad, good, "--metric", "event_fscore",
        "-O", "onset_tolerance=0.2", "-O", "offset_tolerance=none",
        "--method", "permutation", "--format", "csv",
    )
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("system")
    expected = audeval.compare(
        audeval.event_fscore,
        audeval.read_annotations(truth),
        {"bad": audeval.read_annotations(bad), "good": audeval.read_annotations(good)},
        method="permutation",
        onset_tolerance=0.2,
        offset_tolerance=None,
    )
    assert list(table.index) == ["bad", "good"]
    np.testing.assert_allclose(table.to_numpy(float), expected.to_numpy(float), rtol=1e-12, equal_nan=True)
    # files f2, f3, f4 differ (f5 has one error in either system): p = 2 / 8 over all 2^6 swaps
    assert table.loc["good", "p_value"] == 0.25


def test_named_systems_baseline_pairwise_and_json(capsys, files):
    truth, good, bad = files
    code, out, err = run(
        capsys, "compare", truth, f"new={good}", f"old={bad}", "--metric", "segment_fscore",
        "--baseline", "old", "--pairwise", "--n-resamples", "300", "--format", "json",
        "--correction", "none",
    )
    assert code == 0, err
    records = json.loads(out)
    assert [(r["system"], r["other"]) for r in records] == [("new", "old"), ("old", "new")]
    assert records[0]["difference"] == -records[1]["difference"]
    assert "p_adjusted" not in records[0]


def test_table_output_has_a_title(capsys, files):
    truth, good, bad = files
    code, out, err = run(
        capsys, "compare", truth, bad, good, "--metric", "event_fscore", "-O", "onset_tolerance=0.2",
        "--n-resamples", "200", "--method", "permutation",
    )
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("event_fscore: 2 systems, 6 files;")
    assert "exact permutation test (64 swaps)" in first and "baseline bad" in first


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--metric", "not_a_metric"], "--metric"),
        (["--metric", "event_fscore", "-O", "onset_tolerance"], "OPTION=VALUE"),
        (["--metric", "event_fscore", "--baseline", "zzz"], "baseline must be one of"),
        (["--metric", "event_fscore", "-O", "window=3"], "unknown options"),
    ],
)
def test_errors_are_one_line(capsys, files, argv, message):
    truth, good, bad = files
    code, out, err = run(capsys, "compare", truth, bad, good, *argv)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_two_systems_of_one_name_are_an_error(capsys, files):
    truth, good, bad = files
    code, out, err = run(capsys, "compare", truth, f"x={good}", f"x={bad}", "--metric", "event_fscore")
    assert code == 2 and "names must differ" in err


def test_strata_from_a_file(capsys, files, tmp_path):
    truth, good, bad = files
    strata = write(tmp_path / "strata.csv", "file,domain\n" + "".join(
        f"f{i}.wav,{'indoor' if i < 3 else 'outdoor'}\n" for i in range(6)
    ))
    code, out, err = run(
        capsys, "compare", truth, bad, good, "--metric", "event_fscore", "-O", "onset_tolerance=0.2",
        "--n-resamples", "300", "--strata", strata, "--format", "csv",
    )
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("system")
    expected = audeval.compare(
        audeval.event_fscore,
        audeval.read_annotations(truth),
        {"bad": audeval.read_annotations(bad), "good": audeval.read_annotations(good)},
        n_resamples=300,
        onset_tolerance=0.2,
        strata={f"f{i}.wav": "indoor" if i < 3 else "outdoor" for i in range(6)},
    )
    np.testing.assert_allclose(table.to_numpy(float), expected.to_numpy(float), rtol=1e-12, equal_nan=True)
