"""``allowed_tools=[...]``: the only tools the model may call, every tool still declared
where the provider can say so (so the cached prompt prefix stays); elsewhere the list is
cut, with a notice that says the cache prefix changes. Asserted on the bodies the loopback
server received, with the real SDK clients."""

from __future__ import annotations

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op
from openprogram_jupyter.core.errors import SetupError

from .cases import CASE_IDS, CASES, make_tools

BY_PREFIX = {case.prefix: case for case in CASES}


def declared(prefix: str, body: dict) -> list[str]:
    """The tool names the request declares."""
    if prefix == "openai":
        return [t["function"]["name"] for t in body.get("tools", [])]
    if prefix in ("openai-responses", "anthropic"):
        return [t["name"] for t in body.get("tools", [])]
    if prefix == "gemini":
        return [d["name"] for t in body.get("tools", []) for d in t["functionDeclarations"]]
    return [t["toolSpec"]["name"] for t in body.get("toolConfig", {}).get("tools", []) if "toolSpec" in t]


def choice(prefix: str, body: dict) -> object:
    if prefix == "gemini":
        return body["toolConfig"]["functionCallingConfig"]
    if prefix == "bedrock":
        return body["toolConfig"].get("toolChoice")
    return body.get("tool_choice")


def notices(run: op.Run) -> list[str]:
    return [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]


CUT = (
    "{} cannot allow some tools while declaring all: only add was declared (mul, fail left out), "
    "so the cached prompt prefix changes"
)
AUTO = {
    "openai": (
        ["add", "mul", "fail"],
        {
            "type": "allowed_tools",
            "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {"name": "add"}}]},
        },
        [],
    ),
    "openai-responses": (
        ["add", "mul", "fail"],
        {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "add"}]},
        [],
    ),
    "anthropic": (["add"], {"type": "auto"}, [CUT.format("Anthropic")]),
    "gemini": (["add"], {"mode": "AUTO"}, [CUT.format("Gemini (with tool_choice auto)")]),
    "bedrock": (["add"], {"auto": {}}, [CUT.format("Bedrock")]),
}


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_allowed_tools_keeps_the_list_where_the_provider_can_say_so(case, server):
    server.script(Turn(calls=[Call("add", {"a": 2, "b": 3})]), Turn(text="5."))
    run = await case.runtime(server).arun("Add 2 and 3.", tools=make_tools(), allowed_tools=["add"])
    assert run.stop_reason == "stop", run.error
    names, mapped, said = AUTO[case.prefix]
    for body in server.bodies():  # every round, not only the first
        assert declared(case.prefix, body) == names
        assert choice(case.prefix, body) == mapped
    assert [n.removeprefix(f"{case.model}: ") for n in notices(run)] == said * 2


REQUIRED = {
    "openai": {
        "type": "allowed_tools",
        "allowed_tools": {"mode": "required", "tools": [{"type": "function", "function": {"name": "add"}}]},
    },
    "openai-responses": {"type": "allowed_tools", "mode": "required", "tools": [{"type": "function", "name": "add"}]},
    "gemini": {"mode": "ANY", "allowedFunctionNames": ["add"]},
}


@pytest.mark.parametrize("prefix", list(REQUIRED))
async def test_allowed_tools_with_required_names_them_with_every_tool_declared(prefix, server):
    server.script(Turn(calls=[Call("add", {"a": 2, "b": 3})]), Turn(text="5."))
    run = (
        await BY_PREFIX[prefix]
        .runtime(server)
        .arun("Add 2 and 3.", tools=make_tools(), allowed_tools=["add"], tool_choice="required")
    )
    assert run.stop_reason == "stop", run.error
    body = server.requests[0].body
    assert declared(prefix, body) == ["add", "mul", "fail"]
    assert choice(prefix, body) == REQUIRED[prefix]
    # required is asked of the first round only; Gemini's next round (auto) cuts the list
    later = [CUT.format("Gemini (with tool_choice auto)")] if prefix == "gemini" else []
    assert [n.removeprefix(f"{BY_PREFIX[prefix].model}: ") for n in notices(run)] == later


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_allowing_every_tool_sends_the_plain_request(case, server):
    server.script(Turn(text="Hi."))
    await case.runtime(server).arun("Hi.", tools=make_tools(), allowed_tools=["fail", "mul", "add"])
    plain = {"openai": "auto", "openai-responses": "auto", "anthropic": {"type": "auto"}}
    plain |= {"gemini": {"mode": "AUTO"}, "bedrock": {"auto": {}}}
    assert choice(case.prefix, server.requests[0].body) == plain[case.prefix]
    assert declared(case.prefix, server.requests[0].body) == ["add", "mul", "fail"]


def test_a_name_not_on_the_menu_is_refused_before_anything_is_sent():
    model = op.ScriptedModel([])
    with pytest.raises(SetupError, match=r"allowed_tools names 'divide', not on this run's menu \(add, mul, fail\)"):
        op.Runtime(model=model).exec("Hi.", tools=make_tools(), allowed_tools=["add", "divide"])
    with pytest.raises(SetupError, match=r"tool_choice forces 'mul', which allowed_tools does not allow \(add\)"):
        op.Runtime(model=model).exec("Hi.", tools=make_tools(), allowed_tools=["add"], tool_choice="mul")
    with pytest.raises(SetupError, match=r"allowed_tools=\[\] allows no tool: to forbid calls, use tool_choice='none'"):
        op.Runtime(model=model).exec("Hi.", tools=make_tools(), allowed_tools=[])
    with pytest.raises(SetupError, match="allowed_tools must be a list of tool names or None, got"):
        op.Runtime(model=model).exec("Hi.", tools=make_tools(), allowed_tools="add")


def test_a_captured_round_rebuilt_for_another_provider_keeps_its_allowed_tools():
    run = op.Runtime(model=op.ScriptedModel(["Hi."]), capture_wire=True).run(
        "Hi.", tools=make_tools(), allowed_tools=["add"]
    )
    assert run.request_as(1, "openai-responses:gpt-4.1-mini")["tool_choice"] == {
        "type": "allowed_tools",
        "mode": "auto",
        "tools": [{"type": "function", "name": "add"}],
    }
    assert [t["name"] for t in run.request_as(1, "anthropic")["tools"]] == ["add"]
