"""grader.specs.requirements: what a check needs of the machine, read as cheaply as the machine allows."""

from __future__ import annotations

import sys

from grader.specs import requirements
from grader.specs.requirements import Requirements


def test_a_gpu_the_machine_plainly_lacks_is_told_without_importing_torch(monkeypatch) -> None:
    """Issue 30: reading m6's CUDA requirement imported torch (about 2 s of a fresh kit's 4 s run). Without
    NVIDIA's driver on Linux, or off macOS for MPS, the reason needs no torch; with torch imported (a test's
    fake CUDA lives there) torch is asked."""
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(requirements.os.path, "exists", lambda path: False)
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert requirements.no_gpu_here(Requirements(cuda=True)) == "req_no_cuda"
    assert requirements.no_gpu_here(Requirements(mps=True)) == "req_no_mps"
    assert "torch" not in sys.modules
    monkeypatch.setattr(requirements.os.path, "exists", lambda path: path == "/dev/nvidiactl")
    assert requirements.no_gpu_here(Requirements(cuda=True)) is None  # a driver: torch must say
    monkeypatch.setitem(sys.modules, "torch", object())
    monkeypatch.setattr(requirements.os.path, "exists", lambda path: False)
    assert requirements.no_gpu_here(Requirements(cuda=True)) is None  # torch already there: asked
