"""How busy the machine was while a measurement ran: read from the kernel, never from the code measured.

A measurement's verdict may say "wrong" only on evidence the machine's load cannot produce. Load bends
figures: a process sharing the measured core takes slices of a call (a block timed across them reads slower,
a student's minimum of many short blocks does not), a hypervisor steals time, and processes on the other
cores share the caches and DRAM. So each span of a measurement (one student call, one reference
measurement) is read from ``/proc/stat`` before and after:

- **others on the core**: the measured core's busy time less the CPU time of our own process (the student's
  worker tree during its call, the reference process during its measurement; the other side is stopped or
  waiting), i.e. time other processes of the machine took from it;
- **steal**: time the hypervisor gave that core to another guest;
- **elsewhere**: the other cores' busy time, in cores (the caches and DRAM they share).

:class:`Span` says whether a span was *clean* (nothing else ran on the measured core) and *calm* (little ran
elsewhere). A student's tree cannot make a span look busy: its own CPU time is taken off the core's, and
its processes are stopped while perfcore measures. Where ``/proc/stat`` cannot be read (macOS, Windows)
no span says anything, and every span counts as clean and calm: the verdicts there are as before
(:data:`UNKNOWN`). Where it can, a span whose own CPU time could not be read (or whose core was not
pinned) says nothing of the core either, and is never clean (:data:`UNREAD`): a verdict against the student
needs evidence, and an unread span is none.

The core's busy time is read in clock ticks (10 ms), so one span's reading errs by up to a tick at each
end, and a span is clean with two ticks of others beyond :data:`CLEAN_SHARE`: a span under about 45 ms
reads clean even where a busy process took half the core. The rounds a verdict reads are therefore also
judged pooled (:func:`pooled_clean`): the signed readings' errors cancel over rounds, a shared core's
share does not.

Where the load is read from is the trusted side's choice (:data:`LOAD_ENV`, in the environment of the
process that judges: the pytest session, ``grader.grade()``, the batch grader): ``/proc/stat``, or *quiet*,
every span read as if nothing else had run (known, clean and calm, others' share 0). Quiet is for the kit's
own tests, which must see a cheat judged on its evidence alone on a machine busy with other work; grading
for credit never sets it. The student's code cannot reach it: it runs in the judge's workers, whose
environment keeps none of the judge's variables (:func:`grader.sandbox.confinement.worker_env`), and no
variable a worker sets reaches the judge's process.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from perfcore.measure import procstat
from perfcore.measure.procstat import Cpu  # one CPU's ticks: the sandbox's readers name it load.Cpu

#: A span is clean when other processes (and steal) took at most this share of its wall time from the
#: measured core, beyond the reading's resolution (two clock ticks).
CLEAN_SHARE = 0.03
#: A span is calm when the other cores were busy for at most this many cores' worth of its wall time, or
#: this share of them on a larger machine: their caches and DRAM are shared with the measured core.
CALM_CORES = 0.5
CALM_SHARE = 0.125
#: How far outside its band a ratio must lie to be wrong when the measured core was clean but other cores
#: were busy: their traffic on the shared caches and DRAM bends a figure by tens of percent, not by this.
CONTENTION_FACTOR = 1.5
#: Rounds pooled (:func:`pooled_clean`) may show others this many clock ticks per square root of their
#: spans beyond :data:`CLEAN_SHARE`: each span's reading errs by less than a tick at each end, both ways,
#: so the pooled error grows with the root of the spans' count (its spread is about 0.4 tick per root).
POOLED_TICKS = 2.0
#: How long :func:`busy_now` watches the machine.
SAMPLE_S = 0.2


#: A file that stands in for ``/proc/stat``, where set: another machine's, injected by a test (a missing
#: file: a machine whose load cannot be read, where every span is clean).
STAT_ENV = "PERFKIT_PROC_STAT"


#: The judge's setting of where the machine's load is read from (see the module docstring): unset or
#: ``proc``, ``/proc/stat`` (or :data:`STAT_ENV`'s file); ``quiet``, every span read as quiet.
LOAD_ENV = "PERFKIT_LOAD"
PROC = "proc"
QUIET = "quiet"
SOURCES = (PROC, QUIET)


def source() -> str:
    """Where this process reads the machine's load from: :data:`PROC` or :data:`QUIET` (:data:`LOAD_ENV`)."""
    value = os.environ.get(LOAD_ENV, "").strip() or PROC
    if value not in SOURCES:
        raise ValueError(f"${LOAD_ENV} must be one of {', '.join(SOURCES)} (or unset), got {value!r}")
    return value


def read_cpus(stat: str | None = None) -> dict[int, Cpu]:
    """Per CPU its ticks (Linux), read by perfcore's one reader of ``/proc/stat``
    (:func:`perfcore.measure.procstat.per_cpu`); empty where ``stat`` (by default ``$PERFKIT_PROC_STAT``, else
    ``/proc/stat``) cannot be read."""
    return procstat.per_cpu(stat or os.environ.get(STAT_ENV) or procstat.PROC_STAT)


def tick_s() -> float:
    try:
        return 1.0 / os.sysconf("SC_CLK_TCK")
    except (AttributeError, ValueError, OSError):
        return 0.01


@dataclass(frozen=True)
class MachineTicks:
    """The CPUs' ticks at one moment, with the time; ``quiet``: read as quiet (:data:`LOAD_ENV`)."""

    cpus: dict[int, Cpu]
    at: float
    quiet: bool = False


def reading(stat: str | None = None) -> MachineTicks:
    """The CPUs' ticks now; where the load is read as quiet (:func:`source`, unless ``stat`` names a file),
    every CPU of the machine at no tick: spans between such readings are known, clean and calm."""
    if stat is None and source() == QUIET:
        return MachineTicks(quiet_cpus(), time.monotonic(), quiet=True)
    return MachineTicks(read_cpus(stat), time.monotonic())


def quiet_cpus() -> dict[int, Cpu]:
    """Every CPU this machine has (those this process may use among them), none of them ever busy."""
    cpus = set(range(os.cpu_count() or 1))
    if hasattr(os, "sched_getaffinity"):
        cpus |= os.sched_getaffinity(0)
    return {c: Cpu(0, 0) for c in sorted(cpus)}


@dataclass(frozen=True)
class Span:
    """What the machine did during one span of a measurement (see the module docstring). ``known`` is False
    where nothing could be read: such a span is clean and calm, as every span was before it was read,
    unless ``unread`` (the machine's load reads, this span's did not): then it is neither.
    ``others_read``: others' seconds as read, before negative readings are cut to 0 (at least minus one
    tick), so that rounds pooled cancel the ticks' errors (None: ``others``)."""

    wall: float
    others: float  # seconds other processes took from the measured core
    steal: float  # seconds the hypervisor took from it
    elsewhere: float  # cores' worth of the other cores' time that was busy
    cores: int  # how many other cores there are
    resolution: float
    known: bool = True
    unread: bool = False
    others_read: float | None = None

    @property
    def clean(self) -> bool:
        if not self.known:
            return not self.unread
        return self.others + self.steal <= CLEAN_SHARE * self.wall + 2 * self.resolution

    @property
    def calm(self) -> bool:
        if not self.known:
            return not self.unread
        return self.elsewhere <= max(CALM_CORES, CALM_SHARE * self.cores)

    @property
    def quiet(self) -> bool:
        return self.clean and self.calm

    def on_cpu_clock(self) -> Span:
        """This span as a round read on the CPU clock counts it (:mod:`grader.judge.runners.cpuclock`):
        others' slices of the core do not stretch the CPU time the work received, so they are left out;
        steal and the other cores stay."""
        return replace(self, others=0.0, others_read=None)

    @property
    def others_share(self) -> float:
        """The share of the span's wall time the measured core gave to others (and to steal)."""
        return min(1.0, (self.others + self.steal) / self.wall) if self.known and self.wall > 0 else 0.0

    def to_dict(self) -> dict[str, float | bool]:
        return {
            "wall": round(self.wall, 4),
            "others": round(self.others, 4),
            "steal": round(self.steal, 4),
            "elsewhere": round(self.elsewhere, 3),
            "clean": self.clean,
            "calm": self.calm,
        }


#: A span on a machine whose load cannot be read at all: clean and calm (the verdicts as without reading).
UNKNOWN = Span(0.0, 0.0, 0.0, 0.0, 0, 0.0, known=False)
#: A span the machine's load could have been read for, but was not (our CPU time unread, the core not
#: pinned): no evidence, so never clean (issue 38: an unknown span counted as clean evidence for a wrong).
UNREAD = Span(0.0, 0.0, 0.0, 0.0, 0, 0.0, known=False, unread=True)


def pooled_clean(spans: Sequence[Span]) -> bool:
    """Whether ``spans`` (one side's, of the rounds a verdict reads), pooled, show others' share of the
    measured core within :data:`CLEAN_SHARE` beyond :data:`POOLED_TICKS` ticks per root of their count:
    one short span is clean with two ticks of others whatever its length, so three spans of 30 ms each
    half taken by a busy process pass one by one and fail here. Spans that say nothing (unknown) are left
    out."""
    known = [s for s in spans if s.known]
    if not known:
        return True
    wall = sum(s.wall for s in known)
    others = sum((s.others if s.others_read is None else s.others_read) + s.steal for s in known)
    tick = max(s.resolution for s in known)
    return others <= CLEAN_SHARE * wall + POOLED_TICKS * tick * math.sqrt(len(known))


def span(before: MachineTicks, after: MachineTicks, core: set[int] | None, ours_s: float | None) -> Span:
    """The :class:`Span` from ``before`` to ``after`` on the measured ``core`` (one CPU, or None where it was
    not pinned), ``ours_s`` the CPU seconds our own process used meanwhile (None: unknown, the span then
    says nothing of the core: :data:`UNREAD`). Between quiet readings, a quiet span whatever is known."""
    wall = after.at - before.at
    if not before.cpus or not after.cpus or wall <= 0:
        return UNKNOWN
    if before.quiet and after.quiet:
        return Span(wall, 0.0, 0.0, 0.0, max(0, len(after.cpus) - 1), tick_s())
    tick = tick_s()
    delta = {
        c: Cpu(after.cpus[c].busy - was.busy, after.cpus[c].steal - was.steal)
        for c, was in before.cpus.items()
        if c in after.cpus
    }
    mine = {c for c in (core or set()) if c in delta}
    if not mine or ours_s is None:
        return UNREAD
    busy = sum(delta[c].busy for c in mine) * tick
    steal = sum(delta[c].steal for c in mine) * tick
    others = max(0.0, busy - ours_s)
    rest = [c for c in delta if c not in mine]
    # our process's CPU the measured core does not show ran elsewhere: not the machine's load (a student's
    # thread on another core must not make its own rounds look busy)
    ours_elsewhere = max(0.0, ours_s - busy)
    elsewhere = max(0.0, sum(delta[c].busy + delta[c].steal for c in rest) * tick - ours_elsewhere) / wall
    return Span(wall, others, steal, elsewhere, len(rest), tick, others_read=max(-tick, busy - ours_s))


def busy_now(sample_s: float = SAMPLE_S, read: Callable[[], MachineTicks] = reading) -> str | None:
    """Why the machine is busy now (its CPUs' busy share over ``sample_s``, in words of numbers), or None
    where it is quiet enough to measure or cannot be read: a check deferred for the machine's load is
    measured again only once this says None. ``read``: the machine's readings (another's, in tests)."""
    before = read()
    if not before.cpus:
        return None
    time.sleep(sample_s)
    after = read()
    wall = after.at - before.at
    if not after.cpus or wall <= 0:
        return None
    tick = tick_s()
    busy = [
        (after.cpus[c].busy + after.cpus[c].steal - was.busy - was.steal) * tick / wall
        for c, was in before.cpus.items()
        if c in after.cpus
    ]
    # quiet: one core free of others, and the rest calm (as a measurement's spans are judged)
    idlest = min(busy)
    rest = sum(busy) - idlest
    if idlest <= 0.1 and rest <= max(CALM_CORES, CALM_SHARE * (len(busy) - 1)):
        return None
    return f"{sum(busy):.1f} of {len(busy)} CPUs busy"


def loadavg(path: str = "/proc/loadavg") -> float | None:
    """The one-minute load average, where the OS gives one."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        try:
            with open(path, encoding="ascii") as fh:
                return float(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None
