"""``reasoning=``: one run setting, each provider's own field on the wire; and the
reasoning a provider hands out comes back to it unchanged in the next round (Anthropic's
signed and redacted thinking, OpenAI Responses' encrypted reasoning items). Asserted on
the bodies the loopback server received, with the real SDK clients."""

from __future__ import annotations

import pytest
from fakeserver import Call, Turn

from openprogram_jupyter.models._reasoning import reasoning_budget, reasoning_effort

from .cases import CASE_IDS, CASES, make_tools

BY_PREFIX = {case.prefix: case for case in CASES}


def reasoning_field(prefix: str, body: dict) -> object:
    """Where ``prefix`` carries the reasoning it was asked for (``None``: not asked)."""
    if prefix == "openai":
        return body.get("reasoning_effort")
    if prefix == "openai-responses":
        return body.get("reasoning"), body.get("include")
    if prefix == "anthropic":
        return body.get("thinking"), body["max_tokens"] if "thinking" in body else None
    if prefix == "gemini":
        return body.get("generationConfig", {}).get("thinkingConfig")
    if prefix == "bedrock":
        thinking = (body.get("additionalModelRequestFields") or {}).get("thinking")
        return thinking, body["inferenceConfig"]["maxTokens"] if thinking else None
    raise AssertionError(prefix)


HIGH = {
    "openai": "high",
    "openai-responses": ({"effort": "high", "summary": "auto"}, ["reasoning.encrypted_content"]),
    "anthropic": ({"type": "enabled", "budget_tokens": 16384}, 16384 + 1024),
    "gemini": {"includeThoughts": True, "thinkingBudget": 16384},
    "bedrock": ({"type": "enabled", "budget_tokens": 16384}, 16384 + 1024),
}


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_reasoning_high_is_each_providers_own_field(case, server):
    server.script(Turn(text="Thought it over."))
    run = await case.runtime(server).arun("Think hard.", reasoning="high")
    assert run.stop_reason == "stop", run.error
    assert reasoning_field(case.prefix, server.requests[0].body) == HIGH[case.prefix]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_without_reasoning_no_field_is_sent(case, server):
    server.script(Turn(text="Hi."))
    await case.runtime(server).arun("Hi.")
    assert reasoning_field(case.prefix, server.requests[0].body) in (None, (None, None))


def test_an_effort_and_a_budget_are_one_table():
    assert [reasoning_budget(e) for e in ("low", "medium", "high")] == [1024, 4096, 16384]
    efforts = [reasoning_effort(b) for b in (1024, 1025, 4096, 4097, 50_000)]
    assert efforts == ["low", "medium", "medium", "high", "high"]
    assert reasoning_budget(2000) == 2000 and reasoning_effort(None) is None


async def test_anthropic_returns_signed_and_redacted_thinking_unchanged_with_the_calls(server):
    server.script(
        Turn(
            thinking="I should add them.", redacted_thinking="ENCRYPTED-blob==", calls=[Call("add", {"a": 2, "b": 3})]
        ),
        Turn(text="5."),
    )
    run = await BY_PREFIX["anthropic"].runtime(server).arun("Add 2 and 3.", tools=make_tools(), reasoning="low")
    assert run.stop_reason == "stop", run.error
    assistant = server.requests[1].body["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"][:2] == [
        {"type": "thinking", "thinking": "I should add them.", "signature": "sig-I should"},
        {"type": "redacted_thinking", "data": "ENCRYPTED-blob=="},
    ]
    assert assistant["content"][2]["type"] == "tool_use"


async def test_openai_responses_sends_its_encrypted_reasoning_items_back_before_the_calls(server):
    server.script(Turn(thinking="Adding.", calls=[Call("add", {"a": 2, "b": 3})]), Turn(text="5."))
    run = (
        await BY_PREFIX["openai-responses"].runtime(server).arun("Add 2 and 3.", tools=make_tools(), reasoning="medium")
    )
    assert run.stop_reason == "stop", run.error
    items = server.requests[1].body["input"]
    kinds = [item.get("type", item.get("role")) for item in items]
    assert kinds[:3] == ["user", "reasoning", "function_call"]
    reasoning = items[1]
    assert reasoning["id"].startswith("rs") and reasoning["encrypted_content"] == f"enc-{reasoning['id']}"
    assert reasoning["summary"] == [{"type": "summary_text", "text": "Adding."}]


async def test_bedrock_sends_reasoning_only_to_claude_and_says_so_for_others(server):
    server.script(Turn(text="Hi."))
    case = BY_PREFIX["bedrock"]
    runtime = case.runtime(server).replace(model="bedrock:meta.llama3-70b-instruct-v1:0")
    run = await runtime.arun("Hi.", reasoning="high")
    assert "additionalModelRequestFields" not in server.requests[0].body
    assert any("reasoning is sent only to Claude models" in str(e) for e in run.events)


@pytest.mark.parametrize(("model_id", "largest"), [("gemini-2.5-flash", 24_576), ("gemini-2.5-pro", 32_768)])
async def test_gemini_gets_at_most_its_largest_thinking_budget_with_a_notice(server, model_id, largest):
    """docs/faults.md, "Images the provider refuses": a budget the setting takes but Gemini
    would refuse is sent as Gemini's largest, and the run says so."""
    server.script(Turn(text="Thought it over."))
    case = BY_PREFIX["gemini"]
    runtime = case.runtime(server)
    runtime.model.model_id = model_id
    run = await runtime.arun("Think hard.", reasoning=100_000)
    assert run.stop_reason == "stop", run.error
    assert reasoning_field("gemini", server.requests[0].body) == {"includeThoughts": True, "thinkingBudget": largest}
    notices = [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]
    [notice] = notices
    assert notice.endswith(
        f": reasoning=100,000 is over the model's largest thinking budget ({largest:,}): {largest:,} was sent"
    )
