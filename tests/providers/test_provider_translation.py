"""Provider-specific translation details, each checked against the loopback server (which
rejects what the real API rejects)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from fakeserver import Call, Turn

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
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models.base import ModelRequest

from .cases import CASES, FAST_RETRY, SECRET, make_tools, stream_once

TOOLS = [t.spec for t in make_tools()]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake-image-bytes").decode()


def _model(server, model: str, **kwargs):
    base = server.openai_base_url if model.startswith("openai") else server.url
    built = resolve_model(model, api_key=kwargs.pop("api_key", SECRET), base_url=base)
    built.retry = FAST_RETRY
    for key, value in kwargs.items():
        setattr(built, key, value)
    return built


def _results_for(message: AssistantMessage, *, image: bool = False, error_on: str | None = None):
    results = []
    for call in message.tool_calls:
        content = [TextContent(text=f"result of {call.name}")]
        if image:
            content.append(ImageContent(data=PNG, mime_type="image/png"))
        results.append(
            ToolResultMessage(
                tool_call_id=call.id, tool_name=call.name, content=content, is_error=call.name == error_on
            )
        )
    return results


async def _two_rounds(server, model, first: Turn, *, image: bool = False, extra: list | None = None):
    """Round 1 from ``first``, then round 2 with the results (and ``extra`` messages)."""
    server.script(first, Turn(text="done"))
    history = [UserMessage(content="go")]
    _, reply = await stream_once(model, ModelRequest(messages=history, tools=TOOLS))
    history += [reply, *_results_for(reply, image=image), *(extra or [])]
    _, second = await stream_once(model, ModelRequest(messages=history, tools=TOOLS))
    assert second.stop_reason == "stop", (second.error_message, server.rejections)
    return reply, server.requests[-1].body


# -- Gemini ----------------------------------------------------------------------------


async def test_gemini_signature_on_a_call_goes_back_on_that_call_unchanged(server):
    model = _model(server, "gemini:gemini-2.5-flash")
    first = Turn(calls=[Call("add", {"a": 1, "b": 2}, signature="c2lnLW9uZQ=="), Call("mul", {"a": 3, "b": 4})])
    reply, body = await _two_rounds(server, model, first)

    assert reply.tool_calls[0].provider_data == {"thoughtSignature": "c2lnLW9uZQ=="}
    parts = body["contents"][1]["parts"]
    assert parts[0] == {"functionCall": {"name": "add", "args": {"a": 1, "b": 2}}, "thoughtSignature": "c2lnLW9uZQ=="}
    assert parts[1] == {"functionCall": {"name": "mul", "args": {"a": 3, "b": 4}}}


async def test_gemini_signature_on_a_trailing_empty_part_goes_back_on_an_empty_part(server):
    model = _model(server, "gemini:gemini-2.5-flash")
    first = Turn(calls=[Call("add", {"a": 1, "b": 2})], trailing_signature="dHJhaWxpbmc=")
    _, body = await _two_rounds(server, model, first)

    assert body["contents"][1]["parts"][-1] == {"text": "", "thoughtSignature": "dHJhaWxpbmc="}


async def test_gemini_server_rejects_a_history_that_lost_the_signature(server):
    """The check above is real: the same history without the signature is a 400."""
    model = _model(server, "gemini:gemini-2.5-flash")
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2}, signature="c2ln")]))
    _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")], tools=TOOLS))
    reply.tool_calls[0].provider_data = None
    history = [UserMessage(content="go"), reply, *_results_for(reply)]
    _, second = await stream_once(model, ModelRequest(messages=history, tools=TOOLS))

    assert second.stop_reason == "error" and "HTTP 400" in second.error_message
    assert "thought_signature" in second.error_message


async def test_gemini_call_ids_go_back_only_when_gemini_gave_them(server):
    model = _model(server, "gemini:gemini-2.5-flash")
    first = Turn(calls=[Call("add", {"a": 1, "b": 2}, id="gem-1"), Call("mul", {"a": 1, "b": 1})])
    _, body = await _two_rounds(server, model, first)

    calls = [p["functionCall"] for p in body["contents"][1]["parts"]]
    responses = [p["functionResponse"] for p in body["contents"][2]["parts"]]
    assert calls[0]["id"] == "gem-1" and "id" not in calls[1]
    assert responses[0]["id"] == "gem-1" and "id" not in responses[1]


async def test_gemini_result_count_must_match_call_count(server):
    model = _model(server, "gemini:gemini-2.5-flash")
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {
                "role": "model",
                "parts": [{"functionCall": {"name": "add", "args": {}}}, {"functionCall": {"name": "mul", "args": {}}}],
            },
            {"role": "user", "parts": [{"functionResponse": {"name": "add", "response": {"output": "1"}}}]},
        ]
    }
    rejected = server.wires["gemini"].validate(body)
    assert rejected is not None and rejected.status == 400
    assert "number of function response parts" in rejected.body["error"]["message"]
    # ...and our adapter never produces that: a result lost from the history is filled in.
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2}), Call("mul", {"a": 1, "b": 2})]), Turn(text="ok"))
    _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")], tools=TOOLS))
    history = [UserMessage(content="go"), reply, _results_for(reply)[0]]
    _, second = await stream_once(model, ModelRequest(messages=history, tools=TOOLS))
    assert second.stop_reason == "stop", second.error_message


# -- images in tool results --------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.prefix for c in CASES])
async def test_images_in_tool_results_reach_the_model(case, server):
    model = _model(server, case.model)
    _, body = await _two_rounds(server, model, Turn(calls=[Call("add", {"a": 1, "b": 2})]), image=True)
    text = json.dumps(body)

    if case.prefix == "bedrock":  # boto3 sends the bytes base64-encoded
        assert base64.b64encode(base64.b64decode(PNG)).decode() in text
        result = body["messages"][-1]["content"][0]["toolResult"]
        assert result["content"][1]["image"]["format"] == "png"
    else:
        assert PNG in text
    if case.prefix == "openai":  # tool messages cannot hold images: a user message follows them
        assert body["messages"][-2]["role"] == "tool"
        assert body["messages"][-1]["role"] == "user" and body["messages"][-1]["content"][1]["type"] == "image_url"
    if case.prefix == "anthropic":
        result = body["messages"][-1]["content"][0]
        assert result["type"] == "tool_result" and result["content"][1]["type"] == "image"


# -- Anthropic -----------------------------------------------------------------------------


async def test_anthropic_steering_message_joins_the_results_message_after_them(server):
    model = _model(server, "anthropic:claude-sonnet-4-5")
    first = Turn(calls=[Call("add", {"a": 1, "b": 2}), Call("mul", {"a": 1, "b": 2})])
    _, body = await _two_rounds(server, model, first, extra=[UserMessage(content="Also, be brief.")])

    last = body["messages"][-1]
    assert last["role"] == "user"
    assert [b["type"] for b in last["content"]] == ["tool_result", "tool_result", "text"]


async def test_anthropic_thinking_goes_back_with_its_signature_and_foreign_thinking_does_not(server):
    model = _model(server, "anthropic:claude-sonnet-4-5")
    turn = Turn(thinking="Let me think.", calls=[Call("add", {"a": 1, "b": 2})])
    _, body = await _two_rounds(server, model, turn)
    assert body["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "Let me think.",
        "signature": "sig-Let me t",
    }

    foreign = AssistantMessage(
        model="openai:gpt-4.1", content=[ThinkingContent(thinking="hmm"), TextContent(text="Hello.")]
    )
    payload, _ = model._prepare(
        ModelRequest(messages=[UserMessage(content="hi"), foreign, UserMessage(content="again")])
    )
    assert payload["messages"][1]["content"] == [{"type": "text", "text": "Hello."}]


async def test_anthropic_extended_thinking_degrades_forced_choice_to_auto_with_a_notice(server):
    model = _model(server, "anthropic:claude-sonnet-4-5", thinking_budget=2048)
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2})]))
    request = ModelRequest(
        messages=[UserMessage(content="go")], tools=TOOLS, tool_choice={"type": "function", "name": "add"}
    )
    updates, reply = await stream_once(model, request)

    assert reply.stop_reason == "toolUse", reply.error_message
    assert server.requests[0].body["tool_choice"] == {"type": "auto"}
    assert server.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert updates[0].kind == "notice" and "extended thinking" in updates[0].delta


async def test_anthropic_history_with_tool_blocks_but_no_tools_declares_stubs(server):
    model = _model(server, "anthropic:claude-sonnet-4-5")
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2})]), Turn(text="fine"))
    _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")], tools=TOOLS))
    history = [UserMessage(content="go"), reply, *_results_for(reply), UserMessage(content="now no tools")]
    _, second = await stream_once(model, ModelRequest(messages=history, tools=[]))

    assert second.stop_reason == "stop", second.error_message
    body = server.requests[-1].body
    assert [t["name"] for t in body["tools"]] == ["add"] and body["tool_choice"] == {"type": "none"}


# -- Bedrock ---------------------------------------------------------------------------------


async def test_bedrock_none_with_tool_history_keeps_tools_declared_with_a_notice(server):
    model = _model(server, "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0")
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2})]), Turn(text="no more tools"))
    _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")], tools=TOOLS))
    history = [UserMessage(content="go"), reply, *_results_for(reply)]
    updates, second = await stream_once(model, ModelRequest(messages=history, tools=TOOLS, tool_choice="none"))

    assert second.stop_reason == "stop", second.error_message
    body = server.requests[-1].body
    assert "toolChoice" not in body["toolConfig"] and body["toolConfig"]["tools"]
    assert "Do not call any tool" in body["system"][-2]["text"]  # the cache point follows the system text
    assert updates[0].kind == "notice" and "no tool_choice 'none'" in updates[0].delta


async def test_bedrock_model_without_any_or_tool_choice_gets_auto_and_an_instruction(server):
    model = _model(server, "bedrock:meta.llama3-1-70b-instruct-v1:0")
    server.script(Turn(calls=[Call("mul", {"a": 1, "b": 2})]))
    updates, reply = await stream_once(
        model,
        ModelRequest(
            messages=[UserMessage(content="go")],
            tools=TOOLS,
            tool_choice={"type": "function", "name": "mul"},
            parallel_tool_calls=False,
        ),
    )
    assert reply.stop_reason == "toolUse", reply.error_message
    body = server.requests[0].body
    assert body["toolConfig"]["toolChoice"] == {"auto": {}}
    assert [t["toolSpec"]["name"] for t in body["toolConfig"]["tools"]] == ["mul"]
    assert body["system"] == [{"text": "You must call the tool mul in this reply."}]
    notices = [u.delta for u in updates if u.kind == "notice"]
    assert len(notices) == 2 and "named tool" in notices[0] and "one call at a time" in notices[1]


def test_bedrock_server_rejects_tool_blocks_without_tool_config_and_two_key_tool_choice(server):
    wire = server.wires["bedrock"]
    history = [
        {"role": "user", "content": [{"text": "go"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "add", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "3"}]}}]},
    ]
    rejected = wire.validate({"messages": history})
    assert rejected.status == 400 and "toolConfig field must be defined" in rejected.body["message"]
    assert rejected.headers["x-amzn-ErrorType"].startswith("ValidationException")
    spec = {"toolSpec": {"name": "add", "inputSchema": {"json": {}}}}
    rejected = wire.validate(
        {"messages": history, "toolConfig": {"tools": [spec], "toolChoice": {"auto": {}, "any": {}}}}
    )
    assert rejected.status == 400 and "Exactly one member" in rejected.body["message"]


async def test_bedrock_credentials_sigv4_from_environment_or_bearer_from_api_key(server):
    server.script(Turn(text="signed"), Turn(text="bearer"))
    signed = _model(server, "bedrock:amazon.nova-pro-v1:0", api_key=None)
    _, reply = await stream_once(signed, ModelRequest(messages=[UserMessage(content="go")]))
    assert reply.text == "signed"
    assert server.requests[0].headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIAFAKEFAKEFAKE/")
    bearer = _model(server, "bedrock:amazon.nova-pro-v1:0")
    _, reply = await stream_once(bearer, ModelRequest(messages=[UserMessage(content="go")]))
    assert reply.text == "bearer"
    assert server.requests[1].headers["authorization"] == f"Bearer {SECRET}"


# -- environment and local servers ------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "variables"),
    [
        ("openai:gpt-4.1-mini", {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": "{url}/v1"}),
        ("openai-responses:gpt-4.1-mini", {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": "{url}/v1"}),
        ("anthropic:claude-sonnet-4-5", {"ANTHROPIC_API_KEY": SECRET, "ANTHROPIC_BASE_URL": "{url}"}),
        ("gemini:gemini-2.5-flash", {"GEMINI_API_KEY": SECRET, "GOOGLE_GEMINI_BASE_URL": "{url}"}),
        ("bedrock:amazon.nova-pro-v1:0", {"AWS_ACCESS_KEY_ID": "AKIAFROMTHEENVIRON", "AWS_REGION": "eu-west-1"}),
    ],
)
async def test_keys_and_endpoints_come_from_the_standard_environment_variables(server, monkeypatch, model, variables):
    for name, value in variables.items():
        monkeypatch.setenv(name, value.format(url=server.url))
    server.script(Turn(text="from the environment"))
    base_url = server.url if model.startswith("bedrock") else None  # AWS has no endpoint variable we read
    runtime = op.Runtime(model=model, base_url=base_url)
    run = await runtime.arun("Hi.", tools=[])

    assert run.stop_reason == "stop", run.error
    assert run.text == "from the environment"
    sent_key = server.wires[server.requests[0].wire].key(server.requests[0].headers)
    if model.startswith("bedrock"):
        assert sent_key.startswith("AWS4-HMAC-SHA256 Credential=AKIAFROMTHEENVIRON/")
        assert "/eu-west-1/bedrock/aws4_request" in sent_key
    else:
        assert sent_key == SECRET


async def test_openai_compatible_local_server_needs_no_key(server):
    """``base_url`` alone is enough for Ollama, vLLM or llama.cpp."""
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2})]), Turn(text="3"))
    runtime = op.Runtime(model="openai:llama3.2", base_url=server.openai_base_url)
    run = await runtime.arun("Add 1 and 2.", tools=make_tools())

    assert run.stop_reason == "stop", run.error
    assert server.requests[0].headers["authorization"] == "Bearer local"
    assert run.usage.cost is None, "no price is known for a local model: no guess"


async def test_reasoning_content_from_local_servers_streams_as_thinking(server):
    model = _model(server, "openai:qwen3")
    server.script(Turn(thinking="Pondering...", text="Answer."))
    updates, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))

    assert [type(b).__name__ for b in reply.content] == ["ThinkingContent", "TextContent"]
    assert reply.content[0].thinking == "Pondering..."
    assert "thinking_delta" in [u.kind for u in updates]


def _sse(payload: object) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


async def _text_and_call(server, model_name: str, frames: list[bytes]) -> tuple[Any, ...]:
    """What ``model_name`` makes of ``frames``, a reply of a text and then a call: the
    text, the call's id and arguments, and the usage's input, output and cache_read."""
    server.script(Turn(raw_frames=frames))
    _, reply = await stream_once(_model(server, model_name), ModelRequest(messages=[UserMessage(content="go")]))
    assert reply.stop_reason == "toolUse", reply.error_message
    assert [type(b).__name__ for b in reply.content] == ["TextContent", "ToolCall"]
    text, call = reply.content
    return text.text, call.id, call.arguments, reply.usage.input, reply.usage.output, reply.usage.cache_read


async def test_an_openai_compatible_server_s_null_and_stray_fields_are_read_as_absent(server):
    """Local servers send ``null`` where OpenAI leaves a field out, and worse: chunks are
    read as plain JSON, so every shape that is not the expected one counts as absent
    instead of ending the round with a TypeError."""

    def chunk(**fields: object) -> bytes:
        return _sse({"id": "c", "object": "chat.completion.chunk", **fields})

    frames = [
        _sse("a stray string"),
        _sse([1, 2]),
        chunk(choices=None),
        chunk(choices=[None]),
        chunk(choices=[{"index": 0, "delta": None, "finish_reason": None}]),
        chunk(choices=[{"index": 0, "delta": {"role": "assistant", "content": None, "tool_calls": None}}]),
        chunk(choices=[{"index": 0, "delta": {"content": "Sum: ", "reasoning_content": None}}]),
        chunk(choices=[{"index": 0, "delta": {"content": 5}}]),
        chunk(choices=[{"index": 0, "delta": {"tool_calls": [None, {"index": 0, "id": "call_x", "function": None}]}}]),
        chunk(
            choices=[
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [{"index": 0, "id": None, "function": {"name": None, "arguments": '{"a": 1, '}}]
                    },
                }
            ]
        ),
        chunk(choices=[{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '"b": 2}'}}]}}]),
        chunk(choices=[{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]),
        chunk(
            choices=[],
            usage={"prompt_tokens": 30, "completion_tokens": None, "prompt_tokens_details": {"cached_tokens": "many"}},
        ),
        b"data: [DONE]\n\n",
    ]
    assert await _text_and_call(server, "openai:llama3.2", frames) == ("Sum: ", "call_x", {"a": 1, "b": 2}, 30, 0, 0)


async def test_a_responses_stream_s_null_and_stray_fields_are_read_as_absent(server):
    """The Responses API's events are read as plain JSON too: a null or stray field is absent."""
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add", "arguments": ""}
    frames = [
        _sse(payload)
        for payload in [
            "a stray string",
            {"type": "response.output_item.added", "item": None},
            {"type": "response.output_text.delta", "delta": "Hi "},
            {"type": "response.output_text.delta", "delta": None},
            {"type": "response.output_item.added", "item": call},
            {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": '{"a": 1, '},
            {"type": "response.function_call_arguments.delta", "item_id": None, "delta": "lost"},
            {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": '"b": 2}'},
            {"type": "response.output_item.done", "item": {**call, "arguments": '{"a": 1, "b": 2}'}},
            {"type": "response.output_item.done", "item": {"type": "reasoning", "id": "rs_1", "encrypted_content": 5}},
            {
                "type": "response.completed",
                "response": {
                    "status": "completed",
                    "usage": {"input_tokens": 20, "output_tokens": None, "input_tokens_details": None},
                },
            },
        ]
    ]
    assert await _text_and_call(server, "openai-responses:gpt-4.1", frames) == (
        "Hi ",
        "call_1",
        {"a": 1, "b": 2},
        20,
        0,
        0,
    )


async def test_a_gemini_stream_s_null_and_stray_fields_are_read_as_absent(server):
    """Gemini's chunks, through a proxy that sends what it likes: a text that mentions an
    error is not an error chunk, and nulls count as absent."""

    def chunk(parts: object, **fields: object) -> bytes:
        return _sse({"candidates": [{"content": {"parts": parts}, **fields}], "usageMetadata": None})

    frames = [
        _sse("an error, said as text"),
        _sse(None),
        _sse({"candidates": None, "promptFeedback": None}),
        _sse({"candidates": [{"content": None}]}),
        _sse({"candidates": [None]}),
        chunk(None),
        chunk([None, {"text": None}, {"text": 5}]),
        chunk([{"text": "Sum: ", "thoughtSignature": None}]),
        chunk([{"functionCall": {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_g"}}], finishReason=None),
        _sse(
            {
                "candidates": [{"content": {"parts": []}, "finishReason": "STOP"}],
                "usageMetadata": {
                    "promptTokenCount": 30,
                    "candidatesTokenCount": None,
                    "cachedContentTokenCount": "some",
                },
            }
        ),
    ]
    assert await _text_and_call(server, "gemini:gemini-2.5-flash", frames) == (
        "Sum: ",
        "call_g",
        {"a": 1, "b": 2},
        30,
        0,
        0,
    )


@pytest.mark.parametrize(
    "event, message",
    [
        ({"type": "response.failed", "response": None}, "the response failed"),
        ({"type": "response.failed", "response": {"error": {"message": 7, "code": None}}}, "the response failed"),
        ({"type": "error", "message": None, "code": None}, "stream error"),
        ({"type": "error", "message": "overloaded", "code": "server_error"}, "overloaded"),
    ],
)
async def test_a_responses_failure_event_with_missing_fields_still_ends_the_round_as_an_error(server, event, message):
    model = _model(server, "openai-responses:gpt-4.1")
    model.retry = FAST_RETRY
    server.script(*[Turn(raw_frames=[_sse({"type": "response.output_text.delta", "delta": "Hi"}), _sse(event)])] * 3)
    _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))

    assert reply.stop_reason == "error"
    assert message in (reply.error_message or "")


async def test_truncated_reply_ends_with_length(server):
    model = _model(server, "anthropic:claude-sonnet-4-5")
    server.script(Turn(text="cut by max_tokens", stop="length"))
    _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))
    assert reply.stop_reason == "length"


def test_unknown_tool_call_ids_are_made_safe_for_anthropic_and_bedrock():
    from openprogram_jupyter.models._history import safe_tool_id

    assert safe_tool_id("call.with:odd/chars") == "call_with_odd_chars"
    assert len(safe_tool_id("x" * 100)) == 64
    assert ToolCall(name="a", id="call_1").id == safe_tool_id("call_1")


@pytest.mark.parametrize("case", CASES, ids=[c.prefix for c in CASES])
def test_clients_are_closed_with_their_event_loop_and_forgotten(case, server, caplog):
    """Each synchronous run has its own event loop; its client must not outlive it (an
    SDK finalizer closing it later on another loop logs "Event loop is closed")."""
    import asyncio
    import gc

    model = _model(server, case.model)
    for _ in range(3):
        server.script(Turn(text="hi"))
        _, reply = asyncio.run(stream_once(model, ModelRequest(messages=[UserMessage(content="go")])))
        assert reply.text == "hi"
    gc.collect()
    asyncio.run(asyncio.sleep(0.05))  # a later loop, where a stray finalizer would run

    assert len(getattr(model, "_clients", {})) == 0
    assert "Event loop is closed" not in caplog.text and "never retrieved" not in caplog.text


async def test_a_missing_key_is_a_readable_error_without_retries(server):
    server.expected_key = SECRET
    openai_model = resolve_model("openai:gpt-4.1-mini")  # no key, no base_url: fails before any request
    gemini_model = resolve_model("gemini:gemini-2.5-flash", base_url=server.url)
    anthropic_model = resolve_model("anthropic:claude-sonnet-4-5", base_url=server.url)
    for model, expected in (
        (openai_model, "api_key"),
        (gemini_model, "GEMINI_API_KEY"),
        (anthropic_model, "ANTHROPIC_API_KEY"),
    ):
        model.retry = FAST_RETRY
        _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))
        assert reply.stop_reason == "error"
        assert reply.error_message.startswith(f"{model.name} failed") and expected in reply.error_message
        assert "(after" not in reply.error_message, "a missing key is not retried"
    assert server.requests == [], "nothing was sent without a key"


def test_anthropic_thinking_is_off_for_a_round_whose_cap_leaves_no_room_for_it():
    from openprogram_jupyter.core.messages import UserMessage
    from openprogram_jupyter.models.anthropic import AnthropicModel
    from openprogram_jupyter.models.base import ModelRequest

    model = AnthropicModel("claude-sonnet-4-5", api_key="sk-ant-test", thinking_budget=2_048)
    tight, notices = model._prepare(ModelRequest(messages=[UserMessage(content="Hi.")], max_output_tokens=1_000))
    assert "thinking" not in tight and tight["max_tokens"] == 1_000
    assert notices == [
        "the run's budget leaves 1,000 output tokens, no more than the thinking budget (2,048): "
        "extended thinking is off for this round"
    ]
    roomy, notices = model._prepare(ModelRequest(messages=[UserMessage(content="Hi.")], max_output_tokens=5_000))
    assert roomy["thinking"] == {"type": "enabled", "budget_tokens": 2_048} and roomy["max_tokens"] == 5_000
    assert notices == []
