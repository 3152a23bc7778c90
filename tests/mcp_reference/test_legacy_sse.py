"""A server of MCP's old HTTP+SSE transport (server-everything's ``sse`` transport) is named
as such, not reported as "stopped (Not Found)"; a URL with no server behind it is not."""

from __future__ import annotations

import os

import pytest

import openprogram_jupyter as op
from tests.tool_sources.reference_servers import everything_command, everything_http
from tests.tool_sources.servers import free_port, listening


def test_an_old_sse_server_is_named_as_one(runtime):
    port = free_port()
    env = {**os.environ, "PORT": str(port)}
    with listening(everything_command("sse"), port, "server-everything (sse)", env) as url:
        sse_url = url.replace("/mcp", "/sse")
        with pytest.raises(op.McpError) as raised:
            op.mcp(url=sse_url, runtime=runtime, connect_timeout=20)
    message = str(raised.value)
    assert message.startswith("this server speaks the old SSE transport, which is not supported: ")
    assert f"{sse_url} answered the streamable HTTP POST with 404 and a GET with an event stream" in message


def test_a_url_where_no_server_answers_is_not_called_an_sse_server(runtime):
    with everything_http() as url, pytest.raises(op.McpError) as raised:
        op.mcp(url=url.replace("/mcp", "/nothing-here"), runtime=runtime, connect_timeout=20)
    assert "old SSE transport" not in str(raised.value)
    assert "stopped" in str(raised.value)
