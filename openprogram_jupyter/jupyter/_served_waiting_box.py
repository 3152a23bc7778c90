"""What a server's calls wait on the person for, under the serving cell's card: :class:`WaitingBox`.

- A row per call waiting for approval (:class:`._served_approvals.ServedApprovals`): the
  tool, the client's arguments (secrets masked, escaped: they are untrusted), how long it
  may wait, and Approve, Deny and — where the notebook keeps session rules — Always allow /
  Always deny.
- A row per question a served tool asks (``ctx.ask``: :class:`._served_questions.ServedQuestions`):
  the question (escaped), and a button per choice, or a text box and Send.

A row is built when its call starts waiting and closed when it stops (answered, timed out,
or the server stopped), from whichever thread that happens on; each button answers its
own call alone. The server's calls come while no cell runs, so the kernel handles each
widget message as it comes: a plain text box delivers what is typed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from html import escape
from typing import Any

from ..core._secrets import mask
from ..render._format import pretty_json
from ..render._safe import safe_view
from ._buttons import Always
from ._inert_widget import inert_widget
from ._served_approvals import ServedApprovals, WaitingCall
from ._served_questions import ServedQuestions, WaitingQuestion
from ._view import WIDGET_MIME

__all__ = ["WaitingBox"]

_ARGUMENTS_SHOWN = 2000
_QUESTION = "padding:2px 8px;border-left:3px solid #0969da;white-space:pre-wrap;word-break:break-word"
_PRE = (
    "white-space:pre-wrap;word-break:break-word;margin:2px 0;font-size:12px;line-height:1.4;"
    "font-family:var(--jp-code-font-family,monospace)"
)


class WaitingBox:
    """The widget (:attr:`widget`, a VBox) holding a row per call waiting in ``approvals``
    and per question waiting in ``questions``; both are answerable while it is open
    (:meth:`close` ends that)."""

    def __init__(self, approvals: ServedApprovals, questions: ServedQuestions) -> None:
        import ipywidgets as w

        self._w = w
        self._approvals = approvals
        self._questions = questions
        self._rows: dict[tuple[object, ...], Any] = {}
        self._lock = threading.Lock()
        self.widget = inert_widget(w.VBox)
        for source in (approvals, questions):
            source.on_change(self.redraw)
            source.answerable = True

    def redraw(self) -> None:
        """Show a row for each waiting call, then each waiting question, oldest first."""
        waiting: dict[tuple[object, ...], Any] = {("call", c.call_id): c for c in self._approvals.waiting()}
        waiting.update({("question", q.question.call_id, q.number): q for q in self._questions.waiting()})
        with self._lock:
            for key in [key for key in self._rows if key not in waiting]:
                _close(self._rows.pop(key))
            for key, item in waiting.items():
                if key not in self._rows:
                    self._rows[key] = self._call_row(item) if key[0] == "call" else self._question_row(item)
            self.widget.children = tuple(self._rows[key] for key in waiting)

    def _call_row(self, call: WaitingCall) -> Any:
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
        return self._row(text, buttons)

    def _question_row(self, waiting: WaitingQuestion) -> Any:
        w = self._w
        question = waiting.question
        text = (
            f'<div style="{_QUESTION}"><b>{escape(question.tool_name)} asks</b> '
            f"(during a call from an MCP client): {escape(question.text)}</div>"
        )
        call_id = question.call_id
        if question.choices:
            buttons = [self._answer_button(choice, "", call_id, _given(choice)) for choice in question.choices]
            return self._row(text, buttons)
        box = inert_widget(w.Text, placeholder="your answer", layout=w.Layout(width="360px", min_width="240px"))
        return self._row(text, [box, self._answer_button("Send", "primary", call_id, lambda: box.value)])

    def _row(self, html: str, controls: list[Any]) -> Any:
        w = self._w
        return inert_widget(
            w.VBox,
            children=(
                inert_widget(w.HTML, value=safe_view("text/html", html)),
                inert_widget(w.HBox, children=tuple(controls), layout=w.Layout(flex_flow="row wrap")),
            ),
            layout=w.Layout(border="1px solid rgba(127,127,127,0.3)", margin="2px 0", padding="2px 6px"),
        )

    def _button(self, label: str, style: str, tooltip: str, call_id: str, answer: bool | Always) -> Any:
        button = inert_widget(self._w.Button, description=label, button_style=style, tooltip=tooltip)
        button.on_click(lambda _b: self._approvals.decide(call_id, answer))
        return button

    def _answer_button(self, label: str, style: str, call_id: str, text: Callable[[], str]) -> Any:
        button = inert_widget(self._w.Button, description=label, button_style=style, tooltip=f"Answer {label!r}")
        button.on_click(lambda _b: self._questions.answer(call_id, text()))
        return button

    def mimebundle(self, server_name: str) -> dict[str, Any]:
        """The bundle to display: the box, and a line for frontends without widgets."""
        text = f"(calls to the MCP server {server_name} that need an answer wait here while it runs)"
        return {
            "text/plain": text,
            "text/html": f'<p style="color:#57606a;font-size:12px">{escape(text)}</p>',
            WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id},
        }

    def close(self) -> None:
        """Stop answering (later calls that ask are denied at once, questions raise
        ``AskError``) and close the widgets."""
        self._approvals.answerable = False
        self._questions.answerable = False
        with self._lock:
            for row in self._rows.values():
                _close(row)
            self._rows.clear()
        _close(self.widget)


def _given(choice: str) -> Callable[[], str]:
    """A function returning ``choice``: what its button answers."""
    return lambda: choice


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
