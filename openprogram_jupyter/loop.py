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
from dataclasses import dataclass, field
from typing import Any, cast

from ._context import context_refusal, context_window
from ._limits import (
    LimitReached,
    answer_round_under_cap,
    final_round_system,
    limit_reached,
    output_cap,
    unpriced_notice,
)
from ._masking import ReplyMask
from ._round_sources import LiveRounds, RoundSource
from ._secrets import mask
from ._stop import StopSignal
from .events import (
    AgentEndEvent,
    AgentStartEvent,
    AssistantUpdate,
    Event,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from .messages import (
    AssistantMessage,
    ReplyError,
    RunStopReason,
    ToolCall,
    ToolResultMessage,
    ToolResultStatus,
    Usage,
    UserMessage,
)
from .models._history import without_images
from .models._text_tool_calls import read_text_tool_calls
from .models._wire import WireLog
from .models.base import MessageBuilder, Model, ModelRequest, ToolChoice
from .spec import RunSpec
from .tool_execution import CallEnvironment, execute_tool_call, result_for_unrun_call
from .tools.menu import Menu

__all__ = ["LoopConfig", "LoopState", "run_loop"]

AnyMessage = UserMessage | AssistantMessage | ToolResultMessage
MessageSource = Callable[[], Sequence[Any]]

SKIPPED_FOR_STEERING = "skipped: a new user message arrived before this call ran"
CANCELLED_BEFORE_IT_RAN = "cancelled: the run was stopped before this call ran"
UNRUN_AFTER_FAILED_REPLY = "not run: the model's reply failed before it was complete, so no call of it ran"


@dataclass
class LoopConfig:
    """What one run is asked to do (its :class:`RunSpec`), with what it runs on.
    ``spent`` says what the run has used so far (its replies and its nested runs')."""

    spec: RunSpec
    model: Model
    calls: CallEnvironment
    rounds: RoundSource = field(default_factory=LiveRounds)
    stop: StopSignal = field(default_factory=StopSignal)
    wire: WireLog | None = None  # set when the run captures the wire
    spent: Callable[[], Usage] = field(default=lambda: Usage(cost=0.0))


@dataclass
class LoopState:
    """Everything needed to finish the run cleanly at any moment, including mid-stream.

    ``conversation`` is everything sent to the model; ``new_messages`` the part
    this run added. ``streaming`` is the reply being streamed; ``round_calls`` the calls of
    the current reply, of which the first ``answered`` have their result (calls are
    answered in order, so they are tracked by position: two calls may share an id).
    ``undelivered`` holds steering or follow-up messages taken but never sent (the round
    cap was reached first). ``limit`` names the limit that ended the run, if one did.
    ``stop_reason`` is set by :meth:`end` alone.
    """

    conversation: list[AnyMessage]
    new_messages: list[AnyMessage] = field(default_factory=list)
    rounds: int = 0
    streaming: MessageBuilder | None = None
    round_calls: list[ToolCall] = field(default_factory=list)
    answered: int = 0
    round_results: list[ToolResultMessage] = field(default_factory=list)
    round_open: bool = False
    undelivered: list[Any] = field(default_factory=list)
    stop_reason: RunStopReason = "stop"
    error_message: str | None = None
    error: ReplyError | None = None
    limit: str | None = None
    unpriced_noticed: bool = False

    def end(self, reason: RunStopReason, *, error_message: str | None = None, error: ReplyError | None = None) -> None:
        """End the run for ``reason`` (with a failed reply's error). What ended it first and
        cannot be undone stays: a stop (``"aborted"``) or a failure (``"error"``) always
        wins, and ``"stop"`` or a limit never replaces a failure, a stop or a divergence."""
        if reason in ("stop", "max_iterations", "max_cost", "max_tokens") and self.stop_reason in (
                "error", "aborted", "diverged"):
            return
        self.stop_reason = reason
        if error_message is not None or error is not None:
            self.error_message, self.error = error_message, error

    @property
    def ended(self) -> bool:
        """Whether something other than the model's answer has ended the run."""
        return self.stop_reason != "stop"

    def append(self, message: AnyMessage) -> None:
        self.conversation.append(message)
        self.new_messages.append(message)

    def open_round(self, calls: list[ToolCall]) -> None:
        self.round_calls, self.answered = calls, 0

    @property
    def open_calls(self) -> list[ToolCall]:
        """The calls of the current reply that have no result yet, in order."""
        return self.round_calls[self.answered:]


async def run_loop(config: LoopConfig, state: LoopState, prompts: Sequence[UserMessage]) -> None:
    """Run until the model finishes, fails, hits the round cap, or the task is cancelled.

    ``prompts`` are appended (and announced) first. On return ``state.stop_reason`` says
    why it ended; ``agent_end`` has been emitted. Cancellation is absorbed: the run ends
    as ``"aborted"`` and this coroutine returns normally.
    """
    emit = config.calls.emit
    emit(AgentStartEvent(model=config.model.name, tools=config.calls.menu.names,
                         max_cost=config.spec.settings["max_cost"], max_tokens=config.spec.settings["max_tokens"],
                         context_window=context_window(config.spec.settings, config.model)))
    try:
        await _run_rounds(config, state, list(prompts))
    except asyncio.CancelledError:
        _close_after_abort(config, state)
    except Exception as error:  # a bug below us must not lose the transcript
        _close_after_abort(config, state)
        text = mask(f"internal error: {type(error).__name__}: {error}")
        state.end("error", error_message=text, error=ReplyError(kind="internal", summary=text))
    emit(AgentEndEvent(messages=list(state.new_messages), stop_reason=state.stop_reason,
                       error_message=state.error_message, error=state.error, limit=state.limit))


async def _run_rounds(config: LoopConfig, state: LoopState, pending: list[Any]) -> None:
    source = config.rounds
    while True:
        has_more_tool_calls = True
        while has_more_tool_calls or pending:
            limit = limit_reached(config.spec.settings, state.rounds, config.spent())
            if limit is not None:  # the cap's own last round already was the answer round
                await _end_at_limit(config, state, limit, pending,
                                    answer=has_more_tool_calls and limit.name != "max_iterations")
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


async def _end_at_limit(config: LoopConfig, state: LoopState, limit: LimitReached, pending: list[Any],
                        *, answer: bool) -> None:
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
        return await _stream_assistant_response(self._config, self._state, final)

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
        _notice_unpriced(self._config, self._state, message)
        return pending

    def play_results(self, results: Sequence[ToolResultMessage]) -> None:
        config, state = self._config, self._state
        state.open_round(self._played.tool_calls if self._played is not None else [])
        calls = {call.id: call for call in state.round_calls}
        for result in results:
            call = calls.get(result.tool_call_id)
            config.calls.emit(ToolExecutionStartEvent(tool_call_id=result.tool_call_id, tool_name=result.tool_name,
                                                      arguments=dict(call.arguments) if call is not None else {}))
            config.calls.emit(ToolExecutionEndEvent(tool_call_id=result.tool_call_id, tool_name=result.tool_name,
                                                    result=result, status=result.status, duration=0.0))
            _record_result(config, state, result)

    def end(self, reason: str) -> None:
        self._state.end(cast(RunStopReason, reason))


def _notice_unpriced(config: LoopConfig, state: LoopState, message: AssistantMessage) -> None:
    """Say once, in the round that showed it, that ``max_cost`` cannot be checked."""
    if state.unpriced_noticed:
        return
    notice = unpriced_notice(config.spec.settings, config.spent(), config.model.name)
    if notice is not None:
        state.unpriced_noticed = True
        config.calls.emit(MessageUpdateEvent(message=message, update=AssistantUpdate(kind="notice", delta=notice)))


def _last_input(state: LoopState) -> int:
    """The input tokens of the latest reply (0 before the first): what the next request's
    input will at least be, the conversation only growing."""
    for message in reversed(state.conversation):
        if isinstance(message, AssistantMessage):
            return message.usage.input + message.usage.cache_read + message.usage.cache_write
    return 0


def _request(config: LoopConfig, state: LoopState, final: LimitReached | None) -> ModelRequest:
    """What this round sends: the first round's forced choice, then ``"auto"`` (``"none"``
    stays); the last round at a limit sends ``"none"`` and says why in the system prompt."""
    menu = config.calls.menu
    forced = cast(ToolChoice, config.spec.settings["tool_choice"])  # normalised by its check
    choice = forced if state.rounds == 1 or forced == "none" else "auto"
    system = config.spec.settings["system"]
    cap = None
    if final is not None:  # the answer at a limit: the one round a budget does not cap
        choice, system = "none", final_round_system(system, final)
    else:
        cap = output_cap(config.spec.settings, config.spent(), config.model.name, _last_input(state))
    request = ModelRequest(
        messages=state.conversation if config.spec.settings["images_to_model"] else without_images(state.conversation),
        system=system,
        tools=menu.specs(),
        tool_choice=choice,
        parallel_tool_calls=config.spec.settings["parallel_tool_calls"],
        menu_explicit=menu.explicit,
        max_output_tokens=cap,
        prompt_cache=config.spec.settings["prompt_cache"],
        reasoning=config.spec.settings["reasoning"],
    )
    if config.wire is not None:
        request.wire = config.wire.recorder(state.rounds, request)
    return request


async def _stream_assistant_response(config: LoopConfig, state: LoopState,
                                     final: LimitReached | None = None) -> AssistantMessage:
    """Stream one reply, emitting message_start / message_update* / message_end; every
    known secret is masked out of the updates and the reply (:class:`ReplyMask`). The
    last round at a limit (``final``) starts with a notice naming the limit."""
    emit = config.calls.emit
    request = _request(config, state, final)
    builder = MessageBuilder(model=config.model.name)
    state.streaming = builder
    partial = builder.message
    masking = ReplyMask()
    emit(MessageStartEvent(message=partial))
    if final is not None:
        emit(MessageUpdateEvent(message=partial, update=builder.notice(final.notice)))
    too_big = context_refusal(request, context_window(config.spec.settings, config.model), config.model.name)
    try:
        if too_big is not None:
            builder.fail(f"{config.model.name}: {too_big}", kind="context_length")
        else:
            async for update in config.model.stream(request, builder):
                emit(MessageUpdateEvent(message=partial, update=masking.update(update)))
    except asyncio.CancelledError:
        raise
    except Exception as error:
        builder.fail(f"{config.model.name}: {type(error).__name__}: {error}", kind="internal")
    if partial.stop_reason not in ("error", "aborted"):
        builder.finish(partial.stop_reason if partial.stop_reason != "stop" else None)
    for update in masking.held_back():
        emit(MessageUpdateEvent(message=partial, update=update))
    masking.finish(partial)
    if config.spec.settings["text_tool_calls"] and partial.stop_reason not in ("error", "aborted"):
        read_text_tool_calls(partial, config.calls.menu.names)
    renamed = _make_call_ids_unique(partial)
    if renamed:
        emit(MessageUpdateEvent(message=partial, update=builder.notice(
            "the model gave two or more calls the same id; renamed to keep them apart: " + ", ".join(renamed))))
    state.streaming = None
    state.append(partial)
    emit(MessageEndEvent(message=partial))
    return partial


def _make_call_ids_unique(message: AssistantMessage) -> list[str]:
    """Give each call of ``message`` its own id (some servers repeat them): a repeated id
    becomes ``<id>_2``, ``<id>_3``, ...; returns ``"old -> new"`` for each renamed one."""
    seen: set[str] = set()
    renamed = []
    for call in message.tool_calls:
        if call.id is None or call.id not in seen:
            seen.add(call.id or "")
            continue
        number = 2
        while f"{call.id}_{number}" in seen:
            number += 1
        new = f"{call.id}_{number}"
        renamed.append(f"{call.id} -> {new}")
        call.id = new
        seen.add(new)
    return renamed


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


def _answer_unrun_calls(config: LoopConfig, state: LoopState, message: AssistantMessage, text: str,
                        status: ToolResultStatus = "cancelled") -> None:
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
            config, state,
            result_for_unrun_call(call, "cancelled", CANCELLED_BEFORE_IT_RAN, config.calls),
        )
    if state.round_open:
        last = message or next(
            (m for m in reversed(state.new_messages) if isinstance(m, AssistantMessage)), AssistantMessage()
        )
        _end_round(config, state, last)
    state.end("aborted")
