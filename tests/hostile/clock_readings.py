"""The hostile submissions of tests/hostile/test_clock_readings.py (issue 37, point 3): figures that did not
come from timing the work, each with the result the judge checks left in the buffers it handed (where it
hands them), a call that lasts longer than it claims and a CPU kept busy, so that only the clock readings
(grader.judge.runners.readings) tell. Each file holds only the cheated function (a missing function is not
attempted), so that nothing else costs time to grade.
"""

from __future__ import annotations

from tests.hostile.suite import M1, M3, M4, M5, Folder

#: m4a: the k passes made untimed, twice (the result, and a call as long as the k passes it claims), then one in-place pass by 1.0 (which
#: leaves y as it is) timed five times and the median scaled by k: a figure of k passes from stretches of
#: one. The fused method is not attempted.
M4_ONE_PASS_TIMES_K = (
    "import statistics, time\nimport torch\n"
    "C = 1.01\n"
    "def scale_time(x, y, k, fused):\n"
    "    if fused:\n"
    "        raise NotImplementedError\n"
    "    torch.set_num_threads(1)\n"
    "    for _ in range(2):\n"
    "        torch.mul(x, C, out=y)\n"
    "        for _ in range(k - 1):\n"
    "            y.mul_(C)\n"
    "    times = []\n"
    "    for _ in range(5):\n"
    "        t0 = time.perf_counter()\n"
    "        y.mul_(1.0)\n"
    "        times.append(time.perf_counter() - t0)\n"
    "    return k * statistics.median(times)\n"
)
#: m3b: the whole transpose added once, untimed (the result), then a quarter of it timed five times and
#: scaled by 4, for either method (the tiled one never runs). So that dst stays a whole multiple of src.T,
#: each of the five rounds adds the timed quarter (src[:q].T into dst[:, :q]) and then the other three
#: quarters, untimed: one whole src.T a round, dst left holding 6 * src.T. No stretch between consecutive
#: readings holds a whole run (a timed quarter, or the three untimed quarters after it).
M3_QUARTER_TIMES_4 = (
    "import statistics, time\nimport numpy as np\n"
    "def transpose_time(src, dst, tile, method):\n"
    "    np.add(dst, src.T, out=dst)\n"
    "    q = max(1, src.shape[0] // 4)\n"
    "    times = []\n"
    "    for _ in range(5):\n"
    "        t0 = time.perf_counter()\n"
    "        np.add(dst[:, :q], src[:q].T, out=dst[:, :q])\n"
    "        times.append(time.perf_counter() - t0)\n"
    "        np.add(dst[:, q:], src[q:].T, out=dst[:, q:])\n"
    "    return 4 * statistics.median(times)\n"
)
#: m1: the first call measures honestly; every later one makes the copy (the result) a few times, untimed,
#: and returns the first call's figure: kept from an earlier call, read from no clock.
M1_KEPT_FIGURE = (
    "import time\nimport torch\n"
    "_kept = []\n"
    "def copy_bandwidth(src, dst):\n"
    "    torch.set_num_threads(1)\n"
    "    dst.copy_(src)\n"
    "    if _kept:\n"
    "        for _ in range(20):\n"
    "            dst.copy_(src)\n"
    "        return _kept[0]\n"
    "    number, times = 4, []\n"
    "    for _ in range(5):\n"
    "        t0 = time.perf_counter()\n"
    "        for _ in range(number):\n"
    "            dst.copy_(src)\n"
    "        times.append((time.perf_counter() - t0) / number)\n"
    "    _kept.append(2 * src.nbytes / sorted(times)[2])\n"
    "    return _kept[0]\n"
)
#: m5a: a ladder of sizes measured once, in the first call, on buffers of its own, and every size answered
#: from it (interpolated in log space), whatever size is asked: no later call reads a clock. Every call makes
#: the add asked for once, untimed (out = x: one add, the result the judge checks).
M5_LADDER = (
    "import math, time\nimport torch\n"
    "_ladder = {}\n"
    "def _measure(n):\n"
    "    x, out = torch.ones(n), torch.zeros(n)\n"
    "    torch.add(out, x, out=out)\n"
    "    number = max(5, min(200, int(1e7 // n)))\n"
    "    t0 = time.perf_counter()\n"
    "    for _ in range(number):\n"
    "        torch.add(out, x, out=out)\n"
    "    return (time.perf_counter() - t0) / number\n"
    "def add_time(x, out):\n"
    "    torch.set_num_threads(1)\n"
    "    torch.add(out, x, out=out)\n"
    "    if not _ladder:\n"
    "        for e in range(0, 23, 2):\n"
    "            _ladder[1 << e] = _measure(1 << e)\n"
    "    sizes = sorted(_ladder)\n"
    "    n = min(max(x.numel(), sizes[0]), sizes[-1])\n"
    "    low = max(s for s in sizes if s <= n)\n"
    "    high = min(s for s in sizes if s >= n)\n"
    "    if low == high:\n"
    "        return _ladder[low]\n"
    "    w = (math.log(n) - math.log(low)) / (math.log(high) - math.log(low))\n"
    "    return _ladder[low] ** (1 - w) * _ladder[high] ** w\n"
)
#: m5b: every point's add made once, untimed, on its pieces (out = x there: one add, the result), then the
#: curve from its first and last sizes, each timed in one block of calls on its pieces (adding on), the other
#: points drawn on the line through them: two timed stretches for all the curve's points.
M5_TWO_POINT_CURVE = (
    "import time\nimport torch\n"
    "def _block(x, out):\n"
    "    torch.add(out, x, out=out)\n"
    "    number = max(10, int(2e7 // max(x.numel(), 1)))\n"
    "    t0 = time.perf_counter()\n"
    "    for _ in range(number):\n"
    "        torch.add(out, x, out=out)\n"
    "    return (time.perf_counter() - t0) / number\n"
    "def overhead_curve(x, out, sizes):\n"
    "    torch.set_num_threads(1)\n"
    "    sizes = list(sizes)\n"
    "    pieces = list(zip(x.split(sizes), out.split(sizes)))\n"
    "    for xi, oi in pieces:\n"
    "        torch.add(oi, xi, out=oi)\n"
    "    first, last = sizes[0], sizes[-1]\n"
    "    t_first, t_last = _block(*pieces[0]), _block(*pieces[-1])\n"
    "    slope = (t_last - t_first) / max(1, last - first)\n"
    "    return [(n, t_first + slope * (n - first)) for n in sizes]\n"
)
#: m5a: a made-up figure, with readings forged into the worker's record (found in the noting clock's closure) to
#: look like a block timed: values of no clock this call read, so they lie outside the call's window. Each
#: forged reading comes with the places of out it would have read (the record's tally, from the noting class in
#: the same closure), a block of 1000 adds apart, so that the record stays whole (a record whose tally does not
#: match its readings does not parse, and reads as no clock read at all). The add is made once, untimed
#: (out = x: one add, the result).
M5_FORGED_READINGS = (
    "import time\nimport torch\n"
    "def add_time(x, out):\n"
    "    torch.add(out, x, out=out)\n"
    "    cells = [cell.cell_contents for cell in time.perf_counter.__closure__]  # the noting clock's\n"
    "    noting = next((c for c in cells if hasattr(c, 'tally')), None)\n"
    "    tally = getattr(noting, 'tally', None)  # the places of out each reading reads, where it reads them\n"
    "    for record in cells:  # the record is one of them\n"
    "        if isinstance(record, list) and record and record[0] is not None:\n"
    "            record[0].extend([1.0, 1.5])\n"
    "            if tally is not None:\n"
    "                view, places = tally\n"
    "                for runs in (1, 1001):\n"
    "                    record[5].extend([view[p] * runs for p in places] + [0.0])\n"
    "    return 3e-6\n"
)

#: m5a: a made-up figure, with two readings appended to the worker's record (as above) but none of the places
#: of out they would have read: the record no longer reads as the worker writes it. Said as a record changed
#: by the call's code, never as "read none of the clocks".
M5_TORN_RECORD = (
    "import time\nimport torch\n"
    "def add_time(x, out):\n"
    "    time.perf_counter()\n"
    "    torch.add(out, x, out=out)\n"
    "    for record in [cell.cell_contents for cell in time.perf_counter.__closure__]:\n"
    "        if isinstance(record, list) and record and record[0] is not None:\n"
    "            record[0].extend([1.0, 1.5])\n"
    "    return 3e-6\n"
)

#: m5b: the same line through the smallest and largest sizes, each timed on its pieces as the solution times
#: it (torch's Timer, blocked_autorange: many blocks, each a stretch of its own), the middle points drawn on
#: the line, each middle point's add made once on its piece (out = x there, the result) between two readings of
#: the clock of its own, which the figure does not use. Found by a hidden cheating set graded from outside
#: the repository (2026-12-05, then with its adds made before any reading, which the judge's witness now
#: catches where a look falls between them and the first reading): the readings hold a stretch for every
#: point, and the line through an overhead-plus-bandwidth curve lies near perfcore's points. Each bracketed
#: add is a run timed once, microseconds long, which no look of the witness (half a millisecond apart) can
#: hold; caught since the add accumulates and the worker counts it at each reading (issue 45 item 2): the
#: stretch between a middle point's two readings holds its one run, which took longer than the line's figure
#: (figure not what ran).
M5_TWO_POINTS_MANY_BLOCKS = (
    "import time\nimport torch\nfrom torch.utils.benchmark import Timer\n"
    "def _point(x, out):\n"
    "    torch.set_num_threads(1)\n"
    "    torch.add(out, x, out=out)\n"
    "    timer = Timer('torch.add(out, x, out=out)', globals={'torch': torch, 'x': x, 'out': out})\n"
    "    return timer.blocked_autorange(min_run_time=0.05).median\n"
    "def overhead_curve(x, out, sizes):\n"
    "    sizes = list(sizes)\n"
    "    pieces = list(zip(x.split(sizes), out.split(sizes)))\n"
    "    lo, hi = min(sizes), max(sizes)\n"
    "    t_lo = _point(*pieces[sizes.index(lo)])\n"
    "    for n, (xi, oi) in zip(sizes, pieces):\n"
    "        if n not in (lo, hi):\n"
    "            time.perf_counter()\n"
    "            torch.add(oi, xi, out=oi)\n"
    "            time.perf_counter()\n"
    "    t_hi = _point(*pieces[sizes.index(hi)])\n"
    "    slope = (t_hi - t_lo) / (hi - lo) if hi != lo else 0.0\n"
    "    return [(n, t_lo + slope * (n - lo)) for n in sizes]\n"
)

#: (folder, exercise, check, what its message must say, alternatives apart by " | "): every one wrong, by the
#: readings. The ladder's first call makes its handed add before it reads a clock: where a look of the judge's
#: witness falls between them (a loaded machine slows the worker), that call is caught as untimed first.
CAUGHT = (
    (Folder("readings_m4_one_pass_times_k", {M4: M4_ONE_PASS_TIMES_K}, {"m4": 0.0}), "m4", "k8_passes", "consecutive"),
    (Folder("readings_m3_quarter", {M3: M3_QUARTER_TIMES_4}, {"m3": 0.0}), "m3", "transpose_time_naive", "consecutive"),
    (Folder("readings_m3_quarter", {M3: M3_QUARTER_TIMES_4}, {"m3": 0.0}), "m3", "transpose_time_tiled", "consecutive"),
    (Folder("readings_m1_kept_figure", {M1: M1_KEPT_FIGURE}, {"m1": 0.0}), "m1", "copy_bandwidth", "read none of the clocks"),
    (Folder("readings_m5_ladder", {M5: M5_LADDER}, {"m5": 0.0}), "m5", "add_16", "read none of the clocks | before the call's first clock reading"),
    (Folder("readings_m5_two_points", {M5: M5_TWO_POINT_CURVE}, {"m5": 0.0}), "m5", "overhead_curve", "points"),
    (Folder("readings_m5_forged", {M5: M5_FORGED_READINGS}, {"m5": 0.0}), "m5", "add_16", "do not lie within the call"),
    (Folder("readings_m5_torn", {M5: M5_TORN_RECORD}, {"m5": 0.0}), "m5", "add_16", "was changed by code in the call"),
    (Folder("readings_m5_two_points_blocks", {M5: M5_TWO_POINTS_MANY_BLOCKS}, {"m5": 0.0}), "m5", "overhead_curve", "point"),
)  # fmt: skip
