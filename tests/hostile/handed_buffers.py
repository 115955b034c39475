"""The hostile submissions of tests/hostile/test_handed_buffers.py: m3's measuring functions turned on the
buffers the judge hands them (issue 37, point 1).

The worker holds a descriptor of every buffer it maps (Python's mmap keeps a duplicate of each), listed in
``/proc/self/fd`` as ``/memfd:perfkit-...``. Before the buffers were sealed, a call that cut those files to
nothing left the judge's own mapping of them past their end: the judge died of SIGBUS reading the result,
taking every student's grades of the batch with it. Each submission here attacks them one way, and
transposes nothing (it returns a made-up time at once): whatever the attack does, the judge must survive it
and find no result in ``dst``. Each file holds only m3's two measuring functions, so the exercise's other
check costs nothing to grade (a missing function is not attempted).
"""

from __future__ import annotations

#: Finding the handed buffers' descriptors, and the three ways to turn them against their reader.
TOOLS = """
import fcntl, os, threading, time

def _memfds():
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink("/proc/self/fd/" + name).startswith("/memfd:"):
                found.append(int(name))
        except OSError:
            pass
    return found

def _cut(size):
    # every handed buffer cut to ``size`` bytes, or grown by a page where ``size`` is negative (fourfold, m3c's
    # 16-36 MiB matrices at n >= 2048 passed the worker's 64 MiB file-size limit: the growth was refused, and
    # the judge rightly found only the missing result)
    for fd in _memfds():
        try:
            os.ftruncate(fd, size if size >= 0 else os.fstat(fd).st_size + 4096)
        except OSError:
            pass

def _seal():
    # seals of the student's own: no more writes (dst stays as handed), no more seals
    for fd in _memfds():
        for seal in (0x10, 0x8, 0x1):  # F_SEAL_FUTURE_WRITE, F_SEAL_WRITE, F_SEAL_SEAL
            try:
                fcntl.fcntl(fd, 1033, seal)  # F_ADD_SEALS
            except OSError:
                pass
"""


def _at_once(attack: str) -> str:
    """m3's measuring functions, each doing ``attack`` to its buffers and returning a made-up figure."""
    return (
        TOOLS
        + f"""
def transpose_time(src, dst, tile, method):
    {attack}
    return 1e-3

def transpose_speedup(src, dst, tile):
    {attack}
    return 1.5
"""
    )


#: A thread started by the first call: some 20 ms after each call returned (and so during the judge's read
#: of it, or the next call), it cuts every buffer and reads the ones it kept, which kills its own worker with
#: SIGBUS wherever a cut goes through.
HAUNTED = (
    TOOLS
    + """
_kept, _thread = [], []

def _haunt():
    while True:
        time.sleep(0.02)
        _cut(0)
        for array in list(_kept):
            float(array.sum())

def _leave_a_thread(src, dst):
    _kept[:] = [src, dst]
    if not _thread:
        _thread.append(threading.Thread(target=_haunt, daemon=True))
        _thread[0].start()

def transpose_time(src, dst, tile, method):
    _leave_a_thread(src, dst)
    return 1e-3

def transpose_speedup(src, dst, tile):
    _leave_a_thread(src, dst)
    return 1.5
"""
)

#: {student: m3_transpose.py}: one way each.
CUTTERS = {
    "buffers_truncated": _at_once("_cut(0)"),
    "buffers_grown": _at_once("_cut(-1)"),
    "buffers_sealed": _at_once("_seal()"),
    "buffers_cut_by_a_thread": HAUNTED,
}
#: m3's checks that hand buffers: none may pass, none may be the grader's error.
HANDED_CHECKS = ("transpose_time_naive", "transpose_time_tiled", "transpose_speedup")
