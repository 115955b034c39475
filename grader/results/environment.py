"""The environment record: what a grade was measured on (CPU, GPU, Python, torch, numpy, the platform), as
``grades.json``, Gradescope's ``extra_data`` and the measurement plots name it.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sys
from typing import Any

from perfcore.measure.machine import cpu_model

from ..sandbox import load


def version(dist: str) -> str | None:
    """The installed version of the distribution ``dist``, or None."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def gpu_name() -> str:
    """The GPU torch works on (the current device, as the measurements do), or "none" (torch is only
    imported when installed)."""
    if version("torch") is None:
        return "none"
    try:
        import torch  # deferred on purpose: torch is optional and heavy, imported only where installed

        if torch.cuda.is_available():
            return torch.cuda.get_device_name(torch.cuda.current_device())
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return "Apple MPS"
    except Exception as exc:  # a broken CUDA install should not lose the results
        return f"unknown ({type(exc).__name__})"
    return "none"


def environment() -> dict[str, Any]:
    """What the grade was measured on: CPU, GPU, Python, torch, numpy, platform; and ``load``, only where the
    machine's load was read as quiet (:data:`grader.sandbox.load.LOAD_ENV`, a setting for the kit's tests): such
    a grade judged every round as if nothing else had run, and must not be taken for one made for credit."""
    record = {
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "gpu": gpu_name(),
        "python": platform.python_version(),
        "torch": version("torch"),
        "numpy": version("numpy"),
        "perfkit": version("perfkit"),
        "platform": platform.platform(),
        "python_implementation": sys.implementation.name,
    }
    if load.source() == load.QUIET:
        record["load"] = load.QUIET
    return record
