"""What every check says, in Chinese and English: states, comparisons, a worker's failures, the score
table (a measuring check's own words are :mod:`grader.text.measuring`). Data only, ``{key: (zh, en)}`` with ``str.format`` fields; :mod:`grader.text.catalogue`
holds it with the other front ends' tables and renders it.
"""

from __future__ import annotations

from collections.abc import Mapping

GRADING: Mapping[str, tuple[str, str]] = {
    # states, as shown in the score table
    "state_passed": ("通过", "passed"),
    "state_wrong": ("答案错误", "wrong"),
    "state_not_attempted": ("未作答", "not attempted"),
    "state_error": ("出错", "error"),
    "state_timeout": ("超时", "timeout"),
    "state_skipped": ("跳过", "skipped"),
    "state_deferred": ("暂缓计分", "deferred"),
    # pieces of feedback
    "input": ("输入 {inputs}", "input {inputs}"),
    "hint": ("提示：{hint}", "Hint: {hint}"),
    "sep": ("；", "; "),
    "at": ("{where} 处：", "at {where}: "),
    "passed": ("通过。", "passed."),
    # comparing values
    "num_rel": (
        "期望 {expected}，得到 {got}，相对误差 {rel} 超过容差 {rtol}",
        "expected {expected}, got {got}: relative error {rel} exceeds the tolerance {rtol}",
    ),
    "num_abs": (
        "期望 {expected}，得到 {got}，绝对误差 {diff} 超过容差 {atol}",
        "expected {expected}, got {got}: absolute error {diff} exceeds the tolerance {atol}",
    ),
    "num_both": (
        "期望 {expected}，得到 {got}，绝对误差 {diff}（相对误差 {rel}）超过容差 {tol}（rtol={rtol}，atol={atol}）",
        "expected {expected}, got {got}: absolute error {diff} (relative {rel}) exceeds the tolerance {tol} "
        "(rtol={rtol}, atol={atol})",
    ),
    "exact": ("期望 {expected}，得到 {got}", "expected {expected}, got {got}"),
    # a wrong number one recognisable slip explains (grader.compare.slips), said before the fixed hint
    "slip_value": (
        "你的数正好是期望值的 {factor} 倍（在容差之内）：{cause}",
        "your number is {factor} times the expected one (within the tolerance): {cause}",
    ),
    "slip_value_reciprocal": (
        "你的数正好是期望值的倒数（在容差之内）：{cause}",
        "your number is the reciprocal of the expected one (within the tolerance): {cause}",
    ),
    "slip_value_swapped": (
        "你的数正是把 {a} 和 {b} 对调后的正确结果（在容差之内）：{cause}",
        "your number is the right result with {a} and {b} swapped (within the tolerance): {cause}",
    ),
    "slip_kilo_more": (
        "是不是用了毫秒而题目要的是秒，或单位前缀小了一级（如 MB 当 GB，k 没有除掉）？",
        "milliseconds where seconds are asked, or a unit prefix one step too small (MB for GB, a k not "
        "divided out)?",
    ),
    "slip_kilo_less": (
        "是不是用了秒而题目要的是毫秒，或单位前缀大了一级（如 GB 当 MB，多除了一个 k）？",
        "seconds where milliseconds are asked, or a unit prefix one step too large (GB for MB, a k divided "
        "out once too often)?",
    ),
    "slip_mega_more": (
        "是不是用了微秒而题目要的是秒，或单位前缀小了两级（如 B 当 MB，M 没有除掉）？",
        "microseconds where seconds are asked, or a unit prefix two steps too small (B for MB, an M not "
        "divided out)?",
    ),
    "slip_mega_less": (
        "是不是用了秒而题目要的是微秒，或单位前缀大了两级（如 MB 当 B，多除了一个 M）？",
        "seconds where microseconds are asked, or a unit prefix two steps too large (MB for B, an M divided "
        "out once too often)?",
    ),
    "slip_giga_more": (
        "是不是用了纳秒而题目要的是秒，或单位前缀小了三级（如 B/s 当 GB/s，G 没有除掉）？",
        "nanoseconds where seconds are asked, or a unit prefix three steps too small (B/s for GB/s, a G not "
        "divided out)?",
    ),
    "slip_giga_less": (
        "是不是用了秒而题目要的是纳秒，或单位前缀大了三级（如 GB/s、GFLOP/s 当 B/s、FLOP/s）？",
        "seconds where nanoseconds are asked, or a unit prefix three steps too large (GB/s or GFLOP/s where "
        "B/s or FLOP/s are asked)?",
    ),
    "slip_kilo_less_rate": ("是不是给的是 k{unit}，而题目要的是 {unit}？", "k{unit} where {unit} is asked?"),
    "slip_mega_less_rate": ("是不是给的是 M{unit}，而题目要的是 {unit}？", "M{unit} where {unit} is asked?"),
    "slip_giga_less_rate": ("是不是给的是 G{unit}，而题目要的是 {unit}？", "G{unit} where {unit} is asked?"),
    "slip_bits_more": (
        "是不是把一个字节数算成了比特（1 字节 = 8 比特），或在“每比特”的量里按字节算了？",
        "a count in bits where bytes are asked (8 bits a byte), or bytes counted where a per-bit quantity is "
        "asked?",
    ),
    "slip_bits_less": (
        "是不是在“每字节”的量里（如每字节的 FLOP）把字节算成了比特（1 字节 = 8 比特，结果小了 8 倍），或给了字节"
        "而题目要的是比特数？",
        "bits counted where a per-byte quantity is asked (FLOPs per byte come out 8x too small: 8 bits a "
        "byte), or a count in bytes where bits are asked?",
    ),
    "slip_sign": (
        "是不是符号反了（例如差值算成了 b − a 而不是 a − b）？",
        "the sign turned (a difference taken the other way round: b − a for a − b)?",
    ),
    # a factor of 2 in the question's own terms (grader.compare.slips.fitted): K and V only where it counts a
    # KV cache, the 2-byte type it names where it names one
    "slip_double": (
        "是不是乘加算成了两次 FLOP 而题目只算一次，或每个数按 4 字节算了，而题目的数是 2 字节？",
        "a multiply-add counted as two FLOPs where the question counts one, or 4 bytes a number where the "
        "question's numbers have 2?",
    ),
    "slip_double_typed": (
        "是不是乘加算成了两次 FLOP 而题目只算一次，或每个数按 FP32 的 4 字节算了，而题目的 {dtype} 每个数 2 字节？",
        "a multiply-add counted as two FLOPs where the question counts one, or FP32's 4 bytes a number where "
        "the question's {dtype} has 2?",
    ),
    "slip_double_kv": (
        "是不是乘加算成了两次 FLOP 而题目只算一次，或每个数多算了一倍字节，或 K 和 V 都算了而题目只要一个？",
        "a multiply-add counted as two FLOPs where the question counts one, twice the bytes a number has, or "
        "both K and V where only one is asked?",
    ),
    "slip_half": (
        "是不是乘加只算了一次 FLOP 而它是两次，或每个数按 2 字节算了，而题目的数是 4 字节？",
        "a multiply-add counted as one FLOP where it is two, or 2 bytes a number where the question's "
        "numbers have 4?",
    ),
    "slip_half_typed": (
        "是不是乘加只算了一次 FLOP 而它是两次，或每个数按 1 字节（FP8）算了，而题目的 {dtype} 每个数 2 字节？",
        "a multiply-add counted as one FLOP where it is two, or 1 byte a number (FP8's) where the question's "
        "{dtype} has 2?",
    ),
    "slip_half_kv": (
        "是不是乘加只算了一次 FLOP 而它是两次，或每个数少算了一半字节，或 K 和 V 只算了一个？",
        "a multiply-add counted as one FLOP where it is two, half the bytes a number has, or only one of K "
        "and V where both are asked?",
    ),
    "slip_quad": (
        "是不是按 FP32 每个元素 4 字节算了，而题目要的是元素个数（或 FP8 的字节）？",
        "FP32's 4 bytes an element where elements (or FP8 bytes) are asked?",
    ),
    "slip_quarter": (
        "是不是算了元素个数，而题目要的是字节（FP32 每个元素 4 字节）？",
        "elements where bytes are asked (4 bytes an FP32 element)?",
    ),
    "slip_percent_more": (
        "是不是给了百分数，而题目要的是比例（0 到 1）？",
        "a percentage where a fraction (0 to 1) is asked?",
    ),
    "slip_percent_less": ("是不是给了比例，而题目要的是百分数？", "a fraction where a percentage is asked?"),
    "slip_binary": (
        "是不是把二进制前缀当成了十进制前缀（GiB = 2^30 字节，GB = 10^9 字节；TiB、MiB、KiB 同理）？",
        "binary prefixes against decimal ones (a GiB is 2^30 bytes, a GB 10^9; TiB, MiB and KiB likewise)?",
    ),
    "slip_reciprocal": (
        "是不是把比值倒过来了（例如秒/FLOP 当 FLOP/秒）？",
        "a ratio turned upside down (seconds per FLOP for FLOPs per second, say)?",
    ),
    "slip_swapped": (
        "检查 {a} 和 {b} 在你的函数里是否用反了",
        "check whether your function uses {a} and {b} the wrong way round",
    ),
    "not_number": (
        "期望一个数（约 {expected}），得到的是 {kind}：{got}",
        "expected a number (about {expected}), got {kind}: {got}",
    ),
    "not_finite": (
        "期望 {expected}，得到 {got}（不是有限的数）",
        "expected {expected}, got {got} (not a finite number)",
    ),
    "not_bool": (
        "期望布尔值 {expected}，得到 {kind}：{got}",
        "expected the bool {expected}, got {kind}: {got}",
    ),
    "not_str": (
        "期望字符串 {expected}，得到 {kind}：{got}",
        "expected the string {expected}, got {kind}: {got}",
    ),
    "not_sequence": (
        "期望长度为 {length} 的序列，得到 {kind}：{got}",
        "expected a sequence of length {length}, got {kind}: {got}",
    ),
    "wrong_length": (
        "期望 {length} 个元素，得到 {got_length} 个",
        "expected {length} items, got {got_length}",
    ),
    "not_mapping": (
        "期望字典（键 {keys}），得到 {kind}：{got}",
        "expected a dict (keys {keys}), got {kind}: {got}",
    ),
    "missing_key": ("缺少键 {key}", "missing key {key}"),
    "missing_field": ("结果没有字段 {field}", "the result has no field {field}"),
    "not_array": (
        "期望形状为 {shape} 的数组，得到 {kind}：{got}",
        "expected an array of shape {shape}, got {kind}: {got}",
    ),
    "wrong_shape": (
        "期望形状 {shape}，得到形状 {got_shape}",
        "expected shape {shape}, got shape {got_shape}",
    ),
    "array_not_finite": ("数组 {index} 处不是有限的数：{got}", "the array is not finite at {index}: {got}"),
    "array_item": (
        "{index} 处期望 {expected}，得到 {got}，误差 {diff} 超过容差 {tol}（共 {count} 个元素不符）",
        "at {index} expected {expected}, got {got}: error {diff} exceeds the tolerance {tol} "
        "({count} elements differ)",
    ),
    "not_none": ("期望 None，得到 {got}", "expected None, got {got}"),
    # categorical answers
    "choice_invalid": (
        "答案 {got} 不是允许的选项之一：{choices}",
        "the answer {got} is not one of the allowed choices: {choices}",
    ),
    "choice_wrong": ("期望 {expected}，得到 {got}", "expected {expected}, got {got}"),
    # property checks
    "property_wrong": (
        "{failed}/{total} 个输入的结果不对；最小的出错输入 {inputs}：{detail}",
        "wrong on {failed} of {total} inputs; the smallest failing input {inputs}: {detail}",
    ),
    # student code failing
    "not_attempted": (
        "未作答：{func} 仍然抛出 NotImplementedError。",
        "not attempted: {func} still raises NotImplementedError.",
    ),
    "func_missing": ("未作答：模块里没有函数 {func}。", "not attempted: the module has no function {func}."),
    "func_not_callable": ("{func} 不是函数，而是 {kind}。", "{func} is not a function but {kind}."),
    "raised": ("{func} 抛出了异常：\n{trace}", "{func} raised an exception:\n{trace}"),
    "raised_at": (
        "{func} 在输入 {inputs} 上抛出了异常：\n{trace}",
        "{func} raised an exception on input {inputs}:\n{trace}",
    ),
    "import_error": (
        "导入 {file} 时出错，本练习的检查都无法运行：\n{trace}",
        "importing {file} failed, so no check of this exercise can run:\n{trace}",
    ),
    "timeout": (
        "{func} 超过了时间限制 {limit} 秒（死循环？太慢？）。",
        "{func} exceeded the time limit of {limit} s (an endless loop? too slow?).",
    ),
    "import_timeout": (
        "导入 {file} 超过了时间限制 {limit} 秒。",
        "importing {file} exceeded the time limit of {limit} s.",
    ),
    "grader_bug": (
        "评分程序自身出错（不是你的问题，请告诉助教）：{error}",
        "the grader itself failed (not your fault; please tell the TAs): {error}",
    ),
    # the worker process ending or misbehaving
    "died_exit": (
        "运行你的代码的工作进程在{step}时结束了（退出码 {code}）：你的代码调用了 os._exit、关闭了评分器的通道"
        "或以别的方式结束了这个进程。",
        "The worker process running your code ended during {step} (exit status {code}): your code called "
        "os._exit, closed the grader's channel or otherwise ended the process.",
    ),
    "died_cpu": (
        "运行你的代码的工作进程在{step}时用完了 CPU 时间上限，被结束了。",
        "The worker process running your code used up its CPU-time limit during {step} and was ended.",
    ),
    "died_memory": (
        "运行你的代码的工作进程在{step}时用完了内存上限 {limit}，被结束了。",
        "The worker process running your code ran out of memory (limit {limit}) during {step} and was ended.",
    ),
    "died_output": (
        "运行你的代码的工作进程在{step}时写出的数据超过了上限 {limit}，被结束了。",
        "The worker process running your code wrote more than the limit of {limit} during {step} and was "
        "ended.",
    ),
    "died_signal": (
        "运行你的代码的工作进程在{step}时被信号 {signal} 结束了（评分器本身没有受影响）。",
        "The worker process running your code was killed by signal {signal} during {step} (the grader itself "
        "was not).",
    ),
    "died_tampered": (
        "评分器的通道在{step}时收到了不是回答的内容（{detail}）：这一项记 0 分。",
        "The grader's channel received something that is not a reply during {step} ({detail}): this check "
        "scores 0.",
    ),
    "died_oversized": (
        "评分器的通道在{step}时收到的回答超过了上限（{limit}），没有读完：这一项记 0 分。返回的值应当小一些"
        "（数、短序列、数组、最多约十万个点的曲线）。",
        "The reply during {step} was over the grader's limit ({limit}) and was not read: this check scores 0. "
        "Return less (a number, a short sequence, an array, a curve of up to about 100k points).",
    ),
    "limit_bytes": ("一行 {n} MiB", "{n} MiB a line"),
    "limit_values": ("{n} 个值", "{n} values"),
    "limit_kinds": ("{n} 种具名元组", "{n} kinds of named tuple"),
    "budget_spent": (
        "{exercise} 的总时间预算 {budget} 秒（导入的时间限制一次，加上每项检查的时间限制）已经用完：这一项没有运行。",
        "the time budget of {exercise}, {budget} s (its import's time limit once plus each check's time "
        "limit), is used up: this check was not run.",
    ),
    "budget_busy": (
        "{said} 这个练习前面有检查因为机器太忙而暂缓：预算是被忙碌的机器拉长的轮次用掉的，不算你的代码的错。",
        "{said} An earlier check of this exercise was deferred because the machine was too busy: the budget "
        "went on rounds the busy machine stretched, which is no fault of your code.",
    ),
    "budget_ran_out": (
        "{step}用完了 {exercise} 的总时间预算 {budget} 秒（导入的时间限制一次，加上每项检查的时间限制），被停止。",
        "{step} used up the time budget of {exercise}, {budget} s (its import's time limit once plus each "
        "check's time limit), and was stopped.",
    ),
    "died_startup": (
        "运行你的代码的工作进程没能启动（{detail}）：不是你的问题，请告诉助教。",
        "The worker process that runs your code did not start ({detail}): not your fault; please tell the "
        "TAs.",
    ),
    "step_import": ("导入 {file}", "the import of {file}"),
    "step_check": ("检查 {check}", "check {check}"),
    "output": ("你的代码的输出：\n{output}", "What your code printed:\n{output}"),
    "not_confined": (
        "注意：本次评分没有隔离（{reason}）：学生代码在独立进程里运行，但能读写你的用户能读写的文件。",
        "note: this run is not confined ({reason}): student code runs in its own process, but can read and "
        "write whatever your user can.",
    ),
    "untrusted_setup": (
        "不可信的设置：练习文件夹里有 {files}，它们在 pytest 进程里运行，可能改写报告；正式成绩请用批量评分。",
        "untrusted setup: the exercise folder holds {files}, which run inside pytest and may rewrite its "
        "reports; grades for credit come from the batch grader.",
    ),
    # requirements and skips
    "req_no_torch": ("需要 torch，但没有安装", "needs torch, which is not installed"),
    "req_torch_version": (
        "需要 torch {spec}，本机是 {version}",
        "needs torch {spec}, this machine has {version}",
    ),
    "req_no_cuda": ("需要 CUDA GPU，本机没有", "needs a CUDA GPU, this machine has none"),
    "req_no_mps": ("需要 Apple MPS，本机没有", "needs Apple MPS, this machine has none"),
    "req_llc_unknown": (
        "需要至少 {need} 的末级缓存，但无法读取本机的缓存大小",
        "needs a last-level cache of at least {need}, and this machine's is unknown",
    ),
    "req_llc_small": (
        "需要至少 {need} 的末级缓存，本机只有 {have}",
        "needs a last-level cache of at least {need}, this machine has {have}",
    ),
    "req_caches_unknown": (
        "无法读取本机的缓存大小，因此选不出一定在缓存之外（或之内）的工作集",
        "this machine's cache sizes cannot be read, so no working set is sure to be out of (or in) them",
    ),
    "req_memory": (
        "需要 {need} 的可用内存（你的进程和 perfcore 的进程各一份工作集），本机现在只有 {have}",
        "needs {need} of available memory (a working set for your process and one for perfcore's), this "
        "machine has {have} now",
    ),
    "req_memory_limit": (
        "工作集 {need} 加上 torch 本身，超过了评分器给每个进程的内存上限 {limit}",
        "a working set of {need} plus torch itself exceeds the grader's memory limit of {limit} per process",
    ),
    "req_gpu_memory": (
        "需要 {need} 的空闲 GPU 显存（你的进程和 perfcore 的进程各一份工作集，外加 CUDA 本身），{device} 现在只有 {have}"
        "（MIG 切片太小，或别人正在用这块 GPU）",
        "needs {need} of free GPU memory (a working set for your process and one for perfcore's, and CUDA "
        "itself), {device} has {have} free now (a MIG slice too small, or others are using the GPU)",
    ),
    "ref_gpu_memory": (
        "perfcore 的参考测量用完了 GPU 显存（{error}）：这块 GPU 现在放不下两份工作集",
        "perfcore's reference measurement ran out of GPU memory ({error}): this GPU cannot hold two working "
        "sets now",
    ),
    "student_gpu_memory": (
        "你的代码用完了 GPU 显存，而在你的进程结束之后这块 GPU 仍然不够：{reason}。不是你的错，分数暂缓",
        "your code ran out of GPU memory, and with your process ended this GPU is still short: {reason}. Not "
        "your doing: the points are deferred",
    ),
    "req_serial": (
        "测量需要串行运行，而现在有 {workers} 个 pytest-xdist 进程并行；请去掉 -n 再运行",
        "a measurement needs a serial run, but {workers} pytest-xdist workers run in parallel; rerun without -n",
    ),
    "deferred": ("分数暂缓：{reason}", "points deferred: {reason}"),
    # the score table and reports
    "table_title": ("perfkit 评分", "perfkit score"),
    # the language, what chose it and how to switch (issue 47 item 2), under every front end's output
    "lang_switch": (
        "语言：中文（{why}）· English: {option} {other}",
        "Language: English ({why}) · 中文：{option} {other}",
    ),
    "lang_by_option": ("由 {option} 选定", "chosen by {option}"),
    "lang_by_course": (
        "课程的设置：{where} 的 [tool.perfkit] lang",
        "the course's setting: [tool.perfkit] lang in {where}",
    ),
    "lang_by_locale": ("按区域设置 {where}", "from the locale, {where}"),
    "lang_by_earlier": ("与 {where} 里上一次评分的相同", "as the earlier run in {where}"),
    # the first lines of every stub in exercises/, in the student's terms (the student has no solutions/)
    "stub_header": (
        "你的练习：由课程的参考解答去掉答案生成。\n"
        "在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。",
        "Your exercise, made from the course's worked solutions with the answers taken out.\n"
        "Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/",
    ),
    # the pytest front end: what stands for a check that gets a table line and no block of its own
    "pytest_said_above": ("同上", "same as above"),
    "pytest_more_lines": (
        "……还有 {count} 行（pytest -v 显示全部）",
        "... {count} more lines (pytest -v shows them all)",
    ),
    "table_exercise": ("练习", "exercise"),
    "table_part": ("小题", "part"),
    "table_check": ("检查", "check"),
    "table_state": ("状态", "state"),
    "table_points": ("得分", "points"),
    "table_total": ("总分", "total"),
    "table_deferred": ("暂缓计分（不计入满分）", "deferred (left out of the maximum)"),
    "table_deferred_zero": ("暂缓计分（按 0 分计入）", "deferred (counted as zero)"),
    "table_reused": (
        "沿用之前的测量（文件没有改动；--grader-remeasure 重新测量）",
        "shown from an earlier run (files unchanged; --grader-remeasure measures again)",
    ),
    "table_reused_at": ("沿用 {when} 的测量", "as measured {when}"),
    "report_no_exercise": ("没有收集到任何练习模块。", "no exercise module was collected."),
    # the pytest front end: the checks of one file shown from pytest's cache, one line for the file
    "pytest_kept_file": (
        "{file}：{n} 项检查沿用 {when} 的结果（文件没有改动；--grader-remeasure 重新测量）",
        "{file}: {n} checks shown from the run of {when} (files unchanged; --grader-remeasure measures again)",
    ),
    "pytest_kept_file_one": (
        "{file}：{n} 项检查沿用 {when} 的结果（文件没有改动；--grader-remeasure 重新测量）",
        "{file}: {n} check shown from the run of {when} (files unchanged; --grader-remeasure measures again)",
    ),
    # the pytest front end: the live line of a measurement in progress (only on a terminal)
    "pytest_measuring": (
        "测量 {check}：第 {round} 轮，已用 {elapsed} 秒",
        "measuring {check}: round {round}, {elapsed} s",
    ),
    # the pytest front end: a kept verdict's failure block, measured or a formula's
    "pytest_kept_at": ("沿用 {when} 的评分，文件没有改动", "as graded {when}, files unchanged"),
}
