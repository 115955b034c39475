"""Which language a front end speaks when none is asked for: the course's setting, else the locale.

``resolve_lang(given, folder)``: ``given`` (``--grader-lang``, ``--lang``) where there is one; else the
course's setting, ``lang`` of the ``[tool.perfkit]`` table in the first ``pyproject.toml`` found from
``folder`` upwards (``python -m grader release --lang`` writes it into the student's kit); else the locale:
Chinese where it names Chinese (``zh_CN.UTF-8``, Windows' ``Chinese (Simplified)_China``), English
otherwise, ``C`` and unset included. :func:`choose_lang` also says which of the three chose, and
:func:`switch_line` is the line every front end prints: the language, what chose it, how to switch.
"""

from __future__ import annotations

import argparse
import locale
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from .catalogue import LANGS, render

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


def locale_name(environ: Mapping[str, str] | None = None) -> str:
    """The locale :func:`locale_lang` read, as ``LANG=C.UTF-8`` (the variable that decided), or the process's
    locale's name, or ``""``."""
    env = os.environ if environ is None else environ
    for variable in LOCALE_VARIABLES:
        value = env.get(variable, "").split(":")[0]
        if value:
            return f"{variable}={value}"
    if environ is not None:
        return ""
    try:
        return locale.getlocale()[0] or ""
    except ValueError:
        return ""


def locale_lang(environ: Mapping[str, str] | None = None) -> str:
    """The language the locale asks for: the first of :data:`LOCALE_VARIABLES` that is set, else (as on
    Windows, where none usually is) the process's locale."""
    return lang_of_locale(locale_name(environ).partition("=")[2] or locale_name(environ))


def _perfkit_lang_line(text: str) -> str | None:
    """``lang`` of the ``[tool.perfkit]`` table, read line by line (Python 3.10 has no tomllib)."""
    inside = False
    for line in text.splitlines():
        if line.strip().startswith("["):
            inside = bool(_SECTION.match(line))
        elif inside and (match := _LANG_LINE.match(line)):
            return match.group(1)
    return None


def course_file(folder: str | os.PathLike[str]) -> Path | None:
    """The first ``pyproject.toml`` from ``folder`` upwards: the file the course's setting is read from."""
    start = Path(folder).resolve()
    return next(
        (p / "pyproject.toml" for p in (start, *start.parents) if (p / "pyproject.toml").is_file()), None
    )


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


class Chosen(NamedTuple):
    """The language a run speaks and what chose it: ``"option"`` (``given``), ``"course"`` (the course's
    setting, ``where`` its ``pyproject.toml``) or ``"locale"`` (``where`` the variable that decided)."""

    lang: str
    by: str
    where: str = ""


def choose_lang(
    given: str | None, folder: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> Chosen:
    """The one rule of every front end: ``given`` where there is one, else the course's setting from
    ``folder`` upwards, else the locale; with what chose it, for the line that says how to switch."""
    if given:
        return Chosen(given, "option")
    course = course_lang(folder)
    if course is not None:
        return Chosen(course, "course", str(course_file(folder) or ""))
    return Chosen(locale_lang(environ), "locale", locale_name(environ) or "LANG unset")


def command_lang(
    parser: argparse.ArgumentParser, given: str | None, folder: str | os.PathLike[str]
) -> Chosen:
    """:func:`choose_lang` for a command line (``python -m grader FILE``, ``watch``, ``gradescope``,
    ``notebooks``): a course setting that cannot be read is the command's usage error (``parser.error``:
    exit 2, the message on stderr)."""
    try:
        return choose_lang(given, folder)
    except CourseLangError as exc:
        parser.error(str(exc))


def resolve_lang(
    given: str | None, folder: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> str:
    """``given`` where there is one, else the course's setting from ``folder`` upwards, else the locale."""
    return choose_lang(given, folder, environ).lang


def switch_line(chosen: Chosen, option: str) -> str:
    """The line every front end prints with its output: the language, what chose it, and how to switch
    (``option``: ``--lang``, ``--grader-lang``), the other language's words beside it, so that a reader of
    either finds it."""
    other = next(lang for lang in LANGS if lang != chosen.lang)
    why = render(f"lang_by_{chosen.by}", chosen.lang, option=option, where=chosen.where)
    return render("lang_switch", chosen.lang, why=why, option=option, other=other)
