"""The tour of the lecture's script 01 (gpu, §1-§2): the GPUs' specifications, latency hiding, divergence,
wave quantization and the memory hierarchy, computed by perfcore and printed as text."""

from __future__ import annotations

from .. import execution
from ..roofline import ridge_point
from ..specs import A100, GPUS, H100, GiB, KiB, MiB
from ..tables import format_table, heading
from .answers import left_out, worked_answers


def specs_section() -> str:
    rows = []
    for g in GPUS.values():
        rows.append(
            [
                g.name,
                g.sms,
                f"{g.peak('bf16') / 1e12:,.1f}",
                f"{g.peak('fp32') / 1e12:.1f}",
                f"{g.peak('bf16') / g.peak('fp32'):.0f}x",
                f"{g.hbm_bytes_per_s / 1e12:.2f}",
                f"{g.hbm_bytes / GiB:.0f}",
                f"{g.sram_bytes_per_sm // KiB}",
                f"{g.l2_bytes // MiB}",
                f"{ridge_point(g):.0f}",
            ]
        )
    table = format_table(
        [
            "GPU",
            "SMs",
            "BF16 TFLOP/s",
            "FP32 TFLOP/s",
            "BF16/FP32",
            "HBM TB/s",
            "HBM GiB",
            "SRAM/SM KiB",
            "L2 MiB",
            "平衡点 ridge",
        ],
        rows,
    )
    growth = (H100.peak("bf16") / A100.peak("bf16"), H100.hbm_bytes_per_s / A100.hbm_bytes_per_s)
    return (
        heading("01 第 1 部分 · GPU 规格 GPU specifications (dense, SXM)")
        + "\n"
        + table
        + f"\n\n  A100 -> H100: BF16 x{growth[0]:.1f}, bandwidth x{growth[1]:.1f}; "
        "ridge 153 -> 295 FLOP/byte (the memory wall).\n"
        '  HBM capacity in GiB (the vendors\' "80 GB" is 80 GiB: five 16 GiB stacks); bandwidth in\n'
        "  SI TB/s (1e12 bytes/s); KiB/MiB (SRAM, L2) are powers of two.\n"
        "  perfcore.GPUS[name].sources cites the document of each number."
    )


def memory_hierarchy_section() -> str:
    rows = []
    for g in (A100, H100):
        rows += [
            [
                g.name,
                "registers",
                f"{g.register_bytes_per_sm // KiB} KiB/SM",
                f"{g.register_bytes_per_sm * g.sms / MiB:.1f} MiB",
            ],
            [
                g.name,
                "SRAM (shared memory / L1)",
                f"{g.sram_bytes_per_sm // KiB} KiB/SM",
                f"{g.sram_bytes_per_sm * g.sms / MiB:.1f} MiB",
            ],
            [g.name, "L2", "-", f"{g.l2_bytes // MiB} MiB"],
            [g.name, "HBM", "-", f"{g.hbm_bytes / GiB:.0f} GiB at {g.hbm_bytes_per_s / 1e12:.2f} TB/s"],
        ]
    return (
        heading("§3.1 存储层次 The memory hierarchy (capacities)")
        + "\n"
        + format_table(["GPU", "level", "per SM", "whole chip"], rows, "<<>>")
    )


def latency_section() -> str:
    table = execution.latency_hiding_table()
    warps = [r.num_warps for r in next(iter(table.values()))]
    rows = [[w] + [f"{table[c][i].utilization:.0%}" for c in table] for i, w in enumerate(warps)]
    needed = ", ".join(f"c={c}: {execution.warps_needed(c, 400)}" for c in table)
    if worked_answers():
        ex4 = execution.simulate_latency_hiding(execution.warps_needed(8, 400), 8, 400)
        answer = (
            f"  Exercise 4 (c = 8): {ex4.warps_needed} warps -> utilization {ex4.utilization:.0%} "
            f"(at most {H100.max_warps_per_sm} per SM)."
        )
    else:
        answer = left_out(4)
    return (
        heading("01 第 2 部分 · 用并行度隐藏延迟 Latency hiding (L = 400 cycles)")
        + "\n"
        + format_table(["warps W"] + [f"c = {c}" for c in table], rows)
        + f"\n\n  simulated utilization; closed form min(1, W c / (c + L)) agrees. Warps needed: {needed}.\n"
        + answer
    )


def divergence_section() -> str:
    rows = [
        [name, d.branches, d.cycles, f"{d.efficiency:.0%}"]
        for name, d in execution.divergence_table().items()
    ]
    return (
        heading("01 第 3 部分 · 线程束分化 Warp divergence (two branches of 10 cycles)")
        + "\n"
        + format_table(["pattern", "branches", "cycles", "efficiency"], rows)
    )


def waves_section() -> str:
    rows = [
        [
            r.n,
            r.blocks,
            r.waves,
            f"{r.efficiency:.1%}",
            f"+{r.work_ratio - 1:.1%}",
            f"+{r.time_ratio - 1:.1%}",
        ]
        for r in execution.wave_table()
    ]
    table = (
        heading("01 第 4 部分 · 波次量化 Wave quantization (H100, 128x128 tiles, one block per SM)")
        + "\n"
        + format_table(["n", "blocks", "waves", "efficiency", "work", "time"], rows)
        + "\n\n"
    )
    if not worked_answers():
        return table + left_out(5)
    ex5 = [
        [f"{tm}x{tn}", execution.output_blocks(8192, 8192, tm, tn)]
        + list(execution.wave_efficiency(execution.output_blocks(8192, 8192, tm, tn), H100.sms)[2:])
        for tm, tn in ((128, 128), (256, 128))
    ]
    ex5 = [[t, b, w, f"{e:.3f}"] for t, b, w, e in ex5]
    return (
        table
        + "  Exercise 5 (8192 x 8192 output):\n"
        + format_table(["tile", "blocks", "waves", "utilization"], ex5)
    )


def gpu_tour() -> str:
    return "\n".join(
        [
            specs_section(),
            latency_section(),
            divergence_section(),
            waves_section(),
            memory_hierarchy_section(),
        ]
    )
