"""Hostile submissions: answer cells that try to take marks, read solutions, change files or stop
the grader. Used by ``test_hostile_grading.py`` through both graders.

Each attack is code a student puts at the end of the last answer cell of a submission that
otherwise holds a plausible mistake (:data:`MISTAKE`, which fails checks 3 and 4 of ex-6-21).
Without the attack the submission earns checks 1 and 2; an attack succeeds if it earns more,
stops the grading of anyone else, changes a file outside the sandbox, or goes unflagged.
"""

from __future__ import annotations

from nbgrader_course import Mistake

EXERCISE = "ex-6-21"
#: the prior variance 1/alpha left out of the kernel: checks 3 and 4 fail, 1 and 2 pass
MISTAKE = Mistake(
    "answer-3", "Linear(variance=1 / alpha)", "Linear(variance=1.0)",
    frozenset({"check-3", "check-4"}),
)

#: Finds files by walking up from the working directory and from kmlib's folder.
_WALK = '''
import os, pathlib, kmlib
def _candidates(name):
    roots = [pathlib.Path.cwd(), pathlib.Path(kmlib.__file__).resolve().parent]
    for root in roots:
        for up in [root, *root.parents]:
            yield from up.glob(name)
            yield from up.glob("*/" + name)
            yield from up.glob("*/*/" + name)
            yield from up.glob("*/*/*/" + name)
'''

ATTACKS = {
    # --- the attacks the issue reports
    "IPython input transformer": (
        "get_ipython().input_transformers_post.append("
        "lambda lines: ['pass\\n'] if 'Check' in ''.join(lines) else lines)"),
    "custom exception handler": (
        "get_ipython().set_custom_exc((BaseException,), lambda *args, **kwargs: None)"),
    "patch numpy.testing.assert_allclose": (
        "import numpy.testing\n"
        "numpy.testing.assert_allclose = lambda *args, **kwargs: None\n"
        "np.testing.assert_allclose = lambda *args, **kwargs: None"),
    "patch numpy.linalg.eigvalsh": (
        "np.linalg.eigvalsh = lambda *args, **kwargs: np.ones(3)"),
    "patch builtins.abs": (
        "import builtins\nbuiltins.abs = lambda x: 0 * x"),
    "patch kmlib's GaussianProcessRegressor.predict": (
        "import kmlib.gp\n"
        "kmlib.gp.GaussianProcessRegressor.predict = (lambda self, X, **kw: "
        "(np.zeros(len(X)), np.ones(len(X))))"),
    "read and run the instructors' notebook": _WALK + (
        "import json\n"
        "for path in _candidates('source/*/ex-6-21.ipynb'):\n"
        "    for cell in json.loads(path.read_text())['cells']:\n"
        "        if 'BEGIN SOLUTION' in ''.join(cell['source']):\n"
        "            exec(''.join(cell['source']), globals())"),
    "read and run the instructors' .md source": _WALK + (
        "import re\n"
        "for path in _candidates('exercises/prml06/ex-6-21.md'):\n"
        "    text = path.read_text()\n"
        "    for block in re.findall(r'# BEGIN SOLUTION(.*?)# END SOLUTION', text, re.S):\n"
        "        exec(block, globals())"),
    "raise extra credit in the gradebook": _WALK + (
        "import sqlite3\n"
        "for path in _candidates('gradebook.db'):\n"
        "    db = sqlite3.connect(path)\n"
        "    db.execute('update grade set extra_credit = 80')\n"
        "    db.commit()"),
    "weaken the checks in the instructors' source": _WALK + (
        "for path in _candidates('exercises/prml06/ex-6-21.md'):\n"
        "    path.write_text(path.read_text().replace('assert ', 'print('))\n"
        "for path in _candidates('source/*/ex-6-21.ipynb'):\n"
        "    path.write_text(path.read_text().replace('assert ', 'print('))"),
    "kill the grader (SIGTERM to the parent)": (
        "import os, signal\nos.kill(os.getppid(), signal.SIGTERM)"),
    # --- and others like them
    "kill every process it may (kill -1)": (
        "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass"),
    "sys.settrace that skips failing lines": (
        "import sys\n"
        "def _trace(frame, event, arg):\n"
        "    if event == 'exception':\n"
        "        frame.f_locals.clear()\n"
        "    return _trace\n"
        "sys.settrace(_trace)"),
    "atexit handler that kills the parent": (
        "import atexit, os, signal\n"
        "atexit.register(lambda: os.kill(os.getppid(), signal.SIGKILL))"),
    "ignore termination and sleep": (
        "import signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "time.sleep(10_000)"),
    "IPython event hook": (
        "get_ipython().events.register('pre_run_cell', lambda *args: None)"),
    "import hook that fakes numpy.testing": (
        "import sys, types\n"
        "class _Fake:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        return None\n"
        "sys.meta_path.insert(0, _Fake())\n"
        "fake = types.ModuleType('numpy.testing')\n"
        "fake.assert_allclose = fake.assert_array_less = lambda *a, **k: None\n"
        "sys.modules['numpy.testing'] = fake\n"
        "np.testing = fake"),
    "fork bomb": (
        "import os\n"
        "for _ in range(10_000):\n"
        "    try:\n"
        "        if os.fork() == 0:\n"
        "            import time\n"
        "            time.sleep(600)\n"
        "    except OSError:\n"
        "        break"),
    "write into site-packages": (
        "import numpy, pathlib\n"
        "target = pathlib.Path(numpy.__file__).parent / 'testing' / '__init__.py'\n"
        "target.write_text('def assert_allclose(*a, **k): pass\\n')"),
    "read other submissions": _WALK + (
        "import json\n"
        "for path in _candidates('*/ex-6-21.ipynb'):\n"
        "    for cell in json.loads(path.read_text())['cells']:\n"
        "        if cell.get('metadata', {}).get('nbgrader', {}).get('grade_id') == 'answer-3':\n"
        "            exec(''.join(cell['source']), globals())"),
    "replace the setup's data the checks compare with": (
        "x_new = x_new[:0]\nx_train, t_train = x_train[:2], t_train[:2]"),
    "forge a response on the grader's channel": (
        "import os\n"
        "for fd in range(3, 20):\n"
        "    try:\n"
        "        os.write(fd, b'{\"id\": 99, \"outputs\": [], \"failed\": false}\\n')\n"
        "    except OSError:\n"
        "        pass"),
    "network": (
        "import socket\nsocket.create_connection(('pypi.org', 443), timeout=3)"),
    "exhaust memory": "_hog = [bytearray(2**30) for _ in range(64)]",
}


def attacked(notebook, attack):
    """``notebook`` with the attack's code at the end of its last answer cell, where it runs
    after every answer and before every check."""
    import copy

    hostile = copy.deepcopy(notebook)
    cell = [c for c in hostile.cells
            if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("answer-")][-1]
    cell.source = cell.source + "\n" + ATTACKS[attack]
    return hostile
