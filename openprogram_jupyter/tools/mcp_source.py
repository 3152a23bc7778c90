"""``op.mcp(...)``: the tools of an MCP server, as tools like any ``@function``.

:func:`mcp` connects to one server — a command started over stdio, or a URL spoken to
over streamable HTTP — lists its tools and registers each as a :class:`McpTool` under a
prefixed name (``docs_search`` for the tool ``search`` of the server ``docs``), so two
servers' tools never clash with each other or with the notebook's functions. From there
they are ordinary tools: on the default menu, narrowed by every gating layer, listed by
``%agent tools`` and ``%agent schema``, named with ``%%agent --tools`` or, all of one
server's, ``%%agent --mcp NAME``.

The connection itself (its own thread and event loop, cancellation, ending the server's
process) is :mod:`._mcp_connection`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import dataclasses
import os
import re
import shlex
import sys
import threading
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..core._ambient import ambient_runtime
from ..core._json import JsonObject
from ..core._secrets import remember
from ..core.errors import ArgumentError, SetupError
from ._jsonschema import validate_json_schema
from ._mcp_connection import McpConnection, McpError, McpTarget
from ._mcp_listing import Listing, hints_of, listing, task_only
from ._mcp_results import McpToolError, result_value
from ._mcp_sampling import checked_sampling_models, sampled
from .base import Tool, ToolContext, ToolOptions
from .registry import Registry, default_registry

if TYPE_CHECKING:
    from ..core._engine_shapes import RuntimeLike

__all__ = ["McpError", "McpServer", "McpTool", "McpToolError", "mcp", "mcp_server"]

_NOT_A_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_TOOL_OPTION_NAMES = {f.name for f in dataclasses.fields(ToolOptions)} - {"render", "cache"}


class McpTool(Tool):
    """One tool of an MCP server. ``remote_name`` is its name on the server, ``name`` the
    prefixed one the model sees. Arguments are checked against the server's input schema
    before anything is sent; a call the server reports as failed raises
    :class:`McpToolError` (the model reads its text as the error result), a dead server
    :class:`McpError`. Stopping the run cancels the request (``notifications/cancelled``)."""

    def __init__(self, server: McpServer, remote: Any, name: str, options: ToolOptions) -> None:
        self.server = server
        self.remote_name: str = remote.name
        self.name = name
        self._given_options = options
        self.update(remote)

    def update(self, remote: Any) -> None:
        """Take the description, input schema and annotations of ``remote`` (the server's
        listing of it). A tool the server marks destructive (and not read-only) asks before
        it runs (``requires_approval``) unless ``op.mcp`` was given ``requires_approval=``."""
        self.hints = hints_of(getattr(remote, "annotations", None))
        asks = "destructive" in self.hints and self.server.ask_destructive
        self.options = dataclasses.replace(self._given_options, requires_approval=True) if asks else self._given_options
        self.description = remote.description or ""
        schema = dict(getattr(remote, "input_schema", None) or {})
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        self.parameters = schema

    def validate(self, arguments: JsonObject) -> dict[str, Any]:
        problems = validate_json_schema(arguments, self.parameters)
        if problems:
            raise ArgumentError(problems)
        return dict(arguments)

    def call(self, kwargs: dict[str, Any], context: ToolContext) -> Awaitable[Any]:
        return self._call(kwargs, context)

    async def _call(self, kwargs: dict[str, Any], context: ToolContext) -> Any:
        connection = self.server.connection
        # The server's elicitations during this call are this call's questions (its card),
        # its log messages lines under it (its stderr, which the card shows).
        # Its sampling requests are nested runs of this run's Runtime, inside this call.
        in_call = contextvars.copy_context()  # where this call's output is caught, its nested runs start

        def log(line: str) -> None:
            in_call.copy().run(print, line, file=sys.stderr, flush=True)

        with (
            connection.elicitations.answering(lambda text, choices: context.ask(text, choices)),
            connection.unasked.logging_to(log),
            connection.samplers.answering(
                lambda params: in_call.copy().run(
                    sampled, context, params, self.server.name, self.server.sampling_models
                )
            ),
        ):
            result = await connection.call_tool(self.remote_name, kwargs, _reporter(context))
        return result_value(result)


def _reporter(context: ToolContext) -> Callable[[float, float | None, str | None], None]:
    """A call's MCP progress as its card's progress: ``{"step", "of"}`` (a bar) when the
    server gives a total, else the count; with the server's message."""

    def report(done: float, total: float | None, message: str | None) -> None:
        if total:
            context.report({"step": done, "of": total, **({"message": message} if message else {})})
        else:
            context.report(f"{done:g}" + (f" · {message}" if message else ""))

    return report


class McpServer:
    """One connected MCP server and the tools it gave (:func:`mcp` makes it).

    ``name`` is the server's name here (the toolset its tools are in), ``tools`` its
    tools under their prefixed names, ``connection`` the live session. :meth:`close`
    unregisters the tools and ends the session (a stdio server's process exits); so
    does leaving a ``with`` block, closing the Runtime that owns it, or the kernel
    shutting down. A call to a tool of a closed server is an error result.
    """

    def __init__(
        self,
        name: str,
        prefix: str,
        connection: McpConnection,
        registry: Registry | None,
        options: ToolOptions | None = None,
        *,
        ask_destructive: bool = True,
        sampling_models: Sequence[Any] = (),
    ) -> None:
        self.name = name
        self.sampling_models = tuple(sampling_models)  # what a sampling request's hints may choose
        self.ask_destructive = ask_destructive  # a destructive tool asks (no requires_approval= given)
        self.prefix = prefix
        self.connection = connection
        self.registry = registry
        self.options = options or ToolOptions()
        self.tools: list[McpTool] = []
        self.renamed: dict[str, str] = {}  # remote name -> the name here, where they clashed once made valid
        self.left_off: dict[str, str] = {}  # remote name -> why it is not offered (task-only; named tool_search here)
        self.generation = 0  # counts the listings that added or removed a tool
        self.last_change: Listing | None = None
        self._lock = threading.Lock()
        self._relisting: concurrent.futures.Future[None] | None = None

    def take_listing(self, remote_tools: list[Any]) -> Listing:
        """Make ``remote_tools`` (a ``tools/list`` answer) this server's tools: tools kept
        where they were, new ones made and registered, gone ones unregistered."""
        with self._lock:
            new = listing(
                self.prefix,
                remote_tools,
                self.tools,
                lambda remote, name: McpTool(self, remote, name, self.options),
                left_off=task_only,
            )
            if self.registry is not None:
                for gone in new.removed:
                    old = self.registry.get(gone)
                    if old is not None and getattr(old, "server", None) is self:
                        self.registry.unregister(gone)
                for tool in new.tools:
                    if tool.name in new.added:
                        self.registry.register(tool)
            self.tools, self.renamed, self.left_off = new.tools, new.renamed, new.left_off
            if new.changed:
                self.generation += 1
                self.last_change = new
            return new

    def follow_changes(self, since: int) -> None:
        """List the tools again whenever the server says they changed, and at once if it
        said so after its ``since``-th such notice (while the first list was on its way)."""
        self.connection.unasked.on_tools_changed = self.tools_changed
        if self.connection.unasked.tool_changes != since:
            self.tools_changed()

    def tools_changed(self) -> None:
        """The server said its tools changed (``notifications/tools/list_changed``): list
        them again on the connection's loop (:meth:`settled` waits for it)."""
        self._relisting = self.connection.submit(self._relist())

    async def _relist(self) -> None:
        self.take_listing(await self.connection.list_tools_async())

    async def settled(self, timeout: float = 10.0) -> None:
        """Wait (at most ``timeout`` s) for a listing the server's change started; one that
        fails or takes longer leaves the tools as they were."""
        relisting = self._relisting
        if relisting is not None and not relisting.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(relisting)), timeout)

    def tool(self, remote_name: str) -> McpTool:
        """The tool the server calls ``remote_name`` (``KeyError`` listing them if none)."""
        for tool in self.tools:
            if tool.remote_name == remote_name:
                return tool
        raise KeyError(
            f"{self.name!r} has no tool {remote_name!r}; it has: " + ", ".join(t.remote_name for t in self.tools)
        )

    @property
    def closed(self) -> bool:
        return not self.connection.alive

    def close(self) -> None:
        if self.registry is not None:
            for tool in self.tools:
                if self.registry.get(tool.name) is tool:
                    self.registry.unregister(tool.name)
        if _LIVE.get(self.name) is self:
            del _LIVE[self.name]
        self.connection.close()

    def __enter__(self) -> McpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "connected"
        return (
            f"<McpServer {self.name} ({self.connection.target.describe()}), {state}: "
            f"{', '.join(t.name for t in self.tools) or 'no tools'}>"
        )


_LIVE: dict[str, McpServer] = {}


def mcp_server(name: str) -> McpServer | None:
    """The connected server called ``name`` by :func:`mcp`, if any."""
    return _LIVE.get(name)


def mcp(
    command: str | Sequence[str] | None = None,
    *,
    url: str | None = None,
    name: str | None = None,
    prefix: str | None = None,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    headers: dict[str, str] | None = None,
    connect_timeout: float = 30.0,
    runtime: RuntimeLike | None = None,
    register_globally: bool = True,
    registry: Registry | None = None,
    sampling_models: Sequence[Any] | None = None,
    **tool_options: Any,
) -> McpServer:
    """Connect to an MCP server and make its tools tools of this notebook.

    ``command`` (a list, or one string split like a shell line) starts a server that
    speaks stdio — it gets the SDK's small default environment plus ``env``; ``url``
    reaches one over streamable HTTP (with ``headers``). Give exactly one. ``name`` is
    the server's name here (default: the name the server reports); each tool is
    registered as ``prefix + tool`` (default prefix ``name + "_"``) in ``registry``
    (default: the global one; ``register_globally=False``: only through ``tools=[...]``
    or ``--mcp``), tagged with the toolset ``name`` and any ``toolset=`` given. ``tool_options`` are
    :class:`ToolOptions` for every tool of the server (``requires_approval=True``,
    ``timeout=30``, ``defer=True``, ``toolset=...``, ``tools_deny``-style layers all apply).

    ``sampling_models`` (names or model objects): the only models a server's sampling
    request may choose with its hints, else the run's own answers (:mod:`._mcp_sampling`).

    Connecting again under a name already connected closes the old server first (cells
    get re-run). The server belongs to ``runtime`` (default: the notebook's): closing it
    closes the server. Bad arguments raise ``TypeError`` / ``ValueError`` naming them; a
    server that cannot be started or reached raises :class:`McpError` with its stderr.
    """
    target, allowed_models = _target(command, url, env, cwd, headers), checked_sampling_models(sampling_models)
    # What is handed to a server to authenticate is a secret: a server that echoes its
    # token must not put it in a result, a view or the saved notebook.
    remember(*(env or {}).values(), *(headers or {}).values(), *_credentials_in(headers))
    options = _tool_options(tool_options)
    connection = McpConnection(target, connect_timeout=connect_timeout)
    try:
        changes_before = connection.unasked.tool_changes
        remote_tools = connection.list_tools(timeout=connect_timeout)
        server_name = _clean_name(name or connection.server_name or _fallback_name(target))
        if (old := _LIVE.get(server_name)) is not None:
            old.close()
        target_registry = registry if registry is not None else (default_registry if register_globally else None)
        asks = "requires_approval" not in tool_options  # else a destructive tool asks
        server = _made_server(server_name, prefix, connection, target_registry, options, asks=asks)
        server.sampling_models = allowed_models
        _warn_about(server, server.take_listing(remote_tools))
        server.follow_changes(since=changes_before)
    except BaseException:
        connection.close()
        raise
    _LIVE[server_name] = server
    (runtime if runtime is not None else ambient_runtime()).own(server)
    return server


def _made_server(
    name: str,
    prefix: str | None,
    connection: McpConnection,
    registry: Registry | None,
    options: ToolOptions,
    *,
    asks: bool,
) -> McpServer:
    """The server ``name`` with its tools in the toolset ``name`` first, whatever toolsets
    ``options`` give beside it, and prefixed ``name + "_"`` unless ``prefix`` is given."""
    given = tuple(toolset for toolset in options.toolset if toolset != name)
    options = dataclasses.replace(options, toolset=(name, *given))
    prefix = name + "_" if prefix is None else prefix
    return McpServer(name, prefix, connection, registry, options, ask_destructive=asks)


def _credentials_in(headers: dict[str, str] | None) -> list[str]:
    """The credential after a scheme in header values (``Bearer <token>``), on its own."""
    return [
        value.split(None, 1)[1]
        for value in (headers or {}).values()
        if isinstance(value, str) and len(value.split(None, 1)) == 2
    ]


def _target(
    command: str | Sequence[str] | None,
    url: str | None,
    env: dict[str, str] | None,
    cwd: str | os.PathLike[str] | None,
    headers: dict[str, str] | None,
) -> McpTarget:
    if (command is None) == (url is None):
        raise SetupError(
            "op.mcp: give command=[...] (a server over stdio) or url='http://…' (streamable HTTP), exactly one of them"
        )
    if url is not None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise SetupError(f"op.mcp: url must be an http:// or https:// address, got {url!r}")
        if env is not None or cwd is not None:
            raise SetupError("op.mcp: env= and cwd= are for a command (stdio); a url server runs elsewhere")
        return McpTarget(url=url, headers=dict(headers) if headers else None)
    if headers is not None:
        raise SetupError("op.mcp: headers= is for a url server; a command speaks stdio")
    parts = shlex.split(command) if isinstance(command, str) else list(command or ())
    if not parts or not all(isinstance(part, str) and part for part in parts):
        raise SetupError(
            f"op.mcp: command must be a non-empty list of strings (the program and its arguments), got {command!r}"
        )
    return McpTarget(command=tuple(parts), env=dict(env) if env else None, cwd=os.fspath(cwd) if cwd else None)


def _tool_options(given: JsonObject) -> ToolOptions:
    unknown = sorted(set(given) - _TOOL_OPTION_NAMES)
    if unknown:
        raise SetupError(
            f"op.mcp: unknown option(s) {', '.join(unknown)}; tool options are: "
            + ", ".join(sorted(_TOOL_OPTION_NAMES))
        )
    for key in ("toolset", "unsafe_in", "requires_env"):
        if isinstance(given.get(key), str):
            given[key] = (given[key],)
        elif key in given:
            given[key] = tuple(given[key])
    return ToolOptions(**given)


def _clean_name(name: str) -> str:
    cleaned = _NOT_A_NAME.sub("_", name).strip("_") or "mcp"
    return cleaned if cleaned[0].isalpha() or cleaned[0] == "_" else "mcp_" + cleaned


def _fallback_name(target: McpTarget) -> str:
    return os.path.splitext(os.path.basename(target.command[-1] if target.command else "mcp"))[0]


def _warn_about(server: McpServer, first: Listing) -> None:
    """Say in a warning which tools are not offered, and which were renamed because their
    names clash once made valid."""
    if first.left_off:
        warnings.warn(
            f"op.mcp: {server.name!r} has tools that are not offered: "
            + "; ".join(f"{name!r}: {why}" for name, why in first.left_off.items()),
            stacklevel=3,
        )
    if first.renamed:
        warnings.warn(
            f"op.mcp: {server.name!r} has tools whose names clash once made valid for every provider; "
            "renamed: " + ", ".join(f"{r!r} → {n}" for r, n in first.renamed.items()),
            stacklevel=3,
        )
