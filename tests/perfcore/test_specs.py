"""The GPU specs themselves: every number cites a document, and the units hold against what the hardware
reports (HBM capacities in GiB, L2 in MiB), so that a unit mix-up fails here before it moves a "fits"."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

import perfcore as pc
from perfcore import A100, B200, H100, H200, LLAMA3_8B, GiB, KiB, MiB
from perfcore.specs import HBM_RESERVED_BYTES, SOURCED_FIELDS

#: What CUDA reports as the total memory of each part (torch.cuda.get_device_properties().total_memory,
#: also the "total capacity" of torch's out-of-memory message), in GiB: observations, not perfcore's numbers.
REPORTED_TOTAL_GIB = {"A100": 79.25, "H100": 79.11, "H200": 139.80, "B200": 178.35}

#: What cudaDeviceProp.l2CacheSize reports, in MiB.
REPORTED_L2_MIB = {"A100": 40, "H100": 50, "H200": 60, "B200": 126.5}


@pytest.mark.parametrize("gpu", pc.GPUS.values(), ids=list(pc.GPUS))
def test_every_number_cites_a_document_and_its_version_or_year(gpu):
    assert set(gpu.sources) == set(SOURCED_FIELDS)
    for name, source in gpu.sources.items():
        assert getattr(gpu, name), name  # a sourced field holds a number (or a table of them)
        dated_document = re.search(r"NVIDIA|CUDA", source) and re.search(r"\((?:[^()]*, )?20\d\d\)", source)
        assert dated_document or "device query" in source, (gpu.name, name, source)
        assert "third part" not in source, (gpu.name, name, source)


def test_b200_cache_and_shared_memory_cite_the_blackwell_tuning_guide():
    for name in ("l2_bytes", "sram_bytes_per_sm"):
        assert "Blackwell Tuning Guide" in B200.sources[name]
    assert (B200.l2_bytes, B200.sram_bytes_per_sm) == (126 * MiB, 228 * KiB)


@pytest.mark.parametrize("gpu", pc.GPUS.values(), ids=list(pc.GPUS))
def test_hbm_capacity_is_gib_as_the_hardware_reports_it(gpu):
    reported = REPORTED_TOTAL_GIB[gpu.name] * GiB
    nominal = gpu.hbm_bytes / GiB
    assert nominal == int(nominal)  # the vendors' whole "GB" figure, in GiB
    # CUDA can never report more than the part holds, and it reports far more than the figure in 1e9 bytes:
    # read as 1e9 bytes, every capacity here would be 7% too small.
    assert nominal * 1e9 < reported <= gpu.hbm_bytes
    # What a process can fill is less than what CUDA reports (its own context comes out of that).
    assert gpu.usable_hbm_bytes < reported
    assert gpu.usable_hbm_bytes == gpu.hbm_bytes - HBM_RESERVED_BYTES


def test_hbm_stacks_bound_the_capacities():
    # 16 GiB HBM2e/HBM3 stacks, five active on the A100 and the H100; 24 GiB HBM3e stacks, six on the H200
    # (141 of 144 GiB exposed) and eight on the B200 (180 of 192 GiB exposed).
    assert A100.hbm_bytes == H100.hbm_bytes == 5 * 16 * GiB
    assert 5 * 24 * GiB < H200.hbm_bytes <= 6 * 24 * GiB
    assert 7 * 24 * GiB < B200.hbm_bytes <= 8 * 24 * GiB


@pytest.mark.parametrize("gpu", pc.GPUS.values(), ids=list(pc.GPUS))
def test_l2_is_what_a_device_query_reports(gpu):
    assert gpu.l2_bytes / MiB == pytest.approx(REPORTED_L2_MIB[gpu.name], abs=0.5)


def test_h200_has_all_of_gh100s_l2_and_h100_five_sixths_of_it():
    # One L2 share per HBM stack: the H100 SXM5 has five of GH100's six stacks enabled, the H200 all six.
    assert H200.l2_bytes == 60 * MiB
    assert H100.l2_bytes * 6 == H200.l2_bytes * 5


def _with_bytes(weights: float, kv: float = 0.0):
    step = pc.step_estimate(LLAMA3_8B, H100, batch=1, q_len=1, kv_len=1)
    return replace(step, weight_bytes=weights, kv_cache_bytes=kv)


def test_fits_reads_the_capacity_in_gib_not_gb():
    # 82e9 bytes (76.4 GiB) fit in an 80 GiB H100; they would not if its "80 GB" were read as 80e9 bytes.
    assert 82e9 > 80e9 and _with_bytes(82e9).fits_in_memory
    # A model of exactly 80e9 bytes fits; one of 80 GiB (85.9e9 bytes) does not: the driver keeps a part.
    assert _with_bytes(80e9).fits_in_memory
    assert not _with_bytes(80 * GiB).fits_in_memory
    assert not _with_bytes(H100.usable_hbm_bytes + 1).fits_in_memory
    assert _with_bytes(H100.usable_hbm_bytes - 1024, kv=1024).fits_in_memory


def test_lectures_batch_256_is_under_80_gib_but_does_not_fit():  # §6.2: "64 GiB + 15 GiB do not fit"
    d256 = pc.step_estimate(LLAMA3_8B, H100, batch=256, q_len=1, kv_len=2048)
    needed = d256.weight_bytes + d256.kv_cache_bytes
    assert d256.kv_cache_bytes == 64 * GiB and d256.weight_bytes / GiB == pytest.approx(15, abs=0.05)
    # Under the 80 GiB on paper, over what CUDA hands a process: the lecture's "does not fit" holds.
    assert H100.usable_hbm_bytes < needed < H100.hbm_bytes
    # With a CUDA context (a few hundred MiB, surely more than 0.25 GiB) it exceeds what CUDA reports.
    assert needed + 0.25 * GiB > REPORTED_TOTAL_GIB["H100"] * GiB
    assert not d256.fits_in_memory
    assert pc.step_estimate(LLAMA3_8B, H100, batch=128, q_len=1, kv_len=2048).fits_in_memory
