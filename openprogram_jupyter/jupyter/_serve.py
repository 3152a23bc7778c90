"""``op.serve(tools)`` / ``%agent serve``: the notebook's tools as an MCP server for other agents.

Each served tool is looked up by name in the registry at every listing and every call, so
redefining a function in the notebook serves the new one; a watcher compares what is served
twice a second and, when it changed, tells clients (``notifications/tools/list_changed``).

A call from a client runs as a run of a copy of the notebook's Runtime (:meth:`Runtime.replace`,
so ``last_run`` is left alone) that makes exactly that call with exactly those arguments:
the same argument checks, the Runtime's approval policy and deny list, ``requires_approval``,
masking of secrets in the result. A call the policy asks about waits for Approve / Deny in
the serving cell's card, and is denied after :attr:`ServedTools.approvals`' timeout
(:mod:`._served_approvals`). The run's result is what the client gets; its record is
kept in :attr:`ServedTools.calls` and drawn in the card of the cell that started the server.
The endpoint itself (HTTP on 127.0.0.1, bearer token, the SDK) is ``tools/_mcp_serving``.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core._json import JsonObject
from ..core.errors import SetupError
from ..core.messages import ImageContent, TextContent, ToolCall, ToolResultMessage
from ..tools._mcp_serving import ServedEndpoint, ServedResult, ServedTool
from ..tools.base import Tool
from ..tools.registry import default_registry
from ._card_listeners import CardListeners
from ._served_approvals import ServedApprovals
from ._served_questions import ServedQuestions

__all__ = ["ServedCall", "ServedTools", "serve", "served", "stop_serving"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_WATCH_SECONDS = 0.5
_PROMPT = "(a call from an MCP client)"


@dataclass(frozen=True)
class ServedCall:
    """One call a client made: the tool, its arguments, how it ended, what came back, how long."""

    tool: str
    arguments: JsonObject
    status: str
    text: str
    seconds: float


class ServedTools:
    """A running server of notebook tools (:func:`serve` makes it).

    ``url`` and ``token`` are what a client needs (the token goes in
    ``Authorization: Bearer <token>``); ``calls`` the calls served so far; ``approvals`` the
    calls waiting for Approve / Deny (``approvals.timeout``: how long one waits, in seconds);
    ``questions`` what served tools ask (``ctx.ask``) waiting for an answer in the card
    (``questions.timeout``);
    :meth:`client_config` a ready configuration for Claude Code, Codex, Cursor and the MCP
    Inspector; :meth:`stop` closes the port. Shown as a cell's value, it displays its card.
    """

    def __init__(self, name: str, tool_names: list[str], runtime: Any, port: int | None) -> None:
        self.name = name
        self.tool_names = tool_names
        self.runtime = runtime
        self.calls: list[ServedCall] = []
        self.approvals = ServedApprovals()
        self.questions = ServedQuestions()
        self._call_numbers = itertools.count(1)
        self._listeners = CardListeners()
        self._lock = threading.Lock()
        self._endpoint = ServedEndpoint(name, self._listed, self._call, port=port, version=_version())
        self._announced = self._fingerprint()
        self._stopping = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name=f"openprogram-serve-watch-{name}", daemon=True)
        self._watcher.start()

    @property
    def url(self) -> str:
        return self._endpoint.url

    @property
    def token(self) -> str:
        return self._endpoint.token

    @property
    def stopped(self) -> bool:
        return self._endpoint.stopped

    def tools(self) -> list[Tool]:
        """The served tools as they are now (a name no longer registered is left out)."""
        found = (default_registry.get(name) for name in self.tool_names)
        return [tool for tool in found if tool is not None]

    def _listed(self) -> list[ServedTool]:
        return [
            ServedTool(tool.name, str(tool.spec.get("description") or ""), dict(tool.spec["parameters"]))
            for tool in self.tools()
        ]

    def _fingerprint(self) -> str:
        return json.dumps([tool.spec for tool in self.tools()], sort_keys=True, default=repr)

    def _watch(self) -> None:
        while not self._stopping.wait(_WATCH_SECONDS):
            now = self._fingerprint()
            if now != self._announced:
                self._announced = now
                self._endpoint.tools_changed()
                self._changed()

    async def _call(self, name: str, arguments: JsonObject) -> ServedResult:
        from ..models.scripted import ScriptedModel

        tool = default_registry.get(name)
        assert tool is not None  # the endpoint lists and checks names through _listed
        started = time.monotonic()
        call_id = f"mcp_call_{next(self._call_numbers)}"  # one per call: concurrent calls wait apart
        model = ScriptedModel([ToolCall(id=call_id, name=name, arguments=dict(arguments)), "served"])
        approve = self.approvals.approver(getattr(self.runtime, "approve", None))
        run = await self.runtime.replace(model=model, approve=approve).arun(
            _PROMPT, tools=[tool], ask=self.questions.ask
        )
        results = [m for m in run.messages if isinstance(m, ToolResultMessage)]
        result = results[0] if results else None
        content: list[TextContent | ImageContent] = (
            list(result.content) if result is not None else [TextContent(text=f"the call did not run: {run.error}")]
        )
        refusal = self.approvals.refusal(call_id)
        if refusal is not None:
            content = [TextContent(text=f"denied: {refusal}; {name} did not run")]
        failed = result is None or result.is_error or result.status != "done"
        text = "\n".join(b.text for b in content if isinstance(b, TextContent))
        status = result.status if result is not None else "error"
        with self._lock:
            self.calls.append(ServedCall(name, dict(arguments), status, text, time.monotonic() - started))
        self._changed()
        return ServedResult(content, failed)

    def on_change(self, listener: Callable[[ServedTools], None]) -> None:
        """Call ``listener(self)`` after every served call and every change of the tools."""
        self._listeners.add(listener)

    def _changed(self) -> None:
        self._listeners.notify(self)

    def client_config(self) -> dict[str, str]:
        """What to paste into each client: a ``claude mcp add`` line, Codex's and Cursor's
        configuration, and the MCP Inspector's command line."""
        header = f"Authorization: Bearer {self.token}"
        cursor = {"mcpServers": {self.name: {"url": self.url, "headers": {"Authorization": f"Bearer {self.token}"}}}}
        return {
            "Claude Code": f'claude mcp add --transport http {self.name} {self.url} --header "{header}"',
            "Codex (~/.codex/config.toml)": (
                f'[mcp_servers.{self.name}]\nurl = "{self.url}"\n'
                f'http_headers = {{ Authorization = "Bearer {self.token}" }}'
            ),
            "Cursor (.cursor/mcp.json)": json.dumps(cursor, indent=2),
            "MCP Inspector": (
                f'npx @modelcontextprotocol/inspector --transport http --server-url {self.url} --header "{header}"'
            ),
        }

    def stop(self) -> None:
        """Close the port; clients' next requests fail. First a call waiting for Approve /
        Deny is denied and a question waiting for an answer ends (``AskError`` in its tool),
        so each ends at once with a result saying why, rather than holding the stop until
        its timeout. Safe to call twice."""
        self._stopping.set()
        self.approvals.end(f"the MCP server {self.name} was stopped before anyone approved the call")
        self.questions.end()
        self._endpoint.stop()
        if _SERVED.get(self.name) is self:
            del _SERVED[self.name]
        self._changed()

    def _ipython_display_(self) -> None:
        """Shown as a cell's value (``op.serve(...)`` on a cell's last line): the server's card,
        where calls that ask wait for Approve / Deny and questions for an answer, as under
        ``%agent serve`` (:func:`._serve_card.show_card`)."""
        from IPython import get_ipython

        from ._serve_card import show_card

        widgets = getattr(get_ipython(), "kernel", None) is not None  # a kernel: clicks can come back
        show_card(self, widgets=widgets, session_rules=self.approvals.session_rules)

    def __repr__(self) -> str:
        state = "stopped" if self.stopped else f"serving at {self.url}"
        return f"<ServedTools {self.name}, {state}: {', '.join(self.tool_names)}; {len(self.calls)} call(s)>"


_SERVED: dict[str, ServedTools] = {}


def served() -> list[ServedTools]:
    """The servers running in this kernel, oldest first."""
    return list(_SERVED.values())


def stop_serving(name: str | None = None) -> list[str]:
    """Stop the server called ``name`` (``None``: every one); returns the names stopped.
    An unknown name raises ``KeyError`` naming the servers there are."""
    if name is not None and name not in _SERVED:
        raise KeyError(f"no server called {name!r} is running; running: {', '.join(_SERVED) or 'none'}")
    names = [name] if name is not None else list(_SERVED)
    for each in names:
        _SERVED[each].stop()
    return names


def serve(
    tools: Sequence[str | Tool] | str | Tool,
    *,
    port: int | None = None,
    name: str | None = None,
    runtime: Any = None,
) -> ServedTools:
    """Serve ``tools`` (names, tool objects, or one of either; a comma-separated string of
    names too) to other agents over MCP: streamable HTTP on 127.0.0.1, at ``port`` (default:
    a free one), under ``name`` (default ``"notebook"``), each request needing the printed
    bearer token. Calls run as runs of ``runtime`` (default: the notebook's), governed by
    its approval policy and deny list, and by the notebook's "Always" rules. Serving again
    under a name already served stops the old server first. An unknown tool, a bad name or
    port raises ``ValueError`` naming it."""
    from ..core._ambient import ambient_runtime

    server_name = "notebook" if name is None else name
    if not isinstance(server_name, str) or not _NAME.match(server_name):
        raise SetupError(f"serve: name must be letters, digits, _ and - (starting with a letter), got {name!r}")
    tool_names = _tool_names(tools)
    old = _SERVED.get(server_name)
    if old is not None:
        old.stop()
    server = ServedTools(server_name, tool_names, runtime if runtime is not None else ambient_runtime(), port)
    server.approvals.session_rules = _notebook_session_rules()
    _SERVED[server_name] = server
    return server


def _notebook_session_rules() -> Any:
    """The notebook's "Always allow" / "Always deny" rules (``%agent policy``), or ``None``
    outside an IPython with the extension loaded."""
    from IPython import get_ipython

    shell = get_ipython()
    magics = shell.magics_manager.registry.get("AgentMagics") if shell is not None else None
    return getattr(magics, "approval_rules", None)


def _tool_names(tools: Sequence[str | Tool] | str | Tool) -> list[str]:
    if isinstance(tools, str):
        given: list[str | Tool] = [part.strip() for part in tools.split(",") if part.strip()]
    elif isinstance(tools, Tool):
        given = [tools]
    else:
        given = list(tools)
    names: list[str] = []
    for item in given:
        tool_name = item.name if isinstance(item, Tool) else item
        if not isinstance(tool_name, str) or default_registry.get(tool_name) is None:
            known = ", ".join(sorted(t.name for t in default_registry)) or "none"
            raise SetupError(f"serve: {item!r} is not a registered tool; registered: {known}")
        if tool_name not in names:
            names.append(tool_name)
    if not names:
        raise SetupError("serve: name at least one tool, as in op.serve(['search', 'fetch'])")
    return names


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("openprogram-jupyter")
    except PackageNotFoundError:
        return "0"
