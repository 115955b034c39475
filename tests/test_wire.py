"""grader.wire: what crosses between the worker and the judge is plain data, and nothing else decodes."""

from __future__ import annotations

import json
import math
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader import wire

plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


def through(value: object) -> object:
    """Encode, write and read a JSON line, decode: the whole trip a returned value makes."""
    return wire.decode(json.loads(wire.dumps(wire.encode(value))))


@given(plain)
def test_plain_values_arrive_unchanged(value: object) -> None:
    assert through(value) == value


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
def test_arrays_keep_dtype_shape_and_values(dtype: str) -> None:
    array = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    got = through(array)
    assert isinstance(got, np.ndarray) and got.dtype == array.dtype and np.array_equal(got, array)


def test_special_floats_scalars_namedtuples_and_dataclasses() -> None:
    got = through([math.inf, -math.inf, np.float32(1.5), np.int64(3), np.bool_(True), np.str_("memory")])
    assert got == [math.inf, -math.inf, 1.5, 3, True, "memory"]
    assert [type(v) for v in got[2:]] == [float, int, bool, str]
    assert through(np.array(2.5)).shape == ()
    assert math.isnan(through(math.nan))
    Point = namedtuple("Point", "x y")
    assert through(Point(1, 2)).y == 2

    @dataclass
    class Bound:
        time: float
        kind: str

    record = through(Bound(1.0, "memory"))
    assert record.time == 1.0 and record.kind == "memory"


def test_anything_else_is_opaque_even_when_it_misbehaves() -> None:
    class Evil:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    class Liar(list):
        def __iter__(self):
            raise RuntimeError("no")

    for value in (Evil(), object(), {1.5: "float key"}, np.array(["a"]), Liar([1])):
        got = through(value)
        assert isinstance(got, wire.Opaque), value


def test_limits_turn_huge_or_deep_values_opaque() -> None:
    deep: list = []
    for _ in range(wire.MAX_DEPTH + 5):
        deep = [deep]
    assert "opaque" in json.dumps(wire.encode(deep))
    assert isinstance(through(np.zeros(wire.MAX_BYTES // 8 + 1)), wire.Opaque)


@pytest.mark.parametrize(
    "data",
    [
        {"t": "array", "dtype": "|O", "shape": [1], "data": ""},
        {"t": "array", "dtype": "<f8", "shape": [2], "data": "AAAA"},
        {"t": "pickle", "data": "gAR9lC4="},
        {"t": "float", "v": "1.0"},
        [1, 2],
        {"t": "dict", "items": [[[1], 2]]},
    ],
)
def test_malformed_data_does_not_decode(data: object) -> None:
    with pytest.raises(wire.DecodeError):
        wire.decode(data)


def test_replies_are_typed_and_unknown_ones_refused() -> None:
    assert wire.parse_reply({"reply": "returned", "value": 2, "seconds": 0.1}) == wire.Returned(2, 0.1, "")
    raised = wire.parse_reply({"reply": "raised", "exc_type": "NotImplementedError", "not_attempted": True})
    assert isinstance(raised, wire.Raised) and raised.not_attempted
    with pytest.raises(wire.DecodeError):
        wire.parse_reply({"reply": "passed", "points": 10})
    with pytest.raises(ValueError, match="kind must be one of"):
        wire.WorkerFailure("exploded")
