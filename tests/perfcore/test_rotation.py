"""Buffers used in turn (:class:`perfcore.measure.rotation.Rotation`): each call on the next buffer, round
and round, so that no timed call reads the buffer the call before it left in cache."""

from __future__ import annotations

from perfcore.measure.rotation import Rotation


def test_each_call_goes_to_the_next_buffer_round_and_round():
    calls: list[int] = []
    rotation = Rotation(lambda i: calls.append(i) or i * 10, 3)
    assert [rotation() for _ in range(7)] == [10, 20, 0, 10, 20, 0, 10]
    assert calls == [1, 2, 0, 1, 2, 0, 1]


def test_one_buffer_is_used_every_time():
    rotation = Rotation(lambda i: i, 1)
    assert [rotation() for _ in range(3)] == [0, 0, 0]
