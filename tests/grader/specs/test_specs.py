"""grader.specs.check, grader.specs.requirements and grader.registry: malformed specs fail early, naming the field."""

from __future__ import annotations

import os

import pytest
from hypothesis import strategies as st

import grader.specs.requirements as requirements
from grader.registry import RegistryError, find_exercise, load_exercises
from grader.specs.check import (
    ChoiceCheck,
    Exercise,
    MeasurementCheck,
    PropertyCheck,
    ShapeCheck,
    ValueCheck,
    Work,
)
from grader.specs.requirements import Requirements, unmet_reason
from grader.specs.sizes import Memory
from perfcore.measure.machine import CacheLevel, read_sysfs_caches


def value(**kw: object) -> ValueCheck:
    base = dict(id="a", points=1, func="f", part="1a", expected=lambda: 1.0)
    base.update(kw)
    return ValueCheck(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "exc", "field"),
    [
        ({"id": ""}, ValueError, "ValueCheck.id"),
        ({"id": "a b"}, ValueError, "ValueCheck.id"),
        ({"points": 0}, ValueError, "ValueCheck.points"),
        ({"points": "1"}, TypeError, "ValueCheck.points"),
        ({"func": "not-a-name"}, ValueError, "ValueCheck.func"),
        ({"visibility": "secret"}, ValueError, "ValueCheck.visibility"),
        ({"timeout_s": -1}, ValueError, "ValueCheck.timeout_s"),
        ({"expected": 3.0}, TypeError, "ValueCheck.expected"),
        ({"args": [1]}, TypeError, "ValueCheck.args"),
        ({"kwargs": {1: 2}}, TypeError, "ValueCheck.kwargs"),
        ({"rtol": -0.1}, ValueError, "ValueCheck.rtol"),
        ({"requires": "torch"}, TypeError, "ValueCheck.requires"),
    ],
)
def test_malformed_value_checks_name_the_field(kwargs: dict, exc: type, field: str) -> None:
    with pytest.raises(exc, match=field.replace(".", r"\.")):
        value(**kwargs)


def test_other_kinds_validate_their_fields() -> None:
    common = dict(id="a", points=1, func="f", part="1")
    with pytest.raises(ValueError, match=r"ChoiceCheck\.expected"):
        ChoiceCheck(**common, expected="gpu", choices=("compute", "memory"))
    assert ChoiceCheck(**common, expected="Memory", choices=(" Compute", "MEMORY")).choices == (
        "compute",
        "memory",
    )
    with pytest.raises(TypeError, match=r"PropertyCheck\.strategy"):
        PropertyCheck(**common, strategy={"x": 1}, reference=lambda x: x)
    assert PropertyCheck(**common, strategy=st.fixed_dictionaries({}), reference=lambda: 1).max_examples == 30
    with pytest.raises(ValueError, match=r"MeasurementCheck\.kind"):
        MeasurementCheck(**common, reference=lambda: 1.0, kind="disk")
    with pytest.raises(ValueError, match=r"MeasurementCheck\.band"):
        MeasurementCheck(**common, reference=lambda: 1.0, kind="dram", band=(1.2, 0.8))
    with pytest.raises(ValueError, match=r"MeasurementCheck\.rounds"):
        MeasurementCheck(**common, reference=lambda: 1.0, kind="dram", rounds=1)
    m = MeasurementCheck(**common, reference=lambda: 1.0, kind="cache")
    assert m.ratio_band == (0.6, 1.6) and m.requires.serial and m.requires.torch
    assert MeasurementCheck(**common, reference=lambda: 1.0, kind="overhead").ratio_band == (0.5, 2.0)
    with pytest.raises(ValueError, match=r"ShapeCheck\.shape"):
        ShapeCheck(**common, shape="sine")
    drawn = {"reference": lambda size: 1.0, "kind": "dram", "inputs": lambda u, rng: {"size": 1}}
    with pytest.raises(ValueError, match=r"MeasurementCheck\.inputs needs work"):
        MeasurementCheck(**common, **drawn)
    with pytest.raises(ValueError, match=r"MeasurementCheck\.inputs replaces probe"):
        MeasurementCheck(**common, **drawn, work=lambda size: Work(bytes=1), probe=lambda rng: {"size": 2})
    with pytest.raises(ValueError, match=r"ShapeCheck\.probes"):
        ShapeCheck(**common, shape="overhead", inputs=lambda u, rng: {}, probes=0)
    with pytest.raises(TypeError, match=r"ShapeCheck\.also"):
        ShapeCheck(**common, shape="roofline", reference=lambda: [], also=[[1.0, 2.0]])
    assert MeasurementCheck(**common, **drawn, work=lambda size: Work(bytes=1), probes=3).probes == 3


def test_exercise_validation_and_lookup() -> None:
    ex = Exercise(
        id="ex07", module="ex07_kv", title_zh="转折点", title_en="Crossover", checks=[value(), value(id="b")]
    )
    assert isinstance(ex.checks, tuple) and ex.max_points == 2.0
    assert ex.number("b") == "7.2" and ex.check("a").id == "a" and ex.title("en") == "Crossover"
    with pytest.raises(KeyError, match="no check 'c'"):
        ex.check("c")
    with pytest.raises(ValueError, match="twice"):
        Exercise(id="ex07", module="ex07_kv", title_zh="", title_en="", checks=(value(), value()))
    with pytest.raises(ValueError, match=r"Exercise\.module"):
        Exercise(id="ex07", module="ex07-kv", title_zh="", title_en="", checks=(value(),))
    with pytest.raises(TypeError, match=r"Exercise\.checks"):
        Exercise(id="ex07", module="ex07_kv", title_zh="", title_en="", checks=())


def test_requirements(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"Requirements\.torch"):
        Requirements(torch="two")
    with pytest.raises(ValueError, match="min_llc_bytes"):
        Requirements(min_llc_bytes=-1)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    assert unmet_reason(Requirements()) is None
    assert unmet_reason(Requirements(serial=True)) is None
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    assert "串行" in unmet_reason(Requirements(serial=True))
    assert "serial" in unmet_reason(Requirements(serial=True), "en")
    monkeypatch.setattr(requirements, "installed_torch_version", lambda: "2.1.0+cpu")
    assert unmet_reason(Requirements(torch=">=2.0")) is None
    assert "2.1.0+cpu" in unmet_reason(Requirements(torch=">=2.5"), "en")
    monkeypatch.setattr(requirements, "installed_torch_version", lambda: None)
    assert "not installed" in unmet_reason(Requirements(torch=""), "en")


def test_requirements_of_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    import torch

    if not torch.cuda.is_available():
        assert "CUDA" in unmet_reason(Requirements(cuda=True), "en")
    l3 = Memory((CacheLevel(2, "Unified", 2 << 20), CacheLevel(3, "Unified", 32 << 20)), 64 << 30)
    assert unmet_reason(Requirements(min_llc_bytes=16 * 2**20), memory=l3) is None
    assert "32.0 MiB" in unmet_reason(Requirements(min_llc_bytes=64 * 2**20), "en", memory=l3)
    unknown = Memory((), 64 << 30)
    assert "unknown" in unmet_reason(Requirements(min_llc_bytes=1), "en", memory=unknown)
    assert "cannot be read" in unmet_reason(Requirements(caches=True), "en", memory=unknown)
    assert unmet_reason(Requirements(caches=True, memory_bytes=1 << 30), memory=l3) is None
    tight = Memory(l3.caches, 2 << 30)  # two 1 GiB working sets and the headroom do not fit in 2 GiB
    assert "available memory" in unmet_reason(Requirements(memory_bytes=1 << 30), "en", memory=tight)


def test_cache_sizes_from_sysfs(tmp_path) -> None:
    for index, (level, kind, size) in enumerate(
        [(1, "Data", "48K"), (2, "Unified", "2048K"), (3, "Unified", "32M")]
    ):
        d = tmp_path / f"index{index}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(f"{kind}\n")
        (d / "size").write_text(f"{size}\n")
    memory = Memory(read_sysfs_caches(str(tmp_path / "index*")))
    assert memory.llc_bytes == 32 * 2**20 and memory.level_bytes(2) == 2 * 2**20 and memory.known
    assert not Memory(read_sysfs_caches(str(tmp_path / "nothing*"))).known
    if os.path.exists("/sys/devices/system/cpu/cpu0/cache"):
        assert Memory.here().known


def test_registry_holds_exercise_one() -> None:
    exercises = load_exercises()
    assert exercises["ex01"].module == "ex01_ridge_point"
    assert find_exercise("ex01_ridge_point") is exercises["ex01"]
    with pytest.raises(KeyError, match="ex99"):
        find_exercise("ex99")
    with pytest.raises(RegistryError, match="no_such_module"):
        load_exercises(["no_such_module"])


def test_registry_refuses_clashes(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "clash_checks.py").write_text("from grader.checks.ex01 import EXERCISE\n")
    (tmp_path / "empty_checks.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(__import__("sys").modules, "clash_checks", raising=False)
    with pytest.raises(RegistryError, match="already registered"):
        load_exercises(["clash_checks"])
    with pytest.raises(RegistryError, match="must define EXERCISE"):
        load_exercises(["empty_checks"])
