"""A server's ``sampling/createMessage`` answered as the request asks (``sampling_server.py``,
which sends every field the npm reference server leaves out): its ``maxTokens``,
``temperature``, ``stopSequences`` and ``systemPrompt`` reach the model request, and its
model hints choose a model only among those the user allowed with ``op.mcp(...,
sampling_models=[...])`` (docs/tools.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import openprogram_jupyter as op

SAMPLING_SERVER = [sys.executable, str(Path(__file__).with_name("sampling_server.py"))]


def _ask(hints: list[str] | None = None) -> op.ToolCall:
    return op.ToolCall(name="smp_ask_model", arguments={"prompt": "Say hi", **({"hints": hints} if hints else {})})


def test_the_request_s_controls_reach_the_model_request(runtime):
    op.mcp(command=SAMPLING_SERVER, name="smp", runtime=runtime)
    model = op.ScriptedModel([_ask(), "Hi.", "done"])
    runtime.model = model
    run = runtime.run("go")
    assert run.stop_reason == "stop", run.error
    assert run.tool_results[0].text == "sampled scripted: Hi."
    sampling = model.requests[1]  # the nested run's one request
    assert sampling.system == "Answer briefly."
    assert sampling.max_output_tokens == 42
    assert sampling.temperature == 0.3
    assert sampling.stop_sequences == ("STOP",)
    assert [m.text for m in sampling.messages] == ["Say hi"]


def test_a_hint_chooses_a_model_only_among_the_ones_the_user_allowed(runtime):
    chosen = op.ScriptedModel(["Hi from the small one."], name="small-model-1")
    op.mcp(command=SAMPLING_SERVER, name="smp", runtime=runtime, sampling_models=[chosen])
    run_model = op.ScriptedModel([_ask(["gpt-9", "small-model"]), "done"])
    runtime.model = run_model
    run = runtime.run("go")
    assert run.stop_reason == "stop", run.error
    assert run.tool_results[0].text == "sampled small-model-1: Hi from the small one."
    assert len(run_model.requests) == 2 and len(chosen.requests) == 1  # the run's model answered no sample


def test_a_hint_naming_no_allowed_model_leaves_the_run_s_model(runtime):
    other = op.ScriptedModel([], name="small-model-1")
    op.mcp(command=SAMPLING_SERVER, name="smp", runtime=runtime, sampling_models=[other])
    runtime.model = op.ScriptedModel([_ask(["claude-opus", "gpt-9"]), "From the run's model.", "done"])
    run = runtime.run("go")
    assert run.tool_results[0].text == "sampled scripted: From the run's model."
    assert other.requests == []


def test_without_sampling_models_a_hint_never_picks_a_model(runtime):
    op.mcp(command=SAMPLING_SERVER, name="smp", runtime=runtime)
    runtime.model = op.ScriptedModel([_ask(["openai:gpt-4.1", "anthropic"]), "Mine.", "done"])
    run = runtime.run("go")
    assert run.tool_results[0].text == "sampled scripted: Mine."


@pytest.mark.parametrize("bad", ["openai:gpt-4.1", [3], [""]])
def test_sampling_models_must_be_a_list_of_models_or_names(runtime, bad):
    with pytest.raises(op.SetupError, match="sampling_models must be a list of models"):
        op.mcp(command=SAMPLING_SERVER, name="smp", runtime=runtime, sampling_models=bad)
