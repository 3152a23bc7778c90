"""``op.wire_preview`` shows the one-line notices the run would print for the round — a
feature the provider lacks and what happens instead — beside the body it would send."""

from __future__ import annotations

import ast

from IPython.lib.pretty import pretty

import openprogram_jupyter as op
from openprogram_jupyter.models.base import ModelRequest

WEATHER = {
    "name": "weather",
    "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
ADD = {
    "name": "add",
    "description": "Add two numbers.",
    "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
}
SEARCH = {"name": "tool_search", "description": "Load deferred tools.", "parameters": {"type": "object"}}


def asked(**fields) -> ModelRequest:
    return ModelRequest(messages=[op.UserMessage(content="Weather in Oslo?")], **fields)


def test_a_provider_without_tool_search_names_it_in_the_preview():
    preview = op.wire_preview(asked(tools=[ADD, SEARCH], deferred_tools=[WEATHER]), "gemini:gemini-2.5-flash")
    assert preview.notices == [
        "gemini:gemini-2.5-flash: Gemini has no tool search of its own: the package's tool_search tool finds the "
        "1 deferred tool instead (tool_search='provider' asked)"
    ]
    names = [d["name"] for d in preview["tools"][0]["functionDeclarations"]]
    assert names == ["add", "tool_search"]


def test_a_provider_with_tool_search_has_nothing_to_say_and_declares_the_deferred_tool():
    preview = op.wire_preview(asked(tools=[ADD, SEARCH], deferred_tools=[WEATHER]), "anthropic:claude-sonnet-4-5")
    assert preview.notices == []
    assert [(t["name"], t.get("defer_loading")) for t in preview["tools"]] == [
        ("add", None),
        ("weather", True),
        ("tool_search_tool_bm25", None),
    ]


def test_every_notice_of_the_round_is_in_the_preview_in_the_order_the_run_prints_them():
    request = asked(tools=[{**WEATHER, "strict": True}, ADD], allowed_tools=["weather"])
    preview = op.wire_preview(request, "bedrock:amazon.nova-pro-v1:0")
    assert preview.notices == [
        "bedrock:amazon.nova-pro-v1:0: amazon.nova-pro-v1:0 has no strict tool use on Bedrock: strict was not sent "
        "for weather; the arguments are still checked against each tool's schema before it runs",
        "bedrock:amazon.nova-pro-v1:0: Bedrock cannot allow some tools while declaring all: only weather was "
        "declared (add left out), so the cached prompt prefix changes",
    ]


def test_in_a_notebook_the_notes_show_above_the_body():
    preview = op.wire_preview(asked(tools=[ADD, SEARCH], deferred_tools=[WEATHER]), "openai:gpt-4.1-mini")
    shown = pretty(preview)
    first, rest = shown.split("\n", 1)
    assert first == (
        "note: openai:gpt-4.1-mini: OpenAI Chat Completions has no tool search of its own: the package's "
        "tool_search tool finds the 1 deferred tool instead (tool_search='provider' asked)"
    )
    assert rest.startswith("{'model': 'gpt-4.1-mini',")
    assert dict(preview) == ast.literal_eval(rest)  # the body as it is, below the note
