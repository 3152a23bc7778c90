"""Converse's ``toolConfig`` for each model family and tool choice: exactly the table of
``models/_bedrock_controls.py`` (and docs/providers.md) — what is sent, what the model is
told in the system prompt, and the notice a user reads when Bedrock cannot say it."""

from __future__ import annotations

import pytest

from openprogram_jupyter.core.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from openprogram_jupyter.models._bedrock_controls import bedrock_tool, takes_strict, tool_config
from openprogram_jupyter.models.base import ModelRequest

ADD = {"name": "add", "description": "Add.", "parameters": {"type": "object", "properties": {}}}
MUL = {"name": "mul", "description": "Multiply.", "parameters": {"type": "object", "properties": {}}}
DECLARED = [bedrock_tool(ADD), bedrock_tool(MUL)]

CLAUDE = "eu.anthropic.claude-sonnet-4-5-20250929-v1:0"
NOVA = "amazon.nova-pro-v1:0"
MISTRAL_LARGE = "mistral.mistral-large-2407-v1:0"
LLAMA = "meta.llama3-1-70b-instruct-v1:0"


def ask(model_id: str, choice: object = "auto", parallel: bool | None = None, history: bool = False):
    messages: list = [UserMessage(content="Go.")]
    if history:
        call = ToolCall(id="c1", name="old", arguments={})
        messages += [
            AssistantMessage(content=[call]),
            ToolResultMessage(tool_call_id="c1", tool_name="old", content=[]),
        ]
    return tool_config(
        model_id, ModelRequest(messages=messages, tools=[ADD, MUL], tool_choice=choice, parallel_tool_calls=parallel)
    )


@pytest.mark.parametrize("model_id", [CLAUDE, NOVA, MISTRAL_LARGE, LLAMA])
def test_auto_is_sent_as_auto_with_nothing_said(model_id):
    controls = ask(model_id)
    assert controls.tool_config == {"tools": DECLARED, "toolChoice": {"auto": {}}}
    assert (controls.additional_fields, controls.instructions, controls.notices) == (None, [], [])


@pytest.mark.parametrize("model_id", [CLAUDE, NOVA, MISTRAL_LARGE])
def test_required_is_any_where_the_model_takes_it(model_id):
    controls = ask(model_id, "required")
    assert controls.tool_config == {"tools": DECLARED, "toolChoice": {"any": {}}}
    assert (controls.instructions, controls.notices) == ([], [])


@pytest.mark.parametrize("model_id", [LLAMA, "anthropic.claude-instant-v1", "us.anthropic.claude-v2:1"])
def test_required_elsewhere_is_auto_with_an_instruction_and_a_notice(model_id):
    controls = ask(model_id, "required")
    assert controls.tool_config == {"tools": DECLARED, "toolChoice": {"auto": {}}}
    assert controls.instructions == ["You must call at least one of the tools in this reply."]
    assert controls.notices == [
        f"{model_id} cannot be forced to call a tool on Bedrock; tool_choice 'required' was sent as auto "
        "with an instruction in the system prompt"
    ]


@pytest.mark.parametrize("model_id", [CLAUDE, NOVA])
def test_a_forced_tool_is_named_where_the_model_takes_it(model_id):
    controls = ask(model_id, {"type": "function", "name": "mul"})
    assert controls.tool_config == {"tools": DECLARED, "toolChoice": {"tool": {"name": "mul"}}}
    assert (controls.instructions, controls.notices) == ([], [])


def test_a_forced_tool_on_mistral_large_is_any_with_only_that_tool_declared():
    controls = ask(MISTRAL_LARGE, {"type": "function", "name": "mul"})
    assert controls.tool_config == {"tools": [bedrock_tool(MUL)], "toolChoice": {"any": {}}}
    assert controls.instructions == []
    assert controls.notices == [
        f"{MISTRAL_LARGE} cannot be forced to a named tool on Bedrock; tool_choice 'mul' was sent "
        "as 'any' with only that tool declared"
    ]


def test_a_forced_tool_elsewhere_is_auto_with_only_that_tool_and_an_instruction():
    controls = ask(LLAMA, {"type": "function", "name": "mul"})
    assert controls.tool_config == {"tools": [bedrock_tool(MUL)], "toolChoice": {"auto": {}}}
    assert controls.instructions == ["You must call the tool mul in this reply."]
    assert controls.notices == [
        f"{LLAMA} cannot be forced to a named tool on Bedrock; tool_choice 'mul' was sent as auto "
        "with only that tool declared and an instruction in the system prompt"
    ]


def test_forcing_a_tool_not_on_the_menu_keeps_every_tool_declared():
    controls = ask(LLAMA, {"type": "function", "name": "gone"})
    assert controls.tool_config == {"tools": DECLARED, "toolChoice": {"auto": {}}}


def test_none_without_tool_history_sends_no_tool_config_and_says_nothing():
    controls = ask(CLAUDE, "none")
    assert (controls.tool_config, controls.instructions, controls.notices) == (None, [], [])


def test_none_with_tool_history_keeps_the_tools_and_the_history_s_declared_and_says_so():
    controls = ask(CLAUDE, "none", history=True)
    assert controls.tool_config is not None
    assert set(controls.tool_config) == {"tools"}  # no toolChoice
    assert [t["toolSpec"]["name"] for t in controls.tool_config["tools"]] == ["add", "mul", "old"]
    assert controls.instructions == ["Do not call any tool in this reply; answer in text."]
    assert controls.notices == [
        "Bedrock has no tool_choice 'none'; the tools stay declared (the history uses them) and the "
        "model was told in the system prompt not to call any"
    ]


def test_no_tools_with_tool_history_declares_the_history_s_tools_without_a_notice():
    request = ModelRequest(
        messages=[
            UserMessage(content="Go."),
            AssistantMessage(content=[ToolCall(id="c1", name="old", arguments={})]),
            ToolResultMessage(tool_call_id="c1", tool_name="old", content=[]),
        ]
    )
    controls = tool_config(CLAUDE, request)
    assert [t["toolSpec"]["name"] for t in controls.tool_config["tools"]] == ["old"]
    assert controls.instructions == ["Do not call any tool in this reply; answer in text."]
    assert controls.notices == []


@pytest.mark.parametrize(
    ("choice", "anthropic_choice"),
    [
        ("auto", {"type": "auto", "disable_parallel_tool_use": True}),
        ("required", {"type": "any", "disable_parallel_tool_use": True}),
        ({"type": "function", "name": "mul"}, {"type": "tool", "disable_parallel_tool_use": True, "name": "mul"}),
    ],
)
def test_one_call_at_a_time_on_claude_moves_the_choice_into_anthropic_s_own_field(choice, anthropic_choice):
    controls = ask(CLAUDE, choice, parallel=False)
    assert controls.tool_config == {"tools": DECLARED}
    assert controls.additional_fields == {"tool_choice": anthropic_choice}
    assert controls.notices == []


@pytest.mark.parametrize("parallel", [None, True])
def test_parallel_calls_not_refused_leave_claude_s_choice_in_converse(parallel):
    controls = ask(CLAUDE, "required", parallel=parallel)
    assert controls.tool_config == {"tools": DECLARED, "toolChoice": {"any": {}}}
    assert controls.additional_fields is None


def test_one_call_at_a_time_elsewhere_is_a_notice():
    controls = ask(NOVA, parallel=False)
    assert controls.tool_config == {"tools": DECLARED, "toolChoice": {"auto": {}}}
    assert controls.additional_fields is None
    assert controls.notices == [
        f"{NOVA} cannot be told to make one call at a time on Bedrock (parallel_tool_calls=False was "
        "not sent); every call it returns is run in order"
    ]


def test_a_tool_without_a_description_is_described_by_its_name_and_examples_follow():
    spec = {"name": "ping", "input_examples": [{"n": 1}]}
    assert bedrock_tool(spec) == {
        "toolSpec": {
            "name": "ping",
            "description": 'ping\n\nExamples of arguments:\n{"n": 1}',
            "inputSchema": {"json": {"type": "object"}},
        }
    }


def test_a_strict_tool_is_sent_closed_with_strict_true():
    spec = {**ADD, "strict": True, "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}
    assert bedrock_tool(spec)["toolSpec"]["strict"] is True
    assert bedrock_tool(spec)["toolSpec"]["inputSchema"]["json"]["additionalProperties"] is False
    assert "strict" not in bedrock_tool(ADD)["toolSpec"]


@pytest.mark.parametrize(
    ("model_id", "strict"),
    [
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", True),
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", True),
        ("anthropic.claude-3-haiku-20240307-v1:0", False),
        ("anthropic.claude-v2:1", False),
        ("amazon.nova-pro-v1:0", False),
        ("meta.anthropic.claude-sonnet-4-5", False),
    ],
)
def test_strict_tools_are_taken_by_the_claude_models_that_take_them_on_anthropic(model_id, strict):
    assert takes_strict(model_id) is strict
