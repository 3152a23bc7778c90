"""A run as a tree of rounds and calls, built by folding its events.

Both views read this tree and nothing else: the live widget view folds events into it as
they arrive (``TranscriptBuilder.apply``) and redraws what changed; the static renderers
(:mod:`.html`, :mod:`.markdown`, :mod:`.plain`) fold a finished ``Run`` (``transcript_of``)
and print it. So what the live view showed and what is saved cannot drift apart.

The tree::

    RunNode                     one run (the top level, or a nested run)
      timeline: UserNode        the prompt, a steering or follow-up message
                RoundNode       one assistant reply
                  items: Block      streamed text or thinking
                         CallNode   one pick: arguments, status, result, duration
                           children: RunNode ...   runs opened by that call's tool
                         NoticeNode a message from the provider layer

Every node has a ``version`` that goes up when it changes, so a view can redraw only the
nodes whose version moved since it last looked. Folding never raises on events in an
unexpected order (a view must survive a core that emits a little differently): a call
seen first at ``tool_execution_start`` is created then, a round without ``turn_start`` is
opened by its ``message_start``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

__all__ = [
    "Block",
    "CallNode",
    "NoticeNode",
    "RoundNode",
    "RunNode",
    "TranscriptBuilder",
    "UserNode",
    "transcript_of",
]

CallStatus = Literal[
    "streaming",  # the model is still writing the arguments
    "queued",  # arguments complete, not started yet
    "awaiting_approval",
    "running",
    "done",
    "error",
    "skipped",
    "cancelled",
    "interrupted",
    "denied",
]

FINAL_STATUSES = frozenset({"done", "error", "skipped", "cancelled", "interrupted", "denied"})


class _Node:
    version: int

    def touch(self) -> None:
        self.version += 1


@dataclass(eq=False)
class Block(_Node):
    """Streamed text or thinking. ``parts`` grows by deltas; ``text`` joins them."""

    kind: Literal["text", "thinking"]
    parts: list[str] = field(default_factory=list)
    version: int = 0

    @property
    def text(self) -> str:
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    def set_text(self, text: str) -> None:
        if text != self.text:
            self.parts[:] = [text]
            self.touch()


@dataclass(eq=False)
class NoticeNode(_Node):
    text: str
    version: int = 0


@dataclass(eq=False)
class CallNode(_Node):
    """One pick of the model and everything that happened to it."""

    id: str
    name: str
    raw_arguments: list[str] = field(default_factory=list)
    arguments: dict[str, Any] | None = None  # set once the call is complete
    arguments_error: str | None = None
    status: CallStatus = "streaming"
    result: ToolResultMessage | None = None
    duration: float | None = None
    started_at: float | None = None
    progress: list[Any] = field(default_factory=list)
    children: list[RunNode] = field(default_factory=list)
    version: int = 0

    @property
    def raw_arguments_text(self) -> str:
        return "".join(self.raw_arguments)

    @property
    def finished(self) -> bool:
        return self.status in FINAL_STATUSES


@dataclass(eq=False)
class RoundNode(_Node):
    number: int
    items: list[Block | CallNode | NoticeNode] = field(default_factory=list)
    by_index: dict[int, Block | CallNode] = field(default_factory=dict)
    stop_reason: str | None = None  # the assistant message's, once it ended
    error_message: str | None = None
    usage: Usage | None = None
    finished: bool = False
    version: int = 0


@dataclass(eq=False)
class UserNode(_Node):
    text: str
    images: int = 0
    kind: Literal["prompt", "message"] = "prompt"
    version: int = 0


TimelineItem = UserNode | RoundNode


@dataclass(eq=False)
class RunNode(_Node):
    run_id: str
    depth: int = 0
    parent_tool_call_id: str | None = None
    model: str = ""
    tools: list[str] = field(default_factory=list)
    timeline: list[TimelineItem] = field(default_factory=list)
    stop_reason: str | None = None  # None while running
    error: str | None = None
    usage: Usage = field(default_factory=lambda: Usage(cost=0.0))
    started_at: float | None = None
    ended_at: float | None = None
    version: int = 0

    @property
    def rounds(self) -> list[RoundNode]:
        return [item for item in self.timeline if isinstance(item, RoundNode)]

    @property
    def finished(self) -> bool:
        return self.stop_reason is not None

    def calls(self) -> Iterable[CallNode]:
        """Every call of this run, in order (not those of nested runs)."""
        for round_ in self.rounds:
            for item in round_.items:
                if isinstance(item, CallNode):
                    yield item

    @property
    def final_text(self) -> str:
        for round_ in reversed(self.rounds):
            texts = [item.text for item in round_.items if isinstance(item, Block) and item.kind == "text"]
            if any(texts):
                return "".join(texts)
        return ""


class TranscriptBuilder:
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
        self.changed = False
        self.events_seen = 0

    # -- entry point ------------------------------------------------------------------

    def apply(self, event: Any) -> None:
        """Fold one event. Unknown event types are ignored."""
        handler = getattr(self, f"_on_{getattr(event, 'type', '')}", None)
        self.events_seen += 1
        if handler is not None:
            handler(event)
            self.changed = True

    def apply_all(self, events: Iterable[Any]) -> TranscriptBuilder:
        for event in events:
            self.apply(event)
        return self

    # -- runs -------------------------------------------------------------------------

    def _run(self, event: Any) -> RunNode:
        run = self.runs.get(event.run_id)
        if run is None:
            run = RunNode(run_id=event.run_id, depth=event.depth,
                          parent_tool_call_id=event.parent_tool_call_id,
                          started_at=event.timestamp)
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

    def _on_agent_start(self, event: Any) -> None:
        run = self._run(event)
        run.model = getattr(event, "model", "") or run.model
        run.tools = list(getattr(event, "tools", []) or [])
        run.started_at = event.timestamp
        run.touch()

    def _on_agent_end(self, event: Any) -> None:
        run = self._run(event)
        run.stop_reason = event.stop_reason
        run.error = getattr(event, "error_message", None)
        run.ended_at = event.timestamp
        round_ = self._open_round.pop(run.run_id, None)
        if round_ is not None:
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

    def _on_turn_start(self, event: Any) -> None:
        run = self._run(event)
        previous = self._open_round.pop(run.run_id, None)
        if previous is not None:
            previous.finished = True
        self._round(run, getattr(event, "turn", None))

    def _on_turn_end(self, event: Any) -> None:
        run = self._run(event)
        round_ = self._open_round.pop(run.run_id, None)
        if round_ is None:
            return
        for result in getattr(event, "tool_results", []) or []:
            self._set_result(result, run)
        round_.finished = True
        round_.touch()

    def _on_message_start(self, event: Any) -> None:
        run = self._run(event)
        message = event.message
        if isinstance(message, UserMessage):
            kind: Literal["prompt", "message"] = "prompt" if not run.timeline else "message"
            content = message.content
            images = 0 if isinstance(content, str) else sum(isinstance(b, ImageContent) for b in content)
            run.timeline.append(UserNode(text=message.text, images=images, kind=kind))
            run.touch()
        elif isinstance(message, AssistantMessage):
            self._round(run)

    def _on_message_update(self, event: Any) -> None:
        run = self._run(event)
        round_ = self._round(run)
        update = event.update
        kind = update.kind
        if kind in ("text_delta", "thinking_delta", "text_start", "thinking_start"):
            block_kind: Literal["text", "thinking"] = "text" if kind.startswith("text") else "thinking"
            block = round_.by_index.get(update.content_index)
            if not isinstance(block, Block):
                block = Block(kind=block_kind)
                round_.by_index[update.content_index] = block
                round_.items.append(block)
                round_.touch()
            if update.delta:
                block.parts.append(update.delta)
                block.touch()
        elif kind == "toolcall_start" and update.tool_call is not None:
            call = self._call_for(update.tool_call, round_)
            round_.by_index[update.content_index] = call
        elif kind == "toolcall_delta":
            streaming = round_.by_index.get(update.content_index)
            if isinstance(streaming, CallNode):
                streaming.raw_arguments.append(update.delta)
                streaming.touch()
        elif kind == "toolcall_end" and update.tool_call is not None:
            call = self._call_for(update.tool_call, round_)
            round_.by_index[update.content_index] = call
            self._complete_arguments(call, update.tool_call)
        elif kind == "notice" and update.delta:
            round_.items.append(NoticeNode(text=update.delta))
            round_.touch()

    def _on_message_end(self, event: Any) -> None:
        run = self._run(event)
        message = event.message
        if isinstance(message, AssistantMessage):
            round_ = self._round(run)
            self._reconcile(round_, message)
            round_.stop_reason = message.stop_reason
            round_.error_message = message.error_message
            round_.usage = message.usage
            run.usage = run.usage + message.usage
            round_.touch()
            run.touch()
        elif isinstance(message, ToolResultMessage):
            self._set_result(message, run)

    def _reconcile(self, round_: RoundNode, message: AssistantMessage) -> None:
        """Make the round's items match the final message (it is the authority)."""
        old_blocks = [item for item in round_.items if isinstance(item, Block)]
        notices = [item for item in round_.items if isinstance(item, NoticeNode)]
        items: list[Block | CallNode | NoticeNode] = []
        for block in message.content:
            if isinstance(block, ToolCall):
                call = self._call_for(block, round_)
                self._complete_arguments(call, block)
                items.append(call)
            else:
                kind: Literal["text", "thinking"] = "text" if isinstance(block, TextContent) else "thinking"
                text = block.text if isinstance(block, TextContent) else block.thinking
                reuse = next((b for b in old_blocks if b.kind == kind), None)
                if reuse is not None:
                    old_blocks.remove(reuse)
                    reuse.set_text(text)
                    items.append(reuse)
                else:
                    items.append(Block(kind=kind, parts=[text]))
        items.extend(notices)
        round_.items = items
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

    @staticmethod
    def _complete_arguments(call: CallNode, tool_call: ToolCall) -> None:
        call.arguments = dict(tool_call.arguments)
        problem = (tool_call.provider_data or {}).get("arguments_error")
        if problem:
            call.arguments_error = str(problem)
        if call.status == "streaming":
            call.status = "queued"
        call.touch()

    def _lookup_call(self, event: Any) -> CallNode:
        call = self.calls.get(event.tool_call_id)
        if call is None:
            run = self._run(event)
            round_ = self._round(run)
            call = self._call_for(ToolCall(id=event.tool_call_id, name=event.tool_name), round_)
        return call

    def _on_tool_execution_start(self, event: Any) -> None:
        call = self._lookup_call(event)
        if call.arguments is None:
            call.arguments = dict(getattr(event, "arguments", {}) or {})
        call.status = "running"
        call.started_at = event.timestamp
        call.touch()

    def _on_tool_execution_update(self, event: Any) -> None:
        call = self._lookup_call(event)
        status = getattr(event, "status", "")
        if status == "awaiting_approval":
            call.status = "awaiting_approval"
        elif status in ("approved", "running"):
            call.status = "running"
        elif status == "progress":
            call.progress.append(getattr(event, "data", None))
        call.touch()

    def _on_tool_execution_end(self, event: Any) -> None:
        call = self._lookup_call(event)
        call.status = event.status
        call.result = event.result
        call.duration = event.duration
        call.touch()

    def _set_result(self, result: ToolResultMessage, run: RunNode) -> None:
        call = self.calls.get(result.tool_call_id)
        if call is None:
            call = self._call_for(ToolCall(id=result.tool_call_id, name=result.tool_name), self._round(run))
        if call.result is None:
            call.result = result
            call.status = result.status
            if call.duration is None and "duration" in result.details:
                try:
                    call.duration = float(result.details["duration"])
                except (TypeError, ValueError):
                    pass
            call.touch()


# -- building a tree from a finished run ------------------------------------------------


def transcript_of(run: Any) -> RunNode:
    """The tree of a finished ``Run``: its events folded, then checked against the Run.

    A Run without events (built by hand, or loaded from messages) is rebuilt from
    ``run.messages``. The Run's own ``stop_reason``, ``error``, ``usage`` and ``model`` win
    over what the events said, since they are the final word.
    """
    events = list(getattr(run, "events", None) or [])
    builder = TranscriptBuilder().apply_all(events)
    root = builder.root
    if root is None:
        root = _from_messages(run)
    root.model = str(getattr(run, "model", "") or root.model or "")
    stop_reason = getattr(run, "stop_reason", None)
    if stop_reason:
        root.stop_reason = stop_reason
    error = getattr(run, "error", None)
    if error:
        root.error = error
    usage = getattr(run, "usage", None)
    if isinstance(usage, Usage):
        root.usage = usage
    started, ended = getattr(run, "started_at", None), getattr(run, "ended_at", None)
    if started:
        root.started_at = started
    if ended:
        root.ended_at = ended
    _close_open_calls(root)
    return root


def _close_open_calls(run: RunNode) -> None:
    """A finished run has no call still 'running' in its picture (a view of an old run
    must not pretend work is going on): calls without a result read as interrupted."""
    if not run.finished:
        return
    for call in run.calls():
        if not call.finished:
            call.status = "interrupted"
        for child in call.children:
            if child.stop_reason is None:
                child.stop_reason = run.stop_reason
            _close_open_calls(child)


def _from_messages(run: Any) -> RunNode:
    builder = TranscriptBuilder()
    root = RunNode(run_id=str(getattr(run, "run_id", "run")), model=str(getattr(run, "model", "")))
    builder.root = root
    builder.runs[root.run_id] = root
    for message in getattr(run, "messages", None) or []:
        if isinstance(message, UserMessage):
            root.timeline.append(UserNode(text=message.text, kind="prompt" if not root.timeline else "message"))
        elif isinstance(message, AssistantMessage):
            round_ = RoundNode(number=len(root.rounds) + 1, finished=True)
            root.timeline.append(round_)
            builder._reconcile(round_, message)
            round_.stop_reason = message.stop_reason
            round_.error_message = message.error_message
            round_.usage = message.usage
        elif isinstance(message, ToolResultMessage):
            builder._set_result(message, root)
    root.stop_reason = getattr(run, "stop_reason", None) or "stop"
    return root


def elapsed(run: RunNode, now: float | None = None) -> float | None:
    """Seconds the run took, or has taken so far."""
    if run.started_at is None:
        return None
    end = run.ended_at if run.ended_at is not None else (now if now is not None else time.time())
    return max(0.0, end - run.started_at)
