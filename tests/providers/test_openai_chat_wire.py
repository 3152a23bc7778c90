"""OpenAI Chat Completions, exactly: the history a second round sends (an assistant turn's
text and calls, each result as a tool message, pictures in one user message after them)
and how each SDK failure becomes the run's error (what mutmut found unpinned in
models/openai_chat.py; docs/testing.md, "Mutation tool")."""

from __future__ import annotations

import base64
import json

import httpx
import openai
import pytest
from fakeserver import Call, Turn

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
from openprogram_jupyter.models.base import ModelRequest
from openprogram_jupyter.models.openai_chat import classify_openai_error

from .cases import FAST_RETRY, SECRET, make_tools, stream_once

TOOLS = [t.spec for t in make_tools()]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake-image-bytes").decode()


def _model(server):
    model = resolve_model("openai:gpt-4.1-mini", api_key=SECRET, base_url=server.openai_base_url)
    model.retry = FAST_RETRY
    return model


async def test_the_second_round_sends_the_turn_as_text_calls_tool_messages_and_the_pictures_after_them(server):
    model = _model(server)
    first = Turn(text="Let me look.", calls=[Call("add", {"a": 1, "b": 2}, id="c1"), Call("mul", {"a": 3}, id="c2")])
    server.script(first, Turn(text="done"))
    history: list = [UserMessage(content="go")]
    _, reply = await stream_once(model, ModelRequest(messages=history, tools=TOOLS))
    picture = ImageContent(data=PNG, mime_type="image/png")
    history += [
        reply,
        ToolResultMessage(tool_call_id="c1", tool_name="add", content=[TextContent(text="3"), picture]),
        ToolResultMessage(tool_call_id="c2", tool_name="mul", content=[TextContent(text="Error: no b")], is_error=True),
    ]
    _, second = await stream_once(model, ModelRequest(messages=history, tools=TOOLS))
    assert second.stop_reason == "stop", (second.error_message, server.rejections)
    assert server.requests[-1].body["messages"] == [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}},
                {"id": "c2", "type": "function", "function": {"name": "mul", "arguments": '{"a": 3}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "3\n[image 1]"},
        {"role": "tool", "tool_call_id": "c2", "content": "Error: no b"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Image returned by add (c1):"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        },
    ]


async def test_a_turn_of_calls_without_text_sends_no_content_and_a_turn_of_thinking_alone_nothing(server):
    model = _model(server)
    server.script(Turn(text="ok"))
    history = [
        UserMessage(content="go"),
        AssistantMessage(content=[ThinkingContent(thinking="hmm")]),
        UserMessage(content="and?"),
        AssistantMessage(content=[ToolCall(id="c9", name="add", arguments={"a": 1, "b": 1})]),
        ToolResultMessage(tool_call_id="c9", tool_name="add", content=[TextContent(text="2")]),
    ]
    _, reply = await stream_once(model, ModelRequest(messages=history, tools=TOOLS))
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    messages = server.requests[-1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "user", "assistant", "tool"]
    assert messages[2]["content"] is None and len(messages[2]["tool_calls"]) == 1


# -- each failure as the run's error ---------------------------------------------------------

REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def _status_error(status: int, body: object, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx.Response(status, request=REQUEST, headers=headers or {})
    return openai.APIStatusError("Error code: from the SDK", response=response, body=body)


@pytest.mark.parametrize(
    ("status", "retryable"), [(400, False), (408, True), (409, True), (410, False), (429, True), (500, True)]
)
def test_a_status_error_keeps_the_provider_s_message_code_status_wait_and_body(status, retryable):
    body = {"error": {"message": "try later", "type": "busy_error"}}
    error = classify_openai_error(_status_error(status, body, {"retry-after": "2"}))
    assert (error.message, error.status, error.code) == ("try later", status, "busy_error")
    assert (error.retryable, error.retry_after, error.body) == (retryable, 2.0, body)


def test_a_status_error_without_a_message_in_its_body_says_what_the_sdk_said():
    error = classify_openai_error(_status_error(400, {"error": {"type": "invalid_request_error"}}))
    assert (error.message, error.code) == ("Error code: from the SDK", "invalid_request_error")


@pytest.mark.parametrize("link", ["__cause__", "__context__"])
def test_a_connection_error_shows_the_failure_underneath_and_the_address_tried(link):
    failure = openai.APIConnectionError(request=REQUEST)
    setattr(failure, link, ConnectionRefusedError("nothing listens"))
    error = classify_openai_error(failure)
    assert error.message.startswith(
        "connection failed (ConnectionRefusedError: nothing listens; tried http://127.0.0.1:9/v1/chat/completions)"
    )
    assert error.kind == "connection"


def test_an_error_inside_the_stream_keeps_its_message_and_code_and_is_retried_only_when_the_code_says_so():
    body = {"message": "the server is overloaded", "type": "server_error"}
    error = classify_openai_error(openai.APIError("stream failed", REQUEST, body=body))
    assert (error.message, error.code, error.retryable, error.body) == (
        "the server is overloaded",
        "server_error",
        True,
        body,
    )
    bare = classify_openai_error(openai.APIError("stream failed", REQUEST, body=None))
    assert (bare.message, bare.code, bare.retryable, bare.body) == ("stream failed", None, False, None)


def test_a_missing_key_says_how_to_give_one_and_other_sdk_errors_say_what_they_are():
    words = "The api_key client option must be set either by passing api_key to the client or by setting it"
    missing = classify_openai_error(openai.OpenAIError(words))
    assert missing.message.startswith("no API key: set OPENAI_API_KEY (in the environment")
    assert (missing.detail, missing.kind) == (f"OpenAIError: {words}", "credentials")
    other = classify_openai_error(openai.OpenAIError("the organization is unknown"))
    assert other.message == "OpenAIError: the organization is unknown" and other.kind != "credentials"
    assert classify_openai_error(ValueError("odd")).message == "ValueError: odd"


async def test_a_round_s_body_carries_the_model_system_prompt_streaming_and_each_control(server):
    model = _model(server)
    server.script(Turn(text="ok"))
    request = ModelRequest(
        messages=[UserMessage(content="go")],
        system="Be brief.",
        tools=TOOLS,
        tool_choice="required",
        parallel_tool_calls=False,
        max_output_tokens=300,
        reasoning="low",
    )
    _, reply = await stream_once(model, request)
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    body = server.requests[-1].body
    assert {key: value for key, value in body.items() if key != "tools"} == {
        "model": "gpt-4.1-mini",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "go"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "tool_choice": "required",
        "parallel_tool_calls": False,
        "max_completion_tokens": 300,
        "reasoning_effort": "low",
    }
    assert [tool["function"]["name"] for tool in body["tools"]] == [spec["name"] for spec in TOOLS]


async def test_a_stream_that_ends_without_its_finish_reason_says_so(server):
    model = _model(server)
    server.script(Turn(text="cut short", cut_after=3, cut_cleanly=True))
    _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))
    assert reply.stop_reason == "error"
    assert reply.error_message == (
        "openai:gpt-4.1-mini failed: the stream ended before a chunk with finish_reason (connection closed early)"
    )


async def test_a_user_message_is_one_string_of_its_texts_or_parts_with_its_pictures(server):
    model = _model(server)
    server.script(Turn(text="ok"), Turn(text="ok"))
    texts = UserMessage(content=[TextContent(text="first, "), TextContent(text="then")])
    await stream_once(model, ModelRequest(messages=[texts]))
    assert server.requests[-1].body["messages"] == [{"role": "user", "content": "first, then"}]
    picture = ImageContent(data=PNG, mime_type="image/png")
    await stream_once(model, ModelRequest(messages=[UserMessage(content=[TextContent(text="what is it?"), picture])]))
    assert server.requests[-1].body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is it?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        }
    ]


async def test_a_base_url_from_the_environment_and_no_key_sends_the_local_placeholder_key(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    model = resolve_model("openai:gpt-4.1-mini")
    model.retry = FAST_RETRY
    server.script(Turn(text="ok"))
    _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))
    assert reply.stop_reason == "stop", reply.error_message
    assert server.requests[-1].headers["authorization"] == "Bearer local"


def _chunk(delta: dict, finish: str | None = None) -> bytes:
    payload = {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
    if finish is not None:
        payload["choices"][0]["finish_reason"] = finish
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


async def test_a_local_server_s_reasoning_field_is_thinking_and_arguments_that_are_not_text_are_skipped(server):
    model = _model(server)
    call_start = {"index": 0, "id": "c1", "type": "function", "function": {"name": "add", "arguments": ""}}
    frames = [
        _chunk({"role": "assistant", "reasoning": "Let me think."}),
        _chunk({"reasoning": ""}),  # an empty piece adds nothing
        _chunk({"tool_calls": [call_start]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": {"a": 9}}}]}),  # an object: not a fragment
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 1, "b": 2}'}}]}),
        _chunk({}, finish="tool_calls"),
        b"data: [DONE]\n\n",
    ]
    server.script(Turn(raw_frames=frames))
    _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")], tools=TOOLS))
    assert reply.stop_reason == "toolUse", reply.error_message
    assert [type(b).__name__ for b in reply.content] == ["ThinkingContent", "ToolCall"]
    assert reply.content[0].thinking == "Let me think."
    assert reply.content[1].arguments == {"a": 1, "b": 2}


async def test_a_finish_reason_this_version_does_not_know_is_read_as_finished_with_a_notice_naming_the_model(server):
    model = _model(server)
    server.script(Turn(raw_frames=[_chunk({"content": "Hi."}), _chunk({}, finish="weird_reason"), b"data: [DONE]\n\n"]))
    updates, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))
    assert reply.stop_reason == "stop" and reply.text == "Hi."
    assert [u.delta for u in updates if u.kind == "notice"] == [
        "openai:gpt-4.1-mini: the provider ended the reply for a reason this version does not know "
        "(weird_reason); it was read as finished"
    ]
