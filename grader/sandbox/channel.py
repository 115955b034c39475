"""The lines between the judge and the worker, and the descriptors that travel with them.

Every request goes through here: the judge sends its JSON line with :func:`send`, and the worker reads
lines with :class:`Lines`. A request that hands buffers (:mod:`grader.sandbox.shared`) carries, in the same
``sendmsg`` as its first bytes, one descriptor per buffer (``SCM_RIGHTS``); the worker's reader keeps the
descriptors that came with the bytes it read (:meth:`Lines.take`), and the template process passes them on
to the file's process with the line. The descriptors never appear in the line itself.

:data:`PASSES_FDS` is the one answer to "can this platform pass descriptors": both the socket handed to the
worker when it starts (``pass_fds``) and the buffers handed with a request depend on it. Where it is off
(Windows), the worker connects back to a loopback listener and a buffer goes by a file's path.

Like :mod:`grader.sandbox.wire` this module is copied beside the worker and imports only the standard
library.
"""

from __future__ import annotations

import os
import socket

#: Most descriptors one request carries (a measurement hands at most a few buffers).
MAX_FDS = 16
#: Whether this platform passes descriptors: to a child it starts (``pass_fds``) and over a Unix socket
#: (``SCM_RIGHTS``). POSIX has both; Windows neither. Tests turn it off to run Windows' paths on Linux.
PASSES_FDS = os.name == "posix" and hasattr(socket, "send_fds") and hasattr(socket, "AF_UNIX")


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
    """Close each of ``fds``, whether or not it is still open."""
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
