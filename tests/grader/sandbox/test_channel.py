"""grader.sandbox.channel: the lines between the judge and the worker, read whole whatever each read brought
(the descriptors they carry are tested with the buffers, tests/grader/sandbox/test_shared.py)."""

from __future__ import annotations

import socket

import pytest

from grader.sandbox import channel, confinement
from grader.sandbox.process import WorkerProcess

pytestmark = pytest.mark.skipif(not channel.PASSES_FDS, reason="descriptors pass on POSIX sockets only")


def test_lines_split_what_one_read_brought_and_keep_a_line_cut_in_two() -> None:
    judge, worker = socket.socketpair()
    try:
        judge.sendall(b"one\ntw")
        lines = channel.Lines(worker)
        assert lines.readline(100) == b"one\n"
        judge.sendall(b"o\n")
        assert lines.readline(100) == b"two\n"
        judge.close()
        assert lines.readline(100) == b""  # the end of input
    finally:
        worker.close()


@pytest.mark.parametrize("key", ["fds", "handed"])
def test_a_request_line_never_carries_the_descriptors_or_the_buffers(tmp_path, key: str) -> None:
    """Issue 40: the buffers a request hands go as ``WorkerProcess.ask``'s ``buffers`` only, and their
    descriptors beside the line (:func:`channel.send`): a request whose fields carry them is refused, named,
    before any worker starts."""
    worker = WorkerProcess(str(tmp_path), limits=confinement.Limits(), bwrap=None)
    with pytest.raises(ValueError, match=f"'{key}'.*buffers="):
        worker.ask("call", 5, module="m", func="f", args=[], kwargs={}, **{key: [3]})
    assert worker.proc is None  # refused before a worker was started
