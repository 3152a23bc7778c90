"""The exact declaration each provider receives for a tool, and what a
provider would reject. The shapes are checked against what the real clients send to the
loopback server, so "what is shown is what is sent" is tested, not assumed."""

from __future__ import annotations

import json

import pytest
from fakeserver import FakeServer, Turn

import openprogram_jupyter as op
from openprogram_jupyter.models.provider_schemas import format_provider_schemas, provider_schemas, schema_problems

PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini", "bedrock"]


def add(a: float, b: float = 1.0) -> float:
    """Add two numbers.

    Args:
        a: First number.
    """
    return a + b


def external(name: str, parameters: dict | None = None, description: str = "A tool.") -> dict:
    return {
        "spec": {
            "name": name,
            "description": description,
            "parameters": parameters or {"type": "object", "properties": {}},
        },
        "execute": lambda **kw: None,
    }


# -- the shapes ----------------------------------------------------------------------------


def test_every_provider_gets_a_declaration():
    assert list(provider_schemas(add)) == PROVIDERS


# What each provider is sent for ``add``, written out by hand from each API's documented
# tool format (not computed by models/provider_schemas.py, which these tests check).
ADD_PARAMETERS = {
    "additionalProperties": False,
    "properties": {"a": {"description": "First number.", "type": "number"}, "b": {"default": 1.0, "type": "number"}},
    "required": ["a"],
    "type": "object",
}
EXPECTED_ADD = {
    "openai": {
        "type": "function",
        "function": {"name": "add", "description": "Add two numbers.", "parameters": ADD_PARAMETERS},
    },
    "openai-responses": {
        "type": "function",
        "name": "add",
        "description": "Add two numbers.",
        "parameters": ADD_PARAMETERS,
        "strict": False,
    },
    "anthropic": {"name": "add", "description": "Add two numbers.", "input_schema": ADD_PARAMETERS},
    "gemini": {"name": "add", "description": "Add two numbers.", "parametersJsonSchema": ADD_PARAMETERS},
    "bedrock": {
        "toolSpec": {"name": "add", "description": "Add two numbers.", "inputSchema": {"json": ADD_PARAMETERS}}
    },
}


def test_each_shape_wraps_the_same_name_description_and_parameters():
    tool = op.function(add, register_globally=False)
    assert tool.parameters == ADD_PARAMETERS
    assert provider_schemas(tool) == EXPECTED_ADD


def test_bedrock_declaration_of_a_tool_without_description_uses_its_name():
    assert provider_schemas(external("ping", description=""))["bedrock"]["toolSpec"]["description"] == "ping"


def test_a_registered_tool_can_be_named_by_its_name():
    op.function(add)
    assert provider_schemas("add")["anthropic"]["name"] == "add"


def test_an_unknown_tool_name_says_which_tools_are_registered():
    op.function(add)
    with pytest.raises(ValueError, match="no registered tool is named 'sub'; registered: add"):
        provider_schemas("sub")


def _served_declaration(provider: str, body: dict) -> dict:
    if provider == "gemini":
        return body["tools"][0]["functionDeclarations"][0]
    if provider == "bedrock":
        return body["toolConfig"]["tools"][0]
    # Anthropic: the prompt cache's mark on the last tool is not part of the tool's declaration.
    return {key: value for key, value in body["tools"][0].items() if key != "cache_control"}


MODEL_IDS = {
    "openai": "gpt-4.1-mini",
    "openai-responses": "gpt-4.1-mini",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "bedrock": "anthropic.claude-sonnet-4-5-20250929-v1:0",
}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_shown_declaration_is_exactly_what_the_provider_client_sends(provider, monkeypatch, tmp_path):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEFAKEFAKE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    tool = op.function(add, register_globally=False)
    with FakeServer() as server:
        server.script(Turn(text="ok"))
        base_url = server.openai_base_url if provider.startswith("openai") else server.url
        rt = op.Runtime(model=f"{provider}:{MODEL_IDS[provider]}", api_key="sk-test-0123456789", base_url=base_url)
        assert rt.exec("Add 1 and 2.", tools=[tool]) == "ok"
        body = server.requests[0].body
    # Compared with the hand-written declaration, not with provider_schemas(): both the
    # request and provider_schemas() are built by the same declaration functions.
    assert _served_declaration(provider, body) == EXPECTED_ADD[provider]


# -- what providers reject -----------------------------------------------------------------


def test_a_plain_function_tool_has_no_problems():
    assert schema_problems(add) == []


def test_name_with_a_dot_is_refused_by_bedrock_openai_and_anthropic_but_not_gemini():
    problems = schema_problems(external("billing.refund"))
    assert [p.split(":")[0] for p in problems] == ["openai", "openai-responses", "anthropic", "bedrock"]
    assert "bedrock: the tool name 'billing.refund' is refused (names must be [a-zA-Z0-9_-]+, 1 to 64" in problems[3]


def test_name_longer_than_64_characters_is_refused_by_every_provider():
    problems = schema_problems(external("x" * 65))
    assert [p.split(":")[0] for p in problems] == PROVIDERS


def test_gemini_refuses_a_name_starting_with_a_digit():
    assert schema_problems(external("2fa")) == [
        "gemini: the tool name '2fa' is refused (names must be a letter or '_' first, then letters, digits, "
        "'_', '.', ':' or '-', at most 64 characters)"
    ]


def test_top_level_any_of_is_refused_by_openai_anthropic_and_bedrock():
    parameters = {"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}}]}
    problems = schema_problems(external("pick", parameters))
    assert [p.split(":")[0] for p in problems if "top level" in p] == [
        "openai",
        "openai-responses",
        "anthropic",
        "bedrock",
    ]


def test_parameters_that_are_not_an_object_schema_are_refused():
    problems = schema_problems({"name": "pick", "description": "A bare spec.", "parameters": {"type": "string"}})
    expected = 'all providers: the parameters must be a JSON Schema with "type": "object", got type \'string\''
    assert expected in problems


def test_keywords_outside_geminis_subset_are_flagged_with_their_path():
    parameters = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": "^[A-Z]+$"},
            "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"const": 1}}}},
        },
    }
    problems = schema_problems(external("pick", parameters))
    assert problems == [
        "gemini: parameters.code uses pattern, outside the JSON Schema subset Gemini documents "
        "(it may be ignored, so not enforced, or refused)",
        "gemini: parameters.items[].n uses const, outside the JSON Schema subset Gemini documents "
        "(it may be ignored, so not enforced, or refused)",
    ]


def test_gemini_flags_an_enum_of_booleans():
    parameters = {"type": "object", "properties": {"flag": {"enum": [True, False]}}}
    assert schema_problems(external("pick", parameters)) == [
        "gemini: parameters.flag: enum values must be strings or numbers for Gemini, got [true, false]"
    ]


# -- the page %agent schema shows ----------------------------------------------------------


def test_format_shows_each_provider_shape_as_json_and_says_when_nothing_is_rejected():
    text = format_provider_schemas(add)
    for title in (
        "OpenAI Chat Completions (openai:)",
        "OpenAI Responses (openai-responses:)",
        "Anthropic Messages (anthropic:)",
        "Gemini (gemini:)",
        "Bedrock Converse (bedrock:)",
    ):
        assert title in text
    anthropic = text[text.index("Anthropic Messages (anthropic:)") : text.index("Gemini (gemini:)")]
    assert json.loads(anthropic[anthropic.index("{") :]) == EXPECTED_ADD["anthropic"]
    assert text.endswith("No provider would reject this tool.")


def test_format_lists_the_problems():
    text = format_provider_schemas(external("billing.refund"))
    assert "What a provider would reject (or, for Gemini, may not enforce):\n- openai: the tool name" in text
