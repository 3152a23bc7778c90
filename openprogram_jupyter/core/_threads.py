"""Whether this Python can start threads, and starting one with a clear refusal where not.

Pyodide (``sys.platform == "emscripten"``, the Python of JupyterLite) and WASI builds have
no threads: ``threading.Thread.start()`` raises ``RuntimeError: can't start new thread``.
There a tool body runs inline on the event loop (``tools.base.run_in_daemon_thread``), a
run started in the background (``Runtime.start``) is a task on the running loop, and the
sync entry points, which wait for the run on the caller's thread, refuse naming the awaited
ones that work.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from .errors import SetupError

THREADLESS_PLATFORMS = ("emscripten", "wasi")


def threads_available() -> bool:
    """False where ``sys.platform`` is one of :data:`THREADLESS_PLATFORMS`, read at each
    call (so a test can set it); True everywhere else."""
    return sys.platform not in THREADLESS_PLATFORMS


def refuse_without_threads(*, needed_by: str, instead: str) -> None:
    """Raise :class:`SetupError` where :func:`threads_available` is False: "``needed_by``
    needs a worker thread, and this Python (...) cannot start one; use ``instead``"."""
    if not threads_available():
        raise SetupError(
            f"{needed_by} needs a worker thread, and this Python ({sys.platform}: Pyodide, as in JupyterLite, "
            f"or WASI) cannot start one; use {instead}"
        )


def start_daemon_thread(target: Callable[[], None], *, name: str, needed_by: str, instead: str) -> None:
    """Start ``target`` on a daemon thread called ``name``.

    Where :func:`threads_available` is False, raises :class:`SetupError` before anything
    runs: "``needed_by`` needs a worker thread, and this Python (...) cannot start one; use
    ``instead``".
    """
    refuse_without_threads(needed_by=needed_by, instead=instead)
    threading.Thread(target=target, name=name, daemon=True).start()


# Tasks started by start_thread_or_task, held so the loop's weak references keep them alive.
_RUNNING_TASKS: set[asyncio.Task[None]] = set()


def start_thread_or_task(
    target: Callable[[], None],
    coroutine: Callable[[], Coroutine[Any, Any, None]],
    *,
    name: str,
    needed_by: str,
    instead: str,
) -> None:
    """Start ``target`` on a daemon thread called ``name``; where :func:`threads_available`
    is False but an event loop is running in this thread (Pyodide's, in JupyterLite), start
    ``coroutine()`` as a task on that loop instead, in a copy of the caller's context. With
    neither, raises :class:`SetupError` as :func:`start_daemon_thread` does."""
    if threads_available():
        start_daemon_thread(target, name=name, needed_by=needed_by, instead=instead)
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        start_daemon_thread(target, name=name, needed_by=needed_by, instead=instead)  # raises, saying why
        return
    task = loop.create_task(coroutine(), name=name)
    _RUNNING_TASKS.add(task)
    task.add_done_callback(_RUNNING_TASKS.discard)
