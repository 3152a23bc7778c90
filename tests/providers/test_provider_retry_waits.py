"""Retry waits, per provider, through the real SDK clients (docs/faults.md, "Rate limits and
retries"): every wait is an event the views show, a ``retry-after`` past the cap ends the
round at once saying how long the server asked for, Stop ends a wait, and a retry never
runs a tool again."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import threading
import time

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op
from openprogram_jupyter.models._provider_errors import RetryPolicy
from openprogram_jupyter.models.providers import provider_info

from .cases import CASE_IDS, CASES, FAST_RETRY, SECRET, make_tools

pytestmark = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)

AT_ONCE = 10.0  # seconds: far less than the 60 s wait the server asks for, on any machine


def _waits(run: op.Run) -> list:
    return [e.update.retry_wait for e in run.events if e.type == "message_update" and e.update.kind == "retry_wait"]


def _model(case, server, retry: RetryPolicy) -> op.Model:
    """The provider's model class built directly, with ``retry=`` given to its constructor."""
    module, name = provider_info(case.prefix).model_class.split(":")
    cls = getattr(importlib.import_module(module), name)
    model: op.Model = cls(case.model_id, api_key=SECRET, base_url=case.url(server), retry=retry)
    return model


async def test_a_retry_after_past_the_cap_ends_the_round_at_once_stating_the_wait(case, server):
    server.script(Turn.http_error(429, "Rate limit reached", retry_after=60), Turn(text="never sent"))
    started = time.monotonic()
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert time.monotonic() - started < AT_ONCE
    assert len(server.requests) == 1, "not retried"
    assert run.stop_reason == "error" and _waits(run) == []
    assert "HTTP 429" in str(run.error) and "Rate limit reached" in str(run.error)
    assert str(run.error).endswith(
        "; the server asked to wait 60 s before trying again, longer than max_retry_after "
        "(20 s), so the round ended without waiting"
    )
    assert "the server asked to wait 60 s" in run._repr_html_()


async def test_the_cap_is_a_constructor_option_of_the_provider_model(case, server):
    server.script(Turn.http_error(429, "Slow down", retry_after=2.5), Turn(text="ok"))
    model = _model(case, server, dataclasses.replace(FAST_RETRY, max_retry_after=1.0))
    run = await op.Runtime(model=model).arun("Hi.", tools=make_tools())

    assert len(server.requests) == 1
    assert "the server asked to wait 2.5 s before trying again, longer than max_retry_after (1.0 s)" in str(run.error)

    server.script(Turn.http_error(429, "Slow down", retry_after=0.2), Turn(text="ok"))
    model = _model(case, server, dataclasses.replace(FAST_RETRY, max_retry_after=5.0))
    run = await op.Runtime(model=model).arun("Hi.", tools=make_tools())
    assert run.stop_reason == "stop" and run.text == "ok"


async def test_a_retry_wait_is_an_event_and_every_saved_view_shows_it(case, server):
    server.script(Turn.http_error(429, "Rate limit reached", retry_after=0.3), Turn(text="ok"))
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "stop" and run.text == "ok"
    [wait] = _waits(run)
    assert (wait.seconds, wait.retry, wait.max_retries) == (0.3, 1, 2)
    assert wait.reason == "rate limited (HTTP 429)" and "Rate limit reached" in wait.message
    line = "rate limited (HTTP 429) — waited 0.30 s, then retried (retry 1 of 2)"
    for text in (run._repr_html_(), run._repr_markdown_(), repr(run)):
        assert line in text
    # The model sees nothing of it: the retried request is the first one again.
    assert server.requests[0].body == server.requests[1].body
    assert len(run.messages) == 2  # the prompt and the one reply


async def test_a_backoff_without_retry_after_is_announced_too(case, server):
    server.script(Turn.http_error(503, "Service unavailable"), Turn(text="ok"))
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "stop"
    [wait] = _waits(run)
    assert wait.reason == "server error (HTTP 503)" and wait.seconds == pytest.approx(0.01)


async def test_a_retry_in_a_later_round_never_runs_a_tool_again(case, server):
    ran: list[tuple[float, float]] = []

    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: First number.
            b: Second number.
        """
        ran.append((a, b))
        return a + b

    server.script(
        Turn(calls=[Call("add", {"a": 1, "b": 2})]),
        Turn.http_error(429, "Rate limit reached", retry_after=0.2),
        Turn.http_error(500, "internal"),
        Turn(text="3"),
    )
    run = await case.runtime(server).arun("Add.", tools=[op.function(add, register_globally=False)])

    assert run.stop_reason == "stop" and run.text == "3"
    assert ran == [(1, 2)], "the tool ran once; only the model call was retried"
    assert [e.type for e in run.events].count("tool_execution_start") == 1
    assert [(w.reason, w.retry) for w in _waits(run)] == [
        ("rate limited (HTTP 429)", 1),
        ("server error (HTTP 500)", 2),
    ]
    assert len(server.requests) == 4


async def test_stop_during_a_wait_ends_the_run_at_once_and_says_so(case, server):
    server.script(Turn.http_error(429, "Rate limit reached", retry_after=15), Turn(text="never sent"))
    runtime = case.runtime(server)
    waiting = threading.Event()

    def on_event(event) -> None:
        if event.type == "message_update" and event.update.kind == "retry_wait":
            waiting.set()

    handle = runtime.start("Hi.", tools=make_tools(), on_event=on_event)
    assert await asyncio.to_thread(waiting.wait, 20)
    stopped_at = time.monotonic()
    handle.abort()
    run = await asyncio.to_thread(handle.wait, 10)

    assert time.monotonic() - stopped_at < 5.0, "Stop does not wait out the 15 s"
    assert run.stop_reason == "aborted" and len(server.requests) == 1
    assert "rate limited (HTTP 429) — stopped during the 15.0 s wait before retry 1 of 2" in repr(run)
