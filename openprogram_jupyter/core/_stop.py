"""A run's stop signal: the one way a run is asked to stop, and how long it has to end.

A run stops when any of its events is set: the caller's ``abort=`` event (which the Stop
button, ``RunHandle.abort()`` and a Kernel ▸ Interrupt all set) or, for a nested run, the
cancel flag of the tool call it runs inside. Every one of these the package makes is a
:class:`StopToken`: setting it schedules the cancellation of the run's task on the run's
own event loop at once (``loop.call_soon_threadsafe``), from whichever thread set it, and
sets the ``ToolContext.cancelled`` a running tool watches. The loop also checks the
signal between steps (a step that never awaits cannot be cancelled). Whatever the source,
the run ends the same way: ``stop_reason == "aborted"``.

An ``abort=`` event a caller made as a plain ``threading.Event`` cannot say when it is
set; it alone is checked every 20 ms.

A stopped run has :func:`closing_time` — its tools' ``cancel_grace`` plus
:data:`CLOSING_SECONDS` — to close its open calls and end; whatever waits for it (a
cell, ``Runtime.run`` after Ctrl-C, ``op.evaluate``) waits :func:`waiting_time`, a
little longer, so the run's own deadline passes first.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["CLOSING_SECONDS", "StopSignal", "StopToken", "closing_time", "wait_until_set", "waiting_time"]

CLOSING_SECONDS = 2.0
"""What a stopped run has, beyond its tools' ``cancel_grace``, to close its calls and end."""

_POLL_SECONDS = 0.02  # only for a plain threading.Event a caller passed as abort=


def closing_time(cancel_grace: float) -> float:
    """How long a stopped run has to end: ``cancel_grace`` plus :data:`CLOSING_SECONDS`."""
    return cancel_grace + CLOSING_SECONDS


def waiting_time(cancel_grace: float) -> float:
    """How long to wait for a stopped run before giving up on it: its :func:`closing_time`
    and half of :data:`CLOSING_SECONDS` more."""
    return closing_time(cancel_grace) + CLOSING_SECONDS / 2


class StopToken(threading.Event):
    """A ``threading.Event`` that also calls its listeners, once, the moment it is set."""

    def __init__(self) -> None:
        super().__init__()
        self._listeners: list[Callable[[], None]] = []
        self._guard = threading.Lock()

    def set(self) -> None:
        with self._guard:
            super().set()
            listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener()

    def on_set(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` when this is set (now, if it already is); returns a function
        that forgets it."""
        with self._guard:
            if not self.is_set():
                self._listeners.append(listener)
                return lambda: self._forget(listener)
        listener()
        return lambda: None

    def _forget(self, listener: Callable[[], None]) -> None:
        with self._guard:
            if listener in self._listeners:
                self._listeners.remove(listener)


async def wait_until_set(*events: threading.Event) -> None:
    """Return once any of ``events`` is set: at once for a :class:`StopToken`, within
    20 ms for a plain ``threading.Event``."""
    if any(event.is_set() for event in events):
        return
    loop = asyncio.get_running_loop()
    woken = loop.create_future()

    def settle() -> None:
        if not woken.done():
            woken.set_result(None)

    def wake() -> None:
        try:
            loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the loop closed: nobody waits any more
            pass

    forgets = [event.on_set(wake) for event in events if isinstance(event, StopToken)]
    plain = [event for event in events if not isinstance(event, StopToken)]
    try:
        while not woken.done():
            if plain:
                await asyncio.wait({woken}, timeout=_POLL_SECONDS)
                if any(event.is_set() for event in plain):
                    return
            else:
                await woken
    finally:
        for forget in forgets:
            forget()
        woken.cancel()


class StopSignal:
    """Set when any of ``events`` is set (``None`` entries are ignored)."""

    __slots__ = ("events",)

    def __init__(self, *events: threading.Event | None) -> None:
        self.events = tuple(event for event in events if event is not None)

    def is_set(self) -> bool:
        return any(event.is_set() for event in self.events)

    def raise_if_set(self) -> None:
        """Raise ``CancelledError`` if the run was asked to stop (the loop's checkpoints)."""
        if self.is_set():
            raise asyncio.CancelledError

    async def cancel_when_set(self, task: asyncio.Future[Any]) -> None:
        """Cancel ``task`` once the signal is set; returns when either happened."""
        if not self.events:
            await asyncio.wait({task})
            return
        stopped = asyncio.ensure_future(wait_until_set(*self.events))
        try:
            await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
        if not task.done() and self.is_set():
            task.cancel()
