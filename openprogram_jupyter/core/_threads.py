"""Whether this Python can start threads, and starting one with a clear refusal where not.

Pyodide (``sys.platform == "emscripten"``, the Python of JupyterLite) and WASI builds have
no threads: ``threading.Thread.start()`` raises ``RuntimeError: can't start new thread``.
There a tool body runs inline on the event loop (``tools.base.run_in_daemon_thread``) and
the sync entry points, which run the loop on a worker thread, refuse naming the awaited
ones that work.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

from .errors import SetupError

THREADLESS_PLATFORMS = ("emscripten", "wasi")


def threads_available() -> bool:
    """False where ``sys.platform`` is one of :data:`THREADLESS_PLATFORMS`, read at each
    call (so a test can set it); True everywhere else."""
    return sys.platform not in THREADLESS_PLATFORMS


def start_daemon_thread(target: Callable[[], None], *, name: str, needed_by: str, instead: str) -> None:
    """Start ``target`` on a daemon thread called ``name``.

    Where :func:`threads_available` is False, raises :class:`SetupError` before anything
    runs: "``needed_by`` needs a worker thread, and this Python (...) cannot start one; use
    ``instead``".
    """
    if not threads_available():
        raise SetupError(
            f"{needed_by} needs a worker thread, and this Python ({sys.platform}: Pyodide, as in JupyterLite, "
            f"or WASI) cannot start one; use {instead}"
        )
    threading.Thread(target=target, name=name, daemon=True).start()
