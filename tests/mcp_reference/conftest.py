"""Fixtures for the tests against the npm MCP reference server (server-everything)."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools.registry import default_registry
from tests.tool_sources.reference_servers import everything_command


@pytest.fixture(autouse=True)
def clean_registry():
    default_registry.clear()
    yield
    default_registry.clear()


@pytest.fixture
def runtime():
    rt = op.Runtime(model="offline")
    yield rt
    rt.close()


@pytest.fixture
def everything(runtime):
    """server-everything over stdio, its tools prefixed ``ev_``."""
    return op.mcp(command=everything_command(), name="ev", runtime=runtime)
