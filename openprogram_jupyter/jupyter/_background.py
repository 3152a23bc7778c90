"""``%%agent --background``: start the run, return at once, and keep its view live.

The handle goes into ``-o VAR`` (or ``agent_handle``). A ticker redraws the view — a task
on the kernel's loop, or a thread where there is none — and when the run ends replaces it
with the transcript (:func:`._cell.record`). The Run itself is stored the moment it ends,
from the run's own thread: the ticker may wait behind a blocking cell (one calling
``handle.wait()``, say).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import TYPE_CHECKING

from ..core._threads import threads_available
from ..core.events import AgentEndEvent, Event
from ._cell import TICK_SECONDS, OneRun, Outcome, click_path, failed, hooked_spec, live_for, record, store

if TYPE_CHECKING:
    from ..engine.runtime import RunHandle
    from ._magics import AgentMagics, CellPlan

__all__ = ["start_background"]


def start_background(magics: AgentMagics, plan: CellPlan) -> RunHandle:
    """Start the run and return its handle, which ``-o VAR`` (or ``agent_handle``) holds."""
    variable = plan.options.output or "agent_handle"
    # Without threads (Pyodide) the run is a task of this loop: wait() would block it.
    ends = (
        f"{variable}.wait() returns the Run"
        if threads_available()
        else f"{variable}.run is the Run once {variable}.done"
    )
    plan.notes.append(f"Running in the background: {variable} holds the handle ({ends}, {variable}.abort() stops it).")
    live = live_for(magics, plan, click_path(magics.shell, "background"))
    started: list[RunHandle] = []

    def on_event(event: Event) -> None:
        live.on_event(event)
        if isinstance(event, AgentEndEvent) and event.depth == 0 and started and started[0].run is not None:
            store(magics, plan, started[0].run)

    # No steering hook: the handle's own queue serves it, so the box and h.steer() share it.
    handle = plan.runtime.start(hooked_spec(plan, live, on_event=on_event, get_steering_messages=None))
    started.append(handle)
    if live.view is not None:
        live.view.controls.steer = handle.steer
    magics.namespace[variable] = handle
    live.show()

    def finish() -> None:
        try:
            outcome = Outcome(handle.wait(timeout=1.0))  # it has ended: returns at once, or raises why
        except Exception as error:  # shown to the user in place of a transcript
            outcome = failed(error, handle.run)
        record(magics, [plan], OneRun(live), [outcome], store_output=False)

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is not None:

        async def ticker() -> None:
            while not handle.done:
                await asyncio.sleep(TICK_SECONDS)
                live.tick()
            finish()

        live.ticker = loop.create_task(ticker())
    else:

        def thread_ticker() -> None:
            while not handle.done:
                handle.join(TICK_SECONDS)
                live.tick()
            finish()

        context = contextvars.copy_context()
        threading.Thread(target=context.run, args=(thread_ticker,), name="openprogram-view", daemon=True).start()
    return handle
