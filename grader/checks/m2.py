"""Checks of measurement 2 (matmul FLOP/s and the roofline): solutions/m2_matmul_roofline.py.

m2a's n is drawn per submission, the graded n and the probe's from one range (:data:`MATMUL_N`), sized
for the rate, not for a long call: a single-core BLAS matmul runs at its peak from n of a few hundred
(79.5-85.7 GFLOP/s from n = 128 to 3072 on the project's EPYC), so each honest method follows perfcore's at
the same n. The range was 2560-3072 so that the smallest n took longer at the machine's compute limit than
timing a smaller matmul lasts; now the handed c must hold a @ b at the drawn n, so the 2n^3 FLOP are done
whatever figure is returned, and n of 1024-1536 suffices: a product there lasts 27-90 ms at 80 GFLOP/s,
where one of 3072 lasted 0.7 s and the check 18.5 s. The FP16 decision holds there better than at 3072: inputs
rounded to FP16 err by about 2^-12 sqrt(n) of a typical term, the bound (:func:`grader.compare.outputs.product`)
is 4 sqrt(n) 2^-24 of n terms, so FP16 exceeds it at more places the smaller n is.
"""

import random

from grader.checks import flops_bound
from grader.compare import outputs
from grader.specs.check import Exercise, MeasurementCheck, ShapeCheck, Work
from grader.specs.handed import Buffer, Handed, back_to_back
from grader.specs.requirements import Requirements
from perfcore.measure import matmul_flops, roofline_sweep


def _matmul(n: int) -> float:
    return matmul_flops(n=n, path="torch", block_s=0.05)  # ~2 ms calls: longer blocks steady the reference


#: m2a's n: the range of the graded n and of the probe's, in steps of 128 (a BLAS kernel's blocks divide it),
#: where a one-core BLAS runs at its rate (module docstring).
MATMUL_N = (1024, 1536)


#: m2a's time limit, counted in the student's own calls (grader.judge.runners.rounds.StudentClock): the
#: calls a check must make (3 rounds, one probe of 3) at the largest n, each timing the seven products an
#: honest timeit-style method takes (a warm-up, then blocks), on a slow core's 10 GFLOP/s. numpy's matmul
#: timed out at the old 120 s with perfcore's rounds counted against it. At n of 1024-1536 the 120 s floor
#: governs: the 42 products of 1536 take 30 s on such a core, and a timeit-style method that times blocks of
#: 0.2 s and more takes about 1.5 s a call whatever n.
SLOW_CORE_FLOPS = 10e9
MATMUL_TIMEOUT_S = max(120.0, (3 + 3) * 7 * 2 * MATMUL_N[1] ** 3 / SLOW_CORE_FLOPS)


def _matmul_input(u: float, rng: random.Random) -> dict[str, int]:
    low, high = MATMUL_N
    return {"n": low + round(u * (high - low) / 128) * 128}


def _matmul_work(n: int) -> Work:
    """One n x n x n FP32 matmul: 2n^3 FLOP, and its three matrices read or written once."""
    return Work(bytes=3 * 4 * n * n, flops=2 * n**3)


#: A product's result stands at a place for about a twentieth of a run at the best of its places (from the
#: last panel of its sum to the next run's first, Handed.lasting): the witness's lower bound holds where its
#: looks were closer than half that, as for twenty writes a run. (One write a run held an honest m2b m = 32
#: 1.5x below its bound, rows/128 writes timeit's best of five at m = 512 2.2x: the result was missed.)
PRODUCT_WRITES = 20


#: m2a's arguments, a and b drawn, c written: c must hold a @ b.
MATMUL_HANDED = Handed(
    arguments=lambda n: {"a": Buffer((n, n)), "b": Buffer((n, n)), "c": Buffer((n, n), output=True)},
    result=lambda got, **_: outputs.product(got),
    result_zh="c 等于 a @ b（FP32 的舍入误差之内）",
    result_en="c equal to a @ b, to FP32 rounding",
    watched="c",
    at=lambda got, where, **_: outputs.product_at(got, where),
    lasting=False,
    writes=lambda **_: PRODUCT_WRITES,
)


#: m2b's arguments: W drawn, and the X of every m stacked (sum(ms) rows), Y written the same way; each
#: point's product works on its own row block (``x.split(ms)``), which the witness watches apart.
SWEEP_HANDED = Handed(
    arguments=lambda rows, cols, ms: {
        "w": Buffer((rows, cols)),
        "x": Buffer((sum(ms), rows)),
        "y": Buffer((sum(ms), cols), output=True),
        "ms": tuple(ms),
    },
    result=lambda got, ms, **_: outputs.products(got, ms),
    result_zh="y 等于 x @ w（每个行块，FP32 的舍入误差之内）",
    result_en="y equal to x @ w in every row block, to FP32 rounding",
    watched="y",
    at=lambda got, where, **_: outputs.product_at(got, where, a="x", b="w"),
    lasting=False,
    writes=lambda **_: PRODUCT_WRITES,
    segments=lambda cols, ms, **_: back_to_back(ms, per=cols),
)


def _sweep(rows: int, cols: int, ms: tuple[int, ...]) -> list[tuple[float, float]]:
    """perfcore's sweep at the student's input: (intensity, FLOP/s) for each m, one W of rows x cols."""
    sweep = roofline_sweep(ms=ms, k=rows, n=cols, n_bytes=rows * cols * 4, repeats=3)
    return [(p.intensity, p.figure.rate) for p in sweep.points]


def _sweep_numpy(rows: int, cols: int, ms: tuple[int, ...]) -> list[tuple[float, float]]:
    """The same sweep with numpy's matmul: the other honest library (an honest numpy sweep read 0.35x
    perfcore's torch at m of 2-8 on a Xeon's OpenBLAS, and was wrong, "4 of 10 points outside")."""
    sweep = roofline_sweep(ms=ms, k=rows, n=cols, n_bytes=rows * cols * 4, repeats=3, path="numpy")
    return [(p.intensity, p.figure.rate) for p in sweep.points]


def _sweep_work(rows: int, cols: int, ms: tuple[int, ...]) -> Work:
    """The sweep's matmuls of (m x rows) @ (rows x cols), one of each m."""
    return Work(
        bytes=sum(4 * (m * rows + rows * cols + m * cols) for m in ms),
        flops=sum(2 * m * rows * cols for m in ms),
    )


EXERCISE = Exercise(
    id="m2",
    module="m2_matmul_roofline",
    title_zh="矩阵乘法的算力与 roofline",
    title_en="Matmul FLOP/s and the roofline",
    checks=(
        MeasurementCheck(
            id="matmul_flops",
            part="m2a",
            points=3,
            func="matmul_flops",
            kwargs={"n": MATMUL_N[0]},
            reference=_matmul,
            work=_matmul_work,
            handed=MATMUL_HANDED,
            inputs=_matmul_input,
            kind="compute",
            rounds=3,
            requires=Requirements(torch=">=2.0", serial=True, memory_bytes=3 * 4 * MATMUL_N[1] ** 2),
            unit="FLOP/s",
            timeout_s=MATMUL_TIMEOUT_S,
            physical_bound=flops_bound,
            hint_zh="n×n×n 矩阵乘法做 2n³ 次运算；预先分配输出，一个线程。",
            hint_en="An n x n x n matmul does 2n^3 FLOP; preallocate the output, one thread.",
        ),
        ShapeCheck(
            id="roofline_sweep",
            part="m2b",
            points=3,
            func="roofline_sweep",
            kwargs={"rows": 1024, "cols": 2048, "ms": (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)},
            shape="roofline",
            unit="FLOP/s",
            work=_sweep_work,
            handed=SWEEP_HANDED,
            reference=_sweep,
            also=_sweep_numpy,
            kind="cache",
            rounds=3,
            requires=Requirements(torch=">=2.0", serial=True),
            timeout_s=120,
            hint_zh="返回 (强度, FLOP/s) 对；强度随 m 增大，低强度处受带宽限制。",
            hint_en="Return (intensity, FLOP/s) pairs; intensity grows with m, bandwidth limits the low end.",
        ),
    ),
)
