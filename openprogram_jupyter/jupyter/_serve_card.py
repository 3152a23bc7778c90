"""The card of a server of notebook tools, in the cell that started it (:func:`show_card`).

The card (:func:`server_card`: the server's state and every call a client made — tool,
arguments, how it ended, time, the start of the result) is redrawn in place from the
server's thread after each call; under it, where widgets can show, the box where calls wait
for Approve / Deny and a served tool's questions for an answer
(:class:`._served_waiting_box.WaitingBox`). It reads the server through :class:`CardServer`,
so ``%agent serve`` and ``op.serve(...)`` shown as a cell's value draw the same card.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from html import escape
from typing import Any, Protocol

from ..core._json import JsonObject
from ..core.approval_policy import SessionRules
from ..render._format import shorten
from ..render._safe import display_bundle, update_bundle
from ..render._table import html_table
from ._served_approvals import ServedApprovals
from ._served_questions import ServedQuestions

__all__ = ["CardServer", "server_card", "show_card"]

_CARD = "border:1px solid rgba(127,127,127,0.3);border-radius:4px;padding:4px 8px;margin:2px 0"


class CardServer(Protocol):
    """What the card reads of a server (a :class:`._serve.ServedTools`)."""

    name: str
    tool_names: list[str]
    approvals: ServedApprovals
    questions: ServedQuestions

    @property
    def url(self) -> str: ...

    @property
    def stopped(self) -> bool: ...

    @property
    def calls(self) -> Sequence[Any]: ...

    def on_change(self, listener: Callable[[Any], None]) -> None: ...


def show_card(server: CardServer, *, widgets: bool = False, session_rules: SessionRules | None = None) -> Any:
    """Display the server's card here and redraw it after every call and every change; with
    ``widgets``, display under it the box where calls wait for Approve / Deny, open until
    the server stops (``session_rules``: where an "Always" click adds its rule). Returns that
    :class:`._served_waiting_box.WaitingBox`, else ``None``."""
    handle = display_bundle(server_card(server), display_id=True)
    server.on_change(lambda changed: update_bundle(handle, server_card(changed)))
    if widgets:
        from ._served_waiting_box import WaitingBox

        server.approvals.session_rules = session_rules
        box = WaitingBox(server.approvals, server.questions)
        display_bundle(box.mimebundle(server.name))
        server.on_change(lambda changed: box.close() if changed.stopped else None)
        return box
    return None


def server_card(server: CardServer) -> dict[str, str]:
    """The card: the server's state and every call so far (the last 50), as text and HTML;
    each call's arguments as ``name=JSON`` pairs, its status, time and the start of its result."""
    state = "stopped" if server.stopped else f"serving at {server.url}"
    details = f"{state}; tools: {', '.join(server.tool_names)}; {len(server.calls)} call(s)"
    rows, lines = [], []
    for call in server.calls[-50:]:
        arguments = shorten(_pairs(call.arguments), 120)
        result = shorten(call.text, 160)
        seconds = f"{call.seconds:.2f} s"
        lines.append(f"  {call.tool}({arguments}) → {call.status}, {seconds}: {result}")
        color = "#1a7f37" if call.status == "done" else "#cf222e"
        status = f'<span style="color:{color}">{escape(call.status)}</span>'
        rows.append([f"<code>{escape(call.tool)}</code>", escape(arguments), status, seconds, escape(result)])
    table = html_table(["tool", "arguments", "status", "time", "result"], rows) if rows else ""
    html_details = escape(details.replace("; ", " · "))
    return {
        "text/plain": "\n".join([f"MCP server {server.name}: {details}", *lines]),
        "text/html": (
            f'<div style="{_CARD}"><div><b>MCP server {escape(server.name)}</b> '
            f'<span style="color:#57606a">· {html_details}</span></div>{table}</div>'
        ),
    }


def _pairs(arguments: JsonObject) -> str:
    """``a=20, b="x"``: each argument's name and its JSON."""
    return ", ".join(
        f"{name}={json.dumps(value, ensure_ascii=False, default=repr)}" for name, value in arguments.items()
    )
