"""The grader's rooms and floors, as docs/ARCHITECTURE.md names them, read from the code's own imports.

The floors are a table in docs/ARCHITECTURE.md (between ``<!-- layers -->`` and ``<!-- /layers -->``), so the
document and this test cannot drift apart. Every ``import`` of a grader module (at the top of a module or
inside a function, ``if TYPE_CHECKING`` blocks included) is read with ``ast``; a module may import its own
room and the rooms of lower floors only, and no chain of imports comes back to where it started. Inside
``grader/judge/`` the same rule holds one level down, on the sub-floors of a second table (between
``<!-- judge-layers -->`` and ``<!-- /judge-layers -->``): verdicts < prepare < reference < runners < core.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GRADER = ROOT / "grader"
#: A module the rule of "imports at the top" leaves deferred must say why, on the import's line or the one
#: before it: only heavy or optional imports are (torch, matplotlib, IPython, nbformat's users, ...).
DEFERRED_REASON = "deferred on purpose"
#: Modules run on their own, in the worker, where the rest of the grader is never imported.
STANDALONE = {"grader.sandbox.worker", "grader.sandbox.wire"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def grader_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(GRADER.rglob("*.py"))}


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, int, bool]]:
    """``(imported grader module, line, at the top)`` for every import of a grader module in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set()
    for node in tree.body:
        for inner in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else (node,):
            top.add(id(inner))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [
                f"{origin}.{a.name}" if f"{origin}.{a.name}" in modules else origin for a in node.names
            ]
        for target in targets:
            if target == "grader" or target.startswith("grader."):
                while target not in modules and "." in target:
                    target = target.rpartition(".")[0]
                found.append((target, node.lineno, id(node) in top))
    return found


#: The package whose modules stand on sub-floors of their own, and the marker of their table.
JUDGE, JUDGE_LAYERS = "grader.judge", "judge-layers"


def read_floors(marker: str = "layers") -> list[tuple[int, list[str]]]:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    match = re.search(rf"<!-- {marker} -->(.*?)<!-- /{marker} -->", text, re.S)
    assert match, f"docs/ARCHITECTURE.md has no <!-- {marker} --> table"
    floors = []
    for line in match.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].isdigit():
            floors.append((int(cells[0]), re.findall(r"`(grader[\w.]*)`", cells[1])))
    return floors


def room_of(module: str, rooms: dict[str, int]) -> str:
    """The room ``module`` lives in: the longest room name it is, or is inside."""
    best = max((r for r in rooms if module == r or module.startswith(r + ".")), key=len, default=None)
    assert best is not None, f"{module} is in no room of docs/ARCHITECTURE.md's layers table"
    return best


@pytest.fixture(scope="module")
def graph() -> dict[str, list[tuple[str, int, bool]]]:
    modules = grader_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def floors_of(marker: str) -> dict[str, int]:
    """The floor of every room in the table marked ``marker``."""
    rooms: dict[str, int] = {}
    for floor, names in read_floors(marker):
        for name in names:
            assert name not in rooms, f"{name} is on two floors"
            rooms[name] = floor
    return rooms


def inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def runs_up(
    graph: dict[str, list[tuple[str, int, bool]]], rooms: dict[str, int], within: str = ""
) -> list[str]:
    """Every import that runs up or across a floor of ``rooms``; with ``within``, only the imports between
    that package's modules (its own ``__init__``, which names what the package offers, left out)."""
    wrong = []
    for name, imports in graph.items():
        if within and (name == within or not inside(name, within)):
            continue
        mine = room_of(name, rooms)
        for target, line, _ in imports:
            if within and not inside(target, within):
                continue
            theirs = room_of(target, rooms)
            if theirs != mine and rooms[theirs] >= rooms[mine]:
                wrong.append(
                    f"{name}:{line} imports {target} (floor {rooms[theirs]} from floor {rooms[mine]})"
                )
    return wrong


@pytest.fixture(scope="module")
def rooms() -> dict[str, int]:
    rooms = floors_of("layers")
    assert len(rooms) >= 8, f"too few rooms read from docs/ARCHITECTURE.md: {rooms}"
    return rooms


@pytest.fixture(scope="module")
def judge_floors() -> dict[str, int]:
    floors = floors_of(JUDGE_LAYERS)
    assert all(inside(name, JUDGE) and name != JUDGE for name in floors), floors
    assert len(set(floors.values())) >= 5, f"too few sub-floors read from docs/ARCHITECTURE.md: {floors}"
    return floors


def test_every_module_is_in_a_room(graph, rooms):
    for name in graph:
        room_of(name, rooms)


def test_no_import_runs_up_or_across_a_floor(graph, rooms):
    wrong = runs_up(graph, rooms)
    assert not wrong, "\n".join(wrong)


def test_every_module_of_the_judge_is_on_a_sub_floor(graph, judge_floors):
    for name in graph:
        if inside(name, JUDGE) and name != JUDGE:
            room_of(name, judge_floors)


def test_no_import_inside_the_judge_runs_up_a_sub_floor(graph, judge_floors):
    """verdicts < prepare < reference < runners < core: a runner never imports the judge's core."""
    wrong = runs_up(graph, judge_floors, within=JUDGE)
    assert not wrong, "\n".join(wrong)


def test_no_import_circle(graph):
    edges = {name: {t for t, _, _ in imports if t != name} for name, imports in graph.items()}
    # a package's __init__ importing its own modules is how it names them; a module importing its package
    # (for a sibling) is not a circle of code, so the edge from a module up to its own package is left out
    for name in edges:
        edges[name] = {t for t in edges[name] if not name.startswith(t + ".")}
    state: dict[str, int] = {}
    circles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                circles.append(" -> ".join([*stack[stack.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert not circles, "\n".join(circles)


def test_imports_are_at_the_top_unless_deferred_with_a_reason(graph):
    """Of the grader's own modules, every import is at the top; of other packages, a deferred import says
    why on its line or the line before (a heavy or optional import: torch, matplotlib)."""
    unexplained = []
    for name, path in grader_modules().items():
        if name in STANDALONE:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        top = set()
        for node in tree.body:
            for inner in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else (node,):
                top.add(id(inner))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                around = " ".join(lines[max(0, node.lineno - 3) : node.end_lineno])
                if DEFERRED_REASON not in around:
                    unexplained.append(f"{name}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert not unexplained, "\n".join(unexplained)


@pytest.mark.parametrize(("folder", "most"), [("grader", 650), ("perfcore", 700)])
def test_no_module_over_its_floors_lines(folder, most):
    """The grader's floor is 650 lines a module (issue 32, held since); perfcore's 700 (its tour is one text)."""
    long = {
        str(p.relative_to(ROOT)): n
        for p in sorted((ROOT / folder).rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > most
    }
    assert not long, long


def test_every_room_says_what_it_owns_and_may_import(rooms):
    for room in rooms:
        path = GRADER.joinpath(*room.split(".")[1:])
        init = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        doc = " ".join((ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or "").split())
        assert doc, f"{room} has no docstring"
        if path.is_dir() and room != "grader.checks":
            assert "may import" in doc.lower(), f"{room}'s docstring does not say what it may import"


def test_the_checker_sees_a_circle_and_an_upward_import(tmp_path, rooms):
    """The rules above can fail: an upward import and a circle written here are found."""
    modules = {"grader.text.catalogue": tmp_path / "a.py", "grader.judge.core": tmp_path / "b.py"}
    (tmp_path / "a.py").write_text("from grader.judge.core import Judge\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("from grader.text.catalogue import render\n", encoding="utf-8")
    up = imports_of("grader.text.catalogue", modules["grader.text.catalogue"], modules)
    assert [t for t, _, _ in up] == ["grader.judge.core"]
    assert rooms[room_of("grader.judge.core", rooms)] > rooms[room_of("grader.text.catalogue", rooms)]


def test_the_checker_sees_a_runner_importing_the_judges_core(tmp_path, judge_floors):
    """The sub-floor rule can fail too: a runner importing the judge's core is found, and the core
    importing a runner is not."""
    modules = {
        "grader.judge.runners.formula": tmp_path / "formula.py",
        "grader.judge.core": tmp_path / "core.py",
    }
    modules["grader.judge.runners.formula"].write_text("from ..core import Judge\n", encoding="utf-8")
    modules["grader.judge.core"].write_text("from .runners.formula import run_value\n", encoding="utf-8")
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    assert runs_up(graph, judge_floors, within=JUDGE) == [
        "grader.judge.runners.formula:1 imports grader.judge.core (floor 5 from floor 3)"
    ]


def test_no_module_reaches_for_another_modules_underscore_names() -> None:
    """What a module names with a leading underscore is its own: no other module of the grader reads
    ``module._name`` of a grader module it imported (``from . import wire`` then ``wire._x``)."""
    modules = grader_modules()
    reached = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        bound: set[str] = set()  # local names bound to grader modules
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                for alias in node.names:
                    if f"{base}.{alias.name}" in modules:
                        bound.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules and alias.asname:
                        bound.add(alias.asname)
            elif (  # the worker loads its kit modules by path: wire = _load("wire.py")
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "_load"
            ):
                bound.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                reached.append(f"{name}:{node.lineno}: {node.value.id}.{node.attr}")
    assert not reached, "\n".join(reached)


def absolute_imports(name: str, path: Path) -> list[tuple[str, int]]:
    """``(module named, line)`` for every import in ``path`` (of module ``name``), relative ones made absolute,
    whether or not the module named exists."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
            origin = ".".join(parts + ([node.module] if node.module else []))
            found += [(origin, node.lineno)] + [(f"{origin}.{a.name}", node.lineno) for a in node.names]
    return found


def test_the_course_reads_arguments_only_in_its_command_package_and_untrusted_moved() -> None:
    """Command lines apart from logic (issue 40): no module of ``grader/course/`` outside its command package
    ``grader/course/cli/`` imports argparse; and ``grader.untrusted``, which serves only the pytest front
    end, lives in ``grader/pytest/``: no module imports it from its old place."""
    modules = grader_modules()
    argparse_users: set[str] = set()
    old_untrusted: set[str] = set()
    for name, path in modules.items():
        for target, line in absolute_imports(name, path):
            if (
                target == "argparse"
                and inside(name, "grader.course")
                and not inside(name, "grader.course.cli")
            ):
                argparse_users.add(f"{name}:{line}")
            if inside(target, "grader.untrusted"):
                old_untrusted.add(f"{name}:{line}")
    assert not argparse_users, argparse_users
    assert not old_untrusted, old_untrusted
    assert "grader.untrusted" not in modules and "grader.pytest.untrusted" in modules
    assert any(
        t == "argparse"
        for t, _ in absolute_imports("grader.course.cli.kit", modules["grader.course.cli.kit"])
    )


#: The longest a function of ``grader/judge/`` may be (issue 40: the runners' 183- and 153-line functions of
#: closures were one idea written twice, and drifted); its lines from ``def`` to its last, as ``ast`` reads them.
JUDGE_FUNCTION_LINES = 80


def test_the_judges_functions_are_short_and_its_load_record_stays_typed() -> None:
    """No function in ``grader/judge/`` over :data:`JUDGE_FUNCTION_LINES` lines; the rounds of a measuring
    check keep their state in their object (:mod:`grader.judge.runners.paired`), not in closures over shared
    lists; and the typed ``Load`` record never goes through a dictionary there (``Load.from_dict(``)."""
    judge = GRADER / "judge"
    long, nested, through_dict = [], [], []
    for path in sorted(judge.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        functions = [
            n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        for node in functions:
            assert node.end_lineno is not None
            if (n := node.end_lineno - node.lineno + 1) > JUDGE_FUNCTION_LINES:
                long.append(f"{where}:{node.lineno} {node.name}: {n} lines")
            if path.parent.name == "runners" and path.stem in ("paired", "measurement", "curve"):
                inner = [
                    m
                    for m in ast.walk(node)
                    if m is not node and isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                ]
                nested += [f"{where}:{m.lineno} {m.name} inside {node.name}" for m in inner]
        through_dict += [
            f"{where}:{i}" for i, line in enumerate(source.splitlines(), 1) if "Load.from_dict(" in line
        ]
    assert not long, "\n".join(long)
    assert not nested, "\n".join(nested)
    assert not through_dict, "\n".join(through_dict)


#: A module path as docs/ARCHITECTURE.md writes one, in backticks or in its drawings: ``grader/sandbox/load.py``,
#: ``runners/cpuclock.py``, ``core.py`` (a pattern such as ``judge/runners/<kind>.py`` is not a path).
DOC_PATH = re.compile(r"(?<![\w/.<*-])((?:\w+/)*\w+\.py)\b")
#: A bullet of "What each room's modules hold": ``- `grader/<room>/`: ...`` and its lines up to the next bullet.
ROOM_BULLET = re.compile(r"^- `(grader/[\w/]+)/`:(.*?)(?=^- |^\S|\Z)", re.S | re.M)


def stale_doc_paths(text: str, root: Path) -> list[str]:
    """The module paths ``text`` names that no file under ``root`` has: a path with a folder must be the
    tail of one (``runners/busy.py``: ``grader/judge/runners/busy.py``); a bare name in a room's bullet
    (``- `grader/sandbox/`: ... (`load.py`)``) must be a module of that room, its subfolders included."""
    files = {p.relative_to(root).as_posix() for p in root.rglob("*.py") if ".venv" not in p.parts}
    stale = [
        path
        for path in DOC_PATH.findall(text)
        if "/" in path and not any(f == path or f.endswith("/" + path) for f in files)
    ]
    for room, body in ROOM_BULLET.findall(text):
        names = {Path(f).name for f in files if f.startswith(room + "/")}
        stale += [f"{room}/{name}" for name in re.findall(r"`(\w+\.py)`", body) if name not in names]
    return stale


def test_every_module_the_architecture_names_exists() -> None:
    """docs/ARCHITECTURE.md names no module that is not there (issue 48: it still named ``sandbox/handed.py``
    and ``compare/results.py`` after issue 40 renamed them away)."""
    stale = stale_doc_paths((ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8"), ROOT)
    assert not stale, stale


def test_the_path_checker_sees_a_stale_name(tmp_path: Path) -> None:
    """The rule above can fail: a renamed module, by path or by its bare name in its room's bullet, is found."""
    (tmp_path / "grader" / "sandbox").mkdir(parents=True)
    (tmp_path / "grader" / "sandbox" / "shared.py").write_text("", encoding="utf-8")
    text = (
        "- `grader/sandbox/`: the buffers (`shared.py`, once `handed.py`).\n"
        "- `grader/compare/`: nothing.\n\n"
        "see `sandbox/shared.py` and `sandbox/handed.py`; `judge/runners/<kind>.py` is a pattern\n"
    )
    assert stale_doc_paths(text, tmp_path) == ["sandbox/handed.py", "grader/sandbox/handed.py"]
