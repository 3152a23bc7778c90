"""A tool's question on its call's card: the question, and a text box or a button per choice.

A tool that calls ``ctx.ask(question, choices=None)`` (or an MCP server that sends
``elicitation/create``) waits in its open card (:mod:`._call_card`) with:

- the question, as text (escaped: it is the tool's, or a server's, words);
- a button per choice, when there are choices: a click answers with that choice;
- otherwise a text box and **Send**: Enter in the box, or Send, answers with what was typed.

The controls belong to one question (kept while it waits, closed after), so a click can
only answer the question it was shown with. The box is a :class:`~._typed_box.TypedBox`,
so what a person types arrives whole while the cell runs.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from ..core._json import JsonObject
from ._typed_box import TypedBox

if TYPE_CHECKING:
    from ._card_host import CardHost
    from ._questions import AskedQuestion

__all__ = ["QuestionControls", "question_widgets"]

_QUESTION = "margin:4px 0;padding:4px 8px;border-left:3px solid #0969da;white-space:pre-wrap;word-break:break-word"


def question_widgets(view: CardHost, call_id: str, asked: AskedQuestion) -> list[Any]:
    """The widgets of the question ``call_id`` waits on, kept for this one question."""
    controls = view.pool.widget_for(("question", call_id, asked.number), lambda: QuestionControls(view, call_id, asked))
    return controls.widgets()


class QuestionControls:
    """The question's text, its answer buttons or box, and why an answer was not taken.

    Clicks and texts arrive on the kernel's comm thread: they only call the view's
    ``on_answer_click`` and keep its reply; the view's writer draws (:meth:`widgets`).
    """

    def __init__(self, view: CardHost, call_id: str, asked: AskedQuestion) -> None:
        w = view.pool.widgets
        self._view = view
        self._call_id = call_id
        self.message = ""
        self._submitted = False
        question = asked.question
        self._text = view.pool.make(w.HTML)
        view.pool.want(
            self._text,
            value=f'<div style="{_QUESTION}"><b>{escape(question.tool_name)} asks:</b> {escape(question.text)}</div>',
        )
        self._error = view.pool.make(w.HTML)
        self._row = view.pool.make(w.HBox, layout=w.Layout(flex_flow="row wrap"))
        self.box: TypedBox | None = None
        self._buttons: list[Any] = []
        if question.choices:
            for choice in question.choices:
                button = view.pool.make(w.Button, description=choice, tooltip=f"Answer {choice!r}")
                button.on_click(lambda _b, choice=choice: self._answer(choice))
                self._buttons.append(button)
        else:
            self.box = TypedBox(
                view.pool.make,
                view.pool.close_widget,
                w.Text,
                placeholder="your answer (Enter sends it)",
                on_text=self._on_text,
                on_box=lambda box: box.on_msg(self._on_box_message),
                layout=lambda: w.Layout(width="360px", min_width="240px"),
            )
            send = view.pool.make(w.Button, description="Send", button_style="primary", tooltip="Send this answer")
            send.on_click(lambda _b: self._answer(self.box.value if self.box is not None else ""))
            self._buttons.append(send)

    def _on_box_message(self, _widget: Any, content: JsonObject, _buffers: Any = None) -> None:
        if content.get("event") == "submit":  # Enter: the box sent its text first, or sends it next
            if self.box is not None and self.box.value.strip():
                self._answer(self.box.value)
            else:
                self._submitted = True

    def _on_text(self, text: str) -> None:
        if self._submitted and text.strip():
            self._submitted = False
            self._answer(text)

    def _answer(self, text: str) -> None:
        self.message = self._view.on_answer_click(self._call_id, text) or ""

    def widgets(self) -> list[Any]:
        """What the card shows of this question now (called by the view's writer)."""
        view = self._view
        box = [self.box.widget()] if self.box is not None else []
        view.pool.want(self._row, children=(*box, *self._buttons))
        view.pool.want(
            self._error, value=f'<div style="color:#cf222e">{escape(self.message)}</div>' if self.message else ""
        )
        return [self._text, self._row, self._error]

    def close_widgets(self) -> None:
        """Close every widget these controls made (the view calls it once the question is answered)."""
        if self.box is not None:
            self.box.close()
        for widget in [self._text, self._error, self._row, *self._buttons]:
            self._view.pool.close_widget(widget)
