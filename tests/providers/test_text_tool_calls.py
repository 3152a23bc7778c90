"""Calls a model writes as text (local models): read into real calls only with
``text_tool_calls=True``, only for menu tools and only as whole blocks."""

from __future__ import annotations

import json

import pytest
from fakeserver import Turn

import openprogram_jupyter as op
from openprogram_jupyter.models._text_tool_calls import read_text_tool_calls

from .cases import CASES, make_tools

OPENAI = next(case for case in CASES if case.prefix == "openai")
MENU = {"add", "mul"}
HERMES = '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>'


def read(text: str) -> op.AssistantMessage:
    message = op.AssistantMessage(content=[op.TextContent(text=text)])
    read_text_tool_calls(message, MENU)
    return message


def shape(message: op.AssistantMessage) -> list:
    return [(b.name, b.arguments) if isinstance(b, op.ToolCall) else b.text for b in message.content]


def test_a_hermes_block_becomes_a_call_and_the_text_around_it_stays_text():
    message = read(
        f"Let me add.\n{HERMES}\nThen multiply: "
        '<tool_call>{"name": "mul", "arguments": "{\\"a\\": 5, \\"b\\": 2}"}</tool_call>'
    )
    assert shape(message) == ["Let me add.", ("add", {"a": 2, "b": 3}), "Then multiply:", ("mul", {"a": 5, "b": 2})]
    assert message.stop_reason == "toolUse"
    assert message.tool_calls[0].provider_data == {"text_call": HERMES}


def test_llama_and_mistral_replies_that_are_only_calls_become_calls():
    assert shape(read('<|python_tag|>{"name": "add", "parameters": {"a": 1, "b": 1}}')) == [("add", {"a": 1, "b": 1})]
    assert shape(read('[{"name": "add", "parameters": {"a": 1, "b": 2}}, {"name": "mul", "arguments": {}}]')) == [
        ("add", {"a": 1, "b": 2}),
        ("mul", {}),
    ]
    assert shape(read('[TOOL_CALLS] [{"name": "mul", "arguments": {"a": 3, "b": 3}}]')) == [("mul", {"a": 3, "b": 3})]


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>',  # not on the menu
        '<tool_call>{"name": "add", "arguments": {"a": 1,</tool_call>',  # broken JSON
        '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}',  # never closed
        '<tool_call>{"name": "add", "arguments": [1, 2]}</tool_call>',  # arguments not an object
        'As JSON: {"name": "add", "parameters": {"a": 1, "b": 2}}',  # a call object inside prose
        '{"name": "add", "parameters": {"a": 1}} and then some',  # not the whole reply
        '[{"name": "add", "parameters": {}}, {"name": "rm", "parameters": {}}]',  # one of them off the menu
    ],
)
def test_what_is_not_a_whole_block_for_a_menu_tool_stays_text(text):
    message = read(text)
    assert shape(message) == [text] and message.stop_reason == "stop"


def test_unclosed_tags_are_read_in_one_pass_not_once_per_tag():
    """A reply of many unclosed tags (a model looping, or an adversarial one) took 16 s at
    176 KB with a lazy regex, and grew with the square of its length: reading happens on
    the event loop, where it blocked Stop. Linear now: 1 MB of unclosed tags reads in a few
    milliseconds here; a parse that scans once per tag takes tens of seconds at that size
    (at 260 KB it still fit under the bound) — the bound is generous enough for a loaded
    machine and still tells one from the other."""
    import time

    def seconds(copies: int) -> float:
        text = "<tool_call>x " * copies
        started = time.perf_counter()
        message = read(text)
        assert shape(message) == [text]
        return time.perf_counter() - started

    assert seconds(80_000) < 2.0


def test_a_block_opened_inside_another_runs_to_the_first_closing_tag_after_it():
    text = f"<tool_call>broken {HERMES} tail"
    assert shape(read(text)) == [text]  # the first block is "broken <tool_call>…": not JSON
    assert shape(read(f"{HERMES} <tool_call>never closed")) == [("add", {"a": 2, "b": 3}), "<tool_call>never closed"]


async def test_a_text_call_runs_the_tool_with_text_tool_calls_and_goes_back_as_written(server):
    server.script(Turn(text=f"I will add. {HERMES}"), Turn(text="The sum is 5."))
    runtime = OPENAI.runtime(server, text_tool_calls=True)
    run = await runtime.arun("Add 2 and 3.", tools=make_tools())

    assert server.rejections == []
    assert run.stop_reason == "stop" and run.text == "The sum is 5."
    assert [(r.tool_name, r.text) for r in run.tool_results] == [("add", "5.0")]
    sent = server.requests[1].body["messages"]
    assistant, user = sent[-2], sent[-1]
    assert assistant == {"role": "assistant", "content": f"I will add.\n{HERMES}"}
    assert user["role"] == "user" and user["content"].startswith("<tool_response>")
    assert json.loads(user["content"].split("\n")[1]) == {"name": "add", "content": "5.0"}
    assert not any(m["role"] == "tool" or "tool_calls" in m for m in sent)


async def test_without_text_tool_calls_the_same_reply_is_plain_text(server):
    server.script(Turn(text=f"I will add. {HERMES}"))
    run = await OPENAI.runtime(server).arun("Add 2 and 3.", tools=make_tools())
    assert run.stop_reason == "stop" and run.tool_results == []
    assert run.text == f"I will add. {HERMES}" and len(server.requests) == 1


async def test_a_run_option_overrides_the_runtime_setting(server):
    server.script(Turn(text=HERMES))
    run = await OPENAI.runtime(server, text_tool_calls=True).arun("Add.", tools=make_tools(), text_tool_calls=False)
    assert run.tool_results == [] and run.text == HERMES
