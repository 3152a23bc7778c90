"""``%agent schema NAME``'s page as a user reads it: each provider's declaration under its
API's name and the place it goes, written as JSON with the tool's own characters; the
strict lines of each flavour (what changed, what cannot be expressed, a tool that cannot
go strict); and each problem a provider would reject, word for word and in order (issue
45). No server: ``test_provider_schemas.py`` shows the shapes are what the clients send."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.models.provider_schemas import (
    format_provider_schemas,
    provider_schemas,
    schema_problems,
    strict_lines,
)

LEFT_OUT = "(left out; still checked before the tool runs)"
OPENAI_NAMES = "names must be letters, digits, '_' and '-', 1 to 64 characters"
BEDROCK_NAMES = "names must be [a-zA-Z0-9_-]+, 1 to 64 characters"
GEMINI_NAMES = "names must be a letter or '_' first, then letters, digits, '_', '.', ':' or '-', at most 64 characters"
PLAIN_TOP = "at the top level of the parameters is refused (the top level must be a plain object schema)"


def test_the_page_shows_each_declaration_under_its_api_and_place_with_the_tool_s_own_characters():
    page = format_provider_schemas({"name": "t", "description": "Température.", "parameters": {"type": "object"}})
    assert page == "\n".join(
        [
            "Tool 't' as each provider receives it",
            "",
            'OpenAI Chat Completions (openai:) — an element of "tools":',
            "{",
            '  "type": "function",',
            '  "function": {',
            '    "name": "t",',
            '    "description": "Température.",',
            '    "parameters": {',
            '      "type": "object"',
            "    }",
            "  }",
            "}",
            "",
            'OpenAI Responses (openai-responses:) — an element of "tools":',
            "{",
            '  "type": "function",',
            '  "name": "t",',
            '  "description": "Température.",',
            '  "parameters": {',
            '    "type": "object"',
            "  },",
            '  "strict": false',
            "}",
            "",
            'Anthropic Messages (anthropic:) — an element of "tools":',
            "{",
            '  "name": "t",',
            '  "description": "Température.",',
            '  "input_schema": {',
            '    "type": "object"',
            "  }",
            "}",
            "",
            'Gemini (gemini:) — an element of "tools[0].functionDeclarations":',
            "{",
            '  "name": "t",',
            '  "description": "Température.",',
            '  "parametersJsonSchema": {',
            '    "type": "object"',
            "  }",
            "}",
            "",
            'Bedrock Converse (bedrock:) — an element of "toolConfig.tools":',
            "{",
            '  "toolSpec": {',
            '    "name": "t",',
            '    "description": "Température.",',
            '    "inputSchema": {',
            '      "json": {',
            '        "type": "object"',
            "      }",
            "    }",
            "  }",
            "}",
            "",
            "No provider would reject this tool.",
        ]
    )


def test_the_page_of_a_refused_tool_lists_its_problems_after_its_strict_lines():
    page = format_provider_schemas({"name": "t.x", "strict": True, "parameters": {"type": "object"}})
    assert page.split("\n}\n\n", 5)[-1].splitlines() == [
        "Strict mode, OpenAI (Chat, Responses): the schema is sent as it is",
        "Strict mode, Anthropic, Bedrock: the schema is sent as it is",
        "Strict mode, Gemini: none (strict is not sent; a notice says so)",
        "",
        "What a provider would reject (or, for Gemini, may not enforce):",
        f"- openai: the tool name 't.x' is refused ({OPENAI_NAMES})",
        f"- openai-responses: the tool name 't.x' is refused ({OPENAI_NAMES})",
        f"- anthropic: the tool name 't.x' is refused ({OPENAI_NAMES})",
        f"- bedrock: the tool name 't.x' is refused ({BEDROCK_NAMES})",
    ]


def test_strict_lines_say_per_flavour_what_changed_and_what_cannot_be_expressed():
    spec = {
        "name": "pick",
        "strict": True,
        "parameters": {
            "type": "object",
            "properties": {"word": {"type": "string", "minLength": 2}, "n": {"type": "integer", "minimum": 1}},
            "required": ["word"],
        },
    }
    assert strict_lines(spec) == [
        "Strict mode, OpenAI (Chat, Responses): n: optional, made required and nullable (null means not given)",
        f"  cannot express: word: minLength {LEFT_OUT}",
        "Strict mode, Anthropic, Bedrock: the schema is sent as it is",
        f"  cannot express: word: minLength {LEFT_OUT}",
        f"  cannot express: n: minimum {LEFT_OUT}",
        "Strict mode, Gemini: none (strict is not sent; a notice says so)",
        "",
    ]


def test_a_strict_tool_with_free_form_keys_is_said_to_go_without_strict():
    spec = {"name": "free", "strict": True, "parameters": {"type": "object", "additionalProperties": True}}
    cannot = "cannot be used, sent without strict — the top level: an object with free-form keys (additionalProperties)"
    assert strict_lines(spec) == [
        f"Strict mode, OpenAI (Chat, Responses): {cannot}",
        f"Strict mode, Anthropic, Bedrock: {cannot}",
        "Strict mode, Gemini: none (strict is not sent; a notice says so)",
        "",
    ]


def test_a_strict_tool_without_parameters_is_sent_as_it_is_and_a_plain_tool_has_no_strict_lines():
    assert strict_lines({"name": "bare", "strict": True})[:2] == [
        "Strict mode, OpenAI (Chat, Responses): the schema is sent as it is",
        "Strict mode, Anthropic, Bedrock: the schema is sent as it is",
    ]
    assert strict_lines({"name": "plain", "parameters": {"type": "object"}}) == []


def test_each_problem_is_named_per_provider_in_order():
    problems = schema_problems({"name": "a.b", "parameters": {"type": "string", "anyOf": [{}], "enum": [1]}})
    assert problems == [
        f"openai: the tool name 'a.b' is refused ({OPENAI_NAMES})",
        f"openai-responses: the tool name 'a.b' is refused ({OPENAI_NAMES})",
        f"anthropic: the tool name 'a.b' is refused ({OPENAI_NAMES})",
        f"bedrock: the tool name 'a.b' is refused ({BEDROCK_NAMES})",
        'all providers: the parameters must be a JSON Schema with "type": "object", got type \'string\'',
        f"openai: anyOf, enum {PLAIN_TOP}",
        f"openai-responses: anyOf, enum {PLAIN_TOP}",
        f"anthropic: anyOf, enum {PLAIN_TOP}",
        f"bedrock: anyOf, enum {PLAIN_TOP}",
    ]


@pytest.mark.parametrize("name", [None, 7])
def test_a_name_that_is_no_text_is_refused_by_every_provider(name):
    assert schema_problems({"name": name}) == [
        f"openai: the tool name {name!r} is refused ({OPENAI_NAMES})",
        f"openai-responses: the tool name {name!r} is refused ({OPENAI_NAMES})",
        f"anthropic: the tool name {name!r} is refused ({OPENAI_NAMES})",
        f"gemini: the tool name {name!r} is refused ({GEMINI_NAMES})",
        f"bedrock: the tool name {name!r} is refused ({BEDROCK_NAMES})",
    ]


def test_a_tool_without_parameters_is_an_empty_object_to_every_provider():
    assert schema_problems({"name": "ok"}) == []
    assert schema_problems({"name": "ok", "parameters": None}) == []


def test_every_form_of_tool_gives_the_same_declarations():
    def area(width: float, height: float) -> float:
        """Area of a rectangle."""
        return width * height

    tool = op.function(area, register_globally=False)
    as_dict = {"spec": tool.spec, "execute": area}
    expected = provider_schemas(tool.spec)
    assert list(expected) == ["openai", "openai-responses", "anthropic", "gemini", "bedrock"]
    assert provider_schemas(tool) == provider_schemas(as_dict) == provider_schemas(area) == expected


def test_an_unknown_name_lists_the_registered_tools_sorted_or_none():
    from openprogram_jupyter.tools.registry import default_registry

    for registered in list(default_registry):
        default_registry.unregister(registered.name)
    with pytest.raises(ValueError) as refused:
        provider_schemas("sub")
    assert str(refused.value) == "no registered tool is named 'sub'; registered: none"

    def mul(a: float) -> float:
        """Times."""
        return a

    def add(a: float) -> float:
        """Plus."""
        return a

    op.function(mul)
    op.function(add)
    with pytest.raises(ValueError) as refused:
        provider_schemas("sub")
    assert str(refused.value) == "no registered tool is named 'sub'; registered: add, mul"


def test_a_dict_with_a_name_and_an_execute_is_a_tool_dict_not_a_spec():
    with pytest.raises(op.SetupError) as refused:
        provider_schemas({"name": "x", "parameters": {"type": "object"}, "execute": lambda **_: None})
    assert "a tool dict needs 'spec' and 'execute' keys" in str(refused.value)


def test_several_changes_and_several_reasons_are_joined_on_one_line():
    two_optional = {
        "name": "two",
        "strict": True,
        "parameters": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
    }
    nullable = "optional, made required and nullable (null means not given)"
    assert strict_lines(two_optional)[0] == f"Strict mode, OpenAI (Chat, Responses): a: {nullable}; b: {nullable}"
    two_free = {
        "name": "free",
        "strict": True,
        "parameters": {
            "type": "object",
            "properties": {"x": {"type": "object", "additionalProperties": True}},
            "additionalProperties": True,
        },
    }
    assert strict_lines(two_free)[1] == (
        "Strict mode, Anthropic, Bedrock: cannot be used, sent without strict — "
        "the top level: an object with free-form keys (additionalProperties); "
        "x: an object with free-form keys (additionalProperties)"
    )
