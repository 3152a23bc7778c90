"""The edges of calls written as text (``models/_text_tool_calls``): a call with no or empty
arguments, the ids they get, and how the turn goes back to a server that did not parse it."""

from __future__ import annotations

import re

from fakeserver import Turn

import openprogram_jupyter as op
from openprogram_jupyter.models._text_tool_calls import read_text_tool_calls, tool_responses_text, written_reply

from .cases import CASES, make_tools

OPENAI = next(case for case in CASES if case.prefix == "openai")

MENU = {"add", "now"}


def read(text: str) -> op.AssistantMessage:
    message = op.AssistantMessage(content=[op.TextContent(text=text)])
    read_text_tool_calls(message, MENU)
    return message


def test_a_call_without_arguments_or_with_an_empty_string_is_a_call_with_none():
    for text in (
        '<tool_call>{"name": "now"}</tool_call>',
        '<tool_call>{"name": "now", "arguments": ""}</tool_call>',
        '<tool_call>{"name": "now", "arguments": "  "}</tool_call>',
        '{"name": "now"}',
    ):
        [call] = read(text).tool_calls
        assert (call.name, call.arguments) == ("now", {}), text


def test_each_call_read_from_text_gets_its_own_call_id():
    message = read('<tool_call>{"name": "now"}</tool_call> <tool_call>{"name": "now"}</tool_call>')
    ids = [call.id for call in message.tool_calls]
    assert all(re.fullmatch(r"call_[0-9a-f]{12}", call_id or "") for call_id in ids), ids
    assert len(set(ids)) == 2


def test_a_call_not_read_from_text_goes_back_as_a_tool_call_block():
    native = op.ToolCall(name="add", arguments={"a": 1, "b": 2}, id="call_1")
    message = op.AssistantMessage(content=[op.TextContent(text="Adding."), native])
    assert written_reply(message) == 'Adding.\n<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>'


def test_results_go_back_as_tool_response_blocks_one_a_line_with_their_text_unescaped():
    results = [
        op.ToolResultMessage(tool_call_id="call_1", tool_name="add", content=[op.TextContent(text="3")]),
        op.ToolResultMessage(tool_call_id="call_2", tool_name="now", content=[op.TextContent(text="café 12:00")]),
    ]
    assert tool_responses_text(results, ["3", "café 12:00"]) == (
        '<tool_response>\n{"name": "add", "content": "3"}\n</tool_response>\n'
        '<tool_response>\n{"name": "now", "content": "café 12:00"}\n</tool_response>'
    )


def test_a_thinking_block_stays_where_it_is_and_every_text_block_is_read():
    thinking = op.ThinkingContent(thinking="plan")
    message = op.AssistantMessage(
        content=[
            op.TextContent(text='<tool_call>{"name": "now"}</tool_call>'),
            thinking,
            op.TextContent(text="  then  "),
            op.TextContent(text='<tool_call>{"name": "add", "arguments": {"a": 1}}</tool_call>'),
        ]
    )
    assert read_text_tool_calls(message, MENU) == 2
    shape = [(b.name, b.arguments) if isinstance(b, op.ToolCall) else b for b in message.content]
    assert shape == [("now", {}), thinking, op.TextContent(text="  then  "), ("add", {"a": 1})]


def test_a_block_that_is_no_call_stays_text_and_the_blocks_after_it_are_still_read():
    off_menu = '<tool_call>{"name": "rm", "arguments": {}}</tool_call>'
    message = read(f'{off_menu} and <tool_call>{{"name": "now"}}</tool_call> done')
    shape = [b.name if isinstance(b, op.ToolCall) else b.text for b in message.content]
    assert shape == [f"{off_menu} and", "now", "done"]


async def test_a_native_call_with_another_providers_data_goes_back_as_a_native_call(server):
    server.script(Turn(text="Done."))
    earlier = [
        op.UserMessage(content="What time is it?"),
        op.AssistantMessage(
            content=[op.ToolCall(name="now", arguments={}, id="call_1", provider_data={"thought_signature": "c2ln"})]
        ),
        op.ToolResultMessage(tool_call_id="call_1", tool_name="now", content=[op.TextContent(text="12:00")]),
    ]
    runtime = OPENAI.runtime(server, text_tool_calls=True)
    await runtime.arun("And now?", tools=make_tools(), messages=earlier)
    sent = server.requests[0].body["messages"]
    assert [m["role"] for m in sent][-4:] == ["user", "assistant", "tool", "user"]
    assert sent[-3]["tool_calls"][0]["function"]["name"] == "now"
