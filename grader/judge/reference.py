"""The reference side of a measurement: a trusted process that runs perfcore's measurements on request.

A measurement check compares the student's figure with perfcore's, measured A B A B on the same machine at
the same time. The student's side runs in the worker; this side runs here, in a process of its own that
no student code ever touches, so that a patched clock or library in the worker moves only the student's
own figures. The judge starts it once per session (``python -m grader.judge.reference``, with the judge's
``sys.path`` and checks modules), pins it to the worker's core, and asks it over a pipe, one JSON line
each way:

- ``{"exercise": "m1", "check": "copy_bandwidth", "kwargs": {...}}`` → ``{"value": 2.4e10}`` (the check's
  ``reference(**kwargs)``, or its ``also(**kwargs)`` where ``"also": true``, in one thread: a figure, a curve as ``[[x, y], ...]``, or the one number a custom
  shape test reads) or ``{"error": "..."}``, with ``"shortage": true`` where the reference ran out of
  GPU memory (the machine's limit, not a grader bug: the judge defers the check, see
  :class:`ReferenceShortage`). With ``"clock": "cpu"`` perfcore times in its thread's CPU time
  (:func:`perfcore.measure.timing.cpu_clock`: the judge's CPU clock, on a core shared with others).

After each request the GPU buffers perfcore cached are freed and handed back to the driver, so that this
process holds no GPU memory while the student's function runs.

An empty line or the end of input ends it.
"""

from __future__ import annotations

import importlib.util
import json
import numbers
import os
import subprocess
import sys
import tempfile
import threading
from contextlib import nullcontext
from typing import Any

from perfcore.measure.timing import cpu_clock, single_thread

from ..registry import load_exercises
from ..sandbox import confinement
from ..specs.check import MeasurementCheck, ShapeCheck


def serve(extra: list[str]) -> int:
    """Answer requests on stdin; ``extra`` names checks modules, as ``name`` or ``name=path`` (loaded from
    that file: the judge passes the files of the modules it loaded, so no folder it grades need be on the
    import path here)."""
    names = []
    for item in extra:
        name, _, path = item.partition("=")
        if path and name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is not None and spec.loader is not None:
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
        names.append(name)
    exercises = load_exercises(names)
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing perfcore prints can break the protocol
    for line in sys.stdin:
        if not line.strip():
            break
        try:
            request = json.loads(line)
            check = exercises[request["exercise"]].check(request["check"])
            if not isinstance(check, (MeasurementCheck, ShapeCheck)) or check.reference is None:
                raise TypeError(f"{check.id} has no reference measurement")
            kwargs = request.get("kwargs")
            value = _measure(
                check,
                kwargs if isinstance(kwargs, dict) else None,
                bool(request.get("also")),
                on_cpu=request.get("clock") == "cpu",
            )
            reply: dict[str, Any] = {"value": value}
        except Exception as exc:  # noqa: BLE001 - the judge turns it into "grader bug" for this check
            reply = {"error": f"{type(exc).__name__}: {exc}"}
            if gpu_shortage(exc):
                reply["shortage"] = True
        finally:
            _release_gpu()
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


def gpu_shortage(exc: BaseException) -> bool:
    """Whether ``exc`` says the GPU ran out of memory (torch's ``OutOfMemoryError``, or a CUDA/cuBLAS
    error whose text says so): a machine's limit, not a bug."""
    if type(exc).__name__ == "OutOfMemoryError":
        return True
    text = str(exc)
    return isinstance(exc, RuntimeError) and (
        "CUDA out of memory" in text
        or "CUDA error: out of memory" in text  # a raw allocation or a context on a full GPU
        or "CUBLAS_STATUS_ALLOC_FAILED" in text
        or "MPS backend out of memory" in text
    )


def _release_gpu() -> None:
    """Free perfcore's cached GPU buffers, where perfcore's GPU module was used at all."""
    gpu = sys.modules.get("perfcore.measure.gpu")
    if gpu is not None:
        try:
            gpu.release_gpu_memory()
        except Exception:  # noqa: BLE001 - freeing must never cost the reply
            pass


class ReferenceShortage(RuntimeError):
    """The reference ran out of GPU memory: the machine cannot hold both sides now (the judge defers)."""


def _measure(
    check: MeasurementCheck | ShapeCheck,
    kwargs: dict[str, Any] | None,
    also: bool = False,
    on_cpu: bool = False,
) -> Any:
    """The check's reference at its own input, or at ``kwargs`` (a probe the judge drew): a figure, or a
    curve as ``[[x, y], ...]``; ``also``: its other honest library's figure (``MeasurementCheck.also``);
    ``on_cpu``: timed in the thread's CPU time."""
    assert check.reference is not None
    measure = check.reference
    if also:
        if not isinstance(check, MeasurementCheck) or check.also is None:
            raise TypeError(f"{check.id} has no other library's measurement")
        measure = check.also
    # one thread for torch where it is installed (the process's environment already asks the BLAS for one)
    one = check.single_thread and importlib.util.find_spec("torch") is not None
    with single_thread() if one else nullcontext(), cpu_clock() if on_cpu else nullcontext():
        value: Any = measure(**(kwargs if kwargs is not None else dict(check.kwargs)))
    if isinstance(check, ShapeCheck) and not isinstance(value, numbers.Real):
        return [[float(x), float(y)] for x, y in value]
    return float(value)


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
            "from grader.judge.reference import serve; sys.exit(serve(sys.argv[2:]))"
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


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
