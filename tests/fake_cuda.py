"""A GPU host faked on a machine without one: ``torch.cuda``'s functions replaced through ``monkeypatch`` with
:class:`FakeCuda` (devices, their properties, free memory, a stream clock), and the figures a GPU experiment
returns. Shared by tests/perfcore/test_measure_gpu_hosts.py and tests/grader/sandbox/test_gpu_hosts.py;
imported only after ``pytest.importorskip("torch")``."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from perfcore.measure.core import Figure
from perfcore.measure.timing import Timing

GiB = 1 << 30
MiB = 1 << 20


#: Device properties as torch reports them (clock in kHz, bus in bits): an H100 SXM's 2.619 GHz x 5120 bits.
H100_PROPS = SimpleNamespace(
    L2_cache_size=50 * MiB, total_memory=80 * GiB, memory_clock_rate=2619000, memory_bus_width=5120
)
RTX4090_PROPS = SimpleNamespace(
    L2_cache_size=72 * MiB, total_memory=24 * GiB, memory_clock_rate=10501000, memory_bus_width=384
)


class FakeEvent:
    """A CUDA event on a fake stream clock: every call of the timed function advances it by 1 ms."""

    clock_ms = 0.0

    def __init__(self, enable_timing: bool = False) -> None:
        assert enable_timing
        self.at: float | None = None
        self.synchronized = False

    def record(self) -> None:
        self.at = FakeEvent.clock_ms

    def synchronize(self) -> None:
        self.synchronized = True

    def elapsed_time(self, end: FakeEvent) -> float:
        assert end.synchronized, "the end event must be synchronized before its time is read"
        assert self.at is not None and end.at is not None
        return end.at - self.at


class FakeCuda:
    """``torch.cuda`` of a machine with the given devices ({index: (name, properties)}), ``current`` chosen,
    ``free`` bytes free on each."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, devices: dict, current: int = 0, free: int = 70 * GiB
    ):
        self.devices, self.current, self.free = devices, current, free
        self.emptied = 0
        cuda = torch.cuda
        monkeypatch.setattr(cuda, "is_available", lambda: True)
        monkeypatch.setattr(cuda, "is_initialized", lambda: True)
        monkeypatch.setattr(cuda, "current_device", lambda: self.current)
        monkeypatch.setattr(cuda, "device_count", lambda: len(self.devices))
        monkeypatch.setattr(cuda, "get_device_name", lambda i=None: self.devices[self._index(i)][0])
        monkeypatch.setattr(cuda, "get_device_properties", lambda i=None: self.devices[self._index(i)][1])
        monkeypatch.setattr(
            cuda, "mem_get_info", lambda i=None: (self.free, self.devices[self._index(i)][1].total_memory)
        )
        monkeypatch.setattr(cuda, "synchronize", lambda *a: None)
        monkeypatch.setattr(cuda, "Event", FakeEvent)
        monkeypatch.setattr(cuda, "empty_cache", self._empty)

    def _index(self, i: object) -> int:
        return self.current if i is None else int(i)  # type: ignore[call-overload]

    def _empty(self) -> None:
        self.emptied += 1


def _figure(name: str, rate: float, unit: str = "byte") -> Figure:
    return Figure.from_timing(name, Timing.from_samples([1e-3] * 3, 1), rate * 1e-3, unit)


def _figures(copy_rate: float = 1e11, flops: float = 1e13) -> dict:
    return {
        "copy": _figure("copy", copy_rate),
        "sum": _figure("sum", copy_rate / 2),
        "matmul": (_figure("matmul 8192 bfloat16", flops, "FLOP"),),
        "fusion_unfused": _figure("k=8 unfused", copy_rate),
        "fusion_fused": _figure("k=8 fused", copy_rate),
        "add_small": _figure("add 16", 1e6),
    }
