"""perfcore.measure: the lecture's CPU experiments (and GPU ones where a GPU is present), measured so the
numbers can be trusted on a shared, noisy machine. Needs torch (``pip install perfkit[torch]``)."""
