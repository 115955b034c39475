"""The machine profile: measured once, cached as JSON under a key, refreshed on request, robust to corrupt
files and to concurrent writers."""

from __future__ import annotations

import dataclasses
import json
import math
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="perfcore.measure needs torch (pip install perfkit[torch])")

from perfcore.measure import profile as prof  # noqa: E402
from perfcore.measure.machine import machine_info  # noqa: E402

TINY = {"copy_bytes": 1 << 20, "matmul_n": 64, "repeats": 3, "duration_s": 0.0}
ROOT = Path(__file__).resolve().parents[2]
#: The real calm_now: the autouse fixture below replaces it in the module for every test.
calm_now_real = prof.calm_now


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PERFKIT_REFRESH_PROFILE", raising=False)
    # a profile measured busy (this machine's load, whatever it is) is measured again only where a test says
    # the machine is calm: the counts of measurements below do not follow the machine's load
    monkeypatch.setattr(prof, "calm_now", lambda sample_s=prof.CALM_SAMPLE_S: False)


@pytest.fixture
def counted(monkeypatch):
    """measure_profile, counting its calls."""
    real = prof.measure_profile
    calls = []

    def measure(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(prof, "measure_profile", measure)
    return calls


def test_cache_dir_order(monkeypatch, tmp_path):
    monkeypatch.setenv("PERFKIT_CACHE_DIR", str(tmp_path / "explicit"))
    assert prof.cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("PERFKIT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert prof.cache_dir() == tmp_path / "xdg" / "perfkit"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert prof.cache_dir() == tmp_path / "home" / ".cache" / "perfkit"


def test_measured_once_then_read_from_the_cache(counted):
    first = prof.machine_profile(**TINY)
    assert not first.from_cache and Path(first.path).is_file()
    assert first.bandwidth_path in ("torch copy_", "np.copyto")
    assert first.peak_path in ("torch.mm", "np.matmul")
    assert first.bandwidth_bytes_per_s == max(
        c["best_rate"] for n, c in first.candidates.items() if c["unit"] == "byte"
    )
    assert first.peak_flops == max(c["best_rate"] for c in first.candidates.values() if c["unit"] == "FLOP")
    second = prof.machine_profile(**TINY)
    assert second.from_cache and len(counted) == 1
    assert second.peak_flops == first.peak_flops and second.ridge == pytest.approx(first.ridge)
    data = json.loads(Path(first.path).read_text())
    for key in ("bandwidth_bytes_per_s", "bandwidth_path", "peak_flops", "peak_path", "machine", "key"):
        assert key in data
    assert data["machine"]["cpu_model"] == machine_info().cpu_model


def test_refresh_by_argument_and_by_environment(counted, monkeypatch):
    prof.machine_profile(**TINY)
    prof.machine_profile(refresh=True, **TINY)
    assert len(counted) == 2
    monkeypatch.setenv("PERFKIT_REFRESH_PROFILE", "1")
    prof.machine_profile(**TINY)
    assert len(counted) == 3


@pytest.mark.parametrize("garbage", ["{not json", "[]", '{"version": 1}', "", '{"version": 999}'])
def test_a_corrupt_file_is_measured_over(counted, garbage):
    first = prof.machine_profile(**TINY)
    Path(first.path).write_text(garbage)
    again = prof.machine_profile(**TINY)
    assert not again.from_cache and len(counted) == 2
    assert json.loads(Path(again.path).read_text())["key"] == first.key


def test_a_non_positive_ceiling_in_the_file_is_refused():
    first = prof.machine_profile(**TINY)
    data = json.loads(Path(first.path).read_text())
    data["peak_flops"] = -1
    Path(first.path).write_text(json.dumps(data))
    assert prof.load_profile(first.path) is None


def test_the_key_follows_the_machine_software_and_method():
    m = machine_info()
    base = prof.profile_key(m, {"copy_bytes": 1, "matmul_n": 2, "repeats": 3})
    assert base == prof.profile_key(m, {"copy_bytes": 1, "matmul_n": 2, "repeats": 3})
    assert base != prof.profile_key(m, {"copy_bytes": 1, "matmul_n": 4, "repeats": 3})
    import dataclasses

    newer = dataclasses.replace(m, torch_version="9.9.9")
    other = dataclasses.replace(m, cpu_model="Another CPU")
    assert (
        len(
            {
                base,
                prof.profile_key(newer, {"copy_bytes": 1, "matmul_n": 2, "repeats": 3}),
                prof.profile_key(other, {"copy_bytes": 1, "matmul_n": 2, "repeats": 3}),
            }
        )
        == 3
    )


def _write(path: str, n: int) -> None:
    os.environ["PERFKIT_CACHE_DIR"] = path
    p = prof.MachineProfile(
        key="k" * 16,
        created="now",
        bandwidth_bytes_per_s=1e10 + n,
        bandwidth_path="torch copy_",
        peak_flops=1e11 + n,
        peak_path="torch.mm",
        candidates={},
        sizes={"n": n},
        machine={"filler": "x" * 200_000},
    )
    for _ in range(20):
        prof.save_profile(p)


def test_concurrent_writers_never_leave_half_a_file(tmp_path):
    folder = str(tmp_path / "race")
    # fork: the writers need nothing of the parent but this module's function, and start in milliseconds
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    procs = [ctx.Process(target=_write, args=(folder, n)) for n in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    files = list(Path(folder).iterdir())
    assert [f.name for f in files] == ["profile-" + "k" * 16 + ".json"]  # no temporary files left behind
    loaded = prof.load_profile(files[0])
    assert loaded is not None and loaded.sizes["n"] in (0, 1, 2)


def test_cli_caches_the_profile_and_refreshes_it(tmp_path, capsys):
    from perfcore.measure.cli import main

    args = ["--tiny", "--only", "tiling_numerics"]
    assert main([*args, "--json", str(tmp_path / "r.json")]) == 0
    assert "profile (measured" in capsys.readouterr().err
    report = json.loads((tmp_path / "r.json").read_text())
    assert set(report["experiments"]) == {"tiling_numerics"}
    assert main(args) == 0
    assert "profile (cached" in capsys.readouterr().err
    assert main([*args, "--refresh"]) == 0
    assert "profile (measured" in capsys.readouterr().err


def test_the_profile_key_is_stable_across_processes(tmp_path):
    # The libraries load in another order in a fresh process (numpy's BLAS before torch's OpenMP here).
    code = "import numpy; from perfcore.measure.machine import machine_info as m; print(repr(m().identity()))"
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert other.stdout.strip() == repr(machine_info().identity())


# ---------------------------------------------------------------------------------------------------------
# the cache levels' copy bandwidths (version 2)


def test_this_machines_cache_levels_are_measured_and_cached(counted):
    from perfcore.measure.levels import level_plan

    first = prof.machine_profile(**TINY)
    assert first.version == prof.PROFILE_VERSION == 2
    assert list(first.level_bandwidths) == [c.level for c in level_plan(machine_info().caches)]
    for level, rate in first.level_bandwidths.items():
        assert math.isfinite(rate) and rate > 0, level
        assert first.levels[level]["bytes_per_s"] == rate
    data = json.loads(Path(first.path).read_text())
    assert data["level_bandwidths"] == first.level_bandwidths
    second = prof.machine_profile(**TINY)
    assert second.from_cache and len(counted) == 1
    assert second.level_bandwidths == first.level_bandwidths and second.levels == first.levels
    assert first.ceilings()["level_bandwidths"] == first.level_bandwidths


@pytest.mark.parametrize("name", ["epyc-32MiB-L3", "xeon-300MiB-L3", "no-readable-L2", "none-readable"])
def test_the_profile_measures_the_levels_the_machine_reports(monkeypatch, name):
    """Other machines' caches, injected; the levels' timing faked (the DRAM ceiling's is real, tiny)."""
    from perfcore.measure import levels
    from tests.perfcore.test_measure_levels import MACHINES, FakeTiming

    found, expected = MACHINES[name]
    machine = dataclasses.replace(machine_info(), caches=found)
    monkeypatch.setattr(prof, "machine_info", lambda: machine)
    fake = FakeTiming({"L2": 8e10, "L3": 4e10})
    monkeypatch.setattr(levels, "compare", fake)
    said = []
    first = prof.machine_profile(progress=said.append, **TINY)
    assert set(first.level_bandwidths) == set(expected)
    assert first.level_bandwidths == pytest.approx({level: fake.rates[level] * 1.1 for level in expected})
    assert {
        level: (v["cache_bytes"], v["working_set_bytes"]) for level, v in first.levels.items()
    } == expected
    assert fake.copied == {
        f"{level} {path}": (ws // 2, ws // 2) for level, (_, ws) in expected.items() for path in levels.PATHS
    }
    assert any("cache level" in line for line in said) == bool(expected)
    again = prof.machine_profile(**TINY)  # read back from the cache
    assert again.from_cache and again.level_bandwidths == first.level_bandwidths


def _version_1(profile: prof.MachineProfile) -> dict:
    """``profile`` as a version-1 file held it: no cache levels."""
    data = profile.to_dict()
    del data["level_bandwidths"], data["levels"]
    return {**data, "version": 1}


def test_an_old_profile_without_the_levels_still_loads_and_is_measured_anew(counted, monkeypatch):
    from grader.reports.html.roofs import DRAM, from_profile

    current = prof.machine_profile(**TINY)
    with monkeypatch.context() as m:  # the key a version-1 profile of this machine had
        m.setattr(prof, "PROFILE_VERSION", 1)
        old_key = prof.profile_key(machine_info(), current.sizes)
    assert old_key != current.key
    old_path = prof.profile_path(old_key)
    old_path.write_text(json.dumps({**_version_1(current), "key": old_key}))
    old = prof.load_profile(old_path)
    assert old is not None and old.version == 1 and old.from_cache
    assert old.level_bandwidths == {} and old.levels == {}
    assert old.bandwidth_bytes_per_s == current.bandwidth_bytes_per_s
    assert set(from_profile(old).bandwidths) == {DRAM}  # the report draws DRAM's roof alone
    # the current version's file gone, the old one does not stand in for it
    Path(current.path).unlink()
    again = prof.machine_profile(**TINY)
    assert not again.from_cache and again.version == 2 and len(counted) == 2
    assert list(again.level_bandwidths) == list(current.level_bandwidths)


@pytest.mark.parametrize(
    "change",
    [
        {"version": True},
        {"version": 3},
        {"level_bandwidths": {"L3": -1}},
        {"level_bandwidths": {"L3": float("nan")}},
        {"level_bandwidths": {"L3": "fast"}},
        {"level_bandwidths": [1e11]},
        {"levels": "L3"},
    ],
)
def test_a_profile_with_odd_levels_is_refused(change):
    first = prof.machine_profile(**TINY)
    data = json.loads(Path(first.path).read_text())
    Path(first.path).write_text(json.dumps({**data, **change}))
    assert prof.load_profile(first.path) is None


def _with_contention(
    profile: prof.MachineProfile, cores: int = 2, **contention: float
) -> prof.MachineProfile:
    return dataclasses.replace(
        profile, machine={**profile.machine, "logical_cpus": cores, "contention": contention}
    )


def test_a_profile_measured_beside_busy_processes_reads_busy():
    """Others' CPU use while it was measured, from its own record: beside two busy loops on 2 vCPUs others
    used 1.5 cores (and the ceilings read half a quiet profile's); a quiet run, 0.01."""
    profile = prof.machine_profile(**TINY)
    assert not _with_contention(profile, other_cpus=0.01, steal=0.0).measured_busy
    assert _with_contention(profile, other_cpus=1.5, steal=0.0).measured_busy
    assert _with_contention(profile, other_cpus=0.0, steal=0.2).measured_busy  # the hypervisor's doing
    assert not _with_contention(profile).measured_busy  # nothing read (no /proc/stat): nothing says busy
    # a larger machine allows an eighth of its cores
    many = _with_contention(profile, cores=64, other_cpus=6.0)
    assert not many.measured_busy and prof.busy_cores(64) == 8.0


@pytest.mark.parametrize(("calm", "measured_again"), [(True, True), (False, False)])
def test_a_cached_busy_profile_is_measured_again_once_the_machine_is_calm(
    counted, monkeypatch, calm, measured_again
):
    first = prof.machine_profile(**TINY)
    busy = _with_contention(first, other_cpus=1.5)
    Path(first.path).write_text(json.dumps(busy.to_dict()))
    assert prof.load_profile(first.path).measured_busy
    monkeypatch.setattr(prof, "calm_now", lambda sample_s=prof.CALM_SAMPLE_S: calm)
    again = prof.machine_profile(**TINY)
    assert (len(counted) == 2) is measured_again
    assert again.from_cache is not measured_again


def test_calm_now_reads_a_busy_loop_as_busy():
    """This machine's /proc/stat over the sample: with a process busy on every core, others keep more than
    half a core busy, whatever else runs here."""
    if not Path("/proc/stat").exists():
        pytest.skip("no /proc/stat on this platform: calm_now reads nothing and says calm")
    cores = os.cpu_count() or 1
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    try:
        time.sleep(0.3)
        assert not calm_now_real(0.5)
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
