"""The clock readings of a measuring call, both sides of them: the one numbering of the clocks
(:data:`CLOCKS`), the worker's noting clocks that record the readings (:class:`Noting`, :func:`note_clocks`),
their form on the wire, and the typed record the judge reads back (:class:`Readings`), so that whoever
writes a reading also reads it. The rules that hold a figure to its readings are
:mod:`grader.judge.runners.readings`.

Python's clocks are replaced in the worker, before any preload and any student import, by ones that note
every reading a measuring call makes. Like :mod:`grader.sandbox.wire` this module is copied beside the worker
and loaded by path; it imports only the standard library. What it records lives in the student's process:
evidence, not proof (see docs/measurement.md, "A figure must come from timing the work").
"""

from __future__ import annotations

import base64
import heapq
import math
import sys
import threading
import time
from array import array
from dataclasses import dataclass
from typing import Any

#: The clocks noted, by their code in the record (an index here); ``timeit.default_timer`` is the first.
#: ``_ns`` forms (the odd codes) share their clock; ``clock_gettime(id)`` is read as GETTIME + id.
CLOCKS = ("perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time", "time_ns", "process_time",
    "process_time_ns", "thread_time", "thread_time_ns", "clock_gettime", "clock_gettime_ns")  # fmt: skip
GETTIME = CLOCKS.index("clock_gettime")
#: The clocks a code below GETTIME reads, by code // 2.
NAMES = CLOCKS[0:GETTIME:2]


class Noting:
    """The readings of Python's clocks in a call whose request asks for ``readings``, each a double reading:
    the value of the clock the student called and, taken with it, the reading thread's CPU time
    (``time.thread_time``) and which thread read (an index: 0 the calling thread, others in the order they
    first read; THREADS - 1 for any past those). Kept in arrays per clock (of :data:`CLOCKS`;
    ``clock_gettime``: the id asked, then the reading), the first MAX_READINGS. Past them (a loop spinning on the clock, then blocks timed) a clock
    keeps what the judge's rule asks of its readings (:class:`Beyond`): its LONGEST stretches between
    consecutive readings and its extremes, so that the blocks timed after a spin are not lost. Evidence, not
    proof: the record is in the student's process.

    The second reading costs a system call (about 0.15 us); the wall clocks the calling thread reads do not
    count it (:attr:`lag`), so that a microsecond call timed alone reads as it would unnoted. A reading of a
    CPU clock (``process_time``, ``thread_time``) keeps a third half, the judge's wall clock
    (``perf_counter``) with it, so that its stretches can be placed among what the judge saw of the call."""

    MAX_READINGS = 100_000  # a loop spinning on the clock reads it millions of times
    LONGEST = 4096  # stretches kept past them: more than any curve has points
    THREADS = 256  # thread indices kept in a byte
    #: (clock, a cell: [its values, its Beyond, its CPU readings, its threads, the CPU clock's base, the tally
    #: read, its wall readings (a CPU clock's)] while a call records)
    cells: list[tuple[int, list[Any]]] = []
    #: The seconds the noting itself took in the calling thread: its wall clocks read that much less.
    lag = 0.0
    caller: int | None = None  # the thread that makes the measuring calls
    threads: dict[int, int] = {}  # thread ident -> its index in this call's record

    #: Whether the call in progress reads the CPU clock: the calling thread's wall clocks then advance with
    #: its CPU time (:func:`note_clocks`, "the judge's CPU clock").
    on_cpu = False
    began = math.nan  # the calling thread's CPU time when the call began
    #: An accumulator's places read with every reading (the call's counted work, issue 45): the output's
    #: elements and the places the judge drew (:func:`grader.sandbox.shared.tallied`); None: none read.
    tally: tuple[Any, tuple[int, ...]] | None = None

    @classmethod
    def start(cls, on_cpu: bool = False, tally: tuple[Any, tuple[int, ...]] | None = None) -> None:
        """Record from now on (a measuring call begins, in this thread); ``on_cpu``: in CPU time; ``tally``:
        the places of the output to read with each reading."""
        cls.caller = _get_ident()
        cls.threads = {cls.caller: 0}  # the calling thread is the first
        cls.on_cpu = on_cpu and _thread_time is not None
        cls.began = _thread_time() if _thread_time is not None else math.nan
        cls.tally = tally
        for _, cell in cls.cells:
            cell[:] = [array("d"), None, array("d"), array("B"), None, array("d"), array("d")]

    @classmethod
    def stop(cls) -> dict[str, Any]:
        ran = _thread_time() - cls.began if _thread_time is not None else math.nan  # first: not the encoding

        def text(values: array) -> str:
            return base64.b64encode(values.tobytes()).decode()

        noted = {str(k): text(c[0]) for k, c in cls.cells if c[0]}
        cpu = {str(k): text(c[2]) for k, c in cls.cells if c[0] and len(c[2])}
        threads = {str(k): text(c[3]) for k, c in cls.cells if c[0] and len(c[3])}
        walls = {str(k): text(c[6]) for k, c in cls.cells if c[0] and len(c[6])}
        beyond = {str(k): c[1].sent() for k, c in cls.cells if c[1] is not None}
        counted: dict[str, Any] = {}
        if cls.tally is not None:
            tallied = {str(k): text(c[5]) for k, c in cls.cells if c[0]}
            counted = {"tally": tallied, "tally_places": len(cls.tally[1])}
        cls.on_cpu, cls.tally = False, None
        for _, cell in cls.cells:
            cell[:] = [None, None, None, None, None, None, None]
        double: dict[str, Any] = {"cpu": cpu, "threads": threads} if cpu else {}
        if walls:
            double["walls"] = walls
        if math.isfinite(ran):
            double["call_cpu"] = ran
        extra = {"beyond": beyond} if beyond else {}
        return {"clocks": noted, "order": sys.byteorder, **double, **extra, **counted}

    @classmethod
    def thread_index(cls, ident: int) -> int:
        index = cls.threads[ident] = min(len(cls.threads), cls.THREADS - 1)
        return index


class Beyond:
    """One clock's readings past :attr:`Noting.MAX_READINGS`, as the stretches they make: the
    :attr:`Noting.LONGEST` longest between consecutive readings (of all the call's readings of this clock),
    the extremes, and how many readings there were."""

    def __init__(self, notes: Any) -> None:
        stretches = [abs(b - a) for a, b in zip(notes, notes[1:], strict=False)]
        self.longest = heapq.nlargest(Noting.LONGEST, stretches)
        heapq.heapify(self.longest)
        self.last, self.low, self.high, self.count = notes[-1], min(notes), max(notes), len(notes)

    def add(self, value: float) -> None:
        stretch = abs(value - self.last)
        if len(self.longest) < Noting.LONGEST:
            heapq.heappush(self.longest, stretch)
        elif stretch > self.longest[0]:
            heapq.heapreplace(self.longest, stretch)
        self.last, self.count = value, self.count + 1
        if value < self.low:
            self.low = value
        elif value > self.high:
            self.high = value

    def sent(self) -> dict[str, Any]:
        longest = base64.b64encode(array("d", self.longest).tobytes()).decode()
        return {"longest": longest, "low": self.low, "high": self.high, "count": self.count}


_thread_time = getattr(time, "thread_time", None)  # taken before note_clocks: the clocks themselves
_raw_perf = time.perf_counter
_get_ident = threading.get_ident


def _no_cpu() -> float:  # where the thread's CPU clock cannot be read: each CPU half unknown
    return math.nan


#: The wall clocks (codes) whose readings in the calling thread leave out the noting's own time.
_WALL = range(0, CLOCKS.index("process_time"))
#: The CPU clocks (codes), whose readings carry the judge's wall clock too.
_CPU_KINDS = range(CLOCKS.index("process_time"), GETTIME)


def _noted(original: Any, kind: int) -> Any:  # ``original``, its readings noted (and no ``__wrapped__``)
    cap, cell = Noting.MAX_READINGS, [None, None, None, None, None, None, None]
    Noting.cells.append((kind, cell))
    wall, ns, same = kind in _WALL, kind % 2 == 1, kind in (0, 2)  # same: the clock _raw_perf reads

    # the names the clock reads, bound here: a closure's cells are read faster than the module's globals
    noting, raw_perf, get_ident, thread_time = Noting, _raw_perf, _get_ident, _thread_time or _no_cpu

    def clock() -> Any:
        value = original()
        notes = cell[0]
        if notes is None:  # no measuring call: the calling thread's wall clocks keep what the noting took
            if wall and noting.lag and get_ident() == noting.caller:
                return value - (int(noting.lag * 1e9) if ns else noting.lag)
            return value
        mark = value if same else raw_perf()
        cpu = thread_time()
        ident = get_ident()
        if len(notes) < cap:
            notes.append(value)
            cell[2].append(cpu)
            if not wall:  # a CPU clock's reading: the judge's wall clock with it
                cell[6].append(mark)
            index = noting.threads.get(ident)
            cell[3].append(noting.thread_index(ident) if index is None else index)
            tally = noting.tally
            if tally is not None:  # the work done by this reading (inside the noting's own lag), and the lag
                view, places = tally  # this reading's value is returned less (the caller's wall clocks only)
                cell[5].extend([view[place] for place in places])
                cell[5].append(noting.lag if wall and ident == noting.caller and not noting.on_cpu else 0.0)
        elif cell[1] is None:
            cell[1] = Beyond(notes)
            cell[1].add(value)
        else:
            cell[1].add(value)
        if not wall or ident != noting.caller:
            return value
        if noting.on_cpu:  # the CPU clock: from the call's first reading on, as much as the thread ran
            if cell[4] is None:
                cell[4] = (value - (int(noting.lag * 1e9) if ns else noting.lag), cpu)
            base, since = cell[4]
            return base + (int((cpu - since) * 1e9) if ns else cpu - since)
        lag = noting.lag
        noting.lag = lag + (raw_perf() - mark)
        return value - (int(lag * 1e9) if ns else lag)

    def clock_gettime(ident: Any) -> Any:
        value = original(ident)
        notes = cell[0]
        if notes is not None and len(notes) < 2 * cap:
            notes.extend((ident, value))
            cell[2].append(thread_time())
            thread = get_ident()
            index = Noting.threads.get(thread)
            cell[3].append(Noting.thread_index(thread) if index is None else index)
            tally = Noting.tally
            if tally is not None:
                view, places = tally
                cell[5].extend([view[place] for place in places])
                cell[5].append(0.0)
        return value

    noted = clock if kind < GETTIME else clock_gettime
    noted.__name__, noted.__qualname__, noted.__doc__ = original.__name__, original.__name__, original.__doc__
    return noted


def note_clocks() -> None:
    """Replace the clocks of :data:`CLOCKS` by noting ones (:class:`Noting`).

    The judge's CPU clock: in a call it asks to be read on the CPU (``Noting.start(on_cpu=True)``, a core
    shared with other processes), the wall clocks the calling thread reads (``perf_counter``,
    ``monotonic``, ``time`` and their ``_ns`` forms, and so ``timeit`` and ``torch.utils.benchmark``)
    advance, from the call's first reading of each on, by the thread's CPU time: what the work received,
    which others' slices of the core do not stretch. They never go back, in the call or after it (a wall
    clock runs at least as fast). ``clock_gettime`` and the CPU clocks read as ever; the record keeps the
    true readings."""
    for kind, name in enumerate(CLOCKS):
        if hasattr(time, name):
            setattr(time, name, _noted(getattr(time, name), kind))
    if "timeit" in sys.modules:  # not imported at start; where it is, it holds the clock it took
        vars(sys.modules["timeit"])["default_timer"] = time.perf_counter


# The judge's side: the record read back.

_MONOTONIC_ID = 1  # CLOCK_MONOTONIC on Linux
#: How far outside the call's window a reading of the judge's clock may lie: the judge's reading and the
#: worker's are of one clock, so only their own float rounding.
WINDOW_SLACK_S = 1e-4
#: A thread's CPU time grows no faster than the wall clock: a stretch whose CPU readings say it ran more
#: than this share of its wall time, plus the CPU clock's resolution, is not one thread's (a forged record).
CPU_OVER_WALL = 1.01
CPU_RESOLUTION_S = 1e-5


def clock_of(kind: int) -> str:
    """The clock a reading of ``kind`` is of: readings of one clock can be compared with each other. On
    Linux ``perf_counter``, ``monotonic`` and ``clock_gettime(CLOCK_MONOTONIC)`` are one clock, the judge's."""
    if kind >= GETTIME:
        ident = kind - GETTIME
        if sys.platform.startswith("linux") and ident == _MONOTONIC_ID:
            return "monotonic"
        return f"clock_gettime({ident})"
    name = NAMES[kind // 2] if 0 <= kind < 2 * len(NAMES) else f"unknown({kind})"
    if sys.platform.startswith("linux") and name in ("perf_counter", "monotonic"):
        return "monotonic"
    return name


@dataclass(frozen=True)
class Readings:
    """A call's clock readings: ``values`` (seconds) and ``kinds`` (their clocks: the index of the function
    in :data:`CLOCKS`, ``GETTIME`` + the id for ``clock_gettime[_ns]``), ``count`` of them."""

    values: tuple[float, ...]
    kinds: tuple[int, ...]
    count: int
    #: Past the worker's first readings of a clock function (a spin on it): that function's longest
    #: stretches and its extremes, by its kind (:class:`Beyond`).
    beyond: tuple[tuple[int, tuple[float, ...], float, float], ...] = ()
    #: The second half of each double reading, where the record has it (else empty): the reading
    #: thread's CPU time (seconds; nan where it could not be read) and that thread's index in the call.
    cpu: tuple[float, ...] = ()
    threads: tuple[int, ...] = ()
    #: The CPU time the calling thread ran in the whole call (None: not recorded).
    call_cpu: float | None = None
    #: An accumulator's places as each reading found them (``tally_places`` values a reading, then the
    #: seconds the reading returned less than it read, the noting's own time so far; in the order of
    #: :attr:`values`), where the call read them (:attr:`Noting.tally`); else empty.
    tally: tuple[float, ...] = ()
    tally_places: int = 0
    #: The third half of a CPU clock's readings (``process_time``, ``thread_time``): the judge's wall clock,
    #: read with it, in the order of :attr:`values`; NaN for any other clock's. Empty where the record has
    #: none.
    walls: tuple[float, ...] = ()

    @classmethod
    def parse(cls, raw: Any) -> Readings | None:
        """The readings a reply carries (``messages.Returned.readings``: for each clock noted, by its index in
        :data:`CLOCKS`, what it read, as an array of doubles in base64; ``clock_gettime[_ns]``:
        the id asked, then the reading); None where there are none or they do not read as the worker
        writes them (the student's code wrote the line)."""
        clocks = raw.get("clocks") if isinstance(raw, dict) else None
        if not isinstance(clocks, dict) or not all(isinstance(v, str) for v in clocks.values()):
            return None
        values: list[float] = []
        kinds: list[int] = []
        counts: dict[str, int] = {}  # how many readings each clock's entry holds
        try:
            for key, text in clocks.items():
                kind, read = int(key), _doubles(text, raw.get("order"))
                if not 0 <= kind < 2 * len(NAMES) + 2 or (kind >= GETTIME and len(read) % 2):
                    return None
                counts[key] = len(read) // (2 if kind >= GETTIME else 1)
                scale = 1e-9 if kind % 2 else 1.0  # the _ns forms are the odd ones
                if kind >= GETTIME:  # (id, reading) pairs
                    kinds.extend(GETTIME + int(ident) % 50 for ident in read[::2])
                    values.extend(v * scale for v in read[1::2])
                else:
                    kinds.extend([kind] * len(read))
                    values.extend(v * scale for v in read)
        except (ValueError, OverflowError):
            return None
        if not all(math.isfinite(v) for v in values):
            return None
        beyond = _beyond(raw.get("beyond"), raw.get("order"))
        double = _double(raw, counts)
        if beyond is None or double is None or (double[0] and len(double[0]) != len(values)):
            return None
        count = len(values) + sum(len(longest) for _, longest, _, _ in beyond)
        ran = raw.get("call_cpu")
        call_cpu = float(ran) if isinstance(ran, (int, float)) and math.isfinite(ran) and ran >= 0 else None
        tally = _tally(raw, counts)
        if tally is None or (tally[1] and len(tally[0]) != (tally[1] + 1) * len(values)):
            return None
        walls = _walls(raw, counts)
        if walls is None:
            return None
        return cls(tuple(values), tuple(kinds), count, beyond, *double, call_cpu, *tally, walls)

    def cpu_clock_walls(self) -> tuple[str, list[tuple[float, float]]] | None:
        """Where every reading of the call is of one CPU clock (``process_time`` or ``thread_time``, either
        form) by the calling thread and each has its wall half, none past the worker's first readings: that
        clock's name, and its
        readings as (the judge's wall clock, the CPU clock's value), in the order the wall clock read them;
        else None."""
        names = {clock_of(kind) for kind in self.kinds}
        if len(names) != 1 or not names <= {"process_time", "thread_time"} or self.beyond:
            return None
        if len(self.walls) != len(self.values) or not all(math.isfinite(w) for w in self.walls):
            return None
        if any(thread != 0 for thread in self.threads):  # a thread's CPU clock: the calling thread's only
            return None
        return names.pop(), sorted(zip(self.walls, self.values, strict=True))

    def by_clock(self) -> dict[str, list[float]]:
        """The readings of each clock in the order it read them (the worker keeps one array per function
        of ``time``: the readings of one clock through several are put in order by their values)."""
        clocks: dict[str, list[float]] = {}
        for value, kind in zip(self.values, self.kinds, strict=True):
            clocks.setdefault(clock_of(kind), []).append(value)
        return {clock: sorted(values) for clock, values in clocks.items()}

    def stretches(self, took: float) -> list[float]:
        """The times between consecutive readings of each clock (each at most ``took``), longest first. A
        clock function read past the worker's first readings gives its longest stretches instead, where it
        is the only function of its clock read in the call (another's readings could fall inside them)."""
        found: list[float] = []
        alone = {clock: kinds for clock, kinds in self._kinds_by_clock().items() if len(kinds) == 1}
        spun = {kind: longest for kind, longest, _, _ in self.beyond if alone.get(clock_of(kind)) == {kind}}
        for clock, values in self.by_clock().items():
            (kind,) = alone.get(clock, {-1})
            if kind in spun:
                found.extend(min(took, s) for s in spun[kind])
            else:
                found.extend(min(took, abs(b - a)) for a, b in zip(values, values[1:], strict=False))
        return sorted(found, reverse=True)

    def double_stretches(self, took: float) -> list[tuple[float, float | None]]:
        """The stretches between consecutive readings of each clock (each at most ``took``), longest first,
        each with the CPU time its thread ran in it: None where the record has no CPU reading, the two
        readings were made by different threads, or the CPU readings do not fit inside the stretch (a
        thread's CPU time cannot grow faster than the wall clock). Past the worker's first readings of a
        clock function its longest stretches carry no CPU time."""
        if not self.cpu:
            return [(s, None) for s in self.stretches(took)]
        found: list[tuple[float, float | None]] = []
        clocks: dict[str, list[tuple[float, float, int]]] = {}
        for value, kind, cpu, thread in zip(self.values, self.kinds, self.cpu, self.threads, strict=True):
            clocks.setdefault(clock_of(kind), []).append((value, cpu, thread))
        alone = {clock: kinds for clock, kinds in self._kinds_by_clock().items() if len(kinds) == 1}
        spun = {kind: longest for kind, longest, _, _ in self.beyond if alone.get(clock_of(kind)) == {kind}}
        for clock, read in clocks.items():
            (kind,) = alone.get(clock, {-1})
            if kind in spun:
                found.extend((min(took, s), None) for s in spun[kind])
                continue
            read.sort()
            for (a, cpu_a, thread_a), (b, cpu_b, thread_b) in zip(read, read[1:], strict=False):
                wall, ran = min(took, b - a), cpu_b - cpu_a
                fits = thread_a == thread_b and 0.0 <= ran <= (b - a) * CPU_OVER_WALL + CPU_RESOLUTION_S
                found.append((wall, min(ran, wall) if fits else None))
        return sorted(found, key=lambda pair: pair[0], reverse=True)

    def _kinds_by_clock(self) -> dict[str, set[int]]:
        kinds: dict[str, set[int]] = {}
        for kind in self.kinds:
            kinds.setdefault(clock_of(kind), set()).add(kind)
        return kinds

    def outside(self, window: tuple[float, float]) -> float | None:
        """A reading of the judge's own clock (see :func:`clock_of`) outside ``window`` (its
        ``time.perf_counter`` before and after the call), or None."""
        low, high = window[0] - WINDOW_SLACK_S, window[1] + WINDOW_SLACK_S
        extremes = [v for kind, _, lo, hi in self.beyond if clock_of(kind) == "monotonic" for v in (lo, hi)]
        for value in [*self.by_clock().get("monotonic", []), *extremes]:
            if not low <= value <= high:
                return value
        return None


#: The most clock functions a reply may say it read past the worker's first readings (one per function).
MAX_BEYOND = 16


def _doubles(text: Any, order: Any) -> array:
    """A base64 array of doubles as the worker wrote it (:meth:`Noting.stop`), in this machine's byte order
    (``order``: the writer's); raises ``ValueError`` or ``TypeError`` where it does not read as one."""
    read = array("d", base64.b64decode(text, validate=True))
    if order != sys.byteorder:
        read.byteswap()
    return read


def _double(raw: dict[str, Any], counts: dict[str, int]) -> tuple[tuple[float, ...], tuple[int, ...]] | None:
    """The CPU halves of a record's double readings and their threads, in the order of ``counts`` (how many
    readings each clock noted holds, by its key): ``((), ())`` where the record has none (a record written
    without them), None where they do not read as the worker writes them (one per reading of every clock
    noted)."""
    cpu_raw, threads_raw = raw.get("cpu"), raw.get("threads")
    if cpu_raw is None and threads_raw is None:
        return (), ()
    if not isinstance(cpu_raw, dict) or not isinstance(threads_raw, dict):
        return None
    cpu: list[float] = []
    threads: list[int] = []
    try:
        for key, expected in counts.items():
            read = _doubles(cpu_raw[key], raw.get("order"))
            which = array("B", base64.b64decode(threads_raw[key], validate=True))
            if len(read) != expected or len(which) != expected:
                return None
            cpu.extend(read)
            threads.extend(which)
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    return tuple(cpu), tuple(threads)


#: The most places a reading reads of an accumulator (:attr:`Noting.tally`).
MAX_TALLY_PLACES = 64


def _tally(raw: dict[str, Any], counts: dict[str, int]) -> tuple[tuple[float, ...], int] | None:
    """An accumulator's places as each reading found them with the noting's lag, in the order of ``counts``
    (readings by clock), and how many places a reading read: ``((), 0)`` where the record has none, None
    where they do not read as the worker writes them (``tally_places`` + 1 values for every reading of
    every clock noted)."""
    tally_raw, places = raw.get("tally"), raw.get("tally_places")
    if tally_raw is None and places is None:
        return (), 0
    if not isinstance(tally_raw, dict) or not isinstance(places, int) or not 0 < places <= MAX_TALLY_PLACES:
        return None
    found: list[float] = []
    try:
        for key, expected in counts.items():
            read = _doubles(tally_raw[key], raw.get("order"))
            if len(read) != expected * (places + 1):
                return None
            found.extend(read)
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    return tuple(found), places


def _walls(raw: dict[str, Any], counts: dict[str, int]) -> tuple[float, ...] | None:
    """The wall halves of a record's CPU clock readings, in the order of ``counts`` (NaN for the readings of
    any clock the record gives none for): ``()`` where it has none, None where they do not read as the
    worker writes them (one per reading of a CPU clock, and of no other)."""
    walls_raw = raw.get("walls")
    if walls_raw is None:
        return ()
    if not isinstance(walls_raw, dict) or not set(walls_raw) <= set(counts):
        return None
    found: list[float] = []
    try:
        for key, expected in counts.items():
            if key not in walls_raw:
                found.extend([math.nan] * expected)
                continue
            if not _CPU_KINDS.start <= int(key) < _CPU_KINDS.stop:
                return None
            read = _doubles(walls_raw[key], raw.get("order"))
            if len(read) != expected or not all(math.isfinite(w) for w in read):
                return None
            found.extend(read)
    except (TypeError, ValueError, OverflowError):
        return None
    return tuple(found)


def _beyond(raw: Any, order: Any) -> tuple[tuple[int, tuple[float, ...], float, float], ...] | None:
    """The ``beyond`` part of a reply's readings (:class:`Beyond`, by kind): ``()``
    where there is none, None where it does not read as the worker writes it."""
    if raw is None:
        return ()
    if not isinstance(raw, dict) or len(raw) > MAX_BEYOND:
        return None
    found = []
    try:
        for key, entry in raw.items():
            kind = int(key)
            if (
                not 0 <= kind < GETTIME
                or not isinstance(entry, dict)
                or not isinstance(entry.get("longest"), str)
            ):
                return None
            longest = _doubles(entry["longest"], order)
            scale = 1e-9 if kind % 2 else 1.0
            low, high = float(entry["low"]) * scale, float(entry["high"]) * scale
            stretches = tuple(v * scale for v in longest)
            if len(stretches) > 4096 or not all(math.isfinite(v) and v >= 0 for v in (*stretches, low, high)):
                return None
            found.append((kind, stretches, low, high))
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    return tuple(found)
