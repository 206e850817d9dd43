"""Start the student's process in a bubblewrap sandbox.

What the process sees: the system's programs and libraries and this Python environment, all
read-only (the interpreter, its site-packages, and the package folders of editable installs
such as a kmlib checkout: the package folder only, not the repository around it); the grading
package's own three modules; a private, empty ``/tmp`` (also its home). What it does not see:
the course folder, the instructors' sources, the gradebook, other submissions, the repository,
the network (a namespace with no interfaces), the grader's processes (a PID namespace of its
own) and its IPC. It runs as a user of its own (started by root: a numeric user with no files,
distinct per sandbox; started by anyone else: that user, mapped in a user namespace), with
limits on address space, CPU time, processes and threads, and file size. It dies with the
process that started it.

Needs ``bwrap`` (Debian's package ``bubblewrap``; ``make course`` and the test targets install
it).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Where the grading package appears inside the sandbox.
INSIDE = "/kmlib-grading"
#: Default limits of the student's process (``resource`` names); see :func:`limits`.
MEMORY = 4 * 2**30
CPU_SECONDS = 600
PROCESSES = 64
FILE_SIZE = 64 * 2**20
#: Size of the private /tmp (in memory).
TMP_SIZE = 256 * 2**20
#: The system folders bound read-only (those that exist; a symlink is recreated as one).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc")


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot make namespaces on this machine."""


def limits(memory=MEMORY, cpu_seconds=CPU_SECONDS, processes=PROCESSES, file_size=FILE_SIZE):
    """The ``resource`` limits the student's process sets on itself before any answer runs."""
    return {"RLIMIT_AS": int(memory), "RLIMIT_CPU": int(cpu_seconds),
            "RLIMIT_NPROC": int(processes), "RLIMIT_FSIZE": int(file_size),
            "RLIMIT_CORE": 0}


def _editable_packages():
    """The package folders of editable installs in this environment."""
    folders = set()
    for dist in importlib.metadata.distributions():
        url = dist.read_text("direct_url.json")
        if not url or not json.loads(url).get("dir_info", {}).get("editable"):
            continue
        names = (dist.read_text("top_level.txt") or "").split()
        for name in names or [dist.metadata["Name"].replace("-", "_")]:
            spec = importlib.util.find_spec(name)
            if spec is not None and spec.submodule_search_locations:
                folders.update(spec.submodule_search_locations)
    return sorted(folders)


def python_folders():
    """Every folder the student's Python needs, read-only."""
    folders = {sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent.parent)}
    folders.update(_editable_packages())
    return sorted(folder for folder in folders if Path(folder).is_dir())


def bwrap():
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed: `apt-get install bubblewrap` (Debian, Ubuntu), "
            "or run `make course`, which installs it")
    return path


def _read_only_binds():
    """``(source, target)`` of every read-only bind: the system's folders, the Python
    environment and the grading modules the student's process runs."""
    binds = [(folder, folder) for folder in SYSTEM
             if Path(folder).is_dir() and not Path(folder).is_symlink()]
    binds += [(folder, folder) for folder in python_folders()]
    binds += [(str(HERE / module), f"{INSIDE}/grading/{module}")
              for module in ("__init__.py", "protocol.py", "cells.py", "answers.py")]
    return binds


def _open_parents(targets):
    """bwrap creates a mount point's missing parent folders readable by root only; create
    them first, open to all (the student's user must reach the Python environment)."""
    parents = {parent for target in targets for parent in Path(target).parents
               if str(parent) != "/" and not any(str(parent) == folder
                                                or str(parent).startswith(f"{folder}/")
                                                for folder in SYSTEM)}
    args = []
    for parent in sorted(parents, key=lambda path: len(path.parts)):
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def command(requests, responses):
    """The bwrap command line that runs :mod:`grading.answers` on the given descriptors."""
    args = [bwrap(), "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net",
            "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--proc", "/proc", "--dev", "/dev",
            "--perms", "1777", "--size", str(TMP_SIZE), "--tmpfs", "/tmp",
            "--perms", "1777", "--dir", "/tmp/home"]
    if os.getuid() != 0:
        args += ["--unshare-user"]  # an unprivileged bwrap maps this user in a user namespace
    args += [arg for folder in SYSTEM if Path(folder).is_symlink()
             for arg in ("--symlink", os.readlink(folder), folder)]
    binds = _read_only_binds()
    args += _open_parents(target for _, target in binds)
    for source, target in binds:
        args += ["--ro-bind", source, target]
    args += ["--chdir", "/tmp/home", "--clearenv",
             "--setenv", "HOME", "/tmp/home", "--setenv", "PATH", "/usr/bin:/bin",
             "--setenv", "PYTHONPATH", INSIDE, "--setenv", "MPLBACKEND", "Agg",
             "--setenv", "MPLCONFIGDIR", "/tmp/home/.matplotlib",
             "--setenv", "PYTHONDONTWRITEBYTECODE", "1"]
    for threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        args += ["--setenv", threads, "1"]
    return args + ["--", sys.executable, "-m", "grading.answers", str(requests), str(responses)]


def start(errors):
    """Start the sandboxed process, its error stream going to the file ``errors``; return
    ``(process, requests, responses)``: the process, the stream to write requests on and the
    stream to read responses from."""
    request_read, request_write = os.pipe()
    response_read, response_write = os.pipe()
    try:
        process = subprocess.Popen(
            command(request_read, response_write), pass_fds=(request_read, response_write),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
    finally:
        os.close(request_read)
        os.close(response_write)
    return process, os.fdopen(request_write, "wb"), os.fdopen(response_read, "rb")


def sandbox_uid():
    """A user id of its own for the sandbox this process starts (when run as root): no file
    belongs to it, and its process limit counts this sandbox's processes alone."""
    return 200_000 + os.getpid()
