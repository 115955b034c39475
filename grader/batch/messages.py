"""The messages of batch grading that a student sees (Chinese, then English), and their rendering.

Kept apart from ``grader.messages`` (the runner's and the plugin's table) so that batch grading can grow
without touching it; the format is the same, ``{key: (zh, en)}`` with ``str.format`` fields, rendered by the same
``grader.messages.render_from``.
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
    "died_exit": (
        "评分进程在{step}时结束了（退出码 {code}）：你的代码调用了 os._exit、关闭了评分器的通道或以别的方式"
        "结束了进程。",
        "The grading process ended during {step} (exit status {code}): your code called os._exit, closed the "
        "grader's channel or otherwise ended the process.",
    ),
    "died_timeout": (
        "{step}超过了墙钟时间上限 {limit} 秒，评分器结束了进程（你的代码可能屏蔽了超时信号，或卡在不能中断的"
        "调用里）。",
        "{step} ran past the wall-clock limit of {limit} s and the grader ended the process (your code may "
        "have blocked the timeout signal or be stuck in a call that cannot be interrupted).",
    ),
    "died_cpu": (
        "评分进程在{step}时用完了 CPU 时间上限 {limit} 秒。",
        "The grading process used up its CPU-time limit of {limit} s during {step}.",
    ),
    "died_memory": (
        "评分进程在{step}时用完了内存上限 {limit}。",
        "The grading process ran out of memory (limit {limit}) during {step}.",
    ),
    "died_output": (
        "评分进程在{step}时写出的数据超过了上限 {limit}。",
        "The grading process wrote more than the limit of {limit} during {step}.",
    ),
    "died_signal": (
        "评分进程在{step}时被信号 {signal} 结束了。",
        "The grading process was killed by signal {signal} during {step}.",
    ),
    "tampered": (
        "评分器的结果通道收到了不符合顺序的内容（{detail}）：这一项记 0 分。",
        "The grader's result channel received something out of order ({detail}): this check scores 0.",
    ),
    "grader_failed": (
        "评分器自身出错了（不是你的问题），请告诉老师：{detail}",
        "The grader itself failed (not your fault); please tell your instructor: {detail}",
    ),
    "step_startup": ("启动评分器", "the grader's start-up"),
    "step_prepare": ("准备练习 {exercise} 的参考答案", "preparing the references of exercise {exercise}"),
    "step_import": ("导入 {file}", "the import of {file}"),
    "step_check": ("检查 {check}", "check {check}"),
    "log": ("进程输出的最后几行：\n{log}", "The last lines the process printed:\n{log}"),
}


def render(key: str, lang: str = "zh", **fields: Any) -> str:
    """The message ``key`` in ``lang`` ("zh" or "en") with ``fields`` filled in."""
    return render_from(MESSAGES, key, lang, fields)
