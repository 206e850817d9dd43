"""JupyterLab for reading the book as notebooks: `make lab` and the JupyterLab browser test.

jupytext opens the MyST ``.md`` pages as notebooks and jupyterlab-myst renders their markdown
(directives, roles, tagged equations); ``overrides.json`` beside this file makes "Jupytext
Notebook" the default viewer of ``.md`` files and turns off JupyterLab's news check (no network).
"""

from pathlib import Path

c = get_config()  # noqa: F821 (provided by the config loader)
c.LabApp.app_settings_dir = str(Path(__file__).resolve().parent)
