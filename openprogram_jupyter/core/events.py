"""The events a run emits, the registry of their types, and handler tables for them.

A run emits, in this order (``docs/semantics.md``, section 5)::

    agent_start
      turn_start
        message_start  message_update*  message_end        (the assistant reply streaming)
        tool_execution_start  tool_execution_update*  tool_execution_end   (per call)
        message_start  message_end                          (per tool result)
      turn_end
      ... more turns ...
    agent_end

A rerun (``Run.rerun``) also emits ``divergence`` at the end of the round whose results
first differ from the recording, before its ``turn_end``.

Every event carries ``run_id``, ``depth`` (0 for a top-level run) and
``parent_tool_call_id`` (the call whose tool opened a nested run), so one event stream can
hold a whole tree of runs. Everything that watches a run — ``on_event=``, the notebook
view, ``Run.events`` — consumes these and nothing else.

Each event class declares its ``type`` literal; :data:`EVENT_TYPES` maps each type to its
class. A consumer dispatches through an :class:`EventHandlers` table (handlers by event
class), so an event type without a handler is an error, never a silent drop.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field

from ._dispatch import KindTable, UnhandledKindError
from ._json import JsonObject
from .messages import (
    AssistantMessage,
    ReplyError,
    RunStopReason,
    ToolCall,
    ToolResultMessage,
    ToolResultStatus,
    UserMessage,
)

__all__ = [
    "EVENT_TYPES",
    "UPDATE_KINDS",
    "AgentEndEvent",
    "AgentEvent",
    "AgentStartEvent",
    "AssistantUpdate",
    "Compaction",
    "CompactionEvent",
    "CourseContextFile",
    "Divergence",
    "DivergenceEvent",
    "Event",
    "EventHandlers",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "RetryWait",
    "ToolExecutionEndEvent",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "TurnEndEvent",
    "TurnStartEvent",
    "UnhandledKindError",
]

AnyMessage = UserMessage | AssistantMessage | ToolResultMessage

UpdateKind = Literal[
    "text_start",
    "text_delta",
    "text_end",
    "thinking_start",
    "thinking_delta",
    "thinking_end",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_end",
    "notice",
    "retry_wait",
]

UPDATE_KINDS: tuple[UpdateKind, ...] = get_args(UpdateKind)
"""Every :attr:`AssistantUpdate.kind`, in the order above."""


class RetryWait(BaseModel):
    """A request that failed before anything of its reply streamed and is asked again after
    a wait: what a ``retry_wait`` update carries.

    ``seconds`` is the wait (the server's ``retry-after`` when it sent one, else the
    backoff) and ``until`` the wall-clock time it ends (``time.time()`` seconds), so a view
    can count down. ``retry`` is the retry that follows the wait (from 1), of at most
    ``max_retries``. ``reason`` says what failed in a few words (``"rate limited (HTTP
    429)"``); ``message`` is the provider's own message, with secrets masked.
    """

    model_config = ConfigDict(frozen=True)

    seconds: float
    until: float
    retry: int
    max_retries: int
    reason: str
    message: str = ""


class AssistantUpdate(BaseModel):
    """One step of an assistant message streaming in.

    ``content_index`` is the block of :attr:`AssistantMessage.content` it concerns.
    ``delta`` is new text, thinking or raw argument JSON. ``tool_call`` is set on
    ``toolcall_start`` (name and id known, arguments not yet) and ``toolcall_end`` (parsed
    arguments). ``notice`` carries a message from the provider layer, such as a control the
    provider cannot express (``delta`` holds the text). ``retry_wait`` says the request
    failed and will be sent again after a wait (``retry_wait`` holds the :class:`RetryWait`,
    ``delta`` a sentence saying it); neither is part of the message.
    """

    model_config = ConfigDict(frozen=True)

    kind: UpdateKind
    content_index: int = 0
    delta: str = ""
    tool_call: ToolCall | None = None
    retry_wait: RetryWait | None = None


class Event(BaseModel):
    """What every event carries. Each subclass declares ``type: Literal["name"] = "name"``.

    The loop builds an event with its own fields only (``TurnStartEvent(turn=3)``); the
    run's event sink stamps ``run_id``, ``depth`` and ``parent_tool_call_id`` on it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    run_id: str = ""
    depth: int = 0
    parent_tool_call_id: str | None = None
    timestamp: float = Field(default_factory=time.time)


class CourseContextFile(BaseModel):
    """A course context file a run's system prompt carries (``AgentMagics.context_files``):
    its name as shown (``COURSE.md``), its size in tokens (estimated) and its text."""

    name: str
    tokens: int
    text: str


class AgentStartEvent(Event):
    """The run began: its model, its menu, its spending limits (``None``: none), which
    the live view's cost meter measures against, its model's context window (``None``:
    not known), which its context meter does, and the course context files its system
    prompt carries (empty: none), which the views show collapsed."""

    type: Literal["agent_start"] = "agent_start"
    model: str = ""
    tools: list[str] = Field(default_factory=list)
    max_cost: float | None = None
    max_tokens: int | None = None
    context_window: int | None = None
    course_context: list[CourseContextFile] = Field(default_factory=list)


class TurnStartEvent(Event):
    """A round began. ``final_for`` names the limit (``"max_iterations"``, ``"max_cost"``,
    ``"max_tokens"``) when this is the last, tool-free round that answers after it."""

    type: Literal["turn_start"] = "turn_start"
    turn: int
    final_for: str | None = None


class MessageStartEvent(Event):
    type: Literal["message_start"] = "message_start"
    message: AnyMessage


class MessageUpdateEvent(Event):
    """``message`` is the partial assistant message so far (the same object each time)."""

    type: Literal["message_update"] = "message_update"
    message: AssistantMessage
    update: AssistantUpdate


class MessageEndEvent(Event):
    type: Literal["message_end"] = "message_end"
    message: AnyMessage


class ToolExecutionStartEvent(Event):
    type: Literal["tool_execution_start"] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    arguments: JsonObject


class ToolExecutionUpdateEvent(Event):
    """Progress of a running call.

    ``status`` is ``"awaiting_approval"``, ``"approved"``, ``"running"``,
    ``"progress"`` (``data`` is whatever the tool reported through
    :meth:`ToolContext.report <openprogram_jupyter.ToolContext.report>`), ``"output"``,
    ``"asking"`` (the tool asked the user: ``data`` is ``{"question", "choices"}``) or
    ``"answered"`` (``{"question", "answer"}``, or ``"unanswered"`` with the reason) or
    ``"hints"`` (``data`` is the words the tool says of itself, an MCP server's annotations:
    ``["destructive", "open world"]``; sent right after the start, before any approval).
    """

    type: Literal["tool_execution_update"] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    status: str
    data: object = None


class ToolExecutionEndEvent(Event):
    type: Literal["tool_execution_end"] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: ToolResultMessage
    status: ToolResultStatus
    duration: float


class Divergence(BaseModel):
    """Where a rerun first parted from its recording (``Run.rerun``).

    ``round`` is the round; ``why`` says what differs in one sentence. For a call whose
    result differs: ``tool_call_id``, ``tool_name`` and the recorded ``arguments``, the
    ``recorded`` result and the result ``now``. Without a call (the recording ended while
    the rerun went on), those are ``None``.
    """

    model_config = ConfigDict(frozen=True)

    round: int
    why: str
    tool_call_id: str | None = None
    tool_name: str | None = None
    arguments: JsonObject | None = None
    recorded: ToolResultMessage | None = None
    now: ToolResultMessage | None = None


class Compaction(BaseModel):
    """One compaction of a run's conversation (docs/semantics.md, "Compaction").

    Before round ``round``'s request, the messages at ``dropped`` (positions in the
    conversation as it was, history included) were replaced by one user message holding
    ``summary``'s text, put where the first of them was; ``dropped_lines`` names each in
    one line. ``tokens_before`` and ``tokens_after`` are the request's estimated size
    either side; ``threshold`` the size past which it ran. ``summary`` is the reply of the
    model that wrote it (its usage is the compaction's cost), ``seconds`` how long it
    took. A fork or a rerun applies the same record again instead of asking the model."""

    model_config = ConfigDict(frozen=True)

    round: int
    dropped: list[int]
    dropped_lines: list[str] = Field(default_factory=list)
    summary: AssistantMessage
    tokens_before: int = 0
    tokens_after: int = 0
    threshold: int = 0
    seconds: float = 0.0


class CompactionEvent(Event):
    """The conversation is being compacted before a round's request: first with
    ``compaction`` ``None`` (``tokens`` past ``threshold``: the notice), then once done
    with the :class:`Compaction` (or ``failed`` saying why it could not be)."""

    type: Literal["compaction"] = "compaction"
    round: int
    tokens: int
    threshold: int
    compaction: Compaction | None = None
    failed: str | None = None


class DivergenceEvent(Event):
    """A rerun's results differed from the recording in this round (emitted once per run)."""

    type: Literal["divergence"] = "divergence"
    divergence: Divergence


class TurnEndEvent(Event):
    type: Literal["turn_end"] = "turn_end"
    turn: int
    message: AssistantMessage
    tool_results: list[ToolResultMessage] = Field(default_factory=list)


class AgentEndEvent(Event):
    """The run ended. ``messages`` are the messages this run added, in order. ``limit``
    names the limit that ended it (``stop_reason`` is then that name, unless the last round
    failed or was stopped); ``error`` is a failure's fields (``error_message`` its text)."""

    type: Literal["agent_end"] = "agent_end"
    messages: list[AnyMessage]
    stop_reason: RunStopReason
    error_message: str | None = None
    error: ReplyError | None = None
    limit: str | None = None


# Every event class, in the order a run emits them: EVENT_TYPES is built from this union.
AgentEvent = (
    AgentStartEvent
    | TurnStartEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
    | CompactionEvent
    | DivergenceEvent
    | TurnEndEvent
    | AgentEndEvent
)


def _by_type(classes: Iterable[type[Event]]) -> Mapping[str, type[Event]]:
    """``{type: class}``; each class must declare one ``type`` literal, used by no other."""
    registry: dict[str, type[Event]] = {}
    for cls in classes:
        field = cls.model_fields.get("type")
        names = get_args(field.annotation) if field is not None else ()
        if field is None or len(names) != 1 or field.default != names[0]:
            raise TypeError(f"{cls.__name__} must declare type: Literal['name'] = 'name'")
        if names[0] in registry:
            raise TypeError(f"{cls.__name__} and {registry[names[0]].__name__} both declare type {names[0]!r}")
        registry[names[0]] = cls
    return MappingProxyType(registry)


EVENT_TYPES: Mapping[str, type[Event]] = _by_type(get_args(AgentEvent))
"""Every event type a run can emit, mapped to its class, in the order a run emits them."""

H = TypeVar("H")


class EventHandlers(KindTable[H]):
    """A consumer's handlers by event class, covering :data:`EVENT_TYPES`.

    ``EventHandlers("the tree", {AgentStartEvent: on_start, ...}, ignored=[...])``.
    :meth:`~KindTable.handler_for` returns the handler of an event's class (``None`` for a
    class listed as ignored) and raises :class:`UnhandledKindError` for any other class;
    :meth:`~KindTable.missing` lists the event types the table does not cover.
    """

    registry = EVENT_TYPES
    kind_word = "event type"
