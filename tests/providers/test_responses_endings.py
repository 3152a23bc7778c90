"""How an OpenAI Responses stream can end besides ``response.completed``: ``response.failed``
(an error, retried only if nothing had streamed and the code says "try later") and
``response.incomplete`` (the token cap is a ``length`` stop; any other reason is an error)."""

from __future__ import annotations

from fakeserver import Turn

from .cases import CASES, make_tools

RESPONSES = next(case for case in CASES if case.prefix == "openai-responses")


def _last_reply(run):
    return [m for m in run.messages if m.role == "assistant"][-1]


async def test_a_failed_response_ends_the_run_with_its_message_and_keeps_the_text(server):
    server.script(Turn(text="Half an answer", failed_code="invalid_prompt", error_message="The prompt was refused"))
    run = await RESPONSES.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error"
    assert "The prompt was refused" in str(run.error)
    assert len(server.requests) == 1, "text had streamed, and the code is not a 'try later' one: no retry"
    reply = _last_reply(run)
    assert (reply.stop_reason, reply.text) == ("error", "Half an answer")


async def test_a_failed_response_that_says_try_later_is_retried_when_nothing_streamed(server):
    server.script(Turn(failed_code="server_error", error_message="The server had a hiccup"), Turn(text="ok"))
    run = await RESPONSES.runtime(server).arun("Hi.", tools=make_tools())

    assert (run.stop_reason, run.text) == ("stop", "ok"), run.error
    assert len(server.requests) == 2


async def test_a_failed_response_without_a_message_still_says_it_failed(server):
    server.script(Turn(failed_code="invalid_prompt", error_message=""))
    run = await RESPONSES.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error" and "the response failed" in str(run.error)


async def test_an_incomplete_response_cut_by_the_content_filter_is_an_error_that_names_the_reason(server):
    server.script(Turn(text="Once upon", stop="content_filter", input_tokens=20, output_tokens=3))
    run = await RESPONSES.runtime(server).arun("Hi.", tools=make_tools())

    assert run.stop_reason == "error"
    assert "the response is incomplete (content_filter)" in str(run.error)
    reply = _last_reply(run)
    assert reply.text == "Once upon" and reply.stop_reason == "error"
    assert (run.usage.input, run.usage.output) == (20, 3), "the round's tokens are billed even so"


async def test_an_incomplete_response_at_the_token_cap_is_a_length_stop(server):
    server.script(Turn(text="Once upon a", stop="length"))
    run = await RESPONSES.runtime(server).arun("Hi.", tools=make_tools())

    assert (_last_reply(run).stop_reason, run.stop_reason, run.text) == ("length", "stop", "Once upon a")
