"""The tour of the lecture's script 02 (roofline, §3) and of seed 002's first three demos: the common ops'
intensity on the H100, batch size against the ridge, exercise 1's matmul, and the roofline of each GPU."""

from __future__ import annotations

from .. import costs
from ..roofline import ridge_point, roofline
from ..specs import A100, B200, H100, GiB
from ..tables import format_table, heading, si
from .answers import left_out, worked_answers


def _op_rows(ops: tuple[costs.Op, ...], gpu=H100) -> list[list[str]]:
    rows = []
    for op in ops:
        r = roofline(op.flops, op.bytes, gpu)
        rows.append(
            [
                op.name,
                si(op.flops, "FLOP"),
                si(op.bytes, "B"),
                f"{r.intensity:,.2f}",
                si(r.time_s, "s"),
                f"{r.fraction_of_peak:.1%}",
                "计算受限 compute" if r.bound == "compute" else "访存受限 memory",
            ]
        )
    return rows


def common_ops_section() -> str:
    return (
        heading(
            f"02 第 1 部分 · H100 roofline 上的常见运算 Common ops on the H100 (BF16, n = 4096, "
            f"ridge {ridge_point(H100):.0f})"
        )
        + "\n"
        + format_table(
            ["op", "FLOPs", "bytes", "intensity", "time", "of peak", "bound"],
            _op_rows(costs.common_ops()),
            "<>>>>><",
        )
    )


def batch_section() -> str:
    d = 8192
    rows = []
    for b in (1, 8, 32, 128, 256, 512, 1024, 4096):
        r = roofline(*costs.matmul_cost(b, d, d), H100)
        r1 = roofline(*costs.matmul_cost(1, d, d), H100)
        rows.append(
            [
                b,
                f"{r.intensity:.1f}",
                si(r.time_s, "s"),
                si(r.time_s / b, "s"),
                f"{r1.time_s / (r.time_s / b):.0f}x",
                f"{r.fraction_of_peak:.1%}",
                r.bound,
            ]
        )
    return (
        heading(f"02 第 2 部分 · 批大小 Batch size: b vectors times one {d}x{d} BF16 weight on the H100")
        + "\n"
        + format_table(["batch b", "intensity", "time", "per token", "cheaper", "of peak", "bound"], rows)
        + f"\n\n  smallest power-of-two batch that is compute-bound: A100 {costs.min_compute_bound_batch(A100)}, "
        f"H100 {costs.min_compute_bound_batch(H100)}."
    )


def seed002_section() -> str:
    # Demo 1 of seed 002 used 2.0e12 for the A100; perfcore follows the lecture's 2.039e12.
    specs = [
        [
            g.name,
            g.sms,
            f"{g.peak('bf16') / 1e12:,.0f}",
            f"{g.hbm_bytes_per_s / 1e12:.2f}",
            f"{g.hbm_bytes / GiB:.0f}",
            f"{ridge_point(g):.0f}",
        ]
        for g in (A100, H100, B200)
    ]
    demo1 = format_table(["GPU", "SMs", "BF16 TF/s", "HBM TB/s", "HBM GiB", "ridge FLOP/B"], specs)
    demo2 = format_table(
        ["op", "FLOPs", "bytes", "intensity", "time", "of peak", "bound"],
        _op_rows(costs.intensity_table()),
        "<>>>>><",
    )
    d = 8192
    rows = []
    for b in (1, 8, 64, 256, 1024, 4096):
        r = roofline(*costs.matmul_cost(b, d, d), H100)
        rows.append([b, f"{r.intensity:.1f}", f"{r.fraction_of_peak:.1%}"])
    demo3 = format_table(["batch B", "intensity", "of peak"], rows)
    return (
        heading("seed 002 演示 1-3 · Demos 1-3 of the companion script")
        + "\n  demo 1: specs and ridge points\n"
        + demo1
        + "\n\n  demo 2: intensity of common ops (BF16, n = 4096, H100)\n"
        + demo2
        + f"\n\n  demo 3: decode vs training, a {d}x{d} weight times B tokens (H100)\n"
        + demo3
        + "\n\n  demo 4 (your own machine's roofline) is `python -m perfcore measure`."
    )


def exercise1_section() -> str:
    if not worked_answers():
        return heading("练习 1 · Exercise 1: a 4096^3 matmul on the A100") + "\n" + left_out(1)
    r32 = roofline(*costs.matmul_cost(4096, 4096, 4096, bytes_per=4), A100, dtype="fp32")
    r16 = roofline(*costs.matmul_cost(4096, 4096, 4096, bytes_per=2), A100, dtype="bf16")
    rows = [
        [
            "fp32 (CUDA cores)",
            f"{ridge_point(A100, 'fp32'):.1f}",
            f"{r32.intensity:.0f}",
            r32.bound,
            si(r32.time_s, "s"),
        ],
        [
            "bf16 (tensor cores)",
            f"{ridge_point(A100, 'bf16'):.0f}",
            f"{r16.intensity:.0f}",
            r16.bound,
            si(r16.time_s, "s"),
        ],
    ]
    return (
        heading("练习 1 · Exercise 1: a 4096^3 matmul on the A100")
        + "\n"
        + format_table(["units", "ridge", "intensity", "bound", "ideal time"], rows)
        + f"\n\n  bf16 is {r32.time_s / r16.time_s:.0f}x faster."
    )


def roofline_tour() -> str:
    return "\n".join([common_ops_section(), batch_section(), exercise1_section(), seed002_section()])
