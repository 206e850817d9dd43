"""The checker: the instructors' setup and checks in a clean process, the answers in a sandbox.

:func:`grade` takes a notebook's code cells in order, each with its part in grading:

* ``setup`` (locked code before the first answer) runs on both sides;
* ``answer`` runs in the sandbox only (:mod:`grading.sandbox`); afterwards, the names it binds
  at top level are read from the sandbox into the checker's namespace, as plain data or as
  references (:class:`Remote`) through which a check calls the student's functions;
* ``check`` and ``after`` (the other locked code) run here only, in this process, which never
  runs a line the student wrote.

A check passes when it runs here without an error: nothing in the sandbox can change the
checks' code, the setup's values they compare with, or the functions they use. The names an
answer may bring in exclude the setup's and those a check assigns before it reads them (a
check's own results), so an answer cannot replace what a check compares with.

Run as a script (``python -m grading.checks``), it reads the cells as JSON on stdin and writes
the results as JSON on stdout; the graders start one such process per submission.
"""

from __future__ import annotations

import builtins
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from grading import cells, protocol, review, sandbox

HERE = Path(__file__).resolve().parent
#: Seconds an answer cell, or one call into the student's code, may take.
TIMEOUT = 120

class SandboxGone(RuntimeError):
    """The student's process cannot answer any more (it ended, timed out or broke the
    protocol); every later use of the student's code fails with this error."""


class StudentError(Exception):
    """An error raised by the student's code in the sandbox, re-raised here by name."""


def _raise_student_error(error):
    """Raise, in a check, the error the student's code raised in the sandbox: a built-in
    exception of the same name where there is one (``NotImplementedError``, ``ValueError``)."""
    name, value = str(error.get("ename", "Error")), str(error.get("evalue", ""))
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception) and name != "SystemExit":
        raise kind(value)
    raise StudentError(f"{name}: {value}")


class Session:
    """The checker's end of one student's sandbox."""

    def __init__(self, timeout=TIMEOUT, limits=None):
        self.timeout = timeout
        self.incidents = []
        self.broken = None
        self._errors = tempfile.TemporaryFile()
        self.process, self._requests, self._responses = sandbox.start(self._errors)
        self._count = 0
        self.setup = {}  # the checker's setup objects, which a check may pass by name
        self.callbacks = []  # the checker's functions that a check passed to the student's code
        settings = {"limits": limits or sandbox.limits(), "uid": sandbox.sandbox_uid()}
        self._send(settings, expect_id=None)

    # -- the protocol
    def _fail(self, reason):
        if self.broken is None:
            self.broken = reason
            self.incidents.append(reason)
        self.close()
        raise SandboxGone(self.broken)

    def _ended(self):
        code = self.process.wait(timeout=30)
        self._errors.seek(0)
        said = self._errors.read(2000).decode(errors="replace").strip()
        how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
        if code == -9 or code == 128 + 9:
            how += " (a limit of memory, CPU time or processes, or the timeout)"
        if code in (-24, 128 + 24):
            how += " (CPU time limit)"
        return f"the student's process {how}" + (f": {said[-500:]}" if said else "")

    def _send(self, message, expect_id):
        if self.broken:
            raise SandboxGone(self.broken)
        try:
            protocol.write(self._requests, message)
        except (BrokenPipeError, OSError):
            self._fail(self._ended())
        deadline = time.monotonic() + self.timeout
        while True:
            wait = deadline - time.monotonic()
            ready = wait > 0 and select.select([self._responses], [], [], wait)[0]
            if not ready:
                self._fail(f"the student's code did not finish within {self.timeout:g} s")
            try:
                response = protocol.read(self._responses)
            except (protocol.ProtocolError, ValueError) as error:
                self._fail(f"the student's process broke the grading protocol ({error})")
            if response is None:
                self._fail(self._ended())
            if "callback" in response and "id" not in response:
                self._call_back(response)
                continue
            if response.get("id") != expect_id:
                self._fail("the student's process answered out of turn (it wrote on the "
                           "grader's channel)")
            return response

    def _call_back(self, message):
        """Run the checker's function that the student's code called back; send its result."""
        try:
            function = self.callbacks[int(message["callback"])]
            args = self.value(message.get("args", {"list": []}))
            kwargs = self.value(message.get("kwargs", {"dict": []}))
            reply = {"value": self.encode(function(*args, **kwargs))}
        except Exception as error:  # noqa: BLE001 (the student's code sees the error)
            reply = {"error": f"{type(error).__name__}: {error}"}
        try:
            protocol.write(self._requests, reply)
        except (BrokenPipeError, OSError):
            self._fail(self._ended())

    def request(self, op, **fields):
        self._count += 1
        response = self._send({"op": op, "id": self._count, **fields}, expect_id=self._count)
        if "error" in response:
            _raise_student_error(response["error"])
        return response

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self._requests, self._responses):
            try:
                stream.close()
            except OSError:
                pass

    # -- values
    def value(self, data):
        return protocol.decode(data, self._resolve)

    def _resolve(self, kind, payload):
        if kind == "name" and payload in self.setup:
            return self.setup[payload]  # the checker's own copy of a setup object
        if kind == "callback" and type(payload) is int and 0 <= payload < len(self.callbacks):
            return self.callbacks[payload]  # a function a check passed, handed back
        if kind != "ref" or type(payload) is not int:
            raise protocol.ProtocolError(f"the student's process sent a {kind} {payload!r:.40}")
        return Remote(self, payload)

    def encode(self, value):
        """``value`` for the sandbox: plain data, a reference back to a student's object, or the
        name of a setup object (the sandbox has its own copy)."""

        def refer(obj):
            if isinstance(obj, Remote):
                return {"ref": object.__getattribute__(obj, "_number")}
            for name, setup_value in self.setup.items():
                if setup_value is obj:
                    return {"name": name}
            if callable(obj):  # the student's code may call it back, with plain data
                self.callbacks.append(obj)
                return {"callback": len(self.callbacks) - 1}
            raise TypeError(
                f"a check passed {type(obj).__name__} {obj!r:.60} to the student's code; only "
                "plain data, functions, kmlib and scikit-learn objects, setup objects and the "
                "student's own objects can cross into the sandbox")

        return protocol.encode(value, refer)


class Remote:
    """A student's object that stays in the sandbox: a check calls it, reads its attributes,
    indexes it, takes its length or iterates over it, and gets plain data back (or another
    :class:`Remote`). Names with a leading underscore are not forwarded (but a function's
    ``__name__`` and ``__qualname__``), so no protocol of NumPy's or Python's
    (``__array_interface__``, ``__reduce__``) reaches the student's code."""

    __slots__ = ("_session", "_number")

    def __init__(self, session, number):
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "_number", number)

    def _ask(self, op, **fields):
        session = object.__getattribute__(self, "_session")
        number = object.__getattribute__(self, "_number")
        return session.value(session.request(op, ref=number, **fields)["value"])

    def __call__(self, *args, **kwargs):
        session = object.__getattribute__(self, "_session")
        return self._ask("call", args=session.encode(list(args)), kwargs=session.encode(kwargs))

    def __getattr__(self, name):
        if name.startswith("_") and name not in ("__name__", "__qualname__"):
            raise AttributeError(name)
        return self._ask("getattr", name=name)

    def __setattr__(self, name, value):
        raise AttributeError("a student's object cannot be changed from a check")

    def __getitem__(self, key):
        session = object.__getattribute__(self, "_session")
        return self._ask("getitem", key=session.encode(key))

    def __len__(self):
        return self._ask("len")

    def __iter__(self):
        return iter(self._ask("list"))

    def __repr__(self):
        return str(self._ask("repr"))

    def __copy__(self):
        return self  # a reference: a copy of a model that holds it refers to the same object

    def __deepcopy__(self, memo):
        return self

    def __reduce_ex__(self, protocol_version):
        raise TypeError("a student's object in the sandbox cannot be pickled")


# -- grading one notebook


def grade(cells_in, timeout=TIMEOUT, limits=None):
    """Run one submission's cells; return one result per cell and the incidents.

    Parameters
    ----------
    cells_in : list of dict
        ``{"role": "setup" | "answer" | "check" | "after", "source": str}`` in notebook order.
    timeout : float
        Seconds an answer cell or one call into the student's code may take.
    limits : dict, optional
        The sandbox's ``resource`` limits (:func:`grading.sandbox.limits`).

    Returns
    -------
    dict
        ``results``: per cell ``{"outputs": [...], "failed": bool, "started": time,
        "finished": time}`` (ISO 8601, UTC); ``incidents``: what the
        instructor should look at (the sandbox ended, timed out, broke the protocol; code in an
        answer that deserves a look).
    """
    setup_names = set().union(*(review.bound_names(c["source"]) for c in cells_in
                                if c["role"] == "setup"))
    protected = setup_names | review.check_owned(c["source"] for c in cells_in
                                          if c["role"] in ("check", "after"))
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    results, incidents = [], []
    try:
        session = Session(timeout, limits)
    except (sandbox.SandboxUnavailable, SandboxGone, OSError) as error:
        raise sandbox.SandboxUnavailable(f"the sandbox could not start: {error}") from error
    try:
        for number, cell in enumerate(cells_in, start=1):
            filename, started = f"<cell {number}>", _now()
            if cell["role"] in ("setup", "answer"):
                try:
                    ran = session.request("run", source=cell["source"], filename=filename,
                                          setup=cell["role"] == "setup")
                    result = {"outputs": ran["outputs"], "failed": ran["failed"]}
                    incidents += [f"answer in cell {number}: {what}"
                                  for what in review.limits_hit(ran["outputs"])]
                except Exception as error:  # noqa: BLE001 (the sandbox ended: the cell failed)
                    result = {"outputs": [cells.error_output(error, filename)], "failed": True}
            if cell["role"] == "setup":
                outputs, error = cells.run_cell(cell["source"], namespace, filename)
                session.setup = {name: namespace[name] for name in setup_names
                                 if name in namespace}
                if error is not None:  # the instructors' setup failed: show it as it failed here
                    result = {"outputs": outputs, "failed": True}
            elif cell["role"] == "answer":
                reasons = review.suspicious(cell["source"])
                if reasons:
                    incidents.append(f"answer in cell {number}: its code " + "; ".join(reasons))
                bound = review.bound_names(cell["source"])
                if bound & protected:
                    incidents.append(
                        f"answer in cell {number} assigns {', '.join(sorted(bound & protected))}, "
                        "which the setup or the checks define (the checks keep their own)")
                wanted = sorted(name for name in bound - protected if not name.startswith("_"))
                if wanted:
                    try:
                        values = session.request("names", names=wanted)["values"]
                        for name, data in values.items():
                            namespace[name] = session.value(data)
                    except Exception:  # noqa: BLE001 (the checks that need them will say)
                        pass
            elif cell["role"] in ("check", "after"):
                outputs, error = cells.run_cell(cell["source"], namespace, filename)
                result = {"outputs": outputs, "failed": error is not None}
            result["started"], result["finished"] = started, _now()
            results.append(result)
    finally:
        session.close()
    incidents[:0] = session.incidents
    return {"results": results, "incidents": incidents}


def _now():
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def run_checker(cells_in, timeout=TIMEOUT, limits=None):
    """:func:`grade` in a fresh checker process (the graders' entry point): a check that hangs
    or crashes its process costs this submission its checks, nothing more.

    Returns the same report as :func:`grade`; if the checker process itself fails, every cell
    fails with the reason, and the reason is an incident.
    """
    budget = 60 + timeout * (1 + sum(c["role"] != "setup" for c in cells_in))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")]))}
    try:
        run = subprocess.run(
            [sys.executable, "-m", "grading.checks"], input=json.dumps(
                {"cells": cells_in, "timeout": timeout, "limits": limits}),
            capture_output=True, text=True, timeout=budget, env=env)
        if run.returncode == 0:
            return json.loads(run.stdout)
        reason = f"the checker stopped with status {run.returncode}: {run.stderr[-1500:]}"
    except subprocess.TimeoutExpired:
        reason = f"grading did not finish within {budget:g} s"
    except json.JSONDecodeError as error:
        reason = f"the checker's report is unreadable ({error})"
    if "SandboxUnavailable" in reason:
        raise sandbox.SandboxUnavailable(reason)
    failed = {"output_type": "error", "ename": "GradingError", "evalue": reason,
              "traceback": [reason]}
    return {"results": [{"outputs": [failed], "failed": True} for _ in cells_in],
            "incidents": [reason]}


def main():
    request = json.load(sys.stdin)
    report = grade(request["cells"], request.get("timeout", TIMEOUT), request.get("limits"))
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
