"""A small JSON Schema checker for tools that bring their own schema (dict / object tools).

It covers what tool schemas use: ``type`` (one or a list), ``properties``, ``required``,
``additionalProperties`` (``false`` or a schema), ``items``, ``prefixItems``, ``enum``,
``const``, ``anyOf`` / ``oneOf`` / ``allOf``, local ``$ref`` (``#/$defs/...``,
``#/definitions/...``), ``pattern``, ``uniqueItems`` and numeric / length bounds.
Keywords it does not know are ignored, never failed on.

It is as strict as ``@function`` validation: ``3.0`` is not an ``integer``, ``true`` is
not a ``number`` and does not equal ``1`` in an ``enum``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from ..core._json import JsonObject

__all__ = ["non_finite_numbers", "validate_json_schema"]

_TYPE_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def non_finite_numbers(value: object, path: str = "") -> list[tuple[str, str]]:
    """One ``(path, reason)`` per NaN or infinite float anywhere in ``value`` (dict values
    and list items, at any depth). JSON has no such numbers: a parser that lets them
    through (Python's does) would hand a tool a value no provider can send back."""
    if isinstance(value, float) and not math.isfinite(value):
        word = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return [(path or "(arguments)", f"{word} is not a JSON number; send a finite number")]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [
        problem for key, item in items for problem in non_finite_numbers(item, f"{path}.{key}" if path else str(key))
    ]


def validate_json_schema(value: object, schema: JsonObject, path: str = "") -> list[tuple[str, str]]:
    """Return one ``(path, reason)`` per problem; an empty list means valid.

    ``path`` is dotted (``"point.x"``, ``"items.2"``); the whole value is ``"(arguments)"``.
    """
    return _check(value, schema, path, schema)


def _check(value: object, schema: object, path: str, root: JsonObject) -> list[tuple[str, str]]:
    where = path or "(arguments)"
    if schema is False:
        return [(where, "no value is allowed here")]
    if not isinstance(schema, dict) or not schema:
        return []
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _resolve(ref, root)
        if target is None:
            return []  # not a local reference we can follow: ignored, like unknown keywords
        failed = _check(value, target, path, root)
        if failed:
            return failed
    if "anyOf" in schema and not any(not _check(value, option, path, root) for option in schema["anyOf"]):
        return [(where, f"matches none of the allowed shapes (got {_show(value)})")]
    if "oneOf" in schema:
        matches = sum(not _check(value, option, path, root) for option in schema["oneOf"])
        if matches != 1:
            shapes = "none" if matches == 0 else f"{matches}, not exactly one,"
            return [(where, f"matches {shapes} of the allowed shapes (got {_show(value)})")]
    for option in schema.get("allOf", ()):
        failed = _check(value, option, path, root)
        if failed:
            return failed
    if "const" in schema and not _json_equal(value, schema["const"]):
        return [(where, f"must be {_show(schema['const'])} (got {_show(value)})")]
    if "enum" in schema and not any(_json_equal(value, option) for option in schema["enum"]):
        return [(where, f"must be one of {_show(schema['enum'])} (got {_show(value)})")]
    expected = schema.get("type")
    if expected is not None:
        types = expected if isinstance(expected, list) else [expected]
        if not any(_TYPE_CHECKS.get(t, lambda v: True)(value) for t in types):
            return [(where, f"expected {' or '.join(types)} (got {_show(value)})")]
    problems: list[tuple[str, str]] = []
    if isinstance(value, dict):
        problems += _check_object(value, schema, path, root)
    elif isinstance(value, list):
        problems += _check_array(value, schema, path, root)
    elif isinstance(value, str) and isinstance(schema.get("pattern"), str):
        if re.search(schema["pattern"], value) is None:
            problems.append((where, f"must match the pattern {schema['pattern']!r} (got {_show(value)})"))
    problems += _bounds(value, schema, where)
    return problems


def _check_object(value: JsonObject, schema: JsonObject, path: str, root: JsonObject) -> list[tuple[str, str]]:
    problems = []
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            what = "argument" if not path else "field"
            problems.append((_join(path, name), f"missing required {what}"))
    extra = schema.get("additionalProperties")
    for name, item in value.items():
        if name in properties:
            problems += _check(item, properties[name], _join(path, name), root)
        elif extra is False:
            what = "argument" if not path else "field"
            problems.append((_join(path, name), f"unexpected {what} (not in the schema)"))
        elif isinstance(extra, dict):
            problems += _check(item, extra, _join(path, name), root)
    return problems


def _check_array(value: list[Any], schema: JsonObject, path: str, root: JsonObject) -> list[tuple[str, str]]:
    problems = []
    prefix = schema.get("prefixItems")
    items = schema.get("items")
    if isinstance(items, list):  # the draft-07 spelling of prefixItems
        prefix, items = items, schema.get("additionalItems")
    prefix = prefix if isinstance(prefix, list) else []
    for index, item in enumerate(value):
        item_schema = prefix[index] if index < len(prefix) else items
        if item_schema is not None:
            problems += _check(item, item_schema, _join(path, str(index)), root)
    if schema.get("uniqueItems") is True:
        seen = [json.dumps(item, sort_keys=True, default=repr) for item in value]
        if len(set(seen)) != len(seen):
            problems.append((path or "(arguments)", "items must be unique"))
    return problems


def _bounds(value: object, schema: JsonObject, where: str) -> list[tuple[str, str]]:
    # (keyword, whether the bound holds, how the message words it)
    checks: list[tuple[str, Callable[[float], bool], str]] = []
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        checks = [
            ("minimum", lambda b: value >= b, ">="),
            ("maximum", lambda b: value <= b, "<="),
            ("exclusiveMinimum", lambda b: value > b, ">"),
            ("exclusiveMaximum", lambda b: value < b, "<"),
        ]
    elif isinstance(value, (str, list)):
        kind = "Length" if isinstance(value, str) else "Items"
        checks = [
            (f"min{kind}", lambda b: len(value) >= b, "of length >="),
            (f"max{kind}", lambda b: len(value) <= b, "of length <="),
        ]
    elif isinstance(value, dict):
        checks = [
            ("minProperties", lambda b: len(value) >= b, "an object with fields >="),
            ("maxProperties", lambda b: len(value) <= b, "an object with fields <="),
        ]
    return [
        (where, f"must be {op} {schema[key]} (got {_show(value)})")
        for key, ok, op in checks
        if isinstance(schema.get(key), (int, float)) and not isinstance(schema.get(key), bool) and not ok(schema[key])
    ]


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: ``true`` is not ``1``, ``1`` is ``1.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _resolve(ref: str, root: JsonObject) -> Any:
    if not ref.startswith("#/"):
        return None
    node: object = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _show(value: object) -> str:
    text = json.dumps(value, default=repr)
    return text if len(text) <= 80 else text[:77] + "..."


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
