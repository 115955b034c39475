"""What only the HTML report says, Chinese and English: its headings, the plots' captions and alt texts, the
field names of the feedback, and the states' signs. The states' names and the table's headings are the
grader's (:mod:`grader.text.grading`), so the page and the terminal table say the same thing. Data only;
:mod:`grader.text.catalogue` renders it.
"""

from __future__ import annotations

from collections.abc import Mapping

REPORT: Mapping[str, tuple[str, str]] = {
    "page_title": ("perfkit 评分报告", "perfkit grading report"),
    "index_title": ("perfkit 评分：全班", "perfkit grades: the class"),
    "generated": ("生成于 {when}，语言：中文", "Written {when}; language: English"),
    "machine": ("机器：{machine}", "Machine: {machine}"),
    "summary": ("总览", "Summary"),
    "total": ("总分", "Total"),
    "score_of": ("{score} / {max}", "{score} / {max}"),
    "deferred_heading": ("暂缓计分", "Deferred points"),
    "deferred_mark": (
        "*：暂缓计分，原因见“暂缓计分”一节",
        "*: deferred; the reason is under Deferred points",
    ),
    "deferred_none": ("没有暂缓计分的检查。", "No check was deferred."),
    "deferred_intro": (
        "这些检查在本机上无法公平评分，分数 {points} 分{how}；原因如下。",
        "These checks could not be graded fairly on this machine: {points} points {how}. The reasons:",
    ),
    "deferred_defer": ("不计入满分", "left out of the maximum"),
    "deferred_zero": ("按 0 分计入", "counted as zero"),
    "exercise_score": ("本题得分：{score}", "Score of this exercise: {score}"),
    "checks_caption": ("{exercise} 的每一项检查", "Every check of {exercise}"),
    "col_feedback": ("反馈", "feedback"),
    "field_expected": ("期望", "expected"),
    "field_got": ("得到", "got"),
    "field_input": ("输入", "input"),
    "field_tolerance": ("容差", "tolerance"),
    "field_hint": ("提示", "hint"),
    "field_measured": ("测得（中位数）", "measured (median)"),
    "field_message": ("说明", "message"),
    "measured_value": (
        "你的 {mine}，perfcore 的 {reference}（{rounds} 轮）",
        "yours {mine}, perfcore's {reference} ({rounds} rounds)",
    ),
    "plots_heading": ("测量图", "Measurement plots"),
    "no_plots_matplotlib": (
        '这些测量的图需要 matplotlib：pip install -e ".[plot]"（表格里已有全部数值）。',
        'The plots of these measurements need matplotlib: pip install -e ".[plot]" (the tables hold '
        "every figure).",
    ),
    "plot_failed": ("这张图没能画出来：{error}", "This plot could not be drawn: {error}"),
    "plot_caption": ("测量于 {machine}，{when}。", "Measured on {machine}, {when}."),
    "drawn_caption": ("画于 {machine}，{when}。", "Drawn on {machine}, {when}."),
    # alt texts (the SVG's <title> and <desc>): what the plot shows, in words
    "alt_bandwidth": (
        "带宽柱状图：你的、perfcore 的和上限",
        "Bandwidth bars: yours, perfcore's and the ceiling",
    ),
    "desc_bandwidth": ("{items}。", "{items}."),
    "alt_roofline": (
        "你的扫描和 perfcore 的扫描，画在本机实测的 roofline 上，旁边是 H100 的 roofline",
        "Your sweep and perfcore's on this machine's measured roofline, beside the H100 roofline",
    ),
    "desc_roofline": (
        "本机：带宽上限 {bw}，算力上限 {peak}，脊点 {ridge} FLOP/字节。你的点：{mine}。perfcore 的点：{reference}。"
        "H100（FP32）上同样的运算：{gpu}。",
        "This machine: bandwidth ceiling {bw}, compute ceiling {peak}, ridge {ridge} FLOP/byte. Your points: "
        "{mine}. perfcore's points: {reference}. The same operations on the H100 (FP32): {gpu}.",
    ),
    "desc_no_profile": ("本机的上限没有缓存的测量", "no cached measurement of this machine's ceilings"),
    "alt_overhead": (
        "开销曲线（对数坐标）：你的和 perfcore 的，标出固定开销的底线",
        "Overhead curve (log-log): yours and perfcore's, with the fixed-overhead floor marked",
    ),
    "desc_overhead": (
        "固定开销底线 {floor}。你的曲线：{mine}。perfcore 的曲线：{reference}。",
        "Fixed-overhead floor {floor}. Your curve: {mine}. perfcore's curve: {reference}.",
    ),
    "alt_speedup": ("加速比：你测的和 perfcore 测的", "Speedups: yours and perfcore's"),
    "desc_speedup": ("{items}。", "{items}."),
    "alt_histogram": ("全班总分的分布", "The distribution of the class's total scores"),
    "desc_histogram": ("{n} 名学生，总分：{scores}。", "{n} students, totals: {scores}."),
    # the index page
    "students": ("学生", "Students"),
    "student": ("学生", "student"),
    "max": ("满分", "maximum"),
    "deferred_points": ("暂缓", "deferred"),
    "page": ("页面", "page"),
    "open_page": ("打开 {name} 的报告", "open {name}'s report"),
    "distribution": ("每项检查的结果分布", "Outcomes per check"),
    "distribution_caption": (
        "每项检查：各状态的学生人数和平均得分",
        "Each check: the number of students in each state and the mean points",
    ),
    "mean_points": ("平均得分", "mean points"),
    "histogram": ("总分分布", "Distribution of totals"),
    "no_students": ("没有评分的学生。", "No student was graded."),
    "no_outcomes": ("没有评分的练习。", "No exercise was graded."),
}

#: A sign beside each state's name, so that a state never rests on colour alone (and prints in black).
STATE_SIGNS = {
    "passed": "✔",
    "wrong": "✘",
    "not_attempted": "○",
    "error": "⚠",
    "timeout": "◷",  # a clock face from Geometric Shapes, which every font in use has (⏱ often is missing)
    "skipped": "↷",
}
