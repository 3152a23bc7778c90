"""Bedrock's reply stream, read on a thread of its own and handed to the event loop.

botocore reads ``converse_stream`` with blocking socket reads, so :class:`StreamPump` runs
it in a daemon thread and puts each event on an asyncio queue; a stop shuts the socket
down (:func:`close_stream`), which wakes the thread from a blocked read at once.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

from ..core._json import JsonObject
from . import _bedrock_body

__all__ = ["StreamPump", "close_stream"]


class StreamPump:
    """Runs ``converse_stream`` in a daemon thread and puts ``("event", dict)``,
    ``("error", exc)`` or ``("end", None)`` on :attr:`queue`. :meth:`stop` shuts the
    socket down, which wakes the thread from a blocked read at once."""

    def __init__(
        self, client: Any, payload: JsonObject, loop: asyncio.AbstractEventLoop, messages: list[bytes]
    ) -> None:
        self.client, self.payload, self.loop, self.messages = client, payload, loop, messages
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._stream: Any = None
        self._stopped = False
        self._lock = threading.Lock()

    def start(self) -> None:
        threading.Thread(target=self._run, name="bedrock-converse-stream", daemon=True).start()

    def _run(self) -> None:
        stream = None
        try:
            _bedrock_body.SENDING.messages = self.messages  # for put_messages, on this thread
            try:
                stream = self.client.converse_stream(**self.payload)["stream"]
            finally:
                _bedrock_body.SENDING.messages = None
            with self._lock:
                self._stream = stream
                if self._stopped:
                    return
            for event in stream:
                if self._stopped:
                    return
                self._emit("event", event)
            self._emit("end", None)
        except Exception as exc:  # handed to the event loop, classified there
            if not self._stopped:
                self._emit("error", exc)
        finally:
            if stream is not None:
                close_stream(stream)

    def _emit(self, kind: str, item: object) -> None:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, (kind, item))
        except RuntimeError:  # the loop has closed: nobody is listening
            self._stopped = True

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            stream = self._stream
        if stream is not None:
            close_stream(stream)


def close_stream(stream: Any) -> None:
    """Shut the event stream's socket down, then close it. A plain close would not wake
    the worker blocked in a read, and the peer would see nothing until data arrived."""
    raw = getattr(stream, "_raw_stream", None)  # urllib3's HTTPResponse
    sock = getattr(getattr(raw, "_connection", None), "sock", None)
    if sock is None:  # http.client hands the socket to the response on `Connection: close`
        reader = getattr(getattr(raw, "_fp", None), "fp", None)
        sock = getattr(getattr(reader, "raw", None), "_sock", None)
    try:
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
        elif raw is not None:
            raw.shutdown()
    except (OSError, ValueError, RuntimeError):
        pass  # already closed or released
    try:
        stream.close()
    except Exception:  # closing an already broken stream
        pass
