"""Buffers used in turn: :class:`Rotation` calls an operation on the next of several buffers each time, so
that a timed call reads a buffer the calls before it pushed out of every cache (the matrix-vector and
matrix-multiply experiments' weights, :func:`perfcore.measure.bandwidth.weight_buffers`). Imports nothing
but the standard library.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Rotation:
    """Calls ``op(i)`` for i = 0, 1, ..., buffers - 1, 0, ... : each call on the next buffer."""

    def __init__(self, op: Callable[[int], Any], buffers: int) -> None:
        self.op = op
        self.buffers = buffers
        self.i = 0

    def __call__(self) -> Any:
        self.i = (self.i + 1) % self.buffers
        return self.op(self.i)


__all__ = ["Rotation"]
