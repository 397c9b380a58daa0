"""The HTML report at scale (issue 30): 10k files, page size, build time and load time in Chromium.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_html_report.py [--files 10000] [--repeat 5]

Events of 10k clips of 10 s (4 events each, predictions jittered and 20 % relabelled),
``html_report`` with the default 1,000 bootstrap resamples and 20 timelines;
and the QA page of three raters of the same clips (truth, prediction, another truth).
Load time: Chromium (headless, via chromedriver) from navigation start to the end of
the page's script (tables rendered), ``performance.now()``; and the wall time of the
WebDriver navigation. Medians of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

import audeval  # noqa: E402
from _webdriver import Browser, browser_missing  # noqa: E402
from test_html_report import large_inputs  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    truth, prediction, durations = large_inputs(args.files)
    path = os.path.join(tempfile.mkdtemp(), "report.html")
    build = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # random events may repeat a row
            audeval.html_report(truth, prediction, files_duration=durations, output=path)
        build.append(time.perf_counter() - start)
    size = os.path.getsize(path)
    print(f"{args.files} files, {len(truth)} truth events: page {size / 1e6:.2f} MB, "
          f"html_report {statistics.median(build):.2f} s (median of {args.repeat})")
    qa = os.path.join(tempfile.mkdtemp(), "qa.html")
    other, _, _ = large_inputs(args.files, seed=1)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        audeval.html_report({"a": truth, "b": prediction, "c": other}, files_duration=durations,
                            output=qa)
    print(f"QA of 3 raters: page {os.path.getsize(qa) / 1e6:.2f} MB, "
          f"html_report {time.perf_counter() - start:.2f} s (one run)")
    if browser_missing():
        print(browser_missing())
        return
    browser = Browser(1280, 1000)
    try:
        for name, page in (("evaluation", path), ("QA", qa)):
            ready, wall = [], []
            for _ in range(args.repeat):
                browser.open(os.path.join(HERE, "..", "README.md"))  # leave the page
                start = time.perf_counter()
                browser.open(page)
                while browser.run("return document.body && document.body.dataset.ready") != "true":
                    time.sleep(0.01)
                wall.append(time.perf_counter() - start)
                ready.append(float(browser.run("return document.body.dataset.readyMs")) / 1000)
            print(f"Chromium, {name} page: script done {statistics.median(ready):.2f} s after "
                  f"navigation start, WebDriver navigation {statistics.median(wall):.2f} s "
                  f"(medians of {args.repeat})")
    finally:
        browser.close()


if __name__ == "__main__":
    main()
