"""Error modes, per provider: what is retried, what ends the run, what is kept, and that
the key never shows."""

from __future__ import annotations

import json

import pytest
from fakeserver import Turn

import openprogram_jupyter as op

from .cases import CASE_IDS, CASES, SECRET, make_tools

pytestmark = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)

PARTIAL = "The partial answer that was cut short."


def _replies(run):
    return [m for m in run.messages if m.role == "assistant"]


async def test_429_is_retried_after_the_retry_after_wait(case, server):
    server.script(Turn.http_error(429, "Rate limit reached", retry_after=0.3), Turn(text="ok"))
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "stop", run.error
    assert run.text == "ok"
    assert len(server.requests) == 2
    waited = server.requests[1].received_at - server.requests[0].received_at
    assert waited >= 0.28, f"retry-after 0.3 s was not honoured (waited {waited:.3f} s)"


async def test_500_is_retried(case, server):
    server.script(Turn.http_error(500, "internal"), Turn(text="ok"))
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "stop", run.error
    assert len(server.requests) == 2


async def test_persistent_429_ends_the_run_with_the_providers_message(case, server):
    server.script(*[Turn.http_error(429, "Rate limit reached for requests") for _ in range(3)])
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error"
    assert len(server.requests) == 3, "the first try and two retries (FAST_RETRY.max_retries == 2)"
    assert case.model in str(run.error) and "HTTP 429" in str(run.error)
    assert "Rate limit reached for requests" in str(run.error) and "after 2 retries" in str(run.error)


async def test_a_rejected_request_is_not_retried(case, server):
    server.script(Turn.http_error(400, "Invalid request: something is off"))
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error"
    assert len(server.requests) == 1
    assert "HTTP 400" in str(run.error) and "Invalid request: something is off" in str(run.error)
    assert (run.error.status, run.error.kind, run.error.retryable) == (400, "bad_request", False)


async def test_a_401_is_kept_as_fields_on_the_run_error_and_survives_a_save(case, server):
    server.expected_key = "some-other-key"
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert isinstance(run.error, op.ProviderError) and isinstance(run.error, op.OpenProgramError)
    assert (run.error.status, run.error.kind, run.error.retryable) == (401, "auth", False)
    assert run.error.provider == case.prefix
    assert str(run.error).startswith(f"{case.model} failed, HTTP 401") and "\n" not in str(run.error)
    saved = op.AssistantMessage.model_validate_json(
        [m for m in run.messages if m.role == "assistant"][-1].model_dump_json()
    )
    again = op.ProviderError.of_reply(saved.error_message, saved.error)
    assert (again.status, again.kind, str(again)) == (401, "auth", str(run.error))


async def test_a_refused_key_says_which_key_to_check(case, server, monkeypatch):
    from openprogram_jupyter.core import _key_sources

    server.expected_key = "some-other-key"
    given = await case.runtime(server).arun("Hi.", tools=make_tools())
    assert given.error.kind == "auth", given.error
    assert "Incorrect API key provided: ***; check the api_key= given to the model" in str(given.error)
    if case.prefix == "bedrock":  # credentials from botocore's chain: no one variable to name
        for name in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIATESTTESTTESTTEST")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
        chain = await case.runtime(server, api_key=None).arun("Hi.", tools=make_tools())
        assert str(chain.error).endswith(
            "; check the AWS credentials botocore found (AWS_ACCESS_KEY_ID / "
            "AWS_SECRET_ACCESS_KEY, AWS_PROFILE, AWS_BEARER_TOKEN_BEDROCK or a role)"
        )
        return
    variables = case.runtime(server).model.key_variables
    for name in variables:
        monkeypatch.delenv(name, raising=False)
    first, last = variables[0], variables[-1]
    monkeypatch.setenv(last, SECRET)
    monkeypatch.setitem(_key_sources._ORIGINS, last, "the .env file /lessons/.env")
    from_variable = await case.runtime(server, api_key=None).arun("Hi.", tools=make_tools())
    assert str(from_variable.error).endswith(f"; check the key in {last} (the .env file /lessons/.env)")
    same = await case.runtime(server, api_key=SECRET).arun("Hi.", tools=make_tools())
    assert str(same.error).endswith(f"; check the key in {last} (the .env file /lessons/.env)")  # that very key
    if first != last:  # of two variables set, the one read first is named
        monkeypatch.setenv(first, SECRET)
        both = await case.runtime(server, api_key=None).arun("Hi.", tools=make_tools())
        assert str(both.error).endswith(f"; check the key in {first} ({_key_sources.origin_of(first)})")


async def test_with_no_key_anywhere_a_refusal_names_none(case, server, monkeypatch):
    for name in type(case.runtime(server).model).key_variables:
        monkeypatch.delenv(name, raising=False)
    hint = case.runtime(server, api_key=None).model._refused_key_hint()
    if case.prefix == "bedrock":  # its chain has more places than variables
        assert hint.startswith("; check the AWS credentials botocore found")
    else:
        assert hint == ""


async def test_a_request_refused_for_another_reason_names_no_key(case, server):
    server.script(Turn.http_error(400, "Invalid request: something is off"))
    refused = await case.runtime(server).arun("Hi.", tools=make_tools())
    server.script(*[Turn.http_error(500, "internal") for _ in range(3)])
    failed = await case.runtime(server).arun("Hi.", tools=make_tools())
    assert (refused.error.kind, failed.error.kind) == ("bad_request", "server")
    assert "check" not in str(refused.error) and "check" not in str(failed.error)


async def test_a_persistent_429_is_a_retryable_rate_limit(case, server):
    server.script(*[Turn.http_error(429, "Slow down") for _ in range(3)])
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert (run.error.status, run.error.kind, run.error.retryable) == (429, "rate_limit", True)


async def test_error_frame_mid_stream_keeps_what_arrived_and_is_not_retried(case, server):
    server.script(Turn(text=PARTIAL, error_after=case.frames_before_text, error_message="Overloaded right now"))
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error"
    assert len(server.requests) == 1, "something had streamed: no retry"
    assert "Overloaded right now" in str(run.error)
    reply = _replies(run)[-1]
    assert reply.stop_reason == "error"
    assert reply.text and PARTIAL.startswith(reply.text) and reply.text != PARTIAL


async def test_connection_dropped_mid_stream_keeps_what_arrived(case, server):
    server.script(Turn(text=PARTIAL, cut_after=case.frames_before_text))
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error"
    assert len(server.requests) == 1
    assert "connection failed" in str(run.error)
    reply = _replies(run)[-1]
    assert reply.text and PARTIAL.startswith(reply.text) and reply.text != PARTIAL


async def test_stream_ending_without_its_end_marker_keeps_what_arrived(case, server):
    server.script(Turn(text=PARTIAL, cut_after=case.frames_before_text, cut_cleanly=True))
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error"
    assert len(server.requests) == 1
    assert "the stream ended before" in str(run.error)
    reply = _replies(run)[-1]
    assert reply.text and PARTIAL.startswith(reply.text) and reply.text != PARTIAL


async def test_stream_cut_before_anything_arrived_is_retried(case, server):
    server.script(Turn(text=PARTIAL, cut_after=1 if case.prefix != "gemini" else 0), Turn(text="ok"))
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "stop", run.error
    assert run.text == "ok"
    assert len(server.requests) == 2


async def test_error_frame_before_any_content_is_retried(case, server):
    server.script(Turn(text=PARTIAL, error_after=1 if case.prefix != "gemini" else 0), Turn(text="ok"))
    run = await case.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "stop", run.error
    assert len(server.requests) == 2


async def test_connection_refused_ends_with_a_readable_error(case, server):
    runtime = case.runtime(server)
    server.stop()
    run = await runtime.arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error"
    assert "connection failed" in str(run.error) and "after 2 retries" in str(run.error)


async def test_the_key_never_appears_in_errors_events_reprs_or_html(case, server):
    server.expected_key = "some-other-key"  # → 401 whose message echoes the key we sent
    runtime = case.runtime(server)
    run = await runtime.arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error"
    assert "HTTP 401" in str(run.error) and "Incorrect API key provided" in str(run.error)
    assert server.requests[0].headers  # the key did go out, to the server only
    places = [
        str(run.error),
        repr(run),
        run._repr_html_(),
        run._repr_markdown_(),
        repr(runtime),
        repr(runtime.model),
        str(vars(run)),
    ]
    places += [e.model_dump_json() for e in run.events]
    places += [json.dumps(m.model_dump()) for m in run.messages]
    for place in places:
        assert SECRET not in place
        assert SECRET[8:24] not in place, "not even a fragment of it"


async def test_a_stream_cut_inside_its_tool_calls_leaves_every_call_with_one_result(case, server):
    # Cut after every frame count in turn: before the calls, inside an argument, between
    # calls. However it breaks, no call of the failed reply runs and each has a result.
    from fakeserver import Call

    cut_with_calls = 0
    for cut in range(1, 14):
        server.script(
            Turn(calls=[Call("add", {"a": 1, "b": 2}), Call("mul", {"a": 3, "b": 4})], chunk_size=3, cut_after=cut)
        )
        run = await case.runtime(server).arun("Compute.", tools=make_tools())
        if run.stop_reason != "error":
            continue  # the cut came after the whole reply
        calls = [c for m in _replies(run) for c in m.tool_calls]
        answered = [r for r in run.tool_results]
        assert [r.tool_call_id for r in answered] == [c.id for c in calls], cut
        assert all(r.is_error and r.text.startswith("not run:") for r in answered), cut
        cut_with_calls += bool(calls)
    assert cut_with_calls, "no cut fell inside the calls: the test did not test anything"


async def test_an_address_that_cannot_work_fails_at_once_without_retries(case, server):
    """A URL without http(s):// was tried three times (3.3 s) before failing."""
    runtime = op.Runtime(model=case.model, api_key=SECRET, base_url="ftp://127.0.0.1:9/v1")
    run = await runtime.arun("Hi.", tools=make_tools())
    assert run.stop_reason == "error"
    assert "retries" not in str(run.error), run.error
    assert "connection failed" in str(run.error) and "cannot succeed on retry" in str(run.error)
    assert server.requests == []
