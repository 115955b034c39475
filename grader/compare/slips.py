"""Slips: a wrong number that one recognisable mistake explains, named before the check's fixed hint.

A slip is a factor between the student's number and the right one that a common mistake produces: a unit
prefix (10^3, 10^6, 10^9: ms, µs, ns; k, M, G), binary against decimal prefixes (1.024^k: KiB to TiB against kB to TB),
bits against bytes (8), a multiply-add counted once or FP16 against FP32 bytes or one of K and V (2),
elements against FP32 bytes (4), a percentage (100), a turned sign (-1), the reciprocal, or two arguments
swapped. A slip is
named only where undoing it brings the number within the check's own tolerance, and only where the slip
moves a number by more than twice that tolerance: a number near the tolerance's edge is a near miss, not
a slip. The swapped pair needs perfcore's value at the swapped input, which the judge computes in its own
trusted process (:mod:`grader.judge.runners.formula`); this module only lists the pairs.

A measurement has no expected figure, only a range of figures possible for the call that returned it; a
figure outside that range that one unit slip brings inside it gets "check the units" (still scoring 0)
instead of "no measurement taken", which it would read as an accusation.

Nothing here imports the rest of :mod:`grader.compare`: :mod:`grader.compare.values` calls it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from numbers import Real
from typing import Any, NamedTuple

from ..text.catalogue import MESSAGES, Text, render


class Slip(NamedTuple):
    """One slip: its message key (``slip_<name>``), the factor it puts on a number (the wrong number over
    the right one) and that factor as the message shows it."""

    name: str
    factor: float
    shown: str


#: Every slip a factor explains, the most common first (the first of two that explain a number equally).
SLIPS: tuple[Slip, ...] = (
    Slip("kilo_more", 1e3, "10^3"),
    Slip("kilo_less", 1e-3, "10^-3"),
    Slip("mega_more", 1e6, "10^6"),
    Slip("mega_less", 1e-6, "10^-6"),
    Slip("giga_more", 1e9, "10^9"),
    Slip("giga_less", 1e-9, "10^-9"),
    Slip("bits_more", 8.0, "8"),
    Slip("bits_less", 1 / 8, "1/8"),
    Slip("double", 2.0, "2"),
    Slip("half", 0.5, "1/2"),
    Slip("quad", 4.0, "4"),
    Slip("quarter", 0.25, "1/4"),
    Slip("sign", -1.0, "-1"),
    Slip("percent_more", 100.0, "100"),
    Slip("percent_less", 0.01, "1/100"),
    Slip("binary", 1.024, "1.024"),
    Slip("binary", 1 / 1.024, "1/1.024"),
    Slip("binary", 1.024**2, "1.024^2 = 1.048576"),
    Slip("binary", 1 / 1.024**2, "1/1.048576"),
    Slip("binary", 1.024**3, "1.024^3 = 1.073741824"),
    Slip("binary", 1 / 1.024**3, "1/1.073741824"),
    Slip("binary", 1.024**4, "1.024^4 = 1.099511627776"),
    Slip("binary", 1 / 1.024**4, "1/1.099511627776"),
)

#: The slips a measured figure may carry: a percentage is no unit of a rate or a time, and a figure is
#: positive.
UNIT_SLIPS: tuple[Slip, ...] = tuple(s for s in SLIPS if not s.name.startswith("percent") and s.factor > 0)
#: The slips a time (unit "s") may carry: a unit prefix (ms, µs, ns for s). A time counts no bytes, bits or
#: FLOPs, so a figure in seconds off by 2, 4, 8 or 1.024 is no unit slip (issue 37: m4's k passes, claimed
#: 1.9x longer than the call lasted, were told "check the units" as "a multiply-add counted once").
TIME_SLIPS: tuple[Slip, ...] = tuple(
    s for s in UNIT_SLIPS if s.name.split("_")[0] in ("kilo", "mega", "giga")
)

#: A few float64 roundings: an exact check (no tolerance) still sees ``got / 1e3`` as the number it undoes.
_ROUNDING = 8 * 2.0**-52


def _real(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, Real):
        return None
    try:
        value = float(x)
    except OverflowError:
        return None
    return value if math.isfinite(value) and value != 0 else None


def _explains(undone: float, expected: float, moved: float, tol: float) -> float | None:
    """How far ``undone`` (the student's number with the slip undone) is from ``expected`` where it is within
    ``tol``, and the slip moved the number by more than twice ``tol``; None otherwise."""
    slack = max(tol, _ROUNDING * abs(expected))
    distance = abs(undone - expected)
    if distance <= slack and moved > 2 * slack:
        return distance
    return None


def find(expected: Any, got: Any, tol: float) -> Text | None:
    """The slip that explains ``got`` where ``expected`` is right (``tol``: the check's absolute tolerance
    at ``expected``), as a message (:func:`say`); None where no slip explains it, or either is no number."""
    right, wrong = _real(expected), _real(got)
    if right is None or wrong is None:
        return None
    best: tuple[float, Text] | None = None
    for slip in SLIPS:
        distance = _explains(wrong / slip.factor, right, abs(right * slip.factor - right), tol)
        if distance is not None and (best is None or distance < best[0]):
            best = (distance, Text("slip_value", {"factor": slip.shown, "cause": f"slip_{slip.name}"}))
    distance = _explains(1 / wrong, right, abs(1 / right - right), tol)
    if distance is not None and (best is None or distance < best[0]):
        best = (distance, Text("slip_value_reciprocal", {"cause": "slip_reciprocal"}))
    return best[1] if best else None


#: Where a question counts a KV cache (its id, function or hint says KV, or K and V): only there is a factor
#: of 2 the K and V counted once or twice (:func:`fitted`).
_KV = re.compile(r"(?<![a-z])kv(?![a-z])|\bK and V\b", re.IGNORECASE)
#: The 2-byte types a question may name; a factor-2 slip of its bytes is told in that type's terms.
_TWO_BYTE_TYPES = ("BF16", "FP16")


def fitted(text: Text, *words: str) -> Text:
    """``text`` (a mismatch) with a factor-2 slip's cause told in the question's terms (``words``: the
    check's id, function and hint): K and V only where the question counts a KV cache; the 2-byte type the
    question names (BF16 or FP16) where it names one; else neither (a BF16 question was told of "FP16's 2
    bytes" and of "both K and V", issue 47). Any other text is returned as it is."""
    slip = text.fields.get("_slip")
    if not isinstance(slip, Text) or slip.fields.get("cause") not in ("slip_double", "slip_half"):
        return text
    said = " ".join(words)
    fields: dict[str, Any] = dict(slip.fields)
    named = [t for t in _TWO_BYTE_TYPES if t.casefold() in said.casefold()]
    if _KV.search(said):
        fields["cause"] += "_kv"
    elif len(named) == 1:
        fields["cause"] += "_typed"
        fields["dtype"] = named[0]
    return Text(text.key, {**text.fields, "_slip": Text(slip.key, fields)})


def swapped_pairs(kwargs: Mapping[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Each pair of numeric arguments with different values, and the arguments with those two swapped: the
    inputs at which the judge asks perfcore whether the student swapped them."""
    names = [k for k, v in kwargs.items() if isinstance(v, Real) and not isinstance(v, bool)]
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if kwargs[a] != kwargs[b]:
                yield a, b, {**kwargs, a: kwargs[b], b: kwargs[a]}


def swapped(a: str, b: str) -> Text:
    """The slip of a value that perfcore gives with the arguments ``a`` and ``b`` swapped."""
    return Text("slip_value_swapped", {"a": a, "b": b, "cause": "slip_swapped"})


def unit_slip(
    figure: float,
    low: float,
    high: float,
    swallowed: tuple[float, float] = (1.0, 1.0),
    unit: str | None = None,
) -> Slip | None:
    """The unit slip (the smallest factor first) that brings a measured ``figure`` into ``[low, high]``, the
    figures possible for the call that returned it; None where it is inside already or no slip brings it.
    ``swallowed``: factors a tolerance takes in (a band's own width), which explain nothing. ``unit``: the
    figure's unit where known; a time ("s") carries only a prefix slip (:data:`TIME_SLIPS`)."""
    if not (figure > 0 and math.isfinite(figure)) or low <= figure <= high:
        return None
    least, most = swallowed
    candidates = TIME_SLIPS if unit == "s" else UNIT_SLIPS
    fits = [s for s in candidates if not least <= s.factor <= most and low <= figure / s.factor <= high]
    return min(fits, key=lambda s: abs(math.log(s.factor)), default=None)


def named(text: Text) -> bool:
    """Whether ``text`` names a slip: then the check's fixed hint, which is about something else, is left
    out of the feedback."""
    return "_slip" in text.fields


def with_slip(text: Text, slip: Text | None) -> Text:
    """``text`` (a mismatch) with ``slip`` to be named after it (:func:`grader.compare.values.describe`)."""
    return text if slip is None else Text(text.key, {**text.fields, "_slip": slip})


def beyond(
    got: float, reference: float, band: tuple[float, float], bound: float | None, higher: bool, unit: str
) -> dict[str, Text]:
    """For the message of a figure beyond the machine's physical ``bound``: ``{"_slip": the slip}`` where one
    unit slip brings ``got`` within the bound and within ``band`` of perfcore's ``reference`` figure (bits
    counted for bytes, a k too few), else nothing; nothing either where ``got`` is within the bound.
    ``higher``: the bound is a ceiling (a rate), else a floor (a time)."""
    if bound is None or (got <= bound if higher else got >= bound):
        return {}
    low, high = reference * band[0], reference * band[1]
    low, high = (low, min(high, bound)) if higher else (max(low, bound), high)
    slip = unit_slip(got, low, high, unit=unit)
    if slip is None:
        return {}
    fixed = f"{got / slip.factor:.6g}"
    fields = {"times": times(slip), "fixed": fixed, "unit": unit, "cause": cause_of(slip, unit)}
    return {"_slip": Text("slip_measure_units", fields)}


def say(text: Text, lang: str) -> str:
    """A slip's message (from :func:`find`, :func:`swapped` or :func:`units`) in ``lang``: its lead with
    its cause filled in."""
    fields = dict(text.fields)
    cause = render(fields.pop("cause"), lang, **fields)
    return render(text.key, lang, cause=cause, **fields)


def times(slip: Slip) -> str:
    """What undoes ``slip``, as a message shows it: the factor of its inverse in :data:`SLIPS`."""
    inverse = min(
        (s for s in SLIPS if s.factor * slip.factor > 0), key=lambda s: abs(math.log(s.factor * slip.factor))
    )
    return inverse.shown


def cause_of(slip: Slip, unit: str) -> str:
    """The message key of ``slip``'s cause for a figure in ``unit``: a rate's own where it has one (a
    figure in GB/s where B/s are asked is no matter of seconds), else the general one."""
    rate = f"slip_{slip.name}_rate"
    return rate if unit != "s" and rate in MESSAGES else f"slip_{slip.name}"


def units(figure: float, unit: str, low: float, high: float, lang: str, **fields: str) -> str | None:
    """ "check the units" for a measured ``figure`` (in ``unit``) outside ``[low, high]`` that one unit slip
    brings inside, in ``lang`` (``fields``: ``func`` and ``inputs`` of the call); None where none does. Only
    a slip explains a figure: one of its unit's (:func:`unit_slip`), by more than the range's own width (a
    figure just past an edge of ``[low, high]`` is a near miss, which a factor inside that width, 1.024 say,
    would only dress up as a slip)."""
    width = high / low if low > 0 and high >= low else 1.0
    slip = unit_slip(figure, low, high, swallowed=(1.0 / width, width), unit=unit)
    if slip is None:
        return None
    text = Text(
        "measure_units",
        {
            **fields,
            "got": f"{figure:.6g}",
            "unit": unit,
            "fixed": f"{figure / slip.factor:.6g}",
            "times": times(slip),
            "cause": cause_of(slip, unit),
        },
    )
    return say(text, lang)
