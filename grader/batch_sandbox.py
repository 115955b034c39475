"""How a batch-grading child is confined: resource limits, and bubblewrap where it works.

Limits (:class:`Limits`), set with ``setrlimit`` between fork and exec, so they hold for bubblewrap and the
worker alike:

- ``RLIMIT_AS`` (address space), default 8 GiB, at most the machine's memory divided by the parallel
  jobs. Importing torch and the grader takes under 1 GiB of address space here (VmPeak 0.8 GiB); the
  measurement tasks allocate a few hundred MiB more. A ``bytearray(50 << 30)`` fails with MemoryError
  instead of pushing the machine into swap.
- ``RLIMIT_CPU``, the wall-clock budget of the child's plan (see ``grader.batch``): SIGXCPU at the soft
  limit, SIGKILL five seconds later.
- ``RLIMIT_FSIZE``, 64 MiB per file, stdout and stderr included (they go to files of the parent's): an
  endless print loop gets SIGXFSZ, not a full disk.
- ``RLIMIT_CORE`` 0; ``PR_SET_PDEATHSIG`` (SIGKILL) so the child dies with the grader even without
  bubblewrap. They are set by a small launcher (:data:`LAUNCHER`) that then execs bwrap or the worker.

The wall-clock limit is the parent's: it kills the child's process group (``start_new_session``).

bubblewrap (``bwrap``), where installed and working (probed once, with the same flags): ``--ro-bind / /``
(everything read-only), ``--dev /dev``, ``--proc /proc``, ``--tmpfs /tmp`` (private, 256 MiB: the submission's own
temporary folder, also its ``HOME`` and ``TMPDIR``), the student's temporary copy bound read-only (so that
nothing can be planted next to the exercise files, a ``torch.py`` say), the kit's ``solutions``, ``tests`` and ``.git`` folders, the
submissions folder, the output folder and any ``--hide`` path covered by empty tmpfs mounts, the machine
profile cache bound read-only, ``--unshare-net`` (no network), ``--unshare-pid`` (bwrap is PID 1's parent:
when the worker ends, every process it left behind is killed), ``--die-with-parent``, ``--new-session``
(no terminal injection), ``--cap-drop ALL`` and ``--chdir`` into the copy. ``--cap-drop ALL`` matters when
the grader runs as root: bwrap then keeps every capability by default, and a submission could simply
``mount -o remount,rw`` the read-only binds. Where bwrap is missing or does not work (a Docker
container's seccomp often forbids its namespaces) the grader says so once and confines with the limits
alone: then a submission can read and write whatever the grader's user can, and a process it detaches with
``setsid`` outlives the worker's process group.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass

GiB = 1 << 30
MiB = 1 << 20
#: Size of the private /tmp inside the sandbox (it lives in memory).
SANDBOX_TMP_BYTES = 256 * MiB


@dataclass(frozen=True)
class Limits:
    """Per-child limits: address space in bytes, the largest file in bytes, and the grace in seconds that
    each step of the plan gets beyond the check's own time limit."""

    memory_bytes: int = 8 * GiB
    file_bytes: int = 64 * MiB
    grace_s: float = 15.0
    startup_s: float = 60.0
    prepare_s: float = 60.0

    def __post_init__(self) -> None:
        for name in ("memory_bytes", "file_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive number of bytes, got {value!r}")
        for name in ("grace_s", "startup_s", "prepare_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"Limits.{name} must be a positive number of seconds, got {value!r}")


def default_memory_bytes(jobs: int) -> int:
    """8 GiB, or the machine's memory shared among ``jobs`` parallel children when that is less."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * GiB
    return int(min(8 * GiB, max(2 * GiB, total // max(1, jobs))))


#: Run as ``python -I -c LAUNCHER memory cpu fsize -- command...``: sets the limits and the parent-death
#: signal, then execs the command. (A launcher rather than ``preexec_fn``, which is unsafe in a parent
#: with threads, and the batch grader runs its children from a thread pool.)
LAUNCHER = """
import ctypes, os, resource, signal, sys
mem, cpu, fsize = (int(a) for a in sys.argv[1:4])
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
try:
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)
except (OSError, AttributeError):
    pass
os.execv(sys.argv[5], sys.argv[5:])
"""


def launcher(python: str, limits: Limits, cpu_s: float) -> list[str]:
    """The command prefix that applies ``limits`` and a CPU limit of ``cpu_s`` seconds, then execs."""
    cpu = max(1, int(cpu_s))
    return [python, "-I", "-c", LAUNCHER, str(limits.memory_bytes), str(cpu), str(limits.file_bytes), "--"]


def bwrap_command(bwrap: str, copy_dir: str, hidden: Iterable[str], readonly: Iterable[str]) -> list[str]:
    """The bwrap prefix for a child working in ``copy_dir`` (see the module docstring)."""
    cmd = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    cmd += ["--size", str(SANDBOX_TMP_BYTES), "--tmpfs", "/tmp"]
    # The private /tmp would also hide the interpreter and the kit when they live under /tmp (a clone in
    # /tmp with its .venv, as CI makes): bind those back, read-only, before hiding what must stay hidden.
    rebound = _outermost(p for p in kit_paths() if _under(p, "/tmp"))
    for path in rebound:
        cmd += ["--ro-bind", path, path]
    visible = [
        p
        for p in hidden
        if os.path.isdir(p) and (not _under(p, "/tmp") or any(_under(p, r) for r in rebound))
    ]
    for path in _outermost(visible):
        cmd += ["--tmpfs", path]
    for path in readonly:
        if os.path.isdir(path):
            cmd += ["--ro-bind", path, path]
    cmd += ["--ro-bind", copy_dir, copy_dir]
    cmd += ["--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    cmd += ["--chdir", copy_dir]
    return [*cmd, "--"]


def kit_paths() -> list[str]:
    """What the worker needs to run: the interpreter's prefixes and the folders perfcore and grader are
    imported from (the checkout, for an editable install)."""
    import grader
    import perfcore

    paths = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    for package in (grader, perfcore):
        if package.__file__:
            paths.add(os.path.dirname(os.path.dirname(os.path.realpath(package.__file__))))
    return sorted(p for p in paths if os.path.isdir(p))


def _under(path: str, root: str) -> bool:
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def _outermost(paths: Iterable[str]) -> list[str]:
    real = sorted({os.path.realpath(p) for p in paths})
    kept: list[str] = []
    for p in real:
        if not any(_under(p, k) for k in kept):
            kept.append(p)
    return kept


def find_bwrap() -> tuple[str | None, str]:
    """``(path to a working bwrap, "")`` or ``(None, why not)``: missing, or failing a probe run."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, "bubblewrap (bwrap) is not installed"
    import tempfile

    with tempfile.TemporaryDirectory(prefix="perfkit-bwrap-probe-") as copy_dir:
        cmd = [*bwrap_command(bwrap, copy_dir, (), ()), "true"]
        try:
            result = subprocess.run(cmd, capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, f"bubblewrap does not start here: {exc}"
    if result.returncode != 0:
        err = result.stderr.decode("utf-8", "replace").strip()
        return None, f"bubblewrap does not work here: {err or f'exit status {result.returncode}'}"
    return bwrap, ""


def describe_exit(returncode: int, sandboxed: bool) -> tuple[str, str]:
    """``(kind, detail)`` of a child's exit status: exit, cpu, memory, output or signal.

    bwrap reports a worker killed by signal N as exit status 128 + N.
    """
    from .worker import EXIT_MEMORY

    if sandboxed and returncode > 128:
        returncode = 128 - returncode
    if returncode == EXIT_MEMORY:
        return "memory", ""
    if returncode < 0:
        sig = -returncode
        if sig == signal.SIGXCPU:
            return "cpu", ""
        if sig == signal.SIGXFSZ:
            return "output", ""
        try:
            return "signal", signal.Signals(sig).name
        except ValueError:
            return "signal", str(sig)
    return "exit", str(returncode)
