"""How the tree's nodes take what the events and the final reply say of them.

Functions over the tree's nodes, without the builder's bookkeeping (which run, which open
round, which call by id): :func:`reconcile` makes a round match its final reply,
:func:`complete_arguments` gives a call its parsed arguments, the ``fold_*`` functions
fold a streamed update into a round, :func:`fold_execution_update`
and :func:`fold_execution_end` fold a tool's execution events, and :func:`take_result` a
result message the events did not bring.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from ...core._json import JsonObject
from ...core.events import AssistantUpdate, CompactionEvent, ToolExecutionEndEvent, ToolExecutionUpdateEvent
from ...core.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from .nodes import Approval, Block, CallNode, NoticeNode, RetryNode, RoundItem, RoundNode, RunNode

__all__ = [
    "complete_arguments",
    "fold_block_delta",
    "fold_call_delta",
    "fold_compaction",
    "fold_execution_end",
    "fold_execution_update",
    "fold_notice",
    "fold_retry_wait",
    "reconcile",
    "take_result",
]


def reconcile(round_: RoundNode, message: AssistantMessage, call_for: Callable[[ToolCall], CallNode]) -> None:
    """Make the round's items match the final message (it is the authority).

    Blocks are reused by kind, in order, so a view keeps their widgets; calls are found
    (or made) by ``call_for``; notices and retry waits (not part of the message) stay, after
    everything else.
    """
    old_blocks = [item for item in round_.items if isinstance(item, Block)]
    notices = [item for item in round_.items if isinstance(item, (NoticeNode, RetryNode))]
    items: list[RoundItem] = []
    for block in message.content:
        if isinstance(block, ToolCall):
            call = call_for(block)
            complete_arguments(call, block)
            items.append(call)
            continue
        kind: Literal["text", "thinking"] = "text" if isinstance(block, TextContent) else "thinking"
        text = block.text if isinstance(block, TextContent) else block.thinking
        if kind == "thinking" and not text:  # kept only to be sent back (redacted, a server tool's block)
            continue
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


def fold_block_delta(round_: RoundNode, update: AssistantUpdate) -> None:
    """A text or thinking piece: added to its block (made, and added to the round, if new)."""
    block = round_.by_index.get(update.content_index)
    if not isinstance(block, Block):
        block = Block(kind="text" if update.kind.startswith("text") else "thinking")
        round_.by_index[update.content_index] = block
        round_.items.append(block)
        round_.touch()
    if update.delta:
        block.parts.append(update.delta)
        block.touch()


def fold_call_delta(round_: RoundNode, update: AssistantUpdate) -> None:
    """A piece of a call's arguments as streamed (raw JSON text)."""
    call = round_.by_index.get(update.content_index)
    if isinstance(call, CallNode):
        call.raw_arguments.append(update.delta)
        call.touch()


def fold_notice(round_: RoundNode, update: AssistantUpdate) -> None:
    """A notice the run gave in the round (a line of its own)."""
    if update.delta:
        round_.items.append(NoticeNode(text=update.delta))
        round_.touch()


def fold_retry_wait(round_: RoundNode, update: AssistantUpdate) -> RetryNode | None:
    """A wait before a retry, added to the round; returns its node (``None``: no wait)."""
    wait = update.retry_wait
    if wait is None:
        return None
    node = RetryNode(
        reason=wait.reason, seconds=wait.seconds, until=wait.until, retry=wait.retry, max_retries=wait.max_retries
    )
    round_.items.append(node)
    round_.touch()
    return node


def complete_arguments(call: CallNode, tool_call: ToolCall) -> None:
    """The call's arguments as the reply parsed them (and what was wrong with them); a call
    still streaming is now queued."""
    call.arguments = dict(tool_call.arguments)
    problem = (tool_call.provider_data or {}).get("arguments_error")
    if problem:
        call.arguments_error = str(problem)
    if call.status == "streaming":
        call.status = "queued"
    call.touch()


def fold_execution_update(call: CallNode, event: ToolExecutionUpdateEvent) -> None:
    """Waiting for approval, approved or running, progress reported, output written, the
    tool's hints about itself."""
    if event.status == "awaiting_approval":
        call.status = "awaiting_approval"
    elif event.status in ("approved", "running"):
        call.status = "running"
        if event.status == "approved":
            call.approval = "approved"
    elif event.status == "progress":
        call.progress.append(event.data)
    elif event.status == "hints" and isinstance(event.data, list):
        call.hints = [str(hint) for hint in event.data]
    elif event.status == "output":
        call.add_output(event.data)
    call.touch()


def fold_execution_end(call: CallNode, event: ToolExecutionEndEvent) -> None:
    """The call's end: its status, result, output, time, and the user's answer if any."""
    call.status = event.status
    call.result = event.result
    call.take_output(event.result)
    call.duration = event.duration
    call.approval = _approval_of(event.result) or call.approval
    call.edited_arguments = _edited_arguments_of(event.result)
    call.touch()


def take_result(call: CallNode, result: ToolResultMessage) -> None:
    """``result`` as the call's, unless it has one already (its execution's end came first);
    its duration from the result's details when no event gave one."""
    if call.result is not None:
        return
    call.result = result
    call.take_output(result)
    call.status = result.status
    call.approval = _approval_of(result) or call.approval
    call.edited_arguments = _edited_arguments_of(result)
    if call.duration is None and "duration" in result.details:
        try:
            call.duration = float(result.details["duration"])
        except (TypeError, ValueError):
            pass
    call.touch()


def _approval_of(result: ToolResultMessage | None) -> Approval | None:
    """The user's answer a result records (``details["approval"]``), if it records one."""
    answer = result.details.get("approval") if result is not None else None
    return answer if answer in ("approved", "denied", "edited", "skipped") else None


def _edited_arguments_of(result: ToolResultMessage | None) -> JsonObject | None:
    """The arguments the user ran in place of the model's (``details["edited_arguments"]``)."""
    edited = result.details.get("edited_arguments") if result is not None else None
    return dict(edited) if isinstance(edited, dict) else None


def fold_compaction(run: RunNode, round_: RoundNode, event: CompactionEvent) -> None:
    """Fold one :class:`CompactionEvent` of ``run`` into ``round_``: the first (no record
    yet) adds the notice that the threshold was crossed (``run.compacting`` until done);
    the second makes that notice (or a new one) say what was compacted — ``compacted: 38
    messages (~41k tokens) → summary (~1.2k)``, the summary and the replaced messages'
    lines as its details, its cost added to the run's usage — or why it was not."""
    notice, run.compacting = run.compacting, None
    if notice is None or (event.compaction is None and event.failed is None):
        notice = NoticeNode(
            text=f"context at ~{_k(event.tokens)} tokens, past compact's {_k(event.threshold)}: "
            "compacting older rounds into a summary"
        )
        round_.items.append(notice)
        if event.compaction is None and event.failed is None:
            run.compacting = notice
    record = event.compaction
    if event.failed is not None:
        notice.text = event.failed
    elif record is not None:
        summary_tokens = record.summary.usage.output or len(record.summary.text) // 4
        replaced = max(record.tokens_before - record.tokens_after + summary_tokens, 0)
        notice.text = (
            f"compacted: {len(record.dropped)} messages (~{_k(replaced)} tokens) → summary (~{_k(summary_tokens)})"
            f", {record.seconds:.1f} s"
        )
        notice.details = "summary:\n" + record.summary.text + "\n\nreplaced:\n" + "\n".join(record.dropped_lines)
        run.usage = run.usage + record.summary.usage
    notice.touch()
    round_.touch()
    run.touch()


def _k(tokens: int) -> str:
    """``41k`` for 41,200, ``1.2k`` for 1,200, ``950`` for 950."""
    if tokens >= 10_000:
        return f"{tokens / 1000:.0f}k"
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)
