"""The hostile measurement submissions of tests/hostile/test_hostile.py: one folder per cheat on a measuring
check (m1 to m5), graded together in one batch run, alone on the machine. Each measuring file holds only the
cheated function, so that the exercise's other checks cost nothing to grade (a missing function is not
attempted).

The judge hands m1, m2a, m2b, m3b, m3c, m4a, m5a, m5b and exercise 10 the buffers they work on, fresh and
random per call (a curve's point i on the i-th pieces of them: ``x.split(sizes)``, ``x.split(ms)``), and
checks the result in them after the call (issue 29; m5's add accumulates, ``torch.add(out, x, out=out)`` into
an out handed at zero, so its result is r * x, at least one add; so do m3's transposes, each run adding src.T
into a dst handed at zero, ``np.add(dst, src.T, out=dst)`` or tile by tile, so its result is r * src.T, the
same whole r >= 1 everywhere): a call that leaves the result wrong or unwritten, or changes an input, is wrong
whatever its figure. So that each cheat still reaches the defence its test names (the claimed-time rule, the
CPU rule, the one-core rule, a band, a probe, the stopped tree), every one leaves the right result in the
handed output (the work done once, or its result made another way) and then plays its trick;
``measure_result_unwritten`` and ``measure_inputs_overwritten`` are the ones the result check itself must
catch.
"""

from __future__ import annotations

from tests.hostile.suite import M1, M2, M3, M4, M5, Folder, solution

# -- measurements without measuring (graded in one batch run: exercises m1 and m5)

#: m1: the copy made once (the result the judge checks), then a constant that measured nothing. 0.2 GB/s is
#: far below any machine's copy rate: it claims a copy many times longer than the call lasted (the
#: claimed-rate rule), which no load can make of an honest call. (2.1e10, the constant of old, is about
#: this machine's own rate: one copy lasts what it claims, and only a band could tell; 1 GB/s claimed 0.3 s,
#: which one copy and its page faults came near beside other sessions, and the check was deferred.)
M1_CONSTANT = "def copy_bandwidth(src, dst):\n    dst.copy_(src)\n    return 2e8\n"
#: m5: the add made once (out = x: one add, the result), then a made-up time; the curve's adds made once, each
#: point's on its own pieces, then a made-up curve.
M5_CONSTANTS = (
    "import torch\n"
    "def add_time(x, out):\n"
    "    torch.add(out, x, out=out)\n"
    "    return 3e-6\n"
    "def overhead_curve(x, out, sizes):\n"
    "    parts = list(sizes)\n"
    "    for xi, oi in zip(x.split(parts), out.split(parts)):\n"
    "        torch.add(oi, xi, out=oi)\n"
    "    return [(n, 3e-6 + n * 4e-10) for n in parts]\n"
)
#: m5's add_time, with the clock its Timer reads running ten times too fast: ten times the time. (m5 rather
#: than m1: m1's reference copies 256 MiB ten times a run, too slow for this suite.)
M5_TIMER_PATCH = (
    "import time, timeit\n"
    "_real = time.perf_counter\n"
    "timeit.default_timer = lambda: 10.0 * _real()\n" + solution(M5).split("def overhead_curve")[0]
)

#: m1's constant, the copy made once (the result), with the call made to last as long as the copy it claims:
#: the wall time is spent, but on no CPU past the one copy, on every machine (where the in-cache probe cannot
#: tell a constant from a copy, too). The constant is low (0.1 GB/s) so that the call's CPU, one real copy
#: and the page faults of the handed buffers' first touch (0.1 s of CPU at 140 MB here), is a small share of
#: the time claimed (about 4%), below the CPU rule's quarter even where the rule gives up the share other
#: processes took of the core (68-70% in runs beside other sessions, where 1 GB/s and 0.2 GB/s left the rule
#: silent for the threaded one and the check deferred).
M1_SLEEPING = (
    "import time\n"
    "def copy_bandwidth(src, dst):\n"
    "    dst.copy_(src)\n"
    "    time.sleep(2 * src.nbytes / 1e8)\n"
    "    return 1e8\n"
)

#: M1_SLEEPING, with a thread alive at the judge's reading before each call that ends during it: a reading
#: per thread loses an ended thread's time, and said nothing rather than too little, so the CPU-time rule
#: was skipped (found by reading the rule; the thread's time now stays in its process's clock).
M1_SLEEPING_THREAD = (
    "import threading, time\n"
    "_go = threading.Event()\n"
    "threading.Thread(target=_go.wait, daemon=True).start()\n"
    "def copy_bandwidth(src, dst):\n"
    "    global _go\n"
    "    _go.set()\n"
    "    dst.copy_(src)\n"
    "    time.sleep(2 * src.nbytes / 1e8)\n"
    "    _go = threading.Event()\n"
    "    threading.Thread(target=_go.wait, daemon=True).start()\n"
    "    return 1e8\n"
)

# -- models of the graded input, and inputs told apart (issue 20): each file holds only the cheated function,
# so that the exercise's other checks cost nothing to grade (a missing function is not attempted)

#: m2a: the product asked for made once into c (the result), then a 256 x 256 matmul timed whatever n is
#: (its FLOP/s is close to a large one's), and its rate returned.
M2_SMALLER_MATMUL = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def matmul_flops(a, b, c):\n"
    "    torch.set_num_threads(1)\n"
    "    torch.mm(a, b, out=c)\n"
    "    m = min(a.shape[0], 256)\n"
    "    a2, b2, c2 = torch.randn(m, m), torch.randn(m, m), torch.empty(m, m)\n"
    "    t = Timer('torch.mm(a, b, out=c)', globals={'torch': torch, 'a': a2, 'b': b2, 'c': c2})\n"
    "    return 2 * m**3 / t.blocked_autorange(min_run_time=0.05).median\n"
)
#: m2a as issue 20 found it: a 256 x 256 matmul timed whatever n is, the graded product never made (c is
#: left as the judge filled it): the result check's, on any machine and under any load.
M2_SMALLER_INSTEAD = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def matmul_flops(a, b, c):\n"
    "    torch.set_num_threads(1)\n"
    "    m = min(a.shape[0], 256)\n"
    "    a2, b2, c2 = torch.randn(m, m), torch.randn(m, m), torch.empty(m, m)\n"
    "    t = Timer('torch.mm(a, b, out=c)', globals={'torch': torch, 'a': a2, 'b': b2, 'c': c2})\n"
    "    return 2 * m**3 / t.blocked_autorange(min_run_time=0.05).median\n"
)
#: m3b: the naive transpose measured honestly on the handed src and dst (a warm-up add and five timed ones,
#: which leave dst == 6 * src.T, a result the tiled runs' adds leave too), the tiled one never run: the call
#: spins for half the naive time (so it lasts what it claims, on a CPU) and returns that.
M3_HALF_NAIVE = (
    "import time\nimport numpy as np\n"
    "def _naive(src, dst):\n"
    "    np.add(dst, src.T, out=dst)\n"
    "    times = []\n"
    "    for _ in range(5):\n"
    "        t0 = time.perf_counter()\n"
    "        np.add(dst, src.T, out=dst)\n"
    "        times.append(time.perf_counter() - t0)\n"
    "    return float(np.median(times))\n"
    "def transpose_time(src, dst, tile, method):\n"
    "    naive = _naive(src, dst)\n"
    "    if method == 'naive':\n"
    "        return naive\n"
    "    end = time.perf_counter() + naive / 2\n"
    "    while time.perf_counter() < end:\n"
    "        pass\n"
    "    return naive / 2\n"
)
#: m4a: one out-of-place pass and one in-place pass timed on the handed x and y, the k passes never run:
#: first + (k - 1) * in_place. The result the judge checks (y as the k FP32 multiplications leave it, bit for
#: bit) is made without them: the k multiplications block by block, each 1 MiB block of y multiplied k times
#: while it sits in cache, one DRAM pass in all (2.7x sooner than the k passes on this machine). So the call
#: still returns sooner than the k passes it claims (the claimed-time rule), or than the k passes' work takes
#: at the DRAM limit (the Work floor).
M4_ONE_PASS_MODEL = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "C = 1.01\n"
    "BLOCK = 1 << 18\n"
    "def _time(stmt, **names):\n"
    "    return Timer(stmt, globals={'torch': torch, **names}).blocked_autorange(min_run_time=0.05).median\n"
    "def _blocked(x, y, k):\n"
    "    for at in range(0, x.numel(), BLOCK):\n"
    "        part = y[at : at + BLOCK]\n"
    "        torch.mul(x[at : at + BLOCK], C, out=part)\n"
    "        for _ in range(k - 1):\n"
    "            part.mul_(C)\n"
    "def scale_time(x, y, k, fused):\n"
    "    torch.set_num_threads(1)\n"
    "    if fused:\n"
    "        torch.mul(x, C**k, out=y)\n"
    "        return _time('torch.mul(x, c, out=y)', x=x, y=y, c=C**k)\n"
    "    first = _time('torch.mul(x, c, out=y)', x=x, y=y, c=C)\n"
    "    in_place = _time('y.mul_(c)', y=y, c=C)\n"
    "    _blocked(x, y, k)\n"
    "    return first + (k - 1) * in_place\n"
)
#: m2a: the call widens its own affinity to every core and runs one one-thread matmul per core at once (numpy
#: leaves the GIL in BLAS), reporting all their FLOPs over the wall time: one core's FLOP/s per free core,
#: where the task measures one core. (torch's own threads would not do: its pool keeps the one core it
#: started with.) One of the products is written into the handed c (a numpy view of it): the result.
M2_ALL_CORES = (
    "import os\nimport threading\nimport time\nimport numpy as np\n"
    "def matmul_flops(a, b, c):\n"
    "    try:\n"
    "        os.sched_setaffinity(0, range(os.cpu_count()))\n"
    "    except OSError:\n"
    "        pass\n"
    "    cores = len(os.sched_getaffinity(0))\n"
    "    n = a.shape[0]\n"
    "    a, b = a.numpy(), b.numpy()\n"
    "    outs = [c.numpy()] + [np.empty((n, n), np.float32) for _ in range(cores - 1)]\n"
    "    np.matmul(a, b, out=outs[0])\n"
    "    best = None\n"
    "    for _ in range(3):\n"
    "        threads = [threading.Thread(target=np.matmul, args=(a, b), kwargs={'out': o}) for o in outs]\n"
    "        t0 = time.perf_counter()\n"
    "        for t in threads:\n"
    "            t.start()\n"
    "        for t in threads:\n"
    "            t.join()\n"
    "        took = time.perf_counter() - t0\n"
    "        best = took if best is None else min(best, took)\n"
    "    return cores * 2 * n**3 / best\n"
)
#: m1 with its bytes counted once (0.5x), and a daemon thread that follows the core the judge pins and spins
#: whenever copy_bandwidth is not running: it would slow perfcore's reference on that core by as much.
M1_SPINNER = (
    "import os, threading, time\n"
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "_calling = threading.Event()\n"
    "_spinner = []\n"
    "def _spin():\n"
    "    while True:\n"
    "        try:\n"
    "            os.sched_setaffinity(0, os.sched_getaffinity(os.getpid()))\n"
    "        except (AttributeError, OSError):\n"
    "            pass\n"
    "        if _calling.is_set():\n"
    "            time.sleep(0.001)\n"
    "            continue\n"
    "        for _ in range(20_000):\n"
    "            pass\n"
    "def copy_bandwidth(src, dst):\n"
    "    if not _spinner:\n"
    "        _spinner.append(threading.Thread(target=_spin, daemon=True))\n"
    "        _spinner[0].start()\n"
    "    _calling.set()\n"
    "    try:\n"
    "        torch.set_num_threads(1)\n"
    "        dst.copy_(src)\n"
    "        seconds = Timer('dst.copy_(src)', globals={'dst': dst, 'src': src}).blocked_autorange(min_run_time=0.05).median\n"
    "        return src.nbytes / seconds\n"
    "    finally:\n"
    "        _calling.clear()\n"
)
#: m5a: the add made once (out = x: one add, the result), then a made-up time (timing nothing) for the sizes
#: it expects to be graded at, measured otherwise.
M5_SMALL_MADE_UP = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def add_time(x, out):\n"
    "    torch.set_num_threads(1)\n"
    "    torch.add(out, x, out=out)\n"
    "    if x.numel() <= 1 << 16:\n"
    "        return 1.5e-6\n"
    "    t = Timer('torch.add(out, x, out=out)', globals={'torch': torch, 'x': x, 'out': out})\n"
    "    return t.blocked_autorange(min_run_time=0.05).median\n"
)

#: m1 with its bytes counted once (0.5x), and a fork chain started at import: each link spins a millisecond,
#: forks its successor and exits, beside 30 sleeping decoys, so that a stop in the listed order always misses
#: the newest link, which would then run beside perfcore's reference (issue 29: 20 of 20 escapes).
M1_FORK_CHAIN = (
    "import subprocess, sys\n"
    "CHAIN = '''\n"
    "import os, time\n"
    "for _ in range(30):\n"
    "    if os.fork() == 0:\n"
    "        time.sleep(600)\n"
    "        os._exit(0)\n"
    "while True:\n"
    "    end = time.perf_counter() + 0.001\n"
    "    while time.perf_counter() < end:\n"
    "        pass\n"
    "    if os.fork():\n"
    "        os._exit(0)\n"
    "'''\n"
    "_CHAIN = subprocess.Popen([sys.executable, '-c', CHAIN], start_new_session=True)\n"
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def copy_bandwidth(src, dst):\n"
    "    torch.set_num_threads(1)\n"
    "    dst.copy_(src)\n"
    "    seconds = Timer('dst.copy_(src)', globals={'dst': dst, 'src': src}).blocked_autorange(min_run_time=0.05).median\n"
    "    return src.nbytes / seconds\n"
)
#: m2b's sweep on every core: each point's matmul run by one numpy thread per core at once (numpy leaves the
#: GIL in BLAS), all their FLOPs over the wall time. The curve runner held no CPU rule (issue 29). One of each
#: point's products is written into its rows of the handed y (a numpy view of them): the result.
M2_SWEEP_ALL_CORES = (
    "import os\nimport threading\nimport time\nimport numpy as np\n"
    "def roofline_sweep(w, x, y, ms):\n"
    "    try:\n"
    "        os.sched_setaffinity(0, range(os.cpu_count()))\n"
    "    except OSError:\n"
    "        pass\n"
    "    cores = len(os.sched_getaffinity(0))\n"
    "    rows, cols = w.shape\n"
    "    w, parts = w.numpy(), list(ms)\n"
    "    points = []\n"
    "    for m, xi, yi in zip(parts, x.split(parts), y.split(parts)):\n"
    "        xi = xi.numpy()\n"
    "        outs = [yi.numpy()] + [np.empty((m, cols), np.float32) for _ in range(cores - 1)]\n"
    "        np.matmul(xi, w, out=outs[0])\n"
    "        best = None\n"
    "        for _ in range(3):\n"
    "            threads = [threading.Thread(target=np.matmul, args=(xi, w), kwargs={'out': o}) for o in outs]\n"
    "            t0 = time.perf_counter()\n"
    "            for t in threads:\n"
    "                t.start()\n"
    "            for t in threads:\n"
    "                t.join()\n"
    "            took = time.perf_counter() - t0\n"
    "            best = took if best is None else min(best, took)\n"
    "        flops = 2 * m * rows * cols\n"
    "        points.append((flops / ((m * rows + rows * cols + m * cols) * 4), cores * flops / best))\n"
    "    return points\n"
)

#: m3c: two naive transposes of the handed src added into dst (for the Work floor, and the result: dst ==
#: 2 * src.T), then a constant speedup that is right for the lecture's n = 2048, tile 64 (issue 29: passed,
#: with no band and a fixed input). The speedup is now measured against perfcore's at drawn inputs from tile
#: 8, where tiling loses, to n = 3072 with tile 128.
M3_CONSTANT_SPEEDUP = (
    "import numpy as np\n"
    "def transpose_speedup(src, dst, tile):\n"
    "    np.add(dst, src.T, out=dst)\n"
    "    np.add(dst, src.T, out=dst)\n"
    "    return 1.6\n"
)
#: m1 that takes the first size it meets for the graded one (issue 29: it was, always) and counts its bytes
#: once there (0.5x), honest at every other size. The order of the graded input and the probe is a coin of
#: the submission's seed, so the 0.5x lands on the graded copy or on the probe: wrong either way.
M1_FIRST_INPUT = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "_first = []\n"
    "def copy_bandwidth(src, dst):\n"
    "    if not _first:\n"
    "        _first.append(src.nbytes)\n"
    "    torch.set_num_threads(1)\n"
    "    dst.copy_(src)\n"
    "    seconds = Timer('dst.copy_(src)', globals={'dst': dst, 'src': src}).blocked_autorange(min_run_time=0.05).median\n"
    "    return (1 if src.nbytes == _first[0] else 2) * src.nbytes / seconds\n"
)

# -- the result the judge checks (issue 29 item 1): left unwritten, or made without the work

#: m1: an honest figure, src copied into a buffer of its own of the handed size (the same bytes read and
#: written), and the handed dst never written: the judge filled it with NaN before the call, and finds it so.
M1_RESULT_UNWRITTEN = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def copy_bandwidth(src, dst):\n"
    "    torch.set_num_threads(1)\n"
    "    mine = torch.empty_like(dst)\n"
    "    mine.copy_(src)\n"
    "    timer = Timer('mine.copy_(src)', globals={'mine': mine, 'src': src})\n"
    "    return 2 * src.nbytes / timer.blocked_autorange(min_run_time=0.05).median\n"
)
#: m1: src and dst both zeroed instead of copied (the same bytes written, none read, timed as the copy):
#: dst equals src after the call, but src is not the input the judge handed in.
M1_INPUTS_OVERWRITTEN = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def copy_bandwidth(src, dst):\n"
    "    torch.set_num_threads(1)\n"
    "    src.zero_()\n"
    "    dst.zero_()\n"
    "    timer = Timer('src.zero_(); dst.zero_()', globals={'src': src, 'dst': dst})\n"
    "    return 2 * src.nbytes / timer.blocked_autorange(min_run_time=0.05).median\n"
)
#: m1 against the judge's sample of src's places: src's first half zeroed with dst's (dst equals src there),
#: only the second half copied, its rate reported as the whole copy's. The places kept, one in each of
#: 16,384 strata, find a change over any run two strata long: src changed, wrong.
M1_HALF_INPUT_ZEROED = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def copy_bandwidth(src, dst):\n"
    "    torch.set_num_threads(1)\n"
    "    half = src.numel() // 2\n"
    "    src[:half].zero_()\n"
    "    dst[:half].zero_()\n"
    "    run = lambda: dst[half:].copy_(src[half:])\n"
    "    run()\n"
    "    return 2 * src.nbytes / Timer('run()', globals={'run': run}).blocked_autorange(min_run_time=0.05).median\n"
)
#: m2a (issue 29, "measure something cheaper, then spin"): the full n x n product made once into c (the right
#: result), then a 640 x 640 matmul timed and its rate returned, the call spun out until it has lasted the
#: 2 n^3 / rate it claims: the Work floor, the claimed-time and the CPU rule all hold; only the figure, a
#: smaller matmul's, is not the graded one's.
M2_SMALLER_THEN_SPIN = (
    "import time\nimport torch\nfrom torch.utils.benchmark import Timer\n"
    "def matmul_flops(a, b, c):\n"
    "    start = time.perf_counter()\n"
    "    torch.set_num_threads(1)\n"
    "    n = a.shape[0]\n"
    "    torch.mm(a, b, out=c)\n"
    "    m = 640\n"
    "    a2, b2, c2 = torch.randn(m, m), torch.randn(m, m), torch.empty(m, m)\n"
    "    t = Timer('torch.mm(a, b, out=c)', globals={'torch': torch, 'a': a2, 'b': b2, 'c': c2})\n"
    "    rate = 2 * m**3 / t.blocked_autorange(min_run_time=0.05).median\n"
    "    end = start + 2 * n**3 / rate\n"
    "    while time.perf_counter() < end:\n"
    "        pass\n"
    "    return rate\n"
)
#: m4a, the same pattern: the k passes made once on the handed x and y (the result, bit for bit), then one
#: pass over 1 MiB, in cache, timed and scaled by k and by the handed size (a cache's rate, not DRAM's),
#: the call spun out to the time it claims. The fused one pass is honest.
M4_MODEL_THEN_SPIN = (
    "import time\nimport torch\nfrom torch.utils.benchmark import Timer\n"
    "C = 1.01\n"
    "SMALL = (1 << 20) // 4\n"
    "def scale_time(x, y, k, fused):\n"
    "    start = time.perf_counter()\n"
    "    torch.set_num_threads(1)\n"
    "    if fused:\n"
    "        torch.mul(x, C**k, out=y)\n"
    "        t = Timer('torch.mul(x, c, out=y)', globals={'torch': torch, 'x': x, 'y': y, 'c': C**k})\n"
    "        return t.blocked_autorange(min_run_time=0.05).median\n"
    "    torch.mul(x, C, out=y)\n"
    "    for _ in range(k - 1):\n"
    "        y.mul_(C)\n"
    "    xs, ys = torch.rand(SMALL), torch.empty(SMALL)\n"
    "    t = Timer('torch.mul(x, c, out=y)', globals={'torch': torch, 'x': xs, 'y': ys, 'c': C})\n"
    "    claimed = k * t.blocked_autorange(min_run_time=0.05).median * x.numel() / SMALL\n"
    "    while time.perf_counter() < start + claimed:\n"
    "        pass\n"
    "    return claimed\n"
)
MEASUREMENT_FOLDERS = (
    Folder("measure_constants", {M1: M1_CONSTANT, M5: M5_CONSTANTS}, {"m1": 0.0, "m5": 0.0}),
    Folder("measure_sleeping", {M1: M1_SLEEPING}, {"m1": 0.0}),
    Folder("measure_sleeping_thread", {M1: M1_SLEEPING_THREAD}, {"m1": 0.0}),
    Folder("measure_timer_patch", {M5: M5_TIMER_PATCH}, {"m5": 0.0}),
    # m3b's tiled time as half the naive one, m4a first + (k - 1) * in_place, m5a a made-up time at
    # n <= 2^16: each scores nothing on its check (wrong, or deferred where the machine cannot show it;
    # never passed), and nothing else in its file earns a point; m2a's 256 x 256 rate after the graded
    # product is judged as a measurement (AFTER_THE_WORK)
    Folder(
        "measure_models",
        {M2: M2_SMALLER_MATMUL, M3: M3_HALF_NAIVE, M4: M4_ONE_PASS_MODEL, M5: M5_SMALL_MADE_UP},
        {"m2": 0.0, "m3": 1.0, "m4": 2.0, "m5": 0.0},
    ),
    # m2a on every core it can take: wrong for using more than one core, where the machine has two or more
    Folder("measure_all_cores", {M2: M2_ALL_CORES}, {"m2": 0.0}),
    # m1's bytes counted once (0.5x), with a thread that spins on the pinned core whenever the student's call
    # is not running, to slow perfcore's reference as much: the tree is stopped while perfcore measures
    Folder("measure_spinner", {M1: M1_SPINNER}, {"m1": 0.0}),
    # m1's bytes counted once, with a fork chain and decoys running from import: the tree's cgroup (or the
    # sweeps) stop it for perfcore's side, and a round it ran through is void
    Folder("measure_fork_chain", {M1: M1_FORK_CHAIN}, {"m1": 0.0}),
    # m2b's sweep on every core: the curve runner holds the one-core rule too
    Folder("measure_curve_all_cores", {M2: M2_SWEEP_ALL_CORES}, {"m2": 0.0}),
    # m3c's constant speedup: it meets drawn inputs where perfcore's speedup leaves it
    Folder("measure_constant_speedup", {M3: M3_CONSTANT_SPEEDUP}, {"m3": 0.0}),
    # m1's first input taken for the graded one, a 0.5x figure there: the order is drawn
    Folder("measure_first_input", {M1: M1_FIRST_INPUT}, {"m1": 0.0}),
    # m1 copying src into a buffer of its own, the handed dst left as the judge filled it, and m2a timing a
    # smaller matmul instead of the graded product: the result check
    Folder(
        "measure_result_unwritten",
        {M1: M1_RESULT_UNWRITTEN, M2: M2_SMALLER_INSTEAD},
        {"m1": 0.0, "m2": 0.0},
    ),
    # m1 zeroing src and dst instead of copying: dst == src, but an input changed: the result check
    Folder("measure_inputs_overwritten", {M1: M1_INPUTS_OVERWRITTEN}, {"m1": 0.0}),
    # m1 zeroing half of src and dst, copying the other half, its rate the whole copy's: the sample of src
    Folder("measure_half_input_zeroed", {M1: M1_HALF_INPUT_ZEROED}, {"m1": 0.0}),
    # m2a's product made once, then a 640 x 640 matmul's rate, spun out to the time it claims: judged by the
    # band as an honest figure (3 where it lies inside)
    Folder("measure_smaller_then_spin", {M2: M2_SMALLER_THEN_SPIN}, {"m2": 3.0}),
    # m4a's k passes made once, then an in-cache pass's time scaled up, spun out (k8_one_pass honest: 2)
    Folder("measure_model_then_spin", {M4: M4_MODEL_THEN_SPIN}, {"m4": 2.0}),
)

#: The checks the cheats of "measure_models" target, with what they must not get: a pass. (Its m2a, a 256 x
#: 256 matmul's rate after the graded product made once, is among AFTER_THE_WORK: nothing left to model.)
MODELLED = (
    ("m3", "transpose_time_tiled"),
    ("m4", "k8_passes"),
    ("m5", "add_16"),
)
#: m2a's graded product made once, then a smaller matmul's rate returned: (student, exercise, check). The
#: 2 n^3 FLOP the model used to save are done and read back; what is left is this core's matmul rate from a
#: smaller sample, which the band judges as any honest method's (docs/measurement.md: n = 640 read 1.00-1.05x
#: the graded sizes' rate; "measure_models" passed beside other sessions).
AFTER_THE_WORK = (
    ("measure_models", "m2", "matmul_flops"),
    ("measure_smaller_then_spin", "m2", "matmul_flops"),
)

#: Every cheat above on the check it targets: (student, exercise, check). Graded with the machine's load read
#: as quiet (grader.sandbox.load.LOAD_ENV), so that no round is discounted for the other work beside it, each
#: is wrong: its evidence is the claimed time or rate, the CPU time, one core, the result in the handed
#: buffers, or a figure far outside perfcore's band.
WRONG_WHEN_QUIET = (
    ("measure_constants", "m1", "copy_bandwidth"),
    ("measure_constants", "m5", "add_16"),
    ("measure_sleeping", "m1", "copy_bandwidth"),
    ("measure_sleeping_thread", "m1", "copy_bandwidth"),
    ("measure_timer_patch", "m5", "add_16"),
    ("measure_models", "m3", "transpose_time_tiled"),
    ("measure_models", "m4", "k8_passes"),
    ("measure_spinner", "m1", "copy_bandwidth"),
    ("measure_fork_chain", "m1", "copy_bandwidth"),
    ("measure_constant_speedup", "m3", "transpose_speedup"),
    ("measure_first_input", "m1", "copy_bandwidth"),
    ("measure_result_unwritten", "m1", "copy_bandwidth"),
    ("measure_result_unwritten", "m2", "matmul_flops"),
    ("measure_inputs_overwritten", "m1", "copy_bandwidth"),
)
#: Not in WRONG_WHEN_QUIET: the cheats whose figure lies near perfcore's, a figure made up or scaled from other
#: work instead of timed (issue 37: the judge does not yet ask that a figure come from timing the work). Even
#: with the load read as quiet they were deferred as too noisy on a loaded 2-core machine (m5's line at
#: 1.3-2.85x perfcore's against the band's 2.0, which passed beside the real load; m5a's made-up 1.5 us,
#: inside the band at small sizes; m4a's in-cache pass scaled to k passes, 0.52-1.14x). Their own tests above
#: (MODELLED, test_hostile's m5-made-up-curve and in-cache-pass tests) ask only that they are never passed.
NEAR_PERFCORES_FIGURE = (
    ("measure_constants", "m5", "overhead_curve"),
    ("measure_models", "m5", "add_16"),
    ("measure_model_then_spin", "m4", "k8_passes"),
)
#: Not in WRONG_WHEN_QUIET either: m2a on every core gains only the cores the machine leaves idle. Beside other
#: work on two cores its threads got one core's worth between them: no CPU time past its wall time for the
#: one-core rule, and a figure of one core's, inside the band (passed, read as quiet or not, 2026-12-05);
#: on an idle machine it is wrong ("more than one core"). Its own test asks that of it.
ON_IDLE_CORES = (("measure_all_cores", "m2", "matmul_flops"),)
#: Not in WRONG_WHEN_QUIET either: m2b's sweep on every core. Where its threads share the one core the judge
#: pins it to, its figure (cores x FLOPs over two matmuls' wall time) is one core's rate, an honest figure by
#: other means: graded alone with the load read as quiet on the 2-vCPU EPYC (2026-12-05) it was passed once
#: and deferred twice (0.14-0.84x perfcore's), by this stop's judge and the last stop's alike. Where it does
#: get a second core, its CPU time past its wall time is the one-core rule's, as m2a's is.
ONE_CORE_IN_EFFECT = (("measure_curve_all_cores", "m2", "roofline_sweep"),)
#: The folders graded, with the load read as quiet, by the pytest plugin (in a subprocess, in the folder, as
#: a student runs it) rather than the batch grader: the setting must reach either front end's judge.
QUIET_BY_PYTEST = ("measure_sleeping", "measure_sleeping_thread")
