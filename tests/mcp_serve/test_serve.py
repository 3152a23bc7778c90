"""``op.serve``: notebook tools served over MCP, exercised with the official ``mcp`` client
over streamable HTTP on 127.0.0.1 — the listing, a call, the governance, a redefinition
announced, bad client input answered with MCP errors, stop closing the port."""

from __future__ import annotations

import asyncio
import socket

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._serve import served
from openprogram_jupyter.tools.registry import default_registry
from tests import registry_fixtures


def define_tools():
    @op.function
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @op.function
    def whisper() -> str:
        """Say the secret."""
        return "the key is sk-served-SECRET-1234567890"

    return add, whisper


# The shared fixtures, used here by name (tests/registry_fixtures.py).
clean_registry = registry_fixtures.clean_registry
runtime = registry_fixtures.runtime


@pytest.fixture
def server(runtime):
    define_tools()
    served = op.serve(["add", "whisper"], runtime=runtime, name="nb")
    yield served
    served.stop()


def connect(server, token=None, **client_options):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token or server.token}"})
    return Client(streamable_http_client(server.url, http_client=http), **client_options)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


def test_a_client_lists_the_schemas_the_registry_has_and_calls_a_tool(server):
    async def go():
        async with connect(server) as client:
            listed = await client.list_tools()
            result = await client.call_tool("add", {"a": 2, "b": 3})
            return listed, result

    listed, result = run(go())
    assert {t.name: t.input_schema for t in listed.tools} == {
        name: default_registry.get(name).spec["parameters"] for name in ("add", "whisper")
    }
    assert [t.description for t in listed.tools] == ["Add two integers.", "Say the secret."]
    assert not result.is_error and [b.text for b in result.content] == ["5"]
    [call] = server.calls
    assert (call.tool, call.arguments, call.status, call.text) == ("add", {"a": 2, "b": 3}, "done", "5")


def test_a_request_without_the_token_is_refused(server):
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    for authorization in (None, "Bearer wrong", f"Basic {server.token}"):
        sent = headers if authorization is None else {**headers, "Authorization": authorization}
        assert httpx2.post(server.url, json=initialize, headers=sent).status_code == 401


def test_bad_client_input_is_an_mcp_error_and_the_server_goes_on(server):
    async def go():
        async with connect(server) as client:
            with pytest.raises(MCPError, match=r"unknown tool 'nope'; this server has: add, whisper"):
                await client.call_tool("nope", {})
            wrong = await client.call_tool("add", {"a": "two", "b": 3})
            with pytest.raises(MCPError, match=r"the request body is larger than 1,000,000 bytes") as huge:
                await client.call_tool("add", {"a": 1, "b": 2, "pad": "x" * 2_000_000})
            after = await client.call_tool("add", {"a": 1, "b": 1})
            return wrong, huge.value, after

    wrong, huge, after = run(go())
    assert wrong.is_error and "a: Input should be a valid integer" in wrong.content[0].text
    assert huge.error.code == -32600
    assert not after.is_error and after.content[0].text == "2"


def test_the_runtime_s_policy_governs_served_calls(runtime, server):
    runtime.approve = op.policy(deny=["add"])

    async def go():
        async with connect(server) as client:
            return await client.call_tool("add", {"a": 1, "b": 2})

    result = run(go())
    assert result.is_error and "denied" in result.content[0].text
    assert server.calls[-1].status == "denied"


def test_a_secret_in_a_result_is_masked(server):
    from openprogram_jupyter.core._secrets import remember

    remember("sk-served-SECRET-1234567890")

    async def go():
        async with connect(server) as client:
            return await client.call_tool("whisper", {})

    result = run(go())
    assert "sk-served-SECRET-1234567890" not in result.content[0].text


def test_a_redefinition_is_announced_with_list_changed(server):
    async def go():
        async with connect(server) as client:
            await client.list_tools()
            async with client.listen(tools_list_changed=True) as changes:

                @op.function
                def add(a: int, b: int, c: int = 0) -> int:
                    """Add two or three integers."""
                    return a + b + c

                event = await asyncio.wait_for(anext(aiter(changes)), 10)
            listed = await client.list_tools()
            return event, listed, await client.call_tool("add", {"a": 1, "b": 2, "c": 3})

    event, listed, result = run(go())
    assert type(event).__name__ == "ToolsListChanged"
    assert "c" in {t.name: t for t in listed.tools}["add"].input_schema["properties"]
    assert result.content[0].text == "6"


def test_stop_closes_the_port(server):
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    server.stop()
    assert server.stopped and server not in served()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_bad_arguments_to_serve_name_the_problem(runtime):
    define_tools()
    with pytest.raises(ValueError, match=r"'nope' is not a registered tool; registered: add, whisper"):
        op.serve(["nope"], runtime=runtime)
    with pytest.raises(ValueError, match=r"port must be a whole number"):
        op.serve(["add"], runtime=runtime, port=-1)
