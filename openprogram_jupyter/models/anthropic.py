"""Anthropic Messages (``anthropic:<model>``).

The API's own rules this module relies on are in docs/providers.md, "Wire facts". What
this module does exactly:

- Key: ``api_key=``, else the SDK's own lookup (``ANTHROPIC_API_KEY``, then
  ``ANTHROPIC_AUTH_TOKEN``, ...). Endpoint: ``base_url=``, else ``ANTHROPIC_BASE_URL``.
- ``max_tokens`` (required by the API): the ``max_tokens=`` argument, else 4096 for the
  Claude 3 Opus/Sonnet/Haiku models and 8192 for the rest.
- ``tool_choice``: auto → ``{type: auto}``, required → ``{type: any}``, none →
  ``{type: none}``, forced X → ``{type: tool, name: X}``; ``parallel_tool_calls=False``
  adds ``disable_parallel_tool_use: true`` (except with none). Extended thinking: the
  run setting ``reasoning`` as ``thinking.budget_tokens`` (:mod:`._reasoning`), else the
  model's ``thinking_budget=``, with ``max_tokens`` raised to the budget plus 1,024; the
  API then accepts only tool_choice auto and none: required and forced are sent as
  auto, and a notice says so.
- A history holding tool blocks must declare tools: when the round has none, the tools
  named in the history are declared as stubs and ``tool_choice`` is ``none``.
- Streaming: text, thinking (with its signature) and tool calls with argument
  fragments; a thinking block ends at its ``content_block_stop``, so two thinking blocks
  in a row, or a redacted one and the next, stay two blocks. The end is ``message_stop``; a
  stream without it is an error. An ``error`` event (e.g. ``overloaded_error``) ends the
  round as an error.
- Tool results: all of a turn's results in **one** user message, first in its content,
  each ``tool_result`` with ``is_error`` and its text and images. A user message that
  follows (a steering message) joins that same user message after the results.
- Prompt caching (the run setting ``prompt_cache``): ``cache_control`` on the last tool,
  the system prompt and the newest message's last block.
- The provider's own compaction (the run setting ``compact="provider"``): the
  ``compact_20260112`` edit of ``context_management`` with its ``input_tokens`` trigger
  (at least 50,000, the API's least: a lower threshold is raised, with a notice), sent to
  ``/v1/messages?beta=true`` with ``anthropic-beta: compact-2026-01-12``; a reply's
  ``compaction`` block is kept and sent back unchanged, and a notice says what it did
  (:mod:`._provider_compaction`).
- Thinking blocks are sent back unchanged in the turn that made them, as the API requires
  during tool use: a ``thinking`` block with its signature, a ``redacted_thinking`` block
  with its encrypted data (kept as a thinking block with nothing to show). A thinking
  block without a signature (another provider's, or one whose text was masked, which
  voids the signature) is not sent.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from ..core._json import JsonObject
from ..core.events import AssistantUpdate
from ..core.messages import ImageContent, TextContent, ThinkingContent, ToolCall, UserMessage
from ._history import (
    AssistantTurn,
    append_merged,
    history_has_tool_blocks,
    result_parts,
    safe_tool_id,
    stub_specs_for_history,
    user_blocks,
)
from ._in_browser import anthropic_browser_headers, in_browser
from ._incremental import HistoryMemo, takes_raw_bodies
from ._json_data import json_index, json_object, json_text
from ._provider_common import ProviderError, ProviderModel, sampling_fields
from ._provider_compaction import ANTHROPIC_COMPACTION_BETA, AnthropicCompaction, anthropic_context_management
from ._provider_errors import (
    RetryPolicy,
    StreamCutError,
    connection_failed,
    error_details,
    parse_retry_after,
    retryable_code,
    transport_error,
)
from ._provider_info import PLAIN_TOOL_NAME, ProviderInfo, Spec, ToolRules, ToolShape, declared_parameters
from ._reasoning import reasoning_budget
from ._sdk_http import sdk_http_client
from ._stop_reasons import ANTHROPIC, end_reply
from ._tool_features import allowed_specs, strict_notices, strict_parameters
from ._tool_search import ANTHROPIC_BLOCK, ANTHROPIC_SEARCH_TOOL, AnthropicServerBlocks, eager_specs
from ._wire_fold import anthropic_frames
from .base import MessageBuilder, ModelRequest

__all__ = ["INFO", "AnthropicModel", "anthropic_tool", "takes_strict_tools"]


def anthropic_tool(spec: Spec) -> JsonObject:
    """An element of Anthropic Messages' ``tools``: a strict spec with ``strict: true`` and
    its schema closed (:mod:`._strict_schema`, unless strict mode cannot express it),
    examples as ``input_examples``."""
    tool: JsonObject = {
        "name": spec["name"],
        "description": spec.get("description") or "",
        "input_schema": declared_parameters(spec),
    }
    strict = strict_parameters(spec, tool["input_schema"], "closed")
    if strict is not None:
        tool["input_schema"], tool["strict"] = strict, True
    if spec.get("input_examples"):
        tool["input_examples"] = list(spec["input_examples"])
    return tool


def takes_strict_tools(model_id: str) -> bool:
    """Whether a Claude model takes strict tool use: not the Claude 2 and 3 families, nor
    Claude Opus 4 and Sonnet 4 (their first releases); every later model does."""
    return not model_id.startswith(_NO_STRICT_MODELS)


INFO = ProviderInfo(
    prefix="anthropic",
    wire_messages="messages",
    fold_frames=anthropic_frames,
    model_class="openprogram_jupyter.models.anthropic:AnthropicModel",
    key_variables=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    endpoint_variables=("ANTHROPIC_BASE_URL",),
    default_model="claude-sonnet-5-5",
    tool_shape=ToolShape("Anthropic Messages", 'an element of "tools"', anthropic_tool),
    tool_rules=ToolRules(PLAIN_TOOL_NAME, "letters, digits, '_' and '-', 1 to 64 characters"),
    key_hint="set ANTHROPIC_API_KEY (in the environment, a .env file next to the notebook, Colab's secrets, "
    "or %agent key anthropic) or pass api_key=",
    prices_id="anthropic",
    native_compaction=True,
)

_SMALL_OUTPUT_MODELS = ("claude-3-opus", "claude-3-sonnet", "claude-3-haiku")
_NO_STRICT_MODELS = (
    "claude-2",
    "claude-instant",
    "claude-3",
    "claude-opus-4-0",
    "claude-opus-4-2025",
    "claude-sonnet-4-0",
    "claude-sonnet-4-2025",
)


class AnthropicModel(ProviderModel):
    """``anthropic:<model>`` — streams Messages through the ``anthropic`` SDK."""

    provider = INFO.prefix
    _warm_up_resource = "messages"  # what a round falls back to (and imports the request path)
    key_variables = INFO.key_variables
    native_compaction = INFO.native_compaction

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        max_tokens: int | None = None,
        thinking_budget: int | None = None,
    ) -> None:
        super().__init__(model_id, api_key=api_key, base_url=base_url, retry=retry)
        default = 4096 if model_id.startswith(_SMALL_OUTPUT_MODELS) else 8192
        self.max_tokens = max_tokens or default
        self.thinking_budget = thinking_budget

    def _make_client(self) -> Any:
        import anthropic

        kwargs: dict[str, Any] = {"max_retries": 0}
        if self._api_key is not None:
            kwargs["api_key"] = self._api_key
        if self.base_url:
            kwargs["base_url"] = self.base_url
        if in_browser():  # requests go through the page's fetch (models/_in_browser.py)
            kwargs["default_headers"] = anthropic_browser_headers()
        kwargs["http_client"] = sdk_http_client(anthropic)
        return anthropic.AsyncAnthropic(**kwargs)

    # -- request -----------------------------------------------------------------------

    def _prepare(self, request: ModelRequest) -> tuple[JsonObject, list[str]]:
        messages = self._history.build(request.messages, _step)
        payload: JsonObject = {
            "model": self.model_id,
            "max_tokens": self.max_tokens,
            "messages": messages,
            "stream": True,
        }
        if request.system:
            payload["system"] = request.system
        notices: list[str] = []
        choice = request.tool_choice
        cap = request.max_output_tokens
        if cap is not None:
            payload["max_tokens"] = min(self.max_tokens, cap)
        budget = reasoning_budget(request.reasoning) or self.thinking_budget
        if budget and cap is not None and cap <= budget:
            notices.append(
                f"the run's budget leaves {cap:,} output tokens, no more than the thinking budget "
                f"({budget:,}): extended thinking is off for this round"
            )
        elif budget:
            payload["thinking"] = {"type": "enabled", "budget_tokens": budget}
            payload["max_tokens"] = max(self.max_tokens, budget + 1024)
            if cap is not None:
                payload["max_tokens"] = min(payload["max_tokens"], cap)
            if choice not in ("auto", "none"):
                notices.append(
                    f"with extended thinking Anthropic accepts only tool_choice auto or none; "
                    f"tool_choice={choice!r} was sent as auto"
                )
                choice = "auto"
        notices += _add_sampling_fields(payload, request)
        tools, allowed_said = allowed_specs(request, "Anthropic")
        notices += allowed_said
        eager = eager_specs(request, tools)
        tools, deferred_from = eager + request.deferred_tools, len(eager)  # the deferred come last
        if not tools and history_has_tool_blocks(request.messages):
            tools, choice = stub_specs_for_history(request.messages, []), "none"
            deferred_from = len(tools)
        if tools:
            tools, strict_said = strict_notices(
                tools,
                supported=takes_strict_tools(self.model_id),
                flavour="closed",
                why_not=f"{self.model_id} has no strict tool use",
            )
            notices += strict_said
            payload["tools"] = [_declared(t, deferred=i >= deferred_from) for i, t in enumerate(tools)]
            if request.deferred_tools:  # the provider's own search: the deferred tools load through it
                payload["tools"].append(dict(ANTHROPIC_SEARCH_TOOL))
            payload["tool_choice"] = _tool_choice(choice, request.parallel_tool_calls)
        if request.provider_compaction is not None:
            payload["context_management"], said = anthropic_context_management(request.provider_compaction)
            notices += said
        if request.prompt_cache:
            _mark_cache_points(payload)
        return payload, notices

    # -- response ----------------------------------------------------------------------

    async def _attempt(self, payload: JsonObject, out: MessageBuilder) -> AsyncGenerator[AssistantUpdate, None]:
        stream = await _send(self._client(), payload, self._history)
        async with stream:
            calls: dict[int, int] = {}  # wire block index -> content index
            server_blocks = AnthropicServerBlocks()
            compaction = AnthropicCompaction(_trigger(payload))
            counts = {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}
            stop: str | None = None
            ended = False
            async for event in stream:
                out.frame(event)
                if not isinstance(event, dict):
                    continue
                kind, index = event.get("type"), json_index(event.get("index"))
                served = [] if compaction.read(event, out) else server_blocks.read(event, out)  # said at the end
                if served is not None:  # a compaction's or a server tool's block: kept, and what it did said
                    for update in served:
                        yield update
                elif kind == "message_start":
                    _count(counts, json_object(event.get("message")).get("usage"))
                elif kind == "content_block_start":
                    block = json_object(event.get("content_block"))
                    shape = block.get("type")
                    if shape == "tool_use":
                        start = out.start_tool_call(json_text(block.get("name")), json_text(block.get("id")) or None)
                        calls[index] = start.content_index
                        yield start
                    elif shape == "text" and json_text(block.get("text")):  # normally empty; deltas follow
                        yield out.text_delta(block["text"])
                    elif shape == "thinking" and json_text(block.get("thinking")):
                        yield out.thinking_delta(block["thinking"])
                    elif shape == "redacted_thinking":  # encrypted: nothing to show, all to send back
                        yield out.opaque_thinking({"redacted_thinking": json_text(block.get("data"))})
                elif kind == "content_block_delta":
                    for update in _delta_updates(json_object(event.get("delta")), calls.get(index), out):
                        yield update
                elif kind == "content_block_stop":
                    out.end_thinking()  # a thinking block that follows never joins this one
                    if index in calls:
                        yield out.end_tool_call(calls.pop(index))
                elif kind == "message_delta":
                    stop = json_text(json_object(event.get("delta")).get("stop_reason")) or stop
                    _count(counts, event.get("usage"))
                elif kind == "message_stop":
                    ended = True
        for index in calls.values():
            yield out.end_tool_call(index)
        if not ended:
            raise StreamCutError("message_stop")
        usage = compaction.counted(self._usage(**counts), self._usage)  # with the compaction's own tokens
        ending = end_reply(out, self.name, ANTHROPIC, stop or "end_turn", usage)
        for notice in [*compaction.notices("Anthropic", out), *([ending] if ending is not None else [])]:
            yield notice

    def _classify(self, exc: Exception) -> ProviderError:
        import anthropic

        if isinstance(exc, anthropic.APIStatusError):
            message, code = error_details(exc.body)
            status = exc.status_code
            if status == 200:  # an `error` event inside the stream
                return ProviderError(message or str(exc), code=code, retryable=retryable_code(code), body=exc.body)
            return ProviderError(
                message or str(exc),
                status=status,
                code=code,
                retryable=status in (408, 409, 429) or status >= 500,
                retry_after=parse_retry_after(exc.response.headers),
                body=exc.body,
            )
        if isinstance(exc, anthropic.APIConnectionError):
            return connection_failed(exc, exc.__cause__ or exc.__context__)
        credentials_error = getattr(anthropic, "CredentialsError", None)
        if credentials_error is not None and isinstance(exc, credentials_error):
            return ProviderError(
                f"no API key: {INFO.key_hint}", detail=f"{type(exc).__name__}: {exc}", kind="credentials"
            )
        return transport_error(exc) or ProviderError(f"{type(exc).__name__}: {exc}")


async def _send(client: Any, payload: JsonObject, history: HistoryMemo) -> Any:
    """Start the streamed request for ``payload`` through the SDK's ``post``, which adds the
    headers, authenticates, decodes the event stream and raises the errors a stream
    carries. Each event comes as its parsed JSON: the SDK's typed event is built for every
    streamed fragment and costs more than reading the JSON. The body is JSON we encode
    ourselves (:meth:`HistoryMemo.encode`: the history's messages encoded once each, not
    every round), sent with ``content=``: the SDK otherwise walks the whole body (the
    history above all) on every call, preparing it against its request types, which grows
    with the history. What we build is plain JSON already (no files, dates or models for
    the walk to convert), encoded as the SDK encodes it, so the server receives the same
    JSON. An SDK whose ``post`` takes no ``content`` encodes ``body=``, still without the walk."""
    from anthropic import AsyncStream

    stream_cls = AsyncStream[object]
    path, options = "/v1/messages", {}
    if "context_management" in payload:  # a beta feature: the beta path and header, as the SDK's beta API sends
        path, options = "/v1/messages?beta=true", {"headers": {"anthropic-beta": ANTHROPIC_COMPACTION_BETA}}
    if not takes_raw_bodies(client):
        return await client.post(
            path, cast_to=object, body=payload, options=options, stream=True, stream_cls=stream_cls
        )
    return await client.post(
        path,
        cast_to=object,
        content=history.encode(payload, "messages"),
        options=options,
        stream=True,
        stream_cls=stream_cls,
    )


def _trigger(payload: JsonObject) -> int | None:
    """The compaction trigger ``payload`` asks for, if it asks for compaction."""
    edits = json_object(payload.get("context_management")).get("edits") or [{}]
    value = json_object(json_object(edits[0]).get("trigger")).get("value")
    return value if isinstance(value, int) else None


def _step(out: list[JsonObject], entry: UserMessage | AssistantTurn) -> None:
    """Append one history entry's Messages blocks to ``out`` (merged by role)."""
    if isinstance(entry, UserMessage):
        append_merged(out, "user", [_user_block(b) for b in user_blocks(entry) if _non_empty(b)])
    else:
        append_merged(out, "assistant", _assistant_blocks(entry))
        if entry.results:
            append_merged(out, "user", [_result_block(r) for r in entry.results])


def _count(counts: dict[str, int], usage: object) -> None:
    """Take the cumulative counts a ``message_start`` or ``message_delta`` reports (a count
    that is not a whole number is left as it was)."""
    usage = json_object(usage)
    for key, field in (
        ("input", "input_tokens"),
        ("output", "output_tokens"),
        ("cache_read", "cache_read_input_tokens"),
        ("cache_write", "cache_creation_input_tokens"),
    ):
        value = usage.get(field)
        if isinstance(value, int) and not isinstance(value, bool):
            counts[key] = value


_EPHEMERAL = {"type": "ephemeral"}


def _mark_cache_points(payload: JsonObject) -> None:
    """Anthropic caches the prefix of a request up to each block marked ``cache_control``
    (at most four per request). Three are marked: the last tool (the tool list), the system
    prompt, and the newest message's last block — so the next round reads the whole
    conversation so far from the cache and pays full price only for what is new. A
    prefix shorter than the model's minimum is simply not cached (no error)."""
    if payload.get("tools"):
        payload["tools"][-1]["cache_control"] = _EPHEMERAL
    if payload.get("system"):
        payload["system"] = [{"type": "text", "text": payload["system"], "cache_control": _EPHEMERAL}]
    if payload["messages"]:  # a copy of the message and block it marks: built messages are reused
        content = payload["messages"][-1]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        markable = [i for i, b in enumerate(blocks) if b.get("type") not in ("thinking", "redacted_thinking")]
        if markable:
            blocks[markable[-1]] = {**blocks[markable[-1]], "cache_control": _EPHEMERAL}
        payload["messages"][-1] = {**payload["messages"][-1], "content": blocks}


def _non_empty(block: TextContent | ImageContent) -> bool:
    return not isinstance(block, TextContent) or bool(block.text)


def _delta_updates(delta: JsonObject, call_index: int | None, out: MessageBuilder) -> list[AssistantUpdate]:
    """What one ``content_block_delta`` adds to the reply: text, thinking, the thinking
    block's signature, or a fragment of the arguments of the call at ``call_index``
    (``None``: the block is no call, and a fragment is dropped); nothing for an empty
    fragment or a delta of another type."""
    shape = delta.get("type")
    if shape == "text_delta":
        return [out.text_delta(json_text(delta.get("text")))]
    if shape == "thinking_delta":
        return [out.thinking_delta(json_text(delta.get("thinking")))]
    if shape == "signature_delta":
        return [out.thinking_delta("", signature=json_text(delta.get("signature")))]
    if shape == "input_json_delta" and call_index is not None and json_text(delta.get("partial_json")):
        return [out.tool_call_delta(call_index, delta["partial_json"])]
    return []


def _user_block(block: TextContent | ImageContent) -> JsonObject:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    return {"type": "image", "source": {"type": "base64", "media_type": block.mime_type, "data": block.data}}


def _assistant_blocks(turn: AssistantTurn) -> list[JsonObject]:
    blocks: list[JsonObject] = []
    for block in turn.message.content:
        if isinstance(block, ThinkingContent):
            redacted = (block.provider_data or {}).get("redacted_thinking")
            server_block = (block.provider_data or {}).get(ANTHROPIC_BLOCK)
            if isinstance(server_block, dict):  # a server tool's call or result, sent back as it came
                blocks.append(server_block)
            elif block.signature:
                blocks.append({"type": "thinking", "thinking": block.thinking, "signature": block.signature})
            elif isinstance(redacted, str):
                blocks.append({"type": "redacted_thinking", "data": redacted})
        elif isinstance(block, TextContent):
            if block.text:
                blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolCall):
            blocks.append(
                {"type": "tool_use", "id": safe_tool_id(block.id or ""), "name": block.name, "input": block.arguments}
            )
    return blocks


def _result_block(result: Any) -> JsonObject:
    content = [_user_block(block) for block in result_parts(result)]
    return {
        "type": "tool_result",
        "tool_use_id": safe_tool_id(result.tool_call_id),
        "content": content,
        "is_error": result.is_error,
    }


def _declared(spec: Spec, *, deferred: bool) -> JsonObject:
    """``spec`` as an element of ``tools``; a deferred one with ``defer_loading: true``
    (its schema reaches the model only once the tool search loads it)."""
    return {**anthropic_tool(spec), "defer_loading": True} if deferred else anthropic_tool(spec)


def _tool_choice(choice: Any, parallel: bool | None) -> JsonObject:
    if isinstance(choice, dict):
        mapped: JsonObject = {"type": "tool", "name": choice["name"]}
    else:
        mapped = {"type": {"auto": "auto", "required": "any", "none": "none"}[choice]}
    if parallel is False and mapped["type"] != "none":
        mapped["disable_parallel_tool_use"] = True
    return mapped


def _add_sampling_fields(payload: JsonObject, request: ModelRequest) -> list[str]:
    """Put the request's temperature (at most 1; none with extended thinking, which takes
    only 1) and stop sequences in ``payload``; the notices of what was not sent as asked."""
    thinking = "thinking" in payload
    sampling, said = sampling_fields(
        request,
        "Anthropic with extended thinking" if thinking else "Anthropic",
        temperature=None if thinking else "temperature",
        stop="stop_sequences",
        max_temperature=1.0,
    )
    payload.update(sampling)
    return said
