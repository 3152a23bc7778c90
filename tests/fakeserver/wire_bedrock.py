"""Bedrock ``converse-stream``, as the fake server speaks it: AWS event-stream binary
frames with both CRCs, and restJson errors (``x-amzn-ErrorType``)."""

from __future__ import annotations

import binascii
import json
import struct
from collections.abc import Callable
from typing import Any

from .script import Turn, pieces
from .wire import Reject, Wire

_ERROR_TYPES = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return struct.pack("!B", len(raw_name)) + raw_name + b"\x07" + struct.pack("!H", len(raw_value)) + raw_value


def event_frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message: prelude (total length, headers length, CRC32 of those),
    headers, payload, CRC32 of everything before it. All big-endian."""
    raw_headers = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(raw_headers) + len(payload) + 4
    prelude = struct.pack("!II", total, len(raw_headers))
    prelude += struct.pack("!I", binascii.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + raw_headers + payload
    return message + struct.pack("!I", binascii.crc32(message) & 0xFFFFFFFF)


def decode_frame(frame: bytes) -> tuple[dict[str, str], bytes]:
    """The headers and payload of one event-stream message written by :func:`event_frame`
    (string headers only, as the fake server writes them; the CRCs are not checked)."""
    total, headers_length = struct.unpack("!II", frame[:8])
    raw, headers = frame[12 : 12 + headers_length], {}
    while raw:
        name_length = raw[0]
        name = raw[1 : 1 + name_length].decode()
        value_length = struct.unpack("!H", raw[2 + name_length : 4 + name_length])[0]
        headers[name] = raw[4 + name_length : 4 + name_length + value_length].decode()
        raw = raw[4 + name_length + value_length :]
    return headers, frame[12 + headers_length : total - 4]


def _event(kind: str, payload: dict[str, Any]) -> bytes:
    headers = {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}
    return event_frame(headers, json.dumps({**payload, "p": "abcdefgh"}).encode())


def exception_frame(kind: str, message: str) -> bytes:
    headers = {":exception-type": kind, ":content-type": "application/json", ":message-type": "exception"}
    return event_frame(headers, json.dumps({"message": message}).encode())


def _reject(status: int, message: str) -> Reject:
    kind = _ERROR_TYPES.get(status, "InternalServerException")
    return Reject(
        status,
        {"message": message},
        {"x-amzn-ErrorType": f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"},
    )


class BedrockWire(Wire):
    name = "bedrock"
    content_type = "application/vnd.amazon.eventstream"

    def key(self, headers: dict[str, str]) -> str | None:
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:]
        return auth or None

    def http_error(self, status: int, message: str) -> Reject:
        return _reject(status, message)

    def validate(self, body: dict[str, Any]) -> Reject | None:
        messages = body.get("messages") or []
        if not messages:
            return _reject(
                400,
                "A conversation must start with a user message. Try again with a conversation "
                "that starts with a user message.",
            )
        tool_config = body.get("toolConfig")
        has_tool_blocks = False
        for index, message in enumerate(messages):
            content = message.get("content") or []
            for b, block in enumerate(content):
                if "text" in block and not block["text"].strip():
                    return _reject(
                        400,
                        f"The text field in the ContentBlock object at messages.{index}.content.{b} "
                        "is blank. Add text to the text field, and try again.",
                    )
                if "toolUse" in block or "toolResult" in block:
                    has_tool_blocks = True
            uses = [b["toolUse"]["toolUseId"] for b in content if "toolUse" in b]
            if uses:
                following = messages[index + 1].get("content", []) if index + 1 < len(messages) else []
                results = [b["toolResult"]["toolUseId"] for b in following if "toolResult" in b]
                missing = [u for u in uses if u not in results]
                if missing:
                    return _reject(
                        400,
                        f"Expected toolResult blocks at messages.{index + 1}.content for the "
                        f"following Ids: {', '.join(missing)}",
                    )
                if len(results) > len(uses):
                    return _reject(
                        400,
                        f"The number of toolResult blocks at messages.{index + 1}.content exceeds "
                        "the number of toolUse blocks of previous turn.",
                    )
        if has_tool_blocks and not tool_config:
            return _reject(
                400, "The toolConfig field must be defined when using toolUse and toolResult content blocks."
            )
        if tool_config is not None:
            if not tool_config.get("tools"):
                return _reject(
                    400,
                    "1 validation error detected: Value '[]' at 'toolConfig.tools' failed to satisfy "
                    "constraint: Member must have length greater than or equal to 1",
                )
            choice = tool_config.get("toolChoice")
            if choice is not None and len(choice) != 1:
                return _reject(
                    400,
                    "1 validation error detected: Value at 'toolConfig.toolChoice' failed to satisfy "
                    "constraint: Exactly one member of the union must be set",
                )
            if choice is not None and (body.get("additionalModelRequestFields") or {}).get("tool_choice"):
                return _reject(
                    400, "toolConfig.toolChoice and additionalModelRequestFields.tool_choice cannot both be set."
                )
        return None

    def result_count(self, body: dict[str, Any]) -> int:
        return sum(1 for m in body.get("messages", []) for b in m.get("content", []) if "toolResult" in b)

    def frames(self, turn: Turn, body: dict[str, Any], new_id: Callable[[str], str]) -> list[bytes]:
        out = [_event("messageStart", {"role": "assistant"})]
        index = 0
        if turn.thinking:
            for p in pieces(turn.thinking, turn.chunk_size):
                out.append(
                    _event(
                        "contentBlockDelta", {"contentBlockIndex": index, "delta": {"reasoningContent": {"text": p}}}
                    )
                )
            out.append(
                _event(
                    "contentBlockDelta",
                    {"contentBlockIndex": index, "delta": {"reasoningContent": {"signature": "sig-bedrock"}}},
                )
            )
            out.append(_event("contentBlockStop", {"contentBlockIndex": index}))
            index += 1
        if turn.text:
            for p in pieces(turn.text, turn.chunk_size):
                out.append(_event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": p}}))
            out.append(_event("contentBlockStop", {"contentBlockIndex": index}))
            index += 1
        for call in turn.calls:
            start = {"toolUse": {"toolUseId": call.id or new_id("tooluse"), "name": call.name}}
            out.append(_event("contentBlockStart", {"contentBlockIndex": index, "start": start}))
            for p in pieces(json.dumps(call.arguments), turn.chunk_size):
                delta = {"toolUse": {"input": p}}
                out.append(_event("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}))
            out.append(_event("contentBlockStop", {"contentBlockIndex": index}))
            index += 1
        stop = "max_tokens" if turn.stop == "length" else ("tool_use" if turn.calls else "end_turn")
        stop = turn.raw_stop or stop
        out.append(_event("messageStop", {"stopReason": stop}))
        usage = {
            "inputTokens": turn.input_tokens,
            "outputTokens": turn.output_tokens,
            "totalTokens": turn.input_tokens + turn.output_tokens,
        }
        if turn.cached_tokens:
            usage["cacheReadInputTokens"] = turn.cached_tokens
        if turn.cache_write_tokens:
            usage["cacheWriteInputTokens"] = turn.cache_write_tokens
        out.append(_event("metadata", {"usage": usage, "metrics": {"latencyMs": 5}}))
        return out

    def error_frame(self, message: str) -> bytes:
        return exception_frame("modelStreamErrorException", message)
