"""Fixtures for the browser tests: a local web server for each built site and headless Chromium.

Chromium and ChromeDriver come from Debian's packages (``chromium``, ``chromium-driver``);
``make browser`` installs them when they are missing. Chromium runs with every host name mapped
to "not found" except the loopback address, so a page that needed the network would fail to load
a resource; the tests also read Chromium's network log and require that every request stayed on
the local server.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAIN_SITE = ROOT / "_build" / "html"
STUDENT_SITE = ROOT / "_build" / "student" / "site" / "_build" / "html"
SCREENSHOTS = ROOT / "_build" / "screenshots"

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


def serve(folder):
    """Serve ``folder`` on 127.0.0.1 on a free port; return (server, base URL)."""
    if not (folder / "index.html").is_file():
        pytest.fail(f"{folder} holds no built site: run `make book` and `make student` first")
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="session")
def main_site():
    server, url = serve(MAIN_SITE)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def student_site():
    server, url = serve(STUDENT_SITE)
    yield url
    server.shutdown()


class Browser:
    """Headless Chromium behind ChromeDriver, which a test can restart when a page hangs it.

    Attribute access goes to the current ``selenium`` driver. Now and then a loaded 2-core
    machine hangs a headless renderer so that not even the script timeout comes back;
    :meth:`restart` then replaces the whole browser.
    """

    driver = None

    def __init__(self, profiles):
        self._profiles = profiles
        self.restart()

    def __getattr__(self, name):
        return getattr(self.driver, name)

    def restart(self):
        """Close the current browser, if any, and start a fresh one with a new profile."""
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        if self.driver is not None:
            self.close()
        self.profile = self._profiles.mktemp("chromium-profile")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-extensions",
            "--window-size=1280,900",
            # the network is off for the pages: every host but the local server resolves to nothing
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
            f"--user-data-dir={self.profile}",
        ):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        self.driver.set_page_load_timeout(60)
        self.driver.set_script_timeout(120)  # PAGE_REPORT gives up on its own waits after 80 s

    def close(self):
        """Quit the browser; if a hung renderer keeps it from quitting, kill its processes."""
        quitting = threading.Thread(target=self.driver.quit, daemon=True)
        quitting.start()
        quitting.join(timeout=15)
        # every Chromium process of this browser has its profile folder on the command line
        subprocess.run(["pkill", "-9", "-f", str(self.profile)], check=False)
        if self.driver.service.process is not None:
            self.driver.service.process.kill()
        self.driver = None


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    session = Browser(tmp_path_factory)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    yield session
    session.close()


def requested_urls(driver, base):
    """URLs that documents served from ``base`` requested since the log was last read.

    Requests of Chromium's own pages (its new-tab page, say) are left out.
    """
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            if message["params"].get("documentURL", "").startswith(base):
                urls.append(message["params"]["request"]["url"])
    return urls
