"""What only batch grading and the course tools say (Chinese, then English): what became of a student's files
before any check ran, what copying a student's folder left out, what nbgrader's autograde says of a deferred
check, and which extra a command needs. Data only; :mod:`grader.text.catalogue` renders it.
"""

from __future__ import annotations

from collections.abc import Mapping

BATCH: Mapping[str, tuple[str, str]] = {
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
    # what copying a student's folder left out (grader.batch.submissions.copy_folder), said in the student's notes
    "left_deep": (
        "有 {count} 个文件夹比 {limit} 层还深，评分器没有进去，里面的文件都没有复制：{examples}",
        "folders deeper than {limit} levels were not entered, nor their files copied ({count} of them): "
        "{examples}",
    ),
    "left_many": (
        "评分器最多复制 {limit} 个文件，其余 {count} 个没有复制：{examples}",
        "the grader copies at most {limit} files; the other {count} were not copied: {examples}",
    ),
    "left_bytes": (
        "评分器一共最多复制 {limit} 字节，有 {count} 个文件因此没有复制：{examples}",
        "the grader copies at most {limit} bytes in all, so files were left out ({count} of them): {examples}",
    ),
    "left_big": (
        "有 {count} 个文件超过 {limit} 字节，没有复制：{examples}",
        "files over {limit} bytes were not copied ({count} of them): {examples}",
    ),
    "left_links": (
        "有 {count} 个符号链接，评分器不跟随链接，没有复制：{examples}",
        "symbolic links, which the grader does not follow, were not copied ({count} of them): {examples}",
    ),
    "left_unreadable": (
        "有 {count} 个文件或文件夹读不出来，没有复制：{examples}",
        "files or folders that could not be read were not copied ({count} of them): {examples}",
    ),
    "left_cut": (
        "你的文件夹里超过 {limit} 项，评分器只看了前 {limit} 项，其余的没有复制。",
        "your folder holds over {limit} entries: the grader looked at {limit} and copied none of the rest.",
    ),
    "nb_deferred_by_hand": (
        "这项检查延后了：这门课（--deferred defer）把它留给老师手动评分，自动评分前不计分。",
        "this check was deferred: the course (--deferred defer) leaves it to the instructor to grade by hand; "
        "until then it scores nothing.",
    ),
    "missing_extra": (
        '{command} 需要可选依赖 {extra}（缺少模块 {module}）：pip install -e ".[{extra}]"',
        '{command} needs the {extra} extra (no module {module}): pip install -e ".[{extra}]"',
    ),
}
