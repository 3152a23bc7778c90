"""The cards listening to a serving cell's state: called on each change, never failing it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["CardListeners"]


class CardListeners:
    """The listeners of one source of changes (:meth:`add`), each called by :meth:`notify`
    with its arguments; a listener that raises (a card that cannot be drawn) is skipped, so
    the change — a served call, a waiting question — goes on."""

    def __init__(self) -> None:
        self._listeners: list[Callable[..., None]] = []

    def add(self, listener: Callable[..., None]) -> None:
        self._listeners.append(listener)

    def notify(self, *args: Any) -> None:
        for listener in list(self._listeners):
            try:
                listener(*args)
            except Exception:  # a card that cannot be drawn must not fail the call
                pass
