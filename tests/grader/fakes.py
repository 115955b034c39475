"""Fake exercises and fake student modules for the grader's tests (sources written into pytester dirs).

Nothing here is collected by pytest: the checks modules are registered only inside the test sessions
(``grader_checks``), and the student sources are strings.
"""

from __future__ import annotations

import textwrap

#: A fake exercise "fk" graded in student files named fake_student.py: 7 points over six checks.
FAKE_CHECKS = textwrap.dedent(
    """
    import perfcore
    from grader.specs.check import ChoiceCheck, Exercise, PropertyCheck, ShapeCheck, ValueCheck
    from grader.specs.strategies import call_kwargs, positive_ints

    EXERCISE = Exercise(
        id="fk",
        module="fake_student",
        title_zh="假练习",
        title_en="Fake exercise",
        import_timeout_s=30.0,  # not what these tests are about: a busy machine imports numpy slowly
        checks=(
            ValueCheck(id="v_ratio", part="a", points=1, func="ratio", args=(6.0, 3.0),
                       expected=lambda: 2.0, rtol=1e-6, hint_zh="相除即可", hint_en="divide"),
            ChoiceCheck(id="c_bound", part="a", points=1, func="bound",
                        expected="memory", choices=("compute", "memory")),
            PropertyCheck(id="p_double", part="b", points=2, func="double",
                          strategy=call_kwargs(x=positive_ints(1, 1000)),
                          reference=lambda x: 2 * x, rtol=None, atol=None, max_examples=20),
            ValueCheck(id="v_ridge", part="b", points=1, func="ridge",
                       expected=lambda: perfcore.ridge_point("H100"), rtol=1e-6),
            ShapeCheck(id="s_roof", part="c", points=1, func="roof_curve", shape="roofline"),
            # an endless loop's limit: an honest slow() returns at once, far within it on a busy machine
            ValueCheck(id="v_slow", part="c", points=1, func="slow", expected=lambda: 1, timeout_s=2.0),
        ),
    )
    """
)

FAKE_MAX = 7.0

CORRECT = textwrap.dedent(
    """
    def ratio(a, b):
        return a / b

    def bound():
        return " Memory\\n"

    def double(x):
        return 2 * x

    def ridge():
        return 989.4e12 / 3.35e12

    def roof_curve():
        xs = [0.25, 1, 4, 16, 64, 256]
        return [(x, min(100.0, 10.0 * x)) for x in xs]

    def slow():
        return 1
    """
)

#: Right on part a (2 points) and the shape (1 point): exactly 3 of 7.
PARTLY = textwrap.dedent(
    """
    def ratio(a, b):
        return a / b

    def bound():
        return "memory"

    def double(x):
        return x + 2

    def ridge():
        return 1.0

    def roof_curve():
        return [(1, 1), (2, 5), (4, 9), (8, 10)]

    def slow():
        return 2
    """
)

NOT_ATTEMPTED = textwrap.dedent(
    """
    def ratio(a, b):
        raise NotImplementedError()

    def bound():
        raise NotImplementedError

    def double(x):
        # YOUR CODE HERE
        raise NotImplementedError()
    """
)

RAISING = CORRECT.replace("return a / b", "return a / (b - b)  # ZeroDivisionError")

SLOW = CORRECT.replace("def slow():\n    return 1", "def slow():\n    while True:\n        pass")

STUBBORN_SLOW = CORRECT.replace(
    "def slow():\n    return 1",
    "def slow():\n    while True:\n        try:\n            sum(range(1000))\n        except BaseException:\n            pass",
)

HARD_CODED = CORRECT.replace("return 2 * x", "return 2")

BAD_TYPES = textwrap.dedent(
    """
    import numpy as np

    def ratio(a, b):
        return float("nan")

    def bound():
        return 3

    def double(x):
        return np.array([2 * x, 2 * x])

    def ridge():
        return "295"

    def roof_curve():
        return "a roofline"

    def slow():
        return True
    """
)

IMPORT_ERROR = "import math\n\nVALUE = 1 / 0\n\ndef ratio(a, b):\n    return a / b\n"
IMPORT_EXIT = "import sys\nsys.exit(3)\n"
IMPORT_SYNTAX = "def ratio(a, b)\n    return a / b\n"
IMPORT_LOOP = "while True:\n    pass\n"

#: Tries to patch perfcore and the grader at import and inside calls; neither can be imported where the
#: student's code runs, so every attempt finds nothing to patch. Earns only its honest part a (2 points).
PATCHING = textwrap.dedent(
    """
    import builtins
    import sys

    try:
        import perfcore
        import grader.compare.values
        import grader.judge.runners.formula
    except ImportError:
        perfcore = grader = None
    else:
        perfcore.ridge_point = lambda *a, **k: 42.0
        grader.compare.values.mismatch = lambda *a, **k: None
        grader.judge.runners.formula.mismatch = lambda *a, **k: None

    def ratio(a, b):
        return a / b

    def bound():
        return "memory"

    def double(x):
        if grader is not None:
            grader.compare.values.number_mismatch = lambda *a, **k: None
        return 0

    def ridge():
        return 42.0

    def roof_curve():
        return "not a curve"

    def slow():
        builtins.abs = lambda x: 0
        return 99
    """
)

#: A fake measuring exercise "fm" graded in fake_meter.py; its references are fake and fast.
MEASURE_CHECKS = textwrap.dedent(
    """
    import itertools

    from grader.specs.requirements import Requirements
    from grader.specs.check import Exercise, MeasurementCheck

    def steady(**kwargs):
        return 100.0

    _noisy = itertools.cycle([100.0, 220.0, 45.0, 300.0, 80.0])

    def noisy(**kwargs):
        return next(_noisy)

    def common(**extra):
        base = dict(kind="dram", reference=steady, rounds=5, requires=Requirements(), single_thread=False,
                    physical_bound=lambda: 150.0, points=1, unit="B/s")
        base.update(extra)
        return base

    EXERCISE = Exercise(
        id="fm",
        module="fake_meter",
        title_zh="假测量",
        title_en="Fake measurement",
        checks=(
            MeasurementCheck(id="m_ok", part="a", func="rate_ok", **common()),
            MeasurementCheck(id="m_off", part="a", func="rate_off", **common()),
            MeasurementCheck(id="m_bound", part="a", func="rate_bound", **common(band=(0.5, 3.0))),
            MeasurementCheck(id="m_noisy", part="b", func="rate_ok", **common(reference=noisy)),
            MeasurementCheck(id="m_cuda", part="b", func="rate_ok", **common(requires=Requirements(cuda=True))),
            MeasurementCheck(id="m_serial", part="c", func="rate_ok", **common(requires=Requirements(serial=True))),
            MeasurementCheck(id="m_scatter", part="c", func="rate_scatter", **common(band=(0.5, 2.0))),
            MeasurementCheck(id="m_edge", part="c", func="rate_edge", **common()),
        ),
    )
    """
)

METER = textwrap.dedent(
    """
    import time

    CALLS = {"off": 0}

    def rate_ok():
        time.perf_counter()  # a figure comes from a clock the grader sees (a reading is all these need)
        return 104.0

    def rate_off():
        time.perf_counter()
        CALLS["off"] += 1
        return 60.0

    def rate_bound():
        time.perf_counter()
        return 200.0

    _SCATTER = [80.0, 300.0, 120.0, 350.0, 60.0, 400.0, 190.0, 210.0]

    def rate_scatter():  # figures all over the place, their median at the band's edge (2x perfcore's)
        time.perf_counter()
        CALLS["scatter"] = CALLS.get("scatter", -1) + 1
        return _SCATTER[CALLS["scatter"] % len(_SCATTER)]

    def rate_edge():  # 1.2503 times perfcore's steady 100: just past the band's 1.25
        time.perf_counter()
        return 125.03
    """
)

#: A fake exercise "fp" graded in fake_probe_student.py: probes and curves against fast, fake references.
PROBE_CHECKS = textwrap.dedent(
    """
    from grader.specs.requirements import Requirements
    from grader.specs.check import Exercise, MeasurementCheck, ShapeCheck, Work

    def rate(size):
        return 1e9 * size

    _SWING = [0.7, 1.5, 0.8, 1.4, 0.75, 1.45]

    def noisy_rate(size):  # perfcore's figure on a noisy machine: a constant 1e9 over it straddles the band
        _SWING.append(_SWING.pop(0))
        return 1e9 * size * _SWING[0]

    def flat_rate(size):  # a machine whose caches and DRAM run alike: one figure at every size
        return 1e9

    GOOD = [(16, 1e-4), (256, 1e-4), (4096, 1.1e-4), (1 << 18, 1e-3), (1 << 20, 4e-3)]

    def curve(sizes):
        return GOOD

    def flat_curve(sizes):
        return [(n, 1e-4) for n in sizes]

    def common(**extra):
        base = dict(kind="dram", reference=rate, rounds=3, requires=Requirements(), single_thread=False,
                    points=1, unit="B/s", kwargs={"size": 1}, work=lambda size: Work(bytes=1),
                    probe=lambda rng: {"size": rng.randint(5, 9)})
        base.update(extra)
        return base

    DRAWN = common(probe=None, inputs=lambda u, rng: {"size": 1 + int(u * 12)}, probes=3, kind="cache")

    SIZES = {"sizes": tuple(n for n, _ in GOOD)}
    SHAPE = dict(points=1, shape="overhead", kwargs=SIZES, requires=Requirements(), kind="overhead")

    def faster(value):
        return None if value > 1.2 else f"not more than 1.2x faster: {value}"

    SPEEDUP = dict(points=1, shape=faster, requires=Requirements())

    EXERCISE = Exercise(
        id="fp",
        module="fake_probe_student",
        title_zh="假探针",
        title_en="Fake probe",
        checks=(
            MeasurementCheck(id="p_follows", part="a", func="rate_follows", **common()),
            MeasurementCheck(id="p_constant", part="a", func="rate_constant", **common()),
            MeasurementCheck(id="p_constant_noisy", part="a", func="rate_constant", **common(reference=noisy_rate)),
            MeasurementCheck(id="p_flat_constant", part="a", func="rate_flat_constant",
                             **common(reference=flat_rate, work=lambda size: Work(bytes=5e7))),
            MeasurementCheck(id="p_flat_measured", part="a", func="rate_flat_measured",
                             **common(reference=flat_rate, work=lambda size: Work(bytes=5e7))),
            MeasurementCheck(id="p_flat_sleeping", part="a", func="rate_flat_sleeping",
                             **common(reference=flat_rate, work=lambda size: Work(bytes=5e7))),
            ShapeCheck(id="c_close", part="b", func="curve_close", reference=curve, **SHAPE),
            ShapeCheck(id="c_far", part="b", func="curve_far", reference=curve, **SHAPE),
            ShapeCheck(id="c_machine", part="b", func="curve_close", reference=flat_curve, **SHAPE),
            ShapeCheck(id="s_no_gain_here", part="c", func="speedup", reference=lambda: 1.05, **SPEEDUP),
            ShapeCheck(id="s_gain_here", part="c", func="speedup", reference=lambda: 1.6, **SPEEDUP),
            ShapeCheck(id="s_student_loses", part="c", func="no_speedup", reference=lambda: 1.6, **SPEEDUP),
            # one distribution for the graded input and three probes, sizes 1-12 stratified in four slices:
            # every slice is met, so a submission that makes up its figure on one of them is met there
            MeasurementCheck(id="d_follows", part="d", func="rate_follows", **DRAWN),
            MeasurementCheck(id="d_small_made_up", part="d", func="rate_small_made_up", **DRAWN),
        ),
    )
    """
)

PROBE_STUDENT = textwrap.dedent(
    """
    import time

    GOOD = [(16, 1e-4), (256, 1e-4), (4096, 1.1e-4), (1 << 18, 1e-3), (1 << 20, 4e-3)]

    def _timed():  # a stretch between two readings of the clock longer than the nanosecond each figure claims
        start = time.perf_counter()
        while time.perf_counter() - start < 1e-6:
            pass

    def rate_follows(size):
        _timed()
        return 1e9 * size

    def rate_constant(size):
        _timed()
        return 1e9  # right at the size it was asked about, and nowhere else

    def rate_small_made_up(size):
        _timed()
        return 5e9 if size <= 3 else 1e9 * size  # follows perfcore's, except on the smallest sizes

    def rate_flat_constant(size):
        return 1e9  # perfcore's figure at every size on a flat machine: only its time gives it away

    def rate_flat_measured(size):
        start = time.perf_counter()
        end = time.time() + 0.05
        while time.time() < end:  # the work: 5e7 bytes at 1e9 B/s, on a CPU (its end read on another clock:
            pass  # a loop on the timing clock itself times a spin, stretch by stretch, and no work)
        return 5e7 / (time.perf_counter() - start)

    def rate_flat_sleeping(size):
        time.sleep(0.05)  # as long as 5e7 bytes take at the rate it reports, on no CPU
        return 1e9

    def _busy(seconds):  # a curve's seconds spent on a CPU, as a measurement spends them (on the CPU clock:
        start = time.process_time()  # a spin reads its clock some 100k times, past what a clock's record keeps)
        while time.process_time() - start < seconds:
            pass

    def _points(seconds):  # each point timed: a stretch between two readings as long as its seconds
        for s in seconds:
            start = time.perf_counter()
            time.sleep(s)
            time.perf_counter()

    def curve_close(sizes):
        _busy(0.01)  # as long as the seconds it reports
        _points([1.2 * s for _, s in GOOD])
        return [(n, 1.2 * s) for n, s in GOOD]

    def speedup():
        _timed()
        return 1.5

    def no_speedup():
        _timed()
        return 1.0

    def curve_far(sizes):
        _busy(0.03)
        _points([s if n < 5000 else 5 * s for n, s in GOOD])
        return [(n, s if n < 5000 else 5 * s) for n, s in GOOD]
    """
)
