"""Checks of exercise 6 (SRAM and tile size): solutions/ex06_tile_size.py."""

from hypothesis import strategies as st

import perfcore as pc
from grader.specs.check import Exercise, PropertyCheck, ValueCheck
from grader.specs.strategies import call_kwargs

_BYTES_PER = st.sampled_from([1, 2, 4, 8])
# At least 8 bytes per tile slot so that even 4 FP64 tiles of 1 x 1 fit (a zero tile is not a question).
_SRAM = st.integers(min_value=32, max_value=1 << 22)

EXERCISE = Exercise(
    id="ex06",
    module="ex06_tile_size",
    title_zh="SRAM 与块大小",
    title_en="SRAM and tile size",
    checks=(
        PropertyCheck(
            id="max_square_tile",
            part="6",
            points=3,
            func="max_square_tile",
            strategy=call_kwargs(sram_bytes=_SRAM, bytes_per=_BYTES_PER, n_tiles=st.integers(1, 4)),
            reference=lambda sram_bytes, bytes_per, n_tiles: pc.max_square_tile(
                sram_bytes, bytes_per, n_tiles
            ),
            hint_zh="n_tiles · T² · 每个数的字节数 ≤ SRAM 字节数的最大整数 T；小心浮点开方的舍入。",
            hint_en="The largest integer T with n_tiles * T^2 * bytes_per <= SRAM bytes; beware float sqrt rounding.",
        ),
        PropertyCheck(
            id="tiled_intensity",
            part="6",
            points=1,
            func="tiled_intensity",
            strategy=call_kwargs(tile=st.integers(1, 1024), bytes_per=_BYTES_PER),
            reference=lambda tile, bytes_per: pc.tiled_intensity(tile, bytes_per),
            rtol=1e-9,
            hint_zh="每个读进 SRAM 的数被用了 T 次。",
            hint_en="Every number brought into SRAM is used T times.",
        ),
        ValueCheck(
            id="6_fp32_tile",
            part="6",
            points=1,
            func="answer_6_fp32_tile",
            expected=lambda: pc.max_square_tile(pc.H100.sram_bytes_per_sm, 4),
            hint_zh="228 KiB = 228 × 1024 字节；FP32 每个数 4 字节。",
            hint_en="228 KiB = 228 x 1024 bytes; FP32 is 4 bytes.",
        ),
        ValueCheck(
            id="6_fp32_intensity",
            part="6",
            points=1,
            func="answer_6_fp32_intensity",
            expected=lambda: pc.tiled_intensity(pc.max_square_tile(pc.H100.sram_bytes_per_sm, 4), 4),
            rtol=0.02,
            hint_zh="强度约为 T / 4。",
            hint_en="About T / 4.",
        ),
        ValueCheck(
            id="6_bf16_tile",
            part="6",
            points=1,
            func="answer_6_bf16_tile",
            expected=lambda: pc.max_square_tile(pc.H100.sram_bytes_per_sm, 2),
            hint_zh="BF16 每个数 2 字节。",
            hint_en="BF16 is 2 bytes.",
        ),
        ValueCheck(
            id="6_bf16_intensity",
            part="6",
            points=1,
            func="answer_6_bf16_intensity",
            expected=lambda: pc.tiled_intensity(pc.max_square_tile(pc.H100.sram_bytes_per_sm, 2), 2),
            rtol=0.02,
            hint_zh="强度约为 T / 2。",
            hint_en="About T / 2.",
        ),
    ),
)
