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
