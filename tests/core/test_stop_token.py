"""The stop token: every stop the package makes reaches the run at once, with no polling
(openprogram_jupyter/core/_stop.py). The poll interval left for a caller's plain
threading.Event is set to 30 s here, so a stop that relied on it would take 30 s."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core import _stop
from openprogram_jupyter.core._stop import StopToken, wait_until_set

from .conftest import call

STOPPED_QUICKLY = 5.0  # generous: "stopped", not "waited for a poll of 30 s"


@pytest.fixture
def no_polling(monkeypatch):
    monkeypatch.setattr(_stop, "_POLL_SECONDS", 30.0)


def test_a_token_calls_each_listener_once_and_forgets_on_request():
    token, heard = StopToken(), []
    token.on_set(lambda: heard.append("a"))
    forget = token.on_set(lambda: heard.append("b"))
    forget()
    token.set()
    token.set()
    assert heard == ["a"] and token.is_set() and isinstance(token, threading.Event)
    token.on_set(lambda: heard.append("late"))  # already set: called at once
    assert heard == ["a", "late"]


async def test_waiting_on_a_token_wakes_when_another_thread_sets_it(no_polling):
    token = StopToken()
    threading.Timer(0.05, token.set).start()
    started = time.monotonic()
    await asyncio.wait_for(wait_until_set(token), timeout=STOPPED_QUICKLY)
    assert time.monotonic() - started < STOPPED_QUICKLY


def _slow_tool(started: threading.Event) -> op.Tool:
    @op.function(register_globally=False)
    async def wait_long() -> str:
        """Wait a long time."""
        started.set()
        await asyncio.sleep(60)
        return "done"

    return wait_long


def test_run_handle_abort_reaches_the_run_without_polling(no_polling):
    started = threading.Event()
    handle = op.Runtime(model=op.ScriptedModel([call("wait_long"), "never"])).start(
        "Wait.", tools=[_slow_tool(started)]
    )
    assert started.wait(10)
    begun = time.monotonic()
    handle.abort()
    run = handle.wait(timeout=STOPPED_QUICKLY)
    assert run.stop_reason == "aborted" and time.monotonic() - begun < STOPPED_QUICKLY


def test_a_nested_run_stops_with_the_call_it_runs_inside_without_polling(no_polling):
    started = threading.Event()
    inner: list[op.Run] = []

    @op.agentic_function(register_globally=False)
    def helper(runtime=None) -> str:
        """Ask a helper."""
        inner.append(runtime.run("inner", tools=[_slow_tool(started)]))
        return "ok"

    model = op.ScriptedModel([call("helper"), call("wait_long"), "never", "never"])
    handle = op.Runtime(model=model).start("Go.", tools=[helper])
    assert started.wait(10)
    begun = time.monotonic()
    handle.abort()
    outer = handle.wait(timeout=STOPPED_QUICKLY + 1)
    assert outer.stop_reason == "aborted" and time.monotonic() - begun < STOPPED_QUICKLY + 1
    assert inner and inner[0].stop_reason == "aborted"


def test_a_callers_plain_event_still_stops_the_run():
    abort, started = threading.Event(), threading.Event()
    handle = op.Runtime(model=op.ScriptedModel([call("wait_long"), "never"])).start(
        "Wait.", tools=[_slow_tool(started)], abort=abort
    )
    assert started.wait(10)
    abort.set()
    assert handle.wait(timeout=STOPPED_QUICKLY).stop_reason == "aborted"
