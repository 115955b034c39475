"""What ``python -m grader watch`` says (:mod:`grader.watch.cli`), in Chinese and English. Data only;
:mod:`grader.text.catalogue` renders it."""

from __future__ import annotations

from collections.abc import Mapping

WATCHING: Mapping[str, tuple[str, str]] = {
    "watch_no_folder": ("没有文件夹 {path}", "no folder {path}"),
    "watch_no_exercises": (
        "{path} 里还没有练习文件：保存一个（例如 ex01_ridge_point.py）就会评分。",
        "no exercise file in {path} yet: save one (e.g. ex01_ridge_point.py) and it is graded.",
    ),
    "watch_watching": (
        "正在监视 {path}：保存一个练习文件就重新评分它的检查；按 Ctrl-C 结束。",
        "watching {path}: save an exercise file and its checks are graded again; Ctrl-C ends the watch.",
    ),
    "watch_deleted": (
        "{file} 已删除：它的检查不再出现在表中。",
        "{file} was deleted: its checks leave the table.",
    ),
    "watch_not_exercise": (
        "{file} 不是练习文件，不评分（练习文件：{known}）。",
        "{file} is not an exercise file and is not graded (the exercise files: {known}).",
    ),
    "watch_cancelled": (
        "{file} 又保存了：上一次评分已取消，重新评分。",
        "{file} was saved again: its earlier grading is cancelled, graded again.",
    ),
    "watch_measuring": (
        "{file}：测量在后台进行（可继续编辑；再次保存会重新开始）……",
        "{file}: measuring in the background (keep editing; a new save starts it again)...",
    ),
    "watch_live": ("⏳ {file}：测量中，已 {seconds} 秒", "⏳ {file}: measuring, {seconds} s so far"),
    "watch_run_failed": (
        "{file} 的评分没有完成（状态 {status}）：再保存一次，或运行 pytest {file} 看看。",
        "{file}'s grading did not finish (status {status}): save it again, or run pytest {file} to see why.",
    ),
    "watch_done": (
        "{file}：保存后 {seconds} 秒给出反馈。",
        "{file}: feedback {seconds} s after the save.",
    ),
    "watch_table_title": ("所有已评分的练习", "every exercise graded so far"),
    "watch_ended": (
        "监视已结束，没有留下运行中的进程；下次 pytest exercises/ 会沿用这里的结果。",
        "the watch ended with nothing left running; the next pytest exercises/ reuses what it decided.",
    ),
}
