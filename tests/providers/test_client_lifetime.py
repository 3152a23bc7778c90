"""An SDK client is closed once, on its own loop, and never complains on the way out
(``models/_loop_clients.py``): when the models using it are collected while the loop runs,
when its loop shuts down, and when the interpreter exits with a blocking run's loop idle.
aiohttp, the default transport where installed, logs "Unclosed client session" for a
client collected open; httpx2 closed nothing either but said nothing."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import subprocess
import sys
import textwrap
import weakref
from pathlib import Path

import pytest
from fakeserver import Turn

from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.models.base import ModelRequest

from .cases import CASES, SECRET, stream_once

SDK_CASES = [case for case in CASES if case.prefix in ("openai", "anthropic")]
COMPLAINTS = ("Unclosed client session", "Unclosed connector", "Task was destroyed but it is pending")
TESTS = Path(__file__).resolve().parents[1]


def _record_closes(case, monkeypatch, *, slow: float = 0.0) -> list[str]:
    """The SDK client class's ``close``, recording each close that ends (the package holds
    no client the test could look at without keeping it alive); ``slow``: seconds each
    close waits before it starts closing."""
    import anthropic
    import openai

    sdk_class = anthropic.AsyncAnthropic if case.prefix == "anthropic" else openai.AsyncOpenAI
    closes: list[str] = []
    original = sdk_class.close

    async def close(self) -> None:
        await asyncio.sleep(slow)
        await original(self)
        closes.append(type(self).__name__)

    monkeypatch.setattr(sdk_class, "close", close)
    return closes


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
@pytest.mark.parametrize("case", SDK_CASES, ids=[c.prefix for c in SDK_CASES])
def test_a_model_collected_in_a_reference_cycle_has_its_client_closed_once_without_a_complaint(
    case, transport, server, caplog, monkeypatch
):
    monkeypatch.setenv("OPENPROGRAM_HTTP", transport)
    closes = _record_closes(case, monkeypatch)
    server.script(Turn(text="hi"))

    async def drop_a_model_in_a_cycle() -> list[str]:
        model = case.runtime(server).model
        model.itself = model  # a cycle: only the cycle collector frees it
        _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))
        assert reply.text == "hi"
        del model
        gc.collect()
        await asyncio.sleep(0.2)  # the close runs on this loop, before its shutdown
        return list(closes)

    with caplog.at_level(logging.DEBUG, logger="asyncio"):
        closed_before_the_loop_ended = asyncio.run(drop_a_model_in_a_cycle())

    assert len(closed_before_the_loop_ended) == 1
    assert len(closes) == 1, "closed once"
    assert not [c for c in COMPLAINTS if c in caplog.text], caplog.text


@pytest.mark.parametrize("case", SDK_CASES, ids=[c.prefix for c in SDK_CASES])
def test_a_client_is_closed_with_its_loop_while_its_model_lives(case, server, monkeypatch):
    closes = _record_closes(case, monkeypatch)
    server.script(Turn(text="hi"), Turn(text="again"))
    model = case.runtime(server).model

    for _ in range(2):  # a loop each, a client each
        asyncio.run(stream_once(model, ModelRequest(messages=[UserMessage(content="go")])))

    assert len(closes) == 2
    assert len(model._clients) == 0, "forgotten with its loop"


def test_the_interpreter_exit_closes_an_idle_run_loop_s_client_without_a_complaint(tmp_path):
    """A script's blocking run leaves its loop idle for the next run; at exit the loop is
    closed, and the client with it, whatever cycle the runtime was in."""
    script = tmp_path / "script.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import gc, sys
            sys.path.insert(0, {str(TESTS)!r})
            from fakeserver import FakeServer, Turn
            import openprogram_jupyter as op

            server = FakeServer().__enter__()
            server.script(Turn(text="hello"), Turn(text="again"))
            for model in ("anthropic:claude-sonnet-4-5", "openai:gpt-4.1-mini"):
                base = server.url if model.startswith("anthropic") else server.openai_base_url
                runtime = op.Runtime(model=model, api_key={SECRET!r}, base_url=base)
                runtime.itself = runtime
                print(runtime.run("hi").text)
            del runtime
            gc.collect()
            """
        )
    )
    env = {**os.environ, "OPENPROGRAM_HTTP": "aiohttp", "PYTHONWARNINGS": "always"}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)

    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hello", "again"]
    assert not [c for c in COMPLAINTS if c in done.stderr], done.stderr


@pytest.mark.parametrize("case", SDK_CASES, ids=[c.prefix for c in SDK_CASES])
def test_a_close_cancelled_by_a_run_s_tidying_is_done_again_at_the_loop_s_shutdown(case, server, caplog, monkeypatch):
    """A run loop cancels what a run left on it; a close started there (its model dropped
    during the run) must not leave the client open."""
    closes = _record_closes(case, monkeypatch, slow=0.05)
    server.script(Turn(text="hi"))

    async def drop_then_tidy() -> None:
        model = case.runtime(server).model
        model.itself = model
        await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))
        del model
        gc.collect()
        await asyncio.sleep(0.01)  # the close has started, and waits
        for task in asyncio.all_tasks() - {asyncio.current_task()}:
            task.cancel()  # as engine/_run_loops.py tidies a loop after a run
        await asyncio.sleep(0.01)
        gc.collect()  # nothing left of the model: only what holds the client keeps it

    with caplog.at_level(logging.DEBUG, logger="asyncio"):
        asyncio.run(drop_then_tidy())
        gc.collect()

    assert len(closes) == 1, "closed once, at the loop's shutdown"
    assert not [c for c in COMPLAINTS if c in caplog.text], caplog.text


@pytest.mark.parametrize("case", SDK_CASES, ids=[c.prefix for c in SDK_CASES])
def test_the_rounds_on_one_loop_share_one_client(case, server, monkeypatch):
    closes = _record_closes(case, monkeypatch)
    server.script(Turn(text="one"), Turn(text="two"), Turn(text="three"))
    model = case.runtime(server).model

    async def three_rounds() -> None:
        for _ in range(3):
            await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))

    asyncio.run(three_rounds())

    assert len(closes) == 1, "one client made, and closed with its loop"


@pytest.mark.parametrize("case", SDK_CASES, ids=[c.prefix for c in SDK_CASES])
def test_a_client_closed_with_its_loop_is_let_go_while_its_model_lives(case, server):
    server.script(Turn(text="hi"))
    model = case.runtime(server).model

    async def once() -> weakref.ref:
        await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))
        return weakref.ref(model._client())

    client = asyncio.run(once())
    gc.collect()

    assert client() is None, "nothing holds a closed client"


def test_gemini_s_http_client_is_closed_with_its_loop(server, monkeypatch):
    import httpx

    (case,) = [c for c in CASES if c.prefix == "gemini"]
    closed: list[str] = []
    original = httpx.AsyncClient.aclose

    async def aclose(self) -> None:
        await original(self)
        closed.append("aclose")

    monkeypatch.setattr(httpx.AsyncClient, "aclose", aclose)
    server.script(Turn(text="hi"))
    model = case.runtime(server).model

    asyncio.run(stream_once(model, ModelRequest(messages=[UserMessage(content="go")])))

    assert closed == ["aclose"]


@pytest.mark.parametrize("case", SDK_CASES, ids=[c.prefix for c in SDK_CASES])
def test_a_model_outliving_a_loop_closed_by_hand_is_collected_quietly(case, server, monkeypatch):
    """A loop closed without its async generators shut down (``loop.close()`` by hand)
    never ran the client's close; the model collected after the loop is gone says nothing."""
    ignored: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)
    server.script(Turn(text="hi"))
    model = case.runtime(server).model
    loop = asyncio.new_event_loop()
    loop.run_until_complete(stream_once(model, ModelRequest(messages=[UserMessage(content="go")])))
    loop.close()
    del loop
    gc.collect()

    del model
    gc.collect()

    assert ignored == []
