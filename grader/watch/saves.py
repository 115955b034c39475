"""Which saves the watch regrades: watchdog's file events, one regrade per save.

Editors save in odd ways: a write in place (modified, then closed), a temporary file renamed over the
file (``moved`` to it), a delete and a create (an atomic replace by some), several events for one save.
Every event that names a ``.py`` file directly in the folder (as the source or the destination of a move)
marks that file; a file is due once no event has marked it for :attr:`Saves.quiet_s`, so one save, however
the editor wrote it, is one regrade. Whether the file is still there, and whether it is an exercise, is
read when it is due (:mod:`grader.watch.cli`). Hidden files and editors' own files (``.ex01.py.swp``,
``ex01.py~``, ``4913``) are not ``.py`` files of the folder and are never marked.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler

#: The events that change a file's content or existence (watchdog also reports opens and reads).
CHANGING = frozenset({"created", "modified", "moved", "deleted", "closed"})


class Saves(FileSystemEventHandler):
    """The files of one folder saved since they were last taken (:meth:`due`)."""

    def __init__(self, folder: str | os.PathLike[str], quiet_s: float = 0.05) -> None:
        if quiet_s < 0:
            raise ValueError(f"quiet_s must be at least 0, got {quiet_s!r}")
        self.folder = Path(folder).resolve()
        self.quiet_s = quiet_s
        self.marked: dict[Path, float] = {}  # file -> when an event last marked it (time.monotonic)
        self.lock = threading.Lock()
        # a byte is written to this pipe whenever a file is marked: the watch's loop waits on it (fileno)
        # beside its regrades, one wait for both, no polling
        self._pipe = os.pipe()
        for fd in self._pipe:
            os.set_blocking(fd, False)

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type not in CHANGING:
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            path = self.of_folder(os.fsdecode(raw)) if raw else None
            if path is not None:
                self.mark(path)

    def of_folder(self, raw: str) -> Path | None:
        """The file ``raw`` names, where it is a visible ``.py`` file directly in the folder; else None."""
        path = Path(raw)
        if path.suffix != ".py" or path.name.startswith("."):
            return None
        try:
            parent = path.parent.resolve()
        except OSError:
            return None
        return self.folder / path.name if parent == self.folder else None

    def mark(self, path: Path, at: float | None = None) -> None:
        with self.lock:
            self.marked[path] = time.monotonic() if at is None else at
        try:
            os.write(self._pipe[1], b"!")
        except BlockingIOError:  # full: the loop has a wake-up waiting already
            pass

    def fileno(self) -> int:
        """A descriptor that is readable once a file was marked, until :meth:`drain`."""
        return self._pipe[0]

    def drain(self) -> None:
        """Empty :meth:`fileno`'s pipe: the loop has woken for what it held."""
        try:
            while os.read(self._pipe[0], 4096):
                pass
        except BlockingIOError:
            pass

    def close(self) -> None:
        for fd in self._pipe:
            os.close(fd)

    def due(self, now: float | None = None) -> list[Path]:
        """The files no event has marked for :attr:`quiet_s`, in the order they were saved; taken."""
        now = time.monotonic() if now is None else now
        with self.lock:
            ready = sorted((at, path) for path, at in self.marked.items() if now - at >= self.quiet_s)
            for _, path in ready:
                del self.marked[path]
        return [path for _, path in ready]

    def next_in(self, now: float | None = None) -> float | None:
        """Seconds until the next marked file is due (0 if one is); None when none is marked."""
        now = time.monotonic() if now is None else now
        with self.lock:
            if not self.marked:
                return None
            return max(0.0, min(self.marked.values()) + self.quiet_s - now)
