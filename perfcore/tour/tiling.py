"""The tour of the lecture's script 03 (tiling, §4): a tiled matmul's traffic, the tile size each GPU's
SRAM allows, and the rounding of tiled sums."""

from __future__ import annotations

from .. import tiling
from ..specs import A100, H100, KiB
from ..tables import format_table, heading
from .answers import left_out, worked_answers


def traffic_section(n: int = 256) -> str:
    naive = tiling.tiled_matmul_traffic(n, 1)
    rows = []
    for t in (8, 16, 32, 64, 128):
        closed = tiling.tiled_matmul_traffic(n, t)
        counted = tiling.count_tiled_matmul_traffic(n, t)
        rows.append(
            [
                t,
                f"{counted.elements:,}",
                f"{closed.elements:,}",
                "yes" if counted == closed else "NO",
                f"{closed.intensity:.1f}",
                f"{tiling.tiled_intensity(t):.1f}",
            ]
        )
    return (
        heading(f"03 第 1 部分 · 分块的访存量 HBM traffic of a tiled {n}x{n} matmul (BF16)")
        + "\n"
        + format_table(["tile T", "counted", "2n^3/T + n^2", "equal", "intensity", "~T/2"], rows)
        + f"\n\n  T = 1 is the naive triple loop: {naive.elements:,} numbers, intensity {naive.intensity:.2f}."
    )


def tile_size_section() -> str:
    # Exercise 6 asks for the H100's rows; without the worked answers the A100's stay as the example.
    gpus = (A100, H100) if worked_answers() else (A100,)
    rows = []
    for g in gpus:
        for name, bp in (("bf16", 2), ("fp32", 4)):
            t = tiling.max_square_tile(g.sram_bytes_per_sm, bp)
            rows.append([g.name, g.sram_bytes_per_sm // KiB, name, t, f"{tiling.tiled_intensity(t, bp):.0f}"])
    return (
        heading("§4.2 / 练习 6 · SRAM 与块大小 The largest three square tiles in one SM's SRAM")
        + "\n"
        + format_table(["GPU", "SRAM KiB", "dtype", "max T", "intensity ~T/bytes"], rows)
        + ("" if gpus[-1] is H100 else "\n\n" + left_out(6))
    )


def numerics_section() -> str:
    rows = []
    for dt in ("float64", "float32"):
        r = tiling.tiling_numerics(dtype=dt)
        rows.append([dt, f"{r.tiled_vs_direct:.1e}", f"{r.tiled_error:.1e}", f"{r.direct_error:.1e}"])
    return (
        heading("03 第 2 部分 · 分块只改变舍入 Tiling changes only the rounding (256x256, tiles of 64)")
        + "\n"
        + format_table(["dtype", "|tiled - direct|", "tiled error", "direct error"], rows)
        + "\n\n  max absolute differences; the exact product is computed in higher precision.\n"
        "  03 part 3 (the transpose on this CPU) is `python -m perfcore measure`."
    )


def tiling_tour() -> str:
    return "\n".join([traffic_section(), tile_size_section(), numerics_section()])
