"""This machine's measured ceilings as the grader may use them: its profile
(:func:`perfcore.measure.profile.machine_profile`) where that was measured on a calm machine.

The profile's copy rate and matmul peak are best-ofs, and twice them are the DRAM and compute limits that a
figure, or a call's work, may not beat (the bound rule and the Work floor). A profile measured beside other
work reads them low: beside two busy loops and another grading on a 2-vCPU EPYC, eight profiles read 16-29
GB/s and 53-81 GFLOP/s where a quiet one read 33 and 107, and an honest m4a figure (23 passes of 162 MB in
0.204 s) was called faster than the machine allows (0.209 s). Such a profile
(:attr:`~perfcore.measure.profile.MachineProfile.measured_busy`) is not evidence: the physical bounds alone
apply, as where no profile can be had, until perfcore measures it again on a calm machine. Where every span
is read as quiet (``PERFKIT_LOAD=quiet``, the kit's own tests) the profile is read as calm too.
"""

from __future__ import annotations

from perfcore.measure.profile import MachineProfile, machine_profile

from ..sandbox import load


def evidence_profile() -> MachineProfile | None:
    """This machine's profile (measured once, cached) where its ceilings are evidence; None where none can
    be had, or where it was measured busy."""
    try:
        profile = machine_profile()
    except Exception:  # noqa: BLE001 - no profile: the physical bounds alone, which are looser
        return None
    if profile.measured_busy and load.source() != load.QUIET:
        return None
    return profile
