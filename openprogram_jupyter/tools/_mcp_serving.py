"""An MCP server over streamable HTTP on 127.0.0.1, with the official ``mcp`` SDK's server side.

:class:`ServedEndpoint` knows nothing of runs or notebooks: it is handed what to list
(``list_tools``: name, description and JSON Schema of each tool) and what to do with a call
(``call``: a coroutine returning the result's content blocks and whether it failed). It
runs the SDK's low-level ``Server`` behind uvicorn on its own thread and event loop, on a
port of its own (a free one unless given), and answers only requests that carry its bearer
token (``Authorization: Bearer <token>``; anything else gets 401 before the SDK sees it).

What a client sends is untrusted: an unknown tool is the JSON-RPC error ``-32602`` naming
the tools there are; a body over :data:`MAX_BODY_BYTES` is refused by the SDK's transport
(HTTP 413), its reply made the JSON-RPC error ``-32600`` saying so, which a client reads;
an exception inside ``call`` becomes an ``isError`` result saying what happened, never a
crash of the server. :meth:`ServedEndpoint.tools_changed` sends every connected client
``notifications/tools/list_changed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import socket
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..core._install import install_hint
from ..core._json import JsonObject
from ..core.errors import SetupError
from ..core.messages import ImageContent, TextContent
from ._mcp_connection import McpError

__all__ = ["MAX_BODY_BYTES", "ServedEndpoint", "ServedResult", "ServedTool"]

MAX_BODY_BYTES = 1_000_000
"""The largest request body a served endpoint reads (larger ones are refused by the SDK)."""

_SESSIONS_HELD = 100
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServedTool:
    """One tool as a client lists it."""

    name: str
    description: str
    input_schema: JsonObject


@dataclass(frozen=True)
class ServedResult:
    """What a served call returns: content blocks (text and images), and whether it failed."""

    content: list[TextContent | ImageContent] = field(default_factory=list)
    is_error: bool = False


class ServedEndpoint:
    """A running MCP server: :attr:`url`, :attr:`token`, :meth:`tools_changed`, :meth:`stop`.

    Starting it binds ``127.0.0.1:port`` (``port=None``: a free port) and waits until it
    listens; a port already taken raises :class:`McpError` saying so. :meth:`stop` closes
    the port and ends the thread; it is safe to call twice.
    """

    def __init__(
        self,
        name: str,
        list_tools: Callable[[], list[ServedTool]],
        call: Callable[[str, JsonObject], Awaitable[ServedResult]],
        *,
        port: int | None = None,
        version: str = "",
    ) -> None:
        try:
            import uvicorn
            from mcp.server.lowlevel import Server
            from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
        except ImportError:
            raise McpError(f"serving tools needs the official 'mcp' SDK ({install_hint('mcp')})") from None
        self.name = name
        self.token = secrets.token_urlsafe(32)
        self._list_tools = list_tools
        self._call = call
        # Who hears of a change: 2026-07-28 clients through subscriptions/listen (the bus);
        # older ones on their session's standing stream (the last sessions seen, held).
        self._bus = InMemorySubscriptionBus()
        self._sessions: dict[int, Any] = {}
        self._socket = _bound_socket(port)
        self.port: int = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._server = Server(
            name,
            version=version,
            on_list_tools=self._on_list_tools,
            on_call_tool=self._on_call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        app = self._server.streamable_http_app(max_request_body_size=MAX_BODY_BYTES, host="127.0.0.1")
        config = uvicorn.Config(_BearerOnly(_TooLargeSaid(app), self.token), log_level="warning", lifespan="on")
        self._uvicorn = uvicorn.Server(config)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=f"openprogram-serve-{name}", daemon=True)
        self._thread.start()
        self._wait_until_started()
        self.stopped = False

    # -- the server's thread ----------------------------------------------------------

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._uvicorn.serve(sockets=[self._socket]))
        except BaseException as error:  # reported by stop() / the start; the thread ends quietly
            _log.warning("MCP server %r ended: %s", self.name, error)
        finally:
            self._loop.close()

    def _wait_until_started(self, timeout: float = 15.0) -> None:
        waited = 0.0
        while not self._uvicorn.started:
            if not self._thread.is_alive() or waited >= timeout:
                self._socket.close()
                raise McpError(f"the MCP server {self.name!r} did not start on 127.0.0.1:{self.port}")
            threading.Event().wait(0.02)
            waited += 0.02

    async def _on_list_tools(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        self._hold(ctx.session)
        return types.ListToolsResult(
            tools=[
                types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema)
                for tool in self._list_tools()
            ]
        )

    async def _on_call_tool(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        self._hold(ctx.session)
        names = [tool.name for tool in self._list_tools()]
        if params.name not in names:
            raise MCPError(
                types.INVALID_PARAMS,
                f"unknown tool {params.name!r}; this server has: {', '.join(names) or 'no tools'}",
            )
        arguments = params.arguments if isinstance(params.arguments, dict) else {}
        try:
            result = await self._call(params.name, arguments)
        except Exception as error:  # a bug of ours must not end the client's session
            _log.exception("MCP server %r: the call of %r failed", self.name, params.name)
            result = ServedResult([TextContent(text=f"the call could not be run: {type(error).__name__}")], True)
        return types.CallToolResult(content=[_block(b) for b in result.content], is_error=result.is_error)

    def _hold(self, session: Any) -> None:
        self._sessions.pop(id(session), None)
        self._sessions[id(session)] = session
        while len(self._sessions) > _SESSIONS_HELD:
            del self._sessions[next(iter(self._sessions))]

    async def _announce(self) -> None:
        from mcp.shared.subscriptions import ToolsListChanged

        await self._bus.publish(ToolsListChanged())
        for session in list(self._sessions.values()):
            with contextlib.suppress(Exception):  # a client gone away: nothing to tell
                await session.send_tool_list_changed()

    # -- used from any thread ---------------------------------------------------------

    def tools_changed(self) -> None:
        """Tell every client the tools changed (``notifications/tools/list_changed``)."""
        if self.stopped:
            return
        future = asyncio.run_coroutine_threadsafe(self._announce(), self._loop)
        future.add_done_callback(_ignore_failure)

    def stop(self, timeout: float = 10.0) -> None:
        """Close the port and end the server's thread (bounded by ``timeout`` seconds)."""
        if getattr(self, "stopped", True):
            return
        self.stopped = True
        self._uvicorn.should_exit = True
        self._thread.join(timeout)
        if self._thread.is_alive():
            self._uvicorn.force_exit = True
            self._thread.join(timeout)
        with contextlib.suppress(OSError):
            self._socket.close()


def _block(block: TextContent | ImageContent) -> Any:
    import mcp_types as types

    if isinstance(block, ImageContent):
        return types.ImageContent(type="image", data=block.data, mime_type=block.mime_type)
    return types.TextContent(type="text", text=block.text)


def _ignore_failure(future: Any) -> None:
    with contextlib.suppress(BaseException):
        future.result()  # a client gone away: nothing to tell


def _bound_socket(port: int | None) -> socket.socket:
    if port is not None and (not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535):
        raise SetupError(f"port must be a whole number from 0 to 65535 (or None for a free one), got {port!r}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port or 0))
    except OSError as error:
        sock.close()
        raise McpError(f"cannot serve on 127.0.0.1:{port}: {error.strerror or error}") from None
    sock.listen(128)
    return sock


class _BearerOnly:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` gets 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": b"a bearer token is required (Authorization)"})
                return
        await self.app(scope, receive, send)


_TOO_LARGE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": f"the request body is larger than {MAX_BODY_BYTES:,} bytes, the most this server reads",
        },
    }
).encode()


class _TooLargeSaid:
    """ASGI middleware: the SDK's plain-text 413 reply to an oversized body becomes a JSON-RPC
    error (``-32600``, ``id: null``), so a client reports why instead of "an error response"."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        replaced = False

        async def said(message: Any) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 413:
                replaced = True
                headers = [(b"content-type", b"application/json"), (b"content-length", str(len(_TOO_LARGE)).encode())]
                await send({**message, "headers": headers})
            elif replaced and message["type"] == "http.response.body":
                if not message.get("more_body", False):
                    await send({"type": "http.response.body", "body": _TOO_LARGE})
            else:
                await send(message)

        await self.app(scope, receive, said)
