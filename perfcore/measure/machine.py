"""What machine the measurements run on: CPU model, caches, SIMD flags, BLAS, versions, physical bounds.

Everything here is read, never assumed: the caches come from sysfs (``/sys/devices/system/cpu/cpu0/cache``)
or, failing that, from ``lscpu`` or macOS's ``sysctl``; the SIMD width from the CPU flags. Nothing here
needs torch: the torch and BLAS parts of :class:`MachineInfo` say "not installed" where they are absent.

The *physical bounds* are what no measurement on one core can exceed, whatever the code does:

- FLOP/s: cores x FP32 SIMD lanes x 2 (an FMA is two FLOP) x 2 FMA units per core (no current core has
  more) x the highest clock the core can run at. The clock is the cpufreq maximum where the kernel gives
  one; otherwise (virtual machines hide it) 6.2 GHz, the highest clock a shipping CPU reaches (so the bound
  stays a bound even under turbo).
- bytes/s at any level of the hierarchy: cores x 256 bytes per cycle (four 64-byte cache-line accesses a
  cycle: two or three loads and one or two stores on current cores) x the same clock.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

#: Where Linux describes the caches of the first CPU.
SYSFS_CACHE_GLOB = "/sys/devices/system/cpu/cpu0/cache/index*"
#: The cpufreq maximum, in kHz, where the kernel exposes it (bare metal; most VMs do not).
SYSFS_MAX_FREQ = "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"
#: The clock assumed for the physical bound when none can be read: the fastest shipping CPU (6.2 GHz).
CLOCK_CAP_HZ = 6.2e9
#: FMA units per core assumed by the bound: two on every current x86 core with wide vectors.
FMA_UNITS = 2
#: Bytes per cycle one core can move at most between its registers and L1 (4 x 64-byte lines).
BYTES_PER_CYCLE = 256
#: The last-level cache assumed when none can be read (and said so in ``MachineInfo.cache_source``).
DEFAULT_LLC_BYTES = 32 * 1024**2
#: The SIMD flags worth recording (the full flag list goes into the profile key only, as a hash).
SIMD_FLAGS = (
    "sse2",
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "avx512f",
    "avx512_bf16",
    "avx512_fp16",
    "avx_vnni",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
    "asimd",
    "neon",
    "sve",
    "sve2",
    "bf16",
    "i8mm",
)


@dataclass(frozen=True)
class CacheLevel:
    """One cache of cpu0: its level (1-3), type (Data, Instruction, Unified), size and sharing."""

    level: int
    type: str
    size_bytes: int
    shared_cpu_list: str = ""


@dataclass(frozen=True)
class MachineInfo:
    """The machine, as far as the measurements care. ``threads`` is what the experiments run with (1)."""

    cpu_model: str
    vendor: str
    architecture: str
    logical_cpus: int
    caches: tuple[CacheLevel, ...]
    cache_source: str
    flags: tuple[str, ...]  # the SIMD flags of SIMD_FLAGS this CPU has
    flags_hash: str  # sha256 of the whole flag list, for the profile key
    fp32_lanes: int  # FP32 numbers one SIMD instruction handles
    has_fma: bool
    clock_hz: float  # nominal/current clock as reported (0 when unknown)
    clock_bound_hz: float  # the clock the physical bound assumes
    clock_source: str
    blas: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    torch_version: str = "not installed"
    torch_blas: str = ""
    torch_cpu_capability: str = ""
    numpy_version: str = ""
    threadpoolctl_version: str = "not installed"
    python_version: str = ""
    platform: str = ""
    threads: int = 1

    @property
    def l1d_bytes(self) -> int:
        return _cache_size(self.caches, 1, ("Data", "Unified"))

    @property
    def l2_bytes(self) -> int:
        return _cache_size(self.caches, 2, ("Unified", "Data"))

    @property
    def llc_bytes(self) -> int:
        """The last-level cache: the largest data or unified cache (the L3 where there is one)."""
        sizes = [c.size_bytes for c in self.caches if c.type in ("Data", "Unified")]
        return max(sizes) if sizes else DEFAULT_LLC_BYTES

    def peak_flops_bound(self, cores: int = 1) -> float:
        """FLOP/s no FP32 code on ``cores`` cores can exceed (see the module docstring)."""
        flop_per_lane = 2 if self.has_fma else 1
        return cores * self.fp32_lanes * flop_per_lane * FMA_UNITS * self.clock_bound_hz

    def bandwidth_bound(self, cores: int = 1) -> float:
        """Bytes/s no code on ``cores`` cores can move, even from L1."""
        return cores * BYTES_PER_CYCLE * self.clock_bound_hz

    def bounds_explained(self) -> dict[str, str]:
        ghz = self.clock_bound_hz / 1e9
        return {
            "peak_flops": f"1 core x {self.fp32_lanes} FP32 lanes x {2 if self.has_fma else 1} FLOP "
            f"x {FMA_UNITS} FMA units x {ghz:.2f} GHz ({self.clock_source})",
            "bandwidth": f"1 core x {BYTES_PER_CYCLE} bytes/cycle x {ghz:.2f} GHz ({self.clock_source})",
        }

    def identity(self) -> dict[str, Any]:
        """What makes a profile measured here valid: the hardware and the software that measured it."""
        return {
            "cpu_model": self.cpu_model,
            "flags_hash": self.flags_hash,
            "caches": [asdict(c) for c in self.caches],
            "logical_cpus": self.logical_cpus,
            "torch": self.torch_version,
            "numpy": self.numpy_version,
            "blas": sorted(f"{b.get('internal_api')} {b.get('version')}" for b in self.blas),
        }

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["caches"] = [asdict(c) for c in self.caches]
        out["blas"] = [dict(b) for b in self.blas]
        out.update(
            l1d_bytes=self.l1d_bytes,
            l2_bytes=self.l2_bytes,
            llc_bytes=self.llc_bytes,
            peak_flops_bound=self.peak_flops_bound(),
            bandwidth_bound=self.bandwidth_bound(),
            bounds_explained=self.bounds_explained(),
        )
        return out


def _cache_size(caches: tuple[CacheLevel, ...], level: int, types: tuple[str, ...]) -> int:
    for wanted in types:
        for c in caches:
            if c.level == level and c.type == wanted:
                return c.size_bytes
    return 0


def parse_size(text: str) -> int:
    """'48K' -> 49152, '300 MiB' -> 314572800, '2048' -> 2048 (sysfs, lscpu and sysctl spellings)."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([KMG]?)(i?B)?\s*", text.strip(), flags=re.IGNORECASE)
    if not match:
        raise ValueError(f"cannot read a cache size from {text!r}")
    number = float(match.group(1))
    scale = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[match.group(2).upper()]
    return int(number * scale)


def read_sysfs_caches(pattern: str = SYSFS_CACHE_GLOB) -> tuple[CacheLevel, ...]:
    caches = []
    for path in sorted(glob.glob(pattern)):
        try:
            level = int(_read(os.path.join(path, "level")))
            kind = _read(os.path.join(path, "type"))
            size = parse_size(_read(os.path.join(path, "size")))
        except (OSError, ValueError):
            continue
        try:
            shared = _read(os.path.join(path, "shared_cpu_list"))
        except OSError:
            shared = ""
        caches.append(CacheLevel(level, kind, size, shared))
    return tuple(caches)


def read_lscpu_caches() -> tuple[CacheLevel, ...]:
    """``lscpu -C`` (one row per cache, sizes in bytes with -B); empty where lscpu is missing."""
    try:
        out = subprocess.run(
            ["lscpu", "-B", "-C=NAME,ONE-SIZE,TYPE,LEVEL"], capture_output=True, text=True, timeout=5
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    caches = []
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) == 4 and parts[1].isdigit() and parts[3].isdigit():
            caches.append(CacheLevel(int(parts[3]), parts[2], int(parts[1])))
    return tuple(caches)


def read_sysctl_caches() -> tuple[CacheLevel, ...]:
    """macOS: hw.l1dcachesize, hw.l2cachesize, hw.l3cachesize (perflevel0 on Apple silicon)."""
    caches = []
    for level, keys in (
        (1, ("hw.perflevel0.l1dcachesize", "hw.l1dcachesize")),
        (2, ("hw.perflevel0.l2cachesize", "hw.l2cachesize")),
        (3, ("hw.l3cachesize",)),
    ):
        for key in keys:
            value = _sysctl(key)
            if value and value.isdigit() and int(value) > 0:
                caches.append(CacheLevel(level, "Data" if level == 1 else "Unified", int(value)))
                break
    return tuple(caches)


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read().strip()


def _sysctl(key: str) -> str:
    if sys.platform != "darwin":
        return ""
    try:
        return subprocess.run(["sysctl", "-n", key], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _cpuinfo() -> dict[str, str]:
    """The first processor's entry of /proc/cpuinfo (empty elsewhere)."""
    info: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    if info:
                        break
                    continue
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return info


def _lanes(flags: set[str], arch: str) -> int:
    if "avx512f" in flags:
        return 16
    if "avx" in flags or "avx2" in flags:
        return 8
    if arch in ("arm64", "aarch64"):
        # Apple's cores run four 128-bit FMA pipes; counting 4 lanes x FMA_UNITS (2) would undercount them,
        # so the bound takes 8 lanes (four pipes of four as two "units" of eight).
        return 8
    return 4  # SSE


def _clock(info: dict[str, str]) -> tuple[float, float, str]:
    """(reported clock, clock for the bound, where the bound's clock comes from)."""
    reported = 0.0
    try:
        reported = float(info.get("cpu MHz", "0")) * 1e6
    except ValueError:
        pass
    model = info.get("model name", "")
    match = re.search(r"@\s*([\d.]+)\s*GHz", model)
    if match and not reported:
        reported = float(match.group(1)) * 1e9
    try:
        max_khz = float(_read(SYSFS_MAX_FREQ))
        if max_khz > 0:
            return reported, max_khz * 1e3, "cpufreq cpuinfo_max_freq"
    except (OSError, ValueError):
        pass
    if sys.platform == "darwin":
        value = _sysctl("hw.cpufrequency_max")
        if value.isdigit() and int(value) > 0:
            return reported or float(value), float(value), "sysctl hw.cpufrequency_max"
    return (
        reported,
        max(CLOCK_CAP_HZ, reported),
        "no maximum clock readable: 6.2 GHz, the fastest shipping CPU",
    )


def _torch_info() -> tuple[str, str, str]:
    try:
        import torch
    except ImportError:
        return "not installed", "", ""
    config = torch.__config__.show()
    blas = re.search(r"BLAS_INFO=(\w+)", config)
    capability = re.search(r"CPU capability usage:\s*(\S+)", config)
    mkl = re.search(r"Math Kernel Library Version ([\w.\-]+)", config)
    blas_text = blas.group(1) if blas else ""
    if mkl:
        blas_text += f" {mkl.group(1)}"
    return torch.__version__, blas_text.strip(), capability.group(1) if capability else ""


def _blas_info() -> tuple[tuple[dict[str, Any], ...], str]:
    try:
        import threadpoolctl
    except ImportError:
        return (), "not installed"
    keep = ("user_api", "internal_api", "version", "architecture", "threading_layer", "prefix")
    entries = [
        {k: entry.get(k) for k in keep} for entry in threadpoolctl.threadpool_info() if entry.get("user_api")
    ]
    # The order is the order the libraries were loaded in, which varies between runs: sort it.
    info = tuple(
        sorted(entries, key=lambda e: (str(e["user_api"]), str(e["internal_api"]), str(e["prefix"])))
    )
    return info, getattr(threadpoolctl, "__version__", "")


@functools.lru_cache(maxsize=1)
def cache_levels() -> tuple[tuple[CacheLevel, ...], str]:
    """The caches of cpu0 and where they were read (sysfs, lscpu, sysctl), without importing torch."""
    caches, source = read_sysfs_caches(), "sysfs"
    if not caches:
        caches, source = read_lscpu_caches(), "lscpu"
    if not caches:
        caches, source = read_sysctl_caches(), "sysctl"
    if not caches:
        source = f"none readable: the last-level cache is assumed to be {DEFAULT_LLC_BYTES // 1024**2} MiB"
    return caches, source


def page_bytes() -> int:
    """The size of a memory page (4 KiB on most x86 machines, 16 KiB on Apple silicon)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 4096


def available_memory_bytes(meminfo: str = "/proc/meminfo") -> tuple[int | None, str]:
    """Memory a new working set can take without swapping, and where the figure comes from.

    Linux: ``MemAvailable`` (free memory plus the page cache the kernel can drop). Elsewhere half the
    physical memory (macOS keeps no simple "available" figure; half leaves the rest to what already runs).
    ``(None, reason)`` where neither can be read.
    """
    try:
        with open(meminfo, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024, "/proc/meminfo MemAvailable"
    except (OSError, ValueError, IndexError):
        pass
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        if total > 0:
            return total // 2, "half the physical memory"
    except (ValueError, OSError, AttributeError):
        pass
    value = _sysctl("hw.memsize")
    if value.isdigit():
        return int(value) // 2, "half of sysctl hw.memsize"
    return None, "no memory figure readable"


def cpu_model(info: dict[str, str] | None = None) -> str:
    """The CPU's name: /proc/cpuinfo on Linux, sysctl on macOS, else what the platform says."""
    info = _cpuinfo() if info is None else info
    model = info.get("model name") or info.get("Model") or _sysctl("machdep.cpu.brand_string")
    return model or platform.processor() or platform.machine() or "unknown CPU"


def machine_info() -> MachineInfo:
    """Read the machine once per process (cheap, but every experiment asks)."""
    import numpy as np

    info = _cpuinfo()
    arch = platform.machine()
    model = cpu_model(info)
    vendor = info.get("vendor_id", "") or ("Apple" if sys.platform == "darwin" and arch == "arm64" else "")
    all_flags = set((info.get("flags") or info.get("Features") or "").split())
    if sys.platform == "darwin" and arch == "arm64":
        all_flags |= {"asimd", "neon"}
    caches, source = cache_levels()
    clock, bound, clock_source = _clock(info)
    torch_version, torch_blas, capability = _torch_info()
    blas, tpc_version = _blas_info()
    return MachineInfo(
        cpu_model=model,
        vendor=vendor,
        architecture=arch,
        logical_cpus=os.cpu_count() or 1,
        caches=caches,
        cache_source=source,
        flags=tuple(f for f in SIMD_FLAGS if f in all_flags),
        flags_hash=hashlib.sha256(" ".join(sorted(all_flags)).encode()).hexdigest()[:16],
        fp32_lanes=_lanes(all_flags, arch),
        has_fma=bool(all_flags & {"fma", "avx512f", "asimd", "neon"}) or arch in ("arm64", "aarch64"),
        clock_hz=clock,
        clock_bound_hz=bound,
        clock_source=clock_source,
        blas=blas,
        torch_version=torch_version,
        torch_blas=torch_blas,
        torch_cpu_capability=capability,
        numpy_version=np.__version__,
        threadpoolctl_version=tpc_version,
        python_version=platform.python_version(),
        platform=platform.platform(),
    )


def describe(machine: MachineInfo | None = None) -> str:
    """One paragraph: the CPU, its caches and the software, as the tables' heading."""
    m = machine or machine_info()
    caches = ", ".join(
        f"L{c.level}{'d' if c.type == 'Data' else ''} {_human(c.size_bytes)}"
        for c in m.caches
        if c.type != "Instruction"
    )
    blas = "; ".join(
        f"numpy: {b.get('internal_api')} {b.get('version')}" for b in m.blas if b.get("user_api") == "blas"
    )
    return (
        f"{m.cpu_model} ({m.architecture}, {m.logical_cpus} logical CPUs, {m.fp32_lanes} FP32 lanes"
        f"{', FMA' if m.has_fma else ''}); caches {caches or 'unknown'} ({m.cache_source}); "
        f"torch {m.torch_version} ({m.torch_blas or 'BLAS ?'}, {m.torch_cpu_capability or '?'}); "
        f"numpy {m.numpy_version} ({blas or 'BLAS ?'}); {m.threads} thread"
    )


def _human(n: float) -> str:
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            value = n / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n:.0f} B"


def to_json(machine: MachineInfo) -> str:
    return json.dumps(machine.to_dict(), indent=2, sort_keys=True)
