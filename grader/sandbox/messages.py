"""The judge–worker contract: every message either side sends, built and read here, and nowhere else.

A request is a JSON object with ``op`` and ``seq``, one typed class per op (:class:`LoadRequest`,
:class:`CallRequest`, :class:`CallManyRequest`, :class:`ByeRequest`): the judge builds its line
(:func:`request`, :func:`encode_request`), the worker reads it back typed (:func:`parse_request`) and refuses
any other. A reply repeats ``seq`` and says what it is in ``reply``. The worker builds its replies with the functions below (:func:`hello`,
:func:`returned`, :func:`raised`, :func:`missing`, :func:`not_loaded`, :func:`loaded`, :func:`many`); the
judge reads them back typed (:func:`parse_hello`, :func:`parse_reply`: :class:`Returned`, :class:`Raised`,
:class:`Loaded`). So whoever writes a field also reads it, and a field added to one side is added to the
other in the same place. The values inside a reply are :mod:`grader.sandbox.wire`'s plain data, decoded
under one line's budget (:class:`grader.sandbox.wire.Decoding`).

The worker files (:data:`WORKER_FILES`) are named here too: the sandbox copies them beside the worker and
the worker loads them, from this one list. The judge's side of a failure (:class:`WorkerFailure`, the
worker's exit statuses, where the hello's secret travels) is part of the contract, so it lives here.

Like the wire, this module is copied beside the worker and imports nothing of the kit at import time but
its sibling ``wire.py``: loaded by path (no package), it loads that sibling by path itself.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
from typing import Any, ClassVar

if __package__:
    from . import wire
else:  # loaded by path beside the worker (see the docstring): wire.py is its sibling, under the same name
    _name = "_perfkit_wire"  # the name the worker's own loader gives it, so both find one module
    if _name not in sys.modules:
        _spec = importlib.util.spec_from_file_location(
            _name, os.path.join(os.path.dirname(__file__), "wire.py")
        )
        assert _spec is not None and _spec.loader is not None
        sys.modules[_name] = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(sys.modules[_name])
    wire = sys.modules[_name]

#: The kit's files a worker runs on, copied into its private folder (:func:`grader.sandbox.confinement.
#: runtime_dir`) and loaded by the worker in this order: the only kit code a worker sees.
WORKER_FILES = (
    "worker.py",
    "wire.py",
    "messages.py",
    "channel.py",
    "shared.py",
    "proctree.py",
    "clocks.py",
    "studentimports.py",
)

#: Where the worker finds the secret it says hello with when it connects back over loopback (Windows, where
#: no socket can be handed to it by descriptor): the judge takes no other connection for its worker.
SECRET_ENV = "PERFKIT_WORKER_SECRET"
#: The worker's exit status when its own loop ran out of memory (the judge says "ran out of memory").
EXIT_MEMORY = 86


# ---------------------------------------------------------------------------------------------------
# the judge's requests: built by the judge (request), read by the worker (parse_request)


@dataclasses.dataclass(frozen=True)
class LoadRequest:
    """``load``: import ``file`` (a name in the worker's folder) as ``module``, a fresh process serving it;
    the template imports ``preload`` (numpy, torch) first, once per worker."""

    op: ClassVar[str] = "load"
    seq: int
    module: str
    file: str
    preload: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class CallRequest:
    """``call``: ``module``'s ``func`` on ``args`` and ``kwargs`` (plain data, :func:`grader.sandbox.wire.
    encode`) and on the buffers ``handed`` (their entries: the descriptors travel beside the line,
    :func:`grader.sandbox.channel.send`), on one thread where ``threads`` is given; with ``readings``, the
    call's clock readings noted, on the judge's CPU clock where ``clock`` is "cpu"."""

    op: ClassVar[str] = "call"
    seq: int
    module: str
    func: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    threads: int | None = None
    readings: bool = False
    clock: str = ""
    handed: tuple[Any, ...] = ()


@dataclasses.dataclass(frozen=True)
class CallManyRequest:
    """``call_many``: ``module``'s ``func`` on each of ``kwargs_list``, stopping at the first that raises."""

    op: ClassVar[str] = "call_many"
    seq: int
    module: str
    func: str
    kwargs_list: tuple[dict[str, Any], ...] = ()
    threads: int | None = None


@dataclasses.dataclass(frozen=True)
class ByeRequest:
    """``bye``: the worker exits at once."""

    op: ClassVar[str] = "bye"
    seq: int


Request = LoadRequest | CallRequest | CallManyRequest | ByeRequest
_REQUESTS: dict[str, Any] = {
    kind.op: kind for kind in (LoadRequest, CallRequest, CallManyRequest, ByeRequest)
}
#: The requests the judge sends.
OPS = tuple(_REQUESTS)


def request(op: str, seq: int, **fields: Any) -> dict[str, Any]:
    """The line's data of a request of the judge (:class:`LoadRequest`, :class:`CallRequest`,
    :class:`CallManyRequest`, :class:`ByeRequest`, by its ``op``) with ``fields``: a field the request does
    not have is a TypeError, an unknown op a ValueError. A field left at its default is not written."""
    if op not in _REQUESTS:
        raise ValueError(f"op must be load, call, call_many or bye, got {op!r}")
    return encode_request(_REQUESTS[op](seq, **fields))


def encode_request(typed: Request) -> dict[str, Any]:
    """``typed`` as the line's data that :func:`parse_request` reads back."""
    data: dict[str, Any] = {"op": typed.op}
    for field in dataclasses.fields(typed):
        value = getattr(typed, field.name)
        if field.default_factory is not dataclasses.MISSING:
            default = field.default_factory()
        else:
            default = field.default
        if default is dataclasses.MISSING or value != default:
            data[field.name] = list(value) if isinstance(value, tuple) else value
    return data


def parse_request(data: Any) -> Request:
    """The typed request in ``data`` (a line's JSON); DecodeError when it is not one :func:`request` builds:
    not an object, an unknown op, a field missing, unknown or of the wrong type. The worker ends on one (as on
    a line that is not JSON): the judge reads its exit."""
    if not isinstance(data, dict):
        raise wire.DecodeError("a request that is not an object")
    op = data.get("op")
    kind = _REQUESTS.get(op) if isinstance(op, str) else None
    if kind is None:
        raise wire.DecodeError(f"an unknown request {str(op)[:40]!r}")
    fields = {field.name: field for field in dataclasses.fields(kind)}
    unknown = sorted(set(data) - set(fields) - {"op"})
    if unknown:
        raise wire.DecodeError(f"a {op} request with unknown fields {unknown[:5]}")
    given: dict[str, Any] = {}
    for name, field in fields.items():
        if name not in data:
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise wire.DecodeError(f"a {op} request without {name}")
            continue
        value = data[name]
        if not _REQUEST_FIELDS[name](value):
            raise wire.DecodeError(f"a {op} request whose {name} is not {_REQUEST_FIELDS[name].__doc__}")
        given[name] = tuple(value) if isinstance(value, list) else value
    typed: Request = kind(**given)
    return typed


def _count(value: Any) -> bool:
    """a count"""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _names(value: Any) -> bool:
    """a list of names"""
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


def _keywords(value: Any) -> bool:
    """keyword arguments"""
    return isinstance(value, dict) and all(isinstance(key, str) for key in value)


def _threads(value: Any) -> bool:
    """a count or null"""
    return value is None or _count(value)


def _text_field(value: Any) -> bool:
    """text"""
    return isinstance(value, str)


def _list(value: Any) -> bool:
    """a list"""
    return isinstance(value, list)


def _flag(value: Any) -> bool:
    """true or false"""
    return isinstance(value, bool)


def _clock(value: Any) -> bool:
    """'' or 'cpu'"""
    return value in ("", "cpu")


def _keywords_list(value: Any) -> bool:
    """a list of keyword arguments"""
    return isinstance(value, list) and all(_keywords(kwargs) for kwargs in value)


#: What each request's field must be on the line (the function's docstring names it in the refusal).
_REQUEST_FIELDS = {
    "seq": _count,
    "module": _text_field,
    "file": _text_field,
    "func": _text_field,
    "preload": _names,
    "args": _list,
    "kwargs": _keywords,
    "threads": _threads,
    "readings": _flag,
    "clock": _clock,
    "handed": _list,
    "kwargs_list": _keywords_list,
}


# ---------------------------------------------------------------------------------------------------
# the judge's side of the replies: typed, read back from what the worker's side below builds


@dataclasses.dataclass(frozen=True)
class Returned:
    """A call returned ``value`` (decoded) after ``seconds``, printing ``stdout``; its clock ``readings``;
    ``threads_left``: how many threads the student's code had running when the call ended (see
    :func:`threads_left`)."""

    value: Any
    seconds: float = 0.0
    stdout: str = ""
    readings: Any = None
    threads_left: int = 0


@dataclasses.dataclass(frozen=True)
class Raised:
    """The student's code raised: the exception's type, the student's own traceback lines, its output.

    ``not_attempted`` when it was NotImplementedError; ``missing`` when the function is absent ("missing")
    or not callable (its type name); ``threads_left`` as :class:`Returned`'s.
    """

    exc_type: str
    trace: str
    not_attempted: bool = False
    missing: str = ""
    stdout: str = ""
    threads_left: int = 0


@dataclasses.dataclass(frozen=True)
class Loaded:
    """The module was imported (``error`` is None) or its import raised (``error``)."""

    error: Raised | None = None
    stdout: str = ""


Reply = Returned | Raised | Loaded


@dataclasses.dataclass(frozen=True)
class Hello:
    """The worker's first line: its process id, and the secret it was given (loopback only, else "")."""

    pid: int
    secret: str = ""


class WorkerFailure(Exception):
    """The worker did not answer: ``kind`` is one of :data:`FAILURE_KINDS`, ``detail`` says more."""

    def __init__(self, kind: str, detail: str = "") -> None:
        if kind not in FAILURE_KINDS:
            raise ValueError(f"WorkerFailure.kind must be one of {FAILURE_KINDS}, got {kind!r}")
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind
        self.detail = detail


#: timeout: past its wall-clock limit; exit: ended with a status; signal: killed by one; memory, cpu,
#: output: a resource limit; tampered: a line that is not a reply to the request; oversized: a line past a
#: bound of :func:`grader.sandbox.wire.loads` or :func:`parse_reply` (``detail`` is the
#: :class:`~grader.sandbox.wire.Oversized` ``what``); startup: never said hello.
FAILURE_KINDS = ("timeout", "exit", "signal", "memory", "cpu", "output", "tampered", "oversized", "startup")


def parse_hello(data: Any) -> Hello:
    """The :class:`Hello` in ``data`` (a line read by :func:`grader.sandbox.wire.loads`); DecodeError when
    the line is not one."""
    if not (isinstance(data, dict) and data.get("reply") == "hello"):
        raise wire.DecodeError(f"the worker said {str(data)[:80]!r} instead of hello")
    pid = data.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        raise wire.DecodeError("a hello without the worker's process id")
    return Hello(pid, _text(data, "secret"))


def parse_reply(data: Any, deadline: float | None = None) -> Reply | list[Reply]:
    """The typed reply in ``data`` (a line read by :func:`grader.sandbox.wire.loads`); DecodeError when it
    is malformed, :class:`~grader.sandbox.wire.Late` when decoding it is still going at ``deadline``
    (``time.monotonic()``).

    Any failure to read it (a wrong type where a number or a dtype belongs, an int too long to convert, a
    class that cannot be made, no memory) is a DecodeError: what the worker sent is data, and data that
    does not read is a malformed reply, never an error of the judge."""
    try:
        return _parse_reply(data, wire.Decoding(deadline), batch=True)
    except wire.DecodeError:
        raise
    except Exception as exc:  # noqa: BLE001 - see the docstring: every other failure is the line's
        raise wire.DecodeError(f"a malformed reply ({type(exc).__name__})") from None


def _parse_reply(data: Any, decoding: wire.Decoding, batch: bool) -> Reply | list[Reply]:
    if not isinstance(data, dict):
        raise wire.DecodeError("a reply that is not an object")
    kind = data.get("reply")
    if kind == "returned":
        seconds = data.get("seconds", 0.0)
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
            raise wire.DecodeError("seconds that are not a number")
        value = wire.decode(data.get("value"), decoding)
        return Returned(value, float(seconds), _text(data, "stdout"), data.get("readings"), _left(data))
    if kind == "raised":
        return _raised(data)
    if kind == "loaded":
        error = data.get("error")
        return Loaded(None if error is None else _raised(error), _text(data, "stdout"))
    if kind == "many" and batch:  # a batch holds calls' replies, never another batch
        items = data.get("items")
        if not isinstance(items, list):
            raise wire.DecodeError("a batch reply without items")
        replies = [_parse_reply(item, decoding, batch=False) for item in items]
        if not all(isinstance(r, (Returned, Raised)) for r in replies):
            raise wire.DecodeError("a batch reply with an item that is not a call's reply")
        return replies  # type: ignore[return-value]
    raise wire.DecodeError(f"an unknown reply {str(kind)[:40]!r}")


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name, "")
    return value[: wire.MAX_TEXT] if isinstance(value, str) else ""


def _left(data: dict[str, Any]) -> int:
    left = data.get("threads_left", 0)
    if not isinstance(left, int) or isinstance(left, bool) or left < 0:
        raise wire.DecodeError("threads_left that is not a count")
    return left


def _raised(data: Any) -> Raised:
    if not isinstance(data, dict):
        raise wire.DecodeError("an error that is not an object")
    return Raised(
        exc_type=_text(data, "exc_type")[:200],
        trace=_text(data, "trace"),
        not_attempted=data.get("not_attempted") is True,
        missing=_text(data, "missing")[:200],
        stdout=_text(data, "stdout"),
        threads_left=_left(data),
    )


# ---------------------------------------------------------------------------------------------------
# the worker's side: its replies, as the judge reads them above


def hello(pid: int, secret: str = "") -> dict[str, Any]:
    """The first line of a worker (or of the template that forks the files' processes)."""
    return {"reply": "hello", "pid": pid, **({"secret": secret} if secret else {})}


def returned(value: Any, seconds: float, stdout: str, threads_left: int, noted: Any = None) -> dict[str, Any]:
    """A call's value (already plain data, :func:`grader.sandbox.wire.encode`), its time and output, the
    threads left running, and its clock readings where the request asked for them (``noted``: a dict)."""
    reply = {"reply": "returned", "value": value, "seconds": seconds, "stdout": stdout}
    return {**reply, "threads_left": threads_left, **(noted or {})}


def raised(
    exc_type: str, trace: str, not_attempted: bool, stdout: str, threads_left: int = 0
) -> dict[str, Any]:
    """The student's code raised (or the file could not be found)."""
    reply = {"reply": "raised", "exc_type": exc_type, "trace": trace, "not_attempted": not_attempted}
    return {**reply, "stdout": stdout, "threads_left": threads_left}


def missing(kind: str) -> dict[str, Any]:
    """The function asked for is absent (``kind`` "missing") or not callable (``kind`` its type's name)."""
    return {"reply": "raised", "exc_type": "", "trace": "", "missing": kind}


def not_loaded(module: str) -> dict[str, Any]:
    """A call for a module this process has not imported (the judge asks for its load first)."""
    return {"reply": "raised", "exc_type": "ImportError", "trace": f"{module} is not loaded"}


def loaded(error: dict[str, Any] | None, stdout: str = "") -> dict[str, Any]:
    """The file was imported (``error`` None) or its import raised (``error``: a :func:`raised` reply)."""
    return {"reply": "loaded", "error": error, "stdout": stdout}


def many(items: list[dict[str, Any]]) -> dict[str, Any]:
    """A ``call_many``'s replies, one per call, in order (the batch stops at the first that did not return)."""
    return {"reply": "many", "items": items}


def threads_left(started: frozenset[int]) -> int:
    """How many threads run now that were not running at ``started`` (:func:`running_threads` when the
    process began serving): threads the student's code started and left running, one of ``threading``'s,
    of ``_thread``'s (which ``threading.enumerate()`` does not list) or of native code alike. The kernel's
    list is read (a thread is there as soon as it is created, before it runs a line); where there is none,
    the interpreter's threads with a frame. The worker runs its libraries with one thread each
    (``confinement.ONE_THREAD``), so an honest call leaves none."""
    return len(running_threads() - started)


def running_threads() -> frozenset[int]:
    """The identities of the threads of this process running now."""
    try:
        return frozenset(int(task) for task in _listdir("/proc/self/task"))
    except (OSError, ValueError):
        return frozenset(_current_frames())


# bound before any student code runs, which could replace os's or sys's
_listdir, _current_frames = os.listdir, sys._current_frames
