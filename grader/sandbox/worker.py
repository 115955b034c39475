"""The student's side: a process that imports the student's modules and calls their functions, nothing more.

The judge (:mod:`grader.judge`) starts it as ``python -I worker.py --fd N --dir FOLDER`` (on Windows
``--connect 127.0.0.1:PORT`` instead of ``--fd N``: it connects back and says hello with the secret of
``messages.SECRET_ENV``), by path, from a folder holding this file and the others of
``messages.WORKER_FILES`` only: inside the sandbox neither ``grader`` nor ``perfcore`` is importable, and
this module imports nothing of the kit. Every request it reads is typed, and every reply it sends built, by
:mod:`grader.sandbox.messages`. It holds no expected value, no tolerance and no comparison: a student's code
that rewrites this process can only change what its own functions are said to return, and the clock readings
sent with them (:class:`~grader.sandbox.clocks.Noting`).

A fresh process per file: the process the judge starts is a *template* (:class:`Template`) that runs no
student code. It says hello, then reads the judge's requests on the socket ``--fd`` (see
:mod:`grader.sandbox.wire`); for each ``load`` it ends the process that served the file before (and everything
that process started: the template is a child subreaper, so nothing of it gets away) and hands the file to a
new one: the spare it forked ahead (checked untouched), or one forked then, after importing what the request
names in ``preload`` (numpy, torch: paid once per worker, not once per file). That child answers the file's
requests on a socket of its own; the template passes each request down and the first line of its reply back,
byte for byte. So nothing one file does reaches another (descriptors, threads, umask, environment,
``sys.modules``, signal handlers), the child stays in the tree the judge reads the CPU time of, pins and
stops, and a child that dies ends the template with the child's own status, which the judge reads as ever.
(Where there is no ``fork``, Windows, one process serves every file.)

The requests a file's process answers, one at a time:

- ``load``: import ``FOLDER/<module>.py`` under a private name (the folder is the working directory and the
  first entry of ``sys.path``, so the student's helper modules and data files work);
- ``call``: the function with the given arguments (decoded fresh for every call), timed here; the value goes
  back as plain data, an exception as its type and the student's own traceback lines; with ``readings``, the
  call's clock readings too (:class:`~grader.sandbox.clocks.Noting`), read in CPU time where ``clock`` is "cpu";
- ``call_many``: the same for a list of keyword arguments, stopping at the first exception;
- ``bye``: exit at once (``os._exit``: no ``atexit`` handler of the student's runs).

What the student prints (Python's ``sys.stdout``/``sys.stderr``) is captured per request, capped, and sent
with the reply; output written below Python goes to the judge's log. Time and memory limits come from outside:
the judge kills this process and starts another.

Before any student code runs, imports of ``perfcore``, ``grader`` and ``solutions`` are refused (unless
``--allow`` names them): inside bubblewrap they are not there at all; without it this finder is the only
fence, and a determined submission can remove it, which is why grades for credit are made in the sandbox.

What runs is the source the student handed in: no bytecode is read from (or written to) ``__pycache__``, where
a ``.pyc`` compiled with an unchecked hash is loaded whatever the ``.py`` beside it says, and in the student's
folder only ``.py`` files import (no sourceless ``.pyc``, no compiled extension module). The finder and the
source-only imports are :mod:`grader.sandbox.studentimports`'s."""

from __future__ import annotations

import gc
import importlib.util
import io
import json
import os
import signal
import socket
import sys
import time
import traceback
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))


def _load(file: str) -> Any:
    """A module of the kit copied beside this file (``messages.WORKER_FILES``), loaded under a private name."""
    name = f"_perfkit_{file[:-3]}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(_HERE, file))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_perf_counter = time.perf_counter  # the clock this file reads itself (not one that notes readings)
messages = _load("messages.py")  # it names the worker's files: the others load in its order
_kit = {file[:-3]: _load(file) for file in messages.WORKER_FILES if file != "worker.py"}
wire, channel, shared, proctree, clocks, imports = (
    _kit[n] for n in ("wire", "channel", "shared", "proctree", "clocks", "studentimports")
)

#: Exit status when the worker's own loop ran out of memory (the judge says "ran out of memory").
EXIT_MEMORY = messages.EXIT_MEMORY
#: Exit status for bad arguments (a grader bug, not the student's).
EXIT_USAGE = 87
#: Most frames of a student's traceback shown; a runaway recursion keeps its first and last ones.
MAX_TRACE_FRAMES = 10
# _ONE_BAD_LINE: a line that is no request of the judge's (not JSON, or refused by messages.parse_request)
# ends the loop with its exception, status 1: the judge sends none, and reads that exit as any other.


class _Capped(io.TextIOBase):
    """A text stream that keeps the first ``wire.MAX_TEXT`` characters written to it."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, text: Any) -> int:
        text = str(text)
        if self.size < wire.MAX_TEXT:
            self.parts.append(text[: wire.MAX_TEXT - self.size])
            self.size += len(self.parts[-1])
        return len(text)

    def value(self) -> str:
        return "".join(self.parts)


def _student_trace(exc: BaseException, folder: str) -> str:
    """The traceback of ``exc`` cut to frames of files in the student's folder (else all but this file's and
    importlib's: a syntax error has none of the student's), its files named relative to that folder (the
    student's own names, not the private copy batch grading reads them from)."""
    # "<frozen importlib._bootstrap>" is no file: relative, it read as one in the working folder, the student's
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<frozen ")]
    inside = [f for f in frames if os.path.realpath(f.filename).startswith(folder + os.sep)]
    if not inside:
        inside = [f for f in frames if not os.path.realpath(f.filename).startswith(_HERE + os.sep)]
    lines = traceback.format_list(inside)
    if len(lines) > MAX_TRACE_FRAMES:
        omitted = len(lines) - MAX_TRACE_FRAMES
        lines = lines[:3] + [f"  ... {omitted} frames ...\n"] + lines[3 - MAX_TRACE_FRAMES :]
    try:
        lines += traceback.format_exception_only(type(exc), exc)
    except BaseException:  # noqa: BLE001 - a broken __str__ of the student's exception
        lines.append(f"{type(exc).__name__}\n")
    text = "".join(lines).rstrip()
    for prefix in dict.fromkeys((folder + os.sep, os.path.realpath(folder) + os.sep)):
        text = text.replace(f'File "{prefix}', 'File "')
    return text[-wire.MAX_TEXT :]


class Worker:
    """The loop (see the module docstring)."""

    def __init__(self, sock: socket.socket, folder: str, secret: str = "") -> None:
        self.sock = sock
        self.secret = secret
        self.reader = channel.Lines(sock)
        self.folder = os.path.realpath(folder)
        self.modules: dict[str, dict[str, Any]] = {}
        self.count = 0
        self.noted: dict[str, Any] | None = None
        self.on_cpu = False  # the call reads the judge's CPU clock (clocks.note_clocks): with readings only
        self.tally: Any = None  # the call's accumulator places, read with each reading (shared.tallied)
        #: The threads running before any student code: the others a reply counts (messages.threads_left).
        self.started = messages.running_threads()

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(wire.dumps(message))

    def raised(self, exc: BaseException, stdout: str = "") -> dict[str, Any]:
        trace = _student_trace(exc, self.folder)
        not_attempted = isinstance(exc, NotImplementedError)
        left = messages.threads_left(self.started)
        return messages.raised(type(exc).__name__, trace, not_attempted, stdout, left)

    def captured(self, run: Any, then: Any = None) -> tuple[Any, BaseException | None, str, float]:
        """``run()`` with Python's output captured: (value, exception, output, seconds). ``then(value)``, when
        given, runs after the clock stops and before the output is restored (it may run the student's code
        too: a returned number's own conversion); what it raises is the call's exception. Where
        :attr:`noted` is a dict, the clock readings ``run()`` made go into it
        (:class:`~grader.sandbox.clocks.Noting`)."""
        out = _Capped()
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out
        value: Any = None
        error: BaseException | None = None
        start = _perf_counter()
        if self.noted is not None:
            clocks.Noting.start(on_cpu=self.on_cpu, tally=self.tally)
        try:
            value = run()
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt are the student's too
            error = exc
        if self.noted is not None:
            self.noted["readings"] = clocks.Noting.stop()
        seconds = _perf_counter() - start
        if error is None and then is not None:
            try:
                value = then(value)
            except wire.Unconvertible as exc:
                error = exc.error
            except BaseException as exc:  # noqa: BLE001 - as above
                error = exc
        sys.stdout, sys.stderr = saved
        return value, error, out.value(), seconds

    def load(self, module: str, file: str) -> dict[str, Any]:
        path = os.path.join(self.folder, os.path.basename(file))
        self.count += 1
        name = f"_perfkit_student_{module}_{self.count}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            return messages.loaded(self.raised(ImportError(f"cannot import {os.path.basename(path)}")))
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded
        loader = spec.loader
        _, exc, stdout, _ = self.captured(lambda: loader.exec_module(loaded))
        if exc is not None:
            sys.modules.pop(name, None)
            return messages.loaded(self.raised(exc, stdout), stdout)
        self.modules[module] = vars(loaded)
        return messages.loaded(None, stdout)

    def function(self, module: str, func: str) -> tuple[Any, dict[str, Any] | None]:
        namespace = self.modules.get(module)
        if namespace is None:
            return None, messages.not_loaded(module)
        target = namespace.get(func)
        if target is None:
            return None, messages.missing("missing")
        if not callable(target):
            return None, messages.missing(wire.type_name(target))
        return target, None

    def call(
        self, target: Any, args: Any, kwargs: Any, threads: int | None, given: Any = (), fds: Any = ()
    ) -> dict[str, Any]:
        """``target`` called on the decoded ``args`` and ``kwargs``, and on the buffers the judge handed
        (``given``: the request's ``handed`` entries, ``fds`` their descriptors; see
        :mod:`grader.sandbox.shared`), mapped here fresh for this call; its clock readings go back with its
        value where the request asked for them (:attr:`noted`)."""
        args = tuple(wire.decode(a) for a in args)
        kwargs = {k: wire.decode(v) for k, v in kwargs.items()}
        if given:
            try:
                kwargs.update(shared.opened(list(given), list(fds)))
                self.tally = shared.tallied(list(given), kwargs) if self.noted is not None else None
            except Exception as failed:  # noqa: BLE001 - the buffers did not map (this process was changed?)
                return self.raised(failed)
        if threads:
            _one_thread()
        # the value is made plain data here, where a doctored number can only lie about itself, and its
        # conversion is part of the call: bounded by the call's time limit, its failure the call's error
        value, exc, stdout, seconds = self.captured(
            lambda: target(*args, **kwargs), lambda v: wire.encode(v, strict=True)
        )
        self.tally = None
        if exc is not None:
            return self.raised(exc, stdout)
        return messages.returned(value, seconds, stdout, messages.threads_left(self.started), self.noted)

    def answer(self, request: Any) -> dict[str, Any] | None:
        """The reply to ``request`` (typed: ``messages.parse_request``); None for ``bye``."""
        is_call = isinstance(request, messages.CallRequest)
        self.noted, self.tally = ({} if is_call and request.readings else None), None
        self.on_cpu = self.noted is not None and request.clock == "cpu"
        if isinstance(request, messages.ByeRequest):
            return None
        if isinstance(request, messages.LoadRequest):
            return self.load(request.module, request.file)
        target, missing = self.function(request.module, request.func)
        fds = self.reader.take(len(request.handed)) if is_call else []
        if missing is not None:
            channel.close_all(fds)
            return missing
        if is_call:
            return self.call(target, request.args, request.kwargs, request.threads, request.handed, fds)
        items = []
        for kwargs in request.kwargs_list:
            items.append(self.call(target, [], kwargs, request.threads))
            if items[-1]["reply"] != "returned":
                break
        return messages.many(items)

    def serve(self, hello: bool = True, first: Any = None) -> None:
        """Answer requests until ``bye`` or the socket closes; ``first()`` runs when the first one comes."""
        if hello:
            self.send(messages.hello(os.getpid(), self.secret))
        while True:
            line = self.reader.readline(wire.MAX_LINE_BYTES)
            if not line:
                return
            if first is not None:
                first()
                first = None
            request = messages.parse_request(json.loads(line))  # see _ONE_BAD_LINE
            reply = self.answer(request)
            if reply is None:
                return
            reply["seq"] = request.seq
            self.send(reply)


class Template:
    """The process the judge started: one fresh child per file, relayed (see the module docstring)."""

    #: How long a child whose socket closed may take to end before the template gives up on it.
    CLOSED_WAIT_S = 2.0

    def __init__(self, sock: socket.socket, folder: str, secret: str = "") -> None:
        self.sock = sock
        self.secret = secret
        self.reader = channel.Lines(sock)
        self.folder = os.path.realpath(folder)
        self.child: tuple[int, socket.socket, str] | None = None  # pid, its socket, its module
        #: The next file's process, forked ahead while the judge does other work: a fork and the first
        #: moments of a new process are most of a switch's time, and not the student's to wait for.
        self.spare: tuple[int, socket.socket] | None = None

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(wire.dumps(message))

    def serve(self) -> None:
        _prctl(36, 1)  # a child subreaper (see _prctl)
        self.send(messages.hello(os.getpid(), self.secret))
        try:
            self.spare = self.fork()
            while True:
                line = self.reader.readline(wire.MAX_LINE_BYTES)
                if not line:
                    return
                request = messages.parse_request(json.loads(line))  # see _ONE_BAD_LINE
                is_call = isinstance(request, messages.CallRequest)
                fds = self.reader.take(len(request.handed)) if is_call else []
                if isinstance(request, messages.ByeRequest):
                    return
                if isinstance(request, messages.LoadRequest):
                    self.fresh(request.module, list(request.preload))
                    self.relay(line)
                    self.spare = self.fork()
                    continue
                if self.child is None or self.child[2] != request.module:
                    channel.close_all(fds)
                    self.send({**messages.not_loaded(request.module), "seq": request.seq})
                    continue
                self.relay(line, fds)
        finally:
            self.end_child()
            self.end_spare()

    def fresh(self, module: str, preload: list[str]) -> None:
        """End the process of the file before (and all it started), import ``preload`` here, and make the
        spare, or a new child where the spare will not do, the process of ``module``."""
        self.end_child()
        wanted = [name for name in preload if name in ("numpy", "torch") and name not in sys.modules]
        if wanted or not self.spare_untouched():
            self.end_spare()
            _preload(wanted, self.folder)
        if self.spare is None:
            self.spare = self.fork()
        pid, ours = self.spare
        self.spare = None
        self.child = (pid, ours, module)

    def fork(self) -> tuple[int, socket.socket]:
        """A new child, waiting on a socket of its own for its first request (its file's load)."""
        _collect(self.kept())
        ours, theirs = socket.socketpair()
        # the template's objects go to the collector's permanent generation: a collection in the child
        # would otherwise touch, and so copy, every page of them
        gc.freeze()
        pid = os.fork()
        if pid == 0:  # the child: the judge's socket is the template's alone
            code = 0
            try:
                _prctl(4, 0)  # not dumpable: while it waits, another file's process cannot trace it
                ours.close()
                self.reader.close()
                if self.child is not None:
                    self.child[1].close()
                # its own socket takes the descriptor the judge's had, so that what the student's code
                # writes to the --fd it was told of is its own reply, as in a worker of one process
                fd = self.sock.detach()
                os.dup2(theirs.fileno(), fd)
                theirs.close()
                Worker(socket.socket(fileno=fd), self.folder).serve(hello=False, first=lambda: _prctl(4, 1))
            except MemoryError:
                code = EXIT_MEMORY
            except BaseException:  # noqa: BLE001 - the loop's own failure: an exit the judge reports
                code = 1
            os._exit(code)  # never back into the template's loop, and no atexit handler of the student's
        theirs.close()
        return pid, ours

    def kept(self) -> tuple[int, ...]:
        """The children whose end the template reads itself: the file's process and the spare."""
        return tuple(one[0] for one in (self.child, self.spare) if one is not None)

    def spare_untouched(self) -> bool:
        """Whether the spare is still as it was forked: alive, not stopped, no signal pending, traced by no
        one (the process of the file before, now ended, could have sent it a signal)."""
        if self.spare is None:
            return False
        try:
            if os.waitpid(self.spare[0], os.WNOHANG)[0]:
                self.spare = None  # ended, and collected
                return False
        except ChildProcessError:
            return False
        status = proctree.status(self.spare[0])
        if status is None:
            return False
        if not status:
            return True  # no /proc to read: what the kernel says of its end is all there is
        running = status.get(b"State", b"").split()[:1] in ([b"S"], [b"R"])
        # a signal pending (a SIGKILL it has not yet died of) is a touch too
        try:
            pending = any(int(status.get(name, b"0") or b"0", 16) for name in (b"SigPnd", b"ShdPnd"))
        except ValueError:
            return True
        return running and not pending and status.get(b"TracerPid", b"0") == b"0"

    def end_spare(self) -> None:
        if self.spare is not None:
            pid, ours = self.spare
            self.spare = None
            ours.close()
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            _collect(self.kept())

    def relay(self, line: bytes, fds: list[int] | None = None) -> None:
        """Pass ``line`` (and the descriptors that came with it) to the child, and the first line it writes
        back to the judge."""
        assert self.child is not None
        pid, child, _ = self.child
        _drain(child)  # bytes the child wrote between requests answer nothing
        try:
            channel.send(child, line, fds or [])
        except OSError:
            channel.close_all(fds or [])
            self.child_ended()
        channel.close_all(fds or [])
        while True:
            try:
                chunk = child.recv(1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                self.child_ended()
            end = chunk.find(b"\n")
            if end >= 0:
                self.sock.sendall(chunk[: end + 1])
                return
            self.sock.sendall(chunk)

    def child_ended(self) -> None:
        """The child closed its socket during a request: end as it ended (its exit status or its signal), so
        the judge tells the check what happened as it always has; a child still alive is killed, and the
        judge's socket closed (a worker that closed its channel)."""
        assert self.child is not None
        pid = self.child[0]
        status = None
        deadline = time.monotonic() + self.CLOSED_WAIT_S
        while status is None and time.monotonic() < deadline:
            try:
                done, raw = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # collected already: its status is lost, and it closed the channel
                break
            status = raw if done else None
            if status is None:
                time.sleep(0.01)
        self.end_child()
        self.end_spare()
        if status is None:
            self.sock.close()
            while True:
                signal.pause()
        if os.WIFSIGNALED(status):
            signum = os.WTERMSIG(status)
            try:
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)
            except (OSError, ValueError):
                pass
            os._exit(128 + signum)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)

    def end_child(self) -> None:
        """Kill the child of the file before and every process below this one; collect those that have
        ended (the rest at the next switch, or here at the end: a process killed with SIGKILL runs no
        further code of its own, so the next file's process need not wait for it to be gone)."""
        if self.child is not None:
            self.child[1].close()
            self.child = None
        killed: set[int] = set() if self.spare is None else {self.spare[0]}  # the spare is not the file's
        for _ in range(100):  # what forks while it is killed is found on the next pass
            below = set(proctree.descendants(os.getpid())) - killed
            if not below:
                break
            for pid in below:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            killed |= below
        _collect(self.kept())


def _prctl(option: int, value: int) -> None:
    """Linux's ``prctl(option, value)``, where there is one: ``PR_SET_DUMPABLE`` (4; 0: processes of the same
    user cannot trace this one or read its ``/proc`` files: a spare, until its file's request comes) and
    ``PR_SET_CHILD_SUBREAPER`` (36; what a file's process starts, detached or not, stays below the template,
    which ends it with that process)."""
    try:
        import ctypes  # deferred on purpose: only the template and a file's start need it

        ctypes.CDLL(None).prctl(option, value, 0, 0, 0)
    except Exception:  # noqa: BLE001, S110 - no such call here: the process stays as it was
        pass


def _collect(keep: tuple[int, ...] = ()) -> None:
    """Collect every child of this process that has ended, but those in ``keep`` (whose end the template
    reads itself)."""
    for pid in proctree.child_pids(os.getpid()):
        if pid not in keep:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass


def _drain(sock: socket.socket) -> None:
    """Read and drop whatever ``sock`` holds now."""
    try:
        while sock.recv(1 << 20, socket.MSG_DONTWAIT):  # the template's: there is fork, so MSG_DONTWAIT
            pass
    except OSError:  # BlockingIOError: nothing more
        pass


def _preload(names: list[str], folder: str) -> None:
    """Import ``names`` (numpy, torch) in the template, from the interpreter's own paths: never from the
    student's folder, whose ``numpy.py`` would otherwise run here. A name that does not import is left to
    the student's file to import (and fail) in its own process."""
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != folder]
    try:
        for name in names:
            if name in ("numpy", "torch") and name not in sys.modules:
                try:
                    importlib.import_module(name)
                except BaseException:  # noqa: BLE001, S110 - see the docstring
                    pass
    finally:
        sys.path[:] = saved


def _one_thread() -> None:
    """One thread for torch and the BLAS under numpy, as the reference measures (where they are loaded)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    if "numpy" in sys.modules:
        try:
            from threadpoolctl import threadpool_limits  # deferred on purpose: optional (the torch extra)

            threadpool_limits(limits=1)
        except Exception:  # noqa: BLE001, S110 - threadpoolctl is optional; the environment asks for one thread
            pass


def _channel(argv: list[str]) -> tuple[socket.socket, str]:
    """The socket to the judge, and the secret to say hello with ('' for a socket handed over by fd)."""
    if "--connect" in argv:
        host, _, port = argv[argv.index("--connect") + 1].rpartition(":")
        sock = socket.create_connection((host, int(port)), timeout=60)
        sock.settimeout(None)
        return sock, os.environ.pop(messages.SECRET_ENV, "")
    return socket.socket(fileno=int(argv[argv.index("--fd") + 1])), ""


def main(argv: list[str]) -> int:
    try:
        folder = argv[argv.index("--dir") + 1]
        sock, secret = _channel(argv)
    except (ValueError, IndexError, OSError):
        return EXIT_USAGE
    allowed = set(argv[argv.index("--allow") + 1].split(",")) if "--allow" in argv else set()
    denied = tuple(name for name in imports.DENIED if name not in allowed)
    sys.meta_path.insert(0, imports._Deny(denied))
    for name in [n for n in sys.modules if n.split(".")[0] in denied]:
        del sys.modules[name]
    imports.source_imports(folder, _HERE)
    clocks.note_clocks()  # before any preload and any student import: what they take is the noting clock
    os.chdir(folder)
    sys.path.insert(0, os.path.realpath(folder))
    try:
        if hasattr(os, "fork"):
            Template(sock, folder, secret).serve()
        else:  # no fork (Windows): this process serves every file
            Worker(sock, folder, secret).serve()
    except MemoryError:
        return EXIT_MEMORY
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    os._exit(code)  # no atexit handler a submission may have registered
