"""Tool calls a model wrote as text, read into real :class:`ToolCall` blocks.

Many models behind OpenAI-compatible servers (Ollama, llama.cpp, vLLM without a tool
parser) print their pick instead of returning ``tool_calls``. With
``Runtime(text_tool_calls=True)`` the loop hands each finished reply that holds no calls to
:func:`read_text_tool_calls`, which recognises three styles:

- Hermes / Qwen: ``<tool_call>{"name": "add", "arguments": {...}}</tool_call>``, anywhere in
  the text, any number of them; the text around the blocks stays text, in order;
- Llama JSON: the whole reply is one call object ``{"name": ..., "parameters": {...}}``
  (optionally after ``<|python_tag|>``) or a JSON list of them;
- Mistral: the whole reply is ``[TOOL_CALLS]`` followed by a JSON list of call objects.

Only whole blocks become calls, and only for a tool on the run's menu: a block that is
cut off, is not a JSON object with a ``name`` and object ``arguments`` (or
``parameters``; a JSON string holding an object is accepted), or names another tool stays
text. A call read from text keeps what the model wrote in ``provider_data["text_call"]``,
and a provider that talks to such servers sends it back as written
(:func:`written_reply`), with the results as ``<tool_response>`` text
(:func:`tool_responses_text`) — the form these models' chat templates use.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from typing import Any

from ..core._json import loads_valid
from ..core.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, new_id

__all__ = ["TEXT_CALL_KEY", "is_written_as_text", "read_text_tool_calls", "tool_responses_text", "written_reply"]

TEXT_CALL_KEY = "text_call"

_OPEN, _CLOSE = "<tool_call>", "</tool_call>"
_PYTHON_TAG = "<|python_tag|>"
_MISTRAL_TAG = "[TOOL_CALLS]"


def read_text_tool_calls(message: AssistantMessage, tool_names: Collection[str]) -> int:
    """Turn the calls written in ``message``'s text into :class:`ToolCall` blocks, in place.

    Returns how many calls were read. A message that already holds calls, or none of
    whose text reads as a call to one of ``tool_names``, is left as it was. Thinking
    blocks stay where they are; each text block is replaced by its pieces.
    """
    if message.tool_calls or not tool_names:
        return 0
    content: list[Any] = []
    read = 0
    for block in message.content:
        pieces = _split(block.text, tool_names) if isinstance(block, TextContent) else [block]
        read += sum(isinstance(piece, ToolCall) for piece in pieces)
        content += [TextContent(text=p) if isinstance(p, str) else p for p in pieces if p != ""]
    if read:
        message.content = content
        message.stop_reason = "toolUse"
    return read


def _split(text: str, tool_names: Collection[str]) -> list[str | ToolCall]:
    """``text`` as text pieces and calls, in order (``[text]`` when nothing reads as a call)."""
    whole = _whole_reply_calls(text, tool_names)
    if whole is not None:
        return list(whole)
    pieces: list[str | ToolCall] = []
    position = 0
    for start, end in _hermes_blocks(text):
        call = _call_from(text[start + len(_OPEN) : end - len(_CLOSE)], tool_names, text[start:end])
        if call is None:
            continue
        pieces += [text[position:start].strip(), call]
        position = end
    pieces.append(text[position:].strip() if position else text)
    return pieces


def _hermes_blocks(text: str) -> Iterator[tuple[int, int]]:
    """Where each ``<tool_call>…</tool_call>`` block starts and ends, in one pass: each
    opening tag runs to the first closing tag after it. (A lazy regex rescanned the rest
    of the text from every unclosed tag: quadratic, 16 s for a 176 KB reply.)"""
    start = text.find(_OPEN)
    while start != -1:
        close = text.find(_CLOSE, start + len(_OPEN))
        if close == -1:
            return  # no closing tag after this one: none after any later opening tag either
        end = close + len(_CLOSE)
        yield start, end
        start = text.find(_OPEN, end)


def _whole_reply_calls(text: str, tool_names: Collection[str]) -> list[ToolCall] | None:
    """The calls of a reply that is nothing but calls (Llama or Mistral style), else ``None``."""
    stripped = text.strip()
    for tag in (_PYTHON_TAG, _MISTRAL_TAG):
        if stripped.startswith(tag):
            stripped = stripped[len(tag) :].strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value = loads_valid(stripped)
    except json.JSONDecodeError:
        return None
    objects = value if isinstance(value, list) else [value]
    calls = [_call_from_object(item, tool_names, json.dumps(item)) for item in objects]
    if not calls or any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def _call_from(raw: str, tool_names: Collection[str], written: str) -> ToolCall | None:
    try:
        value = loads_valid(raw)
    except json.JSONDecodeError:
        return None
    return _call_from_object(value, tool_names, written)


def _call_from_object(value: Any, tool_names: Collection[str], written: str) -> ToolCall | None:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):  # {"type": "function", "function": {...}}
        value = value["function"]
    name = value.get("name")
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = loads_valid(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return None
    if not isinstance(name, str) or name not in tool_names or not isinstance(arguments, dict):
        return None
    return ToolCall(name=name, arguments=arguments, id=new_id("call"), provider_data={TEXT_CALL_KEY: written})


def is_written_as_text(call: ToolCall) -> bool:
    """Whether ``call`` was read from the model's text."""
    return bool(call.provider_data and TEXT_CALL_KEY in call.provider_data)


def written_reply(message: AssistantMessage) -> str:
    """The reply as the model wrote it: its text, with each call read from text put back
    where it stood (a call not read from text is written as a ``<tool_call>`` block)."""
    parts = []
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, ToolCall):
            written = (block.provider_data or {}).get(TEXT_CALL_KEY)
            if not isinstance(written, str):
                written = f"<tool_call>{json.dumps({'name': block.name, 'arguments': block.arguments})}</tool_call>"
            parts.append(written)
    return "\n".join(part for part in parts if part)


def tool_responses_text(results: Sequence[ToolResultMessage], texts: Sequence[str]) -> str:
    """The results as one user turn of ``<tool_response>`` blocks, in call order
    (``texts`` are the results' texts as the provider renders them)."""
    blocks = []
    for result, text in zip(results, texts, strict=True):
        body = json.dumps({"name": result.tool_name, "content": text}, ensure_ascii=False)
        blocks.append(f"<tool_response>\n{body}\n</tool_response>")
    return "\n".join(blocks)
