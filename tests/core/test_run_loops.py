"""Blocking runs go on event loops kept for the next run (``engine/_run_loops.py``).

A provider model's SDK client belongs to one event loop; a loop made for every run made a
client (and a connection) for every run.
"""

from __future__ import annotations

import asyncio
import threading
import time

import openprogram_jupyter as op
from openprogram_jupyter.engine import _run_loops

from .conftest import call

Seen = list[tuple[asyncio.AbstractEventLoop, threading.Thread]]


def _loop_seen() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    """The running loop and thread, from inside a tool body's run (kept, so no id is reused)."""
    return asyncio.get_running_loop(), threading.current_thread()


def _run_noting_where(seen: Seen, tool_name: str = "where", body: object = None) -> op.Run:
    """A blocking run whose one tool call notes its loop and thread in ``seen``."""

    async def where() -> str:
        """Where the run goes on."""
        seen.append(_loop_seen())
        return "noted"

    tool = op.function(body or where, name=tool_name, register_globally=False)
    return op.Runtime(model=op.ScriptedModel([call(tool_name), "done"]), cancel_grace=0.2).run("go", tools=[tool])


def test_runs_one_after_another_go_on_the_same_loop_and_thread():
    seen: Seen = []

    for _ in range(3):
        assert _run_noting_where(seen).stop_reason == "stop"

    # One loop for all three; a loop another test's run left idle may take one of them.
    assert len(seen) == 3 and len(set(seen)) < 3


def test_runs_side_by_side_each_get_a_loop_of_their_own():
    seen: Seen = []
    gate = threading.Barrier(2, timeout=10)

    async def meet() -> str:
        """Wait for the other run."""
        seen.append(_loop_seen())
        await asyncio.to_thread(gate.wait)
        return "met"

    tool = op.function(meet, register_globally=False)
    handles = [op.Runtime(model=op.ScriptedModel([call("meet"), "done"])).start("meet", tools=[tool]) for _ in range(2)]

    assert [handle.wait(timeout=30).stop_reason for handle in handles] == ["stop", "stop"]
    assert len(set(seen)) == 2


async def deaf_until(release: threading.Event) -> None:
    """A task deaf to cancellation until ``release`` is set."""
    while not release.is_set():
        try:
            await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            continue


def test_a_loop_a_run_left_a_task_on_that_will_not_end_is_closed_not_reused():
    seen: Seen = []
    release = threading.Event()

    async def leave_behind() -> str:
        """Start a task that outlives the run."""
        seen.append(_loop_seen())
        asyncio.get_running_loop().create_task(deaf_until(release))
        return "left"

    try:
        _run_noting_where(seen, "leave_behind", leave_behind)
        deadline = time.monotonic() + 10
        while seen[0][1].is_alive():
            assert time.monotonic() < deadline, "the loop with the deaf task was kept"
            time.sleep(0.02)
        _run_noting_where(seen, "leave_behind", leave_behind)
    finally:
        release.set()

    assert seen[0] != seen[1]


def test_an_idle_loop_is_closed_after_its_wait(monkeypatch):
    monkeypatch.setattr(_run_loops, "IDLE_SECONDS", 0.05)
    seen: Seen = []

    _run_noting_where(seen)
    deadline = time.monotonic() + 10
    while seen[0][1].is_alive():
        assert time.monotonic() < deadline, "the idle loop's thread never ended"
        time.sleep(0.02)
    _run_noting_where(seen)

    assert len(seen) == 2


def test_a_run_handed_to_a_loop_that_turns_out_abandoned_goes_on_a_new_loop():
    """A thread is offered as its run ends; if a task the run left refuses to end, the run
    handed to that thread meanwhile still runs, on a new loop."""
    seen: Seen = []
    release = threading.Event()

    async def leave_cancelled() -> str:
        """Start a task, ask it to stop, and leave it refusing."""
        seen.append(_loop_seen())
        task = asyncio.get_running_loop().create_task(deaf_until(release))
        await asyncio.sleep(0.05)  # started, and inside its try
        task.cancel()
        return "left"

    try:
        _run_noting_where(seen, "leave_cancelled", leave_cancelled)
        tool = op.function(leave_cancelled, register_globally=False)
        # handed at once, while the first loop's tidying waits its grace
        handle = op.Runtime(model=op.ScriptedModel([call("leave_cancelled"), "done"])).start("go", tools=[tool])
        second = handle.wait(timeout=30)
    finally:
        release.set()

    assert second.stop_reason == "stop"
    assert seen[1][0] is not seen[0][0]
    assert seen[1][1] is seen[0][1]  # handed to the first run's thread as that run ended


def test_closing_the_idle_loops_ends_their_threads_at_once():
    """What the interpreter's exit calls: an idle loop is closed (with the SDK clients made
    on it) and its thread ends, without waiting out its idle time."""
    seen: Seen = []
    _run_noting_where(seen)

    closed = _run_loops.close_idle_loops(timeout=10)

    assert closed >= 1
    assert not seen[0][1].is_alive()
    assert seen[0][0].is_closed()
    _run_noting_where(seen)  # a run after it gets a loop of its own
    assert seen[1][0] is not seen[0][0]
