"""OpenAI Chat Completions and Responses, as the fake server speaks them."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from .script import Turn, pieces
from .wire import Reject, Wire, sse


def _openai_error(status: int, message: str, kind: str, code: str | None = None, param: str | None = None) -> Reject:
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return Reject(status, body)


def _strict_schema_problem(schema: object, path: str = "") -> str | None:
    """What OpenAI's strict mode refuses in ``schema`` (the first found): an object without
    ``additionalProperties: false`` or with a property missing from ``required``, or a
    ``default``."""
    if not isinstance(schema, dict):
        return None
    if "default" in schema:
        return f"'default' is not permitted ({path or 'root'})"
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            return f"'additionalProperties' is required to be supplied and to be false ({path or 'root'})"
        missing = [name for name in schema.get("properties") or {} if name not in (schema.get("required") or [])]
        if missing:
            return f"'required' is required to include every key in properties. Missing '{missing[0]}'"
    children = [*(schema.get("properties") or {}).items(), *enumerate(schema.get("anyOf") or [])]
    children += [("items", schema["items"])] if "items" in schema else []
    for key, child in children:
        problem = _strict_schema_problem(child, f"{path}.{key}" if path else str(key))
        if problem:
            return problem
    return None


def _strict_tool_error(name: str, parameters: object) -> Reject | None:
    problem = _strict_schema_problem(parameters)
    if problem is None:
        return None
    return _openai_error(
        400, f"Invalid schema for function '{name}': {problem}.", "invalid_request_error", param="tools"
    )


def _allowed_tools_error(choice: object, declared: list[str], name_of: Callable[[dict], object]) -> Reject | None:
    """An ``allowed_tools`` tool choice naming a tool the request does not declare is refused."""
    if not isinstance(choice, dict) or choice.get("type") != "allowed_tools":
        return None
    listed = (choice.get("allowed_tools") or {}).get("tools") if "allowed_tools" in choice else choice.get("tools")
    for tool in listed or []:
        if name_of(tool) not in declared:
            return _openai_error(
                400,
                f"Invalid tool_choice: allowed tool {name_of(tool)!r} is not in 'tools'.",
                "invalid_request_error",
                param="tool_choice",
            )
    return None


_ERROR_KINDS = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "invalid_request_error",
    429: "requests",
    500: "server_error",
    503: "server_error",
}


class OpenAIChatWire(Wire):
    name = "openai"

    def key(self, headers: dict[str, str]) -> str | None:
        auth = headers.get("authorization", "")
        return auth[7:] if auth.lower().startswith("bearer ") else None

    def http_error(self, status: int, message: str) -> Reject:
        code = "rate_limit_exceeded" if status == 429 else None
        return _openai_error(status, message, _ERROR_KINDS.get(status, "server_error"), code)

    def validate(self, body: dict[str, Any]) -> Reject | None:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return self.http_error(400, "Missing required parameter: 'messages'.")
        tools = body.get("tools") or []
        for flag in ("parallel_tool_calls", "tool_choice"):
            if flag in body and not tools:
                return _openai_error(
                    400,
                    f"Invalid value for '{flag}': '{flag}' is only allowed when 'tools' are specified.",
                    "invalid_request_error",
                    param=flag,
                )
        for spec in tools:
            if spec.get("type") != "function" or not spec.get("function", {}).get("name"):
                return self.http_error(400, "Missing required parameter: 'tools[0].function'.")
            function = spec["function"]
            if function.get("strict") and (refused := _strict_tool_error(function["name"], function.get("parameters"))):
                return refused
        declared = [spec["function"]["name"] for spec in tools]
        refused = _allowed_tools_error(
            body.get("tool_choice"), declared, lambda t: (t.get("function") or {}).get("name")
        )
        if refused:
            return refused
        open_ids: list[str] = []
        for index, message in enumerate(messages):
            role = message.get("role")
            if role == "tool":
                if message.get("tool_call_id") not in open_ids:
                    return _openai_error(
                        400,
                        "Invalid parameter: messages with role 'tool' must be a response to a "
                        "preceeding message with 'tool_calls'.",
                        "invalid_request_error",
                        param=f"messages.[{index}].role",
                    )
                open_ids.remove(message["tool_call_id"])
                continue
            if open_ids:
                return _openai_error(
                    400,
                    "An assistant message with 'tool_calls' must be followed by tool messages "
                    "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                    f"response messages: {', '.join(open_ids)}",
                    "invalid_request_error",
                    param=f"messages.[{index}].role",
                )
            if role == "assistant":
                open_ids = [call["id"] for call in message.get("tool_calls") or []]
            elif role not in ("system", "developer", "user"):
                return self.http_error(
                    400,
                    f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', "
                    "'user', 'tool', 'function', and 'developer'.",
                )
        if open_ids:
            return _openai_error(
                400,
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(open_ids)}",
                "invalid_request_error",
            )
        return None

    def result_count(self, body: dict[str, Any]) -> int:
        return sum(1 for m in body.get("messages", []) if m.get("role") == "tool")

    def frames(self, turn: Turn, body: dict[str, Any], new_id: Callable[[str], str]) -> list[bytes]:
        model = body.get("model", "")
        created = int(time.time())

        def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> bytes:
            choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]
            payload = {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": choices,
                **extra,
            }
            return sse(payload)

        out = [chunk({"role": "assistant", "content": ""})]
        out += [chunk({"reasoning_content": p}) for p in pieces(turn.thinking, turn.chunk_size)]
        out += [chunk({"content": p}) for p in pieces(turn.text, turn.chunk_size)]
        for index, call in enumerate(turn.calls):
            call_id = call.id or new_id("call")
            out.append(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": call_id,
                                "type": "function",
                                "function": {"name": call.name, "arguments": ""},
                            }
                        ]
                    }
                )
            )
            for p in pieces(json.dumps(call.arguments), turn.chunk_size):
                out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": p}}]}))
        finish = "length" if turn.stop == "length" else ("tool_calls" if turn.calls else "stop")
        finish = turn.raw_stop or finish
        out.append(chunk({}, finish))
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = {
                "prompt_tokens": turn.input_tokens,
                "completion_tokens": turn.output_tokens,
                "total_tokens": turn.input_tokens + turn.output_tokens,
                "prompt_tokens_details": {"cached_tokens": turn.cached_tokens},
            }
            out.append(chunk(None, usage=usage))
        out.append(b"data: [DONE]\n\n")
        return out

    def error_frame(self, message: str) -> bytes:
        return sse({"error": {"message": message, "type": "server_error", "param": None, "code": None}})

    def complete(self, turn: Turn, body: dict[str, Any], new_id: Callable[[str], str]) -> dict[str, Any]:
        """The whole reply as one ``chat.completion`` (a request with ``stream`` false)."""
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None, "refusal": None}
        if turn.calls:
            message["tool_calls"] = [
                {
                    "id": c.id or new_id("call"),
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                }
                for c in turn.calls
            ]
        finish = "length" if turn.stop == "length" else ("tool_calls" if turn.calls else "stop")
        finish = turn.raw_stop or finish
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": {
                "prompt_tokens": turn.input_tokens,
                "completion_tokens": turn.output_tokens,
                "total_tokens": turn.input_tokens + turn.output_tokens,
            },
        }


class OpenAIResponsesWire(Wire):
    name = "openai-responses"

    key = OpenAIChatWire.key
    http_error = OpenAIChatWire.http_error

    def validate(self, body: dict[str, Any]) -> Reject | None:
        items = body.get("input")
        if isinstance(items, str):
            return None
        if not isinstance(items, list) or not items:
            return self.http_error(400, "Missing required parameter: 'input'.")
        functions = [spec for spec in body.get("tools") or [] if spec.get("type") != "tool_search"]
        for spec in functions:
            if spec.get("type") != "function" or not spec.get("name"):
                return self.http_error(400, "Missing required parameter: 'tools[0].name'.")
            if spec.get("strict") and (refused := _strict_tool_error(spec["name"], spec.get("parameters"))):
                return refused
        if refused := _responses_search_error(body.get("tools") or [], items):
            return refused
        if refused := _responses_compaction_error(body.get("context_management"), items):
            return refused
        declared = [spec["name"] for spec in functions]
        refused = _allowed_tools_error(body.get("tool_choice"), declared, lambda t: t.get("name"))
        if refused:
            return refused
        calls = [i.get("call_id") for i in items if i.get("type") == "function_call"]
        outputs = [i.get("call_id") for i in items if i.get("type") == "function_call_output"]
        for call_id in calls:
            if call_id not in outputs:
                return _openai_error(
                    400, f"No tool output found for function call {call_id}.", "invalid_request_error", param="input"
                )
        for call_id in outputs:
            if call_id not in calls:
                return _openai_error(
                    400,
                    f"No tool call found for function call output with call_id {call_id}.",
                    "invalid_request_error",
                    param="input",
                )
        return None

    def result_count(self, body: dict[str, Any]) -> int:
        items = body.get("input")
        return sum(1 for i in items if i.get("type") == "function_call_output") if isinstance(items, list) else 0

    def frames(self, turn: Turn, body: dict[str, Any], new_id: Callable[[str], str]) -> list[bytes]:
        seq = iter(range(1_000_000))
        response_id = new_id("resp")
        base = {
            "id": response_id,
            "object": "response",
            "created_at": int(time.time()),
            "model": body.get("model", ""),
            "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools", []),
            "status": "in_progress",
            "output": [],
        }

        def event(kind: str, **fields: Any) -> bytes:
            return sse({"type": kind, "sequence_number": next(seq), **fields}, event=kind)

        out = [event("response.created", response=base), event("response.in_progress", response=base)]
        output: list[dict[str, Any]] = []
        asked = [e for e in body.get("context_management") or [] if e.get("type") == "compaction"]
        if turn.compaction is not None and asked:
            item = {"type": "compaction", "id": new_id("cmp"), "encrypted_content": turn.compaction}
            out.append(event("response.output_item.added", output_index=0, item=item))
            out.append(event("response.compaction.compacting", item_id=item["id"], output_index=0))
            out.append(event("response.output_item.done", output_index=0, item=item))
            output.append(item)
        if turn.thinking:
            item = {"type": "reasoning", "id": new_id("rs"), "summary": []}
            n = len(output)
            out.append(event("response.output_item.added", output_index=n, item=item))
            out.append(
                event(
                    "response.reasoning_summary_part.added",
                    item_id=item["id"],
                    output_index=n,
                    summary_index=0,
                    part={"type": "summary_text", "text": ""},
                )
            )
            for p in pieces(turn.thinking, turn.chunk_size):
                out.append(
                    event(
                        "response.reasoning_summary_text.delta",
                        item_id=item["id"],
                        output_index=n,
                        summary_index=0,
                        delta=p,
                    )
                )
            item = {**item, "summary": [{"type": "summary_text", "text": turn.thinking}]}
            if "reasoning.encrypted_content" in body.get("include", []):  # the reasoning, for a stateless client
                item["encrypted_content"] = f"enc-{item['id']}"
            out.append(event("response.output_item.done", output_index=n, item=item))
            output.append(item)
        if turn.text:
            n = len(output)
            item = {"type": "message", "id": new_id("msg"), "role": "assistant", "status": "in_progress", "content": []}
            out.append(event("response.output_item.added", output_index=n, item=item))
            part = {"type": "output_text", "text": "", "annotations": []}
            out.append(
                event("response.content_part.added", item_id=item["id"], output_index=n, content_index=0, part=part)
            )
            for p in pieces(turn.text, turn.chunk_size):
                out.append(
                    event(
                        "response.output_text.delta",
                        item_id=item["id"],
                        output_index=n,
                        content_index=0,
                        delta=p,
                        logprobs=[],
                    )
                )
            part = {**part, "text": turn.text}
            out.append(
                event(
                    "response.output_text.done",
                    item_id=item["id"],
                    output_index=n,
                    content_index=0,
                    text=turn.text,
                    logprobs=[],
                )
            )
            out.append(
                event("response.content_part.done", item_id=item["id"], output_index=n, content_index=0, part=part)
            )
            item = {**item, "status": "completed", "content": [part]}
            out.append(event("response.output_item.done", output_index=n, item=item))
            output.append(item)
        if turn.search is not None:
            for item in _search_items(turn.search.query, turn.search.loaded, body, new_id):
                out.append(event("response.output_item.added", output_index=len(output), item=item))
                out.append(event("response.output_item.done", output_index=len(output), item=item))
                output.append(item)
        for call in turn.calls:
            n = len(output)
            arguments = json.dumps(call.arguments)
            item = {
                "type": "function_call",
                "id": new_id("fc"),
                "call_id": call.id or new_id("call"),
                "name": call.name,
                "arguments": "",
                "status": "in_progress",
            }
            out.append(event("response.output_item.added", output_index=n, item=item))
            for p in pieces(arguments, turn.chunk_size):
                out.append(event("response.function_call_arguments.delta", item_id=item["id"], output_index=n, delta=p))
            out.append(
                event("response.function_call_arguments.done", item_id=item["id"], output_index=n, arguments=arguments)
            )
            item = {**item, "arguments": arguments, "status": "completed"}
            out.append(event("response.output_item.done", output_index=n, item=item))
            output.append(item)
        usage = {
            "input_tokens": turn.input_tokens,
            "output_tokens": turn.output_tokens,
            "total_tokens": turn.input_tokens + turn.output_tokens,
            "input_tokens_details": {"cached_tokens": turn.cached_tokens},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        if turn.failed_code is not None:
            error = {"code": turn.failed_code, "message": turn.error_message or "the response failed"}
            out.append(
                event(
                    "response.failed",
                    response={**base, "status": "failed", "output": output, "usage": usage, "error": error},
                )
            )
        elif turn.stop in ("length", "content_filter") or turn.raw_stop:
            reason = turn.raw_stop or ("max_output_tokens" if turn.stop == "length" else "content_filter")
            final = {
                **base,
                "status": "incomplete",
                "output": output,
                "usage": usage,
                "incomplete_details": {"reason": reason},
            }
            out.append(event("response.incomplete", response=final))
        else:
            out.append(
                event("response.completed", response={**base, "status": "completed", "output": output, "usage": usage})
            )
        return out

    def error_frame(self, message: str) -> bytes:
        return sse(
            {"type": "error", "code": "server_error", "message": message, "param": None, "sequence_number": 999},
            event="error",
        )


def _responses_search_error(tools: list[dict[str, Any]], items: list[dict[str, Any]]) -> Reject | None:
    """The Responses API's rules for deferred tools: a deferred function needs a
    ``tool_search`` tool beside it; each ``tool_search_call`` item is followed by its
    ``tool_search_output``; a ``function_call`` of a deferred tool comes after an output
    loaded it."""
    deferred = {t.get("name") for t in tools if t.get("defer_loading")}
    if deferred and not any(t.get("type") == "tool_search" for t in tools):
        return _openai_error(400, "Deferred tools require a tool_search tool.", "invalid_request_error", param="tools")
    loaded: set[str] = set()
    for index, item in enumerate(items):
        following = items[index + 1] if index + 1 < len(items) else {}
        if item.get("type") == "tool_search_call" and (
            following.get("type") != "tool_search_output" or following.get("call_id") != item.get("call_id")
        ):
            return _openai_error(
                400, f"No tool search output found for {item.get('call_id')}.", "invalid_request_error", param="input"
            )
        if item.get("type") == "tool_search_output":
            loaded |= {t.get("name") for t in item.get("tools", [])}
        if item.get("type") == "function_call" and item.get("name") in deferred and item.get("name") not in loaded:
            return _openai_error(
                400, f"Function {item.get('name')!r} is deferred and was not loaded.", "invalid_request_error"
            )
    return None


def _search_items(
    query: str, loaded: list[str], body: dict[str, Any], new_id: Callable[[str], str]
) -> list[dict[str, Any]]:
    """A server-run tool search: the call and its output, which carries the loaded tools'
    definitions as the request declared them (without ``defer_loading``)."""
    call_id = new_id("tsc")
    common = {"call_id": call_id, "execution": "server", "status": "completed"}
    declared = {t.get("name"): t for t in body.get("tools") or []}
    tools = [{k: v for k, v in declared[name].items() if k != "defer_loading"} for name in loaded if name in declared]
    return [
        {"type": "tool_search_call", "id": new_id("ts"), "arguments": {"query": query}, **common},
        {"type": "tool_search_output", "id": new_id("tso"), "tools": tools, **common},
    ]


def _responses_compaction_error(context_management: Any, items: list[dict[str, Any]]) -> Reject | None:
    """The API's rules for compaction, as its types state them: each ``context_management``
    entry has a ``type`` and an integer ``compact_threshold`` if any; a ``compaction`` input
    item holds only ``type``, ``id`` and its ``encrypted_content`` (a string)."""
    for n, entry in enumerate(context_management or []):
        threshold = entry.get("compact_threshold")
        if entry.get("type") != "compaction" or not isinstance(threshold, (int, type(None))):
            return _openai_error(
                400, "Invalid context_management entry.", "invalid_request_error", param=f"context_management[{n}]"
            )
    for n, item in enumerate(items):
        if item.get("type") != "compaction":
            continue
        if set(item) - {"type", "id", "encrypted_content"} or not isinstance(item.get("encrypted_content"), str):
            return _openai_error(400, "Invalid compaction item.", "invalid_request_error", param=f"input[{n}]")
    return None
