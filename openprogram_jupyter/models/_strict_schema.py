"""A tool's parameters made fit for a provider's strict mode, with what had to change.

Strict mode makes the provider check the model's arguments against the schema, but it
takes only part of JSON Schema. :func:`strict_form` returns the schema a provider's
strict mode accepts, in one of two flavours, and says in words what it changed and what
it could not express:

- ``"openai"`` (Chat Completions and Responses): every object has
  ``additionalProperties: false`` and lists every property in ``required``; a property
  that was optional becomes nullable (``type: [T, "null"]``, or ``anyOf`` with
  ``{"type": "null"}``) and loses its ``default`` — the model sends ``null`` for it, which
  :func:`drop_absent_nulls` reads as "not given", so the tool's own default applies.
- ``"closed"`` (Anthropic, Bedrock): every object gets ``additionalProperties: false``;
  optional properties stay optional.

Keywords the flavour does not take (``minLength``, ``uniqueItems``, ... — see
:data:`UNSUPPORTED`) are left out and named; the arguments are still checked against the
tool's own schema before it runs, so the constraint holds, only the provider does not
enforce it. An object with free-form keys (``additionalProperties`` a schema or true) or a
top level that is not an object cannot be made strict at all: :attr:`StrictForm.possible`
is false and :attr:`StrictForm.cannot` says why; the tool then goes without strict, with a
notice.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Literal

from ..core._json import JsonObject

__all__ = ["UNSUPPORTED", "StrictForm", "drop_absent_nulls", "strict_form"]

Flavour = Literal["openai", "closed"]

_OBJECT_AND_ARRAY_KEYWORDS = (
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
    "not",
)

UNSUPPORTED: dict[str, tuple[str, ...]] = {
    "openai": ("minLength", "maxLength", *_OBJECT_AND_ARRAY_KEYWORDS),
    "closed": (
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        *_OBJECT_AND_ARRAY_KEYWORDS,
    ),
}
"""The keywords each flavour's strict mode refuses; they are left out of the strict form."""


@dataclass
class StrictForm:
    """``schema``: the strict form (the input is never changed). ``changes``: what was changed
    to fit, one phrase each (``"unit: optional, made nullable; its default 'c' dropped"``).
    ``cannot``: what strict mode cannot express (a keyword left out, a free-form object).
    ``possible``: false when the tool cannot go strict at all (then ``schema`` is unused)."""

    schema: JsonObject
    changes: list[str] = field(default_factory=list)
    cannot: list[str] = field(default_factory=list)
    possible: bool = True


def strict_form(parameters: JsonObject, flavour: Flavour) -> StrictForm:
    """``parameters`` as ``flavour``'s strict mode takes them (the module's docstring says
    how). Raises ``ValueError`` for an unknown flavour."""
    if flavour not in UNSUPPORTED:
        raise ValueError(f"unknown strict flavour {flavour!r}; known: {', '.join(UNSUPPORTED)}")
    form = StrictForm(schema=copy.deepcopy(parameters))
    if form.schema.get("type") != "object":
        form.possible = False
        form.cannot.append("a top level that is not a plain object schema")
        return form
    _fit(form.schema, "", flavour, form)
    return form


def _fit(schema: object, path: str, flavour: Flavour, form: StrictForm) -> None:
    if not isinstance(schema, dict):
        return
    where = path or "the top level"
    for keyword in UNSUPPORTED[flavour]:
        if keyword in schema:
            del schema[keyword]
            form.cannot.append(f"{where}: {keyword} (left out; still checked before the tool runs)")
    if schema.get("type") == "object" or "properties" in schema:
        _fit_object(schema, path, flavour, form)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for item in schema.get(key) or []:
            _fit(item, path, flavour, form)
    _fit(schema.get("items"), f"{path}[]" if path else "[]", flavour, form)
    for name, item in (schema.get("$defs") or {}).items():
        _fit(item, f"$defs.{name}", flavour, form)


def _fit_object(schema: JsonObject, path: str, flavour: Flavour, form: StrictForm) -> None:
    extra = schema.get("additionalProperties", None)
    if extra not in (None, False):
        form.possible = False
        form.cannot.append(f"{path or 'the top level'}: an object with free-form keys (additionalProperties)")
    schema["additionalProperties"] = False
    properties: JsonObject = schema.setdefault("properties", {})
    required = list(schema.get("required") or [])
    for name, item in properties.items():
        child = f"{path}.{name}" if path else name
        _fit(item, child, flavour, form)
        if flavour == "openai" and name not in required and isinstance(item, dict):
            properties[name] = _nullable(item, child, form)
    if flavour == "openai":
        schema["required"] = list(properties)


def _nullable(schema: JsonObject, path: str, form: StrictForm) -> JsonObject:
    """An optional property as strict mode wants it: required, but ``null`` allowed."""
    change = f"{path}: optional, made required and nullable (null means not given)"
    if "default" in schema:
        change += f"; its default {schema['default']!r} dropped (the tool's own applies)"
    form.changes.append(change)
    schema = {key: value for key, value in schema.items() if key != "default"}
    if _accepts_null(schema):
        return schema
    kind = schema.get("type")
    if isinstance(kind, (str, list)):
        nullable = {**schema, "type": [*([kind] if isinstance(kind, str) else kind), "null"]}
        if "enum" in schema:
            nullable["enum"] = [*schema["enum"], None]
        return nullable
    description = schema.pop("description", None)
    wrapped: JsonObject = {"anyOf": [schema, {"type": "null"}]}
    if description is not None:
        wrapped["description"] = description
    return wrapped


def _accepts_null(schema: JsonObject) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(isinstance(item, dict) and _accepts_null(item) for item in schema.get("anyOf") or [])


def drop_absent_nulls(arguments: JsonObject, parameters: JsonObject) -> list[str]:
    """Remove, in place, each ``null`` that stands for "not given": the value of a property
    that is not required and whose own schema does not accept ``null`` (what a model in
    OpenAI's strict mode sends for an optional property), at the top level and in nested
    objects. Returns the dotted paths removed. Any other value is left alone."""
    return _drop(arguments, parameters, "")


def _drop(value: object, schema: object, path: str) -> list[str]:
    if not isinstance(schema, dict):
        return []
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _drop(item, schema.get("items"), f"{path}[{i}]")]
    if not isinstance(value, dict):
        return []
    branches = [b for b in schema.get("anyOf") or [] if isinstance(b, dict) and isinstance(b.get("properties"), dict)]
    if len(branches) == 1:  # an optional object: T | None
        return _drop(value, branches[0], path)
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    required = set(schema.get("required") or [])
    removed: list[str] = []
    for name in list(value):
        child = f"{path}.{name}" if path else name
        item = properties.get(name)
        if not isinstance(item, dict):
            continue
        if value[name] is None and name not in required and not _accepts_null(item):
            del value[name]
            removed.append(child)
        else:
            removed += _drop(value[name], item, child)
    return removed
