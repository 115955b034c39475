"""The hostile measurement submissions of tests/hostile/test_hostile.py: one folder per cheat on a measuring
check (m1 to m5), graded together in one batch run, alone on the machine. Each measuring file holds only the
cheated function, so that the exercise's other checks cost nothing to grade (a missing function is not
attempted).
"""

from __future__ import annotations

from tests.hostile.suite import M1, M2, M3, M4, M5, Folder, solution

# -- measurements without measuring (graded in one batch run: exercises m1 and m5)

M1_CONSTANT = "def copy_bandwidth(n_bytes):\n    return 2.1e10\n"
M5_CONSTANTS = (
    "def add_time(n_elements):\n    return 3e-6\n"
    "def overhead_curve(sizes):\n"
    "    return [(n, 3e-6 + n * 4e-10) for n in sizes]\n"
)
#: m5's add_time, with the clock its Timer reads running ten times too fast: ten times the time. (m5 rather
#: than m1: m1's reference copies 256 MiB ten times a run, too slow for this suite.)
M5_TIMER_PATCH = (
    "import time, timeit\n"
    "_real = time.perf_counter\n"
    "timeit.default_timer = lambda: 10.0 * _real()\n" + solution(M5).split("def overhead_curve")[0]
)

#: m1's constant, with the call made to last as long as the copy it claims: the wall time is spent, but on
#: no CPU, on every machine (where the in-cache probe cannot tell a constant from a copy, too).
M1_SLEEPING = (
    "import time\ndef copy_bandwidth(n_bytes):\n    time.sleep(2 * n_bytes / 2.1e10)\n    return 2.1e10\n"
)

#: M1_SLEEPING, with a thread alive at the judge's reading before each call that ends during it: a reading
#: per thread loses an ended thread's time, and said nothing rather than too little, so the CPU-time rule
#: was skipped (found by reading the rule; the thread's time now stays in its process's clock).
M1_SLEEPING_THREAD = (
    "import threading, time\n"
    "_go = threading.Event()\n"
    "threading.Thread(target=_go.wait, daemon=True).start()\n"
    "def copy_bandwidth(n_bytes):\n"
    "    global _go\n"
    "    _go.set()\n"
    "    time.sleep(2 * n_bytes / 2.1e10)\n"
    "    _go = threading.Event()\n"
    "    threading.Thread(target=_go.wait, daemon=True).start()\n"
    "    return 2.1e10\n"
)

# -- models of the graded input, and inputs told apart (issue 20): each file holds only the cheated function,
# so that the exercise's other checks cost nothing to grade (a missing function is not attempted)

#: m2a: a 256 x 256 matmul timed whatever n is (its FLOP/s is close to a large one's).
M2_SMALLER_MATMUL = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def matmul_flops(n):\n"
    "    torch.set_num_threads(1)\n"
    "    m = min(n, 256)\n"
    "    a, b, c = torch.randn(m, m), torch.randn(m, m), torch.empty(m, m)\n"
    "    t = Timer('torch.mm(a, b, out=c)', globals={'torch': torch, 'a': a, 'b': b, 'c': c})\n"
    "    return 2 * m**3 / t.blocked_autorange(min_run_time=0.05).median\n"
)
#: m3b: the naive transpose measured honestly, the tiled one never run: the call spins for half the naive
#: time (so it lasts what it claims, on a CPU) and returns that.
M3_HALF_NAIVE = (
    "import time\nimport numpy as np\n"
    "def _naive(n):\n"
    "    src = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)\n"
    "    dst = np.empty_like(src)\n"
    "    np.copyto(dst, src.T)\n"
    "    times = []\n"
    "    for _ in range(5):\n"
    "        t0 = time.perf_counter()\n"
    "        np.copyto(dst, src.T)\n"
    "        times.append(time.perf_counter() - t0)\n"
    "    return float(np.median(times))\n"
    "def transpose_time(n, tile, method):\n"
    "    naive = _naive(n)\n"
    "    if method == 'naive':\n"
    "        return naive\n"
    "    end = time.perf_counter() + naive / 2\n"
    "    while time.perf_counter() < end:\n"
    "        pass\n"
    "    return naive / 2\n"
)
#: m4a: one out-of-place pass and one in-place pass timed, k passes never run: first + (k - 1) * in_place.
M4_ONE_PASS_MODEL = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "C = 1.01\n"
    "def _time(stmt, **names):\n"
    "    return Timer(stmt, globals={'torch': torch, **names}).blocked_autorange(min_run_time=0.05).median\n"
    "def scale_time(n_elements, k, fused):\n"
    "    torch.set_num_threads(1)\n"
    "    x, y = torch.rand(n_elements), torch.empty(n_elements)\n"
    "    if fused:\n"
    "        return _time('torch.mul(x, c, out=y)', x=x, y=y, c=C**k)\n"
    "    first = _time('torch.mul(x, c, out=y)', x=x, y=y, c=C)\n"
    "    in_place = _time('y.mul_(c)', y=y, c=C)\n"
    "    return first + (k - 1) * in_place\n"
)
#: m2a: the call widens its own affinity to every core and runs one one-thread matmul per core at once (numpy
#: leaves the GIL in BLAS), reporting all their FLOPs over the wall time: one core's FLOP/s per free core,
#: where the task measures one core. (torch's own threads would not do: its pool keeps the one core it
#: started with.)
M2_ALL_CORES = (
    "import os\nimport threading\nimport time\nimport numpy as np\n"
    "def matmul_flops(n):\n"
    "    try:\n"
    "        os.sched_setaffinity(0, range(os.cpu_count()))\n"
    "    except OSError:\n"
    "        pass\n"
    "    cores = len(os.sched_getaffinity(0))\n"
    "    a = np.random.rand(n, n).astype(np.float32)\n"
    "    b = np.random.rand(n, n).astype(np.float32)\n"
    "    outs = [np.empty((n, n), np.float32) for _ in range(cores)]\n"
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
    "def copy_bandwidth(n_bytes):\n"
    "    if not _spinner:\n"
    "        _spinner.append(threading.Thread(target=_spin, daemon=True))\n"
    "        _spinner[0].start()\n"
    "    _calling.set()\n"
    "    try:\n"
    "        torch.set_num_threads(1)\n"
    "        n = n_bytes // 4\n"
    "        src, dst = torch.ones(n), torch.zeros(n)\n"
    "        dst.copy_(src)\n"
    "        seconds = Timer('dst.copy_(src)', globals={'dst': dst, 'src': src}).blocked_autorange(min_run_time=0.05).median\n"
    "        return n * 4 / seconds\n"
    "    finally:\n"
    "        _calling.clear()\n"
)
#: m5a: a made-up time (timing nothing) for the sizes it expects to be graded at, measured otherwise.
M5_SMALL_MADE_UP = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "def add_time(n_elements):\n"
    "    if n_elements <= 1 << 16:\n"
    "        return 1.5e-6\n"
    "    torch.set_num_threads(1)\n"
    "    a, b, c = torch.ones(n_elements), torch.ones(n_elements), torch.empty(n_elements)\n"
    "    t = Timer('torch.add(a, b, out=c)', globals={'torch': torch, 'a': a, 'b': b, 'c': c})\n"
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
    "def copy_bandwidth(n_bytes):\n"
    "    torch.set_num_threads(1)\n"
    "    n = n_bytes // 4\n"
    "    src, dst = torch.ones(n), torch.zeros(n)\n"
    "    dst.copy_(src)\n"
    "    seconds = Timer('dst.copy_(src)', globals={'dst': dst, 'src': src}).blocked_autorange(min_run_time=0.05).median\n"
    "    return n * 4 / seconds\n"
)
#: m2b's sweep on every core: each point's matmul run by one numpy thread per core at once (numpy leaves the
#: GIL in BLAS), all their FLOPs over the wall time. The curve runner held no CPU rule (issue 29).
M2_SWEEP_ALL_CORES = (
    "import os\nimport threading\nimport time\nimport numpy as np\n"
    "def roofline_sweep(rows, cols, ms):\n"
    "    try:\n"
    "        os.sched_setaffinity(0, range(os.cpu_count()))\n"
    "    except OSError:\n"
    "        pass\n"
    "    cores = len(os.sched_getaffinity(0))\n"
    "    w = np.random.rand(rows, cols).astype(np.float32)\n"
    "    points = []\n"
    "    for m in ms:\n"
    "        x = np.random.rand(m, rows).astype(np.float32)\n"
    "        outs = [np.empty((m, cols), np.float32) for _ in range(cores)]\n"
    "        np.matmul(x, w, out=outs[0])\n"
    "        best = None\n"
    "        for _ in range(3):\n"
    "            threads = [threading.Thread(target=np.matmul, args=(x, w), kwargs={'out': o}) for o in outs]\n"
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

#: m3c: two naive transposes (for the Work floor), then a constant speedup that is right for the lecture's
#: n = 2048, tile 64 (issue 29: passed, with no band and a fixed input). The speedup is now measured against
#: perfcore's at drawn inputs from tile 8, where tiling loses, to n = 3072 with tile 128.
M3_CONSTANT_SPEEDUP = (
    "import numpy as np\n"
    "def transpose_speedup(n, tile):\n"
    "    src = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)\n"
    "    dst = np.empty_like(src)\n"
    "    np.copyto(dst, src.T)\n"
    "    np.copyto(dst, src.T)\n"
    "    return 1.6\n"
)
#: m1 that takes the first size it meets for the graded one (issue 29: it was, always) and counts its bytes
#: once there (0.5x), honest at every other size. The order of the graded input and the probe is a coin of
#: the submission's seed, so the 0.5x lands on the graded copy or on the probe: wrong either way.
M1_FIRST_INPUT = (
    "import torch\nfrom torch.utils.benchmark import Timer\n"
    "_first = []\n"
    "def copy_bandwidth(n_bytes):\n"
    "    if not _first:\n"
    "        _first.append(n_bytes)\n"
    "    torch.set_num_threads(1)\n"
    "    n = n_bytes // 4\n"
    "    src, dst = torch.ones(n), torch.zeros(n)\n"
    "    dst.copy_(src)\n"
    "    seconds = Timer('dst.copy_(src)', globals={'dst': dst, 'src': src}).blocked_autorange(min_run_time=0.05).median\n"
    "    return (1 if n_bytes == _first[0] else 2) * n * 4 / seconds\n"
)
MEASUREMENT_FOLDERS = (
    Folder("measure_constants", {M1: M1_CONSTANT, M5: M5_CONSTANTS}, {"m1": 0.0, "m5": 0.0}),
    Folder("measure_sleeping", {M1: M1_SLEEPING}, {"m1": 0.0}),
    Folder("measure_sleeping_thread", {M1: M1_SLEEPING_THREAD}, {"m1": 0.0}),
    Folder("measure_timer_patch", {M5: M5_TIMER_PATCH}, {"m5": 0.0}),
    # m2a min(n, 256), m3b's tiled time as half the naive one, m4a first + (k - 1) * in_place, m5a a
    # made-up time at n <= 2^16: each scores nothing on its check (wrong, or deferred where the machine
    # cannot show it; never passed), and nothing else in its file earns a point
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
)

#: The checks the cheats of "measure_models" target, with what they must not get: a pass.
MODELLED = (
    ("m2", "matmul_flops"),
    ("m3", "transpose_time_tiled"),
    ("m4", "k8_passes"),
    ("m5", "add_16"),
)
