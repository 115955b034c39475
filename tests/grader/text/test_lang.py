"""The language when none is asked for: the course's setting in a pyproject.toml, else the locale."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from grader.text import lang as lang_module
from grader.text.lang import (
    Chosen,
    CourseLangError,
    choose_lang,
    command_lang,
    course_lang,
    lang_of_locale,
    locale_lang,
    locale_name,
    resolve_lang,
    switch_line,
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("zh_CN.UTF-8", "zh"),
        ("zh_TW", "zh"),
        ("Chinese (Simplified)_China", "zh"),
        ("en_US.UTF-8", "en"),
        ("de_DE", "en"),
        ("C", "en"),
        ("POSIX", "en"),
        ("", "en"),
    ],
)
def test_a_locale_name_says_chinese_or_else_english(name: str, expected: str) -> None:
    assert lang_of_locale(name) == expected


def test_the_locale_variables_in_gettexts_order() -> None:
    assert locale_lang({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert locale_lang({"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "en_GB"}) == "en"
    assert locale_lang({"LANG": "en_US", "LC_ALL": "zh_CN.UTF-8"}) == "zh"
    assert locale_lang({"LC_ALL": "C", "LANGUAGE": "zh_CN:en"}) == "zh"  # LANGUAGE's first entry counts
    assert locale_lang({"LANGUAGE": "", "LANG": "C.UTF-8"}) == "en"  # an empty one does not
    assert locale_lang({}) == "en"


def test_without_variables_the_process_locale_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in lang_module.LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(lang_module.locale, "getlocale", lambda: ("Chinese (Simplified)_China", "936"))
    assert locale_lang() == "zh"  # Windows names its locales so
    monkeypatch.setattr(lang_module.locale, "getlocale", lambda: (None, None))
    assert locale_lang() == "en"


def _pyproject(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(body, encoding="utf-8")
    return folder


def test_the_course_setting_is_read_from_the_folder_upwards(tmp_path: Path) -> None:
    kit = _pyproject(tmp_path / "kit", '[project]\nname = "perfkit"\n\n[tool.perfkit]\nlang = "en"\n')
    (kit / "exercises").mkdir()
    assert course_lang(kit / "exercises") == "en" and course_lang(kit) == "en"
    # the nearest pyproject.toml decides, even where it sets nothing
    inner = _pyproject(kit / "exercises" / "inner", '[project]\nname = "x"\n')
    assert course_lang(inner) is None


def test_a_course_setting_that_is_no_language_is_refused_with_the_file(tmp_path: Path) -> None:
    kit = _pyproject(tmp_path / "kit", '[tool.perfkit]\nlang = "fr"\n')
    with pytest.raises(CourseLangError, match="pyproject.toml.*fr"):
        course_lang(kit)


def test_on_a_command_line_a_refused_course_setting_is_the_usage_error(tmp_path: Path, capsys) -> None:
    kit = _pyproject(tmp_path / "kit", '[tool.perfkit]\nlang = "fr"\n')
    parser = argparse.ArgumentParser(prog="python -m grader watch")
    with pytest.raises(SystemExit) as exited:
        command_lang(parser, None, kit)
    assert exited.value.code == 2
    assert "python -m grader watch: error:" in capsys.readouterr().err
    assert command_lang(parser, "en", kit) == Chosen("en", "option")


def test_the_310_reader_finds_the_table_the_release_writes() -> None:
    text = '[project]\nlang = "zh"\n\n[tool.perfkit]\n# a comment\nlang = "en"\n\n[tool.other]\nlang = "zh"\n'
    assert lang_module._perfkit_lang_line(text) == "en"
    assert lang_module._perfkit_lang_line('[project]\nlang = "zh"\n') is None


def test_the_order_option_course_locale(tmp_path: Path) -> None:
    kit = _pyproject(tmp_path / "kit", '[tool.perfkit]\nlang = "en"\n')
    bare = tmp_path / "bare"
    bare.mkdir()
    chinese = {"LANG": "zh_CN.UTF-8"}
    assert resolve_lang("zh", kit, chinese) == "zh"  # the option first
    assert resolve_lang(None, kit, chinese) == "en"  # then the course
    if course_lang(bare) is None:  # no pyproject.toml above the temporary folder: the locale
        assert resolve_lang(None, bare, chinese) == "zh"
        assert resolve_lang(None, bare, {"LANG": "C"}) == "en"


def test_what_chose_the_language_is_said_with_it(tmp_path: Path) -> None:
    """choose_lang is resolve_lang with what chose: the option, the course's file, or the locale's variable."""
    kit = _pyproject(tmp_path / "kit", '[tool.perfkit]\nlang = "zh"\n')
    (kit / "exercises").mkdir()
    c_locale = {"LANG": "C.UTF-8"}
    assert choose_lang("en", kit, c_locale) == Chosen("en", "option")
    assert choose_lang(None, kit / "exercises", c_locale) == Chosen(
        "zh", "course", str(kit / "pyproject.toml")
    )
    bare = tmp_path / "bare"
    bare.mkdir()
    if course_lang(bare) is None:  # no pyproject.toml above the temporary folder: the locale
        assert choose_lang(None, bare, c_locale) == Chosen("en", "locale", "LANG=C.UTF-8")
        assert choose_lang(None, bare, {"LC_ALL": "zh_CN.UTF-8", "LANG": "C"}) == Chosen(
            "zh", "locale", "LC_ALL=zh_CN.UTF-8"
        )
        assert choose_lang(None, bare, {}) == Chosen("en", "locale", "LANG unset")
    assert locale_name({"LANGUAGE": "zh_TW:en", "LANG": "C"}) == "LANGUAGE=zh_TW" and locale_name({}) == ""
    for environ in ({"LANG": "C.UTF-8"}, {"LANGUAGE": "zh_TW:en"}, {}):  # the same rule as locale_lang
        assert resolve_lang(None, bare, environ) == choose_lang(None, bare, environ).lang


def test_the_switch_line_names_the_language_its_cause_and_the_other_in_its_own_words() -> None:
    """Issue 47 item 2: under LANG=C.UTF-8 a run is English and says how to have it in Chinese, in Chinese
    too; a Chinese run says how to have it in English, in English too."""
    english = switch_line(Chosen("en", "locale", "LANG=C.UTF-8"), "--lang")
    assert english == "Language: English (from the locale, LANG=C.UTF-8) · 中文：--lang zh"
    chinese = switch_line(Chosen("zh", "course", "/kit/pyproject.toml"), "--grader-lang")
    assert chinese.startswith("语言：中文") and "/kit/pyproject.toml" in chinese
    assert chinese.endswith("English: --grader-lang en")
    assert "--lang en" in switch_line(Chosen("zh", "option"), "--lang")
    assert "as the earlier run in grades" in switch_line(Chosen("en", "earlier", "grades"), "--lang")
