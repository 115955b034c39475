"""The tour of the lecture's script 05 (transformer, §6): a Transformer's prefill and decode op by op,
where long context takes over from the weights, and training compute."""

from __future__ import annotations

from .. import training, transformer
from ..specs import H100, GiB
from ..tables import format_table, heading, si
from .answers import left_out, worked_answers


def _per_op_table(step: transformer.StepEstimate) -> str:
    rows = [
        [
            o.name,
            o.group,
            o.runs,
            si(o.flops, "FLOP") if o.flops else "0",
            si(o.bytes, "B"),
            f"{o.intensity:,.1f}",
            si(o.time_s, "s"),
            f"{o.time_s / step.time_s:.1%}",
            o.bound,
        ]
        for o in step.ops
    ]
    rows.append(
        ["total", "", "", si(step.flops, "FLOP"), si(step.bytes, "B"), "", si(step.time_s, "s"), "100%", ""]
    )
    return format_table(
        ["op", "group", "x", "FLOPs", "bytes", "intensity", "time", "share", "bound"], rows, "<<>>>>>><"
    )


def prefill_section() -> str:
    s = transformer.step_estimate(transformer.LLAMA3_8B, H100, 1, 2048, 2048)
    return (
        heading("05 · §6.1 prefill: Llama-3 8B, 2048 tokens, batch 1, H100 (naive attention)")
        + "\n"
        + _per_op_table(s)
        + f"\n\n  total {s.flops / 1e12:.1f} TFLOP, {s.time_s * 1e3:.1f} ms, {s.fraction_of_peak:.0%} of peak; "
        f"attention {s.flop_share('attention'):.0%} of FLOPs and {s.time_share('attention'):.0%} of time."
    )


def decode_section() -> str:
    s = transformer.step_estimate(transformer.LLAMA3_8B, H100, 1, 1, 2048)
    rows = []
    for b in (1, 8, 32, 64, 128, 256):
        d = transformer.step_estimate(transformer.LLAMA3_8B, H100, b, 1, 2048)
        rows.append(
            [
                b,
                si(d.time_s, "s"),
                f"{1 / d.time_s:,.0f}",
                f"{d.tokens_per_s:,.0f}",
                f"{d.kv_cache_bytes / GiB:.1f}",
                f"{d.fraction_of_peak:.1%}",
                f"{d.time_share('attention'):.0%}",
                "yes" if d.fits_in_memory else "NO",
            ]
        )
    weights = transformer.decode_read_bytes(transformer.LLAMA3_8B)
    held = transformer.weight_bytes(transformer.LLAMA3_8B)
    bound = transformer.decode_time_bound(transformer.LLAMA3_8B, H100)
    return (
        heading("05 · §6.2 decode: Llama-3 8B, context 2048, H100")
        + "\n  batch 1, per op:\n"
        + _per_op_table(s)
        + f"\n\n  a step reads the weights it multiplies, {weights / GiB:.1f} GiB (the embedding table "
        f"only as the rows it gathers)\n  -> {bound * 1e3:.2f} ms just to read them. fits: all "
        f"{held / GiB:.1f} GiB of weights plus the KV cache\n  within the {H100.usable_hbm_bytes / GiB:.0f} "
        f"GiB a process can fill of the H100's {H100.hbm_bytes / GiB:.0f} GiB.\n\n"
        + format_table(
            [
                "batch",
                "step time",
                "tok/s per user",
                "tok/s total",
                "KV GiB",
                "of peak",
                "attention",
                "fits",
            ],
            rows,
        )
        + "\n\n"
        + (_exercise3() if worked_answers() else left_out(3))
    )


def _exercise3() -> str:
    """Exercise 3's worked answer: Llama-3 70B in BF16 and INT4 on one H100."""
    big = transformer.LLAMA3_70B
    int4 = transformer.decode_time_bound(big, H100, bytes_per=0.5)
    # The exercise's worked answer reads every parameter, the embedding table included.
    int4_all = transformer.weights_read_time(transformer.param_count(big), 0.5, H100.hbm_bytes_per_s)
    bf16_big = transformer.weight_bytes(big)
    int4_bytes = transformer.weight_bytes(big, 0.5)
    return (
        f"  Exercise 3: Llama-3 70B ({transformer.param_count(big) / 1e9:.1f}B parameters) holds "
        f"{bf16_big / 1e9:.0f} GB = {bf16_big / GiB:.0f} GiB in BF16 "
        f"(the H100 has {H100.hbm_bytes / GiB:.0f} GiB); in INT4 {int4_bytes / 1e9:.1f} GB."
        f"\n  A step reads the weights it multiplies (not the embedding table): {int4 * 1e3:.1f} ms, "
        f"at most {1 / int4:.0f} tokens/s;\n  reading every parameter, as the exercise's answer does: "
        f"{int4_all * 1e3:.1f} ms, {1 / int4_all:.0f} tokens/s."
    )


def long_context_section() -> str:
    rows = []
    for ctx in (2048, 8192, 32768, 131072):
        d = transformer.step_estimate(transformer.LLAMA3_8B, H100, 32, 1, ctx)
        rows.append(
            [
                f"{ctx // 1024}K",
                si(d.time_s, "s"),
                f"{d.kv_cache_bytes / GiB:,.0f}",
                f"{d.weight_bytes / GiB:.0f}",
                f"{d.time_share('attention'):.0%}",
                "yes" if d.fits_in_memory else "NO",
            ]
        )
    fits = f"\n\n  fits: within the {H100.usable_hbm_bytes / GiB:.0f} GiB a process can fill, as in §6.2."
    table = (
        heading("05 · §6.3 长上下文 Long context: Llama-3 8B decode, batch 32, H100")
        + "\n"
        + format_table(["context", "step time", "KV GiB", "weights GiB", "attention", "fits"], rows)
        + fits
    )
    if not worked_answers():  # where KV bytes catch up with the weights is exercise 7's answer
        return table + "\n\n" + left_out(7)
    cross = transformer.kv_weight_crossover(transformer.LLAMA3_8B)
    return (
        table + " KV bytes equal the bytes of the weights a step reads\n  at "
        f"{cross:,.0f} tokens (batch 1), "
        f"{transformer.kv_weight_crossover(transformer.LLAMA3_8B, 32):,.0f} (batch 32)."
    )


def training_section() -> str:
    n = transformer.param_count(transformer.LLAMA3_8B)
    c = training.training_flops(n, 15e12)
    rows = [
        [f"{r.mfu:.0%}", f"{r.gpu_hours:,.0f}", f"{r.days:.1f}"] for r in training.training_table(n, 15e12)
    ]
    table = (
        heading("05 第 4 部分 · 训练 C ≈ 6ND: Llama-3 8B on 15T tokens, H100 BF16")
        + f"\n  N = {n:,} parameters, C = 6ND = {c:.2e} FLOP\n"
        + format_table(["MFU", "H100-hours", "days on 1000 GPUs"], rows)
        + "\n\n"
    )
    if not worked_answers():
        return table + left_out(8)
    m = training.mfu(c, 2048, 30 * training.SECONDS_PER_DAY)
    return (
        table + f"  Exercise 8: 2048 H100 for 30 days -> MFU {m:.1%}; at 40% it takes "
        f"{training.training_days(c, 2048, 0.4):.1f} days."
    )


def transformer_tour() -> str:
    return "\n".join([prefill_section(), decode_section(), long_context_section(), training_section()])
