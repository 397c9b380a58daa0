"""The report in a real browser (issue 30): headless Chromium loads the page offline,
shows the API's numbers, sorts on a header click, filters and pages, logs no error,
requests nothing, and takes a screenshot.

Chromium is driven by chromedriver over the W3C WebDriver protocol
(``tests/_webdriver.py``, standard library only).
Without the browser the tests are skipped; install it on Debian with
``apt-get install -y chromium chromium-driver`` (``.ci/run`` does).
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

import audeval

from _webdriver import Browser, browser_missing
from test_html_report import EXAMPLE_OPTIONS, large_inputs, make_database


pytestmark = pytest.mark.skipif(browser_missing() is not None, reason=browser_missing() or "")


@pytest.fixture(scope="module")
def browser():
    session = Browser(1280, 1000)
    yield session
    session.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pages")
    truth, prediction, durations = audeval.example_data()
    events = folder / "events.html"
    audeval.html_report(truth, prediction, files_duration=durations, n_boot=200, output=events,
                        **EXAMPLE_OPTIONS)
    root = folder / "db"
    db = make_database(root)
    write_wav(root / "f1.wav", seconds=10.0)  # a real sound for the player test
    qa = root / "qa.html"
    audeval.html_report(db, n_boot=100, output=qa, audio_root=root)
    return {"events": str(events), "qa": str(qa), "example": (truth, prediction, durations),
            "raters": audeval.rater_annotations(db)}


def write_wav(path, seconds: float, rate: int = 8000) -> None:
    import wave

    with wave.open(str(path), "wb") as fp:
        fp.setnchannels(1)
        fp.setsampwidth(2)
        fp.setframerate(rate)
        samples = (np.sin(np.arange(int(seconds * rate)) * 0.05) * 3000).astype("<i2")
        fp.writeframes(samples.tobytes())


def load(browser: Browser, path: str) -> None:
    """Open a page with the logs drained before, so that they hold only this page."""
    browser.log("browser")
    browser.log("performance")
    browser.open(path)
    deadline = time.monotonic() + 20
    while browser.run("return document.body && document.body.dataset.ready") != "true":
        assert time.monotonic() < deadline, f"{path}: the page's script did not finish"
        time.sleep(0.05)


def cell_texts(browser: Browser, table: str, key: str) -> list[str]:
    return browser.run(
        """
        const host = document.getElementById(arguments[0]);
        const keys = Array.from(host.querySelectorAll("thead th")).map(th => th.dataset.key);
        const k = keys.indexOf(arguments[1]);
        return Array.from(host.querySelectorAll("tbody tr")).map(tr => tr.children[k].textContent);
        """,
        table,
        key,
    )


def shown(value: float) -> str:
    return "nan" if np.isnan(value) else ("inf" if np.isinf(value) else f"{value:.3f}")


def test_numbers_shown_equal_api(browser, pages):
    truth, prediction, durations = pages["example"]
    options = dict(files_duration=durations, **EXAMPLE_OPTIONS)
    load(browser, pages["events"])
    values = browser.run(
        "return Object.fromEntries(Array.from(document.querySelectorAll('.card'))"
        ".map(c => [c.dataset.metric, c.querySelector('.value').textContent]))"
    )
    assert values["fscore_micro"] == shown(audeval.event_fscore(truth, prediction, **options))
    assert values["fscore_macro"] == shown(
        audeval.event_fscore(truth, prediction, average="macro", **options)
    )
    assert values["error_rate"] == shown(audeval.event_error_rate(truth, prediction, **options))
    report = audeval.event_report(truth, prediction, **options)
    assert cell_texts(browser, "per-class", "fscore") == [shown(v) for v in report["fscore"]]
    assert cell_texts(browser, "per-class", "n_truth") == [f"{v:.0f}" for v in report["n_truth"]]
    per_file = audeval.event_report(truth, prediction, per_file=True, **options)
    micro = per_file.xs("micro", level=1)
    files = cell_texts(browser, "per-file", "file")
    assert cell_texts(browser, "per-file", "fscore") == [shown(micro.loc[f, "fscore"]) for f in files]


def test_header_click_sorts(browser, pages):
    load(browser, pages["events"])
    browser.click('#per-file th[data-key="file"]')
    files = cell_texts(browser, "per-file", "file")
    assert files == sorted(files) and len(files) == 6
    browser.click('#per-file th[data-key="file"]')
    assert cell_texts(browser, "per-file", "file") == sorted(files, reverse=True)
    browser.click('#per-file th[data-key="error_rate"]')
    rates = [float(v) for v in cell_texts(browser, "per-file", "error_rate")]
    assert rates == sorted(rates)
    order = browser.run(
        "return document.querySelector('#per-file th[data-key=\"error_rate\"]')"
        ".getAttribute('aria-sort')"
    )
    assert order == "ascending"


def set_filter(browser: Browser, css: str, value: str) -> None:
    browser.run(
        """
        const e = document.querySelector(arguments[0]);
        e.value = arguments[1];
        e.dispatchEvent(new Event("input"));
        e.dispatchEvent(new Event("change"));
        """,
        css,
        value,
    )


def test_filters(browser, pages):
    load(browser, pages["events"])
    set_filter(browser, "#per-file .filter-text", "clip0")
    assert len(cell_texts(browser, "per-file", "file")) == 6
    set_filter(browser, "#per-file .filter-text", "clip03")
    assert cell_texts(browser, "per-file", "file") == ["clip03.wav"]
    set_filter(browser, "#per-file .filter-text", "")
    set_filter(browser, "#per-file .filter-label", "noise")
    files = cell_texts(browser, "per-file", "file")
    truth, prediction, _ = pages["example"]
    with_noise = set(truth[truth == "noise"].index.get_level_values("file")) | set(
        prediction[prediction == "noise"].index.get_level_values("file")
    )
    assert sorted(files) == sorted(with_noise)
    set_filter(browser, "#per-file .filter-label", "")
    set_filter(browser, "#per-file .filter-column", browser.run(
        "return Array.from(document.querySelectorAll('#per-file .filter-column option'))"
        ".find(o => o.textContent === 'truth events').value"
    ))
    set_filter(browser, "#per-file .filter-min", "8")
    counts = [float(v) for v in cell_texts(browser, "per-file", "n_truth")]
    assert counts and min(counts) >= 8
    expected = (truth.groupby(level="file").size() >= 8).sum()
    assert len(counts) == expected


def test_no_console_errors_and_no_requests(browser, pages):
    for page in ("events", "qa"):
        load(browser, pages[page])
        errors = [e for e in browser.log("browser") if e.get("level") == "SEVERE"]
        assert errors == [], errors
        urls = browser.requests()
        assert all(u.startswith(("file://", "data:")) for u in urls), urls


def test_qa_page_in_browser(browser, pages, tmp_path):
    load(browser, pages["qa"])
    raters = pages["raters"]
    alpha = browser.run(
        "return document.querySelector('.card[data-metric=krippendorff_alpha] .value').textContent"
    )
    assert alpha == shown(audeval.krippendorff_alpha(raters))
    players = browser.run(
        "return Array.from(document.querySelectorAll('audio')).map(a => a.getAttribute('src'))"
    )
    assert players and all("#t=" in p for p in players)
    spans = audeval.disagreements(raters)
    assert browser.run("return document.getElementById('spans').dataset.shown") == str(len(spans))
    # the player of the longest span of f1.wav starts at the span (media fragment #t=start,end)
    first = spans.sort_values("duration", ascending=False, kind="stable")
    first = first[first.index.get_level_values("file") == "f1.wav"].index[0]
    browser.run(
        """
        const audio = document.querySelector('.span[data-file="f1.wav"] audio');
        audio.addEventListener("loadedmetadata", () => { document.body.dataset.at = audio.currentTime; });
        audio.preload = "metadata";
        audio.load();
        """
    )
    deadline = time.monotonic() + 10
    while browser.run("return document.body.dataset.at") is None:
        assert time.monotonic() < deadline, "the audio file did not load"
        time.sleep(0.05)
    at = float(browser.run("return document.body.dataset.at"))
    assert at == pytest.approx(first[1].total_seconds(), abs=1e-3)
    assert [e for e in browser.log("browser") if e.get("level") == "SEVERE"] == []
    browser.screenshot(str(tmp_path / "qa.png"))
    assert (tmp_path / "qa.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.filterwarnings("ignore:.*repeat an identical row")
def test_large_page_pages_and_screenshot(browser, tmp_path):
    truth, prediction, durations = large_inputs(10_000)
    path = tmp_path / "large.html"
    audeval.html_report(truth, prediction, files_duration=durations, n_boot=50, output=path)
    load(browser, str(path))
    assert len(cell_texts(browser, "per-file", "file")) == 50
    browser.click("#per-file .next")
    assert browser.run("return document.querySelector('#per-file .pager').textContent") == (
        "rows 51\u201375 of 10000".replace("75", "100")
    )
    assert [e for e in browser.log("browser") if e.get("level") == "SEVERE"] == []
    browser.screenshot(str(tmp_path / "large.png"))
    assert os.path.getsize(tmp_path / "large.png") > 10_000


def test_large_consensus_download_unpacks(browser, pages, tmp_path, monkeypatch):
    """A large consensus CSV is embedded gzip-compressed; the page unpacks it on click."""
    import audeval._html.qa

    monkeypatch.setattr(audeval._html.qa, "GZIP_ABOVE", 0)
    raters = pages["raters"]
    path = tmp_path / "qa.html"
    audeval.html_report(raters, n_boot=0, output=path)
    assert "data:text/csv" not in path.read_text(encoding="utf-8")
    load(browser, str(path))
    text = browser.run(
        "return window.audevalUnpack(document.querySelector('a[data-gzip]'))"
        ".then(blob => blob.text())"
    )
    votes = audeval.consensus(raters, per_label=True)
    lines = text.strip().split("\n")
    assert lines[0] == "file,start,end,label" and len(lines) == len(votes) + 1
    assert [line.rsplit(",", 1)[1] for line in lines[1:]] == votes.astype(str).tolist()
    browser.click("a[data-gzip]")  # makes the file: no error
    deadline = time.monotonic() + 10
    while browser.run("return document.querySelector('a[data-gzip]').dataset.ready") != "true":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert browser.run("return document.querySelector('a[data-gzip]').href").startswith("blob:")
    assert [e for e in browser.log("browser") if e.get("level") == "SEVERE"] == []
