"""The student's side of the sandbox: run the setup and the answers, answer the checker's requests.

Started by :mod:`grading.sandbox` inside bubblewrap as ``python answers.py REQUESTS RESPONSES``
(two inherited file descriptors). It first lowers its own limits and, started as root, becomes
a user of its own, so that nothing the student writes runs with the grader's rights. Then it
reads requests, one JSON message per line, and writes one response per request:

* ``run``: execute a cell (setup or answer) and return its outputs and error;
* ``names``: the values of the given names (plain data, or references to objects kept here);
* ``call``, ``getattr``, ``getitem``, ``len``, ``list``, ``repr``: use an object referred to.

Everything here is in the student's reach, and need not be trusted: the checker takes nothing
from this process but plain data (:mod:`grading.protocol`), and decides every verdict itself.
"""

from __future__ import annotations

import os
import resource
import sys

from grading import cells, protocol

#: Names the student's code starts with besides the setup's own.
NAMESPACE = {"__name__": "__main__", "__builtins__": __builtins__}


def _limit(limits):
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


def _become(uid):
    if os.getuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


class Answers:
    """The namespace of the student's cells and the objects the checker refers to."""

    def __init__(self, requests, responses):
        self.requests, self.responses = requests, responses
        self.namespace = dict(NAMESPACE)
        self.setup = {}
        self.objects = []

    def refer(self, obj):
        for name, value in self.setup.items():
            if value is obj and not isinstance(obj, (int, float, str)):
                return {"name": name}  # a setup object: the checker has its own copy
        self.objects.append(obj)
        return len(self.objects) - 1

    def resolve(self, kind, payload):
        if kind == "name":  # a setup object the checker passes: this side's own copy of it
            if payload not in self.setup:
                raise protocol.ProtocolError(f"no setup name {payload!r} here")
            return self.setup[payload]
        if kind == "callback":
            return self.callback(int(payload))
        if type(payload) is not int or not 0 <= payload < len(self.objects):
            raise protocol.ProtocolError(f"no object {payload!r} here")
        return self.objects[payload]

    def callback(self, number):
        """A function that calls the checker's function ``number`` (a check passed it to the
        student's code) with plain data, and returns its result."""

        def call_checker(*args, **kwargs):
            protocol.write(self.responses, {"callback": number, "args": self.value(list(args)),
                                            "kwargs": self.value(kwargs)})
            reply = protocol.read(self.requests)
            if reply is None or "error" in reply:
                raise RuntimeError((reply or {}).get("error", "the grader stopped"))
            return protocol.decode(reply["value"], self.resolve)

        return call_checker

    def value(self, obj):
        return protocol.encode(obj, self.refer)

    def handle(self, request):
        op = request.get("op")
        if op == "run":
            outputs, error = cells.run_cell(request["source"], self.namespace,
                                            request.get("filename", "<cell>"))
            if request.get("setup"):
                self.setup = dict(self.namespace)
            return {"outputs": outputs, "failed": error is not None}
        if op == "names":
            missing = [name for name in request["names"] if name not in self.namespace]
            return {"values": {name: self.value(self.namespace[name])
                               for name in request["names"] if name in self.namespace},
                    "missing": missing}
        target = self.resolve("ref", request.get("ref"))
        if op == "call":
            args = protocol.decode(request["args"], self.resolve)
            kwargs = protocol.decode(request["kwargs"], self.resolve)
            return {"value": self.value(target(*args, **kwargs))}
        if op == "getattr":
            return {"value": self.value(getattr(target, str(request["name"])))}
        if op == "getitem":
            return {"value": self.value(target[protocol.decode(request["key"], self.resolve)])}
        if op == "len":
            return {"value": len(target)}
        if op == "list":
            return {"value": self.value(list(target))}
        if op == "repr":
            return {"value": repr(target)[:cells.MAX_TEXT]}
        raise protocol.ProtocolError(f"unknown request {op!r}")


def serve(requests, responses):
    answers = Answers(requests, responses)
    while (request := protocol.read(requests)) is not None:
        try:
            response = answers.handle(request)
        except BaseException as error:  # noqa: BLE001 (reported to the checker, which judges)
            response = {"error": cells.error_output(error, "<cell>")}
        response["id"] = request.get("id")
        protocol.write(responses, response)


def main():
    requests = os.fdopen(int(sys.argv[1]), "rb")
    responses = os.fdopen(int(sys.argv[2]), "wb")
    settings = protocol.read(requests)
    _limit(settings["limits"])
    _become(int(settings["uid"]))
    protocol.write(responses, {"id": None, "ready": True, "uid": os.getuid()})
    serve(requests, responses)


if __name__ == "__main__":
    main()
