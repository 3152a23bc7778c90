"""Gemini's tool declaration, and what in a parameters schema Gemini may not enforce.

Gemini takes plain JSON Schema in ``parametersJsonSchema`` but documents only a subset of
it; a keyword outside that subset may be ignored (so not enforced) or refused, and enum
values must be strings or numbers. :func:`gemini_schema_problems` lists such places so
``%agent schema NAME`` can show them before a run finds out.

Two keywords that only annotate a schema are left out of what Gemini is sent
(:func:`gemini_parameters`): ``$schema``, which MCP servers put in every input schema (the
dialect it is written in), and ``$comment``. Dropping them changes nothing a schema
accepts, and they are not counted as problems.
"""

from __future__ import annotations

import json

from ..core._json import JsonObject
from ._provider_info import Spec, declared_parameters
from ._tool_features import described_with_examples

__all__ = ["gemini_function_declaration", "gemini_parameters", "gemini_schema_problems"]

_LEFT_OUT = ("$schema", "$comment")
"""Keywords that only annotate a schema; not sent to Gemini."""

# The JSON Schema keywords Gemini documents for parametersJsonSchema; others may be
# ignored (not enforced) or refused. Annotations that change nothing are let through.
_GEMINI_KEYWORDS = frozenset(
    {
        "$id",
        "$defs",
        "$ref",
        "$anchor",
        "type",
        "format",
        "title",
        "description",
        "enum",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "anyOf",
        "oneOf",
        "properties",
        "additionalProperties",
        "required",
        "propertyOrdering",
        "nullable",
        "default",
        "examples",
    }
)


def gemini_function_declaration(spec: Spec) -> JsonObject:
    """An element of ``tools[].functionDeclarations`` (plain JSON Schema in
    ``parametersJsonSchema``; examples in the description; Gemini has no strict mode)."""
    return {
        "name": spec["name"],
        "description": described_with_examples(spec),
        "parametersJsonSchema": gemini_parameters(declared_parameters(spec)),
    }


def gemini_parameters(schema: object) -> object:
    """``schema`` without the keywords of :data:`_LEFT_OUT`, wherever a schema stands
    (``properties``, ``items``, ``anyOf``…, ``$defs``); a property *named* ``$schema`` is
    kept. A copy: ``schema`` is not changed."""
    if not isinstance(schema, dict):
        return schema
    out = {key: value for key, value in schema.items() if key not in _LEFT_OUT}
    for key in ("properties", "$defs"):
        if isinstance(out.get(key), dict):
            out[key] = {name: gemini_parameters(value) for name, value in out[key].items()}
    for key in ("items", "additionalProperties", "not"):
        if key in out:
            out[key] = gemini_parameters(out[key])
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(out.get(key), list):
            out[key] = [gemini_parameters(option) for option in out[key]]
    return out


def gemini_schema_problems(parameters: JsonObject) -> list[str]:
    """Each place in ``parameters`` that uses a keyword outside Gemini's documented subset,
    or an enum with values other than strings and numbers, one line each, named by its
    path from ``parameters`` (``parameters.items[].n``). What is not sent
    (:func:`gemini_parameters`) is no problem."""
    return _problems(gemini_parameters(parameters), "parameters")


def _problems(schema: object, path: str) -> list[str]:
    if not isinstance(schema, dict):
        return []
    problems = []
    unknown = sorted(set(schema) - _GEMINI_KEYWORDS)
    if unknown:
        problems.append(
            f"{path} uses {', '.join(unknown)}, outside the JSON Schema subset Gemini documents "
            "(it may be ignored, so not enforced, or refused)"
        )
    enum = schema.get("enum")
    if isinstance(enum, list) and any(not isinstance(v, (str, int, float)) or isinstance(v, bool) for v in enum):
        problems.append(f"{path}: enum values must be strings or numbers for Gemini, got {json.dumps(enum)}")
    for key, value in (schema.get("properties") or {}).items():
        problems += _problems(value, f"{path}.{key}")
    for key in ("items", "additionalProperties", "not"):
        problems += _problems(schema.get(key), f"{path}.{key}" if key != "items" else f"{path}[]")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for index, option in enumerate(schema.get(key) or []):
            problems += _problems(option, f"{path}.{key}[{index}]")
    for key, value in (schema.get("$defs") or {}).items():
        problems += _problems(value, f"{path}.$defs.{key}")
    return problems
