"""What each provider receives for a tool, and what a provider would reject.

One function per wire shape turns a tool spec (``{"name", "description", "parameters"}``)
into the provider's tool declaration; the provider adapters and ``%agent schema NAME``
both use them, so what is shown is what is sent. :func:`schema_problems` lists what a
provider would refuse (or, for Gemini, leave unenforced) before a run finds out.

The shapes (WIRE.md):

- ``openai`` (Chat Completions): ``{"type": "function", "function": {name, description, parameters}}``
- ``openai-responses``: ``{"type": "function", name, description, parameters}``
- ``anthropic``: ``{name, description, input_schema}``
- ``gemini``: ``{name, description, parametersJsonSchema}`` (inside ``tools[].functionDeclarations``)
- ``bedrock`` (Converse): ``{"toolSpec": {name, description, "inputSchema": {"json": ...}}}``
  (inside ``toolConfig.tools``; an empty description becomes the name, Bedrock refuses ``""``)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..models.tool_declarations import (
    anthropic_tool,
    bedrock_tool,
    gemini_function_declaration,
    openai_chat_tool,
    openai_responses_tool,
)
from .base import as_tool

Spec = dict[str, Any]

__all__ = [
    "anthropic_tool",
    "bedrock_tool",
    "format_provider_schemas",
    "gemini_function_declaration",
    "openai_chat_tool",
    "openai_responses_tool",
    "provider_schemas",
    "schema_problems",
]

_SHAPES: dict[str, tuple[str, str, Callable[[Spec], dict[str, Any]]]] = {
    "openai": ("OpenAI Chat Completions", 'an element of "tools"', openai_chat_tool),
    "openai-responses": ("OpenAI Responses", 'an element of "tools"', openai_responses_tool),
    "anthropic": ("Anthropic Messages", 'an element of "tools"', anthropic_tool),
    "gemini": ("Gemini", 'an element of "tools[0].functionDeclarations"', gemini_function_declaration),
    "bedrock": ("Bedrock Converse", 'an element of "toolConfig.tools"', bedrock_tool),
}


def tool_spec(tool: Any) -> Spec:
    """The spec of anything usable as a tool: a :class:`Tool`, ``@function``, a
    ``{"spec", "execute"}`` dict, a bare spec dict, a callable, or the name of a
    registered tool. Raises ``TypeError`` / ``ValueError`` saying what it got."""
    if isinstance(tool, str):
        from .registry import default_registry

        found = default_registry.get(tool)
        if found is None:
            known = ", ".join(sorted(t.name for t in default_registry)) or "none"
            raise ValueError(f"no registered tool is named {tool!r}; registered: {known}")
        return found.spec
    if isinstance(tool, dict) and "name" in tool and "execute" not in tool:
        return tool
    return as_tool(tool).spec


def provider_schemas(tool: Any) -> dict[str, dict[str, Any]]:
    """``{provider: declaration}`` for ``openai``, ``openai-responses``, ``anthropic``,
    ``gemini`` and ``bedrock`` — exactly what each provider is sent for ``tool``."""
    spec = tool_spec(tool)
    return {provider: build(spec) for provider, (_, _, build) in _SHAPES.items()}


# -- what providers reject ----------------------------------------------------------------

_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_GEMINI_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$")
_NAME_RULES = {
    "openai": (_PLAIN_NAME, "letters, digits, '_' and '-', 1 to 64 characters"),
    "openai-responses": (_PLAIN_NAME, "letters, digits, '_' and '-', 1 to 64 characters"),
    "anthropic": (_PLAIN_NAME, "letters, digits, '_' and '-', 1 to 64 characters"),
    "gemini": (_GEMINI_NAME, "a letter or '_' first, then letters, digits, '_', '.', ':' or '-', at most 64 characters"),
    "bedrock": (_PLAIN_NAME, "[a-zA-Z0-9_-]+, 1 to 64 characters"),
}
_NO_TOP_LEVEL_COMBINATORS = ("openai", "openai-responses", "anthropic", "bedrock")

# The JSON Schema keywords Gemini documents for parametersJsonSchema; others may be
# ignored (not enforced) or refused. Annotations that change nothing are let through.
_GEMINI_KEYWORDS = frozenset({
    "$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum", "items",
    "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf", "properties",
    "additionalProperties", "required", "propertyOrdering", "nullable",
    "default", "examples",
})


def schema_problems(tool: Any) -> list[str]:
    """What providers would reject in ``tool``'s declaration, one line each:
    ``"<provider>: <what> (<rule>)"``. An empty list means every provider accepts it.

    Checked: each provider's tool-name rule (Bedrock and OpenAI: ``[a-zA-Z0-9_-]``, at
    most 64; Gemini allows ``.`` and ``:`` but must start with a letter or ``_``); the
    parameters must be an object schema (all); no ``anyOf`` / ``oneOf`` / ``allOf`` /
    ``enum`` / ``not`` at the top level (OpenAI, Anthropic, Bedrock); and, for Gemini,
    keywords outside the JSON Schema subset it documents and enums of non-strings.
    """
    spec = tool_spec(tool)
    name = spec.get("name")
    parameters = spec.get("parameters") or {"type": "object"}
    problems = []
    for provider, (pattern, rule) in _NAME_RULES.items():
        if not isinstance(name, str) or not pattern.match(name):
            problems.append(f"{provider}: the tool name {name!r} is refused (names must be {rule})")
    if parameters.get("type") != "object":
        problems.append(f"all providers: the parameters must be a JSON Schema with \"type\": \"object\", "
                        f"got type {parameters.get('type')!r}")
    top_level = [key for key in ("anyOf", "oneOf", "allOf", "enum", "not") if key in parameters]
    if top_level:
        for provider in _NO_TOP_LEVEL_COMBINATORS:
            problems.append(f"{provider}: {', '.join(top_level)} at the top level of the parameters is refused "
                            "(the top level must be a plain object schema)")
    problems += [f"gemini: {problem}" for problem in _gemini_problems(parameters, "parameters")]
    return problems


def _gemini_problems(schema: Any, path: str) -> list[str]:
    if not isinstance(schema, dict):
        return []
    problems = []
    unknown = sorted(set(schema) - _GEMINI_KEYWORDS)
    if unknown:
        problems.append(f"{path} uses {', '.join(unknown)}, outside the JSON Schema subset Gemini documents "
                        "(it may be ignored, so not enforced, or refused)")
    enum = schema.get("enum")
    if isinstance(enum, list) and any(not isinstance(v, (str, int, float)) or isinstance(v, bool) for v in enum):
        problems.append(f"{path}: enum values must be strings or numbers for Gemini, got {json.dumps(enum)}")
    for key, value in (schema.get("properties") or {}).items():
        problems += _gemini_problems(value, f"{path}.{key}")
    for key in ("items", "additionalProperties", "not"):
        problems += _gemini_problems(schema.get(key), f"{path}.{key}" if key != "items" else f"{path}[]")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for index, option in enumerate(schema.get(key) or []):
            problems += _gemini_problems(option, f"{path}.{key}[{index}]")
    for key, value in (schema.get("$defs") or {}).items():
        problems += _gemini_problems(value, f"{path}.$defs.{key}")
    return problems


def format_provider_schemas(tool: Any) -> str:
    """A readable page: each provider's declaration as pretty JSON, then the problems."""
    spec = tool_spec(tool)
    lines = [f"Tool {spec['name']!r} as each provider receives it", ""]
    for provider, declaration in provider_schemas(spec).items():
        title, place, _ = _SHAPES[provider]
        lines += [f"{title} ({provider}:) — {place}:", json.dumps(declaration, indent=2, ensure_ascii=False), ""]
    problems = schema_problems(spec)
    if problems:
        lines.append("What a provider would reject (or, for Gemini, may not enforce):")
        lines += [f"- {problem}" for problem in problems]
    else:
        lines.append("No provider would reject this tool.")
    return "\n".join(lines)
