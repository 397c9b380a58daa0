"""Make the screenshots of the report guide (docs/guide/report.rst) in headless Chromium.

Run from the repository root (needs ``apt-get install -y chromium chromium-driver``
and the DESED fixtures)::

    python docs/guide/images/make_report_screenshots.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import audeval  # noqa: E402
from _webdriver import Browser  # noqa: E402
from test_html_report import make_database  # noqa: E402

DESED = "/work/shared/fixtures/desed"


def main() -> None:
    folder = tempfile.mkdtemp(prefix="audeval-report-")
    truth = audeval.read_annotations(os.path.join(DESED, "validation.tsv"))
    prediction = audeval.read_annotations(os.path.join(DESED, "student_pred05_clean.tsv"))
    durations = audeval.read_files_duration(os.path.join(DESED, "validation_durations.tsv"))
    events = os.path.join(folder, "desed.html")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DESED's rows past 10 s and its unnamed files
        audeval.html_report(
            truth, prediction, files_duration=durations, onset_tolerance=0.2,
            offset_tolerance=0.2, duration_tolerance=0.2, output=events,
            title="DESED validation: DCASE 2021 baseline at threshold 0.5",
        )
    root = os.path.join(folder, "db")
    import pathlib

    db = make_database(pathlib.Path(root))
    qa = os.path.join(root, "qa.html")
    audeval.html_report(db, output=qa, title="QA: three raters of vocalisations")
    browser = Browser(1280, 1000)
    try:
        for page, anchor, png in (
            (events, "summary", "report-events.png"),
            (qa, "disputes", "report-qa.png"),
        ):
            browser.open(page)
            browser.run(f"document.getElementById('{anchor}').scrollIntoView()")
            browser.screenshot(os.path.join(HERE, png))
    finally:
        browser.close()


if __name__ == "__main__":
    main()
