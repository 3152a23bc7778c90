"""``run.wire`` of replayed runs: the reply is the cassette's, the request is rebuilt for
the model the cassette was recorded from (a cassette holds only a summary of each
request), and a cassette recorded from a model with no wire says so."""

from __future__ import annotations

import json

import pytest
from fakeserver import Call, FakeServer, Turn

import openprogram_jupyter as op
from openprogram_jupyter.models.anthropic import AnthropicModel

from .test_record_and_replay import make_add, record

KEY = "sk-ant-test-replay-wire-0123456789"
PROMPT = "What is 2 + 3, then + 5?"


def _record_live(path) -> tuple[op.Run, list[dict]]:
    """A live run against the loopback server (real Anthropic SDK), recorded and captured."""
    with FakeServer() as server:
        server.script(
            Turn(text="Adding.", calls=[Call("add", {"a": 2, "b": 3}, id="toolu_1")]),
            Turn(calls=[Call("add", {"a": 5, "b": 5}, id="toolu_2")]),
            Turn(text="It is 10."),
        )
        model = AnthropicModel("claude-sonnet-4-5", api_key=KEY, base_url=server.url)
        run = op.Runtime(model=model, record=path, capture_wire=True).run(PROMPT, tools=[make_add()])
        return run, server.bodies()


def test_a_replayed_round_has_the_recorded_reply_and_the_request_the_live_run_sent(tmp_path):
    path = tmp_path / "run.json"
    live, received = _record_live(path)
    assert live.stop_reason == "stop", live.error
    replayed = op.Runtime(model=f"replay:{path}", capture_wire=True).run(PROMPT, tools=[make_add()])
    assert replayed.stop_reason == "stop", replayed.error
    cassette = json.loads(path.read_text())
    for number in (1, 2, 3):
        request, reply = replayed.wire(number)
        assert request == received[number - 1], "rebuilt by the same code from the same messages"
        assert reply["source"] == "cassette" and reply["provider"] == "anthropic"
        assert reply["final"] == cassette["rounds"][number - 1]["reply"]
        assert reply["frames"] == [] and "only the tool names and the last user text" in reply["note"]
    assert live.wire(2)[1]["source"] == "wire"


def test_a_cassette_from_a_model_with_no_wire_says_there_is_no_request_to_rebuild(tmp_path):
    path = tmp_path / "run.json"
    record(path)  # a ScriptedModel's run
    run = op.Runtime(model=f"replay:{path}", capture_wire=True).run(PROMPT, tools=[make_add()])
    assert run.stop_reason == "stop", run.error
    with pytest.raises(
        ValueError,
        match=r"recorded from scripted, which sends nothing over a wire.*"
        r"run\.request_as\(1, 'openai'\)",
    ):
        run.wire(1)
    assert run.request_as(2, "openai")["messages"][-1]["role"] == "tool"


def test_wire_of_a_scripted_run_says_nothing_goes_over_a_wire():
    run = op.Runtime(model=op.ScriptedModel(["hi"]), capture_wire=True).run("hello")
    with pytest.raises(ValueError, match=r"\(scripted\) has no wire: its model sends no request over a wire"):
        run.wire(1)
