"""The stubs in exercises/ are generated from solutions/, and solutions stay independent of perfcore."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from grader.course.stubs import BEGIN, END, generate, solution_files, strip_solutions

ROOT = Path(__file__).resolve().parents[3]
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"


def test_regions_become_not_implemented_at_their_indentation():
    source = f"def f(x):\n    '''doc'''\n    {BEGIN}\n    return x + 1\n    {END}\n\nY = 2\n"
    stub = strip_solutions(source)
    assert "return x + 1" not in stub
    assert "    # YOUR CODE HERE\n    raise NotImplementedError()\n" in stub
    assert "'''doc'''" in stub and "Y = 2" in stub


@pytest.mark.parametrize(
    ("source", "words"),
    [
        (f"{BEGIN}\nx = 1\n", ["never closed", ":1"]),
        (f"x = 1\n{END}\n", ["without", ":2"]),
        (f"{BEGIN}\n{BEGIN}\n{END}\n", ["inside", ":2"]),
    ],
)
def test_unpaired_markers_name_the_line(source, words):
    with pytest.raises(ValueError) as info:
        strip_solutions(source, "sol.py")
    assert all(w in str(info.value) for w in words) and "sol.py" in str(info.value)


def test_exercises_are_up_to_date_with_solutions():
    stale = generate(SOLUTIONS, EXERCISES, check=True)
    assert stale == [], f"run `python -m grader stubs`: {stale}"


def test_generate_writes_and_removes(tmp_path):
    src, dst = tmp_path / "sol", tmp_path / "ex"
    src.mkdir()
    (src / "a.py").write_text(f"def f():\n    {BEGIN}\n    return 1\n    {END}\n")
    dst.mkdir()
    (dst / "old.py").write_text("stale")
    changed = generate(src, dst)
    assert {p.name for p in changed} == {"a.py", "old.py"}
    assert not (dst / "old.py").exists()
    assert generate(src, dst, check=True) == []


@pytest.mark.parametrize("path", solution_files(SOLUTIONS), ids=lambda p: p.name)
def test_solutions_never_import_perfcore_or_grader(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        for name in names:
            assert name.split(".")[0] not in ("perfcore", "grader"), f"{path.name} imports {name}"


@pytest.mark.parametrize("path", solution_files(EXERCISES), ids=lambda p: p.name)
def test_every_stub_function_with_a_region_raises_not_implemented(path):
    solution = SOLUTIONS / path.name
    tree = ast.parse(solution.read_text(encoding="utf-8"))
    top_imports = {a.name.split(".")[0] for n in tree.body if isinstance(n, ast.Import) for a in n.names}
    top_imports |= {(n.module or "").split(".")[0] for n in tree.body if isinstance(n, ast.ImportFrom)}
    if "torch" in top_imports:
        pytest.importorskip(
            "torch", reason=f"{path.name} imports torch at its top, and torch is not installed"
        )
    spec = importlib.util.spec_from_file_location(f"_stub_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lines = solution.read_text(encoding="utf-8").splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            body = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            if BEGIN in body and not node.args.args:
                with pytest.raises(NotImplementedError):
                    getattr(module, node.name)()


def test_every_stub_begins_with_a_header_in_the_students_terms():
    from grader.course.stubs import HEADER

    # the student's kit has no solutions/ and no course tools: the header names neither
    assert "solutions/" not in HEADER and "grader stubs" not in HEADER
    zh, en = HEADER[: HEADER.index("# Your")], HEADER[HEADER.index("# Your") :]
    assert "YOUR CODE HERE" in zh and "pytest exercises/" in zh and "作答" in zh  # Chinese, then English
    assert "YOUR CODE HERE" in en and "pytest exercises/" in en and "worked solutions" in en
    assert all(line.startswith("# ") for line in HEADER.splitlines())
    for path in solution_files(SOLUTIONS):
        if BEGIN in path.read_text(encoding="utf-8"):
            assert (EXERCISES / path.name).read_text(encoding="utf-8").startswith(HEADER), path.name
