"""Stream frames folded into the provider's non-streamed response object.

One function per wire format, named by its provider's descriptor
(``ProviderInfo.fold_frames``; :func:`._wire.fold_frames` picks it), takes one round's
frames as plain JSON data (as :mod:`._wire` keeps them) and returns what the provider would
have answered without streaming: a Chat Completion, a Responses ``response``, an Anthropic
``message``, a Gemini ``GenerateContentResponse`` or a Bedrock ``Converse`` response.
Fragments are joined (text into one block or part, argument JSON into one value); a frame
of an unknown kind is ignored.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..core._json import JsonObject, loads_valid

__all__ = ["anthropic_frames", "bedrock_frames", "gemini_frames", "openai_chat_frames", "openai_responses_frames"]

Frames = list[JsonObject]


def openai_chat_frames(frames: Frames) -> JsonObject:
    first = frames[0]
    message: JsonObject = {"role": "assistant", "content": None}
    calls: dict[int, JsonObject] = {}
    finish, usage = None, None
    for chunk in frames:
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                message["content"] = (message["content"] or "") + delta["content"]
            for fragment in delta.get("tool_calls") or []:
                call = calls.setdefault(
                    fragment.get("index", 0),
                    {"id": None, "type": "function", "function": {"name": "", "arguments": ""}},
                )
                call["id"] = fragment.get("id") or call["id"]
                function = fragment.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return {
        "id": first.get("id"),
        "object": "chat.completion",
        "created": first.get("created"),
        "model": first.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }


def openai_responses_frames(frames: Frames) -> JsonObject | None:
    final = None
    for event in frames:
        if isinstance(event.get("response"), dict):
            final = event["response"]  # response.created, then .completed / .incomplete / .failed
    return final


def anthropic_frames(frames: Frames) -> JsonObject | None:
    message: JsonObject | None = None
    partial: dict[int, str] = {}
    for event in frames:
        kind = event.get("type")
        if kind == "message_start":
            message = dict(event.get("message") or {})
            message["content"] = list(message.get("content") or [])
        elif message is None:
            continue
        elif kind == "content_block_start":
            message["content"].append(dict(event.get("content_block") or {}))
        elif kind == "content_block_delta" and message["content"]:
            _anthropic_delta(message["content"][-1], event.get("delta") or {}, partial, event.get("index", 0))
        elif kind == "content_block_stop" and event.get("index") in partial:
            block = message["content"][-1]
            raw = partial.pop(event["index"])
            block["input"] = _json_or_text(raw)
        elif kind == "message_delta":
            message.update({k: v for k, v in (event.get("delta") or {}).items()})
            message["usage"] = {**(message.get("usage") or {}), **(event.get("usage") or {})}
    return message


def _anthropic_delta(block: JsonObject, delta: JsonObject, partial: dict[int, str], index: int) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + delta.get("text", "")
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
    elif kind == "signature_delta":
        block["signature"] = delta.get("signature")
    elif kind == "input_json_delta":
        partial[index] = partial.get(index, "") + (delta.get("partial_json") or "")
    elif kind == "compaction_delta":  # sets the block's summary and metadata, as the SDK reads it
        block.update({key: delta.get(key) for key in ("content", "encrypted_content")})


def _json_or_text(raw: str) -> Any:
    if not raw.strip():
        return {}
    try:
        return loads_valid(raw)
    except ValueError:
        return raw


def gemini_frames(frames: Frames) -> JsonObject:
    parts: list[JsonObject] = []
    final: JsonObject = {}
    for chunk in frames:
        for candidate in (chunk.get("candidates") or [])[:1]:
            for part in (candidate.get("content") or {}).get("parts") or []:
                _append_part(parts, part)
            if candidate.get("finishReason"):
                final["finishReason"] = candidate["finishReason"]
        for key in ("usageMetadata", "modelVersion", "responseId", "promptFeedback"):
            if key in chunk:
                final[key] = chunk[key]
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    if "finishReason" in final:
        candidate["finishReason"] = final.pop("finishReason")
    return {"candidates": [candidate], **final}


def _append_part(parts: list[JsonObject], part: JsonObject) -> None:
    """Append ``part``, joining it to the part before when both are plain text of the
    same kind (thought or not) with no signature, as the whole reply would carry it."""
    plain = set(part) <= {"text", "thought"}
    if plain and parts and set(parts[-1]) <= {"text", "thought"} and parts[-1].get("thought") == part.get("thought"):
        parts[-1] = {**parts[-1], "text": parts[-1].get("text", "") + part.get("text", "")}
    else:
        parts.append(dict(part))


def bedrock_frames(frames: Frames) -> JsonObject:
    blocks: dict[int, JsonObject] = {}
    role, out = "assistant", {}
    for event in frames:
        if "messageStart" in event:
            role = event["messageStart"].get("role", role)
        elif "contentBlockStart" in event:
            start = event["contentBlockStart"]
            tool = dict((start.get("start") or {}).get("toolUse") or {})
            blocks[start.get("contentBlockIndex", 0)] = {"toolUse": {**tool, "input": ""}}
        elif "contentBlockDelta" in event:
            delta = event["contentBlockDelta"]
            _bedrock_delta(blocks.setdefault(delta.get("contentBlockIndex", 0), {}), delta.get("delta") or {})
        elif "messageStop" in event:
            out["stopReason"] = event["messageStop"].get("stopReason")
        elif "metadata" in event:
            out.update(event["metadata"])
    for block in blocks.values():
        if "toolUse" in block:
            block["toolUse"]["input"] = _json_or_text(block["toolUse"]["input"])
    content = [blocks[i] for i in sorted(blocks)]
    return {"output": {"message": {"role": role, "content": content}}, **out}


def _bedrock_delta(block: JsonObject, delta: JsonObject) -> None:
    if "text" in delta:
        block["text"] = block.get("text", "") + delta["text"]
    elif "toolUse" in delta:
        tool = block.setdefault("toolUse", {"input": ""})
        tool["input"] = tool.get("input", "") + (delta["toolUse"].get("input") or "")
    elif "redactedContent" in (delta.get("reasoningContent") or {}):
        held = (block.get("reasoningContent") or {}).get("redactedContent", "")
        block["reasoningContent"] = {
            "redactedContent": _joined_base64(held, delta["reasoningContent"]["redactedContent"])
        }
    elif "reasoningContent" in delta:
        reasoning = block.setdefault("reasoningContent", {"reasoningText": {"text": ""}})["reasoningText"]
        reasoning["text"] += delta["reasoningContent"].get("text") or ""
        if "signature" in delta["reasoningContent"]:
            reasoning["signature"] = delta["reasoningContent"]["signature"]


def _joined_base64(head: str, tail: str) -> str:
    """Two base64 texts as one: the bytes of ``head`` then of ``tail``, encoded again (a
    redacted reasoning block's pieces are bytes, base64 in the frames as kept). A piece that
    is not base64 leaves the two texts joined as they are."""
    try:
        return base64.b64encode(base64.b64decode(head, validate=True) + base64.b64decode(tail, validate=True)).decode()
    except (binascii.Error, TypeError):
        return f"{head}{tail}"
