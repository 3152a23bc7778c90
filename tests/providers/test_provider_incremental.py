"""A provider model reuses what it built for the round before (``models/_incremental``):
the history's messages converted and encoded once each. Whatever the history, each round's
body must be what a model building it from nothing gives, byte for byte, however the
history grew — a steering message joining the results' user message, an image, a run
that starts over, prompt-cache marks on the newest message."""

from __future__ import annotations

import json

import pytest

from openprogram_jupyter.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models._incremental import encode_json
from openprogram_jupyter.models.base import ModelRequest

from .cases import CASES, make_tools

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
ENCODED = ("openai", "anthropic")  # the providers that send the body we encode
TOOLS = [tool.spec for tool in make_tools()]


def _round(n: int) -> list:
    call = ToolCall(id=f"call_{n}", name="add", arguments={"a": n, "b": 1})
    reply = AssistantMessage(content=[TextContent(text=f"step {n}"), call])
    content = [TextContent(text=str(n + 1))] + ([ImageContent(data=PIXEL, mime_type="image/png")] if n == 2 else [])
    return [reply, ToolResultMessage(tool_call_id=f"call_{n}", tool_name="add", content=content)]


def _histories() -> list[list]:
    """Growing histories of one conversation, then new ones, shorter and longer (the memo
    must start over)."""
    conversation: list = [UserMessage(content="Add one at a time.")]
    out = []
    for n in range(6):
        conversation.extend(_round(n))
        if n == 3:  # a steering message after the results: joins their user message
            conversation.append(UserMessage(content="Faster, please."))
        out.append(conversation[:])
        out.append(conversation)  # the same list object the loop passes, grown in place
        conversation = conversation[:]
    out.append([UserMessage(content="Another run."), *_round(0)])
    longer = [UserMessage(content="A longer one."), *(m for n in range(8) for m in _round(n))]
    out.append(longer)  # not the history before, though longer than it
    return out


@pytest.mark.parametrize("prompt_cache", [False, True], ids=["plain", "prompt_cache"])
@pytest.mark.parametrize("case", CASES, ids=[c.prefix for c in CASES])
def test_each_round_is_the_body_a_fresh_model_builds(case, prompt_cache):
    model = resolve_model(case.model, api_key="sk-test-not-sent", base_url="http://127.0.0.1:9")
    for history in _histories():
        request = ModelRequest(messages=history, system="Be brief.", tools=TOOLS, prompt_cache=prompt_cache)
        fresh = resolve_model(case.model, api_key="sk-test-not-sent", base_url="http://127.0.0.1:9")
        expected, _ = fresh._prepare(request)
        payload, _ = model._prepare(request)
        assert payload == expected
        if case.prefix in ENCODED:
            # the bytes sent: each message's JSON kept from the rounds before, joined
            sent = model._history.encode(payload, "messages")
            assert sent == encode_json(expected)
            assert json.loads(sent) == expected
