"""OpenAI Responses, exactly: the input a later round sends for an earlier reply (its
reasoning items, text, calls and results), the request's fields, and how each kind of
stream event is read (what mutmut found unpinned in models/openai_responses.py;
docs/testing.md, "Mutation tool"). Asserted on what the loopback server received from
the real SDK client."""

from __future__ import annotations

import base64

from fakeserver import Call, Turn
from fakeserver.wire import sse

from openprogram_jupyter.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models._tool_search import RESPONSES_ITEM
from openprogram_jupyter.models.base import ModelRequest
from openprogram_jupyter.models.openai_responses import openai_responses_tool

from .cases import FAST_RETRY, SECRET, make_tools, stream_once

TOOLS = [t.spec for t in make_tools()]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake-image-bytes").decode()


def _model(server):
    model = resolve_model("openai-responses:gpt-4.1-mini", api_key=SECRET, base_url=server.openai_base_url)
    model.retry = FAST_RETRY
    return model


async def _sent_input(server, history: list) -> list[dict]:
    """The ``input`` a round with ``history`` sends (the round itself answers "ok")."""
    server.script(Turn(text="ok"))
    _, reply = await stream_once(_model(server), ModelRequest(messages=history, tools=TOOLS))
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    return server.requests[-1].body["input"]


def _thinking(text: str, **data: str) -> ThinkingContent:
    return ThinkingContent(thinking=text, provider_data=data or None)


async def test_a_reasoning_item_with_no_summary_goes_back_with_an_empty_summary(server):
    reasoning = _thinking("", reasoning_id="rs_1", encrypted_content="enc-1")
    sent = await _sent_input(server, [UserMessage(content="go"), AssistantMessage(content=[reasoning]), _again()])
    assert sent[1] == {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc-1"}


async def test_thinking_without_both_a_reasoning_id_and_its_encrypted_content_is_not_sent(server):
    half_kept = [
        _thinking("no id", encrypted_content="enc-2"),
        _thinking("no content", reasoning_id="rs_3"),
        _thinking("another provider's"),
        TextContent(text="Said."),
    ]
    sent = await _sent_input(server, [UserMessage(content="go"), AssistantMessage(content=half_kept), _again()])
    assert sent == [
        {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
        {"role": "assistant", "content": "Said."},
        {"role": "user", "content": [{"type": "input_text", "text": "and?"}]},
    ]


def _again() -> UserMessage:
    return UserMessage(content="and?")


def _event(kind: str, **fields: object) -> bytes:
    return sse({"type": kind, **fields}, event=kind)


async def _reply_to(server, *frames: bytes, request: ModelRequest | None = None):
    """The reply a round makes of these stream ``frames``."""
    server.script(Turn(raw_frames=list(frames)))
    request = request or ModelRequest(messages=[UserMessage(content="go")], tools=TOOLS)
    return await stream_once(_model(server), request)


async def test_a_completed_response_without_usage_counts_no_tokens(server):
    _, reply = await _reply_to(
        server,
        _event("response.output_text.delta", delta="Hi."),
        _event("response.completed", response={"status": "completed"}),
    )
    assert (reply.stop_reason, reply.text) == ("stop", "Hi.")
    assert (reply.usage.input, reply.usage.output, reply.usage.total_tokens) == (0, 0, 0)


async def test_an_incomplete_response_that_gives_no_reason_is_an_error_saying_so(server):
    _, reply = await _reply_to(
        server,
        _event("response.output_text.delta", delta="Half"),
        _event("response.incomplete", response={"status": "incomplete", "incomplete_details": None}),
    )
    assert (reply.stop_reason, reply.text, reply.error.kind) == ("error", "Half", "incomplete")
    assert reply.error_message == "openai-responses:gpt-4.1-mini: the response is incomplete (no reason given)"


async def test_a_response_cut_at_the_token_cap_still_counts_its_tokens(server):
    server.script(Turn(text="Once upon a", stop="length", input_tokens=40, output_tokens=9, cached_tokens=10))
    request = ModelRequest(messages=[UserMessage(content="go")], tools=TOOLS)
    _, reply = await stream_once(_model(server), request)
    assert (reply.stop_reason, reply.text) == ("length", "Once upon a")
    assert (reply.usage.input, reply.usage.cache_read, reply.usage.output) == (30, 10, 9)


async def test_a_refusal_streams_as_the_reply_s_text_and_raw_reasoning_as_its_thinking(server):
    _, reply = await _reply_to(
        server,
        _event("response.reasoning_text.delta", delta="They ask for "),
        _event("response.reasoning_summary_text.delta", delta="harm."),
        _event("response.refusal.delta", delta="I can't "),
        _event("response.output_text.delta", delta="help with that."),
        _event("response.completed", response={"status": "completed"}),
    )
    assert reply.stop_reason == "stop"
    assert [(block.type, getattr(block, "thinking", getattr(block, "text", None))) for block in reply.content] == [
        ("thinking", "They ask for harm."),
        ("text", "I can't help with that."),
    ]


async def test_a_call_s_argument_fragments_stream_as_updates_as_they_come(server):
    server.script(Turn(calls=[Call("add", {"a": 12, "b": 30}, id="call_1")], chunk_size=4))
    updates, reply = await stream_once(_model(server), ModelRequest(messages=[UserMessage(content="go")], tools=TOOLS))
    fragments = [u.delta for u in updates if u.kind == "toolcall_delta"]
    assert fragments == ['{"a"', ": 12", ', "b', '": 3', "0}"]
    assert reply.content[0].arguments == {"a": 12, "b": 30}


async def test_a_call_whose_arguments_come_only_in_its_finished_item_takes_them_from_there(server):
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add"}
    _, reply = await _reply_to(
        server,
        _event("response.output_item.added", item={**call, "arguments": ""}),
        _event("response.output_item.done", item={**call, "arguments": '{"a": 1, "b": 2}'}),
        _event("response.completed", response={"status": "completed"}),
    )
    assert reply.stop_reason == "toolUse", reply.error_message
    assert [(c.id, c.name, c.arguments) for c in reply.content] == [("call_1", "add", {"a": 1, "b": 2})]


async def test_compaction_and_search_items_are_kept_as_they_finished_not_as_they_started(server):
    compaction = {"type": "compaction", "id": "cmp_1"}
    search = {"type": "tool_search_call", "id": "ts_1", "call_id": "tsc_1", "execution": "server"}
    _, reply = await _reply_to(
        server,
        _event("response.output_item.added", item=compaction),
        _event("response.output_item.done", item={**compaction, "encrypted_content": "enc-1"}),
        _event("response.output_item.added", item={**search, "status": "in_progress"}),
        _event("response.output_item.done", item={**search, "status": "completed", "arguments": {"query": "x"}}),
        _event("response.completed", response={"status": "completed"}),
    )
    assert reply.stop_reason == "stop", reply.error_message
    assert [block.provider_data[RESPONSES_ITEM] for block in reply.content] == [
        {**compaction, "encrypted_content": "enc-1"},
        {**search, "status": "completed", "arguments": {"query": "x"}},
    ]


async def test_a_finished_call_item_that_never_started_is_left_out(server):
    call = {"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "add", "arguments": "{}"}
    _, reply = await _reply_to(
        server,
        _event("response.output_item.done", item=call),
        _event("response.output_text.delta", delta="Done."),
        _event("response.completed", response={"status": "completed"}),
    )
    assert (reply.stop_reason, reply.text, len(reply.content)) == ("stop", "Done.", 1)


async def test_a_failed_response_keeps_its_error_code_and_says_it_failed_when_it_gives_no_message(server):
    failed = {"status": "failed", "error": {"code": "invalid_prompt", "message": ""}}
    _, reply = await _reply_to(server, _event("response.failed", response=failed))
    assert (reply.stop_reason, reply.error.code, reply.error.retryable) == ("error", "invalid_prompt", False)
    assert reply.error_message == "openai-responses:gpt-4.1-mini failed, invalid_prompt: the response failed"


async def test_an_error_event_keeps_its_code_and_says_stream_error_when_it_gives_no_message(server):
    _, reply = await _reply_to(server, _event("response.output_text.delta", delta="Hi"), _event("error", code="bad"))
    assert (reply.stop_reason, reply.text, reply.error.code) == ("error", "Hi", "bad")
    assert reply.error_message == "openai-responses:gpt-4.1-mini failed, bad: stream error"


async def test_a_call_whose_item_never_finished_ends_with_its_streamed_arguments(server):
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add", "arguments": ""}
    _, reply = await _reply_to(
        server,
        _event("response.output_item.added", item=call),
        _event("response.function_call_arguments.delta", item_id="fc_1", delta='{"a": 5, '),
        _event("response.function_call_arguments.delta", item_id="fc_1", delta='"b": 6}'),
        _event("response.completed", response={"status": "completed"}),
    )
    assert reply.stop_reason == "toolUse", reply.error_message
    assert [(c.id, c.arguments) for c in reply.content] == [("call_1", {"a": 5, "b": 6})]


async def test_a_stream_that_ends_without_its_last_event_names_the_event_it_lacks(server):
    cut = Turn(raw_frames=[_event("response.output_text.delta", delta="Hal")])
    server.script(cut, cut, cut)
    _, reply = await stream_once(_model(server), ModelRequest(messages=[UserMessage(content="go")]))
    assert (reply.stop_reason, reply.text) == ("error", "Hal")
    assert reply.error_message == (
        "openai-responses:gpt-4.1-mini failed: the stream ended before response.completed (connection closed early)"
    )


async def test_a_round_s_whole_body_carries_the_model_system_prompt_controls_and_a_stateless_stream(server):
    server.script(Turn(text="ok"))
    request = ModelRequest(
        messages=[UserMessage(content="go")],
        system="Be brief.",
        tools=TOOLS[:1],
        tool_choice={"type": "function", "name": "add"},
        parallel_tool_calls=False,
        max_output_tokens=300,
    )
    updates, reply = await stream_once(_model(server), request)
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    assert not [u for u in updates if u.kind == "notice"]
    body = server.requests[-1].body
    assert body == {
        "model": "gpt-4.1-mini",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "go"}]}],
        "stream": True,
        "store": False,
        "instructions": "Be brief.",
        "tools": [openai_responses_tool(TOOLS[0])],
        "tool_choice": {"type": "function", "name": "add"},
        "parallel_tool_calls": False,
        "max_output_tokens": 300,
    }


async def test_the_second_round_sends_the_turn_as_text_calls_and_outputs_with_their_pictures(server):
    picture = ImageContent(data=PNG, mime_type="image/png")
    turn = AssistantMessage(
        content=[
            TextContent(text="Let me look."),
            ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2}),
            ToolCall(id="c2", name="mul", arguments={"a": 3}),
        ]
    )
    history = [
        UserMessage(content=[TextContent(text="go"), picture]),
        turn,
        ToolResultMessage(tool_call_id="c1", tool_name="add", content=[TextContent(text="3"), picture]),
        ToolResultMessage(tool_call_id="c2", tool_name="mul", content=[TextContent(text="Error: no b")], is_error=True),
    ]
    image = {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"}
    assert await _sent_input(server, history) == [
        {"role": "user", "content": [{"type": "input_text", "text": "go"}, image]},
        {"role": "assistant", "content": "Let me look."},
        {"type": "function_call", "call_id": "c1", "name": "add", "arguments": '{"a": 1, "b": 2}'},
        {"type": "function_call", "call_id": "c2", "name": "mul", "arguments": '{"a": 3}'},
        {"type": "function_call_output", "call_id": "c1", "output": [{"type": "input_text", "text": "3"}, image]},
        {"type": "function_call_output", "call_id": "c2", "output": "Error: no b"},
    ]
