"""Checks of measurement 1 (memory bandwidth of one core): solutions/m1_copy_bandwidth.py.

The copy's source and destination together make a DRAM working set on this machine (:mod:`grader.specs.sizes`):
at least 4 x its last-level cache, so 2 x 128 MiB on a 32 MiB L3 and more on a Xeon reporting 300 MiB. Both
inputs are drawn per submission, so that no size tells the graded call from the probe: the graded copy from
one to :data:`GRADED_SPAN` times that size (:func:`graded_range`), the probe an in-cache size
(:func:`probe_range`); which of the two a function meets first is a coin of the submission's seed.
"""

import random

from grader.checks import bandwidth_bound
from grader.compare import outputs
from grader.specs.check import Exercise, MeasurementCheck, Work
from grader.specs.handed import Buffer, Handed
from grader.specs.requirements import Requirements
from grader.specs.sizes import Memory, cache_buffer_bytes, dram_buffer_bytes
from perfcore.measure import copy_bandwidth

MiB = 1 << 20


def copy_bytes(memory: Memory) -> int:
    """n_bytes of the graded copy: source and destination together a DRAM working set of ``memory``."""
    return dram_buffer_bytes(memory, buffers=2)


#: The graded copy's n_bytes is drawn from copy_bytes(memory) to this many times it.
GRADED_SPAN = 1.5


def graded_range(memory: Memory) -> tuple[int, int]:
    """The graded copy's n_bytes range: from the smallest DRAM working set of two buffers to
    :data:`GRADED_SPAN` times it (DRAM's bandwidth is the same across it)."""
    low = copy_bytes(memory)
    return low, int(low * GRADED_SPAN)


def probe_range(memory: Memory) -> tuple[int, int]:
    """The probe's n_bytes range: past the L2 (where one can be read), source and destination together at
    most half of the last-level cache, so the probe measures that cache's bandwidth."""
    high = cache_buffer_bytes(memory, buffers=2)
    low = min(max(memory.level_bytes(2), MiB), high // 2)
    return low, high


def _copy(n_bytes: int) -> float:
    return copy_bandwidth(n_bytes=n_bytes, path="torch")


def _copy_probe(rng: random.Random) -> dict[str, int]:
    """A copy the student has not been asked about, in the last-level cache: a cache's bandwidth, which a
    made-up DRAM figure cannot follow."""
    memory = Memory.here()
    low, high = probe_range(memory)
    return {"n_bytes": rng.randrange(low, high + 1, memory.page_bytes)}


def _copy_graded(rng: random.Random) -> dict[str, int]:
    """The graded copy of this submission: a DRAM working set, its size drawn from :func:`graded_range`."""
    memory = Memory.here()
    low, high = graded_range(memory)
    return {"n_bytes": rng.randrange(low, high + 1, memory.page_bytes)}


def _copy_buffers(n_bytes: int) -> dict[str, Buffer]:
    """The student's src and dst: two FP32 tensors of n_bytes each, made apart by the judge."""
    shape = (n_bytes // 4,)
    return {"src": Buffer(shape, fill="uniform"), "dst": Buffer(shape, output=True)}


#: The copy's arguments and its result: dst equal to src.
COPY_HANDED = Handed(
    arguments=_copy_buffers,
    result=lambda got, **_: outputs.copied(got),
    result_zh="dst 与 src 逐位相等",
    result_en="dst equal to src, bit for bit",
    watched="dst",
    at=lambda got, where, **_: outputs.copied_at(got, where),
    written_once=True,
)


def _copy_work(n_bytes: int) -> Work:
    """One copy reads n_bytes and writes n_bytes."""
    return Work(bytes=2 * n_bytes)


_N_BYTES, _MOST_BYTES = graded_range(Memory.here())

EXERCISE = Exercise(
    id="m1",
    module="m1_copy_bandwidth",
    title_zh="单核的内存带宽",
    title_en="Memory bandwidth of one core",
    checks=(
        MeasurementCheck(
            id="copy_bandwidth",
            part="m1",
            points=3,
            func="copy_bandwidth",
            kwargs={"n_bytes": _N_BYTES},
            reference=_copy,
            work=_copy_work,
            handed=COPY_HANDED,
            graded_input=_copy_graded,
            probe=_copy_probe,
            probe_kind="cache",
            kind="dram",
            rounds=5,
            physical_bound=bandwidth_bound,
            requires=Requirements(torch=">=2.0", serial=True, caches=True, memory_bytes=2 * _MOST_BYTES),
            hint_zh="两个各自预先分配的张量，dst.copy_(src)；输出先写一遍；带宽 = 2 × n_bytes / 时间。",
            hint_en="Two tensors allocated apart, dst.copy_(src); touch the output first; bandwidth = "
            "2 x n_bytes / time.",
        ),
    ),
)
