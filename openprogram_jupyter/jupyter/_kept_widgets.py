"""The widgets a live view keeps for the nodes on screen, from one redraw to the next.

A redraw asks for the widget of each node it draws (:meth:`KeptWidgets.get`); the same
key gets the same widget every time, so a frontend keeps its view (and what the user
opened in it). :meth:`KeptWidgets.release_unused` ends a redraw: a widget nobody asked
for has left the screen and goes to its pool's spares, to be the widget of the next node
that needs one, or is closed if it belongs to no pool. So a view holds the widgets on
screen plus a few spares, however many nodes its run has had.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["KeptWidgets"]


class KeptWidgets:
    """Widgets (or groups of widgets) by key; ``close(widget)`` frees one that has no pool."""

    def __init__(self, close: Callable[[Any], None]) -> None:
        self._close = close
        self._kept: dict[Hashable, tuple[Any, str | None]] = {}
        self._asked: set[Hashable] = set()
        self._spares: defaultdict[str, list[Any]] = defaultdict(list)

    def get(self, key: Hashable, build: Callable[[], Any], pool: str | None = None) -> Any:
        """The widget kept for ``key``; a new key gets a spare from ``pool`` if there is
        one (every widget of a pool must be built alike), else ``build()``."""
        self._asked.add(key)
        kept = self._kept.get(key)
        if kept is not None:
            return kept[0]
        spares = self._spares[pool] if pool is not None else None
        widget = spares.pop() if spares else build()
        self._kept[key] = (widget, pool)
        return widget

    def release_unused(self) -> None:
        """Release every widget not asked for since the last call: to its pool, or closed."""
        for key in [key for key in self._kept if key not in self._asked]:
            widget, pool = self._kept.pop(key)
            if pool is not None:
                self._spares[pool].append(widget)
            else:
                self._close(widget)
        self._asked = set()

    def __len__(self) -> int:
        """How many widgets are kept for keys (spares not counted)."""
        return len(self._kept)

    def clear(self) -> None:
        self._kept.clear()
        self._asked.clear()
        self._spares.clear()
