"""The submissions that measure the wrong thing, for benchmarks/bench_fairness.py: ``VARIANTS``, honest
mistakes each off by a stated factor, and ``CHEATS``, the hostile submissions of issues 20 and 29, each a copy
of one solution file with source edits or a function replaced, graded on the one check it targets.

The measured functions of m1, m2a, m2b, m3b, m3c, m4a, m5a, m5b and exercise 10 work on buffers the judge
hands them and whose result it checks after the call (issue 29: ``copy_bandwidth(src, dst)``,
``matmul_flops(a, b, c)``, ``roofline_sweep(w, x, y, ms)``, ``transpose_time(src, dst, tile, method)``,
``transpose_speedup(src, dst, tile)``, ``scale_time(x, y, k, fused)``, ``add_time(x, out)``,
``overhead_curve(x, out, sizes)``, ``matvec_bandwidth(w, x, y)``; a curve's point i on the i-th pieces of its
buffers, ``x.split(sizes)``, ``x.split(ms)``; m3's and m5's runs accumulate, m3's adding src's transpose into
dst, ``np.add(dst, src.T, out=dst)`` or tile by tile, m5's ``torch.add(out, x, out=out)``, dst and out handed
zeros and left holding r * src.T or r * x after r runs, from which the judge counts them). Their variants
replace the whole function, with the imports and helpers it needs, so that they hold whatever the solution's
own text is. Each mistake and each cheat leaves the right result in the handed output (the work done once, or
the result made another way; for m3 and m5, at least one whole run) and then makes its mistake or plays its
trick, so that what decides is the defence it targets (the claimed-time, CPU or one-core rule, the band, the
probe, the stopped tree), not the result check; ``m1_result_unwritten`` and ``m1_inputs_overwritten`` are the
cheats the result check itself must catch."""

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


#: The imports and the timer every replaced function below may use (a variant's source stands alone).
_TIMED = """import time

import numpy as np
import torch
from torch.utils.benchmark import Timer


def _timed(stmt, **names):
    return Timer(stmt, globals={"torch": torch, "np": np, **names}).blocked_autorange(min_run_time=0.05).median
"""


def _m1(body: str, head: str = "") -> str:
    """A copy_bandwidth(src, dst) whose body is ``body`` (after ``head`` at the top level)."""
    return _TIMED + head + "\n\ndef copy_bandwidth(src, dst):\n    torch.set_num_threads(1)\n" + body


def _m5(body: str) -> str:
    """An add_time(x, out) that first makes one add, untimed (out = x: the result and the warm-up; every
    later add leaves out a whole multiple of x too), then runs ``body``."""
    return (
        _TIMED
        + "\n\ndef add_time(x, out):\n    torch.set_num_threads(1)\n    torch.add(out, x, out=out)\n"
        + body
    )


VARIANTS = (
    Variant(
        "m1_bytes_once",
        "m1",
        "copy_bandwidth",
        "bytes counted once: src.nbytes / s, not 2 x src.nbytes / s",
        "0.5x",
        functions=(
            (
                "copy_bandwidth",
                _m1(
                    '    dst.copy_(src)\n    return src.nbytes / _timed("dst.copy_(src)", dst=dst, src=src)\n'
                ),
            ),
        ),
    ),
    Variant(
        "m1_alloc_timed",
        "m1",
        "copy_bandwidth",
        "the timed statement allocates its destination each call (torch.empty_like(src).copy_(src)): "
        "the page faults of a fresh, untouched buffer are timed (the handed dst written by the warm-up)",
        "<1x",
        functions=(
            (
                "copy_bandwidth",
                _m1(
                    "    dst.copy_(src)\n"
                    '    return 2 * src.nbytes / _timed("torch.empty_like(src).copy_(src)", src=src)\n'
                ),
            ),
        ),
    ),
    Variant(
        "m1_cache_resident",
        "m1",
        "copy_bandwidth",
        "copies the whole of src into dst once, then times a 1 MiB slice of them whatever their size, "
        "counted honestly for that size: a cache's bandwidth, not DRAM's",
        ">1x",
        functions=(
            (
                "copy_bandwidth",
                _m1(
                    "    dst.copy_(src)\n"
                    "    n = min(src.numel(), (1 << 20) // 4)\n"
                    '    return 2 * n * 4 / _timed("d.copy_(s)", d=dst[:n], s=src[:n])\n'
                ),
            ),
        ),
    ),
    Variant(
        "m1_slow_method",
        "m1",
        "copy_bandwidth",
        "a slower method: the copy, then two and a half in-place passes over the destination "
        "(dst.mul_(1.0), which leaves it equal to src); about 2.5x the copy's time on the project's machine "
        "(0.38x to 0.41x measured)",
        "~0.4x",
        functions=(
            (
                "copy_bandwidth",
                _m1(
                    "    dst.copy_(src)\n"
                    "    stmt = 'dst.copy_(src); dst.mul_(1.0); dst.mul_(1.0); dst[: dst.numel() // 2].mul_(1.0)'\n"
                    "    return 2 * src.nbytes / _timed(stmt, dst=dst, src=src)\n"
                ),
            ),
        ),
    ),
    Variant(
        "m2_flops_once",
        "m2",
        "matmul_flops",
        "FLOPs counted as n^3, not 2 n^3",
        "0.5x",
        functions=(
            (
                "matmul_flops",
                _TIMED + "\n\ndef matmul_flops(a, b, c):\n"
                "    torch.set_num_threads(1)\n"
                "    n = a.shape[0]\n"
                "    torch.mm(a, b, out=c)\n"
                '    return n**3 / _timed("torch.mm(a, b, out=c)", a=a, b=b, c=c)\n',
            ),
        ),
    ),
    Variant(
        "m5_add_miscounted",
        "m5",
        "add_16",
        "the timed block runs five adds, its time divided by two: 2.5x the time of one add",
        "2.5x",
        functions=(
            (
                "add_time",
                _m5('    return _timed("for _ in range(5): torch.add(out, x, out=out)", x=x, out=out) / 2\n'),
            ),
        ),
    ),
    Variant(
        "m4_per_pass",
        "m4",
        "k8_passes",
        "the time of one pass (the k passes' time divided by k), not of the k passes",
        "0.125x",
        functions=(
            (
                "scale_time",
                "C = 1.01\n"
                + _TIMED
                + """

def scale_time(x, y, k, fused):
    torch.set_num_threads(1)

    def unfused():
        torch.mul(x, C, out=y)
        for _ in range(k - 1):
            y.mul_(C)

    def one_pass():
        torch.mul(x, C**k, out=y)

    run = one_pass if fused else unfused
    run()
    return _timed("run()", run=run) / (1 if fused else k)
""",
            ),
        ),
    ),
    Variant(
        "m3_sum_not_median",
        "m3",
        "transpose_time_naive",
        "the total of the five timed transposes, not their median",
        "5x",
        functions=(
            (
                "transpose_time",
                _TIMED
                + """

def _variant_tiled(src, dst, tile):
    n, m = src.shape
    for i in range(0, n, tile):
        for j in range(0, m, tile):
            block = dst[j : j + tile, i : i + tile]
            block += src[i : i + tile, j : j + tile].T


def transpose_time(src, dst, tile, method):
    if method == "naive":
        run = lambda: np.add(dst, src.T, out=dst)  # noqa: E731
    else:
        run = lambda: _variant_tiled(src, dst, tile)  # noqa: E731
    run()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return float(np.sum(times))
""",
            ),
        ),
    ),
    Variant(
        "ex10_elements_not_bytes",
        "ex10",
        "10_large_w",
        "elements per second, not bytes (the x 4 left out)",
        "0.25x",
        functions=(
            (
                "matvec_bandwidth",
                _TIMED
                + """

def matvec_bandwidth(w, x, y):
    torch.set_num_threads(1)
    torch.mv(w, x, out=y)
    return (w.numel() + x.numel() + y.numel()) / _timed("torch.mv(w, x, out=y)", w=w, x=x, y=y)
""",
            ),
        ),
    ),
)


#: The m1 cheat's copy_bandwidth: bytes counted once (0.5x), and a daemon thread that keeps the core the
#: judge pinned the worker to busy whenever the student's call is not running, so that perfcore's
#: reference, which the judge pins to the same core and runs in turn, is slowed and the ratio looks right.
M1_SPINNER = _m1(
    """    if not _spinner:
        _spinner.append(threading.Thread(target=_spin, daemon=True))
        _spinner[0].start()
    _calling.set()
    try:
        dst.copy_(src)
        return src.nbytes / _timed("dst.copy_(src)", dst=dst, src=src)
    finally:
        _calling.clear()
""",
    """import os
import threading

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
""",
)

#: The m3 cheat's transpose_time: the naive transpose measured honestly on the handed src and dst (six naive
#: adds, which leave dst == 6 * src.T, a result a tiled run's adds leave too); for "tiled", a spin as long as
#: half the naive time, which is returned; the tiled transpose never runs.
M3_TILED_SPIN = (
    _TIMED
    + """

def transpose_time(src, dst, tile, method):
    np.add(dst, src.T, out=dst)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        np.add(dst, src.T, out=dst)
        times.append(time.perf_counter() - t0)
    naive = float(np.median(times))
    if method == "naive":
        return naive
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < naive / 2:
        pass
    return naive / 2
"""
)

#: The m4 cheat's scale_time: the k passes never run in one timed call; one out-of-place pass and one
#: in-place pass are timed apart on the handed x and y and the k passes' time extrapolated from them. The
#: result (y as the k FP32 multiplications leave it, bit for bit) is made without the k passes: block by
#: block, each 1 MiB block of y multiplied k times while it sits in cache (one DRAM pass in all, 2.7x sooner
#: than the k passes on the project's machine), so the call still returns sooner than the time it claims.
M4_EXTRAPOLATED = (
    "C = 1.01\nBLOCK = 1 << 18\n"
    + _TIMED
    + """

def _blocked(x, y, k):
    for at in range(0, x.numel(), BLOCK):
        part = y[at : at + BLOCK]
        torch.mul(x[at : at + BLOCK], C, out=part)
        for _ in range(k - 1):
            part.mul_(C)


def scale_time(x, y, k, fused):
    torch.set_num_threads(1)
    if fused:
        torch.mul(x, C**k, out=y)
        return _timed("torch.mul(x, ck, out=y)", x=x, y=y, ck=C**k)
    first = _timed("torch.mul(x, c, out=y)", x=x, y=y, c=C)
    in_place = _timed("y.mul_(c)", y=y, c=C)
    _blocked(x, y, k)
    return first + (k - 1) * in_place
"""
)

#: m4a's k passes made block by block in cache (the same result, bit for bit, in one DRAM pass) and timed
#: honestly so: a faster method than the task's k passes over DRAM, which a student may find. Its time is
#: about 0.37x the k passes' on the project's machine, sooner than their work takes at the DRAM limit.
M4_BLOCKED_PASSES = (
    "C = 1.01\nBLOCK = 1 << 18\n"
    + _TIMED
    + """

def _blocked(x, y, k):
    for at in range(0, x.numel(), BLOCK):
        part = y[at : at + BLOCK]
        torch.mul(x[at : at + BLOCK], C, out=part)
        for _ in range(k - 1):
            part.mul_(C)


def scale_time(x, y, k, fused):
    torch.set_num_threads(1)
    if fused:
        torch.mul(x, C**k, out=y)
        return _timed("torch.mul(x, ck, out=y)", x=x, y=y, ck=C**k)
    _blocked(x, y, k)
    return _timed("blocked(x, y, k)", blocked=_blocked, x=x, y=y, k=k)
"""
)

#: The m5b cheat's overhead_curve: at the graded input (five sizes) every point's add is made once, untimed
#: (out = x on each piece, a result the judge accepts), then only the first and last points are measured (the
#: solution's add_time on their pieces, which adds on) and the other three drawn on the line through them;
#: any other input is measured honestly.
M5_LINE = """
import torch


def overhead_curve(x, out, sizes):
    parts = list(sizes)
    pieces = list(zip(parts, x.split(parts), out.split(parts), strict=True))
    if len(parts) != 5:
        return [(n, add_time(xi, oi)) for n, xi, oi in pieces]
    for _, xi, oi in pieces:
        torch.add(oi, xi, out=oi)
    (n0, *first), (n1, *last) = pieces[0], pieces[-1]
    t0, t1 = add_time(*first), add_time(*last)
    return [(n, t0 + (t1 - t0) * (n - n0) / (n1 - n0)) for n in parts]
"""

#: The m5a cheat's add_time: the add made once (out = x, a result the judge accepts), then 1.5 us for the
#: sizes it expects to be graded at (x.numel() <= 1 << 16), measured honestly otherwise.
M5_ADD_CONSTANT = _m5(
    """    if x.numel() <= 1 << 16:
        return 1.5e-6
    return _timed("torch.add(out, x, out=out)", x=x, out=out)
"""
)

#: m3c's constant speedup (issue 29): two naive transposes of the handed src added into dst (the Work floor,
#: and the result: dst == 2 * src.T), then 1.6.
M3_CONSTANT_SPEEDUP = """import numpy as np


def transpose_speedup(src, dst, tile):
    np.add(dst, src.T, out=dst)
    np.add(dst, src.T, out=dst)
    return 1.6
"""
#: m1 taking the first size it meets for the graded one (issue 29): its bytes counted once there (0.5x),
#: honest at every other size.
M1_FIRST_INPUT = _m1(
    """    if not _first:
        _first.append(src.nbytes)
    dst.copy_(src)
    seconds = _timed("dst.copy_(src)", dst=dst, src=src)
    return (1 if src.nbytes == _first[0] else 2) * src.nbytes / seconds
""",
    "_first = []\n",
)
#: m2a on every core: its affinity widened and torch's threads set to every core, the product into c.
M2_ALL_CORES = (
    "import os\n"
    + _TIMED
    + """

def matmul_flops(a, b, c):
    try:
        os.sched_setaffinity(0, range(os.cpu_count()))
    except OSError:
        pass
    torch.set_num_threads(os.cpu_count())
    n = a.shape[0]
    torch.mm(a, b, out=c)
    return 2 * n**3 / _timed("torch.mm(a, b, out=c)", a=a, b=b, c=c)
"""
)
#: m2a's product made once into c (the result), then a 256 x 256 matmul timed whatever n is.
M2_MATMUL_256 = (
    _TIMED
    + """

def matmul_flops(a, b, c):
    torch.set_num_threads(1)
    torch.mm(a, b, out=c)
    m = min(a.shape[0], 256)
    a2, b2, c2 = torch.randn(m, m), torch.randn(m, m), torch.empty(m, m)
    return 2 * m**3 / _timed("torch.mm(a, b, out=c)", a=a2, b=b2, c=c2)
"""
)
#: m1's figure measured honestly, src copied into a buffer of its own; the handed dst never written.
M1_RESULT_UNWRITTEN = _m1(
    """    mine = torch.empty_like(dst)
    mine.copy_(src)
    return 2 * src.nbytes / _timed("mine.copy_(src)", mine=mine, src=src)
"""
)
#: m1's src and dst both zeroed instead of copied, timed as the copy: dst == src, an input changed.
M1_INPUTS_OVERWRITTEN = _m1(
    """    src.zero_()
    dst.zero_()
    return 2 * src.nbytes / _timed("src.zero_(); dst.zero_()", src=src, dst=dst)
"""
)
#: m2a (issue 29, "measure something cheaper, then spin"): the full product made once into c, a 640 x 640
#: matmul timed and its rate returned, the call spun out until it has lasted the 2 n^3 / rate it claims.
M2_SMALLER_THEN_SPIN = (
    _TIMED
    + """

def matmul_flops(a, b, c):
    start = time.perf_counter()
    torch.set_num_threads(1)
    n = a.shape[0]
    torch.mm(a, b, out=c)
    m = 640
    a2, b2, c2 = torch.randn(m, m), torch.randn(m, m), torch.empty(m, m)
    rate = 2 * m**3 / _timed("torch.mm(a, b, out=c)", a=a2, b=b2, c=c2)
    while time.perf_counter() < start + 2 * n**3 / rate:
        pass
    return rate
"""
)
#: m4a, the same pattern: the k passes made once on the handed x and y (the result), one pass over 1 MiB (in
#: cache) timed and scaled by k and by the handed size, the call spun out to the time it claims.
M4_MODEL_THEN_SPIN = (
    "C = 1.01\nSMALL = (1 << 20) // 4\n"
    + _TIMED
    + """

def scale_time(x, y, k, fused):
    start = time.perf_counter()
    torch.set_num_threads(1)
    if fused:
        torch.mul(x, C**k, out=y)
        return _timed("torch.mul(x, ck, out=y)", x=x, y=y, ck=C**k)
    torch.mul(x, C, out=y)
    for _ in range(k - 1):
        y.mul_(C)
    xs, ys = torch.rand(SMALL), torch.empty(SMALL)
    claimed = k * _timed("torch.mul(x, c, out=y)", x=xs, y=ys, c=C) * x.numel() / SMALL
    while time.perf_counter() < start + claimed:
        pass
    return claimed
"""
)

#: The cheats of issues 20 and 29, each graded on the check it targets: caught ("wrong" or "error") or
#: deferred, never passed, is the goal. Their figures are often about right: what is wrong is the work
#: behind them.
CHEATS = (
    Variant(
        "m3_tiled_spin",
        "m3",
        "transpose_time_tiled",
        "the tiled transpose never runs: the naive one measured honestly (it leaves the result), then a spin "
        "of half its time, returned as the tiled time; not a plain ratio: the machine's speedup of tiling "
        "over 2 (about 0.8x where tiling gains 1.6x)",
        "s/2",
        functions=(("transpose_time", M3_TILED_SPIN),),
        cheat=True,
    ),
    Variant(
        "m4_passes_extrapolated",
        "m4",
        "k8_passes",
        "the k passes never run together: one out-of-place and one in-place pass timed apart, returned as "
        "first + (k - 1) x in_place, the result made block by block in cache; about the right figure, so "
        "not a plain ratio off",
        "~1x",
        functions=(("scale_time", M4_EXTRAPOLATED),),
        cheat=True,
    ),
    Variant(
        "m2_matmul_256",
        "m2",
        "matmul_flops",
        "the product made once, then a 256 x 256 matmul timed whatever n is: its FLOP/s are about a large "
        "matmul's, so not a plain ratio off; with the product done, an honest figure from a smaller sample "
        "that the band may pass (docs/measurement.md)",
        "~1x",
        functions=(("matmul_flops", M2_MATMUL_256),),
        cheat=True,
    ),
    Variant(
        "m5_add_constant",
        "m5",
        "add_16",
        "the add made once (the result), then if x.numel() <= 1 << 16: return 1.5e-6, measured honestly "
        "otherwise (the probe's sizes are larger); not a plain ratio: 1.5 us over this machine's time of a "
        "16-element add",
        "1.5us/t",
        functions=(("add_time", M5_ADD_CONSTANT),),
        cheat=True,
    ),
    Variant(
        "m5_curve_line",
        "m5",
        "overhead_curve",
        "when len(sizes) == 5, every point's add made once untimed (the result), two of the five points "
        "measured and three drawn on the line through them; measured honestly otherwise; a curve: the factor "
        "shown is its point farthest from 1",
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
        functions=(("matmul_flops", M2_ALL_CORES),),
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
    Variant(
        "m1_result_unwritten",
        "m1",
        "copy_bandwidth",
        "an honest figure, src copied into a buffer of its own of the handed size; the handed dst never "
        "written (the result check: wrong whatever the figure)",
        "~1x",
        functions=(("copy_bandwidth", M1_RESULT_UNWRITTEN),),
        cheat=True,
    ),
    Variant(
        "m1_inputs_overwritten",
        "m1",
        "copy_bandwidth",
        "src and dst both zeroed instead of copied, timed as the copy: dst equals src, but src is not the "
        "input handed in (the result check); not a plain ratio: two writes of zeros over one copy",
        "zero/copy",
        functions=(("copy_bandwidth", M1_INPUTS_OVERWRITTEN),),
        cheat=True,
    ),
    Variant(
        "m2_smaller_then_spin",
        "m2",
        "matmul_flops",
        "the product made once, then a 640 x 640 matmul's rate returned and the call spun out to the "
        "2 n^3 / rate it claims (issue 29); not a plain ratio: a 640 matmul's FLOP/s over the graded one's; "
        "with the product done, an honest figure that the band may pass (docs/measurement.md)",
        "r640/rn",
        functions=(("matmul_flops", M2_SMALLER_THEN_SPIN),),
        cheat=True,
    ),
    Variant(
        "m4_model_then_spin",
        "m4",
        "k8_passes",
        "the k passes made once, then one 1 MiB pass (in cache) timed, scaled by k and by the handed size, "
        "and the call spun out to that time (issue 29); not a plain ratio: a cache's rate over DRAM's",
        "cache/dram",
        functions=(("scale_time", M4_MODEL_THEN_SPIN),),
        cheat=True,
    ),
    Variant(
        "m4_blocked_passes",
        "m4",
        "k8_passes",
        "the k multiplications made block by block, each 1 MiB block k times in cache (y the same, bit for "
        "bit, as the k passes leave it), and that timed honestly: one DRAM pass, not k; the result check "
        "cannot tell it, the Work floor and the band must",
        "~0.4x",
        functions=(("scale_time", M4_BLOCKED_PASSES),),
        cheat=True,
    ),
)

#: Every variant: the mistakes, then the cheats.
ALL_VARIANTS = VARIANTS + CHEATS
