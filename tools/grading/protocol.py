"""Plain data across the sandbox's boundary: what the grader and the student's process exchange.

Messages are JSON objects, one per line. A value crosses as plain data only: ``None``, booleans,
numbers, strings, lists, tuples, dicts, complex numbers and NumPy arrays and scalars of a
numeric, boolean or string dtype (as ``.npy`` bytes read back with ``allow_pickle=False``).
Anything else stays where it lives and crosses as a *reference*: a number that names it on its
side, through which the other side can call it, read its attributes and index it. A kmlib or
scikit-learn object that ``get_params`` describes crosses as its class and parameters, and is
built again on the other side from plain data.

Decoding never runs code that came across: no pickle, no ``eval``, no import of a module that is
not kmlib's or scikit-learn's.
"""

from __future__ import annotations

import base64
import importlib
import io
import json
import math

import numpy as np

#: Packages whose classes may be rebuilt from their parameters on the other side.
REBUILDABLE = ("kmlib.", "sklearn.")
#: A message larger than this is refused (a student's answer that returns gigabytes).
MAX_MESSAGE = 256 * 2**20


class ProtocolError(RuntimeError):
    """A message that breaks the protocol (too large, malformed, of an unknown kind)."""


def _array(value):
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(value), allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _rebuildable(value):
    cls = type(value)
    return (
        cls.__module__.startswith(REBUILDABLE)
        and callable(getattr(value, "get_params", None))
        and getattr(importlib.import_module(cls.__module__), cls.__name__, None) is cls
    )


def encode(value, refer, depth=0):
    """``value`` as JSON-ready plain data.

    ``refer(obj)`` describes an object that is not plain data: a number (an object kept on this
    side, which the other side may use through it) or a ready description: ``{"ref": n}`` for an
    object of the other side's, ``{"name": name}`` for a setup object (both sides run the same
    setup, so the other side uses its own copy), ``{"callback": n}`` for a checker's function
    that the student's code may call back.
    """
    if depth > 50:
        raise ProtocolError("a value nested more than 50 levels deep")
    if value is None or type(value) in (bool, str):
        return value
    if type(value) is int:
        return value if abs(value) < 2**53 else {"int": str(value)}
    if type(value) is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    if type(value) is complex:
        return {"complex": [encode(value.real, refer), encode(value.imag, refer)]}
    if type(value) in (list, tuple, set, frozenset):
        return {type(value).__name__: [encode(item, refer, depth + 1) for item in value]}
    if type(value) is dict:
        return {"dict": [[encode(k, refer, depth + 1), encode(v, refer, depth + 1)]
                         for k, v in value.items()]}
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufcUS?":
        return {"ndarray": _array(np.array(value, subok=False))}  # a subclass's data only
    if isinstance(value, np.generic) and type(value).__module__ == "numpy" and (
            np.dtype(type(value)).kind in "biufcUS?"):
        return {"scalar": _array(value)}
    if _rebuildable(value):
        cls = type(value)
        params = value.get_params(deep=False)
        return {"object": f"{cls.__module__}.{cls.__qualname__}",
                "params": encode(params, refer, depth + 1)}
    reference = refer(value)
    if type(reference) is dict:  # the side's own description (an object it got from the other)
        return reference
    return {"ref": reference, "kind": "function" if callable(value) else type(value).__name__}


def _load_array(text):
    array = np.load(io.BytesIO(base64.b64decode(text)), allow_pickle=False)
    if array.dtype.kind not in "biufcUS?":
        raise ProtocolError(f"an array of dtype {array.dtype} cannot cross")
    return array


def decode(data, resolve, depth=0):
    """The value that :func:`encode` described; ``resolve(kind, payload)`` gives the object for
    a reference (``"ref"``, a number), a setup name (``"name"``) or a callback (``"callback"``)."""
    if depth > 50:
        raise ProtocolError("a value nested more than 50 levels deep")
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is not dict or len(data) not in (1, 2):
        raise ProtocolError(f"not a value: {str(data)[:80]}")
    (kind, payload), *rest = data.items()
    if kind == "int":
        return int(payload)
    if kind == "float":
        return float(payload)
    if kind == "complex":
        return complex(decode(payload[0], resolve), decode(payload[1], resolve))
    if kind in ("list", "tuple", "set", "frozenset"):
        items = [decode(item, resolve, depth + 1) for item in payload]
        return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[kind](items)
    if kind == "dict":
        return {decode(k, resolve, depth + 1): decode(v, resolve, depth + 1) for k, v in payload}
    if kind == "ndarray":
        return _load_array(payload)
    if kind == "scalar":
        return _load_array(payload)[()]
    if kind == "object":
        return _rebuild(payload, decode(data["params"], resolve, depth + 1))
    if kind in ("ref", "name", "callback"):
        return resolve(kind, payload)
    raise ProtocolError(f"unknown kind of value {kind!r}")


def _rebuild(path, params):
    module_name, _, name = str(path).rpartition(".")
    if not module_name.startswith(REBUILDABLE) or not name.isidentifier():
        raise ProtocolError(f"{path} cannot be rebuilt here")
    cls = getattr(importlib.import_module(module_name), name, None)
    if not isinstance(cls, type) or type(params) is not dict:
        raise ProtocolError(f"{path} cannot be rebuilt here")
    return cls(**params)


def write(stream, message):
    """Send one message (a dict of JSON-ready data) on a binary stream."""
    line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
    if len(line) > MAX_MESSAGE:
        raise ProtocolError(f"a message of {len(line) / 2**20:.0f} MB is larger than the limit")
    stream.write(line)
    stream.flush()


def read(stream):
    """Receive one message; ``None`` at the end of the stream."""
    line = stream.readline(MAX_MESSAGE + 1)
    if not line:
        return None
    if len(line) > MAX_MESSAGE or not line.endswith(b"\n"):
        raise ProtocolError("a message larger than the limit, or cut short")
    message = json.loads(line)
    if type(message) is not dict:
        raise ProtocolError("a message that is not an object")
    return message
