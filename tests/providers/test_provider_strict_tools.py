"""Strict tool schemas (``@op.function(strict=True)``, the run setting ``strict_tools``):
each provider's strict field on the wire with the schema it takes, a notice where a
provider or model has none, and a ``null`` a strict model sends for an optional argument
read as "not given". Asserted on the bodies the loopback server received, with the real
SDK clients."""

from __future__ import annotations

from typing import Literal

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op

from .cases import CASE_IDS, CASES

BY_PREFIX = {case.prefix: case for case in CASES}


def weather_tool(strict: bool = True) -> op.Tool:
    def weather(city: str, unit: Literal["c", "f"] = "c") -> str:
        """The weather in a city.

        Args:
            city: The city.
            unit: Degrees Celsius or Fahrenheit.
        """
        return f"12 {unit} in {city}"

    return op.function(weather, strict=strict, register_globally=False)


OPENAI_STRICT = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "The city."},
        "unit": {"type": ["string", "null"], "enum": ["c", "f", None], "description": "Degrees Celsius or Fahrenheit."},
    },
    "required": ["city", "unit"],
    "additionalProperties": False,
}
CLOSED = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "The city."},
        "unit": {"type": "string", "enum": ["c", "f"], "default": "c", "description": "Degrees Celsius or Fahrenheit."},
    },
    "required": ["city"],
    "additionalProperties": False,
}


def strict_declaration(prefix: str, body: dict) -> tuple[object, object]:
    """``(the strict flag, the parameters)`` of the first tool, where ``prefix`` puts them."""
    if prefix == "openai":
        function = body["tools"][0]["function"]
        return function.get("strict"), function["parameters"]
    if prefix == "openai-responses":
        return body["tools"][0]["strict"], body["tools"][0]["parameters"]
    if prefix == "anthropic":
        return body["tools"][0].get("strict"), body["tools"][0]["input_schema"]
    if prefix == "gemini":
        declaration = body["tools"][0]["functionDeclarations"][0]
        return declaration.get("strict"), declaration["parametersJsonSchema"]
    spec = body["toolConfig"]["tools"][0]["toolSpec"]
    return spec.get("strict"), spec["inputSchema"]["json"]


EXPECTED = {
    "openai": (True, OPENAI_STRICT),
    "openai-responses": (True, OPENAI_STRICT),
    "anthropic": (True, CLOSED),
    "gemini": (None, CLOSED),  # Gemini has none: the schema as it is (it is closed already)
    "bedrock": (True, CLOSED),
}


def notices(run: op.Run) -> list[str]:
    return [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_strict_tool_goes_in_each_providers_strict_mode(case, server):
    server.script(Turn(calls=[Call("weather", {"city": "Oslo"})]), Turn(text="12 c."))
    run = await case.runtime(server).arun("Weather in Oslo?", tools=[weather_tool()])
    assert run.stop_reason == "stop", run.error
    assert strict_declaration(case.prefix, server.requests[0].body) == EXPECTED[case.prefix]
    said = notices(run)
    if case.prefix == "gemini":
        assert (
            said
            == [
                "gemini:gemini-2.5-flash: Gemini has no strict tool schemas: strict was not sent for weather; "
                "the arguments are still checked against each tool's schema before it runs"
            ]
            * 2
        )
    else:
        assert said == []


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_the_run_setting_strict_tools_makes_every_tool_strict(case, server):
    server.script(Turn(text="Hi."))
    await case.runtime(server).arun("Hi.", tools=[weather_tool(strict=False)], strict_tools=True)
    assert strict_declaration(case.prefix, server.requests[0].body) == EXPECTED[case.prefix]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_tool_that_is_not_strict_goes_as_before(case, server):
    server.script(Turn(text="Hi."))
    await case.runtime(server).arun("Hi.", tools=[weather_tool(strict=False)])
    flag, parameters = strict_declaration(case.prefix, server.requests[0].body)
    assert flag in ((False,) if case.prefix == "openai-responses" else (None,))
    assert parameters == CLOSED


@pytest.mark.parametrize("prefix", ["openai", "openai-responses"])
async def test_a_null_for_an_optional_argument_means_not_given(prefix, server):
    server.script(Turn(calls=[Call("weather", {"city": "Oslo", "unit": None})]), Turn(text="12 c."))
    run = await BY_PREFIX[prefix].runtime(server).arun("Weather in Oslo?", tools=[weather_tool()])
    assert run.stop_reason == "stop", run.error
    [call] = [c for m in run.messages if m.role == "assistant" for c in m.tool_calls]
    assert call.arguments == {"city": "Oslo"}
    assert list(run.results.values()) == ["12 c in Oslo"]


@pytest.mark.parametrize("prefix", ["openai", "openai-responses", "anthropic", "bedrock"])
async def test_a_schema_strict_mode_cannot_express_goes_without_strict_and_says_so(prefix, server):
    def tally(counts: dict[str, int]) -> int:
        """Add up counts.

        Args:
            counts: A count per name.
        """
        return sum(counts.values())

    tool = op.function(tally, strict=True, register_globally=False)
    server.script(Turn(text="Hi."))
    run = await BY_PREFIX[prefix].runtime(server).arun("Hi.", tools=[tool])
    assert run.stop_reason == "stop", run.error  # no 400 from a schema strict mode refuses
    flag, _ = strict_declaration(prefix, server.requests[0].body)
    assert flag in (None, False)
    [notice] = notices(run)
    assert notice.endswith(
        "strict mode cannot express tally's schema (counts: an object with free-form keys "
        "(additionalProperties)): it was sent without strict"
    )


@pytest.mark.parametrize(
    ("prefix", "model_id"),
    [("anthropic", "claude-3-5-haiku-20241022"), ("bedrock", "amazon.nova-pro-v1:0")],
)
async def test_a_model_without_strict_tool_use_gets_none_and_a_notice(prefix, model_id, server):
    server.script(Turn(text="Hi."))
    case = BY_PREFIX[prefix]
    runtime = op.Runtime(model=f"{prefix}:{model_id}", api_key="sk-test-0123456789", base_url=case.url(server))
    run = await runtime.arun("Hi.", tools=[weather_tool()])
    assert strict_declaration(prefix, server.requests[0].body)[0] is None
    [notice] = notices(run)
    assert f"{model_id} has no strict tool use" in notice
    assert "strict was not sent for weather" in notice


def test_the_schema_page_shows_what_strict_mode_changed_and_cannot_express():
    from openprogram_jupyter.models.provider_schemas import format_provider_schemas

    def note(text: str, tags: list[str] | None = None) -> str:
        """Keep a note.

        Args:
            text: What to keep.
            tags: Labels.
        """
        return text

    page = format_provider_schemas(op.function(note, strict=True, register_globally=False))
    assert (
        "Strict mode, OpenAI (Chat, Responses): tags: optional, made required and nullable (null means not given); "
        "its default None dropped (the tool's own applies)"
    ) in page
    assert "Strict mode, Gemini: none (strict is not sent; a notice says so)" in page
    assert '"strict": true' in page
    plain = format_provider_schemas(op.function(note, register_globally=False))
    assert "Strict mode" not in plain and '"strict": true' not in plain


def test_the_schema_page_names_a_keyword_strict_mode_cannot_express():
    from openprogram_jupyter.models.provider_schemas import strict_lines

    spec = {
        "name": "pick",
        "strict": True,
        "parameters": {
            "type": "object",
            "properties": {"word": {"type": "string", "minLength": 2}},
            "required": ["word"],
        },
    }
    lines = strict_lines(spec)
    assert "  cannot express: word: minLength (left out; still checked before the tool runs)" in lines


def test_the_wire_preview_shows_the_strict_form():
    from openprogram_jupyter.core.messages import UserMessage
    from openprogram_jupyter.models.base import ModelRequest

    request = ModelRequest(messages=[UserMessage(content="Weather?")], tools=[weather_tool().spec])
    body = op.wire_preview(request, "openai:gpt-4.1-mini")
    assert body["tools"][0]["function"]["strict"] is True
    assert body["tools"][0]["function"]["parameters"] == OPENAI_STRICT
