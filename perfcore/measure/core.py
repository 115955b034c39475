"""What every experiment shares: the figure it reports, the check against physical bounds, the buffers.

- :class:`Figure`: one measured quantity (seconds per call, the work counted per call, the rate, the noise).
- :func:`time_blocks`: timing.py's method (torch.utils.benchmark.Timer, blocks of at least ``block_s``,
  median and IQR) with one warm-up per measurement instead of Timer.timeit's two warm-up calls before every
  block, which would triple the cost of the second-long calls here (a 4096^3 matmul, a 1 GiB copy). Every
  clock reading here, the Timer's (``timer=``) and the calibrating and ``min_time_s`` ones, is of timing.py's
  clock in force (wall time, or the thread's CPU time within ``timing.cpu_clock()``), taken once per
  measurement.
- :class:`Bounds` and :func:`check_rate`: a rate above what the machine can physically do raises
  :class:`MeasurementError`: it is a bug in the measurement (an asynchronous op, a cached result, a clock
  problem), never a record.
- :func:`workspace`: one flat FP32 buffer, allocated, filled and touched once and reused by every
  experiment, so that no timing pays for page faults (a fresh 128 MiB ``clone`` runs at a fifth of the speed
  of a ``copy_`` into a touched buffer) and the DRAM experiments share their gigabyte.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields, is_dataclass
from typing import Any

from ..validation import positive_int, positive_number
from .machine import MachineInfo, machine_info
from .timing import Timing, clock_in_force, interleave, require_torch

MiB = 1024**2
#: A DRAM working set is at least this many times the last-level cache (so that at most a quarter of it can
#: stay cached between passes).
DRAM_FACTOR = 4
#: A DRAM-sized stream may beat the copy ceiling by this much before it counts as an error: copy's STREAM
#: count (read + write) hides the write-allocate read, so a read-only stream can reach 1.5x its figure on
#: the same memory, and the rest covers noise (the lecture saw matvec at 1.8x copy on an Apple chip, whose
#: copy loses more to write allocation).
DRAM_SLACK = 2.0
#: A FLOP rate above this multiple of the measured compute ceiling is an error. The ceiling is a best-of,
#: but on a shared VM the host slows a core for 5-25 s at a time: best-ofs measured minutes apart were seen
#: to differ by 1.5x, so a tighter slack would call honest figures errors whenever the cached profile was
#: measured in a slow phase. The physical FMA bound (machine.py) holds regardless.
COMPUTE_SLACK = 2.0
#: A call at least this long is its own warm-up (see _warm_and_calibrate).
LONG_CALL_S = 0.1


class MeasurementError(RuntimeError):
    """A measured figure the machine cannot physically produce: the measurement is wrong."""


@dataclass(frozen=True)
class Figure:
    """One measured quantity. ``work`` (bytes or FLOP, as ``unit`` says) is done once per call.

    ``rate`` = work / median time; ``best_rate`` = work / best block, for ceilings only; ``noise`` =
    IQR / median of the blocks; ``counting`` says how ``work`` was counted.
    """

    name: str
    time_s: float
    best_s: float
    noise: float
    work: float
    unit: str  # "byte" or "FLOP"
    rate: float
    best_rate: float
    blocks: int
    calls_per_block: int
    counting: str = ""

    @classmethod
    def from_timing(cls, name: str, timing: Timing, work: float, unit: str, counting: str = "") -> Figure:
        if not (math.isfinite(timing.median_s) and timing.median_s > 0 and timing.best_s > 0):
            raise MeasurementError(f"{name}: the timer returned {timing.median_s!r} s per call")
        return cls(
            name=name,
            time_s=timing.median_s,
            best_s=timing.best_s,
            noise=timing.noise,
            work=float(work),
            unit=unit,
            rate=work / timing.median_s,
            best_rate=work / timing.best_s,
            blocks=len(timing.samples),
            calls_per_block=timing.number,
            counting=counting,
        )


def _block_runner(fn: Callable[[], Any], clock: Callable[[], float]) -> Callable[[int], float]:
    """Seconds by ``clock`` for ``number`` back-to-back calls of ``fn``, timed by torch.utils.benchmark.Timer.

    ``clock`` replaces the Timer's default (perf_counter after synchronizing an accelerator, which no CPU
    work here needs).
    """
    torch = require_torch()
    from torch.utils.benchmark import Timer

    timer = Timer(stmt="fn()", globals={"fn": fn}, timer=clock, num_threads=torch.get_num_threads())
    if hasattr(timer, "_timeit"):  # one block, no warm-up; present in every torch since 1.8
        return timer._timeit

    def run(number: int) -> float:  # pragma: no cover - a torch without it: timeit warms up per block
        return timer.timeit(number).median

    return run


def _warm_and_calibrate(
    fn: Callable[[], Any], run: Callable[[int], float], warmup: int, clock: Callable[[], float]
) -> float:
    """Warm up, then time one call by ``clock`` (a sample when a block is one call).

    A call of LONG_CALL_S or more is its own warm-up: the first call is timed and kept, which spares a
    warm-up that would cost as much as a measurement (cold effects, a millisecond at most, vanish in it).
    """
    if warmup == 0:
        return run(1)
    start = clock()
    fn()
    first = clock() - start
    if first >= LONG_CALL_S:
        return first
    for _ in range(warmup - 1):
        fn()
    return run(1)


def time_blocks(fn: Callable[[], Any], repeats: int = 5, block_s: float = 0.01, warmup: int = 1) -> Timing:
    """Time ``fn()``: ``warmup`` untimed calls, then ``repeats`` blocks of at least ``block_s`` each.

    Uses torch.utils.benchmark.Timer on the current threads (call inside ``single_thread()``). A call that
    alone lasts ``block_s`` or more is one block, and the calibrating call counts as the first block; a call
    of LONG_CALL_S or more is its own warm-up. Seconds, ``block_s`` and LONG_CALL_S are of the clock in
    force when it starts (timing.clock_in_force).
    """
    repeats = positive_int("repeats", repeats)
    block_s = positive_number("block_s", block_s)
    warmup = positive_int("warmup", warmup, allow_zero=True)
    clock = clock_in_force()
    run = _block_runner(fn, clock)
    one = _warm_and_calibrate(fn, run, warmup, clock)
    number = max(1, int(block_s / one)) if one > 0 else 1000
    samples = [one] if number == 1 else []
    while len(samples) < repeats:
        samples.append(run(number) / number)
    return Timing.from_samples(samples, number)


#: Timed blocks in one reference measurement (:func:`round_seconds`).
ROUND_BLOCKS = 3


def round_seconds(fn: Callable[[], Any], block_s: float = 0.01) -> float:
    """Seconds per call: one untimed call, then the median of ROUND_BLOCKS timed blocks of at least
    ``block_s`` each. The unit a grader interleaves with a student's measurement, measured the way the stubs
    ask a student to (warm up, then the median of repeated timings): a lone cold block ran 1.2-1.8x slower
    than a student's median on a 2-vCPU EPYC (ex10's small W: its first calls find the cache holding the
    student's data), which read as an honest student's figure being "too fast"."""
    return time_blocks(fn, repeats=ROUND_BLOCKS, block_s=block_s, warmup=1).median_s


def compare(
    calls: Mapping[str, Callable[[], Any]],
    rounds: int = 3,
    block_s: float = 0.01,
    warmup: int = 1,
    min_time_s: float = 0.0,
    max_rounds: int = 1000,
) -> dict[str, Timing]:
    """Time several calls A B A B ... (timing.interleave): one block of each per round.

    Each call is warmed up and its block size fixed first, so every round times the same number of calls;
    interleaving exposes all of them to the same drift of the machine, which steadies their ratios. When
    every call is long (one call per block), the calibrating calls, made A B in turn, are the first round.
    With ``min_time_s``, rounds go on (up to ``max_rounds``) until that much time has passed: a best-of
    spread over seconds is likelier to include the machine's quiet moments. Every reading, ``min_time_s``'s
    included, is of the clock in force when it starts (timing.clock_in_force).
    """
    rounds = positive_int("rounds", rounds)
    block_s = positive_number("block_s", block_s)
    warmup = positive_int("warmup", warmup, allow_zero=True)
    min_time_s = positive_number("min_time_s", min_time_s, allow_zero=True)
    max_rounds = max(rounds, positive_int("max_rounds", max_rounds))
    clock = clock_in_force()
    started = clock()
    if not calls:
        raise ValueError("calls must name at least one callable")
    blocks: dict[str, Callable[[], float]] = {}
    numbers: dict[str, int] = {}
    first: dict[str, float] = {}
    for name, fn in calls.items():
        run = _block_runner(fn, clock)
        first[name] = _warm_and_calibrate(fn, run, warmup, clock)
        numbers[name] = max(1, int(block_s / first[name])) if first[name] > 0 else 1000
        blocks[name] = functools.partial(_per_call, run, numbers[name])
    reuse = all(number == 1 for number in numbers.values())
    left = rounds - 1 if reuse else rounds
    samples = interleave(blocks, left) if left else {name: [] for name in calls}
    done = rounds
    while clock() - started < min_time_s and done < max_rounds:
        for name, values in interleave(blocks, 1).items():
            samples[name] += values
        done += 1
    out = {}
    for name in calls:
        values = ([first[name]] if reuse else []) + samples[name]
        out[name] = Timing.from_samples(values, numbers[name])
    return out


def _per_call(run: Callable[[int], float], number: int) -> float:
    return run(number) / number


# --------------------------------------------------------------------------------------------------------
# physical bounds
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bounds:
    """What a measured rate may not exceed here. The ``*_limit`` fields come from a measured profile."""

    peak_flops: float  # physical: see machine.py
    bandwidth: float  # physical, any level of the memory hierarchy
    dram_bytes: int  # a working set this large counts as DRAM-resident
    compute_limit: float | None = None  # COMPUTE_SLACK x the measured compute ceiling
    dram_limit: float | None = None  # DRAM_SLACK x the measured bandwidth ceiling
    explained: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["explained"] = dict(self.explained)
        return out


def dram_working_set(llc_bytes: int) -> int:
    """The smallest DRAM working set for a last-level cache of ``llc_bytes``: DRAM_FACTOR x it, rounded up
    to 256 MiB.

    256 MiB keeps each half a whole number of the roofline's 128 MiB weight matrices; on a machine with a
    32 MiB L3 this is the lecture's own 2 x 128 MiB copy. It is also past any system-level cache an OS does
    not report (Apple silicon's is at most 96 MiB), so the floor holds where only the L2 can be read.
    """
    llc_bytes = positive_int("llc_bytes", llc_bytes)
    quantum = 256 * MiB
    return max(quantum, -(-DRAM_FACTOR * llc_bytes // quantum) * quantum)


def dram_bytes(machine: MachineInfo | None = None) -> int:
    """:func:`dram_working_set` of this machine's last-level cache."""
    m = machine or machine_info()
    return dram_working_set(m.llc_bytes)


def make_bounds(machine: MachineInfo | None = None, profile: Any = None) -> Bounds:
    """Bounds for one core of ``machine``; tighter where a measured ``profile`` gives its ceilings."""
    m = machine or machine_info()
    explained = dict(m.bounds_explained())
    compute_limit = dram_limit = None
    if profile is not None:
        compute_limit = COMPUTE_SLACK * profile.peak_flops
        dram_limit = DRAM_SLACK * profile.bandwidth_bytes_per_s
        explained["compute_limit"] = f"{COMPUTE_SLACK} x the measured compute ceiling ({profile.peak_path})"
        explained["dram_limit"] = (
            f"{DRAM_SLACK} x the measured bandwidth ceiling ({profile.bandwidth_path}), for working sets of "
            f"at least {DRAM_FACTOR} x the last-level cache"
        )
    return Bounds(
        peak_flops=m.peak_flops_bound(),
        bandwidth=m.bandwidth_bound(),
        dram_bytes=dram_bytes(m),
        compute_limit=compute_limit,
        dram_limit=dram_limit,
        explained=tuple(explained.items()),
    )


def check_flops(figure: Figure, bounds: Bounds, *, is_ceiling: bool = False) -> Figure:
    """Raise MeasurementError when ``figure`` (FLOP) runs faster than the machine can compute."""
    _check(figure, figure.rate, "FLOP/s", bounds.peak_flops, "the physical FMA peak")
    if bounds.compute_limit is not None and not is_ceiling:
        _check(
            figure,
            figure.rate,
            "FLOP/s",
            bounds.compute_limit,
            f"{COMPUTE_SLACK} x the measured compute ceiling",
        )
    return figure


def check_bandwidth(
    figure: Figure, bounds: Bounds, working_set_bytes: float, *, is_ceiling: bool = False
) -> Figure:
    """Raise MeasurementError when ``figure`` (bytes) moves data faster than the machine can."""
    _check(figure, figure.rate, "bytes/s", bounds.bandwidth, "the physical load/store bound of one core")
    if bounds.dram_limit is not None and working_set_bytes >= bounds.dram_bytes and not is_ceiling:
        _check(
            figure,
            figure.rate,
            "bytes/s",
            bounds.dram_limit,
            f"{DRAM_SLACK} x the measured DRAM bandwidth ceiling (working set {working_set_bytes / MiB:.0f} MiB)",
        )
    return figure


def check_rate(
    figure: Figure, bounds: Bounds, working_set_bytes: float = 0.0, *, is_ceiling: bool = False
) -> Figure:
    """check_flops or check_bandwidth, by the figure's unit."""
    if figure.unit == "FLOP":
        return check_flops(figure, bounds, is_ceiling=is_ceiling)
    return check_bandwidth(figure, bounds, working_set_bytes, is_ceiling=is_ceiling)


def _check(figure: Figure, value: float, unit: str, bound: float, what: str) -> None:
    if not math.isfinite(value) or value <= 0:
        raise MeasurementError(f"{figure.name}: measured {value!r} {unit}, which is no rate at all")
    if value > bound:
        raise MeasurementError(
            f"{figure.name}: measured {value:.3g} {unit}, above {what} ({bound:.3g} {unit}). The measurement "
            "is wrong (an asynchronous or lazy op, a result reused from cache, a broken clock), not a record."
        )


# --------------------------------------------------------------------------------------------------------
# buffers
# --------------------------------------------------------------------------------------------------------

_POOL: dict[str, Any] = {}
#: The fill pattern's length: a prime, so that rows of any power-of-two length all differ.
_PATTERN = 65537


def workspace(n_bytes: int) -> Any:
    """A flat, touched, filled FP32 tensor of at least ``n_bytes`` (one kept per process, grown on demand).

    Values are a repeating pattern of standard normal numbers (seed 0): finite, no denormals, and rows of
    a matrix view differ from each other, so a transposition error cannot hide.
    """
    torch = require_torch()
    n_bytes = positive_int("n_bytes", n_bytes)
    pool = _POOL.get("buffer")
    if pool is not None and pool.numel() * 4 >= n_bytes:
        return pool
    _POOL.pop("buffer", None)
    n = -(-n_bytes // 4)
    buf = torch.empty(n, dtype=torch.float32)
    gen = torch.Generator().manual_seed(0)
    pattern = torch.randn(min(n, _PATTERN), generator=gen)
    whole = n // pattern.numel() * pattern.numel()
    if whole:
        buf[:whole].view(-1, pattern.numel()).copy_(pattern.expand(whole // pattern.numel(), -1))
    if whole < n:
        buf[whole:].copy_(pattern[: n - whole])
    _POOL["buffer"] = buf
    return buf


def release_workspace() -> None:
    """Free the shared buffer (the CLI does so between runs; a grader may after its checks)."""
    _POOL.pop("buffer", None)


def split(buf: Any, parts: int, elements: int) -> list[Any]:
    """``parts`` consecutive, non-overlapping views of ``elements`` numbers each from the flat ``buf``."""
    parts = positive_int("parts", parts)
    elements = positive_int("elements", elements)
    if parts * elements > buf.numel():
        raise ValueError(f"{parts} x {elements} elements do not fit in a buffer of {buf.numel()}")
    return [buf[i * elements : (i + 1) * elements] for i in range(parts)]


def as_dict(obj: Any) -> Any:
    """A result dataclass (nested, with tuples of dataclasses) as JSON-ready dicts and lists."""
    if is_dataclass(obj) and not isinstance(obj, type):
        out = {f.name: as_dict(getattr(obj, f.name)) for f in fields(obj)}
        for name in getattr(obj, "_derived", ()):
            out[name] = as_dict(getattr(obj, name))
        return out
    if isinstance(obj, dict):
        return {str(k): as_dict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [as_dict(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj
