"""Submissions that reach past what the sandbox shows them: the kernel, and bytecode that is not their
source (graded by tests/grader/sandbox/test_sandbox.py).

A worker may run as root (a Gradescope container, an instructor's root shell): without capabilities it
still owns what root owns. The red-team student wrote ``/proc/sys/kernel/core_pattern`` from inside
bubblewrap, crashed a child, and the kernel ran the student's script as root outside the sandbox (it
rewrote grades.csv after the grader exited). Another filled bwrap's ``/dev``, a tmpfs of half the
machine's memory that no resource limit counts.

The probe below only tries what cannot harm the machine it runs on: it writes a setting's own value back,
asks ``access`` about the others, and fills ``/dev/shm`` past the sandbox's size. Whatever it manages
goes into the exception of ``answer_1a``, so the test's message names each thing the sandbox let through.
"""

from __future__ import annotations

from pathlib import Path

#: Appended to exercise 1's solution: ``answer_1a`` raises, listing what got through; returns the
#: solution's answer where nothing did.
KERNEL_PROBE = """
import os as _os

def _got_through():
    found = []
    try:
        with open("/proc/sys/vm/swappiness", "r+") as fh:  # its own value, written back
            value = fh.read()
            fh.seek(0)
            fh.write(value)
            fh.flush()
        found.append("wrote /proc/sys/vm/swappiness")
    except OSError:
        pass
    for path in ("/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger", "/proc/sys/kernel/modprobe"):
        if _os.path.exists(path) and _os.access(path, _os.W_OK):
            found.append("may write " + path)
    try:
        open("/dev/perfkit-planted", "w").close()
        found.append("created /dev/perfkit-planted")
    except OSError:
        pass
    try:
        with open("/dev/shm/perfkit-fill", "wb") as fh:
            chunk = bytes(1 << 20)
            for _ in range(200):
                fh.write(chunk)
            fh.flush()
        found.append("wrote 200 MiB to /dev/shm")
    except OSError:
        pass
    finally:
        try:
            _os.remove("/dev/shm/perfkit-fill")
        except OSError:
            pass
    return found

_solved = answer_1a

def answer_1a():
    found = _got_through()
    if found:
        raise PermissionError("the sandbox let through: " + "; ".join(found))
    return _solved()
"""


def bytecode_folder(folder: Path, solution: Path, stub: Path) -> None:
    """Exercise 1 handed in as the untouched stub, with the solution compiled beside it twice over: as the
    stub's own ``__pycache__`` entry with an unchecked hash (Python loads it whatever the ``.py`` says,
    and a reader of the ``.py`` sees a stub), and as a sourceless ``helper.pyc`` the stub imports."""
    import py_compile
    import sys

    folder.mkdir(parents=True)
    target = folder / solution.name
    target.write_text(
        stub.read_text(encoding="utf-8")
        + "\ntry:\n    from helper import *  # noqa\nexcept ImportError:\n    pass\n",
        encoding="utf-8",
    )
    cache = folder / "__pycache__" / f"{solution.stem}.{sys.implementation.cache_tag}.pyc"
    unchecked = py_compile.PycInvalidationMode.UNCHECKED_HASH
    py_compile.compile(str(solution), cfile=str(cache), invalidation_mode=unchecked, doraise=True)
    py_compile.compile(str(solution), cfile=str(folder / "helper.pyc"), doraise=True)
