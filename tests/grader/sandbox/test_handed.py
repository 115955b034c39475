"""grader.sandbox.handed: buffers the judge makes, passed by descriptor, written by the other side."""

from __future__ import annotations

import os
import socket

import numpy as np
import pytest

from grader.sandbox import handed

pytestmark = pytest.mark.skipif(not handed.PASSES_FDS, reason="descriptors pass on POSIX sockets only")


def test_a_buffer_passes_by_descriptor_and_the_judge_reads_what_the_other_side_wrote() -> None:
    judge, worker = socket.socketpair()
    src = handed.Shared("src", (1000,), "float32", "numpy")
    dst = handed.Shared("dst", (10, 100), "float32", "numpy")
    try:
        src.array[:] = np.arange(1000, dtype=np.float32)
        dst.array[:] = np.nan
        handed.send(judge, b'{"op": "call"}\n', [src.fd, dst.fd])
        lines = handed.Lines(worker)
        assert lines.readline(1 << 20) == b'{"op": "call"}\n'
        fds = lines.take(2)
        assert len(fds) == 2 and lines.take(1) == []
        got = handed.opened([src.entry(), dst.entry()], fds)
        for fd in fds:  # closed once mapped: the mappings hold the pages
            with pytest.raises(OSError):
                os.fstat(fd)
        assert got["dst"].shape == (10, 100)
        np.copyto(got["dst"], got["src"].reshape(10, 100))
        assert np.array_equal(dst.array.reshape(-1), src.array)  # the same pages, seen by the judge
    finally:
        src.close()
        dst.close()
        judge.close()
        worker.close()


def test_buffers_go_as_torch_tensors_where_asked() -> None:
    torch = pytest.importorskip("torch")
    one = handed.Shared("x", (64,), "float32", "torch")
    try:
        fd = os.dup(one.fd)
        (tensor,) = handed.opened([one.entry()], [fd]).values()
        assert isinstance(tensor, torch.Tensor) and tensor.dtype == torch.float32
        tensor.fill_(3.0)
        assert np.all(one.array == 3.0)
    finally:
        one.close()


def test_a_buffer_by_path_for_a_channel_without_descriptors() -> None:
    one = handed.Shared("y", (8,), "float64", "numpy", by_path=True)
    try:
        entry = one.entry()
        assert os.path.exists(entry["path"])
        handed.opened([entry], [])["y"][:] = 7.0
        assert np.all(one.array == 7.0)
        path = entry["path"]
    finally:
        one.close()
    assert not os.path.exists(path)  # nothing left in the temporary folder


def test_lines_split_what_one_read_brought_and_keep_a_line_cut_in_two() -> None:
    judge, worker = socket.socketpair()
    try:
        judge.sendall(b"one\ntw")
        lines = handed.Lines(worker)
        assert lines.readline(100) == b"one\n"
        judge.sendall(b"o\n")
        assert lines.readline(100) == b"two\n"
        judge.close()
        assert lines.readline(100) == b""  # the end of input
    finally:
        worker.close()


@pytest.mark.parametrize(
    ("kw", "said"),
    [({"library": "jax"}, "library"), ({"dtype": "complex64"}, "dtype")],
)
def test_bad_buffers_are_named(kw: dict, said: str) -> None:
    args = {"name": "b", "shape": (4,), "dtype": "float32", "library": "numpy", **kw}
    with pytest.raises(ValueError, match=said):
        handed.Shared(**args)
