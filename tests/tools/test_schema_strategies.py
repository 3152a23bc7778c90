"""The argument generator the property tests rely on: what it makes, the schema accepts."""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from schema_strategies import UnsupportedSchema, from_schema

SCHEMAS = [
    {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "minimum": 2, "maximum": 5},
            "b": {"type": ["string", "null"], "maxLength": 3},
        },
        "required": ["a"],
        "additionalProperties": False,
    },
    {"type": "array", "prefixItems": [{"type": "boolean"}, {"const": "x"}], "items": False, "minItems": 2},
    {"type": "array", "items": {"enum": [1, "two", None]}, "minItems": 1, "maxItems": 2},
    {"type": "object", "additionalProperties": {"type": "number"}, "propertyNames": {"pattern": "^[0-9]+$"}},
    {
        "anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}],
        "$defs": {
            "Item": {
                "type": "object",
                "properties": {"next": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]}},
                "required": ["next"],
                "additionalProperties": False,
            }
        },
    },
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_generated_value_is_valid_for_its_schema(schema, data):
    value = data.draw(from_schema(schema))
    jsonschema.Draft202012Validator(schema).validate(value)


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ({"type": "string", "format": "date"}, "['format']"),
        ({"oneOf": [{"type": "string"}]}, "['oneOf']"),
        ({"$ref": "#/definitions/X"}, "not one of the root's $defs"),
    ],
)
def test_a_keyword_it_cannot_honour_is_refused_by_name(schema, words):
    with pytest.raises(UnsupportedSchema, match=words.replace("[", r"\[").replace("$", r"\$")):
        find(from_schema(schema), lambda value: True)
