"""The machine profile: this machine's two ceilings and its cache levels' copy bandwidths, measured once
and cached as JSON.

The ceilings are the best path the machine has (a best-of, for a peak claim only):

- bandwidth: the best of torch ``copy_`` and ``np.copyto`` over a DRAM working set (4 x the last-level
  cache, two halves copied one into the other), counted as STREAM counts a copy: read + write;
- compute: the best of torch and numpy FP32 matmul (n = 2048 by default; numpy's OpenBLAS can beat
  torch's MKL on AMD chips by a quarter, torch beats numpy on Intel ones),

each with the path that gave it. Each path is timed A B A B against the other, so drift hits both alike.
Then the copy bandwidth of each cache level from the L2 up whose size the machine reports
(``level_bandwidths``: ``{"L2": B/s, "L3": B/s}``, working sets of half the level; :mod:`.levels`), the
roofs a roofline draws for working sets that sit in a cache. A level whose size cannot be read is left
out; a level's figure is kept even where it is no faster than DRAM's (the report draws no roof for it).

The cache lives in ``$PERFKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/perfkit``, else ``~/.cache/perfkit``, one
file per key; the key hashes the CPU model, its flags and caches, the torch, numpy and BLAS versions and
the method (sizes, repeats, PROFILE_VERSION), so a new machine or a new torch measures again. To measure
again anyway: ``machine_profile(refresh=True)``, ``PERFKIT_REFRESH_PROFILE=1``, or ``python -m perfcore
measure --refresh``; or delete the folder. A corrupt or foreign file is measured over; the file is written
to a temporary name and moved into place (``os.replace``), so concurrent writers never leave half a file.
A file of an older version this one reads (:data:`READABLE_VERSIONS`: version 1 has no cache levels) still
loads, without the fields it lacks; :func:`machine_profile` measures anew all the same, the version being
part of the key.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import math
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..validation import positive_int, positive_number
from . import procstat
from .core import (
    Figure,
    MeasurementError,
    check_bandwidth,
    check_flops,
    compare,
    dram_bytes,
    make_bounds,
    split,
    workspace,
)
from .levels import level_plan, measure_levels
from .machine import MachineInfo, machine_info
from .timing import require_torch, single_thread

#: Bump when the method changes, so that cached profiles measured the old way are measured again.
#: 2: the cache levels' copy bandwidths (``level_bandwidths``, ``levels``).
PROFILE_VERSION = 2
#: The versions :meth:`MachineProfile.from_dict` reads (an older one without the fields added since).
READABLE_VERSIONS = (1, 2)
#: Matmul side for the compute ceiling: at the plateau on every machine seen (2048 and 4096 agree within
#: 1% on one core) at an eighth of the time of 4096.
CEILING_MATMUL_N = 2048
CEILING_REPEATS = 7
#: Seconds over which the ceilings' rounds are spread (see measure_profile).
CEILING_SECONDS = 6.0
#: A profile was measured *busy* where other processes kept more than this many cores busy on average
#: while it was measured, or more than :data:`BUSY_SHARE` of the machine's cores on a larger machine (the
#: calm the grader asks of the other cores in a measuring round), or the hypervisor stole more than
#: :data:`BUSY_STEAL` of the time. Its ceilings then read low: beside two busy loops and another grading
#: on a 2-vCPU EPYC, eight profiles read 16-29 GB/s and 53-81 GFLOP/s where a quiet one read 33 and 107,
#: and twice the low copy rate (the DRAM limit) called an honest m4a figure faster than the machine allows.
BUSY_CORES = 0.5
BUSY_SHARE = 0.125
BUSY_STEAL = 0.05
#: Seconds of ``/proc/stat`` read to tell whether the machine is calm now (:func:`calm_now`).
CALM_SAMPLE_S = 0.2


@dataclass(frozen=True)
class MachineProfile:
    """This machine's ceilings (the best path of each) with every path's figures, and the machine."""

    key: str
    created: str
    bandwidth_bytes_per_s: float
    bandwidth_path: str
    peak_flops: float
    peak_path: str
    candidates: dict[str, dict[str, float]]  # path -> best_rate, rate (median), noise, work
    sizes: dict[str, int]
    machine: dict[str, Any]
    from_cache: bool = False
    path: str = ""
    version: int = PROFILE_VERSION
    #: Level name ("L2", "L3") -> copy bytes/s on one core in that level (best path, best block); only the
    #: levels whose size the machine reports; empty in a version-1 profile.
    level_bandwidths: dict[str, float] = field(default_factory=dict)
    #: Level name -> path, cache_bytes, working_set_bytes and each path's figures (``candidates``).
    levels: dict[str, dict[str, Any]] = field(default_factory=dict)
    _derived = ("ridge",)

    @property
    def measured_busy(self) -> bool:
        """Whether other work took enough of the machine while this profile was measured that its ceilings
        may read low (:data:`BUSY_CORES`); False where nothing was read (no ``/proc/stat``)."""
        contention = self.machine.get("contention") or {}
        cores = self.machine.get("logical_cpus") or os.cpu_count() or 1
        others, steal = contention.get("other_cpus"), contention.get("steal")
        return (others is not None and others > busy_cores(cores)) or (
            steal is not None and steal > BUSY_STEAL
        )

    @property
    def ridge(self) -> float:
        """The ridge point (FLOP/byte) of this machine's measured roofline."""
        return self.peak_flops / self.bandwidth_bytes_per_s

    def ceilings(self) -> dict[str, Any]:
        """The JSON ``ceilings`` entry: each ceiling, the path that gave it, the ridge, the candidates."""
        return {
            "bandwidth_bytes_per_s": self.bandwidth_bytes_per_s,
            "bandwidth_path": self.bandwidth_path,
            "peak_flops": self.peak_flops,
            "peak_path": self.peak_path,
            "ridge_flop_per_byte": self.ridge,
            "candidates": self.candidates,
            "level_bandwidths": self.level_bandwidths,
            "levels": self.levels,
            "sizes": self.sizes,
            "measured": self.created,
            "from_cache": self.from_cache,
            "cache_file": self.path,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "key": self.key,
            "created": self.created,
            "bandwidth_bytes_per_s": self.bandwidth_bytes_per_s,
            "bandwidth_path": self.bandwidth_path,
            "peak_flops": self.peak_flops,
            "peak_path": self.peak_path,
            "candidates": self.candidates,
            "sizes": self.sizes,
            "machine": self.machine,
            "level_bandwidths": self.level_bandwidths,
            "levels": self.levels,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], path: str = "") -> MachineProfile:
        """Rebuild a profile from its JSON; ValueError/KeyError/TypeError when anything is off."""
        version = data.get("version")
        if isinstance(version, bool) or version not in READABLE_VERSIONS:
            raise ValueError(f"profile version {version!r}, expected one of {READABLE_VERSIONS}")
        for name in ("bandwidth_bytes_per_s", "peak_flops"):
            _check_rate(name, data[name])
        if not isinstance(data["candidates"], dict) or not isinstance(data["machine"], dict):
            raise TypeError("candidates and machine must be objects")
        # absent from a version-1 profile: read as no level measured
        level_bandwidths, levels = data.get("level_bandwidths", {}), data.get("levels", {})
        if not isinstance(level_bandwidths, dict) or not isinstance(levels, dict):
            raise TypeError("level_bandwidths and levels must be objects")
        for name, value in level_bandwidths.items():
            _check_rate(f"level_bandwidths[{name!r}]", value)
        return cls(
            key=str(data["key"]),
            created=str(data["created"]),
            bandwidth_bytes_per_s=float(data["bandwidth_bytes_per_s"]),
            bandwidth_path=str(data["bandwidth_path"]),
            peak_flops=float(data["peak_flops"]),
            peak_path=str(data["peak_path"]),
            candidates={str(k): dict(v) for k, v in data["candidates"].items()},
            sizes={str(k): int(v) for k, v in data["sizes"].items()},
            machine=dict(data["machine"]),
            from_cache=True,
            path=path,
            version=int(version),
            level_bandwidths={str(k): float(v) for k, v in level_bandwidths.items()},
            levels={str(k): dict(v) for k, v in levels.items()},
        )


def _check_rate(name: str, value: Any) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ValueError(f"{name} = {value!r} is no measured rate")


def measure_profile(
    copy_bytes: int | None = None,
    matmul_n: int = CEILING_MATMUL_N,
    repeats: int = CEILING_REPEATS,
    progress: Callable[[str], None] | None = None,
    duration_s: float = CEILING_SECONDS,
) -> MachineProfile:
    """Measure the two ceilings now (nothing read from or written to the cache).

    ``copy_bytes`` is the size of each of the two copied arrays (default: half the DRAM working set, so
    source and destination together are 4 x the last-level cache). The four paths (two copies, two
    matmuls) are timed in turn, round after round, for at least ``repeats`` rounds and ``duration_s``
    seconds: each ceiling is the best block of its best path, and a shared machine's slow phases (another
    tenant busy on the other core for seconds at a time) are less likely to cover the whole span.

    Then each cache level the machine reports from the L2 up is copied at half its size, both paths A B A B
    in ``repeats`` rounds of 10 ms blocks (:func:`perfcore.measure.levels.measure_levels`; about 0.1 s a
    level): ``level_bandwidths``.
    """
    torch = require_torch()
    import numpy as np

    machine = machine_info()
    copy_bytes = positive_int(
        "copy_bytes", copy_bytes if copy_bytes is not None else dram_bytes(machine) // 2
    )
    matmul_n = positive_int("matmul_n", matmul_n)
    repeats = positive_int("repeats", repeats)
    duration_s = positive_number("duration_s", duration_s, allow_zero=True)
    sizes = {
        "copy_bytes": copy_bytes,
        "matmul_n": matmul_n,
        "repeats": repeats,
        "duration_ms": int(duration_s * 1e3),
    }
    bounds = make_bounds(machine)
    say = progress or (lambda _msg: None)
    load_before = _load()
    usage = _CpuUsage()
    with single_thread():
        n = copy_bytes // 4
        src, dst = split(workspace(2 * n * 4), 2, n)
        src_np, dst_np = src.numpy(), dst.numpy()
        gen = torch.Generator().manual_seed(0)
        a = torch.randn(matmul_n, matmul_n, generator=gen)
        b = torch.randn(matmul_n, matmul_n, generator=gen)
        c = torch.zeros(matmul_n, matmul_n)
        a_np, b_np, c_np = a.numpy(), b.numpy(), c.numpy()
        say(
            f"copy {copy_bytes / 2**20:.0f} MiB (torch copy_, np.copyto) and FP32 matmul n={matmul_n} (torch.mm, "
            f"np.matmul), in turn for {duration_s:.0f} s"
        )
        times = compare(
            {
                "torch copy_": lambda: dst.copy_(src),
                "np.copyto": lambda: np.copyto(dst_np, src_np),
                "torch.mm": lambda: torch.mm(a, b, out=c),
                "np.matmul": lambda: np.matmul(a_np, b_np, out=c_np),
            },
            rounds=repeats,
            min_time_s=duration_s,
        )
    plan = level_plan(machine.caches)
    if plan:
        say(
            "copy in each cache level, source + destination half its size: "
            + ", ".join(f"{c.level} {c.working_set_bytes / 2**20:g} MiB" for c in plan)
        )
    levels = measure_levels(plan, repeats, bounds)
    bw = {
        name: check_bandwidth(
            Figure.from_timing(name, times[name], 2 * n * 4, "byte", "STREAM copy: read + write"),
            bounds,
            2 * n * 4,
            is_ceiling=True,
        )
        for name in ("torch copy_", "np.copyto")
    }
    fl = {
        name: check_flops(
            Figure.from_timing(name, times[name], 2 * matmul_n**3, "FLOP", "2 n^3"), bounds, is_ceiling=True
        )
        for name in ("torch.mm", "np.matmul")
    }
    best_bw = max(bw.values(), key=lambda f: f.best_rate)
    best_fl = max(fl.values(), key=lambda f: f.best_rate)
    candidates = {
        name: {
            "best_rate": f.best_rate,
            "rate": f.rate,
            "noise": f.noise,
            "work": f.work,
            "unit": f.unit,
            "blocks": f.blocks,
        }
        for name, f in {**bw, **fl}.items()
    }
    return MachineProfile(
        key=profile_key(machine, sizes),
        created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        bandwidth_bytes_per_s=best_bw.best_rate,
        bandwidth_path=best_bw.name,
        peak_flops=best_fl.best_rate,
        peak_path=best_fl.name,
        candidates=candidates,  # type: ignore[arg-type]
        sizes=sizes,
        level_bandwidths={name: level["bytes_per_s"] for name, level in levels.items()},
        levels=levels,
        machine={
            **machine.to_dict(),
            "load_average": {"before": load_before, "after": _load()},
            "contention": usage.stop(),
        },
    )


class _CpuUsage:
    """What else ran while the profile was measured: other processes' CPU use and the hypervisor's steal.

    ``other_cpus``: CPU-seconds per second used by everything but this process (1.0 = one other core kept
    busy); ``steal``: the fraction of time the hypervisor ran someone else on this machine's CPUs. Read from
    /proc/stat (:func:`.procstat.machine`); empty where there is none.
    """

    def __init__(self) -> None:
        self.start = (time.perf_counter(), time.process_time(), procstat.machine())

    def stop(self) -> dict[str, float]:
        wall0, cpu0, stat0 = self.start
        wall, cpu, stat = time.perf_counter() - wall0, time.process_time() - cpu0, procstat.machine()
        if stat0 is None or stat is None or wall <= 0:
            return {}
        tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        busy = (stat.busy - stat0.busy) / tick
        steal = (stat.steal - stat0.steal) / tick
        return {
            "other_cpus": round(max(0.0, busy - cpu) / wall, 3),
            "steal": round(steal / wall / max(1, os.cpu_count() or 1), 4),
            "seconds": round(wall, 2),
        }


def busy_cores(cores: int) -> float:
    """How many cores others may keep busy, on a machine of ``cores``, before a measurement counts as busy."""
    return max(BUSY_CORES, BUSY_SHARE * cores)


def calm_now(sample_s: float = CALM_SAMPLE_S) -> bool:
    """Whether other processes keep at most :func:`busy_cores` cores busy now, over ``sample_s`` seconds of
    ``/proc/stat``; True where it cannot be read (nothing says the machine is busy)."""
    usage = _CpuUsage()
    time.sleep(sample_s)
    others = usage.stop().get("other_cpus")
    return others is None or others <= busy_cores(os.cpu_count() or 1)


def _load() -> list[float]:
    """The 1, 5 and 15 minute load averages (other work on the machine while it was measured)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return []


def profile_key(machine: MachineInfo, sizes: dict[str, int]) -> str:
    """16 hex digits of sha256 over the machine's identity, the software versions and the method."""
    text = json.dumps(
        {"machine": machine.identity(), "sizes": sizes, "version": PROFILE_VERSION}, sort_keys=True
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_dir() -> Path:
    """$PERFKIT_CACHE_DIR, else $XDG_CACHE_HOME/perfkit, else ~/.cache/perfkit."""
    explicit = os.environ.get("PERFKIT_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "perfkit"


def profile_path(key: str) -> Path:
    return cache_dir() / f"profile-{key}.json"


def load_profile(path: Path | str) -> MachineProfile | None:
    """The profile stored at ``path``, or None when it is missing, unreadable, corrupt or of another key."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        profile = MachineProfile.from_dict(data, str(path))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if path.name != f"profile-{profile.key}.json":
        return None
    return profile


def save_profile(profile: MachineProfile) -> Path:
    """Write atomically: a temporary file in the same folder, then os.replace."""
    path = profile_path(profile.key)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".profile-", suffix=".json.tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(profile.to_dict(), fh, indent=2, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def refresh_requested() -> bool:
    return os.environ.get("PERFKIT_REFRESH_PROFILE", "").strip().lower() in ("1", "true", "yes", "on")


def machine_profile(
    refresh: bool = False,
    progress: Callable[[str], None] | None = None,
    copy_bytes: int | None = None,
    matmul_n: int = CEILING_MATMUL_N,
    repeats: int = CEILING_REPEATS,
    duration_s: float = CEILING_SECONDS,
) -> MachineProfile:
    """This machine's profile: from the cache when a valid one is there, else measured and cached.

    ``refresh=True`` (or PERFKIT_REFRESH_PROFILE=1) measures again and overwrites the cached file. A cached
    profile measured busy (:attr:`MachineProfile.measured_busy`) is measured again once the machine is calm
    (:func:`calm_now`), so that a first run beside other work does not leave low ceilings for good.
    """
    machine = machine_info()
    sizes = _sizes(machine, copy_bytes, matmul_n, repeats, duration_s)
    path = profile_path(profile_key(machine, sizes))
    if not (refresh or refresh_requested()):
        cached = load_profile(path)
        if cached is not None and not (cached.measured_busy and calm_now()):
            return cached
    profile = measure_profile(
        sizes["copy_bytes"], sizes["matmul_n"], sizes["repeats"], progress, sizes["duration_ms"] / 1e3
    )
    try:
        written = save_profile(profile)
    except OSError as exc:  # a read-only home still gets its numbers, just not cached
        if progress:
            progress(f"profile not cached ({exc})")
        return profile
    return dataclasses.replace(profile, path=str(written))


def _sizes(
    machine: MachineInfo,
    copy_bytes: int | None = None,
    matmul_n: int = CEILING_MATMUL_N,
    repeats: int = CEILING_REPEATS,
    duration_s: float = CEILING_SECONDS,
) -> dict[str, int]:
    """The sizes a profile is measured with (part of its cache key)."""
    return {
        "copy_bytes": positive_int(
            "copy_bytes", copy_bytes if copy_bytes is not None else dram_bytes(machine) // 2
        ),
        "matmul_n": positive_int("matmul_n", matmul_n),
        "repeats": positive_int("repeats", repeats),
        "duration_ms": int(positive_number("duration_s", duration_s, allow_zero=True) * 1e3),
    }


def current_profile_key() -> str:
    """The key of the profile :func:`machine_profile` would return here (its identity: the machine, the
    software versions and the method), read without measuring anything."""
    machine = machine_info()
    return profile_key(machine, _sizes(machine))


def cached_profile() -> MachineProfile | None:
    """The profile :func:`machine_profile` would return from its cache, or None where none is cached: it
    never measures (a report drawn after grading must not spend seconds measuring the machine)."""
    return load_profile(profile_path(current_profile_key()))


@dataclass(frozen=True)
class Ceilings:
    """Two ceilings without a profile (a test, a GPU): FLOP/s and bytes/s and where they came from."""

    peak_flops: float
    bandwidth_bytes_per_s: float
    peak_path: str = "given"
    bandwidth_path: str = "given"
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        positive_number("peak_flops", self.peak_flops)
        positive_number("bandwidth_bytes_per_s", self.bandwidth_bytes_per_s)

    @property
    def ridge(self) -> float:
        return self.peak_flops / self.bandwidth_bytes_per_s


__all__ = [
    "Ceilings",
    "MachineProfile",
    "MeasurementError",
    "PROFILE_VERSION",
    "READABLE_VERSIONS",
    "cache_dir",
    "cached_profile",
    "current_profile_key",
    "load_profile",
    "machine_profile",
    "measure_profile",
    "profile_key",
    "profile_path",
    "save_profile",
]
