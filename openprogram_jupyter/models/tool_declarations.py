"""Each provider's declaration of one tool, from a tool spec ``{"name", "description", "parameters"}``.

The single source of these shapes: the provider adapters send them, and
``%agent schema NAME`` (:mod:`openprogram_jupyter.tools.provider_schemas`) shows them.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "anthropic_tool",
    "bedrock_tool",
    "gemini_function_declaration",
    "openai_chat_tool",
    "openai_responses_tool",
]

Spec = dict[str, Any]

def _parameters(spec: Spec) -> dict[str, Any]:
    return spec.get("parameters") or {"type": "object"}


def openai_chat_tool(spec: Spec) -> dict[str, Any]:
    """An element of Chat Completions' ``tools``."""
    return {"type": "function", "function": {"name": spec["name"], "description": spec.get("description") or "",
                                             "parameters": _parameters(spec)}}


def openai_responses_tool(spec: Spec) -> dict[str, Any]:
    """An element of the Responses API's ``tools`` (flat; ``strict`` off, as in Chat Completions)."""
    return {"type": "function", "name": spec["name"], "description": spec.get("description") or "",
            "parameters": _parameters(spec), "strict": False}


def anthropic_tool(spec: Spec) -> dict[str, Any]:
    """An element of Anthropic Messages' ``tools``."""
    return {"name": spec["name"], "description": spec.get("description") or "", "input_schema": _parameters(spec)}


def gemini_function_declaration(spec: Spec) -> dict[str, Any]:
    """An element of ``tools[].functionDeclarations`` (plain JSON Schema in ``parametersJsonSchema``)."""
    return {"name": spec["name"], "description": spec.get("description") or "",
            "parametersJsonSchema": _parameters(spec)}


def bedrock_tool(spec: Spec) -> dict[str, Any]:
    """An element of Converse's ``toolConfig.tools``. Bedrock refuses an empty description,
    so a tool without one is described by its name."""
    return {"toolSpec": {"name": spec["name"], "description": spec.get("description") or spec["name"],
                         "inputSchema": {"json": _parameters(spec)}}}
