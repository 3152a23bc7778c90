"""A run as OpenTelemetry spans, named and attributed after the GenAI semantic conventions.

With the run setting ``trace`` (``True``: the global tracer provider; or a tracer provider
object) a top-level run's events — its nested runs' included, which reach it — become
spans:

- ``invoke_agent`` for each run (``invoke_agent NAME`` for a nested run, named after the
  agentic function that started it), under the span current where the run started (or,
  nested, under its call's ``execute_tool`` span);
- ``chat MODEL`` for each round's request, from its first streamed piece to its end: the
  request and response model, the provider, input / output / cache tokens and the
  finish reason;
- ``execute_tool NAME`` for each tool call: the tool's name and the call's id, and
  ``error.type`` when it failed.

Message contents — the reply, the tool arguments and results — are recorded only with
``trace_content=True`` (the conventions' content capture). Every span name and every
string attribute — a tool's name too, which the model chooses — has each known secret and
each key shape masked, by the two functions that start spans and set attributes.
Nothing here is imported unless a run traces; the ``otel`` extra (``opentelemetry-api``)
provides the API, and the user's SDK and exporter do the rest.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from ..core._secrets import Secrets
from ..core.events import (
    AgentEndEvent,
    AgentStartEvent,
    Event,
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
)
from ..core.messages import AssistantMessage
from ..models.providers import provider_info

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

__all__ = ["RunSpans", "tracer_for", "unexported_note"]

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
AGENT_NAME = "gen_ai.agent.name"
AGENT_ID = "gen_ai.agent.id"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
OUTPUT_MESSAGES = "gen_ai.output.messages"
ERROR_TYPE = "error.type"

_FINISH_REASON = {"stop": "stop", "toolUse": "tool_call", "length": "length", "error": "error", "aborted": "cancelled"}
TRACER_NAME = "openprogram_jupyter"


def tracer_for(trace: object) -> Tracer:
    """The tracer of ``trace``: the global provider's for ``True``, else the given
    provider's (an object with ``get_tracer``)."""
    from opentelemetry import trace as otel

    provider = trace if trace is not True else otel.get_tracer_provider()
    return provider.get_tracer(TRACER_NAME)  # type: ignore[attr-defined]


UNEXPORTED_NOTE = (
    "Tracing is on (--trace, trace=True) but no OpenTelemetry tracer provider is set up, so no span is "
    "exported. Set one up with an exporter before the run — opentelemetry.trace.set_tracer_provider(provider), "
    "the provider given a span processor and an exporter (OTLP, console) — or pass trace=provider: "
    'docs/tracing.md, "Viewing the traces".'
)
_UNEXPORTED_SAID = False
_said_lock = threading.Lock()


def unexported_note(trace: object) -> str | None:
    """:data:`UNEXPORTED_NOTE` when ``trace`` exports nothing — ``True`` with no global
    provider set (OpenTelemetry's proxy or no-op provider), or a no-op provider given — the
    first time this process asks; ``None`` after that, and for a provider that may export."""
    from opentelemetry import trace as otel

    global _UNEXPORTED_SAID
    provider = otel.get_tracer_provider() if trace is True else trace
    if not isinstance(provider, (otel.ProxyTracerProvider, otel.NoOpTracerProvider)):
        return None
    with _said_lock:
        said, _UNEXPORTED_SAID = _UNEXPORTED_SAID, True
    return None if said else UNEXPORTED_NOTE


def model_parts(model_name: str) -> tuple[str, str]:
    """``(gen_ai.provider.name, gen_ai.request.model)`` of a model name such as
    ``"bedrock:anthropic.claude…"``: the provider's conventional name and the model id."""
    prefix, sep, model_id = model_name.partition(":")
    if not sep:
        return "openprogram_jupyter", model_name  # a model object of the user's (scripted, offline, …)
    info = provider_info(prefix)
    return (info.trace_name or info.prefix) if info is not None else prefix, model_id


class RunSpans:
    """Watches a top-level run's events and keeps its spans (thread-safe: events of
    nested runs and tool bodies arrive from their threads)."""

    def __init__(self, tracer: Tracer, *, content: bool) -> None:
        self._tracer = tracer
        self._content = content
        self._lock = threading.Lock()
        self._runs: dict[str, Span] = {}
        self._chats: dict[str, Span] = {}
        # call id -> its open execute_tool spans (and tool names), newest last: a nested run's
        # calls may reuse its parent call's id (scripted models number calls per run)
        self._tools: dict[str, list[tuple[Span, str]]] = {}

    def watch(self, event: Event) -> None:
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            with self._lock:
                handler(self, event)

    def _start(self, name: str, parent: Span | None, attributes: dict[str, Any]) -> Span:
        from opentelemetry import trace as otel

        context = otel.set_span_in_context(parent) if parent is not None else None
        secrets = Secrets.now()
        return self._tracer.start_span(secrets.mask(name), context=context, attributes=secrets.mask_data(attributes))

    def on_agent_start(self, event: AgentStartEvent) -> None:
        provider, model = model_parts(event.model)
        open_calls = self._tools.get(event.parent_tool_call_id or "")
        parent, agent = open_calls[-1] if open_calls else (None, "")
        attributes = {OPERATION: "invoke_agent", AGENT_ID: event.run_id, PROVIDER: provider, REQUEST_MODEL: model}
        if agent:
            attributes[AGENT_NAME] = agent
        self._runs[event.run_id] = self._start(f"invoke_agent {agent}".strip(), parent, attributes)

    def on_message_start(self, event: MessageStartEvent) -> None:
        if isinstance(event.message, AssistantMessage):
            provider, model = model_parts(event.message.model or "")
            self._chats[event.run_id] = self._start(
                f"chat {model}",
                self._runs.get(event.run_id),
                {OPERATION: "chat", PROVIDER: provider, REQUEST_MODEL: model},
            )

    def on_message_end(self, event: MessageEndEvent) -> None:
        message = event.message
        span = self._chats.pop(event.run_id, None) if isinstance(message, AssistantMessage) else None
        if span is None or not isinstance(message, AssistantMessage):
            return
        usage = message.usage
        _set(
            span,
            {
                RESPONSE_MODEL: model_parts(message.model or "")[1],
                INPUT_TOKENS: usage.input,
                OUTPUT_TOKENS: usage.output,
                CACHE_READ_TOKENS: usage.cache_read,
                CACHE_WRITE_TOKENS: usage.cache_write,
                FINISH_REASONS: [_FINISH_REASON.get(message.stop_reason, message.stop_reason)],
            },
        )
        if message.error is not None:
            _failed(span, message.error.kind, message.error_message or "")
        if self._content:
            _set(
                span,
                {OUTPUT_MESSAGES: _json([{"role": "assistant", "parts": [{"type": "text", "content": message.text}]}])},
            )
        span.end()

    def on_tool_start(self, event: ToolExecutionStartEvent) -> None:
        span = self._start(
            f"execute_tool {event.tool_name}",
            self._runs.get(event.run_id),
            {
                OPERATION: "execute_tool",
                TOOL_NAME: event.tool_name,
                TOOL_CALL_ID: event.tool_call_id,
                TOOL_TYPE: "function",
            },
        )
        if self._content:
            _set(span, {TOOL_ARGUMENTS: _json(event.arguments)})
        self._tools.setdefault(event.tool_call_id, []).append((span, event.tool_name))

    def on_tool_end(self, event: ToolExecutionEndEvent) -> None:
        open_spans = self._tools.get(event.tool_call_id)
        if not open_spans:
            return
        span, _ = open_spans.pop()
        if event.status != "done":
            _failed(span, event.status, event.result.text)
        if self._content:
            _set(span, {TOOL_RESULT: event.result.text})
        span.end()

    def on_agent_end(self, event: AgentEndEvent) -> None:
        span = self._runs.pop(event.run_id, None)
        if span is None:
            return
        chat = self._chats.pop(event.run_id, None)
        if chat is not None:  # a round cut short by the end (a stop while streaming)
            chat.end()
        if event.stop_reason == "error":
            _failed(span, event.error.kind if event.error is not None else "error", event.error_message or "")
        span.end()


def _failed(span: Span, kind: str, message: str) -> None:
    from opentelemetry.trace import Status, StatusCode

    _set(span, {ERROR_TYPE: kind})
    span.set_status(Status(StatusCode.ERROR, Secrets.now().mask(message)))


def _set(span: Span, attributes: dict[str, Any]) -> None:
    """Set ``attributes`` on ``span``, every string in them masked: the one way attributes
    are set after a span starts (:meth:`RunSpans._start` masks its name and first ones)."""
    span.set_attributes(Secrets.now().mask_data(attributes))


def _json(value: object) -> str:
    """``value`` as JSON text, every string in it masked first (masking the text itself
    could take an escaped quote into a mask and break the JSON)."""
    return json.dumps(Secrets.now().mask_data(value), ensure_ascii=False, default=str)


_HANDLERS: dict[type[Event], Any] = {
    AgentStartEvent: RunSpans.on_agent_start,
    MessageStartEvent: RunSpans.on_message_start,
    MessageEndEvent: RunSpans.on_message_end,
    ToolExecutionStartEvent: RunSpans.on_tool_start,
    ToolExecutionEndEvent: RunSpans.on_tool_end,
    AgentEndEvent: RunSpans.on_agent_end,
}
