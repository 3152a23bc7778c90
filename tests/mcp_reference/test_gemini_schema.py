"""The reference server's input schemas all carry ``$schema``; Gemini is sent them without
it (and without ``$comment``), and the schema lint no longer flags them for Gemini."""

from __future__ import annotations

import json

import openprogram_jupyter as op
from openprogram_jupyter.models._gemini_schema import gemini_parameters
from openprogram_jupyter.models._schema_lint import lint_text
from openprogram_jupyter.models.provider_schemas import schema_problems


def test_gemini_is_sent_the_reference_server_s_schemas_without_dollar_schema(runtime, everything):
    assert "$schema" in everything.tool("get-sum").parameters  # what the server lists
    model = op.ScriptedModel(["hello"])
    runtime.model = model
    runtime.run("hi", tools=[everything.tool("get-sum")])
    body = op.wire_preview(model.requests[0], "gemini:gemini-2.5-flash")
    [declaration] = [d for tool in body["tools"] for d in tool.get("functionDeclarations", [])]
    assert declaration["parametersJsonSchema"] == {
        "type": "object",
        "properties": {
            "a": {"type": "number", "description": "First number"},
            "b": {"type": "number", "description": "Second number"},
        },
        "required": ["a", "b"],
    }


def test_the_lint_does_not_flag_what_gemini_is_not_sent(everything):
    assert schema_problems(everything.tool("get-sum")) == []
    assert lint_text(everything.tool("get-sum")).endswith("no provider would refuse it")


def test_only_keywords_are_left_out_not_properties_of_that_name():
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "$schema": {"type": "string", "$comment": "a property named $schema"},
            "list": {"type": "array", "items": {"$comment": "x", "type": "integer"}},
        },
        "$defs": {"n": {"$schema": "x", "anyOf": [{"$comment": "y", "type": "null"}]}},
    }
    sent = gemini_parameters(schema)
    assert sent == {
        "type": "object",
        "properties": {"$schema": {"type": "string"}, "list": {"type": "array", "items": {"type": "integer"}}},
        "$defs": {"n": {"anyOf": [{"type": "null"}]}},
    }
    assert "$schema" in json.dumps(schema)  # the tool's own schema is not changed
