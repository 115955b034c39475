"""Hypothesis strategies for perfcore's laws, in one place (as minitorch keeps them)."""

from hypothesis import strategies as st

import perfcore as pc

sizes = st.integers(min_value=1, max_value=1 << 16)
small_sizes = st.integers(min_value=1, max_value=96)
bytes_per = st.sampled_from([0.5, 1, 2, 4, 8])
gpus = st.sampled_from(list(pc.GPUS.values()))
flops = st.floats(min_value=1.0, max_value=1e18, allow_nan=False, allow_infinity=False)
nbytes = st.floats(min_value=1.0, max_value=1e15, allow_nan=False, allow_infinity=False)
warps = st.integers(min_value=1, max_value=64)
compute_per_load = st.integers(min_value=1, max_value=128)
latency = st.integers(min_value=0, max_value=1000)
