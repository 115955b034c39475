"""A benchmark script of ``benchmarks/`` loaded as a module for a test (a script beside the package, not
in it), registered in ``sys.modules`` while it is used: its dataclasses look their own module up by name."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@contextmanager
def loaded(script: str, name: str) -> Iterator[ModuleType]:
    """``benchmarks/<script>`` as the module ``name``, removed from ``sys.modules`` afterwards."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(name, None)
