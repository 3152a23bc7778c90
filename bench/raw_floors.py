"""The floors of ``bench/provider_overhead.py`` that do not go through an agent library:
the same loop as the sync-SDK floor, either on raw ``httpx`` (the physical floor: one
pooled client, the body encoded with ``json.dumps``, the stream parsed as a minimal
client must — SSE lines, ``json.loads`` of each ``data:``, the text and the calls folded;
for long runs also with each message encoded once, :class:`IncrementalBody`) or on the
synchronous ``anthropic`` SDK. Each returns a ``run() -> calls made``."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

KEY = "sk-bench-not-a-real-key"
PROMPT = "Add the numbers one round at a time."
SYNC_CLIENTS: list[Any] = []  # closed by the bench at the end
ASYNC_CLIENTS: list[Any] = []  # httpx.AsyncClient: closed (aclose) on the bench's loop at the end


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First integer.
        b: Second integer.
    """
    return a + b


def answer_calls(messages: list[dict[str, Any]], text: str, calls: dict[int, dict[str, str]]) -> int:
    """Append the assistant message and one tool result per call (Chat Completions shapes);
    return how many calls ran."""
    messages.append(
        {
            "role": "assistant",
            "content": text or None,
            "tool_calls": [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                for c in calls.values()
            ],
        }
    )
    for call in calls.values():
        messages.append(
            {"role": "tool", "tool_call_id": call["id"], "content": str(add(**json.loads(call["arguments"])))}
        )
    return len(calls)


ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}


def _sse_data(lines: Iterator[str]) -> Iterator[Any]:
    """The JSON of each ``data:`` line of an SSE stream, up to ``[DONE]``."""
    for line in lines:
        if line.startswith("data:"):
            data = line[5:].strip()
            if data == "[DONE]":
                return
            yield json.loads(data)


def _httpx_client(base_url: str, headers: dict[str, str]) -> Any:
    import httpx

    client = httpx.Client(base_url=base_url, headers={**headers, "content-type": "application/json"})
    SYNC_CLIENTS.append(client)
    return client


OPENAI_TOOLS = [
    {"type": "function", "function": {"name": "add", "description": "Add two integers.", "parameters": ADD_SCHEMA}}
]


OPENAI_FIELDS = {"model": "gpt-bench", "tools": OPENAI_TOOLS, "stream": True, "stream_options": {"include_usage": True}}


def _openai_body(messages: list[dict[str, Any]]) -> bytes:
    return json.dumps({**OPENAI_FIELDS, "messages": messages}).encode()


class IncrementalBody:
    """``body(messages)``: the JSON body of ``fields`` plus ``"messages"``, each message
    encoded once, in the round that first sends it, and the body joined anew each round —
    what a client that keeps its history's bytes must still do, the floor of a long run."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.head = json.dumps(fields).encode()[:-1] + b', "messages": ['
        self.parts: list[bytes] = []

    def __call__(self, messages: list[dict[str, Any]]) -> bytes:
        self.parts += [json.dumps(message).encode() for message in messages[len(self.parts) :]]
        return b"".join((self.head, b", ".join(self.parts), b"]}"))


def _fold_chunk(chunk: dict[str, Any], text: str, calls: dict[int, dict[str, str]]) -> str:
    """Fold one Chat Completions chunk (parsed JSON) into ``calls``; return the text so far."""
    for choice in chunk.get("choices") or ():
        delta = choice.get("delta") or {}
        text += delta.get("content") or ""
        for piece in delta.get("tool_calls") or ():
            call = calls.setdefault(piece["index"], {"id": piece.get("id"), "name": "", "arguments": ""})
            function = piece.get("function") or {}
            call["name"] = function.get("name") or call["name"]
            call["arguments"] += function.get("arguments") or ""
    return text


def make_raw_openai(base_url: str, rounds: int, *, incremental: bool = False) -> Callable[[], int]:
    """Chat Completions on raw ``httpx``, streaming; ``incremental``: the body encoded a
    message at a time (:class:`IncrementalBody`), else whole each round."""
    client = _httpx_client(base_url, {"authorization": f"Bearer {KEY}"})

    def run() -> int:
        messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
        body = IncrementalBody(OPENAI_FIELDS) if incremental else _openai_body
        made = 0
        while True:
            text, calls = "", {}
            with client.stream("POST", "/chat/completions", content=body(messages)) as response:
                response.raise_for_status()
                for chunk in _sse_data(response.iter_lines()):
                    text = _fold_chunk(chunk, text, calls)
            if not calls:
                return made
            made += answer_calls(messages, text, calls)

    return run


def make_raw_async_openai(base_url: str, rounds: int, *, incremental: bool = False) -> Callable[[], Awaitable[int]]:
    """The same loop on ``httpx.AsyncClient`` (the HTTP stack under the SDKs' async
    clients, and under ours): what asyncio and the async HTTP stack add to the sync floor;
    ``incremental`` as for :func:`make_raw_openai`."""
    import httpx

    client = httpx.AsyncClient(
        base_url=base_url, headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"}
    )
    ASYNC_CLIENTS.append(client)

    async def run() -> int:
        messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
        body = IncrementalBody(OPENAI_FIELDS) if incremental else _openai_body
        made = 0
        while True:
            text, calls = "", {}
            async with client.stream("POST", "/chat/completions", content=body(messages)) as response:
                response.raise_for_status()
                async for line in response.aiter_lines():
                    if line.startswith("data:") and line[5:].strip() != "[DONE]":
                        text = _fold_chunk(json.loads(line[5:]), text, calls)
            if not calls:
                return made
            made += answer_calls(messages, text, calls)

    return run


def _fold_json(event: dict[str, Any], text: str, calls: dict[int, dict[str, str]]) -> str:
    """Fold one Messages stream event (parsed JSON) into ``calls``; return the text so far."""
    kind = event["type"]
    if kind == "content_block_start" and event["content_block"]["type"] == "tool_use":
        block = event["content_block"]
        calls[event["index"]] = {"id": block["id"], "name": block["name"], "json": ""}
    elif kind == "content_block_delta":
        delta = event["delta"]
        if delta["type"] == "text_delta":
            text += delta["text"]
        elif delta["type"] == "input_json_delta":
            calls[event["index"]]["json"] += delta["partial_json"]
    return text


def _fold_sdk(event: Any, text: str, calls: dict[int, dict[str, str]]) -> str:
    """:func:`_fold_json` for the SDK's typed event objects."""
    kind = event.type
    if kind == "content_block_start" and event.content_block.type == "tool_use":
        calls[event.index] = {"id": event.content_block.id, "name": event.content_block.name, "json": ""}
    elif kind == "content_block_delta":
        if event.delta.type == "text_delta":
            text += event.delta.text
        elif event.delta.type == "input_json_delta":
            calls[event.index]["json"] += event.delta.partial_json
    return text


def _answer_anthropic(messages: list[dict[str, Any]], text: str, calls: dict[int, dict[str, str]]) -> int:
    """Append the assistant message and the user message of tool results (Messages
    shapes); return how many calls ran."""
    blocks = [{"type": "text", "text": text}] if text else []
    blocks += [
        {"type": "tool_use", "id": c["id"], "name": c["name"], "input": json.loads(c["json"] or "{}")}
        for c in calls.values()
    ]
    messages.append({"role": "assistant", "content": blocks})
    messages.append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": c["id"], "content": str(add(**json.loads(c["json"])))}
                for c in calls.values()
            ],
        }
    )
    return len(calls)


def _anthropic_loop(
    stream_events: Callable[[list[dict[str, Any]]], Iterator[Any]],
    fold: Callable[[Any, str, dict[int, dict[str, str]]], str],
) -> Callable[[], int]:
    """The Messages loop over ``stream_events(messages)``, each event folded by ``fold``."""

    def run() -> int:
        messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
        made = 0
        while True:
            text, calls = "", {}
            for event in stream_events(messages):
                text = fold(event, text, calls)
            if not calls:
                return made
            made += _answer_anthropic(messages, text, calls)

    return run


ANTHROPIC_TOOLS = [{"name": "add", "description": "Add two integers.", "input_schema": ADD_SCHEMA}]


ANTHROPIC_FIELDS = {"model": "claude-bench", "max_tokens": 1024, "tools": ANTHROPIC_TOOLS, "stream": True}


def make_raw_anthropic(base_url: str, rounds: int, *, incremental: bool = False) -> Callable[[], int]:
    """Anthropic Messages on raw ``httpx``, streaming; ``incremental`` as for OpenAI."""
    client = _httpx_client(base_url, {"x-api-key": KEY, "anthropic-version": "2023-06-01"})
    encoded: list[IncrementalBody] = []  # the run's, started anew by each run's first request

    def events(messages: list[dict[str, Any]]) -> Iterator[Any]:
        if len(messages) == 1:
            encoded[:] = [IncrementalBody(ANTHROPIC_FIELDS)]
        body = encoded[0](messages) if incremental else json.dumps({**ANTHROPIC_FIELDS, "messages": messages}).encode()
        with client.stream("POST", "/v1/messages", content=body) as response:
            response.raise_for_status()
            for event in _sse_data(response.iter_lines()):
                yield event
                if event["type"] == "message_stop":
                    return

    return _anthropic_loop(events, _fold_json)


def make_raw_async_anthropic(base_url: str, rounds: int, *, incremental: bool = False) -> Callable[[], Awaitable[int]]:
    """The Messages loop on ``httpx.AsyncClient``, as :func:`make_raw_async_openai` is the
    Chat Completions one; ``incremental`` as for :func:`make_raw_openai`."""
    import httpx

    client = httpx.AsyncClient(
        base_url=base_url,
        headers={"x-api-key": KEY, "anthropic-version": "2023-06-01", "content-type": "application/json"},
    )
    ASYNC_CLIENTS.append(client)

    async def run() -> int:
        messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
        encoded = IncrementalBody(ANTHROPIC_FIELDS) if incremental else None
        made = 0
        while True:
            text, calls = "", {}
            body = encoded(messages) if encoded else json.dumps({**ANTHROPIC_FIELDS, "messages": messages}).encode()
            async with client.stream("POST", "/v1/messages", content=body) as response:
                response.raise_for_status()
                async for line in response.aiter_lines():
                    if line.startswith("data:"):
                        event = json.loads(line[5:])
                        text = _fold_json(event, text, calls)
                        if event["type"] == "message_stop":
                            break
            if not calls:
                return made
            made += _answer_anthropic(messages, text, calls)

    return run


def make_sync_anthropic(base_url: str, rounds: int) -> Callable[[], int]:
    """The same loop on the synchronous ``anthropic`` SDK, streaming."""
    import anthropic

    client = anthropic.Anthropic(api_key=KEY, base_url=base_url, max_retries=0)
    SYNC_CLIENTS.append(client)

    def events(messages: list[dict[str, Any]]) -> Iterator[Any]:
        with client.messages.create(
            model="claude-bench",
            max_tokens=1024,
            messages=messages,  # type: ignore[call-overload]
            tools=ANTHROPIC_TOOLS,
            stream=True,
        ) as stream:
            yield from stream

    return _anthropic_loop(events, _fold_sdk)
