"""server-everything's ``trigger-sampling-request`` asks the client's model for a reply
(``sampling/createMessage``): the notebook answers with a nested run of the calling run's
Runtime, inside the call — shown under it, counted in the run's usage, within its depth cap."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from tests.tool_sources.reference_servers import everything_command

SAMPLE = op.ToolCall(name="ev_trigger-sampling-request", arguments={"prompt": "Say hi", "maxTokens": 50})


def _sampled_reply(text: str, tokens: int) -> op.AssistantMessage:
    return op.AssistantMessage(content=[op.TextContent(text=text)], usage=op.Usage(input=tokens, output=tokens))


def test_a_sampling_request_is_answered_by_the_run_s_model_in_a_nested_run(runtime, everything):
    model = op.ScriptedModel([SAMPLE, _sampled_reply("Sampled hello.", 7), "done"])
    runtime.model = model
    run = runtime.run("go")
    assert run.stop_reason == "stop", run.error
    [result] = run.tool_results
    assert '"text": "Sampled hello."' in result.text and '"model": "scripted"' in result.text
    sampling = model.requests[1]  # the nested run's one request
    assert sampling.system == "You are a helpful test server."
    assert sampling.tools == []
    assert [m.text for m in sampling.messages] == ["Resource trigger-sampling-request context: Say hi"]
    assert run.usage.input == 7 and run.usage.output == 7  # the nested run's tokens count in the run's
    assert "nested run · model scripted" in repr(run)  # under the call, in its card and transcript


def test_a_run_at_its_depth_cap_refuses_the_sample_and_the_tool_says_so(clean_registry):
    with op.Runtime(model="offline", max_depth=0) as shallow:
        with pytest.warns(UserWarning, match="not offered"):  # its task-only tool
            op.mcp(command=everything_command(), name="ev", runtime=shallow)
        shallow.model = op.ScriptedModel([SAMPLE, "done"])
        run = shallow.run("go")
    assert run.stop_reason == "stop", run.error
    [result] = run.tool_results
    assert result.status == "error"
    assert "the notebook's model did not answer" in result.text and "depth" in result.text


def _requests_to(model: op.ScriptedModel) -> int:
    return len(model.requests)


def test_a_deny_rule_naming_the_sampling_action_refuses_it_and_the_server_is_told_why(runtime, everything):
    runtime.approve = op.policy(deny=["mcp_sampling:*"])
    model = op.ScriptedModel([SAMPLE, "done"])
    runtime.model = model
    run = runtime.run("go")
    assert run.stop_reason == "stop", run.error
    [result] = run.tool_results
    assert result.status == "error"  # the server's tool failed: its request was refused
    assert (
        "the notebook refused the sampling request: denied by rule 'deny mcp_sampling:*' of the approval policy"
        in result.text
    )
    assert _requests_to(model) == 2  # the run's two rounds: no nested run asked the model
    [answer] = result.details["answers"]
    assert answer["action"] == "mcp_sampling:ev" and "denied by rule" in answer["unanswered"]


def test_under_default_ask_the_sampling_request_is_asked_about_by_its_action_name(runtime, everything):
    asked: list[tuple[str, dict]] = []

    def approver(request):
        asked.append((request.tool_name, dict(request.arguments)))
        return request.tool_name != "mcp_sampling:ev"  # the tool call runs; its sampling is refused

    runtime.approve = op.policy(default="ask", ask_with=approver)
    runtime.model = op.ScriptedModel([SAMPLE, "done"])
    run = runtime.run("go")
    assert asked == [
        ("ev_trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 50}),
        ("mcp_sampling:ev", {"prompt": "Resource trigger-sampling-request context: Say hi", "model": "scripted"}),
    ]
    [result] = run.tool_results
    assert result.status == "error"
    assert (
        "the notebook refused the sampling request: denied: the user did not approve this call to mcp_sampling:ev"
        in (result.text)
    )


def test_an_allow_rule_lets_the_sampling_request_through(runtime, everything):
    runtime.approve = op.policy(allow=["ev_*", "mcp_sampling:ev(model=scripted)"], default="deny")
    runtime.model = op.ScriptedModel([SAMPLE, "Allowed.", "done"])
    run = runtime.run("go")
    [result] = run.tool_results
    assert result.status == "done" and '"text": "Allowed."' in result.text


def test_a_reply_cut_at_the_request_s_max_tokens_is_reported_as_such(runtime, everything):
    cut = op.AssistantMessage(content=[op.TextContent(text="Hello, and")], stop_reason="length")
    model = op.ScriptedModel([SAMPLE, cut, "done"])
    runtime.model = model
    run = runtime.run("go")
    [result] = run.tool_results
    assert model.requests[1].max_output_tokens == 50  # the tool's maxTokens, as the request's
    assert model.requests[1].temperature == 0.7
    assert '"stopReason": "maxTokens"' in result.text and '"text": "Hello, and"' in result.text


def test_a_whole_reply_ends_its_turn(runtime, everything):
    runtime.model = op.ScriptedModel([SAMPLE, "Whole.", "done"])
    [result] = runtime.run("go").tool_results
    assert '"stopReason": "endTurn"' in result.text
