"""Bedrock's Converse API, exactly: the request a round sends through boto3 (its address
and body: caps, sampling, system prompt, tools, thinking, cache points), the messages a
later round sends for an earlier reply (reasoning, text, tool uses, results, pictures),
and how each kind of converse-stream event is read (what mutmut found unpinned in
models/bedrock.py; docs/testing.md, "Mutation tool"). Asserted on what the loopback
server received from the real boto3 client, and on raw event-stream frames it sent."""

from __future__ import annotations

import base64
import json

import pytest
from fakeserver import Turn
from fakeserver.wire_bedrock import event_frame, exception_frame

import openprogram_jupyter as op
from openprogram_jupyter.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from openprogram_jupyter.jupyter._wire_view import round_summary
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models.base import ModelRequest
from openprogram_jupyter.models.bedrock import caches_prompts

from .cases import CASES, FAST_RETRY, SECRET, make_tools, stream_once

TOOLS = [t.spec for t in make_tools()]
RAW_PNG = b"\x89PNG\r\n\x1a\nfake-image-bytes"
PNG = base64.b64encode(RAW_PNG).decode()
CLAUDE = "anthropic.claude-sonnet-4-5-20250929-v1:0"
LLAMA = "meta.llama3-70b-instruct-v1:0"
GO = UserMessage(content="go")


def _model(server, model_id: str = CLAUDE, **options):
    model = resolve_model(f"bedrock:{model_id}", api_key=SECRET, base_url=server.url)
    model.retry = FAST_RETRY
    for name, value in options.items():
        setattr(model, name, value)
    return model


async def _round(server, request: ModelRequest, *turns: Turn, model_id: str = CLAUDE, **options):
    """One round of ``request`` answered by ``turns`` (else "ok"): the updates, the reply
    and the request the server received last."""
    server.script(*(turns or (Turn(text="ok"),)))
    updates, reply = await stream_once(_model(server, model_id, **options), request)
    return updates, reply, server.requests[-1]


def _event(kind: str, **payload: object) -> bytes:
    headers = {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}
    return event_frame(headers, json.dumps(payload).encode())


async def _raw(server, *frames: bytes):
    """The reply made of these event-stream frames."""
    _, reply, _ = await _round(server, ModelRequest(messages=[GO]), Turn(raw_frames=list(frames)))
    return reply


def _usage(**counts: int) -> bytes:
    return _event("metadata", usage=counts, metrics={"latencyMs": 1})


# -- the request ----------------------------------------------------------------------------


async def test_a_round_sends_the_lower_cap_sampling_system_prompt_and_tools_with_cache_points(server):
    request = ModelRequest(
        messages=[GO],
        system="Be brief.",
        tools=TOOLS[:1],
        max_output_tokens=300,
        temperature=0.5,
        stop_sequences=("END",),
    )
    _, reply, sent = await _round(server, request, max_tokens=500)
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    assert sent.path == "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream" and sent.model == CLAUDE
    assert sent.headers["authorization"] == f"Bearer {SECRET}"
    tool = sent.body["toolConfig"]["tools"][0]["toolSpec"]
    assert (tool["name"], tool["description"]) == ("add", TOOLS[0]["description"])
    assert sent.body == {
        "messages": [{"role": "user", "content": [{"text": "go"}, {"cachePoint": {"type": "default"}}]}],
        "inferenceConfig": {"maxTokens": 300, "temperature": 0.5, "stopSequences": ["END"]},
        "system": [{"text": "Be brief."}, {"cachePoint": {"type": "default"}}],
        "toolConfig": {
            "tools": [{"toolSpec": tool}, {"cachePoint": {"type": "default"}}],
            "toolChoice": {"auto": {}},
        },
    }


@pytest.mark.parametrize(("model_cap", "round_cap", "sent"), [(500, None, 500), (None, 300, 300), (200, 300, 200)])
async def test_the_output_cap_is_the_lower_of_the_model_s_and_the_round_s(server, model_cap, round_cap, sent):
    request = ModelRequest(messages=[GO], max_output_tokens=round_cap, prompt_cache=False)
    _, _, received = await _round(server, request, max_tokens=model_cap)
    assert received.body == {
        "messages": [{"role": "user", "content": [{"text": "go"}]}],
        "inferenceConfig": {"maxTokens": sent},
    }


async def test_a_round_without_caps_or_cache_sends_the_messages_alone(server):
    _, _, sent = await _round(server, ModelRequest(messages=[GO], prompt_cache=False))
    assert sent.body == {"messages": [{"role": "user", "content": [{"text": "go"}]}]}


async def test_thinking_raises_the_output_cap_to_the_budget_and_more_within_the_round_s_cap(server):
    _, _, sent = await _round(server, ModelRequest(messages=[GO], reasoning=2048, prompt_cache=False), max_tokens=8000)
    assert sent.body["inferenceConfig"] == {"maxTokens": 8000}
    assert sent.body["additionalModelRequestFields"] == {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    _, _, sent = await _round(server, ModelRequest(messages=[GO], reasoning=2048, prompt_cache=False), max_tokens=100)
    assert sent.body["inferenceConfig"] == {"maxTokens": 2048 + 1024}
    capped = ModelRequest(messages=[GO], reasoning=2048, max_output_tokens=2500, prompt_cache=False)
    _, _, sent = await _round(server, capped)
    assert sent.body["inferenceConfig"] == {"maxTokens": 2500}


async def test_thinking_with_a_forced_tool_sends_auto_and_says_so(server):
    request = ModelRequest(
        messages=[GO], tools=TOOLS, tool_choice={"type": "function", "name": "mul"}, reasoning=2048, prompt_cache=False
    )
    updates, reply, sent = await _round(server, request)
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    assert sent.body["toolConfig"]["toolChoice"] == {"auto": {}}
    assert sent.body["additionalModelRequestFields"] == {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    notices = [u.delta for u in updates if u.kind == "notice"]
    assert (
        f"bedrock:{CLAUDE}: with extended thinking Claude accepts only tool_choice auto or none; it was sent as auto"
        in notices
    ), notices


async def test_thinking_with_one_call_at_a_time_keeps_claude_s_own_choice_as_auto(server):
    request = ModelRequest(
        messages=[GO],
        tools=TOOLS,
        tool_choice="required",
        parallel_tool_calls=False,
        reasoning=2048,
        prompt_cache=False,
    )
    updates, _, sent = await _round(server, request)
    assert sent.body["additionalModelRequestFields"]["tool_choice"] == {
        "type": "auto",
        "disable_parallel_tool_use": True,
    }
    assert "toolChoice" not in sent.body["toolConfig"]
    assert any("accepts only tool_choice auto or none" in u.delta for u in updates if u.kind == "notice")


async def test_thinking_with_tool_choice_auto_says_nothing_about_it(server):
    request = ModelRequest(messages=[GO], tools=TOOLS, reasoning=2048, prompt_cache=False)
    updates, _, sent = await _round(server, request)
    assert sent.body["toolConfig"]["toolChoice"] == {"auto": {}}
    assert [u.delta for u in updates if u.kind == "notice"] == []


async def test_reasoning_is_not_sent_to_nova_which_takes_a_forced_tool_but_does_not_think_like_claude(server):
    request = ModelRequest(messages=[GO], reasoning=2048, prompt_cache=False)
    updates, _, sent = await _round(server, request, model_id="amazon.nova-pro-v1:0")
    assert "additionalModelRequestFields" not in sent.body and "inferenceConfig" not in sent.body
    assert [u.delta for u in updates if u.kind == "notice"] == [
        "bedrock:amazon.nova-pro-v1:0: reasoning is sent only to Claude models on Bedrock; it was not sent"
    ]


@pytest.mark.parametrize(
    ("model_id", "caches"),
    [
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", True),
        ("global.anthropic.claude-3-5-sonnet-20241022-v2:0", True),
        ("eu.anthropic.claude-3-5-sonnet-20240620-v1:0", False),
        ("anthropic.claude-instant-v1", False),
        ("apac.amazon.nova-pro-v1:0", True),
        ("amazon.titan-text-express-v1", False),
        ("us.meta.llama3-70b-instruct-v1:0", False),
    ],
)
def test_cache_points_go_to_claude_from_3_5_sonnet_v2_on_and_nova_in_any_region(model_id, caches):
    assert caches_prompts(model_id) is caches


# -- the history a later round sends -----------------------------------------------------


async def test_a_user_message_s_text_and_pictures_are_blocks_and_a_picture_bedrock_cannot_take_is_named(server):
    message = UserMessage(
        content=[
            TextContent(text="see"),
            TextContent(text="  "),
            ImageContent(data=PNG, mime_type="image/JPG"),
            ImageContent(data=PNG, mime_type="image/bmp"),
        ]
    )
    _, reply, sent = await _round(server, ModelRequest(messages=[message], prompt_cache=False))
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    assert sent.body["messages"] == [
        {
            "role": "user",
            "content": [
                {"text": "see"},
                {"image": {"format": "jpeg", "source": {"bytes": PNG}}},
                {"text": "(an image of type image/bmp was left out: Bedrock takes png, jpeg, gif, webp)"},
            ],
        }
    ]


async def test_a_turn_s_reasoning_text_tool_uses_and_results_go_back_as_converse_blocks(server):
    turn = AssistantMessage(
        model=f"bedrock:{CLAUDE}",
        content=[
            ThinkingContent(thinking="Adding.", signature="sig-1"),
            ThinkingContent(thinking="Unsigned."),
            ThinkingContent(thinking="", signature="sig-empty"),
            TextContent(text="Let me add."),
            TextContent(text=" "),
            ToolCall(id="tooluse_1", name="add", arguments={"a": 1, "b": 2}),
            ToolCall(id="call.2!", name="fail", arguments={"reason": "no"}),
        ],
    )
    history = [
        GO,
        turn,
        ToolResultMessage(
            tool_call_id="tooluse_1",
            tool_name="add",
            content=[TextContent(text="3"), ImageContent(data=PNG, mime_type="image/png")],
        ),
        ToolResultMessage(
            tool_call_id="call.2!", tool_name="fail", content=[TextContent(text="failed")], is_error=True
        ),
        UserMessage(content="and?"),
    ]
    _, reply, sent = await _round(server, ModelRequest(messages=history, tools=TOOLS, prompt_cache=False))
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    safe_id = sent.body["messages"][1]["content"][3]["toolUse"]["toolUseId"]
    assert safe_id != "call.2!" and all(c.isalnum() or c in "_-" for c in safe_id)
    assert sent.body["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"reasoningContent": {"reasoningText": {"text": "Adding.", "signature": "sig-1"}}},
                {"text": "Let me add."},
                {"toolUse": {"toolUseId": "tooluse_1", "name": "add", "input": {"a": 1, "b": 2}}},
                {"toolUse": {"toolUseId": safe_id, "name": "fail", "input": {"reason": "no"}}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "tooluse_1",
                        "content": [{"text": "3"}, {"image": {"format": "png", "source": {"bytes": PNG}}}],
                        "status": "success",
                    }
                },
                {"toolResult": {"toolUseId": safe_id, "content": [{"text": "failed"}], "status": "error"}},
                {"text": "and?"},
            ],
        },
    ]


async def test_another_provider_s_reasoning_is_not_sent(server):
    other = AssistantMessage(
        model="anthropic:claude-sonnet-4-5",
        content=[ThinkingContent(thinking="hmm", signature="s"), TextContent(text="Said.")],
    )
    _, _, sent = await _round(
        server, ModelRequest(messages=[GO, other, UserMessage(content="and?")], prompt_cache=False)
    )
    assert sent.body["messages"][1] == {"role": "assistant", "content": [{"text": "Said."}]}


# -- reading the stream ------------------------------------------------------------------


async def test_reasoning_text_and_signature_make_one_thinking_block_before_the_text(server):
    reply = await _raw(
        server,
        _event("messageStart", role="assistant"),
        _event("contentBlockDelta", contentBlockIndex=0, delta={"reasoningContent": {"text": "Think"}}),
        _event("contentBlockDelta", contentBlockIndex=0, delta={"reasoningContent": {"text": "ing."}}),
        _event("contentBlockDelta", contentBlockIndex=0, delta={"reasoningContent": {"signature": "sig-b"}}),
        _event("contentBlockStop", contentBlockIndex=0),
        _event("contentBlockDelta", contentBlockIndex=1, delta={"text": ""}),
        _event("contentBlockDelta", contentBlockIndex=1, delta={"text": "Hi"}),
        _event("contentBlockStop", contentBlockIndex=1),
        _event("messageStop", stopReason="end_turn"),
        _usage(inputTokens=10, outputTokens=5, cacheReadInputTokens=3, cacheWriteInputTokens=2),
    )
    assert reply.stop_reason == "stop", reply.error_message
    assert [(type(b).__name__, b.model_dump(include={"text", "thinking", "signature"})) for b in reply.content] == [
        ("ThinkingContent", {"thinking": "Thinking.", "signature": "sig-b"}),
        ("TextContent", {"text": "Hi"}),
    ]
    assert (reply.usage.input, reply.usage.output, reply.usage.cache_read, reply.usage.cache_write) == (10, 5, 3, 2)


async def test_a_tool_use_s_input_fragments_make_its_arguments_and_each_block_ends_its_own_call(server):
    def start(index: int, name: str, tool_id: str) -> bytes:
        return _event(
            "contentBlockStart", contentBlockIndex=index, start={"toolUse": {"toolUseId": tool_id, "name": name}}
        )

    def piece(index: int, text: str) -> bytes:
        return _event("contentBlockDelta", contentBlockIndex=index, delta={"toolUse": {"input": text}})

    updates = []
    server.script(
        Turn(
            raw_frames=[
                start(1, "add", "tu-1"),
                piece(1, '{"a": 1, '),
                piece(1, ""),
                piece(1, '"b": 2}'),
                _event("contentBlockDelta", contentBlockIndex=7, delta={"toolUse": {"input": "lost"}}),
                _event("contentBlockStop", contentBlockIndex=1),
                start(2, "mul", "tu-2"),
                piece(2, '{"a": 3}'),
                _event("contentBlockStop", contentBlockIndex=2),
                _event("messageStop", stopReason="tool_use"),
                _usage(inputTokens=4, outputTokens=2),
            ]
        )
    )
    updates, reply = await stream_once(_model(server), ModelRequest(messages=[GO]))
    assert reply.stop_reason == "toolUse", reply.error_message
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("tu-1", "add", {"a": 1, "b": 2}),
        ("tu-2", "mul", {"a": 3}),
    ]
    kinds = [u.kind for u in updates if u.kind.startswith("toolcall")]
    assert kinds == [
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
    ]


async def test_a_stream_without_message_stop_is_cut_and_keeps_what_arrived(server):
    frames = [
        _event("contentBlockDelta", contentBlockIndex=0, delta={"text": "half"}),
        _event("contentBlockStart", contentBlockIndex=1, start={"toolUse": {"toolUseId": "t1", "name": "add"}}),
        _event("contentBlockDelta", contentBlockIndex=1, delta={"toolUse": {"input": '{"a": 1}'}}),
    ]
    server.script(*[Turn(raw_frames=frames)] * 3)
    updates, reply = await stream_once(_model(server), ModelRequest(messages=[GO]))
    assert reply.stop_reason == "error" and reply.error.kind == "stream_cut"
    assert "the stream ended before messageStop (connection closed early)" in reply.error_message
    assert reply.content[0].text == "half"
    assert [u.kind for u in updates].count("toolcall_end") == [u.kind for u in updates].count("toolcall_start") > 0


async def test_a_reply_without_usage_counts_no_tokens(server):
    reply = await _raw(
        server,
        _event("contentBlockDelta", contentBlockIndex=0, delta={"text": "a"}),
        _event("messageStop", stopReason="end_turn"),
        _event("metadata", metrics={"latencyMs": 1}),
    )
    assert reply.stop_reason == "stop" and reply.content[0].text == "a"
    assert (reply.usage.input, reply.usage.output, reply.usage.cache_read, reply.usage.cache_write) == (0, 0, 0, 0)


async def test_a_length_stop_keeps_its_usage(server):
    reply = await _raw(
        server,
        _event("contentBlockDelta", contentBlockIndex=0, delta={"text": "a"}),
        _event("messageStop", stopReason="max_tokens"),
        _usage(inputTokens=3, outputTokens=9),
    )
    assert reply.stop_reason == "length" and (reply.usage.input, reply.usage.output) == (3, 9)


# -- failures --------------------------------------------------------------------------------


async def test_a_throttled_round_keeps_status_code_message_and_wait_and_is_retried(server):
    server.script(*[Turn.http_error(429, "slow down", retry_after=0.01)] * 3)
    _, reply = await stream_once(_model(server), ModelRequest(messages=[GO]))
    assert reply.error_message == f"bedrock:{CLAUDE} failed, HTTP 429, ThrottlingException: slow down (after 2 retries)"
    assert (reply.error.status, reply.error.code, reply.error.retryable) == (429, "ThrottlingException", True)
    assert len(server.requests) == 3


async def test_a_refused_request_is_not_retried(server):
    server.script(Turn.http_error(400, "bad field"), Turn(text="never"))
    _, reply = await stream_once(_model(server), ModelRequest(messages=[GO]))
    assert (reply.error.status, reply.error.code, reply.error.retryable) == (400, "ValidationException", False)
    assert "bad field" in reply.error_message and len(server.requests) == 1


@pytest.mark.parametrize(
    ("kind", "retried"),
    [("modelStreamErrorException", True), ("throttlingException", True), ("validationException", False)],
)
async def test_an_exception_in_the_stream_keeps_its_code_and_is_retried_when_it_is_passing(server, kind, retried):
    cut = Turn(raw_frames=[_event("messageStart", role="assistant"), exception_frame(kind, "it broke")])
    server.script(cut, Turn(text="again"))
    _, reply = await stream_once(_model(server), ModelRequest(messages=[GO]))
    if retried:
        assert reply.stop_reason == "stop" and reply.content[0].text == "again" and len(server.requests) == 2
    else:
        assert reply.stop_reason == "error" and "it broke" in reply.error_message
        assert (reply.error.code, reply.error.status, reply.error.retryable) == (kind, None, False)


async def test_no_region_says_how_to_give_one(server, monkeypatch):
    monkeypatch.delenv("AWS_REGION")
    model = resolve_model(f"bedrock:{CLAUDE}", api_key=SECRET)
    _, reply = await stream_once(model, ModelRequest(messages=[GO]))
    assert reply.stop_reason == "error" and reply.error.kind == "credentials"
    assert (
        reply.error_message == f"bedrock:{CLAUDE} failed: no AWS region: set AWS_REGION or pass region= to BedrockModel"
    )


async def test_the_region_comes_from_aws_default_region_when_aws_region_is_unset(server, monkeypatch):
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-3")
    assert resolve_model(f"bedrock:{CLAUDE}").region == "eu-west-3"
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    assert resolve_model(f"bedrock:{CLAUDE}").region == "us-west-2"


async def test_a_refused_bedrock_api_key_says_to_check_it(server):
    server.expected_key = "some-other-key"
    server.script(Turn(text="never"))
    _, reply = await stream_once(_model(server), ModelRequest(messages=[GO]))
    assert reply.error.kind == "auth"
    assert reply.error_message.endswith("; check the api_key= given to the model (a Bedrock API key)")


async def test_an_error_without_a_message_says_what_botocore_said_and_keeps_the_body_without_its_metadata(server):
    server.script(Turn(status=400, error_body={"reason": "none given"}))
    bedrock = next(case for case in CASES if case.prefix == "bedrock")
    run = await bedrock.runtime(server, capture_wire=True).arun("Hi.")
    assert run.stop_reason == "error"
    said = "An error occurred (400) when calling the ConverseStream operation (reached max retries: 0): "
    assert str(run.error).endswith(f"HTTP 400, 400: {said}")
    (error,) = run.wire(1)[1]["errors"]
    assert error == {
        "attempt": 1,
        "status": 400,
        "code": "400",
        "message": said,
        "body": {"Error": {"Message": "", "Code": "400"}},
    }


# -- what the wire view says of a round ---------------------------------------------------


def test_the_wire_view_counts_a_converse_round_s_tools_and_names_its_choice_or_claude_s_own():
    tools = {"tools": [{"toolSpec": {"name": "a"}}, {"toolSpec": {"name": "b"}}, {"cachePoint": {"type": "default"}}]}
    body = {
        "messages": [{"role": "user", "content": [{"text": "go"}]}],
        "toolConfig": {**tools, "toolChoice": {"any": {}}},
    }
    assert '1 messages (1 new), 3 tools, tool_choice {"any": {}},' in round_summary(
        1, body, {"provider": "bedrock"}, "messages", 0
    )
    claude_s = {
        "messages": [],
        "toolConfig": tools,
        "additionalModelRequestFields": {"tool_choice": {"type": "tool", "name": "a"}},
    }
    summary = round_summary(1, claude_s, {"provider": "bedrock"}, "messages", 0)
    assert '3 tools, tool_choice {"type": "tool", "name": "a"},' in summary
    assert "0 tools, tool_choice null," in round_summary(1, {"messages": []}, {"provider": "bedrock"}, "messages", 0)


async def test_a_model_lent_to_another_run_sends_that_run_s_own_conversation(server):
    model = _model(server)
    twin = model.for_another_run()
    server.script(Turn(text="one"), Turn(text="two"), Turn(text="three"))
    _, first = await stream_once(model, ModelRequest(messages=[GO], prompt_cache=False))
    _, other = await stream_once(twin, ModelRequest(messages=[UserMessage(content="other")], prompt_cache=False))
    history = [GO, first, UserMessage(content="and?")]
    _, _ = await stream_once(model, ModelRequest(messages=history, prompt_cache=False))
    assert other.stop_reason == "stop" and other.content[0].text == "two"
    assert [r.body["messages"] for r in server.requests] == [
        [{"role": "user", "content": [{"text": "go"}]}],
        [{"role": "user", "content": [{"text": "other"}]}],
        [
            {"role": "user", "content": [{"text": "go"}]},
            {"role": "assistant", "content": [{"text": "one"}]},
            {"role": "user", "content": [{"text": "and?"}]},
        ],
    ]


async def test_a_hand_written_call_without_an_id_still_pairs_with_its_filled_in_result(server):
    turn = AssistantMessage(content=[ToolCall(name="add", arguments={"a": 1, "b": 2})])
    history = [GO, turn, UserMessage(content="and?")]
    _, reply, sent = await _round(server, ModelRequest(messages=history, tools=TOOLS, prompt_cache=False))
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    use = sent.body["messages"][1]["content"][0]["toolUse"]
    result = sent.body["messages"][2]["content"][0]["toolResult"]
    assert use["toolUseId"] == result["toolUseId"] == "call" and result["status"] == "error"


async def test_an_empty_text_delta_opens_no_text_block(server):
    reply = await _raw(
        server,
        _event("contentBlockDelta", contentBlockIndex=0, delta={"reasoningContent": {"text": "Hmm."}}),
        _event("contentBlockDelta", contentBlockIndex=0, delta={"reasoningContent": {"signature": "sig"}}),
        _event("contentBlockStop", contentBlockIndex=0),
        _event("contentBlockDelta", contentBlockIndex=1, delta={"text": ""}),
        _event("contentBlockStop", contentBlockIndex=1),
        _event("messageStop", stopReason="end_turn"),
    )
    assert [type(b).__name__ for b in reply.content] == ["ThinkingContent"]


async def test_an_event_botocore_cannot_read_ends_the_round_naming_the_parse_error(server):
    odd = _event("contentBlockStart", contentBlockIndex=0, start={})
    reply = await _raw(server, odd, _event("messageStop", stopReason="end_turn"))
    assert reply.stop_reason == "error"
    assert (
        f"bedrock:{CLAUDE} failed: ResponseParserError: Invalid service response: ContentBlockStart"
        in reply.error_message
    )


async def test_without_any_aws_credentials_the_round_says_where_to_put_them(server, monkeypatch):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"):
        monkeypatch.delenv(name, raising=False)
    _, reply = await stream_once(resolve_model(f"bedrock:{CLAUDE}", base_url=server.url), ModelRequest(messages=[GO]))
    assert reply.stop_reason == "error" and reply.error.kind == "credentials"
    assert "no AWS credentials: set AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE" in reply.error_message
    assert server.requests == []


async def test_the_wire_capture_keeps_an_in_stream_exception_s_code_and_body(server):
    server.script(
        Turn(raw_frames=[_event("messageStart", role="assistant"), exception_frame("validationException", "no")])
    )
    bedrock = next(case for case in CASES if case.prefix == "bedrock")
    run = await bedrock.runtime(server, capture_wire=True).arun("Hi.")
    (failed,) = run.wire(1)[1]["errors"]
    assert failed == {
        "attempt": 1,
        "status": None,
        "code": "validationException",
        "message": "no",
        "body": {"Error": {"Code": "validationException", "Message": "no"}},
    }


async def test_a_round_that_asks_for_the_provider_s_tool_search_says_bedrock_has_none(server):
    request = ModelRequest(messages=[GO], tools=TOOLS[:1], deferred_tools=TOOLS[1:], prompt_cache=False)
    updates, _, _ = await _round(server, request)
    assert [u.delta for u in updates if u.kind == "notice"] == [
        f"bedrock:{CLAUDE}: Bedrock has no tool search of its own: the package's tool_search tool finds the "
        "2 deferred tools instead (tool_search='provider' asked)"
    ]


async def test_a_model_lent_to_another_run_captures_that_run_s_own_wire_body(server):
    model = _model(server)
    server.script(Turn(text="one"), Turn(text="two"))
    await stream_once(model, ModelRequest(messages=[GO], prompt_cache=False))
    run = await op.Runtime(model=model.for_another_run(), capture_wire=True).arun("other")
    assert run.stop_reason == "stop", run.error
    request, _ = run.wire(1)
    assert request["messages"] == server.requests[-1].body["messages"]
    assert request["messages"][0]["content"][0] == {"text": "other"}


async def test_thinking_with_a_forced_tool_one_call_at_a_time_sends_claude_s_own_choice_as_auto(server):
    request = ModelRequest(
        messages=[GO],
        tools=TOOLS,
        tool_choice={"type": "function", "name": "mul"},
        parallel_tool_calls=False,
        reasoning=2048,
        prompt_cache=False,
    )
    _, reply, sent = await _round(server, request)
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    assert sent.body["additionalModelRequestFields"]["tool_choice"] == {
        "type": "auto",
        "disable_parallel_tool_use": True,
    }


# -- the credentials the AWS chain found --------------------------------------------------------


async def test_the_secret_key_and_session_token_of_an_aws_profile_are_masked_from_the_first_reply_on(
    server, monkeypatch, tmp_path
):
    from openprogram_jupyter.core._secrets import mask

    # Unique values: what a test makes known stays known in this process. The client that
    # finds them is made in the first round, after that round's reply began to be masked.
    secret, token = f"profile-secret-{tmp_path.name}-0123456789", f"profile-token-{tmp_path.name}-0123456789"
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    (tmp_path / "aws-credentials").write_text(
        f"[default]\naws_access_key_id = AKIAPROFILEPROFILE\naws_secret_access_key = {secret}\n"
        f"aws_session_token = {token}\n"
    )
    assert mask(f"{secret} {token}") == f"{secret} {token}"  # nothing knows them yet
    server.script(Turn(text=f"the key is {secret}, the token {token}"), Turn(text=f"again {secret}"))
    runtime = op.Runtime(model=resolve_model(f"bedrock:{CLAUDE}", base_url=server.url))
    first = runtime.run("go")
    assert first.text == "the key is ***, the token ***"
    deltas = "".join(
        e.update.delta for e in first.events if e.type == "message_update" and e.update.kind == "text_delta"
    )
    assert secret not in deltas and token not in deltas
    assert mask(f"key {secret} token {token}") == "key *** token ***"
    assert runtime.run("go again").text == "again ***"


# -- the constructor ----------------------------------------------------------------------------


def test_without_boto3_the_model_says_what_to_install(monkeypatch):
    import importlib.util

    from openprogram_jupyter.models.bedrock import BedrockModel

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "boto3" else real(name, *a))
    with pytest.raises(ValueError) as refused:
        BedrockModel(CLAUDE)
    assert str(refused.value) == (
        "the 'bedrock' provider needs 'boto3', which is not installed (pip install 'boto3>=1.34')"
    )


async def test_the_constructor_s_retry_and_output_cap_are_the_ones_a_round_follows(server):
    from openprogram_jupyter.models._provider_errors import RetryPolicy
    from openprogram_jupyter.models.bedrock import BedrockModel

    model = BedrockModel(CLAUDE, api_key=SECRET, base_url=server.url, retry=RetryPolicy(max_retries=0), max_tokens=321)
    server.script(Turn(text="ok"), Turn.http_error(429, "slow down", retry_after=0.01), Turn(text="never"))
    _, reply = await stream_once(model, ModelRequest(messages=[GO]))
    assert reply.text == "ok" and server.requests[-1].body["inferenceConfig"]["maxTokens"] == 321
    _, refused = await stream_once(model, ModelRequest(messages=[GO]))
    assert refused.error.status == 429 and len(server.requests) == 2  # not retried


async def test_a_model_that_cannot_be_forced_gets_the_instruction_after_the_system_prompt_and_every_notice(server):
    request = ModelRequest(
        messages=[GO], system="Be brief.", tools=TOOLS, tool_choice="required", temperature=2.5, prompt_cache=False
    )
    updates, reply, sent = await _round(server, request, model_id=LLAMA)
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    assert sent.body["system"] == [
        {"text": "Be brief."},
        {"text": "You must call at least one of the tools in this reply."},
    ]
    assert sent.body["inferenceConfig"]["temperature"] == 2
    assert [u.delta for u in updates if u.kind == "notice"] == [
        f"bedrock:{LLAMA}: Bedrock takes a temperature from 0 to 2: temperature=2.5 was sent as 2",
        f"bedrock:{LLAMA}: {LLAMA} cannot be forced to call a tool on Bedrock; tool_choice 'required' was sent "
        "as auto with an instruction in the system prompt",
    ]


async def test_an_api_key_alone_is_enough_without_any_aws_credentials(server, monkeypatch):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    _, reply, sent = await _round(server, ModelRequest(messages=[GO]))
    assert reply.stop_reason == "stop" and reply.text == "ok", reply.error_message
    assert sent.headers["authorization"] == f"Bearer {SECRET}"


# -- redacted reasoning ----------------------------------------------------------------------

ENCRYPTED = b"\x00\xffencrypted\x80"  # Bedrock's encrypted reasoning: bytes, not UTF-8 text


def _redacted_frames(*pieces: bytes) -> list[bytes]:
    """A reply of a redacted reasoning block (``ENCRYPTED``, or these pieces of it) then a
    tool use: what a thinking Claude sends."""
    return [
        _event("messageStart", role="assistant"),
        *(
            _event(
                "contentBlockDelta",
                contentBlockIndex=0,
                delta={"reasoningContent": {"redactedContent": base64.b64encode(piece).decode()}},
            )
            for piece in pieces or (ENCRYPTED,)
        ),
        _event("contentBlockStop", contentBlockIndex=0),
        _event("contentBlockStart", contentBlockIndex=1, start={"toolUse": {"toolUseId": "tooluse_9", "name": "add"}}),
        _event("contentBlockDelta", contentBlockIndex=1, delta={"toolUse": {"input": '{"a": 1, "b": 2}'}}),
        _event("contentBlockStop", contentBlockIndex=1),
        _event("messageStop", stopReason="tool_use"),
    ]


async def test_a_redacted_reasoning_block_shows_no_text_and_goes_back_before_its_tool_use(server):
    _, reply, _ = await _round(server, ModelRequest(messages=[GO], tools=TOOLS), Turn(raw_frames=_redacted_frames()))
    assert reply.stop_reason == "toolUse", reply.error_message
    thinking, call = reply.content
    assert isinstance(thinking, ThinkingContent) and (thinking.thinking, thinking.signature) == ("", None)
    assert isinstance(call, ToolCall) and call.arguments == {"a": 1, "b": 2}
    result = ToolResultMessage(tool_call_id="tooluse_9", tool_name="add", content=[TextContent(text="3")])
    request = ModelRequest(messages=[GO, reply, result], tools=TOOLS, prompt_cache=False)
    _, answer, sent = await _round(server, request)
    assert answer.stop_reason == "stop", (answer.error_message, server.rejections)
    assert sent.body["messages"][1] == {
        "role": "assistant",
        "content": [
            {"reasoningContent": {"redactedContent": base64.b64encode(ENCRYPTED).decode()}},
            {"toolUse": {"toolUseId": "tooluse_9", "name": "add", "input": {"a": 1, "b": 2}}},
        ],
    }


async def test_another_provider_s_block_holding_bedrock_s_redacted_data_is_not_sent(server):
    _, reply, _ = await _round(server, ModelRequest(messages=[GO]), Turn(raw_frames=_redacted_frames()))
    other = reply.model_copy(update={"model": "anthropic:claude-sonnet-4-5"})
    _, _, sent = await _round(
        server, ModelRequest(messages=[GO, other, UserMessage(content="and?")], tools=TOOLS, prompt_cache=False)
    )
    assert [list(block) for block in sent.body["messages"][1]["content"]] == [["toolUse"]]


async def test_a_redacted_block_s_pieces_join_in_the_wire_capture_s_fold_and_in_the_next_request(server):
    server.script(Turn(raw_frames=_redacted_frames(ENCRYPTED[:5], ENCRYPTED[5:])), Turn(text="ok"))
    bedrock = next(case for case in CASES if case.prefix == "bedrock")
    run = await bedrock.runtime(server, capture_wire=True).arun("Hi.")
    assert run.stop_reason == "stop", run.error
    whole = {"reasoningContent": {"redactedContent": base64.b64encode(ENCRYPTED).decode()}}
    assert run.wire(1)[1]["final"]["output"]["message"]["content"][0] == whole
    assert server.requests[-1].body["messages"][1]["content"][0] == whole


@pytest.mark.parametrize("data", ["not base64!", "QU JD", "QUJD=x", "é", 7])
async def test_a_restored_redacted_block_whose_data_is_not_base64_fails_the_round_saying_so(server, data):
    turn = AssistantMessage(
        model=f"bedrock:{CLAUDE}",
        content=[
            ThinkingContent(thinking="", provider_data={"bedrock_redacted_content": data}),
            TextContent(text="Hi"),
        ],
    )
    _, reply = await stream_once(_model(server), ModelRequest(messages=[GO, turn, UserMessage(content="and?")]))
    assert reply.stop_reason == "error" and server.requests == []
    assert "a redacted reasoning block's data is not base64 text" in reply.error_message


def test_a_redacted_block_s_pieces_that_masking_left_unreadable_fold_joined_as_they_are():
    from openprogram_jupyter.models._wire import fold_frames

    def piece(data: str) -> dict:
        return {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": data}}}}

    folded = fold_frames("bedrock", [piece("QUJD"), piece("***"), piece("REVG")])
    assert folded["output"]["message"]["content"] == [{"reasoningContent": {"redactedContent": "QUJD***REVG"}}]
    whole = fold_frames("bedrock", [piece("QUJD"), piece("REVG")])
    assert whole["output"]["message"]["content"] == [{"reasoningContent": {"redactedContent": "QUJDREVG"}}]


async def test_twins_made_before_the_first_round_share_the_model_s_one_boto3_client(server, monkeypatch):
    """``for_another_run`` promises the twins the model's client: made once, on first use,
    whichever of them makes the first round (``op.evaluate`` makes its twins up front)."""
    import boto3

    made: list[object] = []
    make = boto3.session.Session.client

    def counted(self, *args, **kwargs):
        made.append(make(self, *args, **kwargs))
        return made[-1]

    monkeypatch.setattr(boto3.session.Session, "client", counted)
    model = _model(server)
    twins = [model.for_another_run() for _ in range(3)]
    for twin in reversed(twins):
        server.script(Turn(text="ok"))
        _, reply = await stream_once(twin, ModelRequest(messages=[GO]))
        assert reply.stop_reason == "stop", reply.error_message
    assert len(made) == 1
