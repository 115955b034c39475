"""Checks of measurement 5 (fixed overhead): solutions/m5_overhead.py.

The overhead curve's shape test reads its last two points as "linear growth", which holds only where both
lie in one level of the memory hierarchy: :func:`overhead_sizes` picks them from this machine
(:mod:`grader.specs.sizes`), both in the last-level cache (at most half of it, the smaller past twice the L2) where
it is large enough for that, else both in DRAM (the smaller a DRAM working set by itself). The student's
function receives the sizes; the stub says that the grader chooses them for the machine.

m5a's n_elements are drawn per submission, the graded one and seven probes from one distribution
(:func:`add_input`: log-uniform over :data:`ADD_ELEMENTS`, stratified by the judge so that every stretch of
the range is met). Below about 2^14 elements an add costs its fixed overhead (1.7-2.3 us on a 2-vCPU EPYC),
above it the time grows with the bytes (11 us at 2^16, 0.2 ms at 2^20): a made-up time for the small sizes
is a constant, which perfcore's time leaves by more than the band somewhere within every 1.4 octaves of
that growth, and the draws are never farther apart than that. The small sizes' own calls claim microseconds,
too few for the CPU-time rule to read; they are judged by this rule instead, which needs no reading.
"""

import random

from grader.specs.check import Exercise, MeasurementCheck, ShapeCheck, Work
from grader.specs.requirements import Requirements
from grader.specs.sizes import Memory, pow2_at_least, pow2_at_most
from perfcore.measure import add_time
from perfcore.measure.core import dram_working_set

#: torch.add(a, b, out=c) in FP32 reads two arrays and writes one: 12 bytes an element.
ADD_BYTES_PER_ELEMENT = 12
SMALL_SIZES = (16, 256, 4096)
#: The probe draws an add the student has not been asked about from this range (48 to 192 MiB moved): far
#: past the fixed overhead, so its time follows the bandwidth, which a made-up figure cannot follow.
PROBE_ELEMENTS = (1 << 22, 1 << 24)


def overhead_sizes(memory: Memory) -> tuple[int, ...]:
    """The sizes of the overhead curve for ``memory``: three small ones (fixed overhead), then a pair four
    times apart in one memory level (see the module docstring)."""
    llc, l2 = memory.llc_bytes, memory.level_bytes(2)
    high = pow2_at_most(llc / 2 / ADD_BYTES_PER_ELEMENT)  # at most half of the last-level cache
    low = high // 4
    if memory.known and l2 < llc and low * ADD_BYTES_PER_ELEMENT >= 2 * l2 and low > SMALL_SIZES[-1] * 16:
        return (*SMALL_SIZES, low, high)
    low = pow2_at_least(dram_working_set(llc) / ADD_BYTES_PER_ELEMENT)  # a DRAM working set by itself
    return (*SMALL_SIZES, low, 4 * low)


#: m5a's range of n_elements (log2): the fixed overhead to past the L2 of most machines. Eight draws
#: (:data:`ADD_PROBES` + 1), stratified, leave no stretch of 11/8 octaves unmet.
ADD_ELEMENTS = (10, 21)
ADD_PROBES = 7


def add_input(u: float, rng: random.Random) -> dict[str, int]:
    """m5a's input at quantile ``u``: log-uniform over :data:`ADD_ELEMENTS`, a multiple of 16 elements."""
    low, high = ADD_ELEMENTS
    return {"n_elements": max(16, round(2 ** (low + u * (high - low)) / 16) * 16)}


def _add_work(n_elements: int) -> Work:
    return Work(bytes=ADD_BYTES_PER_ELEMENT * n_elements)


def _curve(sizes: tuple[int, ...]) -> list[tuple[int, float]]:
    return [(n, add_time(n_elements=n)) for n in sizes]


def _curve_probe(rng: random.Random) -> dict[str, tuple[int, ...]]:
    """A curve at sizes the student has not seen, one of them far past the last-level cache: its add takes
    milliseconds, so a call that did not run it comes back visibly too soon."""
    low, high = PROBE_ELEMENTS
    return {"sizes": (16, rng.randrange(1 << 12, 1 << 14, 16), rng.randrange(low, high + 1, 4096))}


def _curve_work(sizes: tuple[int, ...]) -> Work:
    return Work(bytes=ADD_BYTES_PER_ELEMENT * sum(sizes))


_SIZES = overhead_sizes(Memory.here())


def _add(n_elements: int) -> float:
    return add_time(n_elements=n_elements)


EXERCISE = Exercise(
    id="m5",
    module="m5_overhead",
    title_zh="固定开销",
    title_en="Fixed overhead",
    checks=(
        MeasurementCheck(
            id="add_16",
            part="m5a",
            points=2,
            func="add_time",
            kwargs={"n_elements": 1 << ADD_ELEMENTS[0]},
            reference=_add,
            work=_add_work,
            inputs=add_input,
            probes=ADD_PROBES,
            kind="overhead",
            rounds=5,
            higher_is_better=False,
            unit="s",
            hint_zh="一次调用只有几微秒：一次计时里调用很多次再平均。",
            hint_en="One call takes microseconds: time many calls in one block and divide.",
        ),
        ShapeCheck(
            id="overhead_curve",
            part="m5b",
            points=3,
            func="overhead_curve",
            kwargs={"sizes": _SIZES},
            shape="overhead",
            work=_curve_work,
            reference=_curve,
            probe=_curve_probe,
            kind="overhead",
            rounds=3,
            requires=Requirements(
                torch=">=2.0", serial=True, caches=True, memory_bytes=ADD_BYTES_PER_ELEMENT * _SIZES[-1]
            ),
            timeout_s=120,
            hint_zh="返回 (元素数, 秒) 对；小的时候是固定开销，大的时候随元素数线性增长。",
            hint_en="Return (elements, seconds) pairs: flat overhead when small, linear growth when large.",
        ),
    ),
)
