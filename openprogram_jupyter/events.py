"""The events a run emits, in the order of DESIGN 2.6.

A run emits::

    agent_start
      turn_start
        message_start  message_update*  message_end        (the assistant reply streaming)
        tool_execution_start  tool_execution_update*  tool_execution_end   (per call)
        message_start  message_end                          (per tool result)
      turn_end
      ... more turns ...
    agent_end

Every event carries ``run_id``, ``depth`` (0 for a top-level run) and
``parent_tool_call_id`` (the call whose tool opened a nested run), so one event stream can
hold a whole tree of runs. Everything that watches a run — ``on_event=``, the notebook
view, ``Run.events`` — consumes these and nothing else.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .messages import (
    AssistantMessage,
    RunStopReason,
    ToolCall,
    ToolResultMessage,
    ToolResultStatus,
    UserMessage,
)

__all__ = [
    "EVENT_TYPES",
    "AgentEndEvent",
    "AgentEvent",
    "AgentStartEvent",
    "AssistantUpdate",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "ToolExecutionEndEvent",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "TurnEndEvent",
    "TurnStartEvent",
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
]


class AssistantUpdate(BaseModel):
    """One step of an assistant message streaming in.

    ``content_index`` is the block of :attr:`AssistantMessage.content` it concerns.
    ``delta`` is new text, thinking or raw argument JSON. ``tool_call`` is set on
    ``toolcall_start`` (name and id known, arguments not yet) and ``toolcall_end`` (parsed
    arguments). ``notice`` carries a message from the provider layer, such as a control the
    provider cannot express (``delta`` holds the text).
    """

    model_config = ConfigDict(frozen=True)

    kind: UpdateKind
    content_index: int = 0
    delta: str = ""
    tool_call: ToolCall | None = None


class _Event(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    run_id: str
    depth: int = 0
    parent_tool_call_id: str | None = None
    timestamp: float = Field(default_factory=time.time)


class AgentStartEvent(_Event):
    type: Literal["agent_start"] = "agent_start"
    model: str = ""
    tools: list[str] = Field(default_factory=list)


class TurnStartEvent(_Event):
    type: Literal["turn_start"] = "turn_start"
    turn: int


class MessageStartEvent(_Event):
    type: Literal["message_start"] = "message_start"
    message: AnyMessage


class MessageUpdateEvent(_Event):
    """``message`` is the partial assistant message so far (the same object each time)."""

    type: Literal["message_update"] = "message_update"
    message: AssistantMessage
    update: AssistantUpdate


class MessageEndEvent(_Event):
    type: Literal["message_end"] = "message_end"
    message: AnyMessage


class ToolExecutionStartEvent(_Event):
    type: Literal["tool_execution_start"] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any]


class ToolExecutionUpdateEvent(_Event):
    """Progress of a running call.

    ``status`` is ``"awaiting_approval"``, ``"approved"``, ``"running"`` or
    ``"progress"``; ``data`` is whatever the tool reported through
    :meth:`ToolContext.report <openprogram_jupyter.ToolContext.report>`.
    """

    type: Literal["tool_execution_update"] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    status: str
    data: Any = None


class ToolExecutionEndEvent(_Event):
    type: Literal["tool_execution_end"] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: ToolResultMessage
    status: ToolResultStatus
    duration: float


class TurnEndEvent(_Event):
    type: Literal["turn_end"] = "turn_end"
    turn: int
    message: AssistantMessage
    tool_results: list[ToolResultMessage] = Field(default_factory=list)


class AgentEndEvent(_Event):
    """The run ended. ``messages`` are the messages this run added, in order."""

    type: Literal["agent_end"] = "agent_end"
    messages: list[AnyMessage]
    stop_reason: RunStopReason
    error_message: str | None = None


AgentEvent = (
    AgentStartEvent
    | TurnStartEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
    | TurnEndEvent
    | AgentEndEvent
)

EVENT_TYPES = (
    "agent_start",
    "turn_start",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "turn_end",
    "agent_end",
)
