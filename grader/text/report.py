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
    # the pages' own line: any front end may have written them
    "page_lang_switch": (
        "语言：中文 · English: --lang en（pytest：--grader-lang en）",
        "Language: English · 中文：--lang zh (pytest: --grader-lang zh)",
    ),
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
    "plots_not_attempted": (
        "这个练习还没有作答：没有你的测量，所以不画图。",
        "This exercise is not attempted yet: there is no measurement of yours, so nothing is plotted.",
    ),
    "plots_labels_english": (
        "图中的文字是英文：本机的 matplotlib 找不到中文字体（例如装上 fonts-noto-cjk 即可）。",
        "The plots' labels are in English: matplotlib here finds no Chinese font.",
    ),
    # the words drawn on the plots, in the page's language where matplotlib has a font for it
    "plot_yours": ("你的", "yours"),
    "plot_perfcore": ("perfcore", "perfcore"),
    "plot_ceiling": ("上限（{what}）", "ceiling ({what})"),
    "plot_ceiling_dram": ("DRAM 拷贝，实测", "DRAM copy, measured"),
    "plot_ceiling_core": ("物理上限，单核", "physical bound, one core"),
    "plot_ceiling_gpu": ("物理上限，GPU", "physical bound, GPU"),
    "plot_probe": ("{check} 探测", "{check} probe"),
    "plot_bandwidth_log": ("带宽（对数坐标）", "bandwidth (log scale)"),
    "plot_bandwidth_title": ("带宽：你的、perfcore 的、上限", "Bandwidth: yours, perfcore's, the ceiling"),
    "plot_peak": ("实测的算力上限 {peak}", "measured peak {peak}"),
    "plot_level_roof": (
        "{level} 的屋顶：{bw}（实测），脊点 {ridge}",
        "{level} roof: {bw} (measured), ridge {ridge}",
    ),
    "plot_roof_missing": (
        "{level} 的屋顶没有画：本机的 profile 没有高于 DRAM 的 {level} 带宽",
        "{level} roof not drawn: this machine's profile has no {level} bandwidth above DRAM's",
    ),
    "plot_level_range": (
        "工作集在 {level}（{size}）：m = {ms}，{sizes}",
        "working set in {level} ({size}): m = {ms}, {sizes}",
    ),
    "plot_level_range_dram": (
        "工作集在 DRAM（超出各级缓存）：m = {ms}，{sizes}",
        "working set in DRAM (past the caches): m = {ms}, {sizes}",
    ),
    "plot_gpu_roof": ("{gpu}：{peak}，{bw}，脊点 {ridge}", "{gpu}: {peak}, {bw}, ridge {ridge}"),
    "plot_your_sweep": ("你的扫描", "your sweep"),
    "plot_perfcore_sweep": ("perfcore 的扫描", "perfcore's sweep"),
    "plot_intensity": ("算术强度（FLOP/字节）", "arithmetic intensity (FLOP/byte)"),
    "plot_this_machine": ("本机，实测", "This machine, measured"),
    "plot_no_ceilings": ("本机（没有缓存的上限）", "This machine (no cached ceilings)"),
    "plot_attainable": ("可达 FLOP/s（模型）", "attainable FLOP/s (model)"),
    "plot_gpu_roofline": ("{gpu} 的屋顶线，同样的运算", "{gpu} roofline, the same operations"),
    "plot_same_ops": ("同样的运算", "the same operations"),
    "plot_fixed_overhead": (
        "固定开销 ≈ {floor}（perfcore 最快的一次调用）",
        "fixed overhead ≈ {floor} (perfcore's fastest call)",
    ),
    "plot_elements": ("元素个数", "elements"),
    "plot_seconds_per_call": ("每次调用的秒数", "seconds per call"),
    "plot_overhead_title": ("开销：时间随规模（双对数坐标）", "Overhead: time against size (log-log)"),
    "plot_speedup": ("加速比（倍）", "speedup (x)"),
    "plot_speedup_title": ("加速比：你的和 perfcore 的", "Speedups: yours and perfcore's"),
    "plot_total_score": ("总分", "total score"),
    "plot_students": ("学生人数", "students"),
    "plot_totals_title": ("全班的总分", "Totals of the class"),
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
        "本机：{roofs}。{levels}你的点：{mine}。perfcore 的点：{reference}。H100（FP32）上同样的运算：{gpu}。",
        "This machine: {roofs}. {levels} Your points: {mine}. perfcore's points: {reference}. The same "
        "operations on the H100 (FP32): {gpu}.",
    ),
    "desc_roofs": (
        "算力上限 {peak}，实测带宽 {roofs}",
        "compute ceiling {peak}, measured bandwidths {roofs}",
    ),
    "desc_no_profile": ("本机的上限没有缓存的测量", "no cached measurement of this machine's ceilings"),
    "desc_levels": ("工作集所在的级别：{items}。", "Where the working set sits: {items}."),
    "desc_level": ("{level}（m = {ms}）", "{level} for m = {ms}"),
    "desc_levels_unknown": (
        "不知道这次扫描的工作集在哪一级。",
        "Which level the sweep's working sets sit in is not known.",
    ),
    "desc_roofs_missing": (
        "本机的 profile 没有高于 DRAM 的 {levels} 带宽（没有测，或测出来不比 DRAM 快），所以没有画它的屋顶。",
        "This machine's profile has no bandwidth above DRAM's for {levels} (not measured, or measured no "
        "faster than DRAM), so no roof is drawn for it.",
    ),
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
    # the index ranked by percentage (issue 39): maxima differ where checks were deferred
    "percent": ("得分率 %", "percent"),
    "rank": ("名次", "rank"),
    "students_ranked": (
        "学生，按得分率（得分占计入的满分的百分比）排名",
        "Students, ranked by percentage (the score over the maximum counted for them)",
    ),
    "graded_students": ("已评分人数", "graded"),
    "mean_points_graded": ("平均得分（已评分的学生）", "mean points (graded students)"),
    "distribution_caption_graded": (
        "每项检查：各状态的学生人数；平均得分只算在这项检查上评了分的学生，暂缓计分的不算",
        "Each check: the number of students in each state; the mean points count only the students graded "
        "on it, never a deferred check",
    ),
    "histogram_percent": ("得分率分布", "Distribution of percentages"),
    "plot_percent": ("得分率（占计入的满分，%）", "score (% of the maximum counted)"),
    "plot_percent_title": ("全班的得分率", "Scores of the class, in percent"),
    "alt_histogram_percent": ("全班得分率的分布", "The distribution of the class's percentages"),
    "desc_histogram_percent": ("{n} 名学生，得分率：{scores}。", "{n} students, percentages: {scores}."),
    "passed_folded": ("{n} 项检查全部通过（展开查看）", "{n} checks passed (open to see them)"),
    "passed_some_folded": ("{n} 项通过的检查（展开查看）", "{n} passed checks (open to see them)"),
    "checks_caption_open": ("{exercise} 还没有通过的检查", "The checks of {exercise} not passed"),
    "checks_caption_passed": ("{exercise} 通过的检查", "The checks of {exercise} that passed"),
    # the index's grid (issue 47): where each student stopped
    "grid_heading": ("每位学生做到了哪里", "Where each student stopped"),
    "grid_caption": ("每个练习的得分率（%）", "Percentage per exercise"),
    "grid_legend": (
        "每格是该学生这一练习的得分占计入的满分的百分比，点开是他这一练习的反馈。*：有暂缓计分的检查（不计入满分）；"
        "○：这个练习一项也没有作答；—：没有这个练习的结果。",
        "Each cell is the student's score on the exercise over the maximum counted, and opens their feedback "
        "on it. *: some checks deferred (left out of the maximum); ○: nothing of the exercise attempted; —: "
        "no result for the exercise.",
    ),
    "grid_total": ("总计 %", "total %"),
    "grid_cell": (
        "{name} · {exercise}：{score} / {max} 分{deferred}",
        "{name} · {exercise}: {score} / {max} points{deferred}",
    ),
    "grid_cell_deferred": ("，暂缓计分的检查：{n} 项", "; checks deferred: {n}"),
    "grid_cell_not_attempted": ("（没有作答）", " (not attempted)"),
    "plot_deferred_left_out": (
        "暂缓计分的测量没有画出：{checks}",
        "Deferred measurements are not drawn: {checks}",
    ),
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
