"""gap_label on segment_statistics, segment_report and the CLI (issue 29, item 6): MIREX2018_eval's final code."""

from __future__ import annotations

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from tests.conftest import run_csv, write


def series(rows):
    files, starts, ends, labels = zip(*rows)
    return pd.Series(list(labels), index=audformat.segmented_index(list(files), list(starts), list(ends)))


# the example: one 10 s file, MIREX reports '-' P 1.0, R 0.25, F 0.4
TRUTH = [("f", 0, 4, "music"), ("f", 4, 6, "speech")]
PREDICTION = [("f", 0, 4, "music"), ("f", 4, 9, "speech")]


@pytest.mark.parametrize("time_resolution", [0.01, 1.0, None])
def test_mirex_example_row(time_resolution):
    report = audeval.segment_report(
        series(TRUTH), series(PREDICTION), time_resolution=time_resolution,
        files_duration={"f": 10}, gap_label="-",
    )
    assert list(report.index) == ["music", "speech", "-", "micro", "macro"]
    assert report.loc["-", ["precision", "recall", "fscore"]].tolist() == pytest.approx([1.0, 0.25, 0.4])
    assert report.loc["speech", ["precision", "recall"]].tolist() == pytest.approx([0.4, 1.0])
    # micro: 7 of 10 s right in truth and prediction alike (the final code's Ntp / Nref)
    assert report.loc["micro", "fscore"] == pytest.approx(0.7)
    assert report.loc["micro", "fscore"] == pytest.approx(
        audeval.segment_accuracy(
            series(TRUTH), series(PREDICTION), time_resolution=time_resolution,
            files_duration={"f": 10}, gap_label="-",
        )
    )
    without = audeval.segment_report(
        series(TRUTH), series(PREDICTION), time_resolution=time_resolution, files_duration={"f": 10}
    )
    pd.testing.assert_frame_equal(without.loc[["music", "speech"]], report.loc[["music", "speech"]])


def test_statistics_rows_and_sums():
    truth = series(TRUTH + [("g", 1, 2, "music")])
    prediction = series(PREDICTION + [("g", 0, 3, "music")])
    durations = {"f": 10, "g": 4}
    table = audeval.segment_statistics(truth, prediction, time_resolution=1.0, files_duration=durations, gap_label="-")
    # g: truth '-' {0, 2, 3}, prediction '-' {3}
    assert table.loc[("g", "-")].tolist()[:4] == [1, 0, 2, 1]
    assert table.loc[("f", "-")].tolist()[:4] == [1, 0, 3, 6]
    assert table.attrs["audeval"]["options"]["gap_label"] == "-"
    parts = [
        audeval.segment_statistics(
            truth[truth.index.get_level_values("file") == f], prediction[prediction.index.get_level_values("file") == f],
            time_resolution=1.0, files_duration={f: durations[f]}, gap_label="-",
        )
        for f in ("f", "g")
    ]
    summed = audeval.sum_statistics(parts)
    direct = audeval.segment_report(truth, prediction, time_resolution=1.0, files_duration=durations, gap_label="-")
    pd.testing.assert_frame_equal(audeval.segment_report(summed), direct)
    pd.testing.assert_frame_equal(audeval.segment_report(summed, gap_label="-"), direct)
    assert audeval.segment_accuracy(summed, gap_label="-") == pytest.approx(
        audeval.segment_accuracy(truth, prediction, time_resolution=1.0, files_duration=durations, gap_label="-")
    )
    accumulator = audeval.Accumulator(
        audeval.segment_report, time_resolution=1.0, files_duration=durations, gap_label="-"
    )
    for part in ("f", "g"):
        accumulator.update(
            truth[truth.index.get_level_values("file") == part],
            prediction[prediction.index.get_level_values("file") == part],
        )
    pd.testing.assert_frame_equal(accumulator.compute(), direct)
    per_file = audeval.segment_report(summed, per_file=True)
    assert per_file.loc[("g", "-"), "recall"] == pytest.approx(1 / 3)


def test_errors():
    truth, prediction = series(TRUTH), series(PREDICTION)
    with pytest.raises(ValueError, match="gap_label='music' is a label of the inputs"):
        audeval.segment_statistics(truth, prediction, gap_label="music")
    table = audeval.segment_statistics(truth, prediction, files_duration={"f": 10})
    with pytest.raises(ValueError, match="made with gap_label=None"):
        audeval.segment_report(table, gap_label="-")
    table = audeval.segment_statistics(truth, prediction, files_duration={"f": 10}, gap_label="-")
    with pytest.raises(ValueError, match="made with gap_label='-'"):
        audeval.segment_report(table, gap_label="gap")


def test_cli(capsys, tmp_path):
    truth = write(tmp_path / "truth.csv", "file,start,end,label\nf,0,4,music\nf,4,6,speech\n")
    prediction = write(tmp_path / "prediction.csv", "file,start,end,label\nf,0,4,music\nf,4,9,speech\n")
    durations = write(tmp_path / "durations.csv", "file,duration\nf,10\n")
    report = run_csv(
        capsys, "segments", truth, prediction, "--time-resolution", "0.01",
        "--files-duration", durations, "--gap-label", "-",
    ).set_index("label")
    assert report.loc["-", ["precision", "recall", "fscore"]].astype(float).tolist() == pytest.approx(
        [1.0, 0.25, 0.4]
    )
    plain = run_csv(capsys, "segments", truth, prediction, "--files-duration", durations).set_index("label")
    assert "-" not in plain.index
    assert np.isclose(plain.loc["music", "fscore"], 1.0)
