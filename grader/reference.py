"""The reference side of a measurement: a trusted process that runs perfcore's measurements on request.

A measurement check compares the student's figure with perfcore's, measured A B A B on the same machine at
the same time. The student's side runs in the worker; this side runs here, in a process of its own that
no student code ever touches, so that a patched clock or library in the worker moves only the student's
own figures. The judge starts it once per session (``python -m grader.reference``, with the judge's
``sys.path`` and checks modules), pins it to the worker's core, and asks it over a pipe, one JSON line
each way:

- ``{"exercise": "m1", "check": "copy_bandwidth"}`` → ``{"value": 2.4e10}`` (the check's
  ``reference(**kwargs)``, in one thread) or ``{"error": "..."}``.

An empty line or the end of input ends it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import Any

from . import confinement
from .spec import MeasurementCheck


def serve(extra: list[str]) -> int:
    from .registry import load_exercises

    exercises = load_exercises(extra)
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing perfcore prints can break the protocol
    for line in sys.stdin:
        if not line.strip():
            break
        try:
            request = json.loads(line)
            check = exercises[request["exercise"]].check(request["check"])
            if not isinstance(check, MeasurementCheck):
                raise TypeError(f"{check.id} is not a measurement check")
            value = _measure(check)
            reply: dict[str, Any] = {"value": value}
        except Exception as exc:  # noqa: BLE001 - the judge turns it into "grader bug" for this check
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


def _measure(check: MeasurementCheck) -> float:
    from contextlib import nullcontext

    from perfcore.measure.timing import single_thread

    with single_thread() if check.single_thread else nullcontext():
        return float(check.reference(**dict(check.kwargs)))


class ReferenceProcess:
    """The judge's handle on the reference process (started on first use, one per judge)."""

    def __init__(self, extra_checks: tuple[str, ...] = (), python: str = sys.executable) -> None:
        self.extra = extra_checks
        self.python = python
        self.proc: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()

    def _start(self) -> subprocess.Popen[str]:
        code = (
            "import json, sys; sys.path[:] = json.loads(sys.argv[1]) + sys.path; "
            "from grader.reference import serve; sys.exit(serve(sys.argv[2:]))"
        )
        path = [p for p in sys.path if p]
        env = dict(os.environ)
        proc = subprocess.Popen(
            [self.python, "-c", code, json.dumps(path), *self.extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,
        )
        confinement.trust(proc.pid)
        return proc

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def measure(self, exercise: str, check: str) -> float:
        """perfcore's figure for ``exercise::check``; RuntimeError with the reason when it failed."""
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self.proc = self._start()
            assert self.proc.stdin is not None and self.proc.stdout is not None
            try:
                self.proc.stdin.write(json.dumps({"exercise": exercise, "check": check}) + "\n")
                self.proc.stdin.flush()
                line = self.proc.stdout.readline()
            except OSError as exc:
                raise RuntimeError(f"the reference process failed: {exc}") from exc
        if not line:
            raise RuntimeError(f"the reference process ended (exit status {self.proc.poll()})")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return float(reply["value"])

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


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
