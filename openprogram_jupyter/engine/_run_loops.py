"""The event loops blocking runs go on: each on a thread of its own, kept for the next run.

``Runtime.start`` (and so ``run`` and ``exec``) runs a run on a worker thread with an event
loop of its own. A provider model's SDK client and its connection pool belong to one event
loop, so a loop made for each run made a client for each run and opened a new connection
for its first request (a TLS handshake, against a real API). Here a loop outlives its run:
its thread waits :data:`IDLE_SECONDS` for another run and runs it on the same loop, where
the model's client and its open connection are still there.

A loop runs one run at a time, so an ``async def`` tool that blocks holds up no other run.
A thread is offered for the next run as its run ends (before the run's waiters hear of
it, so a run started once one has ended finds it); then what the run left on its loop is
cancelled and given the run's grace to end. A loop where something still refuses to end
(a tool body deaf to cancellation) is closed as an abandoned run's loop always was, never
reused: a run handed to its thread meanwhile goes on a new loop. An idle loop is closed, with the SDK
clients made on it, when its thread gives up waiting, or when the interpreter exits (an
SDK client left open then would complain on stderr as it is collected: aiohttp's
"Unclosed client session").
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import time
from collections.abc import Callable

from ..core._threads import start_daemon_thread

__all__ = ["IDLE_SECONDS", "close_abandoning", "close_idle_loops", "start_on_a_run_loop"]

IDLE_SECONDS = 30.0
"""How long a loop's thread waits for another run before closing the loop and ending."""

RunOnLoop = Callable[[asyncio.AbstractEventLoop, Callable[[], None]], None]
"""Runs one run to its end on the loop it is given (``loop.run_until_complete``), calling
the function it is given as the run ends, before it tells its waiters (``ending``)."""


class _LoopThread:
    """One loop's thread: the run it is handed next, and that run's grace."""

    def __init__(self, job: RunOnLoop, grace: float) -> None:
        self.job: RunOnLoop | None = job
        self.grace = grace
        self.handed = threading.Event()
        self.offered = False  # on the _available list, for the run that is ending
        self.ended = threading.Event()  # its last loop closed, the thread about to end

    def hand(self, job: RunOnLoop | None, grace: float) -> None:
        """Give the thread its next run, or (``None``) tell it to close its loop and end."""
        self.job, self.grace = job, grace
        self.handed.set()


_lock = threading.Lock()  # guards _available and each thread's ``offered``
_available: list[_LoopThread] = []  # idle, or ending a run


def start_on_a_run_loop(job: RunOnLoop, *, grace: float, needed_by: str, instead: str) -> None:
    """Run ``job`` on an available run loop's thread (idle, or ending a run: ``job`` then
    starts once what that run left on the loop has ended, on a new loop if some of it would
    not within the grace), or on a new thread with a new loop; return at once. ``grace``:
    how long what the run leaves behind is given to end once cancelled. Where this Python
    cannot start threads, raises the :class:`SetupError` of :func:`start_daemon_thread`
    (``needed_by``, ``instead``)."""
    with _lock:  # handed under the lock: a thread taken here is never offered again before it runs ``job``
        thread = _available.pop() if _available else None
        if thread is not None:
            thread.offered = False
            thread.hand(job, grace)
    if thread is None:
        start_daemon_thread(
            lambda: _serve(_LoopThread(job, grace)), name="openprogram-run", needed_by=needed_by, instead=instead
        )


def _serve(thread: _LoopThread) -> None:
    """Run the runs handed to ``thread``, on one loop while every run leaves it clean; a
    loop a run left a task on that would not end is closed, and a run already handed to
    the thread goes on a new one."""
    try:
        while thread.job is not None:
            loop = asyncio.new_event_loop()
            abandoned = False
            try:
                abandoned = _serve_on(thread, loop)
            finally:
                close_abandoning(loop, grace=0.0 if abandoned else thread.grace)
    finally:
        thread.ended.set()


def _serve_on(thread: _LoopThread, loop: asyncio.AbstractEventLoop) -> bool:
    """Run ``thread``'s runs on ``loop`` until none comes or one leaves a task that will
    not end; whether that is why it returned (the run handed next, if any, in ``thread.job``)."""
    while thread.job is not None:
        job, thread.job = thread.job, None
        job(loop, lambda: _offer(thread))
        if not _tidied(loop, grace=thread.grace):
            thread.job = _handed_despite(thread)
            return True
        _offer(thread)  # if the run never said it ended
        thread.job = _next_job(thread)
    return False


def _handed_despite(thread: _LoopThread) -> RunOnLoop | None:
    """Offer ``thread`` no more; the run already handed to it, if any (it was offered as its
    last run ended, and taken)."""
    with _lock:
        if thread.offered:
            thread.offered = False
            _available.remove(thread)
            return None
        if not thread.handed.is_set():
            return None
    thread.handed.clear()
    return thread.job


def _offer(thread: _LoopThread) -> None:
    with _lock:
        if not thread.offered and thread.job is None and not thread.handed.is_set():
            thread.offered = True
            _available.append(thread)


def _next_job(thread: _LoopThread) -> RunOnLoop | None:
    """The run handed to ``thread`` (offered), or ``None`` when none came within
    :data:`IDLE_SECONDS` (then it is offered no more)."""
    if not thread.handed.wait(IDLE_SECONDS):
        with _lock:
            if thread.offered:
                thread.offered = False
                _available.remove(thread)
                return None
        thread.handed.wait()  # taken just as the wait ran out: the run is on its way
    thread.handed.clear()
    return thread.job


@atexit.register
def close_idle_loops(timeout: float = 2.0) -> int:
    """Close every idle run loop (and so the SDK clients made on it), waiting up to
    ``timeout`` seconds in all for their threads; how many were closed in time. A loop
    running a run is left to it. Called at interpreter exit, while the loops' daemon
    threads can still run."""
    with _lock:
        idle, _available[:] = list(_available), []
        for thread in idle:
            thread.offered = False
            thread.hand(None, thread.grace)
    deadline = time.monotonic() + timeout
    return sum(thread.ended.wait(max(0.0, deadline - time.monotonic())) for thread in idle)


def _tidied(loop: asyncio.AbstractEventLoop, *, grace: float) -> bool:
    """Cancel the tasks a finished run left on ``loop`` and give them ``grace`` seconds;
    whether every one ended (the loop may take another run)."""
    leftover = asyncio.all_tasks(loop)
    for task in leftover:
        task.cancel()
    if leftover:
        loop.run_until_complete(asyncio.wait(leftover, timeout=grace))
    return all(task.done() for task in leftover)


def close_abandoning(loop: asyncio.AbstractEventLoop, *, grace: float) -> None:
    """Close a run loop: cancel what is left (abandoned tool bodies), give it ``grace``
    seconds, then close; a task that still refuses to end is dropped."""
    leftover = asyncio.all_tasks(loop)
    for task in leftover:
        task.cancel()
    if leftover:
        loop.run_until_complete(asyncio.wait(leftover, timeout=grace))
    for task in leftover:
        if not task.done():
            task._log_destroy_pending = False  # type: ignore[attr-defined]  # noqa: SLF001 - abandoned on purpose
    try:
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        loop.close()
