"""A result's blocks reach the model in order and separated, on every provider: the
reference server's ``get-tiny-image`` answers text, an image, text."""

from __future__ import annotations

import json

import pytest

import openprogram_jupyter as op

FIRST, LAST = "Here's the image you requested:", "The image above is the MCP logo."
PROVIDERS = [
    "openai:gpt-4.1-mini",
    "openai-responses:gpt-4.1-mini",
    "anthropic:claude-sonnet-4-5",
    "gemini:gemini-2.5-flash",
    "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0",
]


@pytest.fixture
def second_request(runtime, everything):
    model = op.ScriptedModel([op.ToolCall(name="ev_get-tiny-image", arguments={}), "I see it."])
    runtime.model = model
    run = runtime.run("Show me the image.")
    assert run.stop_reason == "stop", run.error
    return model.requests[1]


def test_the_result_keeps_its_blocks_in_order(second_request):
    [result] = [m for m in second_request.messages if isinstance(m, op.ToolResultMessage)]
    assert [type(b).__name__ for b in result.content] == ["TextContent", "ImageContent", "TextContent"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_is_sent_the_texts_apart_and_the_image_in_its_place(second_request, provider):
    body = json.dumps(op.wire_preview(second_request, provider))
    assert FIRST + LAST not in body  # glued: "…requested:The image above…"
    first, last = body.index(json.dumps(FIRST)[1:-1]), body.index(json.dumps(LAST)[1:-1])
    assert first < last
    between = body[first:last]
    # The image itself where the provider takes a list of blocks; elsewhere its marker,
    # the image following the text.
    assert "[image 1]" in between or "iVBOR" in between, between[:300]
