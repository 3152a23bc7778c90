from __future__ import annotations

from typing import Any

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.models.providers import SECRET_ENV_VARS
from openprogram_jupyter.tools.registry import default_registry


@pytest.fixture(autouse=True)
def clean_registry():
    """Every test starts and ends with an empty global registry."""
    default_registry.clear()
    yield
    default_registry.clear()


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch):
    """Key variables of the machine running the tests must not leak into cassettes or runs."""
    for name in (*SECRET_ENV_VARS, "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OPENPROGRAM_MODEL"):
        monkeypatch.delenv(name, raising=False)


def transcript(run: op.Run) -> list[dict[str, Any]]:
    """The run's messages as data, without what legitimately differs between two runs:
    timestamps, the model's display name, and the duration of each tool call."""
    out = []
    for message in run.messages:
        data = message.model_dump(mode="json", exclude={"timestamp", "model"})
        data.get("details", {}).pop("duration", None)
        out.append(data)
    return out


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def tools(*functions) -> list[op.Tool]:
    return [op.function(f, register_globally=False) for f in functions]


@pytest.fixture
def cassette(tmp_path):
    """A two-round recording: call add, then answer."""
    path = tmp_path / "run.json"
    script = [op.ToolCall(name="add", arguments={"a": 2, "b": 3}), "It is 5."]
    op.Runtime(model=op.ScriptedModel(script), record=path).exec("What is 2 + 3?", tools=tools(add))
    return path
