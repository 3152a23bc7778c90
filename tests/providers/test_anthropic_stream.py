"""Anthropic Messages' stream, exactly: how each kind of event is read — text and thinking
in a block's start and its deltas, redacted thinking, a call's argument fragments and its
end, events that are no object, the end marker, the stop reason and the counts (what
mutmut found unpinned in ``AnthropicModel._attempt``; docs/testing.md, "Mutation tool").
Each reply is made by the real SDK client of raw frames the loopback server sent."""

from __future__ import annotations

from fakeserver import Turn
from fakeserver.wire import sse

from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models.base import ModelRequest

from .cases import FAST_RETRY, SECRET, make_tools, stream_once

TOOLS = [t.spec for t in make_tools()]


def _event(kind: str, **fields: object) -> bytes:
    return sse({"type": kind, **fields}, event=kind)


def _start(usage: dict | None = None) -> bytes:
    return _event("message_start", message={"usage": usage or {"input_tokens": 5, "output_tokens": 1}})


def _end(stop: str | None = "end_turn", **usage: object) -> list[bytes]:
    delta = {"stop_reason": stop} if stop is not None else {}
    return [_event("message_delta", delta=delta, usage=usage), _event("message_stop")]


def _block(index: int, block: dict, *deltas: dict) -> list[bytes]:
    return [
        _event("content_block_start", index=index, content_block=block),
        *(_event("content_block_delta", index=index, delta=d) for d in deltas),
        _event("content_block_stop", index=index),
    ]


async def _reply_to(server, *frames: bytes):
    """The updates and reply a round makes of these raw stream ``frames``."""
    model = resolve_model("anthropic:claude-sonnet-4-5", api_key=SECRET, base_url=server.url)
    model.retry = FAST_RETRY
    server.script(Turn(raw_frames=list(frames)))
    return await stream_once(model, ModelRequest(messages=[UserMessage(content="go")], tools=TOOLS))


async def test_text_and_thinking_in_a_block_s_start_are_read_as_well_as_in_its_deltas(server):
    _, reply = await _reply_to(
        server,
        _start(),
        *_block(
            0,
            {"type": "thinking", "thinking": "First, "},
            {"type": "thinking_delta", "thinking": "think."},
            {"type": "signature_delta", "signature": "sig-9"},
        ),
        *_block(1, {"type": "text", "text": "Hello"}, {"type": "text_delta", "text": ", world."}),
        *_end(),
    )
    assert reply.stop_reason == "stop", reply.error_message
    thinking, text = reply.content
    assert (thinking.thinking, thinking.signature) == ("First, think.", "sig-9")
    assert text.text == "Hello, world."


async def test_redacted_thinking_is_kept_with_nothing_to_show_and_sent_back_unchanged(server):
    _, reply = await _reply_to(
        server,
        _start(),
        *_block(0, {"type": "redacted_thinking", "data": "enc-7"}),
        *_block(1, {"type": "text", "text": "Hi."}),
        *_end(),
    )
    thinking, _text = reply.content
    assert thinking.thinking == "" and thinking.provider_data == {"redacted_thinking": "enc-7"}


async def test_a_call_s_arguments_stream_as_fragments_and_an_empty_fragment_adds_nothing(server):
    updates, reply = await _reply_to(
        server,
        _start(),
        *_block(
            0,
            {"type": "tool_use", "id": "toolu_9", "name": "add", "input": {}},
            {"type": "input_json_delta", "partial_json": '{"a": 1'},
            {"type": "input_json_delta", "partial_json": ""},
            {"type": "input_json_delta"},
            {"type": "input_json_delta", "partial_json": ', "b": 2}'},
        ),
        *_end("tool_use"),
    )
    assert [u.delta for u in updates if u.kind == "toolcall_delta"] == ['{"a": 1', ', "b": 2}']
    (call,) = reply.content
    assert (call.id, call.name, call.arguments) == ("toolu_9", "add", {"a": 1, "b": 2})
    assert [u.kind for u in updates if u.kind.startswith("toolcall")] == [
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
    ]


async def test_argument_fragments_of_a_block_that_is_no_call_are_ignored(server):
    _, reply = await _reply_to(
        server,
        _start(),
        *_block(
            0,
            {"type": "text", "text": ""},
            {"type": "text_delta", "text": "Hi."},
            {"type": "input_json_delta", "partial_json": "{}"},
        ),
        *_end(),
    )
    assert (reply.stop_reason, reply.error_message) == ("stop", None)
    assert [(b.type, b.text) for b in reply.content] == [("text", "Hi.")]


async def test_a_call_whose_block_never_stops_still_ends_before_the_reply(server):
    updates, reply = await _reply_to(
        server,
        _start(),
        _event("content_block_start", index=0, content_block={"type": "tool_use", "id": "toolu_1", "name": "add"}),
        _event("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": '{"a": 1, "b": 2}'}),
        *_end("tool_use"),
    )
    assert reply.stop_reason == "toolUse", reply.error_message
    assert [u.kind for u in updates].count("toolcall_end") == 1
    assert reply.content[0].arguments == {"a": 1, "b": 2}


async def test_events_that_are_not_objects_are_skipped_and_reading_goes_on(server):
    _, reply = await _reply_to(
        server,
        _start(),
        sse([1, 2], event="content_block_delta"),
        *_block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "Still here."}),
        *_end(),
    )
    assert (reply.stop_reason, reply.text) == ("stop", "Still here.")


async def test_a_stream_without_message_stop_is_an_error_naming_it(server):
    _, reply = await _reply_to(
        server, _start(), *_block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "Half"}), _end()[0]
    )
    assert reply.stop_reason == "error"
    assert "the stream ended before message_stop (connection closed early)" in (reply.error_message or "")


async def test_a_reply_without_a_stop_reason_ends_as_a_finished_turn_and_the_last_reason_counts(server):
    updates, reply = await _reply_to(server, _start(), *_block(0, {"type": "text", "text": "Hi."}), *_end(None))
    assert (reply.stop_reason, reply.error) == ("stop", None)
    assert [u.delta for u in updates if u.kind == "notice"] == []  # no reason this version does not know
    _, reply = await _reply_to(
        server,
        _start(),
        *_block(0, {"type": "text", "text": "Hi."}),
        _event("message_delta", delta={"stop_reason": "max_tokens"}, usage={}),
        *_end(None),
    )
    assert reply.stop_reason == "length"


async def test_the_counts_are_the_last_whole_numbers_reported_and_others_are_ignored(server):
    start = {"input_tokens": 100, "output_tokens": 1, "cache_read_input_tokens": 30, "cache_creation_input_tokens": 20}
    _, reply = await _reply_to(
        server,
        _start(start),
        *_block(0, {"type": "text", "text": "Hi."}),
        _event(
            "message_delta", delta={}, usage={"output_tokens": 5, "input_tokens": True, "cache_read_input_tokens": "9"}
        ),
        *_end(output_tokens=12, cache_creation_input_tokens=25),
    )
    usage = reply.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (100, 12, 30, 25)


async def test_blocks_that_start_empty_stream_only_their_deltas(server):
    updates, reply = await _reply_to(
        server,
        _start(),
        *_block(
            0,
            {"type": "thinking", "thinking": ""},
            {"type": "thinking_delta", "thinking": "A"},
            {"type": "signature_delta", "signature": "sig"},
        ),
        *_block(1, {"type": "text", "text": ""}, {"type": "text_delta", "text": "B"}),
        *_end(),
    )
    streamed = [(u.kind, u.delta) for u in updates if u.kind in ("text_delta", "thinking_delta")]
    assert streamed == [("thinking_delta", "A"), ("thinking_delta", ""), ("text_delta", "B")]
    assert [b.type for b in reply.content] == ["thinking", "text"]


async def test_a_reply_that_reports_no_usage_counts_no_tokens(server):
    _, reply = await _reply_to(
        server,
        _event("message_start", message={}),
        *_block(0, {"type": "text", "text": "Hi."}),
        _event("message_delta", delta={"stop_reason": "end_turn"}),
        _event("message_stop"),
    )
    assert (reply.stop_reason, reply.text) == ("stop", "Hi.")
    usage = reply.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens) == (0, 0, 0, 0, 0)


async def test_a_call_ends_when_its_block_stops_before_the_next_block_streams(server):
    updates, reply = await _reply_to(
        server,
        _start(),
        *_block(
            0,
            {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}},
            {"type": "input_json_delta", "partial_json": '{"a": 1, "b": 2}'},
        ),
        *_block(1, {"type": "text", "text": ""}, {"type": "text_delta", "text": "Adding."}),
        *_end("tool_use"),
    )
    kinds = [u.kind for u in updates if u.kind.startswith(("toolcall", "text"))]
    assert kinds == ["toolcall_start", "toolcall_delta", "toolcall_end", "text_delta"]
    assert [b.type for b in reply.content] == ["toolCall", "text"]
