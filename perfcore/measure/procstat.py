"""The one reader of Linux's ``/proc/stat``: each CPU's clock ticks since boot, busy and stolen.

perfcore's profile reads the machine's whole line (``cpu``: what else ran while it measured) and the grader's
sandbox (:mod:`grader.sandbox.load`) each CPU's line (``cpu0``, ``cpu1``, ...: what else ran on the measured
core); both read them here, so that "busy" means one thing. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Where the kernel gives the ticks.
PROC_STAT = "/proc/stat"


@dataclass(frozen=True)
class Cpu:
    """One CPU's clock ticks since boot (or the machine's, summed): busy (not idle, not waiting on I/O, not
    stolen) and stolen (the hypervisor gave the CPU to another guest)."""

    busy: int
    steal: int


def cpu_lines(path: str = PROC_STAT) -> dict[str, Cpu]:
    """The ticks of each ``cpu`` line of ``path`` by its name (``"cpu"``, the machine's, and ``"cpu0"``, ...);
    empty where it cannot be read or a line's ticks are not numbers. A line of fewer than five fields is left
    out."""
    lines: dict[str, Cpu] = {}
    try:
        with open(path, encoding="ascii") as fh:
            for line in fh:
                name, *fields = line.split()
                if name.startswith("cpu") and (name == "cpu" or name[3:].isdigit()) and len(fields) >= 5:
                    ticks = [int(f) for f in fields[:8]]
                    steal = ticks[7] if len(ticks) > 7 else 0
                    # user nice system idle iowait irq softirq steal: busy is what is not idle, iowait, steal
                    lines[name] = Cpu(sum(ticks) - ticks[3] - ticks[4] - steal, steal)
    except (OSError, ValueError):
        return {}
    return lines


def per_cpu(path: str = PROC_STAT) -> dict[int, Cpu]:
    """Per CPU (by its number) its ticks; empty where ``path`` cannot be read."""
    return {int(name[3:]): cpu for name, cpu in cpu_lines(path).items() if name != "cpu"}


def machine(path: str = PROC_STAT) -> Cpu | None:
    """The machine's ticks, every CPU's summed (the ``cpu`` line); None where ``path`` cannot be read."""
    return cpu_lines(path).get("cpu")
