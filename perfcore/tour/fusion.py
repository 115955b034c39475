"""The tour of the lecture's script 04 (fusion, §5): what fusing k elementwise ops saves, and launch
overhead against the work of one op."""

from __future__ import annotations

from .. import fusion
from ..tables import format_table, heading, si
from .answers import left_out, worked_answers


def fusion_section() -> str:
    rows = []
    for k in (1, 2, 4, 8, 16):
        f = fusion.fusion_estimate(k)
        rows.append(
            [
                k,
                si(f.unfused_bytes, "B"),
                si(f.unfused_time_s, "s"),
                si(f.fused_bytes, "B"),
                si(f.fused_time_s, "s"),
                f"{f.speedup:.1f}x",
            ]
        )
    return (
        heading(
            "04 第 1 部分 · 算子融合 Fusing k elementwise ops on [8, 2048, 4096] BF16 (64 Mi elements), H100"
        )
        + "\n"
        + format_table(
            ["ops k", "unfused bytes", "unfused time", "fused bytes", "fused time", "speedup"], rows
        )
    )


def overhead_section() -> str:
    measured = (
        "\n\n  04 parts 2-3 (fusion and overhead measured on this CPU) are `python -m perfcore measure`."
    )
    if not worked_answers():  # the §5.3 table is exercise 9's answer, the second one exercise 2's
        return (
            heading("§5.3 / 练习 9 · 固定开销 Launch overhead: 200 kernels of 1 µs each")
            + "\n"
            + left_out(9)
            + "\n\n"
            + heading("练习 2 · Exercise 2: RMSNorm after a residual add, [16, 4096, 8192] BF16 on the H100")
            + "\n"
            + left_out(2)
            + measured
        )
    rows = [
        [
            name,
            o.num_kernels,
            si(o.launch_s, "s"),
            si(o.time_s, "s"),
            f"{o.busy_fraction:.0%}",
            f"{fusion.overhead_remedies()['baseline'].time_s / o.time_s:.1f}x",
        ]
        for name, o in fusion.overhead_remedies().items()
    ]
    ex2 = fusion.rmsnorm_residual_fusion()
    return (
        heading("§5.3 / 练习 9 · 固定开销 Launch overhead: 200 kernels of 1 µs each")
        + "\n"
        + format_table(["variant", "kernels", "launch", "time", "GPU busy", "speedup"], rows)
        + "\n\n"
        + heading("练习 2 · Exercise 2: RMSNorm after a residual add, [16, 4096, 8192] BF16 on the H100")
        + "\n"
        + format_table(
            ["step", "time"],
            [
                ["RMSNorm alone", si(ex2["rmsnorm"], "s")],
                ["residual add alone", si(ex2["residual_add"], "s")],
                ["both, unfused", si(ex2["unfused"], "s")],
                ["fused", si(ex2["fused"], "s")],
                ["saved", si(ex2["saved"], "s")],
                ["speedup", f"{ex2['speedup']:.2f}x"],
            ],
        )
        + measured
    )


def fusion_tour() -> str:
    return "\n".join([fusion_section(), overhead_section()])
