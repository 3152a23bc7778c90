"""A small JSON Schema checker for tools that bring their own schema (dict / object tools).

It covers what tool schemas use: ``type`` (one or a list), ``properties``, ``required``,
``additionalProperties: false``, ``items``, ``enum``, ``const``, ``anyOf`` / ``oneOf``,
and numeric / length bounds. Keywords it does not know are ignored, never failed on.
"""

from __future__ import annotations

from typing import Any

__all__ = ["validate_json_schema"]

_TYPE_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def validate_json_schema(value: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Return one ``"path: reason"`` line per problem; an empty list means valid."""
    where = path or "(arguments)"
    if not isinstance(schema, dict) or not schema:
        return []
    for key in ("anyOf", "oneOf"):
        if key in schema:
            if not any(not validate_json_schema(value, option, path) for option in schema[key]):
                return [f"{where}: matches none of the allowed shapes"]
    if "const" in schema and value != schema["const"]:
        return [f"{where}: must be {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where}: must be one of {schema['enum']!r} (got {value!r})"]
    expected = schema.get("type")
    if expected is not None:
        types = expected if isinstance(expected, list) else [expected]
        if not any(_TYPE_CHECKS.get(t, lambda v: True)(value) for t in types):
            return [f"{where}: expected {' or '.join(types)}, got {type(value).__name__} {value!r}"[:200]]
    problems: list[str] = []
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                problems.append(f"{_join(path, name)}: missing required argument")
        for name, item in value.items():
            if name in properties:
                problems += validate_json_schema(item, properties[name], _join(path, name))
            elif schema.get("additionalProperties") is False:
                problems.append(f"{_join(path, name)}: unexpected argument (not in the schema)")
            elif isinstance(schema.get("additionalProperties"), dict):
                problems += validate_json_schema(item, schema["additionalProperties"], _join(path, name))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problems += validate_json_schema(item, schema["items"], _join(path, str(index)))
    problems += _bounds(value, schema, where)
    return problems


def _bounds(value: Any, schema: dict[str, Any], where: str) -> list[str]:
    checks = []
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        checks = [("minimum", lambda b: value >= b, ">="), ("maximum", lambda b: value <= b, "<="),
                  ("exclusiveMinimum", lambda b: value > b, ">"), ("exclusiveMaximum", lambda b: value < b, "<")]
    elif isinstance(value, (str, list)):
        checks = [("minLength" if isinstance(value, str) else "minItems", lambda b: len(value) >= b, "length >="),
                  ("maxLength" if isinstance(value, str) else "maxItems", lambda b: len(value) <= b, "length <=")]
    return [f"{where}: must be {op} {schema[key]}" for key, ok, op in checks
            if isinstance(schema.get(key), (int, float)) and not ok(schema[key])]


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
