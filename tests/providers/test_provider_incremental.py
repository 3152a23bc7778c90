"""A provider model reuses what it built for the round before (``models/_incremental``):
the history's messages converted and encoded once each. Whatever the history, each round's
body must be what a model building it from nothing gives, byte for byte, however the
history grew — a steering message joining the results' user message, an image, a run
that starts over, prompt-cache marks on the newest message."""

from __future__ import annotations

import json

import pytest

from openprogram_jupyter.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models._incremental import HistoryMemo, encode_json
from openprogram_jupyter.models.base import ModelRequest

from .cases import CASES, make_tools

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
ENCODED = {  # bodies we encode: the list
    "openai": "messages",
    "openai-responses": "input",
    "anthropic": "messages",
    "gemini": "contents",
}
TOOLS = [tool.spec for tool in make_tools()]


def _round(n: int) -> list:
    call = ToolCall(id=f"call_{n}", name="add", arguments={"a": n, "b": 1})
    reply = AssistantMessage(content=[TextContent(text=f"step {n}"), call])
    content = [TextContent(text=str(n + 1))] + ([ImageContent(data=PIXEL, mime_type="image/png")] if n == 2 else [])
    return [reply, ToolResultMessage(tool_call_id=f"call_{n}", tool_name="add", content=content)]


def _histories() -> list[list]:
    """Growing histories of one conversation, then new ones, shorter and longer (the memo
    must start over)."""
    conversation: list = [UserMessage(content="Add one at a time — façade, ✓.")]  # not ASCII: escaped or not
    out = []
    for n in range(6):
        conversation.extend(_round(n))
        if n == 3:  # a steering message after the results: joins their user message
            conversation.append(UserMessage(content="Faster, please."))
        out.append(conversation[:])
        out.append(conversation)  # the same list object the loop passes, grown in place
        conversation = conversation[:]
    # a last message that sends nothing: the newest message sent is one built before (a
    # prompt-cache mark must copy it), then a round that reuses it
    out.append([*conversation, UserMessage(content="")])
    out.append([*out[-1], *_round(6)])
    out.append([UserMessage(content="Another run."), *_round(0)])
    longer = [UserMessage(content="A longer one."), *(m for n in range(8) for m in _round(n))]
    out.append(longer)  # not the history before, though longer than it
    out.append([UserMessage(content="Only this.")])  # one message: the body's only part
    return out


@pytest.mark.parametrize("prompt_cache", [False, True], ids=["plain", "prompt_cache"])
@pytest.mark.parametrize("case", CASES, ids=[c.prefix for c in CASES])
def test_each_round_is_the_body_a_fresh_model_builds(case, prompt_cache):
    model = resolve_model(case.model, api_key="sk-test-not-sent", base_url="http://127.0.0.1:9")
    for history in _histories():
        request = ModelRequest(messages=history, system="Be brief.", tools=TOOLS, prompt_cache=prompt_cache)
        fresh = resolve_model(case.model, api_key="sk-test-not-sent", base_url="http://127.0.0.1:9")
        expected, _ = fresh._prepare(request)
        payload, _ = model._prepare(request)
        assert payload == expected
        if case.prefix in ENCODED:
            # the bytes sent: each message's JSON kept from the rounds before, joined
            sent = model._history.encode(payload, ENCODED[case.prefix])
            assert sent == encode_json(expected)
            assert json.loads(sent) == expected
        if case.prefix == "bedrock":
            # what botocore would serialize for the whole payload, and the wire capture's body
            assert _bedrock_body(model, payload) == _botocore_body(fresh, expected)
            assert model._wire_body(payload) == fresh._wire_body(expected)


def _botocore_body(model, payload) -> bytes:
    """The body botocore serializes for ``payload`` (its validation passing)."""
    from botocore.serialize import create_serializer
    from botocore.validate import ParamValidator

    operation = model._client().meta.service_model.operation_model("ConverseStream")
    assert not ParamValidator().validate(payload, operation.input_shape).has_errors()
    return create_serializer("rest-json").serialize_to_request(payload, operation)["body"]


def _bedrock_body(model, payload) -> bytes:
    """The body ours sends: botocore's for the stand-in, the encoded messages put in."""
    from openprogram_jupyter.models import _bedrock_body

    client = model._client()
    stand_in, messages = model._split(client, payload)
    params = {"body": _botocore_body(model, stand_in)}
    _bedrock_body.SENDING.messages = messages
    try:
        _bedrock_body.put_messages(params)
    finally:
        _bedrock_body.SENDING.messages = None
    return params["body"]


def test_encoding_keeps_each_message_s_bytes_apart_from_the_body_s_ends():
    """The body is joined once, the ends (the fields before and after the list) joined to
    the first and last message only for that join: the bytes kept for the next round are
    each message's own, and an empty list is ``[]``."""
    memo = HistoryMemo()
    first, second = {"role": "user", "content": "é"}, {"role": "assistant", "content": "ok"}
    for body in (
        {"model": "m", "messages": [first], "stream": True},
        {"model": "m", "messages": [first, second], "stream": True},
        {"model": "m", "messages": [first, second], "max_tokens": 5},
        {"model": "m", "messages": [first]},
        {"model": "m", "messages": []},
    ):
        assert memo.encode(body, "messages") == encode_json(body)
        assert memo.encode(body, "messages") == encode_json(body)  # again, from the kept bytes alone


def test_the_encoded_items_handed_out_are_not_changed_by_the_next_round():
    """``encode_items`` (Bedrock's) hands out a list of its own: the memo's next round,
    which drops and adds bytes in its kept list, leaves the list handed out before alone."""
    memo = HistoryMemo()
    first, second, third = {"n": 1}, {"n": 2}, {"n": 3}
    handed = memo.encode_items([first, second], encode_json)
    assert memo.encode_items([first, third], encode_json) == [b'{"n":1}', b'{"n":3}']
    assert handed == [b'{"n":1}', b'{"n":2}']


async def test_bedrock_never_sends_the_stand_in_for_its_messages(server, monkeypatch):
    """botocore is handed a one-message stand-in and the encoded messages take its place
    before signing; were they not put in, the request is refused before it is sent."""
    from openprogram_jupyter.models import _bedrock_body

    monkeypatch.setattr(_bedrock_body, "put_messages", lambda params, **_: None)
    case = next(c for c in CASES if c.prefix == "bedrock")
    run = await case.runtime(server).arun("Hi.")
    assert run.stop_reason == "error"
    assert "the request's messages were not put in its body; nothing was sent" in str(run.error)
    assert server.requests == []


def _numbered_step(out: list, entry) -> None:
    """A stand-in provider step: one wire message per history entry, naming its source."""
    source = entry if isinstance(entry, UserMessage) else entry.message
    out.append({"source": source.content if isinstance(source, UserMessage) else source.content[0].text})


def _conversation(rounds: int, opening: str) -> list:
    return [UserMessage(content=opening), *(m for n in range(rounds) for m in _round(n))]


def test_a_round_whose_step_fails_leaves_the_memo_as_a_fresh_one():
    """A step that raises part way through extending the memo (a message the provider cannot
    translate) must not leave half of the new messages behind: the next round builds what a
    fresh memo builds."""
    memo, history = HistoryMemo(), _conversation(2, "start")
    memo.build(history, _numbered_step)
    longer = [*history, *_round(2), *_round(3)]

    def failing(out: list, entry) -> None:
        if len(out) == 3:  # one new message added: the next one fails
            raise ValueError("cannot translate this message")
        _numbered_step(out, entry)

    with pytest.raises(ValueError, match="cannot translate"):
        memo.build(longer, failing)
    assert memo.build(longer, _numbered_step) == HistoryMemo().build(longer, _numbered_step)


def test_two_runs_on_one_model_at_once_each_get_their_own_history():
    """Two threads building on one memo: the second waits while the first extends it, so
    neither sends the other's messages (the memo's lists are extended in place)."""
    import threading

    memo = HistoryMemo()
    first, second = _conversation(3, "first run"), _conversation(2, "second run")
    memo.build(first[:3], _numbered_step)
    paused, resume = threading.Event(), threading.Event()

    def slow(out: list, entry) -> None:
        if len(out) == 2:  # part way through extending: let the other run try its build
            paused.set()
            resume.wait(5)
        _numbered_step(out, entry)

    results: dict[str, list] = {}
    one = threading.Thread(target=lambda: results.update(first=memo.build(first, slow)))
    one.start()
    assert paused.wait(5)
    other = threading.Thread(target=lambda: results.update(second=memo.build(second, _numbered_step)))
    other.start()
    other.join(0.3)  # with the lock it is still waiting; without, it has rebuilt the memo
    resume.set()
    one.join(5)
    other.join(5)
    assert results["first"] == HistoryMemo().build(first, _numbered_step)
    assert results["second"] == HistoryMemo().build(second, _numbered_step)
