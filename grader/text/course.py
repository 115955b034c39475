"""What the nbgrader course's notebooks say to the student (Chinese, then English), written by
:mod:`grader.course.notebooks`: the setup cell's comment, the line under the question, what a check needs
from the grading machine, what becomes of a deferred check, and the checks a course leaves out; and
what autograde tells the instructor of a cell the gradebook does not know. A notebook
shows both languages at once, each rendered from here. Data only; :mod:`grader.text.catalogue` renders it.
"""

from __future__ import annotations

from collections.abc import Mapping

COURSE: Mapping[str, tuple[str, str]] = {
    "nb_setup_comment": (
        "# 只读：先导入评分器，再运行你的代码。请勿修改。",
        "# Read-only: imports the grader before any of your code. Do not edit.",
    ),
    "nb_answer_below": (
        "在下面的单元格里把 `# YOUR CODE HERE` 和 `raise NotImplementedError()` 换成你的代码；"
        "其后的检查单元格是只读的，运行它们可以看到反馈；提交后的分数由评分器在你的笔记本之外、"
        "根据你提交的单元格给出。",
        "Answer in the cell below, replacing `# YOUR CODE HERE` and `raise NotImplementedError()`; the "
        "check cells after it are read-only: run them for feedback. Once submitted, your grade is decided "
        "by the grader outside your notebook, from the cells you submitted.",
    ),
    # what a check needs from the grading machine, one phrase each
    "nb_needs_torch": ("torch{spec}", "torch{spec}"),
    "nb_needs_cuda": ("CUDA GPU", "a CUDA GPU"),
    "nb_needs_mps": ("Apple MPS", "Apple MPS"),
    "nb_needs_llc": ("最后一级缓存至少 {size}", "a last-level cache of at least {size}"),
    "nb_needs_serial": (
        "串行运行（机器空闲，一次只评一个笔记本）",
        "a serial run (an idle machine, one notebook at a time)",
    ),
    "nb_needs_join": ("；", "; "),
    # the note's heading and its table's columns
    "nb_needs_title": ("评分机器的要求", "What grading needs from the machine"),
    "nb_column_check": ("检查", "check"),
    "nb_column_points": ("分", "points"),
    "nb_column_needs": ("需要", "needs"),
    # what becomes of a check deferred on the grading machine, by the course's policy
    "nb_deferred_defer": (
        "评分机器不满足某项检查的要求时（或测量时机器噪声太大），这项检查延后：nbgrader 不自动给分，"
        "留给老师手动评分（pytest 里则是跳过、分数延后）。请在满足要求的空闲机器上评分。",
        "Where the grading machine does not meet a check's requirement (or is too noisy to measure on), the "
        "check is deferred: nbgrader gives it no automatic score and leaves it to the instructor to grade by "
        "hand (pytest would skip it and defer its points). Grade on an idle machine that meets the "
        "requirements.",
    ),
    "nb_deferred_zero": (
        "评分机器不满足某项检查的要求时（或测量时机器噪声太大），这项检查延后，这门课让它在 nbgrader 里得 0 分；"
        "pytest 里则是跳过、分数延后。请在满足要求的空闲机器上评分。",
        "Where the grading machine does not meet a check's requirement (or is too noisy to measure on), the "
        "check is deferred, and this course scores it 0 in nbgrader; pytest would skip it and defer its "
        "points instead. Grade on an idle machine that meets the requirements.",
    ),
    # the checks a course without an accelerator leaves out of its notebooks
    "nb_accelerator_cuda": ("CUDA GPU", "CUDA GPU"),
    "nb_accelerator_mps": ("Apple MPS", "Apple MPS"),
    "nb_accelerator_or": ("或", " or "),
    "nb_ids_join": ("、", ", "),
    "nb_left_out": (
        "这门课的评分机器没有 {name}，所以笔记本里没有需要它的检查 {ids}"
        "（共 {points} 分，不计入满分）；在有 {name} 的机器上，`pytest` 会运行它们。",
        "The course's grading machine has no {name}, so this notebook leaves out the checks that need "
        "one: {ids} ({points}, not in the maximum); `pytest` runs them on a machine that has one.",
    ),
    # the comment above a check cell's call
    "nb_check_heading": (
        "# 检查 {label}（{part}，{points} 分）",
        "Check {label} (part {part}, {points})",
    ),
    "nb_hidden_heading": (
        "# 隐藏检查 {label}（{part}，{points} 分）：提交后评分。",
        "Hidden check {label} (part {part}, {points}): graded after submission.",
    ),
    "nb_feedback_alone": ("只显示反馈", "the feedback alone, not the grader's frames"),
    # the instructor's log under autograde (grader.course.unknowncells)
    "nb_unknown_cell": (
        "{student} 的 {notebook} 里有一个 nbgrader 单元格 {cell!r}，成绩册里没有这个单元格（伪造的，或来自别的"
        "笔记本）：它不计分，改为普通单元格，留给老师手动查看；其余单元格照常评分。",
        "{student}'s {notebook} has an nbgrader cell {cell!r} that the gradebook does not know (forged, or "
        "from another notebook): it scores nothing and is kept as an ordinary cell for the instructor to look "
        "at by hand; every other cell is graded as usual.",
    ),
    # the solution cell's comment where a batch run's points were written into the gradebook
    # (grader.course.gradebook)
    "gradebook_comment": (
        "这个笔记本的检查由批量评分器评分（python -m grader grade，{graded_at}），分数已写入成绩册：",
        "This notebook's checks were graded by the batch grader (python -m grader grade, {graded_at}) and their "
        "points written into the gradebook:",
    ),
}
