"""grader.watch.saves: one save is one regrade, however the editor wrote it; nothing else is marked."""

from __future__ import annotations

from multiprocessing.connection import wait
from pathlib import Path

import pytest
from watchdog.events import (
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)

from grader.watch.saves import Saves


def _woken(saves: Saves) -> bool:
    """Whether the watch's loop, waiting on the saves' descriptor, would wake at once."""
    return bool(wait([saves.fileno()], 0))


def _saves(tmp_path: Path) -> tuple[Saves, Path]:
    saves = Saves(tmp_path, quiet_s=0.05)
    return saves, tmp_path.resolve() / "ex01_ridge_point.py"


@pytest.mark.parametrize(
    "editor",
    ["in place", "renamed over", "deleted and created", "many events"],
)
def test_one_save_is_one_regrade_whatever_the_editor_does(tmp_path, editor) -> None:
    saves, target = _saves(tmp_path)
    temp = tmp_path / ".ex01_ridge_point.py.swp"
    events = {
        "in place": [FileModifiedEvent(str(target)), FileClosedEvent(str(target))],
        "renamed over": [FileCreatedEvent(str(temp)), FileMovedEvent(str(temp), str(target))],
        "deleted and created": [FileDeletedEvent(str(target)), FileCreatedEvent(str(target))],
        "many events": [FileModifiedEvent(str(target))] * 5 + [FileClosedEvent(str(target))],
    }[editor]
    for event in events:
        saves.dispatch(event)
    assert _woken(saves)
    assert saves.due(now=0.0) == []  # an event has just marked it: not yet at rest
    next_in = saves.next_in()
    assert next_in is not None and 0 < next_in <= 0.05
    import time

    later = time.monotonic() + 0.05
    assert saves.due(now=later) == [target]
    assert saves.due(now=later + 1) == [] and saves.next_in() is None
    saves.drain()  # as the watch's loop does after each wait
    assert not _woken(saves)


def test_a_file_saved_again_before_it_is_at_rest_waits_for_the_last_save(tmp_path) -> None:
    saves, target = _saves(tmp_path)
    saves.mark(target, at=10.0)
    saves.mark(target, at=10.04)
    assert saves.due(now=10.06) == []
    assert saves.due(now=10.09) == [target]


def test_files_are_due_in_the_order_they_were_saved(tmp_path) -> None:
    saves, first = _saves(tmp_path)
    second = first.with_name("ex02_memory_bound.py")
    saves.mark(second, at=5.0)
    saves.mark(first, at=4.0)
    assert saves.due(now=6.0) == [first, second]


@pytest.mark.parametrize(
    "name",
    [".ex01_ridge_point.py.swp", "ex01_ridge_point.py~", "4913", ".hidden.py", "notes.txt", "ex01.pyc"],
)
def test_editors_own_files_and_other_kinds_are_never_marked(tmp_path, name) -> None:
    saves, _ = _saves(tmp_path)
    saves.dispatch(FileModifiedEvent(str(tmp_path / name)))
    saves.dispatch(FileCreatedEvent(str(tmp_path / name)))
    assert saves.next_in() is None and not _woken(saves)


def test_files_of_other_folders_and_opens_are_never_marked(tmp_path) -> None:
    saves, target = _saves(tmp_path)
    (tmp_path / "sub").mkdir()
    saves.dispatch(FileModifiedEvent(str(tmp_path / "sub" / "ex01_ridge_point.py")))
    saves.dispatch(FileModifiedEvent(str(tmp_path.parent / "ex01_ridge_point.py")))
    saves.dispatch(FileOpenedEvent(str(target)))  # a read, not a save
    assert saves.next_in() is None


def test_a_file_moved_away_marks_its_old_name(tmp_path) -> None:
    """Renaming ex01 to a backup: ex01 is due (then found gone: its checks leave the table), the backup is
    no .py file of the folder's exercises but is marked too (then found to be no exercise)."""
    saves, target = _saves(tmp_path)
    saves.dispatch(FileMovedEvent(str(target), str(target.with_name("old.py"))))
    assert sorted(p.name for p in saves.due(now=1e9)) == ["ex01_ridge_point.py", "old.py"]


def test_a_negative_quiet_time_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="quiet_s must be at least 0"):
        Saves(tmp_path, quiet_s=-1)
