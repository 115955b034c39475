"""The judge's handle on the reference process: started, asked for perfcore's figures, ended.

:class:`ReferenceProcess` starts ``python -m grader.judge.reference_server`` (what runs there, and the JSON
lines the two sides exchange, are :mod:`grader.judge.reference_server`'s) with the judge's import path, less
its working folder and every folder it grades, and its checks modules by file; it asks for one value at a
time under a lock and reads the reply: a value, or the reason it failed, :class:`ReferenceShortage` where
the reference ran out of GPU memory (the judge defers the check).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from typing import Any

from ..sandbox import confinement


class ReferenceShortage(RuntimeError):
    """The reference ran out of GPU memory: the machine cannot hold both sides now (the judge defers)."""


class ReferenceProcess:
    """The judge's handle on the reference process (started on first use, one per judge)."""

    def __init__(
        self, extra_checks: tuple[str, ...] = (), python: str = sys.executable, exclude: tuple[str, ...] = ()
    ) -> None:
        self.extra = extra_checks
        self.python = python
        self.exclude = exclude
        self.proc: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()

    def _start(self) -> subprocess.Popen[str]:
        code = (
            "import json, sys; sys.path[:] = json.loads(sys.argv[1]) + sys.path; "
            "from grader.judge.reference_server import serve; sys.exit(serve(sys.argv[2:]))"
        )
        # The judge's import path, less its working folder and any folder it grades: a student's file
        # there (a cmath.py, say) must never stand in for a module in this trusted process.
        excluded = {os.path.realpath(p) for p in self.exclude}
        path = [p for p in sys.path if p and os.path.realpath(p) not in excluded]
        extra = []
        for name in self.extra:
            file = getattr(sys.modules.get(name), "__file__", None)
            extra.append(f"{name}={file}" if file else name)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env.update(confinement.ONE_THREAD)  # perfcore measures on one core, beside the worker
        proc = subprocess.Popen(
            [self.python, "-I", "-c", code, json.dumps(path), *extra],
            cwd=tempfile.gettempdir(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,
        )
        confinement.trust(proc.pid)
        return proc

    def start(self) -> int:
        """Start the process now, if it is not running (a judge pins it before its first request), and
        return its pid."""
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self.proc = self._start()
            return self.proc.pid

    def curve(
        self, exercise: str, check: str, kwargs: dict[str, Any] | None = None
    ) -> list[tuple[float, float]]:
        """perfcore's curve for the shape check ``exercise::check`` (at ``kwargs`` when given)."""
        return [(float(x), float(y)) for x, y in self.value(exercise, check, kwargs)]

    def value(
        self,
        exercise: str,
        check: str,
        kwargs: dict[str, Any] | None = None,
        also: bool = False,
        on_cpu: bool = False,
    ) -> Any:
        """perfcore's value for ``exercise::check`` (at ``kwargs`` when given; timed in CPU time where
        ``on_cpu``) as JSON gives it: a number, or a curve as ``[[x, y], ...]``; RuntimeError with the reason
        when it failed (:class:`ReferenceShortage` where it ran out of GPU memory)."""
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self.proc = self._start()
            assert self.proc.stdin is not None and self.proc.stdout is not None
            try:
                request = {"exercise": exercise, "check": check, "kwargs": kwargs, "also": also}
                if on_cpu:
                    request["clock"] = "cpu"
                self.proc.stdin.write(json.dumps(request) + "\n")
                self.proc.stdin.flush()
                line = self.proc.stdout.readline()
            except OSError as exc:
                raise RuntimeError(f"the reference process failed: {exc}") from exc
        if not line:
            raise RuntimeError(f"the reference process ended (exit status {self.proc.poll()})")
        reply = json.loads(line)
        if "error" in reply:
            raise (ReferenceShortage if reply.get("shortage") else RuntimeError)(reply["error"])
        return reply["value"]

    def close(self) -> None:
        with self.lock:
            if self.proc is not None:
                try:
                    if self.proc.stdin is not None:
                        self.proc.stdin.close()
                    self.proc.wait(timeout=10)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
                    self.proc.wait()
                self.proc = None
