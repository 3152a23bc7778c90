"""Running one tool call: prepare (find, validate, gate), execute, finalize.

Whatever happens, the call ends in exactly one :class:`ToolResultMessage`: an unknown
name, bad arguments, a repeated failure, a denial, an exception, a timeout, and a stop in
the middle all become results the model can read (``is_error=True``); none stops the loop.
Every result, and every progress report, has each known secret masked
(:mod:`._masking`) before it is recorded or sent.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core._ambient import CallBudget, CallFrame, current_call
from ..core._json import JsonObject, valid_json
from ..core._masking import mask_progress, mask_result
from ..core._pins import Pinned
from ..core._run_context import RunContext
from ..core._secrets import Secrets
from ..core._stop import StopToken
from ..core.approvals import edit_note
from ..core.errors import ToolExit, ToolFailure
from ..core.events import Event, ToolExecutionEndEvent, ToolExecutionStartEvent, ToolExecutionUpdateEvent
from ..core.messages import TextContent, ToolCall, ToolResultMessage, ToolResultStatus
from ..tools._schema import ArgumentError
from ..tools.base import Tool, ToolContext
from ..tools.menu import Menu
from ._approval_gate import ApprovalRequest, Approver, Refused, clear_call
from ._call_questions import CallQuestions
from ._call_result import made_result
from ._tool_output import OutputCapture, capturing

if TYPE_CHECKING:
    from ._runtime_shape import EngineRuntime

__all__ = [
    "ApprovalRequest",
    "Approver",
    "CallEnvironment",
    "CallOutcome",
    "execute_tool_call",
    "result_for_unrun_call",
]

MAX_IDENTICAL_FAILURES = 2
"""An identical call (same tool, same arguments) that failed this often is refused."""


@dataclass
class CallEnvironment:
    """What executing calls needs from the run (one per run).

    ``emit(EventClass, **fields)`` builds and publishes an event of this run;
    ``forward(event)`` publishes an event built elsewhere (a nested run's). With ``step``
    every call asks the approvers before it runs, not only the ``requires_approval`` tools.
    ``context``: the run's :class:`~._run_context.RunContext` (its approvers, in order; what
    a nested run derives its own from).
    """

    menu: Menu
    runtime: EngineRuntime | None
    run_id: str
    depth: int
    emit: Callable[[Event], Any]
    forward: Callable[[Any], None]
    step: bool = False
    inherited_tools: Sequence[object] | None = None
    settings: Mapping[str, Any] | None = None
    budget: CallBudget = field(default_factory=lambda: CallBudget(None))
    cancel_grace: float = 0.5
    failures: Counter[str] = field(default_factory=Counter)
    context: RunContext = field(default_factory=RunContext)


@dataclass
class _Outcome:
    status: ToolResultStatus
    text: str = ""
    value: object = None
    details: JsonObject = field(default_factory=dict)
    stopped: bool = False  # the run was stopped while this call ran
    pinned: bool = False  # the tool returned op.pin(value): compaction keeps its result
    content: list[Any] = field(default_factory=list)  # what the model reads of a "done" call's value


@dataclass(frozen=True)
class CallOutcome:
    """A finished call: its ``result``, and whether the run was ``stopped`` during it (the
    caller then ends the run; the result says ``"cancelled"`` or ``"interrupted"``)."""

    result: ToolResultMessage
    stopped: bool = False


async def execute_tool_call(call: ToolCall, env: CallEnvironment) -> CallOutcome:
    """Run one call and return its outcome, emitting start / update* / end events.

    If the run is cancelled while the call runs, the tool is asked to stop (its
    ``ToolContext.cancelled`` is set, an async body is cancelled) and given
    ``env.cancel_grace`` seconds; the outcome then says ``stopped``, with a
    ``"cancelled"`` result, or ``"interrupted"`` when the tool had to be abandoned.
    """
    assert call.id is not None
    started = time.perf_counter()
    env.emit(ToolExecutionStartEvent(tool_call_id=call.id or "", tool_name=call.name, arguments=call.arguments))
    hints = list(getattr(env.menu.get(call.name), "hints", ()))  # an MCP server's annotations, in words
    if hints:
        env.emit(ToolExecutionUpdateEvent(tool_call_id=call.id or "", tool_name=call.name, status="hints", data=hints))
    try:
        outcome = await _prepare_and_execute(call, env)
    except asyncio.CancelledError:  # stopped before the tool itself started (e.g. awaiting approval)
        outcome = _Outcome("cancelled", "cancelled: the run was stopped before this call finished", stopped=True)
    if outcome.status == "done" and isinstance(outcome.value, Pinned):
        outcome.value, outcome.pinned = outcome.value.value, True
    if outcome.status == "done":
        outcome = await _with_content(call, outcome, env)
    return CallOutcome(_finalize(call, outcome, started, env), stopped=outcome.stopped)


def result_for_unrun_call(
    call: ToolCall, status: ToolResultStatus, text: str, env: CallEnvironment
) -> ToolResultMessage:
    """The result of a call that never started (skipped, or cancelled before its turn)."""
    return _finalize(call, _Outcome(status, text), time.perf_counter(), env, started_event=False)


def _finalize(
    call: ToolCall, outcome: _Outcome, started: float, env: CallEnvironment, *, started_event: bool = True
) -> ToolResultMessage:
    duration = time.perf_counter() - started
    content = outcome.content
    if outcome.status != "done":
        content = [TextContent(text=outcome.text)]
        if outcome.status == "error":
            env.failures[_failure_key(call)] += 1
    if "edited_arguments" in outcome.details and outcome.status in ("done", "error"):
        content = _with_edit_note(content, outcome.details["edited_arguments"])
    result = mask_result(
        ToolResultMessage(
            tool_call_id=call.id or "",
            tool_name=call.name,
            content=content,
            is_error=outcome.status != "done",
            status=outcome.status,
            details={**outcome.details, "duration": round(duration, 6)},
            pinned=outcome.pinned,
        )
    )
    if outcome.status == "done":
        result.keep_returned(outcome.value)
    env.emit(
        ToolExecutionEndEvent(
            tool_call_id=result.tool_call_id,
            tool_name=call.name,
            result=result,
            status=outcome.status,
            duration=duration,
        )
    )
    return result


async def _prepare_and_execute(call: ToolCall, env: CallEnvironment) -> _Outcome:
    tool = env.menu.get(call.name)
    if tool is None:
        valid = ", ".join(env.menu.names) or "(none: this run has no tools)"
        return _Outcome("error", f"Error: unknown tool {call.name!r}. Valid tools: {valid}.")
    if not env.budget.take():
        limit = env.budget.limit
        return _Outcome(
            "error",
            f"Error: refused: this run has made {limit} tool calls, its budget "
            f"(max_tool_calls={limit}, nested runs' calls included). "
            "Answer with what you have so far.",
            details={"budget": limit},
        )
    arguments_error = (call.provider_data or {}).get("arguments_error")
    if arguments_error:
        return _Outcome("error", f"Error: {call.name}: {arguments_error}. Send the arguments as one JSON object.")
    if env.failures:
        failed = env.failures[_failure_key(call)]
        if failed >= MAX_IDENTICAL_FAILURES:
            return _Outcome(
                "error",
                f"Error: refused: this exact call ({call.name} with the same arguments) already failed "
                f"{failed} times. Change the arguments or try something else.",
            )
    try:
        kwargs = tool.validate(dict(call.arguments))
    except ArgumentError as error:
        return _Outcome("error", f"Error: {call.name}: {error}")
    verdict = await clear_call(call, tool, kwargs, env.context.approvers, step=env.step, emit=env.emit)
    if isinstance(verdict, Refused):
        return _Outcome(verdict.status, verdict.text, details=verdict.details)
    outcome = await _cached_or_executed(call, tool, verdict.kwargs, env, arguments=verdict.edited)
    outcome.details.update(verdict.details)
    return outcome


async def _cached_or_executed(
    call: ToolCall, tool: Tool, kwargs: dict[str, Any], env: CallEnvironment, arguments: JsonObject | None = None
) -> _Outcome:
    """The earlier value for the same arguments (``arguments``, else the call's) of a
    ``cache=True`` tool, else a run of it."""
    cache = getattr(tool, "cache", None) if tool.options.cache else None
    if cache is None:
        return await _execute(call, tool, kwargs, env)
    key = _failure_key(call if arguments is None else call.model_copy(update={"arguments": arguments}))
    if key in cache:
        return _Outcome("done", value=cache[key], details={"cached": True})
    outcome = await _execute(call, tool, kwargs, env)
    if outcome.status == "done":
        cache[key] = outcome.value
    return outcome


async def _execute(call: ToolCall, tool: Tool, kwargs: dict[str, Any], env: CallEnvironment) -> _Outcome:
    cancelled = StopToken()
    questions = CallQuestions(call, env.context, env.emit, cancelled)
    context = ToolContext(
        tool_call_id=call.id or "",
        tool_name=call.name,
        run_id=env.run_id,
        depth=env.depth,
        runtime=env.runtime,
        _report=lambda data: env.emit(
            ToolExecutionUpdateEvent(
                tool_call_id=call.id or "", tool_name=call.name, status="progress", data=mask_progress(data)
            )
        ),
        cancelled=cancelled,
        _ask=questions.ask,
        _governed=questions.governed,
    )
    output = _output_scope(call, tool, env)
    running: asyncio.Future[Any] | None
    token = current_call.set(
        CallFrame(context, env.inherited_tools, env.forward, env.budget, env.settings, env.context)
    )
    try:
        if output is not None:
            output.__enter__()  # the body's thread or task copies the context: it captures there
        body = tool.call(kwargs, context)
        running = asyncio.ensure_future(_contained(body, context) if inspect.iscoroutine(body) else body)
    except BaseException as error:  # the tool's own code failed before it could start
        running, outcome = None, _error_outcome(call, error)
    finally:
        if output is not None:
            output.reset_context()
        current_call.reset(token)
    if running is not None:
        try:
            outcome = await _await_body(call, tool, running, context, env)
        except BaseException:
            if output is not None:
                output.abandon()
            raise
    if output is not None:
        outcome = await _with_open_figures(output, outcome)
    if questions.answers:
        outcome.details["answers"] = questions.answers
    return _with_output(outcome, output.capture if output is not None else None, tool)


async def _await_body(
    call: ToolCall, tool: Tool, running: asyncio.Future[Any], context: ToolContext, env: CallEnvironment
) -> _Outcome:
    """Wait for the running body within its timeout; a stop gives it its grace period."""
    timeout = tool.options.timeout
    try:
        shielded = asyncio.shield(running)  # so a stop can give the tool its grace period
        value = await (shielded if timeout is None else asyncio.wait_for(shielded, timeout))
    except asyncio.TimeoutError:
        context.cancelled.set()
        running.cancel()
        # An async body (an MCP call among them) is cancelled; a thread cannot be.
        after = (
            "was cancelled"
            if isinstance(running, asyncio.Task)
            else ("was stopped (a sync tool may still be finishing in the background)")
        )
        text = f"Error: {call.name} timed out after {timeout:g} s and {after}"
        return _Outcome("error", text, details={"timeout": timeout})
    except asyncio.CancelledError:
        context.cancelled.set()
        if isinstance(running, asyncio.Task):
            running.cancel()  # a thread's future must stay pending: it tells us when the thread ends
        return await _wait_after_cancel(running, env.cancel_grace)
    except Exception as error:
        return _error_outcome(call, error)
    return _Outcome("done", value=value)


async def _with_open_figures(output: capturing, outcome: _Outcome) -> _Outcome:
    """``outcome`` once the figures the body left open are drawn (off the loop) and the
    capture closed. A call already stopped leaves them undrawn; a stop while they are drawn
    ends the call ``"cancelled"`` at once."""
    if outcome.stopped:
        output.abandon()
        return outcome
    try:
        await output.finish_off_loop()
    except asyncio.CancelledError:
        return _Outcome(
            "cancelled",
            "cancelled: the run was stopped while the figures this call left open were drawn "
            "(the tool itself had finished)",
            details=outcome.details,
            stopped=True,
        )
    return outcome


def _output_scope(call: ToolCall, tool: Tool, env: CallEnvironment) -> capturing | None:
    """Where the body's prints, displays and figures go (``None``: ``capture_output=False``);
    each piece also goes out live as an ``output`` update, masked."""
    if not tool.options.capture_output:
        return None

    def live(piece: JsonObject) -> None:
        data = valid_json(Secrets.now().mask_data(piece, shapes=piece["type"] == "stream"))
        env.emit(ToolExecutionUpdateEvent(tool_call_id=call.id or "", tool_name=call.name, status="output", data=data))

    return capturing(OutputCapture(live))


def _with_output(outcome: _Outcome, capture: OutputCapture | None, tool: Tool) -> _Outcome:
    """The outcome with what the body wrote in ``details["output"]``; a body that returned
    ``None`` after printing hands the model its printed text (``output_as_result``)."""
    if capture is None or not capture.items:
        return outcome
    outcome.details["output"] = capture.items
    if outcome.status == "done" and outcome.value is None and tool.options.output_as_result and capture.text:
        outcome.value = capture.text
        outcome.details["result_from_output"] = True
    return outcome


async def _contained(body: Awaitable[Any], context: ToolContext) -> Any:
    """An async tool's body, with whatever it raises wrapped in a :class:`ToolExit` (a sync
    tool's thread does the same, ``run_in_daemon_thread``): ``SystemExit`` raised inside a
    task would end the event loop (in a notebook, the kernel), and a ``CancelledError`` of
    the tool's own (a sub-task it awaited was cancelled) must fail this call, not pass for
    a stop. Only the cancellation this module asks for — ``context.cancelled`` is set
    first, on a stop or a timeout — travels as a ``CancelledError``."""
    try:
        return await body
    except asyncio.CancelledError as error:
        if context.cancelled.is_set():
            raise
        raise ToolExit(error) from error
    except BaseException as error:
        raise ToolExit(error) from error


async def _wait_after_cancel(running: asyncio.Future[Any], grace: float) -> _Outcome:
    """Give a stopped tool ``grace`` seconds to notice; then abandon it."""
    try:
        await asyncio.wait({running}, timeout=grace)
    except asyncio.CancelledError:
        pass  # stopped twice: do not wait again
    if running.done():
        return _Outcome("cancelled", "cancelled: the run was stopped while this call was running", stopped=True)
    return _Outcome(
        "interrupted",
        f"interrupted: abandoned after {grace:g} s; the tool ignored the stop and may still be running",
        stopped=True,
    )


async def _with_content(call: ToolCall, outcome: _Outcome, env: CallEnvironment) -> _Outcome:
    """``outcome`` (``"done"``) with ``content``, what the model reads of its value, made
    off the loop (:func:`._call_result.made_result`); the details gain the card's display.
    A stop meanwhile ends the call ``"cancelled"`` at once (the tool itself had finished);
    a value that cannot be made into a result fails the call."""
    tool = env.menu.get(call.name)
    try:
        outcome.content, details = await made_result(
            call.name,
            outcome.value,
            outcome.details.get("output", ()),
            tool.options if tool is not None else None,
            env.settings,
        )
    except asyncio.CancelledError:
        return _Outcome(
            "cancelled",
            "cancelled: the run was stopped while this call's result was made ready for "
            "the model (the tool itself had finished)",
            details=outcome.details,
            stopped=True,
        )
    except Exception as error:  # turning the value into a result is part of the call
        return _Outcome(
            "error",
            f"Error: {call.name} returned a value that cannot be shown as a result "
            f"({type(error).__name__}: {_short(error)})",
        )
    outcome.details.update(details)
    return outcome


def _with_edit_note(content: list[Any], edited: JsonObject) -> list[Any]:
    """``content`` after a first line telling the model the user changed the arguments."""
    note = edit_note(edited)
    if content and isinstance(content[0], TextContent):
        return [TextContent(text=f"{note}\n{content[0].text}"), *content[1:]]
    return [TextContent(text=note), *content]


def _short(error: BaseException, limit: int = 200) -> str:
    """``str(error)`` cut to ``limit`` characters; a ``__str__`` that itself fails says so."""
    try:
        text = str(error)
    except Exception:
        return "(its message cannot be shown either)"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _error_outcome(call: ToolCall, error: BaseException) -> _Outcome:
    if isinstance(error, ToolExit):
        error = error.original
    message = _short(error, limit=20_000) or "(no message)"
    if isinstance(error, ToolFailure):  # its message says what happened: no class name for the model
        return _Outcome("error", f"Error: {call.name} failed: {message}", details={"exception": type(error).__name__})
    try:
        trace = "".join(traceback.format_exception(error))
    except Exception:  # an exception whose __str__ fails fails the formatter too
        trace = "".join(traceback.format_tb(error.__traceback__)) + f"{type(error).__name__}: {message}\n"
    return _Outcome(
        "error",
        f"Error: {call.name} raised {type(error).__name__}: {message}",
        details={"traceback": trace, "exception": type(error).__name__},
    )


def _failure_key(call: ToolCall) -> str:
    """Identifies a call by tool and arguments (for repeated failures and the cache)."""
    return call.name + "\x00" + json.dumps(call.arguments, sort_keys=True, default=str)
