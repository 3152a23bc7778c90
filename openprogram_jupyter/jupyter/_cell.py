"""Running a planned ``%%agent`` cell: awaited, blocking, or in the background.

The three ways differ only in who waits and whether clicks can arrive:

- **awaited** (:func:`run_awaited`): the cell rewrite made the cell ``await`` this, so it
  runs on the kernel's event loop. The run is a task; this coroutine is the ticker
  (every 0.1 s it redraws the view and keeps the loop awake). On ipykernel ≥ 7.4 the
  kernel handles widget messages while the cell awaits, so Stop works; on ipykernel < 7
  jupyter-ui-poll (the ``legacy-kernel`` extra) pumps them from the ticker.
  Kernel ▸ Interrupt arrives as ``CancelledError``: the run is finished as aborted,
  stored, and the error re-raised so Run All stops.
- **blocking** (:func:`run_blocking`): the plain magic. The run goes on a worker thread
  (``Runtime.start``) and the cell's thread ticks and waits in 0.1 s slices; it cannot
  receive clicks, so the view says to use Kernel ▸ Interrupt (``KeyboardInterrupt``).
- **background** (:func:`start_background`): ``Runtime.start``, a ticker on the kernel's
  loop (or a thread), and the cell returns at once with the handle stored in a variable.

Every way ends in :func:`_record`: store the Run (``-o``, ``runtime.last_run``, the
session), then replace the live view with the static transcript.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from .._controls import visible_controls
from .._install import install_hint
from .._secrets import mask
from .._stop import waiting_time
from ..approvals import Skip
from ..errors import ArgumentError, DecisionError, SetupError
from ._cell_errors import RunFailed, RunInterrupted, where_the_run_is
from ._live import LiveRun
from ._saved_runs import saved_run_metadata

if TYPE_CHECKING:
    from ._magics import AgentMagics, CellPlan

__all__ = ["ClickPath", "click_path", "run_awaited", "run_blocking", "start_background"]

TICK_SECONDS = 0.1
INTERRUPT_HINT = "use Kernel ▸ Interrupt to stop it; the transcript is kept"


@dataclass
class ClickPath:
    """Whether a Stop click can reach this cell while it runs, and what to say if not."""

    clicks: bool
    tooltip: str
    note: str | None = None
    pump: Callable[[], Any] | None = None  # an async context manager factory (jupyter-ui-poll)


def _ipykernel_version() -> tuple[int, ...] | None:
    try:
        import ipykernel
    except ImportError:
        return None
    parts = []
    for piece in str(getattr(ipykernel, "__version__", "0")).split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def click_path(shell: Any, mode: str) -> ClickPath:
    """How clicks reach a cell running in ``mode`` ("awaited", "blocking", "background")."""
    stop_tip = "Stop the run: the transcript so far is kept"
    if mode == "background":
        return ClickPath(True, stop_tip)
    if mode == "blocking":
        why = ("this cell runs blocking (autoawait is off, or not an asyncio kernel), so its Stop "
               "button could not receive clicks: " + INTERRUPT_HINT + ".")
        return ClickPath(False, "Kernel ▸ Interrupt stops this cell", note=why[0].upper() + why[1:])
    version = _ipykernel_version() or (0,)
    if version >= (7, 4):
        return ClickPath(True, stop_tip)
    if version < (7,):
        try:
            from jupyter_ui_poll import ui_events
        except ImportError:
            return ClickPath(
                True,
                "On ipykernel < 7 a click may only arrive once the cell ends: use Kernel ▸ Interrupt "
                f"(or {install_hint('legacy-kernel')})",
                note=f"ipykernel {'.'.join(map(str, version))} handles clicks only after a cell ends: "
                     f"{INTERRUPT_HINT}, or install the legacy-kernel extra (jupyter-ui-poll).",
            )
        return ClickPath(True, stop_tip, pump=ui_events)
    return ClickPath(
        True,
        "On ipykernel 7.0–7.3 clicks may not reach a busy cell: use Kernel ▸ Interrupt",
        note=f"ipykernel {'.'.join(map(str, version))} may hold clicks until the cell ends: {INTERRUPT_HINT}.",
    )


def _has_widget_frontend(shell: Any) -> bool:
    return getattr(shell, "kernel", None) is not None


def live_for(magics: AgentMagics, plan: CellPlan, path: ClickPath) -> LiveRun:
    notes = list(plan.notes)
    if path.note and path.clicks:
        notes.append(path.note)  # blocking cells show theirs in place of the Stop button
    if plan.session is not None:
        notes.append(f"session {plan.session.name}: {len(plan.session.runs)} earlier run(s), "
                     f"{len(plan.session.messages)} message(s) of history")
    if plan.spec.settings["step"] and _has_widget_frontend(magics.shell) and not path.clicks:
        raise UsageError("%%agent --step: every pick waits for a click on its card, and this cell cannot "
                         f"receive clicks while it runs ({path.note or path.tooltip}). Run it with autoawait "
                         "on (the default) or with --background, or answer picks in Python with "
                         "runtime.run(..., step=True, approve=...).")
    live = LiveRun(
        widgets=_has_widget_frontend(magics.shell),
        clicks=path.clicks,
        stop_tooltip=path.tooltip,
        stop_note=None if path.clicks else path.note,
        notes=notes,
        max_hz=magics.updates_per_second,
        shown_result_chars=magics.shown_result_chars,
        approve_without_clicks=None if _has_widget_frontend(magics.shell) else (
            _step_in_terminal if plan.spec.settings["step"] else _ask_in_terminal),
        steerable=path.clicks,  # a box nobody's typing can reach would only mislead
        step=plan.spec.settings["step"],
    )
    if plan.options.output:
        live.show_again = f"%agent show {plan.options.output}"
    return live


def _ask_in_terminal(request: Any) -> bool:
    """Ask on the terminal; the question shows the call's arguments with every secret
    masked and every control character visible (the terminal would obey them)."""
    question = visible_controls(mask(f"Allow {request.tool_name}({request.arguments})? [y/N] "))
    answer = input(question)
    return answer.strip().lower() in ("y", "yes")


def _step_in_terminal(request: Any) -> Any:
    """Step mode on a terminal: the same four answers as the card's buttons. ``r`` runs the
    call, ``e`` asks for the arguments as JSON (checked; a mistake asks again), ``s`` asks
    for the reason the model reads, ``t`` stops the run. Anything else asks again."""
    from ._step_card import parse_edited

    question = visible_controls(mask(f"{request.tool_name}({request.arguments}): [r]un, [e]dit, [s]kip or "
                                     "s[t]op? "))
    while True:
        choice = input(question).strip().lower()
        if choice in ("r", "run"):
            return True
        if choice in ("s", "skip"):
            return Skip(input("reason (the model reads it): ").strip())
        if choice in ("t", "stop"):
            raise asyncio.CancelledError  # the call ends "cancelled" and the run stops, as with the card's Stop
        if choice in ("e", "edit"):
            edited = parse_edited(input("arguments as JSON: "))
            if not isinstance(edited, str):
                try:
                    request.tool.validate(dict(edited.arguments))
                except ArgumentError as error:  # as the card does: say why, keep asking
                    edited = f"{request.tool_name}: {error}. Nothing ran."
                else:
                    return edited
            print(visible_controls(mask(edited)))


def hooked_spec(plan: CellPlan, live: LiveRun, **hooks: Any) -> Any:
    """The plan's run with the live view's hooks: events, approvals, steering, and its
    Stop button's event as the run's abort signal (``hooks`` adds or overrides some)."""
    # A Runtime given its own approve= policy keeps it; otherwise the buttons ask.
    approve = plan.runtime.approve if getattr(plan.runtime, "approve", None) is not None else live.approve
    return plan.spec.with_hooks(**{"on_event": live.on_event, "approve": approve, "abort": live.abort,
                                   "get_steering_messages": live.take_steering, **hooks})


# -- awaited ------------------------------------------------------------------------------


async def run_awaited(magics: AgentMagics, line: str, cell: str) -> None:
    """The body of a rewritten ``%%agent`` cell (see :mod:`._transformer`)."""
    plan = magics.plan(line, cell)
    if plan.side_by_side:
        await magics.run_side_by_side(plan)
        return
    if plan.options.background:
        start_background(magics, plan)
        return
    path = click_path(magics.shell, "awaited")
    live = live_for(magics, plan, path)
    live.show(foreground=True)
    task = asyncio.ensure_future(plan.runtime.arun(hooked_spec(plan, live)))
    try:
        if path.pump is not None:
            async with path.pump() as poll:
                await _tick_until_done(task, live, poll)
        else:
            await _tick_until_done(task, live, None)
    except asyncio.CancelledError:
        run, ended = await _finish_after_interrupt(task, live, plan)
        _record(magics, plan, live, run, interrupted=True, ended=ended)
        raise interrupted_error(plan) from None
    try:
        run = task.result()
    except DecisionError as error:
        _record(magics, plan, live, error.run, failure=error)
        raise
    except SetupError as error:
        live.finish(None, notes=[f"The run could not start: {error}"])
        raise UsageError(f"%%agent: {error}") from None
    except Exception as error:  # e.g. a picked function option that raised: the run is kept
        _record(magics, plan, live, plan.runtime.last_run, failure=error)
        raise
    _record(magics, plan, live, run)
    fail_if_the_run_failed(plan, run)


def interrupted_error(plan: CellPlan) -> RunInterrupted:
    where = where_the_run_is(plan.options.output)
    return RunInterrupted(f"the run was stopped; its transcript up to then is above and the Run is in {where}")


def fail_if_the_run_failed(plan: CellPlan, run: Any) -> None:
    """A run that ended in an error fails the cell (after its transcript), unless --keep-going."""
    if run is None or run.stop_reason != "error" or plan.options.keep_going:
        return
    where = where_the_run_is(plan.options.output)
    summary = run.error.message if run.error is not None else "the run ended with an error"
    hint = ""
    if run.error is not None and run.error.kind == "credentials":
        hint = " — or choose a model: %config AgentMagics.model = '...', -m MODEL, or -m offline"
    tail = f"{hint} (the Run is in {where}; pass --keep-going to let the notebook carry on)"
    raise RunFailed(summary + tail, shown="the run ended with the error shown above" + tail)


async def _tick_until_done(task: asyncio.Future[Any], live: LiveRun, poll: Any) -> None:
    while not task.done():
        await asyncio.wait({task}, timeout=TICK_SECONDS)
        if poll is not None:
            await poll(20)
        live.tick()


def interrupt_grace(plan: CellPlan) -> float:
    """How long an interrupted cell waits for its run to close its open calls and end."""
    return waiting_time(float(getattr(plan.runtime, "cancel_grace", 0.5)))


def interrupted_note(ended: bool, grace: float, output: str | None = None) -> str:
    """The note under an interrupted run's transcript: it was stopped (``ended``), or it
    had not stopped when the cell stopped waiting after ``grace`` seconds; ``output`` is
    the ``-o`` variable that keeps it."""
    kept = "transcript up to that point is kept" + (f" in {output}." if output else ".")
    if ended:
        return f"Interrupted (Kernel ▸ Interrupt): the run was stopped; the {kept}"
    return ("Interrupted (Kernel ▸ Interrupt): the run had not stopped when the cell stopped waiting "
            f"(after {grace:g} s, or at a second interrupt); it was cancelled and ends on its own. The {kept}")


def stop_and_wait(handles: list[Any], grace: float) -> None:
    """Abort every run and wait up to ``grace`` seconds in all for them to end; a second
    interrupt ends the wait. Whether each ended is ``handle.done``."""
    for handle in handles:
        handle.abort()
    deadline = time.monotonic() + grace
    try:
        while not all(handle.done for handle in handles) and time.monotonic() < deadline:
            time.sleep(0.05)  # short slices, so a second interrupt lands at once
    except KeyboardInterrupt:
        pass  # interrupted twice: take what there is


async def _finish_after_interrupt(task: asyncio.Future[Any], live: LiveRun, plan: CellPlan) -> tuple[Any, bool]:
    """Kernel ▸ Interrupt: stop the run gracefully; return it (or what there is) and
    whether it ended. A run still going after the grace, or at a second interrupt, is
    cancelled and left to end on its own."""
    live.abort.set()
    try:
        await asyncio.wait({task}, timeout=interrupt_grace(plan))
    except asyncio.CancelledError:
        pass  # interrupted again: take what there is
    if task.done() and not task.cancelled() and task.exception() is None:
        return task.result(), True
    task.cancel()
    return plan.runtime.last_run, False


# -- blocking -----------------------------------------------------------------------------


def run_blocking(magics: AgentMagics, plan: CellPlan) -> None:
    """The plain magic: a worker thread runs it, this thread ticks; Ctrl-C stops it."""
    path = click_path(magics.shell, "blocking")
    live = live_for(magics, plan, path)
    live.show(foreground=True)
    handle = None
    try:  # the start too: an interrupt the moment it returns must still stop the run
        handle = plan.runtime.start(hooked_spec(plan, live))
        while True:
            try:
                run = handle.wait(timeout=TICK_SECONDS)
                break
            except TimeoutError:
                live.tick()
    except DecisionError as error:
        _record(magics, plan, live, error.run, failure=error)
        raise
    except KeyboardInterrupt:
        if handle is None:
            raise  # interrupted before the run began: nothing ran, nothing to keep
        stop_and_wait([handle], interrupt_grace(plan))
        _record(magics, plan, live, handle.run, interrupted=True, ended=handle.done)
        raise interrupted_error(plan) from None
    except SetupError as error:
        live.finish(None, notes=[f"The run could not start: {error}"])
        raise UsageError(f"%%agent: {error}") from None
    except Exception as error:  # e.g. a picked function option that raised: the run is kept
        _record(magics, plan, live, handle.run if handle is not None else None, failure=error)
        raise
    _record(magics, plan, live, run)
    fail_if_the_run_failed(plan, run)


# -- background ---------------------------------------------------------------------------


def start_background(magics: AgentMagics, plan: CellPlan) -> Any:
    """Start the run and return at once; the handle goes into ``-o VAR`` (or ``agent_handle``)."""
    variable = plan.options.output or "agent_handle"
    plan.notes.append(f"Running in the background: {variable} holds the handle "
                      f"({variable}.wait() returns the Run, {variable}.abort() stops it).")
    live = live_for(magics, plan, click_path(magics.shell, "background"))
    started: list[Any] = []

    def on_event(event: Any) -> None:
        live.on_event(event)
        # Store the Run the moment it ends, from the run's thread: the ticker that shows
        # the transcript may wait behind a blocking cell (e.g. one calling handle.wait()).
        if getattr(event, "type", "") == "agent_end" and event.depth == 0 and started and started[0].run:
            _store(magics, plan, started[0].run)

    # No steering hook: the handle's own queue serves it, so the box and h.steer() share it.
    handle = plan.runtime.start(hooked_spec(plan, live, on_event=on_event, get_steering_messages=None))
    started.append(handle)
    if live.view is not None:
        live.view.controls.steer = handle.steer
    magics.namespace[variable] = handle
    live.show()

    def finish() -> None:
        try:
            run = handle.wait(timeout=1.0)  # it has ended: returns at once, or raises why it never started
        except Exception as error:  # shown to the user in place of a transcript
            live.finish(handle.run, notes=[f"The run could not start: {error}"])
            return
        _record(magics, plan, live, run, store=False)

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
                time.sleep(TICK_SECONDS)
                live.tick()
            finish()

        context = contextvars.copy_context()
        threading.Thread(target=context.run, args=(thread_ticker,), name="openprogram-view", daemon=True).start()
    return handle


# -- the end ------------------------------------------------------------------------------


def _store(magics: AgentMagics, plan: CellPlan, run: Any) -> None:
    """``runtime.last_run`` and the session get the Run (once, from whichever thread ends it)."""
    namespace_runtime = magics.namespace_runtime
    if namespace_runtime is not None and namespace_runtime is not plan.runtime:
        namespace_runtime.last_run = run
    if plan.session is not None and run not in plan.session.runs:
        plan.session.add(run)


def _record(
    magics: AgentMagics,
    plan: CellPlan,
    live: LiveRun,
    run: Any,
    *,
    interrupted: bool = False,
    ended: bool = True,
    failure: BaseException | None = None,
    store: bool = True,
) -> None:
    """Store the Run everywhere it belongs, then show its static transcript.

    ``ended=False``: an interrupted run that had not ended when the cell stopped waiting."""
    notes: list[str] = []
    if run is not None:
        if store and plan.options.output:
            decided = plan.options.choices is not None and run.decision is not None
            magics.namespace[plan.options.output] = run.result if decided else run
        _store(magics, plan, run)
    if interrupted:
        notes.append(interrupted_note(ended, interrupt_grace(plan), plan.options.output))
    elif live.stopped_by_button and run is not None and run.stop_reason == "aborted":
        notes.append("Stopped with the Stop button; the transcript up to that point is kept.")
    if failure is not None:
        notes.append(f"The run failed: {type(failure).__name__}: {failure}")
    metadata = None
    if run is not None:
        session = plan.session.name if plan.session is not None else None
        appended_at = plan.session.appended_at(run) if plan.session is not None else None
        created_at = plan.session.created_at if plan.session is not None else None
        metadata = saved_run_metadata(run, session, len(plan.spec.history), appended_at, created_at)
    live.finish(run, notes=notes, metadata=metadata)
