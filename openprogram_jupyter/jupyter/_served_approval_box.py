"""Approve / Deny for a server's waiting calls, under the serving cell's card: :class:`ApprovalBox`.

One row per call waiting in :class:`._served_approvals.ServedApprovals`: the tool, the
client's arguments (secrets masked, escaped: they are untrusted), how long it may wait,
and the buttons Approve, Deny and — where the notebook keeps session rules — Always allow /
Always deny. A row is built when its call starts waiting and closed when it stops (answered,
timed out, or the server stopped), from whichever thread that happens on; each button
answers its own call alone.
"""

from __future__ import annotations

import threading
from html import escape
from typing import Any

from ..core._secrets import mask
from ..render._format import pretty_json
from ..render._safe import safe_view
from ._buttons import Always
from ._inert_widget import inert_widget
from ._served_approvals import ServedApprovals, WaitingCall
from ._view import WIDGET_MIME

__all__ = ["ApprovalBox"]

_ARGUMENTS_SHOWN = 2000
_PRE = (
    "white-space:pre-wrap;word-break:break-word;margin:2px 0;font-size:12px;line-height:1.4;"
    "font-family:var(--jp-code-font-family,monospace)"
)


class ApprovalBox:
    """The widget (:attr:`widget`, a VBox) holding a row per waiting call of ``approvals``;
    it makes the approvals answerable while it is open (:meth:`close` ends that)."""

    def __init__(self, approvals: ServedApprovals) -> None:
        import ipywidgets as w

        self._w = w
        self._approvals = approvals
        self._rows: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.widget = inert_widget(w.VBox)
        approvals.on_change(self.redraw)
        approvals.answerable = True

    def redraw(self) -> None:
        """Show a row for each waiting call, in the order they started waiting."""
        waiting = self._approvals.waiting()
        with self._lock:
            gone = [call_id for call_id in self._rows if call_id not in {c.call_id for c in waiting}]
            for call_id in gone:
                _close(self._rows.pop(call_id))
            for call in waiting:
                if call.call_id not in self._rows:
                    self._rows[call.call_id] = self._row(call)
            self.widget.children = tuple(self._rows[call.call_id] for call in waiting)

    def _row(self, call: WaitingCall) -> Any:
        w = self._w
        arguments = _cut(mask(pretty_json(call.arguments)), _ARGUMENTS_SHOWN) if call.arguments else "no arguments"
        text = (
            f"<div><b>{escape(call.tool_name)}</b>: a call from an MCP client waits for your approval "
            f"(denied after {self._approvals.timeout:g} s without an answer)</div>"
            f'<pre style="{_PRE}">{escape(arguments)}</pre>'
        )
        buttons = [
            self._button("Approve", "success", f"Let {call.tool_name} run", call.call_id, True),
            self._button("Deny", "warning", f"Do not run {call.tool_name}; the client reads why", call.call_id, False),
        ]
        if self._approvals.session_rules is not None:
            later = (
                f"later calls to {call.tool_name} in this kernel session without asking (%agent policy lists the rule)"
            )
            buttons += [
                self._button("Always allow", "info", f"Run this call, and {later}", call.call_id, Always(True)),
                self._button("Always deny", "", f"Deny this call, and {later}", call.call_id, Always(False)),
            ]
        return inert_widget(
            w.VBox,
            children=(
                inert_widget(w.HTML, value=safe_view("text/html", text)),
                inert_widget(w.HBox, children=tuple(buttons)),
            ),
            layout=w.Layout(border="1px solid rgba(127,127,127,0.3)", margin="2px 0", padding="2px 6px"),
        )

    def _button(self, label: str, style: str, tooltip: str, call_id: str, answer: bool | Always) -> Any:
        button = inert_widget(self._w.Button, description=label, button_style=style, tooltip=tooltip)
        button.on_click(lambda _b: self._approvals.decide(call_id, answer))
        return button

    def mimebundle(self, server_name: str) -> dict[str, Any]:
        """The bundle to display: the box, and a line for frontends without widgets."""
        text = f"(calls to the MCP server {server_name} that need approval wait here while it runs)"
        return {
            "text/plain": text,
            "text/html": f'<p style="color:#57606a;font-size:12px">{escape(text)}</p>',
            WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id},
        }

    def close(self) -> None:
        """Stop answering (later calls that ask are denied at once) and close the widgets."""
        self._approvals.answerable = False
        with self._lock:
            for row in self._rows.values():
                _close(row)
            self._rows.clear()
        _close(self.widget)


def _cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how many more there were."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def _close(widget: Any) -> None:
    """Close ``widget``, its children, and their layouts and styles (each is a widget too)."""
    for child in getattr(widget, "children", ()):
        _close(child)
    for part in (getattr(widget, "layout", None), getattr(widget, "style", None)):
        if part is not None:
            part.close()
    widget.close()
