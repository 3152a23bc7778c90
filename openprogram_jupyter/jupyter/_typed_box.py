"""A text box whose every submitted text reaches the kernel, even while an awaited cell runs.

While an awaited ``%%agent`` cell runs, the kernel handles widget messages but reports no
``idle`` for them, and ipywidgets' frontend sends a widget's next state update only once
it has heard the ``idle`` for the previous one. So a box delivers its **first** update and
holds the rest back until the cell has ended: a box that synced each keystroke delivered
the first character typed and nothing after it (the browser test types key by key).

:class:`TypedBox` works with that rule instead of against it:

- the box has ``continuous_update=False``: it sends its text once, when the person presses
  Enter or leaves the box (clicking a button leaves it, and the browser sends the text
  before the click);
- once a text has arrived, the next redraw puts a fresh box holding that text in the old
  one's place (:meth:`TypedBox.widget`), and closes the old one; the fresh box has sent
  nothing, so it can deliver the next text. The person loses the focus then, which they
  had already left (or pressed Enter in).

The kernel side never writes the box's ``value`` trait: :meth:`TypedBox.replace` swaps in
a fresh box with the new text, so every change the box observes came from the frontend.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["TypedBox"]


class TypedBox:
    """A ``Text`` or ``Textarea`` (``cls``) whose latest submitted text is :attr:`value`.

    ``make(cls, **traits)`` builds a widget and ``close(widget)`` frees one (the view's);
    ``traits`` are given to every box built (``placeholder``…), and ``layout()``, if given,
    builds each box a layout of its own (closing a box closes its layout). ``on_text``
    is called with each text that arrives, on the thread that received it.
    ``on_box(box)`` is called with each new box, to hook frontend messages (Enter).
    """

    def __init__(
        self,
        make: Callable[..., Any],
        close: Callable[[Any], None],
        cls: object,
        *,
        value: str = "",
        on_text: Callable[[str], None] | None = None,
        on_box: Callable[[Any], None] | None = None,
        layout: Callable[[], Any] | None = None,
        **traits: Any,
    ) -> None:
        self._make = make
        self._close = close
        self._cls = cls
        self._traits = traits
        self._layout = layout
        self._on_text = on_text
        self._on_box = on_box
        self._lock = threading.Lock()
        self.value = value
        self._stale = False  # the box on screen has delivered a text, or shows an old one
        self._retired: list[Any] = []  # replaced boxes, closed once their container has moved on
        self._box = self._new_box(value)

    def _new_box(self, value: str) -> Any:
        layout = {} if self._layout is None else {"layout": self._layout()}
        box = self._make(self._cls, value=value, continuous_update=False, **layout, **self._traits)
        box.observe(self._arrived, names="value")
        if self._on_box is not None:
            self._on_box(box)
        return box

    def _arrived(self, change: dict[str, Any]) -> None:
        """A text from the frontend (the kernel side never sets the box's value)."""
        with self._lock:
            if change["owner"] is not self._box:
                return  # a box already replaced: its text is not what the screen shows
            self.value = str(change["new"] or "")
            self._stale = True
        if self._on_text is not None:
            self._on_text(self.value)

    def replace(self, value: str) -> None:
        """Show ``value`` in the box from the next :meth:`widget` on (a fresh box)."""
        with self._lock:
            self.value = value
            self._stale = True

    def widget(self) -> Any:
        """The box to show now: a fresh one if the current one has delivered a text (or
        must show another). Call it from the view's writer, once a redraw. A replaced box
        is closed at the next call, after the redraw that took it off screen."""
        retired, self._retired = self._retired, []
        for box in retired:
            self._close(box)
        with self._lock:
            if not self._stale:
                return self._box
            self._retired.append(self._box)
            self._box = self._new_box(self.value)
            self._stale = False
        return self._box

    @property
    def current(self) -> Any:
        """The box on screen now, without replacing it."""
        return self._box

    def close(self) -> None:
        for box in [*self._retired, self._box]:
            self._close(box)
        self._retired = []
