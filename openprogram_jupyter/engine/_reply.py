"""One reply of the model: the request a round sends, and the reply streamed into the record.

:func:`stream_reply` compacts the conversation first when the run asks for it and the
request would cross its threshold (:mod:`._compaction`) — or, with ``compact="provider"``
and a model that compacts itself, has the request ask the provider to — builds the round's request (the
first round's forced tool choice, then ``"auto"``; the answer round at a limit sends
``"none"`` and says why), refuses one
that would not fit the context window without sending it, streams the reply with every
known secret masked out of each update and of the finished message, reads calls written
as text when the run asks for that, and gives repeated call ids their own.
"""

from __future__ import annotations

from typing import cast

from ..core._masking import ReplyMask
from ..core.events import AssistantUpdate, MessageEndEvent, MessageStartEvent, MessageUpdateEvent
from ..core.messages import AssistantMessage
from ..models._history import without_images
from ..models._text_tool_calls import read_text_tool_calls
from ..models._tool_features import all_strict
from ..models.base import MessageBuilder, ModelRequest, ToolChoice
from ._compaction import compact_if_due, compaction_threshold, fallback_notice, provider_compacts
from ._context import context_refusal, context_window, request_tokens
from ._limits import LimitReached, final_round_system, output_cap, unpriced_notice
from ._loop_state import LoopConfig, LoopState
from ._streaming import stream_into

__all__ = ["notice_unpriced", "stream_reply"]


def notice_unpriced(config: LoopConfig, state: LoopState, message: AssistantMessage) -> None:
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


def _request(config: LoopConfig, state: LoopState, final: LimitReached | None, *, wired: bool = True) -> ModelRequest:
    """What this round sends: the first round's forced choice, then ``"auto"`` (``"none"``
    stays); the last round at a limit sends ``"none"`` and says why in the system prompt.
    ``wired``: the run's wire capture records it (not for a request only measured)."""
    menu = config.calls.menu
    forced = cast(ToolChoice, config.spec.settings["tool_choice"])  # normalised by its check
    choice = forced if state.rounds == 1 or forced == "none" else "auto"
    system = config.spec.settings["system"]
    cap = None
    if final is not None:  # the answer at a limit: the one round a budget does not cap
        choice, system = "none", final_round_system(system, final)
    else:
        budget = output_cap(config.spec.settings, config.spent(), config.model.name, _last_input(state))
        caps = [c for c in (budget, config.spec.settings["max_output_tokens"]) if c is not None]
        cap = min(caps) if caps else None
    strict = config.spec.settings["strict_tools"]
    deferred = [t.spec for t in menu.deferred_tools()] if config.spec.settings["tool_search"] == "provider" else []
    request = ModelRequest(
        messages=state.conversation if config.spec.settings["images_to_model"] else without_images(state.conversation),
        system=system,
        tools=all_strict(menu.specs()) if strict else menu.specs(),
        deferred_tools=all_strict(deferred) if strict else deferred,
        tool_choice=choice,
        parallel_tool_calls=config.spec.settings["parallel_tool_calls"],
        allowed_tools=config.spec.settings["allowed_tools"],
        menu_explicit=menu.explicit,
        max_output_tokens=cap,
        prompt_cache=config.spec.settings["prompt_cache"],
        reasoning=config.spec.settings["reasoning"],
        temperature=config.spec.settings["temperature"],
        stop_sequences=config.spec.settings["stop_sequences"] or (),
    )
    if provider_compacts(config):  # the provider compacts past this itself, and its reply says so
        request.provider_compaction = compaction_threshold(
            "provider", context_window(config.spec.settings, config.model)
        )
    if wired and config.wire is not None:
        request.wire = config.wire.recorder(state.rounds, request)
    return request


async def stream_reply(config: LoopConfig, state: LoopState, final: LimitReached | None = None) -> AssistantMessage:
    """Stream one reply, emitting message_start / message_update* / message_end; every
    known secret is masked out of the updates and the reply (:class:`ReplyMask`). The
    last round at a limit (``final``) starts with a notice naming the limit."""
    emit = config.calls.emit
    tool_changes = await config.calls.menu.take_toolset_changes()  # an MCP server's, before this request
    window = context_window(config.spec.settings, config.model)
    native = provider_compacts(config)
    if not native:
        await compact_if_due(
            config,
            state,
            lambda: request_tokens(_request(config, state, final, wired=False), state.compacted_at),
            window,
        )
    request = _request(config, state, final)
    fallback = fallback_notice(config, window) if state.rounds == 1 else None
    builder = MessageBuilder(model=config.model.name)
    state.streaming = builder
    partial = builder.message
    masking = ReplyMask()
    emit(MessageStartEvent(message=partial))
    for line in ([fallback] if fallback is not None else []) + tool_changes:
        emit(MessageUpdateEvent(message=partial, update=builder.notice(line)))
    if final is not None:
        emit(MessageUpdateEvent(message=partial, update=builder.notice(final.notice)))
    too_big = context_refusal(request, window, config.model.name, state.compacted_at)
    if too_big is not None:
        builder.fail(f"{config.model.name}: {too_big}", kind="context_length")
    else:
        await stream_into(
            config.model,
            request,
            builder,
            lambda update: emit(MessageUpdateEvent(message=partial, update=masking.update(update))),
        )
    for update in masking.held_back():
        emit(MessageUpdateEvent(message=partial, update=update))
    masking.finish(partial)
    if config.spec.settings["text_tool_calls"] and partial.stop_reason not in ("error", "aborted"):
        read_text_tool_calls(partial, config.calls.menu.names)
    renamed = _make_call_ids_unique(partial)
    if renamed:
        emit(
            MessageUpdateEvent(
                message=partial,
                update=builder.notice(
                    "the model gave two or more calls the same id; renamed to keep them apart: " + ", ".join(renamed)
                ),
            )
        )
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
