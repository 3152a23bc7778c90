"""The live view's steering row: a box, Enter or Send to queue it, and what became of it.

Enter in the box and a click on Send both queue the box's text (:meth:`SteeringRow.send`
gives it to the view's ``queue`` callback). The box is a :class:`~._typed_box.TypedBox`:
its text reaches the kernel when Enter is pressed (or the box loses focus), just *after*
the frontend's ``submit`` message — on ipywidgets 7.7 and 8 alike — and a fresh box takes
its place once a text has arrived, so the second message typed while the cell runs
arrives too. So a ``submit`` only marks the box as submitted; the text is queued when it
arrives, or at the first redraw :data:`SUBMIT_WAIT` seconds later (Enter on a box whose
text had already arrived).

Under the row, the latest messages sent from it say where they are: **queued** until the
run delivers it (a user message with the same text joins the run), then **delivered**;
one still queued when the run ends reads **not delivered**.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any, Literal

from ..core._json import JsonObject
from ..render import _format as fmt
from ._typed_box import TypedBox

__all__ = ["SUBMIT_WAIT", "SentMessage", "SteeringRow"]

SUBMIT_WAIT = 0.3
"""Seconds after Enter to wait for the box's text before queuing what the box holds."""

SHOWN = 5
"""How many of the latest sent messages the row lists."""

_STATE_HTML = {
    "queued": '<span style="color:#9a6700">◷ queued</span>',
    "delivered": '<span style="color:#1a7f37">✓ delivered</span>',
    "undelivered": '<span style="color:#cf222e">✗ not delivered: the run ended first</span>',
}


@dataclass
class SentMessage:
    """A message sent from the box, and whether the run has it yet."""

    text: str
    state: Literal["queued", "delivered", "undelivered"] = "queued"


class SteeringRow:
    """The box, the Send button and the list of sent messages (``row`` and ``sent``).

    ``make(cls, **traits)`` builds a widget; ``queue(text)`` is asked to queue a message
    and says whether it did; ``clock()`` gives seconds (monotonic). Callbacks from the
    frontend (any thread) never write a widget: :meth:`redraw` does, from the view's
    one writer.
    """

    def __init__(
        self,
        widgets: Any,
        make: Callable[..., Any],
        close: Callable[[Any], None],
        queue: Callable[[str], bool],
        clock: Callable[[], float],
    ) -> None:
        self.box = TypedBox(
            make,
            close,
            widgets.Text,
            placeholder="Message the agent while it works (Enter sends; it is read after the current step)…",
            layout=lambda: widgets.Layout(width="60%"),
            on_text=self._on_box_text,
            on_box=lambda box: box.on_msg(self._on_box_message),
        )
        self.button = make(widgets.Button, description="Send", tooltip="Queue this message for the agent")
        self.row = make(widgets.HBox, children=(self.box.current, self.button))
        self.sent = make(widgets.HTML, value="")
        self.messages: list[SentMessage] = []
        self._queue = queue
        self._clock = clock
        self._lock = threading.Lock()
        self._submitted_at: float | None = None
        self._clear_box = False
        self.button.on_click(lambda _button: self.send())

    # -- from the frontend (any thread) ---------------------------------------------------

    def _on_box_message(self, _widget: Any, content: JsonObject, _buffers: Any = None) -> None:
        if content.get("event") == "submit":  # Enter
            self._submitted_at = self._clock()

    def _on_box_text(self, text: str) -> None:
        if self._submitted_at is not None and text.strip():
            self.send()

    def send(self) -> None:
        """Queue the box's text (if any) and have the next redraw clear the box."""
        with self._lock:
            self._submitted_at = None
            text = (self.box.value or "").strip()
            if not text or not self._queue(text):
                return
            self.messages.append(SentMessage(text))
            self._clear_box = True

    # -- from the view's writer ---------------------------------------------------------

    def delivered(self, text: str) -> None:
        """A user message with ``text`` joined the run: the first queued one like it is delivered."""
        for message in self.messages:
            if message.state == "queued" and message.text == text:
                message.state = "delivered"
                return

    @property
    def queued(self) -> int:
        return sum(message.state == "queued" for message in self.messages)

    def redraw(self, want: Callable[..., None], *, finished: bool) -> None:
        """Send a submit whose text never came, clear the box after a send, list the latest
        messages; once ``finished``, disable the row and mark what is still queued."""
        submitted = self._submitted_at
        if submitted is not None and self._clock() - submitted >= SUBMIT_WAIT:
            self.send()
        if self._clear_box:
            self._clear_box = False
            self.box.replace("")
        if finished:
            for message in self.messages:
                if message.state == "queued":
                    message.state = "undelivered"
            want(self.box.current, disabled=True)  # no fresh box from here on: nothing more is sent
            want(self.button, disabled=True)
        else:
            want(self.row, children=(self.box.widget(), self.button))
        lines = [
            f'<div style="font-size:12px">{_STATE_HTML[m.state]} '
            f'<span style="color:#57606a">{escape(fmt.shorten(m.text, 200))}</span></div>'
            for m in self.messages[-SHOWN:]
        ]
        want(self.sent, value="".join(lines))
