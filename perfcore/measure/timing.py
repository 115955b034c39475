"""How perfcore times things: torch.utils.benchmark.Timer, one thread, median and IQR, interleaving.

Everything that measures goes through here, so that the method of measuring (one thread, warm-up,
blocked runs, median as the figure, IQR/median as its noise, A B A B interleaving for comparisons) is
written once.
"""

from __future__ import annotations

import contextlib
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..validation import positive_int


def require_torch() -> Any:
    """Import torch, or raise an ImportError that says how to install it."""
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - exercised in the no-torch tox environment
        raise ImportError(
            "perfcore.measure needs torch: pip install 'torch==2.13.0' (CPU build) or perfkit[torch]"
        ) from exc
    return torch


@contextlib.contextmanager
def single_thread() -> Iterator[None]:
    """One thread for torch and for the BLAS under numpy (threadpoolctl); both restored afterwards."""
    torch = require_torch()
    before = torch.get_num_threads()
    limiter: Any = contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits

        limiter = threadpool_limits(limits=1)
    except ImportError:  # threadpoolctl is in the torch extra; without it numpy's BLAS keeps its threads
        pass
    torch.set_num_threads(1)
    try:
        with limiter:
            yield
    finally:
        torch.set_num_threads(before)


@dataclass(frozen=True)
class Timing:
    """Seconds per call: the median of ``samples`` (one per block of ``number`` calls) and its spread."""

    median_s: float
    iqr_s: float
    best_s: float
    samples: tuple[float, ...]
    number: int

    @classmethod
    def from_samples(cls, samples: Sequence[float], number: int) -> Timing:
        """Median, IQR and best of per-call ``samples``, each from a block of ``number`` calls."""
        low, high = _quartiles(list(samples))
        return cls(statistics.median(samples), high - low, min(samples), tuple(samples), number)

    @property
    def noise(self) -> float:
        """IQR / median: the relative spread of the figure."""
        return self.iqr_s / self.median_s if self.median_s > 0 else float("inf")


def _quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def interleave(calls: Mapping[str, Callable[[], float]], rounds: int = 5) -> dict[str, list[float]]:
    """Call each of ``calls`` once per round, in turn (A B A B ...), and collect what each returns.

    Each callable measures one figure (a time or a rate) and returns it; interleaving exposes them to the
    same drift of the machine, so the ratio of their medians is steadier than that of sequential runs.
    """
    rounds = positive_int("rounds", rounds)
    if not calls:
        raise ValueError("calls must name at least one callable")
    results: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            results[name].append(float(call()))
    return results


def median_ratio(numerator: list[float], denominator: list[float]) -> float:
    """median(numerator) / median(denominator)."""
    return statistics.median(numerator) / statistics.median(denominator)
