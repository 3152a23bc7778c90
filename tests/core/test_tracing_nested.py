"""The nested agent's spans, attribute by attribute (issue 45 item 3): the run started inside
a tool call is an ``invoke_agent <tool>`` span carrying the tool's name as the agent's name
and its own run id, under that call's ``execute_tool`` span; the top-level run's span names
no agent."""

from __future__ import annotations

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

from .test_tracing import _provider, _run_with_a_nested_run


def test_the_nested_run_s_span_names_its_tool_as_the_agent_and_carries_its_own_run_id():
    provider, exporter = _provider()
    run = _run_with_a_nested_run(provider)
    spans = {span.name: span for span in exporter.get_finished_spans() if not span.name.startswith("chat")}
    top, tool, nested = spans["invoke_agent"], spans["execute_tool research"], spans["invoke_agent research"]
    assert dict(top.attributes) == {
        gen_ai.GEN_AI_OPERATION_NAME: "invoke_agent",
        gen_ai.GEN_AI_AGENT_ID: run.run_id,
        gen_ai.GEN_AI_PROVIDER_NAME: top.attributes[gen_ai.GEN_AI_PROVIDER_NAME],
        gen_ai.GEN_AI_REQUEST_MODEL: "m",
    }
    assert {k: v for k, v in nested.attributes.items() if k != gen_ai.GEN_AI_AGENT_ID} == {
        gen_ai.GEN_AI_OPERATION_NAME: "invoke_agent",
        gen_ai.GEN_AI_AGENT_NAME: "research",
        gen_ai.GEN_AI_PROVIDER_NAME: top.attributes[gen_ai.GEN_AI_PROVIDER_NAME],
        gen_ai.GEN_AI_REQUEST_MODEL: "m",
    }
    nested_id = nested.attributes[gen_ai.GEN_AI_AGENT_ID]
    assert nested_id.startswith("run_") and nested_id != run.run_id
    assert nested.parent.span_id == tool.context.span_id
    assert tool.attributes[gen_ai.GEN_AI_TOOL_TYPE] == "function"
