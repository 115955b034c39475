"""The judge's CPU clock: a round of a measurement read in the CPU time its work received, on both sides,
where the measured core is shared with other processes (issue 45 item 5).

A process that shares the measured core takes slices of every call: a figure read off the wall clock then
stretches with the load (on this kit's 2-core machine a 64 MiB copy beside two busy loops on its core reads
12 GB/s by ``perf_counter`` and 47 by the thread's CPU time, 49 quiet by both), so such rounds were no
evidence and most checks deferred on a busy machine. The CPU time a thread received is what others' slices
do not stretch. So where the rounds so far found the measured core shared
(:meth:`~grader.judge.runners.busy.Loads.core_shared`; an input's first round is on the wall clock), the next is
taken on the CPU clock: the worker's wall clocks advance by the calling thread's CPU time in the student's
call (:func:`grader.sandbox.clocks.note_clocks`), and perfcore times in its thread's CPU time
(:func:`perfcore.measure.timing.cpu_clock`). The pairing stays: each round's two figures are read on one
clock. Such a round counts as clean where no steal was read and the student's figure can only have come
from that clock (:func:`covered`); others' share of the core does not bend it, so it is left out
(:meth:`grader.judge.runners.busy.Loads.clean`). The other cores' contention for the caches and DRAM is
unchanged by any clock, and is judged as before (the band widened where they were busy).

Wall time stays the figure on a quiet core, and for the checks this cannot serve: work on several threads
(the CPU time of one thread is not the work's), a GPU's, and a machine whose load cannot be read.
"""

from __future__ import annotations

import time

from ...sandbox import load
from ...sandbox.clocks import GETTIME, Readings

#: ``clock_gettime`` ids that are CPU clocks (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID): they read
#: CPU time on the CPU clock as ever; any other id is a wall clock the worker does not switch.
CPU_IDS = (2, 3)
#: A call is covered by the thread's CPU clock where its worker tree used at most this share more CPU than
#: the calling thread ran in the call, and this many seconds more (the worker's own handling of the call:
#: its arguments decoded, its buffers mapped, its reply made): more than that ran in other threads, whose
#: CPU time the calling thread's clock does not see. Measured here (2026-12-05): m5a's solution within 1 ms;
#: m1 by the honest ``thread_time`` method 1.23-1.24x in a file's first call (22-24 ms of 94-98 spent
#: outside the call's window, the worker's first call of a file), within 1 ms in its later calls; a
#: method that moves its work to a side thread reads its calling thread's CPU as next to none.
COVER_SHARE = 1.3
COVER_SLACK_S = 0.01


def available() -> bool:
    """Whether the CPU clock can be read here: the thread's CPU time and the machine's load."""
    return hasattr(time, "thread_time") and bool(load.reading().cpus)


def covered(readings: Readings | None, tree_cpu_s: float | None, resolution_s: float = 0.0) -> bool:
    """Whether a call taken on the CPU clock can only have read that clock: its readings are there, each
    made by the calling thread (the worker switches that thread's clocks alone) of a clock the worker
    switched or of a CPU clock, and its worker tree (``tree_cpu_s``, read by the kernel at ``resolution_s``:
    a process's clock ticks, 10 ms, where no cgroup counts its nanoseconds; twice that allowed) used no more CPU
    than that thread ran in the call allows (:data:`COVER_SHARE`, :data:`COVER_SLACK_S`). Where not, the
    round is read as a wall-clock round: no evidence on a shared core."""
    if readings is None or not readings.values or not readings.cpu or tree_cpu_s is None:
        return False
    if readings.call_cpu is None:
        return False
    if any(thread != 0 for thread in readings.threads):
        return False
    if any(kind >= GETTIME and kind - GETTIME not in CPU_IDS for kind in readings.kinds):
        return False
    return tree_cpu_s <= COVER_SHARE * readings.call_cpu + COVER_SLACK_S + 2 * resolution_s
