"""Functions a student has not touched yet, read from the file's source without running it.

A stub's function is its docstring and ``raise NotImplementedError()`` (:mod:`grader.course.stubs`). Where
the student's file still has such a function, its check is "not attempted" before anything is done for it:
no worker imports the file for it, no expected value or input is prepared, no torch is imported and
perfcore's reference is not started (an untouched kit's first run cost 4.5x the answered formula part,
most of it for measurements whose functions had not been written).

Reading is conservative: a function counts as untouched only where nothing else in the file could bind its
name at run time: one plain ``def`` at the top level, no decorator, the name assigned, imported or declared
``global`` nowhere else, and none of the dynamic ways of binding a name (``globals()``, ``setattr``,
``exec``, ``sys.modules``, ...) anywhere in the file. Everything else is called and judged as usual, so the
worst this can do is spare a call that would have raised ``NotImplementedError`` anyway. A missing function
is not read as untouched: the file is imported, so that an import that fails says so.
"""

from __future__ import annotations

import ast
import functools
import os
import sys

#: Names whose presence anywhere in a file could rebind a function at run time: a file with any of them is
#: not read for untouched functions (each of its functions is called as usual).
DYNAMIC_NAMES = frozenset(
    {
        "globals",
        "locals",
        "vars",
        "setattr",
        "exec",
        "eval",
        "compile",
        "__dict__",
        "__import__",
        "modules",
        "importlib",
        "builtins",
        "__builtins__",
        "__getattr__",
        "__class__",
    }
)


def untouched_in(path: str) -> frozenset[str]:
    """:func:`untouched_functions` of the file at ``path``, read once per version of it (its modification
    time and size); none where it cannot be read."""
    try:
        stat = os.stat(path)
    except OSError:
        return frozenset()
    return _read(os.path.realpath(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _read(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return untouched_functions(fh.read())
    except OSError:
        return frozenset()


def untouched_functions(source: str) -> frozenset[str]:
    """The names of the top-level functions in ``source`` that are still the stub's: their body a docstring
    (or nothing), imports of :data:`LIBRARIES` and ``raise NotImplementedError`` or
    ``raise NotImplementedError()``, and nothing else in the file able to bind their name (see the module's
    docstring). None where the source does not parse (its import says what is wrong)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    used = _names_used(tree)
    if used & DYNAMIC_NAMES or "*" in used:
        return frozenset()
    defined: dict[str, int] = {}
    stubs: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined[node.name] = defined.get(node.name, 0) + 1
            if isinstance(node, ast.FunctionDef) and not node.decorator_list and _raises_only(node):
                stubs.add(node.name)
    bound_elsewhere = _bound_names(tree)
    return frozenset(name for name in stubs if defined[name] == 1 and name not in bound_elsewhere)


#: Libraries a stub's function may import before its ``raise`` (ex10's stub keeps ``import torch`` there, so
#: that its other function needs no torch): the standard library's and these; never a module of the
#: student's, whose import could run code of theirs.
LIBRARIES = frozenset(sys.stdlib_module_names) | {"numpy", "torch"}


def _raises_only(node: ast.FunctionDef) -> bool:
    """Whether ``node``'s body is an optional docstring, imports of :data:`LIBRARIES`, and
    ``raise NotImplementedError[()]``."""
    body = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    while body and _library_import(body[0]):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].cause is not None:
        return False
    exc = body[0].exc
    if isinstance(exc, ast.Call):
        if exc.args or exc.keywords:
            return False
        exc = exc.func
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def _names_used(tree: ast.Module) -> set[str]:
    """Every name the module reads or writes, every attribute it reaches for and every module it imports
    (a keyword argument's name, such as ``Timer(globals=...)``'s, is none of them)."""
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, ast.Import):
            used.update(part for a in node.names for part in a.name.split("."))
        elif isinstance(node, ast.ImportFrom):
            used.update((node.module or "").split("."))
            used.update(a.name for a in node.names)
    return used


def _library_import(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import):
        return all(a.name.split(".")[0] in LIBRARIES for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and (node.module or "").split(".")[0] in LIBRARIES
    return False


def _bound_names(tree: ast.Module) -> set[str]:
    """Every name the module binds other than by a top-level ``def`` or ``class``: assigned, imported,
    declared global or nonlocal, a loop or ``with`` target, an exception's name, a nested definition."""
    stub_imports = {
        id(inner)
        for n in tree.body
        if isinstance(n, ast.FunctionDef)
        for inner in n.body
        if _library_import(inner)
    }
    top_defs = {
        id(n) for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in stub_imports:
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and id(node) not in top_defs
        ):
            bound.add(node.name)
        elif isinstance(node, ast.MatchAs) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchStar) and node.name:
            bound.add(node.name)
    return bound
