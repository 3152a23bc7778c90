"""The OpenAI and Anthropic SDK clients on each transport the package gives them
(``models/_sdk_http.py``): aiohttp where it is installed, httpx2's own when
``OPENPROGRAM_HTTP=httpx`` asks for it. The rest of the suite runs on the default, so
here each transport runs what a user relies on: a tool run, Stop closing the connection,
a refused connection's error, a retry honouring ``Retry-After``."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import threading
import time

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op
from openprogram_jupyter.models import _sdk_http
from openprogram_jupyter.models._fetch_transport import FetchBodies
from openprogram_jupyter.models._sdk_http import HTTP_VARIABLE, sdk_http_client, transport_name
from openprogram_jupyter.models._tls import shared_ssl_context

from .cases import CASES, SECRET, make_tools

SDK_CASES = [case for case in CASES if case.prefix in ("openai", "openai-responses", "anthropic")]
TRANSPORT_CLASS = {"aiohttp": "AiohttpTransport", "httpx": "AsyncHTTPTransport"}

on_each_transport = pytest.mark.parametrize(
    ("case", "transport"),
    [(case, transport) for case in SDK_CASES for transport in TRANSPORT_CLASS],
    ids=[f"{case.prefix}-{transport}" for case in SDK_CASES for transport in TRANSPORT_CLASS],
)


@pytest.fixture(autouse=True)
def _transport(request, monkeypatch):
    transport = request.node.callspec.params.get("transport") if hasattr(request.node, "callspec") else None
    if transport is not None:
        monkeypatch.setenv(HTTP_VARIABLE, transport)


def _transport_class(runtime: op.Runtime) -> str:
    async def made() -> str:
        return type(runtime.model._client()._client._transport).__name__

    return asyncio.run(made())


@on_each_transport
async def test_a_tool_run_goes_over_the_transport_asked_for(case, transport, server):
    server.script(Turn(calls=[Call("add", {"a": 2, "b": 3})]), Turn(text="It is 5."))
    runtime = case.runtime(server)

    run = await runtime.arun("Add 2 and 3.", tools=make_tools())

    assert run.stop_reason == "stop", run.error
    assert run.text == "It is 5." and [r.text for r in run.tool_results] == ["5.0"]
    assert await asyncio.to_thread(_transport_class, runtime) == TRANSPORT_CLASS[transport]


@on_each_transport
async def test_stop_mid_stream_closes_the_connection_and_keeps_what_arrived(case, transport, server):
    server.script(Turn(text="word " * 200, chunk_size=5, frame_delay=0.05))
    first_text = threading.Event()

    def on_event(event) -> None:
        if event.type == "message_update" and event.update.kind == "text_delta":
            first_text.set()

    handle = case.runtime(server).start("Talk.", tools=make_tools(), on_event=on_event)
    assert await asyncio.to_thread(first_text.wait, 20)
    stopped_at = time.monotonic()
    handle.abort()
    run = await asyncio.to_thread(handle.wait, 10)

    assert await asyncio.to_thread(server.closed.wait, 10), "the server never saw the connection close"
    assert server.closes[0].at - stopped_at < 3.0  # generous: "at once", not "at the end" (10 s)
    assert server.closes[0].frames_sent < 150
    assert run.stop_reason == "aborted" and run.messages[-1].text.startswith("word")


@on_each_transport
async def test_a_refused_connection_ends_the_run_with_a_readable_error(case, transport, server):
    runtime = case.runtime(server)
    server.stop()

    run = await runtime.arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error"
    assert run.error.kind == "connection"
    assert "connection failed" in str(run.error) and "after 2 retries" in str(run.error)
    assert SECRET not in str(run.error)


@on_each_transport
async def test_a_rate_limit_is_retried_after_its_retry_after_wait(case, transport, server):
    server.script(Turn.http_error(429, "Rate limit reached", retry_after=0.3), Turn(text="ok"))

    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "stop", run.error
    assert server.requests[1].received_at - server.requests[0].received_at >= 0.28


def test_the_default_is_aiohttp_where_it_is_installed_and_httpx_where_not(monkeypatch):
    monkeypatch.delenv(HTTP_VARIABLE, raising=False)
    installed = importlib.util.find_spec("aiohttp") is not None
    assert transport_name() == ("aiohttp" if installed else "httpx")

    monkeypatch.setattr(_sdk_http.importlib.util, "find_spec", lambda name: None)
    assert transport_name() == "httpx"
    monkeypatch.setenv(HTTP_VARIABLE, "aiohttp")
    with pytest.raises(ValueError, match=r"aiohttp is not installed: pip install 'openprogram-jupyter\[aiohttp\]'"):
        transport_name()


@pytest.mark.parametrize("value", ["requests", "curl", "httpx2"])
def test_an_unknown_transport_is_refused_with_the_variable_named(value, monkeypatch):
    monkeypatch.setenv(HTTP_VARIABLE, value)
    with pytest.raises(ValueError, match=f"OPENPROGRAM_HTTP='{value}': expected one of aiohttp, httpx"):
        transport_name()


def test_the_variable_is_read_whatever_its_case_and_spaces(monkeypatch):
    monkeypatch.setenv(HTTP_VARIABLE, " HTTPX ")
    assert transport_name() == "httpx"


@pytest.mark.parametrize("transport", ["aiohttp", "httpx", ""])
def test_in_a_browser_every_sdk_client_goes_through_the_page_s_fetch_whatever_is_asked(transport, monkeypatch):
    import anthropic
    import openai

    monkeypatch.setenv(HTTP_VARIABLE, transport)
    monkeypatch.setattr(sys, "platform", "emscripten")  # after the SDKs are loaded, as Pyodide has them

    assert transport_name() == "fetch"
    for sdk in (openai, anthropic):
        client = sdk_http_client(sdk)
        assert isinstance(client, sdk.DefaultAsyncHttpxClient)  # the SDK's timeouts and limits
        assert isinstance(client._transport, FetchBodies)


@pytest.mark.parametrize("transport", list(TRANSPORT_CLASS))
def test_every_client_verifies_servers_with_the_process_s_one_ssl_context(transport, monkeypatch):
    """The certificates are loaded once per process, not once per client (models/_tls.py)."""
    import anthropic
    import openai

    monkeypatch.setenv(HTTP_VARIABLE, transport)
    contexts = []
    for sdk in (openai, anthropic):
        inner = sdk_http_client(sdk)._transport
        contexts.append(inner.ssl_context if transport == "aiohttp" else inner._pool._ssl_context)

    assert all(context is shared_ssl_context() for context in contexts)
