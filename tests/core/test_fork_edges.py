"""A fork's refusals by their whole words and what a fork takes over from its run
(docs/testing.md, "Mutation tool", ``engine/forking.py``): a run with no rounds or no
prompt, a tool nothing provides named for the fork, the package's search tool not looked
up, the run's history sent again, and step mode left to the fork."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op

from .conftest import call


def _hand_built(*messages: object) -> op.Run:
    run = op.Run("run_7", "scripted", [])
    run.messages = list(messages)
    run.stop_reason = "stop"
    return run


def test_a_run_without_rounds_cannot_be_forked_and_the_refusal_says_so():
    run = _hand_built(op.UserMessage(content="Hi."))
    live = op.ScriptedModel(["never"])
    with pytest.raises(op.SetupError) as refused:
        run.fork(1, model=live, runtime=op.Runtime(model=live))
    assert str(refused.value) == ("fork: round must be a round of run run_7 (impossible: the run has no rounds), got 1")
    assert refused.value.option == "round"


def test_a_run_without_a_prompt_cannot_be_forked_and_the_refusal_names_it():
    run = _hand_built(op.AssistantMessage(content=[op.TextContent(text="Hello.")]))
    live = op.ScriptedModel(["never"])
    with pytest.raises(op.SetupError) as refused:
        run.fork(1, model=live, runtime=op.Runtime(model=live))
    assert str(refused.value) == "fork: run run_7 has no prompt to start from"
    assert live.requests == []


def test_a_fork_of_a_run_whose_tool_is_gone_names_the_fork_and_the_tool():
    @op.function(register_globally=False)
    def lookup(word: str) -> str:
        """Look a word up."""
        return word

    run = op.Runtime(model=op.ScriptedModel([call("lookup", word="a"), "done"])).run("Go.", tools=[lookup])
    run.spec = None  # as after a trip to another process: only the tool's name is left
    live = op.ScriptedModel(["never"])
    with pytest.raises(op.SetupError) as refused:
        run.fork(2, model=live, runtime=op.Runtime(model=live))
    assert str(refused.value) == (
        "fork: the run used the tool 'lookup', which is no longer registered; pass tools=[...]"
    )


def _deferred_tools() -> list[op.Tool]:
    @op.function(register_globally=False)
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    @op.function(register_globally=False, defer=True)
    def weather(city: str) -> str:
        """The weather in a city."""
        return "sun"

    return [echo, weather]


def test_a_run_with_the_package_s_tool_search_forks_without_looking_the_search_up():
    run = op.Runtime(model=op.ScriptedModel([call("echo", text="a"), "done"])).run("Go.", tools=_deferred_tools())
    assert "tool_search" in run.tools
    live = op.ScriptedModel(["again"])
    forked = run.fork(2, model=live)
    assert forked.text == "again"
    assert [t["name"] for t in live.requests[0].tools] == [t["name"] for t in run.spec.menu.specs()]


def test_a_fork_sends_its_run_s_history_before_the_prompt():
    history = [
        op.UserMessage(content="Earlier question."),
        op.AssistantMessage(content=[op.TextContent(text="Earlier answer.")]),
    ]
    run = op.Runtime(model=op.ScriptedModel(["first"])).run("Now this.", messages=history)
    live = op.ScriptedModel(["second"])
    run.fork(1, model=live)
    assert [m.text for m in live.requests[0].messages] == ["Earlier question.", "Earlier answer.", "Now this."]


def test_a_fork_of_a_step_mode_run_is_not_in_step_mode_unless_asked():
    def approve_all(call, tool):
        return True

    run = op.Runtime(model=op.ScriptedModel(["first"])).run("Go.", step=True, approve=approve_all)
    assert run.spec.settings["step"] is True
    forked = run.fork(1, model=op.ScriptedModel(["second"]))
    assert forked.spec.settings["step"] is False


def test_a_fork_s_replayed_rounds_name_the_run_by_its_variable_else_its_id(monkeypatch):
    from openprogram_jupyter.core import _viewer

    run = op.Runtime(model=op.ScriptedModel([call("echo", text="a"), "done"])).run("Go.", tools=_deferred_tools())
    notice = ": the recorded reply and results, no model request and no tool run"
    assert f"replayed from {run.run_id}{notice}" in repr(run.fork(2, model=op.ScriptedModel(["again"])))
    monkeypatch.setattr(_viewer, "_namer", lambda obj: "first" if obj is run else None)
    assert f"replayed from first{notice}" in repr(run.fork(2, model=op.ScriptedModel(["again"])))
