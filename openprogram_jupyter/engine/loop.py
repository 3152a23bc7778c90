"""The tool-calling loop: one implementation behind every entry point.

Each round the model returns one assistant message. If it holds tool calls, the model
picked functions: run them in order, append the results, ask again. If it holds only text,
the model picked "finish" and the text is the result. The loop never decides for the
model; it parses the reply and branches on it (docs/semantics.md).

The loop is an ``async`` function that reports everything through one event sink. Sync
and async APIs, the notebook view and nested runs all drive this same function. Where a
round's reply comes from and how its calls are answered (the model and the tools, or a
recording played back) is its :class:`~._round_sources.RoundSource`'s business; the loop
does not know which it runs.
Stopping is asyncio cancellation: :func:`run_loop` catches it, closes every open call with
a result, and returns with ``stop_reason == "aborted"`` and the transcript intact.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, cast

from ..core._masking import ReplyMask
from ..core._secrets import mask
from ..core.events import (
    AgentEndEvent,
    AgentStartEvent,
    AssistantUpdate,
    Compaction,
    Event,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from ..core.messages import (
    AssistantMessage,
    ReplyError,
    RunStopReason,
    ToolCall,
    ToolResultMessage,
    ToolResultStatus,
    Usage,
    UserMessage,
)
from ..tools.menu import Menu
from ._compaction import replay_compaction
from ._context import context_window
from ._course_rules import context_shown
from ._limits import LimitReached, answer_round_under_cap, limit_reached
from ._loop_state import LoopConfig, LoopState
from ._reply import notice_unpriced, stream_reply
from .tool_execution import execute_tool_call, result_for_unrun_call

__all__ = ["LoopConfig", "LoopState", "run_loop"]

MessageSource = Callable[[], Sequence[Any]]

SKIPPED_FOR_STEERING = "skipped: a new user message arrived before this call ran"
CANCELLED_BEFORE_IT_RAN = "cancelled: the run was stopped before this call ran"
UNRUN_AFTER_FAILED_REPLY = "not run: the model's reply failed before it was complete, so no call of it ran"


async def run_loop(config: LoopConfig, state: LoopState, prompts: Sequence[UserMessage]) -> None:
    """Run until the model finishes, fails, hits the round cap, or the task is cancelled.

    ``prompts`` are appended (and announced) first. On return ``state.stop_reason`` says
    why it ended; ``agent_end`` has been emitted. Cancellation is absorbed: the run ends
    as ``"aborted"`` and this coroutine returns normally.
    """
    emit = config.calls.emit
    emit(
        AgentStartEvent(
            model=config.model.name,
            tools=config.calls.menu.names,
            max_cost=config.spec.settings["max_cost"],
            max_tokens=config.spec.settings["max_tokens"],
            context_window=context_window(config.spec.settings, config.model),
            course_context=context_shown(config.spec.settings),
        )
    )
    try:
        await _run_rounds(config, state, list(prompts))
    except asyncio.CancelledError:
        _close_after_abort(config, state)
    except Exception as error:  # a bug below us must not lose the transcript
        _close_after_abort(config, state)
        text = mask(f"internal error: {type(error).__name__}: {error}")
        state.end("error", error_message=text, error=ReplyError(kind="internal", summary=text))
    emit(
        AgentEndEvent(
            messages=list(state.new_messages),
            stop_reason=state.stop_reason,
            error_message=state.error_message,
            error=state.error,
            limit=state.limit,
        )
    )


async def _run_rounds(config: LoopConfig, state: LoopState, pending: list[Any]) -> None:
    source = config.rounds
    while True:
        has_more_tool_calls = True
        while has_more_tool_calls or pending:
            limit = limit_reached(config.spec.settings, state.rounds, config.spent())
            if limit is not None:  # the cap's own last round already was the answer round
                await _end_at_limit(
                    config, state, limit, pending, answer=has_more_tool_calls and limit.name != "max_iterations"
                )
                return
            last = answer_round_under_cap(config.spec.settings, state.rounds) if has_more_tool_calls else None
            if last is not None:  # round N of a cap of N: the answer round, not one more
                await _end_at_limit(config, state, last, pending, answer=True)
                return
            round = _Round(config, state)
            if not source.goes_on(round):
                return
            _deliver(config, state, pending)
            _checkpoint(config)
            _open_round(config, state)
            message = await source.reply(round)
            if message.stop_reason in ("error", "aborted"):
                _answer_unrun_calls(config, state, message, UNRUN_AFTER_FAILED_REPLY)
                _end_round(config, state, message)
                state.end(message.stop_reason, error_message=message.error_message, error=message.error)
                return
            has_more_tool_calls = bool(message.tool_calls)
            pending = await source.answer(round, message)
            _end_round(config, state, message)
            if state.ended:
                return
            if not pending:
                pending = _take(config.spec.hooks.get("get_steering_messages"))
        _checkpoint(config)  # a step that swallowed the stop's cancellation still ends the run as stopped
        pending = _take(config.spec.hooks.get("get_follow_up_messages"))
        if not pending:
            state.end("stop")
            return


def _open_round(config: LoopConfig, state: LoopState, final: LimitReached | None = None) -> None:
    state.rounds += 1
    state.round_open, state.round_results = True, []
    config.calls.emit(TurnStartEvent(turn=state.rounds, final_for=final.name if final is not None else None))


async def _end_at_limit(
    config: LoopConfig, state: LoopState, limit: LimitReached, pending: list[Any], *, answer: bool
) -> None:
    """End the run at ``limit`` (``stop_reason`` and ``state.limit`` its name); messages
    not delivered stay undelivered. With ``answer`` (the model still wanted tools) and
    ``finish_at_limit``, one last round, tool-free, answers first."""
    state.undelivered = list(pending)
    if answer and config.spec.settings["finish_at_limit"]:
        await _final_round(config, state, limit)
    state.end(limit.name)
    state.limit = limit.name


async def _final_round(config: LoopConfig, state: LoopState, limit: LimitReached) -> None:
    """One round with ``tool_choice="none"`` asking for the answer; a call the model makes
    anyway is answered "not run". A failed reply keeps its error in ``state.error_message``
    (the run still ends at the limit); a stop ends it as aborted, as anywhere. The round's
    source gives the reply (a recording may hold it)."""
    _checkpoint(config)
    round = _Round(config, state)
    if not config.rounds.goes_on(round):
        return
    _open_round(config, state, limit)
    message = await config.rounds.reply(round, limit)
    text = limit.not_run_text() if message.stop_reason not in ("error", "aborted") else UNRUN_AFTER_FAILED_REPLY
    _answer_unrun_calls(config, state, message, text, status="skipped")
    _end_round(config, state, message)
    state.error_message, state.error = message.error_message, message.error
    if message.stop_reason == "aborted":
        state.end("aborted")


class _Round:
    """The loop's side of the round about to start (number ``state.rounds + 1``), as the
    :class:`~._round_sources.Round` its source works through."""

    def __init__(self, config: LoopConfig, state: LoopState) -> None:
        self._config, self._state = config, state
        self.number = state.rounds + 1
        self.menu: Menu = config.calls.menu
        self._played: AssistantMessage | None = None

    @property
    def results(self) -> Sequence[ToolResultMessage]:
        return self._state.round_results

    def emit(self, event: Event) -> None:
        self._config.calls.emit(event)

    async def stream(self, final: LimitReached | None) -> AssistantMessage:
        return await stream_reply(self._config, self._state, final)

    def play(self, reply: AssistantMessage, notice: str) -> AssistantMessage:
        """The recorded ``reply`` announced as this round's; its usage is not counted again."""
        emit = self._config.calls.emit
        message = reply.model_copy(deep=True, update={"usage": Usage(cost=0.0)})  # known: nothing
        emit(MessageStartEvent(message=message))
        emit(MessageUpdateEvent(message=message, update=AssistantUpdate(kind="notice", delta=notice)))
        self._state.append(message)
        emit(MessageEndEvent(message=message))
        self._played = message
        return message

    async def run_calls(self, message: AssistantMessage) -> list[Any]:
        pending = await _execute_tool_calls(self._config, self._state, message.tool_calls)
        notice_unpriced(self._config, self._state, message)
        return pending

    def play_results(self, results: Sequence[ToolResultMessage]) -> None:
        config, state = self._config, self._state
        state.open_round(self._played.tool_calls if self._played is not None else [])
        calls = {call.id: call for call in state.round_calls}
        for result in results:
            call = calls.get(result.tool_call_id)
            config.calls.emit(
                ToolExecutionStartEvent(
                    tool_call_id=result.tool_call_id,
                    tool_name=result.tool_name,
                    arguments=dict(call.arguments) if call is not None else {},
                )
            )
            config.calls.emit(
                ToolExecutionEndEvent(
                    tool_call_id=result.tool_call_id,
                    tool_name=result.tool_name,
                    result=result,
                    status=result.status,
                    duration=0.0,
                )
            )
            _record_result(config, state, result)

    def end(self, reason: str) -> None:
        self._state.end(cast(RunStopReason, reason))

    def replay_compaction(self, compaction: Compaction) -> None:
        replay_compaction(self._config, self._state, compaction)


async def _execute_tool_calls(config: LoopConfig, state: LoopState, calls: list[ToolCall]) -> list[Any]:
    """Run the calls one after another, in the model's order; returns steering messages.

    After each call the steering source is asked; if it has messages while calls remain,
    the remaining calls are answered with a "skipped" result and the messages are
    returned to be delivered before the next round.
    """
    state.open_round(calls)
    steering: list[Any] = []
    for index, call in enumerate(calls):
        if steering:
            _record_result(config, state, result_for_unrun_call(call, "skipped", SKIPPED_FOR_STEERING, config.calls))
            continue
        _checkpoint(config)
        outcome = await execute_tool_call(call, config.calls)
        _record_result(config, state, outcome.result)
        if outcome.stopped:
            raise asyncio.CancelledError  # the run was stopped during this call: end it as aborted
        if index < len(calls) - 1:
            steering = _take(config.spec.hooks.get("get_steering_messages"))
    return steering


def _record_result(config: LoopConfig, state: LoopState, result: ToolResultMessage) -> None:
    """Record the result of the next open call (results come in the calls' order)."""
    state.answered += 1
    state.round_results.append(result)
    state.append(result)
    config.calls.emit(MessageStartEvent(message=result))
    config.calls.emit(MessageEndEvent(message=result))


def _answer_unrun_calls(
    config: LoopConfig, state: LoopState, message: AssistantMessage, text: str, status: ToolResultStatus = "cancelled"
) -> None:
    """A reply that failed or was cut (or came in the last, tool-free round) may hold
    calls: none runs, each gets a result, so the transcript stays valid to send again."""
    state.open_round(message.tool_calls)
    for call in state.open_calls:
        _record_result(config, state, result_for_unrun_call(call, status, text, config.calls))


def _end_round(config: LoopConfig, state: LoopState, message: AssistantMessage) -> None:
    state.round_open = False
    config.calls.emit(TurnEndEvent(turn=state.rounds, message=message, tool_results=list(state.round_results)))


def _deliver(config: LoopConfig, state: LoopState, messages: Sequence[Any]) -> None:
    for message in messages:
        user = message if isinstance(message, UserMessage) else UserMessage(content=str(message))
        state.append(user)
        config.calls.emit(MessageStartEvent(message=user))
        config.calls.emit(MessageEndEvent(message=user))


def _checkpoint(config: LoopConfig) -> None:
    """Stop here if a stop was requested (a task that never awaits cannot be cancelled)."""
    config.stop.raise_if_set()


def _take(source: MessageSource | None) -> list[Any]:
    return list(source() or []) if source is not None else []


def _close_after_abort(config: LoopConfig, state: LoopState) -> None:
    """Finish the transcript after a stop: every open call gets exactly one result."""
    emit = config.calls.emit
    builder, state.streaming = state.streaming, None
    message: AssistantMessage | None = None
    if builder is not None:
        builder.finish("aborted")
        message = builder.message
        ReplyMask().finish(message)
        state.append(message)
        emit(MessageEndEvent(message=message))
        state.open_round(message.tool_calls)
    for call in state.open_calls:
        _record_result(
            config,
            state,
            result_for_unrun_call(call, "cancelled", CANCELLED_BEFORE_IT_RAN, config.calls),
        )
    if state.round_open:
        last = message or next(
            (m for m in reversed(state.new_messages) if isinstance(m, AssistantMessage)), AssistantMessage()
        )
        _end_round(config, state, last)
    state.end("aborted")
