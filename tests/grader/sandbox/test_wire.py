"""grader.sandbox.wire: what crosses between the worker and the judge is plain data, and nothing else decodes."""

from __future__ import annotations

import json
import math
import numbers
import time
from collections import namedtuple
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.sandbox import messages, wire

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
    assert through(np.array(2.5)) == 2.5 and type(through(np.array(2.5))) is float
    assert math.isnan(through(math.nan))
    Point = namedtuple("Point", "x y")
    assert through(Point(1, 2)).y == 2

    @dataclass
    class Bound:
        time: float
        kind: str

    record = through(Bound(1.0, "memory"))
    assert record.time == 1.0 and record.kind == "memory"


class Lying(float):
    """A float subclass whose every method lies: only its stored value may be sent."""

    def __float__(self) -> float:
        return 1e300

    def __repr__(self) -> str:
        return "1e300"

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = float.__hash__


class Big(int):
    def __index__(self) -> int:
        return 0

    def __int__(self) -> int:
        return 0


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        (Fraction(9, 4), 2.25),
        (Fraction(6, 3), 2),
        (Decimal("1.8386"), 1.8386),
        (np.longdouble("1.8386"), float(np.longdouble("1.8386"))),
        (np.float16(0.5), 0.5),
        (np.uint64(2**63), 2**63),
        (Lying(2.5), 2.5),
        (Big(7), 7),
        (np.array(3, dtype=np.int32), 3),
        (np.array(2.5, dtype=np.longdouble), 2.5),
        (np.array(True), True),
    ],
)
def test_every_honest_number_arrives_as_the_plain_number_it_holds(value: object, plain: object) -> None:
    got = through(value)
    assert got == plain and type(got) is type(plain), (value, got)


def test_a_numbers_real_of_the_students_own_is_its_float_and_its_failure_is_raised() -> None:
    class Own(numbers.Real):  # a number of the student's own, by the tower
        def __init__(self, value: float, fail: bool = False) -> None:
            self.value, self.fail = value, fail

        def __float__(self) -> float:
            if self.fail:
                raise ArithmeticError("no float here")
            return self.value

    for name in numbers.Real.__abstractmethods__ - {"__float__"}:
        setattr(Own, name, lambda *a, **k: NotImplemented)
    Own.__abstractmethods__ = frozenset()
    assert through(Own(2.5)) == 2.5
    with pytest.raises(wire.Unconvertible) as caught:
        wire.encode([Own(1.0, fail=True)], strict=True)
    assert isinstance(caught.value.error, ArithmeticError)
    assert isinstance(through(Own(1.0, fail=True)), wire.Opaque)  # not strict (the judge's side): opaque


def test_what_is_not_a_real_number_stays_refusable() -> None:
    assert isinstance(through(np.complex128(1 + 2j)), wire.Opaque)
    assert isinstance(through(1 + 2j), wire.Opaque)
    assert math.isnan(through(Decimal("NaN")))  # a NaN the judge refuses as it refuses math.nan
    assert through(np.bool_(False)) is False


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


# ---------------------------------------------------------------------------------------------------
# reading a line the student's code may have written itself: every bound held in wire.loads/parse_reply


def test_lone_surrogates_are_escaped_when_a_line_is_read() -> None:
    line = b'{"reply":"loaded","error":{"exc_type":"X","trace":"boom \\ud800"},"seq":1,"\\udc01":["\\ud83d"]}'
    data = wire.loads(line)
    loaded = messages.parse_reply(data)
    assert isinstance(loaded, messages.Loaded) and loaded.error is not None
    assert loaded.error.trace == "boom \\ud800"  # the six characters, which any report can write
    assert data["\\udc01"] == ["\\ud83d"]
    assert wire.loads(b'"\\ud83d\\ude00"') == "\U0001f600"  # a pair is the character it spells
    assert wire.loads(b'"a\\\\ud800"') == "a\\ud800"  # an escaped backslash, then text


@pytest.mark.parametrize(
    "line",
    [b"[" * 200_000, b"{" * 200_000, b'{"reply": ', b"\xff\xfe", b'"\xed\xa0\x80"'],
    ids=["deep-lists", "deep-dicts", "cut", "not-utf8", "raw-surrogate"],
)
def test_a_line_that_is_not_json_is_a_decode_error(line: bytes) -> None:
    with pytest.raises(wire.DecodeError):
        wire.loads(line)


@pytest.mark.parametrize(
    "data",
    [
        {"reply": "returned", "value": {"t": "array", "dtype": ["<f8"], "shape": [1], "data": ""}},
        {"reply": "returned", "value": {"t": "array", "dtype": "<f8", "shape": [1], "data": 7}},
        {"reply": "returned", "value": {"t": "float", "v": [1]}},
        {"reply": "returned", "value": 1, "seconds": 10**400},
        {"reply": "many", "items": [{"reply": "many", "items": []}]},
        {"reply": "loaded", "error": "boom"},
    ],
)
def test_a_reply_of_the_wrong_types_is_a_decode_error(data: object) -> None:
    with pytest.raises(wire.DecodeError):
        messages.parse_reply(data)


NAMED_ITEM = b'{"t":"tuple","items":[0],"fields":["a"],"kind":"T"}'


def _reply(value: bytes) -> bytes:
    return b'{"reply":"returned","seq":1,"value":' + value + b"}"


def test_a_line_past_the_wires_bounds_is_oversized() -> None:
    with pytest.raises(wire.Oversized) as long:
        wire.loads(b" " * (wire.MAX_LINE_BYTES + 1))
    assert long.value.what == "bytes"
    many = b'{"t":"list","items":[' + b",".join([b"0"] * wire.MAX_VALUES) + b"]}"
    with pytest.raises(wire.Oversized) as values:
        wire.loads(_reply(many))
    assert values.value.what == "values"
    kinds = b",".join(NAMED_ITEM.replace(b'"T"', b'"T%d"' % i) for i in range(wire.MAX_KINDS + 1))
    with pytest.raises(wire.Oversized) as kind:
        messages.parse_reply(wire.loads(_reply(b'{"t":"list","items":[' + kinds + b"]}")))
    assert kind.value.what == "kinds"


def test_the_red_teams_million_named_tuples_are_refused_at_once() -> None:
    """60 MB of one-field named tuples made the judge build 1.15M classes (about 90 s); now the line is
    refused by its size, and half of it by its count of values, before any is parsed."""
    for count, what in ((1_150_000, "bytes"), (300_000, "values")):
        line = _reply(b'{"t":"list","items":[' + b",".join([NAMED_ITEM] * count) + b"]}")
        with pytest.raises(wire.Oversized) as refused:
            wire.loads(line)
        assert refused.value.what == what


@pytest.mark.parametrize("named", [False, True])
def test_an_honest_curve_of_100k_points_fits(named: bool) -> None:
    Point = namedtuple("Point", "x y")
    curve = [(float(i), 1e-6 * i) for i in range(100_000)]
    value = [Point(*p) for p in curve] if named else curve
    line = wire.dumps({"reply": "returned", "value": wire.encode(value), "seconds": 0.5, "seq": 3})
    assert len(line) < wire.MAX_LINE_BYTES / 3
    reply = messages.parse_reply(wire.loads(line.rstrip(b"\n")))
    assert isinstance(reply, messages.Returned) and reply.value == curve
    if named:  # one class for every point: made once, not once a point
        assert len({type(p) for p in reply.value}) == 1 and reply.value[-1].y == curve[-1][1]


def test_decoding_past_the_deadline_is_late() -> None:
    data = wire.loads(_reply(b'{"t":"list","items":[' + b",".join([b"0"] * 10_000) + b"]}"))
    with pytest.raises(wire.Late):
        messages.parse_reply(data, deadline=time.monotonic() - 1)
    assert len(messages.parse_reply(data, deadline=time.monotonic() + 60).value) == 10_000  # type: ignore[union-attr]
