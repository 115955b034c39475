"""A time limit for student code: SIGALRM through ``setitimer``, raising :class:`CheckTimeout`.

``CheckTimeout`` derives from BaseException, so a student's ``except Exception`` does not swallow it. Once
the limit is reached the alarm keeps firing every ``REFIRE_S`` seconds until the block is left; from the
second alarm on, a trace function also raises ``CheckTimeout`` at the next line the student's code runs.
A loop with a bare ``except: pass`` catches the alarm's exception inside its ``try``, but the trace
function then raises again on the ``pass`` line, inside the handler, where nothing catches it.
(Grader frames are never traced, and the previous trace function, a coverage tool's, say, is put back.)

``shielded()`` marks grader code (restoring the sandbox) that an alarm must not interrupt. Signals only
reach the main thread; elsewhere (or without ``setitimer``) the limit cannot be enforced and
``time_limit`` yields ``False`` so that callers can say so.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

REFIRE_S = 0.05

_setitimer: Any = getattr(signal, "setitimer", None)
_getitimer: Any = getattr(signal, "getitimer", None)
_signal = signal.signal
_settrace = sys.settrace
_gettrace = sys.gettrace
_main_thread = threading.main_thread
_current_thread = threading.current_thread
_SIGALRM: Any = getattr(signal, "SIGALRM", None)
_ITIMER_REAL: Any = getattr(signal, "ITIMER_REAL", None)
_GRADER_DIR = os.path.dirname(os.path.abspath(__file__))

#: Mutated in place, never rebound: the sandbox restores rebound names of grader modules (and class
#: attributes) to their values before the student's call, which must not undo the state of a running limit.
_STATE: dict[str, Any] = {"armed": False, "shield_depth": 0, "fired": False, "tracing": False}


class CheckTimeout(BaseException):
    """The time limit of a check ran out."""


def enforceable() -> bool:
    """Whether a time limit can be enforced here (the main thread of a platform with setitimer)."""
    return _setitimer is not None and _SIGALRM is not None and _current_thread() is _main_thread()


def _may_raise() -> bool:
    return bool(_STATE["armed"]) and _STATE["shield_depth"] <= 0


def _is_grader_frame(frame: Any) -> bool:
    return frame.f_code.co_filename.startswith(_GRADER_DIR)


def _raise_on_next_line(frame: Any, event: str, arg: Any) -> Any:
    if _is_grader_frame(frame):
        return None
    if event == "line" and _may_raise():
        raise CheckTimeout()
    return _raise_on_next_line


def _trace_student_frames(frame: Any) -> None:
    _STATE["tracing"] = True
    _settrace(_raise_on_next_line)
    while frame is not None and not _is_grader_frame(frame):  # the student's frames, up to the runner's
        frame.f_trace = _raise_on_next_line
        frame = frame.f_back


def _on_alarm(signum: int, frame: Any) -> None:
    if not _may_raise():
        return
    if _STATE["fired"]:
        _trace_student_frames(frame)
    _STATE["fired"] = True
    raise CheckTimeout()


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """Grader code inside this block is not interrupted by the alarm (it fires again a moment later)."""
    _STATE["shield_depth"] += 1
    try:
        yield
    finally:
        _STATE["shield_depth"] -= 1


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[bool]:
    """Raise :class:`CheckTimeout` in the block after ``seconds``; yields whether the limit is enforced.

    A time limit already running outside (an enclosing one, pytest-timeout's) is suspended and resumed.
    """
    if not enforceable():
        yield False
        return
    previous_handler = _signal(_SIGALRM, _on_alarm)
    previous_timer = _getitimer(_ITIMER_REAL)
    previous_trace = _gettrace()
    saved = dict(_STATE)
    _STATE.update(armed=True, fired=False, tracing=False)
    _setitimer(_ITIMER_REAL, seconds, REFIRE_S)
    try:
        yield True
    finally:
        while True:  # an alarm can land between two bytecodes of this cleanup: then do it again
            try:
                _STATE["armed"] = False
                _setitimer(_ITIMER_REAL, 0)
                if _STATE["tracing"]:
                    _settrace(previous_trace)
                _STATE.update(armed=saved["armed"], fired=saved["fired"], tracing=saved["tracing"])
                _signal(_SIGALRM, previous_handler)
                if previous_timer[0] > 0:
                    _setitimer(_ITIMER_REAL, *previous_timer)
                break
            except CheckTimeout:
                continue
