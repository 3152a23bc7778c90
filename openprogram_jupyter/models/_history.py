"""The history as the provider APIs need it: every call paired with exactly one result,
and the small conversions all providers share (result text and images, safe ids, stub
tool specs, merging same-role messages)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..core._json import JsonObject, loads_valid
from ..core._result_text import result_blocks_text
from ..core.messages import AssistantMessage, ImageContent, TextContent, ToolCall, ToolResultMessage, UserMessage

__all__ = [
    "AssistantTurn",
    "append_merged",
    "data_url",
    "forced_tool_name",
    "history_has_tool_blocks",
    "json_arguments",
    "paired_history",
    "result_images",
    "result_parts",
    "result_text",
    "safe_tool_id",
    "stub_specs_for_history",
    "user_blocks",
    "without_images",
]

IMAGE_LEFT_OUT = "(an image was left out here: this run sends no images to the model, images_to_model=False)"

EMPTY_RESULT_TEXT = "(no output)"
MISSING_RESULT_TEXT = "error: no result was recorded for this call"


def json_arguments(text: str | None) -> JsonObject | None:
    """Parsed JSON object arguments, or ``None`` (the builder then records the problem)."""
    if not text:
        return None
    try:
        value = loads_valid(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


@dataclass
class AssistantTurn:
    """An assistant message and the results of its calls, aligned one-to-one with
    ``message.tool_calls`` (a missing result is filled with an error result)."""

    message: AssistantMessage
    results: list[ToolResultMessage] = field(default_factory=list)

    @property
    def calls(self) -> list[ToolCall]:
        return self.message.tool_calls


def paired_history(
    messages: Iterable[UserMessage | AssistantMessage | ToolResultMessage],
) -> list[UserMessage | AssistantTurn]:
    """Group the history into user messages and assistant turns with their results.

    Results are matched to calls by ``tool_call_id`` and put in call order; a call with
    no result gets ``MISSING_RESULT_TEXT`` as an error result, and a result with no call
    in the preceding assistant message is dropped — so whatever the history holds, what
    is sent pairs every call with exactly one result. Assistant messages with no content
    at all (a round that failed before anything streamed) are left out.
    """
    entries: list[UserMessage | AssistantTurn] = []
    pending: AssistantTurn | None = None
    collected: dict[str, ToolResultMessage] = {}

    def close_turn() -> None:
        nonlocal pending
        if pending is None:
            return
        pending.results = [
            collected.get(call.id or "")
            or ToolResultMessage(
                tool_call_id=call.id or "",
                tool_name=call.name,
                is_error=True,
                content=[TextContent(text=MISSING_RESULT_TEXT)],
                status="error",
            )
            for call in pending.calls
        ]
        collected.clear()
        pending = None

    for message in messages:
        if isinstance(message, ToolResultMessage):
            if pending is not None and message.tool_call_id not in collected:
                collected[message.tool_call_id] = message
            continue
        close_turn()
        if isinstance(message, AssistantMessage):
            if not message.content:
                continue
            pending = AssistantTurn(message)
            entries.append(pending)
        else:
            entries.append(message)
    close_turn()
    return entries


def result_text(result: ToolResultMessage) -> str:
    """The text the model sees for a result, for a field that takes text alone: its blocks
    in order, apart, an image among them as ``[image N]`` (``core/_result_text``);
    ``EMPTY_RESULT_TEXT`` when it has none."""
    text = result_blocks_text(result.content)
    if text:
        return text
    return "(see the attached image)" if result_images(result) else EMPTY_RESULT_TEXT


def result_parts(result: ToolResultMessage) -> list[TextContent | ImageContent]:
    """A result's blocks in their order, for a provider whose result takes a list of them:
    empty text left out, and a first text block (:func:`result_text`) when no text is left."""
    parts = [block for block in result.content if not isinstance(block, TextContent) or block.text]
    if not any(isinstance(block, TextContent) for block in parts):
        parts.insert(0, TextContent(text=result_text(result)))
    return parts


def result_images(result: ToolResultMessage) -> list[ImageContent]:
    return [block for block in result.content if isinstance(block, ImageContent)]


def user_blocks(message: UserMessage) -> list[TextContent | ImageContent]:
    if isinstance(message.content, str):
        return [TextContent(text=message.content)]
    return list(message.content)


def without_images(
    messages: list[UserMessage | AssistantMessage | ToolResultMessage],
) -> list[UserMessage | AssistantMessage | ToolResultMessage]:
    """``messages`` with every image of a user message or a tool result replaced by a
    text block saying so (for a model that takes no images); the others are the same
    objects, and nothing is changed in place."""

    def swapped(blocks: list[TextContent | ImageContent]) -> list[TextContent | ImageContent]:
        return [TextContent(text=IMAGE_LEFT_OUT) if isinstance(b, ImageContent) else b for b in blocks]

    shown: list[UserMessage | AssistantMessage | ToolResultMessage] = []
    for message in messages:
        if (
            isinstance(message, UserMessage)
            and not isinstance(message.content, str)
            and any(isinstance(b, ImageContent) for b in message.content)
        ):
            message = message.model_copy(update={"content": swapped(list(message.content))})
        elif isinstance(message, ToolResultMessage) and result_images(message):
            message = message.model_copy(update={"content": swapped(list(message.content))})
        shown.append(message)
    return shown


_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9_\-]")


def safe_tool_id(call_id: str) -> str:
    """``call_id`` limited to ``[A-Za-z0-9_-]`` and 64 characters (Anthropic, Bedrock).
    The same id always maps to the same result, so a call and its result still pair."""
    cleaned = _UNSAFE_ID_CHARS.sub("_", call_id or "call")
    return cleaned[:64]


def forced_tool_name(choice: object) -> str | None:
    """The tool a ``{"type": "function", "name": X}`` choice forces, else ``None``."""
    if isinstance(choice, dict):
        return choice.get("name")
    return None


def history_has_tool_blocks(messages: Iterable[Any]) -> bool:
    return any(isinstance(m, ToolResultMessage) or (isinstance(m, AssistantMessage) and m.tool_calls) for m in messages)


def stub_specs_for_history(messages: Iterable[Any], tools: list[JsonObject]) -> list[JsonObject]:
    """``tools``, plus a minimal spec for each tool named in the history but not on the
    menu — for providers that reject tool blocks in a history without those tools
    declared. The stubs accept any object."""
    known = {spec["name"] for spec in tools}
    extra: list[JsonObject] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                if call.name not in known:
                    known.add(call.name)
                    extra.append(
                        {
                            "name": call.name,
                            "description": "A tool used earlier in this conversation; not available now.",
                            "parameters": {"type": "object", "properties": {}},
                        }
                    )
    return list(tools) + extra


def append_merged(messages: list[JsonObject], role: str, blocks: list[JsonObject]) -> None:
    """Add ``blocks`` as a ``{"role", "content": [...]}`` message, joining the previous
    message when it has the same role (Anthropic and Bedrock want roles to alternate, so
    a steering message after tool results joins the results' user message). The joined
    message is a new one: neither ``messages[-1]`` nor its content list is changed."""
    if not blocks:
        return
    if messages and messages[-1]["role"] == role:  # a new message: one built before may be reused
        messages[-1] = {**messages[-1], "content": [*messages[-1]["content"], *blocks]}
    else:
        messages.append({"role": role, "content": blocks})


def data_url(image: ImageContent) -> str:
    return f"data:{image.mime_type};base64,{image.data}"
