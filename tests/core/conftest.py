from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools.registry import default_registry


@pytest.fixture(autouse=True)
def clean_registry():
    """Every test starts and ends with an empty global registry."""
    default_registry.clear()
    yield
    default_registry.clear()


def call(name: str, **arguments) -> op.ToolCall:
    return op.ToolCall(name=name, arguments=arguments)


def results(run: op.Run) -> list[op.ToolResultMessage]:
    return [m for m in run.messages if isinstance(m, op.ToolResultMessage)]
