"""Functions still the stub's, read from a student's source (grader/judge/untouched.py): only where nothing in
the file could bind the name otherwise; anything else is called and judged as usual."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from grader.course.stubs import strip_solutions
from grader.judge.untouched import untouched_functions, untouched_in

ROOT = Path(__file__).resolve().parents[3]


def _untouched(source: str) -> frozenset[str]:
    return untouched_functions(textwrap.dedent(source))


def test_the_stubs_forms_are_untouched() -> None:
    assert _untouched(
        '''
        import torch

        def a(x):
            """doc"""
            # YOUR CODE HERE
            raise NotImplementedError()

        def b():
            raise NotImplementedError

        def c():
            return 1
        '''
    ) == {"a", "b"}


@pytest.mark.parametrize(
    "source",
    [
        "def f():\n    raise NotImplementedError('later')\n",  # not the stub's raise
        "def f():\n    x = 1\n    raise NotImplementedError()\n",
        "def f():\n    raise NotImplementedError()\nf = lambda: 1\n",  # bound again
        "def f():\n    raise NotImplementedError()\ndef f():\n    return 1\n",  # defined twice
        "import functools\n@functools.cache\ndef f():\n    raise NotImplementedError()\n",  # decorated
        "def f():\n    raise NotImplementedError()\nfrom helper import f\n",  # imported over it
        "def f():\n    raise NotImplementedError()\ndef g():\n    global f\n    f = 1\n",
        "def f():\n    raise NotImplementedError()\nglobals()['f'] = print\n",  # dynamic binding
        "def f():\n    raise NotImplementedError()\nimport sys\nsetattr(sys.modules[__name__], 'f', print)\n",
        "def f():\n    raise NotImplementedError()\nfor f in [print]:\n    pass\n",
        "def f(:\n    raise NotImplementedError()\n",  # does not parse: the import says so
        "def f():\n    raise NotImplementedError() from None\n",
    ],
)
def test_anything_that_could_bind_the_name_otherwise_is_called(source: str) -> None:
    assert "f" not in untouched_functions(source)


def test_every_stub_of_the_kit_reads_as_untouched_and_no_solution_does() -> None:
    """The stubs are generated from solutions/ (grader/course/stubs.py): each graded function of a stub is
    untouched, and none of the solutions' is."""
    from grader.registry import load_exercises

    for exercise in load_exercises().values():
        solution = (ROOT / "solutions" / f"{exercise.module}.py").read_text(encoding="utf-8")
        stub = strip_solutions(solution, exercise.module)
        funcs = {c.func for c in exercise.checks}
        assert funcs <= untouched_functions(stub), exercise.id
        assert not funcs & untouched_functions(solution), exercise.id


def test_a_file_is_read_again_once_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "s.py"
    path.write_text("def f():\n    raise NotImplementedError()\n", encoding="utf-8")
    assert untouched_in(str(path)) == {"f"}
    path.write_text("def f():\n    return 2.0  # answered, one byte longer\n", encoding="utf-8")
    assert "f" not in untouched_in(str(path))
    assert "f" not in untouched_in(str(tmp_path / "absent.py"))  # unreadable: everything is called
