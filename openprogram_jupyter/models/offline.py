"""The ``offline`` model: the whole loop working with no key and no network.

It is not a language model and says so. With tools named for the run (``tools=[...]``, a
``toolset``) it calls each of them once with example arguments that satisfy the tool's
schema, then reports what came back. With the default full menu it calls nothing — calling
every registered tool unasked could have side effects — and lists what it could call.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from ..events import AssistantUpdate
from ..messages import ToolResultMessage, UserMessage
from .base import MessageBuilder, Model, ModelRequest

__all__ = ["OfflineModel", "example_arguments", "example_value"]

_HOW_TO_GO_ONLINE = (
    "To use a real model, set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, or pick one "
    "explicitly: Runtime(model=\"openai:gpt-4.1-mini\") or %%agent -m anthropic:claude-sonnet-4-5."
)


class OfflineModel(Model):
    name = "offline"

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        results = _results_since_prompt(request.messages)
        called = {result.tool_name for result in results}
        to_call = [] if request.tool_choice == "none" or not request.menu_explicit else [
            spec for spec in request.tools if spec["name"] not in called and spec["name"] != "tool_search"
        ]
        if to_call:
            if request.parallel_tool_calls is False:
                to_call = to_call[:1]
            for spec in to_call:
                for update in out.tool_call(spec["name"], example_arguments(spec.get("parameters") or {})):
                    yield update
            out.finish("toolUse")
            return
        yield out.text_delta(_final_text(request, results))
        out.finish("stop")


def _results_since_prompt(messages: list[Any]) -> list[ToolResultMessage]:
    results = []
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            break
        if isinstance(message, ToolResultMessage):
            results.append(message)
    return results[::-1]


def _final_text(request: ModelRequest, results: list[ToolResultMessage]) -> str:
    lines = ["This is the offline model: no language model ran, nothing left this machine."]
    if results:
        lines.append("I called each tool named for this run once, with example arguments:")
        for message in results:
            outcome = "error" if message.is_error else "result"
            text = message.text.strip().replace("\n", " ")
            lines.append(f"- {message.tool_name}: {outcome}: {text[:200] or '(empty)'}")
    elif request.tools and request.tool_choice != "none":
        lines.append("I could call these tools (example arguments shown); I call none unasked, since "
                     "tools can have side effects. Name tools for the run (tools=[...] or "
                     "%%agent --tools a,b) and I will call each once:")
        for spec in request.tools:
            example = json.dumps(example_arguments(spec.get("parameters") or {}))
            lines.append(f"- {spec['name']}({example})")
    else:
        lines.append("This run has no tools.")
    lines.append(_HOW_TO_GO_ONLINE)
    pick = _decision_pick(request.messages)
    if pick is not None:
        lines.append(f"Asked to choose, I cannot weigh the options, so I take the first one:\n{pick}")
    return "\n".join(lines)


def _decision_pick(messages: list[Any]) -> str | None:
    """The first option of the latest decision menu in the prompts (``exec(choices=...)``)."""
    from ..decision import example_pick

    for message in reversed(messages):
        if isinstance(message, UserMessage):
            pick = example_pick(message.text)
            if pick is not None:
                return pick
    return None


def example_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments for an object schema: every required property, each with an example value."""
    value = example_value(schema, schema.get("$defs", {}))
    return value if isinstance(value, dict) else {}


def example_value(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """A value that satisfies ``schema`` (the common keywords of tool schemas)."""
    defs = defs or {}
    if "$ref" in schema:
        return example_value(defs.get(schema["$ref"].split("/")[-1], {}), defs)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, []) if o.get("type") != "null"] or schema.get(key, [])
        if options:
            return example_value(options[0], defs)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {name: example_value(properties.get(name, {}), defs) for name in schema.get("required", [])}
    if kind == "array":
        if "prefixItems" in schema:
            return [example_value(item, defs) for item in schema["prefixItems"]]
        count = max(1, schema.get("minItems", 1))
        return [example_value(schema.get("items", {}), defs) for _ in range(count)]
    if kind == "integer":
        return _number(schema, 1, int)
    if kind == "number":
        return _number(schema, 1.5, float)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    if kind == "string":
        text = "example"
        if schema.get("format") == "date":
            text = "2024-01-01"
        elif schema.get("format") == "date-time":
            text = "2024-01-01T00:00:00Z"
        min_length, max_length = schema.get("minLength", 0), schema.get("maxLength")
        text = text.ljust(min_length, "x")
        return text[:max_length] if max_length is not None else text
    return "example"


def _number(schema: dict[str, Any], preferred: float, cast: type) -> Any:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value = preferred
    if low is not None and value <= low:
        value = low + 1 if "exclusiveMinimum" in schema else low
    if high is not None and value >= high:
        value = high - 1 if "exclusiveMaximum" in schema else high
    return cast(value)
