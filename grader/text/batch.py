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
    "file_missing_empty": (
        "提交的文件夹是空的：这一题按未作答计。",
        "the submission's folder is empty: the exercise counts as not attempted.",
    ),
    "intake_empty": (
        "空的提交：这个文件夹里没有任何文件，每一题都按未作答计。",
        "empty submission: the folder holds no file, so every exercise counts as not attempted.",
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
    # what looks malformed in a submission (grader.batch.submissions): the student's notes, the instructor's errors
    "intake_nested": (
        "练习文件不在你的文件夹顶层，而在 {where} 里：评分器在那里找到并评了分。",
        "the exercise files were not at the top of your folder but in {where}: graded from there.",
    ),
    "intake_notebook": (
        "找到了笔记本 {examples}：批量评分只评 .py 文件，笔记本里的代码没有评分。请把代码存成练习的 .py 文件（{expected}）再提交。",
        "found a notebook ({examples}): batch grading grades .py files only, so its code was not graded; save "
        "the code as the exercise's .py file ({expected}) and hand it in again.",
    ),
    "intake_archive": (
        "找到了压缩包 {examples}：评分器不解压，里面的文件没有评分。请解压后提交文件本身。",
        "found an archive ({examples}): the grader does not unpack archives, so nothing in it was graded; "
        "hand in the files themselves.",
    ),
    "intake_misnamed": (
        "{found} 像是 {expected}，但名字不对，没有评分：文件名必须正好是 {expected}。",
        "{found} looks like {expected} but is not named so, and was not graded: the file must be named "
        "exactly {expected}.",
    ),
    "intake_no_students": (
        "{root} 里没有学生：每个学生的文件应放在 {root} 下以学生命名的文件夹里。",
        "{root} holds no student: each student's files belong in a folder of their own, named for the "
        "student, inside {root}.",
    ),
    "intake_no_students_files": (
        "{root} 里没有学生的文件夹，只有 {count} 个文件（{examples}）：每个学生的文件应放在 {root} 下以学生命名的"
        "文件夹里。如果 {root} 就是一个学生的文件夹，请对它的上一级评分，并用 --student 加它的名字只评这个学生。",
        "{root} holds no student folder, only files ({count}: {examples}): each student's files belong in a "
        "folder of their own, named for the student, inside {root}. If {root} is one student's folder, grade "
        "its parent folder with --student and its name to grade that student alone.",
    ),
    "intake_loose_files": (
        "{root} 顶层的 {count} 个文件不属于任何学生，没有评分：{examples}",
        "{count} files at the top of {root} belong to no student and were not graded: {examples}",
    ),
    "intake_other_shard": (
        "--student {name} 不属于分片 {shard}：去掉 --shard，或改用它所在分片的输出文件夹。",
        "--student {name} is not in shard {shard}: leave out --shard, or regrade into its own shard's output.",
    ),
    "intake_unknown_student": (
        "--student：{root} 里没有 {names} 的文件夹（有的例如：{known}）。",
        "--student: {root} has no folder {names} (it has, for example: {known}).",
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
    # the batch's progress line on stderr (grader.batch.progress)
    "progress_exercises": ("已评 {done}/{total} 个练习", "{done}/{total} exercises graded"),
    "progress_students": (
        "学生 {done}/{total} 已完成，{flight} 个进行中",
        "students {done}/{total} done, {flight} in flight",
    ),
    "progress_elapsed": ("已用 {elapsed}", "{elapsed} elapsed"),
    "progress_eta": ("约剩 {left}", "about {left} left"),
    # grades.json: a check's message whose traceback the student's record holds once (grader.reports.files)
    "json_file_error_ref": (
        '见这个学生的 {field}["{exercise}"]（完整信息，这一题的每项检查都一样）',
        'see this student\'s {field}["{exercise}"] (the whole message, the same for every check of the '
        "exercise)",
    ),
    # the batch's console lines of the work it did (grader.batch.console)
    "batch_students": ("{n} 个学生", "{n} students"),
    "batch_students_one": ("{n} 个学生", "{n} student"),
    "batch_exercises": ("{n} 个练习", "{n} exercises"),
    "batch_exercises_one": ("{n} 个练习", "{n} exercise"),
    "batch_graded": (
        "{who}{which}，用时 {elapsed} 秒（{sandbox}）：{scores}",
        "{who}{which} in {elapsed} s ({sandbox}): {scores}",
    ),
    "batch_who": ("评了 {students}", "graded {students}"),
    "batch_who_again": ("重评了 {students}", "graded {students} again"),
    "batch_who_mixed": (
        "评了 {students}（{again} 个重评，{new} 个是新学生）",
        "graded {students} ({again} again, {new} new)",
    ),
    "batch_of_shard": ("（分片 {shard}）", " of shard {shard}"),
    "batch_from_journal": (
        "（其中 {n} 个部分或全部沿用 {out} 的日志）",
        " ({n} of them from {out}'s journal, in part or whole)",
    ),
    "batch_into": ("，写入 {out}（现共 {total}）", ", into {out}'s {total}"),
    "batch_resumed": (
        "grader：从 {journal} 继续：沿用那里 {exercises}的评分（文件没有改动），不再重评：{who}（换一个 --out，"
        "或删掉那个日志，就全部重评）",
        "grader: resuming from {journal}: kept {exercises} graded there with the same files, not graded "
        "again: {who} (another --out, or that journal removed, grades them anew)",
    ),
    "batch_retried": (
        "grader：--retry-deferred：重评 {n} 项检查（延后计分的，以及文件改动过的）",
        "grader: --retry-deferred: {n} checks graded again (those deferred, and those of changed files)",
    ),
    "batch_retried_one": (
        "grader：--retry-deferred：重评 {n} 项检查（延后计分的，以及文件改动过的）",
        "grader: --retry-deferred: {n} check graded again (those deferred, and those of changed files)",
    ),
    "batch_score_notebooks": ("（交的是笔记本：未评分）", " (notebooks: not graded)"),
    "batch_notebooks": (
        "{students}交了笔记本（.ipynb）而缺少练习的 .py 文件：{names}。批量评分只评 .py 文件，这些笔记本都没有评分"
        "（那些练习按未作答计，不是空的提交）。把每个笔记本转成练习的 .py 文件放进学生的文件夹（jupyter nbconvert "
        "--to script，再按练习文件命名），然后用 --student 重评；或者用 nbgrader 评笔记本。见 docs/instructors.md 的"
        "“Notebooks handed in”。",
        "{students} handed in notebooks (.ipynb) where exercise files are missing: {names}. Batch grading "
        "grades .py files only, so no notebook was graded (those exercises count as not attempted; the "
        "folders are not empty). Convert each notebook into the exercise's .py file in the student's folder "
        "(jupyter nbconvert --to script, then named as the exercise file) and regrade with --student, or "
        'grade notebooks with nbgrader: docs/instructors.md, "Notebooks handed in".',
    ),
    # what a run leaves deferred, grouped by reason (grader.batch.remaining)
    "batch_checks": ("{n} 项检查", "{n} checks"),
    "batch_checks_one": ("{n} 项检查", "{n} check"),
    "batch_deferred": (
        "暂缓计分：{students}的 {checks}，共 {points} 分。按原因：",
        "deferred: {checks} of {students}, {points} points, by reason:",
    ),
    "batch_deferred_still": (
        "重评之后仍暂缓计分：{students}的 {checks}，共 {points} 分。按原因：",
        "still deferred after the retry: {checks} of {students}, {points} points, by reason:",
    ),
    "batch_deferred_none": (
        "没有暂缓计分的检查了：每个学生的每项检查都已评定。",
        "nothing is deferred any more: every check of every student is decided.",
    ),
    "batch_deferred_group": (
        "{reason}：{exercises} 的 {checks}，{students}（{who}）。{todo}",
        "{reason}: {checks} of {exercises}, {students} ({who}). {todo}",
    ),
    "batch_reason_busy": (
        "评分时机器太忙，或测量读数太乱，无法公平判定",
        "the machine was too busy, or its figures too noisy, to judge them fairly as they were graded",
    ),
    "batch_todo_gpu": (
        "本机再怎么重评也判定不了：把 {out} 复制到有 CUDA GPU 和 torch 的 GPU 节点，在那里用同样的设置运行 "
        "--retry-deferred。以后可以在 GPU 分区单独评 {exercises}、在 CPU 节点评其余练习，再合并（docs/instructors.md 的"
        "“The GPU task on GPU nodes”：grade-gpu.sbatch）。",
        "No retry on this machine can decide them: copy {out} to a GPU node (a CUDA GPU and torch) and run "
        "--retry-deferred there with the same settings. Next time, grade {exercises} on a GPU partition in a "
        'job of its own and the rest on CPU nodes, then merge (docs/instructors.md, "The GPU task on GPU '
        'nodes": grade-gpu.sbatch).',
    ),
    "batch_todo_mps": (
        "本机再怎么重评也判定不了：把 {out} 复制到装有支持 MPS 的 torch 的 Apple 芯片 Mac 上，在那里用同样的设置运行 "
        "--retry-deferred（{exercises}）。",
        "No retry on this machine can decide them: copy {out} to an Apple silicon Mac with torch's MPS and run "
        "--retry-deferred there with the same settings ({exercises}).",
    ),
    "batch_todo_torch": (
        '本机没有 torch，重评也判定不了：先安装（pip install -e ".[torch]"）再运行 --retry-deferred，或者把 {out} '
        "复制到装了 torch 的机器上重评（{exercises}）。",
        "No retry on this machine can decide them while torch is missing: install it (pip install -e "
        '".[torch]") and run --retry-deferred again, or copy {out} to a machine that has it ({exercises}).',
    ),
    "batch_todo_machine": (
        "本机再怎么重评也判定不了：把 {out} 复制到满足这项要求的机器上，在那里用同样的设置运行 --retry-deferred"
        "（{exercises}）。",
        "No retry on this machine can decide them: copy {out} to a machine that meets the requirement and run "
        "--retry-deferred there with the same settings ({exercises}).",
    ),
    "batch_todo_memory": (
        "给每个子进程更多内存再重评就能判定：--retry-deferred 加更大的 --memory-gib（或更少的 --jobs），或换内存更大的"
        "节点（{out}，{exercises}）。",
        "A retry with more memory a worker can decide them: --retry-deferred with a larger --memory-gib (or "
        "fewer --jobs), or on a node with more memory ({out}, {exercises}).",
    ),
    "batch_todo_busy": (
        "重评可以判定：等机器空闲些（没有别的重负载，一次只跑一个评分）再对 {out} 运行 --retry-deferred"
        "（{exercises}）。",
        "A retry can decide them: run --retry-deferred into {out} again once the machine is quieter (no other "
        "heavy work, one grading run at a time) ({exercises}).",
    ),
    # what a rerun removed of an earlier run's outputs (grader.batch.stale)
    "stale_files": ("{n} 个文件", "{n} files"),
    "stale_files_one": ("{n} 个文件", "{n} file"),
    "stale_gradescope": (
        "删除了以前那次评分在 {folder} 里留下的 {files}（Gradescope 的 results.json，这次没有重写，上传它们会送出旧成绩）；"
        "要重新生成，加 --gradescope 再运行一次（从日志写出，不必重评）。",
        "removed {files} an earlier run left in {folder} (Gradescope's results.json, not rewritten by this run: "
        "uploading them would send old results); run again with --gradescope to write them anew (from the "
        "journal, without grading again).",
    ),
    "stale_pages": (
        "删除了以前那次评分在 {folder} 里留下的 {files}（HTML 页面，这次没有重写，已经和 grades.csv 不符）；要重新生成，"
        "加 --html {folder} 再运行一次。",
        "removed {files} an earlier run left in {folder} (HTML pages this run did not rewrite, no longer what "
        "grades.csv says); run again with --html {folder} to write them anew.",
    ),
    "batch_resumed_whole": ("{students}的全部练习", "every exercise of {students}"),
    "batch_resumed_part": ("{students}的部分练习", "some exercises of {students}"),
}
