"""Undoing what student code did to the modules the grader relies on.

Before the grader runs student code (its import, each call) it takes a :class:`Snapshot` of the
*protected* modules, and restores it right after (``guarded()``):

- the ``__dict__`` of every loaded module named ``perfcore*`` or ``grader*``, and of ``math``, ``time``,
  ``statistics``, ``copy``, ``signal``, ``numpy`` (top level) and ``builtins``: keys added are removed
  (except a submodule that an import bound there), keys changed are put back;
- ``sys.modules`` entries of those modules, and each module's ``__class__``;
- the attribute dicts of the classes those perfcore/grader modules define, and of
  ``torch.utils.benchmark.Timer`` when it is loaded;
- ``__code__``, ``__defaults__`` and ``__kwdefaults__`` of the functions found there, so that rewriting a
  function's code in place is undone too.

Snapshots are taken right before student code rather than once per session, so that caches the grader's
own references fill in between (a machine profile, say) are kept. This protects grades against patching
by accident or by a casual hand; it is not a security boundary (a determined submission can walk the
garbage collector): batch-grade untrusted submissions in a container.
"""

from __future__ import annotations

import functools
import sys
import types
from dataclasses import dataclass, field
from typing import Any

PROTECTED_PREFIXES = ("perfcore", "grader")
PROTECTED_MODULES = ("math", "time", "statistics", "copy", "signal", "numpy", "builtins")
#: Classes outside perfcore/grader whose attribute dicts are protected: (module, class name).
PROTECTED_CLASSES = (("torch.utils.benchmark", "Timer"),)

_MISSING = object()
_FunctionType = types.FunctionType
_ModuleType = types.ModuleType


@functools.cache
def _is_protected(name: str) -> bool:
    # Cached: a snapshot walks every loaded module (thousands once torch is in) before each student call.
    return name in PROTECTED_MODULES or any(
        name == prefix or name.startswith(prefix + ".") for prefix in PROTECTED_PREFIXES
    )


@dataclass
class Snapshot:
    """The saved state of the protected modules, classes and functions."""

    modules: dict[str, tuple[types.ModuleType, type, dict[str, Any]]] = field(default_factory=dict)
    classes: list[tuple[type, dict[str, Any]]] = field(default_factory=list)
    functions: list[tuple[types.FunctionType, Any, Any, Any]] = field(default_factory=list)


def _collect_functions(values: Any, out: list) -> None:
    for value in values:
        if type(value) is _FunctionType:
            out.append((value, value.__code__, value.__defaults__, value.__kwdefaults__))
        elif isinstance(value, (staticmethod, classmethod)) and type(value.__func__) is _FunctionType:
            fn = value.__func__
            out.append((fn, fn.__code__, fn.__defaults__, fn.__kwdefaults__))


def take_snapshot() -> Snapshot:
    """Save the protected state (see the module docstring) as it is now."""
    snap = Snapshot()
    for name, module in list(sys.modules.items()):
        if module is None or not _is_protected(name):
            continue
        contents = dict(module.__dict__)
        snap.modules[name] = (module, type(module), contents)
        if name in PROTECTED_MODULES:
            continue
        _collect_functions(contents.values(), snap.functions)
        for value in contents.values():
            if isinstance(value, type) and getattr(value, "__module__", None) == name:
                attrs = dict(vars(value))
                snap.classes.append((value, attrs))
                _collect_functions(attrs.values(), snap.functions)
    for module_name, class_name in PROTECTED_CLASSES:
        owner = sys.modules.get(module_name)
        cls = getattr(owner, class_name, None) if owner is not None else None
        if isinstance(cls, type):
            attrs = dict(vars(cls))
            snap.classes.append((cls, attrs))
            _collect_functions(attrs.values(), snap.functions)
    return snap


def _restore_module(name: str, module: types.ModuleType, saved: dict[str, Any], changed: list[str]) -> None:
    current = module.__dict__
    for key in [k for k in current if k not in saved]:
        value = current[key]
        if isinstance(value, _ModuleType) and sys.modules.get(f"{name}.{key}") is value:
            continue  # an import of a submodule binds it on its parent: that is not a patch
        del current[key]
        changed.append(f"{name}.{key}")
    for key, value in saved.items():
        if current.get(key, _MISSING) is not value:
            current[key] = value
            changed.append(f"{name}.{key}")


def _restore_class(cls: type, saved: dict[str, Any], changed: list[str]) -> None:
    current = vars(cls)
    for key in [k for k in current if k not in saved]:
        try:
            delattr(cls, key)
            changed.append(f"{cls.__qualname__}.{key}")
        except (AttributeError, TypeError):
            pass
    for key, value in saved.items():
        if current.get(key, _MISSING) is not value:
            try:
                setattr(cls, key, value)
                changed.append(f"{cls.__qualname__}.{key}")
            except (AttributeError, TypeError):
                pass


def restore(snap: Snapshot) -> list[str]:
    """Put the protected state back as ``snap`` saved it; return the names of what had changed."""
    changed: list[str] = []
    for name, (module, module_type, saved) in snap.modules.items():
        if sys.modules.get(name) is not module:
            sys.modules[name] = module
            changed.append(f"sys.modules[{name!r}]")
        if type(module) is not module_type:
            module.__class__ = module_type
            changed.append(f"{name}.__class__")
        _restore_module(name, module, saved, changed)
    for cls, attrs in snap.classes:
        _restore_class(cls, attrs, changed)
    for fn, code, defaults, kwdefaults in snap.functions:
        if fn.__code__ is not code:
            fn.__code__ = code
            changed.append(f"{fn.__qualname__}.__code__")
        if fn.__defaults__ is not defaults:
            fn.__defaults__ = defaults
            changed.append(f"{fn.__qualname__}.__defaults__")
        if fn.__kwdefaults__ is not kwdefaults:
            fn.__kwdefaults__ = kwdefaults
            changed.append(f"{fn.__qualname__}.__kwdefaults__")
    return changed
