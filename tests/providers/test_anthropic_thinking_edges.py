"""Anthropic's extended thinking at its edges: with tool_choice "required" or a forced
tool (which the API refuses beside thinking) the round is sent as auto and the run says so;
a cap of exactly the thinking budget turns thinking off for the round, one token more
keeps it; max_tokens leaves 1,024 tokens for the answer beyond a large budget
(issue 45 item 3)."""

from __future__ import annotations

import pytest
from fakeserver import Call, Turn

from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.models.anthropic import AnthropicModel
from openprogram_jupyter.models.base import ModelRequest
from openprogram_jupyter.render import render_plain

from .cases import CASES, make_tools

ANTHROPIC = next(case for case in CASES if case.prefix == "anthropic")
TOOLS = [t.spec for t in make_tools()]


@pytest.mark.parametrize("choice", ["required", "add"])
async def test_thinking_with_a_required_or_forced_tool_is_sent_as_auto_and_the_run_says_so(server, choice):
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2})]), Turn(text="3."))
    run = await ANTHROPIC.runtime(server).arun("Add 1 and 2.", tools=make_tools(), reasoning=2_048, tool_choice=choice)
    assert server.rejections == [] and run.text == "3.", run.error
    first = server.requests[0].body
    assert first["tool_choice"]["type"] == "auto"
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2_048}
    shown = {"required": "'required'", "add": "{'type': 'function', 'name': 'add'}"}[choice]
    notice = (
        f"with extended thinking Anthropic accepts only tool_choice auto or none; tool_choice={shown} was sent as auto"
    )
    assert notice in render_plain(run)


def _prepared(cap: int | None, budget: int = 2_048, choice: str = "auto"):
    model = AnthropicModel("claude-sonnet-4-5", api_key="sk-ant-test", thinking_budget=budget)
    request = ModelRequest(
        messages=[UserMessage(content="Hi.")], tools=TOOLS, tool_choice=choice, max_output_tokens=cap
    )
    return model._prepare(request)


def test_a_cap_of_exactly_the_budget_turns_thinking_off_and_one_token_more_keeps_it():
    payload, notices = _prepared(2_048)
    assert "thinking" not in payload and payload["max_tokens"] == 2_048
    assert notices == [
        "the run's budget leaves 2,048 output tokens, no more than the thinking budget (2,048): "
        "extended thinking is off for this round"
    ]
    payload, notices = _prepared(2_049)
    assert payload["thinking"] == {"type": "enabled", "budget_tokens": 2_048} and payload["max_tokens"] == 2_049
    assert notices == []


def test_without_a_cap_max_tokens_leaves_1024_for_the_answer_beyond_a_large_budget_and_none_stays_none():
    payload, _ = _prepared(None, budget=126_976)
    assert payload["max_tokens"] == 128_000
    payload, notices = _prepared(None, choice="none")
    assert payload["tool_choice"] == {"type": "none"} and notices == []
