"""Compaction: before a request would cross the run's ``compact`` threshold, older rounds
of the conversation are replaced by one summary the model writes.

What stays verbatim: the system prompt (never part of the conversation), every pinned
message (``op.pin``: a user message, or a tool result together with the reply that made
its call and that reply's other results) and the last ``keep_last`` groups. A group is a
user message alone, or a reply with the results of its calls — never split, so no call
loses its result. The summary is a user message put where the first replaced message was;
a later compaction replaces it too, so the next summary is written from the earlier one
and the rounds that have grown old since.

Each compaction is recorded as a :class:`~openprogram_jupyter.core.events.Compaction`
(the summary is the model's reply, like any other), announced twice by a
:class:`~openprogram_jupyter.core.events.CompactionEvent`: first when the request's size
crosses the threshold, then with the record. A fork or a rerun applies the record again
(:func:`apply_compaction`) instead of asking the model: the same requests follow.

``compact="provider"`` asks the provider to compact by itself past
:data:`PROVIDER_FRACTION` of the window when the run's model has its own compaction
(:func:`provider_compacts`; the request carries the threshold and the provider module
reads back what it did); for any other model the package compacts at that threshold as
above, and the first round says so (:func:`fallback_notice`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..core._masking import ReplyMask
from ..core.events import Compaction, CompactionEvent
from ..core.messages import AssistantMessage, ToolResultMessage, Usage, UserMessage
from ..models.base import MessageBuilder, Model, ModelRequest
from ._context import CHARS_PER_TOKEN
from ._loop_state import LoopConfig, LoopState
from ._streaming import stream_into

__all__ = [
    "PROVIDER_FRACTION",
    "SUMMARY_HEAD",
    "apply_compaction",
    "compact_if_due",
    "compacted_history",
    "compaction_threshold",
    "fallback_notice",
    "groups",
    "provider_compacts",
    "replay_compaction",
    "to_replace",
]

SUMMARY_SYSTEM = (
    "You compact the older part of a conversation between a user, an assistant and its tools, so that the "
    "assistant can go on without it. Write a summary that keeps every fact, number, name, decision, open question "
    "and unfinished step the assistant will need, and what each tool call found. Write only the summary."
)
SUMMARY_HEAD = "[Summary of {count} earlier messages, written when the conversation was compacted]\n"
PROVIDER_FRACTION = 0.8  # compact="provider" compacts past this share of the window
_LINE_CHARS = 100  # each replaced message's line in the list a view shows
_SUMMARY_INPUT_SHARE = 2  # the summary request carries at most 1/2 of the window


def compaction_threshold(compact: float | int | str | None, window: int | None) -> int | None:
    """The request size in tokens past which the conversation is compacted: ``compact``
    itself when it is a token count, that fraction of ``window`` when it is a fraction
    (``None`` without a window), :data:`PROVIDER_FRACTION` of ``window`` for
    ``"provider"``, ``None`` when compaction is off."""
    if compact == "provider":
        compact = PROVIDER_FRACTION
    if compact is None or isinstance(compact, str) or (isinstance(compact, float) and window is None):
        return None
    return int(compact * window) if isinstance(compact, float) and window is not None else int(compact)


def provider_compacts(config: LoopConfig) -> bool:
    """Whether the run asks for the provider's own compaction (``compact="provider"``) and
    its model has one (:attr:`Model.native_compaction`): the request then carries the
    threshold and the package does not compact."""
    return config.spec.settings["compact"] == "provider" and config.model.native_compaction


def fallback_notice(config: LoopConfig, window: int | None) -> str | None:
    """The first round's notice when the run asks for the provider's own compaction and
    its model has none: the package's compaction runs instead, at the threshold it names.
    ``None`` otherwise."""
    if config.spec.settings["compact"] != "provider" or config.model.native_compaction:
        return None
    threshold = compaction_threshold("provider", window)
    at = f"past {threshold:,} tokens" if threshold is not None else "never: the model's context window is not known"
    return (
        f"{config.model.name} has no compaction of its own: the package's compaction runs instead, {at} "
        "(compact='provider' asked)"
    )


def groups(conversation: Sequence[Any]) -> list[range]:
    """The conversation's groups in order: a reply with the results that follow it, or any
    other message alone."""
    spans: list[range] = []
    start = 0
    while start < len(conversation):
        end = start + 1
        if isinstance(conversation[start], AssistantMessage):
            while end < len(conversation) and isinstance(conversation[end], ToolResultMessage):
                end += 1
        spans.append(range(start, end))
        start = end
    return spans


def to_replace(conversation: Sequence[Any], keep_last: int) -> list[int]:
    """The positions compaction replaces: every message of the groups before the last
    ``keep_last`` that holds no pinned message."""
    spans = groups(conversation)
    old = spans[: max(len(spans) - keep_last, 0)]
    return [
        index
        for span in old
        if not any(getattr(conversation[index], "pinned", False) for index in span)
        for index in span
    ]


def summary_message(compaction: Compaction) -> UserMessage:
    """The user message that stands for the replaced messages in the conversation."""
    return UserMessage(
        content=SUMMARY_HEAD.format(count=len(compaction.dropped)) + compaction.summary.text,
        timestamp=compaction.summary.timestamp,
    )


def apply_compaction(conversation: Sequence[Any], compaction: Compaction) -> list[Any]:
    """A new list: ``conversation`` with the messages at ``compaction.dropped`` replaced by
    its summary message, put where the first of them was. ``conversation`` itself is left
    as it was: each round's captured request (``models/_wire.AskedRequest``) holds the list
    it was sent from and how much of it it saw."""
    dropped = set(compaction.dropped)
    kept = [message for index, message in enumerate(conversation) if index not in dropped]
    kept.insert(min(compaction.dropped), summary_message(compaction))
    return kept


def compacted_history(conversation: Sequence[Any], compactions: Sequence[Compaction]) -> list[Any]:
    """``conversation`` — a run's history followed by every message it added — with each of
    ``compactions`` applied in order: the conversation the run's next request would carry
    (what a session keeps for its next cell). ``ValueError`` names a compaction whose
    positions the conversation does not hold (a record that is not this conversation's)."""
    current = list(conversation)
    for number, compaction in enumerate(compactions, 1):
        dropped = compaction.dropped
        if not dropped or min(dropped) < 0 or max(dropped) >= len(current) or len(set(dropped)) != len(dropped):
            raise ValueError(
                f"compaction {number} replaces positions {dropped[:5]}{'...' * (len(dropped) > 5)} of a "
                f"conversation of {len(current)} messages, which it does not fit"
            )
        current = apply_compaction(current, compaction)
    return current


async def compact_if_due(config: LoopConfig, state: LoopState, size: Callable[[], int], window: int | None) -> None:
    """Compact ``state.conversation`` when the next request's estimated ``size()`` is past
    the run's threshold: announce it, ask the model (or ``compact_model``) for the summary,
    apply it and announce the record. Nothing to replace (all pinned or recent), or a
    failed summary, is announced as ``failed`` and the conversation stays as it was."""
    settings = config.spec.settings
    threshold = compaction_threshold(settings["compact"], window)
    if threshold is None:
        return
    tokens = size()
    if tokens <= threshold:
        return
    emit = config.calls.emit
    emit(CompactionEvent(round=state.rounds, tokens=tokens, threshold=threshold))
    dropped = to_replace(state.conversation, settings["keep_last"] or 0)
    if not dropped:
        emit(
            CompactionEvent(
                round=state.rounds,
                tokens=tokens,
                threshold=threshold,
                failed=f"nothing to compact: every older message is pinned or among the last {settings['keep_last']} "
                "rounds kept",
            )
        )
        return
    started = time.perf_counter()
    messages = [state.conversation[index] for index in dropped]
    summary = await _summary(_summary_model(config), _summary_request(messages, window))
    if summary.stop_reason in ("error", "aborted") or not summary.text.strip():
        why = summary.error_message or "the model wrote no summary"
        emit(CompactionEvent(round=state.rounds, tokens=tokens, threshold=threshold, failed=f"not compacted: {why}"))
        return
    record = Compaction(
        round=state.rounds,
        dropped=dropped,
        dropped_lines=[_line(message) for message in messages],
        summary=summary,
        tokens_before=tokens,
        threshold=threshold,
        seconds=round(time.perf_counter() - started, 6),
    )
    state.conversation = apply_compaction(state.conversation, record)
    state.compacted_at = len(state.conversation)
    record = record.model_copy(update={"tokens_after": size()})
    emit(CompactionEvent(round=state.rounds, tokens=tokens, threshold=threshold, compaction=record))


def replay_compaction(config: LoopConfig, state: LoopState, compaction: Compaction) -> None:
    """Apply a recorded ``compaction`` again (a fork's or a rerun's), announced as the
    original was; its summary's cost is not counted again."""
    free = compaction.model_copy(update={"summary": compaction.summary.model_copy(update={"usage": Usage(cost=0.0)})})
    emit = config.calls.emit
    emit(CompactionEvent(round=state.rounds, tokens=compaction.tokens_before, threshold=compaction.threshold))
    state.conversation = apply_compaction(state.conversation, free)
    state.compacted_at = len(state.conversation)
    emit(
        CompactionEvent(
            round=state.rounds, tokens=compaction.tokens_before, threshold=compaction.threshold, compaction=free
        )
    )


def _summary_model(config: LoopConfig) -> Model:
    name = config.spec.settings["compact_model"]
    if name is None:
        return config.model
    from ..models import resolve_model

    return resolve_model(name)


def _summary_request(messages: Sequence[Any], window: int | None) -> ModelRequest:
    """The request that asks for the summary of ``messages``: each written out as text,
    cut so that together they take at most half of ``window``."""
    budget = (window or 100_000) * CHARS_PER_TOKEN // _SUMMARY_INPUT_SHARE
    each = max(300, budget // max(len(messages), 1))
    written = "\n\n".join(_cut(_written(message), each) for message in messages)
    prompt = f"Summarise these {len(messages)} earlier messages of the conversation:\n\n{written}"
    return ModelRequest(messages=[UserMessage(content=prompt)], system=SUMMARY_SYSTEM, tools=[], tool_choice="auto")


async def _summary(model: Model, request: ModelRequest) -> AssistantMessage:
    """The model's reply to ``request``, streamed whole and masked; a failure is a failed
    reply, not an exception (a stop still cancels)."""
    builder = MessageBuilder(model=model.name)
    await stream_into(model, request, builder)
    ReplyMask().finish(builder.message)
    return builder.message


def _written(message: Any) -> str:
    """``message`` as the summary request writes it out."""
    if isinstance(message, UserMessage):
        return f"user: {message.text}"
    if isinstance(message, ToolResultMessage):
        return f"result of {message.tool_name} ({message.tool_call_id}): {message.text}"
    parts = [f"assistant: {message.text}"] if message.text else []
    parts += [
        f"assistant called {call.name}({json.dumps(call.arguments, ensure_ascii=False, default=str)})"
        for call in message.tool_calls
    ]
    return "\n".join(parts) or "assistant: (nothing)"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]} [... {len(text) - limit:,} characters cut]"


def _line(message: Any) -> str:
    """``message`` in one line of at most :data:`_LINE_CHARS` characters."""
    text = " ".join(_written(message).split())
    return text if len(text) <= _LINE_CHARS else text[: _LINE_CHARS - 1] + "…"
