"""Checks of exercise 5 (wave quantization): solutions/ex05_waves.py."""

from hypothesis import strategies as st

import perfcore as pc
from grader.specs.check import Exercise, PropertyCheck, ValueCheck
from grader.specs.strategies import call_kwargs

_DIM = st.integers(min_value=1, max_value=1 << 15)
_TILE = st.sampled_from([16, 32, 64, 128, 256])
_BLOCKS = st.integers(min_value=1, max_value=1 << 20)
_SMS = st.integers(min_value=1, max_value=256)


def _answer(tile_m: int, tile_n: int) -> tuple[int, int, float]:
    w = pc.wave_efficiency(pc.output_blocks(8192, 8192, tile_m, tile_n), pc.H100)
    return w.num_blocks, w.waves, w.efficiency


EXERCISE = Exercise(
    id="ex05",
    module="ex05_waves",
    title_zh="波次量化",
    title_en="Wave quantization",
    checks=(
        PropertyCheck(
            id="num_blocks",
            part="5",
            points=1,
            func="num_blocks",
            strategy=call_kwargs(m=_DIM, n=_DIM, tile_m=_TILE, tile_n=_TILE),
            reference=lambda m, n, tile_m, tile_n: pc.output_blocks(m, n, tile_m, tile_n),
            hint_zh="每个方向向上取整：不满的边缘块也要一个线程块。",
            hint_en="Round up along each side: a partial edge tile still needs a block.",
        ),
        PropertyCheck(
            id="num_waves",
            part="5",
            points=1,
            func="num_waves",
            strategy=call_kwargs(blocks=_BLOCKS, num_sms=_SMS),
            reference=lambda blocks, num_sms: pc.wave_efficiency(blocks, num_sms).waves,
            hint_zh="块数除以 SM 数，向上取整。",
            hint_en="Blocks over SMs, rounded up.",
        ),
        PropertyCheck(
            id="wave_efficiency",
            part="5",
            points=2,
            func="wave_efficiency",
            strategy=call_kwargs(blocks=_BLOCKS, num_sms=_SMS),
            reference=lambda blocks, num_sms: pc.wave_efficiency(blocks, num_sms).efficiency,
            rtol=1e-9,
            hint_zh="利用率 = 块数 / (波数 × SM 数)，在 0 和 1 之间。",
            hint_en="Utilization = blocks / (waves x SMs), between 0 and 1.",
        ),
        ValueCheck(
            id="5_square",
            part="5",
            points=1,
            func="answer_5_square",
            expected=lambda: _answer(128, 128),
            rtol=1e-3,
            hint_zh="返回 (块数, 波数, 利用率) 三元组。",
            hint_en="Return the triple (blocks, waves, utilization).",
        ),
        ValueCheck(
            id="5_wide",
            part="5",
            points=1,
            func="answer_5_wide",
            expected=lambda: _answer(256, 128),
            rtol=1e-3,
            hint_zh="256×128 的块：m 方向按 256 切，n 方向按 128 切。",
            hint_en="256 x 128 tiles: 256 along m, 128 along n.",
        ),
    ),
)
