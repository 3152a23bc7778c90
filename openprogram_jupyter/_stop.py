"""A run's stop signal: the one way a run is asked to stop.

A run stops when any of its events is set: the caller's ``abort=`` event (which the Stop
button, ``RunHandle.abort()`` and a Kernel ▸ Interrupt all set) or, for a nested run, the
cancel flag of the tool call it runs inside. The engine turns a set signal into the
cancellation of the run's task; the loop checks it between steps (a step that never
awaits cannot be cancelled); a running tool sees it as its ``ToolContext.cancelled``.
Whatever the source, the run ends the same way: ``stop_reason == "aborted"``.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

__all__ = ["StopSignal"]

_POLL_SECONDS = 0.02


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
        """Cancel ``task`` once the signal is set (a ``threading.Event`` cannot wake a coroutine:
        it is polled every 20 ms). Returns when the task is done."""
        if not self.events:
            await asyncio.wait({task})
            return
        while not task.done():
            if self.is_set():
                task.cancel()
                return
            await asyncio.sleep(_POLL_SECONDS)
