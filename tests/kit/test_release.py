"""The student kit: ``python -m grader release OUT_DIR`` writes the exercises, the grader and perfcore and
not a line of the solutions; the kit installs and grades on its own (stubs: nothing, solutions: full
marks); ``--no-worked-answers`` takes the worked answers out of its tour; bad OUT_DIRs are refused."""

from __future__ import annotations

import json
import keyword
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from grader.__main__ import main as grader_main
from grader.course import release
from grader.course.cli.kit import solutions_missing
from grader.course.release import marked_text, readme_block, write_release
from grader.course.stubs import BEGIN, END, solution_files, stub_text
from perfcore.tour import answers
from perfcore.tour.transformer import training_section

from .graded import failures_and_tail

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"

#: What a kit holds at its top, no more.
TOP = {".gitignore", "LICENSE", "README.md", "pyproject.toml", "exercises", "grader", "perfcore"}

#: Lines of solution regions that the kit's own code also has, and where, each written independently of
#: the solutions: perfcore's reference measurements (the grader measures the student's against them, so
#: they do what the task asks) and the one-thread setting every measurement task's question prescribes.
#: Anywhere else (exercises/, README.md, another module) these lines, too, count as a leak.
SHARED_WITH_THE_KIT = {
    "torch.set_num_threads(1)": {"perfcore/measure/timing.py", "grader/sandbox/worker.py"},
    "t0 = time.perf_counter()": {"perfcore/measure/gpu.py", "perfcore/measure/suite.py"},
    "return 2 * n * 4 / seconds": {"perfcore/measure/bandwidth.py"},  # STREAM's count of a copy
    "for _ in range(k - 1):": {"perfcore/measure/fusion.py"},  # k elementwise passes
    'if method == "naive":': {"perfcore/measure/transpose.py"},  # the stub's signature names the methods
}

#: The tour's worked answers, as the instructor's tour prints them: (what they answer, a pattern of them).
WORKED_ANSWERS = {
    "ex01: FP32 time 7.05 ms, BF16 time 441 µs": r"7\.05 ms|441 µs",
    "ex02: fused 962 µs, speedup 1.67x": r"962 µs|1\.67x",
    "ex03: INT4 step 10.5 ms, 95 tokens/s, 131 GiB in BF16": r"10\.5 ms|95 tokens/s|131 GiB",
    "ex04: 51 warps": r"\b51 warps",
    "ex05: 4096 blocks in 32 waves, utilization 0.970": r"\b4096\s+32\b|0\.970",
    "ex06: H100 tiles T = 197 (BF16), 139 (FP32)": r"H100\s+228\s+(bf16|fp32)\s+(197|139)\b",
    "ex07: the crossover at 114,516 and 3,579 tokens": r"114,516|3,579",
    "ex08: MFU 13.8%, 10.3 days": r"13\.8%|10\.3 days",
    "ex09: 1.2 ms, 17% busy, 5.7x, 210 µs": r"\b1\.2 ms|\b17%|5\.7x|210 µs",
}


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_release(tmp_path_factory.mktemp("release") / "student", worked_answers=True)


@pytest.fixture(scope="module")
def kit_without_answers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_release(tmp_path_factory.mktemp("release") / "student", worked_answers=False)


def files_of(folder: Path) -> set[str]:
    """Every file under ``folder``, as POSIX paths relative to it, byte code left out."""
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def kit_env(kit_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a process that should see the kit's perfcore and grader, not the repository's
    (PYTHONPATH comes before the editable install's finder)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return {**env, "PYTHONPATH": str(kit_dir), **extra}


# --------------------------------------------------------------------------------------------------------
# 1. what the kit holds
# --------------------------------------------------------------------------------------------------------


def test_the_kit_holds_the_stubs_the_grader_and_perfcore_only(kit: Path) -> None:
    assert {p.name for p in kit.iterdir()} == TOP
    held = files_of(kit)
    everything = {p.relative_to(kit).as_posix() for p in kit.rglob("*")}
    assert not [p for p in everything if "__pycache__" in p or p.endswith((".pyc", ".ipynb"))]
    assert not [p for p in held if p.split("/")[0] in ("solutions", "tests", "benchmarks")]
    # the stubs, from solutions/, as `python -m grader stubs` writes them
    assert {f"exercises/{p.name}": stub_text(p) for p in solution_files(SOLUTIONS)} == {
        p: (kit / p).read_text(encoding="utf-8") for p in held if p.startswith("exercises/")
    }
    for package in ("perfcore", "grader"):
        mine = {p for p in held if p.startswith(f"{package}/")}
        theirs = {f"{package}/{p}" for p in files_of(ROOT / package)}
        assert mine - theirs == ({"perfcore/_release.py"} if package == "perfcore" else set())
        assert theirs - mine == set()
    assert not (ROOT / "perfcore" / "_release.py").exists()  # the instructor's tour shows everything


def _telling(line: str, stub: str) -> bool:
    """Whether a stripped line of a solution region could tell its answer. Not: a blank line, a lone
    ``return``, a comment under 20 characters, a line the stub also holds (the question quotes it), bare
    syntax (``)``, ``else:``) or one or two names with no literal and no operator (``return out``,
    ``points = []``, ``for m in ms:``). ``return peak_flops / bandwidth`` and ``return "A"`` tell."""
    if not line or line == "return" or (line.startswith("#") and len(line) < 20) or line in stub:
        return False
    names = [n for n in re.findall(r"[A-Za-z_]\w*", line) if not keyword.iskeyword(n)]
    literal = re.search(r"\d|['\"]", line) is not None
    operator = re.search(r"[-+*/%<>!&|^~@]|==", line) is not None
    return literal or operator or len(names) >= 3


def solution_lines() -> dict[str, set[str]]:
    """Each telling line of every solution region -> the solution files it comes from."""
    found: dict[str, set[str]] = {}
    for path in solution_files(SOLUTIONS):
        stub = stub_text(path)
        inside = False
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = raw.strip()
            if line in (BEGIN, END):
                inside = line == BEGIN
            elif inside and _telling(line, stub):
                found.setdefault(line, set()).add(path.name)
    return found


@pytest.mark.parametrize("which", ["with answers", "--no-worked-answers"])
def test_no_line_of_a_solution_region_is_in_the_kit(which: str, kit: Path, kit_without_answers: Path) -> None:
    folder = kit if which == "with answers" else kit_without_answers
    lines = solution_lines()
    assert len(lines) > 100  # the rule keeps the regions' substance
    for expected in ('return "A"', "return peak_flops / bandwidth", "return 1 / answer_3b_step_time()"):
        assert expected in lines
    leaks = []
    for name in sorted(files_of(folder)):
        held = {raw.strip() for raw in (folder / name).read_text(encoding="utf-8").splitlines()}
        for line in held & lines.keys():
            if name not in SHARED_WITH_THE_KIT.get(line, set()):
                leaks.append(f"{name}: {line!r} (from {', '.join(sorted(lines[line]))})")
    assert not leaks, "\n".join(leaks)


def test_the_kits_pyproject_grades_exercises_with_the_repositorys_dependencies(kit: Path) -> None:
    theirs = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mine = tomllib.loads((kit / "pyproject.toml").read_text(encoding="utf-8"))
    assert mine["project"]["dependencies"] == theirs["project"]["dependencies"]
    extras = theirs["project"]["optional-dependencies"]
    assert mine["project"]["optional-dependencies"] == {"torch": extras["torch"], "plot": extras["plot"]}
    assert mine["project"]["entry-points"]["pytest11"] == {"perfkit_grader": "grader.plugin"}
    assert mine["project"]["readme"] == "README.md" and mine["build-system"] == theirs["build-system"]
    assert mine["tool"]["pytest"]["ini_options"]["testpaths"] == ["exercises"]
    assert ".venv/" in (kit / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_the_kits_readme_is_the_student_guide_with_the_repositorys_commands(
    kit: Path, kit_without_answers: Path
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    students = (ROOT / "docs" / "students.md").read_text(encoding="utf-8")
    mine = (kit / "README.md").read_text(encoding="utf-8")
    # the setup commands: README's first command, and the student guide's Intel Mac and Windows forms
    for marker, theirs in (
        ("grade-command", readme),
        ("grade-command-windows", students),
        ("grade-command-macos-intel", students),
    ):
        assert readme_block(mine, marker) == readme_block(theirs, marker), marker
    for heading in ("开始 · Getting started", "怎样读反馈 · Reading the feedback", "测量题需要什么"):
        assert heading in mine and heading in students
    # the watch (issue 46): the guide's part on it, word for word, before grading by hand
    watch = marked_text(students, "watch")
    assert "python -m grader watch" in watch and watch in mine
    assert mine.index(watch) < mine.index("或者手动再打分 · Or grade again by hand")
    assert "bench_watch" not in mine and "watch-latency" not in mine  # the kit has no benchmarks/
    assert "solutions" not in mine.replace("solutions/", "")  # nothing points at what it lacks
    assert "pytest solutions" not in mine and "bench_student_loop" not in mine  # nor runs it
    # the guide is docs/students.md's from "Reading the feedback" to its end, word for word, so a rule
    # added there reaches the students' kit
    start = students.index("## 怎样读反馈")
    end = students.find("\n# ", start)
    guide = students[start : end if end != -1 else None]
    assert "<!-- instructor-only -->" in guide and "docs/report.png" in guide  # what the kit leaves out
    shown = re.sub(r"<!-- instructor-only -->.*?<!-- /instructor-only -->", "", guide, flags=re.S)
    assert "测量题需要什么" in shown and "order statistics of the paired ratios" in shown
    for paragraph in (p.strip() for p in shown.split("\n\n")):
        if paragraph:
            assert paragraph in mine, paragraph[:80]
    assert "kept no CPU busy" in mine or "几乎没用 CPU" in mine  # one of the rules the kit's copy had lost
    assert "report.png" not in mine and "<!-- instructor-only -->" not in mine
    # the kit holds no docs/: its README is the one thing written from them
    assert not (kit / "docs").exists() and not (kit_without_answers / "docs").exists()
    assert "../README.md" not in mine and "](students.md" not in mine  # no link into the instructor's docs
    assert "worked answers of exercises 1-9" in mine
    assert "left out" in (kit_without_answers / "README.md").read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------------------
# 2. the kit on its own: a fresh virtual environment grades it
# --------------------------------------------------------------------------------------------------------


#: The subprocess timeouts of the fresh venv's test: guards against a hang, never limits on speed. Each step
#: takes a minute or less on a quiet machine, several times that beside other work on a 2-core machine.
GUARD_S = 2400


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def _grade(python: Path, kit_dir: Path, report: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """A bare ``pytest`` in the kit, as a student runs it."""
    return subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--grader-lang=en",
            f"--grader-json={report}",
        ],
        cwd=kit_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )


@pytest.mark.timeout(4 * GUARD_S)
def test_the_kit_installs_in_a_fresh_venv_and_grades_stubs_zero_and_solutions_full(tmp_path: Path) -> None:
    """About 115 s here: the install (torch from the local CPU wheel) 35 s, the solutions' run 60 s."""
    kit_dir = write_release(tmp_path / "student", worked_answers=False)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=GUARD_S)
    python = _venv_python(venv)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env = {k: v for k, v in env.items() if not k.startswith("PYTEST_")}
    env["PERFKIT_CACHE_DIR"] = str(tmp_path / "cache")
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "torch==2.13.0", f"{kit_dir}[torch]"],
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    if installed.returncode != 0 and any(
        s in installed.stderr for s in ("NewConnectionError", "Name or service not known")
    ):
        pytest.skip(f"no package index reachable from here: {installed.stderr.strip()[-300:]}")
    assert installed.returncode == 0, installed.stderr[-3000:]
    # pip built the kit in its folder; a student's clone would not hold build/ or the egg-info
    for left in ("build", "perfkit.egg-info"):
        shutil.rmtree(kit_dir / left, ignore_errors=True)

    # the venv's packages are the kit's copies (the marker module included), not this repository's
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import grader, perfcore.tour.answers as t; print(grader.__file__); print(t.worked_answers())",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    assert where.returncode == 0, where.stderr
    assert str(venv) in where.stdout and str(ROOT) not in where.stdout and where.stdout.split()[-1] == "False"

    stubs = _grade(python, kit_dir, tmp_path / "stubs.json", env)
    assert stubs.returncode == pytest.ExitCode.TESTS_FAILED, stubs.stdout[-3000:]
    results = json.loads((tmp_path / "stubs.json").read_text(encoding="utf-8"))
    graded = [t for t in results["tests"] if t["max_score"] > 0]
    assert results["score"] == 0 and len(graded) > 50
    assert all("not attempted" in t["output"] for t in graded)
    assert "Traceback" not in stubs.stdout

    for path in solution_files(SOLUTIONS):
        shutil.copy2(path, kit_dir / "exercises" / path.name)
    solved = _grade(python, kit_dir, tmp_path / "solutions.json", env)
    assert solved.returncode == 0, failures_and_tail(solved.stdout)
    results = json.loads((tmp_path / "solutions.json").read_text(encoding="utf-8"))
    assert results["score"] == results["max_score"] > 0
    total = next(line for line in reversed(solved.stdout.splitlines()) if line.startswith("total"))
    assert total.split()[-3:] == [f"{results['score']:g}", "/", f"{results['max_score']:g}"], total
    # deferred: exactly the checks whose requirement the kit's environment lacks (here the GPU task), and
    # any measuring check (a measurement or a curve) the grader found this machine too noisy or too busy
    # to judge, whatever words it gives the machine's reason; still skipped and worth nothing, never wrong
    unmet_code = (
        "import json\nfrom grader.registry import load_exercises\nfrom grader.specs.requirements import unmet_reason\n"
        "checks = [(f'{e.id}::{c.id}', c) for e in load_exercises().values() for c in e.checks]\n"
        "print(json.dumps([sorted(n for n, c in checks if unmet_reason(c.requires) is not None), "
        "sorted(n for n, c in checks if c.check_kind in ('measurement', 'shape'))]))"
    )
    unmet_run = subprocess.run(
        [str(python), "-c", unmet_code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    assert unmet_run.returncode == 0, unmet_run.stderr
    unmet, measuring = (set(names) for names in json.loads(unmet_run.stdout))
    deferred = {t["name"].split(" ")[0]: t["output"] for t in results["tests"] if t["max_score"] == 0}
    assert unmet <= set(deferred)
    for name in set(deferred) - unmet:
        assert name in measuring and deferred[name].strip(), (name, deferred[name])
    states = {t["name"].split(" ")[0]: t["tags"][-1] for t in results["tests"]}
    assert all(states[name] == "skipped" for name in deferred), {n: states[n] for n in deferred}
    assert all(t["score"] == 0 for t in results["tests"] if t["max_score"] == 0)
    # every graded check passed; a deferred one was not graded, and Gradescope reads it as failed (never passed)
    assert set(results["extra_data"]["deferred"]) == set(deferred)
    assert all(
        t["status"] == ("failed" if t["name"].split(" ")[0] in deferred else "passed")
        for t in results["tests"]
    )

    # the installed kit's tour leaves the worked answers out, as its marker says
    shown = subprocess.run(
        [str(python), "-m", "perfcore", "transformer"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    assert shown.returncode == 0 and "left out of this kit" in shown.stdout
    assert not re.search(WORKED_ANSWERS["ex08: MFU 13.8%, 10.3 days"], shown.stdout)


# --------------------------------------------------------------------------------------------------------
# 3. the tour with and without the worked answers
# --------------------------------------------------------------------------------------------------------


def _tour(kit_dir: Path) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import perfcore; print(perfcore.__file__)\nfrom perfcore.__main__ import main\nmain(['all'])",
        ],
        cwd=kit_dir,
        env=kit_env(kit_dir),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    where, _, text = done.stdout.partition("\n")
    assert Path(where).resolve().is_relative_to(kit_dir.resolve()), where  # the kit's perfcore, not ours
    return text


def test_no_worked_answers_leaves_them_out_of_the_tour_and_says_so(
    kit: Path, kit_without_answers: Path
) -> None:
    shown, hidden = _tour(kit), _tour(kit_without_answers)
    for what, pattern in WORKED_ANSWERS.items():
        assert re.search(pattern, shown), f"the full tour should print {what}"
        assert not re.search(pattern, hidden), f"the tour without worked answers prints {what}"
    for exercise in range(1, 10):
        assert f"The worked answer to exercise {exercise} is left out of this kit" in hidden
        assert f"练习 {exercise} 的解答不在这套学生材料里" in hidden
    assert "left out of this kit" not in shown
    # the lecture's own tables stay
    for heading in ("GPU specifications", "Latency hiding", "Wave quantization", "Launch overhead", "decode"):
        assert heading in hidden
    assert "A100       164   fp32    118" in hidden  # exercise 6's table keeps the A100 as the example


def test_the_tour_reads_the_marker_on_every_call(monkeypatch: pytest.MonkeyPatch) -> None:
    assert answers.worked_answers()  # the instructor's repository: no marker
    assert "Exercise 8: 2048 H100" in training_section()
    monkeypatch.setitem(sys.modules, answers.RELEASE_MODULE, types.SimpleNamespace(WORKED_ANSWERS=False))
    assert not answers.worked_answers()
    assert "Exercise 8: 2048 H100" not in training_section()
    assert answers.left_out(8) in training_section()


# --------------------------------------------------------------------------------------------------------
# 4. where it may be written, and the instructor's commands in a kit
# --------------------------------------------------------------------------------------------------------


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        grader_main(["release", *argv])
    assert info.value.code == 2
    return capsys.readouterr().err


@pytest.fixture
def no_writing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a refusal fail to refuse, nothing is written or replaced: the kit's files never come."""

    def refused_to_write(*args: object, **kwargs: object) -> None:
        raise AssertionError("write_release should have refused this OUT_DIR")

    monkeypatch.setattr(release, "write_kit", refused_to_write)


def test_a_non_empty_out_dir_is_refused_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "student"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    err = _refused([str(out)], capsys)
    assert "OUT_DIR" in err and str(out) in err and "--force" in err and "Traceback" not in err
    assert {p.name for p in tmp_path.iterdir()} == {"student"} and (out / "notes.txt").exists()


def test_force_replaces_the_contents_and_keeps_git(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "student"
    (out / ".git").mkdir(parents=True)
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    # a folder holding only .git counts as empty: a fresh clone of the published repository
    assert grader_main(["release", str(out)]) == 0
    (out / "notes.txt").write_text("old", encoding="utf-8")
    assert grader_main(["release", str(out), "--force", "--no-worked-answers"]) == 0
    assert {p.name for p in out.iterdir()} == TOP | {".git"}
    assert (out / ".git" / "HEAD").read_text(encoding="utf-8") == "ref: refs/heads/main\n"
    assert "WORKED_ANSWERS = False" in (out / "perfcore" / "_release.py").read_text(encoding="utf-8")
    assert {p.name for p in tmp_path.iterdir()} == {"student"}  # no temporary folder left beside it
    assert "wrote the student kit" in capsys.readouterr().out


def test_a_release_hides_the_worked_answers_unless_asked_and_old_scripts_still_run(tmp_path: Path) -> None:
    def marker(*argv: str) -> str:
        out = tmp_path / "_".join(("kit", *(a.strip("-") for a in argv)))
        assert grader_main(["release", str(out), *argv]) == 0
        return (out / "perfcore" / "_release.py").read_text(encoding="utf-8")

    assert "WORKED_ANSWERS = False" in marker()  # the default: an instructor who forgets hides them
    assert "WORKED_ANSWERS = True" in marker("--worked-answers")
    assert "WORKED_ANSWERS = False" in marker("--no-worked-answers")  # the old flag is still accepted


def test_the_course_language_goes_into_the_kits_pyproject(tmp_path: Path) -> None:
    from grader.text.lang import course_lang

    assert grader_main(["release", str(tmp_path / "en"), "--lang", "en"]) == 0
    text = (tmp_path / "en" / "pyproject.toml").read_text(encoding="utf-8")
    assert "[tool.perfkit]" in text and 'lang = "en"' in text
    assert course_lang(tmp_path / "en" / "exercises") == "en"  # read from the kit's folders upwards
    assert grader_main(["release", str(tmp_path / "none")]) == 0
    assert "[tool.perfkit]" not in (tmp_path / "none" / "pyproject.toml").read_text(encoding="utf-8")
    assert course_lang(tmp_path / "none") is None  # no course setting: each student's locale decides


def test_a_failed_release_leaves_out_dir_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "student"
    out.mkdir()
    (out / "notes.txt").write_text("old", encoding="utf-8")

    def half_written(into: Path, *args: object) -> None:
        (into / "README.md").write_text("half", encoding="utf-8")
        raise OSError("disk full")

    monkeypatch.setattr(release, "write_kit", half_written)
    with pytest.raises(OSError, match="disk full"):
        write_release(out, force=True)
    assert [p.name for p in tmp_path.iterdir()] == ["student"]
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize(
    "where",
    ["perfcore/kit", "grader/checks/kit", "solutions", "exercises/kit", "tests", ".git/kit", ".", ".."],
)
def test_out_dir_in_or_around_the_repository_is_refused(
    where: str, no_writing: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ROOT / where
    existed = out.exists()
    err = _refused([str(out), "--force"], capsys)
    assert "OUT_DIR" in err and "repository" in err and "Traceback" not in err
    assert out.exists() == existed


def test_out_dir_that_is_a_file_or_missing_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert "is not a folder" in _refused([str(tmp_path / "file"), "--force"], capsys)
    assert "OUT_DIR" in _refused([], capsys)


@pytest.mark.parametrize(
    "argv",
    [["stubs"], ["stubs", "--check"], ["notebooks", "{tmp}/course"], ["release", "{tmp}/again"]],
    ids=lambda a: a[0] + (" --check" if "--check" in a else ""),
)
def test_the_instructors_commands_in_a_kit_fail_with_a_message(
    argv: list[str], kit: Path, tmp_path: Path
) -> None:
    """They read solutions/, which a kit lacks: a message, exit status 2, no traceback, nothing written."""
    args = [a.format(tmp=tmp_path) for a in argv]
    done = subprocess.run(
        [sys.executable, "-m", "grader", *args],
        cwd=kit,
        env=kit_env(kit),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "solutions" in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []
    assert files_of(kit / "exercises") == {f"{p.name}" for p in solution_files(SOLUTIONS)}


def test_the_instructors_commands_here_are_unchanged() -> None:
    assert solutions_missing("stubs", []) is None
    assert solutions_missing("notebooks", ["out", "--solutions", str(SOLUTIONS)]) is None
    assert solutions_missing("stubs", ["--solutions", "/nowhere"]) is not None
    assert solutions_missing("stubs", ["--help"]) is None  # help is always there
