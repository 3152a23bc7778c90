"""Handler tables for a closed set of classes: every class handled, or ignored on purpose.

A :class:`KindTable` maps each class of a *registry* (a closed set of classes, by name:
the event types, the kinds of tree node) to the function that handles it. Lookup is by
the value's class, never by a name built from a string, and a value whose class the table
does not cover is an error (:class:`UnhandledKindError`), not a silent drop.
:meth:`KindTable.missing` names the registry's classes a table neither handles nor
ignores, so a test can check every table against its registry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar, Generic, TypeVar

__all__ = ["KindTable", "UnhandledKindError"]

H = TypeVar("H")


class UnhandledKindError(LookupError):
    """A value reached a table that has no entry for its class."""


class KindTable(Generic[H]):
    """Handlers by class for the classes of :attr:`registry` (set by each subclass).

    ``consumer`` names the table's owner in error messages. ``handlers`` maps classes of
    the registry to their handlers; ``ignored`` lists classes of the registry the consumer
    deliberately does nothing with. A class outside the registry, or one both handled and
    ignored, is a :class:`TypeError` when the table is built.
    """

    registry: ClassVar[Mapping[str, type]] = {}
    kind_word: ClassVar[str] = "kind"  # what one class of the registry is called in messages

    def __init__(self, consumer: str, handlers: Mapping[type, H], *, ignored: Iterable[type] = ()) -> None:
        self.consumer = consumer
        self._handlers: dict[type, H] = dict(handlers)
        self._ignored: frozenset[type] = frozenset(ignored)
        known = set(self.registry.values())
        foreign = [cls.__name__ for cls in (*self._handlers, *self._ignored) if cls not in known]
        if foreign:
            raise TypeError(f"{consumer}: not a registered {self.kind_word}: {', '.join(sorted(foreign))}")
        both = [cls.__name__ for cls in self._ignored if cls in self._handlers]
        if both:
            raise TypeError(f"{consumer}: both handled and ignored: {', '.join(sorted(both))}")

    def missing(self) -> list[str]:
        """Names of the registry's classes this table neither handles nor ignores, in order."""
        return [name for name, cls in self.registry.items() if cls not in self._handlers and cls not in self._ignored]

    def handler_for(self, value: object) -> H | None:
        """The handler for ``value``'s class, or ``None`` if the table ignores that class.

        A subclass of a registered class is handled like the class it derives from. Raises
        :class:`UnhandledKindError` when no class of ``value``'s MRO is in the table.
        """
        cls = type(value)
        handler = self._handlers.get(cls)
        if handler is not None:
            return handler
        for base in cls.__mro__:
            if base in self._handlers:
                return self._handlers[base]
            if base in self._ignored:
                return None
        raise UnhandledKindError(
            f"{self.consumer} has no handler for {self.kind_word} {cls.__name__}: "
            "add it to the table, or list it as ignored"
        )
