"""What a provider's client does differently in a browser (Pyodide, ``sys.platform ==
"emscripten"``), on CPython made to look like it, through the real SDKs and the loopback
server: Anthropic's browser header, a failed connection that names CORS, and the
browser's response bodies handed to the SDK as bytes, their request aborted once closed.
The same in a real browser: ``tests/browser/test_lite_live_provider.py``."""

from __future__ import annotations

import sys

import httpx2
import pytest
from fakeserver import Turn

import openprogram_jupyter as op
from openprogram_jupyter.models._fetch_transport import FetchBodies

from .cases import FAST_RETRY, SECRET


@pytest.fixture
def browser(monkeypatch):
    """This Python as Pyodide sees itself (no threads either: a run stays on the loop). The
    SDKs are loaded first: httpx2 picks its fetch transport at import, which needs Pyodide."""
    import anthropic  # noqa: F401
    import openai  # noqa: F401

    monkeypatch.setattr(sys, "platform", "emscripten")


def _anthropic(server) -> op.Runtime:
    runtime = op.Runtime("anthropic:claude-sonnet-4-5", api_key=SECRET, base_url=server.url)
    runtime.model.retry = FAST_RETRY
    return runtime


async def test_in_a_browser_anthropic_requests_say_direct_browser_access(server, browser):
    server.script(Turn(text="ok"))
    run = await _anthropic(server).arun("Hi.")

    assert run.stop_reason == "stop", run.error
    assert server.requests[0].headers["anthropic-dangerous-direct-browser-access"] == "true"


async def test_outside_a_browser_anthropic_requests_do_not_say_it(server):
    server.script(Turn(text="ok"))
    run = await _anthropic(server).arun("Hi.")

    assert run.stop_reason == "stop", run.error
    assert "anthropic-dangerous-direct-browser-access" not in server.requests[0].headers


async def test_in_a_browser_a_failed_connection_names_cors_beside_the_address(server, browser):
    runtime = op.Runtime("openai:gpt-4.1-mini", api_key=SECRET, base_url=server.openai_base_url)
    runtime.model.retry = FAST_RETRY
    server.stop()
    run = await runtime.arun("Hi.")

    assert run.stop_reason == "error"
    message = str(run.error)
    assert "connection failed" in message and "/v1/chat/completions" in message
    assert (
        "in the browser a server that does not allow this page's origin (CORS) fails the same way: "
        "the provider or gateway must answer this site's origin" in message
    ), message


async def test_outside_a_browser_a_failed_connection_does_not_name_cors(server):
    runtime = op.Runtime("openai:gpt-4.1-mini", api_key=SECRET, base_url=server.openai_base_url)
    runtime.model.retry = FAST_RETRY
    server.stop()
    run = await runtime.arun("Hi.")

    assert run.stop_reason == "error" and "CORS" not in str(run.error), run.error


class FetchLikeBody(httpx2.AsyncByteStream):
    """A response body as httpx2-jsfetch 1.0 hands it over: each chunk ``Uint8Array.to_py()``,
    a memoryview; the request's ``AbortController`` as ``abort_controller_js``."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks
        self.abort_controller_js = self
        self.aborted = 0

    def abort(self) -> None:  # the AbortController's
        self.aborted += 1

    async def __aiter__(self):
        for chunk in self.chunks:
            yield memoryview(chunk)


async def test_the_browser_transport_hands_the_sdk_bytes_where_fetch_gave_memoryviews():
    body = FetchLikeBody(b"event: ping\n", b"data: {}\n\n")
    inner = httpx2.MockTransport(lambda request: httpx2.Response(200, stream=body))
    async with httpx2.AsyncClient(transport=FetchBodies(inner)) as client:
        async with client.stream("POST", "http://127.0.0.1:9/v1/messages") as response:
            chunks = [chunk async for chunk in response.aiter_raw()]
    assert chunks == [b"event: ping\n", b"data: {}\n\n"]
    assert {type(chunk) for chunk in chunks} == {bytes}


async def test_closing_a_body_read_halfway_aborts_the_browsers_request():
    body = FetchLikeBody(b"data: 1\n\n", b"data: 2\n\n", b"data: 3\n\n")
    inner = httpx2.MockTransport(lambda request: httpx2.Response(200, stream=body))
    async with httpx2.AsyncClient(transport=FetchBodies(inner)) as client:
        async with client.stream("POST", "http://127.0.0.1:9/v1/chat/completions") as response:
            async for _ in response.aiter_raw():
                break  # a run stopped mid-answer
            assert body.aborted == 0
    assert body.aborted == 1
