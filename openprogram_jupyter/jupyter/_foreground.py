"""A foreground ``%%agent`` cell: the cell runs until its runs end, on one model or on several.

One driver serves both shapes of cell. A cell on one model shows one live view; a cell
``-m A,B`` shows a view per model under a "Stop all" button (:mod:`._side_by_side`).
Either way it is a :class:`Board` over one or more runs, and the cell runs the same steps:

1. show the board; start every run (a task on the kernel's loop when awaited, a worker
   thread each when blocking);
2. tick the board every :data:`TICK_SECONDS` until every run has ended;
3. on Kernel ▸ Interrupt (``CancelledError`` awaited, ``KeyboardInterrupt`` blocking),
   stop every run, wait up to the grace for them to end, and take what there is;
4. record every run and replace the board with the static transcript
   (:func:`._cell.record`), then fail the cell if a run failed or was interrupted.

Awaited (:func:`run_awaited`, the body of the rewritten cell) the runs are tasks on the
kernel's loop and this coroutine is the ticker, which also keeps the loop awake: on
ipykernel ≥ 7.4 the kernel handles widget messages while the cell awaits, so Stop works;
on ipykernel < 7 jupyter-ui-poll (the ``legacy-kernel`` extra) pumps them from the ticker.
Blocking (:func:`run_blocking`, the plain magic: terminal IPython, ``%autoawait off``) the
runs go on worker threads and no click can arrive while the cell's thread waits, so the
view says to use Kernel ▸ Interrupt.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Protocol

from ._background import start_background
from ._cell import (
    TICK_SECONDS,
    OneRun,
    Outcome,
    ShowsRuns,
    click_path,
    fail_if_the_run_failed,
    failed,
    hooked_spec,
    interrupt_grace,
    interrupted_error,
    live_for,
    raise_failure,
    record,
)

if TYPE_CHECKING:
    from ..engine.run import Run
    from ..engine.runtime import RunHandle
    from ._magics import AgentMagics, CellPlan

__all__ = ["Board", "run_awaited", "run_blocking"]


class Board(ShowsRuns, Protocol):
    """What a foreground cell shows while its runs go on (one :class:`LiveRun` each)."""

    def show(self) -> None: ...

    def tick(self) -> None: ...

    def abort_all(self) -> None: ...


def _board(magics: AgentMagics, plans: list[CellPlan], mode: str) -> Board:
    path = click_path(magics.shell, mode)
    lives = [live_for(magics, plan, path) for plan in plans]
    if len(plans) == 1:
        return OneRun(lives[0])
    from ._side_by_side import SideBySide

    return SideBySide([plan.options.model or "" for plan in plans], lives)


def _end(magics: AgentMagics, plans: list[CellPlan], board: Board, outcomes: list[Outcome]) -> None:
    """Record and show every run, then fail the cell for the first run that failed."""
    record(magics, plans, board, outcomes)
    for plan, outcome in zip(plans, outcomes, strict=True):
        raise_failure(outcome)
        fail_if_the_run_failed(plan, outcome.run)


def _grace(plans: list[CellPlan]) -> float:
    return max(interrupt_grace(plan) for plan in plans)


# -- awaited ------------------------------------------------------------------------------


async def run_awaited(magics: AgentMagics, line: str, cell: str) -> None:
    """The body of a rewritten ``%%agent`` cell (see :mod:`._transformer`): every run a
    task on the kernel's loop, this coroutine the ticker."""
    plans = magics.plans(line, cell)
    if plans[0].options.background:
        start_background(magics, plans[0])
        return
    board = _board(magics, plans, "awaited")
    board.show()
    before = [plan.runtime.last_run for plan in plans]
    tasks: list[asyncio.Future[Run]] = [
        asyncio.ensure_future(plan.runtime.arun(hooked_spec(plan, live)))
        for plan, live in zip(plans, board.lives, strict=True)
    ]
    pump = click_path(magics.shell, "awaited").pump
    try:
        if pump is not None:  # ipykernel < 7: jupyter-ui-poll delivers the clicks
            async with pump() as poll:
                await _tick_until_done(tasks, board, poll)
        else:
            await _tick_until_done(tasks, board, None)
    except asyncio.CancelledError:
        outcomes = await _stop_tasks(tasks, plans, board, before)
        record(magics, plans, board, outcomes, interrupted=True)
        raise interrupted_error(plans[0]) from None
    _end(magics, plans, board, [_task_outcome(*each) for each in zip(tasks, plans, before, strict=True)])


async def _tick_until_done(tasks: list[asyncio.Future[Run]], board: Board, poll: Any) -> None:
    while not all(task.done() for task in tasks):
        await asyncio.wait(tasks, timeout=TICK_SECONDS)
        if poll is not None:
            await poll(20)
        board.tick()


async def _stop_tasks(
    tasks: list[asyncio.Future[Run]], plans: list[CellPlan], board: Board, before: list[Run | None]
) -> list[Outcome]:
    """Kernel ▸ Interrupt: stop every run gracefully and take what there is. A run still
    going after the grace, or at a second interrupt, is cancelled and left to end on its own."""
    board.abort_all()
    try:
        await asyncio.wait(tasks, timeout=_grace(plans))
    except asyncio.CancelledError:
        pass  # interrupted again: take what there is
    ended = [task.done() for task in tasks]
    for task in tasks:
        task.cancel()
    return [
        Outcome(_task_outcome(task, plan, last).run, ended=done)
        for task, plan, last, done in zip(tasks, plans, before, ended, strict=True)
    ]


def _task_outcome(task: asyncio.Future[Run], plan: CellPlan, before: Run | None) -> Outcome:
    """How a task's run ended; ``before`` is the runtime's last run when the task began."""
    since = plan.runtime.last_run if plan.runtime.last_run is not before else None
    if task.cancelled() or not task.done():
        return Outcome(since)
    error = task.exception()
    return Outcome(task.result()) if error is None else failed(error, since)


# -- blocking -----------------------------------------------------------------------------


def run_blocking(magics: AgentMagics, plans: list[CellPlan]) -> None:
    """Run a cell's plans from a plain magic: each run on its worker thread, this thread
    ticks in short slices; Kernel ▸ Interrupt (``KeyboardInterrupt``) stops them all."""
    board = _board(magics, plans, "blocking")
    board.show()
    handles: list[RunHandle] = []
    try:  # the starts too: an interrupt between them must still stop the runs started
        for plan, live in zip(plans, board.lives, strict=True):
            handles.append(plan.runtime.start(hooked_spec(plan, live)))
        while not all(handle.done for handle in handles):
            next(handle for handle in handles if not handle.done).join(TICK_SECONDS)
            board.tick()
    except KeyboardInterrupt:
        if not handles:
            raise  # interrupted before any run began: nothing ran, nothing to keep
        board.abort_all()
        _wait_for(handles, _grace(plans))
        outcomes = [Outcome(handle.run, ended=handle.done) for handle in handles]
        outcomes += [Outcome(None)] * (len(plans) - len(handles))  # runs the interrupt kept from starting
        record(magics, plans, board, outcomes, interrupted=True)
        raise interrupted_error(plans[0]) from None
    _end(magics, plans, board, [_handle_outcome(handle) for handle in handles])


def _handle_outcome(handle: RunHandle) -> Outcome:
    try:
        return Outcome(handle.wait())
    except Exception as error:  # what kept the run from finishing: shown, then raised
        return failed(error, handle.run)


def _wait_for(handles: list[RunHandle], grace: float) -> None:
    """Wait up to ``grace`` seconds in all for every run to end; a second interrupt ends
    the wait."""
    deadline = time.monotonic() + grace
    try:
        while not all(handle.done for handle in handles) and time.monotonic() < deadline:
            time.sleep(0.05)  # short slices, so a second interrupt lands at once
    except KeyboardInterrupt:
        pass  # interrupted twice: take what there is
