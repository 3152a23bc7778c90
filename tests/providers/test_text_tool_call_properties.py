"""Property tests of the text tool-call reader (models/_text_tool_calls.py), whose input —
whatever a local model prints — is unbounded: calls written as Hermes blocks between any
text read back exactly, in order; nothing the model writes makes a call to a tool off the
menu, raises, or loses text; a reply already holding calls is never read again."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import openprogram_jupyter as op
from openprogram_jupyter.models._text_tool_calls import read_text_tool_calls, written_reply

PROPERTIES = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

MENU = ("add", "get-weather", "mul")
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
arguments = st.dictionaries(st.text(max_size=6), json_values, max_size=3)
# Text around the blocks: anything but a tag of its own (a stray "<tool_call>" is the next test's).
prose = st.text(max_size=30).filter(lambda t: "<tool_call>" not in t and "</tool_call>" not in t)
# Text a model may print: prose, tags and call-shaped JSON, in any order.
fragments = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["<tool_call>", "</tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "{", "}", "[", "]", '"', ","]),
    st.builds(
        lambda name, args, key: json.dumps({"name": name, key: args}),
        st.sampled_from([*MENU, "rm", "", "ADD"]),
        arguments,
        st.sampled_from(["arguments", "parameters"]),
    ),
)


def _message(text: str) -> op.AssistantMessage:
    return op.AssistantMessage(content=[op.TextContent(text=text)])


def _shape(message: op.AssistantMessage) -> list:
    return [(b.name, b.arguments) if isinstance(b, op.ToolCall) else b.text for b in message.content]


@PROPERTIES
@given(
    calls=st.lists(st.tuples(st.sampled_from(MENU), arguments, st.booleans()), min_size=1, max_size=4),
    texts=st.lists(prose, min_size=5, max_size=5),
)
def test_hermes_blocks_between_any_text_read_back_as_the_calls_in_order(calls, texts):
    parts, expected = [], []
    for (name, args, wrapped), before in zip(calls, texts, strict=False):
        body = {"name": name, "arguments": args}
        body = {"type": "function", "function": body} if wrapped else body
        parts += [before, f"<tool_call>{json.dumps(body)}</tool_call>"]
        expected += [before.strip(), (name, args)]
    parts.append(texts[len(calls)])
    expected.append(texts[len(calls)].strip())
    message = _message("".join(parts))
    assert read_text_tool_calls(message, MENU) == len(calls)
    assert _shape(message) == [piece for piece in expected if piece != ""]
    assert message.stop_reason == "toolUse"
    again = _message(written_reply(message))  # what is sent back reads as the same calls
    assert read_text_tool_calls(again, MENU) == len(calls)
    assert [c.name for c in again.tool_calls] == [c.name for c in message.tool_calls]


@PROPERTIES
@given(pieces=st.lists(fragments, max_size=8))
def test_whatever_is_written_only_menu_tools_are_called_and_no_text_is_invented(pieces):
    text = "".join(pieces)
    message = _message(text)
    count = read_text_tool_calls(message, MENU)
    assert count == len(message.tool_calls)
    for tool_call in message.tool_calls:
        assert tool_call.name in MENU and isinstance(tool_call.arguments, dict)
        assert tool_call.provider_data["text_call"] in text or text.strip().startswith(("[", "<|", "[TOOL"))
    if count == 0:
        assert _shape(message) == [text] and message.stop_reason != "toolUse"
    else:
        for block in message.content:  # every text piece left is a part of what was written
            if isinstance(block, op.TextContent):
                assert block.text and block.text in text
    assert read_text_tool_calls(message, MENU) == 0  # a reply holding calls is not read again


@PROPERTIES
@given(pieces=st.lists(fragments, max_size=8))
def test_no_call_is_read_without_a_menu_or_for_a_name_not_on_it(pieces):
    text = "".join(pieces)
    for menu in ((), ("rm",)):
        message = _message(text)
        count = read_text_tool_calls(message, menu)
        assert all(c.name in menu for c in message.tool_calls) and count == len(message.tool_calls)
        if not menu:
            assert count == 0 and _shape(message) == [text]
