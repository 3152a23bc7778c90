"""Anthropic Messages, as the fake server speaks it (every frame has an ``event:`` line)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .script import Search, Turn, pieces
from .wire import Reject, Wire, sse

_KINDS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def _reject(status: int, message: str) -> Reject:
    kind = _KINDS.get(status, "api_error")
    return Reject(status, {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"})


class AnthropicWire(Wire):
    name = "anthropic"

    def key(self, headers: dict[str, str]) -> str | None:
        # anthropic 2.x sends ``Authorization: Bearer``; older clients ``x-api-key``.
        auth = headers.get("authorization", "")
        return headers.get("x-api-key") or (auth[7:] if auth.lower().startswith("bearer ") else None)

    def http_error(self, status: int, message: str) -> Reject:
        return _reject(status, message)

    def validate(self, body: dict[str, Any]) -> Reject | None:
        if "max_tokens" not in body:
            return _reject(400, "max_tokens: Field required")
        messages = body.get("messages") or []
        if not messages or messages[0].get("role") != "user":
            return _reject(400, 'messages: first message must use the "user" role')
        has_tool_blocks = False
        for index, message in enumerate(messages):
            content = message.get("content")
            if message.get("role") not in ("user", "assistant"):
                return _reject(400, f"messages.{index}.role: Input should be 'user' or 'assistant'")
            if isinstance(content, str):
                if not content:
                    return _reject(400, f"messages.{index}: user messages must have non-empty content")
                continue
            for b, block in enumerate(content):
                if block.get("type") == "text" and not block.get("text"):
                    return _reject(400, f"messages.{index}.content.{b}.text: text content blocks must be non-empty")
                if block.get("type") in ("tool_use", "tool_result"):
                    has_tool_blocks = True
            use_ids = [b["id"] for b in content if b.get("type") == "tool_use"]
            next_content = messages[index + 1].get("content") if index + 1 < len(messages) else None
            if use_ids:
                leading: list[str] = []
                for block in next_content if isinstance(next_content, list) else []:
                    if block.get("type") != "tool_result":
                        break
                    leading.append(block.get("tool_use_id"))
                missing = [i for i in use_ids if i not in leading]
                if missing:
                    return _reject(
                        400,
                        f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
                        f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                        "corresponding `tool_result` block in the next message.",
                    )
            result_ids = [b.get("tool_use_id") for b in content if b.get("type") == "tool_result"]
            previous = messages[index - 1].get("content") if index else None
            previous_blocks = previous if isinstance(previous, list) else []
            previous_ids = [b.get("id") for b in previous_blocks if b.get("type") == "tool_use"]
            stray = [i for i in result_ids if i not in previous_ids]
            if stray:
                return _reject(
                    400,
                    f"messages.{index}.content.0: unexpected `tool_use_id` found in `tool_result` "
                    f"blocks: {stray[0]}. Each `tool_result` block must have a corresponding `tool_use` "
                    "block in the previous message.",
                )
        refused = _deferred_loading_error(body) or _compaction_error(body)
        if refused:
            return refused
        if has_tool_blocks and not body.get("tools"):
            return _reject(400, "Requests which include `tool_use` or `tool_result` blocks must define tools.")
        choice = body.get("tool_choice")
        if choice is not None and choice.get("type") not in ("auto", "any", "tool", "none"):
            return _reject(400, "tool_choice.type: Input tag does not match any of the expected tags")
        if body.get("thinking", {}).get("type") == "enabled" and choice and choice.get("type") in ("any", "tool"):
            return _reject(400, "Thinking may not be enabled when tool_choice forces tool use.")
        return None

    def result_count(self, body: dict[str, Any]) -> int:
        return sum(
            1
            for m in body.get("messages", [])
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        )

    def frames(self, turn: Turn, body: dict[str, Any], new_id: Callable[[str], str]) -> list[bytes]:
        def event(kind: str, **fields: Any) -> bytes:
            return sse({"type": kind, **fields}, event=kind)

        usage = {
            "input_tokens": turn.input_tokens,
            "output_tokens": 1,
            "cache_read_input_tokens": turn.cached_tokens,
            "cache_creation_input_tokens": turn.cache_write_tokens,
        }
        message = {
            "id": new_id("msg"),
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": body.get("model", ""),
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        out = [event("message_start", message=message), event("ping")]
        index = 0
        compacted = turn.compaction is not None and _compaction_trigger(body) is not None
        if compacted:
            out += _compaction_frames(event, turn.compaction or "")
            index += 1
        if turn.thinking:
            out.append(
                event(
                    "content_block_start",
                    index=index,
                    content_block={"type": "thinking", "thinking": "", "signature": ""},
                )
            )
            for p in pieces(turn.thinking, turn.chunk_size):
                out.append(event("content_block_delta", index=index, delta={"type": "thinking_delta", "thinking": p}))
            out.append(
                event(
                    "content_block_delta",
                    index=index,
                    delta={"type": "signature_delta", "signature": "sig-" + turn.thinking[:8]},
                )
            )
            out.append(event("content_block_stop", index=index))
            index += 1
        if turn.redacted_thinking:  # encrypted thinking: a start and a stop, nothing in between
            out.append(
                event(
                    "content_block_start",
                    index=index,
                    content_block={"type": "redacted_thinking", "data": turn.redacted_thinking},
                )
            )
            out.append(event("content_block_stop", index=index))
            index += 1
        if turn.search is not None:
            out += _search_frames(event, index, turn.search, new_id("srvtoolu"))
            index += 2
        if turn.text:
            out.append(event("content_block_start", index=index, content_block={"type": "text", "text": ""}))
            for p in pieces(turn.text, turn.chunk_size):
                out.append(event("content_block_delta", index=index, delta={"type": "text_delta", "text": p}))
            out.append(event("content_block_stop", index=index))
            index += 1
        for call in turn.calls:
            block = {"type": "tool_use", "id": call.id or new_id("toolu"), "name": call.name, "input": {}}
            out.append(event("content_block_start", index=index, content_block=block))
            for p in pieces(json.dumps(call.arguments), turn.chunk_size):
                delta = {"type": "input_json_delta", "partial_json": p}
                out.append(event("content_block_delta", index=index, delta=delta))
            out.append(event("content_block_stop", index=index))
            index += 1
        stop = "max_tokens" if turn.stop == "length" else ("tool_use" if turn.calls else "end_turn")
        stop = turn.raw_stop or stop
        out.append(
            event(
                "message_delta",
                delta={"stop_reason": stop, "stop_sequence": None},
                usage={"output_tokens": turn.output_tokens, **(_iterations(turn) if compacted else {})},
            )
        )
        out.append(event("message_stop"))
        return out

    def error_frame(self, message: str) -> bytes:
        return sse({"type": "error", "error": {"type": "overloaded_error", "message": message}}, event="error")


_SEARCH_TYPES = ("tool_search_tool_bm25_20251119", "tool_search_tool_regex_20251119")


def _deferred_loading_error(body: dict[str, Any]) -> Reject | None:
    """The API's rules for deferred tools, as it states them: a deferred tool needs a tool
    search tool beside it; every ``server_tool_use`` in the history is followed by its
    ``tool_search_tool_result``; a tool reference names a deferred tool; a ``tool_use`` of a
    deferred tool comes after a search loaded it."""
    tools = body.get("tools") or []
    deferred = {t.get("name") for t in tools if t.get("defer_loading")}
    if deferred and not any(t.get("type") in _SEARCH_TYPES for t in tools):
        return _reject(400, "tools: deferred tools (defer_loading) require a tool search tool")
    loaded: set[str] = set()
    for index, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        for b, block in enumerate(blocks):
            kind = block.get("type")
            following = blocks[b + 1] if b + 1 < len(blocks) else {}
            if kind == "server_tool_use" and following.get("tool_use_id") != block.get("id"):
                return _reject(
                    400,
                    f"messages.{index}.content.{b}: server_tool_use {block.get('id')} has no tool_search_tool_result",
                )
            if kind == "tool_search_tool_result":
                for reference in block.get("content", {}).get("tool_references", []):
                    if reference.get("tool_name") not in deferred:
                        return _reject(400, f"tool reference {reference.get('tool_name')!r} names no deferred tool")
                    loaded.add(reference["tool_name"])
            if kind == "tool_use" and block.get("name") in deferred and block.get("name") not in loaded:
                return _reject(400, f"messages.{index}.content.{b}: tool {block.get('name')!r} was never loaded")
    return None


def _search_frames(event: Callable[..., bytes], index: int, search: Search, use_id: str) -> list[bytes]:
    """A server tool search at blocks ``index`` and ``index + 1``: the call, its input in
    fragments, and its result naming the loaded tools (or its error)."""
    call = {"type": "server_tool_use", "id": use_id, "name": "tool_search_tool_bm25", "input": {}}
    content: dict[str, Any] = {
        "type": "tool_search_tool_search_result",
        "tool_references": [{"type": "tool_reference", "tool_name": name} for name in search.loaded],
    }
    if search.error is not None:
        content = {"type": "tool_search_tool_result_error", "error_code": search.error}
    result = {"type": "tool_search_tool_result", "tool_use_id": use_id, "content": content}
    out = [event("content_block_start", index=index, content_block=call)]
    for piece in pieces(json.dumps({"query": search.query}), 9):
        out.append(event("content_block_delta", index=index, delta={"type": "input_json_delta", "partial_json": piece}))
    out.append(event("content_block_stop", index=index))
    out.append(event("content_block_start", index=index + 1, content_block=result))
    out.append(event("content_block_stop", index=index + 1))
    return out


_COMPACTION_PARAM_FIELDS = {"type", "cache_control", "content", "encrypted_content", "signature", "tool_changes"}


def _compaction_trigger(body: dict[str, Any]) -> int | None:
    """The ``input_tokens`` trigger of the request's ``compact_20260112`` edit, if it has one."""
    for edit in (body.get("context_management") or {}).get("edits") or []:
        if edit.get("type") == "compact_20260112":
            return (edit.get("trigger") or {}).get("value", 150_000)
    return None


def _compaction_error(body: dict[str, Any]) -> Reject | None:
    """The API's rules for compaction, as its types and docs state them: a known edit type
    and an ``input_tokens`` trigger with a whole number (at least 50,000 for compaction); a
    ``compaction`` block sent back holds only the fields its param takes, and its content
    is a non-empty string or ``null``."""
    for e, edit in enumerate((body.get("context_management") or {}).get("edits") or []):
        if edit.get("type") not in ("compact_20260112", "clear_tool_uses_20250919", "clear_thinking_20251015"):
            return _reject(400, f"context_management.edits.{e}.type: Input tag {edit.get('type')!r} is not expected")
        trigger = edit.get("trigger")
        if trigger is not None and (trigger.get("type") != "input_tokens" or not isinstance(trigger.get("value"), int)):
            return _reject(400, f"context_management.edits.{e}.trigger: expected an input_tokens trigger")
        if trigger is not None and edit.get("type") == "compact_20260112" and trigger["value"] < 50_000:
            return _reject(400, f"context_management.edits.{e}.trigger.value: must be at least 50000")
    for index, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        for b, block in enumerate(content if isinstance(content, list) else []):
            if block.get("type") != "compaction":
                continue
            extra = set(block) - _COMPACTION_PARAM_FIELDS
            if extra:
                return _reject(400, f"messages.{index}.content.{b}.{sorted(extra)[0]}: Extra inputs are not permitted")
            if block.get("content") == "" or not isinstance(block.get("content"), (str, type(None))):
                return _reject(400, f"messages.{index}.content.{b}.content: a non-empty string or null")
    return None


def _compaction_frames(event: Callable[..., bytes], summary: str) -> list[bytes]:
    """A compaction block at index 0: its start (with its signature), one delta setting the
    summary and the opaque metadata, its stop."""
    block = {"type": "compaction", "content": None, "encrypted_content": None, "signature": f"sig-{len(summary)}"}
    delta = {"type": "compaction_delta", "content": summary, "encrypted_content": f"enc-{len(summary)}"}
    return [
        event("content_block_start", index=0, content_block=block),
        event("content_block_delta", index=0, delta=delta),
        event("content_block_stop", index=0),
    ]


def _iterations(turn: Turn) -> dict[str, Any]:
    """The usage's ``iterations`` of a reply that compacted: the compaction, then the message."""
    counts = {"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    return {
        "iterations": [
            {"type": "compaction", "input_tokens": 900, "output_tokens": 120, **counts},
            {"type": "message", "input_tokens": turn.input_tokens, "output_tokens": turn.output_tokens, **counts},
        ]
    }
