"""``--trace`` with no OpenTelemetry tracer provider set up says, once, that nothing is
exported and how to set up an exporter (issue 43, item 7)."""

from __future__ import annotations

import warnings

import pytest
from opentelemetry import trace as otel
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import openprogram_jupyter as op
from openprogram_jupyter.observe import _tracing

NOTE = "no OpenTelemetry tracer provider is set up, so no span is exported"


@pytest.fixture
def no_provider(monkeypatch):
    """A process where nothing set a global tracer provider, and no run said so yet."""
    monkeypatch.setattr(otel, "_TRACER_PROVIDER", None)
    monkeypatch.setattr(_tracing, "_UNEXPORTED_SAID", False, raising=False)


def test_a_traced_cell_without_a_provider_says_nothing_is_exported_once(shell, capsys, no_provider):
    assert shell.run_cell("%%agent -m offline --trace -o r\nHello.").success
    first = capsys.readouterr().out
    assert NOTE in first and "docs/tracing.md" in first and "set_tracer_provider" in first
    assert first.count(NOTE) == 1
    assert shell.run_cell("%%agent -m offline --trace -o r\nHello again.").success
    assert NOTE not in capsys.readouterr().out  # once is enough
    shell.user_ns.pop("r", None)


def test_a_traced_python_run_without_a_provider_warns_once(no_provider):
    model = op.ScriptedModel(["one.", "two."])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        op.Runtime(model=model).run("go", trace=True)
        op.Runtime(model=model).run("go", trace=True)
    said = [str(w.message) for w in caught if NOTE in str(w.message)]
    assert len(said) == 1 and "docs/tracing.md" in said[0]


def test_a_run_with_a_provider_that_exports_says_nothing(shell, capsys, no_provider):
    provider = TracerProvider()
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = op.ScriptedModel(["one."])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        op.Runtime(model=model).run("go", trace=provider)
    assert not [w for w in caught if NOTE in str(w.message)] and exporter.get_finished_spans()
