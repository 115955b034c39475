"""Comparing a student's value with the expected one: tolerance per quantity, structure by structure.

``mismatch(expected, got, rtol, atol)`` returns ``None`` when ``got`` matches, else a :class:`Text`
(key and fields) that says what was expected, what came back and by how much they differ, where in
a structured value, and which slip (:mod:`grader.compare.slips`: a unit prefix, bits for bytes, a
percentage, ...) explains a wrong number, where one does. The rules, chosen by the type of the *expected* value:

- numbers: ``|got - expected| <= max(rtol * |expected|, atol)`` (a missing tolerance counts as 0, both
  missing means exact). A relative tolerance is never tighter than :data:`FLOAT32_RTOL`: a formula
  computed in float32, torch's default dtype, is the formula. ``got`` must be a real number: an int, a
  float, a numpy scalar, a 0-d array or a one-element torch tensor (taken with ``.item()``); bools,
  strings, larger arrays, NaN and inf are wrong. An int past the largest float is a number, and wrong by an
  error of inf (never an OverflowError).
- bools and strings: exact (and of the same type); ``None``: ``got is None``.
- tuples, lists and NamedTuples: the same length, element by element (a NamedTuple names its fields).
- dicts: every expected key present, value by value; dataclasses: field by field.
- numpy arrays: the same shape, finite, elementwise with the tolerance; the worst element is reported.

Student values reach this module as plain data decoded by the judge (:mod:`grader.sandbox.wire`): builtins,
numpy arrays (a torch tensor arrives as an array that still says "torch.Tensor"), records and
:class:`~grader.sandbox.wire.Opaque` stand-ins for anything else, which no rule accepts. The student's own
objects never get here: their code runs in another process.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import sys
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from ..text.catalogue import Text, render
from ..text.show import kind_of, show
from . import slips

Tolerance = tuple[float | None, float | None]


class NotANumber(Exception):
    """Raised by :func:`as_number` with the reason as a :class:`Text`."""

    def __init__(self, text: Text) -> None:
        super().__init__(text.key)
        self.text = text


def _torch_tensor_type() -> Any:
    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


def as_number(got: Any, expected_text: str = "?") -> float | int:
    """``got`` as a plain int or float, or raise :class:`NotANumber` saying why it is not one."""

    def refuse() -> NotANumber:
        return NotANumber(
            Text("not_number", {"expected": expected_text, "kind": kind_of(got), "got": show(got)})
        )

    if isinstance(got, (bool, np.bool_)):
        raise refuse()
    if isinstance(got, int):
        return int.__index__(got)
    if isinstance(got, float):
        return float.__float__(got)
    if isinstance(got, np.generic):
        if not isinstance(got, (np.integer, np.floating)):
            raise refuse()
        return got.item()
    if isinstance(got, np.ndarray):
        from_tensor = getattr(got, "shown_kind", "") == "torch.Tensor"  # a tensor, sent as an array
        if (got.ndim != 0 and not (from_tensor and got.size == 1)) or got.dtype.kind not in "iuf":
            raise refuse()
        return got.reshape(()).item()
    tensor = _torch_tensor_type()
    if tensor is not None and isinstance(got, tensor):
        if got.numel() != 1 or got.is_complex() or got.dtype == sys.modules["torch"].bool:
            raise refuse()
        return got.detach().cpu().reshape(()).item()
    if isinstance(got, numbers.Rational) and type(got).__module__ == "fractions":
        try:
            return float(got)
        except OverflowError:  # past the largest float: an int keeps it exact, as a plain int would be
            numerator, denominator = int(got.numerator), int(got.denominator)
            return numerator if denominator == 1 else (math.inf if numerator > 0 else -math.inf)
    raise refuse()


#: The tightest relative tolerance: a few float32 roundings (its epsilon is 1.2e-7). A student who computes
#: ``ridge_point`` with torch tensors gets a relative error near 4e-8, which a 1e-9 tolerance called wrong.
FLOAT32_RTOL = 1e-6


def _rtol_in_force(rtol: float | None) -> float | None:
    return None if rtol is None else max(rtol, FLOAT32_RTOL)


def _tolerance_of(expected: float, rtol: float | None, atol: float | None) -> float:
    return max((_rtol_in_force(rtol) or 0.0) * abs(expected), atol or 0.0)


def _shown_apart(expected: float | int, got: float | int) -> tuple[str, str]:
    """The two numbers with as many digits as make them differ on the page (never "expected 1.87878e+06,
    got 1.87878e+06")."""
    try:
        for digits in (6, 9, 12, 17):
            a, b = f"{float(expected):.{digits}g}", f"{float(got):.{digits}g}"
            if a != b:
                return a, b
    except OverflowError:  # an int past the largest float
        pass
    return show(expected), show(got)


def _show_int(value: int) -> str:
    """An int as :func:`show` writes it, but one past the largest float by its size (``≈1.79769e+308``):
    its digits, cut at 80 characters, said nothing of it, and past 4300 digits Python refuses to write them."""
    try:
        float(value)
    except OverflowError:
        exponent = math.floor(math.log10(abs(value)))  # log10 takes an int of any size
        mantissa = 10 ** (math.log10(abs(value)) - exponent)
        return f"≈{'-' if value < 0 else ''}{mantissa:.6g}e+{exponent}"
    return show(value)


def _distance(value: float | int, expected: float | int) -> float:
    """``|value - expected|`` as a float. Python subtracts an int from a float by turning the int into a float,
    and an int past the largest float (``2**1024 - 1``, a student's answer) raised OverflowError, which lost
    the whole batch; its distance from any finite number is past every float, so it is infinite here, and
    the answer is wrong with the usual message (an error of inf)."""
    try:
        return float(abs(value - expected))
    except OverflowError:
        return math.inf


def number_mismatch(expected: Any, got: Any, rtol: float | None, atol: float | None) -> Text | None:
    """Compare one number; see the module docstring."""
    try:
        value = as_number(got, show(expected))
    except NotANumber as exc:
        return exc.text
    if isinstance(value, float) and not math.isfinite(value):  # an int is always finite, however large
        if isinstance(expected, float) and not math.isfinite(expected) and value == expected:
            return None
        return Text("not_finite", {"expected": show(expected), "got": show(value)})
    diff = _distance(value, expected)
    tol = _tolerance_of(expected, rtol, atol)
    if diff <= tol:
        return None
    rel = diff / abs(expected) if expected != 0 else math.inf
    shown_expected = show(float(expected)) if isinstance(expected, float) else show(expected)
    shown_got = show(float(value)) if isinstance(value, float) else _show_int(value)
    if shown_expected == shown_got:
        shown_expected, shown_got = _shown_apart(expected, value)
    fields: dict[str, Any] = {
        "expected": shown_expected,
        "got": shown_got,
        "diff": f"{diff:.3g}",
        "rel": f"{rel:.3g}",
        "tol": f"{tol:.3g}",
        "rtol": f"{_rtol_in_force(rtol):.3g}" if rtol is not None else "-",
        "atol": f"{atol:.3g}" if atol is not None else "-",
    }
    slip = slips.find(expected, value, tol)  # a recognisable slip, named after the numbers (describe)
    if slip is not None:
        fields["_slip"] = slip
    if rtol is None and atol is None:
        return Text("exact", fields)
    if atol is None:
        return Text("num_rel", fields)
    if rtol is None:
        return Text("num_abs", fields)
    return Text("num_both", fields)


def _array_mismatch(expected: np.ndarray, got: Any, rtol: float | None, atol: float | None) -> Text | None:
    fields = {"shape": tuple(expected.shape), "kind": kind_of(got), "got": show(got)}
    tensor = _torch_tensor_type()
    if tensor is not None and isinstance(got, tensor):
        got = got.detach().cpu().numpy()
    if isinstance(got, (str, bytes, bool)) or got is None:
        return Text("not_array", fields)
    try:
        arr = np.asarray(got, dtype=float)
    except OverflowError:  # an int past the largest float among the elements: as a float, infinite
        arr = np.asarray(_overflowed(got), dtype=float)
    except (TypeError, ValueError):
        return Text("not_array", fields)
    if arr.shape != expected.shape:
        return Text("wrong_shape", {"shape": tuple(expected.shape), "got_shape": tuple(arr.shape)})
    finite = np.isfinite(arr)
    if not finite.all():
        index = tuple(int(i) for i in np.argwhere(~finite)[0])
        return Text("array_not_finite", {"index": list(index), "got": show(float(arr[index]))})
    exp = expected.astype(float)
    diff = np.abs(arr - exp)
    tol = np.maximum((rtol or 0.0) * np.abs(exp), atol or 0.0)
    bad = diff > tol
    if not bad.any():
        return None
    excess = np.where(bad, diff - tol, -np.inf)
    index = tuple(int(i) for i in np.unravel_index(int(np.argmax(excess)), exp.shape))
    return Text(
        "array_item",
        {
            "index": list(index),
            "expected": show(float(exp[index])),
            "got": show(float(arr[index])),
            "diff": f"{float(diff[index]):.3g}",
            "tol": f"{float(tol[index]):.3g}",
            "count": int(bad.sum()),
        },
    )


def _overflowed(value: Any) -> Any:
    """``value`` (nested lists of numbers) with every number past the largest float (an int, a fraction) as the
    infinity of its sign, which the array rule reports as the element that is not finite."""
    if isinstance(value, (list, tuple)):
        return [_overflowed(v) for v in value]
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        try:
            float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    return value


def _located(where: str, text: Text | None) -> Text | None:
    if text is None or not where:
        return text
    fields = dict(text.fields)
    fields["_where"] = where + fields.get("_where", "")
    return Text(text.key, fields)


def mismatch(expected: Any, got: Any, rtol: float | None = None, atol: float | None = None) -> Text | None:
    """None when ``got`` matches ``expected`` under the tolerance, else why not (see the module docstring).

    A mismatch inside a structure carries its location in the field ``_where`` (e.g. ``[1].bound``);
    :func:`grader.text.catalogue` callers render it with :func:`describe`.
    """
    if expected is None:
        return None if got is None else Text("not_none", {"got": show(got)})
    if isinstance(expected, (bool, np.bool_)):
        if isinstance(got, (bool, np.bool_)) and bool(got) == bool(expected):
            return None
        key = "exact" if isinstance(got, (bool, np.bool_)) else "not_bool"
        return Text(key, {"expected": show(bool(expected)), "got": show(got), "kind": kind_of(got)})
    if isinstance(expected, str):
        if isinstance(got, str) and str.__str__(got) == expected:
            return None
        key = "exact" if isinstance(got, str) else "not_str"
        return Text(key, {"expected": show(expected), "got": show(got), "kind": kind_of(got)})
    if isinstance(expected, (numbers.Real, np.integer, np.floating)):
        return number_mismatch(
            expected.item() if isinstance(expected, np.generic) else expected, got, rtol, atol
        )
    if isinstance(expected, np.ndarray):
        if expected.ndim == 0:
            return number_mismatch(expected.item(), got, rtol, atol)
        return _array_mismatch(expected, got, rtol, atol)
    if isinstance(expected, Mapping):
        if not isinstance(got, Mapping):
            return Text("not_mapping", {"keys": show(list(expected)), "kind": kind_of(got), "got": show(got)})
        for key, value in expected.items():
            if key not in got:
                return Text("missing_key", {"key": show(key)})
            found = _located(f"[{key!r}]", mismatch(value, got[key], rtol, atol))
            if found is not None:
                return found
        return None
    if isinstance(expected, (tuple, list)):
        names = getattr(type(expected), "_fields", None)
        if isinstance(got, np.ndarray) and got.ndim == 1:
            got = list(got)
        if not isinstance(got, (tuple, list)):
            return Text("not_sequence", {"length": len(expected), "kind": kind_of(got), "got": show(got)})
        if len(got) != len(expected):
            return Text("wrong_length", {"length": len(expected), "got_length": len(got)})
        for i, (want, have) in enumerate(zip(expected, tuple(got), strict=True)):
            where = f".{names[i]}" if names else f"[{i}]"
            found = _located(where, mismatch(want, have, rtol, atol))
            if found is not None:
                return found
        return None
    if dataclasses.is_dataclass(expected) and not isinstance(expected, type):
        for field in dataclasses.fields(expected):
            if not hasattr(got, field.name):
                return Text("missing_field", {"field": field.name})
            found = _located(
                f".{field.name}",
                mismatch(getattr(expected, field.name), getattr(got, field.name), rtol, atol),
            )
            if found is not None:
                return found
        return None
    raise TypeError(f"the grader cannot compare expected values of type {type(expected).__name__}")


def describe(text: Text, lang: str) -> str:
    """Render a mismatch, with its location inside a structured value when it has one, and the slip that
    explains the number when one does (before anything the caller adds, such as the check's hint)."""
    fields = dict(text.fields)
    where = fields.pop("_where", "")
    slip = fields.pop("_slip", None)
    body = Text(text.key, fields).render(lang)
    if where:
        body = Text("at", {"where": where}).render(lang) + body
    if slip is not None:
        body += render("sep", lang) + slips.say(slip, lang)
    return body
