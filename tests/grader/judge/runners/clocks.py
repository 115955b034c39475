"""Clock readings as the worker sends them (:class:`grader.sandbox.clocks.Noting`), for fake judges: a
measuring call on the CPU must show it read a clock (:mod:`grader.judge.runners.readings`)."""

from __future__ import annotations

import base64
import dataclasses
import sys
import time
from array import array
from collections.abc import Callable, Sequence
from typing import Any

from grader.sandbox import messages

PERF_COUNTER = 0  # the worker's code of a time.perf_counter reading


def sent(
    values: Sequence[float],
    kinds: Sequence[int] | None = None,
    cpu: Sequence[float] | None = None,
    threads: Sequence[int] | None = None,
    call_cpu: float | None = None,
    tally: Sequence[Sequence[float]] | None = None,
) -> dict:
    """``values`` (seconds) read from ``kinds`` (perf_counter by default; an index of the worker's ``CLOCKS``
    of a clock read in seconds), encoded as the worker sends them; with ``cpu``, as double readings: the
    reading thread's CPU time with each, by thread (``threads``, the first thread's by default), and the CPU
    time the calling thread ran in the whole call (``call_cpu``: from its first CPU reading to its last by
    default); with ``tally``, for each reading an accumulator's places as it read them, then the noting's
    lag (:attr:`grader.sandbox.clocks.Noting.tally`)."""
    kinds = [PERF_COUNTER] * len(values) if kinds is None else list(kinds)
    clocks: dict[str, list[float]] = {}
    for value, kind in zip(values, kinds, strict=True):
        clocks.setdefault(str(kind), []).append(value)
    encoded = {k: base64.b64encode(array("d", v).tobytes()).decode() for k, v in clocks.items()}
    counted: dict[str, Any] = {}
    if tally is not None:
        rows: dict[str, list[float]] = {}
        for kind, row in zip(kinds, tally, strict=True):
            rows.setdefault(str(kind), []).extend(row)
        places = len(tally[0]) - 1 if tally else 0
        text = {k: base64.b64encode(array("d", v).tobytes()).decode() for k, v in rows.items()}
        counted = {"tally": text, "tally_places": places}
    if cpu is None:
        return {"clocks": encoded, "order": sys.byteorder, **counted}
    threads = [0] * len(values) if threads is None else list(threads)
    cpus: dict[str, list[float]] = {}
    which: dict[str, list[int]] = {}
    for kind, ran, thread in zip(kinds, cpu, threads, strict=True):
        cpus.setdefault(str(kind), []).append(ran)
        which.setdefault(str(kind), []).append(thread)
    if call_cpu is None:
        call_cpu = max(cpu) - min(cpu) if cpu else 0.0
    return {
        "clocks": encoded,
        "order": sys.byteorder,
        "call_cpu": call_cpu,
        "cpu": {k: base64.b64encode(array("d", v).tobytes()).decode() for k, v in cpus.items()},
        "threads": {k: base64.b64encode(array("B", v).tobytes()).decode() for k, v in which.items()},
        **counted,
    }


#: The readings a fake call takes after its end: a stretch for each point of a fake curve (each point of an
#: honest curve is timed, a stretch of its own; the fakes' points claim far less than a microsecond).
POINT_READINGS = 31


def read_around(call: Callable[[], Any]) -> Any:
    """``call()``'s reply, with a reading of ``perf_counter`` just before and just after it (a call timed
    whole, as an honest one is), then :data:`POINT_READINGS` more, where the reply carries none."""
    start = time.perf_counter()
    reply = call()
    if isinstance(reply, messages.Returned) and reply.readings is None:
        after = [time.perf_counter() for _ in range(1 + POINT_READINGS)]
        return dataclasses.replace(reply, readings=sent([start, *after]))
    return reply
