"""perfcore's FLOP counts checked against torch's own counter, torch.utils.flop_counter.FlopCounterMode.

A decoder layer of a :class:`~perfcore.transformer.TransformerConfig` is run on the ``meta`` device (no
memory, no arithmetic: only shapes), so even Llama-3 8B at 2048 tokens is counted in milliseconds.
FlopCounterMode counts matrix products only (mm, addmm, bmm: 2mnk), not norms, softmax or elementwise ops;
attention is written as two explicit batched products so that every torch version counts it the same
way (scaled_dot_product_attention's formula was registered later than the counter itself).

Version differences handled here: FlopCounterMode appeared in torch 2.1 (``torch.utils.flop_counter``);
its ``display`` argument and ``get_total_flops`` exist from then on.
"""

from __future__ import annotations

from typing import Any

from ..transformer import TransformerConfig
from ..validation import positive_int
from .timing import require_torch


def flop_counter_mode() -> Any:
    """The FlopCounterMode class, or a RuntimeError saying which torch is needed."""
    torch = require_torch()
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError as exc:
        raise RuntimeError(
            f"torch {torch.__version__} has no torch.utils.flop_counter.FlopCounterMode; it needs torch >= 2.1"
        ) from exc
    return FlopCounterMode


def torch_layer_flops(cfg: TransformerConfig, batch: int, q_len: int, kv_len: int) -> int:
    """The FLOPs FlopCounterMode counts for one decoder layer of ``cfg`` (matrix products only)."""
    torch = require_torch()
    counter_cls = flop_counter_mode()
    b = positive_int("batch", batch)
    q = positive_int("q_len", q_len)
    kv = positive_int("kv_len", kv_len)
    h, hd, heads, kv_heads = cfg.hidden, cfg.head_dim, cfg.heads, cfg.kv_heads
    meta = {"device": "meta", "dtype": torch.bfloat16}
    x = torch.empty(b, q, h, **meta)
    w = {
        "q": torch.empty(heads * hd, h, **meta),
        "k": torch.empty(kv_heads * hd, h, **meta),
        "v": torch.empty(kv_heads * hd, h, **meta),
        "o": torch.empty(h, heads * hd, **meta),
        "gate": torch.empty(cfg.intermediate, h, **meta),
        "up": torch.empty(cfg.intermediate, h, **meta),
        "down": torch.empty(h, cfg.intermediate, **meta),
    }
    linear = torch.nn.functional.linear
    counter = counter_cls(display=False)
    with counter:
        qs = linear(x, w["q"]).view(b, q, heads, hd).transpose(1, 2)  # [b, heads, q, hd]
        # The cached keys and values: kv_len of them per KV head, shared by heads // kv_heads heads (GQA).
        keys = torch.empty(b, kv_heads, kv, hd, **meta).repeat_interleave(heads // kv_heads, dim=1)
        values = torch.empty(b, kv_heads, kv, hd, **meta).repeat_interleave(heads // kv_heads, dim=1)
        linear(x[:, :1] if q == 1 else x, w["k"])  # this step's new keys and values
        linear(x[:, :1] if q == 1 else x, w["v"])
        scores = torch.matmul(qs, keys.transpose(-1, -2))  # [b, heads, q, kv]
        out = torch.matmul(scores.softmax(-1), values)  # [b, heads, q, hd]
        y = linear(out.transpose(1, 2).reshape(b, q, heads * hd), w["o"])
        act = torch.nn.functional.silu(linear(y, w["gate"])) * linear(y, w["up"])
        linear(act, w["down"])
    return int(counter.get_total_flops())
