"""The Slurm recipe of docs/instructors.md, run as written on a one-node Slurm cluster started here.

The test takes the two marked blocks out of the guide (``<!-- slurm-job -->``, the job script, and
``<!-- slurm-submit -->``, the commands that submit it and the merge), replaces only the paths and N
(8 shards become 3), submits them, waits for every job, and compares the merged grades with one unsharded
run of the same command: ``grades.csv`` byte for byte, ``grades.json`` equal but for the fields that
belong to one run.

The cluster is Debian's ``slurm-wlm`` and ``munge`` (``.ci/run`` installs them; under CI a machine without them fails rather than skips): munged with a key of its
own, slurmctld and slurmd in the foreground, every one of them started by this test, with a
configuration written here whose every address is 127.0.0.1, so no traffic leaves the loopback whatever
the host name resolves to. The node is declared with 8 CPUs and 64 GiB (``config_overrides``) so that the
recipe's ``--cpus-per-task=8 --mem=32G`` fit as written on any machine; the tasks then run one at a time.
Jobs are submitted as ``nobody`` where that user can run this interpreter, else as the test's own user
(the test says which). Every daemon is stopped by its PID at the end, and every job cancelled.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.batch.shard import shard_of
from grader.course.release import readme_block
from tests.grader.batch.helpers import ROOT, _json, _shard_submissions, _without_times

GUIDE = ROOT / "docs" / "instructors.md"
DAEMONS = ("munged", "munge", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo")
#: How long the whole array and its merge may take: 3 shards of 7 formula students, one task at a time.
JOBS_TIMEOUT_S = 600
#: The GPU device file the node offers as its one gres (None: no GPU here, and the GPU recipe runs without
#: its --gres line, m6 deferring).
GPU = next((f"/dev/nvidia{i}" for i in range(8) if os.path.exists(f"/dev/nvidia{i}")), None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(what: str, ready, timeout_s: float, logs: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while not ready():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not come up in {timeout_s:.0f} s; logs:\n{_tails(logs)}")
        time.sleep(0.2)


def _tails(folder: Path, chars: int = 3000) -> str:
    parts = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in {".log", ".out"}:
            parts.append(f"--- {path.name}\n{path.read_text(errors='replace')[-chars:]}")
    return "\n".join(parts)


class Cluster:
    """munged, slurmctld and slurmd, started in ``base``; ``env`` points the Slurm commands at them."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs = base / "log"
        self.logs.mkdir()
        self.host = socket.gethostname().split(".")[0]
        self.conf = base / "slurm.conf"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}

    def _start(self, name: str, cmd: list[str]) -> None:
        out = (self.logs / f"{name}.out").open("wb")
        self.procs.append(subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=self.env))

    def start(self) -> None:
        munge = self.base / "munge"
        munge.mkdir(mode=0o700)
        key = munge / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        sock_dir = self.base / "munge-socket"
        sock_dir.mkdir(mode=0o755)
        sock = sock_dir / "munge.socket"
        self._start(
            "munged",
            ["munged", "--foreground", "--force", f"--key-file={key}", f"--socket={sock}",
             f"--log-file={self.logs / 'munged.log'}", f"--pid-file={munge / 'munged.pid'}",
             f"--seed-file={munge / 'munged.seed'}"],
        )  # fmt: skip
        _wait_for("munged", sock.exists, 30, self.logs)
        for folder in ("state", "spool"):
            (self.base / folder).mkdir()
        self.conf.write_text(
            "\n".join(
                [
                    "ClusterName=perfkit",
                    f"SlurmctldHost={self.host}(127.0.0.1)",
                    "SlurmUser=root",
                    "SlurmdUser=root",
                    f"SlurmctldPort={_free_port()}",
                    f"SlurmdPort={_free_port()}",
                    "AuthType=auth/munge",
                    "CredType=cred/munge",
                    f"AuthInfo=socket={sock}",
                    f"StateSaveLocation={self.base / 'state'}",
                    f"SlurmdSpoolDir={self.base / 'spool'}",
                    f"SlurmctldPidFile={self.base / 'slurmctld.pid'}",
                    f"SlurmdPidFile={self.base / 'slurmd.pid'}",
                    f"SlurmctldLogFile={self.logs / 'slurmctld.log'}",
                    f"SlurmdLogFile={self.logs / 'slurmd.log'}",
                    "ProctrackType=proctrack/linuxproc",
                    "TaskPlugin=task/none",
                    "JobAcctGatherType=jobacct_gather/none",
                    "AccountingStorageType=accounting_storage/none",
                    "JobCompType=jobcomp/none",
                    "SchedulerType=sched/builtin",
                    "SelectType=select/cons_tres",
                    "SelectTypeParameters=CR_Core",
                    # the recipe's 8 CPUs and 32G as written, on a machine of any size
                    "SlurmdParameters=config_overrides",
                    "MpiDefault=none",
                    "ReturnToService=2",
                    *(["GresTypes=gpu"] if GPU else []),
                    f"NodeName={self.host} NodeAddr=127.0.0.1 CPUs=8 RealMemory=65536 State=UNKNOWN"
                    + (" Gres=gpu:1" if GPU else ""),
                    f"PartitionName=grading Nodes={self.host} Default=YES MaxTime=INFINITE State=UP",
                    f"PartitionName=gpu Nodes={self.host} MaxTime=INFINITE State=UP",
                    "",
                ]
            )
        )
        if GPU:
            (self.base / "gres.conf").write_text(f"Name=gpu File={GPU}\n")
        self._start("slurmctld", ["slurmctld", "-D", "-i"])
        self._start("slurmd", ["slurmd", "-D"])

        def idle() -> bool:
            out = subprocess.run(
                ["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=self.env, check=False
            ).stdout
            return out.strip() == "idle"

        _wait_for("the Slurm node", idle, 60, self.logs)

    def jobs(self) -> list[str]:
        out = subprocess.run(
            ["squeue", "-h", "-o", "%i %T %r"], capture_output=True, text=True, env=self.env, check=False
        )
        return [line for line in out.stdout.splitlines() if line.strip()]

    def stop(self) -> None:
        """Cancel every job, then stop each daemon this test started, by its PID."""
        subprocess.run(["scancel", "--partition=grading"], env=self.env, capture_output=True, check=False)
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def _missing() -> str | None:
    absent = [name for name in DAEMONS if shutil.which(name) is None]
    if absent:
        return f"Slurm cannot start here: {', '.join(absent)} not installed (Debian: slurm-wlm, munge)"
    if os.geteuid() != 0:
        return "Slurm cannot start here: slurmd must run as root to start jobs as their users"
    return None


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    why = _missing()
    if why and os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{why}; CI must run the recipe (.ci/run installs the packages)")
    if why:
        pytest.skip(why)
    base = Path(tempfile.mkdtemp(prefix="perfkit-slurm-"))
    base.chmod(0o755)  # the jobs' user reads the submissions and writes the submit folder below it
    running = Cluster(base)
    try:
        running.start()
        yield running
    finally:
        running.stop()
        shutil.rmtree(base, ignore_errors=True)


def _job_user() -> tuple[list[str], str]:
    """The command prefix that runs as the jobs' user, and who that is."""
    runuser = shutil.which("runuser")
    if runuser:
        probe = subprocess.run([runuser, "-u", "nobody", "--", "test", "-x", sys.executable], check=False)
        if probe.returncode == 0:
            return [runuser, "-u", "nobody", "--"], "nobody"
    return [], f"uid {os.geteuid()} (nobody cannot run {sys.executable})"


def _recipe(block: str, paths: dict[str, str]) -> str:
    """``block`` with the guide's paths and N replaced; each replacement must be there to make."""
    for old, new in paths.items():
        assert old in block, f"the Slurm recipe no longer has {old!r}: update this test with the guide"
        block = block.replace(old, new)
    assert "/shared/" not in block, block
    return block


def _submit_and_wait(
    cluster: Cluster, commands: str, submit: Path, env: dict[str, str], as_user: list[str]
) -> None:
    """Run the guide's submit block in ``submit`` as the jobs' user, then wait until no job is left."""
    proc = subprocess.run(
        [*as_user, "bash", "-euo", "pipefail", "-c", commands],
        capture_output=True,
        text=True,
        env=env,
        cwd=submit,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    deadline = time.monotonic() + JOBS_TIMEOUT_S
    while cluster.jobs():
        stuck = [j for j in cluster.jobs() if "DependencyNeverSatisfied" in j]
        assert not stuck and time.monotonic() < deadline, f"{cluster.jobs()}\n{_tails(cluster.base)}"
        time.sleep(1)
    assert (submit / "grades" / "grades.csv").exists(), _tails(cluster.base)


def _folders(base: Path, name: str) -> tuple[Path, Path, dict[str, str]]:
    """The submit folder and HOME of one recipe's run, writable by the jobs' user, and its environment."""
    submit, home = base / name, base / f"{name}-home"
    for folder in (submit, home):
        folder.mkdir()
        folder.chmod(0o777)
    return submit, home, {"HOME": str(home)}


def test_the_guides_slurm_recipe_grades_as_one_run(cluster: Cluster) -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    base = cluster.base
    subs = _shard_submissions(base / "submissions")
    submit, _, home_env = _folders(base, "grading")
    python = {"/shared/perfkit/.venv/bin/python": sys.executable}
    job = _recipe(
        readme_block(guide, "slurm-job", "docs/instructors.md"),
        python | {"/shared/submissions": str(subs), "--array=1-8": "--array=1-3", '/8"': '/3"'},
    )
    (submit / "grade.sbatch").write_text(job + "\n", encoding="utf-8")
    commands = _recipe(
        readme_block(guide, "slurm-submit", "docs/instructors.md"), python | {"/shared/grading": str(submit)}
    )
    as_user, who = _job_user()
    print(f"submitting the recipe as {who}")
    env = {**cluster.env, **home_env}
    _submit_and_wait(cluster, commands, submit, env, as_user)
    grades = submit / "grades"
    logs = sorted(p.name for p in (submit / "logs").iterdir())
    assert len([n for n in logs if n.startswith("grade-")]) == 3 and any(n.startswith("merge-") for n in logs)

    # one unsharded run of the job script's own command, as the same user, for comparison
    whole = submit / "whole"
    command = " ".join(line.rstrip("\\").strip() for line in job.splitlines() if not line.startswith("#"))
    one = _recipe(
        command,
        {
            '--shard "$SLURM_ARRAY_TASK_ID/3" ': "",
            '"out/$SLURM_ARRAY_TASK_ID"': str(whole),
            '"$SLURM_CPUS_PER_TASK"': "8",
        },
    )
    # with a task's allotment: a task's children share its --mem, and outside Slurm the machine's memory, so a
    # machine smaller than --mem with a large cache (a 480 MiB L3 asks for GiB-sized copies) would meet the
    # measurement checks' memory needs in the tasks and not in this run
    mem = re.search(r"--mem=(\d+)G", job)
    assert mem is not None, job
    allotted = {**env, "SLURM_MEM_PER_NODE": str(int(mem[1]) * 1024)}
    run = subprocess.run(
        [*as_user, "bash", "-euo", "pipefail", "-c", one],
        capture_output=True,
        text=True,
        env=allotted,
        cwd=submit,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert (grades / "grades.csv").read_bytes() == (whole / "grades.csv").read_bytes()
    merged, alone = _json(grades / "grades.json"), _json(whole / "grades.json")
    shards = merged.pop("shards")
    assert [(s["index"], s["count"]) for s in shards] == [(1, 3), (2, 3), (3, 3)]
    assert merged.pop("missing_shards") == []
    merged.pop("elapsed_s")
    alone.pop("elapsed_s")
    # each child's memory is its share of the job's --mem=32G, not of this machine's memory
    assert merged.pop("limits")["memory_bytes"] == 32 * 2**30 // 8
    alone.pop("limits")
    assert _without_times(merged) == _without_times(alone)


def test_the_guides_gpu_recipe_grades_m6_apart_and_merges_one_grade(cluster: Cluster) -> None:
    """The CPU exercises in an array of 3, m6 in a job of its own on the gpu partition, one merge: the
    grades of one run of every exercise. Where the machine has no GPU the GPU job's --gres line is left
    out (the only change beyond the paths and N) and m6 defers; where it has one, the node offers it."""
    guide = GUIDE.read_text(encoding="utf-8")
    base = cluster.base
    subs = _shard_submissions(base / "gpu-submissions")
    shutil.copy(ROOT / "solutions" / "m6_gpu.py", subs / "right_1")
    subs.chmod(0o755)
    submit, _, home_env = _folders(base, "gpu-grading")
    python = {"/shared/perfkit/.venv/bin/python": sys.executable}
    shared = python | {"/shared/submissions": str(subs)}
    cpu_job = _recipe(
        readme_block(guide, "slurm-cpu-job", "docs/instructors.md"),
        shared | {"--array=1-8": "--array=1-3", '/8"': '/3"'},
    )
    gpu_job = _recipe(readme_block(guide, "slurm-gpu-job", "docs/instructors.md"), shared)
    if GPU is None:
        print("no GPU here: the GPU job runs without its --gres=gpu:1 line, and m6 defers")
        gpu_job = _recipe(gpu_job, {"#SBATCH --gres=gpu:1\n": ""})
    (submit / "grade-cpu.sbatch").write_text(cpu_job + "\n", encoding="utf-8")
    (submit / "grade-gpu.sbatch").write_text(gpu_job + "\n", encoding="utf-8")
    commands = _recipe(
        readme_block(guide, "slurm-gpu-submit", "docs/instructors.md"),
        python | {"/shared/grading": str(submit)},
    )
    as_user, who = _job_user()
    print(f"submitting the GPU recipe as {who}")
    env = {**cluster.env, **home_env}
    _submit_and_wait(cluster, commands, submit, env, as_user)
    whole = submit / "whole"
    run = subprocess.run(
        [*as_user, sys.executable, "-m", "grader", "grade", str(subs), "--out", str(whole), "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        cwd=submit,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    grades = submit / "grades"
    assert (grades / "grades.csv").read_bytes() == (whole / "grades.csv").read_bytes()
    merged, alone = _json(grades / "grades.json"), _json(whole / "grades.json")
    assert [s["exercises"][-1] for s in merged["shards"]] == ["m5", "m5", "m5", "m6"]
    judged = merged["judged_on"]
    assert (
        list(judged) == list(alone["judged_on"])
        and judged["m6"]["device"] == alone["judged_on"]["m6"]["device"]
    )
    m6 = [o for o in merged["students"]["right_1"]["outcomes"] if o["exercise"] == "m6"]
    assert m6 and (GPU is not None or all(o["deferred"] for o in m6))
    for data in (merged, alone):  # the jobs differ in --jobs, so in limits; the rest is one run's
        for key in ("elapsed_s", "limits", "environment", "judged_on", "sandbox", "shards", "missing_shards"):
            data.pop(key, None)
    assert _without_times(merged) == _without_times(alone)


def test_the_gpu_recipe_stops_with_nothing_queued_where_the_gpu_job_is_refused(cluster: Cluster) -> None:
    """``submit-gpu.sh`` as written on a cluster whose node has no GPU gres (where this machine has a GPU
    and the node offers it, the job asks for more GPUs than the node has): Slurm refuses the GPU job, and
    the script exits 1 with its message before the CPU array is queued; no job of it is left, and nothing
    is graded."""
    guide = GUIDE.read_text(encoding="utf-8")
    base = cluster.base
    subs = _shard_submissions(base / "refused-submissions")
    submit, _, home_env = _folders(base, "refused-grading")
    python = {"/shared/perfkit/.venv/bin/python": sys.executable}
    shared = python | {"/shared/submissions": str(subs)}
    cpu_job = _recipe(
        readme_block(guide, "slurm-cpu-job", "docs/instructors.md"),
        shared | {"--array=1-8": "--array=1-3", '/8"': '/3"'},
    )
    gpu_job = _recipe(readme_block(guide, "slurm-gpu-job", "docs/instructors.md"), shared)
    if GPU is not None:
        gpu_job = _recipe(gpu_job, {"--gres=gpu:1\n": "--gres=gpu:2\n"})
    (submit / "grade-cpu.sbatch").write_text(cpu_job + "\n", encoding="utf-8")
    (submit / "grade-gpu.sbatch").write_text(gpu_job + "\n", encoding="utf-8")
    script = _recipe(
        readme_block(guide, "slurm-gpu-submit", "docs/instructors.md"),
        python | {"/shared/grading": str(submit)},
    )
    (submit / "submit-gpu.sh").write_text(script + "\n", encoding="utf-8")
    as_user, _ = _job_user()
    assert not cluster.jobs()
    proc = subprocess.run(
        [*as_user, "bash", "submit-gpu.sh"],
        capture_output=True,
        text=True,
        env={**cluster.env, **home_env},
        cwd=submit,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1, f"{proc.stdout}\n{proc.stderr}"
    assert "submit-gpu.sh: the GPU job was not accepted" in proc.stderr, proc.stderr
    assert "queued:" not in proc.stdout
    assert not cluster.jobs()  # no CPU array without its merge, no merge without its jobs
    assert not (submit / "grades").exists() and not (submit / "out").exists()


def test_the_guides_shard_formula_is_the_codes() -> None:
    """The one-line formula the guide gives for a student's shard is what ``shard_of`` computes."""
    guide = GUIDE.read_text(encoding="utf-8")
    formulas = [f for f in re.findall(r"`([^`]*sha256[^`]*)`", guide) if "% N + 1" in f]
    assert len(formulas) == 1, formulas
    for name in ("alice", "bob_02", "王小明", "x" * 300):
        for count in (1, 3, 8, 1000):
            shown = eval(formulas[0], {"hashlib": hashlib, "name": name, "N": count})
            assert shown == shard_of(name, count), (name, count)
