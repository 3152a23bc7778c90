"""One MCP session, kept on its own thread and event loop.

A run's loop may live on the kernel's event loop (an awaited ``%%agent`` cell) or on a
worker thread's own loop (``Runtime.run``), a new one for every run; an MCP session is a
set of anyio tasks that must stay on the loop that opened it. So each connection gets a
daemon thread running one event loop for its whole life: the session is opened, used and
closed there, and callers on any loop reach it through
``asyncio.run_coroutine_threadsafe``.

What the server sends unasked — notifications, stray lines on stdout — is handled by
:mod:`._mcp_server_messages`. Cancelling a caller cancels the call on the
connection's loop, and the SDK then sends the server the protocol's
``notifications/cancelled`` for that request.

The ``mcp`` SDK (the ``mcp`` extra) is imported only here, only when a connection opens.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import logging
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar, cast

from ..core._install import DISTRIBUTION, install_hint, package_version
from ..core._json import JsonObject
from ..core._secrets import mask
from ..core.errors import ToolFailure, UserMistake
from ._mcp_elicitation import Elicitations
from ._mcp_legacy_sse import legacy_sse_failure
from ._mcp_sampling import Samplers
from ._mcp_server_messages import ServerMessages, listen_for_tool_changes

__all__ = ["McpConnection", "McpError", "McpTarget", "close_all_connections"]

T = TypeVar("T")

Progress = Callable[[float, "float | None", "str | None"], None]
"""Takes a call's progress: how far, out of what total (if the server gives one), and a message."""

_STDERR_TAIL_CHARS = 2000
_log = logging.getLogger(__name__)
# The SDK logs a line it cannot parse with logger.exception; with no handler configured,
# Python's last-resort handler would print that traceback into the cell. A library's
# loggers get a NullHandler (the logging HOWTO's advice): configured logging still sees them.
logging.getLogger("mcp").addHandler(logging.NullHandler())
_CLOSE_SECONDS = 8.0  # the SDK gives a stdio server 2 s after stdin closes, then 2 s after SIGTERM


_CONNECTION_CLOSED = -32000
"""The JSON-RPC code the SDK's error carries when the server's end of the connection closed."""


class McpError(UserMistake, ToolFailure, RuntimeError):
    """An MCP server could not be reached, or stopped answering (IPython shows the message
    alone: the frames are the package's)."""


@dataclass(frozen=True)
class McpTarget:
    """Where a server is: a ``command`` to start (stdio) or a ``url`` (streamable HTTP)."""

    command: tuple[str, ...] = ()
    url: str | None = None
    env: dict[str, str] | None = None
    cwd: str | None = None
    headers: dict[str, str] | None = None

    def describe(self) -> str:
        return self.url if self.url is not None else " ".join(self.command)


class McpConnection:
    """A live session with one server: :meth:`list_tools`, :meth:`call_tool`, :meth:`close`.

    Opening starts the server (stdio) or connects (HTTP) and waits up to
    ``connect_timeout`` seconds for the handshake; a server that cannot be started or
    does not answer raises :class:`McpError` saying which, with the end of its stderr.
    A server that dies later makes every call raise :class:`McpError`; nothing else
    breaks. :meth:`close` ends the session (and a stdio server's process) and is safe to
    call more than once; every connection still open when the interpreter exits is closed.
    """

    def __init__(self, target: McpTarget, *, connect_timeout: float = 30.0) -> None:
        self.target = target
        self._stderr: TextIO | None = (
            cast(TextIO, tempfile.TemporaryFile("w+", encoding="utf-8")) if target.url is None else None
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="openprogram-mcp", daemon=True)
        self._thread.start()
        self._client: Any = None
        self.server_name: str | None = None  # what the server calls itself (its handshake)
        self._closing: asyncio.Event | None = None
        self._task: asyncio.Task[Any] | None = None  # the session's own task, on the connection's loop
        self.unasked = ServerMessages(target.describe())  # what the server sends unasked
        self._failure: str | None = None
        self._closed = False
        self.elicitations = Elicitations()  # who answers the server's elicitations now
        self.samplers = Samplers(lambda: self.server_name or target.describe())  # and its sampling requests
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._session = asyncio.run_coroutine_threadsafe(self._hold_session(ready), self._loop)
        _OPEN.add(self)
        try:
            _wait(
                ready,
                connect_timeout,
                f"the MCP server {target.describe()!r} did not answer within {connect_timeout:g} s",
            )
        except BaseException:
            self.close()
            raise

    # -- the session's own task -------------------------------------------------------

    async def _hold_session(self, ready: concurrent.futures.Future[None]) -> None:
        """Open the session, hand it out, keep it until :meth:`close` (or the server dies)."""
        self._task = asyncio.current_task()
        self._closing = asyncio.Event()
        try:
            async with self._open_client() as client:
                self._client = client
                self.server_name = getattr(client.server_info, "name", None)
                ready.set_result(None)
                listening = asyncio.create_task(listen_for_tool_changes(client, self.target.describe()))
                try:
                    await self._closing.wait()
                finally:
                    listening.cancel()
        except BaseException as error:  # reported to callers; this task must not die noisily
            # Our own McpError (no SDK) says what is wrong: no server was started to have "stopped".
            self._failure = str(error) if isinstance(error, McpError) else self._explain(error)
            if not ready.done() and self.target.url is not None and isinstance(error, Exception):
                # the handshake failed: an old SSE server is told apart by asking its URL
                legacy = await legacy_sse_failure(self.target.url, self.target.headers)
                self._failure = mask(legacy) if legacy is not None else self._failure
            if not ready.done():
                ready.set_exception(McpError(self._failure))
        finally:
            self._client = None

    def _open_client(self) -> Any:
        try:
            from mcp import Client, Implementation, StdioServerParameters
            from mcp.client.stdio import stdio_client
            from mcp.client.streamable_http import streamable_http_client
        except ImportError:
            raise McpError(
                f"MCP servers need the official 'mcp' SDK, which is not installed ({install_hint('mcp')})"
            ) from None
        target = self.target
        if target.url is not None:
            transport = _http_transport(streamable_http_client, target)
        else:
            command, *args = target.command
            assert self._stderr is not None  # a stdio target always has one
            parameters = StdioServerParameters(command=command, args=args, env=target.env, cwd=target.cwd)
            transport = stdio_client(parameters, errlog=self._stderr)
        return Client(
            transport,
            message_handler=self.unasked.on_message,
            logging_callback=self.unasked.on_log,
            log_level="info",  # a 2026-07-28 server sends log messages only to a client that asks
            elicitation_callback=self._on_elicitation,
            sampling_callback=self.samplers.reply,
            client_info=Implementation(name=DISTRIBUTION, version=package_version()),  # not the SDK's "mcp 0.1.0"
        )

    async def _on_elicitation(self, context: Any, params: Any) -> Any:
        """An ``elicitation/create`` from the server, asked of the user through the call in
        flight (:class:`._mcp_elicitation.Elicitations`)."""
        from mcp.types import ElicitResult

        asked = params.model_dump(mode="json", by_alias=False, exclude_none=True)
        action, content = await self.elicitations.reply(asked, self.server_name or self.target.describe())
        return ElicitResult(action=action, content=content)

    def _explain(self, error: BaseException) -> str:
        while len(getattr(error, "exceptions", ())) == 1:  # an exception group of one: say what it holds
            error = error.exceptions[0]  # type: ignore[attr-defined]
        text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        tail = self.stderr_tail()
        where = self.target.describe()
        return f"the MCP server {where!r} stopped ({text})" + (f"; its stderr ends with:\n{tail}" if tail else "")

    # -- used from any thread ---------------------------------------------------------

    @property
    def skipped_lines(self) -> list[str]:
        """The last lines the server wrote that are not JSON-RPC (:class:`ServerMessages`)."""
        return self.unasked.skipped_lines

    def stderr_tail(self) -> str:
        """The last lines a stdio server wrote to its stderr (empty for HTTP)."""
        if self._stderr is None:
            return ""
        with contextlib.suppress(ValueError, OSError):  # closed
            self._stderr.flush()
            self._stderr.seek(0, 2)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - _STDERR_TAIL_CHARS))
            return self._stderr.read().strip()
        return ""

    @property
    def alive(self) -> bool:
        """Whether calls can reach the server: connected, not closed, not found gone."""
        return self._client is not None and not self._closed and self._failure is None

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float) -> T:
        """Run ``coroutine`` on the connection's loop and wait for it (sync callers)."""
        started = time.monotonic()
        return _wait(
            asyncio.run_coroutine_threadsafe(coroutine, self._loop),
            timeout,
            f"the MCP server {self.target.describe()!r} did not answer within {timeout:g} s",
            unreadable=lambda: self.unasked.unreadable_since(started),
        )

    def list_tools(self, timeout: float = 30.0) -> list[Any]:
        """The server's tools (every page of ``tools/list``)."""
        return self.run(self.list_tools_async(), timeout)

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start ``coroutine`` on the connection's loop without waiting for it."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    async def list_tools_async(self) -> list[Any]:
        """:meth:`list_tools` on the connection's own loop (a coroutine :meth:`submit` runs)."""
        client = self._require_client()
        tools: list[Any] = []
        cursor = None
        while True:
            # "refresh": never the SDK's cached answer, which a change may have made stale
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools

    async def call_tool(self, name: str, arguments: JsonObject, progress: Progress | None = None) -> Any:
        """Call ``name`` from any event loop; returns the SDK's ``CallToolResult``.

        With ``progress``, the request asks for progress (a ``progressToken``) and each
        ``notifications/progress`` is handed to it, on the connection's thread, as
        ``(progress, total, message)``. Cancelling the awaiting task cancels the request on
        the connection's loop, which sends the server ``notifications/cancelled``. A dead or
        closed server raises :class:`McpError`.
        """
        started = time.monotonic()
        call = self._call_tool(name, arguments, progress)
        future = asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call, self._loop))
        try:
            while True:
                done, _ = await asyncio.wait({future}, timeout=0.1)
                if done:
                    return future.result()
                unreadable = self.unasked.unreadable_since(started)
                if unreadable is not None:
                    raise McpError(unreadable)
        finally:
            future.cancel()  # a stop (or an unreadable reply): the request is cancelled on the server too

    async def _call_tool(self, name: str, arguments: JsonObject, progress: Progress | None) -> Any:
        client = self._require_client()

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            if progress is not None:
                progress(done, total, message)

        try:
            return await client.call_tool(name, arguments, progress_callback=on_progress if progress else None)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if getattr(error, "code", None) == _CONNECTION_CLOSED and self._failure is None:
                self._failure = self._explain(error)  # the server is gone: closed, and every later call says so
            if self._client is None or self._failure is not None or type(error).__name__ == "MCPError":
                raise McpError(self._failure or self._explain(error)) from None
            raise

    def _require_client(self) -> Any:
        if self._closed:
            raise McpError(f"the connection to the MCP server {self.target.describe()!r} was closed")
        if self._client is None:
            raise McpError(self._failure or f"the MCP server {self.target.describe()!r} is not running")
        return self._client

    def close(self) -> None:
        """End the session, wait (bounded) for a stdio server's process to exit, stop the thread.

        A session that never opened (the server did not answer the handshake) is cancelled
        at once and cleaned up in the background: the caller's timeout holds, and the
        connection's loop runs until the SDK has ended the server's process (closing its
        stdin, then SIGTERM, then SIGKILL) — stopping the loop first left it running.
        """
        if self._closed:
            return
        self._closed = True
        _OPEN.discard(self)
        if self._client is None and not self._session.done():
            self._session.cancel()  # cancels the task on its loop: the SDK's shielded cleanup runs there
            threading.Thread(target=self._finish, name="openprogram-mcp-close", daemon=True).start()
            return
        if self._closing is not None:
            self._loop.call_soon_threadsafe(self._closing.set)
        self._finish()

    def _finish(self) -> None:
        """Wait (bounded) for the session's task to end, then stop the loop and its thread."""
        deadline = time.monotonic() + _CLOSE_SECONDS
        while not (self._task.done() if self._task is not None else self._session.done()):
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)  # a cancelled future is done at once; its task ends when the cleanup has
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(2.0)
        if not self._thread.is_alive():
            self._loop.close()
        if self._stderr is not None:
            self._stderr.close()


def _http_transport(streamable_http_client: Any, target: McpTarget) -> Any:
    if not target.headers:
        return streamable_http_client(target.url)
    import httpx2  # the HTTP client the SDK's transport takes (a dependency of mcp)

    client = httpx2.AsyncClient(headers=target.headers, timeout=httpx2.Timeout(30.0, read=300.0))
    return streamable_http_client(target.url, http_client=client)


def _wait(
    future: concurrent.futures.Future[T], timeout: float, what: str, unreadable: Callable[[], str | None] = lambda: None
) -> T:
    """``future.result()`` waited in 0.1 s slices (so Ctrl-C lands), at most ``timeout`` s;
    at once when ``unreadable()`` says the server sent what cannot be read."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return future.result(timeout=0.1)
        except concurrent.futures.TimeoutError:
            why = unreadable()
            if why is not None or time.monotonic() >= deadline:
                future.cancel()
                raise McpError(why or what) from None


_OPEN: weakref.WeakSet[McpConnection] = weakref.WeakSet()


def close_all_connections(connections: Sequence[McpConnection] | None = None) -> None:
    """Close every open connection (at interpreter exit: the kernel shutting down)."""
    for connection in list(connections if connections is not None else _OPEN):
        with contextlib.suppress(Exception):
            connection.close()


atexit.register(close_all_connections)
