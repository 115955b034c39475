"""The submissions that measure the wrong thing, for benchmarks/bench_fairness.py: ``VARIANTS``, honest
mistakes each off by a stated factor, and ``CHEATS``, the hostile submissions of issue 20, each a copy of
one solution file with source edits or a function replaced, graded on the one check it targets."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    """A solution file with source edits that make one check's figure wrong by ``expected`` (the variant's
    figure over the honest one: below 1 a lower rate or a shorter time, above 1 a higher one).

    ``edits`` are (old, new) texts, each old one found exactly once; ``functions`` are (name, source): the
    top-level function ``name`` replaced by ``source`` (which may define helpers and import what it
    needs), for a change that is no one-line edit. A ``cheat`` is a submission written to get the points
    without doing the work (a hostile one), where the others are honest mistakes; its ``expected`` may be
    no plain ratio, and then its ``what`` says why."""

    name: str
    exercise: str
    check: str
    what: str
    expected: str
    edits: tuple[tuple[str, str], ...] = ()
    functions: tuple[tuple[str, str], ...] = ()
    cheat: bool = False

    @property
    def target(self) -> str:
        return f"{self.exercise}::{self.check}"


VARIANTS = (
    Variant(
        "m1_bytes_once",
        "m1",
        "copy_bandwidth",
        "bytes counted once: n_bytes / s, not 2 x n_bytes / s",
        "0.5x",
        (("return 2 * n * 4 / seconds", "return n * 4 / seconds"),),
    ),
    Variant(
        "m1_alloc_timed",
        "m1",
        "copy_bandwidth",
        "the timed statement allocates its destination each call (torch.empty_like(src).copy_(src)): "
        "the page faults of a fresh, untouched buffer are timed",
        "<1x",
        (
            (
                'timer = Timer("dst.copy_(src)", globals={"dst": dst, "src": src})',
                'timer = Timer("torch.empty_like(src).copy_(src)", globals={"torch": torch, "src": src})',
            ),
        ),
    ),
    Variant(
        "m1_cache_resident",
        "m1",
        "copy_bandwidth",
        "copies a fixed 1 MiB buffer whatever n_bytes is, counted honestly for that size: a cache's "
        "bandwidth, not DRAM's",
        ">1x",
        (("n = n_bytes // 4", "n = (1 << 20) // 4"),),
    ),
    Variant(
        "m1_slow_method",
        "m1",
        "copy_bandwidth",
        "a slower method: the copy, then two and a half in-place passes over the destination "
        "(dst.mul_(1.0)); about 2.5x the copy's time on the project's machine (0.38x to 0.41x measured)",
        "~0.4x",
        (
            (
                'Timer("dst.copy_(src)", ',
                # dst.numel(), not n: the timed statement sees only the Timer's globals, dst and src
                'Timer("dst.copy_(src); dst.mul_(1.0); dst.mul_(1.0); dst[: dst.numel() // 2].mul_(1.0)", ',
            ),
        ),
    ),
    Variant(
        "m2_flops_once",
        "m2",
        "matmul_flops",
        "FLOPs counted as n^3, not 2 n^3",
        "0.5x",
        (("return 2 * n**3 / _seconds(", "return n**3 / _seconds("),),
    ),
    Variant(
        "m5_add_miscounted",
        "m5",
        "add_16",
        "the timed block runs five adds, its time divided by two: 2.5x the time of one add",
        "2.5x",
        (
            (
                'timer = Timer("torch.add(a, b, out=c)", ',
                'timer = Timer("for _ in range(5): torch.add(a, b, out=c)", ',
            ),
            (
                "return timer.blocked_autorange(min_run_time=0.05).median",
                "return timer.blocked_autorange(min_run_time=0.05).median / 2",
            ),
        ),
    ),
    Variant(
        "m4_per_pass",
        "m4",
        "k8_passes",
        "the time of one pass (divided by k), not of the k passes",
        "0.125x",
        (
            (
                'return Timer("run()", globals={"run": run}).blocked_autorange(min_run_time=0.05).median',
                'return Timer("run()", globals={"run": run}).blocked_autorange(min_run_time=0.05).median / k',
            ),
        ),
    ),
    Variant(
        "m3_sum_not_median",
        "m3",
        "transpose_time_naive",
        "the total of the five timed transposes, not their median",
        "5x",
        (("return float(np.median(times))", "return float(np.sum(times))"),),
    ),
    Variant(
        "ex10_elements_not_bytes",
        "ex10",
        "10_large_w",
        "elements per second, not bytes (the x 4 left out)",
        "0.25x",
        (
            (
                "return (rows * cols + cols + rows) * 4 / seconds",
                "return (rows * cols + cols + rows) / seconds",
            ),
        ),
    ),
)


#: The m1 cheat's copy_bandwidth: bytes counted once (0.5x), and a daemon thread that keeps the core the
#: judge pinned the worker to busy whenever the student's call is not running, so that perfcore's
#: reference, which the judge pins to the same core and runs in turn, is slowed and the ratio looks right.
M1_SPINNER = """
import os
import threading
import time

_calling = threading.Event()  # set while copy_bandwidth runs: the spinner then lets it have the core
_spinner = []


def _spin():
    while True:
        if hasattr(os, "sched_setaffinity"):
            try:  # follow the main thread onto whatever core the judge pinned it to
                os.sched_setaffinity(0, os.sched_getaffinity(os.getpid()))
            except OSError:
                pass
        if _calling.is_set():
            time.sleep(0.001)
            continue
        for _ in range(20_000):
            pass


def copy_bandwidth(n_bytes):
    if not _spinner:
        _spinner.append(threading.Thread(target=_spin, daemon=True))
        _spinner[0].start()
    _calling.set()
    try:
        torch.set_num_threads(1)
        n = n_bytes // 4
        src = torch.ones(n)
        dst = torch.zeros(n)
        dst.copy_(src)
        timer = Timer("dst.copy_(src)", globals={"dst": dst, "src": src})
        seconds = timer.blocked_autorange(min_run_time=0.05).median
        return n * 4 / seconds
    finally:
        _calling.clear()
"""

#: The m3 cheat's transpose_time: the naive transpose measured honestly; for "tiled", a spin as long as
#: half the naive time, which is returned; the tiled transpose never runs.
M3_TILED_SPIN = """
def transpose_time(n, tile, method):
    src = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    dst = np.empty_like(src)
    np.copyto(dst, src.T)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        np.copyto(dst, src.T)
        times.append(time.perf_counter() - t0)
    naive = float(np.median(times))
    if method == "naive":
        return naive
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < naive / 2:
        pass
    return naive / 2
"""

#: The m4 cheat's scale_time: the k passes never run in one timed call; one out-of-place pass and one
#: in-place pass are timed apart and the k passes' time extrapolated from them.
M4_EXTRAPOLATED = """
def scale_time(n_elements, k, fused):
    torch.set_num_threads(1)
    x = torch.rand(n_elements)
    y = torch.empty(n_elements)
    names = {"torch": torch, "x": x, "y": y, "c": C, "ck": C**k}
    if fused:
        torch.mul(x, C**k, out=y)
        return Timer("torch.mul(x, ck, out=y)", globals=names).blocked_autorange(min_run_time=0.05).median
    torch.mul(x, C, out=y)
    first = Timer("torch.mul(x, c, out=y)", globals=names).blocked_autorange(min_run_time=0.05).median
    in_place = Timer("y.mul_(c)", globals=names).blocked_autorange(min_run_time=0.05).median
    return first + (k - 1) * in_place
"""

#: The m5b cheat's overhead_curve: at the graded input (five sizes) only the first and last points are
#: measured and the other three drawn on the line through them; any other input is measured honestly.
M5_LINE = """
def overhead_curve(sizes):
    if len(sizes) != 5:
        return [(n, add_time(n)) for n in sizes]
    (n0, t0), (n1, t1) = (sizes[0], add_time(sizes[0])), (sizes[-1], add_time(sizes[-1]))
    return [(n, t0 + (t1 - t0) * (n - n0) / (n1 - n0)) for n in sizes]
"""

#: m3c's constant speedup (issue 29): two naive transposes for the Work floor, then 1.6.
M3_CONSTANT_SPEEDUP = """def transpose_speedup(n, tile):
    src = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    dst = np.empty_like(src)
    np.copyto(dst, src.T)
    np.copyto(dst, src.T)
    return 1.6
"""
#: m1 taking the first size it meets for the graded one (issue 29): its bytes counted once there (0.5x),
#: honest at every other size.
M1_FIRST_INPUT = """_first = []


def copy_bandwidth(n_bytes):
    if not _first:
        _first.append(n_bytes)
    torch.set_num_threads(1)
    n = n_bytes // 4
    src, dst = torch.ones(n), torch.zeros(n)
    dst.copy_(src)
    seconds = Timer("dst.copy_(src)", globals={"dst": dst, "src": src}).blocked_autorange(min_run_time=0.05).median
    return (1 if n_bytes == _first[0] else 2) * n * 4 / seconds
"""

#: The cheats of issue 20, each graded on the check it targets: caught ("wrong" or "error") or deferred,
#: never passed, is the goal. Their figures are often about right: what is wrong is the work behind them.
CHEATS = (
    Variant(
        "m3_tiled_spin",
        "m3",
        "transpose_time_tiled",
        "the tiled transpose never runs: the naive one measured honestly, then a spin of half its time, "
        "returned as the tiled time; not a plain ratio: the machine's speedup of tiling over 2 (about 0.8x "
        "where tiling gains 1.6x)",
        "s/2",
        functions=(("transpose_time", M3_TILED_SPIN),),
        cheat=True,
    ),
    Variant(
        "m4_passes_extrapolated",
        "m4",
        "k8_passes",
        "the k passes never run together: one out-of-place and one in-place pass timed apart, returned as "
        "first + (k - 1) x in_place; about the right figure, so not a plain ratio off",
        "~1x",
        functions=(("scale_time", M4_EXTRAPOLATED),),
        cheat=True,
    ),
    Variant(
        "m2_matmul_256",
        "m2",
        "matmul_flops",
        "a 256 x 256 matmul timed whatever n is (m = min(n, 256)): 1/8 of the work at n = 512; its FLOP/s "
        "are about a 512 matmul's, so not a plain ratio off",
        "~1x",
        (
            (
                "torch.set_num_threads(1)\n    a, b, c = torch.randn(n, n)",
                "torch.set_num_threads(1)\n    n = min(n, 256)\n    a, b, c = torch.randn(n, n)",
            ),
        ),
        cheat=True,
    ),
    Variant(
        "m5_add_constant",
        "m5",
        "add_16",
        "if n_elements <= 1 << 16: return 1.5e-6, measured honestly otherwise (the probe's sizes are "
        "larger); not a plain ratio: 1.5 us over this machine's time of a 16-element add",
        "1.5us/t",
        (
            (
                "torch.set_num_threads(1)\n    a, b, c = torch.ones(n_elements)",
                "if n_elements <= 1 << 16:\n        return 1.5e-6\n"
                "    torch.set_num_threads(1)\n    a, b, c = torch.ones(n_elements)",
            ),
        ),
        cheat=True,
    ),
    Variant(
        "m5_curve_line",
        "m5",
        "overhead_curve",
        "when len(sizes) == 5, two of the five points measured and three drawn on the line through them; "
        "measured honestly otherwise; a curve: the factor shown is its point farthest from 1",
        "~1x",
        functions=(("overhead_curve", M5_LINE),),
        cheat=True,
    ),
    Variant(
        "m1_spinner",
        "m1",
        "copy_bandwidth",
        "bytes counted once (0.5x), plus a daemon thread that follows the main thread's affinity (the core "
        "the judge pins) and spins whenever copy_bandwidth is not running, to slow perfcore's reference on "
        "that core; not a plain ratio: measured outside the grader the spinner slows the solution's calls "
        "too, so the factor shows how well it hides the 0.5x (about 1x where it halves the core)",
        "0.5x+spin",
        functions=(("copy_bandwidth", M1_SPINNER),),
        cheat=True,
    ),
    Variant(
        "m2_all_cores",
        "m2",
        "matmul_flops",
        "the matmul widens its own affinity to every core and sets torch.set_num_threads(os.cpu_count()): "
        "up to one core's FLOP/s per free core (at most 2x on 2 cores), not one core's",
        "<=cores",
        (
            (
                "import torch\nfrom torch.utils.benchmark",
                "import os\n\nimport torch\nfrom torch.utils.benchmark",
            ),
            (
                "torch.set_num_threads(1)\n    a, b, c = torch.randn(n, n)",
                "try:\n        os.sched_setaffinity(0, range(os.cpu_count()))\n"
                "    except OSError:\n        pass\n"
                "    torch.set_num_threads(os.cpu_count())\n    a, b, c = torch.randn(n, n)",
            ),
        ),
        cheat=True,
    ),
    Variant(
        "m3_constant_speedup",
        "m3",
        "transpose_speedup",
        "two naive transposes, then 1.6 whatever n and the tile: right for the lecture's n = 2048, tile 64; "
        "not a plain ratio: 1.6 over this machine's speedup at the drawn input",
        "1.6/s",
        functions=(("transpose_speedup", M3_CONSTANT_SPEEDUP),),
        cheat=True,
    ),
    Variant(
        "m1_first_input",
        "m1",
        "copy_bandwidth",
        "bytes counted once (0.5x) at the first size the function meets, honest at every other: the graded "
        "copy or the probe, by the judge's coin",
        "0.5x first",
        functions=(("copy_bandwidth", M1_FIRST_INPUT),),
        cheat=True,
    ),
)

#: Every variant: the mistakes, then the cheats.
ALL_VARIANTS = VARIANTS + CHEATS
