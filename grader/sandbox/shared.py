"""Buffers the judge hands the student's measuring function: memory both processes share, so that the judge
reads the result of the work it timed in the very pages the student's code wrote.

The judge (:class:`Shared`) makes each buffer in memory only: a ``memfd`` on Linux, an unlinked temporary
file elsewhere, never a name another process could open. It fills it by ``pwrite`` before the call and reads
it after (:meth:`Shared.contents`). The worker gets the descriptor with the request, over its Unix socket
(``SCM_RIGHTS``, :mod:`grader.sandbox.channel`), maps it (:func:`opened`) and passes the student's function a numpy array or a torch tensor
over those pages; where descriptors cannot pass (Windows, where there is no sandbox either) the request names
the file instead.

A descriptor in the worker is one the student's code can use: ``ftruncate`` it to nothing, and every mapping
of the file past its new end kills the process that reads there (SIGBUS), the judge's included, and with it
every other student's grades in the batch. So the memfd is sealed (``F_SEAL_SHRINK | F_SEAL_GROW |
F_SEAL_SEAL``) as soon as it is sized, before anything is written or sent: nobody can change its size, nor
add a seal of their own (``F_SEAL_WRITE``, ``F_SEAL_FUTURE_WRITE``), and the judge reads it through a
mapping of its own, without a copy. Where it cannot be sealed (no memfd, a kernel without seals, or
:data:`SEALS` off) the judge maps nothing: it reads by ``pread`` into memory of its own, the size checked
before every slice, and a buffer whose size changed is the student's (:class:`Resized`), never the judge's
crash.

The judge's request names the buffers it hands by a typed parameter, :class:`Buffers` (what the request says
of each, :class:`Entry`, and their descriptors), from ``Judge.call`` down to ``WorkerProcess.ask``; there the
request's line carries ``"handed": [{"name", "dtype", "shape", "library"[, "path"]}, ...]`` and, in the same
``sendmsg``, one descriptor per entry, in order (:mod:`grader.sandbox.channel` carries them). The
descriptors never go in the line.

Like :mod:`grader.sandbox.wire` this module is copied beside the worker and imports only the standard
library at import time (numpy and torch where the worker has them loaded, or the judge asks).
"""

from __future__ import annotations

import contextlib
import io
import math
import mmap
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypedDict

try:
    import fcntl
except ImportError:  # Windows: no seals, and no descriptors to seal either
    fcntl = None  # type: ignore[assignment]

#: The libraries a buffer can be handed as, and the dtypes.
LIBRARIES = ("numpy", "torch")
DTYPES = ("float32", "float64", "int32", "int64", "uint8")
#: Whether the judge seals the size of its memfds (:class:`Shared`; its ``seal`` turns it off for one
#: class of buffers). Tests turn it off to run the unsealed path on Linux: the memfds are then made
#: sealable but left unsealed, the worst a kernel refusing seals leaves (the student's code can cut, grow
#: and seal them).
SEALS = True
#: The seals: no shrinking, no growing, no seal added after these (a student's F_SEAL_WRITE or
#: F_SEAL_FUTURE_WRITE fails). Writing stays allowed: the student's code writes its results there.
SEALED = (
    getattr(fcntl, "F_SEAL_SHRINK", 0x2)
    | getattr(fcntl, "F_SEAL_GROW", 0x4)
    | getattr(fcntl, "F_SEAL_SEAL", 0x1)
)
#: Bytes read by one ``pread`` of an unsealed buffer (:meth:`Shared.contents`).
READ = 1 << 26


class _Named(TypedDict):
    name: str
    dtype: str
    shape: list[int]
    library: str


class Entry(_Named, total=False):
    """What a request says of one buffer it hands (:meth:`Shared.entry`, read by :func:`opened`): its name
    (the student's argument), dtype, shape and library, ``path`` where it goes by a file's path, and
    ``tally``: the flat places of an accumulator the worker reads with every clock reading (:func:`tallied`)."""

    path: str
    tally: list[int]


@dataclass(frozen=True)
class Buffers:
    """The buffers one request hands the worker: what the request says of each (:attr:`entries`) and, in
    the same order, their descriptors (:attr:`fds`; none where they go by a file's path). The judge's road
    for them, from ``Judge.call`` to ``WorkerProcess.ask``, is this one typed parameter."""

    entries: tuple[Entry, ...]
    fds: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.fds and len(self.fds) != len(self.entries):
            raise ValueError(
                f"fds must be one descriptor per entry ({len(self.entries)}) or none, got {len(self.fds)}"
            )
        if not self.fds and any("path" not in entry for entry in self.entries):
            raise ValueError("fds may be empty only where every entry goes by its path")

    @classmethod
    def of(cls, buffers: Iterable[Shared]) -> Buffers:
        """The entries of ``buffers`` and, unless they go by a file's path, their descriptors."""
        handed = tuple(buffers)
        entries = tuple(one.entry() for one in handed)
        by_path = any("path" in entry for entry in entries)
        return cls(entries, () if by_path else tuple(one.fd for one in handed))


class Resized(Exception):
    """A handed buffer whose file is no longer the size the judge made it: the student's code (or a thread
    it left running) truncated or grew it. ``size`` is what it is now, ``expected`` what it was made."""

    def __init__(self, name: str, size: int, expected: int) -> None:
        super().__init__(f"the buffer {name} is {size} bytes, not {expected}")
        self.name, self.size, self.expected = name, size, expected


def _seal(fd: int) -> bool:
    """Seal ``fd``'s size for good (:data:`SEALED`); whether it holds them all now."""
    if fcntl is None or not hasattr(fcntl, "F_ADD_SEALS"):
        return False
    try:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, SEALED)
        return fcntl.fcntl(fd, fcntl.F_GET_SEALS) & SEALED == SEALED
    except OSError:  # a kernel or file system without seals: the judge reads by pread instead
        return False


def _at(fd: int, offset: int, view: memoryview, write: bool) -> int:
    """One ``pread``/``pwrite`` of ``view`` at ``offset`` (by seek where the system has neither); the bytes
    moved (fewer where the file ends first)."""
    if hasattr(os, "preadv"):
        return os.pwritev(fd, [view], offset) if write else os.preadv(fd, [view], offset)
    os.lseek(fd, offset, os.SEEK_SET)
    with io.FileIO(fd, "r+" if write else "r", closefd=False) as fh:
        return (fh.write(view) if write else fh.readinto(view)) or 0


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _memfd(name: str) -> int:
    """A memfd that can be sealed, or a plain one where the kernel cannot seal."""
    flags = getattr(os, "MFD_CLOEXEC", 0)
    try:
        return os.memfd_create(name, flags | getattr(os, "MFD_ALLOW_SEALING", 0))
    except OSError:
        return os.memfd_create(name, flags)


def opened(entries: list[Entry], fds: list[int]) -> dict[str, Any]:
    """The worker's side: ``{name: array or tensor}`` over the buffers of a request's ``handed`` entries
    (descriptor ``fds[i]`` for entry ``i``, or its ``path``). The descriptors are closed here: the mappings
    hold the pages."""
    import numpy as np  # deferred on purpose: stdlib only at import, in the worker before any student code

    arguments: dict[str, Any] = {}
    try:
        for index, entry in enumerate(entries):
            dtype = np.dtype(str(entry["dtype"]))
            shape = tuple(int(n) for n in entry["shape"])
            size = dtype.itemsize * math.prod(shape)
            if "path" in entry:
                with open(str(entry["path"]), "r+b") as fh:
                    mapped = mmap.mmap(fh.fileno(), max(size, 1))
            else:
                mapped = mmap.mmap(fds[index], max(size, 1))
            array: Any = np.frombuffer(mapped, dtype=dtype, count=math.prod(shape)).reshape(shape)
            if entry.get("library") == "torch":
                import torch  # deferred on purpose: only for a buffer handed as a tensor

                array = torch.from_numpy(array)
            arguments[str(entry["name"])] = array
    finally:
        _close_all(fds)
    return arguments


#: The most places of an accumulator a request may ask the worker to read with each clock reading.
MAX_TALLY = 64


def tallied(entries: list[Entry], arguments: dict[str, Any]) -> tuple[Any, tuple[int, ...]] | None:
    """The worker's side of an accumulator's tally: the flat elements of the buffer whose entry names
    ``tally`` (over the pages :func:`opened` mapped, not the student's argument, which its code may rebind)
    and those places, for :attr:`grader.sandbox.clocks.Noting.tally`; None where no entry asks for one.
    ValueError where the entry's places are not places of its buffer."""
    for entry in entries:
        places = entry.get("tally")
        if not places:
            continue
        elements = arguments[str(entry["name"])]
        if hasattr(elements, "numpy"):  # a tensor over the mapping: its numpy view, the same pages
            elements = elements.numpy()
        flat = memoryview(elements.reshape(-1))
        if (
            not isinstance(places, list)
            or len(places) > MAX_TALLY
            or not all(isinstance(i, int) and 0 <= i < len(flat) for i in places)
        ):
            raise ValueError(f"tally must be at most {MAX_TALLY} places of {entry['name']}, got {places!r}")
        return flat, tuple(places)
    return None


class Shared:
    """The judge's side of one handed buffer: ``shape`` of ``dtype`` in memory only, filled before the call
    (:meth:`write`) and read after it (:meth:`contents`). ``by_path``: for a worker whose channel passes no
    descriptors, a file named in the request instead. :attr:`sealed`: whether its size is sealed (a memfd
    where the kernel seals); an unsealed buffer is never mapped by the judge, only read by ``pread``,
    :attr:`read` bytes at a time."""

    #: Whether the size is sealed where the kernel seals (and :data:`SEALS` allows): a test's subclass turns
    #: it off to run the unsealed path for its own buffers only.
    seal = True

    def __init__(
        self, name: str, shape: tuple[int, ...], dtype: str, library: str, by_path: bool = False
    ) -> None:
        import numpy as np  # deferred on purpose: stdlib only at import (the worker loads this module)

        if library not in LIBRARIES:
            raise ValueError(f"library must be one of {LIBRARIES}, got {library!r}")
        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
        self.name, self.shape, self.dtype, self.library = name, tuple(shape), dtype, library
        self.count = math.prod(self.shape)
        self.itemsize = np.dtype(dtype).itemsize
        #: The file's size, for good where sealed: at least one byte (no mapping is empty).
        self.size = max(1, self.itemsize * self.count)
        self.path: str | None = None
        #: The places of an accumulator the worker reads with each clock reading (the judge's witness
        #: draws them, :mod:`grader.judge.runners.witness`); empty: none.
        self.tally: tuple[int, ...] = ()
        #: Bytes read by one ``pread`` of an unsealed buffer (:meth:`contents`; a test may set fewer).
        self.read = READ
        self._map: mmap.mmap | None = None
        if hasattr(os, "memfd_create") and not by_path:
            self.fd = _memfd(f"perfkit-{name}")
        else:  # a file of the judge's temporary folder, by its path only where no descriptor can pass
            handle, path = tempfile.mkstemp(prefix="perfkit-handed-")
            self.fd = handle
            if by_path:
                self.path = path
            else:
                os.unlink(path)  # the descriptor is all the worker needs
        os.ftruncate(self.fd, self.size)
        # sealed before anything is written or sent: from the first byte the worker sees, no process can
        # cut the file under a mapping of it (the judge's or the student's own)
        self.sealed = SEALS and self.seal and _seal(self.fd)

    def write(self, start: int, values: Any) -> None:
        """Write ``values`` (numbers of this buffer's dtype, flat) from element ``start`` on, by ``pwrite``:
        the judge fills its buffers before the call, through no mapping."""
        import numpy as np  # deferred on purpose: stdlib only at import (the worker loads this module)

        data = np.ascontiguousarray(values, dtype=self.dtype).reshape(-1)
        if start < 0 or start + data.size > self.count:
            raise ValueError(f"start must keep {data.size} values within {self.count}, got {start}")
        view, offset = data.data.cast("B"), start * self.itemsize
        while len(view):
            moved = _at(self.fd, offset, view, write=True)
            if moved <= 0:
                raise OSError(f"could not write the buffer {self.name} at byte {offset}")
            view, offset = view[moved:], offset + moved

    def _sized(self) -> None:
        """Raise :class:`Resized` unless the file is still the size it was made."""
        size = os.fstat(self.fd).st_size
        if size != self.size:
            raise Resized(self.name, size, self.size)

    def contents(self) -> Any:
        """The buffer now, a numpy array of :attr:`shape`; raises :class:`Resized` where its size changed.

        Sealed, it is a read-only view of the judge's own mapping, made now: the size cannot change, so the
        pages stay readable, and no copy is made. Unsealed, the student's code (or a thread it left running)
        can cut the file at any moment, and a mapping past a file's end kills the process that reads it
        (SIGBUS): the numbers are read by ``pread`` into memory of the judge's own, one slice at a time, the
        size checked before each slice."""
        import numpy as np  # deferred on purpose: stdlib only at import (the worker loads this module)

        self._sized()
        if self.sealed:
            if self._map is None:
                self._map = mmap.mmap(self.fd, self.size, access=mmap.ACCESS_READ)
            return np.frombuffer(self._map, dtype=self.dtype, count=self.count).reshape(self.shape)
        out = np.empty(self.count, dtype=self.dtype)
        view, offset = out.data.cast("B"), 0
        while offset < len(view):
            self._sized()
            moved = _at(self.fd, offset, view[offset : offset + self.read], write=False)
            if moved <= 0:  # cut between the check and the read
                raise Resized(self.name, os.fstat(self.fd).st_size, self.size)
            offset += moved
        return out.reshape(self.shape)

    def entry(self) -> Entry:
        """What the request says of this buffer (:func:`opened` reads it)."""
        entry: Entry = {
            "name": self.name,
            "dtype": self.dtype,
            "shape": list(self.shape),
            "library": self.library,
        }
        if self.path is not None:
            entry["path"] = self.path
        if self.tally:
            entry["tally"] = list(self.tally)
        return entry

    def close(self) -> None:
        """Unmap and close; the memory goes once the worker's mapping goes too."""
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:  # a view of the contents is still held somewhere: the collector unmaps it
                pass
            self._map = None
        _close_all([self.fd])
        if self.path is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            self.path = None
