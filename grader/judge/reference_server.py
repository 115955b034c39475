"""The reference process's own side: what runs in the trusted process that measures perfcore's side.

A measurement check compares the student's figure with perfcore's, measured A B A B on the same machine at
the same time. The student's side runs in the worker; perfcore's runs here, in a process of its own that
no student code ever touches, so that a patched clock or library in the worker moves only the student's
own figures. The judge's handle on it (:mod:`grader.judge.reference`) starts it once per session
(``python -m grader.judge.reference_server``, with the judge's ``sys.path`` and checks modules), pins it to
the worker's core, and asks it over a pipe, one JSON line each way:

- ``{"exercise": "m1", "check": "copy_bandwidth", "kwargs": {...}}`` → ``{"value": 2.4e10}`` (the check's
  ``reference(**kwargs)``, or its ``also(**kwargs)`` where ``"also": true``, in one thread: a figure, a curve as ``[[x, y], ...]``, or the one number a custom
  shape test reads) or ``{"error": "..."}``, with ``"shortage": true`` where the reference ran out of
  GPU memory (the machine's limit, not a grader bug: the judge defers the check, see
  :class:`~grader.judge.reference.ReferenceShortage`). With ``"clock": "cpu"`` perfcore times in its
  thread's CPU time (:func:`perfcore.measure.timing.cpu_clock`: the judge's CPU clock, on a core shared
  with others).

After each request the GPU buffers perfcore cached are freed and handed back to the driver, so that this
process holds no GPU memory while the student's function runs.

An empty line or the end of input ends it.
"""

from __future__ import annotations

import importlib.util
import json
import numbers
import sys
from contextlib import nullcontext
from typing import Any

from perfcore.measure.timing import cpu_clock, single_thread

from ..registry import load_exercises
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


def _measure(
    check: MeasurementCheck | ShapeCheck,
    kwargs: dict[str, Any] | None,
    also: bool = False,
    on_cpu: bool = False,
) -> Any:
    """The check's reference at its own input, or at ``kwargs`` (a probe the judge drew): a figure, or a
    curve as ``[[x, y], ...]``; ``also``: its other honest library's figure or curve (the check's ``also``);
    ``on_cpu``: timed in the thread's CPU time."""
    assert check.reference is not None
    measure = check.reference
    if also:
        if check.also is None:
            raise TypeError(f"{check.id} has no other library's measurement")
        measure = check.also
    # one thread for torch where it is installed (the process's environment already asks the BLAS for one)
    one = check.single_thread and importlib.util.find_spec("torch") is not None
    with single_thread() if one else nullcontext(), cpu_clock() if on_cpu else nullcontext():
        value: Any = measure(**(kwargs if kwargs is not None else dict(check.kwargs)))
    if isinstance(check, ShapeCheck) and not isinstance(value, numbers.Real):
        return [[float(x), float(y)] for x, y in value]
    return float(value)


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
