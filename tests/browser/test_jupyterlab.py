"""The MyST pages opened as notebooks in JupyterLab read as they do on the website.

JupyterLab starts headless with the configuration ``make lab`` uses (``tools/jupyterlab``: the
address and port from ``KMLIB_LAB_IP`` and ``KMLIB_LAB_PORT``, no browser, root allowed when CI
runs as root): jupytext opens a ``.md`` page as a notebook and jupyterlab-myst renders
its markdown. In headless Chromium, on one chapter page and one exercise, every markdown cell must
be rendered by MyST, no directive fence, option line or raw role may be visible, and the
mathematics must be typeset.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.expected_conditions import element_to_be_clickable
from selenium.webdriver.support.ui import WebDriverWait

from .conftest import ROOT, SCREENSHOTS

pytestmark = pytest.mark.browser

EDITION = ROOT / "_build" / "notebooks"
PAGES = {
    "chapter": "chapters/prml07/7-1-maximum-margin-classifiers.md",
    "exercise": "exercises/prml06/ex-6-21.md",
}

#: What the notebook panel shows: markdown cells, those MyST rendered, formulas typeset by
#: jupyterlab-myst (KaTeX) or by plain JupyterLab (MathJax), exercise boxes, the visible text.
PANEL_REPORT = """
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
if (!panel) { return null; }
const markdown = panel.querySelectorAll('.jp-MarkdownCell');
return {
  markdown: markdown.length,
  myst: [...markdown].filter(cell => cell.querySelector('.myst')).length,
  katex: panel.querySelectorAll('.jp-MarkdownCell .katex').length,
  mathjax: panel.querySelectorAll('.jp-MarkdownCell mjx-container').length,
  exercises: panel.querySelectorAll('.myst-exercise').length,
  // each display equation's numbers: its own \\tag (KaTeX's .tag) and any number after it
  equations: [...panel.querySelectorAll('.jp-MarkdownCell .katex-display')].map(math => ({
    tags: math.querySelectorAll('.tag').length,
    automatic: /\\(\\d+\\)\\s*$/.test((math.closest('.group') || math.parentElement).innerText),
  })),
  text: [...markdown].map(cell => cell.innerText).join('\\n'),
};
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_jupyterlab(home, pages, disabled=()):
    """Start JupyterLab on a free local port serving ``pages``, with its own settings and no
    user configuration, and the lab extensions ``disabled`` turned off; return
    ``(server, url, token)``."""
    port, token = free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        # the address and port come from the settings `make lab` uses, as there
        "KMLIB_LAB_IP": "127.0.0.1",
        "KMLIB_LAB_PORT": str(port),
    }
    if disabled:
        labconfig = home / "config" / "labconfig"
        labconfig.mkdir(parents=True)
        (labconfig / "page_config.json").write_text(
            json.dumps({"disabledExtensions": {name: True for name in disabled}}))
    command = [
        str(Path(sys.executable).parent / "jupyter-lab"),
        f"--config={ROOT / 'tools' / 'jupyterlab' / 'jupyter_lab_config.py'}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={pages}",
    ]
    log = (home / "jupyterlab.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    log.close()  # the server writes to its own copy
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5)
            return server, url, token
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"JupyterLab did not start:\n{(home / 'jupyterlab.log').read_text()}")
            time.sleep(1)


def stop(server):
    server.terminate()
    server.wait(timeout=30)


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """JupyterLab as `make lab` starts it, serving copies of the pages (so that the checkpoints
    it writes stay out of the repository)."""
    home = tmp_path_factory.mktemp("jupyter-home")
    pages = home / "pages"
    for page in PAGES.values():
        (pages / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / page, pages / page)
    server, url, token = start_jupyterlab(home, pages)
    yield url, token
    stop(server)


@pytest.fixture(scope="module")
def plain_jupyterlab(tmp_path_factory):
    """JupyterLab without jupyterlab-myst, as a student may have it, serving a copy of the
    notebooks edition (`make notebooks`)."""
    if not EDITION.is_dir():
        pytest.fail(f"{EDITION} is missing: run `make notebooks` first")
    home = tmp_path_factory.mktemp("plain-jupyter-home")
    shutil.copytree(EDITION, home / "edition")
    server, url, token = start_jupyterlab(home, home / "edition", disabled=["jupyterlab-myst"])
    yield url, token, home / "edition"
    stop(server)


@pytest.fixture
def lab_browser(browser):
    """The session's browser; afterwards it leaves JupyterLab and drops what JupyterLab logged.

    Leaving a notebook that JupyterLab counts as changed logs a console error (a blocked
    "unsaved changes" prompt), which the next page's test would otherwise read as its own.
    """
    yield browser
    browser.get("about:blank")
    browser.get_log("browser")
    browser.get_log("performance")


def rendered(browser, timeout=120):
    """Wait until every markdown cell of the open notebook is rendered; return the report."""
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        report = browser.execute_script(PANEL_REPORT)
        done = report and report["markdown"] and report["myst"] == report["markdown"]
        if done and report == last:  # unchanged for a second: rendering has finished
            return report
        last = report if done else None
        time.sleep(1)
    return browser.execute_script(PANEL_REPORT)


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_page_opens_as_a_notebook_rendered_with_myst(lab_browser, jupyterlab, kind):
    browser, (url, token) = lab_browser, jupyterlab
    browser.get(f"{url}/lab/tree/{PAGES[kind]}?token={token}")
    report = rendered(browser)
    browser.save_screenshot(str(SCREENSHOTS / f"jupyterlab_{kind}.png"))
    assert report, f"{PAGES[kind]} did not open as a notebook"
    assert report["markdown"] >= 5 and report["myst"] == report["markdown"], report
    text = report["text"]
    for raw in ("```", ":::", ":label:", "{ref}", "{doc}", "{cite}", "{exercise}", "{solution}"):
        assert raw not in text, f"{PAGES[kind]} shows raw MyST {raw!r}"
    assert "$$" not in text and "\\tag" not in text, "untypeset mathematics"
    assert report["katex"] >= 20, report["katex"]
    # one number per equation: the page's own tags, and no automatic "(1)", "(2)", ... beside them
    tags = len(re.findall(r"\\tag\{", (ROOT / PAGES[kind]).read_text(encoding="utf-8")))
    assert tags and sum(equation["tags"] for equation in report["equations"]) == tags
    assert not [equation for equation in report["equations"] if equation["automatic"]]
    if kind == "exercise":
        assert report["exercises"] == 2  # the exercise and its (folded) solution
        assert "PRML Exercise 6.21 (★★)" in text


#: Scroll the open notebook to ``arguments[0]`` pixels; true once a figure is in view there.
FIRST_FIGURE_IN_VIEW = """
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
const outer = panel.querySelector('.jp-WindowedPanel-outer') || panel.querySelector('.jp-Notebook');
outer.scrollTop = arguments[0];
const img = panel.querySelector('.jp-OutputArea-output img');
if (!img) { return false; }
img.scrollIntoView({block: 'center'});
return true;
"""


def menu(browser, name, command):
    """Choose the command ``command`` from JupyterLab's menu ``name``."""
    browser.find_element(By.XPATH, "//li[contains(@class, 'lm-MenuBar-item')]"
                                   f"[.//div[text()='{name}']]").click()
    WebDriverWait(browser, 30).until(element_to_be_clickable(
        (By.CSS_SELECTOR, f"li.lm-Menu-item[data-command='{command}']"))).click()


def test_edition_notebook_reads_in_plain_jupyterlab(lab_browser, plain_jupyterlab):
    """An edition notebook in JupyterLab without jupyterlab-myst: no raw MyST, maths typeset; after
    Run All, every cell has run without an error and the figures are drawn."""
    browser, (url, token, folder) = lab_browser, plain_jupyterlab
    notebook = Path(PAGES["chapter"]).with_suffix(".ipynb").as_posix()
    browser.get(f"{url}/lab/tree/{notebook}?token={token}")
    deadline, report, last = time.monotonic() + 120, None, None
    while time.monotonic() < deadline:
        report = browser.execute_script(PANEL_REPORT)
        if report and report["markdown"] and report["mathjax"] and report == last:
            break
        last = report
        time.sleep(1)
    browser.save_screenshot(str(SCREENSHOTS / "plain_jupyterlab_edition.png"))
    assert report and report["markdown"] >= 5, report
    assert report["myst"] == 0, "jupyterlab-myst was meant to be off"
    text = report["text"]
    for raw in ("```", ":::", "{ref}", "{doc}", "{numref}", "{cite}", "{glue", "{dropdown}",
                ")=\n"):
        assert raw not in text, f"{notebook} shows raw MyST {raw!r}"
    assert "$$" not in text and "\\tag" not in text, "untypeset mathematics"
    assert report["mathjax"] >= 20, report["mathjax"]

    # Run All, as a student would; save now and then until every code cell has run
    menu(browser, "Run", "runmenu:run-all")
    deadline, code = time.monotonic() + 600, []
    while time.monotonic() < deadline:
        time.sleep(5)
        menu(browser, "File", "docmanager:save")
        time.sleep(1)
        cells = nbformat.read(folder / notebook, as_version=4).cells
        code = [cell for cell in cells if cell.cell_type == "code"]
        if all(cell.execution_count for cell in code):
            break
    assert code and all(cell.execution_count for cell in code), "Run All did not finish"
    outputs = [output for cell in code for output in cell.outputs]
    assert not [output for output in outputs if output.output_type == "error"]
    assert sum("image/png" in output.get("data", {}) for output in outputs) >= 2
    for step in range(100):  # scroll from the top to the first figure (cells render in view)
        if browser.execute_script(FIRST_FIGURE_IN_VIEW, 700 * step):
            break
    time.sleep(1)
    browser.save_screenshot(str(SCREENSHOTS / "plain_jupyterlab_edition_run.png"))
