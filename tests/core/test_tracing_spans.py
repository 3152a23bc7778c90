"""Spans attribute by attribute where a trace reader relies on them (what mutmut found
unpinned in observe/_tracing.py): a failed call's and a failed reply's span carry the
error's kind and message as their status; the reply's content in the conventions' shape;
each stop reason's finish reason; model names split into provider and id; the note that
nothing is exported, given once."""

from __future__ import annotations

import json

import pytest
from opentelemetry import trace as otel
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

import openprogram_jupyter as op
from openprogram_jupyter.core.messages import ReplyError
from openprogram_jupyter.observe import _tracing

from .conftest import call
from .test_tracing import _provider


def _spans(script, tools=(), **options):
    provider, exporter = _provider()
    run = op.Runtime(model=op.ScriptedModel(script, name="m")).run("go", tools=list(tools), trace=provider, **options)
    return run, exporter.get_finished_spans()


def test_a_failed_call_s_span_has_its_status_as_the_error_type_and_its_text_as_the_message():
    @op.function(register_globally=False)
    def boom() -> str:
        """Fails."""
        raise ValueError("no luck")

    run, spans = _spans([call("boom"), "done"], [boom])
    tool = next(s for s in spans if s.name == "execute_tool boom")
    assert tool.attributes["error.type"] == "error"
    assert tool.status.status_code.name == "ERROR" and tool.status.description == run.tool_results[0].text
    unknown = next(s for s in _spans([call("boom"), "done"], [])[1] if s.name.startswith("execute_tool"))
    assert unknown.attributes["error.type"] == "error"  # a tool not on the menu fails too


def test_a_failed_reply_s_chat_and_run_spans_carry_its_kind_and_message():
    failed = op.AssistantMessage(
        content=[], stop_reason="error", error_message="the server is overloaded", error=ReplyError(kind="overloaded")
    )
    run, spans = _spans([failed])
    assert run.stop_reason == "error"
    chat = next(s for s in spans if s.name == "chat m")
    top = next(s for s in spans if s.name == "invoke_agent")
    for span in (chat, top):
        assert span.attributes["error.type"] == "overloaded"
        assert span.status.status_code.name == "ERROR"
        assert span.status.description == "the server is overloaded"
    assert tuple(chat.attributes[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS]) == ("error",)


def test_a_reply_s_content_is_recorded_in_the_conventions_shape():
    _, spans = _spans(["Owls hunt at night."], trace_content=True)
    chat = next(s for s in spans if s.name == "chat m")
    assert json.loads(chat.attributes[gen_ai.GEN_AI_OUTPUT_MESSAGES]) == [
        {"role": "assistant", "parts": [{"type": "text", "content": "Owls hunt at night."}]}
    ]
    assert chat.attributes[gen_ai.GEN_AI_RESPONSE_MODEL] == "m"


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        (
            "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            ("aws.bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        ),
        ("scripted", ("openprogram_jupyter", "scripted")),
        ("local:qwen3:8b", ("local", "qwen3:8b")),
    ],
)
def test_a_model_name_is_its_provider_s_conventional_name_and_the_id_after_the_first_colon(name, parts):
    assert _tracing.model_parts(name) == parts


def test_the_note_that_nothing_is_exported_is_given_once_and_never_for_a_provider_that_exports(monkeypatch):
    monkeypatch.setattr(_tracing, "_UNEXPORTED_SAID", False)
    assert _tracing.unexported_note(TracerProvider()) is None
    monkeypatch.setattr(otel, "get_tracer_provider", lambda: TracerProvider())
    assert _tracing.unexported_note(True) is None
    monkeypatch.setattr(otel, "get_tracer_provider", lambda: otel.ProxyTracerProvider())
    assert _tracing.unexported_note(True) == _tracing.UNEXPORTED_NOTE
    assert _tracing.unexported_note(True) is None  # once per process
    monkeypatch.setattr(_tracing, "_UNEXPORTED_SAID", False)
    assert _tracing.unexported_note(otel.NoOpTracerProvider()) == _tracing.UNEXPORTED_NOTE


def test_trace_true_uses_the_global_provider_s_tracer_named_after_the_package(monkeypatch):
    provider, exporter = _provider()
    monkeypatch.setattr(otel, "get_tracer_provider", lambda: provider)
    op.Runtime(model=op.ScriptedModel(["hi"], name="m")).run("go", trace=True)
    spans = exporter.get_finished_spans()
    assert sorted(s.name for s in spans) == ["chat m", "invoke_agent"]
    assert {s.instrumentation_scope.name for s in spans} == {"openprogram_jupyter"}


def test_a_run_inside_the_user_s_own_span_is_traced_under_it():
    provider, exporter = _provider()
    with provider.get_tracer("notebook").start_as_current_span("cell") as cell:
        op.Runtime(model=op.ScriptedModel(["hi"], name="m")).run("go", trace=provider)
    top = next(s for s in exporter.get_finished_spans() if s.name == "invoke_agent")
    assert top.parent is not None and top.parent.span_id == cell.get_span_context().span_id


def test_a_call_that_returned_is_an_execute_tool_span_with_no_error():
    @op.function(register_globally=False)
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    _, spans = _spans([call("add", a=1, b=2), "3"], [add])
    tool = next(s for s in spans if s.name == "execute_tool add")
    assert tool.attributes[gen_ai.GEN_AI_OPERATION_NAME] == "execute_tool"
    assert "error.type" not in tool.attributes and tool.status.status_code.name == "UNSET"
