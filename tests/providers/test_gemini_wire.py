"""Gemini, exactly: the request a round sends (its address, key header and body), the
contents a later round sends for an earlier reply (text, thought parts and their
signatures, calls, results, pictures), and how each kind of stream chunk is read (what
mutmut found unpinned in models/gemini.py; docs/testing.md, "Mutation tool"). Asserted
on what the loopback server received from httpx, and on raw chunks it sent."""

from __future__ import annotations

import base64

import pytest
from fakeserver import Turn
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
from openprogram_jupyter.jupyter._wire_view import round_summary
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models._gemini_schema import gemini_function_declaration
from openprogram_jupyter.models._provider_errors import RetryPolicy
from openprogram_jupyter.models.base import ModelRequest
from openprogram_jupyter.models.gemini import GeminiModel

from .cases import CASES, FAST_RETRY, SECRET, make_tools, stream_once

TOOLS = [t.spec for t in make_tools()]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake-image-bytes").decode()
JPEG = base64.b64encode(b"\xff\xd8\xff\xe0fake-jpeg-bytes").decode()
GO = UserMessage(content="go")


def _model(server, model_id: str = "gemini-2.5-flash", **options):
    """``GeminiModel`` pointed at ``server``, with quick retries unless ``options`` say."""
    return GeminiModel(model_id, api_key=SECRET, base_url=server.url, **{"retry": FAST_RETRY, **options})


async def _round(server, request: ModelRequest, *turns: Turn, **options):
    """One round of ``request`` answered by ``turns`` (else "ok"): the reply and the
    request the server received last."""
    server.script(*(turns or (Turn(text="ok"),)))
    _, reply = await stream_once(_model(server, **options), request)
    return reply, server.requests[-1]


async def _raw(server, *chunks: object):
    """The reply made of these chunks, each sent as one SSE ``data:`` line."""
    frames = [c if isinstance(c, bytes) else sse(c) for c in chunks]
    reply, _ = await _round(server, ModelRequest(messages=[GO]), Turn(raw_frames=frames))
    return reply


def _chunk(*parts: dict, finish: str | None = None, **fields: object) -> dict:
    candidate: dict = {"content": {"role": "model", "parts": list(parts)}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], **fields}


# -- the request ----------------------------------------------------------------------------


async def test_a_round_goes_to_the_model_s_stream_address_with_the_key_in_a_header_and_its_whole_body(server):
    request = ModelRequest(
        messages=[GO],
        system="Be brief.",
        tools=TOOLS[:1],
        max_output_tokens=300,
        temperature=0.5,
        stop_sequences=("END",),
    )
    reply, sent = await _round(server, request)
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    assert sent.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert (sent.headers["x-goog-api-key"], sent.headers["content-type"]) == (SECRET, "application/json")
    assert SECRET not in sent.path
    assert sent.body == {
        "contents": [{"role": "user", "parts": [{"text": "go"}]}],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "generationConfig": {"maxOutputTokens": 300, "temperature": 0.5, "stopSequences": ["END"]},
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "add",
                        "description": TOOLS[0]["description"],
                        "parametersJsonSchema": gemini_function_declaration(TOOLS[0])["parametersJsonSchema"],
                    }
                ]
            }
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
    }


async def test_a_round_without_system_prompt_tools_or_caps_sends_the_contents_alone(server):
    _, sent = await _round(server, ModelRequest(messages=[GO]))
    assert sent.body == {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}


async def test_a_model_name_with_a_slash_is_one_path_segment(server):
    _, sent = await _round(server, ModelRequest(messages=[GO]), model_id="tuned/v1")
    assert sent.path == "/v1beta/models/tuned%2Fv1:streamGenerateContent?alt=sse" and sent.model == "tuned/v1"


async def test_thoughts_asked_for_without_a_budget_send_include_thoughts_alone(server):
    _, sent = await _round(server, ModelRequest(messages=[GO], max_output_tokens=50), include_thoughts=True)
    assert sent.body["generationConfig"] == {"thinkingConfig": {"includeThoughts": True}, "maxOutputTokens": 50}


@pytest.mark.parametrize(
    ("choice", "config"),
    [
        ("required", {"mode": "ANY"}),
        ("none", {"mode": "NONE"}),
        ({"type": "function", "name": "mul"}, {"mode": "ANY", "allowedFunctionNames": ["mul"]}),
    ],
)
async def test_each_tool_choice_is_its_function_calling_mode(server, choice, config):
    _, sent = await _round(server, ModelRequest(messages=[GO], tools=TOOLS, tool_choice=choice))
    assert sent.body["toolConfig"] == {"functionCallingConfig": config}
    assert [d["name"] for d in sent.body["tools"][0]["functionDeclarations"]] == ["add", "mul", "fail"]


# -- the history a later round sends -----------------------------------------------------


async def test_a_user_message_s_text_and_pictures_are_parts_and_blank_text_is_left_out(server):
    picture = ImageContent(data=PNG, mime_type="image/png")
    message = UserMessage(content=[TextContent(text="see"), TextContent(text=""), picture])
    _, sent = await _round(server, ModelRequest(messages=[message]))
    assert sent.body["contents"] == [
        {"role": "user", "parts": [{"text": "see"}, {"inlineData": {"mimeType": "image/png", "data": PNG}}]}
    ]


async def test_a_turn_s_thought_text_calls_and_results_go_back_as_gemini_parts(server):
    turn = AssistantMessage(
        model="gemini:gemini-2.5-flash",
        content=[
            ThinkingContent(thinking="Adding first.", signature="c2lnLXQ="),
            ThinkingContent(thinking="No signature."),
            TextContent(text="Let me add."),
            ThinkingContent(thinking="", signature="c2lnLXRleHQ="),
            ToolCall(id="g1", name="add", arguments={"a": 1, "b": 2}, provider_data={"gemini_call_id": "g1"}),
            ToolCall(id="x2", name="fail", arguments={"reason": "no"}),
        ],
    )
    history = [
        GO,
        turn,
        ToolResultMessage(
            tool_call_id="g1",
            tool_name="add",
            content=[TextContent(text="3"), ImageContent(data=PNG, mime_type="image/png")],
        ),
        ToolResultMessage(
            tool_call_id="x2",
            tool_name="fail",
            content=[TextContent(text="it failed"), ImageContent(data=JPEG, mime_type="image/jpeg")],
            is_error=True,
        ),
    ]
    reply, sent = await _round(server, ModelRequest(messages=history, tools=TOOLS))
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    assert sent.body["contents"][1:] == [
        {
            "role": "model",
            "parts": [
                {"text": "Adding first.", "thought": True, "thoughtSignature": "c2lnLXQ="},
                {"text": "No signature.", "thought": True},
                {"text": "Let me add.", "thoughtSignature": "c2lnLXRleHQ="},
                {"functionCall": {"name": "add", "args": {"a": 1, "b": 2}, "id": "g1"}},
                {"functionCall": {"name": "fail", "args": {"reason": "no"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "add", "response": {"output": "3\n[image 1]"}, "id": "g1"}},
                {"functionResponse": {"name": "fail", "response": {"error": "it failed\n[image 1]"}}},
                {"inlineData": {"mimeType": "image/png", "data": PNG}},
                {"inlineData": {"mimeType": "image/jpeg", "data": JPEG}},
            ],
        },
    ]


async def test_a_signature_after_a_signed_text_or_a_call_goes_back_on_an_empty_part_of_its_own(server):
    turn = AssistantMessage(
        model="gemini:gemini-2.5-pro",
        content=[
            TextContent(text="One."),
            ThinkingContent(thinking="", signature="Zmlyc3Q="),
            ThinkingContent(thinking="", signature="c2Vjb25k"),
            ToolCall(id="c", name="add", arguments={}, provider_data={"thoughtSignature": "Y2FsbA=="}),
            ThinkingContent(thinking="", signature="dHJhaWw="),
        ],
    )
    history = [GO, turn, ToolResultMessage(tool_call_id="c", tool_name="add", content=[TextContent(text="0")])]
    _, sent = await _round(server, ModelRequest(messages=history, tools=TOOLS))
    assert sent.body["contents"][1]["parts"] == [
        {"text": "One.", "thoughtSignature": "Zmlyc3Q="},
        {"text": "", "thoughtSignature": "c2Vjb25k"},
        {"functionCall": {"name": "add", "args": {}}, "thoughtSignature": "Y2FsbA=="},
        {"text": "", "thoughtSignature": "dHJhaWw="},
    ]


async def test_another_provider_s_thinking_and_signatures_are_not_sent_and_an_empty_turn_sends_nothing(server):
    other = AssistantMessage(
        model="anthropic:claude-sonnet-4-5",
        content=[
            ThinkingContent(thinking="hmm", signature="YW50"),
            ThinkingContent(thinking="", signature="YQ=="),
            TextContent(text="Said."),
        ],
    )
    empty = AssistantMessage(model="gemini:gemini-2.5-flash", content=[TextContent(text="")])
    history = [GO, other, UserMessage(content="and?"), empty, UserMessage(content="so?")]
    _, sent = await _round(server, ModelRequest(messages=history))
    assert sent.body["contents"] == [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"text": "Said."}]},
        {"role": "user", "parts": [{"text": "and?"}]},
        {"role": "user", "parts": [{"text": "so?"}]},
    ]


# -- reading the stream ------------------------------------------------------------------


async def test_thought_parts_are_thinking_and_a_signed_text_keeps_its_signature_as_empty_thinking(server):
    reply = await _raw(
        server,
        _chunk({"text": "Let me think.", "thought": True, "thoughtSignature": "dGg="}),
        _chunk({"text": "Hi", "thoughtSignature": "dHg="}, {"inlineData": {"mimeType": "image/png", "data": PNG}}),
        _chunk({"text": ""}, finish="STOP"),
    )
    assert reply.stop_reason == "stop", reply.error_message
    assert [(type(b).__name__, b.model_dump(include={"text", "thinking", "signature"})) for b in reply.content] == [
        ("ThinkingContent", {"thinking": "Let me think.", "signature": "dGg="}),
        ("TextContent", {"text": "Hi"}),
        ("ThinkingContent", {"thinking": "", "signature": "dHg="}),
    ]


async def test_a_call_keeps_gemini_s_id_and_signature_and_a_call_without_an_id_gets_one_of_ours(server):
    reply = await _raw(
        server,
        _chunk({"functionCall": {"name": "add", "args": {"a": 1}, "id": "gid"}, "thoughtSignature": "c2c="}),
        _chunk({"functionCall": {"name": "mul", "args": {"a": 2}}}, finish="STOP"),
    )
    first, second = reply.tool_calls
    assert (first.id, first.name, first.arguments) == ("gid", "add", {"a": 1})
    assert first.provider_data == {"thoughtSignature": "c2c=", "gemini_call_id": "gid"}
    assert second.id and second.id != "gid" and second.provider_data is None
    assert reply.stop_reason == "toolUse"


async def test_usage_counts_cached_tokens_apart_and_thoughts_as_output_from_the_last_chunk_that_has_it(server):
    usage = {"promptTokenCount": 100, "candidatesTokenCount": 9, "thoughtsTokenCount": 4, "cachedContentTokenCount": 60}
    reply = await _raw(
        server,
        _chunk({"text": "a"}, usageMetadata={"promptTokenCount": 1}),
        _chunk({"text": "b"}, finish="STOP", usageMetadata=usage),
        _chunk(usageMetadata=None),
    )
    assert (reply.usage.input, reply.usage.output, reply.usage.cache_read) == (40, 13, 60)


async def test_a_reply_without_usage_counts_no_tokens(server):
    reply = await _raw(server, b"data: \n\n", _chunk({"text": "a"}, finish="STOP"))
    assert reply.stop_reason == "stop" and reply.content[0].text == "a"
    assert (reply.usage.input, reply.usage.output, reply.usage.cache_read) == (0, 0, 0)


async def test_only_the_first_candidate_is_read(server):
    chunk = _chunk({"text": "first"}, finish="STOP")
    chunk["candidates"].append({"content": {"parts": [{"text": "second"}]}, "finishReason": "SAFETY"})
    reply = await _raw(server, chunk)
    assert reply.stop_reason == "stop" and [b.text for b in reply.content] == ["first"]


async def test_a_blocked_prompt_ends_the_round_as_refused_naming_the_reason(server):
    # as Gemini sends it: one chunk, without candidates
    reply = await _raw(
        server, {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 8}}
    )
    assert reply.stop_reason == "error"
    assert reply.error_message == "gemini:gemini-2.5-flash: Gemini blocked the prompt (PROHIBITED_CONTENT)"
    assert reply.error.kind == "refused" and reply.usage.input == 8


async def test_calls_cut_by_the_output_cap_came_whole_and_are_run(server):
    usage = {"promptTokenCount": 5, "candidatesTokenCount": 30}
    call = {"functionCall": {"name": "add", "args": {"a": 1}}}
    reply = await _raw(server, _chunk(call, finish="MAX_TOKENS", usageMetadata=usage))
    assert reply.stop_reason == "toolUse" and reply.error_message is None
    assert [c.name for c in reply.tool_calls] == ["add"] and (reply.usage.input, reply.usage.output) == (5, 30)


async def test_an_error_chunk_ends_the_round_with_its_message_and_code(server):
    error = {"error": {"code": 400, "message": "the request was odd", "status": "INVALID_ARGUMENT"}}
    reply = await _raw(server, _chunk({"text": "par"}), error)
    assert reply.stop_reason == "error" and "the request was odd" in reply.error_message
    assert (reply.error.code, reply.error.retryable) == ("INVALID_ARGUMENT", False)
    assert len(server.requests) == 1


async def test_an_error_chunk_without_a_message_says_stream_error(server):
    reply = await _raw(server, {"error": {"status": "INVALID_ARGUMENT"}})
    assert (
        reply.stop_reason == "error"
        and reply.error_message == "gemini:gemini-2.5-flash failed, INVALID_ARGUMENT: stream error"
    )


async def test_a_stream_without_a_finish_reason_is_cut_and_keeps_what_arrived(server):
    server.script(*[Turn(raw_frames=[sse(_chunk({"text": "half"}))])] * 3)
    _, reply = await stream_once(_model(server), ModelRequest(messages=[GO]))
    assert reply.stop_reason == "error" and reply.error.kind == "stream_cut"
    assert "the stream ended before a chunk with finishReason (connection closed early)" in reply.error_message
    assert [b.text for b in reply.content] == ["half"]


async def test_an_http_error_keeps_its_status_message_code_and_when_to_retry(server):
    server.script(*[Turn.http_error(429, "slow down", retry_after=0.01)] * 3)
    _, reply = await stream_once(_model(server), ModelRequest(messages=[GO]))
    assert reply.stop_reason == "error" and "slow down" in reply.error_message
    assert (reply.error.status, reply.error.code, reply.error.retryable) == (429, "RESOURCE_EXHAUSTED", True)
    assert len(server.requests) == 3


async def test_an_http_error_without_a_message_says_the_status_s_reason(server):
    server.script(Turn(status=400, error_body={"error": {"status": "INVALID_ARGUMENT"}}))
    _, reply = await stream_once(_model(server), ModelRequest(messages=[GO]))
    assert reply.stop_reason == "error" and "Bad Request" in reply.error_message
    assert (reply.error.status, reply.error.code, reply.error.retryable) == (400, "INVALID_ARGUMENT", False)


# -- key and address -------------------------------------------------------------------------


@pytest.mark.parametrize("variable", ["GEMINI_API_KEY", "GOOGLE_API_KEY"])
async def test_the_key_and_address_come_from_the_environment(server, monkeypatch, variable):
    monkeypatch.setenv(variable, SECRET)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url + "/")
    server.script(Turn(text="ok"))
    model = resolve_model("gemini:gemini-2.5-flash")
    _, reply = await stream_once(model, ModelRequest(messages=[GO]))
    assert reply.stop_reason == "stop", reply.error_message
    assert server.requests[-1].headers["x-goog-api-key"] == SECRET
    assert server.requests[-1].path.startswith("/v1beta/")


async def test_gemini_s_own_key_comes_before_google_s(server, monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "google-key")
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)
    server.script(Turn(text="ok"))
    _, reply = await stream_once(
        resolve_model("gemini:gemini-2.5-flash", base_url=server.url), ModelRequest(messages=[GO])
    )
    assert reply.stop_reason == "stop" and server.requests[-1].headers["x-goog-api-key"] == SECRET


async def test_without_a_key_the_round_fails_saying_where_to_put_one_and_sends_nothing(server):
    _, reply = await stream_once(
        resolve_model("gemini:gemini-2.5-flash", base_url=server.url), ModelRequest(messages=[GO])
    )
    assert reply.stop_reason == "error" and reply.error.kind == "credentials"
    assert "no API key: set GEMINI_API_KEY or GOOGLE_API_KEY" in reply.error_message
    assert server.requests == []


# -- what the wire view says of a round ---------------------------------------------------


def test_the_wire_view_counts_a_gemini_round_s_declarations_and_names_its_calling_mode():
    body = {
        "contents": [{"role": "user", "parts": [{"text": "go"}]}],
        "tools": [{"functionDeclarations": [{"name": "a"}, {"name": "b"}]}, {"functionDeclarations": [{"name": "c"}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["a"]}},
    }
    summary = round_summary(1, body, {"provider": "gemini"}, "contents", 0)
    assert '1 messages (1 new), 3 tools, tool_choice "ANY",' in summary
    bare = round_summary(1, {"contents": [], "tools": [{}]}, {"provider": "gemini"}, "contents", 0)
    assert "0 tools, tool_choice null," in bare


# -- what the run shows of odd replies -----------------------------------------------------


@pytest.mark.parametrize(("model_id", "largest"), [("gemini-2.5-flash", 24_576), ("gemini-2.5-pro", 32_768)])
async def test_a_budget_of_exactly_the_largest_is_sent_as_it_is_without_a_notice(server, model_id, largest):
    server.script(Turn(text="ok"))
    updates, _ = await stream_once(_model(server, model_id), ModelRequest(messages=[GO], reasoning=largest))
    assert server.requests[-1].body["generationConfig"]["thinkingConfig"]["thinkingBudget"] == largest
    assert [u.delta for u in updates if u.kind == "notice"] == []


async def test_a_chunk_that_is_not_json_ends_the_round_naming_the_parse_error(server):
    reply = await _raw(server, _chunk({"text": "par"}), b"data: {not json\n\n")
    assert reply.stop_reason == "error"
    assert reply.error_message.startswith("gemini:gemini-2.5-flash failed: JSONDecodeError: Expecting property name")


async def test_an_http_error_page_that_is_not_json_is_shown_and_kept_from_its_start_with_bad_bytes_replaced(server):
    page = b"<html>\xff" + b"x" * 600 + b"</html>"
    server.script(*[Turn(status=502, error_body=page)] * 3)
    gemini = next(case for case in CASES if case.prefix == "gemini")
    run = await gemini.runtime(server, capture_wire=True).arun("Hi.")
    assert run.stop_reason == "error" and "HTTP 502: <html>\ufffdxxx" in str(run.error)
    errors = run.wire(1)[1]["errors"]
    assert [e["status"] for e in errors] == [502, 502, 502]
    assert errors[-1]["body"] == ("<html>\ufffd" + "x" * 600)[:500]


async def test_a_stream_silent_for_longer_than_the_timeout_fails_as_a_timed_out_connection(server):
    server.script(*[Turn(text="slow", frame_delay=0.5)] * 3)
    _, reply = await stream_once(_model(server, timeout=0.1), ModelRequest(messages=[GO]))
    assert reply.stop_reason == "error" and reply.error.kind == "connection"
    assert "ReadTimeout" in reply.error_message and len(server.requests) == 3


async def test_the_wire_capture_keeps_an_error_chunk_whole_with_its_code(server):
    error = {"error": {"code": 400, "message": "the request was odd", "status": "INVALID_ARGUMENT"}}
    server.script(Turn(raw_frames=[sse(_chunk({"text": "par"})), sse(error)]))
    gemini = next(case for case in CASES if case.prefix == "gemini")
    run = await gemini.runtime(server, capture_wire=True).arun("Hi.")
    (failed,) = run.wire(1)[1]["errors"]
    assert failed == {
        "attempt": 1,
        "status": None,
        "code": "INVALID_ARGUMENT",
        "message": "the request was odd",
        "body": error,
    }


async def test_a_block_said_in_an_earlier_chunk_still_refuses_the_round_after_a_later_finish(server):
    reply = await _raw(
        server,
        {"promptFeedback": {"blockReason": "OTHER"}},
        _chunk(finish="STOP", promptFeedback={}),
    )
    assert reply.stop_reason == "error" and reply.error.kind == "refused"
    assert reply.error_message.endswith("Gemini blocked the prompt (OTHER)")


async def test_a_round_that_asks_for_the_provider_s_tool_search_says_gemini_has_none(server):
    server.script(Turn(text="ok"))
    request = ModelRequest(messages=[GO], tools=TOOLS[:1], deferred_tools=TOOLS[1:2])
    updates, _ = await stream_once(_model(server), request)
    assert [u.delta for u in updates if u.kind == "notice"] == [
        "gemini:gemini-2.5-flash: Gemini has no tool search of its own: the package's tool_search tool finds the "
        "1 deferred tool instead (tool_search='provider' asked)"
    ]


async def test_a_retry_policy_given_to_the_model_decides_how_often_a_round_is_sent(server):
    server.script(*[Turn.http_error(503, "busy")] * 3)
    _, reply = await stream_once(_model(server, retry=RetryPolicy(max_retries=0)), ModelRequest(messages=[GO]))
    assert reply.stop_reason == "error" and len(server.requests) == 1


async def test_every_notice_of_a_round_is_said_in_order(server):
    """The provider's missing tool search, a temperature over Gemini's largest, and tools
    allowed under tool_choice auto (which Gemini can say only with ANY)."""
    server.script(Turn(text="ok"))
    request = ModelRequest(messages=[GO], tools=TOOLS, deferred_tools=TOOLS[2:], temperature=3.0, allowed_tools=["add"])
    updates, _ = await stream_once(_model(server), request)
    notices = [u.delta.removeprefix("gemini:gemini-2.5-flash: ") for u in updates if u.kind == "notice"]
    assert notices[:2] == [
        "Gemini has no tool search of its own: the package's tool_search tool finds the 1 deferred tool instead "
        "(tool_search='provider' asked)",
        "Gemini takes a temperature from 0 to 2: temperature=3 was sent as 2",
    ]
    assert len(notices) == 3 and notices[2].startswith("Gemini (with tool_choice auto)")
    body = server.requests[-1].body
    assert body["generationConfig"] == {"temperature": 2.0}
    assert [d["name"] for d in body["tools"][0]["functionDeclarations"]] == ["add"]


def test_without_httpx_sse_the_model_says_what_to_install(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "httpx_sse" else real(name, *a))
    with pytest.raises(ValueError) as refused:
        GeminiModel("gemini-2.5-flash", api_key=SECRET)
    assert str(refused.value) == (
        "the 'gemini' provider needs 'httpx_sse', which is not installed (pip install 'httpx-sse>=0.4')"
    )
