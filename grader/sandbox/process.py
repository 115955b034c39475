"""The judge's handle on one worker process: started confined, asked one request at a time, killed on any
failure, its memory watched where the OS cannot cap it, its CPU time read from outside: for the CPU-time
rule of a measuring call, and for its CPU-time limit (``Limits.cpu_s``), which the judge enforces itself
rather than by ``RLIMIT_CPU`` (:mod:`grader.sandbox.confinement` says why): while it waits on the worker it
reads the tree's CPU time every :data:`CPU_POLL_S` and kills the tree once it has used more than the limit
since the file it grades was loaded, with the verdict of a worker killed by ``SIGXCPU`` ("used up its
CPU-time limit").

The worker's own side is :mod:`grader.sandbox.worker`; the wire between them :mod:`grader.sandbox.wire`; how
the process is started, limited and reaped :mod:`grader.sandbox.confinement`.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from . import channel, confinement, cputime, messages, proctree, scheduling, scratch, wire
from .cgroup import Group
from .shared import Buffers

#: How often the judge reads the memory of a worker it watches (one capped by RLIMIT_DATA), in seconds: at
#: the few GB/s a process can fault pages in, it gets at most about half a GB past its limit in between.
MEMORY_POLL_S = 0.1
#: How often the judge reads the CPU time of the tree it waits on, in seconds: a tree on N cores gets at
#: most about N times this past its CPU-time limit. A reading is one file of the tree's cgroup, else a few
#: files of ``/proc`` per process.
CPU_POLL_S = 0.25


class WorkerProcess:
    """One worker: started in ``folder``, asked one request at a time, killed on any failure."""

    def __init__(
        self,
        folder: str,
        *,
        limits: confinement.Limits,
        bwrap: str | None,
        python: str = sys.executable,
        allow: tuple[str, ...] = (),
    ) -> None:
        self.folder = os.path.realpath(folder)
        self.limits = limits
        self.bwrap = bwrap
        self.python = python
        self.allow = allow
        self.proc: subprocess.Popen[bytes] | None = None
        self.sock: socket.socket | None = None
        self.buffer = bytearray()
        self.seq = 0
        self.loaded: dict[str, messages.Loaded] = {}
        self.home: str | None = None  # the unconfined worker's HOME and TMPDIR, removed when it ends
        self.runtime: str | None = None  # the folder of the worker's own files, removed when it ends
        #: Whether the judge watches the worker's memory itself (its cap is RLIMIT_DATA: a CUDA host)
        self.watch_memory = False
        self.log = tempfile.TemporaryFile()
        #: The tree's CPU time read just before it was last killed (see :meth:`cpu_since`).
        self.last_reading: cputime.TreeCpu | None = None
        #: The tree's reading against which its CPU-time limit is read: taken as the file now graded was
        #: loaded, and before that the one the tree had before any of it ran
        #: (:func:`grader.sandbox.cputime.since_start`); None where the judge cannot read the tree (the
        #: launcher's ``RLIMIT_CPU`` limits it then), and when no worker runs.
        self.cpu_start: cputime.TreeCpu | None = None
        #: When (``time.monotonic()``) the judge next reads the tree's CPU time for its limit.
        self.cpu_due = 0.0
        #: The tree's cgroup, where one could be made (:mod:`grader.sandbox.cgroup`): stopped, read and
        #: killed whole; else the tree is found by its parent links, and stopped by sweeps.
        self.group: Group | None = None
        #: The processes below the worker once it said hello (identities): collected when it ends.
        self.below: set[tuple[int, int]] = set()
        #: Processes of the tree a stop's first sweep missed (born while it was being stopped), all stops.
        self.escapes = 0

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start the process and wait for its hello; WorkerFailure("startup") when it does not come.

        The channel is one end of a socket pair handed over by descriptor; where the OS cannot pass one
        (Windows), a loopback listener the worker connects back to, whose hello must carry the secret the
        judge put in its environment (``messages.SECRET_ENV``): no other process's connection is taken for it.
        """
        self._remove_folders()  # a worker that died without being killed left them
        self.last_reading = None
        runtime = self.runtime = confinement.runtime_dir()
        deadline = time.monotonic() + self.limits.startup_s
        self.home = None if self.bwrap else str(scratch.make_owned("perfkit-home-"))
        env = confinement.worker_env(self.home or "/tmp")  # inside bwrap, /tmp is its own
        env[confinement.WORKER_MARK] = "1"
        ours: socket.socket | None = None
        theirs: socket.socket | None = None
        listener: socket.socket | None = None
        secret = ""
        if channel.PASSES_FDS:
            ours, theirs = socket.socketpair()
            reached_by = ["--fd", str(theirs.fileno())]
        else:
            listener = socket.create_server(("127.0.0.1", 0))
            reached_by = ["--connect", f"127.0.0.1:{listener.getsockname()[1]}"]
            secret = env[messages.SECRET_ENV] = secrets.token_hex(16)
        gpus = confinement.gpu_devices()
        self.group = Group.make() if confinement.HAS_RLIMITS else None  # joined by the launcher
        self.cpu_start = cputime.since_start(self.group is not None) if cputime.READS_TREES else None
        self.cpu_due = time.monotonic() + CPU_POLL_S
        procs = self.group.procs if self.group is not None else None
        cmd = confinement.launcher(self.python, self.limits, cuda=bool(gpus), cgroup_procs=procs)
        self.watch_memory = bool(cmd) and confinement.memory_rlimit(bool(gpus)) == "DATA"
        if self.bwrap:
            cmd += confinement.bwrap_command(self.bwrap, self.folder, runtime, allow=self.allow, devices=gpus)
        cmd += [self.python, "-I", os.path.join(runtime, "worker.py"), *reached_by, "--dir", self.folder]
        if self.allow:
            cmd += ["--allow", ",".join(self.allow)]
        try:
            with confinement.starting():  # no reap while it is started and not yet recorded
                confinement.become_subreaper()
                self.proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=self.log,
                    stderr=self.log,
                    pass_fds=() if theirs is None else (theirs.fileno(),),
                    start_new_session=True,
                    cwd=self.folder,
                    env=env,
                )
                confinement.started(self.proc.pid)
        except OSError as exc:
            for sock in (ours, listener):
                if sock is not None:
                    sock.close()
            raise messages.WorkerFailure("startup", str(exc)) from exc
        finally:
            if theirs is not None:
                theirs.close()
        self.loaded = {}
        try:
            if listener is not None:
                with listener:
                    ours = self._accept(listener, deadline)
            self.sock = ours
            line = self._read_line(deadline)
        except messages.WorkerFailure as exc:
            tail = self.log_tail()
            raise messages.WorkerFailure("startup", f"{exc}; {tail}" if tail else str(exc)) from None
        try:
            hello = messages.parse_hello(line)
        except wire.DecodeError as exc:
            self.kill()
            raise messages.WorkerFailure("startup", str(exc)) from None
        if secret and not hmac.compare_digest(hello.secret, secret):
            self.kill()
            raise messages.WorkerFailure("startup", "a connection that did not say the worker's secret")
        # what runs below it now (under bubblewrap, bwrap's own process inside the sandbox, which outlives
        # the launcher's when the worker ends by itself): collected when the worker ends, however it ends
        self.below = proctree.identities(proctree.descendants(self.proc.pid))

    def _accept(self, listener: socket.socket, deadline: float) -> socket.socket:
        """The first connection to ``listener`` before ``deadline``, while the worker lives."""
        assert self.proc is not None
        while True:
            if self.proc.poll() is not None:
                raise self._died()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise messages.WorkerFailure("timeout")
            ready, _, _ = select.select([listener], [], [], min(0.1, remaining))
            if ready:
                return listener.accept()[0]

    def log_tail(self, chars: int = 1500) -> str:
        try:
            self.log.seek(0, os.SEEK_END)
            size = self.log.tell()
            self.log.seek(max(0, size - chars))
            return self.log.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def cpu_reading(self) -> cputime.TreeCpu | None:
        """What the kernel says of the CPU time of the worker's tree now; None where it says nothing or no
        worker runs (see :mod:`grader.sandbox.cputime`)."""
        if not self.alive or self.proc is None:
            return None
        return cputime.read([self.proc.pid], self.group.cpu_ns() if self.group is not None else None)

    def cpu_since(self, before: cputime.TreeCpu | None) -> cputime.Used | None:
        """The CPU time the worker's tree used since ``before`` (a :meth:`cpu_reading`): till now, or, where
        the worker was killed since (a call past its limit), till the moment before it was; None where there
        is no reading either side."""
        now = self.cpu_reading() if self.alive else self.last_reading
        return cputime.used(before, now)

    def pin(self, cpus: set[int]) -> None:
        """Put every thread of the worker and of what runs under it on ``cpus`` where the OS allows."""
        if self.proc is None:
            return
        scheduling.pin_tree([self.proc.pid, *proctree.descendants(self.proc.pid)], cpus)

    @contextlib.contextmanager
    def stopped(self) -> Iterator[None]:
        """The worker's whole tree stopped (SIGSTOP) for the block and continued (SIGCONT) after it, so that
        nothing the student's code left running (a thread, a process) competes with perfcore's measurement
        on the core they share. Between calls the worker only waits for the next request. Where processes
        cannot be stopped (Windows), or no worker runs, the block runs as it is."""
        if self.proc is None or not self.alive or not scheduling.CAN_STOP:
            yield
            return
        group = self.group
        if group is not None and group.freeze():  # every process of the group, at once
            try:
                yield
            finally:
                group.thaw()
            return
        pid = self.proc.pid
        tree, missed = scheduling.stop_tree(lambda: [pid, *proctree.descendants(pid)])
        self.escapes += missed
        try:
            yield
        finally:  # continued whatever the block raised; a process started since is in the tree again
            scheduling.signal_tree([*tree, *proctree.descendants(pid)], signal.SIGCONT)

    def _read_line(self, deadline: float) -> Any:
        """The next line from the worker, read by :func:`grader.sandbox.wire.loads`, before ``deadline``.

        The worker is killed and WorkerFailure raised ("timeout", "oversized", "tampered") for a line that
        does not come in time, grows past ``wire.MAX_LINE_BYTES`` (refused as soon as it does, never read
        to its end) or does not read. Only the new bytes are searched for the end of the line: a long line
        arriving in many pieces costs its length, not its length squared."""
        sock = self.sock  # read once: a judge being closed from another thread may kill the worker
        if sock is None:
            raise messages.WorkerFailure("exit", "closed its channel")
        end = self.buffer.find(b"\n")
        while end < 0:
            if len(self.buffer) > wire.MAX_LINE_BYTES:
                self.kill()
                raise messages.WorkerFailure("oversized", "bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise messages.WorkerFailure("timeout")
            wait = min(remaining, MEMORY_POLL_S) if self.watch_memory else remaining
            if self.cpu_start is not None:
                wait = max(0.0, min(wait, self.cpu_due - time.monotonic()))
            try:
                ready, _, _ = select.select([sock], [], [], wait)
            except (OSError, ValueError):  # closed under it (see above)
                raise self._died() from None
            if not ready and self.watch_memory:
                self._check_memory()
            # whether or not bytes came: a tree that streams output while it spins is read all the same
            if self.cpu_start is not None and time.monotonic() >= self.cpu_due:
                self._check_cpu()
            if not ready:
                continue
            try:
                chunk = sock.recv(1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                raise self._died()
            start = len(self.buffer)
            self.buffer += chunk
            end = self.buffer.find(b"\n", start)
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        try:
            return wire.loads(line)
        except wire.DecodeError as exc:
            raise self._unreadable(exc, f"a line that is not JSON: {exc}") from None

    def _unreadable(self, exc: wire.DecodeError, tampered: str) -> messages.WorkerFailure:
        """Kill the worker whose line did not read (``exc``), and say why: a timeout where decoding it ran
        past the request's deadline, oversized past a bound of the wire, else tampered (``tampered``)."""
        self.kill()
        if isinstance(exc, wire.Late):
            return messages.WorkerFailure("timeout")
        if isinstance(exc, wire.Oversized):
            return messages.WorkerFailure("oversized", exc.what)
        return messages.WorkerFailure("tampered", tampered)

    def _check_memory(self) -> None:
        """Kill the worker once its tree holds more than its memory limit (see
        :func:`grader.sandbox.proctree.tree_memory_bytes`)."""
        assert self.proc is not None
        used = proctree.tree_memory_bytes(self.proc.pid)
        if used is not None and used > self.limits.memory_bytes:
            self.kill()
            raise messages.WorkerFailure("memory", f"{used / 2**30:.1f} GiB resident, over the limit")

    def _check_cpu(self) -> None:
        """Kill the worker once its tree has used more CPU time than its limit since the file it grades was
        loaded (every thread and process of it, ended ones included as far as the reading sees them: the
        whole group's where the tree has a cgroup), and raise the failure a ``SIGXCPU`` gave."""
        self.cpu_due = time.monotonic() + CPU_POLL_S
        used = cputime.used(self.cpu_start, self.cpu_reading())
        if used is not None and used.seconds > self.limits.cpu_s:
            self.kill()
            raise messages.WorkerFailure("cpu", f"{used.seconds:.1f} s of CPU time, over the limit")

    def _died(self) -> messages.WorkerFailure:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=self.limits.grace_s)
        except subprocess.TimeoutExpired:
            self.kill()
            return messages.WorkerFailure("exit", "closed its channel")
        self.kill()
        kind, detail = confinement.describe_exit(code, self.bwrap is not None)
        return messages.WorkerFailure(kind, detail)

    def ask(self, op: str, timeout_s: float, buffers: Buffers | None = None, **fields: Any) -> Any:
        """Send one request and return its typed reply (see :mod:`grader.sandbox.wire`); ``buffers``: the
        buffers it hands (:class:`grader.sandbox.shared.Buffers`): their entries go in the request's line as
        ``handed``, their descriptors with its bytes (:func:`grader.sandbox.channel.send`), never in the line.
        ``fields`` are the line's other fields; a ``handed`` or ``fds`` among them is refused (ValueError):
        the buffers have this one road.

        Raises WorkerFailure when the worker does not answer within ``timeout_s`` (it is killed), dies, or
        answers out of turn or with a reply that does not read; the worker is dead afterwards. The limit
        covers the whole exchange: sending the request (a worker that stops reading its socket must not
        hold the judge in ``sendall``), the reply's bytes, and decoding them.
        """
        for key in ("handed", "fds"):
            if key in fields:
                raise ValueError(f"fields must not carry {key!r}: the buffers a request hands go as buffers=")
        if not self.alive:
            self.start()
        if op == "load" and self.cpu_start is not None:
            # the CPU-time limit holds for each file graded, as RLIMIT_CPU did for each file's own process
            # (the worker forks a fresh one per file): a worker that grades a student's every exercise, or
            # a notebook's cells all session, does not add them all up against one limit
            self.cpu_start = self.cpu_reading() or self.cpu_start
        sock = self.sock  # read once: a judge being closed from another thread may kill the worker
        if sock is None:
            raise messages.WorkerFailure("exit", "closed its channel")
        self.seq += 1
        deadline = time.monotonic() + timeout_s
        try:
            sock.settimeout(max(1e-3, timeout_s))
            handed = {} if buffers is None else {"handed": list(buffers.entries)}
            line = wire.dumps(messages.request(op, self.seq, **fields, **handed))
            channel.send(sock, line, [] if buffers is None else list(buffers.fds))
            sock.settimeout(None)
        except TimeoutError:
            self.kill()
            raise messages.WorkerFailure("timeout") from None
        except OSError:
            raise self._died() from None
        data = self._read_line(deadline)
        if not isinstance(data, dict) or data.get("seq") != self.seq:
            self.kill()
            raise messages.WorkerFailure("tampered", "a reply out of turn")
        try:
            return messages.parse_reply(data, deadline)
        except wire.DecodeError as exc:
            raise self._unreadable(exc, f"a malformed reply ({exc})") from None

    def kill(self) -> None:
        if self.alive and self.proc is not None:  # what its tree had used, for a call it ends (a timeout)
            self.last_reading = self.cpu_reading()
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        self.buffer = bytearray()
        if self.proc is not None:
            confinement.kill_tree(self.proc, self.below)
            self.below = set()
        if self.group is not None:  # whatever left the tree's parent links is still in its group
            self.group.remove()
            self.group = None
        self._remove_folders()
        self.loaded = {}
        self.cpu_start = None

    def _remove_folders(self) -> None:
        """Remove the worker's HOME and runtime folders (its process is gone, or never started)."""
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
            self.home = None
        if self.runtime is not None:
            confinement.remove_runtime(self.runtime)
            self.runtime = None

    def close(self) -> None:
        """Say bye, give the worker a moment, then kill whatever is left of it."""
        if self.alive and self.sock is not None:
            try:
                self.sock.sendall(wire.dumps(messages.request("bye", self.seq + 1)))
                assert self.proc is not None
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        self.log.close()
