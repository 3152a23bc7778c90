"""What every ``%%agent`` cell's run needs, however it runs: how clicks reach it, its
:class:`~._live.LiveRun`, the spec with the view's hooks, and how it is recorded.

A cell runs one of two ways — in the foreground (:mod:`._foreground`: the cell waits,
awaited on the kernel's loop or blocking) or in the background (:mod:`._background`: the
cell returns a handle at once) — and both end in :func:`record`: store each Run (``-o``,
``runtime.last_run``, the session), then replace the live view with the static
transcript, a note under each run saying how it ended.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from IPython.core.error import UsageError

from ..core._controls import visible_controls
from ..core._install import install_hint
from ..core._json import JsonObject
from ..core._secrets import mask
from ..core._stop import waiting_time
from ..core._threads import threads_available
from ..core.approval_policy import Policy
from ..core.approvals import Skip
from ..core.errors import ArgumentError, DecisionError, SetupError
from ._cell_errors import RunFailed, RunInterrupted, where_the_run_is
from ._live import LiveRun
from ._saved_runs import remember_saved_data, saved_run_metadata

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ..core._asking import Question
    from ..engine.run import Run
    from ..engine.tool_execution import ApprovalRequest
    from ._magics import AgentMagics, CellPlan

__all__ = [
    "ClickPath",
    "OneRun",
    "Outcome",
    "ShowsRuns",
    "click_path",
    "failed",
    "hooked_spec",
    "live_for",
    "record",
    "store",
]

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


# Pyodide's kernel (JupyterLite) queues every message to the kernel, a click included, until
# the cell running ends, and it has no Kernel ▸ Interrupt without cross-origin isolation.
LITE_NOTE = (
    "In JupyterLite a click reaches the kernel only after the cell ends, so this run cannot be "
    "stopped while it goes on: it ends at its own limits (max_rounds, budget)."
)


def click_path(shell: InteractiveShell | None, mode: str) -> ClickPath:
    """How clicks reach a cell running in ``mode`` ("awaited", "blocking", "background").
    Under Pyodide (no threads: JupyterLite) an awaited cell's Stop takes no clicks and the
    view says why (:data:`LITE_NOTE`)."""
    stop_tip = "Stop the run: the transcript so far is kept"
    if mode == "background":
        return ClickPath(True, stop_tip)
    if mode == "blocking":
        why = (
            "this cell runs blocking (autoawait is off, or not an asyncio kernel), so its Stop "
            "button could not receive clicks: " + INTERRUPT_HINT + "."
        )
        return ClickPath(False, "Kernel ▸ Interrupt stops this cell", note=why[0].upper() + why[1:])
    if not threads_available():
        return ClickPath(False, "In JupyterLite a click reaches the kernel only after the cell ends", note=LITE_NOTE)
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


def _has_widget_frontend(shell: InteractiveShell | None) -> bool:
    return getattr(shell, "kernel", None) is not None


def live_for(magics: AgentMagics, plan: CellPlan, path: ClickPath) -> LiveRun:
    notes = list(plan.notes)
    if path.note and path.clicks:
        notes.append(path.note)  # blocking cells show theirs in place of the Stop button
    if plan.session is not None:
        notes.append(
            f"session {plan.session.name}: {len(plan.session.runs)} earlier run(s), "
            f"{len(plan.session.messages)} message(s) of history"
        )
    # JupyterLite's kernel delivers input() replies mid-cell, never clicks: picks are typed.
    typed = not _has_widget_frontend(magics.shell) or not threads_available()
    if plan.spec.settings["step"] and not typed and not path.clicks:
        raise UsageError(
            "%%agent --step: every pick waits for a click on its card, and this cell cannot "
            f"receive clicks while it runs ({path.note or path.tooltip}). Run it with autoawait "
            "on (the default) or with --background, or answer picks in Python with "
            "runtime.run(..., step=True, approve=...)."
        )
    live = LiveRun(
        widgets=_has_widget_frontend(magics.shell),
        clicks=path.clicks,
        stop_tooltip=path.tooltip,
        stop_note=None if path.clicks else path.note,
        notes=notes,
        max_hz=magics.updates_per_second,
        shown_result_chars=magics.shown_result_chars,
        approve_without_clicks=(_step_in_terminal if plan.spec.settings["step"] else _ask_in_terminal)
        if typed
        else None,
        steerable=path.clicks,  # a box nobody's typing can reach would only mislead
        step=plan.spec.settings["step"],
        session_rules=magics.approval_rules,
        ask_without_clicks=None if _has_widget_frontend(magics.shell) else answer_in_terminal,
    )
    if plan.options.output:
        live.show_again = f"%agent show {plan.options.output}"
    return live


def _ask_in_terminal(request: ApprovalRequest) -> bool:
    """Ask on the terminal; the question shows the call's arguments with every secret
    masked and every control character visible (the terminal would obey them)."""
    question = visible_controls(mask(f"Allow {request.tool_name}({request.arguments})? [y/N] "))
    answer = input(question)
    return answer.strip().lower() in ("y", "yes")


def answer_in_terminal(question: Question) -> str:
    """A tool's question on the terminal (``input()``), secrets masked and control
    characters visible; with choices, asked again until the answer is one of them (its
    number or its text). A timeout is not kept: ``input()`` cannot be interrupted."""
    choices = question.choices
    listed = "".join(f"\n  {number}. {choice}" for number, choice in enumerate(choices, 1))
    prompt = visible_controls(mask(f"{question.tool_name} asks: {question.text}{listed}\n> "))
    while True:
        answer = input(prompt).strip()
        if not choices and answer:
            return answer
        if answer in choices:
            return answer
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1]


def _step_in_terminal(request: ApprovalRequest) -> Any:
    """Step mode on a terminal: the same four answers as the card's buttons. ``r`` runs the
    call, ``e`` asks for the arguments as JSON (checked; a mistake asks again), ``s`` asks
    for the reason the model reads, ``t`` stops the run. Anything else asks again."""
    from ._step_card import parse_edited

    question = visible_controls(mask(f"{request.tool_name}({request.arguments}): [r]un, [e]dit, [s]kip or s[t]op? "))
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
    approve = _approver(getattr(plan.runtime, "approve", None), live)
    return plan.spec.with_hooks(
        **{
            "on_event": live.on_event,
            "approve": approve,
            "abort": live.abort,
            "get_steering_messages": live.take_steering,
            "ask": live.ask,
            **hooks,
        }
    )


def _approver(own: Any, live: LiveRun) -> Any:
    """Who answers the run's calls: a Runtime's own approver that is not a policy keeps
    its calls; a policy — or, without one, an empty policy, which changes nothing until a
    card's "Always allow" / "Always deny" adds a rule — checks the session's rules first
    and asks with the view's buttons when it has no ``ask_with`` of its own."""
    if own is not None and not isinstance(own, Policy):
        return own
    return (own if own is not None else Policy()).in_session(live.session_rules, live.approve)


# -- how a run ended ----------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How one run of a cell ended: the Run (``None`` if there is none to keep), whether
    it had ended (``False``: interrupted, and still going when the cell stopped waiting),
    and what it raised instead of returning, if anything."""

    run: Run | None
    ended: bool = True
    failure: BaseException | None = None


class ShowsRuns(Protocol):
    """Where a cell's runs are on screen, to be replaced by their transcripts."""

    lives: list[LiveRun]

    def finish(self, runs: list[Run | None], notes: list[list[str]], metadata: list[JsonObject | None]) -> None: ...


def failed(error: BaseException, kept: Run | None) -> Outcome:
    """A run that raised instead of returning: a failed decision carries its run; a run
    that could not start has none; otherwise ``kept`` (the run as far as it went)."""
    if isinstance(error, DecisionError):
        from ..engine.run import Run  # loaded by then: the decision ran

        return Outcome(error.run if isinstance(error.run, Run) else None, failure=error)
    return Outcome(None if isinstance(error, SetupError) else kept, failure=error)


class OneRun:
    """The board of a cell on one model: its live view (a cell on several models has
    :class:`~._side_by_side.SideBySide`)."""

    def __init__(self, live: LiveRun) -> None:
        self.lives = [live]

    def show(self) -> None:
        self.lives[0].show(foreground=True)

    def tick(self) -> None:
        self.lives[0].tick()

    def abort_all(self) -> None:
        self.lives[0].abort.set()

    def finish(self, runs: list[Run | None], notes: list[list[str]], metadata: list[JsonObject | None]) -> None:
        self.lives[0].finish(runs[0], notes=notes[0], metadata=metadata[0])


def interrupted_error(plan: CellPlan) -> RunInterrupted:
    where = where_the_run_is(plan.options.output)
    return RunInterrupted(f"the run was stopped; its transcript up to then is above and the Run is in {where}")


def raise_failure(outcome: Outcome) -> None:
    """Fail the cell with what the run raised: a run that could not start as one usage
    line, anything else (e.g. a picked function option that raised) as itself."""
    if outcome.failure is None:
        return
    if isinstance(outcome.failure, SetupError):
        raise UsageError(f"%%agent: {outcome.failure}") from None
    raise outcome.failure


def fail_if_the_run_failed(plan: CellPlan, run: Run | None) -> None:
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
    return (
        "Interrupted (Kernel ▸ Interrupt): the run had not stopped when the cell stopped waiting "
        f"(after {grace:g} s, or at a second interrupt); it was cancelled and ends on its own. The {kept}"
    )


# -- the end ------------------------------------------------------------------------------


def store(magics: AgentMagics, plan: CellPlan, run: Run) -> None:
    """``runtime.last_run`` and the session get the Run (once, from whichever thread ends it)."""
    namespace_runtime = magics.runtimes.base()
    if namespace_runtime is not plan.runtime:
        namespace_runtime.last_run = run
    if plan.session is not None and run not in plan.session.runs:
        plan.session.add(run, len(plan.spec.history))


def record(
    magics: AgentMagics,
    plans: list[CellPlan],
    shown: ShowsRuns,
    outcomes: list[Outcome],
    *,
    interrupted: bool = False,
    store_output: bool = True,
) -> None:
    """Store every run of a cell (its ``plans``, one per model) where it belongs, then
    replace ``shown`` with the transcripts.

    ``-o VAR`` gets the Run (its decision's result with ``--choices``), or for a cell on
    several models a dict from each model's name to its Run; ``store_output=False`` leaves
    it alone (a background cell's variable holds the handle). ``interrupted``: the cell
    was interrupted, and each outcome says whether its run had ended."""
    output = plans[0].options.output
    if store_output and output:
        if len(plans) > 1:
            magics.namespace[output] = {p.options.model: o.run for p, o in zip(plans, outcomes, strict=True)}
        elif (run := outcomes[0].run) is not None:
            decided = plans[0].options.choices is not None and run.decision is not None
            magics.namespace[output] = run.result if decided else run
    for one, outcome in zip(plans, outcomes, strict=True):
        if outcome.run is not None:
            store(magics, one, outcome.run)
    grace = max(interrupt_grace(one) for one in plans)
    notes = [
        _notes(live, outcome, grace if interrupted else None, output)
        for live, outcome in zip(shown.lives, outcomes, strict=True)
    ]
    metadata = [_metadata(one, outcome.run) for one, outcome in zip(plans, outcomes, strict=True)]
    for outcome, saved in zip(outcomes, metadata, strict=True):
        if outcome.run is not None and saved is not None:
            remember_saved_data(outcome.run, saved)
    shown.finish([outcome.run for outcome in outcomes], notes, metadata)


def _notes(live: LiveRun, outcome: Outcome, grace: float | None, output: str | None) -> list[str]:
    """What the transcript says about how the run ended (``grace``: it was interrupted)."""
    run, failure = outcome.run, outcome.failure
    if grace is not None:
        return [interrupted_note(outcome.ended, grace, output)]
    if isinstance(failure, SetupError):
        return [f"The run could not start: {failure}"]
    if failure is not None:
        return [f"The run failed: {type(failure).__name__}: {failure}"]
    if run is None:
        return ["The run left no record."]
    if live.stopped_by_button and run.stop_reason == "aborted":
        return ["Stopped with the Stop button; the transcript up to that point is kept."]
    return []


def _metadata(plan: CellPlan, run: Run | None) -> JsonObject | None:
    """The run as data, saved with its transcript for ``%agent restore``."""
    if run is None:
        return None
    session = plan.session
    return saved_run_metadata(
        run,
        session.name if session is not None else None,
        len(plan.spec.history),
        session.appended_at(run) if session is not None else None,
        session.created_at if session is not None else None,
    )
