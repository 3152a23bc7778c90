"""What ``%agent schema NAME`` says about Gemini, and what Gemini is sent.

Gemini documents a subset of JSON Schema for ``parametersJsonSchema``: every keyword of it
passes unflagged, any other is named with its path, wherever in the schema it stands;
``$schema`` and ``$comment`` are never sent, at any depth.
"""

from __future__ import annotations

import copy

from openprogram_jupyter.models._gemini_schema import (
    gemini_function_declaration,
    gemini_parameters,
    gemini_schema_problems,
)

OUTSIDE = "outside the JSON Schema subset Gemini documents (it may be ignored, so not enforced, or refused)"


def test_every_keyword_gemini_documents_passes_unflagged():
    parameters = {
        "$id": "https://example.com/args",
        "$anchor": "args",
        "type": "object",
        "title": "Arguments",
        "description": "Every documented keyword.",
        "nullable": False,
        "default": {},
        "examples": [{}],
        "required": ["when"],
        "propertyOrdering": ["when", "tags", "pair", "size", "choice", "ref"],
        "additionalProperties": False,
        "properties": {
            "when": {"type": "string", "format": "date-time", "enum": ["now", "later"]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "number"}]},
            "size": {"type": "integer", "minimum": 0, "maximum": 9, "enum": [1, 2.5]},
            "choice": {"anyOf": [{"type": "string"}, {"type": "null"}], "oneOf": [{"type": "string"}]},
            "ref": {"$ref": "#/$defs/n"},
        },
        "$defs": {"n": {"type": "number"}},
    }
    assert gemini_schema_problems(parameters) == []


def test_a_keyword_outside_the_subset_is_named_by_its_path_wherever_it_stands():
    odd = {"type": "string", "pattern": "^a"}
    parameters = {
        "type": "object",
        "properties": {"code": odd},
        "items": odd,
        "additionalProperties": odd,
        "not": odd,
        "anyOf": [{"type": "object"}, odd],
        "oneOf": [odd],
        "allOf": [odd],
        "prefixItems": [odd],
        "$defs": {"d": odd},
    }
    assert gemini_schema_problems(parameters) == [
        f"parameters uses allOf, not, {OUTSIDE}",
        f"parameters.code uses pattern, {OUTSIDE}",
        f"parameters[] uses pattern, {OUTSIDE}",
        f"parameters.additionalProperties uses pattern, {OUTSIDE}",
        f"parameters.not uses pattern, {OUTSIDE}",
        f"parameters.anyOf[1] uses pattern, {OUTSIDE}",
        f"parameters.oneOf[0] uses pattern, {OUTSIDE}",
        f"parameters.allOf[0] uses pattern, {OUTSIDE}",
        f"parameters.prefixItems[0] uses pattern, {OUTSIDE}",
        f"parameters.$defs.d uses pattern, {OUTSIDE}",
    ]


def test_a_schema_that_is_not_an_object_or_has_no_subschemas_has_no_problems():
    assert gemini_schema_problems({"type": "object", "properties": None, "anyOf": None, "$defs": None}) == []
    assert gemini_schema_problems({"type": "array", "items": True, "additionalProperties": False}) == []


def test_enums_of_anything_but_strings_and_numbers_are_flagged_with_their_values():
    def problems(enum: list[object]) -> list[str]:
        return gemini_schema_problems({"type": "object", "properties": {"v": {"enum": enum}}})

    assert problems(["a", 1, 2.5]) == []
    assert problems([True]) == ["parameters.v: enum values must be strings or numbers for Gemini, got [true]"]
    assert problems(["a", None]) == ['parameters.v: enum values must be strings or numbers for Gemini, got ["a", null]']
    assert problems([[1], {"a": 1}]) == [
        'parameters.v: enum values must be strings or numbers for Gemini, got [[1], {"a": 1}]'
    ]
    assert gemini_schema_problems({"enum": "not a list"}) == []


def test_annotations_are_left_out_at_every_depth_and_the_schema_itself_is_untouched():
    def annotated(schema: dict[str, object]) -> dict[str, object]:
        return {"$schema": "x", "$comment": "y", **schema}

    schema = annotated(
        {
            "type": "object",
            "additionalProperties": annotated({"type": "string"}),
            "not": annotated({"type": "null"}),
            "items": annotated({"type": "integer"}),
            "oneOf": [annotated({"type": "string"})],
            "allOf": [annotated({"type": "string"})],
            "prefixItems": [annotated({"type": "number"})],
            "properties": {"$comment": annotated({"type": "string"})},
        }
    )
    before = copy.deepcopy(schema)
    assert gemini_parameters(schema) == {
        "type": "object",
        "additionalProperties": {"type": "string"},
        "not": {"type": "null"},
        "items": {"type": "integer"},
        "oneOf": [{"type": "string"}],
        "allOf": [{"type": "string"}],
        "prefixItems": [{"type": "number"}],
        "properties": {"$comment": {"type": "string"}},
    }
    assert schema == before
    # what is not sent is no problem: only the top's allOf and not are named
    assert gemini_schema_problems(schema) == [f"parameters uses allOf, not, {OUTSIDE}"]


def test_values_that_are_no_schema_are_sent_as_they_are():
    assert gemini_parameters(True) is True
    assert gemini_parameters({"properties": ["a"], "anyOf": {"a": 1}}) == {"properties": ["a"], "anyOf": {"a": 1}}


def test_a_declaration_carries_the_name_the_description_with_examples_and_the_parameters_sent():
    spec = {
        "name": "add",
        "description": "Add.",
        "input_examples": [{"a": 1}],
        "parameters": {"$schema": "x", "type": "object", "properties": {"a": {"type": "integer"}}},
    }
    assert gemini_function_declaration(spec) == {
        "name": "add",
        "description": 'Add.\n\nExamples of arguments:\n{"a": 1}',
        "parametersJsonSchema": {"type": "object", "properties": {"a": {"type": "integer"}}},
    }
    assert gemini_function_declaration({"name": "ping", "description": ""})["parametersJsonSchema"] == {
        "type": "object"
    }
