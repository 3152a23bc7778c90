"""A rerun of a run whose MCP tool asked for sampling gives the tool the recorded sampling
answer, in order with the call's other answers, and asks no model: the recorded reply
comes back the way a ``ctx.ask`` answer does (docs/tools.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import openprogram_jupyter as op
from tests.mcp_reference.test_sampling import SAMPLE, _sampled_reply

SAMPLING_SERVER = [sys.executable, str(Path(__file__).parents[1] / "tool_sources" / "sampling_server.py")]


class _MustNotBeAsked(op.ScriptedModel):
    """A model that fails the test the moment a request reaches it."""

    def __init__(self) -> None:
        super().__init__([], name="scripted")

    def stream(self, request, out):
        raise AssertionError(f"the rerun asked the model: {request.messages[-1].text!r}")


def test_a_rerun_gives_the_recorded_sampling_answer_back_without_asking_the_model(runtime, everything):
    runtime.model = op.ScriptedModel([SAMPLE, _sampled_reply("Sampled hello.", 7), "done"])
    recorded = runtime.run("go")
    assert recorded.stop_reason == "stop", recorded.error
    runtime.model = _MustNotBeAsked()

    again = recorded.rerun()

    assert again.stop_reason == "stop", (again.error, again.divergence)
    assert again.divergence is None
    [result] = again.tool_results
    assert result.text == recorded.tool_results[0].text and '"text": "Sampled hello."' in result.text
    assert result.details["answers"][0]["recorded"] is True
    assert again.usage.input == 0  # no nested run this time


def test_a_sampling_request_the_recording_refused_is_refused_again_without_asking(runtime):
    op.mcp(command=SAMPLING_SERVER, name="smp", runtime=runtime)
    runtime.approve = op.policy(deny=["mcp_sampling:smp"])
    runtime.model = op.ScriptedModel([op.ToolCall(name="smp_ask_model", arguments={"prompt": "Hi"}), "done"])
    recorded = runtime.run("go")
    assert recorded.tool_results[0].status == "error"
    runtime.approve = None  # no policy now: still the recorded refusal, not a live answer
    runtime.model = _MustNotBeAsked()

    again = recorded.rerun()

    [result] = again.tool_results
    assert result.status == "error" and "in the recorded run it got no answer either" in result.text


def test_governed_action_on_an_event_loop_s_thread_refuses_instead_of_waiting_forever():

    @op.function(register_globally=False)
    async def eager(ctx: op.ToolContext) -> str:
        """Asks for a governed action from its own event loop's thread."""
        return ctx.governed_action("mcp_sampling:x", {}, "a question", lambda: "never")

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="eager", arguments={}), "done"])).run("go", tools=[eager])
    [result] = run.tool_results
    assert result.status == "error" and "governed_action blocks its thread" in result.text
