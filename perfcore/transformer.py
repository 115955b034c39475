"""A Transformer on the roofline (§6): per-op FLOPs and bytes of a Llama-style decoder layer, and the
roofline estimate of a whole prefill or decode step.

Assumptions, as the lecture makes them: naive attention (the score matrix is written to HBM and read back
for the softmax and the weighted sum), full (non-causal) attention FLOPs, GQA (K and V read once per KV
head), every weight read once per step, and each op's time its own roofline time, summed (no overlap
between ops). A prefill computes logits for its last token only.

Weight bytes, two conventions for two questions. What a step *reads* (the roofline's bytes, and the
bandwidth-bound decode time ``decode_time_bound``) is every weight it multiplies, once: the layers, the
norms and the LM head, but not the input embedding table, of which an embedding lookup reads one row per
token (``model_step_ops`` counts those rows), never the whole table. When the embeddings are tied, the
table is the LM head's weight and is read whole, so it counts. What a model *holds* in HBM
(``weight_bytes``, ``StepEstimate.fits_in_memory``) is every parameter, the table included. For
Llama-3-8B in BF16: 14.0 GiB read per decode step, 15.0 GiB held.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from .costs import (
    SOFTMAX_FLOPS_PER_ELEMENT,
    Op,
    elementwise_cost,
    matmul_cost,
    rmsnorm_cost,
)
from .roofline import roofline
from .specs import GPUSpec, as_gpu
from .validation import choice, positive_int, positive_number

#: FLOPs per element of SwiGLU's silu(gate) * up: sigmoid (exp, add, divide), two multiplies.
SWIGLU_FLOPS_PER_ELEMENT = 5


@dataclass(frozen=True)
class TransformerConfig:
    """The shape of a Llama-style decoder-only model."""

    name: str
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    tied_embeddings: bool = False

    def __post_init__(self) -> None:
        for field_name in ("hidden", "layers", "heads", "kv_heads", "head_dim", "intermediate", "vocab"):
            positive_int(field_name, getattr(self, field_name))
        if self.heads % self.kv_heads:
            raise ValueError(f"heads ({self.heads}) must be a multiple of kv_heads ({self.kv_heads})")


LLAMA3_8B = TransformerConfig(
    name="Llama-3-8B",
    hidden=4096,
    layers=32,
    heads=32,
    kv_heads=8,
    head_dim=128,
    intermediate=14336,
    vocab=128256,
)
LLAMA3_70B = TransformerConfig(
    name="Llama-3-70B",
    hidden=8192,
    layers=80,
    heads=64,
    kv_heads=8,
    head_dim=128,
    intermediate=28672,
    vocab=128256,
)


def _config(cfg: Any) -> TransformerConfig:
    if not isinstance(cfg, TransformerConfig):
        raise TypeError(f"cfg must be a TransformerConfig such as perfcore.LLAMA3_8B, got {cfg!r}")
    return cfg


def layer_param_count(cfg: TransformerConfig) -> int:
    """Parameters of one decoder layer: Q, K, V, O, the MLP's three matrices, two RMSNorm weights."""
    cfg = _config(cfg)
    h, q_out, kv_out = cfg.hidden, cfg.heads * cfg.head_dim, cfg.kv_heads * cfg.head_dim
    attention = h * q_out + 2 * h * kv_out + q_out * h
    mlp = 3 * h * cfg.intermediate
    return attention + mlp + 2 * h


def param_count(cfg: TransformerConfig) -> int:
    """All parameters: embedding, layers, final norm and (when untied) the LM head. Llama-3-8B: 8,030,261,248."""
    cfg = _config(cfg)
    embedding = cfg.vocab * cfg.hidden
    lm_head = 0 if cfg.tied_embeddings else embedding
    return embedding + cfg.layers * layer_param_count(cfg) + cfg.hidden + lm_head


def weight_bytes(cfg: TransformerConfig, bytes_per: float = 2, include_embedding: bool = True) -> float:
    """Bytes of the weights: what the model holds in HBM. ``include_embedding=False`` leaves out the input
    embedding table, which a step only gathers a few rows of: what a step reads (Llama-3-8B in BF16:
    14.0 GiB without it, 15 GiB with it). A tied table is also the LM head, read whole: it stays in."""
    cfg = _config(cfg)
    bytes_per = positive_number("bytes_per", bytes_per)
    n = param_count(cfg)
    if not include_embedding and not cfg.tied_embeddings:
        n -= cfg.vocab * cfg.hidden
    return n * bytes_per


def kv_cache_bytes_per_token(cfg: TransformerConfig, bytes_per: float = 2) -> float:
    """K and V for one token over all layers: 2 x kv_heads x head_dim x layers x bytes (Llama-3-8B: 128 KiB)."""
    cfg = _config(cfg)
    return 2 * cfg.kv_heads * cfg.head_dim * cfg.layers * positive_number("bytes_per", bytes_per)


def kv_cache_bytes(cfg: TransformerConfig, batch: int, context: int, bytes_per: float = 2) -> float:
    """The KV cache of ``batch`` sequences of ``context`` tokens."""
    batch = positive_int("batch", batch)
    context = positive_int("context", context)
    return batch * context * kv_cache_bytes_per_token(cfg, bytes_per)


def decoder_layer_ops(
    cfg: TransformerConfig, batch: int, q_len: int, kv_len: int, bytes_per: float = 2
) -> tuple[Op, ...]:
    """One decoder layer's ops for ``batch`` sequences of ``q_len`` new tokens attending to ``kv_len``.

    Prefill: q_len = kv_len = prompt length. Decode: q_len = 1, kv_len = the context. Groups: "norm",
    "projection" (Q, K, V, O), "attention" (scores, softmax, weighted sum), "mlp" (gate, up, down) and
    "elementwise" (the residual adds and SwiGLU's activation).
    """
    cfg = _config(cfg)
    b = positive_int("batch", batch)
    q = positive_int("q_len", q_len)
    kv = positive_int("kv_len", kv_len)
    if q > kv:
        raise ValueError(f"q_len ({q}) must not exceed kv_len ({kv}): new tokens attend to themselves too")
    bp = positive_number("bytes_per", bytes_per)
    h, i = cfg.hidden, cfg.intermediate
    tokens = b * q
    q_out, kv_out = cfg.heads * cfg.head_dim, cfg.kv_heads * cfg.head_dim
    scores = b * cfg.heads * q * kv  # elements of the score matrix, all heads

    def op(name: str, group: str, flops: float, nbytes: float) -> Op:
        return Op(name, float(flops), float(nbytes), group)

    def linear(name: str, group: str, n_in: int, n_out: int) -> Op:
        cost = matmul_cost(tokens, n_out, n_in, bp)
        return op(name, group, cost.flops, cost.bytes)

    norm = rmsnorm_cost(tokens, h, bp)
    residual = elementwise_cost(tokens * h, n_inputs=2, bytes_per=bp)
    swiglu = elementwise_cost(
        tokens * i, n_inputs=2, flops_per_element=SWIGLU_FLOPS_PER_ELEMENT, bytes_per=bp
    )
    # Q @ K^T per head: reads Q (all heads) and K (once per KV head: GQA), writes the scores.
    score_flops = 2 * scores * cfg.head_dim
    k_bytes = b * kv * kv_out * bp
    return (
        op("attn_norm", "norm", norm.flops, norm.bytes),
        linear("q_proj", "projection", h, q_out),
        linear("k_proj", "projection", h, kv_out),
        linear("v_proj", "projection", h, kv_out),
        op("scores (QK^T)", "attention", score_flops, tokens * q_out * bp + k_bytes + scores * bp),
        op("softmax", "attention", SOFTMAX_FLOPS_PER_ELEMENT * scores, 2 * scores * bp),
        op("weighted sum (PV)", "attention", score_flops, scores * bp + k_bytes + tokens * q_out * bp),
        linear("o_proj", "projection", q_out, h),
        op("residual add 1", "elementwise", residual.flops, residual.bytes),
        op("mlp_norm", "norm", norm.flops, norm.bytes),
        linear("gate_proj", "mlp", h, i),
        linear("up_proj", "mlp", h, i),
        op("swiglu (silu(gate) * up)", "elementwise", swiglu.flops, swiglu.bytes),
        linear("down_proj", "mlp", i, h),
        op("residual add 2", "elementwise", residual.flops, residual.bytes),
    )


def model_step_ops(
    cfg: TransformerConfig, batch: int, q_len: int, kv_len: int, bytes_per: float = 2
) -> tuple[tuple[Op, int], ...]:
    """Every op of a whole step with how many times it runs: the embedding gather, each layer op x layers,
    the final norm and the LM head on the last token of each sequence."""
    cfg = _config(cfg)
    layer = decoder_layer_ops(cfg, batch, q_len, kv_len, bytes_per)
    bp = positive_number("bytes_per", bytes_per)
    b = positive_int("batch", batch)
    tokens = b * positive_int("q_len", q_len)
    h = cfg.hidden
    norm = rmsnorm_cost(b, h, bp)
    head = matmul_cost(b, cfg.vocab, h, bp)
    return (
        (Op("embedding gather", 0.0, float(2 * tokens * h * bp), "embedding"), 1),
        *((row, cfg.layers) for row in layer),
        (Op("final_norm (last token)", float(norm.flops), float(norm.bytes), "norm"), 1),
        (Op("lm_head (last token)", float(head.flops), float(head.bytes), "lm_head"), 1),
    )


class OpEstimate(NamedTuple):
    """One op of a step on the roofline, summed over its ``runs`` (e.g. the layers)."""

    name: str
    group: str
    runs: int
    flops: float
    bytes: float
    time_s: float
    intensity: float
    bound: str


GROUPS = ("embedding", "norm", "projection", "attention", "mlp", "elementwise", "lm_head")


@dataclass(frozen=True)
class StepEstimate:
    """The roofline estimate of one forward step of a whole model."""

    config: TransformerConfig
    gpu: GPUSpec
    dtype: str
    batch: int
    q_len: int
    kv_len: int
    ops: tuple[OpEstimate, ...]
    flops: float
    bytes: float
    time_s: float
    kv_cache_bytes: float
    weight_bytes: float

    @property
    def fraction_of_peak(self) -> float:
        """Achieved FLOP/s over peak: the utilization of the step."""
        return self.flops / (self.time_s * self.gpu.peak(self.dtype))

    @property
    def tokens_per_s(self) -> float:
        """New tokens per second over the whole batch."""
        return self.batch * self.q_len / self.time_s

    @property
    def fits_in_memory(self) -> bool:
        """Whether all the weights (the embedding table included: it must be resident) and the KV cache fit
        in the HBM a process can fill (``GPUSpec.usable_hbm_bytes``: the capacity less what the driver and
        the CUDA context keep). Llama-3-8B at batch 256 and context 2048 needs 79.0 GiB: under the H100's
        80 GiB, but over the 78 GiB a process gets, so it does not fit."""
        return self.weight_bytes + self.kv_cache_bytes <= self.gpu.usable_hbm_bytes

    def _group(self, group: str) -> None:
        choice("group", group, GROUPS)

    def time_share(self, group: str) -> float:
        """The share of the step's time spent in ``group`` (e.g. "attention")."""
        self._group(group)
        return sum(o.time_s for o in self.ops if o.group == group) / self.time_s

    def flop_share(self, group: str) -> float:
        """The share of the step's FLOPs done in ``group``."""
        self._group(group)
        return sum(o.flops for o in self.ops if o.group == group) / self.flops

    def group_time_s(self, group: str) -> float:
        self._group(group)
        return sum(o.time_s for o in self.ops if o.group == group)


def step_estimate(
    cfg: TransformerConfig,
    gpu: GPUSpec | str,
    batch: int,
    q_len: int,
    kv_len: int,
    bytes_per: float = 2,
    dtype: str = "bf16",
) -> StepEstimate:
    """Roofline estimate of a prefill (q_len = kv_len = prompt) or decode (q_len = 1) step on ``gpu``."""
    cfg = _config(cfg)
    spec = as_gpu(gpu)
    ops = []
    for row, count in model_step_ops(cfg, batch, q_len, kv_len, bytes_per):
        r = roofline(row.flops, row.bytes, spec, dtype)
        ops.append(
            OpEstimate(
                row.name,
                row.group,
                count,
                row.flops * count,
                row.bytes * count,
                r.time_s * count,
                row.flops / row.bytes,
                r.bound,
            )
        )
    return StepEstimate(
        config=cfg,
        gpu=spec,
        dtype=dtype,
        batch=batch,
        q_len=q_len,
        kv_len=kv_len,
        ops=tuple(ops),
        flops=sum(o.flops for o in ops),
        bytes=sum(o.bytes for o in ops),
        time_s=sum(o.time_s for o in ops),
        kv_cache_bytes=kv_cache_bytes(cfg, batch, kv_len, bytes_per),
        weight_bytes=weight_bytes(cfg, bytes_per),
    )


def crossover_context(weight_bytes: float, kv_bytes_per_token: float, batch: int = 1) -> float:
    """The context at which ``batch`` sequences' KV cache holds as many bytes as the weights."""
    weight_bytes = positive_number("weight_bytes", weight_bytes)
    kv_bytes_per_token = positive_number("kv_bytes_per_token", kv_bytes_per_token)
    return weight_bytes / (positive_int("batch", batch) * kv_bytes_per_token)


def kv_weight_crossover(cfg: TransformerConfig, batch: int = 1, bytes_per: float = 2) -> float:
    """Exercise 7: the context at which a decode step reads as many KV-cache bytes as weight bytes
    (weights without the embedding table)."""
    return crossover_context(
        weight_bytes(cfg, bytes_per, include_embedding=False), kv_cache_bytes_per_token(cfg, bytes_per), batch
    )


def weights_read_time(n_params: float, bytes_per_param: float, bytes_per_s: float) -> float:
    """Seconds to read ``n_params`` parameters of ``bytes_per_param`` bytes once at ``bytes_per_s``: the
    floor of a batch-1 decode step."""
    n_params = positive_number("n_params", n_params)
    return (
        n_params
        * positive_number("bytes_per_param", bytes_per_param)
        / positive_number("bytes_per_s", bytes_per_s)
    )


def decode_read_bytes(cfg: TransformerConfig, bytes_per: float = 2) -> float:
    """Weight bytes one decode step reads: every weight it multiplies, once; the input embedding table
    only as the rows it gathers, which this leaves out (the module docstring says why). The per-op model
    (``step_estimate``) reads exactly these weight bytes, plus activations and the KV cache."""
    return weight_bytes(cfg, bytes_per, include_embedding=False)


def decode_time_bound(cfg: TransformerConfig, gpu: GPUSpec | str, bytes_per: float = 2) -> float:
    """The ideal time of a batch-1 decode step that reads every weight it multiplies once and nothing else:
    ``decode_read_bytes`` over the HBM bandwidth (Llama-3-8B on the H100: 4.48 ms). The per-op model at
    batch 1 adds only the activations and the KV cache to it.

    Exercise 3's worked answer reads every parameter, the embedding table too (70.6e9 x 0.5 bytes,
    10.5 ms for Llama-3-70B in INT4): that is ``weights_read_time(param_count(cfg), ...)``, 1.5% more."""
    return decode_read_bytes(cfg, bytes_per) / as_gpu(gpu).hbm_bytes_per_s
