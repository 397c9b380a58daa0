"""A minimal W3C WebDriver client (stdlib only) for headless Chromium via chromedriver.

Enough for the report tests: open a page, run a script, click, read the browser's
console log and network log (``goog:loggingPrefs``), take a screenshot.
Install the browser on Debian with ``apt-get install -y chromium chromium-driver``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request


def browser_missing() -> str | None:
    """Why the browser tests cannot run, or ``None``."""
    for name in ("chromium", "chromedriver"):
        if shutil.which(name) is None:
            return (
                f"{name} is not installed; install headless Chromium with "
                "'apt-get install -y chromium chromium-driver' (Debian) to run the browser tests"
            )
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """One headless Chromium session driven by chromedriver."""

    def __init__(self, width: int = 1280, height: int = 900):
        self.port = _free_port()
        self.profile = tempfile.mkdtemp(prefix="audeval-chromium-")
        self.driver = subprocess.Popen(
            [shutil.which("chromedriver"), f"--port={self.port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        self._wait_ready()
        args = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--disable-extensions", f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}",
        ]
        capabilities = {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": shutil.which("chromium"), "args": args},
            "goog:loggingPrefs": {"browser": "ALL", "performance": "ALL"},
        }
        value = self._call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
        self.session = value["sessionId"]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(self.base + "/status", timeout=2) as response:
                    if json.load(response)["value"].get("ready"):
                        return
            time.sleep(0.1)
        raise RuntimeError("chromedriver did not start")

    def _call(self, method: str, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, data=data, method=method,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.load(response)["value"]

    def _session(self, method: str, path: str, body: dict | None = None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def open(self, path: str) -> None:
        self._session("POST", "/url", {"url": "file://" + os.path.abspath(path)})

    def run(self, script: str, *args):
        """Run ``script`` (a function body; ``arguments`` holds ``args``) and return its value."""
        return self._session("POST", "/execute/sync", {"script": script, "args": list(args)})

    def click(self, css: str) -> None:
        element = self._session("POST", "/element", {"using": "css selector", "value": css})
        key = next(iter(element))
        self._session("POST", f"/element/{element[key]}/click", {})

    def log(self, kind: str) -> list[dict]:
        """The entries of the ``browser`` (console) or ``performance`` log since the last call."""
        return self._session("POST", "/se/log", {"type": kind})

    def requests(self) -> list[str]:
        """URLs the page requested (from the DevTools network events)."""
        urls = []
        for entry in self.log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        return urls

    def screenshot(self, path: str) -> None:
        data = self._session("GET", "/screenshot")
        with open(path, "wb") as fp:
            fp.write(base64.b64decode(data))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._call("DELETE", f"/session/{self.session}")
        self.driver.terminate()
        with contextlib.suppress(Exception):
            self.driver.wait(10)
        shutil.rmtree(self.profile, ignore_errors=True)
