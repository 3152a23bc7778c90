"""What an MCP server sends that no request of ours waits for: notifications, and lines
that are not JSON-RPC at all.

The SDK hands each to the connection's message handler (:meth:`ServerMessages.on_message`):

- ``notifications/tools/list_changed`` calls ``on_tools_changed`` (the server's
  :class:`~.mcp_source.McpServer` lists its tools again). On a 2026-07-28 connection the
  client asks for these with a ``subscriptions/listen`` stream (:func:`listen_for_tool_changes`);
  the SDK hands each event on as the same notification.
- A log message (``notifications/message``) goes to the call in flight that
  :meth:`ServerMessages.logging_to` names (the latest, as a run's calls go one after
  another) as one line, ``[warning] logger: text``; with no call in flight, to this
  module's logger.
- A line a server writes to stdout that is not a JSON-RPC message (a banner printed before
  it starts, a stray ``print``) is logged and kept in ``skipped_lines``; the connection goes
  on. Only a reply that cannot be read (a JSON-RPC response nested too deep for the parser)
  fails the requests waiting at that moment (:meth:`ServerMessages.unreadable_since`) —
  later ones are not touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..core._secrets import mask

__all__ = ["ServerMessages", "listen_for_tool_changes", "log_line"]

_SKIPPED_LINES_KEPT = 20
_SKIPPED_LINE_CHARS = 300
_LOG_LINE_CHARS = 2000
_log = logging.getLogger("openprogram_jupyter.tools._mcp_connection")


class ServerMessages:
    """One connection's handler of what its server (``where``) sends unasked."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.on_tools_changed: Callable[[], None] | None = None
        self.tool_changes = 0  # how many times the server said its tools changed
        self.skipped_lines: list[str] = []  # the last lines the server wrote that are not JSON-RPC
        # When (time.monotonic()) a reply that cannot be read arrived, and why: it fails the
        # requests already waiting then, none started later.
        self._unreadable: tuple[float, str] | None = None
        self._log_lock = threading.Lock()
        self._log_sinks: list[Callable[[str], None]] = []

    @contextlib.contextmanager
    def logging_to(self, sink: Callable[[str], None]) -> Iterator[None]:
        """While the block runs, the server's log messages are handed to ``sink`` as lines."""
        with self._log_lock:
            self._log_sinks.append(sink)
        try:
            yield
        finally:
            with self._log_lock:
                self._log_sinks.remove(sink)

    async def on_log(self, params: Any) -> None:
        """A ``notifications/message``: one line to the call in flight, else to the logger."""
        line = log_line(params)
        with self._log_lock:
            sink = self._log_sinks[-1] if self._log_sinks else None
        if sink is None:
            _log.info("MCP server %r logged: %s", self.where, line)
        else:
            sink(line)

    async def on_message(self, message: object) -> None:
        """A server notification the SDK surfaced, or what it could not read (an exception).

        A reply that cannot be read (nested too deep) would leave its request waiting out
        its whole timeout: the requests waiting now check :meth:`unreadable_since` and fail
        at once, saying why. Anything else that cannot be read — a line that is not JSON,
        JSON that is not a JSON-RPC response — is not an answer to anyone: it is logged,
        kept in :attr:`skipped_lines`, and the connection goes on."""
        if not isinstance(message, Exception):
            from mcp.types import ToolListChangedNotification

            if isinstance(message, ToolListChangedNotification):
                self.tool_changes += 1
                if self.on_tools_changed is not None:
                    self.on_tools_changed()
            return
        errors = getattr(message, "errors", None)  # pydantic's: structured, one per problem
        problems = errors() if callable(errors) else []
        sent = _what_was_sent(problems[0] if problems else {})
        if sent is _TOO_DEEP or _is_response(sent):
            detail = problems[0].get("msg", "") if problems else str(message).split("\n")[0]
            self._unreadable = (
                time.monotonic(),
                mask(
                    f"the MCP server {self.where!r} sent a message that cannot be read "
                    f"({type(message).__name__}: {detail[:300]})"
                ),
            )
            return
        line = mask(sent if isinstance(sent, str) else json.dumps(sent, default=str))[:_SKIPPED_LINE_CHARS]
        self.skipped_lines = [*self.skipped_lines[-(_SKIPPED_LINES_KEPT - 1) :], line]
        _log.info("MCP server %r: skipped a line that is not JSON-RPC: %s", self.where, line)

    def unreadable_since(self, started: float) -> str | None:
        """Why a reply that arrived at or after ``started`` could not be read, if one did."""
        unreadable = self._unreadable
        return unreadable[1] if unreadable is not None and unreadable[0] >= started else None


def log_line(params: Any) -> str:
    """A log message's params (the SDK's ``LoggingMessageNotificationParams``) as one line:
    ``[warning] logger: text`` (data that is not text as its JSON), secrets masked."""
    data = getattr(params, "data", None)
    text = data if isinstance(data, str) else json.dumps(data, default=str)
    logger = getattr(params, "logger", None)
    where = f"{logger}: " if logger else ""
    line = f"[{getattr(params, 'level', 'info')}] {where}{text}".replace("\n", " ")
    return mask(line[:_LOG_LINE_CHARS])


async def listen_for_tool_changes(client: Any, where: str) -> None:
    """On a 2026-07-28 connection, ask for the server's tool-list changes (a
    ``subscriptions/listen`` stream, each event handed to the message handler by the SDK).
    Older connections get the notifications unasked; a server that does not announce
    changes is not asked. Runs until cancelled (the connection closing)."""
    tools = getattr(client.server_capabilities, "tools", None)
    if not getattr(tools, "list_changed", False):
        return
    try:
        async with client.listen(tools_list_changed=True) as changes:
            async for _change in changes:
                pass  # each is also handed to ServerMessages.on_message, which acts on it
    except asyncio.CancelledError:
        raise
    except Exception as error:  # an older protocol, or a server that refuses: no updates
        _log.info("MCP server %r: not listening for tool changes (%s)", where, error)


_TOO_DEEP = object()  # JSON nested deeper than the parser goes


def _what_was_sent(problem: dict[str, Any]) -> object:
    """What the server sent, from the first problem pydantic found in it: the line itself
    when it is not JSON, the parsed value when it is (``_TOO_DEEP`` past the parser's depth)."""
    sent = problem.get("input")
    if problem.get("type") != "json_invalid" or not isinstance(sent, str):
        return sent
    try:
        return json.loads(sent)
    except RecursionError:
        return _TOO_DEEP
    except ValueError:
        return sent


def _is_response(sent: object) -> bool:
    """Whether ``sent`` has the shape of a JSON-RPC response: an answer someone waits for."""
    return isinstance(sent, dict) and "id" in sent and ("result" in sent or "error" in sent)
