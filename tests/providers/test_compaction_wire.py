"""A provider's own compaction, exactly: the notice's words when the threshold or the
counts are not known, the least trigger Anthropic takes, each compaction of a reply
noticed, and the usage Anthropic reports in ``message_start`` read like that of
``message_delta`` — from raw events through the real SDK clients against the loopback
server (what mutmut found unpinned in models/_provider_compaction.py; docs/testing.md,
"Mutation tool")."""

from __future__ import annotations

from fakeserver import Turn
from fakeserver.wire import sse

from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models._provider_compaction import anthropic_context_management, compaction_notice
from openprogram_jupyter.models.base import ModelRequest

from .cases import FAST_RETRY, SECRET, stream_once

ANTHROPIC = "anthropic:claude-sonnet-4-5"
RESPONSES = "openai-responses:gpt-4.1-mini"


def _event(kind: str, **fields: object) -> bytes:
    return sse({"type": kind, **fields}, event=kind)


async def _round(server, model_name: str, base_url: str, frames: list[bytes]):
    """The notices and the reply a round asking for compaction makes of these raw ``frames``."""
    model = resolve_model(model_name, api_key=SECRET, base_url=base_url)
    model.retry = FAST_RETRY
    server.script(Turn(raw_frames=frames))
    request = ModelRequest(messages=[UserMessage(content="go")], provider_compaction=80_000)
    updates, reply = await stream_once(model, request)
    assert reply.stop_reason == "stop", reply.error_message
    return [u.delta.removeprefix(f"{model_name}: ") for u in updates if u.kind == "notice"], reply


def test_the_notice_leaves_out_what_is_not_known():
    assert compaction_notice("X", None, None, None) == "X compacted the conversation itself, into an encrypted summary"
    assert compaction_notice("X", 1_000, "abc", 0) == (
        "X compacted the conversation itself past 1,000 tokens, into a summary of 3 characters; "
        "the request then counted 0 input tokens"
    )


def test_anthropic_takes_its_least_trigger_without_a_notice():
    edits, said = anthropic_context_management(50_000)
    assert (edits["edits"][0]["trigger"]["value"], said) == (50_000, [])
    assert anthropic_context_management(49_999)[0]["edits"][0]["trigger"]["value"] == 50_000


def _anthropic_compaction(index: int) -> list[bytes]:
    return [
        _event("content_block_start", index=index, content_block={"type": "compaction", "content": None}),
        _event("content_block_delta", index=index, delta={"type": "compaction_delta", "content": "Sum."}),
        _event("content_block_stop", index=index),
    ]


async def test_anthropic_s_counts_reported_only_at_the_message_s_start_are_read(server):
    iterations = [
        {"type": "compaction", "input_tokens": 900, "output_tokens": 120},
        {"type": "message", "input_tokens": 2_345, "output_tokens": 7},
    ]
    start = {"usage": {"input_tokens": 2_345, "output_tokens": 1, "iterations": iterations}}
    frames = [
        _event("message_start", message=start),
        *_anthropic_compaction(0),
        _event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 7}),
        _event("message_stop"),
    ]
    said, reply = await _round(server, ANTHROPIC, server.url, frames)
    assert said == [
        "Anthropic compacted the conversation itself past 80,000 tokens, into a summary of 4 characters; "
        "the request then counted 2,345 input tokens"
    ]
    assert reply.usage.total_tokens == 2_345 + 7 + 900 + 120


async def test_anthropic_s_compaction_without_iterations_says_no_count(server):
    frames = [
        _event("message_start", message={"usage": {"input_tokens": 10, "output_tokens": 1}}),
        *_anthropic_compaction(0),
        _event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 2}),
        _event("message_stop"),
    ]
    said, reply = await _round(server, ANTHROPIC, server.url, frames)
    assert said == ["Anthropic compacted the conversation itself past 80,000 tokens, into a summary of 4 characters"]
    assert reply.usage.total_tokens == 12


async def test_each_responses_compaction_item_is_noticed_and_no_count_said_without_usage(server):
    frames = [
        _event("response.output_item.done", item={"type": "compaction", "id": "cmp_1", "encrypted_content": "e1"}),
        _event("response.output_item.done", item={"type": "compaction", "id": "cmp_2", "encrypted_content": "e2"}),
        _event("response.completed", response={"status": "completed"}),
    ]
    said, _ = await _round(server, RESPONSES, server.openai_base_url, frames)
    notice = "OpenAI Responses compacted the conversation itself past 80,000 tokens, into an encrypted summary"
    assert said == [notice, notice]


def _anthropic_round(spent: list[dict], block: dict | None = None) -> list[bytes]:
    block = block or {"type": "compaction", "content": "Sum."}
    return [
        _event("message_start", message={"usage": {"input_tokens": 10, "output_tokens": 1}}),
        _event("content_block_start", index=0, content_block=block),
        _event("content_block_stop", index=0),
        _event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 2, "iterations": spent}),
        _event("message_stop"),
    ]


async def test_the_count_after_anthropic_s_compaction_is_the_sampling_that_followed_it_if_any(server):
    before = {"type": "message", "input_tokens": 100, "output_tokens": 3}
    compaction = {"type": "compaction", "input_tokens": 900, "output_tokens": 120}
    after = {"type": "message", "input_tokens": 2_345, "output_tokens": 2}
    said, _ = await _round(server, ANTHROPIC, server.url, _anthropic_round([before, compaction, after]))
    assert said[0].endswith("; the request then counted 2,345 input tokens")
    said, _ = await _round(server, ANTHROPIC, server.url, _anthropic_round([before, compaction]))
    assert said == ["Anthropic compacted the conversation itself past 80,000 tokens, into a summary of 4 characters"]


async def test_a_failed_anthropic_compaction_or_a_summary_that_is_no_text_is_not_measured(server):
    for content in (None, 42):
        failed = {"type": "compaction", "content": content, "encrypted_content": "e"}
        said, _ = await _round(server, ANTHROPIC, server.url, _anthropic_round([], failed))
        assert said == ["Anthropic compacted the conversation itself past 80,000 tokens, into an encrypted summary"]


async def test_an_unpriced_model_s_compaction_adds_its_tokens_and_leaves_the_cost_unknown(server):
    compaction = {"type": "compaction", "input_tokens": 900, "output_tokens": 120}
    frames = _anthropic_round([compaction, {"type": "message", "input_tokens": 10, "output_tokens": 2}])
    _, reply = await _round(server, "anthropic:claude-nobody-knows-1", server.url, frames)
    assert (reply.usage.total_tokens, reply.usage.cost) == (10 + 2 + 900 + 120, None)
