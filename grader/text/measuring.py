"""What a measuring check says, in Chinese and English: its figure against perfcore's, the machine's load,
the honesty rules, the handed buffers' results and the clock readings a figure must come from, and curve
shapes. Data only, ``{key: (zh, en)}`` with ``str.format`` fields, like :mod:`grader.text.grading` (from
which these keys moved, unchanged, when that table passed the size of a module); :mod:`grader.text.catalogue`
holds it with the other tables and renders it.
"""

from __future__ import annotations

from collections.abc import Mapping

MEASURING: Mapping[str, tuple[str, str]] = {
    # measurements
    "measure_outside": (
        "你的测量值 {got} {unit} 是 perfcore 参考值 {reference} {unit} 的 {ratio} 倍（{rounds} 轮交替测量的配对比值"
        "的中位数；{confidence} 置信区间 {interval}），整个区间都在允许范围 [{low}, {high}] 之外",
        "your figure {got} {unit} is {ratio} times perfcore's {reference} {unit} (the median of {rounds} "
        "paired rounds; {confidence} interval {interval}), the whole interval outside the band [{low}, {high}]",
    ),
    "measure_undecided": (
        "本机噪声太大，无法判定：{rounds} 轮交替测量后，你与 perfcore 之比的 {confidence} 置信区间 {interval} 仍跨着"
        "允许范围 [{low}, {high}] 的边界（每轮波动 IQR/中位数：你的 {mine}，perfcore 的 {reference}）",
        "this machine is too noisy to decide: after {rounds} paired rounds the {confidence} interval {interval} "
        "of your figure over perfcore's still straddles an edge of the band [{low}, {high}] (round-to-round "
        "IQR/median: yours {mine}, perfcore's {reference})",
    ),
    "machine_busy": (
        "这台机器太忙，这几轮不能作为判你错的证据：{rounds} 轮里只有 {clean} 轮，测量所用的核心上没有别的进程在跑"
        "（别的进程占用了该核心约 {share} 的时间，其他核心平均有 {elsewhere} 个在忙，系统负载 {load}）；机器空闲些时再测",
        "this machine was busy, so these rounds are no evidence against you: in only {clean} of {rounds} rounds "
        "did the measured core run nothing else (other processes took about {share} of it, {elsewhere} other "
        "cores were busy on average, load average {load}); measure again when it is quieter",
    ),
    "machine_busy_elsewhere": (
        "这台机器太忙，这几轮不能作为判你错的证据：测量所用的核心上虽然没有别的进程（{rounds} 轮里 {clean} 轮），"
        "但其他核心平均有 {elsewhere} 个在忙（系统负载 {load}），它们与这个核心共用缓存和内存，会让测量值偏离；"
        "机器空闲些时再测",
        "this machine was busy, so these rounds are no evidence against you: the measured core ran nothing else "
        "({clean} of {rounds} rounds), but {elsewhere} other cores were busy on average (load average {load}), "
        "and they share its caches and memory, which bends a figure; measure again when it is quieter",
    ),
    "machine_busy_timeout": (
        "{func} 用完了它自己的时间限制 {limit} 秒，但这期间别的进程占用了测量所用核心的 {share}，它只得到 {cpu} 秒 CPU："
        "是机器忙，不是你的代码慢；机器空闲些时再测",
        "{func} ran past its own time limit of {limit} s while other processes took {share} of the measured "
        "core, leaving it {cpu} s of CPU: the machine was busy, not your code slow; measure again when it is "
        "quieter",
    ),
    "check_time_used": (
        "{func} 的调用已经用完了这项检查的时间限制 {limit} 秒（只算你的函数自己的调用：已用 {spent} 秒）。",
        "{func}'s calls used up this check's time limit of {limit} s (counting your function's own calls "
        "only: {spent} s).",
    ),
    "next_step": (
        "还有 {n} 个检查等你作答：先打开 {file}，写好后再运行一次（在全部作答之前，命令的退出状态不是 0）。",
        "{n} checks await your answer: open {file} first, then run this again (until every exercise is "
        "answered the command exits with a non-zero status).",
    ),
    "next_step_one": (
        "还有 {n} 个检查等你作答：先打开 {file}，写好后再运行一次（在全部作答之前，命令的退出状态不是 0）。",
        "{n} check awaits your answer: open {file} first, then run this again (until every exercise is "
        "answered the command exits with a non-zero status).",
    ),
    "cache_unverified": (
        "有 {n} 条保存的测量结果不是本工具在本账户下写的（签名不符），已忽略并重新测量。",
        "{n} kept measurement(s) were not written by this kit on this account (their signature did not "
        "verify): ignored, and measured again.",
    ),
    "tree_ran": (
        "perfcore 测量参考值时，你的进程在运行（{cpu} 秒 CPU，连续 {tries} 次）：两次调用之间不要留下在运行的线程或进程。",
        "a process of yours ran while the reference was measured ({cpu} s of CPU, {tries} times in a row): "
        "leave no thread or process running between calls.",
    ),
    "check_time_spent": (
        "这项检查的时间（{limit} 秒，只算你的函数自己的调用）在机器忙时加测的几轮里用完了：{func} 已用 {spent} 秒；"
        "机器空闲些时再测",
        "this check's time ({limit} s, counting your function's own calls only) ran out in the rounds added "
        "while the machine was busy: {func} had used {spent} s; measure again when it is quieter",
    ),
    "measure_on_cpu_clock": (
        "其中 {count} 轮按 CPU 时间计：测量所用的核心上还有别的进程，所以你的时钟和 perfcore 的都只计各自线程"
        "得到的 CPU 时间，别的进程分走的时间片不算在内",
        "{count} of these rounds were read in CPU time: other processes shared the measured core, so your clock "
        "and perfcore's counted only the CPU time each thread received, not the slices others took",
    ),
    "measure_unsteady": (
        "本机噪声太大，无法判定：你的测量值每轮波动（IQR/中位数 {mine}）比 perfcore 的大，但 perfcore 在同样的几轮里"
        "也波动了 {reference}（稳定的机器上不超过 {steady}），这波动可能来自机器而不是你的方法；{rounds} 轮后比值的 "
        "{confidence} 置信区间 {interval} 仍跨着 [{low}, {high}] 的边界",
        "this machine is too noisy to decide: your figures scatter from round to round (IQR/median "
        "{mine}) more than perfcore's, but perfcore's own varied {reference} in the same rounds (at most "
        "{steady} on a steady machine), so the scatter may be the machine's, not your method's; after {rounds} "
        "rounds the {confidence} interval {interval} of the ratio still straddles an edge of [{low}, {high}]",
    ),
    "measure_scattered": (
        "你的测量值每轮波动很大（IQR/中位数 {mine}），而 perfcore 在同一台机器、同样的几轮里只有 {reference}："
        "{rounds} 轮后比值的 {confidence} 置信区间 {interval} 仍跨着 [{low}, {high}] 的边界。"
        "每次计时多调用几次，取中位数。",
        "your figures scatter from round to round (IQR/median {mine}) where perfcore's, on the same machine "
        "in the same rounds, vary {reference}: after {rounds} rounds the {confidence} interval {interval} of "
        "the ratio still straddles an edge of [{low}, {high}]. Time more calls in each block and take the "
        "median.",
    ),
    "evidence_faster": (
        "你的结果比 perfcore 做同样的事还快：检查计时的是不是题目要求的那个操作、是不是题目给的大小"
        "（更小或反复使用的缓冲区会留在缓存里），以及字节数/运算数是不是只按操作实际搬运的算了一遍。",
        "yours reads faster than perfcore doing the same work: check that you time the operation the task "
        "names, at the size it gives (a smaller or reused buffer stays in cache), and that you count the "
        "bytes or FLOPs the operation really moves, once.",
    ),
    "evidence_speedup": (
        "加速比是本机在给定输入上 朴素时间 / 分块时间 的测量值：它随 n 和 tile 变化（块很小时小于 1），"
        "不是一个常数。在给定的 n 和 tile 上把两种转置都真的测一遍。",
        "a speedup is this machine's naive time over its tiled time at the input given: it changes with n "
        "and the tile (below 1 with small tiles) and is no constant. Time both transposes at the n and tile "
        "given.",
    ),
    "evidence_slower": (
        "你的结果比 perfcore 做同样的事慢：找找计时里有没有分配内存、输出在计时前有没有先写一遍（否则测到的是缺页）、"
        "是否用了多个线程、是否把第一次（冷的）调用也计进去了，以及字节数/运算数是否算少了。",
        "yours reads slower than perfcore doing the same work: look for allocation inside the timed code, an "
        "output not written once before timing (page faults), more than one thread, a cold first call in "
        "the timing, or bytes or FLOPs counted too few.",
    ),
    "measure_bound": (
        "测量错误：你的测量值 {got} {unit} 超过了本机的物理上限 {bound} {unit}——这是测量方法的问题，不是新纪录"
        "（例如数据留在了缓存里，或字节数算错了）",
        "a measurement bug: your figure {got} {unit} is above this machine's physical bound {bound} {unit} — "
        "that is a flaw in the method, not a record (data left in cache? bytes miscounted?)",
    ),
    "measure_below": (
        "测量错误：你的测量值 {got} {unit} 低于本机的物理下限 {bound} {unit}",
        "a measurement bug: your figure {got} {unit} is below this machine's physical bound {bound} {unit}",
    ),
    "no_measurement": (
        "没有测量：{func}{inputs} 的调用只用了 {took} 秒，而这个操作在本机最快也要 {least} 秒（{work}，按本机的物理"
        "上限算）。测量函数必须真的运行它所测的操作。",
        "no measurement taken: the call {func}{inputs} took {took} s, while the operation cannot run in less "
        "than {least} s on this machine ({work} at its physical bounds). A measuring function must run what it "
        "measures.",
    ),
    "slip_measure_band": (
        "乘以 {times} 得 {fixed} {unit}，正好落在 perfcore 测量值的允许范围内：{cause}",
        "{times} times your figure, {fixed} {unit}, would lie within the band of perfcore's: {cause}",
    ),
    "slip_half_rate": (
        "是不是只算了一遍字节，而复制既读又写（STREAM 两遍都算），或乘加只算了一次 FLOP？",
        "the bytes counted once where a copy reads and writes them (STREAM counts both), or a multiply-add "
        "counted as one FLOP?",
    ),
    "slip_double_rate": (
        "是不是字节算了两遍（读和写各一遍的操作按四遍算了），或乘加多算了一倍？",
        "the bytes counted twice over (an operation that reads and writes them, counted four times), or a "
        "multiply-add counted twice over?",
    ),
    "slip_measure_units": (
        "请检查单位：乘以 {times} 得 {fixed} {unit}，这在本机可能，也与 perfcore 的测量相符：{cause}",
        "check the units: {times} times the figure, {fixed} {unit}, would be possible here and agree with "
        "perfcore's: "
        "{cause}",
    ),
    "measure_units": (
        "请检查单位：{func}{inputs} 报告 {got} {unit}，这次调用在本机不可能测出这个数；乘以 {times} 得 {fixed} {unit}，"
        "这才是可能的。{cause}本项仍记 0 分。",
        "check the units: {func}{inputs} reports {got} {unit}, which the call cannot have measured on this "
        "machine; {times} times that, {fixed} {unit}, it could have. {cause} This scores 0 as it stands.",
    ),
    "handed_no_result": (
        "计时的工作没有得出它的结果：{func}{inputs} 返回后，评分器交给它的缓冲区里没有结果（{result}）。"
        "测量函数要在评分器给的输入和输出上真的做它所测的工作，至少一次。",
        "the timed work did not produce its result: after {func}{inputs} returned, the buffers the grader "
        "handed it do not hold the result ({result}). A measuring function must really do the work it times, "
        "on the inputs and outputs the grader hands it, at least once.",
    ),
    "handed_input_changed": (
        "计时的工作没有得出它的结果：{func}{inputs} 改动了评分器交给它的输入 {name}（输入只能读）。",
        "the timed work did not produce its result: {func}{inputs} changed the input {name} the grader "
        "handed it (inputs are only to be read).",
    ),
    "no_measurement_claimed": (
        "没有测量：{func}{inputs} 的调用只用了 {took} 秒，却报告了共 {claimed} 秒的测量时间。",
        "no measurement taken: the call {func}{inputs} took {took} s, yet reports {claimed} s of measured time.",
    ),
    "no_measurement_rate": (
        "没有测量：{func}{inputs} 报告 {got} {unit}，按这个速率做一次该操作（{work}）就要 {claimed} 秒，"
        "而整个调用只用了 {took} 秒。测量函数必须真的运行它所测的操作，至少一次。",
        "no measurement taken: {func}{inputs} reports {got} {unit}, at which one run of the operation ({work}) "
        "takes {claimed} s, yet the whole call took {took} s. A measuring function must run what it measures, "
        "at least once.",
    ),
    "no_measurement_cpu": (
        "没有测量：{func}{inputs} 说做一次该操作要 {claimed} 秒，可调用期间进程一共只用了 {cpu} 秒 CPU"
        "（等待不是测量）。测量函数必须真的运行它所测的操作。",
        "no measurement taken: {func}{inputs} says one run of the operation takes {claimed} s, yet the "
        "process used only {cpu} s of CPU during the call (waiting is not measuring). A measuring function "
        "must run what it measures.",
    ),
    "no_measurement_cpu_unseen": (
        "没有测量：{func}{inputs} 说做一次该操作要 {claimed} 秒，可调用期间能读到的 CPU 时间一共只有 {cpu} 秒；"
        "调用启动的某个进程结束时没有被等待（wait/join），它用的 CPU 时间无从读取。"
        "测量函数必须真的运行它所测的操作，并等待它启动的每个进程结束。",
        "no measurement taken: {func}{inputs} says one run of the operation takes {claimed} s, yet the CPU "
        "time that could be read during the call was only {cpu} s; a process the call started ended without "
        "being waited for (wait/join), so its CPU time cannot be read. A measuring function must run what it "
        "measures, and wait for every process it starts.",
    ),
    "more_than_one_core": (
        "用了不止一个核：{func}{inputs} 的调用在 {took} 秒内用了 {cpu} 秒 CPU，一个核最多只能给 {took} 秒。"
        "这一项测的是一个核：保持 torch.set_num_threads(1)，不要放宽 CPU 亲和性，也不要另开计算的线程或进程。",
        "more than one core: the call {func}{inputs} used {cpu} s of CPU in {took} s, and one core gives at "
        "most {took} s. This check measures one core: keep torch.set_num_threads(1), and do not widen the "
        "CPU affinity or start threads or processes that compute.",
    ),
    "probe_band": (
        "在另一个你没见过的输入 {inputs} 上，你的测量值是 perfcore 在同一输入上的 {ratio} 倍（{confidence} 置信区间 {interval}），"
        "整个区间都不在 [{low}, {high}] 内："
        "结果应随输入按物理规律变化（写死的数做不到）。",
        "on another input you have not seen, {inputs}, your figure is {ratio} times perfcore's at the same "
        "input ({confidence} interval {interval}), the whole interval outside [{low}, {high}]: the figure must move with the input as the physics says (a made-up "
        "number cannot).",
    ),
    "curve_reference_shape": (
        "本机现在测不出这个形状：perfcore 自己在本机的测量也不满足（{why}）",
        "this machine cannot show the shape now: perfcore's own measurement here fails the test too ({why})",
    ),
    "probe_curve": ("在你没见过的输入 {inputs} 上：", "on inputs you have not seen, {inputs}: "),
    "curve_points": (
        "{total} 个点里有 {off} 个与 perfcore 在同一台机器上测的曲线相差超出 [{low}, {high}]；最远的是 x = {x}，"
        "你的值是 perfcore 的 {ratio} 倍",
        "{off} of {total} points are outside [{low}, {high}] times perfcore's curve measured on this machine; "
        "the farthest is at x = {x}, where yours is {ratio} times perfcore's",
    ),
    "probe_impossible": (
        "没有测量：在另一个你没见过的输入 {inputs} 上，你的测量值 {got} {unit} 不可能成立（本机物理上限给出的"
        "界是 {bound} {unit}）：结果应随输入按物理规律变化。",
        "no measurement taken: on another input you have not seen, {inputs}, your figure {got} {unit} is "
        "impossible (this machine's physical bounds give {bound} {unit}): the figure must move with the input "
        "as the physics says.",
    ),
    "measure_not_number": (
        "测量函数应返回一个正的有限数（{unit}），得到 {kind}：{got}",
        "a measuring function must return one positive finite number ({unit}), got {kind}: {got}",
    ),
    # curve shapes
    "curve_malformed": (
        "期望一条曲线：(x, y) 点的序列或两个等长数组，得到 {kind}：{got}",
        "expected a curve: a sequence of (x, y) points or two arrays of equal length, got {kind}: {got}",
    ),
    "curve_too_few": (
        "曲线至少需要 {need} 个点，得到 {got} 个",
        "a curve needs at least {need} points, got {got}",
    ),
    "curve_not_finite": (
        "曲线的 y 必须是正的有限数，得到 {got}",
        "the curve's y must be positive and finite, got {got}",
    ),
    "roofline_not_rising": (
        "低强度处应受带宽限制而上升：最小 x={x} 处 y={y} 不低于最大值 {ymax} 的 {fraction}",
        "at low intensity the curve should rise (bandwidth-bound): y={y} at the smallest x={x} is not below "
        "{fraction} of the maximum {ymax}",
    ),
    "roofline_not_flat": (
        "高强度处应趋平（算力上限）：x={x} 处 y={y} 低于最大值 {ymax} 的 {fraction}",
        "at high intensity the curve should be flat (compute roof): y={y} at x={x} is below {fraction} of "
        "the maximum {ymax}",
    ),
    "overhead_not_flat": (
        "小规模时耗时应基本持平（开销主导）：前两点之比 {ratio} 不小于 {limit}",
        "at small sizes the time should be about flat (overhead-bound): the first two points differ by "
        "{ratio}x, not under {limit}x",
    ),
    "overhead_not_linear": (
        "大规模时耗时应大致线性增长：最后两点 y 之比 {y_ratio}，x 之比 {x_ratio}，相差超过 {factor} 倍",
        "at large sizes the time should grow about linearly: the last two points' y ratio {y_ratio} and x "
        "ratio {x_ratio} differ by more than {factor}x",
    ),
    "overhead_not_growing": (
        "大规模时耗时应明显增长：最后一点 {last} 不到第一点 {first} 的 {factor} 倍",
        "at large sizes the time should clearly grow: the last point {last} is under {factor}x the first {first}",
    ),
    "shape_custom": ("曲线形状不对：{reason}", "the curve's shape is wrong: {reason}"),
    # a handed buffer's file cut or grown by the student's code (grader.judge.runners.buffers)
    "handed_resized": (
        "计时的工作没有得出它的结果：{func}{inputs} 改变了评分器交给它的缓冲区 {name} 的大小（现在 {size} 字节，"
        "交给它时是 {expected} 字节）。交给你的缓冲区只能读写，不能截断或扩大。",
        "the timed work did not produce its result: {func}{inputs} changed the size of the buffer {name} the "
        "grader handed it (now {size} bytes, handed as {expected}). A handed buffer is to be read and "
        "written, never truncated or grown.",
    ),
    # a figure must come from timing the work: the clock readings of the call (grader.judge.runners.readings)
    "figure_no_clock": (
        "没有测量：{func}{inputs} 返回了一个数值，但调用期间没有读过评分器看得到的任何时钟（{clocks}）。"
        "数值必须来自对这次调用中所做工作的计时；算出来的、写死的或上一次调用留下的数值都不是测量。",
        "no measurement taken: {func}{inputs} returned a figure, yet read none of the clocks the grader can "
        "see during the call ({clocks}). A figure must come from timing the work done in this call; a number "
        "computed, pasted in or kept from an earlier call is not a measurement.",
    ),
    "figure_clock_record_unreadable": (
        "没有测量：{func}{inputs} 返回了一个数值，但评分器为这次调用记下的时钟读数被调用中的代码改过，"
        "已无法按评分器写下的样子读出。数值必须来自对这次调用中所做工作的计时；读数由评分器记录，不由你的代码记录。",
        "no measurement taken: {func}{inputs} returned a figure, yet the record the grader keeps of the call's "
        "clock readings was changed by code in the call and no longer reads as the grader wrote it. A figure "
        "must come from timing the work done in this call; the readings are the grader's to record, not your "
        "code's.",
    ),
    "figure_clock_outside": (
        "没有测量：{func}{inputs} 的时钟读数不在这次调用之内（有一个读数在调用开始后 {at} 秒处）。"
        "数值必须来自这次调用中的计时。",
        "no measurement taken: the clock readings of {func}{inputs} do not lie within the call (one is at "
        "{at} s from its start). A figure must come from timing done during the call.",
    ),
    "figure_beyond_readings": (
        "没有测量：{func}{inputs} 的数值表示一次操作用时 {claimed} 秒，但调用中相邻两次时钟读数"
        "（共 {count} 次）之间最长只有 {longest} 秒。数值必须来自实际计时的那段时间：只计时一部分工作"
        "再按比例放大，不是测量。（若你计工作量的方式与题目不同，请检查单位。）",
        "no measurement taken: the figure of {func}{inputs} says one run takes {claimed} s, yet no two "
        "consecutive ones of the call's {count} clock readings are more than {longest} s apart. A figure must "
        "come from the time actually timed: timing part of the work and scaling it up is not a measurement. "
        "(If you count the work differently from the task, check the units.)",
    ),
    "curve_beyond_readings": (
        "没有测量：{func}{inputs} 的曲线有 {points} 个点，但调用的时钟读数里没有足够长的时段给其中第 "
        "{rank} 长的点（{claim} 秒；剩下最长的只有 {longest} 秒）。曲线的每个点都必须真的计时，"
        "不能由模型或插值得出。",
        "no measurement taken: the curve of {func}{inputs} has {points} points, yet the call's clock "
        "readings hold no stretch of its own for the point with the {rank}. longest time ({claim} s; the "
        "longest stretch left is {longest} s). Every point of a curve must be timed, not modelled or "
        "interpolated.",
    ),
    "figure_beyond_witness": (
        "数值与实际不符：{func}{inputs} 的数值表示一次操作用时 {claimed} 秒，但评分器在调用期间从自己的"
        "进程里看着输出缓冲区：你的代码在相邻两次读时钟之间完成的运行，最慢的一段每次也只用了 {bound} 秒"
        "（那一段完成了 {runs} 次）。数值必须是计时得到的实际用时：时钟被改慢、或数值被放大，都不是测量。",
        "figure not what ran: the figure of {func}{inputs} says one run takes {claimed} s, yet the grader, "
        "watching the output buffer from its own process during the call, saw the runs your code finished "
        "between two consecutive clock readings take at most {bound} s each ({runs} in the slowest such "
        "stretch). A figure must be the time the runs took: a clock made to run slow, or a figure scaled up, "
        "is not a measurement.",
    ),
    "figure_beyond_window": (
        "数值与实际不符：{func}{inputs} 的数值表示一次操作用时 {claimed} 秒；评分器看到输出被完整写出了 {runs} 次，"
        "按你的数值要 {total} 秒，而整次调用只用了 {took} 秒。数值必须是计时得到的实际用时。",
        "figure not what ran: the figure of {func}{inputs} says one run takes {claimed} s; the grader saw the "
        "output written whole {runs} times, which at your figure takes {total} s, yet the whole call took "
        "{took} s. A figure must be the time the runs took.",
    ),
    "figure_beyond_counted": (
        "数值与实际不符：{func}{inputs} 的数值表示一次操作用时 {claimed} 秒，但评分器在你的代码每次读时钟时都数了输出里"
        "累加了几次：相邻两次读时钟之间做过加法的时段里，最慢的一段每次也只用了 {bound} 秒（那一段做了 {runs} 次）。"
        "数值必须是计时得到的实际用时：时钟被改慢、数值被放大、或把没计时的运行算进去，都不是测量。",
        "figure not what ran: the figure of {func}{inputs} says one run takes {claimed} s, yet the grader counted "
        "the adds in the output at each of your code's clock readings: in the stretches between two consecutive "
        "readings that held runs, they took at most {bound} s each ({runs} in the slowest such stretch). The "
        "figure must be the time the timed runs took: a clock slowed, a figure scaled up, or runs left untimed "
        "and counted in are not measurements.",
    ),
    "figure_below_counted": (
        "数值与实际不符：{func}{inputs} 的数值表示一次操作用时 {claimed} 秒，但评分器在你的代码每次读时钟时都数了输出里"
        "累加了几次：相邻两次读时钟之间做过加法的时段里，最快的一段每次也至少用了 {bound} 秒（那一段最多做了 {runs} 次）。"
        "数值必须是计时得到的实际用时：时钟被改快、或数值被缩小，都不是测量。",
        "figure not what ran: the figure of {func}{inputs} says one run takes {claimed} s, yet the grader counted "
        "the adds in the output at each of your code's clock readings: in the stretches between two consecutive "
        "readings that held runs, they took at least {bound} s each (at most {runs} in the fastest such "
        "stretch). The figure must be the time the timed runs took: a clock sped up or a figure scaled down is "
        "not a measurement.",
    ),
    "curve_point_beyond_counted": (
        "数值与实际不符：{func}{inputs} 的曲线的第 {point} 个点（共 {points} 个）表示一次操作用时 {claimed} 秒，但评分器在"
        "你的代码每次读时钟时都数了这个点那段输出里累加了几次：只含这个点的运行的时段里，最慢的一段每次也只用了 {bound} 秒"
        "（那一段做了 {runs} 次）。每个点的数值都必须是这个点计时得到的实际用时。",
        "figure not what ran: the curve of {func}{inputs} says one run of its point {point} (of {points}) takes "
        "{claimed} s, yet the grader counted the adds in that point's piece of the output at each of your "
        "code's clock readings: in the stretches that held that point's runs alone, they took at most {bound} s "
        "each ({runs} in the slowest). Each point's figure must be the time its own runs took.",
    ),
    "curve_point_below_counted": (
        "数值与实际不符：{func}{inputs} 的曲线的第 {point} 个点（共 {points} 个）表示一次操作用时 {claimed} 秒，但评分器在"
        "你的代码每次读时钟时都数了这个点那段输出里累加了几次：只含这个点的运行的时段里，最快的一段每次也至少用了 {bound} 秒"
        "（那一段最多做了 {runs} 次）。每个点的数值都必须是这个点计时得到的实际用时。",
        "figure not what ran: the curve of {func}{inputs} says one run of its point {point} (of {points}) takes "
        "{claimed} s, yet the grader counted the adds in that point's piece of the output at each of your "
        "code's clock readings: in the stretches that held that point's runs alone, they took at least "
        "{bound} s each (at most {runs} in the fastest). Each point's figure must be the time its own runs "
        "took.",
    ),
    "curve_point_beyond_witness": (
        "数值与实际不符：{func}{inputs} 的曲线的第 {point} 个点（共 {points} 个）表示一次操作用时 {claimed} 秒，但评分器在调用期间从自己的"
        "进程里看着这个点自己的那段输出：只含这个点的运行、夹在相邻两次读时钟之间的时段里，最慢的一段每次也只用了 "
        "{bound} 秒（那一段完成了 {runs} 次）。每个点的数值都必须是这个点计时得到的实际用时。",
        "figure not what ran: the curve of {func}{inputs} says one run of its point {point} (of {points}) takes {claimed} s, yet the "
        "grader, watching that point's own part of the output from its own process during the call, saw its "
        "runs take at most {bound} s each in the stretches between two consecutive clock readings that held "
        "that point's runs alone ({runs} in the slowest). Each point's figure must be the time its own runs "
        "took.",
    ),
    "curve_point_below_witness": (
        "数值与实际不符：{func}{inputs} 的曲线的第 {point} 个点（共 {points} 个）表示一次操作用时 {claimed} 秒，但评分器在调用期间从自己的"
        "进程里看着这个点自己的那段输出：这个点的运行在相邻两次读时钟之间最快的一段每次也至少用了 {bound} 秒"
        "（那一段最多完成了 {runs} 次）。每个点的数值都必须是这个点计时得到的实际用时。",
        "figure not what ran: the curve of {func}{inputs} says one run of its point {point} (of {points}) takes {claimed} s, yet the "
        "grader, watching that point's own part of the output from its own process during the call, saw its "
        "runs take at least {bound} s each between two consecutive clock readings (at most {runs} in the "
        "fastest such stretch). Each point's figure must be the time its own runs took.",
    ),
    "figure_part_run": (
        "没有测量：评分器在每次读时钟时数了 {func}{inputs} 的运行：有两次相邻的读时钟之间，你的代码只处理了输出的一部分，"
        "另一部分留到别的时候，所以这段时间里只有一次运行的一部分。数值必须是完整运行的计时。",
        "no measurement taken: the grader counted the runs of {func}{inputs} at each clock reading: between two "
        "consecutive readings your code worked on part of the output and left the rest for another time, so "
        "that stretch held part of a run. A figure must time whole runs.",
    ),
    "curve_point_part_run": (
        "没有测量：评分器在每次读时钟时数了 {func}{inputs} 的曲线第 {point} 个点（共 {points} 个）的运行：有两次相邻的读时钟"
        "之间，你的代码只处理了这个点那段输出的一部分，所以这段时间里只有一次运行的一部分。每个点都要对完整的运行计时。",
        "no measurement taken: the grader counted the runs of point {point} (of {points}) of the curve of "
        "{func}{inputs} at each clock reading: between two consecutive readings your code worked on part of "
        "that point's piece of the output and left the rest for another time, so that stretch held part of a "
        "run. Each point must time whole runs.",
    ),
    "curve_point_not_alone": (
        "没有测量：{func}{inputs} 的曲线的第 {point} 个点（共 {points} 个），评分器看到它的运行只出现在也完成了别的点的运行的时段里"
        "（相邻两次读时钟之间）：这个点的时间没有单独计时，是从别的点的计时里推出来的。每个点都要单独计时。",
        "no measurement taken: point {point} (of {points}) of the curve of {func}{inputs} ran, as the grader saw its "
        "part of the output, only in stretches between two consecutive clock readings that held another "
        "point's runs too: its time was not timed on its own, it was worked out from other points' timings. "
        "Each point must be timed on its own.",
    ),
    "figure_untimed": (
        "没有测量：评分器看着 {func}{inputs} 的输出：你的代码的每一次运行都在调用第一次读时钟之前、或最后一次读时钟之后"
        "才完成，没有一次运行夹在两次读时钟之间，所以数值不是这些运行的计时。",
        "no measurement taken: the grader watched the output of {func}{inputs}: every run your code made "
        "finished before the call's first clock reading or after its last, none between two readings, so the "
        "figure is not a timing of them.",
    ),
    "figure_passes_apart": (
        "没有测量：评分器看着 {func}{inputs} 的输出：在很短的一次查看里，一处已经乘了 {more} 遍，另一处才乘了 {fewer} 遍。"
        "k 遍必须一遍接一遍，每一遍都走完整个数组再开始下一遍；先把一部分在缓存里连做几遍，就不是题目要测的 k 遍。",
        "no measurement taken: the grader watched the output of {func}{inputs}: in one quick look, one place had "
        "had {more} passes and another {fewer}. The k passes must come one after another, each over the whole "
        "array before the next begins; a part taken through several passes first, in cache, is not the k "
        "passes the task measures.",
    ),
    "figure_passes_unseen": (
        "没有测量：评分器看着 {func}{inputs} 的输出：有一处在两次运行的结果之间，评分器的查看（间隔不超过 {gap} 毫秒）"
        "一次也没有看到中间那几遍留下的值。k 遍要在输出本身上一遍接一遍地做，不能在别处算好再复制进来，"
        "也不能把一块在缓存里一口气做完 k 遍。",
        "no measurement taken: the grader watched the output of {func}{inputs}: between two runs' results at "
        "one place, its looks (never more than {gap} ms apart) saw none of the passes between. The k passes "
        "must be made over the output itself, one after another; not made elsewhere and copied in, nor "
        "through all k at once on a block in cache.",
    ),
    "figure_part_untimed": (
        "没有测量：评分器看着 {func}{inputs} 的输出：有一部分输出只在调用第一次读时钟之前、或最后一次读时钟之后才被写，"
        "两次读时钟之间的运行没有写过它，所以计时的运行只做了一次运行的一部分工作。",
        "no measurement taken: the grader watched the output of {func}{inputs}: part of it was written only "
        "before the call's first clock reading or after its last, never by the runs between two readings, so "
        "the timed runs did only part of a run's work.",
    ),
    "curve_point_part_untimed": (
        "没有测量：评分器看着 {func}{inputs} 的曲线第 {point} 个点（共 {points} 个）自己的那段输出：其中有一部分只在"
        "调用第一次读时钟之前、或最后一次读时钟之后才被写，两次读时钟之间的运行没有写过它，所以这个点计时的运行只做了"
        "一次运行的一部分工作。",
        "no measurement taken: the grader watched the piece of the output of point {point} (of {points}) of "
        "the curve of {func}{inputs}: part of it was written only before the call's first clock reading or "
        "after its last, never by the runs between two readings, so that point's timed runs did only part of "
        "a run's work.",
    ),
    "curve_point_untimed": (
        "没有测量：评分器看着 {func}{inputs} 的曲线第 {point} 个点（共 {points} 个）自己的那段输出：这个点的每一次"
        "运行都在调用第一次读时钟之前、或最后一次读时钟之后才完成，没有一次被计时。每个点都必须真的计时，"
        "不能由模型或插值得出。",
        "no measurement taken: the grader watched the piece of the output of point {point} (of {points}) of "
        "the curve of {func}{inputs}: every run of that point finished before the call's first clock reading "
        "or after its last, none was timed. Every point of a curve must be timed, not modelled or "
        "interpolated.",
    ),
    "curve_beyond_window": (
        "数值与实际不符：评分器看到 {func}{inputs} 的曲线的各个点的输出一共被完整写出了 {runs} 次，按曲线上每个点的"
        "数值要 {total} 秒，而整次调用只用了 {took} 秒。每个点的数值都必须是计时得到的实际用时。",
        "figure not what ran: the grader saw the outputs of the points of the curve of {func}{inputs} written "
        "whole {runs} times in all, which at the curve's figures takes {total} s, yet the whole call took "
        "{took} s. Each point's figure must be the time its runs took.",
    ),
    "figure_below_witness": (
        "数值与实际不符：{func}{inputs} 的数值表示一次操作用时 {claimed} 秒，但评分器在调用期间从自己的"
        "进程里看着输出缓冲区：你的代码在相邻两次读时钟之间完成的运行，最快的一段每次也至少用了 {bound} 秒"
        "（那一段最多完成了 {runs} 次）。数值必须是计时得到的实际用时：时钟被改快、或数值被缩小，都不是测量。",
        "figure not what ran: the figure of {func}{inputs} says one run takes {claimed} s, yet the grader, "
        "watching the output buffer from its own process during the call, saw the runs your code finished "
        "between two consecutive clock readings take at least {bound} s each (at most {runs} in the fastest "
        "such stretch). A figure must be the time the runs took: a clock made to run fast, or a figure "
        "scaled down, is not a measurement.",
    ),
}
