"""The messages only batch grading gives (Chinese, then English): what became of a student's files before any
check ran. Everything a check says comes from ``grader.messages``, as in every front end; the format is the
same, ``{key: (zh, en)}`` with ``str.format`` fields, rendered by the same ``grader.messages.render_from``.
"""

from __future__ import annotations

from typing import Any

from ..messages import render_from

MESSAGES: dict[str, tuple[str, str]] = {
    "file_missing": (
        "没有找到文件 {file}：这一题按未作答计。",
        "{file} was not found: the exercise counts as not attempted.",
    ),
    "file_link": (
        "{file} 是一个符号链接，评分器不跟随链接：请提交文件本身。",
        "{file} is a symbolic link, which the grader does not follow: hand in the file itself.",
    ),
    "file_too_big": (
        "{file} 有 {size} 字节，超过上限 {limit} 字节，没有评分。",
        "{file} has {size} bytes, over the limit of {limit}, and was not graded.",
    ),
}


def render(key: str, lang: str = "zh", **fields: Any) -> str:
    """The message ``key`` in ``lang`` ("zh" or "en") with ``fields`` filled in."""
    return render_from(MESSAGES, key, lang, fields)
