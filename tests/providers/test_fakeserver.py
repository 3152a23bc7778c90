"""The loopback server itself: it rejects what the real APIs reject, with their status and
error shape, its event-stream frames carry CRCs botocore checks, and it does not stall."""

from __future__ import annotations

import statistics
import time

import httpx
import pytest
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer
from fakeserver import Turn, event_frame

ORPHAN_CALL = {
    "openai": (
        "/v1/chat/completions",
        {
            "model": "m",
            "messages": [
                {"role": "user", "content": "go"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
                    ],
                },
                {"role": "user", "content": "and?"},
            ],
        },
        lambda body: body["error"]["type"] == "invalid_request_error" and "call_1" in body["error"]["message"],
    ),
    "openai-responses": (
        "/v1/responses",
        {
            "model": "m",
            "input": [
                {"role": "user", "content": "go"},
                {"type": "function_call", "call_id": "call_1", "name": "add", "arguments": "{}"},
            ],
        },
        lambda body: body["error"]["message"] == "No tool output found for function call call_1.",
    ),
    "anthropic": (
        "/v1/messages",
        {
            "model": "m",
            "max_tokens": 10,
            "tools": [{"name": "add", "input_schema": {}}],
            "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}]},
                {"role": "user", "content": [{"type": "text", "text": "and?"}]},
            ],
        },
        lambda body: (
            body["type"] == "error"
            and body["error"]["type"] == "invalid_request_error"
            and "toolu_1" in body["error"]["message"]
        ),
    ),
    "gemini": (
        "/v1beta/models/m:streamGenerateContent?alt=sse",
        {
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "add", "args": {}}}]},
                {"role": "user", "parts": [{"text": "and?"}]},
            ]
        },
        lambda body: body["error"]["status"] == "INVALID_ARGUMENT",
    ),
    "bedrock": (
        "/model/m/converse-stream",
        {
            "messages": [
                {"role": "user", "content": [{"text": "go"}]},
                {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "add", "input": {}}}]},
                {"role": "user", "content": [{"text": "and?"}]},
            ],
            "toolConfig": {"tools": [{"toolSpec": {"name": "add", "inputSchema": {"json": {}}}}]},
        },
        lambda body: "Expected toolResult blocks" in body["message"],
    ),
}


@pytest.mark.parametrize("wire", list(ORPHAN_CALL))
def test_a_tool_call_without_a_result_is_rejected_with_400(server, wire):
    path, body, shape = ORPHAN_CALL[wire]
    reply = httpx.post(server.url + path, json=body)
    assert reply.status_code == 400
    assert shape(reply.json())
    assert server.rejections and server.rejections[0][1].status == 400


def test_event_stream_frames_carry_both_crcs_checked_by_botocore():
    frame = event_frame({":event-type": "messageStart", ":message-type": "event"}, b'{"role": "assistant"}')
    buffer = EventStreamBuffer()
    buffer.add_data(frame)
    message = next(iter(buffer))
    assert message.headers[":event-type"] == "messageStart" and message.payload == b'{"role": "assistant"}'

    corrupted = bytearray(frame)
    corrupted[-6] ^= 0xFF  # a payload byte
    buffer = EventStreamBuffer()
    buffer.add_data(bytes(corrupted))
    with pytest.raises(ChecksumMismatch):
        next(iter(buffer))


def test_keep_alive_requests_do_not_stall_on_delayed_acks(server):
    """With Nagle on, each small reply on a kept-alive connection waits ~40 ms for an ACK."""
    timings = []
    with httpx.Client() as client:
        for _ in range(15):
            started = time.perf_counter()
            reply = client.post(server.url + "/v1/chat/completions", json={"model": "m", "messages": []})
            timings.append(time.perf_counter() - started)
            assert reply.status_code == 400
    assert statistics.median(timings[1:]) < 0.030


SITE = "http://127.0.0.1:8000"  # a JupyterLite site's origin, as a browser sends it
PREFLIGHT = {
    "Origin": SITE,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization,content-type,x-stainless-lang",
}


def test_with_a_cors_origin_a_preflight_from_it_is_allowed_and_every_answer_names_it(server):
    server.cors_origin = SITE
    server.script(Turn(text="hi"))
    preflight = httpx.options(server.url + "/v1/chat/completions", headers=PREFLIGHT)
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == SITE
    assert preflight.headers["access-control-allow-methods"] == "POST"
    assert preflight.headers["access-control-allow-headers"] == "authorization,content-type,x-stainless-lang"
    assert [p["origin"] for p in server.preflights] == [SITE]
    streamed = httpx.post(
        server.url + "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "go"}], "stream": True},
        headers={"Origin": SITE},
    )
    assert streamed.status_code == 200 and streamed.headers["access-control-allow-origin"] == SITE
    refused = httpx.post(server.url + "/v1/chat/completions", json={"model": "m", "messages": []})
    assert refused.status_code == 400 and refused.headers["access-control-allow-origin"] == SITE


def test_a_preflight_from_another_origin_is_refused_without_allowing_its_origin(server):
    server.cors_origin = SITE
    preflight = httpx.options(server.url + "/v1/chat/completions", headers={**PREFLIGHT, "Origin": "http://evil.test"})
    assert preflight.status_code == 403
    assert preflight.headers["access-control-allow-origin"] == SITE  # not the asking origin: the browser refuses
    assert "access-control-allow-headers" not in preflight.headers


def test_without_a_cors_origin_no_answer_allows_a_browser(server):
    server.script(Turn(text="hi"))
    preflight = httpx.options(server.url + "/v1/chat/completions", headers=PREFLIGHT)
    assert preflight.status_code == 501 and server.preflights == []
    streamed = httpx.post(
        server.url + "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "go"}], "stream": True},
    )
    assert streamed.status_code == 200 and "access-control-allow-origin" not in streamed.headers
    assert "access-control-allow-origin" not in preflight.headers
