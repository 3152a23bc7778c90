"""``Runtime(capture_wire=True)`` against the loopback server with the real SDKs: what
``run.wire(n)`` says was sent is what the server received, with no secret in it."""

from __future__ import annotations

import dataclasses
import json

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op

from .cases import CASE_IDS, CASES, SECRET, make_tools


def _script(server):
    server.script(
        Turn(text="Let me compute.", calls=[Call("add", {"a": 2, "b": 3}), Call("mul", {"a": 4, "b": 5})]),
        Turn(calls=[Call("add", {"a": 5, "b": 20})]),
        Turn(text="The answer is 25."),
    )


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_captured_request_is_the_body_the_server_received(case, server):
    _script(server)
    run = await case.runtime(server, capture_wire=True).arun(f"Compute things. Never say {SECRET}.",
                                                             tools=make_tools())
    assert run.stop_reason == "stop", run.error
    assert len(server.requests) == 3
    for number, recorded in enumerate(server.requests, start=1):
        request, reply = run.wire(number)
        received = recorded.body  # json.loads of the bytes the server read
        # the prompt held the secret: masked on both sides' account, so compare with it masked
        assert request == json.loads(json.dumps(received).replace(SECRET, "***"))
        assert reply["frames"], "the frames as received are kept"
        assert reply["final"] is not None
        captured = json.dumps([request, reply])
        assert SECRET not in captured


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_final_reply_folds_the_streamed_text_and_calls(case, server):
    _script(server)
    run = await case.runtime(server, capture_wire=True).arun("Compute.", tools=make_tools())
    first = json.dumps(run.wire(1)[1]["final"])
    assert "Let me compute." in first and "add" in first and "mul" in first
    assert "The answer is 25." in json.dumps(run.wire(3)[1]["final"])


async def test_wire_without_capture_says_to_pass_capture_wire(server):
    _script(server)
    run = await CASES[0].runtime(server).arun("Compute.", tools=make_tools())
    with pytest.raises(ValueError, match="capture_wire=True"):
        run.wire(1)


async def test_wire_of_an_uncaptured_round_names_the_valid_rounds(server):
    _script(server)
    run = await CASES[0].runtime(server, capture_wire=True).arun("Compute.", tools=make_tools())
    with pytest.raises(ValueError, match="1 to 3"):
        run.wire(4)
    with pytest.raises(ValueError, match="1 to 3"):
        run.wire(0)


class _Recording(op.Model):
    """A provider model whose every request is kept (what ``ScriptedModel.requests`` keeps)."""

    def __init__(self, inner: op.Model) -> None:
        self.inner, self.name, self.requests = inner, inner.name, []

    def stream(self, request, out):
        # A copy: the loop goes on appending to the request's list of messages.
        self.requests.append(dataclasses.replace(request, messages=list(request.messages)))
        return self.inner.stream(request, out)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_wire_preview_builds_offline_the_body_the_provider_sends(case, server):
    _script(server)
    runtime = case.runtime(server)
    recording = _Recording(runtime.model)
    run = await op.Runtime(model=recording).arun("Compute.", tools=make_tools())
    assert run.stop_reason == "stop", run.error
    for request, recorded in zip(recording.requests, server.requests, strict=True):
        assert op.wire_preview(request, case.model) == recorded.body


def test_wire_preview_refuses_what_has_no_wire():
    with pytest.raises(TypeError, match="needs a ModelRequest"):
        op.wire_preview({"messages": []}, "openai:gpt-4.1-mini")


def test_side_by_side_shows_each_body_in_its_column_escaped():
    shown = op.side_by_side({"OpenAI": {"a": "<b>"}, "Anthropic": {"b": 2}})._repr_mimebundle_()
    html = shown["text/html"]
    assert html.count("<td") == 2 and "&lt;b&gt;" in html and "<b>" not in html
    assert shown["text/plain"].startswith("== OpenAI\n{")
