"""grader.sandbox.channel: the lines between the judge and the worker, read whole whatever each read brought
(the descriptors they carry are tested with the buffers, tests/grader/sandbox/test_shared.py)."""

from __future__ import annotations

import socket

import pytest

from grader.sandbox import channel

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
