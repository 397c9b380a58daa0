"""The HTML report (issue 30): the numbers a page holds are the API's, the page is self-contained.

The page's numbers are read back from its HTML: headline cards (``data-value``),
the JSON rows of its data tables and the heat map cells. The browser tests
(``test_html_browser.py``) check what the browser shows from them.
"""

from __future__ import annotations

import base64
import html as html_lib
import io
import json
import os
import re

import audformat
import numpy as np
import pandas as pd
import pytest

import audeval
from audeval._html.svg import OUTCOME_COLORS

from conftest import MAY_WARN_BEYOND_DURATION, MAY_WARN_FILES_WITHOUT_ROWS, run

DESED = "/work/shared/fixtures/desed"


# -------------------------------------------------------------------------
# Reading a page
# -------------------------------------------------------------------------


def tables(page: str) -> dict[str, dict]:
    """The JSON of every data table, by its host id."""
    out = {}
    for ident, text in re.findall(r'<script type="application/json" id="([^"]+)-data">(.*?)</script>', page, re.S):
        out[ident] = json.loads(text)
    return out


def column(table: dict, key: str) -> list:
    k = [c["key"] for c in table["columns"]].index(key)
    return [row[k] for row in table["rows"]]


def as_float(values) -> np.ndarray:
    return np.asarray([np.nan if v == "NaN" else float(v) for v in values])


def cards(page: str) -> dict[str, float]:
    return {k: float(v) for k, v in re.findall(r'data-metric="([^"]+)" data-value="([^"]+)"', page)}


def intervals(page: str) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for a, b in re.findall(r'data-low="([^"]+)" data-high="([^"]+)"', page)]


def heat_cells(page: str, within: str | None = None) -> dict[tuple[str, str], float]:
    """The cells of the (first) heat map, or of the one in the element with id ``within``."""
    if within is not None:
        page = page[page.index(f'id="{within}"'):]
    page = page[: page.index("</svg>")]
    cells = re.findall(r'<g class="cell" data-row="([^"]*)" data-column="([^"]*)" data-value="([^"]+)"', page)
    return {(html_lib.unescape(r), html_lib.unescape(c)): float(v) for r, c, v in cells}


def assert_self_contained(page: str) -> None:
    """Nothing to load: no external URL but the SVG namespace, no link, no import."""
    urls = set(re.findall(r"(?:https?:)?//[\w.-]+[^\s\"'<>)]*", page))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls
    assert "<link" not in page and "@import" not in page and "<iframe" not in page
    assert not re.search(r'<(?:script|img)[^>]+src=', page)
    assert "Content-Security-Policy" in page


# -------------------------------------------------------------------------
# Evaluation: events
# -------------------------------------------------------------------------

EXAMPLE_OPTIONS = dict(onset_tolerance=0.5, offset_tolerance=0.2, duration_tolerance=0.5)


@pytest.fixture(scope="module")
def example():
    return audeval.example_data()


@pytest.fixture(scope="module")
def event_page(example):
    truth, prediction, durations = example
    return audeval.html_report(
        truth, prediction, files_duration=durations, n_boot=200, seed=3, **EXAMPLE_OPTIONS
    )


def test_event_headline_equals_api(example, event_page):
    truth, prediction, durations = example
    options = dict(files_duration=durations, **EXAMPLE_OPTIONS)
    shown = cards(event_page)
    assert shown["fscore_micro"] == audeval.event_fscore(truth, prediction, **options)
    assert shown["fscore_macro"] == audeval.event_fscore(truth, prediction, average="macro", **options)
    assert shown["error_rate"] == audeval.event_error_rate(truth, prediction, **options)
    boot = audeval.bootstrap(audeval.event_fscore, truth, prediction, n_boot=200, seed=3, **options)
    assert intervals(event_page)[0] == (boot.low, boot.high)
    report = audeval.event_report(truth, prediction, **options)
    assert shown["precision_micro"] == report.loc["micro", "precision"]


def test_event_tables_equal_api(example, event_page):
    truth, prediction, durations = example
    options = dict(files_duration=durations, **EXAMPLE_OPTIONS)
    data = tables(event_page)
    report = audeval.event_report(truth, prediction, **options)
    per_class = data["per-class"]
    assert column(per_class, "label") == [str(i) for i in report.index]
    for key in ("precision", "recall", "fscore", "error_rate", "n_truth", "tp"):
        np.testing.assert_array_equal(as_float(column(per_class, key)), report[key].to_numpy())
    per_file = audeval.event_report(truth, prediction, per_file=True, **options)
    micro = per_file.xs("micro", level=1).drop(index="TOTAL")
    files = column(data["per-file"], "file")
    assert sorted(files) == sorted(micro.index)
    np.testing.assert_array_equal(as_float(column(data["per-file"], "fscore")), micro.loc[files, "fscore"].to_numpy())
    # worst first: F-score ascending
    fscore = as_float(column(data["per-file"], "fscore"))
    assert np.all(np.diff(fscore) >= 0)
    # labels of a file: those with events in it
    labels = dict(zip(files, column(data["per-file"], "labels")))
    assert labels["clip06.wav"] == ["noise"]


def test_event_options_and_confusion_shown(example, event_page):
    truth, prediction, durations = example
    assert re.search(r'data-option="onset_tolerance"><th>onset_tolerance</th><td>0.5 s', event_page)
    assert re.search(r'data-option="matching"><th>matching</th><td>optimal', event_page)
    confusion = audeval.event_confusion_matrix(
        truth, prediction, files_duration=durations, as_frame=True, **EXAMPLE_OPTIONS
    )
    cells = heat_cells(event_page, "confusion")
    for r in confusion.index:
        for c in confusion.columns:
            assert cells[(str(r), str(c))] == confusion.loc[r, c]


def test_event_timelines_draw_outcomes(example, event_page):
    """Each worst file's bars are the rows of event_outcomes, with the plot's colours."""
    truth, prediction, durations = example
    outcomes = audeval.event_outcomes(truth, prediction, files_duration=durations, **EXAMPLE_OPTIONS)
    blocks = re.findall(r'<div class="timeline" id="timeline-\d+" data-file="([^"]+)">(.*?)</svg>', event_page, re.S)
    assert len(blocks) == 6  # every file of the example (n_timelines=20)
    drawn = {"tp": "tp", "substituted": "substitution", "substituting": "substitution",
             "fn": "deletion", "fp": "insertion"}
    for file, svg in blocks:
        rows = outcomes[outcomes["file"] == file]
        kinds = re.findall(r'<rect class="bar (\w+)" data-kind="\w+"[^>]*fill="(#\w+)"', svg)
        assert sorted(k for k, _ in kinds) == sorted(drawn[o] for o in rows["outcome"].astype(str))
        assert all(OUTCOME_COLORS[k] == colour for k, colour in kinds)


def test_colours_are_the_plot_colours():
    import audeval.plot

    assert OUTCOME_COLORS == audeval.plot.OUTCOME_COLORS


def test_page_is_self_contained(event_page):
    assert_self_contained(event_page)


def test_n_timelines_and_no_intervals(example):
    truth, prediction, durations = example
    page = audeval.html_report(truth, prediction, files_duration=durations, n_timelines=2, n_boot=0)
    assert len(re.findall(r'<div class="timeline" id=', page)) == 2
    assert intervals(page) == []
    anchors = tables(page)["per-file"]["anchors"]
    assert len(anchors) == 2


def test_output_written(tmp_path, example):
    truth, prediction, durations = example
    path = tmp_path / "report.html"
    text = audeval.html_report(truth, prediction, files_duration=durations, n_boot=0, output=path)
    assert path.read_text(encoding="utf-8") == text


def test_bad_arguments(example):
    truth, prediction, _ = example
    with pytest.raises(TypeError, match="time_resolution"):
        audeval.html_report(truth, prediction, time_resolution=1.0, n_boot=0)
    with pytest.raises(ValueError, match="family must be one of"):
        audeval.html_report(truth, prediction, family="nope")
    with pytest.raises(ValueError, match="n_boot"):
        audeval.html_report(truth, prediction, n_boot=-1)
    with pytest.raises(ValueError, match="at least two raters"):
        audeval.html_report({"a": truth})


# -------------------------------------------------------------------------
# Evaluation: segments, diarization
# -------------------------------------------------------------------------


def test_segment_page_equals_api(example):
    truth, prediction, durations = example
    options = dict(files_duration=durations, time_resolution=0.5)
    page = audeval.html_report(truth, prediction, family="segments", n_boot=0, **options)
    shown = cards(page)
    assert shown["fscore_micro"] == audeval.segment_fscore(truth, prediction, **options)
    assert shown["error_rate"] == audeval.segment_error_rate(truth, prediction, **options)
    report = audeval.segment_report(truth, prediction, **options)
    np.testing.assert_array_equal(as_float(column(tables(page)["per-class"], "fscore")), report["fscore"].to_numpy())
    assert_self_contained(page)


def test_diarization_page_equals_api(example):
    truth, prediction, durations = example
    options = dict(files_duration=durations, collar=0.5)
    page = audeval.html_report(truth, prediction, family="diarization", n_boot=100, **options)
    assert cards(page)["diarization_error_rate"] == audeval.diarization_error_rate(truth, prediction, **options)
    report = audeval.diarization_report(truth, prediction, **options).drop(index="TOTAL")
    data = tables(page)
    files = column(data["per-file"], "file")
    np.testing.assert_array_equal(
        as_float(column(data["per-file"], "diarization_error_rate")),
        report.loc[files, "diarization_error_rate"].to_numpy(),
    )
    # worst first: DER descending
    assert np.all(np.diff(as_float(column(data["per-file"], "diarization_error_rate"))) <= 0)
    mapping = audeval.diarization_mapping(truth, prediction, **options)
    assert len(data["mapping"]["rows"]) == len(mapping)


# -------------------------------------------------------------------------
# CLI
# -------------------------------------------------------------------------


def test_cli_example_equals_api(capsys, tmp_path, example):
    truth, prediction, durations = example
    out = tmp_path / "report.html"
    code, _, err = run(capsys, "report", "--example", "--onset-tolerance", "0.5", "--no-offset",
                       "--n-boot", "50", "-o", out)
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    options = dict(onset_tolerance=0.5, offset_tolerance=None, duration_tolerance=None,
                   files_duration=durations)
    assert cards(page)["fscore_micro"] == audeval.event_fscore(truth, prediction, **options)
    assert_self_contained(page)


def test_cli_errors(capsys):
    code, _, err = run(capsys, "report", "--example", "--bogus", "1")
    assert code == 2 and "unrecognized arguments: --bogus" in err
    code, _, err = run(capsys, "report", "--example", "--audio-root", "x")
    assert code == 2 and "--audio-root goes with --database" in err


@pytest.mark.skipif(not os.path.isdir(DESED), reason="DESED fixtures not available")
@MAY_WARN_BEYOND_DURATION  # DESED's truth has 16 rows past the 10 s of their clip
@MAY_WARN_FILES_WITHOUT_ROWS  # and lists 2 clips that no table names
def test_cli_desed_equals_api(capsys, tmp_path):
    """The DESED validation set (1,168 files) with the DCASE task 4 event options."""
    out = tmp_path / "desed.html"
    truth_path = os.path.join(DESED, "validation.tsv")
    prediction_path = os.path.join(DESED, "student_pred05_clean.tsv")
    durations_path = os.path.join(DESED, "validation_durations.tsv")
    code, _, err = run(capsys, "report", truth_path, prediction_path, "--files-duration",
                       durations_path, "--duration-tolerance", "0.2", "--n-boot", "100", "-o", out)
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    truth = audeval.read_annotations(truth_path)
    prediction = audeval.read_annotations(prediction_path)
    durations = audeval.read_files_duration(durations_path)
    options = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.2, files_duration=durations)
    shown = cards(page)
    assert shown["fscore_micro"] == audeval.event_fscore(truth, prediction, **options)
    assert shown["fscore_macro"] == audeval.event_fscore(truth, prediction, average="macro", **options)
    assert round(100 * shown["fscore_micro"], 2) == 40.98  # the exact rule of SPEC section 3
    assert len(tables(page)["per-file"]["rows"]) == 1168
    assert len(re.findall(r'<div class="timeline" id=', page)) == 20


# -------------------------------------------------------------------------
# QA of a three-rater database
# -------------------------------------------------------------------------

RATERS = {
    "rater_a": [("f1.wav", 0.0, 4.0, "speech"), ("f1.wav", 4.0, 5.0, "laughter"),
                ("f1.wav", 5.5, 9.0, "speech"), ("f2.wav", 1.0, 6.0, "speech"),
                ("f2.wav", 7.0, 7.5, "cough"), ("f3.wav", 0.5, 2.0, "laughter"),
                ("f3.wav", 2.0, 8.0, "speech")],
    "rater_b": [("f1.wav", 0.1, 4.2, "speech"), ("f1.wav", 4.2, 5.0, "laughter"),
                ("f1.wav", 5.4, 9.0, "speech"), ("f2.wav", 1.0, 6.5, "speech"),
                ("f2.wav", 7.0, 7.5, "speech"), ("f3.wav", 0.5, 1.5, "laughter"),
                ("f3.wav", 1.5, 8.2, "speech")],
    "rater_c": [("f1.wav", 0.0, 5.0, "speech"), ("f1.wav", 5.5, 9.5, "speech"),
                ("f2.wav", 0.8, 6.0, "speech"), ("f2.wav", 7.1, 7.6, "cough"),
                ("f3.wav", 0.4, 2.1, "laughter"), ("f3.wav", 2.1, 8.0, "speech")],
}


def make_database(root) -> audformat.Database:
    """Three raters of three files (the database of the QA guide); audio of f1 and f2 only."""
    db = audformat.Database("vocalisations")
    db.schemes["vocalisation"] = audformat.Scheme(labels=["speech", "laughter", "cough"])
    for rater, rows in RATERS.items():
        files, starts, ends, labels = zip(*rows)
        db.raters[rater] = audformat.Rater()
        db[rater] = audformat.Table(audformat.segmented_index(files, starts, ends))
        db[rater]["vocalisation"] = audformat.Column(scheme_id="vocalisation", rater_id=rater)
        db[rater]["vocalisation"].set(list(labels))
    os.makedirs(root, exist_ok=True)
    db.save(str(root))
    for name in ("f1.wav", "f2.wav"):  # the page only looks whether the file is there
        (root / name).write_bytes(b"RIFF")
    return db


@pytest.fixture(scope="module")
def qa(tmp_path_factory):
    root = tmp_path_factory.mktemp("db")
    db = make_database(root)
    out = root / "qa.html"
    from audeval._cli import main

    assert main(["report", "--database", str(root), "--n-boot", "200", "-o", str(out)]) == 0
    return audeval.rater_annotations(db), out.read_text(encoding="utf-8"), root


def test_qa_numbers_equal_api(qa):
    raters, page, _ = qa
    shown = cards(page)
    assert shown["krippendorff_alpha"] == audeval.krippendorff_alpha(raters)
    assert shown["fleiss_kappa"] == audeval.fleiss_kappa(raters)
    boot = audeval.bootstrap(audeval.krippendorff_alpha, raters, n_boot=200, seed=0)
    assert intervals(page)[0] == (boot.low, boot.high)
    matrix = audeval.agreement_matrix(raters, metric=audeval.cohen_kappa)
    cells = heat_cells(page, "heatmap-kappa")
    for a in raters:
        for b in raters:
            if a != b:
                assert cells[(a, b)] == matrix.loc[a, b]
    votes = audeval.consensus(raters, per_label=True)
    with_votes = audeval.agreement_matrix({**raters, "consensus": votes}, metric=audeval.cohen_kappa)
    assert cells[("rater_a", "consensus")] == with_votes.loc["rater_a", "consensus"]
    alpha = audeval.agreement_matrix(raters, metric=audeval.krippendorff_alpha)
    cells = heat_cells(page, "heatmap-alpha")
    assert cells[("rater_b", "rater_c")] == alpha.loc["rater_b", "rater_c"]
    assert len(cells) == 9


def test_qa_rater_and_label_tables(qa):
    raters, page, _ = qa
    rater_rows = re.findall(r'<tr><td class="text">(rater_\w)</td><td data-value="([^"]+)">.*?</td><td data-value="([^"]+)">.*?</td><td data-value="([^"]+)">', page)
    assert [r[0] for r in rater_rows] == list(raters)
    for name, _, _, without in rater_rows:
        rest = {k: v for k, v in raters.items() if k != name}
        assert float(without) == audeval.krippendorff_alpha(rest)
    alpha = audeval.krippendorff_alpha(raters, per_label=True, average="none")
    label_table = page[page.index('id="label-table"'):]
    for label, value in alpha.items():
        assert re.search(rf'<td class="text">{label}</td><td data-value="{value!r}"', label_table)


def test_qa_spans_players_and_consensus(qa):
    raters, page, root = qa
    spans = audeval.disagreements(raters).sort_values("duration", ascending=False, kind="stable")
    table = tables(page)["spans"]
    assert len(table["rows"]) == len(spans)
    np.testing.assert_array_equal(
        as_float(column(table, "duration")), spans["duration"].dt.total_seconds().to_numpy()
    )
    players = re.findall(r'<div class="span" id="span-\d+" data-file="([^"]+)"><h3>[^<]*</h3>(<audio[^>]*>|<span)', page)
    assert len(players) == min(20, len(spans))
    for file, player in players:
        if file == "f3.wav":  # no audio file
            assert player == "<span"
        else:
            assert re.fullmatch(rf'<audio controls preload="none" src="{file}#t=[\d.]+,[\d.]+">', player)
    data = re.search(r'href="data:text/csv;base64,([^"]+)"', page).group(1)
    csv = pd.read_csv(io.StringIO(base64.b64decode(data).decode()))
    votes = audeval.consensus(raters, per_label=True)
    assert csv["label"].tolist() == votes.astype(str).tolist()
    np.testing.assert_array_equal(csv["start"], votes.index.get_level_values("start").total_seconds())
    assert_self_contained(page)


# -------------------------------------------------------------------------
# Scale
# -------------------------------------------------------------------------


def large_inputs(n_files: int, seed: int = 0) -> tuple[pd.Series, pd.Series, pd.Series]:
    """``n_files`` clips of 10 s with 4 events each, predictions jittered."""
    rng = np.random.default_rng(seed)
    files = np.repeat([f"clip{i:05d}.wav" for i in range(n_files)], 4)
    start = np.round(rng.uniform(0, 7, len(files)), 3)
    end = np.round(start + rng.uniform(0.3, 3, len(files)), 3)
    labels = rng.choice(["dog", "cat", "speech", "music", "alarm"], len(files))
    truth = pd.Series(labels, index=audformat.segmented_index(files, start, end))
    jitter = np.round(rng.normal(0, 0.3, len(files)), 3)
    flip = rng.random(len(files)) < 0.2
    predicted = np.where(flip, rng.choice(["dog", "cat", "speech", "music", "alarm"], len(files)), labels)
    prediction = pd.Series(
        predicted,
        index=audformat.segmented_index(files, np.clip(start + jitter, 0, None), np.clip(end + jitter, 0.01, 10)),
    )
    durations = pd.Series(10.0, index=pd.Index(pd.unique(files), name="file"))
    return truth, prediction, durations


@pytest.mark.filterwarnings("ignore:.*repeat an identical row")
def test_10k_files_page_size():
    truth, prediction, durations = large_inputs(10_000)
    page = audeval.html_report(truth, prediction, files_duration=durations, n_boot=100)
    assert len(page.encode("utf-8")) < 5_000_000
    assert len(tables(page)["per-file"]["rows"]) == 10_000
    assert len(re.findall(r'<div class="timeline" id=', page)) == 20


def test_browser_skip_reason_says_how_to_install(monkeypatch):
    import shutil

    from _webdriver import browser_missing

    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert "apt-get install -y chromium chromium-driver" in browser_missing()


# -------------------------------------------------------------------------
# Scores
# -------------------------------------------------------------------------


def score_inputs() -> tuple[pd.Series, pd.DataFrame]:
    """20 clips with scores that follow the truth (the inputs of the plot reference)."""
    rng = np.random.default_rng(1)
    names = [f"clip{i}.wav" for i in range(20)]
    starts = rng.uniform(0, 6, 40).round(1)
    truth = pd.Series(
        ["dog", "cat"] * 20,
        index=audformat.segmented_index(np.repeat(names, 2), starts, starts + rng.uniform(1, 4, 40).round(1)),
    )
    frames = np.tile(np.arange(0, 10, 0.5), 20)
    index = audformat.segmented_index(np.repeat(names, 20), frames, frames + 0.5)

    def active(label):
        events = truth[truth == label].index
        onset = np.repeat(events.get_level_values("start").total_seconds(), 20)
        offset = np.repeat(events.get_level_values("end").total_seconds(), 20)
        return ((frames + 0.5 > onset) & (frames < offset)).astype(float)

    scores = pd.DataFrame(
        {label: (0.5 * active(label) + rng.uniform(0, 0.6, 400)).round(2) for label in ("cat", "dog")},
        index=index,
    )
    return truth, scores


def test_score_page_equals_api():
    truth, scores = score_inputs()
    page = audeval.html_report(truth, scores, n_boot=100, threshold=0.6)
    shown = cards(page)
    assert shown["psds"] == audeval.psds(truth, scores)
    boot = audeval.bootstrap(audeval.psds, truth, scores, n_boot=100, seed=0)
    assert intervals(page)[0] == (boot.low, boot.high)
    best = audeval.best_fscore(truth, scores)
    assert shown["best_fscore_macro"] == best.loc["macro", "fscore"]
    per_class = tables(page)["per-class"]
    np.testing.assert_array_equal(as_float(column(per_class, "threshold")), best["threshold"].to_numpy())
    precision = audeval.average_precision(truth, scores, average=None)
    assert as_float(column(per_class, "average_precision"))[:2].tolist() == [precision["cat"], precision["dog"]]
    detections = audeval.scores_to_events(scores, threshold=0.6)
    tolerances = dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.2)
    assert shown["event_fscore_micro"] == audeval.event_fscore(truth, detections, **tolerances)
    assert page.count('<polyline class="curve"') == 3 + 2  # PSD-ROC: 2 classes + all; PR: 2
    assert_self_contained(page)


def test_cli_scores(capsys, tmp_path):
    truth, scores = score_inputs()
    folder = tmp_path / "scores"
    folder.mkdir()
    for file, frame in scores.groupby(level="file"):
        table = frame.reset_index()
        table["onset"] = table["start"].dt.total_seconds()
        table["offset"] = table["end"].dt.total_seconds()
        table[["onset", "offset", "cat", "dog"]].to_csv(folder / f"{file[:-4]}.tsv", sep="\t", index=False)
    truth_path = tmp_path / "truth.tsv"
    pd.DataFrame({
        "filename": truth.index.get_level_values("file"),
        "onset": truth.index.get_level_values("start").total_seconds(),
        "offset": truth.index.get_level_values("end").total_seconds(),
        "event_label": truth.to_numpy(),
    }).to_csv(truth_path, sep="\t", index=False)
    out = tmp_path / "scores.html"
    code, _, err = run(capsys, "report", "--family", "scores", truth_path, folder, "--n-boot", "0", "-o", out)
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    stems = truth.copy()
    stems.index = stems.index.set_levels([f[:-4] for f in stems.index.levels[0]], level="file")
    read = audeval.read_sed_scores(str(folder))
    assert cards(page)["psds"] == audeval.psds(stems, read, **audeval.PSDS1)


def test_few_files_no_interval_no_warning(example):
    """With fewer than 3 files the bootstrap gives no interval: the card shows none, quietly."""
    truth, prediction, durations = example
    one = truth[truth.index.get_level_values("file") == "clip01.wav"]
    other = prediction[prediction.index.get_level_values("file") == "clip01.wav"]
    page = audeval.html_report(one, other, n_boot=100)
    assert intervals(page) == []
    assert cards(page)["fscore_micro"] == audeval.event_fscore(one, other)


# -------------------------------------------------------------------------
# Structure
# -------------------------------------------------------------------------


def partitions(n_boundaries: int, labels: str, seed: int) -> pd.Series:
    """Five files of 30 s, each a partition with ``n_boundaries`` inner boundaries."""
    rng = np.random.default_rng(seed)
    rows = []
    for f in range(5):
        edges = np.r_[0, np.sort(rng.choice(np.arange(1, 30), n_boundaries, replace=False)), 30]
        rows += [(f"f{f}.wav", float(a), float(b), labels[i % len(labels)])
                 for i, (a, b) in enumerate(zip(edges[:-1], edges[1:]))]
    files, starts, ends, names = zip(*rows)
    return pd.Series(list(names), index=audformat.segmented_index(list(files), list(starts), list(ends)))


def test_structure_page_equals_api(capsys, tmp_path):
    truth, prediction = partitions(5, "ABCAB", 0), partitions(4, "xyz", 1)
    page = audeval.html_report(truth, prediction, family="structure", n_boot=100, frame_size=0.5)
    shown = cards(page)
    assert shown["boundary_fscore"] == audeval.boundary_detection(truth, prediction, frame_size=0.5)[2]
    assert shown["v_measure"] == audeval.v_measure(truth, prediction, frame_size=0.5)[2]
    boot = audeval.bootstrap(audeval.v_measure, truth, prediction, n_boot=100, seed=0, frame_size=0.5)
    assert intervals(page)[3] == (boot.low[2], boot.high[2])
    report = audeval.structure_report(truth, prediction, frame_size=0.5)
    data = tables(page)
    files = column(data["per-file"], "file")
    np.testing.assert_array_equal(
        as_float(column(data["per-file"], "v_measure")), report.loc[files, "v_measure"].to_numpy()
    )
    np.testing.assert_array_equal(as_float(column(data["per-class"], "mean over files")),
                                  report.mean().to_numpy())
    # the CLI with the options of ``audeval structure``
    paths = {}
    for name, series in (("truth", truth), ("prediction", prediction)):
        paths[name] = tmp_path / f"{name}.tsv"
        pd.DataFrame({
            "filename": series.index.get_level_values("file"),
            "onset": series.index.get_level_values("start").total_seconds(),
            "offset": series.index.get_level_values("end").total_seconds(),
            "event_label": series.to_numpy(),
        }).to_csv(paths[name], sep="\t", index=False)
    out = tmp_path / "structure.html"
    code, _, err = run(capsys, "report", "--family", "structure", paths["truth"], paths["prediction"],
                       "--frame-size", "0.5", "--n-boot", "0", "-o", out)
    assert code == 0, err
    assert cards(out.read_text(encoding="utf-8")) == {k: v for k, v in shown.items()}


def test_qa_spans_table_capped(qa, monkeypatch):
    """A page holds at most MAX_SPAN_ROWS disputed spans (the longest) and says so."""
    import audeval._html.qa

    raters, _, _ = qa
    monkeypatch.setattr(audeval._html.qa, "MAX_SPAN_ROWS", 5)
    page = audeval.html_report(raters, n_boot=0)
    spans = audeval.disagreements(raters).sort_values("duration", ascending=False, kind="stable")
    table = tables(page)["spans"]
    assert len(table["rows"]) == 5
    np.testing.assert_array_equal(
        as_float(column(table, "duration")), spans["duration"].dt.total_seconds().to_numpy()[:5]
    )
    assert f"{len(spans)} spans where the raters differ" in page
    assert "The table holds the 5 longest" in page
