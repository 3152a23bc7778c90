"""What one run's loop runs with (:class:`LoopConfig`) and where it stands (:class:`LoopState`).

The state holds everything needed to finish the run cleanly at any moment — mid-stream
included — so a stop, a failure or a limit always ends with a valid transcript.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..core._stop import StopSignal
from ..core.messages import AssistantMessage, ReplyError, RunStopReason, ToolCall, ToolResultMessage, Usage, UserMessage
from ..models._wire import WireLog
from ..models.base import MessageBuilder, Model
from ._round_sources import LiveRounds, RoundSource
from .spec import RunSpec
from .tool_execution import CallEnvironment

__all__ = ["AnyMessage", "LoopConfig", "LoopState"]

AnyMessage = UserMessage | AssistantMessage | ToolResultMessage


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
    ``compacted_at``: the conversation's length right after its last compaction; a reply
    before it was counted with the messages compaction replaced, so the context estimate
    does not trust its usage (:func:`._context.request_tokens`).
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
    compacted_at: int = 0  # the conversation's length after the last compaction: replies before it counted more

    def end(self, reason: RunStopReason, *, error_message: str | None = None, error: ReplyError | None = None) -> None:
        """End the run for ``reason`` (with a failed reply's error). What ended it first and
        cannot be undone stays: a stop (``"aborted"``) or a failure (``"error"``) always
        wins, and ``"stop"`` or a limit never replaces a failure, a stop or a divergence."""
        if reason in ("stop", "max_iterations", "max_cost", "max_tokens") and self.stop_reason in (
            "error",
            "aborted",
            "diverged",
        ):
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
        return self.round_calls[self.answered :]
