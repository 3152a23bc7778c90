"""A tool that runs only as a task (``execution.taskSupport: "required"``: server-everything's
``simulate-research-query``) is left off the menu with a warning naming it, instead of being
offered and failing every call with -32601."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools.registry import default_registry
from tests.tool_sources.reference_servers import everything_command


def test_a_task_only_tool_is_left_off_with_a_warning_naming_it(runtime):
    with pytest.warns(UserWarning, match=r"not offered: 'simulate-research-query': it runs only as an MCP task"):
        server = op.mcp(command=everything_command(), name="ev", runtime=runtime)
    assert "ev_simulate-research-query" not in [tool.name for tool in server.tools]
    assert default_registry.get("ev_simulate-research-query") is None
    assert list(server.left_off) == ["simulate-research-query"]
    assert "ev_echo" in [tool.name for tool in server.tools]  # the others are offered
