"""What a tool writes while it runs — ``print()``, stderr, ``display()``, figures — caught
for its call's card instead of landing in the cell after the transcript.

Tools run on worker threads (or as tasks), and ipykernel 7 routes a thread's output by
the parent header kept in a contextvar. Rather than depend on that routing, capture is
routed deliberately by a contextvar of our own, :data:`_CURRENT`, set for exactly one
call's body (the worker thread runs in a copy of the context taken then, an async body's
task too):

- ``sys.stdout`` / ``sys.stderr`` are wrapped, while any capture is open, in a router that
  hands a write to the capture of the context it happens in, and any other write to the
  stream it wrapped — other cells, other threads and the kernel keep their output;
- the shell's display publisher (IPython or ipykernel) is wrapped the same way, so
  ``display(...)`` and a figure shown with ``plt.show()`` under the inline backend become
  outputs of the call;
- a matplotlib figure the body opened and left open is drawn as PNG when the body ends
  (on a worker thread: a large one takes seconds, which Stop must not wait for), and
  closed (the inline backend would otherwise show it after the transcript).

:class:`OutputCapture` keeps the outputs in order (``items``: ``{"type": "stream", "name":
"stdout" | "stderr", "text"}`` and ``{"type": "display", "data": {mime: value}}``), and
hands each new piece to ``on_output`` — stream text coalesced to at most one piece per
:data:`LIVE_INTERVAL` seconds — for the live view.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import io
import math
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ..core._json import JsonObject
from ..tools.base import run_in_daemon_thread

__all__ = ["DISPLAY_MIMES", "LIVE_INTERVAL", "MAX_STREAM_CHARS", "OutputCapture", "capturing"]

DISPLAY_MIMES = ("image/png", "image/jpeg", "image/gif", "text/html", "text/markdown", "text/plain")
"""The parts of a ``display()`` bundle kept (the views draw the first they can)."""

MAX_STREAM_CHARS = 200_000
"""Stream text past this many characters is dropped, with a line saying how much."""

LIVE_INTERVAL = 0.1

_NOT_DRAWN = "[the figures this call left open were not drawn: the run was stopped]\n"

_CURRENT: contextvars.ContextVar[OutputCapture | None] = contextvars.ContextVar("openprogram_tool_output", default=None)


class OutputCapture:
    """The outputs of one call's body, in order; safe to write from any thread."""

    def __init__(self, on_output: Callable[[JsonObject], None] | None = None) -> None:
        self.items: list[JsonObject] = []
        self._on_output = on_output
        self._lock = threading.Lock()
        self._pending: JsonObject | None = None  # stream text not yet handed on
        self._last_sent = -math.inf  # never: monotonic time may start near 0 on a machine just booted
        self._stream_chars = 0
        self._dropped = 0

    @property
    def text(self) -> str:
        """Everything written to stdout and stderr, in order (what a ``None``-returning tool
        may hand the model)."""
        return "".join(item["text"] for item in self.items if item["type"] == "stream")

    def stream(self, name: str, text: str) -> None:
        if not text:
            return
        with self._lock:
            room = MAX_STREAM_CHARS - self._stream_chars
            if room <= 0:
                self._dropped += len(text)
                return
            text, self._dropped = text[:room], self._dropped + max(0, len(text) - room)
            self._stream_chars += len(text)
            last = self.items[-1] if self.items else None
            if last is not None and last["type"] == "stream" and last["name"] == name:
                last["text"] += text
            else:
                self.items.append({"type": "stream", "name": name, "text": text})
            self._queue({"type": "stream", "name": name, "text": text})

    def display(self, data: JsonObject) -> None:
        """Keep the :data:`DISPLAY_MIMES` of a ``display()`` bundle (image bytes as base64)."""
        kept = {}
        for mime in DISPLAY_MIMES:
            value = data.get(mime)
            if isinstance(value, (bytes, bytearray)) and mime.startswith("image/"):
                value = base64.b64encode(bytes(value)).decode("ascii")
            if isinstance(value, str):
                kept[mime] = value
        if not kept:
            return
        with self._lock:
            self.items.append({"type": "display", "data": kept})
            self._flush_pending()
            self._send({"type": "display", "data": kept})

    def close(self) -> None:
        """Hand on what is still pending, and say how much stream text was dropped."""
        with self._lock:
            if self._dropped:
                note = f"\n[... {self._dropped:,} more characters of output not kept ...]\n"
                self.items.append({"type": "stream", "name": "stderr", "text": note})
                self._queue({"type": "stream", "name": "stderr", "text": note})
            self._flush_pending()

    def _queue(self, piece: JsonObject) -> None:
        pending = self._pending
        if pending is not None and pending["name"] == piece["name"]:
            pending["text"] += piece["text"]
        else:
            self._flush_pending()
            self._pending = dict(piece)
        if time.monotonic() - self._last_sent >= LIVE_INTERVAL:
            self._flush_pending()

    def _flush_pending(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            self._send(pending)

    def _send(self, piece: JsonObject) -> None:
        self._last_sent = time.monotonic()
        if self._on_output is not None:
            self._on_output(piece)


class capturing:
    """One call's capture. ``__enter__`` puts the routers in place and makes ``capture`` the
    capture of this context: outputs written in it (and in the worker thread or task
    started inside it) go to ``capture``. :meth:`reset_context` (or ``__exit__``) leaves
    the context without ending the capture; :meth:`finish_off_loop` (the body ended) or
    :meth:`abandon` (the run was stopped) ends it: the figures the body left open drawn or
    closed, what is pending handed on, and the routers taken out when no capture is open
    any more."""

    def __init__(self, capture: OutputCapture) -> None:
        self.capture = capture
        self._token: contextvars.Token[OutputCapture | None] | None = None
        self._figures_before: set[int] = set()

    def __enter__(self) -> OutputCapture:
        _ROUTING.open()
        self._figures_before = set(_open_figures())
        self._token = _CURRENT.set(self.capture)
        return self.capture

    def reset_context(self) -> None:
        """Leave the capture's context (the body keeps its own copy) without closing it."""
        if self._token is not None:
            _CURRENT.reset(self._token)
            self._token = None

    async def finish_off_loop(self) -> None:
        """The body has ended: the figures it left open are drawn as PNG into the capture and
        closed — on a worker thread, as drawing a large figure takes seconds, which the
        run's event loop (and Stop) must not wait for — what is pending is handed on, and
        the routing stops.

        Cancelled (the run was stopped), it ends at once: the worker draws no further
        figure and closes the rest undrawn, none of its drawings is added, and the capture
        says on stderr that the figures were not drawn.

        A body that left no new figure open (matplotlib not imported, or every figure it
        opened closed) ends here on the loop, without the worker thread: the hop would cost
        two thread wake-ups, about 0.2 ms on a virtual machine, in every call of a run."""
        if set(_open_figures()) <= self._figures_before:
            self._close()
            return
        drawn = OutputCapture()
        gave_up = threading.Event()
        try:
            await run_in_daemon_thread(
                _add_open_figures,
                {"capture": drawn, "before": self._figures_before, "gave_up": gave_up},
                name="figures",
            )
        except asyncio.CancelledError:
            gave_up.set()
            self.capture.stream("stderr", _NOT_DRAWN)
            raise
        else:
            for item in drawn.items:
                if item["type"] == "display":
                    self.capture.display(item["data"])
                else:
                    self.capture.stream(item["name"], item["text"])
        finally:
            self._close()

    def abandon(self) -> None:
        """The run was stopped: close the figures the body left open undrawn (saying so on
        stderr), hand on what is pending, stop routing."""
        try:
            if _close_open_figures(self._figures_before):
                self.capture.stream("stderr", _NOT_DRAWN)
        finally:
            self._close()

    def _close(self) -> None:
        try:
            self.capture.close()
        finally:
            _ROUTING.close()

    def __exit__(self, *exc: Any) -> None:
        self.reset_context()


class _StreamRouter:
    """Stands in for ``sys.stdout`` / ``sys.stderr``: a write goes to the capture of the
    context it is made in, or else to the stream this router wraps."""

    def __init__(self, wrapped: Any, name: str) -> None:
        self._wrapped = wrapped
        self._name = name

    def write(self, text: str) -> int:
        capture = _CURRENT.get()
        if capture is None:
            return self._wrapped.write(text)
        capture.stream(self._name, str(text))
        return len(text)

    def flush(self) -> None:
        if _CURRENT.get() is None:
            self._wrapped.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._wrapped, name)


class _Routing:
    """Puts the routers in place while at least one capture is open (counted)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = 0
        self._saved: dict[str, Any] = {}

    def open(self) -> None:
        with self._lock:
            self._open += 1
            if self._open == 1:
                self._install()

    def close(self) -> None:
        with self._lock:
            self._open = max(0, self._open - 1)
            if self._open == 0:
                self._uninstall()

    def _install(self) -> None:
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if not isinstance(stream, _StreamRouter):
                self._saved[name] = stream
                setattr(sys, name, _StreamRouter(stream, name))
        publisher = _display_publisher()
        if publisher is not None and "publish" not in vars(publisher):
            original = publisher.publish

            def publish(data: Any, *args: object, **kwargs: object) -> Any:
                capture = _CURRENT.get()
                if capture is None or kwargs.get("update"):
                    return original(data, *args, **kwargs)
                capture.display(dict(data or {}))
                return None

            publisher.publish = publish
            self._saved["publisher"] = publisher

    def _uninstall(self) -> None:
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if name in self._saved and isinstance(stream, _StreamRouter):
                setattr(sys, name, self._saved.pop(name))  # someone else's replacement is left alone
            self._saved.pop(name, None)
        publisher = self._saved.pop("publisher", None)
        if publisher is not None:
            vars(publisher).pop("publish", None)


_ROUTING = _Routing()


def _display_publisher() -> Any:
    """The running IPython shell's display publisher, or ``None`` outside IPython."""
    shell_module = sys.modules.get("IPython.core.interactiveshell")
    if shell_module is None or not shell_module.InteractiveShell.initialized():
        return None
    return getattr(shell_module.InteractiveShell.instance(), "display_pub", None)


def _open_figures() -> list[int]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    return list(pyplot.get_fignums()) if pyplot is not None else []


def _add_open_figures(capture: OutputCapture, before: set[int], gave_up: threading.Event | None = None) -> None:
    """Each figure opened since ``before`` and still open: drawn as PNG into ``capture``,
    closed. Once ``gave_up`` is set, the figures not yet drawn are closed undrawn."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    for number in [n for n in pyplot.get_fignums() if n not in before]:
        if gave_up is not None and gave_up.is_set():
            _close_open_figures(before)
            return
        figure = pyplot.figure(number)
        buffer = io.BytesIO()
        try:
            figure.savefig(buffer, format="png", bbox_inches="tight")
        except Exception as error:  # a figure that cannot draw is said so, not lost silently
            capture.stream("stderr", f"[figure {number} could not be drawn: {type(error).__name__}: {error}]\n")
        else:
            capture.display(
                {"image/png": base64.b64encode(buffer.getvalue()).decode("ascii"), "text/plain": f"<Figure {number}>"}
            )
        finally:
            pyplot.close(figure)


def _close_open_figures(before: set[int]) -> int:
    """Close each figure opened since ``before`` and still open, undrawn; how many."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return 0
    numbers = [n for n in pyplot.get_fignums() if n not in before]
    for number in numbers:
        pyplot.close(number)
    return len(numbers)
