"""The SDK clients a provider model makes, one per event loop, and when each is closed.

An SDK client and its connection pool belong to the event loop they were made on. Each is
closed exactly once, on that loop, at the first of:

- the loop's shutdown (``asyncio.run``, and the package's own run loops, close a loop's
  async generators before closing it, and one of them is each client's closer);
- the models that use it being collected while the loop still runs (a notebook rebinding
  ``runtime`` to a new ``Runtime``): the close is started on the loop, from whatever
  thread collected them.

Until it is closed a client is held here, never only by its model: a model in a reference
cycle is collected by the cycle collector, which finalizes every object of the cycle in
no set order, and a client collected beside it unclosed would complain on stderr
(aiohttp's "Unclosed client session") before its closer ran.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import AsyncGenerator, Callable
from typing import Any

__all__ = ["LoopClients", "SharedClient"]

_lock = threading.Lock()
_open: set[_OpenClient] = set()  # every client not yet closed


class LoopClients:
    """A model's SDK clients, one per event loop, made by ``make`` on first use; shared by
    the model's twins (``ProviderModel.for_another_run``), which keep it alive."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _OpenClient] = weakref.WeakKeyDictionary()

    def __len__(self) -> int:
        return len(self._by_loop)

    def for_running_loop(self) -> Any:
        """The client of the running loop, made now if there is none; closed when the loop
        shuts down or this object (every model using it) is collected, whichever comes
        first."""
        loop = asyncio.get_running_loop()
        entry = self._by_loop.get(loop)
        if entry is None:
            entry = self._by_loop[loop] = _OpenClient(self._make(), loop, self._by_loop)
            entry.finalizer = weakref.finalize(self, entry.close_soon)
            entry.finalizer.atexit = False  # at exit the run loops close their clients
        return entry.client


class SharedClient:
    """One client for every loop and thread, made by ``make`` on first use: for an SDK whose
    clients are thread-safe and belong to no event loop (boto3's). Shared by the model's
    twins (``ProviderModel.for_another_run`` copies the reference), so twins made before the
    first round still make one client between them."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._client: Any = None

    def get(self) -> Any:
        """The client, made now if it is not yet."""
        with self._lock:
            if self._client is None:
                self._client = self._make()
            return self._client


class _OpenClient:
    """A client, the loop it belongs to, and its one close."""

    def __init__(
        self,
        client: Any,
        loop: asyncio.AbstractEventLoop,
        registry: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _OpenClient],
    ) -> None:
        self.client = client
        self._loop = weakref.ref(loop)
        self._registry = weakref.ref(registry)
        self._closing: asyncio.Task[None] | None = None
        self.finalizer: weakref.finalize[[], LoopClients] | None = None  # close_soon, when the models go
        self._closer = self._close_at_shutdown()
        with _lock:
            _open.add(self)
        # Runs the closer to its `yield` in one step, after which the loop tracks it and
        # closes it at shutdown; the finished task needs no reference.
        loop.create_task(self._closer.__anext__())

    async def _close_at_shutdown(self) -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            await self.close()

    async def close(self) -> None:
        """Close the client, once: a second call waits for the first's close. Run on the
        client's own loop."""
        if self._closing is None or self._closing.cancelled():
            self._closing = asyncio.get_running_loop().create_task(self._close())
        await asyncio.shield(self._closing)

    def close_soon(self) -> None:
        """Start :meth:`close` on the client's loop, from any thread; nothing if the loop is
        closed (its shutdown closed the client)."""
        loop = self._loop()
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._start_close, loop)
        except RuntimeError:  # the loop closed meanwhile
            pass

    def _start_close(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.create_task(self.close())

    async def _close(self) -> None:
        registry = self._registry()
        loop = self._loop()
        if registry is not None and loop is not None:
            registry.pop(loop, None)
        close = getattr(self.client, "aclose", None) or getattr(self.client, "close", None)
        try:
            result = close() if close is not None else None
            if asyncio.iscoroutine(result):
                await result
        except asyncio.CancelledError:  # a run's end tidying its loop: still held, closed at shutdown
            raise
        except Exception:  # best effort: the client is dropped either way
            pass
        with _lock:
            _open.discard(self)
        if self.finalizer is not None:
            self.finalizer.detach()
