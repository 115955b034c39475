"""Buffers the judge hands the student's measuring function: memory both processes map, so that the judge
reads the result of the work it timed in the very pages the student's code wrote.

The judge (:class:`Shared`) makes each buffer in memory only: a ``memfd`` on Linux, an unlinked temporary
file elsewhere, never a name another process could open. It fills and reads it through its own mapping. The
worker gets the descriptor with the request, over its Unix socket (``SCM_RIGHTS``), maps it
(:func:`opened`) and passes the student's function a numpy array or a torch tensor over those pages; where
descriptors cannot pass (Windows, where there is no sandbox either) the request names the file instead.

A request that hands buffers carries ``"handed": [{"name", "dtype", "shape", "library"[, "path"]}, ...]``
and, in the same ``sendmsg``, one descriptor per entry, in order; the worker's line reader (:class:`Lines`)
keeps the descriptors that came with the bytes it read, and the template process passes them on to the
file's process with the line.

Like :mod:`grader.sandbox.wire` this module is copied beside the worker and imports only the standard
library at import time (numpy and torch where the worker has them loaded, or the judge asks).
"""

from __future__ import annotations

import math
import mmap
import os
import socket
import sys
import tempfile
from typing import Any

#: Most descriptors one request carries (a measurement hands at most a few buffers).
MAX_FDS = 16
#: Whether descriptors can pass on this system's sockets.
PASSES_FDS = hasattr(socket, "send_fds") and hasattr(socket, "AF_UNIX")
#: The libraries a buffer can be handed as, and the dtypes.
LIBRARIES = ("numpy", "torch")
DTYPES = ("float32", "float64", "int32", "int64", "uint8")


def _passes(sock: socket.socket) -> bool:
    return PASSES_FDS and sock.family == getattr(socket, "AF_UNIX", None)


class Lines:
    """A line reader of a socket that keeps the descriptors arriving with its bytes (:meth:`take`)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = bytearray()
        self.fds: list[int] = []

    def readline(self, limit: int) -> bytes:
        """The next line (with its newline), at most ``limit`` bytes; what is left at the end of input."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0 or len(self.buffer) >= limit:
                cut = min(end + 1 if end >= 0 else len(self.buffer), limit)
                line = bytes(self.buffer[:cut])
                del self.buffer[:cut]
                return line
            if _passes(self.sock):
                data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, MAX_FDS)
                self.fds.extend(fds)
            else:
                data = self.sock.recv(1 << 16)
            if not data:
                line = bytes(self.buffer)
                self.buffer.clear()
                return line
            self.buffer += data

    def take(self, count: int) -> list[int]:
        """The first ``count`` descriptors received and not yet taken (fewer where fewer came)."""
        taken, self.fds = self.fds[:count], self.fds[count:]
        return taken

    def close(self) -> None:
        """Close the descriptors nobody took (the socket is its owner's)."""
        close_all(self.take(len(self.fds)))


def close_all(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def send(sock: socket.socket, data: bytes, fds: list[int]) -> None:
    """``sock.sendall(data)``, with ``fds`` passed alongside its first bytes."""
    if not fds:
        sock.sendall(data)
        return
    sent = socket.send_fds(sock, [data], fds)
    if sent < len(data):
        sock.sendall(data[sent:])


def opened(entries: list[dict[str, Any]], fds: list[int]) -> dict[str, Any]:
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
        close_all(fds)
    return arguments


class Shared:
    """The judge's side of one handed buffer: ``shape`` of ``dtype`` in memory only, its contents readable
    and writable as :attr:`array` (a numpy array over the judge's own mapping). ``by_path``: for a worker
    whose channel passes no descriptors, a file named in the request instead."""

    def __init__(
        self, name: str, shape: tuple[int, ...], dtype: str, library: str, by_path: bool = False
    ) -> None:
        import numpy as np  # deferred on purpose: stdlib only at import (the worker loads this module)

        if library not in LIBRARIES:
            raise ValueError(f"library must be one of {LIBRARIES}, got {library!r}")
        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
        self.name, self.shape, self.dtype, self.library = name, tuple(shape), dtype, library
        size = max(1, np.dtype(dtype).itemsize * math.prod(self.shape))
        self.path: str | None = None
        if hasattr(os, "memfd_create") and not by_path:
            self.fd = os.memfd_create(f"perfkit-{name}", getattr(os, "MFD_CLOEXEC", 0))
        else:  # a file of the judge's temporary folder, by its path only where no descriptor can pass
            handle, path = tempfile.mkstemp(prefix="perfkit-handed-")
            self.fd = handle
            if by_path:
                self.path = path
            else:
                os.unlink(path)  # the descriptor is all the worker needs
        os.ftruncate(self.fd, size)
        self._map: mmap.mmap | None = mmap.mmap(self.fd, size)
        self.array = np.frombuffer(self._map, dtype=dtype, count=math.prod(self.shape)).reshape(self.shape)

    def entry(self) -> dict[str, Any]:
        """What the request says of this buffer (:func:`opened` reads it)."""
        entry: dict[str, Any] = {
            "name": self.name,
            "dtype": self.dtype,
            "shape": list(self.shape),
            "library": self.library,
        }
        if self.path is not None:
            entry["path"] = self.path
        return entry

    def close(self) -> None:
        """Unmap and close; the memory goes once the worker's mapping goes too."""
        self.array = None  # type: ignore[assignment]
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:  # a view of the array is still held somewhere: the collector unmaps it
                pass
            self._map = None
        close_all([self.fd])
        if self.path is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            self.path = None


if sys.platform == "win32":  # no descriptor passing on Windows' sockets: the path is handed instead
    PASSES_FDS = False
