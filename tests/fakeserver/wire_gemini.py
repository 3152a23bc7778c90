"""Gemini ``streamGenerateContent?alt=sse``, as the fake server speaks it.

Each ``data:`` line is a whole response chunk; function calls arrive whole, one part per
call; the end marker is a chunk with ``finishReason``. The server remembers each
``thoughtSignature`` it sent and rejects a later request whose history lost it, as
newer Gemini models do.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .script import Turn, pieces
from .wire import Reject, Wire, sse

_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def _reject(status: int, message: str) -> Reject:
    return Reject(status, {"error": {"code": status, "message": message, "status": _STATUSES.get(status, "UNKNOWN")}})


def _call_key(call: dict[str, Any]) -> str:
    return json.dumps([call.get("name"), call.get("args", {})], sort_keys=True)


class GeminiWire(Wire):
    name = "gemini"

    def __init__(self) -> None:
        # first call of a turn (name+args) -> the signature sent on it / on a trailing part
        self.signatures: dict[str, tuple[str | None, str | None]] = {}

    def key(self, headers: dict[str, str]) -> str | None:
        return headers.get("x-goog-api-key")

    def http_error(self, status: int, message: str) -> Reject:
        return _reject(status, message)

    def validate(self, body: dict[str, Any]) -> Reject | None:
        contents = body.get("contents") or []
        if not contents:
            return _reject(400, "* GenerateContentRequest.contents: contents is not specified")
        for index, content in enumerate(contents):
            if content.get("role") not in ("user", "model"):
                return _reject(400, "Please use a valid role: user, model.")
            parts = content.get("parts") or []
            if not parts:
                return _reject(
                    400, f"* GenerateContentRequest.contents[{index}].parts: contents.parts must not be empty."
                )
            calls = [p["functionCall"] for p in parts if "functionCall" in p]
            if calls:
                rejected = self._check_signatures(index, parts, calls)
                if rejected:
                    return rejected
                following = contents[index + 1].get("parts", []) if index + 1 < len(contents) else []
                responses = [p for p in following if "functionResponse" in p]
                if len(responses) != len(calls):
                    return _reject(
                        400,
                        "Please ensure that the number of function response parts is equal to the "
                        "number of function call parts of the function call turn.",
                    )
        config = (body.get("toolConfig") or {}).get("functionCallingConfig") or {}
        if config.get("allowedFunctionNames") and config.get("mode") != "ANY":
            return _reject(
                400,
                "* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: "
                "allowed_function_names may only be set when mode is ANY.",
            )
        if config.get("mode") not in (None, "AUTO", "ANY", "NONE", "VALIDATED"):
            return _reject(400, f"Invalid value at 'tool_config.function_calling_config.mode' ({config.get('mode')})")
        return None

    def _check_signatures(self, index: int, parts: list[dict[str, Any]], calls: list[dict[str, Any]]) -> Reject | None:
        on_call, trailing = self.signatures.get(_call_key(calls[0]), (None, None))
        first = next(p for p in parts if "functionCall" in p)
        if on_call and first.get("thoughtSignature") != on_call:
            return _reject(
                400,
                f"Function call `{calls[0].get('name')}` in the {index + 1}. content block is "
                "missing a `thought_signature`.",
            )
        if trailing and not any(p.get("thoughtSignature") == trailing and "functionCall" not in p for p in parts):
            return _reject(400, f"The {index + 1}. content block is missing a `thought_signature`.")
        return None

    def result_count(self, body: dict[str, Any]) -> int:
        return sum(1 for c in body.get("contents", []) for p in c.get("parts", []) if "functionResponse" in p)

    def frames(self, turn: Turn, body: dict[str, Any], new_id: Callable[[str], str]) -> list[bytes]:
        usage = {
            "promptTokenCount": turn.input_tokens,
            "candidatesTokenCount": turn.output_tokens,
            "totalTokenCount": turn.input_tokens + turn.output_tokens,
        }
        if turn.cached_tokens:
            usage["cachedContentTokenCount"] = turn.cached_tokens

        def chunk(parts: list[dict[str, Any]], finish: str | None = None) -> bytes:
            candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
            if finish:
                candidate["finishReason"] = finish
            return sse(
                {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "fake", "responseId": "resp-fake"}
            )

        out = [chunk([{"text": p, "thought": True}]) for p in pieces(turn.thinking, turn.chunk_size)]
        out += [chunk([{"text": p}]) for p in pieces(turn.text, turn.chunk_size)]
        for call in turn.calls:
            call_json: dict[str, Any] = {"name": call.name, "args": call.arguments}
            if call.id:
                call_json["id"] = call.id
            part: dict[str, Any] = {"functionCall": call_json}
            if call.signature:
                part["thoughtSignature"] = call.signature
            out.append(chunk([part]))
        if turn.calls:
            first = {"name": turn.calls[0].name, "args": turn.calls[0].arguments}
            self.signatures[_call_key(first)] = (turn.calls[0].signature, turn.trailing_signature)
        last: list[dict[str, Any]] = [{"text": ""}]
        if turn.trailing_signature:
            last = [{"text": "", "thoughtSignature": turn.trailing_signature}]
        out.append(chunk(last, turn.raw_stop or ("MAX_TOKENS" if turn.stop == "length" else "STOP")))
        return out

    def error_frame(self, message: str) -> bytes:
        return sse({"error": {"code": 500, "message": message, "status": "INTERNAL"}})
