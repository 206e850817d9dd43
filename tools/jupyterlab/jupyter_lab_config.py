"""JupyterLab for reading the book as notebooks: `make lab` and the JupyterLab browser test.

jupytext opens the MyST ``.md`` pages as notebooks and jupyterlab-myst renders their markdown
(directives, roles, tagged equations); ``overrides.json`` beside this file makes "Jupytext
Notebook" the default viewer of ``.md`` files and turns off JupyterLab's news check (no network).

Where it listens: ``KMLIB_LAB_IP`` (default ``127.0.0.1``, this machine only) and
``KMLIB_LAB_PORT`` (default 8888; the next free port if that one is taken), which ``make lab``
sets from ``LAB_IP`` and ``LAB_PORT``. It opens no browser of its own: the address to open, with
its token, is printed when the server starts. Started as root (in a container, say), it runs as
root rather than refusing to start.
"""

import os
from pathlib import Path

c = get_config()  # noqa: F821 (provided by the config loader)
c.LabApp.app_settings_dir = str(Path(__file__).resolve().parent)
c.ServerApp.ip = os.environ.get("KMLIB_LAB_IP", "127.0.0.1")
c.ServerApp.port = int(os.environ.get("KMLIB_LAB_PORT", "8888"))
c.ServerApp.open_browser = False
c.ServerApp.allow_root = os.geteuid() == 0
