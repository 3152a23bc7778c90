"""``run.show()`` and ``%agent show``: a live view of a Run (or a running handle) again."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING

from IPython import get_ipython

from ..core.errors import SetupError
from ..render import render_bundle
from ..render._safe import display_bundle
from ._saved_runs import saved_data_of
from ._view import Controls, RunView

if TYPE_CHECKING:
    from ..engine.run import Run
    from ..engine.runtime import RunHandle

__all__ = ["show_run"]


def show_run(shown: Run | RunHandle) -> None:
    """Display a live view of ``run`` (a ``Run`` or a ``RunHandle``).

    A finished run is drawn as its static transcript only, as a finished cell is: a widget
    view of it would be lost when the notebook is saved and opened again; a run a
    ``%%agent`` cell made carries the data that cell saved with it
    (:func:`._saved_runs.saved_data_of`), so ``%agent restore`` finds it here too. A run still going
    on (a background handle) is followed by a live view until it ends, its new events
    polled ten times a second. Outside a widget frontend the static transcript is displayed.
    """
    from ..engine.run import Run
    from ..engine.runtime import RunHandle

    handle = shown if isinstance(shown, RunHandle) else None
    run = shown.run if isinstance(shown, RunHandle) else shown
    if handle is not None and run is None:
        raise SetupError("this run has not started yet; show it again in a moment")
    if not isinstance(run, Run):
        raise SetupError(f"show_run needs a Run or a RunHandle, not {type(shown).__name__}")
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None or run.stop_reason is not None:
        saved = saved_data_of(run)
        display_bundle(render_bundle(run), **({"metadata": saved} if saved is not None else {}))
        return
    controls = Controls(
        stop=handle.abort if handle is not None else None, steer=handle.steer if handle is not None else None
    )
    view = RunView(controls)
    for event in list(run.events):
        view.feed(event)
    display_bundle(view.mimebundle())
    _follow(run, view)


def _follow(run: Run, view: RunView) -> None:
    """Feed a running Run's new events to ``view`` until it ends, from a ticker task."""
    seen = len(run.events)

    async def ticker() -> None:
        nonlocal seen
        while True:
            events = run.events
            for event in events[seen:]:
                view.feed(event)
            seen = len(events)
            view.tick()
            if run.stop_reason is not None:
                view.finish()
                return
            await asyncio.sleep(0.1)

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is not None:
        view.ticker = loop.create_task(ticker())
    else:
        threading.Thread(target=lambda: asyncio.run(ticker()), daemon=True, name="openprogram-view").start()
