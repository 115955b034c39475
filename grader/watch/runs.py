"""The watch's regrades: each one ``pytest FILE`` in a process forked from a warm one, cancellable.

A regrade runs the same pytest plugin as ``pytest exercises/`` on one file, with the same signed cache, so
what it decides is what the next ``pytest exercises/`` shows, and what that run decided the watch reuses.
Its process is forked from multiprocessing's fork server, which imported pytest, the grader, hypothesis,
numpy and torch once (:data:`WARM`): a formula file's regrade costs a fork and its checks, not a cold
start. Where there is no fork server (Windows), each regrade is a fresh interpreter: slower, the same.

A regrade's output goes to a file of its own and is shown whole when it ends, so two regrades never
interleave and a cancelled one shows nothing. Its outcomes come back on a pipe (the plugin's own record
of them, as the score table reads it). Cancelling a regrade kills its process and every process below it
(the judge's workers, and whatever they started) before anything else starts: nothing of it is left
running, and nothing of it is cached: what its session keeps in pytest's cache is written when the
session ends (:class:`Regraded`).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

from ..sandbox import proctree, reaping, scheduling

#: What the fork server imports before it forks a regrade (those not installed are skipped), beside the
#: modules of pytest's installed plugins (:func:`warm_modules`), which pytest would otherwise import in
#: every regrade.
WARM = [
    "pytest",
    "hypothesis",
    "numpy",
    "torch",
    "grader.plugin",
    "grader.pytest.session",
    "grader.watch.runs",
]

#: What every regrade adds to its pytest arguments: plain asserts (a grader's checks hold none to rewrite,
#: and rewriting the plugins' modules was most of a formula file's regrade).
PYTEST_ARGS = ["--assert=plain"]


def warm_modules() -> list[str]:
    """:data:`WARM` and the modules of pytest's installed plugins (its ``pytest11`` entry points)."""
    from importlib.metadata import entry_points  # deferred on purpose: read once, when the watch starts

    plugins = [point.value.split(":")[0] for point in entry_points(group="pytest11")]
    return WARM + [name for name in plugins if name not in WARM]


@dataclass
class Regrade:
    """One file's regrade: its process, where its output goes, and when its save was seen."""

    path: Path
    measuring: bool
    saved_at: float  # time.monotonic() of the save that asked for it
    process: Any = None
    conn: Connection | None = None
    output: Path | None = None
    started_at: float = 0.0
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    status: int | None = None


def context() -> Any:
    """The fork server's context where there is one (its preloads warm), else spawn's."""
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(warm_modules())
        return ctx
    return multiprocessing.get_context("spawn")


class Runs:
    """At most one formula regrade and one measuring regrade at a time, the others queued by file."""

    def __init__(self, pytest_args: list[str], ctx: Any = None) -> None:
        self.pytest_args = list(pytest_args)
        self.ctx = context() if ctx is None else ctx
        self.running: dict[bool, Regrade] = {}  # measuring? -> the regrade running
        self.queued: dict[Path, Regrade] = {}
        self.scratch = Path(tempfile.mkdtemp(prefix="perfkit-watch-"))

    def ask(self, path: Path, measuring: bool, saved_at: float) -> bool:
        """Regrade ``path`` (queued behind the regrade of its kind that runs); a regrade of the same file
        running or queued is cancelled first. True where one was cancelled."""
        cancelled = self.cancel(path)
        self.queued[path] = Regrade(path, measuring, saved_at)
        return cancelled

    def cancel(self, path: Path) -> bool:
        """Cancel ``path``'s regrade, running or queued; True where there was one."""
        found = self.queued.pop(path, None) is not None
        for measuring, regrade in list(self.running.items()):
            if regrade.path == path:
                self._end(regrade)
                del self.running[measuring]
                found = True
        return found

    def cancel_all(self) -> None:
        self.queued.clear()
        for regrade in self.running.values():
            self._end(regrade)
        self.running.clear()

    def start_next(self) -> list[Regrade]:
        """Start the queued regrades whose kind has none running; those started."""
        started = []
        for path, regrade in list(self.queued.items()):
            if regrade.measuring not in self.running:
                del self.queued[path]
                self._start(regrade)
                self.running[regrade.measuring] = regrade
                started.append(regrade)
        return started

    def finished(self) -> list[Regrade]:
        """The running regrades that have ended (their outcomes and status read), taken."""
        done = []
        for measuring, regrade in list(self.running.items()):
            if self._ended(regrade):
                del self.running[measuring]
                done.append(regrade)
        return done

    def waitables(self) -> list[Any]:
        """What becomes ready when a running regrade ends: its pipe and its process's sentinel."""
        return [one for r in self.running.values() for one in (r.conn, r.process.sentinel) if one is not None]

    def busy(self) -> bool:
        return bool(self.running or self.queued)

    def close(self) -> None:
        self.cancel_all()
        for leftover in self.scratch.glob("*"):
            leftover.unlink(missing_ok=True)
        self.scratch.rmdir()

    def _start(self, regrade: Regrade) -> None:
        ours, theirs = self.ctx.Pipe(duplex=False)
        regrade.output = self.scratch / f"{regrade.path.stem}-{time.monotonic_ns()}.txt"
        regrade.process = self.ctx.Process(
            target=regrade_file,
            args=(str(regrade.path), self.pytest_args, str(regrade.output), theirs),
            daemon=True,
        )
        regrade.started_at = time.monotonic()
        regrade.process.start()
        theirs.close()
        regrade.conn = ours

    def _ended(self, regrade: Regrade) -> bool:
        assert regrade.conn is not None and regrade.process is not None
        if regrade.conn.poll():
            try:
                regrade.status, regrade.outcomes = regrade.conn.recv()
            except (EOFError, OSError, ValueError):
                regrade.status = None
        elif regrade.process.is_alive():
            return False
        regrade.process.join(timeout=5)
        regrade.conn.close()
        if regrade.status is None:  # it ended without a word: its exit status says how
            regrade.status = regrade.process.exitcode
        return True

    def _end(self, regrade: Regrade) -> None:
        """Kill ``regrade``'s process and everything below it, and forget its output."""
        if regrade.process is not None and regrade.process.pid is not None:
            kill_tree(regrade.process.pid)
            regrade.process.join(timeout=5)
        if regrade.conn is not None:
            regrade.conn.close()
        if regrade.output is not None:
            regrade.output.unlink(missing_ok=True)


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and every process below it, all stopped first (the judge's own sweeps,
    :func:`grader.sandbox.scheduling.stop_tree`), so that none starts another meanwhile, and wait until each
    has ended (:func:`grader.sandbox.reaping.until_ended`)."""
    if not scheduling.CAN_STOP:  # no SIGSTOP (Windows): the process alone
        reaping.kill_all([pid])
        return
    stopped, _ = scheduling.stop_tree(lambda: [pid, *proctree.descendants(pid)])
    tree = proctree.identities(stopped)
    reaping.kill_all(stopped)
    reaping.until_ended(tree)  # a killed worker runs its exit a while: the next regrade starts after it


def regrade_file(path: str, pytest_args: list[str], output: str, conn: Connection) -> None:
    """In the regrade's process: ``pytest path *pytest_args``, its output to ``output``; its exit status and
    the outcomes (:meth:`grader.results.outcome.Outcome.to_dict`) back on ``conn``."""
    # what the fork server imported is never garbage: pytest's collections at the session's end (it looks
    # for unraisable exceptions) then walk only what this regrade made, not torch's and numpy's objects
    gc.freeze()
    fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    collected = Regraded()
    status = int(pytest.main([path, *PYTEST_ARGS, *pytest_args], plugins=[collected]))
    collected.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    conn.send((status, collected.outcomes))
    conn.close()


class Regraded:
    """A pytest plugin of the regrade's own: the grader's record of the outcomes, read at the session's end,
    and what the session keeps in pytest's cache, held back until the session has ended (:meth:`flush`): a
    regrade cancelled midway has written nothing there, so nothing of it is ever shown again."""

    def __init__(self) -> None:
        self.outcomes: list[dict[str, Any]] = []
        self.held: list[tuple[str, object]] = []
        self.write: Any = None  # the cache's own set, once the cache is made

    @pytest.hookimpl(trylast=True)  # after the cache provider has made config.cache
    def pytest_configure(self, config: Any) -> None:
        cache = getattr(config, "cache", None)
        if cache is not None:
            self.write = cache.set
            cache.set = lambda key, value: self.held.append((key, value))

    def pytest_sessionfinish(self, session: Any) -> None:
        from ..pytest.session import STATE  # deferred on purpose: warm in the regrade's process

        state = session.config.stash.get(STATE, None)
        if state is not None:
            self.outcomes = [outcome.to_dict() for outcome in state.outcomes.values()]

    def flush(self) -> None:
        """Write what the session kept, now that it has ended."""
        for key, value in self.held:
            self.write(key, value)
        self.held.clear()
