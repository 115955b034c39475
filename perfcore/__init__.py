"""perfcore: the reference library of the lecture "GPUs and performance models".

Every formula, table and worked answer of the lecture, as functions. The formula part needs numpy alone;
the measurements (``perfcore.measure``) need torch, the plots matplotlib; both are imported lazily.
"""

from .costs import (
    Op,
    OpCost,
    batch_intensity,
    common_ops,
    dot_cost,
    elementwise_cost,
    intensity_table,
    matmul_cost,
    matvec_cost,
    min_compute_bound_batch,
    rmsnorm_cost,
    softmax_cost,
)
from .execution import (
    divergence_table,
    latency_hiding_closed_form,
    latency_hiding_table,
    output_blocks,
    simulate_latency_hiding,
    warp_divergence,
    warps_needed,
    wave_efficiency,
    wave_table,
)
from .fusion import fusion_estimate, launch_overhead, overhead_remedies, rmsnorm_residual_fusion
from .roofline import RooflineResult, attainable_flops, ridge_point, roofline, roofline_from_peaks
from .specs import A100, B200, GPUS, H100, H200, GiB, GPUSpec, KiB, MiB, get_gpu
from .tiling import (
    count_tiled_matmul_traffic,
    max_square_tile,
    tiled_intensity,
    tiled_matmul,
    tiled_matmul_traffic,
    tiling_numerics,
)
from .training import gpu_hours, mfu, training_days, training_flops, training_seconds, training_table
from .transformer import (
    LLAMA3_8B,
    LLAMA3_70B,
    StepEstimate,
    TransformerConfig,
    decode_time_bound,
    decoder_layer_ops,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    kv_weight_crossover,
    param_count,
    step_estimate,
    weight_bytes,
)

__version__ = "0.1.0"

__all__ = [name for name in dir() if not name.startswith("_")]
