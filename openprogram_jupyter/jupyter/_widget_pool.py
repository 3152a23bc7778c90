"""Every widget one live view has open, and the one way traits reach them: :class:`WidgetPool`.

A redraw asks for traits (:meth:`WidgetPool.want`) and then sends each widget only what
changed, one update under ``hold_sync()`` (:meth:`WidgetPool.flush`). Widgets are kept for
what is on screen and reused once it leaves (:class:`._kept_widgets.KeptWidgets`); closing
one closes its layout and style too, each a widget with a comm of its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from ..core._secrets import Secrets
from ._inert_widget import inert_widget
from ._kept_widgets import KeptWidgets

__all__ = ["WidgetPool"]


class WidgetPool:
    """The widgets of one view. ``widgets`` is the ipywidgets module; ``secrets`` what every
    string asked for is masked with (taken again at each redraw: :meth:`refresh_secrets`);
    ``drawn`` what each call-line widget was last drawn from (a card skips a redraw that
    would change nothing); ``created`` how many widgets were ever made."""

    def __init__(self, widgets: Any) -> None:
        self.widgets = widgets
        self.secrets = Secrets.now()
        self.drawn: dict[Any, Any] = {}
        self.created = 0
        self._open: dict[int, Any] = {}  # every widget open now, by id
        self._pending: dict[Any, dict[str, Any]] = {}
        self._kept = KeptWidgets(close=self.close_widget)

    @property
    def count(self) -> int:
        """How many widgets are open now (each also has a layout, and most a style, with
        comms of their own)."""
        return len(self._open)

    def open_widgets(self) -> list[Any]:
        """The widgets open now."""
        return list(self._open.values())

    def make(self, cls: Any, **kwargs: Any) -> Any:
        """A widget of class ``cls`` made by :func:`._inert_widget.inert_widget`, kept
        among the open widgets."""
        widget = inert_widget(cls, **kwargs)
        self._open[id(widget)] = widget
        self.created += 1
        return widget

    def widget_for(self, key: object, build: Callable[[], Any], pool: str | None = None) -> Any:
        """The widget kept for ``key`` (a node, or a tuple naming a part of one) while it is
        on screen: built by ``build``, or a spare from ``pool`` (see :class:`KeptWidgets`)."""
        key = ("node", id(key)) if not isinstance(key, tuple) else key
        return self._kept.get(key, build, pool)

    def refresh_secrets(self) -> None:
        """Take the known secrets again (a key set since the last redraw is masked too)."""
        self.secrets = Secrets.now()

    def want(self, widget: object, **traits: Any) -> None:
        """Ask for ``traits`` on ``widget`` at the next flush; a string has every known
        secret masked (the record's are already: this catches the prompt and arguments)."""
        wanted = self._pending.setdefault(widget, {})
        wanted.update({k: self.secrets.mask_values(v) if isinstance(v, str) else v for k, v in traits.items()})

    def flush(self) -> None:
        """Send each widget the traits asked for that differ from what it has, once; then
        close the kept widgets no longer on screen (after the flush, so a widget closed
        now has already left its container)."""
        pending, self._pending = self._pending, {}
        for widget, traits in pending.items():
            changed = {k: v for k, v in traits.items() if getattr(widget, k) != v}
            if not changed:
                continue
            if len(changed) == 1:
                key, value = next(iter(changed.items()))
                setattr(widget, key, value)
                continue
            with widget.hold_sync():
                for key, value in changed.items():
                    setattr(widget, key, value)
        self._kept.release_unused()

    def close_widget(self, widget: Any) -> None:
        """Close a widget this pool made, with its layout and style (widgets of their own,
        with their own comms); a group of widgets (a dict) is closed part by part, and an
        object that owns widgets (``close_widgets()``) closes its own."""
        close_widgets = getattr(widget, "close_widgets", None)
        if close_widgets is not None:
            close_widgets()
            return
        if isinstance(widget, dict):
            for part in widget.values():
                if id(part) in self._open:
                    self.close_widget(part)
            return
        self._open.pop(id(widget), None)
        self.drawn.pop(widget, None)
        for part in (getattr(widget, "layout", None), getattr(widget, "style", None), widget):
            if part is None or not hasattr(part, "close"):
                continue
            with contextlib.suppress(Exception):  # a widget whose comm is gone is closed enough
                part.close()

    def close_all(self) -> None:
        """Close every widget open now."""
        for widget in list(self._open.values()):
            self.close_widget(widget)
        self._open.clear()
        self._kept.clear()
        self.drawn.clear()
