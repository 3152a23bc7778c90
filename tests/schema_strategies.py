"""Hypothesis strategies for the values a JSON Schema accepts, for the schemas we emit.

The property tests generate tool arguments from the tool's own schema. This covers the
keywords our schemas use (pydantic's output for tool signatures and decision options)
and refuses any other one with :class:`UnsupportedSchema`, so a new keyword in our
schemas fails the tests loudly instead of generating values the schema does not mean.
Generated values are plain JSON: dicts, lists, str, int, float, bool and None.

We write this ourselves because hypothesis-jsonschema 0.23.1 (its latest release) breaks
on current hypothesis releases (``'many' object has no attribute 'more'``).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

# Keywords that describe a value without constraining it.
ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$comment", "deprecated"})

_JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


class UnsupportedSchema(ValueError):
    """A schema uses a keyword (or a form of one) these strategies do not generate for."""


def from_schema(schema: dict[str, Any] | bool) -> st.SearchStrategy[Any]:
    """Values that ``schema`` accepts; ``$ref`` is resolved against its root's ``$defs``."""
    return _Generator(schema).strategy(schema)


class _Generator:
    def __init__(self, root: dict[str, Any] | bool) -> None:
        self.definitions = root.get("$defs", {}) if isinstance(root, dict) else {}
        # One strategy per reference, so a recursive definition is a finite strategy graph.
        self.references: dict[str, st.SearchStrategy[Any]] = {}

    def strategy(self, schema: dict[str, Any] | bool) -> st.SearchStrategy[Any]:
        if schema is True or schema == {}:
            return _any_json()
        if schema is False:
            raise UnsupportedSchema("a false schema accepts nothing")
        assert isinstance(schema, dict)
        if "$ref" in schema:
            return self._reference(schema["$ref"])
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        if "anyOf" in schema:
            return st.one_of([self.strategy(option) for option in schema["anyOf"]])
        if "allOf" in schema:
            if len(schema["allOf"]) != 1:
                raise UnsupportedSchema("allOf with more than one schema")
            return self.strategy(schema["allOf"][0])
        self._refuse_unknown(schema)
        types = schema.get("type", list(_JSON_TYPES))
        types = [types] if isinstance(types, str) else types
        return st.one_of([self._of_type(kind, schema) for kind in types])

    def _reference(self, reference: str) -> st.SearchStrategy[Any]:
        if reference not in self.references:
            self.references[reference] = st.deferred(lambda: self.strategy(self._resolve(reference)))
        return self.references[reference]

    def _resolve(self, reference: str) -> dict[str, Any]:
        prefix = "#/$defs/"
        if not reference.startswith(prefix) or reference[len(prefix) :] not in self.definitions:
            raise UnsupportedSchema(f"$ref {reference!r} is not one of the root's $defs")
        return self.definitions[reference[len(prefix) :]]

    def _refuse_unknown(self, schema: dict[str, Any]) -> None:
        known = ANNOTATIONS | {
            "type",
            "$defs",
            "properties",
            "required",
            "additionalProperties",
            "propertyNames",
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "minimum",
            "maximum",
            "minLength",
            "maxLength",
            "pattern",
        }
        unknown = sorted(set(schema) - known)
        if unknown:
            raise UnsupportedSchema(f"keywords {unknown} are not generated for")

    def _of_type(self, kind: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
        if kind == "null":
            return st.none()
        if kind == "boolean":
            return st.booleans()
        if kind == "integer":
            return st.integers(schema.get("minimum"), schema.get("maximum"))
        if kind == "number":
            return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False, allow_infinity=False)
        if kind == "string":
            return self._string(schema)
        if kind == "array":
            return self._array(schema)
        if kind == "object":
            return self._object(schema)
        raise UnsupportedSchema(f"type {kind!r}")

    def _string(self, schema: dict[str, Any]) -> st.SearchStrategy[str]:
        if "pattern" in schema:
            # JSON Schema patterns are unanchored searches, as hypothesis' from_regex is.
            strings = st.from_regex(schema["pattern"])
        else:
            strings = st.text(max_size=20)
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        return strings.filter(lambda s: len(s) >= low and (high is None or len(s) <= high))

    def _array(self, schema: dict[str, Any]) -> st.SearchStrategy[list[Any]]:
        low, high = schema.get("minItems", 0), schema.get("maxItems")
        prefix = [self.strategy(item) for item in schema.get("prefixItems", [])]
        rest = schema.get("items", True)
        if rest is False:
            if len(prefix) < low:
                raise UnsupportedSchema("minItems longer than prefixItems with items: false")
            return st.tuples(*prefix).map(list)
        if high is not None:
            high = max(0, high - len(prefix))
        tail = st.lists(self.strategy(rest), min_size=max(0, low - len(prefix)), max_size=3 if high is None else high)
        return st.tuples(st.tuples(*prefix), tail).map(lambda parts: [*parts[0], *parts[1]])

    def _object(self, schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        properties: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        extra = schema.get("additionalProperties", True)
        known = st.fixed_dictionaries(
            {name: self.strategy(sub) for name, sub in properties.items() if name in required},
            optional={name: self.strategy(sub) for name, sub in properties.items() if name not in required},
        )
        if extra is False:
            return known
        names = self._string(schema.get("propertyNames", {})).filter(lambda name: name not in properties)
        extras = st.dictionaries(names, self.strategy(extra), max_size=2)
        return st.tuples(known, extras).map(lambda parts: {**parts[1], **parts[0]})


def _any_json() -> st.SearchStrategy[Any]:
    numbers = st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    scalars = st.none() | st.booleans() | numbers | st.text(max_size=10)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=5,
    )
