"""Checks of measurement 5 (fixed overhead): solutions/m5_overhead.py.

The overhead curve's shape test reads its last two points as "linear growth", which holds only where both
lie in one level of the memory hierarchy: :func:`overhead_sizes` picks them from this machine
(:mod:`grader.specs.sizes`), both in the last-level cache (at most half of it, the smaller past twice the L2) where
it is large enough for that, else both in DRAM (the smaller a DRAM working set by itself). The student's
function receives the sizes; the stub says that the grader chooses them for the machine.

m5b's sizes are drawn per submission (:func:`curve_input`), the graded curve and its probe from one
distribution: three small sizes, then the pair, its place within its level at quantile ``u`` (in the LLC its
larger size over the octave below half the LLC, in DRAM its smaller one over the first quarter past a DRAM
working set), so that no size tells the graded call and a table made up for one set of sizes meets another.

m5a's n_elements are drawn per submission, the graded one and seven probes from one distribution
(:func:`add_input`: log-uniform over :data:`ADD_ELEMENTS`, stratified by the judge so that every stretch of
the range is met). Below about 2^14 elements an add costs its fixed overhead (1.7-2.3 us on a 2-vCPU EPYC),
above it the time grows with the bytes (11 us at 2^16, 0.2 ms at 2^20): a made-up time for the small sizes
is a constant, which perfcore's time leaves by more than the band somewhere within every 1.4 octaves of
that growth, and the draws are never farther apart than that. The small sizes' own calls claim microseconds,
too few for the CPU-time rule to read; they are judged by this rule instead, which needs no reading.

Both take the judge's buffers (issue 45): m5a's x and out of its size, m5b's of all its sizes back to back,
each point's adds on its own piece (:data:`CURVE_HANDED`). The add accumulates, ``out += x``
(``torch.add(out, x, out=out)``, the same 12 bytes an element as ``torch.add(a, b, out=c)``): out is handed
at zero and x holds powers of two, so after r adds out holds r x exactly, and the judge's witness counts
every run however fast it is (an add of microseconds finishes hundreds of times between two of its looks),
each point's on its own piece. When the call returns out must hold a whole number of adds, at least one.
"""

import random

from grader.compare import outputs
from grader.specs.check import Exercise, MeasurementCheck, ShapeCheck, Work
from grader.specs.handed import Buffer, Handed, back_to_back
from grader.specs.requirements import Requirements
from grader.specs.sizes import Memory, pow2_at_least, pow2_at_most
from perfcore.measure import accumulate_time
from perfcore.measure.core import dram_working_set

#: torch.add(out, x, out=out) in FP32 reads two arrays and writes one: 12 bytes an element. The sizes below
#: count them for the working set too, more than the 8 bytes x and out hold: the pair in the LLC stays within
#: a third of it, and in DRAM is still more than twice it.
ADD_BYTES_PER_ELEMENT = 12
SMALL_SIZES = (16, 256, 4096)
#: The ranges of the curve's three small sizes (elements, multiples of 16), all within the fixed overhead.
SMALL_RANGES = ((16, 256), (256, 1024), (1024, 4096))


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
    return [(n, accumulate_time(n_elements=n)) for n in sizes]


#: The pair's draw: in the LLC, its larger size from half of the largest to the largest (an octave); in
#: DRAM, its smaller size from the smallest to DRAM_SPAN times it.
DRAM_SPAN = 1.25


def pair_range(memory: Memory) -> tuple[int, int]:
    """The range of the smaller size of the curve's last pair (the larger is four times it), in elements,
    within the level :func:`overhead_sizes` chose for ``memory``: in the LLC an octave downwards (the
    smaller still past twice the L2), in DRAM upwards by :data:`DRAM_SPAN`."""
    *_, low, high = overhead_sizes(memory)
    if memory.known and high * ADD_BYTES_PER_ELEMENT <= memory.llc_bytes // 2:
        past_l2 = -(-2 * memory.level_bytes(2) // (ADD_BYTES_PER_ELEMENT * 4096)) * 4096
        least = max(low // 2, past_l2)
        return min(least, low), low
    return low, int(low * DRAM_SPAN)


def curve_input(u: float, rng: random.Random, memory: Memory | None = None) -> dict[str, tuple[int, ...]]:
    """m5b's sizes at quantile ``u`` of its pair's range (log-uniform), the small ones drawn from ``rng``."""
    memory = memory or Memory.here()
    small = tuple(rng.randrange(a, b, 16) for a, b in SMALL_RANGES)
    least, most = pair_range(memory)
    low = max(16, round(least * (most / least) ** u / 4096) * 4096)
    return {"sizes": (*small, low, 4 * low)}


def curve_bytes(memory: Memory) -> int:
    """The largest drawn curve's working set, at the add's 12 bytes an element (x and out hold 8: room for a
    third array a function may keep beside them)."""
    return ADD_BYTES_PER_ELEMENT * (sum(b for _, b in SMALL_RANGES) + 5 * pair_range(memory)[1])


def _curve_work(sizes: tuple[int, ...]) -> Work:
    return Work(bytes=ADD_BYTES_PER_ELEMENT * sum(sizes))


_SIZES = overhead_sizes(Memory.here())


#: m5a's arguments: x drawn (powers of two), out handed at zero; out must hold r x, r >= 1 adds.
ADD_HANDED = Handed(
    arguments=lambda n_elements: {
        "x": Buffer((n_elements,), fill="powers"),
        "out": Buffer((n_elements,), output=True, zeroed=True),
    },
    result=lambda got, **_: outputs.accumulated(got),
    result_zh="out 等于 r·x（r 是做过的加法次数，至少一次，逐位相同）",
    result_en="out equal to r·x, r the adds run (at least one), bit for bit",
    watched="out",
    counted=lambda got, where, **_: outputs.added_at(got, where),
)

#: m5b's arguments: x and out of every size back to back (sum(sizes) elements), the sizes themselves; each
#: point works on its own piece (``x.split(sizes)``), which the witness counts apart.
CURVE_HANDED = Handed(
    arguments=lambda sizes: {
        "x": Buffer((sum(sizes),), fill="powers"),
        "out": Buffer((sum(sizes),), output=True, zeroed=True),
        "sizes": tuple(sizes),
    },
    result=lambda got, sizes, **_: outputs.accumulated(got, back_to_back(sizes)),
    result_zh="out 的每一段等于 r·x（r 是这一段做过的加法次数，至少一次，逐位相同）",
    result_en="out equal to r·x in every piece, r the adds run on it (at least one), bit for bit",
    watched="out",
    counted=lambda got, where, **_: outputs.added_at(got, where),
    segments=lambda sizes: back_to_back(sizes),
)


def _add(n_elements: int) -> float:
    return accumulate_time(n_elements=n_elements)


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
            handed=ADD_HANDED,
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
            handed=CURVE_HANDED,
            reference=_curve,
            inputs=curve_input,
            kind="overhead",
            rounds=3,
            requires=Requirements(
                torch=">=2.0", serial=True, caches=True, memory_bytes=curve_bytes(Memory.here())
            ),
            timeout_s=120,
            hint_zh="返回 (元素数, 秒) 对；小的时候是固定开销，大的时候随元素数线性增长。",
            hint_en="Return (elements, seconds) pairs: flat overhead when small, linear growth when large.",
        ),
    ),
)
