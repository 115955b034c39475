"""Checks of exercise 7 (where long context takes over): solutions/ex07_kv_cache.py."""

from hypothesis import strategies as st

import perfcore as pc
from grader.specs.check import Exercise, PropertyCheck, ValueCheck
from grader.specs.strategies import call_kwargs


def _kv_per_token(layers: int, kv_heads: int, head_dim: int, bytes_per: float) -> float:
    cfg = pc.TransformerConfig(
        name="drawn",
        hidden=kv_heads * head_dim,
        layers=layers,
        heads=kv_heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=1,
        vocab=1,
    )
    return pc.kv_cache_bytes_per_token(cfg, bytes_per)


EXERCISE = Exercise(
    id="ex07",
    module="ex07_kv_cache",
    title_zh="长上下文的转折点",
    title_en="Where long context takes over",
    checks=(
        PropertyCheck(
            id="kv_cache_bytes_per_token",
            part="7",
            points=2,
            func="kv_cache_bytes_per_token",
            strategy=call_kwargs(
                layers=st.integers(1, 128),
                kv_heads=st.integers(1, 64),
                head_dim=st.sampled_from([32, 64, 80, 128, 256]),
                bytes_per=st.sampled_from([0.5, 1, 2, 4]),
            ),
            reference=_kv_per_token,
            rtol=1e-12,
            hint_zh="K 和 V 各一份，每层每个 KV 头 head_dim 个数。",
            hint_en="One K and one V, head_dim numbers per KV head per layer.",
        ),
        PropertyCheck(
            id="kv_weight_crossover",
            part="7",
            points=2,
            func="kv_weight_crossover",
            strategy=call_kwargs(
                weight_bytes=st.floats(1e6, 1e12),
                kv_bytes_per_token=st.floats(1e3, 1e7),
                batch=st.integers(1, 1024),
            ),
            reference=lambda weight_bytes, kv_bytes_per_token, batch: pc.crossover_context(
                weight_bytes, kv_bytes_per_token, batch
            ),
            rtol=1e-9,
            hint_zh="批里每条序列都有自己的 KV 缓存。",
            hint_en="Every sequence of the batch has its own KV cache.",
        ),
        ValueCheck(
            id="7_batch1",
            part="7",
            points=1,
            func="answer_7_batch1",
            expected=lambda: pc.kv_weight_crossover(pc.LLAMA3_8B, 1),
            rtol=0.01,
            hint_zh="14.0 GiB 除以每个 token 的 KV 缓存字节数。",
            hint_en="14.0 GiB over the KV bytes per token.",
        ),
        ValueCheck(
            id="7_batch32",
            part="7",
            points=1,
            func="answer_7_batch32",
            expected=lambda: pc.kv_weight_crossover(pc.LLAMA3_8B, 32),
            rtol=0.01,
            hint_zh="32 条序列的 KV 缓存一起读。",
            hint_en="The KV caches of 32 sequences are read together.",
        ),
    ),
)
