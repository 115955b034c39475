"""The hostile submissions of tests/hostile/test_witness.py (issue 45, family 3: a clock or a figure scaled
within the band; family 1: a curve's modelled points riding on its measured ones; family 2 on m5: a piece
timed and scaled, an add made untimed; m5's and m3's by the runs counted at each reading): the work done as the
solutions do it, the result left in the handed buffers, the call as long as the runs, the clock read around
each timed block, so that no rule but the judge's witness of the runs (grader.judge.runners.witness) tells.
Each file holds only the cheated function (m2's, both).
"""

from __future__ import annotations

from tests.hostile.suite import M1, M2, M3, M4, M5, Folder, solution

#: The head of a file whose Python clocks (``perf_counter``, ``timeit``'s timer) run at 0.85x from its import.
SLOWED_CLOCKS = (
    "import time, timeit\nimport torch\nfrom torch.utils.benchmark import Timer\n"
    "def _scaled(clock, factor):\n"
    "    origin = clock()\n"
    "    return lambda: origin + (clock() - origin) * factor\n"
    "time.perf_counter = _scaled(time.perf_counter, 0.85)\n"
    "timeit.default_timer = _scaled(timeit.default_timer, 0.85)\n"
)

#: m1: Python's clocks replaced at import by ones running at 0.85x, the copy then timed as the solution
#: times it: a bandwidth 1.18x what ran.
M1_CLOCK_SLOWED = SLOWED_CLOCKS + (
    "def copy_bandwidth(src, dst):\n"
    "    torch.set_num_threads(1)\n"
    "    dst.copy_(src)\n"
    "    timer = Timer('dst.copy_(src)', globals={'dst': dst, 'src': src}, timer=timeit.default_timer)\n"
    "    return 2 * src.nbytes / timer.blocked_autorange(min_run_time=0.05).median\n"
)
#: m1: the solution's figure, 1.15x.
M1_FIGURE_UP = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def copy_bandwidth(src, dst):\n"
    "    torch.set_num_threads(1)\n"
    "    dst.copy_(src)\n"
    "    timer = Timer('dst.copy_(src)', globals={'dst': dst, 'src': src})\n"
    "    return 1.15 * 2 * src.nbytes / timer.blocked_autorange(min_run_time=0.05).median\n"
)
#: scale_time's head: its two ways of making y, k passes (``unfused``) and one (``one_pass``).
M4_TWO_WAYS = (
    "def scale_time(x, y, k, fused):\n"
    "    torch.set_num_threads(1)\n"
    "    def unfused():\n"
    "        torch.mul(x, C, out=y)\n"
    "        for _ in range(k - 1):\n"
    "            y.mul_(C)\n"
    "    def one_pass():\n"
    "        torch.mul(x, C**k, out=y)\n"
)
#: m4a: the solution's time of k passes and of one, 0.8x.
M4_FIGURE_DOWN = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "C = 1.01\n" + M4_TWO_WAYS + "    run = one_pass if fused else unfused\n"
    "    run()\n"
    "    return 0.8 * Timer('run()', globals={'run': run}).blocked_autorange(min_run_time=0.05).median\n"
)
#: m4a: the same, 1.3x: longer than the k passes ran, within the band's reach.
M4_FIGURE_UP = M4_FIGURE_DOWN.replace("return 0.8 *", "return 1.3 *")

#: m4a: the first 35% taken through all k passes 64 Ki elements at a time in a private buffer in cache, each
#: block copied into y, then the rest through k whole passes: y the same bit for bit, at about 0.8x the time
#: (issue 45's fourth hidden set kept its points so, inside the band).
M4_BLOCKED_PART = M4_FIGURE_DOWN.replace(
    "    def unfused():\n"
    "        torch.mul(x, C, out=y)\n"
    "        for _ in range(k - 1):\n"
    "            y.mul_(C)\n",
    "    block = torch.empty(65536)\n"
    "    cut = x.numel() * 35 // 100\n"
    "    def unfused():\n"
    "        for lo in range(0, cut, 65536):\n"
    "            hi = min(lo + 65536, cut)\n"
    "            part = block[: hi - lo]\n"
    "            torch.mul(x[lo:hi], C, out=part)\n"
    "            for _ in range(k - 1):\n"
    "                part.mul_(C)\n"
    "            y[lo:hi].copy_(part)\n"
    "        torch.mul(x[cut:], C, out=y[cut:])\n"
    "        for _ in range(k - 1):\n"
    "            y[cut:].mul_(C)\n",
).replace("return 0.8 *", "return")
#: m4a: the k passes made two at a time over y, 64 Ki elements at a time in cache: half the trips to DRAM.
M4_PAIRED_PASSES = M4_FIGURE_DOWN.replace(
    "        for _ in range(k - 1):\n            y.mul_(C)\n",
    "        left = k - 1\n"
    "        while left >= 2:\n"
    "            for lo in range(0, y.numel(), 65536):\n"
    "                part = y[lo : lo + 65536]\n"
    "                part.mul_(C)\n"
    "                part.mul_(C)\n"
    "            left -= 2\n"
    "        if left:\n"
    "            y.mul_(C)\n",
).replace("return 0.8 *", "return")
#: The head of an m4 file that times the k passes its own way: scale_time's two ways of making y (``unfused``,
#: ``one_pass``), the fused input timed as the solution times it.
M4_UNFUSED_ONLY = (
    M4_TWO_WAYS + "    if fused:\n"
    "        one_pass()\n"
    "        return Timer('f()', globals={'f': one_pass}).blocked_autorange(min_run_time=0.05).median\n"
)
#: m4a (a student who read how the witness works): the k passes made once over y, timed on a clock the record
#: never sees (clock_gettime through ctypes); the places the judge stamped with NaN found; then three "runs"
#: timed on perf_counter that walk only those places through the k passes, paced to 0.87x the real run, the
#: rest of y left at the result. The places read beside them, never stamped, stay at the last pass while the
#: stamped ones are between: a quick look reads them out of order.
M4_STAMPED_PLACES = (
    "import ctypes, time\nimport torch\nfrom torch.utils.benchmark import Timer\n"
    "C = 1.01\n"
    "class _Spec(ctypes.Structure):\n"
    "    _fields_ = [('s', ctypes.c_long), ('ns', ctypes.c_long)]\n"
    "_SPEC, _GET = _Spec(), ctypes.CDLL(None).clock_gettime\n"
    "def _clock():\n"
    "    _GET(1, ctypes.byref(_SPEC))\n"
    "    return _SPEC.s + _SPEC.ns * 1e-9\n"
    + M4_UNFUSED_ONLY
    + (
        "    start = _clock()\n"
        "    unfused()\n"
        "    took = _clock() - start\n"
        "    until = _clock() + 1.0\n"
        "    while not torch.isnan(y).any() and _clock() < until:\n"
        "        pass\n"
        "    until = _clock() + 0.01\n"
        "    while _clock() < until:\n"
        "        pass\n"
        "    places = torch.isnan(y).nonzero().flatten()\n"
        "    stages = [x[places] * C]\n"
        "    for _ in range(k - 1):\n"
        "        stages.append(stages[-1] * C)\n"
        "    def staged():\n"
        "        begun = _clock()\n"
        "        for i, stage in enumerate(stages):\n"
        "            y[places] = stage\n"
        "            while _clock() < begun + (i + 1) * 0.87 * took / k:\n"
        "                pass\n"
        "    t0 = time.perf_counter()\n"
        "    for _ in range(3):\n"
        "        staged()\n"
        "    return (time.perf_counter() - t0) / 3\n"
    )
)
#: m4a: the k passes made as the solution makes them, each run timed alone on ``time.thread_time`` (a CPU
#: clock, whose stretches the judge's wall clock does not bound), the median x0.87. Each reading of a CPU
#: clock carries the judge's wall clock too, which places its stretches among the witness's looks.
M4_THREAD_TIME_DOWN = (
    "import time\nimport torch\nfrom torch.utils.benchmark import Timer\n"
    "C = 1.01\n"
    + M4_UNFUSED_ONLY
    + (
        "    unfused()\n"
        "    times = []\n"
        "    for _ in range(5):\n"
        "        start = time.thread_time()\n"
        "        unfused()\n"
        "        times.append(time.thread_time() - start)\n"
        "    return 0.87 * sorted(times)[2]\n"
    )
)

#: m1: the clock reached around (issue 45 item 6): the original perf_counter taken from the noting clock's
#: closure and run at 0.85x for the timing, which the record never sees, and the noted clock read once at
#: the call's start and once at its end, so that the readings rule sees one stretch as long as the call. The
#: witness sees that stretch hold every run: the figure is faster than its runs can have been.
M1_CLOCK_REACHED_AROUND = (
    "import time\nimport torch\nfrom torch.utils.benchmark import Timer\n"
    "def _original():\n"
    "    for cell in time.perf_counter.__closure__ or ():\n"
    "        value = cell.cell_contents\n"
    "        if callable(value) and getattr(value, '__name__', '') == 'perf_counter' and value is not time.perf_counter:\n"
    "            return value\n"
    "    return time.perf_counter\n"
    "_real = _original()\n"
    "def copy_bandwidth(src, dst):\n"
    "    torch.set_num_threads(1)\n"
    "    time.perf_counter()\n"
    "    dst.copy_(src)\n"
    "    origin = _real()\n"
    "    clock = lambda: origin + (_real() - origin) * 0.85\n"
    "    timer = Timer('dst.copy_(src)', globals={'dst': dst, 'src': src}, timer=clock)\n"
    "    seconds = timer.blocked_autorange(min_run_time=0.05).median\n"
    "    time.perf_counter()\n"
    "    return 2 * src.nbytes / seconds\n"
)

#: m2b (family 1): every product made once, untimed, on its row block (y = x @ w, the result), every other
#: point and the last timed as the solution times them, the points between drawn on the log-log line
#: through their neighbours. Their products' only runs finish in the stretch that holds the next point's
#: untimed run too: not timed on their own. (m5b's curve of two points and a line, its points between taking
#: microseconds that no look of the witness tells apart, is caught by the runs counted at each clock reading:
#: tests/hostile/clock_readings.py.)
M2_SWEEP_INTERPOLATED = solution(M2).split("def roofline_sweep")[0] + (
    "import math\n"
    "def roofline_sweep(w, x, y, ms):\n"
    "    torch.set_num_threads(1)\n"
    "    rows, cols = w.shape\n"
    "    rates, last = {}, len(ms) - 1\n"
    "    for i, (m, xi, yi) in enumerate(zip(ms, x.split(list(ms)), y.split(list(ms)))):\n"
    "        torch.mm(xi, w, out=yi)\n"
    "        if i % 2 == 0 or i == last:\n"
    "            rates[i] = 2 * m * rows * cols / _seconds('torch.mm(xi, w, out=yi)', xi=xi, w=w, yi=yi)\n"
    "    points = []\n"
    "    for i, m in enumerate(ms):\n"
    "        if i not in rates:\n"
    "            t = (math.log(m) - math.log(ms[i - 1])) / (math.log(ms[i + 1]) - math.log(ms[i - 1]))\n"
    "            rates[i] = math.exp((1 - t) * math.log(rates[i - 1]) + t * math.log(rates[i + 1]))\n"
    "        points.append((2 * m * rows * cols / ((m * rows + rows * cols + m * cols) * 4), rates[i]))\n"
    "    return points\n"
)

#: m5a and m5b: Python's clocks replaced at import by ones running at 0.85x, the adds then timed as the solution
#: times them (torch's Timer): each add claims 0.85x the time it took. Microseconds each, hundreds between two
#: of the witness's looks: caught since every add is counted at each clock reading (issue 45 item 2).
M5_CLOCK_SLOWED = SLOWED_CLOCKS + (
    "def add_time(x, out):\n"
    "    torch.set_num_threads(1)\n"
    "    torch.add(out, x, out=out)\n"
    "    timer = Timer('torch.add(out, x, out=out)', globals={'torch': torch, 'x': x, 'out': out},\n"
    "                  timer=timeit.default_timer)\n"
    "    return timer.blocked_autorange(min_run_time=0.05).median\n"
    "def overhead_curve(x, out, sizes):\n"
    "    pieces = zip(x.split(list(sizes)), out.split(list(sizes)))\n"
    "    return [(n, add_time(xi, oi)) for n, (xi, oi) in zip(sizes, pieces)]\n"
)
#: m5a and m5b: half the elements timed (the whole add made once, untimed, after a first reading), the figure
#: the fixed cost plus twice the half's growth (family 2), out then set to as many adds everywhere as at its
#: first element (a whole number of them, as the result test asks): the half adds reach no whole run, and the
#: one stretch that held a whole run is the untimed one.
M5_HALF_TIMES_2 = (
    "import time\nimport torch\nfrom torch.utils.benchmark import Timer\n"
    "def add_time(x, out):\n"
    "    torch.set_num_threads(1)\n"
    "    time.perf_counter()\n"
    "    torch.add(out, x, out=out)\n"
    "    def seconds(k):\n"
    "        xk, ok = x[:k], out[:k]\n"
    "        timer = Timer('torch.add(ok, xk, out=ok)', globals={'torch': torch, 'xk': xk, 'ok': ok})\n"
    "        return timer.blocked_autorange(min_run_time=0.05).median\n"
    "    fixed, half = seconds(1), seconds(max(1, x.numel() // 2))\n"
    "    out.copy_(x * (out[0] / x[0]))  # every element as many adds as the first: a whole number of them\n"
    "    return fixed + 2 * (half - fixed)\n"
    "def overhead_curve(x, out, sizes):\n"
    "    pieces = zip(x.split(list(sizes)), out.split(list(sizes)))\n"
    "    return [(n, add_time(xi, oi)) for n, (xi, oi) in zip(sizes, pieces)]\n"
)
#: m1: seven eighths of the copy timed and the figure claimed for the whole, the whole copied before the
#: timing and after it (a hidden set's case, 2026-12-06): the timed runs leave the last eighth alone.
M1_PART_TIMED = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def copy_bandwidth(src, dst):\n"
    "    torch.set_num_threads(1)\n"
    "    dst.copy_(src)\n"
    "    k = src.numel() * 7 // 8\n"
    "    timer = Timer('d.copy_(s)', globals={'d': dst[:k], 's': src[:k]})\n"
    "    seconds = timer.blocked_autorange(min_run_time=0.05).median\n"
    "    dst.copy_(src)\n"
    "    return 2 * src.nbytes / seconds\n"
)
#: m5a and m5b: three quarters of each add timed and claimed for the whole, the last quarter then set to as
#: many adds as the rest (a hidden set's case, 2026-12-06): the counts at the places of the last quarter
#: grow only after the last reading.
M5_PART_TIMED = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def add_time(x, out):\n"
    "    torch.set_num_threads(1)\n"
    "    k = max(1, x.numel() * 3 // 4)\n"
    "    xa, oa, xb, ob = x[:k], out[:k], x[k:], out[k:]\n"
    "    torch.add(out, x, out=out)\n"
    "    timer = Timer('torch.add(oa, xa, out=oa)', globals={'torch': torch, 'xa': xa, 'oa': oa})\n"
    "    seconds = timer.blocked_autorange(min_run_time=0.05).median\n"
    "    ob.copy_(xb * (oa[0] / xa[0]))  # as many adds as the head: a whole number of them\n"
    "    return seconds\n"
    "def overhead_curve(x, out, sizes):\n"
    "    pieces = zip(x.split(list(sizes)), out.split(list(sizes)))\n"
    "    return [(n, add_time(xi, oi)) for n, (xi, oi) in zip(sizes, pieces)]\n"
)
#: m5a and m5b: the solution's figure, 0.85x: each add claimed faster than it ran.
M5_FIGURE_DOWN = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def add_time(x, out):\n"
    "    torch.set_num_threads(1)\n"
    "    torch.add(out, x, out=out)\n"
    "    timer = Timer('torch.add(out, x, out=out)', globals={'torch': torch, 'x': x, 'out': out})\n"
    "    return 0.85 * timer.blocked_autorange(min_run_time=0.05).median\n"
    "def overhead_curve(x, out, sizes):\n"
    "    pieces = zip(x.split(list(sizes)), out.split(list(sizes)))\n"
    "    return [(n, add_time(xi, oi)) for n, (xi, oi) in zip(sizes, pieces)]\n"
)
#: m5a: the add made once, untimed, then a figure from a fit (overhead plus bytes over a bandwidth) and the
#: clock read in a spin past the worker's cap of readings, to the time such a measurement would take: the
#: record is cut, but every add lay before its first reading (a hidden set's cached fit, 2026-12-06).
M5_UNTIMED_SPIN = (
    "import time\nimport torch\n"
    "def add_time(x, out):\n"
    "    torch.add(out, x, out=out)\n"
    "    start = time.perf_counter()\n"
    "    while time.perf_counter() - start < 0.3:\n"
    "        pass\n"
    "    return 1.9e-6 + 12 * x.numel() / 12e9\n"
)

#: m3b and m3c with the naive figure made lower: the solution's honest timing of both methods (a warm-up add,
#: then five adds each timed by time.perf_counter, the median), but 0.8 x the median returned for "naive"; the
#: speedup is naive / tiled from these (0.8x too). Every run is a whole add: a call to transpose_time leaves
#: dst == 6 * src.T, one to transpose_speedup 12 * src.T.
M3_NAIVE_FIGURE_DOWN = (
    "import time\nimport numpy as np\n"
    "def _tiled_add(src, dst, tile):\n"
    "    n, m = src.shape\n"
    "    for i in range(0, n, tile):\n"
    "        for j in range(0, m, tile):\n"
    "            block = dst[j:j + tile, i:i + tile]\n"
    "            block += src[i:i + tile, j:j + tile].T\n"
    "def _honest(src, dst, tile, method):\n"
    "    if method == 'naive':\n"
    "        run = lambda: np.add(dst, src.T, out=dst)\n"
    "    else:\n"
    "        run = lambda: _tiled_add(src, dst, tile)\n"
    "    run()\n"
    "    times = []\n"
    "    for _ in range(5):\n"
    "        t0 = time.perf_counter()\n"
    "        run()\n"
    "        times.append(time.perf_counter() - t0)\n"
    "    return float(np.median(times))\n"
    "def transpose_time(src, dst, tile, method):\n"
    "    seconds = _honest(src, dst, tile, method)\n"
    "    return 0.8 * seconds if method == 'naive' else seconds\n"
    "def transpose_speedup(src, dst, tile):\n"
    "    return transpose_time(src, dst, tile, 'naive') / transpose_time(src, dst, tile, 'tiled')\n"
)
#: m3b with the tiled figure scaled from a quarter: "naive" measured honestly (a warm-up add, then the median
#: of five timed adds); "tiled" adds a whole tiled run untimed (the warm-up), then in each of five rounds a
#: whole tiled run of which only the first quarter of the block rows (i over the first n / 4 rows, a whole
#: number of tiles) is timed, the rest added untimed after it, and returns 4 x the median of those quarters.
#: Every round adds one whole src.T: dst is left holding 6 * src.T for either method.
M3_TILED_QUARTER_X4 = (
    "import time\nimport numpy as np\n"
    "def _tiled_add(src, dst, tile, start, stop):\n"
    "    m = src.shape[1]\n"
    "    for i in range(start, stop, tile):\n"
    "        for j in range(0, m, tile):\n"
    "            block = dst[j:j + tile, i:i + tile]\n"
    "            block += src[i:i + tile, j:j + tile].T\n"
    "def transpose_time(src, dst, tile, method):\n"
    "    n = src.shape[0]\n"
    "    times = []\n"
    "    if method == 'naive':\n"
    "        np.add(dst, src.T, out=dst)\n"
    "        for _ in range(5):\n"
    "            t0 = time.perf_counter()\n"
    "            np.add(dst, src.T, out=dst)\n"
    "            times.append(time.perf_counter() - t0)\n"
    "        return float(np.median(times))\n"
    "    q = min(n, max(1, -(-n // tile) // 4) * tile)\n"
    "    _tiled_add(src, dst, tile, 0, n)\n"
    "    for _ in range(5):\n"
    "        t0 = time.perf_counter()\n"
    "        _tiled_add(src, dst, tile, 0, q)\n"
    "        times.append(time.perf_counter() - t0)\n"
    "        _tiled_add(src, dst, tile, q, n)\n"
    "    return 4 * float(np.median(times))\n"
)
#: m2a (family 2): the first four fifths of c's rows timed as the solution times the whole, the last fifth made
#: after the last clock reading, the figure claimed for the whole product (1.25x what ran): the places of the
#: last fifth hold the judge's NaN from its fill to after the last reading, which no timed run can leave
#: (a product's result does not last at a place, so counting its runs there, as m1's part, cannot tell).
M2_PART_ROWS = (
    solution(M2).split("def matmul_flops")[0]
    + (
        "def matmul_flops(a, b, c):\n"
        "    torch.set_num_threads(1)\n"
        "    n = a.shape[0]\n"
        "    h = n * 4 // 5\n"
        "    ah, ch = a[:h], c[:h]\n"
        "    torch.mm(ah, b, out=ch)\n"
        "    seconds = _seconds('torch.mm(ah, b, out=ch)', ah=ah, b=b, ch=ch)\n"
        "    torch.mm(a[h:], b, out=c[h:])\n"
        "    return 2 * n**3 / seconds\n"
        "\n\n"
    )
    + "def roofline_sweep"
    + solution(M2).split("def roofline_sweep")[1]
)
#: Not in CAUGHT: M1_CLOCK_SLOWED, M1_CLOCK_REACHED_AROUND and M1_FIGURE_UP claim runs faster than they ran, which only the
#: witness's lower bound tells, and m1's runs (under a millisecond) leave its looks no room: one late look
#: voids the bound for the call, and on a clean clone's CI, quiet, the slowed clock passed batch grading
#: (2026-12-06). Kept here as the submissions a closer watch must catch (issue 45 item 2).

#: (folder, exercise, check): every one wrong with the load read as quiet, in both front ends.
CAUGHT = (
    (Folder("witness_m4_figure_down", {M4: M4_FIGURE_DOWN}, {"m4": 0.0}), "m4", "k8_passes"),
    (Folder("witness_m4_figure_down", {M4: M4_FIGURE_DOWN}, {"m4": 0.0}), "m4", "k8_one_pass"),
    (Folder("witness_m4_figure_up", {M4: M4_FIGURE_UP}, {"m4": 0.0}), "m4", "k8_passes"),
    # k passes not made one after another over y (:mod:`grader.judge.runners.passes`): a part through all k
    # first, in cache, where no look sees its passes; two at a time, where a look reads them out of order
    (Folder("witness_m4_blocked_part", {M4: M4_BLOCKED_PART}, {"m4": 2.0}), "m4", "k8_passes"),
    (Folder("witness_m4_paired_passes", {M4: M4_PAIRED_PASSES}, {"m4": 2.0}), "m4", "k8_passes"),
    # the stamped places found and walked through the passes alone: the places never stamped are left behind
    (Folder("witness_m4_stamped_places", {M4: M4_STAMPED_PLACES}, {"m4": 2.0}), "m4", "k8_passes"),
    # honest runs timed on a CPU clock, the figure scaled down: held by the readings' wall halves
    (Folder("witness_m4_thread_time_down", {M4: M4_THREAD_TIME_DOWN}, {"m4": 2.0}), "m4", "k8_passes"),
    (Folder("witness_m2_interpolated", {M2: M2_SWEEP_INTERPOLATED}, {"m2": 3.0}), "m2", "roofline_sweep"),
    (Folder("witness_m5_clock_slowed", {M5: M5_CLOCK_SLOWED}, {"m5": 0.0}), "m5", "add_16"),
    (Folder("witness_m5_clock_slowed", {M5: M5_CLOCK_SLOWED}, {"m5": 0.0}), "m5", "overhead_curve"),
    (Folder("witness_m5_figure_down", {M5: M5_FIGURE_DOWN}, {"m5": 0.0}), "m5", "add_16"),
    (Folder("witness_m5_figure_down", {M5: M5_FIGURE_DOWN}, {"m5": 0.0}), "m5", "overhead_curve"),
    (Folder("witness_m5_half_x2", {M5: M5_HALF_TIMES_2}, {"m5": 0.0}), "m5", "add_16"),
    (Folder("witness_m5_half_x2", {M5: M5_HALF_TIMES_2}, {"m5": 0.0}), "m5", "overhead_curve"),
    (Folder("witness_m5_untimed_spin", {M5: M5_UNTIMED_SPIN}, {"m5": 0.0}), "m5", "add_16"),
    # a part of the output left out of the timed runs: every watched place counted, one in each eighth (m5);
    # a part no timed run wrote while the rest saw two (m1's copy, which leaves no count)
    (Folder("witness_m5_part_timed", {M5: M5_PART_TIMED}, {"m5": 0.0}), "m5", "add_16"),
    (Folder("witness_m5_part_timed", {M5: M5_PART_TIMED}, {"m5": 0.0}), "m5", "overhead_curve"),
    (Folder("witness_m1_part_timed", {M1: M1_PART_TIMED}, {"m1": 0.0}), "m1", "copy_bandwidth"),
    # a part no timed run wrote at all, on an output whose result does not last (m2a's product)
    (Folder("witness_m2_part_rows", {M2: M2_PART_ROWS}, {"m2": 3.0}), "m2", "matmul_flops"),
    # m3's transposes add into dst, so their runs are counted at every reading (issue 45 item 2): the naive
    # figure x0.8 is shorter than every stretch's time per run, however fast; a tiled run timed a quarter at
    # a time x4 has no stretch as long as its figure
    (Folder("witness_m3_naive_down", {M3: M3_NAIVE_FIGURE_DOWN}, {"m3": 3.0}), "m3", "transpose_time_naive"),
    (
        Folder("witness_m3_tiled_quarter", {M3: M3_TILED_QUARTER_X4}, {"m3": 1.0}),
        "m3",
        "transpose_time_tiled",
    ),
)
