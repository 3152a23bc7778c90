"""An evaluation's progress: a bar in a notebook, or a callable the caller gave.

The bar is plain HTML (``<progress>``) in one display, under a first line saying what
the evaluation will do (its plan: runs, requests, a floor of the cost), updated in place
at most five times a second and left showing the final count — no widget, so a saved
notebook keeps it. Outside a kernel (terminal IPython, scripts) nothing is shown, and the
plan is not worked out.
"""

from __future__ import annotations

import html
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from ...render._safe import display_bundle, update_bundle

__all__ = ["Progress"]

_MIN_SECONDS_BETWEEN_UPDATES = 0.2


class Progress:
    """Counts finished runs (:meth:`count`, any thread) and shows them (:meth:`tick`,
    :meth:`close`, the waiting thread). ``show``: ``True`` for the notebook bar, ``False``
    for nothing, or a callable called with ``(done, total)`` after each run. ``plan``:
    the bar's first line, made only when the bar is shown (a callable that returns it)."""

    def __init__(self, total: int, show: bool | Callable[[int, int], None], plan: Callable[[], object] = str) -> None:
        self.total = total
        self.plan = ""
        self.done = 0
        self.failed = 0
        self._lock = threading.Lock()
        self._callback = show if callable(show) else None
        self._handle: Any = None
        if show is True and _in_a_kernel():
            self.plan = str(plan())
            self._handle = display_bundle({"text/html": self._html(), "text/plain": self._text()}, display_id=True)
        self._shown = (-1, -1)
        self._last = -math.inf  # never: monotonic time may start near 0 on a machine just booted

    def count(self, outcome: Any) -> None:
        with self._lock:
            self.done += 1
            run = outcome.run
            if outcome.error or outcome.timed_out or (run is not None and run.stop_reason == "error"):
                self.failed += 1
            done = self.done
        if self._callback is not None:
            self._callback(done, self.total)

    def tick(self, *, force: bool = False) -> None:
        if self._handle is None or (self.done, self.failed) == self._shown:
            return
        now = time.monotonic()
        if force or now - self._last >= _MIN_SECONDS_BETWEEN_UPDATES:
            self._last = now
            self._shown = (self.done, self.failed)
            update_bundle(self._handle, {"text/html": self._html(), "text/plain": self._text()})

    def close(self) -> None:
        self.tick(force=True)

    def _text(self) -> str:
        errors = f", {self.failed} ended in an error" if self.failed else ""
        counted = f"{self.done}/{self.total} runs{errors}"
        return f"{self.plan}\n{counted}" if self.plan else counted

    def _html(self) -> str:
        errors = f", {self.failed} ended in an error" if self.failed else ""
        heading = f"<div>{html.escape(self.plan)}</div>" if self.plan else ""
        return (
            f'<div>{heading}<progress value="{self.done}" max="{self.total}" style="width:240px"></progress> '
            f"{self.done}/{self.total} runs{errors}</div>"
        )


def _in_a_kernel() -> bool:
    """Whether this runs in a kernel, where a display can be updated in place."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
