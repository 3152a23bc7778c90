"""Example values that satisfy a JSON Schema: what the offline model sends as arguments
and what a decision menu shows as a sample pick.

They cover the keywords tool schemas use (``$ref``, ``const``, ``enum``, ``default``,
``anyOf`` / ``oneOf`` / ``allOf``, ``type`` and its bounds, ``prefixItems``,
``minItems``, ``format`` date and date-time, string lengths); anything else gets
``"example"``.
"""

from __future__ import annotations

from typing import Any

from ..core._json import JsonObject

__all__ = ["example_arguments", "example_value"]


def example_arguments(schema: JsonObject) -> JsonObject:
    """Arguments for an object schema: every required property, each with an example value."""
    value = example_value(schema, schema.get("$defs", {}))
    return value if isinstance(value, dict) else {}


def example_value(schema: JsonObject, defs: JsonObject | None = None) -> Any:
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


def _number(schema: JsonObject, preferred: float, cast: type) -> Any:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value = preferred
    if low is not None and value <= low:
        value = low + 1 if "exclusiveMinimum" in schema else low
    if high is not None and value >= high:
        value = high - 1 if "exclusiveMaximum" in schema else high
    return cast(value)
