"""Which language a front end speaks when none is asked for: the course's setting, else the locale.

``resolve_lang(given, folder)``: ``given`` (``--grader-lang``, ``--lang``) where there is one; else the
course's setting, ``lang`` of the ``[tool.perfkit]`` table in the first ``pyproject.toml`` found from
``folder`` upwards (``python -m grader release --lang`` writes it into the student's kit); else the locale:
Chinese where it names Chinese (``zh_CN.UTF-8``, Windows' ``Chinese (Simplified)_China``), English
otherwise, ``C`` and unset included.
"""

from __future__ import annotations

import locale
import os
import re
from collections.abc import Mapping
from pathlib import Path

from .catalogue import LANGS

try:  # Python 3.11+; on 3.10 the one table the release writes is read by _perfkit_lang_line
    import tomllib
except ImportError:  # pragma: no cover - Python 3.10
    tomllib = None

#: The environment variables that name the language of messages, in GNU gettext's order: LANGUAGE (a
#: colon-separated list, its first entry counts), then LC_ALL, LC_MESSAGES and LANG.
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_SECTION = re.compile(r"^\s*\[\s*tool\s*\.\s*perfkit\s*\]\s*(?:#.*)?$")
_LANG_LINE = re.compile(r"""^\s*lang\s*=\s*["']([^"']*)["']\s*(?:#.*)?$""")


class CourseLangError(ValueError):
    """A course setting that names no language of the catalogue; the message names the file."""


def lang_of_locale(name: str) -> str:
    """``"zh"`` for a locale name that says Chinese, ``"en"`` for any other (``"C"``, ``""`` too)."""
    name = name.strip().lower()
    return "zh" if name.startswith(("zh", "chinese")) else "en"


def locale_lang(environ: Mapping[str, str] | None = None) -> str:
    """The language the locale asks for: the first of :data:`LOCALE_VARIABLES` that is set, else (as on
    Windows, where none usually is) the process's locale."""
    env = os.environ if environ is None else environ
    for variable in LOCALE_VARIABLES:
        value = env.get(variable, "").split(":")[0]
        if value:
            return lang_of_locale(value)
    if environ is not None:
        return "en"
    try:
        name = locale.getlocale()[0] or ""
    except ValueError:  # an unknown locale name in the environment of the process
        name = ""
    return lang_of_locale(name)


def _perfkit_lang_line(text: str) -> str | None:
    """``lang`` of the ``[tool.perfkit]`` table, read line by line (Python 3.10 has no tomllib)."""
    inside = False
    for line in text.splitlines():
        if line.strip().startswith("["):
            inside = bool(_SECTION.match(line))
        elif inside and (match := _LANG_LINE.match(line)):
            return match.group(1)
    return None


def course_lang(folder: str | os.PathLike[str]) -> str | None:
    """``lang`` of ``[tool.perfkit]`` in the first ``pyproject.toml`` from ``folder`` upwards; None where
    that file sets none (or there is no such file). A value that is no language is a CourseLangError."""
    start = Path(folder).resolve()
    for place in (start, *start.parents):
        path = place / "pyproject.toml"
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        if tomllib is not None:
            try:
                table = tomllib.loads(text).get("tool", {}).get("perfkit", {})
            except tomllib.TOMLDecodeError:
                return None  # pytest and pip say what is wrong with it; the language is not theirs to stop
            value = table.get("lang") if isinstance(table, dict) else None
        else:  # pragma: no cover - Python 3.10
            value = _perfkit_lang_line(text)
        if value is None:
            return None
        if value not in LANGS:
            raise CourseLangError(f"{path}: [tool.perfkit] lang must be one of {LANGS}, got {value!r}")
        return str(value)
    return None


def resolve_lang(
    given: str | None, folder: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> str:
    """``given`` where there is one, else the course's setting from ``folder`` upwards, else the locale."""
    if given:
        return given
    return course_lang(folder) or locale_lang(environ)
