"""The event loop an executor's evaluation jobs share in the process that runs them.

An executor (a Dask worker, a process pool) calls :func:`~._jobs.run_job` once per job, on
threads of its own. On a loop of its own each job would build its own SDK client (the TLS
certificates alone take about 20 ms of CPU) and open its own connections. Instead every job
of the process goes on one loop, on a daemon thread started with the first job, where the
jobs of one model share that model's client (:func:`shared_model`) as the runs of an
evaluation in one process do. The loop is closed, with the clients made on it, at
interpreter exit.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections import OrderedDict
from collections.abc import Callable

from ...core._threads import start_daemon_thread
from ...engine._run_loops import close_abandoning

__all__ = ["close_job_loop", "job_loop", "shared_model"]

MODELS_KEPT = 16
"""How many models (by key) a process keeps for the jobs still to come: the models of the
last few evaluations it ran jobs of."""

_lock = threading.Lock()
_running: tuple[asyncio.AbstractEventLoop, threading.Event] | None = None  # the loop, and "it is closed"
_models: OrderedDict[str, object] = OrderedDict()


def job_loop() -> asyncio.AbstractEventLoop:
    """This process's loop for evaluation jobs, running on its own daemon thread (started
    now if there is none, or the last one was closed or its thread has ended)."""
    global _running
    with _lock:
        if _running is None or _running[1].is_set():
            loop, started, closed = asyncio.new_event_loop(), threading.Event(), threading.Event()
            start_daemon_thread(
                lambda: _serve(loop, started, closed),
                name="openprogram-evaluation-jobs",
                needed_by="an evaluation job on an executor",
                instead="op.evaluate without executor=",
            )
            started.wait()
            _running = (loop, closed)
        return _running[0]


def shared_model(key: str, make: Callable[[], object]) -> object:
    """The model this process keeps for ``key``, made by ``make()`` for the first job of
    ``key`` to come here; the :data:`MODELS_KEPT` most recently used are kept."""
    with _lock:
        if key in _models:
            _models.move_to_end(key)
            return _models[key]
    model = make()
    with _lock:
        model = _models.setdefault(key, model)  # a job of the same key may have made one meanwhile
        _models.move_to_end(key)
        while len(_models) > MODELS_KEPT:
            _models.popitem(last=False)
        return model


def _serve(loop: asyncio.AbstractEventLoop, started: threading.Event, closed: threading.Event) -> None:
    asyncio.set_event_loop(loop)
    loop.call_soon(started.set)
    try:
        loop.run_forever()
    finally:
        close_abandoning(loop, grace=1.0)
        closed.set()


@atexit.register
def close_job_loop(timeout: float = 2.0) -> bool:
    """Stop this process's job loop, if there is one (the next job starts another), and
    wait up to ``timeout`` seconds for its thread to close it and the SDK clients made on
    it; whether it was closed in time (True when there was none). Called at interpreter
    exit, while the daemon thread can still run."""
    global _running
    with _lock:
        running, _running = _running, None
    if running is None or running[1].is_set():  # none, or its thread has already closed it
        return True
    loop, closed = running
    loop.call_soon_threadsafe(loop.stop)
    return closed.wait(timeout)
