"""grader.sandbox.messages: every message the worker sends is built by one function here and read back by
this module's parser, typed, and every request the judge sends is read back by the worker as it was built;
the list of the worker's files is one list, copied and loaded alike."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from grader.sandbox import channel, confinement, messages, wire
from grader.sandbox.process import WorkerProcess

HERE = Path(messages.__file__).resolve().parent


def test_replies_are_typed_and_unknown_ones_refused() -> None:
    assert messages.parse_reply({"reply": "returned", "value": 2, "seconds": 0.1}) == messages.Returned(
        2, 0.1, ""
    )
    raised = messages.parse_reply(
        {"reply": "raised", "exc_type": "NotImplementedError", "not_attempted": True}
    )
    assert isinstance(raised, messages.Raised) and raised.not_attempted
    with pytest.raises(wire.DecodeError):
        messages.parse_reply({"reply": "passed", "points": 10})
    with pytest.raises(ValueError, match="kind must be one of"):
        messages.WorkerFailure("exploded")


def _read(reply: dict) -> object:
    """``reply`` as the judge reads it: one line of the wire, then typed."""
    return messages.parse_reply(wire.loads(wire.dumps(reply).rstrip(b"\n")))


def test_each_reply_the_worker_builds_reads_back_as_what_it_said() -> None:
    returned = messages.returned(wire.encode([1.5, 2]), 0.25, "out", 2, {"readings": {"x": 1}})
    assert _read(returned) == messages.Returned([1.5, 2], 0.25, "out", {"x": 1}, 2)
    raised = messages.raised("ValueError", "  line 3", False, "printed", 1)
    assert _read(raised) == messages.Raised("ValueError", "  line 3", False, "", "printed", 1)
    assert _read(messages.missing("missing")) == messages.Raised("", "", missing="missing")
    assert _read(messages.missing("int")) == messages.Raised("", "", missing="int")
    not_loaded = _read(messages.not_loaded("m1_student"))
    assert isinstance(not_loaded, messages.Raised) and "m1_student is not loaded" in not_loaded.trace
    assert _read(messages.loaded(None, "hi")) == messages.Loaded(None, "hi")
    assert _read(messages.loaded(raised)) == messages.Loaded(
        messages.Raised("ValueError", "  line 3", False, "", "printed", 1)
    )
    many = messages.many([messages.returned(1, 0.1, "", 0), raised])
    assert _read(many) == [
        messages.Returned(1, 0.1, "", None, 0),
        messages.Raised("ValueError", "  line 3", False, "", "printed", 1),
    ]


def test_a_hello_reads_back_with_its_secret_and_a_forged_one_is_refused() -> None:
    assert messages.parse_hello(messages.hello(42)) == messages.Hello(42, "")
    assert messages.parse_hello(messages.hello(42, "s3cret")) == messages.Hello(42, "s3cret")
    for forged in ({"reply": "returned"}, {"reply": "hello"}, {"reply": "hello", "pid": True}, [1], None):
        with pytest.raises(wire.DecodeError):
            messages.parse_hello(forged)


@pytest.mark.parametrize("left", [-1, 1.5, "2", True, None])
def test_a_thread_count_that_is_not_a_count_is_a_malformed_reply(left: object) -> None:
    for reply in (messages.returned(1, 0.1, "", 0), messages.raised("E", "", False, "")):
        with pytest.raises(wire.DecodeError, match="threads_left"):
            messages.parse_reply({**reply, "threads_left": left})


EVERY_REQUEST = [
    messages.LoadRequest(1, "m1_student", "m1_student.py"),
    messages.LoadRequest(2, "m1_student", "m1_student.py", preload=("numpy", "torch")),
    messages.CallRequest(3, "m1", "f"),
    messages.CallRequest(
        4,
        "m1",
        "f",
        args=(1, [2.5]),
        kwargs={"n": 3},
        threads=1,
        readings=True,
        clock="cpu",
        handed=({"name": "x"},),
    ),
    messages.CallManyRequest(5, "m1", "f", kwargs_list=({"n": 1}, {"n": 2}), threads=1),
    messages.ByeRequest(6),
]


@pytest.mark.parametrize("typed", EVERY_REQUEST, ids=lambda r: f"{r.op}-{r.seq}")
def test_every_request_reads_back_as_what_the_judge_built(typed: messages.Request) -> None:
    """Built by the judge (typed, or by op and fields as WorkerProcess.ask does), one line of the wire, and
    read by the worker: the same request."""
    line = wire.dumps(messages.encode_request(typed))
    assert messages.parse_request(json.loads(line)) == typed
    fields = {f.name: getattr(typed, f.name) for f in dataclasses.fields(typed) if f.name != "seq"}
    assert messages.request(typed.op, typed.seq, **fields) == messages.encode_request(typed)


def test_a_request_names_a_known_op_and_only_its_own_fields() -> None:
    assert messages.request("call", 3, module="m", func="f") == {
        "op": "call",
        "seq": 3,
        "module": "m",
        "func": "f",
    }
    with pytest.raises(ValueError, match="op must be load, call, call_many or bye"):
        messages.request("grade", 1)
    with pytest.raises(TypeError):
        messages.request("load", 1, module="m", file="m.py", func="f")


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ([1], "not an object"),
        ({"seq": 1}, "unknown request"),
        ({"op": "grade", "seq": 1}, "unknown request"),
        ({"op": ["call"], "seq": 1}, "unknown request"),
        ({"op": "bye"}, "without seq"),
        ({"op": "bye", "seq": -1}, "seq is not a count"),
        ({"op": "bye", "seq": True}, "seq is not a count"),
        ({"op": "load", "seq": 1, "module": "m"}, "without file"),
        ({"op": "load", "seq": 1, "module": "m", "file": 3}, "file is not text"),
        ({"op": "load", "seq": 1, "module": "m", "file": "m.py", "preload": "numpy"}, "preload"),
        ({"op": "call", "seq": 1, "module": "m", "func": "f", "kwargs": {"1": 2, 3: 4}}, "kwargs"),
        ({"op": "call", "seq": 1, "module": "m", "func": "f", "args": {}}, "args is not a list"),
        ({"op": "call", "seq": 1, "module": "m", "func": "f", "threads": "1"}, "threads"),
        ({"op": "call", "seq": 1, "module": "m", "func": "f", "readings": 1}, "readings"),
        ({"op": "call", "seq": 1, "module": "m", "func": "f", "clock": "gpu"}, "clock"),
        ({"op": "call", "seq": 1, "module": "m", "func": "f", "handed": 2}, "handed"),
        ({"op": "call_many", "seq": 1, "module": "m", "func": "f", "kwargs_list": [1]}, "kwargs_list"),
        ({"op": "call_many", "seq": 1, "module": "m", "func": "f", "handed": []}, "unknown fields"),
        ({"op": "bye", "seq": 1, "module": "m"}, "unknown fields"),
    ],
)
def test_a_malformed_request_is_refused(data: object, why: str) -> None:
    with pytest.raises(wire.DecodeError, match=why):
        messages.parse_request(data)


@pytest.mark.skipif(not channel.PASSES_FDS, reason="the test writes on the socket handed by descriptor")
def test_a_worker_handed_a_malformed_request_ends_as_on_a_line_that_is_not_json(tmp_path: Path) -> None:
    """The worker refuses a request it cannot read as it refuses any bad input: its loop ends, and so does
    the process, with the same status (the judge reads that exit as any other)."""
    codes = []
    for line in (b"not json\n", b'{"op": "grade", "seq": 1}\n', b'{"op": "load", "seq": 1}\n'):
        worker = WorkerProcess(str(tmp_path), limits=confinement.Limits(), bwrap=None)
        worker.start()
        try:
            assert worker.sock is not None and worker.proc is not None
            worker.sock.sendall(line)
            codes.append(worker.proc.wait(timeout=30))
        finally:
            worker.close()
    assert codes[0] != 0 and codes == [codes[0]] * 3


def test_threads_left_counts_a_thread_from_the_moment_it_is_started() -> None:
    """A thread is counted as soon as it is created (the kernel's list), and not once it has ended."""
    started = messages.running_threads()
    assert messages.threads_left(started) == 0
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        assert messages.threads_left(started) == 1
    finally:
        stop.set()
        thread.join()
    deadline = time.monotonic() + 5
    while messages.threads_left(started) and time.monotonic() < deadline:
        time.sleep(0.01)  # the kernel lists a joined thread until it has exited
    assert messages.threads_left(started) == 0


def test_the_worker_files_are_one_list_copied_and_loaded_alike() -> None:
    """Every file named is beside this module, a worker's folder holds exactly them, and the worker loads
    each of them (by path, under the private names the messages module also uses for its sibling)."""
    assert all((HERE / name).is_file() for name in messages.WORKER_FILES)
    folder = Path(confinement.runtime_dir())
    try:
        assert sorted(p.name for p in folder.iterdir()) == sorted(messages.WORKER_FILES)
        code = (
            "import sys\n"
            "import importlib.util as u\n"
            f"spec = u.spec_from_file_location('w', {str(folder / 'worker.py')!r})\n"
            "m = u.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "print(sorted(n for n in sys.modules if n.startswith('_perfkit_')))\n"
            "print(m.wire is sys.modules['_perfkit_messages'].wire)\n"
        )
        out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        names = [f"_perfkit_{name[:-3]}" for name in messages.WORKER_FILES if name != "worker.py"]
        assert out.stdout.splitlines() == [str(sorted(names)), "True"]
    finally:
        confinement.remove_runtime(str(folder))


def test_loaded_by_path_it_loads_its_sibling_wire_once() -> None:
    spec = importlib.util.spec_from_file_location("_by_path_messages", HERE / "messages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    saved = sys.modules.pop("_perfkit_wire", None)
    sys.modules["_by_path_messages"] = module  # as the worker's loader does (its dataclasses need it)
    try:
        spec.loader.exec_module(module)
        assert module.wire is sys.modules["_perfkit_wire"] and module.wire is not wire
        assert module.wire.__file__ == wire.__file__
    finally:
        sys.modules.pop("_perfkit_wire", None)
        sys.modules.pop("_by_path_messages", None)
        if saved is not None:
            sys.modules["_perfkit_wire"] = saved
