"""``--no-parallel`` on every provider's own field, and every stop or finish reason each
provider documents read into the run's stop reason or an error kind with words — a reason
no table knows is read as finished, with a notice naming it. Asserted against the loopback
server with the real SDK clients."""

from __future__ import annotations

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op

from .cases import CASE_IDS, CASES, make_tools

BY_PREFIX = {case.prefix: case for case in CASES}

NOT_PARALLEL = {
    "openai": {"tool_choice": "auto", "parallel_tool_calls": False},
    "openai-responses": {"tool_choice": "auto", "parallel_tool_calls": False},
    "anthropic": {"type": "auto", "disable_parallel_tool_use": True},
    "gemini": {"functionCallingConfig": {"mode": "AUTO"}},
    "bedrock": {"toolChoice": None, "additional": {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}},
}


def notices(run: op.Run) -> list[str]:
    return [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_no_parallel_is_each_providers_own_field_or_a_notice(case, server):
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2}), Call("mul", {"a": 2, "b": 3})]), Turn(text="Done."))
    run = await case.runtime(server).arun("Go.", tools=make_tools(), parallel_tool_calls=False)
    assert run.stop_reason == "stop", run.error
    assert case.choice(server.requests[0].body) == NOT_PARALLEL[case.prefix]
    assert len(run.tool_results) == 2, "every call the model returned is run and answered"
    said = [n for n in notices(run) if "one call at a time" in n]
    assert said == (
        [
            "gemini:gemini-2.5-flash: Gemini cannot be told to make one call at a time (parallel_tool_calls=False "
            "was not sent); every call it returns is run in order"
        ]
        * 2
        if case.prefix == "gemini"
        else []
    )


# (provider, its own word, the reply's stop reason, the error kind or None, the words)
ENDINGS = [
    ("openai", "stop", "stop", None, None),
    ("openai", "function_call", "stop", None, None),
    ("openai", "length", "length", None, None),
    ("openai", "content_filter", "error", "refused", "the provider's content filter stopped the reply"),
    ("openai-responses", "max_output_tokens", "length", None, None),
    (
        "openai-responses",
        "content_filter",
        "error",
        "refused",
        "the provider's content filter stopped it",
    ),
    (
        "openai-responses",
        "max_messages",
        "error",
        "incomplete",
        "it reached the most messages it may hold",
    ),
    (
        "openai-responses",
        "steered",
        "error",
        "incomplete",
        "it was ended early by steering",
    ),
    ("anthropic", "end_turn", "stop", None, None),
    ("anthropic", "stop_sequence", "stop", None, None),
    ("anthropic", "max_tokens", "length", None, None),
    ("anthropic", "refusal", "error", "refused", "the model refused to answer"),
    (
        "anthropic",
        "pause_turn",
        "error",
        "incomplete",
        "the provider paused a long turn of its server tools; what came so far is kept",
    ),
    (
        "anthropic",
        "model_context_window_exceeded",
        "error",
        "context_length",
        "the reply filled the model's context window",
    ),
    ("gemini", "STOP", "stop", None, None),
    ("gemini", "MAX_TOKENS", "length", None, None),
    ("gemini", "SAFETY", "error", "refused", "Gemini's safety filters stopped the reply"),
    ("gemini", "RECITATION", "error", "refused", "the reply recited its training data too closely"),
    ("gemini", "LANGUAGE", "error", "incomplete", "the reply was in a language Gemini does not support"),
    ("gemini", "BLOCKLIST", "error", "refused", "the reply held a term on the blocklist"),
    ("gemini", "PROHIBITED_CONTENT", "error", "refused", "the reply may hold prohibited content"),
    ("gemini", "SPII", "error", "refused", "the reply may hold sensitive personal information"),
    ("gemini", "IMAGE_SAFETY", "error", "refused", "an image in the reply was stopped by Gemini's safety filters"),
    ("gemini", "MALFORMED_FUNCTION_CALL", "error", "incomplete", "the model wrote a function call that is not valid"),
    ("gemini", "UNEXPECTED_TOOL_CALL", "error", "incomplete", "the model called a tool when no tool was on offer"),
    (
        "gemini",
        "TOO_MANY_TOOL_CALLS",
        "error",
        "incomplete",
        "the model made more tool calls in a row than Gemini allows",
    ),
    ("gemini", "OTHER", "error", "incomplete", "Gemini stopped the reply without saying why"),
    ("bedrock", "end_turn", "stop", None, None),
    ("bedrock", "stop_sequence", "stop", None, None),
    ("bedrock", "max_tokens", "length", None, None),
    ("bedrock", "guardrail_intervened", "error", "refused", "a Bedrock guardrail stopped the reply"),
    ("bedrock", "content_filtered", "error", "refused", "Bedrock's content filter stopped the reply"),
    ("bedrock", "malformed_model_output", "error", "incomplete", "the model's output could not be read"),
    ("bedrock", "malformed_tool_use", "error", "incomplete", "the model wrote a tool call that is not valid"),
    (
        "bedrock",
        "model_context_window_exceeded",
        "error",
        "context_length",
        "the reply filled the model's context window",
    ),
]


@pytest.mark.parametrize(("prefix", "word", "stop", "kind", "words"), ENDINGS, ids=[f"{e[0]}-{e[1]}" for e in ENDINGS])
async def test_each_documented_reason_ends_the_reply_in_words(prefix, word, stop, kind, words, server):
    server.script(Turn(text="Half of it", raw_stop=word))
    case = BY_PREFIX[prefix]
    run = await case.runtime(server).arun("Hi.")
    reply = run.messages[-1]
    assert reply.stop_reason == stop
    assert reply.text == "Half of it", "what came is kept"
    if kind is None:
        assert run.stop_reason == "stop" and run.error is None
    else:
        assert run.stop_reason == "error"
        assert run.error.kind == kind
        said = f"the response is incomplete ({word}): {words}" if prefix == "openai-responses" else f"{words} ({word})"
        assert reply.error_message == f"{case.model}: {said}"
    assert not [n for n in notices(run) if "does not know" in n]


def test_every_reason_the_sdks_and_botocore_list_has_a_row():
    """The tables hold every value the installed SDKs' types list (Gemini has no SDK here)."""
    import gzip
    import json
    import typing
    from importlib import resources

    from anthropic.types import StopReason
    from openai.types.chat.chat_completion_chunk import Choice
    from openai.types.responses.response import IncompleteDetails

    from openprogram_jupyter.models import _stop_reasons

    assert set(typing.get_args(StopReason)) == set(_stop_reasons.ANTHROPIC)
    chat = typing.get_args(typing.get_args(Choice.model_fields["finish_reason"].annotation)[0])
    assert set(chat) == set(_stop_reasons.OPENAI_CHAT)
    incomplete = typing.get_args(typing.get_args(IncompleteDetails.model_fields["reason"].annotation)[0])
    assert set(incomplete) == set(_stop_reasons.RESPONSES_INCOMPLETE)
    path = resources.files("botocore") / "data/bedrock-runtime/2023-09-30/service-2.json.gz"
    shapes = json.loads(gzip.decompress(path.read_bytes()))["shapes"]
    assert set(shapes["StopReason"]["enum"]) == set(_stop_reasons.BEDROCK)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_reason_no_table_knows_is_read_as_finished_with_a_notice(case, server):
    word = "incomplete_details_pending" if case.prefix == "openai-responses" else "brand_new_reason"
    server.script(Turn(text="All of it", raw_stop=word))
    run = await case.runtime(server).arun("Hi.")
    if case.prefix == "openai-responses":  # an incomplete response is never read as finished
        assert run.stop_reason == "error" and run.error.kind == "incomplete"
        assert run.messages[-1].error_message == f"{case.model}: the response is incomplete ({word})"
        return
    assert run.stop_reason == "stop" and run.text == "All of it"
    assert notices(run) == [
        f"{case.model}: the provider ended the reply for a reason this version does not know ({word}); "
        "it was read as finished"
    ]
