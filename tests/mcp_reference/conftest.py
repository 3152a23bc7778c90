"""Fixtures for the tests against the npm MCP reference server (server-everything)."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from tests import registry_fixtures
from tests.tool_sources.reference_servers import everything_command

# The shared fixtures, used here by name (tests/registry_fixtures.py).
clean_registry = registry_fixtures.clean_registry
runtime = registry_fixtures.runtime


@pytest.fixture
def everything(runtime):
    """server-everything over stdio, its tools prefixed ``ev_`` (its task-only tool left off,
    with the warning that says so: test_task_only_tools.py)."""
    with pytest.warns(UserWarning, match="not offered"):
        return op.mcp(command=everything_command(), name="ev", runtime=runtime)
