"""Folding a run's events into its tree: :class:`TreeBuilder`.

Folding never raises on events in an unexpected order (a view must survive a core that
emits a little differently): a call seen first at ``tool_execution_start`` is created
then, a round without ``turn_start`` is opened by its ``message_start``. What it folds is
fixed by two explicit tables: :data:`EVENT_HANDLERS` (one handler per event class of
:data:`~openprogram_jupyter.core.events.EVENT_TYPES`) and :data:`UPDATE_HANDLERS` (one per
:attr:`AssistantUpdate.kind <openprogram_jupyter.core.events.AssistantUpdate.kind>`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from ...core.errors import ProviderError
from ...core.events import (
    AgentEndEvent,
    AgentStartEvent,
    AssistantUpdate,
    CompactionEvent,
    DivergenceEvent,
    Event,
    EventHandlers,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
    UpdateKind,
)
from ...core.messages import AssistantMessage, ImageContent, ToolCall, ToolResultMessage, UserMessage
from ._node_folding import (
    complete_arguments,
    fold_block_delta,
    fold_call_delta,
    fold_compaction,
    fold_execution_end,
    fold_execution_update,
    fold_notice,
    fold_retry_wait,
    reconcile,
    take_result,
)
from .nodes import CallNode, NoticeNode, RetryNode, RoundNode, RunNode, UserNode

if TYPE_CHECKING:
    from ...core._engine_shapes import RunRecord

__all__ = ["EVENT_HANDLERS", "UPDATE_HANDLERS", "TreeBuilder", "tree_from_messages"]

_ToolEvent = ToolExecutionStartEvent | ToolExecutionUpdateEvent | ToolExecutionEndEvent


class TreeBuilder:
    """Folds events, in the order a run emits them, into a :class:`RunNode` tree.

    ``root`` is the first top-level run seen (``depth == 0``); runs with ``depth > 0`` hang
    under the call named by their ``parent_tool_call_id`` (or under the root's last call
    when that call is unknown). ``changed`` is set by every event that altered the tree;
    the live view clears it after each redraw.
    """

    def __init__(self) -> None:
        self.root: RunNode | None = None
        self.runs: dict[str, RunNode] = {}
        self.calls: dict[str, CallNode] = {}
        self._open_round: dict[str, RoundNode] = {}
        self._waits: dict[RoundNode, RetryNode] = {}  # the wait each round is in, if any
        self.changed = False
        self.events_seen = 0

    # -- entry point ------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Fold one event, through :data:`EVENT_HANDLERS`.

        Raises :class:`~openprogram_jupyter.core.events.UnhandledKindError` for an object
        whose class is not a registered event type.
        """
        handler = EVENT_HANDLERS.handler_for(event)
        self.events_seen += 1
        if handler is not None:
            handler(self, event)
            self.changed = True

    def apply_all(self, events: Iterable[Event]) -> TreeBuilder:
        for event in events:
            self.apply(event)
        return self

    # -- runs -------------------------------------------------------------------------

    def _run(self, event: Event) -> RunNode:
        run = self.runs.get(event.run_id)
        if run is None:
            run = RunNode(
                run_id=event.run_id,
                depth=event.depth,
                parent_tool_call_id=event.parent_tool_call_id,
                started_at=event.timestamp,
            )
            self.runs[event.run_id] = run
            self._attach(run)
        return run

    def _attach(self, run: RunNode) -> None:
        if self.root is None and run.depth == 0:
            self.root = run
            return
        parent = self.calls.get(run.parent_tool_call_id or "")
        if parent is None and self.root is not None:
            calls = list(self.root.calls())
            parent = calls[-1] if calls else None
        if parent is not None:
            parent.children.append(run)
            parent.touch()
        elif self.root is None:
            self.root = run

    def on_agent_start(self, event: AgentStartEvent) -> None:
        run = self._run(event)
        run.model = event.model or run.model
        run.tools = list(event.tools or [])
        run.max_cost, run.max_tokens = event.max_cost, event.max_tokens
        run.context_window, run.course_context = event.context_window, list(event.course_context)
        run.started_at = event.timestamp
        run.touch()

    def on_agent_end(self, event: AgentEndEvent) -> None:
        run = self._run(event)
        run.stop_reason = event.stop_reason
        run.error = ProviderError.of_reply(event.error_message, event.error) if event.error_message else None
        run.limit = event.limit
        run.ended_at = event.timestamp
        round_ = self._open_round.pop(run.run_id, None)
        if round_ is not None:
            self._end_wait(round_, event.timestamp, stopped=event.stop_reason == "aborted")
            round_.finished = True
            round_.touch()
        run.touch()

    # -- rounds and messages ----------------------------------------------------------

    def _round(self, run: RunNode, number: int | None = None) -> RoundNode:
        round_ = self._open_round.get(run.run_id)
        if round_ is None:
            number = number if number is not None else len(run.rounds) + 1
            round_ = RoundNode(number=number)
            run.timeline.append(round_)
            self._open_round[run.run_id] = round_
            run.touch()
        return round_

    def on_turn_start(self, event: TurnStartEvent) -> None:
        run = self._run(event)
        previous = self._open_round.pop(run.run_id, None)
        if previous is not None:
            previous.finished = True
        self._round(run, event.turn).final_for = event.final_for

    def on_turn_end(self, event: TurnEndEvent) -> None:
        run = self._run(event)
        round_ = self._open_round.pop(run.run_id, None)
        if round_ is None:
            return
        for result in event.tool_results or []:
            self.set_result(result, run)
        round_.finished = True
        round_.touch()

    def on_message_start(self, event: MessageStartEvent) -> None:
        run = self._run(event)
        message = event.message
        if isinstance(message, UserMessage):
            kind: Literal["prompt", "message"] = "prompt" if not run.timeline else "message"
            content = message.content
            images = sum(isinstance(b, ImageContent) for b in content) if isinstance(content, list) else 0
            run.timeline.append(UserNode(text=message.text, images=images, kind=kind))
            run.touch()
        elif isinstance(message, AssistantMessage):
            self._round(run)

    def on_message_update(self, event: MessageUpdateEvent) -> None:
        round_ = self._round(self._run(event))
        self._end_wait(round_, event.timestamp)
        fold = UPDATE_HANDLERS[event.update.kind]
        if fold is not None:
            fold(self, round_, event.update)

    def on_message_end(self, event: MessageEndEvent) -> None:
        run = self._run(event)
        message = event.message
        if isinstance(message, AssistantMessage):
            round_ = self._round(run)
            self._end_wait(round_, event.timestamp, stopped=message.stop_reason == "aborted")
            self.reconcile(round_, message)
            round_.stop_reason = message.stop_reason
            round_.error = _reply_error(message)
            round_.usage = message.usage
            run.usage = run.usage + message.usage
            round_.touch()
            run.touch()
        elif isinstance(message, ToolResultMessage):
            self.set_result(message, run)

    def reconcile(self, round_: RoundNode, message: AssistantMessage) -> None:
        """Make the round's items match the final message (:func:`._call_folding.reconcile`)."""
        reconcile(round_, message, lambda block: self._call_for(block, round_))

    # -- assistant updates (UPDATE_HANDLERS) ---------------------------------------------

    def on_block_delta(self, round_: RoundNode, update: AssistantUpdate) -> None:
        fold_block_delta(round_, update)

    def on_call_start(self, round_: RoundNode, update: AssistantUpdate) -> None:
        if update.tool_call is not None:
            round_.by_index[update.content_index] = self._call_for(update.tool_call, round_)

    def on_call_delta(self, round_: RoundNode, update: AssistantUpdate) -> None:
        fold_call_delta(round_, update)

    def on_call_end(self, round_: RoundNode, update: AssistantUpdate) -> None:
        if update.tool_call is not None:
            call = self._call_for(update.tool_call, round_)
            round_.by_index[update.content_index] = call
            complete_arguments(call, update.tool_call)

    def on_notice(self, round_: RoundNode, update: AssistantUpdate) -> None:
        fold_notice(round_, update)

    def on_retry_wait(self, round_: RoundNode, update: AssistantUpdate) -> None:
        wait = fold_retry_wait(round_, update)
        if wait is not None:
            self._waits[round_] = wait

    def _end_wait(self, round_: RoundNode, at: float, *, stopped: bool = False) -> None:
        """The round went on (or ended) at ``at``: its wait, if it is in one, is over."""
        wait = self._waits.pop(round_, None)
        if wait is not None:
            wait.end(at, stopped=stopped)
            round_.touch()

    # -- calls ------------------------------------------------------------------------

    def _call_for(self, tool_call: ToolCall, round_: RoundNode | None) -> CallNode:
        call_id = tool_call.id or f"call_{len(self.calls) + 1}"
        call = self.calls.get(call_id)
        if call is None:
            call = CallNode(id=call_id, name=tool_call.name)
            self.calls[call_id] = call
            if round_ is not None:
                round_.items.append(call)
                round_.touch()
        return call

    def _lookup_call(self, event: _ToolEvent) -> CallNode:
        call = self.calls.get(event.tool_call_id)
        if call is None:
            run = self._run(event)
            round_ = self._round(run)
            call = self._call_for(ToolCall(id=event.tool_call_id, name=event.tool_name), round_)
        return call

    def on_tool_execution_start(self, event: ToolExecutionStartEvent) -> None:
        call = self._lookup_call(event)
        if call.arguments is None:
            call.arguments = dict(event.arguments or {})
        call.status = "running"
        call.started_at = event.timestamp
        call.touch()

    def on_tool_execution_update(self, event: ToolExecutionUpdateEvent) -> None:
        fold_execution_update(self._lookup_call(event), event)

    def on_tool_execution_end(self, event: ToolExecutionEndEvent) -> None:
        fold_execution_end(self._lookup_call(event), event)

    def on_compaction(self, event: CompactionEvent) -> None:
        fold_compaction(self._run(event), self._round(self._run(event)), event)

    def on_divergence(self, event: DivergenceEvent) -> None:
        run = self._run(event)
        run.divergence = event.divergence
        diverged = event.divergence
        if diverged.tool_call_id is not None:
            call = self.calls.get(diverged.tool_call_id) or self._call_for(
                ToolCall(id=diverged.tool_call_id, name=diverged.tool_name or "?"), self._round(run)
            )
            call.divergence = diverged
            call.touch()
        else:
            round_ = self._round(run)
            round_.items.append(NoticeNode(text=diverged.why))
            round_.touch()
        run.touch()

    def set_result(self, result: ToolResultMessage, run: RunNode) -> None:
        """Give ``result`` to its call (made in ``run``'s open round if unknown), unless the
        call has one already (:func:`._call_folding.take_result`)."""
        call = self.calls.get(result.tool_call_id)
        if call is None:
            call = self._call_for(ToolCall(id=result.tool_call_id, name=result.tool_name), self._round(run))
        take_result(call, result)


EVENT_HANDLERS: EventHandlers[Callable[[TreeBuilder, Any], None]] = EventHandlers(
    "the run tree (TreeBuilder)",
    {
        AgentStartEvent: TreeBuilder.on_agent_start,
        TurnStartEvent: TreeBuilder.on_turn_start,
        MessageStartEvent: TreeBuilder.on_message_start,
        MessageUpdateEvent: TreeBuilder.on_message_update,
        MessageEndEvent: TreeBuilder.on_message_end,
        ToolExecutionStartEvent: TreeBuilder.on_tool_execution_start,
        ToolExecutionUpdateEvent: TreeBuilder.on_tool_execution_update,
        ToolExecutionEndEvent: TreeBuilder.on_tool_execution_end,
        CompactionEvent: TreeBuilder.on_compaction,
        DivergenceEvent: TreeBuilder.on_divergence,
        TurnEndEvent: TreeBuilder.on_turn_end,
        AgentEndEvent: TreeBuilder.on_agent_end,
    },
)
"""How the tree folds each event type."""

UpdateHandler = Callable[[TreeBuilder, RoundNode, AssistantUpdate], None]

UPDATE_HANDLERS: Mapping[UpdateKind, UpdateHandler | None] = MappingProxyType(
    {
        "text_start": TreeBuilder.on_block_delta,
        "text_delta": TreeBuilder.on_block_delta,
        "text_end": None,  # nothing to fold: the block holds its text already
        "thinking_start": TreeBuilder.on_block_delta,
        "thinking_delta": TreeBuilder.on_block_delta,
        "thinking_end": None,
        "toolcall_start": TreeBuilder.on_call_start,
        "toolcall_delta": TreeBuilder.on_call_delta,
        "toolcall_end": TreeBuilder.on_call_end,
        "notice": TreeBuilder.on_notice,
        "retry_wait": TreeBuilder.on_retry_wait,
    }
)
"""How a ``message_update`` folds, by its update's kind (``None``: deliberately nothing)."""


def tree_from_messages(run: RunRecord) -> RunNode:
    """The tree of a ``Run`` that has no events (built by hand, or loaded from messages).

    Rounds are finished; ``stop_reason`` is the Run's, or ``"stop"``.
    """
    builder = TreeBuilder()
    root = RunNode(run_id=str(getattr(run, "run_id", "run")), model=str(getattr(run, "model", "")))
    builder.root = root
    builder.runs[root.run_id] = root
    for message in getattr(run, "messages", None) or []:
        if isinstance(message, UserMessage):
            root.timeline.append(UserNode(text=message.text, kind="prompt" if not root.timeline else "message"))
        elif isinstance(message, AssistantMessage):
            round_ = RoundNode(number=len(root.rounds) + 1, finished=True)
            root.timeline.append(round_)
            builder.reconcile(round_, message)
            round_.stop_reason = message.stop_reason
            round_.error = _reply_error(message)
            round_.usage = message.usage
        elif isinstance(message, ToolResultMessage):
            builder.set_result(message, root)
    root.stop_reason = getattr(run, "stop_reason", None) or "stop"
    return root


def _reply_error(message: AssistantMessage) -> ProviderError | None:
    """A failed reply's error, as the views read it (``None`` for a reply that did not fail)."""
    return ProviderError.of_reply(message.error_message, message.error) if message.error_message else None
