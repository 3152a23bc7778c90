"""Input examples (``@op.function(examples=[...])``): each example checked against the
schema when the tool is defined; sent as Anthropic's ``input_examples``, and elsewhere as
an "Examples of arguments" section of the description. Asserted on the bodies the loopback
server received, with the real SDK clients."""

from __future__ import annotations

import pytest
from fakeserver import Turn

import openprogram_jupyter as op

from .cases import CASE_IDS, CASES

EXAMPLES = [{"city": "Oslo"}, {"city": "Lima", "unit": "f"}]


def weather_tool(**options: object) -> op.Tool:
    def weather(city: str, unit: str = "c") -> str:
        """The weather in a city."""
        return f"12 {unit} in {city}"

    return op.function(weather, register_globally=False, **options)


DESCRIBED = 'The weather in a city.\n\nExamples of arguments:\n{"city": "Oslo"}\n{"city": "Lima", "unit": "f"}'


def declaration(prefix: str, body: dict) -> tuple[str, object]:
    """``(the description, the input_examples field or None)`` of the first tool."""
    if prefix == "openai":
        return body["tools"][0]["function"]["description"], body["tools"][0]["function"].get("input_examples")
    if prefix in ("openai-responses", "anthropic"):
        return body["tools"][0]["description"], body["tools"][0].get("input_examples")
    if prefix == "gemini":
        declared = body["tools"][0]["functionDeclarations"][0]
        return declared["description"], declared.get("input_examples")
    spec = body["toolConfig"]["tools"][0]["toolSpec"]
    return spec["description"], spec.get("input_examples")


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_examples_go_as_input_examples_or_in_the_description(case, server):
    server.script(Turn(text="Hi."))
    run = await case.runtime(server).arun("Hi.", tools=[weather_tool(examples=EXAMPLES)])
    assert run.stop_reason == "stop", run.error
    expected = ("The weather in a city.", EXAMPLES) if case.prefix == "anthropic" else (DESCRIBED, None)
    assert declaration(case.prefix, server.requests[0].body) == expected


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_tool_without_examples_has_its_description_alone(case, server):
    server.script(Turn(text="Hi."))
    await case.runtime(server).arun("Hi.", tools=[weather_tool()])
    assert declaration(case.prefix, server.requests[0].body) == ("The weather in a city.", None)


def test_an_example_that_does_not_fit_the_schema_is_refused_when_the_tool_is_defined():
    with pytest.raises(ValueError, match=r"tool 'weather': example 2 does not fit the schema: unit: expected string"):
        weather_tool(examples=[{"city": "Oslo"}, {"city": "Lima", "unit": 3}])
    with pytest.raises(ValueError, match=r"tool 'weather': example 1 does not fit the schema: city: .*required"):
        weather_tool(examples=[{"unit": "c"}])
    with pytest.raises(TypeError, match=r"tool 'weather': examples must be a list of argument dicts"):
        weather_tool(examples=["Oslo"])


def test_a_dict_tool_takes_examples_too_and_checks_them():
    spec = {
        "name": "echo",
        "description": "Echo.",
        "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}},
    }
    tool = op.tools.menu.as_tool({"spec": spec, "execute": lambda x: x, "examples": [{"x": 1}]})
    assert tool.spec["input_examples"] == [{"x": 1}]
    with pytest.raises(ValueError, match=r"tool 'echo': example 1 does not fit the schema: x: expected integer"):
        op.tools.menu.as_tool({"spec": spec, "execute": lambda x: x, "examples": [{"x": "one"}]})


def test_the_wire_preview_shows_the_examples():
    from openprogram_jupyter.core.messages import UserMessage
    from openprogram_jupyter.models.base import ModelRequest

    request = ModelRequest(messages=[UserMessage(content="Hi.")], tools=[weather_tool(examples=EXAMPLES).spec])
    assert op.wire_preview(request, "anthropic")["tools"][0]["input_examples"] == EXAMPLES
    assert op.wire_preview(request, "gemini")["tools"][0]["functionDeclarations"][0]["description"] == DESCRIBED
