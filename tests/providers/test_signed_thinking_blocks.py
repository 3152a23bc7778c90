"""Anthropic's thinking blocks and Bedrock's reasoning blocks stay apart as they came: each
of the reply's blocks goes back in the next request as its own block, with its signature
(or a redacted block's data), in order — a block that follows another one of its kind
never joins it. Replies are made by the real SDK clients of raw frames the loopback
server sent; the next request is what the server received."""

from __future__ import annotations

import base64
import json

from fakeserver import Turn
from fakeserver.wire import sse
from fakeserver.wire_bedrock import event_frame

from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models.base import ModelRequest

from .cases import FAST_RETRY, SECRET, stream_once

GO = UserMessage(content="go")
NEXT = UserMessage(content="and then?")


async def _sent_back(server, model_name: str, frames: list[bytes]) -> list[dict]:
    """The assistant message the round after a reply made of ``frames`` sends for it."""
    model = resolve_model(model_name, api_key=SECRET, base_url=server.url)
    model.retry = FAST_RETRY
    server.script(Turn(raw_frames=frames), Turn(text="ok"))
    _, reply = await stream_once(model, ModelRequest(messages=[GO]))
    assert reply.stop_reason == "stop", reply.error_message
    _, answer = await stream_once(model, ModelRequest(messages=[GO, reply, NEXT]))
    assert answer.stop_reason == "stop", answer.error_message
    return server.requests[-1].body["messages"][1]["content"]


# -- Anthropic --------------------------------------------------------------------------


def _anthropic(kind: str, **fields: object) -> bytes:
    return sse({"type": kind, **fields}, event=kind)


def _anthropic_block(index: int, block: dict, *deltas: dict) -> list[bytes]:
    return [
        _anthropic("content_block_start", index=index, content_block=block),
        *(_anthropic("content_block_delta", index=index, delta=d) for d in deltas),
        _anthropic("content_block_stop", index=index),
    ]


def _anthropic_thinking(index: int, text: str, signature: str) -> list[bytes]:
    return _anthropic_block(
        index,
        {"type": "thinking", "thinking": "", "signature": ""},
        {"type": "thinking_delta", "thinking": text},
        {"type": "signature_delta", "signature": signature},
    )


def _anthropic_reply(*blocks: list[bytes]) -> list[bytes]:
    start = _anthropic("message_start", message={"usage": {"input_tokens": 5, "output_tokens": 1}})
    end = [
        _anthropic("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 9}),
        _anthropic("message_stop"),
    ]
    return [start, *(frame for block in blocks for frame in block), *end]


async def test_anthropic_two_thinking_blocks_in_a_row_go_back_as_two_with_their_own_signatures(server):
    frames = _anthropic_reply(
        _anthropic_thinking(0, "First.", "sig-one"),
        _anthropic_thinking(1, "Second.", "sig-two"),
        _anthropic_block(2, {"type": "text", "text": "Done."}),
    )
    assert await _sent_back(server, "anthropic:claude-sonnet-4-5", frames) == [
        {"type": "thinking", "thinking": "First.", "signature": "sig-one"},
        {"type": "thinking", "thinking": "Second.", "signature": "sig-two"},
        {"type": "text", "text": "Done."},
    ]


async def test_anthropic_a_thinking_block_after_a_redacted_one_leaves_the_redacted_one_whole(server):
    frames = _anthropic_reply(
        _anthropic_block(0, {"type": "redacted_thinking", "data": "enc-7"}),
        _anthropic_thinking(1, "Then this.", "sig-after"),
        _anthropic_block(2, {"type": "text", "text": "Done."}),
    )
    assert await _sent_back(server, "anthropic:claude-sonnet-4-5", frames) == [
        {"type": "redacted_thinking", "data": "enc-7"},
        {"type": "thinking", "thinking": "Then this.", "signature": "sig-after"},
        {"type": "text", "text": "Done."},
    ]


# -- Bedrock ----------------------------------------------------------------------------


def _bedrock(kind: str, **payload: object) -> bytes:
    headers = {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}
    return event_frame(headers, json.dumps(payload).encode())


def _bedrock_reasoning(index: int, text: str, signature: str) -> list[bytes]:
    return [
        _bedrock("contentBlockDelta", contentBlockIndex=index, delta={"reasoningContent": {"text": text}}),
        _bedrock("contentBlockDelta", contentBlockIndex=index, delta={"reasoningContent": {"signature": signature}}),
        _bedrock("contentBlockStop", contentBlockIndex=index),
    ]


async def test_bedrock_two_reasoning_blocks_in_a_row_go_back_as_two_with_their_own_signatures(server):
    frames = [
        _bedrock("messageStart", role="assistant"),
        *_bedrock_reasoning(0, "First.", "sig-one"),
        *_bedrock_reasoning(1, "Second.", "sig-two"),
        _bedrock("contentBlockDelta", contentBlockIndex=2, delta={"text": "Done."}),
        _bedrock("contentBlockStop", contentBlockIndex=2),
        _bedrock("messageStop", stopReason="end_turn"),
        _bedrock("metadata", usage={"inputTokens": 5, "outputTokens": 9}, metrics={"latencyMs": 1}),
    ]
    assert await _sent_back(server, "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0", frames) == [
        {"reasoningContent": {"reasoningText": {"text": "First.", "signature": "sig-one"}}},
        {"reasoningContent": {"reasoningText": {"text": "Second.", "signature": "sig-two"}}},
        {"text": "Done."},
    ]


def _bedrock_redacted(index: int, *pieces: bytes) -> list[bytes]:
    """A redacted reasoning block: its bytes base64 in the event's JSON, as botocore reads them."""
    return [
        *(
            _bedrock(
                "contentBlockDelta",
                contentBlockIndex=index,
                delta={"reasoningContent": {"redactedContent": base64.b64encode(piece).decode()}},
            )
            for piece in pieces
        ),
        _bedrock("contentBlockStop", contentBlockIndex=index),
    ]


def _bedrock_reply(*blocks: list[bytes], last_index: int) -> list[bytes]:
    return [
        _bedrock("messageStart", role="assistant"),
        *(frame for block in blocks for frame in block),
        _bedrock("contentBlockDelta", contentBlockIndex=last_index, delta={"text": "Done."}),
        _bedrock("contentBlockStop", contentBlockIndex=last_index),
        _bedrock("messageStop", stopReason="end_turn"),
        _bedrock("metadata", usage={"inputTokens": 5, "outputTokens": 9}, metrics={"latencyMs": 1}),
    ]


def _redacted(data: bytes) -> dict:
    """A redacted reasoning block as the server receives it back: its bytes base64 in the JSON body."""
    return {"reasoningContent": {"redactedContent": base64.b64encode(data).decode()}}


ENCRYPTED = b"\x00\xffenc-7\x80"  # not UTF-8: bytes go back as bytes, never as text


async def test_bedrock_a_redacted_reasoning_block_goes_back_with_its_bytes_in_its_place(server):
    frames = _bedrock_reply(
        _bedrock_redacted(0, ENCRYPTED), _bedrock_reasoning(1, "Then this.", "sig-after"), last_index=2
    )
    assert await _sent_back(server, "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0", frames) == [
        _redacted(ENCRYPTED),
        {"reasoningContent": {"reasoningText": {"text": "Then this.", "signature": "sig-after"}}},
        {"text": "Done."},
    ]


async def test_bedrock_two_redacted_blocks_in_a_row_stay_two_and_a_block_s_pieces_join(server):
    frames = _bedrock_reply(
        _bedrock_reasoning(0, "First.", "sig-one"),
        _bedrock_redacted(1, b"one-", b"\xfe\x01"),
        _bedrock_redacted(2, b"two"),
        last_index=3,
    )
    assert await _sent_back(server, "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0", frames) == [
        {"reasoningContent": {"reasoningText": {"text": "First.", "signature": "sig-one"}}},
        _redacted(b"one-\xfe\x01"),
        _redacted(b"two"),
        {"text": "Done."},
    ]
