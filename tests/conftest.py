"""Shared settings of the kit's own tests."""

from hypothesis import settings

# The kit's property tests: reproducible (derandomized), no deadline (a shared 2-core machine is noisy).
settings.register_profile("perfkit", deadline=None, max_examples=100, derandomize=True)
settings.load_profile("perfkit")
