"""The engine: runs one :class:`~openprogram_jupyter.engine.spec.RunSpec` and returns its Run.

It wires a run together — the :class:`Run` record, the event sink every event goes
through (the record first, then the caller's watcher, then the parent run for a nested
one), the tool-call environment, the stop signals — drives :func:`~.loop.run_loop` to
the end, and, for a decision, lets the :class:`~._decision_judge.Judge` conclude. Every
entry point of :class:`~openprogram_jupyter.engine.runtime.Runtime` ends here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..core._course import CoursePolicy, session_spend
from ..core._run_context import RecordedAnswers, RunContext
from ..core._stop import StopSignal, closing_time
from ..core.errors import SetupError
from ..core.events import Event
from ..core.messages import new_id
from ..models import Model
from ..models import resolve_model as resolve_model_string
from ..models._wire import WireLog
from ..models.replay import RecordingModel
from ..tools.registry import default_registry
from ._course_rules import check_model, check_run, course_system, governed, session_caps
from ._decision_judge import Judge
from ._limits import tokens_of
from ._round_sources import round_source
from .loop import LoopConfig, LoopState, run_loop
from .run import Run
from .spec import RunHooks, RunSpec, RuntimeDefaults, build_spec
from .tool_execution import CallEnvironment

if TYPE_CHECKING:
    from ._runtime_shape import EngineRuntime
    from .settings import RunSettings

AnyEvent = TypeVar("AnyEvent", bound=Event)

__all__ = [
    "EventSink",
    "RunSpec",
    "RuntimeDefaults",
    "build_spec",
    "default_registry",
    "execute",
    "resolve_model",
    "run_context",
]


async def execute(runtime: EngineRuntime, spec: RunSpec, *, on_created: Callable[[Run], None] | None = None) -> Run:
    """Run ``spec`` on the current event loop with ``runtime``'s model and return the Run.

    ``on_created`` is called with the Run as soon as it exists (before the first event).
    A set ``abort`` hook stops the run gracefully (``stop_reason == "aborted"``). If the
    task awaiting this is cancelled instead (a kernel interrupt), the run is finished the
    same way, and ``CancelledError`` re-raises once the Run is complete. A top-level run is
    stored on ``runtime.last_run`` the moment it starts. The course's rules
    (:mod:`._course_rules`) hold for every run: one they refuse raises
    :class:`~openprogram_jupyter.core._course.CourseRefusal` before anything is sent, and a
    top-level run's spending counts toward the course's session caps; its system prompt
    starts with the course context.
    """
    decision = spec.decision
    judge = Judge(decision.options, spec.hooks.get("get_follow_up_messages")) if decision is not None else None
    if judge is not None:
        spec = spec.with_hooks(
            on_event=_both(judge.watch, spec.hooks.get("on_event")), get_follow_up_messages=judge.follow_ups
        )
    context = run_context(runtime, spec)
    _check_step(spec, context)
    model = runtime.model
    check_run(model)  # the course's mode, models and session budget
    course = {**session_caps(spec.settings), **course_system(spec.settings)}
    if course:
        spec = dataclasses.replace(spec, settings=cast("RunSettings", {**spec.settings, **course}))
    parent = spec.parent
    run = Run(
        new_id("run"),
        model.name,
        spec.menu.names,
        spec.depth,
        parent.context.tool_call_id if parent is not None else None,
    )
    config = _loop_config(runtime, model, spec, run, context, _traced(spec))
    state = LoopState(conversation=list(spec.history))
    run.spec, run.runtime, run.context = spec, runtime, context  # what Run.fork and Run.rerun start from
    if spec.depth == 0:
        runtime.last_run = run
    if on_created is not None:
        on_created(run)
    try:
        await _drive(
            asyncio.ensure_future(run_loop(config, state, spec.prompts)),
            config.stop,
            grace=closing_time(context.cancel_grace),
        )
    finally:
        run.pending_messages = list(state.undelivered)
        if run.depth == 0:  # a nested run's spending is in its caller's
            session_spend().add(run.usage.cost, tokens_of(run.usage))
    if judge is not None:
        await judge.conclude(run, runtime=runtime, max_iterations=spec.settings["max_iterations"])
    return run


def _check_step(spec: RunSpec, context: RunContext) -> None:
    """Step mode needs someone to answer each pick (a rerun's recorded answers do not count)."""
    if spec.settings["step"] and not any(not isinstance(a, (RecordedAnswers, CoursePolicy)) for a in context.approvers):
        raise SetupError(
            "step=True needs an approver to answer each pick: pass approve=... (a function "
            "returning True, False, op.edit(**arguments) or op.skip(reason)); in a notebook, "
            "%%agent --step gives each pick Run / Edit / Skip buttons",
            option="step",
        )


def _traced(spec: RunSpec) -> RunHooks:
    """``spec``'s hooks, with a top-level run's OpenTelemetry spans watching its events when
    it traces (nested runs' events reach the top-level run's spans)."""
    settings = spec.settings
    if not settings["trace"] or spec.depth != 0:
        return spec.hooks
    from ..observe._tracing import RunSpans, tracer_for, unexported_note

    note = unexported_note(settings["trace"])  # a notebook cell has said it already, as its note
    if note is not None:
        warnings.warn(note, RuntimeWarning, stacklevel=2)
    spans = RunSpans(tracer_for(settings["trace"]), content=settings["trace_content"])
    return spec.with_hooks(on_event=_both(spans.watch, spec.hooks.get("on_event"))).hooks


def _loop_config(
    runtime: EngineRuntime, model: Model, spec: RunSpec, run: Run, context: RunContext, hooks: RunHooks
) -> LoopConfig:
    """What the loop of ``run`` runs with: its event sink (the record, the caller's watcher,
    the parent run), the tool calls' environment, its stop signal, its round source."""
    parent, settings = spec.parent, spec.settings
    sink = EventSink.for_run(run, hooks.get("on_event"), parent.emit if parent is not None else None)
    calls = CallEnvironment(
        menu=spec.menu,
        runtime=runtime,
        run_id=run.run_id,
        depth=spec.depth,
        emit=sink.emit,
        forward=sink.forward,
        step=settings["step"],
        inherited_tools=spec.inherited_tools,
        settings=settings,
        budget=context.budget,
        cancel_grace=context.cancel_grace,
        context=context,
    )
    if settings["capture_wire"]:
        run.wire_log = WireLog()
    return LoopConfig(
        spec=spec,
        model=model,  # the one the Run names: resolved once per run
        calls=calls,
        rounds=round_source(spec),
        stop=StopSignal(hooks.get("abort"), parent.context.cancelled if parent is not None else None),
        wire=run.wire_log,
        spent=lambda: run.usage,
    )


def run_context(runtime: EngineRuntime, spec: RunSpec) -> RunContext:
    """The context ``spec`` runs under on ``runtime`` (:mod:`._run_context`).

    A nested run derives it from the calling run's: its own ``approve=`` (or, on another
    Runtime, that Runtime's approver) is asked after the calling run's approvers. A fork or
    rerun derives it from the recorded run's (a view's asking left out); its own
    ``approve=`` replaces the recorded approvers, else its Runtime's is asked after them. A
    top-level run has its own ``approve=``, else its Runtime's. Deny lists add up; the depth
    cap and the cancel grace are the lowest. A rerun's recorded refusals and edits come
    first (asked again of its own ``approve=`` when given). The course's approvers come
    before all the others, and its deny globs join the deny lists (:func:`governed`).
    """
    own, parent = spec.hooks.get("approve"), spec.parent
    limits: dict[str, Any] = {
        "tools_deny": spec.tools_deny or tuple(runtime.tools_deny),
        "max_depth": runtime.max_depth,
        "cancel_grace": runtime.cancel_grace,
        "asker": spec.hooks.get("ask"),
    }
    if parent is not None and parent.run_context is not None:
        mine = own if own is not None or parent.context.runtime is runtime else runtime.approve
        return governed(parent.run_context.inner(mine, **limits))
    if spec.inherits is None:
        context = RunContext.top(
            own if own is not None else runtime.approve, max_tool_calls=spec.settings["max_tool_calls"], **limits
        )
    else:
        base = spec.inherits.carried(spec.settings["max_tool_calls"])  # its asker is the new run's own
        base = base if own is None else base.replacing_approvers(own)
        context = base.inner(runtime.approve if own is None else None, **limits)
    if spec.rerun is None:
        return governed(context)
    results = [result for played in spec.rerun.rounds for result in played.results]
    return governed(context.with_recorded(RecordedAnswers.of(results, ask_again=own is not None)))


def resolve_model(
    spec: str | Model | None, *, api_key: str | None, base_url: str | None, record: str | os.PathLike[str] | None
) -> Model:
    """The model a Runtime runs: ``spec`` resolved (see :func:`.models.resolve_model`), and
    wrapped to save every reply to the cassette ``record`` when one is named."""
    model = resolve_model_string(spec, api_key=api_key, base_url=base_url)
    check_model(model)
    if record is None:
        return model
    return RecordingModel(model, record, secrets=[api_key] if api_key else [])


class EventSink:
    """Builds this run's events and hands every event to the listeners, in order."""

    __slots__ = ("depth", "listeners", "parent_tool_call_id", "run_id")

    def __init__(
        self, run_id: str, depth: int, parent_tool_call_id: str | None, listeners: list[Callable[[Any], None]]
    ) -> None:
        self.run_id = run_id
        self.depth = depth
        self.parent_tool_call_id = parent_tool_call_id
        self.listeners = listeners

    @classmethod
    def for_run(
        cls, run: Run, on_event: Callable[[Any], None] | None, parent: Callable[[Any], None] | None
    ) -> EventSink:
        """The run's record first, then the user's watcher, then the parent run (if nested)."""
        listeners: list[Callable[[Any], None]] = [run.record]
        if on_event is not None:
            listeners.append(_guarded(on_event))
        if parent is not None:
            listeners.append(parent)
        return cls(run.run_id, run.depth, run.parent_tool_call_id, listeners)

    def emit(self, event: AnyEvent) -> AnyEvent:
        """Stamp this run's ``run_id``, ``depth`` and ``parent_tool_call_id`` on ``event``,
        publish it, and return it."""
        event.run_id, event.depth, event.parent_tool_call_id = self.run_id, self.depth, self.parent_tool_call_id
        self.forward(event)
        return event

    def forward(self, event: Event) -> None:
        for listener in self.listeners:
            listener(event)


def _both(first: Callable[[Any], None], second: Callable[[Any], None] | None) -> Callable[[Any], None]:
    if second is None:
        return first

    def call(event: Event) -> None:
        first(event)
        second(event)

    return call


def _guarded(listener: Callable[[Any], None]) -> Callable[[Any], None]:
    """A watcher that raises must not break the run: warn once and keep going."""
    warned = False

    def call(event: Event) -> None:
        nonlocal warned
        try:
            listener(event)
        except Exception as error:
            if not warned:
                warned = True
                warnings.warn(f"on_event raised {type(error).__name__}: {error}; the run goes on", stacklevel=2)

    return call


async def _drive(task: asyncio.Future[Any], stop: StopSignal, *, grace: float) -> None:
    """Await the loop's task; a set stop signal cancels it (the loop then ends the run itself).

    If the caller is cancelled instead (a kernel interrupt), the task is cancelled too and
    given ``grace`` seconds to close every open call before ``CancelledError`` re-raises.
    """
    watcher = asyncio.ensure_future(stop.cancel_when_set(task))
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        task.cancel()
        try:
            await asyncio.wait({task}, timeout=grace)
        except asyncio.CancelledError:
            pass  # interrupted twice: keep what we have
        raise
    finally:
        watcher.cancel()
