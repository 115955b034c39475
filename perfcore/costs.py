"""FLOPs and bytes of the lecture's ops (§3.2-3.4 and seed 002's intensity table).

Bytes count the minimum HBM traffic: every input read once, every output written once. ``bytes_per`` is
the size of one number (2 for BF16, 4 for FP32). FLOP counts for the cheap ops follow one stated
convention (see each function); they never decide a time, since those ops are memory-bound by far.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .specs import GPUSpec, as_gpu
from .validation import positive_int, positive_number


class OpCost(NamedTuple):
    """FLOPs and bytes of one op, so that ``roofline(*cost, gpu)`` reads like the lecture."""

    flops: Any
    bytes: Any

    @property
    def intensity(self) -> Any:
        return np.divide(self.flops, self.bytes)


class Op(NamedTuple):
    """A named row of an op table: ``name``, ``flops``, ``bytes`` and the ``group`` it is summed under."""

    name: str
    flops: float
    bytes: float
    group: str = ""

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes


def _sizes(**sizes: Any) -> list[Any]:
    """Validate sizes: positive integers, or arrays of them (so a sweep is one call)."""
    out = []
    for name, value in sizes.items():
        if isinstance(value, (list, tuple, np.ndarray)):
            arr = positive_number(name, value)
            if not np.all(np.mod(arr, 1) == 0):
                raise ValueError(f"{name} must hold whole numbers, got {value!r}")
            out.append(arr)
        else:
            out.append(positive_int(name, value))
    return out


def matmul_cost(m: Any, n: Any, k: Any, bytes_per: float = 2) -> OpCost:
    """C[m, n] = A[m, k] @ B[k, n]: 2mnk FLOP; reads A and B, writes C: (mk + kn + mn) x bytes_per."""
    m, n, k = _sizes(m=m, n=n, k=k)
    bytes_per = positive_number("bytes_per", bytes_per)
    return OpCost(2 * m * n * k, (m * k + k * n + m * n) * bytes_per)


def elementwise_cost(
    n_elements: Any, n_inputs: int = 1, n_outputs: int = 1, flops_per_element: float = 1, bytes_per: float = 2
) -> OpCost:
    """An elementwise op over ``n_elements``: reads ``n_inputs`` tensors and writes ``n_outputs``."""
    (n_elements,) = _sizes(n_elements=n_elements)
    n_inputs = positive_int("n_inputs", n_inputs)
    n_outputs = positive_int("n_outputs", n_outputs)
    flops_per_element = positive_number("flops_per_element", flops_per_element)
    bytes_per = positive_number("bytes_per", bytes_per)
    return OpCost(n_elements * flops_per_element, n_elements * (n_inputs + n_outputs) * bytes_per)


def dot_cost(n: Any, bytes_per: float = 2) -> OpCost:
    """x . y for two n-vectors: 2n FLOP; reads 2n numbers, writes one."""
    (n,) = _sizes(n=n)
    bytes_per = positive_number("bytes_per", bytes_per)
    return OpCost(2 * n, (2 * n + 1) * bytes_per)


def matvec_cost(m: Any, n: Any | None = None, bytes_per: float = 2) -> OpCost:
    """y[m] = W[m, n] @ x[n] (square when ``n`` is omitted): 2mn FLOP; reads W and x, writes y."""
    if n is None:
        n = m
    m, n = _sizes(m=m, n=n)
    bytes_per = positive_number("bytes_per", bytes_per)
    return OpCost(2 * m * n, (m * n + n + m) * bytes_per)


#: FLOPs per element of a softmax along rows: max, subtract, exp, sum, divide.
SOFTMAX_FLOPS_PER_ELEMENT = 5
#: FLOPs per element of an RMSNorm: square, sum, scale by 1/rms, multiply by the weight.
RMSNORM_FLOPS_PER_ELEMENT = 4


def softmax_cost(rows: Any, cols: Any, bytes_per: float = 2) -> OpCost:
    """Softmax of a rows x cols matrix along its rows: reads and writes it once (5 FLOP per element)."""
    rows, cols = _sizes(rows=rows, cols=cols)
    bytes_per = positive_number("bytes_per", bytes_per)
    return OpCost(SOFTMAX_FLOPS_PER_ELEMENT * rows * cols, 2 * rows * cols * bytes_per)


def rmsnorm_cost(rows: Any, hidden: Any, bytes_per: float = 2) -> OpCost:
    """RMSNorm of ``rows`` vectors of size ``hidden``: reads x and the weight, writes y (4 FLOP/element)."""
    rows, hidden = _sizes(rows=rows, hidden=hidden)
    bytes_per = positive_number("bytes_per", bytes_per)
    return OpCost(RMSNORM_FLOPS_PER_ELEMENT * rows * hidden, (2 * rows * hidden + hidden) * bytes_per)


def intensity_table(n: int = 4096, bytes_per: float = 2) -> tuple[Op, ...]:
    """Seed 002's demo 2: ReLU, dot, matrix-vector and matrix-matrix of side ``n``."""
    n = positive_int("n", n)
    rows = {
        "relu": elementwise_cost(n, bytes_per=bytes_per),
        "dot": dot_cost(n, bytes_per),
        "matvec": matvec_cost(n, bytes_per=bytes_per),
        "matmul": matmul_cost(n, n, n, bytes_per),
    }
    return tuple(Op(name, float(c.flops), float(c.bytes)) for name, c in rows.items())


def common_ops(n: int = 4096, bytes_per: float = 2) -> tuple[Op, ...]:
    """The ops of §3.3 that seed 000 places on the H100 roofline (02 part 1), at side ``n``."""
    n = positive_int("n", n)
    rows = {
        "add (x + y)": elementwise_cost(n * n, n_inputs=2, bytes_per=bytes_per),
        "relu": elementwise_cost(n * n, bytes_per=bytes_per),
        "softmax": softmax_cost(n, n, bytes_per),
        "rmsnorm": rmsnorm_cost(n, n, bytes_per),
        "dot": dot_cost(n, bytes_per),
        "matvec": matvec_cost(n, bytes_per=bytes_per),
        "matmul (batch 128)": matmul_cost(128, n, n, bytes_per),
        "matmul": matmul_cost(n, n, n, bytes_per),
    }
    return tuple(Op(name, float(c.flops), float(c.bytes)) for name, c in rows.items())


def batch_intensity(batch: Any, d: int, bytes_per: float = 2) -> Any:
    """Intensity of ``batch`` vectors times one d x d weight (§3.4): about ``batch`` for BF16."""
    return matmul_cost(batch, d, d, bytes_per).intensity


def min_compute_bound_batch(
    gpu: GPUSpec | str, d: int = 8192, dtype: str = "bf16", bytes_per: float = 2
) -> int:
    """The smallest power-of-two batch whose d x d matmul is compute-bound on ``gpu`` (§3.4)."""
    spec = as_gpu(gpu)
    d = positive_int("d", d)
    ridge = spec.peak(dtype) / spec.hbm_bytes_per_s
    batch = 1
    while batch_intensity(batch, d, bytes_per) < ridge:
        batch *= 2
        if batch > 1 << 40:
            raise ValueError(f"no batch makes a d={d} matmul compute-bound with bytes_per={bytes_per}")
    return batch
