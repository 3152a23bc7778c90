"""Whole runs through ``op.Runtime`` against the loopback server, one per provider: the
real SDK clients on the wire, our loop around them."""

from __future__ import annotations

import json

import pytest
from fakeserver import Call, Turn

from .cases import CASE_IDS, CASES, SECRET, make_tools

pytestmark = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)

EXPECTED_FORCED_THEN_AUTO = {
    "openai": (
        {"tool_choice": {"type": "function", "function": {"name": "add"}}, "parallel_tool_calls": False},
        {"tool_choice": "auto", "parallel_tool_calls": False},
    ),
    "openai-responses": (
        {"tool_choice": {"type": "function", "name": "add"}, "parallel_tool_calls": False},
        {"tool_choice": "auto", "parallel_tool_calls": False},
    ),
    "anthropic": (
        {"type": "tool", "name": "add", "disable_parallel_tool_use": True},
        {"type": "auto", "disable_parallel_tool_use": True},
    ),
    "gemini": (
        {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["add"]}},
        {"functionCallingConfig": {"mode": "AUTO"}},
    ),
    "bedrock": (
        {
            "toolChoice": None,
            "additional": {"tool_choice": {"type": "tool", "name": "add", "disable_parallel_tool_use": True}},
        },
        {"toolChoice": None, "additional": {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}},
    ),
}

EXPECTED_REQUIRED = {
    "openai": {"tool_choice": "required"},
    "openai-responses": {"tool_choice": "required"},
    "anthropic": {"type": "any"},
    "gemini": {"functionCallingConfig": {"mode": "ANY"}},
    "bedrock": {"toolChoice": {"any": {}}, "additional": None},
}

EXPECTED_NONE = {
    "openai": {"tool_choice": "none"},
    "openai-responses": {"tool_choice": "none"},
    "anthropic": {"type": "none"},
    "gemini": {"functionCallingConfig": {"mode": "NONE"}},
    "bedrock": {"toolChoice": None, "additional": None},
}


def _script_parallel_rounds(server):
    server.script(
        Turn(
            text="Let me compute.",
            calls=[Call("add", {"a": 2, "b": 3}), Call("mul", {"a": 4, "b": 5}), Call("fail", {"reason": "boom"})],
        ),
        Turn(calls=[Call("add", {"a": 5, "b": 20})], input_tokens=30, output_tokens=9),
        Turn(text="The answer is 25.", input_tokens=40, output_tokens=5),
    )


async def test_multi_round_run_with_parallel_calls_pairs_every_result(case, server):
    _script_parallel_rounds(server)
    server.expected_key = SECRET
    run = await case.runtime(server).arun("Compute things.", tools=make_tools())

    assert run.stop_reason == "stop", run.error
    assert run.text == "The answer is 25."
    assert run.rounds == 3
    results = run.tool_results
    assert [r.tool_name for r in results] == ["add", "mul", "fail", "add"]
    assert [r.text for r in results[:2]] == ["5.0", "20.0"]
    assert results[2].is_error and "boom" in results[2].text

    second, third = server.requests[1].body, server.requests[2].body
    sent = case.results(second)
    assert len(sent) == 3, "one result per call, all in the turn's result group"
    assert [text for _, text, _ in sent] == [r.text for r in results[:3]]
    assert [flag for _, _, flag in sent] == [False, False, True]  # the failing call is sent as an error
    first_calls = case.calls(second)
    assert [key for key, _, _ in sent] == first_calls, "results are in call order and keyed to their calls"
    assert [key for key, _, _ in case.results(third)] == case.calls(third)


async def test_usage_is_summed_over_rounds_with_cost(case, server):
    _script_parallel_rounds(server)
    run = await case.runtime(server).arun("Compute things.", tools=make_tools())

    replies = [m for m in run.messages if m.role == "assistant"]
    assert [(m.usage.input, m.usage.output) for m in replies] == [(11, 7), (30, 9), (40, 5)]
    assert (run.usage.input, run.usage.output, run.usage.total_tokens) == (81, 21, 102)
    assert run.usage.cost is not None and run.usage.cost > 0
    assert run.usage.cost == pytest.approx(sum(m.usage.cost for m in replies))


async def test_forced_choice_only_on_first_round_and_parallel_off_every_round(case, server):
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2})]), Turn(text="3"))
    run = await case.runtime(server).arun("Add.", tools=make_tools(), tool_choice="add", parallel_tool_calls=False)

    assert run.stop_reason == "stop", run.error
    first, second = (case.choice(r.body) for r in server.requests)
    assert (first, second) == EXPECTED_FORCED_THEN_AUTO[case.prefix]
    notices = [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]
    if case.prefix == "gemini":
        assert len(notices) == 2 and "parallel_tool_calls=False" in notices[0]
    else:
        assert notices == []


async def test_required_maps_on_first_round(case, server):
    server.script(Turn(calls=[Call("mul", {"a": 1, "b": 2})]), Turn(text="2"))
    run = await case.runtime(server).arun("Multiply.", tools=make_tools(), tool_choice="required")

    assert run.stop_reason == "stop", run.error
    assert case.choice(server.requests[0].body) == EXPECTED_REQUIRED[case.prefix]


async def test_none_maps_on_every_round(case, server):
    server.script(Turn(text="No tools needed."))
    run = await case.runtime(server).arun("Just talk.", tools=make_tools(), tool_choice="none")

    assert run.stop_reason == "stop", run.error
    body = server.requests[0].body
    assert case.choice(body) == EXPECTED_NONE[case.prefix]
    if case.prefix == "bedrock":
        assert "toolConfig" not in body, "no tool blocks in the history: tools are simply not declared"


async def test_session_continues_across_runs_with_valid_history(case, server):
    """A second run over the first run's messages sends a history the API accepts."""
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2})]), Turn(text="3"), Turn(text="Still 3."))
    runtime = case.runtime(server)
    first = await runtime.arun("Add.", tools=make_tools())
    second = await runtime.arun("Again?", messages=first.messages, tools=make_tools())

    assert second.stop_reason == "stop", second.error
    assert server.rejections == []
    assert json.dumps(server.requests[-1].body).count("Again?") == 1
