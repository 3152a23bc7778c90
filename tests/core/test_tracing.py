"""``trace=``: a run as OpenTelemetry spans after the GenAI semantic conventions, read back
through the SDK's in-memory exporter and through OTLP/HTTP sent to a receiver on
127.0.0.1; contents only when asked, masked; a clear error without the API; nothing of
OpenTelemetry loaded by ``%load_ext``."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
from typing import ClassVar

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

import openprogram_jupyter as op
from openprogram_jupyter.observe import _tracing

from .conftest import call


def _provider():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def _run_with_a_nested_run(trace, **options) -> op.Run:
    @op.agentic_function(register_globally=False)
    def research(topic: str, runtime=None) -> str:
        """Research a topic."""
        return runtime.exec(f"Research {topic}", toolset="none")

    model = op.ScriptedModel([call("research", topic="owls"), "nested report", "Owls hunt at night."], name="m")
    return op.Runtime(model=model).run("Tell me about owls.", tools=[research], trace=trace, **options)


def test_the_attribute_names_are_the_conventions_own():
    assert (_tracing.OPERATION, _tracing.PROVIDER, _tracing.REQUEST_MODEL, _tracing.RESPONSE_MODEL) == (
        gen_ai.GEN_AI_OPERATION_NAME,
        gen_ai.GEN_AI_PROVIDER_NAME,
        gen_ai.GEN_AI_REQUEST_MODEL,
        gen_ai.GEN_AI_RESPONSE_MODEL,
    )
    assert (_tracing.INPUT_TOKENS, _tracing.OUTPUT_TOKENS, _tracing.CACHE_READ_TOKENS, _tracing.CACHE_WRITE_TOKENS) == (
        gen_ai.GEN_AI_USAGE_INPUT_TOKENS,
        gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS,
        gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
        gen_ai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
    )
    assert (
        _tracing.TOOL_NAME,
        _tracing.TOOL_CALL_ID,
        _tracing.TOOL_ARGUMENTS,
        _tracing.TOOL_RESULT,
        _tracing.FINISH_REASONS,
        _tracing.AGENT_NAME,
        _tracing.OUTPUT_MESSAGES,
    ) == (
        gen_ai.GEN_AI_TOOL_NAME,
        gen_ai.GEN_AI_TOOL_CALL_ID,
        gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS,
        gen_ai.GEN_AI_TOOL_CALL_RESULT,
        gen_ai.GEN_AI_RESPONSE_FINISH_REASONS,
        gen_ai.GEN_AI_AGENT_NAME,
        gen_ai.GEN_AI_OUTPUT_MESSAGES,
    )


def test_a_run_with_two_rounds_a_call_and_a_nested_run_is_one_span_tree():
    provider, exporter = _provider()
    run = _run_with_a_nested_run(provider)
    assert run.text == "Owls hunt at night."
    spans = exporter.get_finished_spans()
    by_id = {span.context.span_id: span for span in spans}

    def parent_name(span) -> str | None:
        return by_id[span.parent.span_id].name if span.parent is not None else None

    tree = sorted((span.name, parent_name(span)) for span in spans)
    assert tree == sorted(
        [
            ("invoke_agent", None),
            ("chat m", "invoke_agent"),  # round 1: picks research
            ("execute_tool research", "invoke_agent"),
            ("invoke_agent research", "execute_tool research"),  # the nested run, under its call
            ("chat m", "invoke_agent research"),
            ("chat m", "invoke_agent"),  # round 2: the answer
        ]
    )
    assert len({span.context.trace_id for span in spans}) == 1
    top = next(s for s in spans if s.name == "invoke_agent")
    assert top.attributes[gen_ai.GEN_AI_OPERATION_NAME] == "invoke_agent"
    assert top.attributes[gen_ai.GEN_AI_AGENT_ID] == run.run_id
    tool = next(s for s in spans if s.name == "execute_tool research")
    assert tool.attributes[gen_ai.GEN_AI_TOOL_NAME] == "research"
    assert tool.attributes[gen_ai.GEN_AI_TOOL_CALL_ID] == run.tool_results[0].tool_call_id
    first_chat = min(
        (s for s in spans if s.name == "chat m" and parent_name(s) == "invoke_agent"), key=lambda s: s.start_time
    )
    assert first_chat.attributes[gen_ai.GEN_AI_OPERATION_NAME] == "chat"
    assert first_chat.attributes[gen_ai.GEN_AI_REQUEST_MODEL] == "m"
    assert tuple(first_chat.attributes[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS]) == ("tool_call",)
    assert gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS not in tool.attributes  # contents only when asked
    assert gen_ai.GEN_AI_OUTPUT_MESSAGES not in first_chat.attributes


def test_a_nested_run_whose_call_reuses_its_parents_call_id_still_nests_and_ends_every_span():
    @op.function(register_globally=False)
    def lookup(key: str) -> str:
        """Look up."""
        return key.upper()

    @op.agentic_function(register_globally=False)
    def research(topic: str, runtime=None) -> str:
        """Research a topic."""
        return runtime.exec(f"Research {topic}", tools=[lookup])

    # Ids are the provider's: nothing keeps a nested run's call from having its parent call's id.
    model = op.ScriptedModel(
        [
            op.ToolCall(id="call-1", name="research", arguments={"topic": "owls"}),
            op.ToolCall(id="call-1", name="lookup", arguments={"key": "owls"}),
            "OWLS",
            "Done.",
        ],
        name="m",
    )
    provider, exporter = _provider()
    run = op.Runtime(model=model).run("Go.", tools=[research], trace=provider)
    assert run.text == "Done."
    spans = exporter.get_finished_spans()
    by_id = {span.context.span_id: span for span in spans}
    parents = {span.name: by_id[span.parent.span_id].name for span in spans if span.parent is not None}
    assert parents["execute_tool lookup"] == "invoke_agent research"
    assert parents["invoke_agent research"] == "execute_tool research"
    assert sorted(span.name for span in spans).count("execute_tool research") == 1  # it ended, once


def test_contents_are_recorded_when_asked_and_masked(monkeypatch):
    from openprogram_jupyter.core import _secrets

    _secrets.remember("sk-live-SECRET-123456")

    @op.function(register_globally=False)
    def echo(text: str) -> str:
        """Echo."""
        return text

    provider, exporter = _provider()
    model = op.ScriptedModel([call("echo", text="key sk-live-SECRET-123456"), "done"], name="m")
    op.Runtime(model=model).run("Echo it.", tools=[echo], trace=provider, trace_content=True)
    spans = exporter.get_finished_spans()
    tool = next(s for s in spans if s.name == "execute_tool echo")
    assert "echo" in tool.name and "SECRET" not in str(dict(tool.attributes))
    assert "key " in tool.attributes[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS]
    assert tool.attributes[gen_ai.GEN_AI_TOOL_CALL_RESULT].startswith("key ")
    answer = [s for s in spans if s.name == "chat m"][-1]
    assert "done" in answer.attributes[gen_ai.GEN_AI_OUTPUT_MESSAGES]


def test_a_key_in_a_tool_name_the_model_made_up_is_masked_in_every_span_name_and_attribute():
    from openprogram_jupyter.core import _secrets

    key = "sk-live-LEAKED-abcdef123456"
    _secrets.remember(key)
    provider, exporter = _provider()
    model = op.ScriptedModel([call(f"leak_{key}", text=f"Bearer z\\'{key}"), f"done {key}"], name=f"m_{key}")
    run = op.Runtime(model=model).run("Go.", tools=[], trace=provider, trace_content=True)
    assert run.tool_results[0].is_error
    spans = exporter.get_finished_spans()
    assert {s.name for s in spans} >= {"execute_tool leak_***", "chat m_***"}
    for span in spans:
        assert "LEAKED" not in span.name and "LEAKED" not in json.dumps(dict(span.attributes), default=str)
        assert "LEAKED" not in str(span.status.description)
    (tool,) = [s for s in spans if s.name.startswith("execute_tool")]
    assert json.loads(tool.attributes[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS]) == {"text": "Bearer ***'***"}


def test_provider_usage_and_errors_reach_the_chat_span():
    provider, exporter = _provider()
    reply = op.AssistantMessage(
        model="anthropic:claude-haiku-4-5",
        content=[op.TextContent(text="hi")],
        usage=op.Usage(input=10, output=3, cache_read=900, cache_write=50),
    )
    model = op.ScriptedModel([reply], name="anthropic:claude-haiku-4-5")
    op.Runtime(model=model).run("Hi.", trace=provider)
    chat = next(s for s in exporter.get_finished_spans() if s.name.startswith("chat"))
    assert chat.name == "chat claude-haiku-4-5"
    assert chat.attributes[gen_ai.GEN_AI_PROVIDER_NAME] == "anthropic"
    assert (
        chat.attributes[gen_ai.GEN_AI_USAGE_INPUT_TOKENS],
        chat.attributes[gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS],
        chat.attributes[gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS],
        chat.attributes[gen_ai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS],
    ) == (10, 3, 900, 50)
    bedrock = "us.anthropic.claude-sonnet-4-5"
    assert _tracing.model_parts(f"bedrock:{bedrock}") == ("aws.bedrock", bedrock)
    assert _tracing.model_parts("gemini:gemini-2.5-flash") == ("gcp.gemini", "gemini-2.5-flash")

    provider, exporter = _provider()
    run = op.Runtime(model=op.ScriptedModel(["never asked"])).run("word " * 4000, trace=provider, context_window=100)
    top = next(s for s in exporter.get_finished_spans() if s.name == "invoke_agent")
    assert run.stop_reason == "error" and top.attributes["error.type"] == "context_length"
    assert top.status.status_code.name == "ERROR"


def test_without_the_api_trace_is_one_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # as if the otel extra were not installed
    with pytest.raises(op.SetupError, match=r"^trace: tracing needs OpenTelemetry's API: pip install "):
        op.Runtime(model=op.ScriptedModel(["x"])).run("Hi.", trace=True)


def _modules_after_load_ext(prefixes: tuple[str, ...], *, warmed_up: bool) -> list[str]:
    """The modules starting with ``prefixes`` that a fresh process holds after ``%load_ext``
    (and, ``warmed_up``, after the warm-up a kernel would run next, run here directly)."""
    warm = (
        (
            "from openprogram_jupyter.jupyter import _LOADED; "
            "from openprogram_jupyter.jupyter._warm_up import warm_up; "
            "magics = _LOADED[id(ip)]; warm_up(magics, magics.runtimes.namespace_runtime); "
        )
        if warmed_up
        else ""
    )
    code = (
        "import json, sys; from IPython.testing.globalipapp import start_ipython; ip = start_ipython(); "
        "ip.run_line_magic('load_ext', 'openprogram_jupyter'); "
        + warm
        + f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({prefixes!r}))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"OPENPROGRAM_MODEL": "offline", "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_load_ext_imports_nothing_of_opentelemetry_and_leaves_the_price_data_to_the_warm_up():
    assert _modules_after_load_ext(("opentelemetry", "genai_prices"), warmed_up=False) == []
    warmed = _modules_after_load_ext(("opentelemetry", "genai_prices"), warmed_up=True)
    assert not [m for m in warmed if m.startswith("opentelemetry")]  # not even the warm-up loads it
    assert "genai_prices" in warmed  # ready for the first cost


class _Receiver(http.server.BaseHTTPRequestHandler):
    bodies: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        self.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def test_an_otlp_http_export_to_loopback_decodes_into_the_same_spans():
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    _Receiver.bodies = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        provider = TracerProvider()
        provider.add_span_processor(
            SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"http://127.0.0.1:{server.server_port}/v1/traces"))
        )
        _run_with_a_nested_run(provider)
        provider.shutdown()
    finally:
        server.shutdown()
    names = []
    for body in _Receiver.bodies:
        request = ExportTraceServiceRequest.FromString(body)
        names += [span.name for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]
    assert sorted(names) == sorted(
        ["invoke_agent", "chat m", "execute_tool research", "invoke_agent research", "chat m", "chat m"]
    )
