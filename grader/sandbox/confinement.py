"""How a worker process is started and ended: resource limits, bubblewrap by allowlist, and the reaping.

Every front end (the pytest plugin, ``python -m grader file``/``grade``, ``grader.grade()``) starts its
workers through :func:`start_worker`:

- **Limits**, set by a small launcher (:data:`LAUNCHER`) between fork and exec so that they hold for
  bubblewrap and the worker alike: ``RLIMIT_AS`` (address space, default 8 GiB, at most the machine's
  memory shared among the parallel jobs), ``RLIMIT_FSIZE`` (64 MiB per file), no core files, and
  ``PR_SET_PDEATHSIG`` so the worker dies with the judge. (A measurement pins the running worker and the
  reference to one core itself.) On a CUDA host (:func:`gpu_devices` finds ``/dev/nvidia*``) the memory
  cap is ``RLIMIT_DATA`` instead of ``RLIMIT_AS``: a CUDA context reserves far more address space than any
  cap would allow.
- **CPU time** (``Limits.cpu_s``, a backstop; the judge's wall-clock limits come first) is limited from
  outside: while the judge waits on the worker it reads the CPU time of the worker's whole tree (the
  tree's cgroup where there is one, which nothing in the tree escapes) and kills the tree once it has used
  more than the limit since the file it grades was loaded, with the verdict a ``SIGXCPU`` gave
  (:mod:`grader.sandbox.process`). Not ``RLIMIT_CPU``: with it set, Linux arms the process-wide CPU timer,
  and ``CLOCK_PROCESS_CPUTIME_ID`` then reads the tick-granular group accounting, so
  ``time.process_time()`` in the worker advanced in 4 ms steps and an honest 1 ms measurement timed with
  it read 0.0 (issue 37); and it bounded each process of the tree alone, not the tree. Only where the
  judge cannot read the tree (:data:`grader.sandbox.cputime.READS_TREES` False: macOS) does the launcher
  still set ``RLIMIT_CPU``. Where it can, a tree it reads only in part (no cgroup, and a process detached
  from the tree's parent links, which without bubblewrap's own PID namespace re-parents to the judge) is
  bounded by the wall-clock limits times the cores it runs on, and killed when the worker ends
  (:func:`grader.sandbox.reaping.reap`); on Windows (no reading, no rlimits) the wall-clock limits alone
  bound it, likewise.
- **bubblewrap** where it works (probed once): an *allowlist*. The worker sees the system's programs and
  libraries (``/usr``, the ``/bin``/``/lib`` links, a few files of ``/etc``), the interpreter's prefixes
  and the ``site-packages`` folders on its path, the folder holding the worker's files, and the
  submission's folder, read-only (nothing can be planted beside the exercise files or the grader's
  outputs); a private ``/tmp`` (also ``HOME`` and ``TMPDIR``), ``/proc`` with the kernel's settings read-only and
  its keys and timers hidden (:data:`PROC_READONLY`, :data:`PROC_MASKED`), and a read-only ``/dev`` with
  a small ``/dev/shm``, both in memory and sized; nothing else of the disk, so another checkout's
  ``solutions/`` is not there to read. The kit's
  own packages are covered even where they sit inside a bound ``site-packages``. No network
  (``--unshare-net``), its own PID namespace (when the worker ends, whatever it started is killed),
  ``--die-with-parent``, ``--new-session``, ``--cap-drop ALL`` (as root, bwrap would otherwise keep
  every capability, and a submission could remount the binds). On a GPU host the GPU's device files
  (:data:`GPU_DEVICES`) are bound back into the fresh ``/dev``, with ``/sys`` read-only and the folders of
  ``LD_LIBRARY_PATH``, so that CUDA starts inside as outside.
- **Without bubblewrap** (missing, a container that forbids namespaces, macOS, or asked for): the limits
  alone. The judge says once that the run is not confined. On Linux, while it has workers, the judge is a
  *child subreaper* (``PR_SET_CHILD_SUBREAPER``), so a process the student detached with ``setsid`` is
  re-parented to the judge instead of init, and :func:`grader.sandbox.reaping.reap` still finds and kills
  it.
- **Windows** has no rlimits, no ``exec`` that keeps the process, no descriptor passing and no process
  groups (:data:`HAS_RLIMITS`, :data:`grader.sandbox.channel.PASSES_FDS`, :data:`HAS_PROCESS_GROUPS`):
  the worker is started without the launcher and with no memory cap, connects back to the judge over
  loopback with a secret (see :class:`grader.judge.WorkerProcess`), and is killed with its tree by
  ``taskkill /T``; the time limits hold all the same, since the judge kills the worker from outside. Tests
  force each of these off to run those paths on Linux.
"""

from __future__ import annotations

import atexit
import functools
import glob
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import cputime, messages, reaping, scratch
from .proctree import descendants, identities, identity

# the reaping's names, as the judge and the worker's handle know them here
from .reaping import KILL, WORKER_MARK, become_subreaper, reap, started, starting, trust  # noqa: F401

GiB = 1 << 30
MiB = 1 << 20
#: The grader's own folder, found from this file (not by importing ``grader``): the kit's packages are it and
#: its sibling ``perfcore``.
GRADER_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
#: What the OS gives the judge. Resource limits set by a launcher that then execs (POSIX: Windows has no
#: ``resource``, and its ``os.execv`` starts a new process and ends the old one, which the judge would take
#: for the worker's death):
HAS_RLIMITS = importlib.util.find_spec("resource") is not None
#: Process groups, killed whole:
HAS_PROCESS_GROUPS = hasattr(os, "killpg")
#: Size of the private /tmp inside the sandbox (it lives in memory).
SANDBOX_TMP_BYTES = 256 * MiB
#: Size of the sandbox's /dev/shm (memory too: bwrap's own would be half the machine's, past every cap),
#: as Docker sizes a container's.
SANDBOX_SHM_BYTES = 64 * MiB
#: Parts of the sandbox's ``/proc`` made read-only, as container runtimes (runc, Docker) do: a worker that
#: runs as root (a Gradescope container, an instructor's root shell) keeps write access to the kernel's
#: settings there even without capabilities, and ``kernel/core_pattern`` runs a program of its choosing
#: as root outside the sandbox. bwrap covers only those it finds writable by mode, which ``sys`` is not.
PROC_READONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")
#: Parts of ``/proc`` hidden (an empty read-only folder, or ``/dev/null`` unreadable over a file), as runc
#: masks them: the kernel's keys, timers and hardware, nothing a measurement reads.
PROC_MASKED = (
    "acpi",
    "asound",
    "kcore",
    "keys",
    "latency_stats",
    "timer_list",
    "timer_stats",
    "sched_debug",
    "scsi",
)
#: Files of /etc the worker may read (the dynamic loader's cache, names, time zone).
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "nsswitch.conf",
    "passwd",
    "group",
    "alternatives",
)
#: Top-level system folders bound read-only when they exist (as links where they are links).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: The device files a GPU's user-space driver opens, as ``/dev`` names (shell patterns): NVIDIA's GPUs
#: and control device, unified memory, mode setting and the MIG capabilities (a folder), and ROCm's
#: ``kfd`` (ROCm's torch answers to ``torch.cuda`` too), and WSL 2's ``dxg``, through which CUDA reaches the
#: Windows driver (its libraries lie in ``/usr/lib/wsl``, under the bound ``/usr``). The sandbox's fresh
#: ``/dev`` has none of them:
#: without them bound back in, ``torch.cuda.is_available()`` is False inside and every CUDA check is
#: deferred.
GPU_DEVICES = (
    "nvidia[0-9]*",
    "nvidiactl",
    "nvidia-uvm",
    "nvidia-uvm-tools",
    "nvidia-modeset",
    "nvidia-caps",
    "kfd",
    "dxg",
)
#: Bound only beside one of :data:`GPU_DEVICES` (ROCm needs its render nodes; a CPU machine's integrated
#: graphics alone must not make it a GPU host).
GPU_RENDER_NODES = "dri"
#: Variables of the judge's environment the worker keeps: an admin's choice of GPU or MIG slice
#: (``CUDA_VISIBLE_DEVICES``, and ``NVIDIA_VISIBLE_DEVICES`` of the container runtimes), their order,
#: the library path through which containers find ``libcuda``, two OpenBLAS settings some CPUs need, and
#: the two Windows folders without which Python cannot start there (none of them is set on Linux).
KEPT_ENV = (
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "NVIDIA_VISIBLE_DEVICES",
    "LD_LIBRARY_PATH",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "SYSTEMROOT",
    "WINDIR",
)


@dataclass(frozen=True)
class Limits:
    """Per-worker limits: address space and largest file in bytes, CPU seconds of the worker's tree for
    each file it grades (a backstop, enforced by the judge: module docstring), and the seconds a worker has
    to start and each request has beyond its check's own time limit."""

    memory_bytes: int = 8 * GiB
    file_bytes: int = 64 * MiB
    cpu_s: int = 3600
    grace_s: float = 15.0
    startup_s: float = 60.0

    def __post_init__(self) -> None:
        for name in ("memory_bytes", "file_bytes", "cpu_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive int, got {value!r}")
        for name in ("grace_s", "startup_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"Limits.{name} must be a positive number of seconds, got {value!r}")


def default_memory_bytes(jobs: int) -> int:
    """8 GiB, or the machine's memory shared among ``jobs`` parallel workers when that is less."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * GiB
    return int(min(8 * GiB, max(2 * GiB, total // max(1, jobs))))


#: ``python -I -c LAUNCHER memory cpu|- fsize AS|DATA CGROUP_PROCS|- -- command...``: sets the limits and the
#: parent-death signal, joins the tree's cgroup (``-``: none), then execs the command. ``cpu`` is ``-``
#: (no ``RLIMIT_CPU``) wherever the judge limits the CPU time itself (module docstring: the rlimit coarsens
#: ``time.process_time()``). (A launcher rather than ``preexec_fn``, which is unsafe in a parent with
#: threads: batch grading runs its judges in a thread pool.)
LAUNCHER = """
import ctypes, os, resource, signal, sys
memory = getattr(resource, "RLIMIT_" + sys.argv[4], None)
limits = [(memory, int(sys.argv[1])), (resource.RLIMIT_FSIZE, int(sys.argv[3])), (resource.RLIMIT_CORE, 0)]
if sys.argv[2] != "-":
    limits.append((resource.RLIMIT_CPU, int(sys.argv[2])))
for limit, value in limits:
    if limit is None:
        continue
    try:
        resource.setrlimit(limit, (value, value + 5 if limit == resource.RLIMIT_CPU else value))
    except (ValueError, OSError):
        pass
try:
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)
except (OSError, AttributeError):
    pass
if sys.argv[5] != "-":  # the tree's cgroup: joined before anything of the worker runs
    try:
        with open(sys.argv[5], "w") as fh:
            fh.write(str(os.getpid()))
    except OSError:
        pass
os.execv(sys.argv[7], sys.argv[7:])
"""


def memory_rlimit(cuda: bool) -> str:
    """The rlimit that caps a worker's memory: ``"AS"`` (address space), or ``"DATA"`` for a CUDA worker.

    Why not the address space there: a CUDA context reserves address space for unified addressing far
    beyond the GPU's and the host's memory (tens to hundreds of GiB, ``PROT_NONE``), so an 8 GiB
    ``RLIMIT_AS`` makes ``cuInit`` fail and every CUDA check is deferred. ``RLIMIT_DATA`` (Linux 4.7 and
    later) counts only the writable private mappings and the heap: the host memory a submission can fill,
    which is what the cap is for, and not those reservations. A cgroup's ``memory.max`` would also
    count the page cache and needs a delegated cgroup, which a course's machine seldom gives.
    """
    return "DATA" if cuda else "AS"


def launcher(
    python: str, limits: Limits, cuda: bool | None = None, cgroup_procs: str | None = None
) -> list[str]:
    """The command prefix that applies ``limits`` (the CPU time's only where the judge cannot, see
    :data:`LAUNCHER`), joins the cgroup whose ``cgroup.procs`` is
    ``cgroup_procs`` (:mod:`grader.sandbox.cgroup`; none: no group), then execs what follows; none where
    the OS has no rlimits (Windows: the time limits come from the judge alone). ``cuda``: whether the worker
    may start CUDA (see :func:`memory_rlimit`); by default, whether this machine has GPU device files."""
    if not HAS_RLIMITS:
        return []
    if cuda is None:
        cuda = bool(gpu_devices())
    return [
        python,
        "-I",
        "-c",
        LAUNCHER,
        str(limits.memory_bytes),
        "-" if cputime.READS_TREES else str(limits.cpu_s),
        str(limits.file_bytes),
        memory_rlimit(cuda),
        cgroup_procs or "-",
        "--",
    ]


# ---------------------------------------------------------------------------------------------------
# bubblewrap


def _real(path: str) -> str:
    return os.path.realpath(path)


def under(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or inside it (after resolving links)."""
    path, root = _real(path), _real(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def outermost(paths: Iterable[str]) -> list[str]:
    """The paths not inside another one of them, resolved and sorted."""
    kept: list[str] = []
    for p in sorted({_real(p) for p in paths}):
        if not any(under(p, k) for k in kept):
            kept.append(p)
    return kept


def kit_packages(names: tuple[str, ...] | None = None) -> list[str]:
    """The folders of the kit's packages (``grader``, ``perfcore``) and a ``solutions`` beside them; only
    those in ``names`` when given."""
    found = []
    for folder in (GRADER_DIR, os.path.join(os.path.dirname(GRADER_DIR), "perfcore")):
        if os.path.isdir(folder):
            found.append(folder)
            sibling = os.path.join(os.path.dirname(folder), "solutions")
            if os.path.isdir(sibling):
                found.append(sibling)
    return sorted({f for f in found if names is None or os.path.basename(f) in names})


#: Folders of ``sys.path`` outside the interpreter's prefixes that the worker still needs: where packages
#: are installed (a distribution's ``dist-packages``, a ``.pth`` file's ``site-packages``).
PACKAGE_DIRS = ("site-packages", "dist-packages")


def interpreter_paths(python: str = sys.executable) -> list[str]:
    """What the interpreter needs: its prefixes, and the folders of ``sys.path`` inside them or named
    :data:`PACKAGE_DIRS` (the standard library, site-packages), less the kit's own checkout. Never any
    other folder of ``sys.path``: ``python -m`` puts the working folder there, and pytest its rootdir, and
    a batch run started in ``/tmp`` would show every student's copy beside the worker's to each student."""
    kit_roots = {os.path.dirname(p) for p in kit_packages()}
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.dirname(_real(python)))}
    paths = {*prefixes, os.path.dirname(_real(python))}
    for entry in sys.path:
        if not entry or not os.path.isdir(entry) or _real(entry) in kit_roots:
            continue
        if any(under(entry, p) for p in prefixes) or os.path.basename(_real(entry)) in PACKAGE_DIRS:
            paths.add(entry)
    return [p for p in outermost(paths) if os.path.isdir(p) and p != "/"]


def gpu_devices(dev: str = "/dev") -> list[tuple[str, str]]:
    """``(source, name inside the sandbox)`` of each GPU device file (:data:`GPU_DEVICES`) under ``dev``;
    the name is always under ``/dev`` (tests pass a folder of fake device files)."""
    if not isinstance(dev, str) or not dev:
        raise ValueError(f"dev must be the path of a /dev folder, got {dev!r}")
    found: set[str] = set()
    for pattern in GPU_DEVICES:
        found.update(glob.glob(os.path.join(glob.escape(dev), pattern)))
    render = os.path.join(dev, GPU_RENDER_NODES)
    if found and os.path.exists(render):
        found.add(render)
    return [(path, "/dev/" + os.path.basename(path)) for path in sorted(found)]


def library_dirs(env: dict[str, str] | None = None) -> list[str]:
    """The existing folders of ``LD_LIBRARY_PATH`` (in ``env``, else this process's environment)."""
    value = (os.environ if env is None else env).get("LD_LIBRARY_PATH", "")
    return [p for p in value.split(os.pathsep) if p and os.path.isabs(p) and os.path.isdir(p)]


def proc_covers(proc: str = "/proc") -> list[str]:
    """bwrap arguments that make :data:`PROC_READONLY` read-only and hide :data:`PROC_MASKED` in the
    sandbox's fresh ``/proc``, for those of them this kernel has (``proc``: where to look; tests pass a
    fake one)."""
    cmd: list[str] = []
    for name in PROC_READONLY:
        if os.path.exists(os.path.join(proc, name)):
            cmd += ["--ro-bind", f"/proc/{name}", f"/proc/{name}"]
    for name in PROC_MASKED:
        path = os.path.join(proc, name)
        if os.path.isdir(path):
            cmd += ["--tmpfs", f"/proc/{name}", "--remount-ro", f"/proc/{name}"]
        elif os.path.exists(path):
            cmd += ["--ro-bind", "/dev/null", f"/proc/{name}"]
    return cmd


def bwrap_command(
    bwrap: str,
    folder: str,
    runtime: str,
    *,
    readonly: Iterable[str] = (),
    allow: Iterable[str] = (),
    devices: Iterable[tuple[str, str]] | None = None,
) -> list[str]:
    """The bwrap prefix for a worker in ``folder`` with its files in ``runtime`` (module docstring).

    ``allow`` names kit packages (``perfcore``) a course lets graded code import: they are shown,
    read-only, instead of covered. ``devices``: the GPU device files to bind, as :func:`gpu_devices` gives
    them (by default, this machine's).
    """
    gpus = gpu_devices() if devices is None else list(devices)
    allowed = {os.path.realpath(p) for p in kit_packages(tuple(allow))}
    cmd = [bwrap]
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            cmd += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            cmd += ["--ro-bind", path, path]
    for name in ETC_FILES:
        path = os.path.join("/etc", name)
        if os.path.exists(path):
            cmd += ["--ro-bind", path, path]
    cmd += ["--proc", "/proc", *proc_covers(), "--dev", "/dev"]
    for source, target in gpus:  # after --dev: the binds land in the fresh /dev
        cmd += ["--dev-bind", source, target]
    # /dev itself is a tmpfs bwrap makes with no size: read-only, with a sized /dev/shm as the only place
    # to write there (the device files stay writable: a read-only mount does not stop writes to devices)
    cmd += ["--size", str(SANDBOX_SHM_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    cmd += ["--size", str(SANDBOX_TMP_BYTES), "--tmpfs", "/tmp"]
    if gpus and os.path.isdir("/sys"):  # the driver library reads the PCI topology and NUMA nodes there
        cmd += ["--ro-bind", "/sys", "/sys"]
    bound = [p for p in interpreter_paths() if not any(under(p, s) for s in SYSTEM_DIRS)]
    # where a container's libcuda is found through the library path (/usr/local/nvidia/lib64, ...)
    bound += [p for p in outermost(library_dirs()) if not any(under(p, b) for b in [*bound, *SYSTEM_DIRS])]
    for path in bound:
        cmd += ["--ro-bind", path, path]
    for path in kit_packages():  # an installed kit inside a bound site-packages: cover it
        visible = any(under(path, b) for b in [*bound, *SYSTEM_DIRS])
        if path in allowed and not visible:
            cmd += ["--ro-bind", path, path]
        elif path not in allowed and visible:
            cmd += ["--tmpfs", path]
    for path in readonly:
        if os.path.isdir(path):
            cmd += ["--ro-bind", path, path]
    cmd += ["--ro-bind", runtime, runtime, "--ro-bind", folder, folder]
    cmd += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    cmd += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", folder]
    return [*cmd, "--"]


@functools.cache
def find_bwrap() -> tuple[str | None, str]:
    """``(path to a working bwrap, "")`` or ``(None, why not)``: missing, or failing a probe run.

    ``PERFKIT_NO_BWRAP=1`` turns it off (to test the path without it, or where a course chooses so).
    """
    if os.environ.get("PERFKIT_NO_BWRAP"):
        return None, "bubblewrap is turned off (PERFKIT_NO_BWRAP)"
    if not sys.platform.startswith("linux"):
        return None, f"bubblewrap is Linux-only (this is {sys.platform})"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, "bubblewrap (bwrap) is not installed"
    with tempfile.TemporaryDirectory(prefix="perfkit-bwrap-probe-") as folder:
        cmd = [*bwrap_command(bwrap, folder, folder), sys.executable, "-I", "-c", "import os"]
        try:
            result = subprocess.run(cmd, capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, f"bubblewrap does not start here: {exc}"
    if result.returncode != 0:
        err = result.stderr.decode("utf-8", "replace").strip()
        return None, f"bubblewrap does not work here: {err or f'exit status {result.returncode}'}"
    return bwrap, ""


# ---------------------------------------------------------------------------------------------------
# the worker's files, environment and exit status


#: The runtime folders made and not yet removed: what :func:`remove_runtimes` removes at the judge's exit.
_runtimes: set[str] = set()
_runtimes_lock = threading.Lock()
#: Whether this process has removed the worker folders of killed runs (once, at its first worker).
_orphans_removed = False


def runtime_dir() -> str:
    """A new private folder holding copies of the worker's files (``messages.WORKER_FILES``, the only kit code
    the worker sees), for one worker: whoever starts the worker removes it when the worker ends (:func:`remove_runtime`), and
    whatever is left when this process exits goes then (:func:`remove_runtimes`), so that grading leaves
    no folder in the temporary directory, interrupted or not."""
    global _orphans_removed
    with _runtimes_lock:
        if not _orphans_removed:  # once a process: what a killed run left (its owner gone) goes now
            _orphans_removed = True
            for prefix in scratch.WORKER_PREFIXES:
                scratch.remove_orphans(prefix)
    folder = str(scratch.make_owned("perfkit-worker-"))
    with _runtimes_lock:
        _runtimes.add(folder)
    here = Path(__file__).resolve().parent
    for name in messages.WORKER_FILES:
        shutil.copyfile(here / name, Path(folder) / name)
    os.chmod(folder, 0o755)
    return folder


def remove_runtime(folder: str) -> None:
    """Remove a folder :func:`runtime_dir` made (its worker has ended)."""
    shutil.rmtree(folder, ignore_errors=True)
    with _runtimes_lock:
        _runtimes.discard(folder)


@atexit.register
def remove_runtimes() -> None:
    """Remove every runtime folder still there: a judge that was never closed leaves none behind."""
    for folder in list(_runtimes):
        remove_runtime(folder)


#: One thread for OpenMP and the BLAS libraries, whose idle threads otherwise spin: on the one core a
#: measurement pins the worker and the reference to, a spinning thread doubles a microsecond figure.
ONE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_WAIT_POLICY": "PASSIVE",
}


def worker_env(home: str) -> dict[str, str]:
    """The worker's environment: no variable of the judge's beyond these and :data:`KEPT_ENV`. Every
    experiment of the lecture runs on one core, and the formula exercises need no threads: one thread
    (:data:`ONE_THREAD`)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": home,
        "TMPDIR": home,
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": home,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    for name in KEPT_ENV:
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(ONE_THREAD)
    return env


def describe_exit(returncode: int, sandboxed: bool) -> tuple[str, str]:
    """``(kind, detail)`` of a worker's exit status: exit, cpu, memory, output or signal (wire kinds).

    bwrap reports a worker killed by signal N as exit status 128 + N.
    """
    if sandboxed and returncode > 128:
        returncode = 128 - returncode
    if returncode == messages.EXIT_MEMORY:
        return "memory", ""
    if returncode < 0:
        sig = -returncode
        if sig == getattr(signal, "SIGXCPU", None):
            return "cpu", ""
        if sig == getattr(signal, "SIGXFSZ", None):
            return "output", ""
        try:
            return "signal", signal.Signals(sig).name
        except ValueError:
            return "signal", str(sig)
    return "exit", str(returncode)


def kill_tree(proc: subprocess.Popen[bytes], known: Iterable[tuple[int, int]] = ()) -> None:
    """Kill ``proc``, its process group and every process below it, or seen below it before (``known``:
    identities, :func:`grader.sandbox.proctree.identity`), wait for it, and collect what it leaves
    (:func:`grader.sandbox.reaping.collect`)."""
    tree = identities(descendants(proc.pid)) | set(known)
    reaping.expect(tree)
    if HAS_PROCESS_GROUPS:
        try:
            os.killpg(proc.pid, KILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass
    elif sys.platform == "win32":  # no process groups: the tree, by Windows' own tool
        try:
            subprocess.run(
                ["taskkill", "/F", "/T", "/PID", str(proc.pid)], capture_output=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    reaping.kill_all(pid for pid, start in tree if identity(pid) == (pid, start))
    proc.wait()
    reaping.ended(proc.pid)
    reaping.collect(tree)
